/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_lmr_free(3DAT); clauses in clauses/dat_lmr_free.toml.
 */
#include "mem_common.h"

#include <stdlib.h>

DC_CASE(dat_lmr_free, destroys_unused,
	.summary = "an LMR without RMRs is freed and releases its PZ")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_lmr m;

	dc_lmr(t, pz, BUF, DC_PRIV_LOCAL, &m);
	DC_ASSERT_SUCCESS(dat_lmr_free(m.lmr));
	/* collateral: dat_lmr_free(3DAT) DESCRIPTION: the destroyed LMR no longer holds its PZ */
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
}

DC_CASE(dat_lmr_free, refused_while_rmr_bound,
	.summary = "an LMR with a bound RMR: INVALID_STATE/LMR_IN_USE, LMR and window intact; frees after dat_rmr_free")
{
	struct dc_pair p;
	struct dc_lmr m, src;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx;
	struct dc_snap s;
	DAT_DTO_COMPLETION_STATUS st;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &m);
	rmr = dc_rmr(t, p.a.pz);
	ctx = dc_bind_rmr(t, rmr, &m, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &p.a, 1);
	dc_snapshot(t, DC_OBJ_LMR, m.lmr, &s);
	/* dat_lmr_free(3DAT) RETURN VALUES name no subtype: none, or the right one */
	DC_ASSERT_RET_SUB_OR_NONE(dat_lmr_free(m.lmr), DAT_INVALID_STATE,
				  DAT_INVALID_STATE_LMR_IN_USE);
	DC_ASSERT_UNCHANGED(&s);
	/* the window still works for the peer */
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_fill(src.buf, 128, 6);
	st = dc_rdma_write(t, &p.b, &src, 0, 128, dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)(m.buf), 128), 2);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(m.buf, src.buf, 128), "the window stopped working");
	DC_SETUP(dat_rmr_free(rmr));
	DC_ASSERT_SUCCESS(dat_lmr_free(m.lmr));
}

/*
 * "In use by an RMR" reached by a rebind, and left by a rebind or a
 * zero-length bind (dat_rmr_bind(3DAT) DESCRIPTION: each bind makes a new
 * binding, the old context stops working; a zero-length bind binds no
 * memory): the LMR the RMR moved to is refused, the one it left frees, and
 * the other frees once the zero-length bind completed
 * (dat_lmr_free(3DAT) DESCRIPTION, RETURN VALUES DAT_INVALID_STATE).
 */
DC_CASE(dat_lmr_free, refused_while_rmr_rebound,
	.clauses = "dat_lmr_free.refused_while_rmr_bound dat_lmr_free.destroys_unused",
	.summary = "an RMR rebound from LMR 1 to LMR 2: 2 is in use, 1 frees; 2 frees after a zero-length bind")
{
	struct dc_pair p;
	struct dc_lmr m1, m2;
	DAT_RMR_HANDLE rmr;
	struct dc_snap s;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &m1);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &m2);
	/* an IA may have no RMRs (dat_ia_query(3DAT) Max RMRs, no floor): the
	 * RMR part is skipped, noted, and destroys_unused judged on an LMR no
	 * RMR ever used */
	if (t->ia_attr.max_rmrs <= 0) {
		dc_note(t, "the IA has no RMRs (max_rmrs 0): only an unused LMR's free is judged");
		DC_FOR_CLAUSE("dat_lmr_free.destroys_unused");
		DC_ASSERT_SUCCESS(dat_lmr_free(m1.lmr));
		return;
	}
	rmr = dc_rmr(t, p.a.pz);
	dc_bind_rmr(t, rmr, &m1, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &p.a, 1);
	dc_bind_rmr(t, rmr, &m2, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &p.a, 2);
	DC_FOR_CLAUSE("dat_lmr_free.refused_while_rmr_bound");
	dc_snapshot(t, DC_OBJ_LMR, m2.lmr, &s);
	/* dat_lmr_free(3DAT) RETURN VALUES name no subtype: none, or the right one */
	DC_ASSERT_RET_SUB_OR_NONE(dat_lmr_free(m2.lmr), DAT_INVALID_STATE,
				  DAT_INVALID_STATE_LMR_IN_USE);
	DC_ASSERT_UNCHANGED(&s);
	DC_FOR_CLAUSE("dat_lmr_free.destroys_unused");
	DC_ASSERT_SUCCESS(dat_lmr_free(m1.lmr));	/* the RMR left it */
	dc_bind_rmr(t, rmr, &m2, 0, 0, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &p.a, 3);
	DC_ASSERT_SUCCESS(dat_lmr_free(m2.lmr));	/* bound to nothing now */
}

