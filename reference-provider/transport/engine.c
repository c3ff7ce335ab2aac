/* SPDX-License-Identifier: MIT */
/*
 * engine.c - the progress engine every transport runs (transport.h):
 * a thread that sleeps on the transport's descriptors and runs its
 * progress rounds, and the hand-over of those descriptors to consumers
 * that poll them themselves (ref_conn_wait, busy polling).
 */
#include "transport.h"
#include "profile.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

static long elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000L +
	       (b->tv_nsec - a->tv_nsec) / 1000000L;
}

int ref_engine_init(struct ref_engine *e, struct ref_ia *ia, int tick_ms,
		    void (*round)(struct ref_engine *e),
		    int (*timeout_ms)(struct ref_engine *e),
		    void (*arm)(struct ref_engine *e))
{
	struct epoll_event ev = { .events = EPOLLIN };

	memset(e, 0, sizeof(*e));
	e->ia = ia;
	e->tick_ms = tick_ms;
	e->round = round;
	e->timeout_ms = timeout_ms;
	e->arm = arm;
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	e->outer = epoll_create1(EPOLL_CLOEXEC);
	e->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (e->epfd < 0 || e->outer < 0 || e->wakefd < 0)
		return -1;
	ev.data.ptr = &e->wakefd;
	if (epoll_ctl(e->outer, EPOLL_CTL_ADD, e->wakefd, &ev) < 0)
		return -1;
	ev.data.ptr = &e->epfd;
	return epoll_ctl(e->outer, EPOLL_CTL_ADD, e->epfd, &ev);
}

void ref_engine_fini(struct ref_engine *e)
{
	if (e->epfd >= 0)
		close(e->epfd);
	if (e->outer >= 0)
		close(e->outer);
	if (e->wakefd >= 0)
		close(e->wakefd);
	e->epfd = e->outer = e->wakefd = -1;
}

void ref_engine_wake(struct ref_engine *e)
{
	uint64_t one = 1;
	ssize_t n = write(e->wakefd, &one, sizeof(one));

	(void)n;
}

/*
 * Thread, lock held or not: did a consumer busy poll since the last look?
 * The poller only sets a flag (a clock read per poll would cost as much as
 * the poll where the clock is slow); the thread, awake every tick while
 * detached, turns it into a time.
 */
static bool polled_since(struct ref_engine *e)
{
	if (!__atomic_exchange_n(&e->polled, false, __ATOMIC_RELAXED))
		return false;
	e->busy_at = now_mono();
	return true;
}

/* Thread: busy polled within the last two ticks, so leave the descriptors
 * to the poller. */
static bool busy(struct ref_engine *e)
{
	struct timespec now = now_mono();

	if (polled_since(e))
		return true;
	return e->busy_at.tv_sec &&
	       elapsed_ms(&e->busy_at, &now) < 2L * e->tick_ms;
}

static void detach(struct ref_engine *e)
{
	if (!e->detached) {
		epoll_ctl(e->outer, EPOLL_CTL_DEL, e->epfd, NULL);
		e->detached = true;
		/* its sleep may have no timeout: make it start ticking */
		ref_engine_wake(e);
	}
}

/* Thread, lock held: takes the descriptors back once nobody polls them. */
static void reattach(struct ref_engine *e)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (!e->detached || e->pollers > 0 || busy(e))
		return;
	ev.data.ptr = &e->epfd;
	if (epoll_ctl(e->outer, EPOLL_CTL_ADD, e->epfd, &ev) == 0)
		e->detached = false;
}

/*
 * The thread never blocks on a lock that a consumer holds.  Blocked, it
 * would be woken by each unlock of a consumer that is busy in calls and
 * would lose the lock again at once: a futex call on either side and a
 * context switch per operation (perf on dapltest -T P, rxe0: ~1.8 futex
 * calls per 64 KiB RDMA Write, whose post holds the lock for the doorbell).
 * It tries a few times, then again a tick later; a tick after which a
 * consumer is still busy polling is skipped outright, since that consumer
 * runs the rounds itself (ref_engine_busy_poll).
 */
#define LOCK_TRIES	4

static void drain_wake(struct ref_engine *e)
{
	uint64_t v;
	ssize_t r = read(e->wakefd, &v, sizeof(v));

	(void)r;
}

