/* SPDX-License-Identifier: MIT */
/*
 * Finding ep-modify-mask-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_modify of a new EP with a mask bit that names no parameter
 * (0x80000000, outside DAT_EP_FIELD_ALL). dat_ep_modify(3DAT) RETURN VALUES:
 * DAT_INVALID_PARAMETER for an invalid ep_param_mask.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	const DAT_EP_PARAM_MASK bad = (DAT_EP_PARAM_MASK)0x80000000u;
	struct repro_end e;
	DAT_EP_PARAM p;
	DAT_RETURN r;

	_Static_assert(!(0x80000000u & DAT_EP_FIELD_ALL), "the bit names a parameter");
	if ((r = repro_end(ia, &e)) != DAT_SUCCESS ||
	    (r = dat_ep_query(e.ep, DAT_EP_FIELD_ALL, &p)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making and querying an EP failed: %s", REPRO_RET(r));
	r = dat_ep_modify(e.ep, bad, &p);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "mask 0x80000000 was refused with %s", REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "dat_ep_modify with mask 0x80000000 (no parameter) returned %s",
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "ep-modify-mask-unchecked", .body = body,
	   .if_crash = "dat_ep_modify with a mask naming no parameter killed the process")
