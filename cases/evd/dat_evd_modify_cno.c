/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_modify_cno(3DAT); clauses in
 * clauses/dat_evd_modify_cno.toml.
 */
#include "evd_common.h"

DC_CASE(dat_evd_modify_cno, new_cno_used,
	.summary = "after modify_cno the EVD reports and notifies the new CNO")
{
	DAT_CNO_HANDLE c1 = dc_plain_cno(t), c2 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, c1);
	struct dc_waiter *w;

	DC_ASSERT_SUCCESS(dat_evd_modify_cno(evd, c2));
	DC_ASSERT_PTR_EQ(DC_EVD_PARAM(evd).cno_handle, c2);
	w = dc_cno_waiter(t, c2, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a post after the change to the new CNO");
}

DC_CASE(dat_evd_modify_cno, null_detaches,
	.summary = "modify_cno(DAT_HANDLE_NULL) leaves the EVD without CNO; the old one is not woken and can be freed")
{
	DAT_CNO_HANDLE c1 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, c1);
	DAT_EVD_HANDLE spare = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_PARAM p;
	struct dc_waiter *w;

	DC_ASSERT_SUCCESS(dat_evd_modify_cno(evd, DAT_HANDLE_NULL));
	p = DC_EVD_PARAM(evd);
	DC_ASSERT(p.cno_handle == DAT_HANDLE_NULL,
		  "after modify_cno(DAT_HANDLE_NULL) the EVD reports CNO %p", p.cno_handle);
	w = dc_cno_waiter(t, c1, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	DC_ASSERT_STILL_WAITING(w, "a post to the detached EVD");
	/* release the waiter with a spare EVD, then detach that too */
	DC_SETUP(dat_evd_modify_cno(spare, c1));
	post(spare, TAG(2));
	dc_waiter_join(t, w, "the release post");
	DC_SETUP(dat_evd_modify_cno(spare, DAT_HANDLE_NULL));
	dc_waiter_free(w);
	/* collateral: dat_evd_modify_cno(3DAT) DESCRIPTION: the EVD holds no CNO, so the CNO frees */
	DC_ASSERT_SUCCESS(dat_cno_free(c1));
	EXPECT_SW(evd, TAG(1));
}

/* Runs a poster of n events against `evd` while `change(evd, cno)` runs. */
static void race_posts_with_modify(struct dc_ctx *t, DAT_EVD_HANDLE evd,
				   DAT_CNO_HANDLE to, int n)
{
	struct poster p[1] = { { .evd = evd, .first = 0, .n = n } };
	struct dc_gate g;
	pthread_t th[1];

	dc_gate_init(&g, 2);
	p[0].g = &g;
	dc_threads_start(th, 1, poster_main, p);
	dc_gate_pass(&g);
	DC_ASSERT_SUCCESS(dat_evd_modify_cno(evd, to));
	dc_threads_join(th, 1);
	DC_SETUP_ASSERT(p[0].bad == DAT_SUCCESS, "set-up: the poster got %s",
			dc_ret_text(p[0].bad));
}

/* Clause part: a returned CNO waiter carries DAT_SUCCESS and `evd`. */
static void check_woken_by(struct dc_ctx *t, struct dc_waiter *w,
			   DAT_EVD_HANDLE evd, const char *which)
{
	DC_ASSERT(w->ret == DAT_SUCCESS && w->evd == evd,
		  "the %s CNO's waiter got %s with EVD %p, expected DAT_SUCCESS with %p",
		  which, dc_ret_text(w->ret), w->evd, evd);
}

DC_CASE(dat_evd_modify_cno, change_while_enabled,
	.summary = "events racing a CNO change on an enabled EVD notify the old or the new CNO")
{
	/* 200 posts racing, fewer on an IA whose queues are shorter
	 * (dat_ia_query(3DAT) Max EVD queue size): the race is the same */
	const int N = (int)dc_within_limit(200, dc_limit_less(t->ia_attr.max_evd_qlen, 8));
	DAT_CNO_HANDLE c1 = dc_plain_cno(t), c2 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, dc_within_limit(256, t->ia_attr.max_evd_qlen),
					      DAT_EVD_SOFTWARE_FLAG, c1);
	struct dc_waiter *w1 = dc_cno_waiter(t, c1, DAT_TIMEOUT_INFINITE);
	struct dc_waiter *w2 = dc_cno_waiter(t, c2, DAT_TIMEOUT_INFINITE);
	double until;

	DC_ASSERT_BLOCKS(w1);
	DC_ASSERT_BLOCKS(w2);
	race_posts_with_modify(t, evd, c2, N);
	/* at least one of them was notified */
	until = dc_now_ms() + (double)dc_wait_ms(t);
	while (!dc_waiter_returned_within(w1, 5) && !dc_waiter_done(w2) &&
	       dc_now_ms() < until)
		;
	DC_ASSERT(dc_waiter_done(w1) || dc_waiter_done(w2),
		  "neither the old nor the new CNO was notified of %d events", N);
	dc_note(t, "old CNO %s, new CNO %s", dc_waiter_done(w1) ? "notified" : "not notified",
		dc_waiter_done(w2) ? "notified" : "not notified");
	if (dc_waiter_done(w1))
		check_woken_by(t, w1, evd, "old");
	if (dc_waiter_done(w2)) {
		check_woken_by(t, w2, evd, "new");
	} else {
		/* after the change has completed, the new CNO is used */
		post(evd, TAG(N));
		EXPECT_CNO_WOKEN(w2, evd, "a post after the change had completed");
	}
	release_cno_waiter(w1);
}

