/* SPDX-License-Identifier: MIT */
/*
 * Finding cno-handle-type-unknown (docs/certification/ofa-dapl-2.1.10/):
 * dat_get_handle_type on a live CNO. dat_get_handle_type(3DAT) DESCRIPTION:
 * the call gives the type of any DAT handle; DAT_HANDLE_TYPE_CNO is one of
 * the types it lists.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_CNO_HANDLE cno;
	DAT_HANDLE_TYPE type = (DAT_HANDLE_TYPE)-1;
	DAT_RETURN r = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_cno_create returned %s", REPRO_RET(r));
	r = dat_get_handle_type(cno, &type);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_get_handle_type of a live CNO returned %s",
				 REPRO_RET(r));
	if (type != DAT_HANDLE_TYPE_CNO)
		return repro_say(REPRO_SHOWS, "dat_get_handle_type of a live CNO gave type %d, "
				 "not DAT_HANDLE_TYPE_CNO (%d)", (int)type, (int)DAT_HANDLE_TYPE_CNO);
	return repro_say(REPRO_ABSENT, "dat_get_handle_type of a live CNO gives DAT_HANDLE_TYPE_CNO");
}

REPRO_MAIN(.finding = "cno-handle-type-unknown", .body = body)
