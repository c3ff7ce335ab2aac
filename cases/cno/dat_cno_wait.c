/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_cno_wait(3DAT); clauses in clauses/dat_cno_wait.toml.
 * Blocking calls run in waiter threads (../evd/evd_common.h).
 */
#include "../evd/evd_common.h"

DC_CASE(dat_cno_wait, returns_on_notification,
	.summary = "dat_cno_wait blocks until its EVD (CNO given at creation, then by modify) gets an event, then returns that EVD")
{
	for (int way = 0; way < CNO_WAYS; way++) {
		DAT_CNO_HANDLE cno = dc_plain_cno(t);
		DAT_EVD_HANDLE evd = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, cno, way);
		struct dc_waiter *w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
		char after[80];

		dc_note(t, "the CNO %s", cno_way_name(way));
		DC_ASSERT_BLOCKS(w);
		DC_ASSERT_STILL_WAITING(w, "nothing was posted");
		post(evd, TAG(1));
		snprintf(after, sizeof(after), "a post to the CNO's EVD (CNO %s)", cno_way_name(way));
		EXPECT_CNO_WOKEN(w, evd, after);
		EXPECT_SW(evd, TAG(1));
	}
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

/*
 * The same clause reached after a notification: a provider may keep a
 * trigger that found no waiter for the next dat_cno_wait (cno_drain takes
 * it), but once it is taken, and the event dequeued, nothing notifies the
 * CNO any more: a 50 ms wait times out as on a CNO never notified.
 */
DC_CASE(dat_cno_wait, timeout_after_notification_taken,
	.clauses = "dat_cno_wait.timeout",
	.summary = "after a notification was taken (and its event dequeued), a 50000 us wait times out")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_EVD_HANDLE got = DC_UNWRITTEN_EVD;
	DAT_RETURN r;
	int kept;

	post(evd, TAG(1));
	EXPECT_SW(evd, TAG(1));
	kept = cno_drain(cno);
	dc_note(t, "the CNO reported %d notification(s) kept from the post", kept);
	r = dat_cno_wait(cno, 50000, &got);
	DC_ASSERT_RET(r, DAT_QUEUE_EMPTY);
	DC_ASSERT(got == DAT_HANDLE_NULL,
		  "on timeout the EVD handle is %p, not the null handle", got);
}

DC_CASE(dat_cno_wait, disabled_evd_silent,
	.summary = "a disabled EVD (CNO given at creation, then by modify) does not wake the CNO's waiter; an enabled one does")
{
	for (int way = 0; way < CNO_WAYS; way++) {
		DAT_CNO_HANDLE cno = dc_plain_cno(t);
		DAT_EVD_HANDLE off = evd_on_cno_after(cno, way, PREP_DISABLE, false);
		DAT_EVD_HANDLE on = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
		struct dc_waiter *w;

		w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
		DC_ASSERT_BLOCKS(w);
		post(off, TAG(1));
		DC_ASSERT_STILL_WAITING(w, "a post to a disabled EVD of the CNO");
		post(on, TAG(2));
		EXPECT_CNO_WOKEN(w, on, "a post to the enabled EVD");
		dc_waiter_free(w);
	}
}

DC_CASE(dat_cno_wait, waited_evd_silent,
	.summary = "an EVD with a direct waiter does not wake the CNO's waiter")
{
	for (int way = 0; way < CNO_WAYS; way++)
		waited_evd_silent(way);
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

/* Clause part: the agent was called (once) with the null EVD handle. */
static void expect_agent_released(struct dc_ctx *t, struct agent_rec *ra, const char *after)
{
	DC_ASSERT(agent_calls_within(ra, 1, dc_wait_ms(t)),
		  "the OS Wait Proxy Agent was not called after %s", after);
	DC_ASSERT(ra->evd == DAT_HANDLE_NULL,
		  "after %s the agent was called with EVD %p, expected the null handle",
		  after, ra->evd);
}

/* A CNO of the harness's IA created with the recorder ra as its agent. */
static DAT_CNO_HANDLE agent_cno(struct dc_ctx *t, struct agent_rec *ra)
{
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;

	DC_SETUP(dat_cno_create(t->ia, agent_of(ra), &cno));
	return cno;
}

/*
 * dat_cno_wait(3DAT) DESCRIPTION counts the OS Wait Proxy Agent among the
 * waiters that the loss of the CNO's last EVD releases: it is checked with
 * threads blocked, and as the only waiter (below).
 */
DC_CASE(dat_cno_wait, released_when_evds_freed,
	.summary = "freeing the CNO's last EVD releases both waiters and the agent with a NULL EVD; the first does not")
{
	struct agent_rec *ra = agent_rec_new();
	DAT_CNO_HANDLE cno = agent_cno(t, ra);
	/* the EVDs feed the CNO each way (dat_evd_create, dat_evd_modify_cno) */
	DAT_EVD_HANDLE e1 = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, cno, CNO_AT_CREATE);
	DAT_EVD_HANDLE e2 = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, cno, CNO_BY_MODIFY);
	struct dc_waiter *w1 = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	struct dc_waiter *w2 = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);

	DC_ASSERT_BLOCKS(w1);
	DC_ASSERT_BLOCKS(w2);
	DC_SETUP(dat_evd_free(e1));
	DC_ASSERT_STILL_WAITING(w1, "freeing one of the CNO's two EVDs");
	DC_ASSERT(!dc_waiter_done(w2),
		  "the second waiter returned %s after freeing one of two EVDs",
		  dc_ret_text(w2->ret));
	DC_ASSERT_EQ(agent_calls(ra), 0);
	DC_SETUP(dat_evd_free(e2));
	expect_released(t, w1, "freeing the CNO's last EVD");
	expect_released(t, w2, "freeing the CNO's last EVD");
	expect_agent_released(t, ra, "freeing the CNO's last EVD");
}

DC_CASE(dat_cno_wait, released_when_evds_freed_agent_only,
	.clauses = "dat_cno_wait.released_when_evds_freed",
	.summary = "with no thread blocked, freeing the CNO's last EVD calls its agent with a NULL EVD")
{
	struct agent_rec *ra = agent_rec_new();
	DAT_CNO_HANDLE cno = agent_cno(t, ra);
	/* the other order of the two ways than released_when_evds_freed */
	DAT_EVD_HANDLE e1 = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, cno, CNO_BY_MODIFY);
	DAT_EVD_HANDLE e2 = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, cno, CNO_AT_CREATE);

	DC_SETUP(dat_evd_free(e1));
	DC_ASSERT(!agent_calls_within(ra, 1, 50),
		  "the agent was called (EVD %p) after freeing one of the CNO's two EVDs",
		  ra->evd);
	DC_SETUP(dat_evd_free(e2));
	expect_agent_released(t, ra, "freeing the CNO's last EVD (no thread blocked)");
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
