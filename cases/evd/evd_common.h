/* SPDX-License-Identifier: MIT */
/*
 * evd_common.h - what the cases of cases/evd/ and cases/cno/ share beyond
 * the harness (the CNO files include it as "../evd/evd_common.h"):
 * software events, EVD states, waiters woken by an event, signals, the
 * OS Wait Proxy Agent recorder, worker threads and EVD "hammers".
 *
 * Everything here is fixture work (a miss ends the case UNRESOLVED) except
 * the helpers spelled EXPECT_* / ASSERT_*, which check a clause (FAIL).
 * Blocking calls run in the harness's waiter threads (dc_events.h); as
 * there, verdicts come only from the case's own thread, and what must not
 * happen is watched for DC_QUIET_MS.
 */
#ifndef EVD_COMMON_H
#define EVD_COMMON_H

#include "datcts.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * The two ways the pages give for an EVD to feed a CNO: the cno_handle of
 * dat_evd_create(3DAT), or dat_evd_modify_cno(3DAT) on an EVD created
 * without one.  A clause about an EVD "of the CNO" holds for both.
 */
enum cno_way { CNO_AT_CREATE, CNO_BY_MODIFY, CNO_WAYS };

static inline const char *cno_way_name(enum cno_way way)
{
	return way == CNO_AT_CREATE ? "given at dat_evd_create" : "given by dat_evd_modify_cno";
}

/* Set-up: an EVD (qlen, flags) feeding cno, attached the way named. */
static inline DAT_EVD_HANDLE evd_on_cno_at(struct dc_ctx *t, const char *file, int line,
					   DAT_COUNT qlen, DAT_EVD_FLAGS flags,
					   DAT_CNO_HANDLE cno, enum cno_way way)
{
	DAT_EVD_HANDLE evd;

	if (way == CNO_AT_CREATE)
		return dc_evd_with_cno_at(t, file, line, qlen, flags, cno);
	evd = dc_evd_at(t, file, line, qlen, flags);
	dc_evd_set_cno_at(t, file, line, evd, cno);
	return evd;
}
#define evd_on_cno(qlen, flags, cno, way) \
	evd_on_cno_at(t, __FILE__, __LINE__, (qlen), (flags), (cno), (way))


/* A distinct, never dereferenced pointer value for software event i. */
#define TAG(i) ((DAT_PVOID)(uintptr_t)(0x5e0000u + (unsigned int)(i)))

static inline DAT_EVENT sw_event(DAT_PVOID p)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_SOFTWARE_EVENT;
	ev.event_data.software_event_data.pointer = p;
	return ev;
}

/* ---- objects ------------------------------------------------------------- */

/* Set-up: a software event with pointer p must be accepted. */
static inline void post_at(struct dc_ctx *t, const char *file, int line,
			   DAT_EVD_HANDLE evd, DAT_PVOID p)
{
	DAT_EVENT ev = sw_event(p);
	DAT_RETURN r = dat_evd_post_se(evd, &ev);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_evd_post_se(%p) returned %s", p, dc_ret_text(r));
}
#define post(evd, p) post_at(t, __FILE__, __LINE__, (evd), (p))

/* Set-up: posts TAG(first) .. TAG(first + n - 1). */
static inline void post_n_at(struct dc_ctx *t, const char *file, int line,
			     DAT_EVD_HANDLE evd, int first, int n)
{
	for (int i = 0; i < n; i++)
		post_at(t, file, line, evd, TAG(first + i));
}
#define post_n(evd, first, n) post_n_at(t, __FILE__, __LINE__, (evd), (first), (n))

/* Checks that ev is the software event `p` delivered by `evd`. */
static inline void check_sw_at(struct dc_ctx *t, const char *file, int line,
			       const char *how, const DAT_EVENT *ev,
			       DAT_EVD_HANDLE evd, DAT_PVOID p)
{
	if (ev->event_number != DAT_SOFTWARE_EVENT)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%s: expected a DAT_SOFTWARE_EVENT, got %s (0x%x)", how,
			  dc_event_name(ev->event_number),
			  (unsigned int)ev->event_number);
	if (ev->evd_handle != evd)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%s: event names EVD %p, expected %p", how,
			  ev->evd_handle, evd);
	if (ev->event_data.software_event_data.pointer != p)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%s: expected the software event %p, got %p (events out of order or altered)",
			  how, p, ev->event_data.software_event_data.pointer);
}

