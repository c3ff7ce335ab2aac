// SPDX-License-Identifier: MIT
/*
 * time.c - deadlines on CLOCK_MONOTONIC, condition variables bound to it,
 * and the sleeping primitive of dat_evd_wait / dat_cno_wait.
 *
 * A sleeper blocks in ppoll() on its own eventfd with the IA lock
 * released.  ppoll() returns EINTR whenever a signal handler ran, which is
 * how the provider reports DAT_INTERRUPTED_CALL (dat_evd_wait.3dat,
 * dat_cno_wait.3dat RETURN VALUES); a condition variable could not.
 */
#include "ref.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

static struct timespec now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

struct timespec ref_deadline(DAT_TIMEOUT timeout)
{
	struct timespec ts = now_mono();

	if (timeout == DAT_TIMEOUT_INFINITE) {
		/* far enough; callers pass infinite=true anyway */
		ts.tv_sec += (time_t)1 << 30;
		return ts;
	}
	ts.tv_sec += timeout / 1000000u;
	ts.tv_nsec += (long)(timeout % 1000000u) * 1000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

bool ref_deadline_passed(const struct timespec *deadline)
{
	struct timespec now = now_mono();

	return ts_cmp(&now, deadline) >= 0;
}

void ref_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

int ref_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock,
		  const struct timespec *deadline, bool infinite)
{
	int rc;

	if (infinite || !deadline)
		return pthread_cond_wait(cond, lock) ? EINVAL : 0;
	rc = pthread_cond_timedwait(cond, lock, deadline);
	return rc == ETIMEDOUT ? ETIMEDOUT : 0;
}

/* ---- waiters ------------------------------------------------------------------ */

__thread struct ref_waiter *ref_waiter_running;

/*
 * Making and closing an eventfd per wait costs more than a loopback round
 * trip, so an IA keeps the eventfds of finished waits for the next ones
 * (one per concurrent waiter at most) and closes them with the IA: no
 * descriptor outlives the IA that used it.
 */
void ref_waiter_init(struct ref_waiter *w, struct ref_ia *ia)
{
	ref_list_init(&w->link);
	w->woken = false;
	w->written = false;
	w->spinning = false;
	w->fired = false;
	w->evd = DAT_HANDLE_NULL;
	if (ia->nwaiter_fds > 0)
		w->fd = ia->waiter_fds[--ia->nwaiter_fds];
	else
		w->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ref_cond_init(&w->cond);
}

void ref_waiter_fini(struct ref_waiter *w, struct ref_ia *ia)
{
	uint64_t v;

	if (w->fd >= 0) {
		/* leave it empty for its next waiter */
		if (w->written && read(w->fd, &v, sizeof(v)) < 0)
			(void)0;
		if (ia->nwaiter_fds < REF_WAITER_FD_CACHE)
			ia->waiter_fds[ia->nwaiter_fds++] = w->fd;
		else
			close(w->fd);
	}
	w->fd = -1;
	pthread_cond_destroy(&w->cond);
}

void ref_waiter_cache_fini(struct ref_ia *ia)
{
	while (ia->nwaiter_fds > 0)
		close(ia->waiter_fds[--ia->nwaiter_fds]);
}

void ref_waiter_wake(struct ref_waiter *w)
{
	uint64_t one = 1;

	/* atomic: ref_conn_wait may look at it without the lock */
	__atomic_store_n(&w->woken, true, __ATOMIC_RELAXED);
	/* Woken by its own thread's progress, or spinning (it looks at the
	 * flag under the lock after every poll): it sees the flag next. */
	if (w == ref_waiter_running || w->spinning)
		return;
	if (w->fd >= 0) {
		w->written = true;
		/* EAGAIN (counter full) still leaves it readable */
		if (write(w->fd, &one, sizeof(one)) < 0)
			(void)0;
	}
	pthread_cond_signal(&w->cond);
}

static int consume(struct ref_waiter *w)
{
	uint64_t v;

	if (w->fd >= 0 && w->written) {
		if (read(w->fd, &v, sizeof(v)) < 0)
			(void)0;
		w->written = false;
	}
	w->woken = false;
	return 0;
}

int ref_waiter_sleep(struct ref_waiter *w, struct ref_ia *ia,
		     const struct timespec *deadline, bool infinite)
{
	struct timespec rem, now, *tp = NULL;
	struct pollfd pfd;
	int r, err;

	if (w->woken)
		return consume(w);
	if (w->fd < 0) {
		r = ref_cond_wait(&w->cond, &ia->lock, deadline, infinite);
		if (w->woken)
			return consume(w);
		return r == ETIMEDOUT ? ETIMEDOUT : 0;
	}
	if (!infinite) {
		now = now_mono();
		if (ts_cmp(&now, deadline) >= 0)
			return ETIMEDOUT;
		rem.tv_sec = deadline->tv_sec - now.tv_sec;
		rem.tv_nsec = deadline->tv_nsec - now.tv_nsec;
		if (rem.tv_nsec < 0) {
			rem.tv_sec--;
			rem.tv_nsec += 1000000000L;
		}
		tp = &rem;
	}
	pfd.fd = w->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ref_ia_unlock(ia);
	r = ppoll(&pfd, 1, tp, NULL);
	err = r < 0 ? errno : 0;
	ref_ia_lock(ia);
	if (w->woken)
		return consume(w);
	if (r < 0 && err == EINTR)
		return EINTR;
	if (r == 0)
		return ETIMEDOUT;
	return 0;
}