DC_CASE(dat_evd_modify_cno, new_cno_only_when_disabled,
	.summary = "disable, modify_cno, enable: notifications go to the new CNO only")
{
	DAT_CNO_HANDLE c1 = dc_plain_cno(t), c2 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, c1);
	struct dc_waiter *w1 = dc_cno_waiter(t, c1, DAT_TIMEOUT_INFINITE);
	struct dc_waiter *w2 = dc_cno_waiter(t, c2, DAT_TIMEOUT_INFINITE);

	DC_ASSERT_BLOCKS(w1);
	DC_ASSERT_BLOCKS(w2);
	DC_SETUP(dat_evd_disable(evd));
	DC_ASSERT_SUCCESS(dat_evd_modify_cno(evd, c2));
	DC_SETUP(dat_evd_enable(evd));
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w2, evd, "a post after disable/modify_cno/enable");
	DC_ASSERT_STILL_WAITING(w1, "a post after the EVD moved to another CNO");
	release_cno_waiter(w1);
}

DC_CASE(dat_evd_modify_cno, detach_in_flight,
	.summary = "a detach racing posts may let one wake-up through; the events are then on the EVD")
{
	/* 200 posts racing, fewer on an IA whose queues are shorter
	 * (dat_ia_query(3DAT) Max EVD queue size): the race is the same */
	const int N = (int)dc_within_limit(200, dc_limit_less(t->ia_attr.max_evd_qlen, 8));
	DAT_CNO_HANDLE c1 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, dc_within_limit(256, t->ia_attr.max_evd_qlen),
					      DAT_EVD_SOFTWARE_FLAG, c1);
	struct dc_waiter *w = dc_cno_waiter(t, c1, DAT_TIMEOUT_INFINITE);
	int n;

	DC_ASSERT_BLOCKS(w);
	race_posts_with_modify(t, evd, DAT_HANDLE_NULL, N);
	if (dc_waiter_done(w)) {
		dc_note(t, "the old CNO's waiter was woken during the race");
		check_woken_by(t, w, evd, "old");
		/* the events behind that wake-up are on the EVD */
		EXPECT_SW(evd, TAG(0));
	} else {
		dc_note(t, "the old CNO's waiter was not woken during the race");
		release_cno_waiter(w);
	}
	n = cno_drain(c1);
	if (n)
		dc_note(t, "%d notification(s) were still held by the old CNO", n);
	w = dc_cno_waiter(t, c1, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(N));
	DC_ASSERT_STILL_WAITING(w, "a post to the detached EVD after the race");
	release_cno_waiter(w);
}

DC_CASE(dat_evd_modify_cno, invalid_handle,
	.summary = "a bad EVD handle or a PZ handle as CNO give DAT_INVALID_HANDLE; the EVD keeps its CNO")
{
	DAT_CNO_HANDLE c1 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, c1);
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_RETURN r;

	r = dat_evd_modify_cno(DAT_HANDLE_NULL, c1);
	note_ret(t, "dat_evd_modify_cno(DAT_HANDLE_NULL, cno)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, EVD);
	r = dat_evd_modify_cno((DAT_EVD_HANDLE)pz, c1);
	note_ret(t, "dat_evd_modify_cno(a PZ handle, cno)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, EVD);
	r = dat_evd_modify_cno(evd, (DAT_CNO_HANDLE)pz);
	note_ret(t, "dat_evd_modify_cno(evd, a PZ handle)", r);
	DC_ASSERT_INVALID_HANDLE(r, 2, CNO);
	DC_ASSERT_PTR_EQ(DC_EVD_PARAM(evd).cno_handle, c1);
}

/*
 * A CNO of another IA of the same provider: the page lists only an invalid
 * handle as a refusal, and on success the EVD notifies the CNO it was given.
 * Either answer is allowed; a success must be honoured.
 */
DC_CASE(dat_evd_modify_cno, cno_of_other_ia,
	.summary = "a CNO of another IA is refused as an invalid handle (EVD unchanged) or taken and notified")
{
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL;
	DAT_CNO_HANDLE other = DAT_HANDLE_NULL, c1 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, c1);
	struct dc_waiter *w;
	DAT_RETURN r;

	DC_SETUP(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2));
	DC_SETUP(dat_cno_create(ia2, DAT_OS_WAIT_PROXY_AGENT_NULL, &other));
	r = dat_evd_modify_cno(evd, other);
	note_ret(t, "dat_evd_modify_cno(evd, a CNO of another IA)", r);
	DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_INVALID_HANDLE);
	if (r != DAT_SUCCESS) {
		DC_ASSERT_PTR_EQ(DC_EVD_PARAM(evd).cno_handle, c1);
	} else {
		DC_ASSERT_PTR_EQ(DC_EVD_PARAM(evd).cno_handle, other);
		w = dc_cno_waiter(t, other, DAT_TIMEOUT_INFINITE);
		DC_ASSERT_BLOCKS(w);
		post(evd, TAG(1));
		EXPECT_CNO_WOKEN(w, evd, "a post after the change to the other IA's CNO");
		DC_SETUP(dat_evd_modify_cno(evd, DAT_HANDLE_NULL));
	}
	DC_SETUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}
