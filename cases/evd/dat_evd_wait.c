/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_wait(3DAT); clauses in clauses/dat_evd_wait.toml.
 * Blocking calls run in waiter threads (evd_common.h); the connection-event
 * clauses share their bodies with dat_evd_dequeue's (evd_cm.h) and take
 * every event with dat_evd_wait.
 */
#include <netinet/in.h>

#include "evd_cm.h"

/* A waiter's timeout that outlasts every check of a case. */
#define LONG_US ((DAT_TIMEOUT)dc_wait_ms(t) * 1000u)

DC_CASE(dat_evd_wait, returns_first_event,
	.summary = "dat_evd_wait removes the oldest event and fills in its type, EVD and data")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT nmore;
	DAT_EVENT ev;

	post(evd, TAG(1));
	post(evd, TAG(2));
	memset(&ev, 0xa5, sizeof(ev));
	DC_ASSERT_SUCCESS(dat_evd_wait(evd, LONG_US, 1, &ev, &nmore));
	check_sw_at(t, __FILE__, __LINE__, "first dat_evd_wait", &ev, evd, TAG(1));
	memset(&ev, 0xa5, sizeof(ev));
	DC_ASSERT_SUCCESS(dat_evd_wait(evd, LONG_US, 1, &ev, &nmore));
	check_sw_at(t, __FILE__, __LINE__, "second dat_evd_wait", &ev, evd, TAG(2));
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_wait, cr_event_carries_cr,
	.summary = "a connection request event taken by dat_evd_wait carries a live CR handle of the PSP")
{
	cm_cr_event_carries_cr(t, TAKE_WAIT);
}

DC_CASE(dat_evd_wait, cr_gone_after_accept_or_reject,
	.summary = "after dat_cr_reject / dat_cr_accept the old cr_handle is invalid")
{
	cm_cr_gone_after_accept_or_reject(t, TAKE_WAIT);
}

DC_CASE(dat_evd_wait, passive_established_no_private_data,
	.summary = "the passive Established event has private_data_size 0")
{
	cm_passive_established_no_private_data(t, TAKE_WAIT);
}

DC_CASE(dat_evd_wait, active_established_private_data,
	.summary = "the active Established event carries the accept's private data, valid until Disconnected")
{
	cm_active_established_private_data(t, TAKE_WAIT);
}

DC_CASE(dat_evd_wait, active_established_private_data_queued,
	.clauses = "dat_evd_wait.active_established_private_data",
	.summary = "the active Established event, left queued while a second connection is accepted with other private data, still carries its own",
	.flags = DC_NO_DTOS)
{
	cm_active_established_private_data_queued(t, TAKE_WAIT);
}

DC_CASE(dat_evd_wait, active_established_private_data_none,
	.clauses = "dat_evd_wait.active_established_private_data",
	.summary = "after an accept without private data (on an EP reset from a connection with some) the active Established event's size is not negative and a size above 0 has a pointer")
{
	cm_active_established_private_data_none(t, TAKE_WAIT);
}

DC_CASE(dat_evd_wait, entire_private_data,
	.summary = "max_private_data_size bytes of connect and accept private data arrive whole")
{
	cm_entire_private_data(t, TAKE_WAIT);
}

DC_CASE(dat_evd_wait, private_data_too_large,
	.summary = "connect / accept with max_private_data_size + 1 bytes give DAT_INVALID_PARAMETER")
{
	cm_private_data_too_large(t, TAKE_WAIT);
}

DC_CASE(dat_evd_wait, waiter_owns_evd,
	.summary = "while a thread waits, other waits and dequeues on the EVD get DAT_INVALID_STATE")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_waiter *w;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN r;
	double t0;

	post(evd, TAG(1));
	w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 2);
	DC_ASSERT_BLOCKS(w);
	/* threshold 1 would be met by the queued event if the EVD were free */
	memset(&ev, 0, sizeof(ev));
	r = dat_evd_wait(evd, 0, 1, &ev, &nmore);
	note_ret(t, "second dat_evd_wait (timeout 0)", r);
	DC_ASSERT(r != DAT_SUCCESS,
		  "a second dat_evd_wait took event %p from the EVD another thread waits on",
		  ev.event_data.software_event_data.pointer);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	t0 = dc_now_ms();
	r = dat_evd_wait(evd, 1000000, 1, &ev, &nmore);
	note_ret(t, "second dat_evd_wait (timeout 1 s)", r);
	DC_ASSERT(r != DAT_SUCCESS,
		  "a second dat_evd_wait took event %p from the EVD another thread waits on",
		  ev.event_data.software_event_data.pointer);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	dc_note(t, "the refused 1 s wait returned after %.1f ms", dc_now_ms() - t0);
	r = dat_evd_dequeue(evd, &ev);
	note_ret(t, "dat_evd_dequeue", r);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	post(evd, TAG(2));
	EXPECT_EVD_WOKEN(w, TAG(1), "the second post (threshold 2)");
	EXPECT_SW(evd, TAG(2));
}

DC_CASE(dat_evd_wait, cno_not_triggered_while_waiting,
	.summary = "events for a blocked dat_evd_wait do not notify the EVD's CNO (given at creation, then by modify)")
{
	for (int way = 0; way < CNO_WAYS; way++)
		waited_evd_silent(way);
}

DC_CASE(dat_evd_wait, timeout_in_microseconds,
	.summary = "a 100000 us timeout on an empty EVD gives DAT_TIMEOUT_EXPIRED after >= 100 ms (not 100 s), nmore 0")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	/* in a waiter thread: a timeout read in the wrong unit (100 s) is
	 * caught by the case's own bound, not by the run's timeout */
	struct dc_waiter *w = dc_evd_waiter(t, evd, 100000, 1);
	double ms;

	DC_ASSERT_RETURNS(w, "a 100000 us timeout (read as milliseconds?)");
	ms = w->t_return - w->t_enter;
	dc_note(t, "returned after %.1f ms", ms);
	DC_ASSERT_RET(w->ret, DAT_TIMEOUT_EXPIRED);
	/* 1 ms of slack for clock granularity between provider and case */
	DC_ASSERT(ms >= 99.0, "a 100000 us timeout expired after %.1f ms", ms);
	DC_ASSERT(ms < 5000.0, "a 100000 us timeout took %.1f ms (read as milliseconds?)", ms);
	DC_ASSERT_EQ(w->nmore, 0);
	dc_waiter_free(w);
}

