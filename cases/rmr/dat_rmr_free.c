/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_rmr_free(3DAT); clauses in clauses/dat_rmr_free.toml.
 */
#include "rmr_common.h"

DC_CASE(dat_rmr_free, destroys_unbound,
	.summary = "an unbound RMR is freed and releases its PZ")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_RMR_HANDLE rmr = dc_rmr(t, pz);

	DC_ASSERT_SUCCESS(dat_rmr_free(rmr));
	/* collateral: dat_rmr_free(3DAT) DESCRIPTION: the destroyed RMR no longer holds its PZ */
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
}

/* A bound RMR is freed and unbound first (dat_rmr_free(3DAT) DESCRIPTION),
 * so the LMR it was bound to last frees; `rebound`: bound once to another
 * LMR before (dat_rmr_bind(3DAT) DESCRIPTION: a bind replaces the binding). */
static void free_bound(struct dc_ctx *t, bool rebound)
{
	struct win w;
	struct dc_lmr m2;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_bind_rmr(t, w.rmr, &w.m, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 1);
	if (rebound) {
		dc_lmr(t, w.p.a.pz, BUF, DC_PRIV_LOCAL, &m2);
		dc_bind_rmr(t, w.rmr, &m2, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 2);
	}
	DC_ASSERT_SUCCESS(dat_rmr_free(w.rmr));
	/* collateral: dat_rmr_free(3DAT) DESCRIPTION: the RMR is unbound first, so its LMR frees */
	DC_ASSERT_SUCCESS(dat_lmr_free(rebound ? m2.lmr : w.m.lmr));
}

DC_CASE(dat_rmr_free, destroys_bound,
	.summary = "a bound RMR is freed (unbinding first); its LMR can then be freed")
{
	free_bound(t, false);
}

/*
 * The unbound state reached by a zero-length bind (dat_rmr_bind(3DAT)
 * DESCRIPTION) is freed like the never-bound one.
 */
DC_CASE(dat_rmr_free, destroys_unbound_by_zero_length,
	.clauses = "dat_rmr_free.destroys_unbound",
	.summary = "an RMR unbound by a zero-length bind is freed; the LMR it had is free to go")
{
	struct win w;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_bind_rmr(t, w.rmr, &w.m, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 1);
	dc_bind_rmr(t, w.rmr, &w.m, 0, 0, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 2);
	DC_ASSERT_SUCCESS(dat_rmr_free(w.rmr));
	DC_CLEANUP(dat_lmr_free(w.m.lmr));
}

DC_CASE(dat_rmr_free, destroys_rebound,
	.clauses = "dat_rmr_free.destroys_bound",
	.summary = "an RMR rebound to a second LMR is freed; that LMR can then be freed")
{
	free_bound(t, true);
}

DC_CASE(dat_rmr_free, stale_handle_fails,
	.summary = "a freed RMR handle is refused by dat_rmr_query and dat_rmr_bind")
{
	struct win w;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_PARAM p;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	DC_SETUP(dat_rmr_free(w.rmr));
	/* collateral: dat_rmr_free(3DAT) DESCRIPTION: every operation given the destroyed RMR's handle fails */
	DC_ASSERT_INVALID_HANDLE(dat_rmr_query(w.rmr, DAT_RMR_FIELD_ALL, &p), 1, RMR);
	iov = dc_iov(&w.m, 0, 64);
	DC_ASSERT_INVALID_HANDLE(dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov,
						 DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep,
						 dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG, &ctx),
				 1, RMR);
	DC_ASSERT_NO_EVENT(w.p.a.req_evd);
}

DC_CASE(dat_rmr_free, remote_use_after_free_fails,
	.summary = "RDMA Write with a freed RMR's context: REMOTE_ACCESS, memory untouched, connection ends")
{
	struct win w;
	DAT_RMR_CONTEXT ctx;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	ctx = dc_bind_rmr(t, w.rmr, &w.m, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 1);
	DC_SETUP(dat_rmr_free(w.rmr));
	dc_fill(w.peer.buf, 512, 5);
	DC_ASSERT_DTO_STATUS(peer_write(&w, ctx, 0, 512, 2), DAT_DTO_ERR_REMOTE_ACCESS);
	DC_ASSERT((dc_first_not(w.m.buf, BUF, 0) < 0), "the freed RMR's window was written");
	DC_ASSERT_CONN_END((&w.p.b)->conn_evd);
}

DC_CASE(dat_rmr_free, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE/RMR; the PZ is unchanged")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_PZ, pz, &s);
	DC_ASSERT_INVALID_HANDLE(dat_rmr_free(DAT_HANDLE_NULL), 1, RMR);
	DC_ASSERT_INVALID_HANDLE(dat_rmr_free((DAT_RMR_HANDLE)pz), 1, RMR);
	DC_ASSERT_UNCHANGED(&s);
	DC_CLEANUP(dat_pz_free(pz));
}