/* Clause: the next dat_evd_dequeue returns the software event p. */
static inline void expect_sw_at(struct dc_ctx *t, const char *file, int line,
				DAT_EVD_HANDLE evd, DAT_PVOID p)
{
	DAT_EVENT ev;
	DAT_RETURN r;

	memset(&ev, 0, sizeof(ev));
	r = dat_evd_dequeue(evd, &ev);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "dat_evd_dequeue: expected the software event %p, got %s",
			  p, dc_ret_text(r));
	check_sw_at(t, file, line, "dat_evd_dequeue", &ev, evd, p);
}
#define EXPECT_SW(evd, p) expect_sw_at(t, __FILE__, __LINE__, (evd), (p))
/* Clause: TAG(first) .. TAG(first + n - 1) come off the queue in order. */
#define EXPECT_SW_N(evd, first, n)					\
	do {								\
		for (int i_ = 0; i_ < (n); i_++)			\
			EXPECT_SW((evd), TAG((first) + i_));		\
	} while (0)


/* The state sub-state pairs of DAT_EVD_STATE (udat.h). */
#define EVD_ENABLED(st)							\
	(((st) & DAT_EVD_STATE_ENABLED) && !((st) & DAT_EVD_STATE_DISABLED))
#define EVD_DISABLED(st)						\
	(((st) & DAT_EVD_STATE_DISABLED) && !((st) & DAT_EVD_STATE_ENABLED))
#define EVD_WAITABLE(st)						\
	(((st) & DAT_EVD_STATE_WAITABLE) && !((st) & DAT_EVD_STATE_UNWAITABLE))
#define EVD_UNWAITABLE(st)						\
	(((st) & DAT_EVD_STATE_UNWAITABLE) && !((st) & DAT_EVD_STATE_WAITABLE))

/*
 * The stream kinds an EVD can be made for, alone and in the combinations
 * the pages use one EVD for (dat_ep_create(3DAT): an EP's request, receive
 * and connect streams may share an EVD; dat_rmr_bind(3DAT): binds complete
 * on the request EVD).  A combination the provider refuses is set-up's.
 * Used by the cases of dat_evd_create, dat_evd_set_unwaitable and
 * dat_evd_clear_unwaitable, each kind with and without a CNO.
 */
static const DAT_EVD_FLAGS evd_kinds[] __attribute__((unused)) = {
	DAT_EVD_SOFTWARE_FLAG, DAT_EVD_CR_FLAG, DAT_EVD_DTO_FLAG,
	DAT_EVD_CONNECTION_FLAG, DAT_EVD_RMR_BIND_FLAG, DAT_EVD_ASYNC_FLAG,
	DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG,
	DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG,
	DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG | DAT_EVD_CONNECTION_FLAG,
};
#define EVD_KINDS ((int)(sizeof(evd_kinds) / sizeof(evd_kinds[0])))

/*
 * A combination the IA's stream merging matrix forbids (dat_ia_query(3DAT)
 * DESCRIPTION: the Consumer checks it before asking for a merged EVD) is
 * skipped, with a note; the clause is judged by the kinds the IA has.
 */
static inline bool evd_kind_skipped(struct dc_ctx *t, int i)
{
	if (dc_streams_merge(t, evd_kinds[i]))
		return false;
	dc_note(t, "flags 0x%x skipped: the IA's stream merging matrix does not let those streams share an EVD",
		(unsigned int)evd_kinds[i]);
	return true;
}

/*
 * Set-up: a software EVD of qlen for *n events; on an IA whose queues are
 * shorter (dat_ia_query(3DAT) Max EVD queue size, no floor) the queue is
 * as long as the IA has and *n lowered in proportion, noted: the order and
 * the races are judged the same over fewer events.
 */
static inline DAT_EVD_HANDLE evd_for_n_at(struct dc_ctx *t, const char *file, int line,
					  DAT_COUNT qlen, int *n)
{
	DAT_COUNT q = dc_within_limit(qlen, t->ia_attr.max_evd_qlen);

	if (q < qlen) {
		int want = *n;

		*n = (int)((long)want * q / qlen);
		dc_note(t, "max_evd_qlen %d: %d events on a queue of %d instead of %d on %d",
			(int)q, *n, (int)q, want, (int)qlen);
	}
	return dc_evd_at(t, file, line, q, DAT_EVD_SOFTWARE_FLAG);
}
#define evd_for_n(qlen, n) evd_for_n_at(t, __FILE__, __LINE__, (qlen), (n))