/*
 * The same timeout when the process has no descriptor left: a provider that
 * sleeps on a descriptor must still wait, and for as long.  One that says
 * it cannot (DAT_INSUFFICIENT_RESOURCES, which the page does not list for
 * dat_evd_wait) is not judged here: the wait was not made.  In the case's own thread: the
 * checks that a waiter thread needs read /proc, which takes a descriptor.
 */
DC_CASE(dat_evd_wait, timeout_without_descriptors,
	.clauses = "dat_evd_wait.timeout_in_microseconds",
	.summary = "with every descriptor of the process in use, a 100000 us timeout gives DAT_TIMEOUT_EXPIRED after >= 100 ms; a queued event is returned")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct timespec a, b;
	DAT_COUNT nmore = -1;
	DAT_EVENT ev;
	DAT_RETURN r;
	double ms;

	dc_exhaust_fds(t);
	clock_gettime(CLOCK_MONOTONIC, &a);
	r = dat_evd_wait(evd, 100000, 1, &ev, &nmore);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	dc_note(t, "returned after %.1f ms", ms);
	/* a provider that says it cannot wait for lack of resources has not
	 * been shown to wait wrongly: not demonstrated */
	if (DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES)
		DC_UNRESOLVED("dat_evd_wait returned %s with no descriptor left: the wait "
			      "was not made", dc_ret_text(r));
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);
	DC_ASSERT(ms >= 99.0, "a 100000 us timeout expired after %.1f ms", ms);
	DC_ASSERT(ms < 5000.0, "a 100000 us timeout took %.1f ms", ms);
	DC_ASSERT_EQ(nmore, 0);
	post(evd, TAG(1));
	DC_ASSERT_SUCCESS(dat_evd_wait(evd, 100000, 1, &ev, &nmore));
	check_sw_at(t, __FILE__, __LINE__, "dat_evd_wait after the post", &ev, evd, TAG(1));
}

DC_CASE(dat_evd_wait, infinite_timeout,
	.summary = "DAT_TIMEOUT_INFINITE waits until an event comes")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_waiter *w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 1);

	DC_ASSERT_BLOCKS(w);
	DC_ASSERT_STILL_WAITING(w, "nothing was posted");
	post(evd, TAG(7));
	EXPECT_EVD_WOKEN(w, TAG(7), "a post");
}

/*
 * The failure path's out-parameter: on DAT_TIMEOUT_EXPIRED nmore is
 * defined, the number of events queued (DESCRIPTION), whether the timeout
 * ran out after a wait or was zero (the call that does not block at all).
 */
static void timeout_zero_nmore(struct dc_ctx *t, DAT_EVD_HANDLE evd, DAT_COUNT threshold,
			       DAT_COUNT queued)
{
	DAT_COUNT nmore = -1;
	DAT_EVENT ev;
	DAT_RETURN r;
	char what[80];

	r = dat_evd_wait(evd, 0, threshold, &ev, &nmore);
	snprintf(what, sizeof(what), "dat_evd_wait(timeout 0, threshold %d) with %d queued",
		 (int)threshold, (int)queued);
	note_ret(t, what, r);
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);
	DC_ASSERT_EQ(nmore, queued);
}

DC_CASE(dat_evd_wait, timeout_below_threshold,
	.summary = "timeout with 2 of 3 events queued: DAT_TIMEOUT_EXPIRED, nmore 2, nothing dequeued (also with timeout 0, and nmore 0 on an empty EVD)")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT nmore = -1;
	DAT_EVENT ev;
	DAT_RETURN r;
	double t0, ms;

	timeout_zero_nmore(t, evd, 1, 0);
	post_n(evd, 1, 2);
	timeout_zero_nmore(t, evd, 3, 2);
	t0 = dc_now_ms();
	r = dat_evd_wait(evd, 50000, 3, &ev, &nmore);
	ms = dc_now_ms() - t0;
	dc_note(t, "returned after %.1f ms", ms);
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);
	DC_ASSERT_EQ(nmore, 2);
	DC_ASSERT(ms >= 49.0, "a 50000 us timeout expired after %.1f ms", ms);
	EXPECT_SW_N(evd, 1, 2);
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_wait, threshold_reached,
	.summary = "a threshold-4 waiter returns only after the 4th event is posted")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_waiter *w = dc_evd_waiter(t, evd, LONG_US, 4);
	char after[48];

	DC_ASSERT_BLOCKS(w);
	for (int i = 1; i <= 4; i++) {
		post(evd, TAG(i));
		if (i < 4) {
			snprintf(after, sizeof(after), "post %d of 4 (threshold 4)", i);
			DC_ASSERT_STILL_WAITING(w, after);
		}
	}
	EXPECT_EVD_WOKEN(w, TAG(1), "post 4 of 4 (threshold 4)");
	DC_ASSERT_EQ(w->nmore, 3);
	EXPECT_SW_N(evd, 2, 3);
}

/*
 * The threshold counts completions that did not succeed as it counts any
 * event: a waiter with threshold 2 on the receive EVD of a DISCONNECTED EP
 * (default completion flags: every completion notifies) stays blocked
 * while one flushed Receive completion is queued and wakes with the second
 * (dat_ep_post_recv(3DAT) DESCRIPTION: a Receive posted on DISCONNECTED is
 * flushed to the receive EVD at once).  The waiter's own timeout is
 * FLUSH_WAIT_MS: one that is not woken within a second less is judged by
 * what it reports at its timeout - the two completions queued (nmore, or
 * DAT_SUCCESS at the timeout) fail the clause; fewer mean the flush never
 * came (set-up).
 */
#define FLUSH_WAIT_MS 5000L

/*
 * A threshold-2 waiter (timeout FLUSH_WAIT_MS) whose second event has been
 * made to come: one not woken within a second less is judged at its
 * timeout; two events queued then (DAT_SUCCESS, or nmore 2) fail the clause,
 * fewer mean the second never came (set-up: `unmet`).  `queued` names the
 * two events for the message.
 */
