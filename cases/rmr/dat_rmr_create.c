/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_rmr_create(3DAT); clauses in clauses/dat_rmr_create.toml.
 */
#include "rmr_common.h"

DC_CASE(dat_rmr_create, creates_rmr,
	.summary = "dat_rmr_create gives an RMR of the PZ and its IA, which holds the PZ",
	/* an IA reporting max_rmrs 0 answers DAT_INSUFFICIENT_RESOURCES (RETURN VALUES) */
	.requires = "ia.max_rmrs>0")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	DAT_HANDLE_TYPE type = DAT_HANDLE_TYPE_CR;
	DAT_RMR_PARAM p;

	DC_ASSERT_SUCCESS(dat_rmr_create(pz, &rmr));
	/* collateral: dat_rmr_create(3DAT) DESCRIPTION: what is made is an RMR */
	DC_ASSERT_SUCCESS(dat_get_handle_type(rmr, &type));
	DC_ASSERT_EQ(type, DAT_HANDLE_TYPE_RMR);
	memset(&p, 0, sizeof(p));
	/* collateral: dat_rmr_create(3DAT) DESCRIPTION: the RMR is in the given
	 * PZ, which its query reports */
	DC_ASSERT_SUCCESS(dat_rmr_query(rmr, DAT_RMR_FIELD_IA_HANDLE | DAT_RMR_FIELD_PZ_HANDLE, &p));
	DC_ASSERT_PTR_EQ(p.pz_handle, pz);
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	/* collateral: dat_rmr_create(3DAT) DESCRIPTION: an RMR in the PZ makes
	 * the PZ in use, which dat_pz_free refuses */
	DC_ASSERT_RET(dat_pz_free(pz), DAT_INVALID_STATE);
}

DC_CASE(dat_rmr_create, bindable,
	.summary = "a new RMR binds over an LMR of its PZ and completes with DAT_RMR_BIND_SUCCESS")
{
	struct win w;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RETURN r;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	iov = dc_iov(&w.m, 0, BUF);
	r = dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
	DC_ASSERT_SUCCESS(r);
	DC_ASSERT_DTO_STATUS(DC_ASSERT_BIND_EVENT(w.p.a.req_evd).status, DAT_RMR_BIND_SUCCESS);
}

/*
 * Two connections end on this side: a1 (PZ A) and a2 (PZ B).  A window of
 * PZ A, bound through a1, serves a1's peer and refuses a2's.
 */
DC_CASE(dat_rmr_create, pz_restricts_access,
	.summary = "a window of PZ A is reachable through an EP of PZ A only; the peer of a PZ B EP gets REMOTE_ACCESS")
{
	/* two connections at once, as few EVDs as the checks read: no
	 * endpoint posts a Receive (binds and RDMA Writes only) */
	struct dc_conn_opts few = { .few_evds = DC_IDLE_RECV | DC_SHARE_CR_EVD };
	struct win w;
	struct dc_pair q;
	struct dc_lmr src2;
	DAT_RMR_CONTEXT ctx;
	DAT_DTO_COMPLETION_STATUS st;

	win_setup(&w, DC_PRIV_LOCAL, &few);
	dc_pair_up(t, &q, 0, &few);		/* q.a is in its own PZ, not w's */
	ctx = dc_bind_rmr(t, w.rmr, &w.m, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 1);
	dc_fill(w.peer.buf, 256, 3);
	st = peer_write(&w, ctx, 0, 256, 2);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
	/* q.b writes to q.a, whose PZ is not the window's */
	dc_lmr(t, q.b.pz, BUF, DC_PRIV_LOCAL, &src2);
	dc_fill(src2.buf, 256, 200);
	st = dc_rdma_write(t, &q.b, &src2, 0, 256, dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)(w.m.buf + 1024), 256), 3);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_ERR_REMOTE_ACCESS);
	DC_ASSERT((dc_first_not(w.m.buf + 1024, 256, 0) < 0),
		  "a connection of another PZ wrote through the window");
}

DC_CASE(dat_rmr_create, invalid_handle,
	.summary = "NULL and an EVD handle give DAT_INVALID_HANDLE/PZ")
{
	DAT_RMR_HANDLE rmr;

	DC_ASSERT_INVALID_HANDLE(dat_rmr_create(DAT_HANDLE_NULL, &rmr), 1, PZ);
	DC_ASSERT_INVALID_HANDLE(dat_rmr_create((DAT_PZ_HANDLE)dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG), &rmr),
				 1, PZ);
}

