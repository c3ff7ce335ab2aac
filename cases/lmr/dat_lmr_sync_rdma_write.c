/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_lmr_sync_rdma_write(3DAT); clauses in
 * clauses/dat_lmr_sync_rdma_write.toml.  "a" RDMA-Writes into "b", then
 * Sends a notice (USAGE: the target learns of the Write by a message).
 */
#include "sync_common.h"

static void write_seen(struct dc_ctx *t, bool sync)
{
	struct dc_pair p;
	struct dc_lmr src, target, note, inbox;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COMPLETION_STATUS st;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &target);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &inbox);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &note);
	/* the Consumer reads the target range once before (old contents cached) */
	DC_SETUP_ASSERT((dc_first_not(target.buf, 1024, 0) < 0), "target not zeroed");
	dc_fill(src.buf, 1024, 71);
	dc_post_recv(t, p.b.ep, &inbox, 0, 64, 1);
	st = dc_rdma_write(t, &p.a, &src, 0, 1024, dc_rmr_iov(&target, 0, 1024), 2);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
	dc_send_sync(t, &p.a, &note, 0, 64, 3);
	dc_await_recv(t, &p.b, 1);
	if (sync) {
		iov = dc_iov(&target, 0, 1024);
		DC_ASSERT_SUCCESS(dat_lmr_sync_rdma_write(t->ia, &iov, 1));
	}
	DC_ASSERT(!memcmp(target.buf, src.buf, 1024),
		  "the Consumer does not see the bytes of the completed RDMA Write");
}

DC_CASE(dat_lmr_sync_rdma_write, makes_visible,
	.summary = "after an RDMA Write, its notice and the sync, the Consumer reads the written bytes")
{
	write_seen(t, true);
}

DC_CASE(dat_lmr_sync_rdma_write, needed_only_if_required,
	.summary = "with lmr_sync_req false, RDMA-Written bytes are visible without a sync",
	.requires = "!lmr_sync_req")
{
	write_seen(t, false);
}

SYNC_COMMON_CASES(dat_lmr_sync_rdma_write)
