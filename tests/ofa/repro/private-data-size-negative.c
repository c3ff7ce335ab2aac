/* SPDX-License-Identifier: MIT */
/*
 * Finding private-data-size-negative (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_connect with private_data_size -1. dat_ep_connect(3DAT) PARAMETERS:
 * the size is nonnegative; RETURN VALUES: DAT_INVALID_PARAMETER for an
 * invalid parameter.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static unsigned char pdata[64];
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_EVD_HANDLE conn;
	DAT_EP_HANDLE ep;
	DAT_RETURN r = repro_ep(ia, &ep, &conn);

	if (r != DAT_SUCCESS || !self)
		return repro_say(REPRO_CANNOT, "making the EP or reading the IA address failed: %s",
				 REPRO_RET(r));
	r = dat_ep_connect(ep, self, 61999, 2000000, -1, pdata, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_DEFAULT_FLAG);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "private_data_size -1 is refused with %s", REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "dat_ep_connect with private_data_size -1 returned %s, not "
			 "DAT_INVALID_PARAMETER", REPRO_RET(r));
}

REPRO_MAIN(.finding = "private-data-size-negative", .body = body,
	   .if_crash = "dat_ep_connect with private_data_size -1 killed the process")
