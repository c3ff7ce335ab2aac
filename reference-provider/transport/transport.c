/* SPDX-License-Identifier: MIT */
/*
 * transport.c - picks the transport named by the dat.conf instance data
 * and ties its life to the IA (ref_conn_ia_open / ref_conn_ia_close).
 *
 * Instance data syntax: "<transport>:<params>", e.g. "sock:127.0.0.1" or
 * "sock:[::1]".  An empty string means "sock:127.0.0.1".
 */
#include "transport.h"
#include "verbs.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct ref_transport_ops *const transports[] = {
	&ref_sock_ops,
#ifdef REF_WITH_VERBS
	&ref_verbs_ops,
#endif
};

const struct ref_transport_ops *ref_transport_lookup(const char *instance,
						     const char **params)
{
	size_t n;

	if (!instance || !*instance) {
		*params = "";
		return &ref_sock_ops;
	}
	n = strcspn(instance, ":");
	for (size_t i = 0; i < sizeof(transports) / sizeof(transports[0]);
	     i++) {
		const char *name = transports[i]->name;

		if (strlen(name) == n && strncmp(instance, name, n) == 0) {
			*params = instance[n] == ':' ? instance + n + 1 : "";
			return transports[i];
		}
	}
	return NULL;
}

DAT_RETURN ref_conn_ia_open(struct ref_ia *ia, const char *instance_data)
{
	const struct ref_transport_ops *ops;
	const char *params = "";

	ops = ref_transport_lookup(instance_data, &params);
	if (!ops)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	return ops->open(ia, params, &ia->transport);
}

/* Memory registration (ref.h): only hardware transports need it. */
DAT_RETURN ref_conn_mem_reg(struct ref_ia *ia, struct ref_pz *pz,
			    DAT_VADDR addr, DAT_VLEN len,
			    DAT_MEM_PRIV_FLAGS priv, void **mem,
			    uint32_t *rkey)
{
	*mem = NULL;
	*rkey = 0;
#ifdef REF_WITH_VERBS
	if (ia->transport && ia->transport->ops == &ref_verbs_ops)
		return ref_verbs_mem_reg(ia->transport, pz, addr, len, priv,
					 mem, rkey);
#else
	(void)ia;
	(void)pz;
	(void)addr;
	(void)len;
	(void)priv;
#endif
	return DAT_SUCCESS;
}

void ref_conn_mem_dereg(struct ref_ia *ia, void *mem)
{
#ifdef REF_WITH_VERBS
	if (mem && ia->transport && ia->transport->ops == &ref_verbs_ops)
		ref_verbs_mem_dereg(ia->transport, mem);
#else
	(void)ia;
	(void)mem;
#endif
}

/* The transport's limits into the IA's attributes (ia.c, after filling). */
void ref_conn_ia_attrs(struct ref_ia *ia)
{
	ia->max_pdata = ref_profile.max_private_data;
#ifdef REF_WITH_VERBS
	if (ia->transport && ia->transport->ops == &ref_verbs_ops) {
		ref_verbs_attrs(ia->transport, &ia->ia_attr,
				&ia->provider_attr);
		ia->max_pdata = ref_ia_limit(ref_profile.max_private_data,
				ia->provider_attr.max_private_data_size);
	}
#endif
}

/* A DAT SRQ is being freed (srq.c). */
void ref_conn_srq_free(struct ref_ia *ia, struct ref_srq *srq)
{
#ifdef REF_WITH_VERBS
	if (ia->transport && ia->transport->ops == &ref_verbs_ops)
		ref_verbs_srq_free(ia->transport, srq);
#else
	(void)ia;
	(void)srq;
#endif
}

/*
 * dat_srq_query(3DAT) USAGE: a buffer an EP has taken for a message still
 * arriving is no longer available.  A device that places messages itself
 * (verbs) tells of that buffer only when the message completes, so while a
 * QP of the SRQ can receive the count cannot be given at this moment: the
 * page's DAT_VALUE_UNKNOWN.  Once none can, every buffer is accounted for
 * (a disconnect hands the taken ones to their EPs).
 */
DAT_COUNT ref_conn_srq_available(struct ref_ia *ia, const struct ref_srq *srq)
{
#ifdef REF_WITH_VERBS
	if (ia->transport && ia->transport->ops == &ref_verbs_ops &&
	    ref_verbs_srq_receiving(ia->transport, srq))
		return DAT_VALUE_UNKNOWN;
#else
	(void)ia;
#endif
	return srq->available;
}

void ref_conn_ia_close(struct ref_ia *ia)
{
	if (ia->transport) {
		ia->transport->ops->close(ia->transport);
		ia->transport = NULL;
	}
}

void ref_conn_poll(struct ref_ia *ia)
{
	struct ref_transport *tp = ia->transport;

	if (tp && tp->ops->poll_completions && !ia->closing) {
		tp->fresh_poll = false;
		tp->ops->poll_completions(tp);
	}
}

