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

/* ---- a sync from inside an abrupt dat_ia_close ----------------------------- */

struct close_sync {
	DAT_LMR_TRIPLET seg;	/* of an LMR the close has destroyed by then */
	DAT_RETURN none, one;
};

static void sync_closing(DAT_IA_HANDLE ia, void *arg)
{
	struct close_sync *c = arg;

	c->none = dat_lmr_sync_rdma_read(ia, NULL, 0);
	c->one = dat_lmr_sync_rdma_read(ia, &c->seg, 1);
}

DC_CASE(dat_lmr_sync_rdma_read, closing_ia,
	.summary = "from the agent upcall of an abrupt dat_ia_close: no segment gives DAT_INVALID_HANDLE or DAT_SUCCESS; a segment of a destroyed LMR is refused")
{
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz;
	struct dc_lmr m;
	struct close_sync c = { .none = DAT_SUCCESS, .one = DAT_SUCCESS };

	DC_SETUP(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2));
	DC_SETUP(dat_pz_create(ia2, &pz));
	m.buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, BUF);
	DC_SETUP_ASSERT(m.buf, "out of memory");
	DC_SETUP(dc_lmr_register(ia2, pz, m.buf, BUF, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_READ_FLAG, &m));
	c.seg = dc_iov(&m, 0, 256);
	dc_close_with_agent_call(t, ia2, sync_closing, &c);
	dc_note(t, "during the close: no segment %s, one segment %s", dc_ret_text(c.none),
		dc_ret_text(c.one));
	DC_ASSERT(c.none == DAT_SUCCESS || DAT_GET_TYPE(c.none) == DAT_INVALID_HANDLE,
		  "dat_lmr_sync_rdma_read(no segment) on the IA being closed returned %s, expected "
		  "DAT_INVALID_HANDLE (or DAT_SUCCESS)", dc_ret_text(c.none));
	DC_ASSERT(DAT_GET_TYPE(c.one) == DAT_INVALID_HANDLE ||
		  DAT_GET_TYPE(c.one) == DAT_INVALID_PARAMETER,
		  "dat_lmr_sync_rdma_read of a segment of a destroyed LMR returned %s, expected "
		  "DAT_INVALID_HANDLE or DAT_INVALID_PARAMETER", dc_ret_text(c.one));
}
