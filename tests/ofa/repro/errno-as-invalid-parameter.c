/* SPDX-License-Identifier: MIT */
/*
 * Finding errno-as-invalid-parameter (docs/certification/ofa-dapl-2.1.10/):
 * identical dat_ep_create calls (one PZ, one DTO EVD of 16 entries and one
 * connection EVD shared by all, default attributes) until the first one is
 * refused, or 200 EPs. dat_ep_create(3DAT) RETURN VALUES:
 * DAT_INSUFFICIENT_RESOURCES when the operation fails for lack of
 * resources, DAT_INVALID_PARAMETER for an invalid parameter or combination;
 * a call identical to ones that succeeded has no invalid parameter.
 */
#include "repro.h"

#define BOUND 200

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_end s;
	DAT_EP_HANDLE ep;
	DAT_RETURN r = repro_end(ia, &s);
	int n = 1;

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the first EP failed: %s", REPRO_RET(r));
	while (n < BOUND &&
	       (r = dat_ep_create(ia, s.pz, s.dto, s.dto, s.conn, NULL, &ep)) == DAT_SUCCESS)
		n++;
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_SHOWS, "after %d identical EPs, the next dat_ep_create "
				 "returned %s", n, REPRO_RET(r));
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "%d identical EPs made, none refused", n);
	return repro_say(REPRO_ABSENT, "after %d identical EPs, the next was refused with %s", n,
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "errno-as-invalid-parameter", .body = body, .timeout_s = 60)
