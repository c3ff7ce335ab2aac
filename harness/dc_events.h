/* SPDX-License-Identifier: MIT */
/*
 * dc_events.h - events beyond dc_wait_event / DC_ASSERT_EVENT: DTO and
 * connection events checked by content, asynchronous errors, bounded
 * "must not happen" watches, and waiter threads for blocking calls.
 * Included by datcts.h.
 */
#ifndef DC_EVENTS_H
#define DC_EVENTS_H

#include <pthread.h>

/* CLOCK_MONOTONIC in milliseconds. */
double dc_now_ms(void);
/* A "should come" wait: DC_WAIT_MS, capped by the case deadline. */
long dc_wait_ms(const struct dc_ctx *t);
/* A connect timeout that outlives the case (microseconds). */
DAT_TIMEOUT dc_case_timeout_us(const struct dc_ctx *t);

/*
 * How long a case watches for something that must not happen (a return, a
 * callback, an event) before it concludes that it did not.  Every watch is
 * a timed wait that the awaited thing ends at once if it does come.
 */
#define DC_QUIET_MS 50L

/* ---- DTO completions ----------------------------------------------------------- */

#define DC_ANY_STATUS (-1)
/*
 * The next event on evd must be a DTO completion; with `cookie` non-NULL of
 * that cookie, with status >= 0 of that status.  Returns its data.
 */
DAT_DTO_COMPLETION_EVENT_DATA dc_expect_dto_at(struct dc_ctx *t, const char *file,
					       int line, enum dc_state on_miss,
					       DAT_EVD_HANDLE evd,
					       const uint64_t *cookie, int status);
/* Clause: the completion of `cookie` with `status` is next. */
#define DC_ASSERT_DTO(evd, cookie, status)				\
	dc_expect_dto_at(t, __FILE__, __LINE__, DC_FAIL, (evd),		\
			 &(const uint64_t){ (cookie) }, (int)(status))
/* Set-up: the completion of `cookie` with `status` is next, else UNRESOLVED. */
#define DC_SETUP_DTO(evd, cookie, status)				\
	dc_expect_dto_at(t, __FILE__, __LINE__, DC_UNRESOLVED, (evd),	\
			 &(const uint64_t){ (cookie) }, (int)(status))
/* Clause: some DTO completion is next (any cookie, any status). */
#define DC_ASSERT_DTO_EVENT(evd)					\
	dc_expect_dto_at(t, __FILE__, __LINE__, DC_FAIL, (evd), NULL, DC_ANY_STATUS)
/* Clause: a successful DTO completion is next (any cookie). */
#define DC_ASSERT_DTO_SUCCESS(evd)					\
	dc_expect_dto_at(t, __FILE__, __LINE__, DC_FAIL, (evd), NULL, DAT_DTO_SUCCESS)

/* A status a case computed: the two names on a miss. */
#define DC_ASSERT_DTO_STATUS(got, want)					\
	DC_ASSERT((got) == (want), "DTO status %s, expected %s",	\
		  dc_dto_status_name(got), dc_dto_status_name(want))

/* ---- connection events ------------------------------------------------------------ */

/* Clause: the next event on evd is connection event `num` for ep (ep NULL: any). */
void dc_expect_conn_event_at(struct dc_ctx *t, const char *file, int line,
			     DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num,
			     DAT_EP_HANDLE ep, DAT_EVENT *out);
#define DC_ASSERT_CONN_EVENT(evd, num, ep)				\
	dc_expect_conn_event_at(t, __FILE__, __LINE__, (evd), (num), (ep), NULL)

/* Set-up: waits for a connection request on evd; returns its CR. */
DAT_CR_HANDLE dc_await_cr_at(struct dc_ctx *t, const char *file, int line,
			     DAT_EVD_HANDLE evd, DAT_CR_ARRIVAL_EVENT_DATA *out);