static void judge_threshold_2_woken(struct dc_ctx *t, struct dc_waiter *w, const char *unmet,
				    const char *queued)
{
	if (dc_waiter_returned_within(w, FLUSH_WAIT_MS - 1000))
		return;
	dc_waiter_join(t, w, "its own timeout");
	DC_SETUP_ASSERT(w->ret == DAT_SUCCESS || w->nmore >= 2,
			"set-up: at the waiter's timeout %d completion(s) were queued (%s): %s",
			(int)w->nmore, dc_ret_text(w->ret), unmet);
	DC_FAIL("%s were queued, but the threshold-2 waiter was not woken: it returned only at "
		"its timeout (%s, nmore %d)", queued, dc_ret_text(w->ret), (int)w->nmore);
}
DC_CASE(dat_evd_wait, threshold_met_by_flushed_completions,
	.clauses = "dat_evd_wait.threshold_reached",
	.summary = "a threshold-2 waiter stays blocked on one flushed Receive completion and wakes with the second")
{
	struct dc_pair p;
	struct dc_waiter *w;
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;

	dc_pair_up(t, &p, 4096, NULL);
	DC_SETUP(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_await_event(t, p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	dc_drain(t, p.a.recv_evd);
	w = dc_evd_waiter(t, p.a.recv_evd, (DAT_TIMEOUT)FLUSH_WAIT_MS * 1000u, 2);
	d = &w->ev.event_data.dto_completion_event_data;
	DC_ASSERT_BLOCKS(w);
	iov = dc_iov(&p.ma, 0, 64);
	DC_SETUP(dat_ep_post_recv(p.a.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_STILL_WAITING(w, "one flushed Receive completion (threshold 2)");
	iov = dc_iov(&p.ma, 64, 64);
	DC_SETUP(dat_ep_post_recv(p.a.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	judge_threshold_2_woken(t, w, "the Receives posted on DISCONNECTED were not flushed",
				"two flushed Receive completions");
	DC_ASSERT(w->ret == DAT_SUCCESS, "dat_evd_wait returned %s after the second flushed "
		  "completion, expected DAT_SUCCESS", dc_ret_text(w->ret));
	DC_ASSERT(w->ev.event_number == DAT_DTO_COMPLETION_EVENT && d->user_cookie.as_64 == 1 &&
		  d->status == DAT_DTO_ERR_FLUSHED,
		  "the woken waiter got event 0x%x cookie %llu (%s), expected the flushed completion "
		  "of cookie 1", (unsigned)w->ev.event_number, (unsigned long long)d->user_cookie.as_64,
		  dc_dto_status_name(d->status));
	DC_ASSERT_GE(w->nmore, 1);
	/* collateral: dat_evd_wait(3DAT) DESCRIPTION: the second event is the one still queued */
	DC_ASSERT_SUCCESS(dat_evd_dequeue(p.a.recv_evd, &ev));
	DC_ASSERT(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
		  ev.event_data.dto_completion_event_data.user_cookie.as_64 == 2,
		  "the event left after the waiter is not the second flushed completion");
}

/*
 * Failed completions (not flushed ones) count as any event (issue 54:
 * accounting tried with successful completions only).  The peer's second
 * Send is one byte longer than the second Receive: that Receive completes
 * with an error (the length error, dat_ep_post_recv(3DAT) DESCRIPTION) and
 * no Receive is left to flush.  dat_evd_wait(3DAT) DESCRIPTION:
 *  - threshold_reached: a threshold-2 waiter on the receive EVD stays
 *    blocked with the first, successful, completion queued and is woken by
 *    the failed one (not only at its timeout, as the flushed case above);
 *  - nmore_on_success: it then reports the failed completion still queued,
 *    nmore 1 (nothing else can come on this EVD);
 *  - timeout_below_threshold: with the failed completion queued and not
 *    reaped, a threshold-2 call of timeout 0 expires with nmore 1; once it
 *    is dequeued, a threshold-1 call expires with nmore 0.
 * Then the same for flushed completions (below).
 */
DC_CASE(dat_evd_wait, counts_completions_in_error,
	.clauses = "dat_evd_wait.threshold_reached dat_evd_wait.nmore_on_success "
		   "dat_evd_wait.timeout_below_threshold",
	.summary = "a failed Receive completion wakes a threshold-2 waiter, is counted in its nmore "
		   "and in a timed-out wait's nmore, and no longer once dequeued; flushed ones too")
{
	struct dc_pair p;
	struct dc_waiter *w;
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;
	DAT_COUNT nmore = -1;
	DAT_RETURN r;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;

	dc_pair_up(t, &p, 4096, NULL);
	iov = dc_iov(&p.mb, 0, 1024);
	DC_SETUP(dat_ep_post_recv(p.b.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
	iov = dc_iov(&p.mb, 1024, 100);
	DC_SETUP(dat_ep_post_recv(p.b.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	w = dc_evd_waiter(t, p.b.recv_evd, (DAT_TIMEOUT)FLUSH_WAIT_MS * 1000u, 2);
	d = &w->ev.event_data.dto_completion_event_data;
	DC_ASSERT_BLOCKS(w);
	iov = dc_iov(&p.ma, 0, 64);
	DC_SETUP(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(3), DAT_COMPLETION_DEFAULT_FLAG));
	dc_await_dto(t, p.a.req_evd, 3);	/* the first Receive is complete, or nearly */
	DC_FOR_CLAUSE("dat_evd_wait.threshold_reached");
	DC_ASSERT_STILL_WAITING(w, "one successful Receive completion (threshold 2)");
	iov = dc_iov(&p.ma, 0, 101);
	DC_SETUP(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(4), DAT_COMPLETION_DEFAULT_FLAG));
	judge_threshold_2_woken(t, w, "the Receive too short for its message did not complete",
				"a successful and a failed Receive completion");
	DC_ASSERT(w->ret == DAT_SUCCESS, "dat_evd_wait returned %s after the failed completion, "
		  "expected DAT_SUCCESS", dc_ret_text(w->ret));
	DC_ASSERT(w->ev.event_number == DAT_DTO_COMPLETION_EVENT && d->user_cookie.as_64 == 1,
		  "the woken waiter got event 0x%x cookie %llu, expected the first Receive's "
		  "completion", (unsigned)w->ev.event_number,
		  (unsigned long long)d->user_cookie.as_64);
	DC_FOR_CLAUSE("dat_evd_wait.nmore_on_success");
	DC_ASSERT_EQ(w->nmore, 1);
	DC_FOR_CLAUSE("dat_evd_wait.timeout_below_threshold");
	r = dat_evd_wait(p.b.recv_evd, 0, 2, &ev, &nmore);
	note_ret(t, "dat_evd_wait(timeout 0, threshold 2) with the failed completion queued", r);
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);
	DC_ASSERT_EQ(nmore, 1);
	DC_SETUP(dat_evd_dequeue(p.b.recv_evd, &ev));
	DC_SETUP_ASSERT(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			ev.event_data.dto_completion_event_data.user_cookie.as_64 == 2 &&
			ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS,
			"set-up: the event left is not the failed completion of the second Receive");
	dc_note(t, "the second Receive completed with %s",
		dc_dto_status_name(ev.event_data.dto_completion_event_data.status));
	nmore = -1;
	r = dat_evd_wait(p.b.recv_evd, 0, 1, &ev, &nmore);
	note_ret(t, "dat_evd_wait(timeout 0, threshold 1) after the failed completion was dequeued", r);
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);
	DC_ASSERT_EQ(nmore, 0);

	/* flushed completions the same way: the broken connection flushes two
	 * more Receives (dat_ep_post_recv(3DAT) DESCRIPTION); a threshold-2 wait
	 * returns the first with nmore 1, and the one left, not reaped, makes a
	 * threshold-2 call of timeout 0 expire with nmore 1 */
	iov = dc_iov(&p.mb, 2048, 64);
	DC_SETUP(dat_ep_post_recv(p.b.ep, 1, &iov, dc_cookie(5), DAT_COMPLETION_DEFAULT_FLAG));
	iov = dc_iov(&p.mb, 3072, 64);
	DC_SETUP(dat_ep_post_recv(p.b.ep, 1, &iov, dc_cookie(6), DAT_COMPLETION_DEFAULT_FLAG));
	nmore = -1;
	r = dat_evd_wait(p.b.recv_evd, (DAT_TIMEOUT)FLUSH_WAIT_MS * 1000u, 2, &ev, &nmore);
	DC_SETUP_ASSERT(r == DAT_SUCCESS || DAT_GET_TYPE(r) == DAT_TIMEOUT_EXPIRED,
			"set-up: dat_evd_wait for the two flushed Receives returned %s",
			dc_ret_text(r));
	if (r != DAT_SUCCESS) {
		DC_SETUP_ASSERT(nmore >= 2, "set-up: the Receives posted after the connection broke "
				"were not flushed within %ld ms (%d queued)", FLUSH_WAIT_MS,
				(int)nmore);
		DC_FOR_CLAUSE("dat_evd_wait.threshold_reached");
		DC_FAIL("two flushed Receive completions were queued, but the threshold-2 wait "
			"expired (nmore %d)", (int)nmore);
	}
	DC_SETUP_ASSERT(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
			ev.event_data.dto_completion_event_data.user_cookie.as_64 == 5 &&
			ev.event_data.dto_completion_event_data.status == DAT_DTO_ERR_FLUSHED,
			"set-up: the first Receive posted after the break did not complete flushed");
	DC_FOR_CLAUSE("dat_evd_wait.nmore_on_success");
	DC_ASSERT_EQ(nmore, 1);
	DC_FOR_CLAUSE("dat_evd_wait.timeout_below_threshold");
	nmore = -1;
	r = dat_evd_wait(p.b.recv_evd, 0, 2, &ev, &nmore);
	note_ret(t, "dat_evd_wait(timeout 0, threshold 2) with one flushed completion queued", r);
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);
	DC_ASSERT_EQ(nmore, 1);
}

/*
 * The same wake-up in a process that has closed its standard input, as a
 * daemon does: descriptor 0 is then the first one the provider gets for
 * what a wait sleeps on.  A wait that times out first makes the IA's
 * provider take it while nothing else is opened; the blocked waiter after
 * it may sleep on it.
 */
DC_CASE(dat_evd_wait, threshold_reached_without_stdin,
	.clauses = "dat_evd_wait.threshold_reached",
	.summary = "with descriptor 0 closed, a blocked waiter returns when the post meets its threshold")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT nmore;
	DAT_EVENT ev;

	DC_SETUP_ASSERT(close(0) == 0 || errno == EBADF, "close(0): %s", strerror(errno));
	for (int round = 1; round <= 3; round++) {
		struct dc_waiter *w;

		DC_SETUP_ASSERT(DAT_GET_TYPE(dat_evd_wait(evd, 1000, 1, &ev, &nmore)) ==
				DAT_TIMEOUT_EXPIRED, "a 1 ms wait on an empty EVD did not time out");
		w = dc_evd_waiter(t, evd, LONG_US, 1);
		DC_ASSERT_BLOCKS(w);
		post(evd, TAG(round));
		EXPECT_EVD_WOKEN(w, TAG(round), "the post (standard input closed)");
	}
}

/*
 * Clause check on evd: threshold evd_qlen + 1 is refused with the queue
 * full and unchanged, and evd_qlen itself is met by the full queue.  The
 * length is the EVD's current one (dat_evd_query), however it got it.
 */
/* resized: the queue was given its length by dat_evd_resize, whose clause
 * (the queue holds the new number of events) is checked first, apart */
static void threshold_at_qlen(struct dc_ctx *t, DAT_EVD_HANDLE evd, const char *how, bool resized)
{
	DAT_COUNT q = dc_evd_param(t, evd).evd_qlen, nmore = -1;
	DAT_EVENT ev;
	DAT_RETURN r;

	dc_note(t, "%s: evd_qlen %d", how, (int)q);
	DC_SETUP_ASSERT(q >= 4 && q <= 4096, "%s: evd_qlen %d", how, (int)q);
	if (resized)
		DC_FOR_CLAUSE("dat_evd_resize.resizes");
	post_n(evd, 0, q);
	if (resized)
		DC_FOR_CLAUSE("dat_evd_wait.threshold_above_qlen");
	r = dat_evd_wait(evd, 1000000, q + 1, &ev, &nmore);
	note_ret(t, "dat_evd_wait(threshold evd_qlen + 1)", r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	/* nothing was taken: a threshold of evd_qlen is met by the full queue */
	memset(&ev, 0, sizeof(ev));
	DC_ASSERT_SUCCESS(dat_evd_wait(evd, 1000000, q, &ev, &nmore));
	check_sw_at(t, __FILE__, __LINE__, "dat_evd_wait(threshold evd_qlen)", &ev,
		    evd, TAG(0));
	DC_ASSERT_EQ(nmore, q - 1);
	EXPECT_SW_N(evd, 1, q - 1);
}

DC_CASE(dat_evd_wait, threshold_above_qlen,
	.summary = "threshold evd_qlen + 1 gives DAT_INVALID_PARAMETER; evd_qlen itself works")
{
	threshold_at_qlen(t, dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG), "a 4-entry EVD", false);
}

/*
 * The queue length moved up and down by dat_evd_resize(3DAT): the limit is
 * the length the EVD has now, not the one it was created with.  A case of
 * its own, whose resize checks come first under dat_evd_resize's clause, so
 * that a provider whose resize breaks the queue is charged there and this
 * clause is judged by the case above.
 */
DC_CASE(dat_evd_wait, threshold_above_qlen_resized,
	.clauses = "dat_evd_resize.resizes dat_evd_wait.threshold_above_qlen",
	.summary = "after a resize up and down, threshold evd_qlen + 1 gives DAT_INVALID_PARAMETER and evd_qlen works")
{
	DAT_EVD_HANDLE up = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_HANDLE down = dc_evd(t, 24, DAT_EVD_SOFTWARE_FLAG);

	DC_SETUP(dat_evd_resize(up, 12));
	threshold_at_qlen(t, up, "a 4-entry EVD resized to 12", true);
	DC_SETUP(dat_evd_resize(down, 6));
	threshold_at_qlen(t, down, "a 24-entry EVD resized to 6", true);
}

DC_CASE(dat_evd_wait, threshold_not_positive,
	.summary = "threshold 0 or -1 gives DAT_INVALID_PARAMETER and takes nothing")
{
	static const DAT_COUNT bad[] = { 0, -1 };
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN r;

	post(evd, TAG(1));
	for (int i = 0; i < 2; i++) {
		r = dat_evd_wait(evd, 100000, bad[i], &ev, &nmore);
		note_ret(t, bad[i] ? "dat_evd_wait(threshold -1)" :
				     "dat_evd_wait(threshold 0)", r);
		DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	}
	EXPECT_SW(evd, TAG(1));
}

/* Threshold 2 refused, threshold 1 allowed, on `evd`. */
static void check_threshold_one(struct dc_ctx *t, DAT_EVD_HANDLE evd,
				const char *what)
{
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN r;
	char b[160];

	r = dat_evd_wait(evd, 0, 2, &ev, &nmore);
	snprintf(b, sizeof(b), "dat_evd_wait(threshold 2) on %s", what);
	note_ret(t, b, r);
	DC_ASSERT(dc_ret_is(r, DAT_INVALID_STATE, DC_ANY_SUBTYPE),
		  "%s returned %s, expected DAT_INVALID_STATE", b, dc_ret_text(r));
	r = dat_evd_wait(evd, 0, 1, &ev, &nmore);
	DC_ASSERT(dc_ret_is(r, DAT_TIMEOUT_EXPIRED, DC_ANY_SUBTYPE),
		  "dat_evd_wait(threshold 1, timeout 0) on %s returned %s, expected DAT_TIMEOUT_EXPIRED",
		  what, dc_ret_text(r));
}

DC_CASE(dat_evd_wait, threshold_one_for_consumer_notification,
	.summary = "threshold 2 on an EVD fed under Consumer-controlled notification gives DAT_INVALID_STATE",
	.requires = "completion_flags_supported&0x04")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE conn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_EVD_HANDLE recv = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE req = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EP_ATTR attr;

	dc_ep_attr_default(t, &attr);
	attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	dc_ep(t, pz, recv, req, conn, &attr);
	check_threshold_one(t, req, "the request EVD of an EP with unsignalled requests");
	if (t->prov_attr.completion_flags_supported &
	    DAT_COMPLETION_SOLICITED_WAIT_FLAG) {
		DAT_EVD_HANDLE recv2 = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE req2 = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE conn2 = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);

		dc_ep_attr_default(t, &attr);
		attr.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
		dc_ep(t, pz, recv2, req2, conn2, &attr);
		check_threshold_one(t, recv2,
				    "the recv EVD of an EP with solicited-wait receives");
	} else {
		dc_note(t, "DAT_COMPLETION_SOLICITED_WAIT_FLAG not supported: the solicited-wait receives were not checked");
	}
	/* the page names unsignalled receives too; the dat_ep_modify(3DAT)
	 * list of receive flags leaves them out, so a refusal of the flag at
	 * dat_ep_create only skips this part */
	{
		DAT_EVD_HANDLE recv3 = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE req3 = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE conn3 = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
		DAT_EP_HANDLE ep3 = DAT_HANDLE_NULL;
		DAT_RETURN r;

		dc_ep_attr_default(t, &attr);
		attr.recv_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
		r = dat_ep_create(t->ia, pz, recv3, req3, conn3, &attr, &ep3);
		if (r != DAT_SUCCESS) {
			dc_note(t, "dat_ep_create with unsignalled receives returned %s: those were not checked",
				dc_ret_text(r));
			return;
		}
		check_threshold_one(t, recv3, "the recv EVD of an EP with unsignalled receives");
		DC_CLEANUP(dat_ep_free(ep3));
	}
}

DC_CASE(dat_evd_wait, nmore_on_success,
	.summary = "nmore reports the events left: 4 after taking 1 of 5, then 3 with threshold 3, then 2 with threshold 3 on exactly 3")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT nmore = -1;
	DAT_EVENT ev;

	post_n(evd, 0, 5);
	DC_ASSERT_SUCCESS(dat_evd_wait(evd, LONG_US, 1, &ev, &nmore));
	check_sw_at(t, __FILE__, __LINE__, "dat_evd_wait(threshold 1)", &ev, evd, TAG(0));
	DC_ASSERT_EQ(nmore, 4);
	nmore = -1;
	DC_ASSERT_SUCCESS(dat_evd_wait(evd, LONG_US, 3, &ev, &nmore));
	check_sw_at(t, __FILE__, __LINE__, "dat_evd_wait(threshold 3)", &ev, evd, TAG(1));
	DC_ASSERT_EQ(nmore, 3);
	/* the threshold exactly at the queued count is reached: no wait at all */
	nmore = -1;
	DC_ASSERT_SUCCESS(dat_evd_wait(evd, 0, 3, &ev, &nmore));
	check_sw_at(t, __FILE__, __LINE__, "dat_evd_wait(threshold 3, 3 queued, timeout 0)",
		    &ev, evd, TAG(2));
	DC_ASSERT_EQ(nmore, 2);
}

DC_CASE(dat_evd_wait, stream_order,
	.summary = "software events come out of dat_evd_wait in posting order")
{
	int n = 100;
	DAT_EVD_HANDLE evd = evd_for_n(128, &n);
	DAT_COUNT nmore;
	DAT_EVENT ev;

	post_n(evd, 0, n);
	for (int i = 0; i < n; i++) {
		DC_ASSERT_SUCCESS(dat_evd_wait(evd, LONG_US, 1, &ev, &nmore));
		check_sw_at(t, __FILE__, __LINE__, "dat_evd_wait", &ev, evd, TAG(i));
	}
}

DC_CASE(dat_evd_wait, unwaitable_refused,
	.summary = "waits on an unwaitable EVD, and a waiter when it becomes unwaitable, get DAT_INVALID_STATE")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_waiter *w;
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN r;

	post(evd, TAG(1));
	DC_SETUP(dat_evd_set_unwaitable(evd));
	r = dat_evd_wait(evd, LONG_US, 1, &ev, &nmore);
	note_ret(t, "dat_evd_wait on an unwaitable EVD", r);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	DC_SETUP(dat_evd_clear_unwaitable(evd));
	w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 2);
	DC_ASSERT_BLOCKS(w);
	DC_SETUP(dat_evd_set_unwaitable(evd));
	DC_ASSERT_RETURNS(w, "dat_evd_set_unwaitable");
	note_ret(t, "the blocked dat_evd_wait", w->ret);
	DC_ASSERT_RET(w->ret, DAT_INVALID_STATE);
	EXPECT_SW(evd, TAG(1));
}

