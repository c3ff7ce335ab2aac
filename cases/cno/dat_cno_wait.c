/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_cno_wait(3DAT); clauses in clauses/dat_cno_wait.toml.
 * Blocking calls run in waiter threads (../evd/evd_common.h).
 */
#include "../evd/evd_common.h"

DC_CASE(dat_cno_wait, returns_on_notification,
	.summary = "dat_cno_wait blocks until its EVD gets an event, then returns that EVD")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);

	DC_ASSERT_BLOCKS(w);
	DC_ASSERT_STILL_WAITING(w, "nothing was posted");
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a post to the CNO's EVD");
	EXPECT_SW(evd, TAG(1));
}

DC_CASE(dat_cno_wait, several_evds,
	.summary = "one CNO gathers notifications from 3 EVDs; each wakes a waiter with its own handle")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE e[3];
	char after[48];

	for (int i = 0; i < 3; i++)
		e[i] = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	for (int i = 0; i < 3; i++) {
		struct dc_waiter *w;

		cno_drain(cno);
		w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
		DC_ASSERT_BLOCKS(w);
		post(e[i], TAG(i));
		snprintf(after, sizeof(after), "a post to EVD %d of 3", i);
		EXPECT_CNO_WOKEN(w, e[i], after);
		dc_waiter_free(w);
	}
}

DC_CASE(dat_cno_wait, timeout,
	.summary = "50000 us without notification: DAT_QUEUE_EMPTY after >= 50 ms and a NULL EVD")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE got = DC_UNWRITTEN_EVD;
	DAT_RETURN r;
	double t0, ms;

	dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	t0 = dc_now_ms();
	r = dat_cno_wait(cno, 50000, &got);
	ms = dc_now_ms() - t0;
	dc_note(t, "returned after %.1f ms", ms);
	DC_ASSERT_RET(r, DAT_QUEUE_EMPTY);
	DC_ASSERT(got == DAT_HANDLE_NULL,
		  "on timeout the EVD handle is %p, not the null handle", got);
	DC_ASSERT(ms >= 49.0, "a 50000 us timeout expired after %.1f ms", ms);
	DC_ASSERT(ms < 5000.0, "a 50000 us timeout took %.1f ms", ms);
}

DC_CASE(dat_cno_wait, disabled_evd_silent,
	.summary = "a disabled EVD does not wake the CNO's waiter; an enabled one does")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE off = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_EVD_HANDLE on = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w;

	DC_SETUP(dat_evd_disable(off));
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(off, TAG(1));
	DC_ASSERT_STILL_WAITING(w, "a post to a disabled EVD of the CNO");
	post(on, TAG(2));
	EXPECT_CNO_WOKEN(w, on, "a post to the enabled EVD");
}

DC_CASE(dat_cno_wait, waited_evd_silent,
	.summary = "an EVD with a direct waiter does not wake the CNO's waiter")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE e1 = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_EVD_HANDLE e2 = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *we = dc_evd_waiter(t, e1, DAT_TIMEOUT_INFINITE, 1);
	struct dc_waiter *wc = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);

	DC_ASSERT_BLOCKS(we);
	DC_ASSERT_BLOCKS(wc);
	post(e1, TAG(1));
	EXPECT_EVD_WOKEN(we, TAG(1), "a post to the waited EVD");
	DC_ASSERT_STILL_WAITING(wc, "a post to an EVD in the waited state");
	post(e2, TAG(2));
	EXPECT_CNO_WOKEN(wc, e2, "a post to the CNO's other EVD");
}

/* Clause part: a released waiter got DAT_SUCCESS and the null EVD handle. */
static void expect_released(struct dc_ctx *t, struct dc_waiter *w, const char *after)
{
	DC_ASSERT_RETURNS(w, after);
	note_ret(t, "the released dat_cno_wait", w->ret);
	DC_ASSERT(w->ret == DAT_SUCCESS,
		  "after %s dat_cno_wait returned %s, expected DAT_SUCCESS", after,
		  dc_ret_text(w->ret));
	DC_ASSERT(w->evd == DAT_HANDLE_NULL,
		  "after %s dat_cno_wait returned EVD %p, expected the null handle",
		  after, w->evd);
}