#define dc_await_cr(t, evd, out) dc_await_cr_at((t), __FILE__, __LINE__, (evd), (out))

/* The next event on evd ends the connection: BROKEN or DISCONNECTED. */
void dc_expect_conn_end_at(struct dc_ctx *t, const char *file, int line,
			   enum dc_state on_miss, DAT_EVD_HANDLE evd);
#define DC_ASSERT_CONN_END(evd)						\
	dc_expect_conn_end_at(t, __FILE__, __LINE__, DC_FAIL, (evd))
#define dc_await_conn_end(t, evd)					\
	dc_expect_conn_end_at((t), __FILE__, __LINE__, DC_UNRESOLVED, (evd))

/* ---- asynchronous errors ------------------------------------------------------------ */

/* Clause: the next event of that reason on the IA's async EVD names handle h
 * (asynchronous events of other reasons before it are noted, not judged). */
void dc_expect_async_at(struct dc_ctx *t, const char *file, int line,
			DAT_HANDLE h, int reason, long timeout_ms);
#define DC_ASSERT_ASYNC_EVENT(h, reason)				\
	dc_expect_async_at(t, __FILE__, __LINE__, (DAT_HANDLE)(h), (int)(reason), -1)

/* Clause: of what is queued on the IA's async EVD (all dequeued), no event
 * is of `reason` (e.g. DAT_SRQ_LOW_WATERMARK_EVENT): "no such event" is no
 * event of that kind, and asynchronous events of other reasons, which the
 * pages leave to the provider, are noted.  Anything not asynchronous fails. */
void dc_assert_no_async_event_at(struct dc_ctx *t, const char *file, int line,
				 int reason);
#define DC_ASSERT_NO_ASYNC_EVENT(reason)					\
	dc_assert_no_async_event_at(t, __FILE__, __LINE__, (int)(reason))

/* ---- waiter threads ----------------------------------------------------------------- */

/*
 * A waiter is a thread that makes one blocking call (dat_evd_wait or
 * dat_cno_wait) and records its result; the case's own thread acts and
 * judges (verdicts must not cross threads).  Waiters live in a static
 * pool, so one still blocked when the case ends (the teardown's abrupt
 * close releases it) never writes into a dead stack frame.
 *
 * "Blocked" is observed, not guessed: dc_waiter_blocked waits until the
 * thread announced that it enters the call and the kernel then reports it
 * asleep in one sleep (not scheduled in since: /proc/self/task/<tid>/stat
 * and schedstat, Linux) for 2 ms over three reads while no other thread of
 * the process is runnable: a sleeper seen for an instant, or beside a
 * runnable thread, may only be waiting for a lock that thread holds.
 * Beside a thread that stays runnable, 50 ms asleep counts instead.
 */
enum dc_waiter_call { DC_WAIT_EVD, DC_WAIT_CNO };

/* What a CNO waiter's evd holds until dat_cno_wait writes it. */
#define DC_UNWRITTEN_EVD ((DAT_EVD_HANDLE)(uintptr_t)0xbadbad0)

struct dc_waiter {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum dc_waiter_call call;
	DAT_HANDLE h;
	DAT_TIMEOUT timeout;
	DAT_COUNT threshold;
	pid_t tid;
	bool in_use, entered, returned;
	DAT_RETURN ret;
	DAT_EVENT ev;		/* dat_evd_wait's event */
	DAT_COUNT nmore;	/* dat_evd_wait's nmore */
	DAT_EVD_HANDLE evd;	/* dat_cno_wait's EVD */
	double t_enter, t_return;
};

/* Set-up: starts the thread; it calls once and records the result. */
struct dc_waiter *dc_waiter_start_at(struct dc_ctx *t, const char *file, int line,
				     enum dc_waiter_call call, DAT_HANDLE h,
				     DAT_TIMEOUT timeout, DAT_COUNT threshold);