/* Set-up: an EVD of evd_kinds[i], with cno or none. */
#define evd_of_kind(t, i, cno)						\
	((cno) ? dc_evd_with_cno((t), 4, evd_kinds[i], (cno)) : dc_evd((t), 4, evd_kinds[i]))

/*
 * The clauses of dat_evd_set_unwaitable (clear false) or
 * dat_evd_clear_unwaitable (clear true) for an EVD of each kind of
 * evd_kinds, with and without a CNO: first, under query_clause, the queried
 * state; then, under wait_clause, a dat_evd_wait (threshold 1, timeout 0)
 * refused with DAT_INVALID_STATE (unwaitable) or timing out (waitable).
 */
static inline void unwaitable_each_kind(struct dc_ctx *t, bool clear, const char *query_clause,
					const char *wait_clause)
{
	const char *const clause[2] = { query_clause, wait_clause };
	DAT_CNO_HANDLE cno = dc_plain_cno(t);

	for (int part = 0; part < 2; part++) {
		DC_FOR_CLAUSE(clause[part]);
		for (int i = 0; i < EVD_KINDS; i++) {
			if (evd_kind_skipped(t, i))
				continue;
			for (int with_cno = 0; with_cno < 2; with_cno++) {
				DAT_EVD_HANDLE evd = evd_of_kind(t, i, with_cno ? cno : DAT_HANDLE_NULL);
				DAT_COUNT nmore;
				DAT_EVENT ev;
				DAT_EVD_PARAM p;

				dc_note(t, "flags 0x%x, %s", (unsigned int)evd_kinds[i],
					with_cno ? "with a CNO" : "no CNO");
				if (clear) {
					DC_SETUP(dat_evd_set_unwaitable(evd));
					DC_ASSERT_SUCCESS(dat_evd_clear_unwaitable(evd));
				} else {
					DC_ASSERT_SUCCESS(dat_evd_set_unwaitable(evd));
				}
				if (part == 0) {
					p = DC_EVD_PARAM(evd);
					DC_ASSERT(clear ? EVD_WAITABLE(p.evd_state) :
							  EVD_UNWAITABLE(p.evd_state),
						  "state 0x%x after %s_unwaitable",
						  (unsigned int)p.evd_state, clear ? "clear" : "set");
				} else if (clear) {
					/* collateral: dat_evd_clear_unwaitable(3DAT) DESCRIPTION:
					 * the EVD made waitable again takes dat_evd_wait */
					DC_ASSERT_RET(dat_evd_wait(evd, 0, 1, &ev, &nmore),
						      DAT_TIMEOUT_EXPIRED);
				} else {
					/* collateral: dat_evd_set_unwaitable(3DAT) DESCRIPTION:
					 * dat_evd_wait on an unwaitable EVD is refused at once */
					DC_ASSERT_RET(dat_evd_wait(evd, 0, 1, &ev, &nmore),
						      DAT_INVALID_STATE);
				}
				DC_CLEANUP(dat_evd_free(evd));
			}
		}
	}
}

/* Adds the subtype a refusal carried to the output (clauses check the type). */
static inline void note_ret(struct dc_ctx *t, const char *what, DAT_RETURN r)
{
	dc_note(t, "%s returned %s", what, dc_ret_text(r));
}

/*
 * Set-up: handles that name no EVD: DAT_HANDLE_NULL and a PZ handle, or
 * (when freed) the handle of an EVD that was freed (dat_evd_free(3DAT): any
 * later use of it fails), which the cases check apart (a registry that
 * dispatches through the handle may not survive it).  Returns how many it
 * wrote.
 */
static inline int bad_evd_handles(struct dc_ctx *t, DAT_EVD_HANDLE out[3],
				  const char *names[3], bool freed)
{
	int n = 0;

	if (freed) {
		DAT_EVD_HANDLE e = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);

		DC_SETUP(dat_evd_free(e));
		out[n] = e;
		names[n++] = "a freed EVD handle";
		return n;
	}
	out[n] = DAT_HANDLE_NULL;
	names[n++] = "DAT_HANDLE_NULL";
	out[n] = (DAT_EVD_HANDLE)dc_pz(t);
	names[n++] = "a PZ handle";
	return n;
}

