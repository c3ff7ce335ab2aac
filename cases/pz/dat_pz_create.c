/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_pz_create(3DAT); clauses in clauses/dat_pz_create.toml.
 */
#include "../lmr/mem_common.h"

DC_CASE(dat_pz_create, creates_pz,
	.summary = "dat_pz_create gives a PZ handle of this IA; two creates give two PZs")
{
	DAT_PZ_HANDLE a = DAT_HANDLE_NULL, b = DAT_HANDLE_NULL;
	DAT_HANDLE_TYPE type = DAT_HANDLE_TYPE_CR;
	DAT_PZ_PARAM p;

	DC_ASSERT_SUCCESS(dat_pz_create(t->ia, &a));
	DC_ASSERT_SUCCESS(dat_pz_create(t->ia, &b));
	DC_ASSERT(a != DAT_HANDLE_NULL && a != b, "PZ handles %p and %p", a, b);
	/* collateral: dat_pz_create(3DAT) DESCRIPTION: what is made is a PZ */
	DC_ASSERT_SUCCESS(dat_get_handle_type(a, &type));
	DC_ASSERT_EQ(type, DAT_HANDLE_TYPE_PZ);
	/* collateral: dat_pz_create(3DAT) DESCRIPTION: the PZ is the IA's, as its query reports */
	DC_ASSERT_SUCCESS(dat_pz_query(a, DAT_PZ_FIELD_ALL, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
}

/*
 * A Send whose segment is an LMR of another PZ than the EP's must not go
 * out: refused at the post, or completed in error; the receive it would
 * have used then takes the next, legitimate message. dat_pz_create(3DAT)
 * and dat_lmr_create(3DAT) DESCRIPTION promise the restriction, not a code:
 * which return or completion status names it is the DTO pages' clauses
 * (dat_ep_post_send.lmr_pz_mismatch and the completion statuses).
 */
DC_CASE(dat_pz_create, protects_local_access,
	.clauses = "dat_pz_create.protects_local_access dat_lmr_create.pz_restricts_local_access",
	.summary = "a Send from an LMR of another PZ is refused or completes in error, and nothing of it reaches the peer; one of the EP's PZ works")
{
	struct dc_pair p;
	struct dc_lmr foreign, own, dst;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_RETURN r;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, dc_pz(t), BUF, DC_PRIV_LOCAL, &foreign);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &own);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &dst);
	dc_fill(foreign.buf, 256, 1);
	dc_fill(own.buf, 256, 9);
	dc_post_recv(t, p.b.ep, &dst, 0, 256, 1);
	iov = dc_iov(&foreign, 0, 256);
	r = dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS) {
		dc_note(t, "the post was refused: %s", dc_ret_text(r));
		/* the connection is intact: the EP's own memory goes out */
		dc_send_sync(t, &p.a, &own, 0, 256, 3);
		d = dc_await_recv(t, &p.b, 1);
		DC_ASSERT(!memcmp(dst.buf, own.buf, 256),
			  "the receive did not get the legitimate message");
		return;
	}
	d = DC_ASSERT_DTO_EVENT(p.a.req_evd);
	DC_ASSERT(d.status != DAT_DTO_SUCCESS, "the Send from the foreign LMR completed successfully");
	dc_note(t, "the Send completed with %s", dc_dto_status_name(d.status));
	DC_ASSERT((dc_first_not(dst.buf, 256, 0) < 0), "bytes of the foreign LMR reached the peer");
}

DC_CASE(dat_pz_create, protects_remote_access,
	.summary = "RDMA Write into an LMR of another PZ than the target EP's fails with REMOTE_ACCESS")
{
	struct dc_pair p;
	struct dc_lmr src, target;
	DAT_DTO_COMPLETION_STATUS st;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_lmr(t, dc_pz(t), BUF, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &target);
	dc_fill(src.buf, 512, 5);
	st = dc_rdma_write(t, &p.a, &src, 0, 512, dc_rmr_iov(&target, 0, 512), 1);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_ERR_REMOTE_ACCESS);
	DC_ASSERT((dc_first_not(target.buf, BUF, 0) < 0), "the RDMA Write changed memory of another PZ");
}

DC_CASE(dat_pz_create, invalid_handle,
	.summary = "NULL and an EVD handle give DAT_INVALID_HANDLE/IA")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	DC_ASSERT_INVALID_HANDLE(dat_pz_create(DAT_HANDLE_NULL, &pz), 1, IA);
	DC_ASSERT_INVALID_HANDLE(dat_pz_create((DAT_IA_HANDLE)evd, &pz), 1, IA);
	DC_ASSERT_UNCHANGED(&s);
}

/* The same for a closed IA: a case of its own, so that a call that does
 * not survive the handle of a destroyed IA leaves the checks above
 * judged. */
DC_CASE(dat_pz_create, invalid_handle_freed,
	.clauses = "dat_pz_create.invalid_handle",
	.summary = "a closed IA gives DAT_INVALID_HANDLE/IA")
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;

	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &async, &ia2));
	DC_SETUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_INVALID_HANDLE(dat_pz_create(ia2, &pz), 1, IA);
}

DC_CASE(dat_pz_create, invalid_parameter,
	.summary = "a NULL pz_handle pointer gives DAT_INVALID_PARAMETER and creates nothing")
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;

	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &async, &ia2));
	DC_ASSERT_RET(dat_pz_create(ia2, NULL), DAT_INVALID_PARAMETER);
	/* collateral: dat_pz_create(3DAT) RETURN VALUES: the call is refused,
	 * so no PZ exists, and a graceful close (refused while objects remain)
	 * works */
	DC_ASSERT_SUCCESS(dat_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
}

