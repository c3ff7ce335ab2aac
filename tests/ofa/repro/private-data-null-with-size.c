/* SPDX-License-Identifier: MIT */
/*
 * Finding private-data-null-with-size (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_connect with private_data_size 1 and a NULL private_data.
 * dat_ep_connect(3DAT) PARAMETERS: private_data may be NULL only when the
 * size is zero; RETURN VALUES: DAT_INVALID_PARAMETER for an invalid parameter.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_EVD_HANDLE conn;
	DAT_EP_HANDLE ep;
	DAT_RETURN r = repro_ep(ia, &ep, &conn);

	if (r != DAT_SUCCESS || !self)
		return repro_say(REPRO_CANNOT, "making the EP or reading the IA address failed: %s",
				 REPRO_RET(r));
	printf("dat_ep_connect(ep, <own address>, 61998, 2 s, 1, NULL, ...) ...\n");
	fflush(stdout);
	r = dat_ep_connect(ep, self, 61998, 2000000, 1, NULL, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_DEFAULT_FLAG);
	printf("dat_ep_connect returned %s\n", REPRO_RET(r));
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "a NULL private_data with size 1 is refused with %s",
				 REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "dat_ep_connect with a NULL private_data of size 1 returned "
			 "%s, not DAT_INVALID_PARAMETER", REPRO_RET(r));
}

REPRO_MAIN(.finding = "private-data-null-with-size", .body = body,
	   .if_crash = "dat_ep_connect with a NULL private_data of size 1 killed the process")
