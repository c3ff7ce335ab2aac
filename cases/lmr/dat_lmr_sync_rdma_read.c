/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_lmr_sync_rdma_read(3DAT); clauses in
 * clauses/dat_lmr_sync_rdma_read.toml.  "a" RDMA-Reads memory of "b".
 */
#include "sync_common.h"

/* b writes a pattern; (sync); a's RDMA Read must return it. */
static void read_sees(struct dc_ctx *t, bool sync)
{
	struct dc_pair p;
	struct dc_lmr src, dst;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COMPLETION_STATUS st;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_READ_FLAG, &src);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &dst);
	/* the first Read primes any cache on the path with the old contents */
	st = dc_rdma_read(t, &p.a, &dst, 0, 1024, dc_rmr_iov(&src, 0, 1024), 1);
	DC_SETUP_ASSERT(st == DAT_DTO_SUCCESS, "priming RDMA Read: %s", dc_dto_status_name(st));
	dc_fill(src.buf, 1024, 61);
	if (sync) {
		iov = dc_iov(&src, 0, 1024);
		DC_ASSERT_SUCCESS(dat_lmr_sync_rdma_read(t->ia, &iov, 1));
	}
	st = dc_rdma_read(t, &p.a, &dst, 0, 1024, dc_rmr_iov(&src, 0, 1024), 2);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(dst.buf, src.buf, 1024), "the RDMA Read did not see the Consumer's writes");
}

DC_CASE(dat_lmr_sync_rdma_read, makes_visible,
	.summary = "after the sync an RDMA Read returns what the Consumer wrote")
{
	read_sees(t, true);
}

DC_CASE(dat_lmr_sync_rdma_read, needed_only_if_required,
	.summary = "with lmr_sync_req false, an RDMA Read sees the Consumer's writes without a sync",
	.requires = "!lmr_sync_req")
{
	read_sees(t, false);
}

SYNC_COMMON_CASES(dat_lmr_sync_rdma_read)
