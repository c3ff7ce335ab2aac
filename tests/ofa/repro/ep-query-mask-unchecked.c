/* SPDX-License-Identifier: MIT */
/*
 * Finding ep-query-mask-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_query with a mask whose only bit names no EP parameter (the first
 * bit above DAT_EP_FIELD_ALL of the DAT 2.0 headers). dat_ep_query(3DAT)
 * RETURN VALUES: DAT_INVALID_PARAMETER for an invalid ep_param_mask.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_EP_PARAM_MASK unused = 1;
	struct repro_end s;
	DAT_EP_PARAM param;
	DAT_RETURN r = repro_end(ia, &s);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the EP failed: %s", REPRO_RET(r));
	while (unused & DAT_EP_FIELD_ALL)
		unused <<= 1;
	r = dat_ep_query(s.ep, unused, &param);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_ep_query with mask 0x%llx, which names no EP "
				 "parameter, returned DAT_SUCCESS", (unsigned long long)unused);
	return repro_say(REPRO_ABSENT, "mask 0x%llx is refused with %s", (unsigned long long)unused,
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "ep-query-mask-unchecked", .body = body)
