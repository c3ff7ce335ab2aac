/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-ep-recv-iov-checked (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_create_with_srq with max_recv_iov far above the IA's
 * max_iov_segments_per_dto (100 times, plus one), the rest as the suite's
 * defaults. dat_ep_create_with_srq(3DAT) DESCRIPTION: max_recv_iov is
 * ignored for an EP on an SRQ (its Receives come from the SRQ), so it cannot
 * make the create fail.
 */
#include "repro_srq.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_srq_kit k;
	DAT_EP_HANDLE ep;
	DAT_RETURN r;

	if ((r = repro_srq_kit(ia, &k)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ and EVDs failed: %s", REPRO_RET(r));
	r = repro_srq_ep(ia, &k, &ep);
	printf("dat_ep_create_with_srq(max_recv_iov %d): %s\n", (int)k.attr.max_recv_iov,
	       REPRO_RET(r));
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the EP with default attributes was refused");
	k.attr.max_recv_iov = k.ia_attr.max_iov_segments_per_dto * 100 + 1;
	r = repro_srq_ep(ia, &k, &ep);
	printf("IA max_iov_segments_per_dto %d; dat_ep_create_with_srq(max_recv_iov %d): %s\n",
	       (int)k.ia_attr.max_iov_segments_per_dto, (int)k.attr.max_recv_iov, REPRO_RET(r));
	fflush(stdout);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "max_recv_iov was ignored, the EP was made");
	return repro_say(REPRO_SHOWS, "the ignored max_recv_iov made the create fail with %s",
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "srq-ep-recv-iov-checked", .body = body)