DC_CASE(dat_lmr_free, memory_kept,
	.summary = "after the free the buffer keeps its contents and stays readable and writable")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	unsigned char *buf = aligned_alloc(DAT_OPTIMAL_ALIGNMENT, BUF);
	unsigned char ref[BUF];
	struct dc_lmr m;

	DC_SETUP_ASSERT(buf, "out of memory");
	dc_fill(buf, BUF, 12);
	memcpy(ref, buf, BUF);
	DC_SETUP(dc_lmr_register(t->ia, pz, buf, BUF, DAT_MEM_PRIV_ALL_FLAG, &m));
	DC_ASSERT_SUCCESS(dat_lmr_free(m.lmr));
	DC_ASSERT(!memcmp(buf, ref, BUF), "the buffer changed when its LMR was freed");
	memset(buf, 0x3c, BUF);
	DC_ASSERT((dc_first_not(buf, BUF, 0x3c) < 0), "the buffer is not writable after the free");
	free(buf);
}

DC_CASE(dat_lmr_free, stale_handle_fails,
	.summary = "a freed LMR handle is refused by dat_lmr_query and as region of DAT_MEM_TYPE_LMR")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE l2;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN sz;
	DAT_VADDR va;
	DAT_LMR_PARAM p;
	struct dc_lmr m;

	dc_lmr(t, pz, BUF, DC_PRIV_LOCAL, &m);
	DC_SETUP(dat_lmr_free(m.lmr));
	/* collateral: dat_lmr_free(3DAT) DESCRIPTION: every operation given the destroyed LMR's handle fails */
	DC_ASSERT_INVALID_HANDLE(dat_lmr_query(m.lmr, DAT_LMR_FIELD_ALL, &p), 1, LMR);
	memset(&rd, 0, sizeof(rd));
	rd.for_lmr_handle = m.lmr;
	DC_ASSERT_INVALID_HANDLE(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_LMR, rd, BUF, pz,
						   DC_PRIV_LOCAL, &l2, &lc, &rc, &sz, &va),
				 3, LMR);
}

/*
 * A Send naming a freed LMR: refused with a protection violation at the
 * post, or completed with DAT_DTO_ERR_LOCAL_PROTECTION, nothing sent.
 * @freed_last: the freed LMR is the newest the IA registered rather than
 * the oldest (a provider that tells freed contexts from invented ones by
 * their age must get both ends right).
 */
static void send_from_freed_lmr(struct dc_ctx *t, bool freed_last)
{
	struct dc_pair p;
	struct dc_lmr src, dst, good;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_RETURN r;

	dc_pair_up(t, &p, 0, NULL);
	if (!freed_last)
		dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &good);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &dst);
	if (freed_last)
		dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_fill(src.buf, 256, 1);
	dc_fill(good.buf, 256, 50);
	iov = dc_iov(&src, 0, 256);
	DC_SETUP(dat_lmr_free(src.lmr));
	dc_post_recv(t, p.b.ep, &dst, 0, 256, 1);
	r = dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS) {
		DC_ASSERT_RET(r, DAT_PROTECTION_VIOLATION);
		dc_send_sync(t, &p.a, &good, 0, 256, 3);
		dc_await_recv(t, &p.b, 1);
		DC_ASSERT(!memcmp(dst.buf, good.buf, 256),
			  "the receive did not get the next, legitimate message");
		return;
	}
	d = DC_ASSERT_DTO_EVENT(p.a.req_evd);
	DC_ASSERT_DTO_STATUS(d.status, DAT_DTO_ERR_LOCAL_PROTECTION);
	DC_ASSERT((dc_first_not(dst.buf, 256, 0) < 0), "bytes of the freed LMR reached the peer");
}