DC_CASE(dat_pz_create, insufficient_resources,
	.summary = "PZs up to max_pzs are created; a refusal beyond is DAT_INSUFFICIENT_RESOURCES and a free makes room")
{
	DAT_COUNT n = t->ia_attr.max_pzs;
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL, last = DAT_HANDLE_NULL;
	DAT_RETURN r;

	DC_SETUP_ASSERT(n > 0 && n <= 65536, "max_pzs %d is not a count to exhaust here", n);
	for (DAT_COUNT i = 0; i < n; i++)
		DC_SETUP(dat_pz_create(t->ia, &last));
	r = dat_pz_create(t->ia, &pz);
	if (r == DAT_SUCCESS) {
		dc_note(t, "the Provider created more than max_pzs (%d) PZs", n);
		return;
	}
	DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	DC_SETUP(dat_pz_free(last));
	DC_ASSERT_SUCCESS(dat_pz_create(t->ia, &pz));
}

/*
 * Running out of memory is a lack of resources: with each allocation the
 * create makes failing in turn (the provider's allocation fault hook), it
 * returns DAT_INSUFFICIENT_RESOURCES (dat_pz_create(3DAT) RETURN VALUES) or
 * a PZ that works.  40 PZs in a row are made that way (the tables a
 * provider grows as objects accumulate grow under failures too); then they
 * are freed, and the IA closes gracefully: no refused create left a PZ.
 */
static DAT_RETURN pz_make(struct dc_ctx *t, void *pz)
{
	return dat_pz_create(t->ia, pz);
}

static void pz_works(struct dc_ctx *t, void *pz, bool keep)
{
	DAT_PZ_PARAM p;

	/* collateral: dat_pz_create(3DAT) RETURN VALUES: DAT_SUCCESS made a PZ of the IA, which its query shows */
	DC_ASSERT_SUCCESS(dat_pz_query(*(DAT_PZ_HANDLE *)pz, DAT_PZ_FIELD_ALL, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	if (!keep)
		DC_CLEANUP(dat_pz_free(*(DAT_PZ_HANDLE *)pz));
}

DC_CASE(dat_pz_create, out_of_memory,
	.clauses = "dat_pz_create.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES or a working PZ, and no PZ left behind")
{
	DAT_PZ_HANDLE pz[DC_ALLOC_FAULT_OBJECTS];
	int n = dc_within_limit(DC_ALLOC_FAULT_OBJECTS, t->ia_attr.max_pzs);
	struct dc_alloc_call c = { "dat_pz_create", pz_make, pz_works, pz, NULL };

	n = dc_alloc_sweep_n(t, &c, n, pz);
	for (int i = 0; i < n; i++)
		DC_CLEANUP(dat_pz_free(pz[i]));
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}

/*
 * dat_pz_create(3DAT) ATTRIBUTES: MT-Level Safe.  Threads create PZs at
 * the same time, four on the case's IA and four on IAs they opened
 * themselves (dat_ia_open is Safe too), each querying (dat_pz_query is
 * Safe) what it made; rounds for 0.7 s (at least 2), so later rounds reuse what the frees
 * of the round before gave back.  Races are rare events: a thousand
 * creates per thread and round (or 150 ms) give a provider that forgets a
 * lock many chances to show it (a shared table growing or cleaned while
 * another thread reads it, two threads taking one free block).
 */
static DAT_RETURN pz_crowd_make(struct dc_crowd_worker *w, int i, DAT_HANDLE *out)
{
	(void)i;
	return dat_pz_create(w->ia, (DAT_PZ_HANDLE *)out);
}

static DAT_RETURN pz_crowd_probe(struct dc_crowd_worker *w, DAT_HANDLE h)
{
	DAT_PZ_PARAM p;

	(void)w;
	return dat_pz_query(h, DAT_PZ_FIELD_ALL, &p);
}

DC_CASE(dat_pz_create, mt_safe_concurrent,
	.summary = "8 threads (4 on one IA, 4 on IAs of their own) create up to 1000 PZs each at once, rounds for 0.7 s: no error but running out, all distinct, each a PZ of its IA that frees")
{
	static struct dc_crowd c = {
		.what = "dat_pz_create", .per_worker = 1000, .round_ms = 150,
		.create = pz_crowd_make,
		/* dat_pz_create(3DAT) RETURN VALUES: DAT_SUCCESS made a PZ,
		 * which its (Safe) query finds at once */
		.probe = pz_crowd_probe, .probe_what = "dat_pz_query",
	};

	dc_crowd_init(&c, 4, 4);
	while (dc_crowd_again(&c, 2, 40, 700)) {
		dc_crowd_round(&c);
		DC_ASSERT_CROWD(&c);
		DC_CROWD_EACH(&c, w, k) {
			DAT_PZ_PARAM p = { 0 };

			/* collateral: dat_pz_create(3DAT) ATTRIBUTES: MT-Level Safe, so a PZ made beside other threads' creates is a PZ of its IA, as one made alone */
			DC_ASSERT_SUCCESS(dat_pz_query(w->made[k], DAT_PZ_FIELD_ALL, &p));
			DC_ASSERT_IA_HANDLE(p.ia_handle, w->ia);
		}
		DC_CROWD_EACH(&c, w, k)
			/* collateral: dat_pz_create(3DAT) DESCRIPTION: as above, an empty PZ that frees */
			DC_ASSERT_SUCCESS(dat_pz_free(w->made[k]));
	}
	dc_crowd_fini(t, &c);
}
