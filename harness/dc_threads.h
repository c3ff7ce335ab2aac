/* SPDX-License-Identifier: MIT */
/*
 * dc_threads.h - worker threads for the MT-Level cases: a start gate, run
 * and join, and the "crowd" that makes objects of one page from several
 * threads at once (the *.mt_safe_concurrent cases).  Included by datcts.h.
 *
 * Verdicts end the case with longjmp, so a worker never asserts: it keeps
 * what it saw in its record and the case's thread judges after the join.
 */
#ifndef DC_THREADS_H
#define DC_THREADS_H

#include <pthread.h>

/*
 * A start line for worker threads, so that their calls really overlap:
 * each worker calls dc_gate_pass(); the last to arrive opens the gate.
 */
struct dc_gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int waiting, n;
};

void dc_gate_init(struct dc_gate *g, int n);
void dc_gate_pass(struct dc_gate *g);

/* Set-up: runs fn(arg + i * size) on n (at most 16) threads at once and joins them. */
void dc_run_threads_at(struct dc_ctx *t, const char *file, int line, int n,
		       void *(*fn)(void *), void *arg, size_t size);
#define dc_run_threads(n, fn, arr) \
	dc_run_threads_at(t, __FILE__, __LINE__, (n), (fn), (arr), sizeof((arr)[0]))

/* Set-up: starts fn(arg + i * size) on n threads (joined by dc_threads_join). */
void dc_threads_start_at(struct dc_ctx *t, const char *file, int line,
			 pthread_t *th, int n, void *(*fn)(void *), void *arg,
			 size_t size);
#define dc_threads_start(th, n, fn, arr) \
	dc_threads_start_at(t, __FILE__, __LINE__, (th), (n), (fn), (arr), sizeof((arr)[0]))
void dc_threads_join(pthread_t *th, int n);

/* ---- the crowd: one page's creates from several threads at once ---------- */

#define DC_CROWD_MAX 8

struct dc_crowd;

struct dc_crowd_worker {
	struct dc_crowd *c;
	int idx;
	bool own_ia;		/* works on an IA it opened itself */
	DAT_IA_HANDLE ia;	/* where it creates: t->ia or its own */
	DAT_HANDLE obj[4];	/* the case's set-up objects on ia (made serially) */
	DAT_HANDLE *made;	/* this round's handles, in creation order */
	int n, cap;
	DAT_RETURN bad;		/* first answer the worker did not expect */
	const char *bad_call;	/* of which call */
	int bad_at;		/* at which create (0-based) */
	bool ran_short;		/* a create answered DAT_INSUFFICIENT_RESOURCES */
	/* the Safe side calls between creates (driving lookups); noted only */
	DAT_EVD_HANDLE idle_evd;	/* an empty EVD of ia, or NULL */
	DAT_IA_HANDLE query_ia;	/* an IA a worker opened, or NULL */
	long side_calls;
	DAT_RETURN side_odd;	/* an answer of a side call not expected */
	const char *side_odd_call;
	void *user;		/* the case's own per-worker data */
};

struct dc_crowd {
	const char *what;	/* "dat_pz_create": the call the workers repeat */
	int per_worker;		/* creates each worker makes per round, at most */
	double round_ms;	/* and for at most this long (0: no bound): a bound
				 * of the suite's own, for slow transports */
	/* one create on the worker's thread: MT-Level Safe calls only */
	DAT_RETURN (*create)(struct dc_crowd_worker *w, int i, DAT_HANDLE *out);
	/* optional: a Safe call on what the worker just made (its query) */
	DAT_RETURN (*probe)(struct dc_crowd_worker *w, DAT_HANDLE h);
	const char *probe_what;
	int nw;
	struct dc_crowd_worker w[DC_CROWD_MAX];
	struct dc_gate gate;
	int round;
	double started;		/* dc_now_ms() at init */
};

/*
 * Set-up of a crowd of `shared` workers on t->ia and `own` workers on IAs
 * of their own, which they open at the same time on their own threads
 * (dat_ia_open(3DAT) ATTRIBUTES: MT-Level Safe), each passing t's async
 * EVD (an open refusing it is retried with none).  An open refused for
 * resources leaves that worker on t->ia (noted); any other refusal is
 * UNRESOLVED.  The workers of each IA share an empty EVD for their side
 * calls (made here, serially: dat_evd_create has no page that calls it
 * Safe; none when the IA has no EVD to spare).
 */
void dc_crowd_init_at(struct dc_ctx *t, const char *file, int line,
		      struct dc_crowd *c, int shared, int own);
#define dc_crowd_init(c, shared, own) \
	dc_crowd_init_at(t, __FILE__, __LINE__, (c), (shared), (own))

/*
 * One round: every worker passes the gate, then calls c->create up to
 * c->per_worker times or for c->round_ms (stopping earlier at
 * DAT_INSUFFICIENT_RESOURCES, which the
 * create pages' RETURN VALUES allow, or at any other failure, kept in
 * bad), with c->probe after each success and, between creates, Safe calls
 * that answer without changing anything: dat_evd_dequeue of its empty EVD
 * (dat_evd_dequeue(3DAT) ATTRIBUTES), now and then dat_evd_wait of it
 * with timeout 0 (dat_evd_wait(3DAT) ATTRIBUTES) and dat_ia_query of the
 * async EVD of an IA a worker opened (dat_ia_query(3DAT) ATTRIBUTES).
 * Returns with every worker joined: the case makes its Unsafe calls
 * (queries not listed Safe, frees) only afterwards.
 */
void dc_crowd_round_at(struct dc_ctx *t, const char *file, int line,
		       struct dc_crowd *c);
#define dc_crowd_round(c) dc_crowd_round_at(t, __FILE__, __LINE__, (c))

/*
 * Whether to run another round: always up to `min` rounds, then while
 * fewer than `max` ran and the crowd is younger than `ms` (a bound of the
 * suite's own: a loaded machine runs fewer rounds, never a failure).
 */
bool dc_crowd_again(struct dc_crowd *c, int min, int max, double ms);

/* For each handle made this round: worker w (a pointer) and its k-th. */
#define DC_CROWD_EACH(c, w, k)						\
	for (struct dc_crowd_worker *w = (c)->w; w < (c)->w + (c)->nw; w++) \
		for (int k = 0; k < w->n; k++)

/* Handles made this round by all workers. */
int dc_crowd_total(const struct dc_crowd *c);

/*
 * The checks every Safe create owes after the join: no worker got an
 * answer its page does not allow (c->what's; the probe's, `probe_why`
 * saying why the create's clause requires it), and no two handles made
 * this round are the same.  Fewer than two made in all is UNRESOLVED.
 */
void dc_crowd_assert_at(struct dc_ctx *t, const char *file, int line,
			struct dc_crowd *c);
#define DC_ASSERT_CROWD(c) dc_crowd_assert_at(t, __FILE__, __LINE__, (c))

/*
 * The first worker on w's IA (w itself, or one before it that shares its
 * IA): set-up objects a case makes once per IA, not once per worker, so a
 * provider with few EVDs or PZs still runs the crowd.
 */
struct dc_crowd_worker *dc_crowd_first_on(struct dc_crowd *c,
					  struct dc_crowd_worker *w);

/* Closes the workers' own IAs (clean-up, abrupt) and frees the records. */
void dc_crowd_fini(struct dc_ctx *t, struct dc_crowd *c);

#endif