/* Clause: dat_evd_wait refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_COUNT nmore;
	DAT_EVENT ev;
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_wait(bad[i], 100000, 1, &ev, &nmore);
		snprintf(what, sizeof(what), "dat_evd_wait(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_wait, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_wait, invalid_handle_freed,
	.clauses = "dat_evd_wait.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}

DC_CASE(dat_evd_wait, abort_on_ia_close,
	.summary = "closing the IA under a blocked dat_evd_wait makes it return DAT_ABORT")
{
	for (int i = 1;; i++) {
		DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
		DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL, evd = DAT_HANDLE_NULL;
		struct dc_waiter *w;

		DC_SETUP(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2));
		DC_SETUP(dat_evd_create(ia2, 8, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd));
		w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 1);
		DC_ASSERT_BLOCKS(w);
		/* collateral: dat_evd_wait(3DAT) DESCRIPTION: the IA's close is what aborts the waiter */
		DC_ASSERT_SUCCESS(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
		DC_ASSERT_RETURNS(w, "dat_ia_close(DAT_CLOSE_ABRUPT_FLAG)");
		note_ret(t, "the blocked dat_evd_wait", w->ret);
		if (!dc_waiter_abort_raced(t, w->ret, i))
			break;
	}
}

DC_CASE(dat_evd_wait, abort_on_evd_free,
	.summary = "freeing the EVD under a blocked dat_evd_wait makes it return DAT_ABORT")
{
	for (int i = 1;; i++) {
		DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
		struct dc_waiter *w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 1);
		DAT_RETURN r;

		DC_ASSERT_BLOCKS(w);
		r = dat_evd_free(evd);
		note_ret(t, "dat_evd_free with a blocked waiter", r);
		DC_ASSERT_SUCCESS(r);
		DC_ASSERT_RETURNS(w, "dat_evd_free");
		note_ret(t, "the blocked dat_evd_wait", w->ret);
		if (!dc_waiter_abort_raced(t, w->ret, i))
			break;
	}
}

