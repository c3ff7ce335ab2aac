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
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

	if (tp && tp->ops->poll_completions && !ia->closing)
		tp->ops->poll_completions(tp);
}

/*
 * evd_wait / cno_wait sleep (REQUEST (4) in ref.h): like ref_waiter_sleep,
 * but the sleeping thread also polls the transport and runs its progress
 * itself, so an arriving message wakes the consumer directly instead of
 * the progress thread, which would then have to wake the consumer (one
 * thread hand-off less per message; see docs, "Transport interface").
 */
/* Default busy-poll before sleeping (µs); DAPLREF_SPIN_US overrides. */
#define REF_CONN_SPIN_US 0

int ref_conn_wait(struct ref_waiter *w, struct ref_ia *ia,
		  const struct timespec *deadline, bool infinite)
{
	static int disabled = -1;
	static long spin_us = -1;
	struct ref_transport *tp = ia->transport;

	if (disabled < 0)
		disabled = getenv("DAPLREF_NO_CONSUMER_POLL") != NULL;
	if (spin_us < 0) {
		const char *e = getenv("DAPLREF_SPIN_US");

		spin_us = e ? strtol(e, NULL, 10) : REF_CONN_SPIN_US;
		if (spin_us < 0)
			spin_us = 0;
	}
	if (!tp || !tp->ops->progress || w->fd < 0 || ia->closing || disabled)
		return ref_waiter_sleep(w, ia, deadline, infinite);
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
					if (w->woken)
						break;
				}
				r = ppoll(pfd, 2, &zero, NULL);
				if (r != 0)
					break;
				clock_gettime(CLOCK_MONOTONIC, &t1);
			} while ((t1.tv_sec - t0.tv_sec) * 1000000L +
				 (t1.tv_nsec - t0.tv_nsec) / 1000 < spin_us);
		}
		if (r == 0 && w->woken)
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