#define dc_evd_waiter(t, evd, timeout, threshold)			\
	dc_waiter_start_at((t), __FILE__, __LINE__, DC_WAIT_EVD, (evd),	\
			   (timeout), (threshold))
#define dc_cno_waiter(t, cno, timeout)					\
	dc_waiter_start_at((t), __FILE__, __LINE__, DC_WAIT_CNO, (cno), (timeout), 0)

/* "dat_evd_wait" or "dat_cno_wait". */
const char *dc_waiter_call_name(const struct dc_waiter *w);
/* True once the waiter returned (waiting at most ms from now). */
bool dc_waiter_returned_within(struct dc_waiter *w, long ms);
#define dc_waiter_done(w) dc_waiter_returned_within((w), 0)
/* Gives a returned waiter's slot back (a blocked one keeps it). */
void dc_waiter_free(struct dc_waiter *w);

/*
 * Set-up: waits until the waiter sleeps in its call.  False when the call
 * returned instead (the caller judges: usually the clause wanted a block).
 */
bool dc_waiter_blocked_at(struct dc_ctx *t, const char *file, int line,
			  struct dc_waiter *w);
#define dc_waiter_blocked(t, w) dc_waiter_blocked_at((t), __FILE__, __LINE__, (w))

/* Clause: the call must block (not return at once). */
#define DC_ASSERT_BLOCKS(w)						\
	do {								\
		if (!dc_waiter_blocked(t, (w)))				\
			DC_FAIL("%s returned %s instead of blocking",	\
				dc_waiter_call_name(w), dc_ret_text((w)->ret)); \
	} while (0)

/* Clause: the call is still blocked after a DC_QUIET_MS watch. */
void dc_assert_still_waiting_at(struct dc_ctx *t, const char *file, int line,
				struct dc_waiter *w, const char *after);
#define DC_ASSERT_STILL_WAITING(w, after)				\
	dc_assert_still_waiting_at(t, __FILE__, __LINE__, (w), (after))

/* The call returns within dc_wait_ms (else the case ends on_miss). */
void dc_waiter_join_at(struct dc_ctx *t, const char *file, int line,
		       struct dc_waiter *w, enum dc_state on_miss,
		       const char *after);
#define DC_ASSERT_RETURNS(w, after)					\
	dc_waiter_join_at(t, __FILE__, __LINE__, (w), DC_FAIL, (after))
#define dc_waiter_join(t, w, after)					\
	dc_waiter_join_at((t), __FILE__, __LINE__, (w), DC_UNRESOLVED, (after))

/* A mutex + a CLOCK_MONOTONIC condition variable, and a wait until `until_ms`. */
void dc_cv_init(pthread_mutex_t *mu, pthread_cond_t *cv);
void dc_cv_wait_until(pthread_mutex_t *mu, pthread_cond_t *cv, double until_ms);

/*
 * Clause: a waiter whose EVD went away under it (freed, its IA closed)
 * returned DAT_ABORT; true to try the whole scenario again.  A thread seen
 * asleep in dat_evd_wait may still sleep on the provider's own lock before
 * it looked its handle up; the free or close then comes first, and
 * DAT_INVALID_HANDLE is right for that call (seen once in a variant run).
 * A provider that answers so to a waiter that did wait answers so every
 * time: only DC_ABORT_TRIES of them in a row FAIL.
 */
enum { DC_ABORT_TRIES = 5 };

static inline bool dc_waiter_abort_raced(struct dc_ctx *t, DAT_RETURN r, int attempt)
{
	if (dc_ret_is(r, DAT_INVALID_HANDLE, -1) && attempt < DC_ABORT_TRIES) {
		dc_note(t, "attempt %d: DAT_INVALID_HANDLE, the waiter may not have reached "
			"its EVD before it went; trying again", attempt);
		return true;
	}
	DC_ASSERT_RET(r, DAT_ABORT);
	return false;
}

#endif /* DC_EVENTS_H */
