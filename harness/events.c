// SPDX-License-Identifier: MIT
/*
 * events.c - dc_events.h: events checked by content, async errors and
 * waiter threads.
 */
#include "dc_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long dc_wait_ms(const struct dc_ctx *t)
{
	long left = dc_remaining_ms(t);

	return left < DC_WAIT_MS ? left : DC_WAIT_MS;
}

DAT_TIMEOUT dc_case_timeout_us(const struct dc_ctx *t)
{
	long ms = dc_remaining_ms(t);

	return ms > 0 ? (DAT_TIMEOUT)ms * 1000u : 1000u;
}

/* ---- DTO and connection events ----------------------------------------------- */

DAT_DTO_COMPLETION_EVENT_DATA dc_expect_dto_at(struct dc_ctx *t, const char *file,
					       int line, enum dc_state on_miss,
					       DAT_EVD_HANDLE evd,
					       const uint64_t *cookie, int status)
{
	DAT_EVENT ev;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;

	dc_expect_event_at(t, file, line, on_miss, evd, DAT_DTO_COMPLETION_EVENT, &ev);
	d = &ev.event_data.dto_completion_event_data;
	if (cookie && status >= 0 &&
	    (d->user_cookie.as_64 != *cookie || (int)d->status != status))
		dc_end_at(t, on_miss, file, line, false,
			  "expected the completion of cookie %llu with %s, got cookie %llu with %s",
			  (unsigned long long)*cookie,
			  dc_dto_status_name((DAT_DTO_COMPLETION_STATUS)status),
			  (unsigned long long)d->user_cookie.as_64,
			  dc_dto_status_name(d->status));
	if (cookie && status < 0 && d->user_cookie.as_64 != *cookie)
		dc_end_at(t, on_miss, file, line, false,
			  "expected the completion of cookie %llu, got cookie %llu",
			  (unsigned long long)*cookie,
			  (unsigned long long)d->user_cookie.as_64);
	if (!cookie && status >= 0 && (int)d->status != status)
		dc_end_at(t, on_miss, file, line, false,
			  "DTO completion (cookie %llu) with %s, expected %s",
			  (unsigned long long)d->user_cookie.as_64,
			  dc_dto_status_name(d->status),
			  dc_dto_status_name((DAT_DTO_COMPLETION_STATUS)status));
	return *d;
}

void dc_expect_conn_event_at(struct dc_ctx *t, const char *file, int line,
			     DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num,
			     DAT_EP_HANDLE ep, DAT_EVENT *out)
{
	DAT_EVENT ev;

	dc_expect_event_at(t, file, line, DC_FAIL, evd, num, &ev);
	if (ep && ev.event_data.connect_event_data.ep_handle != ep)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%s names EP %p, expected %p", dc_event_name(num),
			  ev.event_data.connect_event_data.ep_handle, ep);
	if (out)
		*out = ev;
}

DAT_CR_HANDLE dc_await_cr_at(struct dc_ctx *t, const char *file, int line,
			     DAT_EVD_HANDLE evd, DAT_CR_ARRIVAL_EVENT_DATA *out)
{
	DAT_EVENT ev;

	dc_expect_event_at(t, file, line, DC_UNRESOLVED, evd,
			   DAT_CONNECTION_REQUEST_EVENT, &ev);
	if (out)
		*out = ev.event_data.cr_arrival_event_data;
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

void dc_expect_conn_end_at(struct dc_ctx *t, const char *file, int line,
			   enum dc_state on_miss, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;
	DAT_RETURN r = dc_wait_event(t, evd, -1, &ev);
	const char *pre = on_miss == DC_UNRESOLVED ? "set-up: " : "";

	if (r != DAT_SUCCESS)
		dc_end_at(t, on_miss, file, line, false,
			  "%sexpected the connection to end, dat_evd_wait on the connection EVD returned %s",
			  pre, dc_ret_text(r));
	if (ev.event_number != DAT_CONNECTION_EVENT_BROKEN &&
	    ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED)
		dc_end_at(t, on_miss, file, line, false,
			  "%sexpected DAT_CONNECTION_EVENT_BROKEN or _DISCONNECTED, got %s",
			  pre, dc_event_name(ev.event_number));
}

/* An asynchronous event (one of the DAT_ASYNC_ERROR_* numbers). */
static bool is_async_event(const DAT_EVENT *ev)
{
	return ev->event_number >= DAT_ASYNC_ERROR_EVD_OVERFLOW &&
	       ev->event_number <= DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR;
}

/*
 * The event of the kind the clause names (its reason) is looked for among
 * what comes: an asynchronous event of another reason is a notification the
 * pages leave to the provider (dat_ia_open(3DAT): every asynchronous
 * notification of the IA goes to this EVD, none is forbidden) and is noted,
 * not judged.  One of the same reason for another handle, or anything not
 * asynchronous, still fails.
 */
void dc_expect_async_at(struct dc_ctx *t, const char *file, int line,
			DAT_HANDLE h, int reason, long timeout_ms)
{
	DAT_EVENT ev;
	const DAT_ASYNCH_ERROR_EVENT_DATA *a = &ev.event_data.asynch_error_event_data;

	for (int skipped = 0;; skipped++) {
		DAT_RETURN r = dc_wait_event(t, t->async_evd, timeout_ms, &ev);

		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "expected an asynchronous event (reason %d) on the IA async EVD, dat_evd_wait returned %s",
				  reason, dc_ret_text(r));
		if (skipped < 16 && is_async_event(&ev) && (int)a->reason != reason) {
			dc_note(t, "an asynchronous event of another kind came first (not judged): %s handle %p reason %d",
				dc_event_name(ev.event_number), a->dat_handle, (int)a->reason);
			continue;
		}
		break;
	}
	if (!is_async_event(&ev) || a->dat_handle != h || (int)a->reason != reason)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "expected an asynchronous event for handle %p reason %d, got %s (0x%x) handle %p reason %d",
			  h, reason, dc_event_name(ev.event_number),
			  (unsigned)ev.event_number, a->dat_handle, (int)a->reason);
}