/* Lock not held; returns with it held. */
static int engine_sleep(struct ref_engine *e, struct epoll_event *evs,
			int nevs, int timeout, bool ticking)
{
	struct pollfd wake = { .fd = e->wakefd, .events = POLLIN };
	int n;

	do {
		n = epoll_wait(e->outer, evs, nevs, timeout);
		timeout = e->tick_ms;
	} while (n == 0 && ticking && polled_since(e));
	/* profile: a slower transport, what arrived is taken up later */
	if (n > 0 && ref_profile.transport_delay_us)
		usleep(ref_profile.transport_delay_us);
	for (;;) {
		for (int i = 0; i < LOCK_TRIES; i++) {
			if (ref_ia_trylock(e->ia))
				return n;
			sched_yield();
		}
		if (__atomic_load_n(&e->stop, __ATOMIC_RELAXED)) {
			ref_ia_lock(e->ia);
			return n;
		}
		/* what woke it is looked at once the lock is had */
		drain_wake(e);
		poll(&wake, 1, e->tick_ms);
	}
}

static void *engine_thread(void *arg)
{
	struct ref_engine *e = arg;
	struct ref_ia *ia = e->ia;
	struct epoll_event evs[4];

	ref_ia_lock(ia);
	while (!e->stop) {
		int timeout = e->timeout_ms(e);
		bool ticking = e->detached;
		int n;

		if (ticking && (timeout < 0 || timeout > e->tick_ms))
			timeout = e->tick_ms;
		else if (!ticking)
			ref_engine_arm(e);	/* it sleeps on epfd */
		ref_ia_unlock(ia);
		n = engine_sleep(e, evs, 4, timeout, ticking);
		if (e->stop)
			break;
		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == &e->wakefd)
				drain_wake(e);
		}
		reattach(e);
		e->round(e);
	}
	ref_ia_unlock(ia);
	return NULL;
}

int ref_engine_start(struct ref_engine *e)
{
	if (pthread_create(&e->thread, NULL, engine_thread, e) != 0)
		return -1;
	e->thread_started = true;
	return 0;
}

void ref_engine_stop(struct ref_engine *e)
{
	ref_ia_lock(e->ia);
	__atomic_store_n(&e->stop, true, __ATOMIC_RELAXED);
	ref_engine_wake(e);
	ref_ia_unlock(e->ia);
	if (e->thread_started)
		pthread_join(e->thread, NULL);
	e->thread_started = false;
}

int ref_engine_watch(struct ref_engine *e, int fd, uint32_t events, void *ptr)
{
	struct epoll_event ev = { .events = events };

	ev.data.ptr = ptr;
	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev);
}

void ref_engine_poll_begin(struct ref_engine *e)
{
	e->pollers++;
	detach(e);
}

/*
 * Re-attaching at once would make the thread wake for the next message of
 * a ping-pong (the consumer is about to wait again); it re-attaches on its
 * next tick instead, unless a consumer polls again by then.
 */
void ref_engine_poll_end(struct ref_engine *e)
{
	e->pollers--;
}

/*
 * The clock is read once every BUSY_CLOCK_EVERY polls: a poll loop must cost
 * little more than the CQ poll itself, and where the clock is slow to read
 * (an emulated HPET in a TCG VM) one read per poll would dominate it.
 */
#define BUSY_CLOCK_EVERY	64

bool ref_engine_busy_tick(struct ref_engine *e)
{
	struct timespec now;
	bool round;

	detach(e);
	__atomic_store_n(&e->polled, true, __ATOMIC_RELAXED);
	if (e->busy_calls++ % BUSY_CLOCK_EVERY)
		return false;
	now = now_mono();
	round = !e->busy_round_at.tv_sec ||
		elapsed_ms(&e->busy_round_at, &now) >= 1;
	if (round)
		e->busy_round_at = now;
	return round;
}

bool ref_engine_busy_poll(struct ref_engine *e)
{
	struct epoll_event ev;

	if (!ref_engine_busy_tick(e))
		return false;
	/* one look at the descriptors costs less than a round's reads; the
	 * thread leaves the round to a busy poller, timers included */
	return epoll_wait(e->epfd, &ev, 1, 0) > 0 || e->timeout_ms(e) == 0;
}

void ref_engine_arm(struct ref_engine *e)
{
	if (e->arm)
		e->arm(e);
}
