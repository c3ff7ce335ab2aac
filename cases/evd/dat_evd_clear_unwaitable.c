/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_clear_unwaitable(3DAT); clauses in
 * clauses/dat_evd_clear_unwaitable.toml.
 */
#include "evd_common.h"

DC_CASE(dat_evd_clear_unwaitable, wait_permitted,
	.summary = "after set_unwaitable + clear_unwaitable, dat_evd_wait times out and returns events again")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN r;

	DC_SETUP(dat_evd_set_unwaitable(evd));
	DC_ASSERT_SUCCESS(dat_evd_clear_unwaitable(evd));
	r = dat_evd_wait(evd, 20000, 1, &ev, &nmore);
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);
	post(evd, TAG(1));
	/* collateral: dat_evd_clear_unwaitable(3DAT) DESCRIPTION: the EVD waitable again takes a wait */
	DC_ASSERT_SUCCESS(dat_evd_wait(evd, (DAT_TIMEOUT)dc_wait_ms(t) * 1000u, 1, &ev, &nmore));
	check_sw_at(t, __FILE__, __LINE__, "dat_evd_wait", &ev, evd, TAG(1));
}

DC_CASE(dat_evd_clear_unwaitable, wait_permitted_after_released_waiter,
	.summary = "once set_unwaitable has released a blocked waiter, clear_unwaitable lets the "
		   "next dat_evd_wait wait again",
	.clauses = "dat_evd_clear_unwaitable.wait_permitted")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_waiter *w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 1);
	DAT_COUNT nmore;
	DAT_EVENT ev;

	DC_SETUP_ASSERT(dc_waiter_blocked(t, w), "dat_evd_wait returned %s at once",
			dc_ret_text(w->ret));
	DC_SETUP(dat_evd_set_unwaitable(evd));
	dc_waiter_join(t, w, "dat_evd_set_unwaitable");
	DC_ASSERT_SUCCESS(dat_evd_clear_unwaitable(evd));
	/* collateral: dat_evd_clear_unwaitable(3DAT) DESCRIPTION: waiting is permitted again, so the wait times out */
	DC_ASSERT_RET(dat_evd_wait(evd, 20000, 1, &ev, &nmore), DAT_TIMEOUT_EXPIRED);
}

DC_CASE(dat_evd_clear_unwaitable, query_reports_waitable,
	.summary = "dat_evd_query reports WAITABLE after clear_unwaitable")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_PARAM p;

	DC_SETUP(dat_evd_set_unwaitable(evd));
	DC_ASSERT_SUCCESS(dat_evd_clear_unwaitable(evd));
	memset(&p, 0, sizeof(p));
	/* collateral: dat_evd_clear_unwaitable(3DAT) DESCRIPTION: the EVD's query reports it waitable */
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &p));
	DC_ASSERT(EVD_WAITABLE(p.evd_state),
		  "state 0x%x after clear_unwaitable is not waitable",
		  (unsigned int)p.evd_state);
}

DC_CASE(dat_evd_clear_unwaitable, cno_unaffected,
	.summary = "the EVD keeps its CNO, notifies it and can be dequeued after clear_unwaitable")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w;

	DC_SETUP(dat_evd_set_unwaitable(evd));
	DC_ASSERT_SUCCESS(dat_evd_clear_unwaitable(evd));
	DC_ASSERT_PTR_EQ(DC_EVD_PARAM(evd).cno_handle, cno);
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a post to the EVD made waitable again");
	EXPECT_SW(evd, TAG(1));
}

/*
 * The same clauses for an EVD of each stream kind, alone and combined, with
 * and without a CNO (evd_common.h: evd_kinds): the query first
 * (query_reports_waitable), then a wait that times out instead of being
 * refused (wait_permitted), each over every kind.
 */
DC_CASE(dat_evd_clear_unwaitable, each_kind,
	.clauses = "dat_evd_clear_unwaitable.query_reports_waitable dat_evd_clear_unwaitable.wait_permitted",
	.summary = "an EVD of each kind (alone and combined, with and without a CNO) made unwaitable "
		   "then waitable again reports WAITABLE and takes dat_evd_wait")
{
	unwaitable_each_kind(t, true, "dat_evd_clear_unwaitable.query_reports_waitable",
			     "dat_evd_clear_unwaitable.wait_permitted");
}

/* Clause: dat_evd_clear_unwaitable refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_clear_unwaitable(bad[i]);
		snprintf(what, sizeof(what), "dat_evd_clear_unwaitable(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_clear_unwaitable, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_clear_unwaitable, invalid_handle_freed,
	.clauses = "dat_evd_clear_unwaitable.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}

DC_CASE(dat_evd_clear_unwaitable, mt_safe,
	.summary = "two threads toggling set/clear_unwaitable 10000 times while a third dequeues: all calls succeed")
{
	enum { NMAX = 2000, NT = 3 };
	static DAT_PVOID seen[NMAX];
	int N = NMAX;
	DAT_EVD_HANDLE evd = evd_for_n(2048, &N);
	struct hammer h[NT];
	struct dc_gate g;
	DAT_EVD_PARAM p;

	post_n(evd, 0, N);
	dc_gate_init(&g, NT);
	memset(h, 0, sizeof(h));
	for (int i = 0; i < NT; i++) {
		h[i].g = &g;
		h[i].evd = evd;
		h[i].op = H_UNWAIT_TOGGLE;
		h[i].n = 10000;
	}
	h[2].op = H_DEQUEUE;
	h[2].seen = seen;
	h[2].seen_cap = N;
	dc_run_threads(NT, hammer_main_, h);
	ASSERT_HAMMERS(h, NT);
	DC_ASSERT_EQ(h[2].taken, N);
	for (int i = 0; i < N; i++)
		DC_ASSERT(seen[i] == TAG(i), "dequeue %d returned %p, expected %p",
			  i, seen[i], TAG(i));
	DC_ASSERT_SUCCESS(dat_evd_clear_unwaitable(evd));
	p = DC_EVD_PARAM(evd);
	DC_ASSERT(EVD_WAITABLE(p.evd_state), "state 0x%x after a final clear_unwaitable",
		  (unsigned int)p.evd_state);
}