/* ---- waiter threads ------------------------------------------------------------ */

static struct dc_waiter waiter_pool[16];

void dc_cv_init(pthread_mutex_t *mu, pthread_cond_t *cv)
{
	pthread_condattr_t a;

	pthread_mutex_init(mu, NULL);
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

void dc_cv_wait_until(pthread_mutex_t *mu, pthread_cond_t *cv, double until_ms)
{
	struct timespec ts;
	double s = until_ms / 1e3;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(cv, mu, &ts);
}

static void *waiter_main(void *arg)
{
	struct dc_waiter *w = arg;
	DAT_EVENT ev;
	DAT_COUNT nmore = -12345;
	DAT_EVD_HANDLE evd = DC_UNWRITTEN_EVD;
	DAT_RETURN r;

	memset(&ev, 0xa5, sizeof(ev));
	pthread_mutex_lock(&w->mu);
	w->tid = (pid_t)syscall(SYS_gettid);
	w->entered = true;
	w->t_enter = dc_now_ms();
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (w->call == DC_WAIT_EVD)
		r = dat_evd_wait((DAT_EVD_HANDLE)w->h, w->timeout, w->threshold,
				 &ev, &nmore);
	else
		r = dat_cno_wait((DAT_CNO_HANDLE)w->h, w->timeout, &evd);
	pthread_mutex_lock(&w->mu);
	w->ret = r;
	w->ev = ev;
	w->nmore = nmore;
	w->evd = evd;
	w->t_return = dc_now_ms();
	w->returned = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct dc_waiter *dc_waiter_start_at(struct dc_ctx *t, const char *file, int line,
				     enum dc_waiter_call call, DAT_HANDLE h,
				     DAT_TIMEOUT timeout, DAT_COUNT threshold)
{
	const int cap = (int)(sizeof(waiter_pool) / sizeof(waiter_pool[0]));
	struct dc_waiter *w = NULL;

	for (int i = 0; i < cap && !w; i++)
		if (!waiter_pool[i].in_use)
			w = &waiter_pool[i];
	if (!w)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: more than %d live waiter threads", cap);
	memset(w, 0, sizeof(*w));
	dc_cv_init(&w->mu, &w->cv);
	w->in_use = true;
	w->call = call;
	w->h = h;
	w->timeout = timeout;
	w->threshold = threshold;
	if (pthread_create(&w->th, NULL, waiter_main, w))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: pthread_create failed");
	return w;
}

const char *dc_waiter_call_name(const struct dc_waiter *w)
{
	return w->call == DC_WAIT_EVD ? "dat_evd_wait" : "dat_cno_wait";
}

bool dc_waiter_returned_within(struct dc_waiter *w, long ms)
{
	double until = dc_now_ms() + (double)ms;
	bool r;

	pthread_mutex_lock(&w->mu);
	while (!w->returned && dc_now_ms() < until)
		dc_cv_wait_until(&w->mu, &w->cv, until);
	r = w->returned;
	pthread_mutex_unlock(&w->mu);
	return r;
}

void dc_waiter_free(struct dc_waiter *w)
{
	if (!dc_waiter_done(w))
		return;
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	w->in_use = false;
}

/*
 * After the teardown's close: joins the waiter threads that have returned,
 * so that none is still on its way out when the process ends (LeakSanitizer's
 * exit check stops every thread, and one exiting meanwhile crashed its
 * tracer). One still waiting is left alone: a provider that never wakes it
 * must not hang the teardown.
 */
void dc_waiters_join_returned(void)
{
	for (size_t i = 0; i < sizeof(waiter_pool) / sizeof(waiter_pool[0]); i++)
		if (waiter_pool[i].in_use && dc_waiter_returned_within(&waiter_pool[i], 100))
			dc_waiter_free(&waiter_pool[i]);
}

/* /proc/self/task/<tid>/<name> into buf, NUL-terminated; false when unreadable. */
static bool read_task_file(pid_t tid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* 'S' when the thread sleeps in the kernel; '?' when unreadable. */
static char thread_state(pid_t tid)
{
	char buf[512], *p;

	if (!read_task_file(tid, "stat", buf, sizeof(buf)))
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

/*
 * Whether a thread of this process other than the caller and `waiter` is
 * runnable.  A waiter that sleeps while one is may be waiting for a lock the
 * runnable one holds (a provider thread preempted on a loaded machine), not
 * in its blocking call yet.
 */
static bool other_thread_runnable(pid_t waiter)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	bool runnable = false;
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");

	if (!dir)
		return false;
	while (!runnable && (d = readdir(dir))) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid > 0 && tid != self && tid != waiter)
			runnable = thread_state(tid) == 'R';
	}
	closedir(dir);
	return runnable;
}

/*
 * How often the thread was scheduled in (the third field of
 * /proc/self/task/<tid>/schedstat); -1 when unreadable.  Unchanged between
 * two reads: it slept all along, in one sleep.
 */
static long long thread_runs(pid_t tid)
{
	char buf[128];
	long long run_ns, wait_ns, runs;

	if (!read_task_file(tid, "schedstat", buf, sizeof(buf)))
		return -1;
	return sscanf(buf, "%lld %lld %lld", &run_ns, &wait_ns, &runs) == 3 ? runs : -1;
}

/* A waiter counts as blocked once it slept one sleep this long with nothing
 * else runnable (a sleeper seen for an instant may be waiting on a lock that
 * a thread holds for a moment), or the longer time beside a thread that stays
 * runnable (a provider may keep one busy). */
#define DC_BLOCKED_QUIET_MS 2.0
#define DC_BLOCKED_BESIDE_RUNNABLE_MS 50.0

bool dc_waiter_blocked_at(struct dc_ctx *t, const char *file, int line,
			  struct dc_waiter *w)
{
	double until = dc_now_ms() + (double)dc_wait_ms(t);
	double asleep_since = 0;
	long long runs = -1;
	int sleeping = 0;

	for (;;) {
		bool entered, returned;
		pid_t tid;

		pthread_mutex_lock(&w->mu);
		if (!w->entered && !w->returned)
			dc_cv_wait_until(&w->mu, &w->cv,
					 dc_now_ms() + 10.0 < until ? dc_now_ms() + 10.0 : until);
		entered = w->entered;
		returned = w->returned;
		tid = w->tid;
		pthread_mutex_unlock(&w->mu);
		if (returned)
			return false;
		if (entered) {
			char st = thread_state(tid);

			if (st == '?')
				dc_end_at(t, DC_UNRESOLVED, file, line, false,
					  "set-up: cannot read /proc/self/task/%d/stat to see the waiter block",
					  (int)tid);
			long long now_runs = thread_runs(tid);

			if (st != 'S' || now_runs != runs) {
				/* awake, or it ran since: a new sleep */
				sleeping = 0;
				asleep_since = st == 'S' ? dc_now_ms() : 0;
				runs = now_runs;
			} else {
				double asleep = dc_now_ms() - asleep_since;

				/* reads with nothing else runnable, over
				 * one sleep of DC_BLOCKED_QUIET_MS; or
				 * asleep long enough beside a busy thread */
				sleeping = other_thread_runnable(tid) ? 0 : sleeping + 1;
				if ((sleeping >= 3 && asleep >= DC_BLOCKED_QUIET_MS) ||
				    asleep >= DC_BLOCKED_BESIDE_RUNNABLE_MS)
					return true;
			}
		}
		if (dc_now_ms() > until)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the %s thread never blocked within %ld ms",
				  dc_waiter_call_name(w), dc_wait_ms(t));
		if (asleep_since)
			usleep(250);	/* watching a sleep: no need to spin */
		else
			sched_yield();
	}
}

void dc_assert_still_waiting_at(struct dc_ctx *t, const char *file, int line,
				struct dc_waiter *w, const char *after)
{
	if (!dc_waiter_returned_within(w, DC_QUIET_MS))
		return;
	if (w->call == DC_WAIT_CNO)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "dat_cno_wait returned %s with EVD %p after %s; it should still be waiting",
			  dc_ret_text(w->ret), w->evd, after);
	dc_end_at(t, DC_FAIL, file, line, false,
		  "dat_evd_wait returned %s (nmore %d) after %s; it should still be waiting",
		  dc_ret_text(w->ret), (int)w->nmore, after);
}

void dc_waiter_join_at(struct dc_ctx *t, const char *file, int line,
		       struct dc_waiter *w, enum dc_state on_miss,
		       const char *after)
{
	long ms = dc_wait_ms(t);

	if (!dc_waiter_returned_within(w, ms))
		dc_end_at(t, on_miss, file, line, false,
			  "%s%s did not return within %ld ms after %s",
			  on_miss == DC_UNRESOLVED ? "set-up: " : "",
			  dc_waiter_call_name(w), ms, after);
}