/* ---- waiters (the harness's, dc_events.h) woken by an event ------------- */

/* Clause: a returned dat_cno_wait waiter got DAT_SUCCESS and EVD `evd`. */
static inline void expect_cno_woken_at(struct dc_ctx *t, const char *file,
				       int line, struct dc_waiter *w,
				       DAT_EVD_HANDLE evd, const char *after)
{
	dc_waiter_join_at(t, file, line, w, DC_FAIL, after);
	if (w->ret != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "dat_cno_wait returned %s after %s, expected DAT_SUCCESS",
			  dc_ret_text(w->ret), after);
	if (w->evd != evd)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "dat_cno_wait returned EVD %p after %s, expected %p",
			  w->evd, after, evd);
}
#define EXPECT_CNO_WOKEN(w, evd, after) \
	expect_cno_woken_at(t, __FILE__, __LINE__, (w), (evd), (after))

/* Clause: a dat_evd_wait waiter returns DAT_SUCCESS with software event p. */
static inline void expect_evd_woken_at(struct dc_ctx *t, const char *file,
				       int line, struct dc_waiter *w,
				       DAT_PVOID p, const char *after)
{
	dc_waiter_join_at(t, file, line, w, DC_FAIL, after);
	if (w->ret != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "dat_evd_wait returned %s after %s, expected DAT_SUCCESS",
			  dc_ret_text(w->ret), after);
	check_sw_at(t, file, line, "dat_evd_wait", &w->ev,
		    (DAT_EVD_HANDLE)w->h, p);
}
#define EXPECT_EVD_WOKEN(w, p, after) \
	expect_evd_woken_at(t, __FILE__, __LINE__, (w), (p), (after))

/*
 * Releases a dat_cno_wait waiter that a clause has finished with, through
 * a spare software EVD attached to its CNO (the dat_cno_free USAGE
 * technique); keeps threads from lingering into the teardown.
 */
static inline void release_cno_waiter_at(struct dc_ctx *t, const char *file,
					 int line, struct dc_waiter *w)
{
	DAT_EVD_HANDLE spare;

	if (dc_waiter_done(w))
		return;
	spare = dc_evd_with_cno_at(t, file, line, 4, DAT_EVD_SOFTWARE_FLAG,
			   (DAT_CNO_HANDLE)w->h);
	post_at(t, file, line, spare, TAG(0xfff));
	dc_waiter_join_at(t, file, line, w, DC_UNRESOLVED, "the release post");
}
#define release_cno_waiter(w) release_cno_waiter_at(t, __FILE__, __LINE__, (w))

/* ---- signals -------------------------------------------------------------- */

static volatile sig_atomic_t sigusr1_seen_ DC_UNUSED_;

static DC_UNUSED_ void on_sigusr1_(int sig)
{
	(void)sig;
	sigusr1_seen_++;
}

/* Set-up: a SIGUSR1 handler installed WITHOUT SA_RESTART. */
static inline void install_sigusr1_at(struct dc_ctx *t, const char *file,
				      int line)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1_;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: blocking calls see EINTR */
	if (sigaction(SIGUSR1, &sa, NULL))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: sigaction(SIGUSR1) failed");
}
#define install_sigusr1() install_sigusr1_at(t, __FILE__, __LINE__)

/*
 * Clause: delivers SIGUSR1 to the (blocked) waiter until its call returns.
 * A signal that lands while the thread is not yet asleep in the wait only
 * runs the handler, so it is repeated every 20 ms (a retry period, not a
 * synchronisation guess); the call must return within wait_ms.
 */
static inline int interrupt_until_returned_at(struct dc_ctx *t,
					      const char *file, int line,
					      struct dc_waiter *w)
{
	double until = dc_now_ms() + (double)dc_wait_ms(t);
	int sent = 0;

	do {
		if (pthread_kill(w->th, SIGUSR1) == 0)
			sent++;
		if (dc_waiter_returned_within(w, 20))
			return sent;
	} while (dc_now_ms() < until);
	dc_end_at(t, DC_FAIL, file, line, false,
		  "%s did not return although SIGUSR1 (handler without SA_RESTART) was delivered %d times",
		  dc_waiter_call_name(w), sent);
}
#define interrupt_until_returned(w) \
	interrupt_until_returned_at(t, __FILE__, __LINE__, (w))

