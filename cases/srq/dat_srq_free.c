/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_srq_free(3DAT); clauses in clauses/dat_srq_free.toml.
 * The page's DAT_SRQ_IN_USE is DAT_INVALID_STATE with subtype
 * DAT_INVALID_STATE_SRQ_IN_USE in the 1.2 headers (dat12-facts.md 7).
 */
#include "srq_common.h"

#include <pthread.h>

DC_CASE(dat_srq_free, destroys_unused,
	.summary = "an SRQ without EPs is destroyed and releases its PZ",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);

	DC_ASSERT_SUCCESS(dat_srq_free(srq));
	/* collateral: dat_srq_free(3DAT) DESCRIPTION: the destroyed SRQ no longer holds its PZ */
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
}

/* dat_srq_free on a thread of its own, so that a call that never returns
 * is a finding rather than a hung case. */
struct srq_free_call {
	DAT_SRQ_HANDLE srq;
	DAT_RETURN r;
	int done;
};

static void *srq_free_main(void *arg)
{
	struct srq_free_call *c = arg;

	c->r = dat_srq_free(c->srq);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The SRQ's last EP is freed while a Receive it took from the SRQ is
 * complete but not yet dequeued from its EVD: the SRQ is in use by no EP,
 * so it can be destroyed.
 */
DC_CASE(dat_srq_free, destroys_unused_with_unreaped_completion,
	.clauses = "dat_srq_free.destroys_unused",
	.summary = "after its EP is freed with a completed Receive not yet reaped, the SRQ is destroyed",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct srq_free_call c = { 0 };
	pthread_t th;
	double until;
	DAT_EVENT ev;

	link_up(&l, NULL);
	post_slot(l.srq, &l.rbuf, 0);
	link_send(&l, 5, 64);
	/* set-up: the message was received (the Send completed), nothing reaped at rx */
	DC_SETUP_DTO(l.tx.req_evd, 5, DAT_DTO_SUCCESS);
	DC_SETUP(dat_ep_free(l.rx.ep));
	l.rx.ep = DAT_HANDLE_NULL;
	c.srq = l.srq;
	DC_SETUP_ASSERT(pthread_create(&th, NULL, srq_free_main, &c) == 0, "set-up: pthread_create failed");
	until = dc_now_ms() + (double)dc_wait_ms(t);
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) && dc_now_ms() < until)
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	if (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE))
		DC_FAIL("dat_srq_free of an SRQ no EP uses did not return within %ld ms",
			dc_wait_ms(t));
	pthread_join(th, NULL);
	DC_ASSERT_SUCCESS(c.r);
	/* what becomes of the queued completion the page does not say: it is
	 * only taken, if it is there, and noted */
	dc_note(t, "dequeue on the freed EP's recv EVD after the free: %s",
		dc_ret_text(dat_evd_dequeue(l.rx.recv_evd, &ev)));
}

DC_CASE(dat_srq_free, refused_while_ep_attached,
	.summary = "freeing an SRQ used by an EP gives DAT_INVALID_STATE/SRQ_IN_USE and changes nothing",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	DAT_EVD_HANDLE evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 16, DAT_EVD_CONNECTION_FLAG);
	DAT_EP_HANDLE ep = dc_ep_with_srq(t, pz, evd, evd, cevd, srq, NULL);
	struct dc_lmr m;
	struct dc_snap s;
	DAT_LMR_TRIPLET iov;

	dc_lmr(t, pz, 512, DC_PRIV_LOCAL, &m);
	post_slot(srq, &m, 0);
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	DC_ASSERT_RET_SUB(dat_srq_free(srq), DAT_INVALID_STATE,
			  DAT_INVALID_STATE_SRQ_IN_USE);
	DC_ASSERT_UNCHANGED(&s);
	/* still fully usable */
	iov = dc_iov(&m, SLOT, SLOT);
	/* collateral: dat_srq_free(3DAT) DESCRIPTION: the SRQ is left intact, still taking buffers */
	DC_ASSERT_SUCCESS(dat_srq_post_recv(srq, 1, &iov, dc_cookie(1)));
	/* once the EP is gone the SRQ can be freed */
	DC_SETUP(dat_ep_free(ep));
	DC_ASSERT_SUCCESS(dat_srq_free(srq));
}

DC_CASE(dat_srq_free, invalid_handle,
	.summary = "a NULL handle or a PZ handle gives DAT_INVALID_HANDLE and the PZ survives",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_PZ_PARAM pp;

	DC_ASSERT_INVALID_HANDLE(dat_srq_free(DAT_HANDLE_NULL), 1, SRQ);
	DC_ASSERT_INVALID_HANDLE(dat_srq_free((DAT_SRQ_HANDLE)pz), 1, SRQ);
	DC_SETUP(dat_pz_query(pz, DAT_PZ_FIELD_ALL, &pp));
	DC_CLEANUP(dat_pz_free(pz));
}

DC_CASE(dat_srq_free, stale_handle_rejected,
	.summary = "a freed SRQ handle is answered with DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DAT_SRQ_HANDLE srq = dc_srq(t, dc_pz(t), 8, 1, DAT_SRQ_LW_DEFAULT);
	DAT_SRQ_PARAM p;

	DC_SETUP(dat_srq_free(srq));
	/* collateral: dat_srq_free(3DAT) USAGE: a provider noticing the stale handle answers as advised */
	DC_ASSERT_INVALID_HANDLE(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p), 1, SRQ);
	DC_ASSERT_INVALID_HANDLE(dat_srq_free(srq), 1, SRQ);
}

DC_CASE(dat_srq_free, handle_reuse_delayed,
	.summary = "an SRQ made right after another was freed gets a new handle value",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE old = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	DAT_SRQ_HANDLE fresh;

	DC_SETUP(dat_srq_free(old));
	fresh = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	DC_ASSERT(fresh != old, "the freed handle %p was handed out again at once", old);
}

DC_CASE(dat_srq_free, reassigned_handle_is_new,
	.summary = "a reused handle value describes the newest SRQ, never the freed one",
	.requires = "srq_supported")
{
	enum { ROUNDS = 64 };
	DAT_SRQ_HANDLE seen[ROUNDS];
	int reused = 0, rounds = ROUNDS;

	/* one PZ per round: an IA with fewer PZs (Max PZs, dat_ia_query(3DAT))
	 * gets as many rounds as it has PZs */
	if (t->ia_attr.max_pzs > 0 && t->ia_attr.max_pzs < ROUNDS) {
		rounds = (int)t->ia_attr.max_pzs;
		dc_note(t, "max_pzs %d: %d rounds", (int)t->ia_attr.max_pzs, rounds);
	}
	for (int i = 0; i < rounds; i++) {
		/* a PZ of its own (kept alive) and a depth of its own tell
		 * which SRQ a handle value names */
		DAT_PZ_HANDLE pz = dc_pz(t);
		DAT_SRQ_HANDLE srq = dc_srq(t, pz, 2 + i, 1, DAT_SRQ_LW_DEFAULT);
		DAT_SRQ_PARAM p = DC_SRQ_PARAM(srq);

		for (int j = 0; j < i; j++)
			if (seen[j] == srq)
				reused++;
		seen[i] = srq;
		DC_ASSERT(p.pz_handle == pz,
			  "round %d: handle %p reports PZ %p, not the new SRQ's PZ %p",
			  i, srq, p.pz_handle, pz);
		DC_ASSERT_GE(p.max_recv_dtos, 2 + i);
		DC_SETUP(dat_srq_free(srq));
	}
	dc_note(t, "%d of %d handle values were reused", reused, rounds);
}