DC_CASE(dat_evd_wait, interrupted_by_signal,
	.summary = "SIGUSR1 (no SA_RESTART) to a blocked waiter gives DAT_INTERRUPTED_CALL; nothing taken")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_waiter *w;
	int sent;

	install_sigusr1();
	post(evd, TAG(1));
	w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 2);
	DC_ASSERT_BLOCKS(w);
	sent = interrupt_until_returned(w);
	dc_note(t, "%d SIGUSR1 sent, %d handled", sent, (int)sigusr1_seen_);
	note_ret(t, "the interrupted dat_evd_wait", w->ret);
	DC_ASSERT_RET(w->ret, DAT_INTERRUPTED_CALL);
	/* nmore is not checked: DESCRIPTION names DAT_INTERRUPTED_CALL among
	 * the returns with a defined nmore in one paragraph and leaves nmore
	 * undefined for every return but DAT_SUCCESS and DAT_TIMEOUT_EXPIRED
	 * in another */
	EXPECT_SW(evd, TAG(1));
}

DC_CASE(dat_evd_wait, mt_safe,
	.summary = "4 threads wait on 4 EVDs at once; each post wakes exactly its EVD's waiter")
{
	enum { NT = 4 };
	DAT_EVD_HANDLE e[NT];
	struct dc_waiter *w[NT];
	char after[48];

	for (int i = 0; i < NT; i++) {
		e[i] = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
		w[i] = dc_evd_waiter(t, e[i], DAT_TIMEOUT_INFINITE, 1);
	}
	for (int i = 0; i < NT; i++)
		DC_ASSERT_BLOCKS(w[i]);
	DC_ASSERT_STILL_WAITING(w[0], "nothing was posted");
	for (int i = 0; i < NT; i++) {
		post(e[i], TAG(i));
		snprintf(after, sizeof(after), "a post to EVD %d", i);
		EXPECT_EVD_WOKEN(w[i], TAG(i), after);
		for (int j = i + 1; j < NT; j++)
			DC_ASSERT(!dc_waiter_done(w[j]),
				  "the waiter of EVD %d returned %s after a post to EVD %d",
				  j, dc_ret_text(w[j]->ret), i);
	}
}

