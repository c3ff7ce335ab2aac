/* SPDX-License-Identifier: MIT */
/*
 * Finding recv-flags-fence-accepted (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_modify of an unconnected EP's recv_completion_flags to
 * DAT_COMPLETION_BARRIER_FENCE_FLAG. dat_ep_modify(3DAT) DESCRIPTION, "Recv
 * Completion Flags": Receive posting does not support the barrier-fence
 * flag, which applies to Request postings only; RETURN VALUES:
 * DAT_INVALID_PARAMETER for a requested parameter that is not supported.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_end s;
	DAT_EP_PARAM param;
	DAT_RETURN r = repro_end_param(ia, &s, &param);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making or querying the EP failed: %s", REPRO_RET(r));
	param.ep_attr.recv_completion_flags = DAT_COMPLETION_BARRIER_FENCE_FLAG;
	r = dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, &param);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_ep_modify accepted DAT_COMPLETION_BARRIER_FENCE_"
				 "FLAG as the EP's recv_completion_flags");
	return repro_say(REPRO_ABSENT, "the barrier-fence flag as recv_completion_flags is "
			 "refused with %s", REPRO_RET(r));
}

REPRO_MAIN(.finding = "recv-flags-fence-accepted", .body = body)
