/* SPDX-License-Identifier: MIT */
/*
 * Finding accept-private-data-too-large (docs/certification/ofa-dapl-2.1.10/):
 * a Connection Request of the IA to itself is accepted with one byte more
 * private data than the IA's max_private_data_size. dat_cr_accept(3DAT)
 * PARAMETERS and RETURN VALUES: the size is at most that attribute, and a
 * larger one is DAT_INVALID_PARAMETER.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char pd[4096];
	DAT_PROVIDER_ATTR prov;
	DAT_EVD_HANDLE async;
	struct repro_pair p;
	DAT_COUNT size;
	DAT_RETURN r;

	if ((r = dat_ia_query(ia, &async, 0, NULL, DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE,
			      &prov)) != DAT_SUCCESS ||
	    (r = repro_pending_for(ia, &p)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting a Connection Request failed: %s",
				 REPRO_RET(r));
	size = prov.max_private_data_size + 1;
	if (size <= 0 || (size_t)size > sizeof(pd))
		return repro_say(REPRO_CANNOT, "max_private_data_size %d is out of this reproducer's "
				 "range", (int)prov.max_private_data_size);
	r = dat_cr_accept(p.cr, p.b.ep, size, pd);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "%d bytes (max_private_data_size %d + 1) were refused "
				 "with %s", (int)size, (int)prov.max_private_data_size, REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "dat_cr_accept with %d bytes of private data "
			 "(max_private_data_size %d + 1) returned %s, not DAT_INVALID_PARAMETER",
			 (int)size, (int)prov.max_private_data_size, REPRO_RET(r));
}

REPRO_MAIN(.finding = "accept-private-data-too-large", .body = body,
	   .if_crash = "dat_cr_accept with more private data than max_private_data_size killed "
		       "the process")
