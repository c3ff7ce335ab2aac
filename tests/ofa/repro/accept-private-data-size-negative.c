/* SPDX-License-Identifier: MIT */
/*
 * Finding accept-private-data-size-negative (docs/certification/ofa-dapl-2.1.10/):
 * a Connection Request of the IA to itself is accepted with a negative
 * private_data_size. dat_cr_accept(3DAT) PARAMETERS and RETURN VALUES:
 * the size is nonnegative, and an invalid one is DAT_INVALID_PARAMETER.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char pd[64];
	struct repro_pair p;
	DAT_RETURN r;

	if ((r = repro_pending_for(ia, &p)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting a Connection Request failed: %s",
				 REPRO_RET(r));
	r = dat_cr_accept(p.cr, p.b.ep, -1, pd);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "private_data_size -1 was refused with %s",
				 REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "dat_cr_accept with private_data_size -1 returned %s",
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "accept-private-data-size-negative", .body = body,
	   .if_crash = "dat_cr_accept with a negative private_data_size killed the process")
