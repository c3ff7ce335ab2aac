/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_enable(3DAT); clauses in clauses/dat_evd_enable.toml.
 */
#include "evd_common.h"

DC_CASE(dat_evd_enable, cno_notified,
	.summary = "a re-enabled EVD (CNO given at creation, or by modify while disabled) wakes its CNO's waiter again")
{
	for (int way = 0; way < CNO_WAYS; way++) {
		DAT_CNO_HANDLE cno = dc_plain_cno(t);
		DAT_EVD_HANDLE evd = evd_on_cno_after(cno, way, PREP_DISABLE, false);
		struct dc_waiter *w;
		DAT_EVD_PARAM p;

		DC_ASSERT_SUCCESS(dat_evd_enable(evd));
		p = DC_EVD_PARAM(evd);
		DC_ASSERT(EVD_ENABLED(p.evd_state), "state 0x%x after enable",
			  (unsigned int)p.evd_state);
		w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
		DC_ASSERT_BLOCKS(w);
		post(evd, TAG(1));
		EXPECT_CNO_WOKEN(w, evd, "a post to the re-enabled EVD");
		dc_waiter_free(w);
	}
}

DC_CASE(dat_evd_enable, direct_waiters_unaffected,
	.summary = "dat_evd_wait returns events on a disabled EVD as on an enabled one")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w;

	DC_SETUP(dat_evd_disable(evd));
	w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 1);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_EVD_WOKEN(w, TAG(1), "a post to the disabled EVD");
	dc_waiter_free(w);
	DC_ASSERT_SUCCESS(dat_evd_enable(evd));	/* the clause's own call */
	w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 1);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(2));
	EXPECT_EVD_WOKEN(w, TAG(2), "a post to the enabled EVD");
}

DC_CASE(dat_evd_enable, waiter_preempts_cno,
	.summary = "an enabled EVD with a direct waiter does not wake its CNO")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE e1 = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_EVD_HANDLE e2 = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *we, *wc;

	DC_SETUP(dat_evd_enable(e1));
	we = dc_evd_waiter(t, e1, DAT_TIMEOUT_INFINITE, 1);
	wc = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(we);
	DC_ASSERT_BLOCKS(wc);
	post(e1, TAG(1));
	EXPECT_EVD_WOKEN(we, TAG(1), "a post to the waited EVD");
	DC_ASSERT_STILL_WAITING(wc, "a post to an enabled EVD that had a direct waiter");
	post(e2, TAG(2));
	EXPECT_CNO_WOKEN(wc, e2, "a post to the CNO's other EVD");
}

DC_CASE(dat_evd_enable, already_enabled_noop,
	.summary = "enabling an enabled EVD succeeds and changes nothing")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_snap s;

	post(evd, TAG(1));
	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	DC_ASSERT_SUCCESS(dat_evd_enable(evd));
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT(EVD_ENABLED(s.u.evd.evd_state), "state 0x%x is not enabled",
		  (unsigned int)s.u.evd.evd_state);
	EXPECT_SW(evd, TAG(1));
}

/* Clause: dat_evd_enable refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_enable(bad[i]);
		snprintf(what, sizeof(what), "dat_evd_enable(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_enable, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_enable, invalid_handle_freed,
	.clauses = "dat_evd_enable.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}

DC_CASE(dat_evd_enable, mt_safe,
	.summary = "4 threads enabling one EVD while events arrive and its CNO waiter is woken")
{
	enum { NT = 4 };
	/* 500 events, fewer on an IA whose queues are shorter
	 * (dat_ia_query(3DAT) Max EVD queue size): the threads race the same */
	const int N = (int)dc_within_limit(500, dc_limit_less(t->ia_attr.max_evd_qlen, 8));
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, dc_within_limit(512, t->ia_attr.max_evd_qlen),
					      DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	struct hammer h[NT];
	pthread_t th[NT];
	struct dc_gate g;
	DAT_EVD_PARAM p;

	DC_ASSERT_BLOCKS(w);
	dc_gate_init(&g, NT + 1);
	for (int i = 0; i < NT; i++)
		h[i] = (struct hammer){ .g = &g, .evd = evd, .op = H_ENABLE,
					.n = 2000 };
	dc_threads_start(th, NT, hammer_main_, h);
	dc_gate_pass(&g);
	post_n(evd, 0, N);
	dc_threads_join(th, NT);
	ASSERT_HAMMERS(h, NT);
	EXPECT_CNO_WOKEN(w, evd, "posts while other threads enabled the EVD");
	p = DC_EVD_PARAM(evd);
	DC_ASSERT(EVD_ENABLED(p.evd_state), "state 0x%x after the enables",
		  (unsigned int)p.evd_state);
	EXPECT_SW_N(evd, 0, N);
	DC_ASSERT_NO_EVENT(evd);
}
