/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-query-mask-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_srq_query given masks with a bit above DAT_SRQ_FIELD_ALL (0x100), alone
 * and with every field. dat_srq_query(3DAT) RETURN VALUES: an invalid mask is
 * DAT_INVALID_PARAMETER.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_SRQ_ATTR a = { .max_recv_dtos = 8, .max_recv_iov = 1,
			   .low_watermark = DAT_SRQ_LW_DEFAULT };
	static const DAT_UINT64 masks[] = { DAT_SRQ_FIELD_ALL | 0x100, 0x100 };
	DAT_PZ_HANDLE pz;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	DAT_RETURN r;
	int accepted = 0;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = dat_srq_create(ia, pz, &a, &srq)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ failed: %s", REPRO_RET(r));
	for (int i = 0; i < 2; i++) {
		r = dat_srq_query(srq, (DAT_SRQ_PARAM_MASK)masks[i], &p);
		printf("dat_srq_query(srq, 0x%llx, &param): %s\n",
		       (unsigned long long)masks[i], REPRO_RET(r));
		accepted += r == DAT_SUCCESS;
	}
	fflush(stdout);
	if (accepted)
		return repro_say(REPRO_SHOWS, "%d of 2 masks with bit 0x100 (no field) returned "
				 "DAT_SUCCESS", accepted);
	return repro_say(REPRO_ABSENT, "both masks with bit 0x100 were refused");
}

REPRO_MAIN(.finding = "srq-query-mask-unchecked", .body = body)
