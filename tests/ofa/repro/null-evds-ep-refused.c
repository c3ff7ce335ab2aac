/* SPDX-License-Identifier: MIT */
/*
 * Finding null-evds-ep-refused (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_create with all three EVD handles DAT_HANDLE_NULL and the provider's
 * own attributes (ep_attributes NULL). dat_ep_create(3DAT) PARAMETERS: each
 * EVD may be DAT_HANDLE_NULL, and ep_attributes NULL asks for the provider's
 * defaults, so nothing in the call is the Consumer's to get wrong. The same
 * call with EVDs must succeed first, or the answer says nothing.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_end with_evds;
	DAT_EP_HANDLE ep;
	DAT_RETURN r = repro_end(ia, &with_evds);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "an EP with EVDs and the provider's attributes "
				 "failed too: %s", REPRO_RET(r));
	r = dat_ep_create(ia, with_evds.pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
			  NULL, &ep);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_ep_create with no EVDs and the provider's own "
				 "attributes returned %s (with EVDs: DAT_SUCCESS)", REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "an EP with no EVDs and the provider's attributes "
			 "was created");
}

REPRO_MAIN(.finding = "null-evds-ep-refused", .body = body)