/* ---- OS Wait Proxy Agent recorder ----------------------------------------- */

struct agent_rec {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int calls;
	DAT_PVOID inst;
	DAT_EVD_HANDLE evd;
};

static struct agent_rec agent_pool_[4] DC_UNUSED_;
static int agent_used_ DC_UNUSED_;

static DC_UNUSED_ void agent_fn_(DAT_PVOID inst, DAT_EVD_HANDLE evd)
{
	struct agent_rec *r = inst;

	if (r < &agent_pool_[0] || r >= &agent_pool_[4])
		return;	/* not ours: recorded as "never called" */
	pthread_mutex_lock(&r->mu);
	r->calls++;
	r->inst = inst;
	r->evd = evd;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

static inline struct agent_rec *agent_rec_new(void)
{
	struct agent_rec *r = &agent_pool_[agent_used_++ % 4];

	memset(r, 0, sizeof(*r));
	dc_cv_init(&r->mu, &r->cv);
	return r;
}

static inline DAT_OS_WAIT_PROXY_AGENT agent_of(struct agent_rec *r)
{
	DAT_OS_WAIT_PROXY_AGENT a;

	a.instance_data = r;
	a.proxy_agent_func = agent_fn_;
	return a;
}

/* True once the agent has been called at least n times (within ms). */
static inline bool agent_calls_within(struct agent_rec *r, int n, long ms)
{
	double until = dc_now_ms() + (double)ms;
	bool ok;

	pthread_mutex_lock(&r->mu);
	while (r->calls < n && dc_now_ms() < until)
		dc_cv_wait_until(&r->mu, &r->cv, until);
	ok = r->calls >= n;
	pthread_mutex_unlock(&r->mu);
	return ok;
}

static inline int agent_calls(struct agent_rec *r)
{
	int n;

	pthread_mutex_lock(&r->mu);
	n = r->calls;
	pthread_mutex_unlock(&r->mu);
	return n;
}

/* ---- plain worker threads: harness/dc_threads.h ---------------------------- */

/*
 * Set-up: consumes notifications a CNO may hold from earlier posts (a
 * provider may keep a trigger that found no waiter), so that the next
 * waiter starts clean.  Returns how many there were.
 */
static inline int cno_drain(DAT_CNO_HANDLE cno)
{
	DAT_EVD_HANDLE e;
	int n = 0;

	while (n < 64 && dat_cno_wait(cno, 0, &e) == DAT_SUCCESS)
		n++;
	return n;
}

/* Posts `n` events from its own thread, starting at a shared gate. */
struct poster {
	struct dc_gate *g;
	DAT_EVD_HANDLE evd;
	int first, n;
	DAT_RETURN bad;
};

static DC_UNUSED_ void *poster_main(void *arg)
{
	struct poster *p = arg;

	p->bad = DAT_SUCCESS;
	dc_gate_pass(p->g);
	for (int i = 0; i < p->n; i++) {
		DAT_EVENT ev = sw_event(TAG(p->first + i));
		DAT_RETURN r = dat_evd_post_se(p->evd, &ev);

		if (r != DAT_SUCCESS) {
			p->bad = r;
			break;
		}
	}
	return NULL;
}

/*
 * A "hammer" thread repeats one MT-Level Safe call on an EVD, starting at a
 * shared gate, and records the first unexpected return (the case's thread
 * judges).  H_DEQUEUE takes events until the queue is empty and keeps
 * what it took in seen[].
 */
enum hammer_op { H_DEQUEUE, H_ENABLE, H_DISABLE_ENABLE, H_UNWAIT_TOGGLE };

struct hammer {
	struct dc_gate *g;
	DAT_EVD_HANDLE evd;
	enum hammer_op op;
	int n;			/* rounds (not H_DEQUEUE) */
	DAT_PVOID *seen;	/* H_DEQUEUE: taken pointers */
	int seen_cap, taken;
	DAT_RETURN bad;		/* first unexpected return, or DAT_SUCCESS */
	const char *bad_call;
	int bad_round;
	bool bad_event;		/* bad_call describes a wrong event, not a return */
};

static inline bool hammer_bad_(struct hammer *h, DAT_RETURN r,
			       const char *call, int round)
{
	if (r == DAT_SUCCESS)
		return false;
	h->bad = r;
	h->bad_call = call;
	h->bad_round = round;
	return true;
}

static DC_UNUSED_ void *hammer_main_(void *arg)
{
	struct hammer *h = arg;
	DAT_EVENT ev;
	DAT_RETURN r;

	h->bad = DAT_SUCCESS;
	dc_gate_pass(h->g);
	if (h->op == H_DEQUEUE) {
		for (;;) {
			r = dat_evd_dequeue(h->evd, &ev);
			if (dc_ret_is(r, DAT_QUEUE_EMPTY, DC_ANY_SUBTYPE))
				break;
			if (hammer_bad_(h, r, "dat_evd_dequeue", h->taken))
				break;
			if (ev.event_number != DAT_SOFTWARE_EVENT ||
			    h->taken >= h->seen_cap) {
				h->bad = DAT_INTERNAL_ERROR;	/* marker only */
				h->bad_event = true;
				h->bad_call = ev.event_number != DAT_SOFTWARE_EVENT ?
					"dat_evd_dequeue returned an event that is not a software event" :
					"dat_evd_dequeue returned more events than were posted";
				h->bad_round = h->taken;
				break;
			}
			h->seen[h->taken++] = ev.event_data.software_event_data.pointer;
		}
		return NULL;
	}
	for (int i = 0; i < h->n; i++) {
		switch (h->op) {
		case H_ENABLE:
			r = dat_evd_enable(h->evd);
			if (hammer_bad_(h, r, "dat_evd_enable", i))
				return NULL;
			break;
		case H_DISABLE_ENABLE:
			r = dat_evd_disable(h->evd);
			if (hammer_bad_(h, r, "dat_evd_disable", i))
				return NULL;
			r = dat_evd_enable(h->evd);
			if (hammer_bad_(h, r, "dat_evd_enable", i))
				return NULL;
			break;
		case H_UNWAIT_TOGGLE:
			r = dat_evd_set_unwaitable(h->evd);
			if (hammer_bad_(h, r, "dat_evd_set_unwaitable", i))
				return NULL;
			r = dat_evd_clear_unwaitable(h->evd);
			if (hammer_bad_(h, r, "dat_evd_clear_unwaitable", i))
				return NULL;
			break;
		default:
			break;
		}
	}
	return NULL;
}

/* Clause: no hammer saw an unexpected return. */
static inline void assert_hammers_at(struct dc_ctx *t, const char *file,
				     int line, struct hammer *h, int n)
{
	for (int i = 0; i < n; i++) {
		if (h[i].bad != DAT_SUCCESS && h[i].bad_event)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "thread %d: %s (after %d events)", i,
				  h[i].bad_call, h[i].bad_round);
		if (h[i].bad != DAT_SUCCESS)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "thread %d: %s returned %s in round %d while other threads used the EVD",
				  i, h[i].bad_call, dc_ret_text(h[i].bad), h[i].bad_round);
	}
}
#define ASSERT_HAMMERS(h, n) assert_hammers_at(t, __FILE__, __LINE__, (h), (n))