/* The same for a freed PZ: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_rmr_create, invalid_handle_freed,
	.clauses = "dat_rmr_create.invalid_handle",
	.summary = "a freed PZ gives DAT_INVALID_HANDLE/PZ")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_RMR_HANDLE rmr;

	DC_SETUP(dat_pz_free(pz));
	DC_ASSERT_INVALID_HANDLE(dat_rmr_create(pz, &rmr), 1, PZ);
}

/*
 * dat_rmr_create(3DAT) RETURN VALUES: running out is DAT_INSUFFICIENT_RESOURCES,
 * at max_rmrs or earlier (also at once, for an IA without RMRs).  More RMRs
 * than the case will make is a bound of its own (review finding: max_rmrs >
 * 65536 or 0 was UNRESOLVED, an early refusal a FAIL).  Whether a free makes
 * room again the page does not say: noted, not judged.
 */
DC_CASE(dat_rmr_create, insufficient_resources,
	.summary = "RMRs are created up to max_rmrs or until the IA runs out; the refusal is DAT_INSUFFICIENT_RESOURCES")
{
	DAT_COUNT n = t->ia_attr.max_rmrs, made = 0;
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_RMR_HANDLE last = DAT_HANDLE_NULL, rmr = DAT_HANDLE_NULL;
	DAT_RETURN r = DAT_SUCCESS;

	if (n > 65536)
		DC_BEYOND_SUITE_BOUND("65536 RMRs", "the IA reports max_rmrs = %d", (int)n);
	while (made < n) {
		r = dat_rmr_create(pz, &last);
		if (r != DAT_SUCCESS)
			break;
		made++;
	}
	if (made < n) {
		dc_note(t, "creation stopped at %d of max_rmrs %d", (int)made, (int)n);
	} else {
		r = dat_rmr_create(pz, &rmr);
		if (r == DAT_SUCCESS) {
			dc_note(t, "the Provider created more than max_rmrs (%d) RMRs", n);
			/* a DAT_SUCCESS that made nothing is a refusal reported
			 * with the wrong code (dat_rmr_create(3DAT) RETURN VALUES) */
			DC_ASSERT(rmr != DAT_HANDLE_NULL,
				  "DAT_SUCCESS past max_rmrs, but no RMR handle was written");
			return;
		}
	}
	DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	if (made > 0) {
		DC_SETUP(dat_rmr_free(last));
		r = dat_rmr_create(pz, &rmr);
		dc_note(t, "after one free, dat_rmr_create returned %s (not judged)", dc_ret_text(r));
	}
}

/*
 * Out of memory (the allocation fault hook): each allocation of 40 creates
 * in a row failing in turn, dat_rmr_create gives DAT_INSUFFICIENT_RESOURCES
 * (dat_rmr_create(3DAT) RETURN VALUES) or an RMR of the PZ; once the RMRs
 * made are freed the IA closes gracefully (no refused create left one).
 */
struct oom_rmrs {
	DAT_PZ_HANDLE pz;
	DAT_RMR_HANDLE rmr[DC_ALLOC_FAULT_OBJECTS];
	int n;
};

static DAT_RETURN oom_rmr_make(struct dc_ctx *t, void *arg)
{
	struct oom_rmrs *o = arg;

	(void)t;
	return dat_rmr_create(o->pz, &o->rmr[o->n]);
}

static void oom_rmr_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct oom_rmrs *o = arg;
	DAT_RMR_PARAM p;

	memset(&p, 0, sizeof(p));
	/* collateral: dat_rmr_create(3DAT) RETURN VALUES: DAT_SUCCESS made an RMR of the PZ, which its query shows */
	DC_ASSERT_SUCCESS(dat_rmr_query(o->rmr[o->n], DAT_RMR_FIELD_ALL, &p));
	DC_ASSERT(p.pz_handle == o->pz, "an RMR made with an allocation failing reports PZ %p",
		  p.pz_handle);
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	if (keep)
		o->n++;
	else
		DC_CLEANUP(dat_rmr_free(o->rmr[o->n]));
}

DC_CASE(dat_rmr_create, out_of_memory,
	.clauses = "dat_rmr_create.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.requires = "ia.max_rmrs>0",
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES or a working RMR, and no RMR left behind")
{
	struct oom_rmrs o = { .pz = dc_pz(t) };
	struct dc_alloc_call c = { "dat_rmr_create", oom_rmr_make, oom_rmr_works, &o, NULL };
	int n = dc_within_limit(DC_ALLOC_FAULT_OBJECTS, t->ia_attr.max_rmrs);

	for (int i = 0; i < n; i++)
		if (dc_alloc_sweep(t, &c) < 0)
			break;
	for (int i = 0; i < o.n; i++)
		DC_CLEANUP(dat_rmr_free(o.rmr[i]));
	DC_CLEANUP(dat_pz_free(o.pz));
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}
