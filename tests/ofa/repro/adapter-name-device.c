/* SPDX-License-Identifier: MIT */
/*
 * Finding adapter-name-device (docs/certification/ofa-dapl-2.1.10/):
 * dat_ia_query's adapter_name. dat_ia_query(3DAT) DESCRIPTION (IA attributes,
 * Adapter name): the name of the IA the Provider controls, the same as the
 * ia_name_ptr the Consumer gave dat_ia_open.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static DAT_IA_ATTR attr;
	DAT_EVD_HANDLE async;
	DAT_RETURN r = dat_ia_query(ia, &async, DAT_IA_FIELD_IA_ADAPTER_NAME, &attr, 0, NULL);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ia_query returned %s", REPRO_RET(r));
	attr.adapter_name[DAT_NAME_MAX_LENGTH - 1] = '\0';
	if (strcmp(attr.adapter_name, repro_ia_name))
		return repro_say(REPRO_SHOWS, "the IA opened as '%s' reports adapter_name '%s'",
				 repro_ia_name, attr.adapter_name);
	return repro_say(REPRO_ABSENT, "adapter_name is the IA name '%s'", repro_ia_name);
}

REPRO_MAIN(.finding = "adapter-name-device", .body = body)
