/* SPDX-License-Identifier: MIT */
/*
 * Finding negative-segments-internal-error (docs/certification/ofa-dapl-2.1.10/): each
 * post of a connected pair's EP, and a Receive, with num_segments -1 and one valid
 * triplet. The pages' PARAMETERS make num_segments the number of triplets in local_iov,
 * so -1 is no count at all; RETURN VALUES give DAT_INVALID_PARAMETER for an invalid
 * parameter (DAT_LENGTH_ERROR is taken too), and DAT_INTERNAL_ERROR is not among them.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p = { 0 };
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rmr;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	void *buf = calloc(1, 4096);
	DAT_RETURN r[4];
	static const char *const what[4] = { "dat_ep_post_recv", "dat_ep_post_send",
					     "dat_ep_post_rdma_write", "dat_ep_post_rdma_read" };
	char b[4][160];
	int bad = 0;

	if (!buf || (r[0] = repro_pair(ia, &p)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting a pair failed");
	if ((r[0] = repro_lmr(ia, p.a.pz, buf, 4096, DAT_MEM_PRIV_ALL_FLAG, &lmr,
			      &iov.lmr_context, &rctx)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_lmr_create returned %s", REPRO_RET(r[0]));
	iov.virtual_address = (DAT_VADDR)(uintptr_t)buf;
	iov.segment_length = 256;
	rmr.rmr_context = rctx;
	rmr.virtual_address = (DAT_VADDR)(uintptr_t)buf + 1024;
	rmr.segment_length = 256;
	r[0] = dat_ep_post_recv(p.a.ep, -1, &iov, (DAT_DTO_COOKIE){ .as_64 = 1 },
				DAT_COMPLETION_DEFAULT_FLAG);
	r[1] = dat_ep_post_send(p.a.ep, -1, &iov, (DAT_DTO_COOKIE){ .as_64 = 2 },
				DAT_COMPLETION_DEFAULT_FLAG);
	r[2] = dat_ep_post_rdma_write(p.a.ep, -1, &iov, (DAT_DTO_COOKIE){ .as_64 = 3 }, &rmr,
				      DAT_COMPLETION_DEFAULT_FLAG);
	r[3] = dat_ep_post_rdma_read(p.a.ep, -1, &iov, (DAT_DTO_COOKIE){ .as_64 = 4 }, &rmr,
				     DAT_COMPLETION_DEFAULT_FLAG);
	for (int i = 0; i < 4; i++) {
		repro_ret(r[i], b[i], sizeof(b[i]));
		bad += DAT_GET_TYPE(r[i]) == DAT_INTERNAL_ERROR;
	}
	printf("num_segments -1: %s -> %s; %s -> %s; %s -> %s; %s -> %s\n", what[0], b[0], what[1],
	       b[1], what[2], b[2], what[3], b[3]);
	if (bad)
		return repro_say(REPRO_SHOWS, "%d of the four posts with num_segments -1 returned "
				 "DAT_INTERNAL_ERROR, which no RETURN VALUES list", bad);
	return repro_say(REPRO_ABSENT, "no post with num_segments -1 returned DAT_INTERNAL_ERROR");
}

REPRO_MAIN(.finding = "negative-segments-internal-error", .body = body, .timeout_s = 60)