/* ---- an EVD meeting its CNO in a state ------------------------------------ */

/* The state an EVD is put in before it meets its CNO (evd_on_cno_after). */
enum evd_prep { PREP_DISABLE, PREP_UNWAITABLE };

/*
 * A software EVD of cno put in the state `prep` names: with the CNO given
 * at dat_evd_create and the state set after, or the state set first and
 * the CNO given after by dat_evd_modify_cno.  `checked`: the state change
 * is the clause's own call (FAIL on a refusal), else set-up.
 */
static inline DAT_EVD_HANDLE evd_on_cno_after_at(struct dc_ctx *t, const char *file,
						 int line, DAT_CNO_HANDLE cno,
						 enum cno_way way, enum evd_prep prep,
						 bool checked)
{
	const char *what = prep == PREP_DISABLE ? "dat_evd_disable" : "dat_evd_set_unwaitable";
	DAT_EVD_HANDLE evd = way == CNO_AT_CREATE ?
		dc_evd_with_cno_at(t, file, line, 8, DAT_EVD_SOFTWARE_FLAG, cno) :
		dc_evd_at(t, file, line, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_RETURN r;

	if (way == CNO_AT_CREATE)
		dc_note(t, "the EVD's CNO %s, then %s", cno_way_name(way), what);
	else
		dc_note(t, "%s, then the EVD's CNO %s", what, cno_way_name(way));
	r = prep == PREP_DISABLE ? dat_evd_disable(evd) : dat_evd_set_unwaitable(evd);
	if (checked)
		dc_assert_ret_at(t, file, line, what, r, DC_FAIL, 1,
				 (const DAT_RETURN[]){ DAT_SUCCESS }, DC_ANY_SUBTYPE);
	else
		dc_setup_call_at(t, file, line, r, what);
	if (way == CNO_BY_MODIFY)
		dc_evd_set_cno_at(t, file, line, evd, cno);
	return evd;
}
#define evd_on_cno_after(cno, way, prep, checked) \
	evd_on_cno_after_at(t, __FILE__, __LINE__, (cno), (way), (prep), (checked))

/*
 * Clause check shared by dat_cno_wait.waited_evd_silent and
 * dat_evd_wait.cno_not_triggered_while_waiting: with a thread in
 * dat_evd_wait on e1 (its CNO given the way named), a post to e1 goes to
 * that thread and not to the CNO's waiter, which a post to e2 then wakes.
 */
static inline void waited_evd_silent_at(struct dc_ctx *t, const char *file, int line,
					enum cno_way way)
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE e1 = evd_on_cno_at(t, file, line, 8, DAT_EVD_SOFTWARE_FLAG, cno, way);
	DAT_EVD_HANDLE e2 = dc_evd_with_cno_at(t, file, line, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *we = dc_evd_waiter(t, e1, DAT_TIMEOUT_INFINITE, 1);
	struct dc_waiter *wc = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);

	dc_note(t, "the waited EVD's CNO %s", cno_way_name(way));
	DC_ASSERT_BLOCKS(we);
	DC_ASSERT_BLOCKS(wc);
	post(e1, TAG(1));
	EXPECT_EVD_WOKEN(we, TAG(1), "a post to the waited EVD");
	DC_ASSERT_STILL_WAITING(wc, "a post to an EVD that had a direct waiter");
	post(e2, TAG(2));
	EXPECT_CNO_WOKEN(wc, e2, "a post to the CNO's other EVD");
	dc_waiter_free(we);
	dc_waiter_free(wc);
}
#define waited_evd_silent(way) waited_evd_silent_at(t, __FILE__, __LINE__, (way))

