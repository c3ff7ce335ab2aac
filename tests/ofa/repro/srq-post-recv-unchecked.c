/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-post-recv-unchecked (docs/certification/ofa-dapl-2.1.10/): four
 * dat_srq_post_recv calls on a fresh SRQ, each with one bad buffer: an LMR registered
 * for local read only, an lmr_context no LMR was given, a segment running 104 bytes
 * past the end of its LMR, and an LMR of another PZ. dat_srq_post_recv(3DAT) RETURN
 * VALUES and dat_srq_create(3DAT) DESCRIPTION refuse each of them; none may be
 * DAT_SUCCESS.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const char *const what[4] = {
		"LMR without local write (want DAT_PRIVILEGES_VIOLATION)",
		"lmr_context of no LMR (want DAT_PRIVILEGES_VIOLATION)",
		"segment 104 bytes past its LMR's end (want DAT_INVALID_PARAMETER)",
		"LMR of another PZ (want DAT_PROTECTION_VIOLATION)",
	};
	DAT_SRQ_ATTR sa = { .max_recv_dtos = 8, .max_recv_iov = 1,
			    .low_watermark = DAT_SRQ_LW_DEFAULT };
	DAT_PZ_HANDLE pz, other;
	DAT_SRQ_HANDLE srq;
	DAT_LMR_TRIPLET iov[4];
	DAT_RMR_CONTEXT rctx;
	unsigned char *buf = aligned_alloc(4096, 3 * 4096);
	DAT_RETURN r;
	int accepted = 0;

	if (!buf || (r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = dat_pz_create(ia, &other)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "no buffer or no PZ");
	if ((r = dat_srq_create(ia, pz, &sa, &srq)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_srq_create returned %s", REPRO_RET(r));
	if ((r = repro_lmr_iov(ia, pz, buf, 256, DAT_MEM_PRIV_LOCAL_READ_FLAG, &iov[0],
			       &rctx)) != DAT_SUCCESS ||
	    (r = repro_lmr_iov(ia, pz, buf + 4096, 4096, DAT_MEM_PRIV_ALL_FLAG, &iov[1],
			       &rctx)) != DAT_SUCCESS ||
	    (r = repro_lmr_iov(ia, other, buf + 8192, 256, DAT_MEM_PRIV_ALL_FLAG, &iov[3],
			       &rctx)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_lmr_create returned %s", REPRO_RET(r));
	iov[2] = iov[1];
	iov[1].lmr_context = ~iov[1].lmr_context ^ 0x5a5a0000u;	/* given to no LMR */
	iov[1].segment_length = 256;
	iov[2].virtual_address += 4096 - 96;
	iov[2].segment_length = 200;
	for (int i = 0; i < 4; i++) {
		r = dat_srq_post_recv(srq, 1, &iov[i], (DAT_DTO_COOKIE){ .as_64 = i + 1 });
		printf("dat_srq_post_recv, %s -> %s\n", what[i], REPRO_RET(r));
		accepted += r == DAT_SUCCESS;
	}
	if (accepted)
		return repro_say(REPRO_SHOWS, "dat_srq_post_recv took %d of the 4 bad buffers "
				 "with DAT_SUCCESS", accepted);
	return repro_say(REPRO_ABSENT, "dat_srq_post_recv refused each of the 4 bad buffers");
}

REPRO_MAIN(.finding = "srq-post-recv-unchecked", .body = body, .timeout_s = 30)