DC_CASE(dat_cno_wait, released_on_ia_close,
	.summary = "closing the IA releases both CNO waiters and the agent with a NULL EVD")
{
	struct agent_rec *ra = agent_rec_new();
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL, evd = DAT_HANDLE_NULL;
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	struct dc_waiter *w1, *w2;

	DC_SETUP(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2));
	DC_SETUP(dat_cno_create(ia2, agent_of(ra), &cno));
	DC_SETUP(dat_evd_create(ia2, 8, cno, DAT_EVD_SOFTWARE_FLAG, &evd));
	w1 = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	w2 = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w1);
	DC_ASSERT_BLOCKS(w2);
	/* collateral: dat_cno_wait(3DAT) DESCRIPTION: the release the clause speaks of is the IA's destruction */
	DC_ASSERT_SUCCESS(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
	expect_released(t, w1, "dat_ia_close(DAT_CLOSE_ABRUPT_FLAG)");
	expect_released(t, w2, "dat_ia_close(DAT_CLOSE_ABRUPT_FLAG)");
	DC_ASSERT(agent_calls_within(ra, 1, dc_wait_ms(t)),
		  "the OS Wait Proxy Agent was not called when the IA was closed");
	DC_ASSERT(ra->evd == DAT_HANDLE_NULL,
		  "the agent was called with EVD %p, expected the null handle", ra->evd);
}

DC_CASE(dat_cno_wait, released_when_evds_freed,
	.summary = "freeing the CNO's last EVD releases both waiters with a NULL EVD; the first does not")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE e1 = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_EVD_HANDLE e2 = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w1 = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	struct dc_waiter *w2 = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);

	DC_ASSERT_BLOCKS(w1);
	DC_ASSERT_BLOCKS(w2);
	DC_SETUP(dat_evd_free(e1));
	DC_ASSERT_STILL_WAITING(w1, "freeing one of the CNO's two EVDs");
	DC_ASSERT(!dc_waiter_done(w2),
		  "the second waiter returned %s after freeing one of two EVDs",
		  dc_ret_text(w2->ret));
	DC_SETUP(dat_evd_free(e2));
	expect_released(t, w1, "freeing the CNO's last EVD");
	expect_released(t, w2, "freeing the CNO's last EVD");
}

DC_CASE(dat_cno_wait, interrupted_by_signal,
	.summary = "SIGUSR1 (no SA_RESTART) to a blocked waiter gives DAT_INTERRUPTED_CALL; the CNO still works")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w;
	int sent;

	install_sigusr1();
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	sent = interrupt_until_returned(w);
	dc_note(t, "%d SIGUSR1 sent, %d handled", sent, (int)sigusr1_seen_);
	note_ret(t, "the interrupted dat_cno_wait", w->ret);
	DC_ASSERT_RET(w->ret, DAT_INTERRUPTED_CALL);
	dc_waiter_free(w);
	cno_drain(cno);
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a post after the interrupted wait");
}

DC_CASE(dat_cno_wait, invalid_handle,
	.summary = "NULL or an EVD handle gives DAT_INVALID_HANDLE")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_HANDLE got;
	DAT_RETURN r;

	r = dat_cno_wait(DAT_HANDLE_NULL, 100000, &got);
	note_ret(t, "dat_cno_wait(DAT_HANDLE_NULL)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CNO);
	r = dat_cno_wait((DAT_CNO_HANDLE)evd, 100000, &got);
	note_ret(t, "dat_cno_wait(an EVD handle)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CNO);
}

DC_CASE(dat_cno_wait, null_evd_pointer,
	.summary = "a NULL evd_handle pointer gives DAT_INVALID_PARAMETER at once")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_RETURN r;
	double t0 = dc_now_ms();

	dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	r = dat_cno_wait(cno, 2000000, NULL);
	note_ret(t, "dat_cno_wait(evd_handle pointer NULL)", r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	DC_ASSERT(dc_now_ms() - t0 < 1000.0, "the refusal took %.1f ms of a 2 s timeout",
		  dc_now_ms() - t0);
}

DC_CASE(dat_cno_wait, mt_safe,
	.summary = "4 threads wait on 4 CNOs at once; each post wakes exactly its CNO's waiter")
{
	enum { NT = 4 };
	DAT_CNO_HANDLE c[NT];
	DAT_EVD_HANDLE e[NT];
	struct dc_waiter *w[NT];
	char after[48];

	for (int i = 0; i < NT; i++) {
		c[i] = dc_plain_cno(t);
		e[i] = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, c[i]);
		w[i] = dc_cno_waiter(t, c[i], DAT_TIMEOUT_INFINITE);
	}
	for (int i = 0; i < NT; i++)
		DC_ASSERT_BLOCKS(w[i]);
	for (int i = 0; i < NT; i++) {
		post(e[i], TAG(i));
		snprintf(after, sizeof(after), "a post to the EVD of CNO %d", i);
		EXPECT_CNO_WOKEN(w[i], e[i], after);
		for (int j = i + 1; j < NT; j++) {
			if (j == i + 1)
				DC_ASSERT_STILL_WAITING(w[j], after);
			DC_ASSERT(!dc_waiter_done(w[j]),
				  "the waiter of CNO %d returned %s after %s", j,
				  dc_ret_text(w[j]->ret), after);
		}
	}
}
