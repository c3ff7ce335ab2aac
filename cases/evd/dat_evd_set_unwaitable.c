/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_set_unwaitable(3DAT); clauses in
 * clauses/dat_evd_set_unwaitable.toml.
 */
#include "evd_common.h"

DC_CASE(dat_evd_set_unwaitable, wait_refused,
	.summary = "dat_evd_wait on an unwaitable EVD returns DAT_INVALID_STATE at once, events or not")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN r;
	double t0, ms;

	DC_ASSERT_SUCCESS(dat_evd_set_unwaitable(evd));
	t0 = dc_now_ms();
	r = dat_evd_wait(evd, 5000000, 1, &ev, &nmore);
	ms = dc_now_ms() - t0;
	note_ret(t, "dat_evd_wait on an empty unwaitable EVD", r);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	DC_ASSERT(ms < 2500.0, "the refusal took %.1f ms of the 5 s timeout", ms);
	post(evd, TAG(1));
	t0 = dc_now_ms();
	r = dat_evd_wait(evd, 5000000, 1, &ev, &nmore);
	ms = dc_now_ms() - t0;
	DC_ASSERT(r != DAT_SUCCESS, "dat_evd_wait on an unwaitable EVD returned event %p",
		  ev.event_data.software_event_data.pointer);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	DC_ASSERT(ms < 2500.0, "the refusal took %.1f ms of the 5 s timeout", ms);
	EXPECT_SW(evd, TAG(1));
}

DC_CASE(dat_evd_set_unwaitable, blocked_waiter_released,
	.summary = "a thread blocked in dat_evd_wait returns DAT_INVALID_STATE after set_unwaitable")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_waiter *w;

	post(evd, TAG(1));
	w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 2);
	DC_ASSERT_BLOCKS(w);
	DC_ASSERT_SUCCESS(dat_evd_set_unwaitable(evd));
	DC_ASSERT_RETURNS(w, "dat_evd_set_unwaitable");
	note_ret(t, "the blocked dat_evd_wait", w->ret);
	DC_ASSERT_RET(w->ret, DAT_INVALID_STATE);
	EXPECT_SW(evd, TAG(1));
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_set_unwaitable, blocked_waiter_released_despite_clear,
	.summary = "a waiter blocked when set_unwaitable returned gets DAT_INVALID_STATE even if "
		   "clear_unwaitable follows at once",
	.clauses = "dat_evd_set_unwaitable.blocked_waiter_released")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);

	/* rounds: whether the woken waiter or the clear runs first is the
	 * scheduler's choice, and the order that matters comes in some only */
	for (int round = 0; round < 20; round++) {
		struct dc_waiter *w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 1);

		DC_ASSERT_BLOCKS(w);
		DC_ASSERT_SUCCESS(dat_evd_set_unwaitable(evd));
		/* the page releases the threads blocked at the call; making the
		 * EVD waitable again is a later call and takes nothing back */
		DC_SETUP(dat_evd_clear_unwaitable(evd));
		DC_ASSERT_RETURNS(w, "dat_evd_set_unwaitable, then dat_evd_clear_unwaitable");
		DC_ASSERT_RET(w->ret, DAT_INVALID_STATE);
		dc_waiter_free(w);
	}
}

DC_CASE(dat_evd_set_unwaitable, query_reports_unwaitable,
	.summary = "dat_evd_query reports UNWAITABLE after set_unwaitable")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_PARAM p;

	DC_ASSERT_SUCCESS(dat_evd_set_unwaitable(evd));
	memset(&p, 0, sizeof(p));
	/* collateral: dat_evd_set_unwaitable(3DAT) DESCRIPTION: the EVD's query reports it unwaitable */
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &p));
	DC_ASSERT(EVD_UNWAITABLE(p.evd_state),
		  "state 0x%x after set_unwaitable is not unwaitable",
		  (unsigned int)p.evd_state);
}

DC_CASE(dat_evd_set_unwaitable, cno_and_dequeue_unaffected,
	.summary = "an unwaitable EVD (CNO given at creation, or by modify once unwaitable) still notifies its CNO and can be dequeued")
{
	for (int way = 0; way < CNO_WAYS; way++) {
		DAT_CNO_HANDLE cno = dc_plain_cno(t);
		DAT_EVD_HANDLE evd = evd_on_cno_after(cno, way, PREP_UNWAITABLE, true);
		struct dc_waiter *w;

		DC_ASSERT_PTR_EQ(DC_EVD_PARAM(evd).cno_handle, cno);
		w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
		DC_ASSERT_BLOCKS(w);
		post(evd, TAG(1));
		EXPECT_CNO_WOKEN(w, evd, "a post to the unwaitable EVD");
		EXPECT_SW(evd, TAG(1));
		dc_waiter_free(w);
	}
}

/*
 * The same clauses for an EVD of each stream kind, alone and combined, with
 * and without a CNO (evd_common.h: evd_kinds): the cases above use a
 * software EVD only, and the page makes no difference between kinds.  The
 * query first (query_reports_unwaitable), then the refused wait
 * (wait_refused), each over every kind.
 */
DC_CASE(dat_evd_set_unwaitable, each_kind,
	.clauses = "dat_evd_set_unwaitable.query_reports_unwaitable dat_evd_set_unwaitable.wait_refused",
	.summary = "an EVD of each kind (alone and combined, with and without a CNO) made unwaitable "
		   "reports UNWAITABLE and refuses dat_evd_wait")
{
	unwaitable_each_kind(t, false, "dat_evd_set_unwaitable.query_reports_unwaitable",
			     "dat_evd_set_unwaitable.wait_refused");
}

/* Clause: dat_evd_set_unwaitable refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_set_unwaitable(bad[i]);
		snprintf(what, sizeof(what), "dat_evd_set_unwaitable(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_set_unwaitable, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_set_unwaitable, invalid_handle_freed,
	.clauses = "dat_evd_set_unwaitable.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}

DC_CASE(dat_evd_set_unwaitable, mt_safe,
	.summary = "set_unwaitable racing a thread entering dat_evd_wait always releases it (200 rounds)")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	int blocked = 0;

	for (int round = 0; round < 200; round++) {
		struct dc_waiter *w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 1);

		/*
		 * No readiness wait: the call races the waiter's entry.  Only
		 * the thread's start is awaited, so the two calls overlap.
		 */
		pthread_mutex_lock(&w->mu);
		while (!w->entered)
			pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
		DC_ASSERT_SUCCESS(dat_evd_set_unwaitable(evd));
		if (!dc_waiter_returned_within(w, dc_wait_ms(t)))
			DC_FAIL("round %d: dat_evd_wait did not return within %ld ms of dat_evd_set_unwaitable (lost wake-up)",
				round, dc_wait_ms(t));
		DC_ASSERT(dc_ret_is(w->ret, DAT_INVALID_STATE, DC_ANY_SUBTYPE),
			  "round %d: dat_evd_wait returned %s, expected DAT_INVALID_STATE",
			  round, dc_ret_text(w->ret));
		if (w->t_return - w->t_enter > 1.0)
			blocked++;
		dc_waiter_free(w);
		DC_SETUP(dat_evd_clear_unwaitable(evd));
	}
	dc_note(t, "in %d of 200 rounds the waiter spent more than 1 ms in the call", blocked);
}
