/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_pz_free(3DAT); clauses in clauses/dat_pz_free.toml.
 */
#include "../lmr/mem_common.h"

DC_CASE(dat_pz_free, destroys_unused,
	.summary = "an unused PZ is freed; its IA then closes gracefully")
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;

	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &async, &ia2));
	DC_SETUP(dat_pz_create(ia2, &pz));
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
	/* collateral: dat_pz_free(3DAT) DESCRIPTION: the PZ is destroyed, and a
	 * graceful close, refused while objects remain, is how that shows */
	DC_ASSERT_SUCCESS(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
}

/*
 * The PZ refuses to go while `user` lives and is left unchanged, then goes.
 * dat_pz_free(3DAT) DESCRIPTION asks for the refusal and no change; whether
 * the PZ can take new objects is another page's matter (an RMR probe failed
 * providers without RMRs), so it is not judged here.
 */
static void refused_then_freed(struct dc_ctx *t, DAT_PZ_HANDLE pz, DAT_RETURN (*free_user)(DAT_HANDLE),
			       DAT_HANDLE user)
{
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_PZ, pz, &s);
	/* dat_pz_free(3DAT) RETURN VALUES name no subtype: none, or the right one */
	DC_ASSERT_RET_SUB_OR_NONE(dat_pz_free(pz), DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE);
	DC_ASSERT_UNCHANGED(&s);
	DC_SETUP(free_user(user));
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
}

static DAT_RETURN free_ep(DAT_HANDLE h) { return dat_ep_free(h); }
static DAT_RETURN free_lmr(DAT_HANDLE h) { return dat_lmr_free(h); }
static DAT_RETURN free_rmr(DAT_HANDLE h) { return dat_rmr_free(h); }

DC_CASE(dat_pz_free, refused_while_ep_uses,
	.clauses = "dat_pz_free.refused_while_in_use",
	.summary = "a PZ an EP uses: INVALID_STATE/PZ_IN_USE, still usable, frees after dat_ep_free")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	DAT_EP_HANDLE ep = dc_ep(t, pz, evd, evd, cevd, NULL);

	refused_then_freed(t, pz, free_ep, ep);
}

DC_CASE(dat_pz_free, refused_while_lmr_uses,
	.clauses = "dat_pz_free.refused_while_in_use",
	.summary = "a PZ an LMR uses: INVALID_STATE/PZ_IN_USE, still usable, frees after dat_lmr_free")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_lmr m;

	dc_lmr(t, pz, BUF, DC_PRIV_LOCAL, &m);
	refused_then_freed(t, pz, free_lmr, m.lmr);
}

DC_CASE(dat_pz_free, refused_while_rmr_uses,
	.clauses = "dat_pz_free.refused_while_in_use",
	.summary = "a PZ an RMR uses (an LMR where the IA has no RMRs): INVALID_STATE/PZ_IN_USE, still usable, frees after dat_rmr_free")
{
	DAT_PZ_HANDLE pz = dc_pz(t);

	/* an IA may have no RMRs (dat_ia_query(3DAT) Max RMRs, no floor): that
	 * kind is skipped, noted, and the rule judged with an LMR */
	if (t->ia_attr.max_rmrs <= 0) {
		struct dc_lmr m;

		dc_note(t, "the IA has no RMRs (max_rmrs 0): the rule is judged with an LMR instead");
		dc_lmr(t, pz, BUF, DC_PRIV_LOCAL, &m);
		refused_then_freed(t, pz, free_lmr, m.lmr);
		return;
	}
	refused_then_freed(t, pz, free_rmr, dc_rmr(t, pz));
}

/*
 * The same rule for the users the pages let reach a PZ another way than by
 * being created in it: an EP moved into it by dat_ep_modify (dat_ep_modify(3DAT)
 * DESCRIPTION: the PZ of an UNCONNECTED EP can be changed), an LMR registered
 * over another LMR's memory (dat_lmr_create(3DAT), DAT_MEM_TYPE_LMR: the new
 * LMR is in the PZ it names, not the original's), an EP made on an SRQ.
 */