/*
 * Set-up: a connected EP `a` whose 2-entry request EVD loses a completion
 * (one Send more than it holds), so that DAT_ASYNC_ERROR_EVD_OVERFLOW is
 * due on the IA's async EVD; `b` is its peer.
 */
static inline void overflow_request_evd_at(struct dc_ctx *t, const char *file, int line,
					   struct dc_endpoint *a, struct dc_endpoint *b)
{
	struct dc_conn_opts small = { .evd_qlen = 2 };
	struct dc_lmr ma, mb;
	const DAT_MEM_PRIV_FLAGS rw = DAT_MEM_PRIV_LOCAL_READ_FLAG |
				      DAT_MEM_PRIV_LOCAL_WRITE_FLAG;
	DAT_COUNT q;

	/* a: the sender, with 2-entry EVDs; b: the receiver, default EVDs */
	dc_endpoint_at(t, file, line, a, &small);
	memset(b, 0, sizeof(*b));
	dc_connect_local_at(t, file, line, a, b, NULL);
	/* the provider may round the length up: send one more than it holds */
	q = dc_evd_param(t, a->req_evd).evd_qlen;
	if (q < 2 || q > 8)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the provider made the 2-entry request EVD %d entries long; too long to overflow with the EP's 16 requests",
			  (int)q);
	dc_note(t, "request EVD holds %d; sending %d", (int)q, (int)q + 1);
	dc_lmr_at(t, file, line, b->pz, 4096, rw, &mb);
	dc_lmr_at(t, file, line, a->pz, 4096, rw, &ma);
	for (int i = 0; i <= q; i++)
		dc_post_recv_at(t, file, line, b->ep, &mb, (DAT_VLEN)i * 64, 64, (uint64_t)i);
	for (int i = 0; i <= q; i++)
		dc_post_send_at(t, file, line, a->ep, &ma, (DAT_VLEN)i * 64, 64, 100 + (uint64_t)i);
	for (int i = 0; i <= q; i++)
		dc_await_dto_at(t, file, line, b->recv_evd, (uint64_t)i);
}
#define overflow_request_evd(a, b) overflow_request_evd_at(t, __FILE__, __LINE__, (a), (b))

#endif /* EVD_COMMON_H */
