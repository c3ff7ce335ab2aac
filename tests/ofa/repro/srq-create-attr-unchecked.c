/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-create-attr-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_srq_create with max_recv_dtos -1 (max_recv_iov 1, default watermark).
 * dat_srq_create(3DAT) RETURN VALUES: an invalid parameter, here a negative
 * depth, is DAT_INVALID_PARAMETER; DAT_INSUFFICIENT_RESOURCES is for a valid
 * request the Provider has no room for.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_SRQ_ATTR a = { .max_recv_dtos = -1, .max_recv_iov = 1,
			   .low_watermark = DAT_SRQ_LW_DEFAULT };
	DAT_PZ_HANDLE pz;
	DAT_SRQ_HANDLE srq = DAT_HANDLE_NULL;
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_pz_create failed: %s", REPRO_RET(r));
	r = dat_srq_create(ia, pz, &a, &srq);
	printf("dat_srq_create(max_recv_dtos -1, max_recv_iov 1): %s\n", REPRO_RET(r));
	fflush(stdout);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "a depth of -1 is an invalid parameter");
	return repro_say(REPRO_SHOWS, "a depth of -1 gave %s, not DAT_INVALID_PARAMETER",
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "srq-create-attr-unchecked", .body = body)