void ref_conn_poll_wait(struct ref_ia *ia, bool satisfied)
{
	struct ref_transport *tp = ia->transport;

	if (satisfied && tp && (tp->ops->caps & REF_TP_CAP_SPIN))
		return;
	ref_conn_poll(ia);
	if (tp)
		tp->fresh_poll = true;
}

/* A look at @w's flag without ia->lock (it is set under the lock): if it
 * misses the flag, the eventfd the wake wrote ends the ppoll that follows. */
static bool waiter_woken(struct ref_waiter *w)
{
	return __atomic_load_n(&w->woken, __ATOMIC_RELAXED);
}

/*
 * evd_wait / cno_wait sleep (REQUEST (4) in ref.h): like ref_waiter_sleep,
 * but the sleeping thread also polls the transport and runs its progress
 * itself, so an arriving message wakes the consumer directly instead of
 * the progress thread, which would then have to wake the consumer (one
 * thread hand-off less per message; see docs, "Transport interface").
 * @spin_us: busy-poll that long before each sleep (DAPLREF_SPIN_US).
 */
static int conn_wait_loop(struct ref_waiter *w, struct ref_ia *ia,
			  const struct timespec *deadline, bool infinite,
			  long spin_us)
{
	struct ref_transport *tp = ia->transport;

	for (;;) {
		struct pollfd pfd[2];
		struct timespec rem, now, *tmo = NULL;
		int r, err;

		if (w->woken || ia->closing)
			return ref_waiter_sleep(w, ia, deadline, infinite);
		if (!infinite) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline->tv_sec ||
			    (now.tv_sec == deadline->tv_sec &&
			     now.tv_nsec >= deadline->tv_nsec))
				return ETIMEDOUT;
			rem.tv_sec = deadline->tv_sec - now.tv_sec;
			rem.tv_nsec = deadline->tv_nsec - now.tv_nsec;
			if (rem.tv_nsec < 0) {
				rem.tv_sec--;
				rem.tv_nsec += 1000000000L;
			}
			tmo = &rem;
		}
		pfd[0].fd = w->fd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		pfd[1].fd = tp->engine.epfd;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		ref_engine_poll_begin(&tp->engine);
		ref_waiter_running = w;
		ref_engine_arm(&tp->engine);
		ref_waiter_running = NULL;
		if (w->woken) {
			/* arming reaped what it waits for */
			ref_engine_poll_end(&tp->engine);
			return ref_waiter_sleep(w, ia, deadline, infinite);
		}
		ref_ia_unlock(ia);
		/*
		 * Spin briefly before sleeping: on virtual machines the
		 * wake-up of a sleeping thread costs tens of microseconds,
		 * more than a reply usually takes to arrive.
		 */
		r = 0;
		if (spin_us > 0) {
			struct timespec t0, t1, zero = { 0, 0 };

			clock_gettime(CLOCK_MONOTONIC, &t0);
			do {
				if (tp->ops->poll_completions) {
					ref_ia_lock(ia);
					ref_waiter_running = w;
					ref_conn_poll(ia);
					ref_waiter_running = NULL;
					ref_ia_unlock(ia);
					if (waiter_woken(w))
						break;
				}
				r = ppoll(pfd, 2, &zero, NULL);
				if (r != 0)
					break;
				clock_gettime(CLOCK_MONOTONIC, &t1);
			} while ((t1.tv_sec - t0.tv_sec) * 1000000L +
				 (t1.tv_nsec - t0.tv_nsec) / 1000 < spin_us);
		}
		if (r == 0 && waiter_woken(w))
			r = 1;	/* woken while spinning: no sleep */
		if (r == 0)
			r = ppoll(pfd, 2, tmo, NULL);
		err = r < 0 ? errno : 0;
		ref_ia_lock(ia);
		ref_engine_poll_end(&tp->engine);
		if (ia->transport == tp && (pfd[1].revents & POLLIN)) {
			ref_waiter_running = w;
			tp->ops->progress(tp);
			ref_waiter_running = NULL;
		}
		if (w->woken)
			return ref_waiter_sleep(w, ia, deadline, infinite);
		if (r < 0 && err == EINTR)
			return EINTR;
		if (r == 0)
			return ETIMEDOUT;
	}
}

/*
 * The adaptive spin (REF_TP_CAP_SPIN; docs/reference-provider.md,
 * "Progress and performance").  A wait first busy-polls the transport
 * when its waits lately ended soon - the moving average of how long they
 * took, SPIN_GAP_FACTOR times, bounded by SPIN_MAX_US - since waking a
 * sleeping thread costs more than such a reply takes to come.  It never
 * spins on a single CPU (the peer would need it), yields the CPU between
 * polls on two (another runnable thread there gets it), and a poll that
 * came back late (the thread was preempted: the CPUs are oversubscribed)
 * stops spinning for the next SPIN_BACKOFF_WAITS waits.
 */