DC_CASE(dat_lmr_free, local_use_after_free_fails,
	.summary = "a Send with a freed lmr_context fails (PROTECTION_VIOLATION or LOCAL_PROTECTION); nothing is sent")
{
	send_from_freed_lmr(t, false);
}

DC_CASE(dat_lmr_free, local_use_after_free_newest,
	.clauses = "dat_lmr_free.local_use_after_free_fails",
	.summary = "the same when the freed LMR is the newest the IA registered")
{
	send_from_freed_lmr(t, true);
}

/*
 * a's RDMA Write (read false) or Read with the rmr_context of b's freed LMR,
 * and right behind it a Send, while b has a Receive posted: the access
 * fails with REMOTE_ACCESS touching no memory, and the connection it came
 * over is broken at both ends, so the Send behind it never fills b's
 * Receive successfully.
 */
static void remote_use_after_free(struct dc_ctx *t, bool read)
{
	struct dc_pair p;
	struct dc_lmr src, target, rbuf;
	DAT_RMR_TRIPLET win;
	DAT_LMR_TRIPLET iov, msg;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_lmr(t, p.b.pz, BUF, DAT_MEM_PRIV_ALL_FLAG, &target);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &rbuf);
	win = dc_rmr_iov(&target, 0, 512);
	dc_fill(src.buf, 512, 8);
	dc_fill(target.buf, 512, 9);
	memset(src.buf + 1024, 0x5A, 512);
	DC_SETUP(dat_lmr_free(target.lmr));
	dc_post_recv(t, p.b.ep, &rbuf, 0, 1024, 7);
	iov = dc_iov(&src, read ? 1024 : 0, 512);
	msg = dc_iov(&src, 0, 64);
	DC_SETUP(read ? dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(1), &win,
					      DAT_COMPLETION_DEFAULT_FLAG) :
			dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(1), &win,
					       DAT_COMPLETION_DEFAULT_FLAG));
	DC_SETUP(dat_ep_post_send(p.a.ep, 1, &msg, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_DTO(p.a.req_evd, 1, DAT_DTO_ERR_REMOTE_ACCESS);
	if (read)
		DC_ASSERT_BYTES_ARE(src.buf + 1024, 512, 0x5A, "the failed Read's local buffer");
	else
		DC_ASSERT(dc_check_fill(target.buf, 512, 9), "memory of the freed LMR was written");
	DC_ASSERT_CONN_END((&p.a)->conn_evd);
	d = DC_ASSERT_DTO_EVENT(p.b.recv_evd);
	DC_ASSERT(d.status != DAT_DTO_SUCCESS,
		  "the Send posted behind the failed RDMA %s filled the peer's Receive over the "
		  "connection the failure broke", read ? "Read" : "Write");
	DC_ASSERT_CONN_END((&p.b)->conn_evd);
}

DC_CASE(dat_lmr_free, remote_use_after_free_fails,
	.summary = "RDMA Write with a freed LMR's rmr_context: REMOTE_ACCESS, memory untouched, "
		   "the connection ends and takes nothing after it")
{
	remote_use_after_free(t, false);
}

DC_CASE(dat_lmr_free, remote_read_after_free_fails,
	.summary = "RDMA Read with a freed LMR's rmr_context: REMOTE_ACCESS, memory untouched, "
		   "the connection ends and takes nothing after it",
	.clauses = "dat_lmr_free.remote_use_after_free_fails")
{
	remote_use_after_free(t, true);
}

DC_CASE(dat_lmr_free, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE/LMR; the PZ is unchanged")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_PZ, pz, &s);
	DC_ASSERT_INVALID_HANDLE(dat_lmr_free(DAT_HANDLE_NULL), 1, LMR);
	DC_ASSERT_INVALID_HANDLE(dat_lmr_free((DAT_LMR_HANDLE)pz), 1, LMR);
	DC_ASSERT_UNCHANGED(&s);
	DC_CLEANUP(dat_pz_free(pz));
}

/*
 * Contexts stay right however many the IA has issued: LMRs kept while
 * CHURN others are registered and freed one after the other, then one
 * more registered and freed.  The kept LMRs still serve a Send and a
 * receive (dat_lmr_create(3DAT) DESCRIPTION), and a Send from the LMR freed
 * last is a protection violation (dat_lmr_free(3DAT) DESCRIPTION).
 * The churned LMRs have remote access, so each has an lmr_context and an
 * rmr_context: a Provider that numbers both kinds in one sequence (the
 * reference provider over sock) passes 2^14 contexts, where a scrambling of
 * the number that is not one-to-one, or whose inverse is wrong, starts to
 * show.  The bound is that need with a margin; the churn also stops after
 * CHURN_MS (a registration costs about 3 ms on siw0 in the emulated VM,
 * and the case must end well within the runner's 30 s there).  The checks
 * hold after any number of cycles, so fewer is never a failure, only a
 * weaker check (the count is noted).
 */
#define CHURN 8400
#define CHURN_MS 10000.0

DC_CASE(dat_lmr_free, contexts_after_churn,
	.clauses = "dat_lmr_create.context_for_local_dtos dat_lmr_free.local_use_after_free_fails",
	.summary = "after 8400 LMRs with remote access registered and freed, kept LMRs still carry a "
		   "Send and a freed one fails it with a protection violation")
{
	struct dc_pair p;
	struct dc_lmr keep, dst, churn, src;
	DAT_LMR_TRIPLET riov, siov, fiov;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_RETURN r;
	unsigned char *cbuf;
	double start;
	int n;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &keep);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &dst);
	cbuf = dc_case_buf(t, 64, BUF);
	start = dc_now_ms();
	for (n = 0; n < CHURN && dc_now_ms() - start < CHURN_MS; n++) {
		DC_SETUP(dc_lmr_register(t->ia, p.a.pz, cbuf, BUF, DAT_MEM_PRIV_ALL_FLAG, &churn));
		DC_SETUP(dat_lmr_free(churn.lmr));
	}
	if (n < CHURN)
		dc_note(t, "%d of %d registrations in %.0f ms", n, CHURN, CHURN_MS);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	DC_SETUP(dat_lmr_free(src.lmr));
	dc_fill(keep.buf, 256, 21);
	dc_fill(src.buf, 256, 22);

	DC_FOR_CLAUSE("dat_lmr_create.context_for_local_dtos");
	riov = dc_iov(&dst, 0, 256);
	siov = dc_iov(&keep, 0, 256);
	/* collateral: dat_lmr_create(3DAT) DESCRIPTION: the lmr_context serves in local segments of DTOs */
	DC_ASSERT_SUCCESS(dat_ep_post_recv(p.b.ep, 1, &riov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
	/* collateral: dat_lmr_create(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 1, &siov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	d = DC_ASSERT_DTO_EVENT(p.a.req_evd);
	DC_ASSERT_DTO_STATUS(d.status, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO_EVENT(p.b.recv_evd);
	DC_ASSERT_DTO_STATUS(d.status, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(dst.buf, keep.buf, 256), "the kept LMR's Send delivered other bytes");

	DC_FOR_CLAUSE("dat_lmr_free.local_use_after_free_fails");
	dc_post_recv(t, p.b.ep, &dst, 1024, 256, 3);
	fiov = dc_iov(&src, 0, 256);
	r = dat_ep_post_send(p.a.ep, 1, &fiov, dc_cookie(4), DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS) {
		DC_ASSERT_RET(r, DAT_PROTECTION_VIOLATION);
		return;
	}
	d = DC_ASSERT_DTO_EVENT(p.a.req_evd);
	DC_ASSERT_DTO_STATUS(d.status, DAT_DTO_ERR_LOCAL_PROTECTION);
	DC_ASSERT((dc_first_not(dst.buf + 1024, 256, 0) < 0), "bytes of the freed LMR reached the peer");
}