/* ---- the outputs of each event (docs/clauses.md, "Outputs") ----------------------- */

/*
 * Clause event_names_its_evd: the event dat_evd_wait takes from evd names evd.
 * Which event the set-up raises is the raising page's clause: no event, or
 * another kind than num, is UNRESOLVED here.
 */
static void take_from_at(struct dc_ctx *t, const char *file, int line,
			 DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num, DAT_EVENT *ev)
{
	DAT_COUNT nmore = 0;
	DAT_RETURN r;

	memset(ev, 0xa5, sizeof(*ev));
	r = dat_evd_wait(evd, LONG_US, 1, ev, &nmore);
	if (r != DAT_SUCCESS || ev->event_number != num)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: waiting for %s: dat_evd_wait returned %s, event %s",
			  dc_event_name(num), dc_ret_text(r),
			  r == DAT_SUCCESS ? dc_event_name(ev->event_number) : "-");
	if (ev->evd_handle != evd)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%s taken from EVD %p names EVD %p in evd_handle at %s:%d",
			  dc_event_name(num), evd, ev->evd_handle, file, line);
}
#define TAKE_FROM(evd, num, ev) take_from_at(t, __FILE__, __LINE__, (evd), (num), (ev))

/* Set-up: a connects (timeout_us, 0: the case's) to a fresh PSP; the request is taken (clause). */
static DAT_CR_HANDLE request_taken_at(struct dc_ctx *t, const char *file, int line,
				      struct dc_endpoint *a, DAT_TIMEOUT timeout_us)
{
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_EVENT ev;