#define SPIN_MAX_US		50
#define SPIN_MIN_US		5
#define SPIN_GAP_FACTOR		2
#define SPIN_PREEMPTED_US	50
#define SPIN_BACKOFF_WAITS	64

static long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000L +
	       (b->tv_nsec - a->tv_nsec);
}

int ref_usable_cpus(void)
{
	/* atomic: threads of several IAs ask at once (ThreadSanitizer saw the
	 * plain int race); each computes the same value */
	static atomic_int cached;
	int n = atomic_load_explicit(&cached, memory_order_relaxed);
	cpu_set_t set;

	if (n == 0) {
		n = sched_getaffinity(0, sizeof(set), &set) == 0 ?
		    CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
		if (n < 1)
			n = 1;
		atomic_store_explicit(&cached, n, memory_order_relaxed);
	}
	return n;
}

static long spin_budget_ns(struct ref_transport *tp)
{
	long b;

	if (ref_usable_cpus() < 2)
		return 0;
	if (tp->spin_backoff > 0) {
		tp->spin_backoff--;
		return 0;
	}
	if (tp->wait_ns > SPIN_MAX_US * 1000L)
		return 0;
	b = SPIN_GAP_FACTOR * tp->wait_ns;
	if (b < SPIN_MIN_US * 1000L)
		b = SPIN_MIN_US * 1000L;
	if (b > SPIN_MAX_US * 1000L)
		b = SPIN_MAX_US * 1000L;
	return b;
}

/* Lock held (dropped between polls): true when woken while spinning. */
static bool conn_spin(struct ref_waiter *w, struct ref_ia *ia, long budget_ns,
		      const struct timespec *deadline, bool infinite,
		      bool adaptive, bool polled)
{
	struct ref_transport *tp = ia->transport;
	bool yield = ref_usable_cpus() <= 2, skip;
	struct timespec t0, prev, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	prev = t0;
	w->spinning = true;
	/*
	 * The wait polled just before (ref_conn_poll_wait) and found nothing:
	 * the first poll of the spin follows the first yield, not that poll
	 * at once (an epoll_wait per message for nothing).
	 */
	skip = polled;
	for (;;) {
		if (!skip) {
			ref_waiter_running = w;
			ref_conn_poll(ia);
			ref_waiter_running = NULL;
		}
		skip = false;
		if (w->woken || ia->closing || ia->transport != tp)
			break;
		ref_ia_unlock(ia);
		if (yield)
			sched_yield();
		ref_ia_lock(ia);
		if (w->woken || ia->closing || ia->transport != tp)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (adaptive &&
		    ns_between(&prev, &now) > SPIN_PREEMPTED_US * 1000L) {
			tp->spin_backoff = SPIN_BACKOFF_WAITS;
			break;
		}
		if (ns_between(&t0, &now) >= budget_ns ||
		    (!infinite && ns_between(deadline, &now) >= 0))
			break;
		prev = now;
	}
	w->spinning = false;
	return w->woken;
}

int ref_conn_wait(struct ref_waiter *w, struct ref_ia *ia,
		  const struct timespec *deadline, bool infinite)
{
	static int disabled = -1;
	static long spin_us = -1;	/* DAPLREF_SPIN_US, else -1 */
	static bool spin_read;
	struct ref_transport *tp = ia->transport;
	struct timespec t0, t1;
	long budget;
	bool polled;
	int r;

	if (disabled < 0)
		disabled = getenv("DAPLREF_NO_CONSUMER_POLL") != NULL;
	if (!spin_read) {
		const char *e = getenv("DAPLREF_SPIN_US");

		if (e) {
			spin_us = strtol(e, NULL, 10);
			if (spin_us < 0)
				spin_us = 0;
		}
		spin_read = true;
	}
	if (!tp || !tp->ops->progress || w->fd < 0 || ia->closing || disabled)
		return ref_waiter_sleep(w, ia, deadline, infinite);
	if (!(tp->ops->caps & REF_TP_CAP_SPIN) || !tp->ops->poll_completions)
		return conn_wait_loop(w, ia, deadline, infinite,
				      spin_us > 0 ? spin_us : 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	polled = tp->fresh_poll;
	tp->fresh_poll = false;
	budget = spin_us >= 0 ? spin_us * 1000L : spin_budget_ns(tp);
	if (budget > 0 && !w->woken &&
	    conn_spin(w, ia, budget, deadline, infinite, spin_us < 0, polled))
		r = ref_waiter_sleep(w, ia, deadline, infinite);
	else
		r = conn_wait_loop(w, ia, deadline, infinite, 0);
	if (r != EINTR && ia->transport == tp) {
		long took;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		took = ns_between(&t0, &t1);
		if (took > 1000000L)
			took = 1000000L;	/* a long one is just "long" */
		tp->wait_ns += (took - tp->wait_ns) / 8;
	}
	return r;
}