DC_CASE(dat_pz_free, refused_while_ep_moved_in,
	.clauses = "dat_pz_free.destroys_unused dat_pz_free.refused_while_in_use",
	.summary = "an EP moved by dat_ep_modify: the PZ it left frees, the one it joined is in use")
{
	DAT_PZ_HANDLE from = dc_pz(t), to = dc_pz(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	DAT_EP_HANDLE ep = dc_ep(t, from, evd, evd, cevd, NULL);
	DAT_EP_PARAM nv;

	memset(&nv, 0, sizeof(nv));
	nv.pz_handle = to;
	DC_SETUP(dat_ep_modify(ep, DAT_EP_FIELD_PZ_HANDLE, &nv));
	DC_FOR_CLAUSE("dat_pz_free.destroys_unused");
	DC_ASSERT_SUCCESS(dat_pz_free(from));		/* nothing uses it any more */
	DC_FOR_CLAUSE("dat_pz_free.refused_while_in_use");
	refused_then_freed(t, to, free_ep, ep);
}

DC_CASE(dat_pz_free, refused_while_lmr_over_lmr_uses,
	.clauses = "dat_pz_free.refused_while_in_use",
	.summary = "a PZ only an LMR over another PZ's LMR uses: INVALID_STATE, frees after that LMR's free")
{
	DAT_PZ_HANDLE pz = dc_pz(t), other = dc_pz(t);
	struct dc_lmr orig, over;

	dc_lmr(t, other, BUF, DC_PRIV_LOCAL, &orig);
	DC_SETUP(lmr_of_lmr(t, orig.lmr, BUF, pz, DC_PRIV_LOCAL, &over, &orig));
	refused_then_freed(t, pz, free_lmr, over.lmr);
}

DC_CASE(dat_pz_free, refused_while_srq_ep_uses,
	.clauses = "dat_pz_free.refused_while_in_use",
	.summary = "the PZ of an EP made on an SRQ of another PZ (a plain EP where the IA has no such EPs): INVALID_STATE, frees after dat_ep_free")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	DAT_SRQ_HANDLE srq;

	/* an IA may have no SRQs, or keep an SRQ's EPs in its PZ
	 * (dat_ia_query(3DAT) SRQ supported, SRQ EP PZ difference supported):
	 * that kind is skipped, noted, and the rule judged with a plain EP */
	if (!t->prov_attr.srq_supported || !t->prov_attr.srq_ep_pz_difference_supported) {
		dc_note(t, "the IA has no EP on an SRQ of another PZ: the rule is judged with a plain EP");
		refused_then_freed(t, pz, free_ep, dc_ep(t, pz, evd, evd, cevd, NULL));
		return;
	}
	srq = dc_srq(t, dc_pz(t), 4, 1, DAT_SRQ_LW_DEFAULT);
	refused_then_freed(t, pz, free_ep, dc_ep_with_srq(t, pz, evd, evd, cevd, srq, NULL));
}

DC_CASE(dat_pz_free, stale_handle_fails,
	.summary = "a freed PZ is refused by dat_pz_query, dat_lmr_create, dat_rmr_create and dat_ep_create")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	struct dc_lmr m;
	DAT_PZ_PARAM p;
	static unsigned char buf[BUF];

	DC_SETUP(dat_pz_free(pz));
	/* collateral: dat_pz_free(3DAT) DESCRIPTION: once the PZ is destroyed
	 * every operation handed it fails, so each creator taking a PZ is
	 * asked */
	DC_ASSERT_INVALID_HANDLE(dat_pz_query(pz, DAT_PZ_FIELD_ALL, &p), 1, PZ);
	/* collateral: dat_pz_free(3DAT) DESCRIPTION: as above */
	DC_ASSERT_INVALID_HANDLE(dc_lmr_register(t->ia, pz, buf, BUF, DC_PRIV_LOCAL, &m), 5, PZ);
	if (t->ia_attr.max_rmrs > 0) {
		/* collateral: dat_pz_free(3DAT) DESCRIPTION: as above */
		DC_ASSERT_INVALID_HANDLE(dat_rmr_create(pz, &rmr), 1, PZ);
	} else {
		/* collateral: dat_pz_free(3DAT) DESCRIPTION: as above.  An IA
		 * without RMRs meets two listed errors at once
		 * (dat_rmr_create(3DAT) RETURN VALUES) and the pages do not
		 * order them: the call must fail, either way */
		DC_ASSERT_RET_ANY(dat_rmr_create(pz, &rmr), DAT_INVALID_HANDLE,
				  DAT_INSUFFICIENT_RESOURCES);
	}
	/* collateral: dat_pz_free(3DAT) DESCRIPTION: as above */
	DC_ASSERT_INVALID_HANDLE(dat_ep_create(t->ia, pz, evd, evd, cevd, NULL, &ep), 2, PZ);
}

DC_CASE(dat_pz_free, free_again,
	.summary = "a second dat_pz_free of the same PZ returns SUCCESS or INVALID_HANDLE and harms nothing")
{
	DAT_PZ_HANDLE pz = dc_pz(t), other;
	DAT_RETURN r;

	DC_SETUP(dat_pz_free(pz));
	r = dat_pz_free(pz);
	DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_INVALID_HANDLE);
	/* collateral: dat_pz_free(3DAT) DESCRIPTION: the second free is allowed
	 * either answer but no harm, so the IA still makes a PZ */
	DC_ASSERT_SUCCESS(dat_pz_create(t->ia, &other));
}

DC_CASE(dat_pz_free, invalid_handle,
	.summary = "NULL and an EVD handle give DAT_INVALID_HANDLE/PZ; the EVD is unchanged")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	DC_ASSERT_INVALID_HANDLE(dat_pz_free(DAT_HANDLE_NULL), 1, PZ);
	DC_ASSERT_INVALID_HANDLE(dat_pz_free((DAT_PZ_HANDLE)evd), 1, PZ);
	DC_ASSERT_UNCHANGED(&s);
}
