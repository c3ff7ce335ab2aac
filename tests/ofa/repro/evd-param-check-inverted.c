/* SPDX-License-Identifier: MIT */
/*
 * Finding evd-param-check-inverted (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_modify of an unconnected EP's recv_evd_handle to a live handle that
 * is not an EVD (the EP's PZ). dat_ep_modify(3DAT) RETURN VALUES:
 * DAT_INVALID_PARAMETER when one of the requested parameters is invalid.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_end s;
	DAT_EP_PARAM param;
	DAT_RETURN r = repro_end_param(ia, &s, &param);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making or querying the EP failed: %s", REPRO_RET(r));
	param.recv_evd_handle = (DAT_EVD_HANDLE)s.pz;
	r = dat_ep_modify(s.ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &param);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "a PZ as recv_evd_handle is refused with %s",
				 REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "dat_ep_modify with a PZ as recv_evd_handle returned %s, not "
			 "DAT_INVALID_PARAMETER", REPRO_RET(r));
}

REPRO_MAIN(.finding = "evd-param-check-inverted", .body = body,
	   .if_crash = "dat_ep_modify with a PZ as recv_evd_handle killed the process")
