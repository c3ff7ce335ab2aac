/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_rmr_query(3DAT); clauses in clauses/dat_rmr_query.toml.
 */
#include "rmr_common.h"

/* Every mask bit alone, then ALL: the IA, the PZ, and the binding `want`,
 * `priv`, `ctx` the last bind made. */
static void assert_binding(struct dc_ctx *t, const struct win *w, DAT_LMR_TRIPLET want,
			   DAT_MEM_PRIV_FLAGS priv, DAT_RMR_CONTEXT ctx)
{
	DAT_RMR_PARAM q;

	for (unsigned int bit = 1; bit <= DAT_RMR_FIELD_ALL; bit <<= 1) {
		memset(&q, 0xa5, sizeof(q));
		DC_ASSERT_SUCCESS(dat_rmr_query(w->rmr, (DAT_RMR_PARAM_MASK)bit, &q));
		if (bit == DAT_RMR_FIELD_IA_HANDLE)
			DC_ASSERT_IA_HANDLE(q.ia_handle, t->ia);
		if (bit == DAT_RMR_FIELD_PZ_HANDLE)
			DC_ASSERT_PTR_EQ(q.pz_handle, w->p.a.pz);
		if (bit == DAT_RMR_FIELD_LMR_TRIPLET)
			DC_ASSERT(q.lmr_triplet.lmr_context == want.lmr_context &&
				  q.lmr_triplet.virtual_address == want.virtual_address &&
				  q.lmr_triplet.segment_length == want.segment_length,
				  "lmr_triplet {0x%x, 0x%llx, %llu}, bound {0x%x, 0x%llx, %llu}",
				  (unsigned int)q.lmr_triplet.lmr_context,
				  (unsigned long long)q.lmr_triplet.virtual_address,
				  (unsigned long long)q.lmr_triplet.segment_length,
				  (unsigned int)want.lmr_context,
				  (unsigned long long)want.virtual_address,
				  (unsigned long long)want.segment_length);
		if (bit == DAT_RMR_FIELD_MEM_PRIV)
			DC_ASSERT_EQ(q.mem_priv, priv);
		if (bit == DAT_RMR_FIELD_RMR_CONTEXT)
			DC_ASSERT_EQ(q.rmr_context, ctx);
	}
	memset(&q, 0xa5, sizeof(q));
	DC_ASSERT_SUCCESS(dat_rmr_query(w->rmr, DAT_RMR_FIELD_ALL, &q));
	DC_ASSERT_IA_HANDLE(q.ia_handle, t->ia);
	DC_ASSERT_PTR_EQ(q.pz_handle, w->p.a.pz);
	DC_ASSERT_EQ(q.lmr_triplet.lmr_context, want.lmr_context);
	DC_ASSERT_EQ(q.lmr_triplet.segment_length, want.segment_length);
	DC_ASSERT_EQ(q.mem_priv, priv);
	DC_ASSERT_EQ(q.rmr_context, ctx);
}

/*
 * The first binding, then each rebind (dat_rmr_bind(3DAT) DESCRIPTION: a
 * bind replaces the binding and its context): another range, each remote
 * privilege alone, another LMR.  The query reports the binding in force.
 */
DC_CASE(dat_rmr_query, fills_requested,
	.summary = "for a bound RMR, after each rebind, every mask bit alone and ALL give IA, PZ, triplet, privileges and context")
{
	static const struct { unsigned lmr; DAT_VLEN off, len; DAT_MEM_PRIV_FLAGS priv; } binds[] = {
		{ 0, 512, 1024, DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG },
		{ 0, 0, 256, DAT_MEM_PRIV_REMOTE_READ_FLAG },
		{ 1, 128, 512, DAT_MEM_PRIV_REMOTE_WRITE_FLAG },
	};
	struct win w;
	struct dc_lmr m2;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_lmr(t, w.p.a.pz, BUF, DC_PRIV_LOCAL, &m2);
	for (unsigned k = 0; k < sizeof(binds) / sizeof(binds[0]); k++) {
		const struct dc_lmr *m = binds[k].lmr ? &m2 : &w.m;
		DAT_RMR_CONTEXT ctx = dc_bind_rmr(t, w.rmr, m, binds[k].off, binds[k].len,
						  binds[k].priv, &w.p.a, k + 1);

		assert_binding(t, &w, dc_iov(m, binds[k].off, binds[k].len), binds[k].priv, ctx);
	}
}

DC_CASE(dat_rmr_query, unbound_undefined,
	.summary = "an unbound RMR can be queried; IA and PZ are right")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_RMR_HANDLE rmr = dc_rmr(t, pz);
	DAT_RMR_PARAM q;

	memset(&q, 0, sizeof(q));
	DC_ASSERT_SUCCESS(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q));
	DC_ASSERT_IA_HANDLE(q.ia_handle, t->ia);
	DC_ASSERT_PTR_EQ(q.pz_handle, pz);
}

DC_CASE(dat_rmr_query, invalid_mask,
	.summary = "mask bits no RMR parameter has give DAT_INVALID_PARAMETER")
{
	DAT_RMR_HANDLE rmr = dc_rmr(t, dc_pz(t));
	struct dc_snap s;
	DAT_RMR_PARAM q;

	dc_snapshot(t, DC_OBJ_RMR, rmr, &s);
	DC_ASSERT_RET(dat_rmr_query(rmr, (DAT_RMR_PARAM_MASK)dc_mask_bit_above(DAT_RMR_FIELD_ALL), &q), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_rmr_query(rmr, (DAT_RMR_PARAM_MASK)0x80000000u, &q),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_rmr_query, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE/RMR")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_RMR_PARAM q;

	DC_ASSERT_INVALID_HANDLE(dat_rmr_query(DAT_HANDLE_NULL, DAT_RMR_FIELD_ALL, &q), 1, RMR);
	DC_ASSERT_INVALID_HANDLE(dat_rmr_query((DAT_RMR_HANDLE)pz, DAT_RMR_FIELD_ALL, &q), 1, RMR);
}

/* The same for a freed RMR: a case of its own, since only a provider that
 * makes RMRs has one to free (dat_ia_query(3DAT): max_rmrs may be 0). */
DC_CASE(dat_rmr_query, invalid_handle_freed,
	.clauses = "dat_rmr_query.invalid_handle",
	.summary = "a freed RMR gives DAT_INVALID_HANDLE/RMR")
{
	DAT_RMR_HANDLE rmr = dc_rmr(t, dc_pz(t));
	DAT_RMR_PARAM q;

	DC_SETUP(dat_rmr_free(rmr));
	DC_ASSERT_INVALID_HANDLE(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &q), 1, RMR);
}
