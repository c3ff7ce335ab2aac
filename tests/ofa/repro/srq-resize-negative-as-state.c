/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-resize-negative-as-state (docs/certification/ofa-dapl-2.1.10/):
 * an empty SRQ of depth 8 (default low watermark) resized to -5 and to -1.
 * dat_srq_resize(3DAT) RETURN VALUES: an invalid parameter, here a depth no
 * queue can have, is DAT_INVALID_PARAMETER; DAT_INVALID_STATE is for a depth
 * below the outstanding buffers or the low watermark, and nothing is posted.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_SRQ_ATTR a = { .max_recv_dtos = 8, .max_recv_iov = 1,
			   .low_watermark = DAT_SRQ_LW_DEFAULT };
	static const DAT_COUNT sizes[] = { -5, -1 };
	DAT_PZ_HANDLE pz;
	DAT_SRQ_HANDLE srq;
	DAT_RETURN r, first = DAT_SUCCESS;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = dat_srq_create(ia, pz, &a, &srq)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ failed: %s", REPRO_RET(r));
	for (int i = 0; i < 2; i++) {
		r = dat_srq_resize(srq, sizes[i]);
		printf("dat_srq_resize(srq, %d): %s\n", sizes[i], REPRO_RET(r));
		if (i == 0)
			first = r;
	}
	fflush(stdout);
	if (DAT_GET_TYPE(first) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "a resize to -5 gave DAT_INVALID_PARAMETER");
	return repro_say(REPRO_SHOWS, "a resize to -5 of an empty SRQ gave %s, not "
			 "DAT_INVALID_PARAMETER", REPRO_RET(first));
}

REPRO_MAIN(.finding = "srq-resize-negative-as-state", .body = body)