	dc_endpoint_at(t, file, line, a, NULL);
	q = dc_psp_any_at(t, file, line, DAT_PSP_CONSUMER_FLAG, &cr_evd, &psp);
	if (dc_connect_to_self(t, a->ep, q, timeout_us, 0, NULL) != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: dat_ep_connect refused");
	take_from_at(t, file, line, cr_evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	return ev.event_data.cr_arrival_event_data.cr_handle;
}
#define REQUEST_TAKEN(a, timeout_us) request_taken_at(t, __FILE__, __LINE__, (a), (timeout_us))

DC_CASE(dat_evd_wait, event_names_its_evd_dto,
	.clauses = "dat_evd_wait.event_names_its_evd",
	.summary = "Send, Receive, RDMA Write and RDMA Read completions name the EVD they were taken from")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;
	DAT_EVENT ev;

	dc_pair_up(t, &p, 4096, NULL);
	dc_post_recv(t, p.b.ep, &p.mb, 0, 256, 1);
	dc_post_send(t, p.a.ep, &p.ma, 0, 64, 2);
	TAKE_FROM(p.a.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	TAKE_FROM(p.b.recv_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	iov = dc_iov(&p.ma, 0, 64);
	rem = dc_rmr_iov(&p.mb, 1024, 64);
	DC_SETUP(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(3), &rem,
					DAT_COMPLETION_DEFAULT_FLAG));
	TAKE_FROM(p.a.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_SETUP(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(4), &rem,
				       DAT_COMPLETION_DEFAULT_FLAG));
	TAKE_FROM(p.a.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
}

DC_CASE(dat_evd_wait, event_names_its_evd_connection,
	.clauses = "dat_evd_wait.event_names_its_evd",
	.summary = "the request, both Established and both Disconnected events name the EVD they were taken from")
{
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr = REQUEST_TAKEN(&a, 0);
	DAT_EVENT ev;

	dc_endpoint(t, &b, NULL);
	DC_SETUP(dat_cr_accept(cr, b.ep, 0, NULL));
	TAKE_FROM(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE_FROM(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	DC_SETUP(dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	TAKE_FROM(a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
	TAKE_FROM(b.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
}

DC_CASE(dat_evd_wait, event_names_its_evd_rejected,
	.clauses = "dat_evd_wait.event_names_its_evd",
	.summary = "the Peer Rejected event names the EVD it was taken from")
{
	struct dc_endpoint a;
	DAT_CR_HANDLE cr = REQUEST_TAKEN(&a, 0);
	DAT_EVENT ev;

	DC_SETUP(dc_dat_cr_reject(cr, 0, NULL));
	TAKE_FROM(a.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, &ev);
}

/*
 * Clause cr_arrival_each_way: a request from a new EP to q is taken from evd
 * and its data names the service point sp (or, when null_sp_ok, NULL), q,
 * the IA's address and a live CR.  Returns the CR.
 */
static DAT_CR_HANDLE arrival_at(struct dc_ctx *t, DAT_EVD_HANDLE evd, DAT_CONN_QUAL q,
				DAT_HANDLE sp, bool null_sp_ok)
{
	const struct sockaddr *me = (const struct sockaddr *)t->ia_attr.ia_address_ptr;
	const DAT_CR_ARRIVAL_EVENT_DATA *d;
	struct dc_endpoint a;
	DAT_HANDLE got_sp;
	DAT_CR_PARAM cp;
	DAT_EVENT ev;

	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	TAKE_FROM(evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	d = &ev.event_data.cr_arrival_event_data;
	got_sp = null_sp_ok ? (DAT_HANDLE)d->sp_handle.rsp_handle : (DAT_HANDLE)d->sp_handle.psp_handle;
	DC_ASSERT(got_sp == sp || (null_sp_ok && got_sp == DAT_HANDLE_NULL),
		  "sp_handle %p, the service point is %p%s", got_sp, sp,
		  null_sp_ok ? " (or DAT_HANDLE_NULL)" : "");
	DC_ASSERT(d->conn_qual == q, "conn_qual %llu, the request went to %llu",
		  (unsigned long long)d->conn_qual, (unsigned long long)q);
	DC_ASSERT(me && d->local_ia_address_ptr &&
		  ((me->sa_family != AF_INET && me->sa_family != AF_INET6) ?
		   d->local_ia_address_ptr->sa_family == me->sa_family :
		   dc_same_host(d->local_ia_address_ptr, me)),
		  "local_ia_address_ptr %p (family %d) is not the IA's address (family %d)",
		  (const void *)d->local_ia_address_ptr,
		  d->local_ia_address_ptr ? (int)d->local_ia_address_ptr->sa_family : -1,
		  me ? (int)me->sa_family : -1);
	DC_ASSERT(d->cr_handle != DAT_HANDLE_NULL, "the request carries a NULL cr_handle");
	memset(&cp, 0, sizeof(cp));
	/* collateral: dat_evd_wait(3DAT) DESCRIPTION: the event returns the handle of a Connection Request the provider created, which its query shows */
	DC_ASSERT_SUCCESS(dat_cr_query(d->cr_handle, DAT_CR_FIELD_ALL, &cp));
	return d->cr_handle;
}

/* Clause cr_arrival_each_way for a fresh PSP with `flags`; the request is then rejected. */
static void arrival_at_psp(struct dc_ctx *t, DAT_PSP_FLAGS flags)
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, flags, &evd, &psp);

	DC_SETUP(dc_dat_cr_reject(arrival_at(t, evd, q, psp, false), 0, NULL));
}

DC_CASE(dat_evd_wait, cr_arrival_psp,
	.clauses = "dat_evd_wait.cr_arrival_each_way dat_evd_wait.event_names_its_evd",
	.summary = "a request to a Consumer-flag PSP names the PSP, its qualifier, the IA's address and a live CR")
{
	arrival_at_psp(t, DAT_PSP_CONSUMER_FLAG);
}

DC_CASE(dat_evd_wait, cr_arrival_psp_provider,
	.clauses = "dat_evd_wait.cr_arrival_provider_psp",
	.summary = "a request to a Provider-flag PSP names the PSP, its qualifier, the IA's address and a live CR",
	.requires = "ep_creator!=0")
{
	arrival_at_psp(t, DAT_PSP_PROVIDER_FLAG);
}

DC_CASE(dat_evd_wait, cr_arrival_rsp,
	.clauses = "dat_evd_wait.cr_arrival_each_way dat_evd_wait.event_names_its_evd",
	.summary = "a request to an RSP names the RSP (or NULL), its qualifier, the IA's address and a live CR")
{
	struct dc_endpoint e;
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;

	dc_endpoint(t, &e, NULL);
	dc_rsp_any(t, e.ep, evd, &q, &rsp);
	DC_SETUP(dc_dat_cr_reject(arrival_at(t, evd, q, rsp, true), 0, NULL));
}

DC_CASE(dat_evd_wait, event_names_its_evd_no_listener,
	.clauses = "dat_evd_wait.event_names_its_evd",
	.summary = "the Non-Peer Rejected event of a request nobody listens for names the EVD it was taken from")
{
	struct dc_endpoint a;
	DAT_EVENT ev;

	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, dc_free_conn_qual(t), 0, 0, NULL));
	TAKE_FROM(a.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, &ev);
}

DC_CASE(dat_evd_wait, event_names_its_evd_unreachable,
	.clauses = "dat_evd_wait.event_names_its_evd",
	.summary = "the Unreachable event of a request to an address with no host names the EVD it was taken from")
{
	struct dc_endpoint a;
	struct sockaddr_in nowhere;
	DAT_EVENT ev;

	memset(&nowhere, 0, sizeof(nowhere));
	nowhere.sin_family = AF_INET;
	nowhere.sin_addr.s_addr = htonl(0xC0000201);	/* 192.0.2.1, TEST-NET-1 (RFC 5737) */
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&nowhere, 4791, 500000, 0, NULL,
				DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	TAKE_FROM(a.conn_evd, DAT_CONNECTION_EVENT_UNREACHABLE, &ev);
}

DC_CASE(dat_evd_wait, event_names_its_evd_timed_out,
	.clauses = "dat_evd_wait.event_names_its_evd",
	.summary = "the Timed Out event of an unanswered request, and the Accept Completion Error of its late accept, name the EVD they were taken from")
{
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr = REQUEST_TAKEN(&a, dc_unanswered_timeout_us(t));
	DAT_EVENT ev;

	dc_endpoint(t, &b, NULL);
	TAKE_FROM(a.conn_evd, DAT_CONNECTION_EVENT_TIMED_OUT, &ev);
	DC_SETUP(dat_cr_accept(cr, b.ep, 0, NULL));
	TAKE_FROM(b.conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, &ev);
}

DC_CASE(dat_evd_wait, event_names_its_evd_async,
	.clauses = "dat_evd_wait.event_names_its_evd",
	.summary = "the EVD overflow event names the IA's async EVD it was taken from")
{
	struct dc_endpoint a, b;
	DAT_EVENT ev;

	overflow_request_evd(&a, &b);
	TAKE_FROM(t->async_evd, DAT_ASYNC_ERROR_EVD_OVERFLOW, &ev);
}

/*
 * The threshold met by a completion that notifies no one (an unsignalled
 * Send's, on an EP with unsignalled requests): whether the waiter wakes at
 * its arrival or only at the timeout, the count is not below the threshold
 * then, so the wait succeeds with that completion, taken off the queue.
 * The timeout need only outlast seeing the waiter asleep and the Send's
 * completion: 250 ms first; a wait that ran out before either (a loaded
 * machine) is set-up, and the case tries again with the 2 s it used to
 * take, judged as before.
 */
DC_CASE(dat_evd_wait, threshold_met_without_notification,
	.clauses = "dat_evd_wait.returns_first_event",
	.summary = "an unsignalled completion meeting threshold 1 during a wait (250 ms, or 2 s if that was too short): DAT_SUCCESS with that completion, removed",
	.requires = "completion_flags_supported&4")
{
	static const DAT_TIMEOUT timeouts_us[] = { 250000, 2000000 };
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };
	struct dc_pair p;
	struct dc_waiter *w;
	DAT_LMR_TRIPLET iov;
	DAT_EP_STATE st;
	DAT_BOOLEAN rx_idle, req_idle = DAT_FALSE;
	DAT_EVENT ev;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;

	dc_ep_attr_default(t, &attr);
	attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	dc_pair_up(t, &p, 4096, &o);
	for (size_t k = 0;; k++) {
		bool last = k + 1 == sizeof(timeouts_us) / sizeof(timeouts_us[0]);
		double half_ms = timeouts_us[k] / 2000.0;
		bool done = false, blocked;

		dc_post_recv(t, p.b.ep, &p.mb, 0, 1024, 1 + k);
		w = dc_evd_waiter(t, p.a.req_evd, timeouts_us[k], 1);
		blocked = dc_waiter_blocked(t, w);
		if (!blocked && !last && w->ret == DAT_TIMEOUT_EXPIRED &&
		    w->t_return - w->t_enter >= half_ms) {
			/* set-up: the timeout ran out before the waiter was seen asleep */
			dc_waiter_free(w);
			continue;
		}
		if (!blocked)
			DC_FAIL("%s returned %s instead of blocking",
				dc_waiter_call_name(w), dc_ret_text(w->ret));
		iov = dc_iov(&p.ma, 0, 64);
		DC_SETUP(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(11), DAT_COMPLETION_UNSIGNALLED_FLAG));
		/* set-up: the Send completes while the wait still runs */
		while (!req_idle && !done) {
			done = dc_waiter_done(w);
			DC_SETUP(dat_ep_get_status(p.a.ep, &st, &rx_idle, &req_idle));
		}
		dc_waiter_join(t, w, "the unsignalled Send's completion and the timeout");
		if (!last && w->ret == DAT_TIMEOUT_EXPIRED && done) {
			/* set-up: the wait ran out before the Send completed; take it off */
			while (!req_idle)
				DC_SETUP(dat_ep_get_status(p.a.ep, &st, &rx_idle, &req_idle));
			DC_SETUP(dat_evd_dequeue(p.a.req_evd, &ev));
			dc_waiter_free(w);
			req_idle = DAT_FALSE;
			continue;
		}
		break;
	}
	DC_SETUP_ASSERT(req_idle || w->ret == DAT_SUCCESS,
			"set-up: the Send had not completed when the wait returned %s",
			dc_ret_text(w->ret));
	DC_ASSERT(w->ret == DAT_SUCCESS,
		  "dat_evd_wait(threshold 1) returned %s with the unsignalled completion queued",
		  dc_ret_text(w->ret));
	DC_ASSERT(w->ev.event_number == DAT_DTO_COMPLETION_EVENT,
		  "the wait succeeded with event %s, not the queued completion",
		  dc_event_name(w->ev.event_number));
	d = &w->ev.event_data.dto_completion_event_data;
	DC_ASSERT_EQ(d->user_cookie.as_64, 11);
	DC_ASSERT(d->status == DAT_DTO_SUCCESS, "the completion carries %s",
		  dc_dto_status_name(d->status));
	/* collateral: dat_evd_wait(3DAT) DESCRIPTION: the event the wait returned was removed from the queue */
	DC_ASSERT_RET(dat_evd_dequeue(p.a.req_evd, &ev), DAT_QUEUE_EMPTY);
}
