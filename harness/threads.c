// SPDX-License-Identifier: MIT
/*
 * threads.c - worker threads for the MT-Level cases (dc_threads.h).
 */
#include "datcts.h"

#include <stdlib.h>
#include <string.h>

void dc_gate_init(struct dc_gate *g, int n)
{
	dc_cv_init(&g->mu, &g->cv);
	g->waiting = 0;
	g->n = n;
}

void dc_gate_pass(struct dc_gate *g)
{
	pthread_mutex_lock(&g->mu);
	if (++g->waiting >= g->n)
		pthread_cond_broadcast(&g->cv);
	while (g->waiting < g->n)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

void dc_threads_start_at(struct dc_ctx *t, const char *file, int line,
			 pthread_t *th, int n, void *(*fn)(void *), void *arg,
			 size_t size)
{
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn, (char *)arg + (size_t)i * size))
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: pthread_create failed");
}

void dc_threads_join(pthread_t *th, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

void dc_run_threads_at(struct dc_ctx *t, const char *file, int line, int n,
		       void *(*fn)(void *), void *arg, size_t size)
{
	pthread_t th[16];
	int i;

	if (n > 16)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: more than 16 worker threads");
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn, (char *)arg + (size_t)i * size)) {
			/* the started ones may wait at a gate for the rest */
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: pthread_create failed");
		}
	dc_threads_join(th, n);
}

/* ---- the crowd -------------------------------------------------------------- */

struct crowd_open {
	struct dc_gate *g;
	const char *name;
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia;
	DAT_RETURN r, first;
};

/* A worker opening its own IA, at the same time as the others. */
static void *open_main(void *arg)
{
	struct crowd_open *o = arg;
	DAT_EVD_HANDLE evd = o->async;

	dc_gate_pass(o->g);
	o->r = dat_ia_open((DAT_NAME_PTR)o->name, 16, &evd, &o->ia);
	o->first = o->r;
	if (DAT_GET_TYPE(o->r) == DAT_INVALID_HANDLE) {
		/* a Provider may refuse an async EVD another IA uses */
		evd = DAT_HANDLE_NULL;
		o->r = dat_ia_open((DAT_NAME_PTR)o->name, 16, &evd, &o->ia);
	}
	return NULL;
}

static DAT_EVD_HANDLE idle_evd_on(DAT_IA_HANDLE ia)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	if (dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd) !=
	    DAT_SUCCESS)
		return DAT_HANDLE_NULL;
	return evd;
}

void dc_crowd_init_at(struct dc_ctx *t, const char *file, int line,
		      struct dc_crowd *c, int shared, int own)
{
	struct crowd_open o[DC_CROWD_MAX];
	struct dc_gate g;
	int cap = c->per_worker > 0 ? c->per_worker : 1;

	if (shared + own > DC_CROWD_MAX || shared < 0 || own < 0 || !c->create)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: a crowd of %d + %d workers", shared, own);
	c->nw = shared + own;
	c->round = 0;
	c->started = dc_now_ms();
	memset(c->w, 0, sizeof(c->w));
	for (int i = 0; i < c->nw; i++) {
		struct dc_crowd_worker *w = &c->w[i];

		w->c = c;
		w->idx = i;
		w->ia = t->ia;
		w->cap = cap;
		w->made = calloc((size_t)cap, sizeof(*w->made));
		if (!w->made)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: out of memory");
	}
	if (own) {
		memset(o, 0, sizeof(o));
		dc_gate_init(&g, own);
		for (int i = 0; i < own; i++) {
			o[i].g = &g;
			o[i].name = t->ia_name;
			o[i].async = t->async_evd;
		}
		dc_run_threads_at(t, file, line, own, open_main, o, sizeof(o[0]));
		for (int i = 0; i < own; i++) {
			struct dc_crowd_worker *w = &c->w[shared + i];

			if (o[i].r == DAT_SUCCESS) {
				w->own_ia = true;
				w->ia = o[i].ia;
				if (o[i].first != DAT_SUCCESS)
					dc_note(t, "worker %d: the open refused t's async EVD (%s), opened with none",
						shared + i, dc_ret_text(o[i].first));
			} else if (DAT_GET_TYPE(o[i].r) == DAT_INSUFFICIENT_RESOURCES) {
				dc_note(t, "worker %d: no IA of its own (%s): works on the case's IA",
					shared + i, dc_ret_text(o[i].r));
			} else {
				for (int k = 0; k < own; k++)
					if (o[k].r == DAT_SUCCESS)
						DC_CLEANUP(dat_ia_close(o[k].ia,
									DAT_CLOSE_ABRUPT_FLAG));
				dc_end_at(t, DC_UNRESOLVED, file, line, false,
					  "set-up: worker %d's dat_ia_open returned %s",
					  shared + i, dc_ret_text(o[i].r));
			}
		}
	}
	for (int i = 0; i < c->nw; i++) {
		struct dc_crowd_worker *f = dc_crowd_first_on(c, &c->w[i]);

		c->w[i].idle_evd = f != &c->w[i] ? f->idle_evd :
				   idle_evd_on(c->w[i].ia);
		/* every worker queries an IA a worker opened (with t's
		 * async EVD, if it took it), its own or another's */
		for (int k = 0; k < own && !c->w[i].query_ia; k++) {
			struct dc_crowd_worker *o = &c->w[shared + (i + k) % own];

			if (o->own_ia)
				c->w[i].query_ia = o->ia;
		}
	}
}

static void side_odd(struct dc_crowd_worker *w, const char *call, DAT_RETURN r)
{
	if (w->side_odd == DAT_SUCCESS) {
		w->side_odd = r;
		w->side_odd_call = call;
	}
}

/* Safe calls that change nothing: lookups beside the creates. */
static void side_calls(struct dc_crowd_worker *w)
{
	DAT_RETURN r;

	if (w->idle_evd) {
		DAT_EVENT ev;

		r = dat_evd_dequeue(w->idle_evd, &ev);
		if (DAT_GET_TYPE(r) != DAT_QUEUE_EMPTY)
			side_odd(w, "dat_evd_dequeue", r);
		w->side_calls++;
		if ((w->side_calls & 7) == 1) {
			DAT_COUNT nmore = 0;

			r = dat_evd_wait(w->idle_evd, 0, 1, &ev, &nmore);
			if (DAT_GET_TYPE(r) != DAT_TIMEOUT_EXPIRED)
				side_odd(w, "dat_evd_wait(timeout 0)", r);
			w->side_calls++;
		}
	}
	for (int k = 0; w->query_ia && k < 4; k++) {
		DAT_EVD_HANDLE a = DAT_HANDLE_NULL;

		r = dat_ia_query(w->query_ia, &a, DAT_IA_FIELD_NONE, NULL,
				 DAT_PROVIDER_FIELD_NONE, NULL);
		if (r != DAT_SUCCESS)
			side_odd(w, "dat_ia_query", r);
		w->side_calls++;
	}
}

static void *worker_main(void *arg)
{
	struct dc_crowd_worker *w = arg;
	struct dc_crowd *c = w->c;

	double until;

	dc_gate_pass(&c->gate);
	until = c->round_ms > 0 ? dc_now_ms() + c->round_ms : 0;
	for (int i = 0; i < c->per_worker && w->n < w->cap; i++) {
		if (until && i > 0 && dc_now_ms() > until)
			break;
		DAT_HANDLE h = DAT_HANDLE_NULL;
		DAT_RETURN r = c->create(w, i, &h);

		if (DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES) {
			w->ran_short = true;
			break;
		}
		if (r != DAT_SUCCESS) {
			w->bad = r;
			w->bad_call = c->what;
			w->bad_at = i;
			break;
		}
		w->made[w->n++] = h;
		if (c->probe) {
			r = c->probe(w, h);
			if (r != DAT_SUCCESS) {
				w->bad = r;
				w->bad_call = c->probe_what;
				w->bad_at = i;
				break;
			}
		}
		side_calls(w);
	}
	return NULL;
}

void dc_crowd_round_at(struct dc_ctx *t, const char *file, int line,
		       struct dc_crowd *c)
{
	c->round++;
	for (int i = 0; i < c->nw; i++) {
		struct dc_crowd_worker *w = &c->w[i];

		w->n = 0;
		w->bad = DAT_SUCCESS;
		w->bad_call = NULL;
		w->ran_short = false;
	}
	dc_gate_init(&c->gate, c->nw);
	dc_run_threads_at(t, file, line, c->nw, worker_main, c->w, sizeof(c->w[0]));
}

struct dc_crowd_worker *dc_crowd_first_on(struct dc_crowd *c,
					  struct dc_crowd_worker *w)
{
	for (struct dc_crowd_worker *f = c->w; f < w; f++)
		if (f->ia == w->ia)
			return f;
	return w;
}

bool dc_crowd_again(struct dc_crowd *c, int min, int max, double ms)
{
	if (c->round < min)
		return true;
	return c->round < max && dc_now_ms() - c->started < ms;
}

int dc_crowd_total(const struct dc_crowd *c)
{
	int n = 0;

	for (int i = 0; i < c->nw; i++)
		n += c->w[i].n;
	return n;
}

struct crowd_ent {
	DAT_HANDLE h;
	int w, k;
};

static int ent_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct crowd_ent *)a)->h;
	uintptr_t y = (uintptr_t)((const struct crowd_ent *)b)->h;

	return x < y ? -1 : x > y;
}

void dc_crowd_assert_at(struct dc_ctx *t, const char *file, int line,
			struct dc_crowd *c)
{
	int total = dc_crowd_total(c), k = 0, shorts = 0;
	struct crowd_ent *e;

	for (int i = 0; i < c->nw; i++) {
		struct dc_crowd_worker *w = &c->w[i];

		if (w->bad != DAT_SUCCESS)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "round %d, worker %d (%s IA): %s returned %s at create %d, beside %d other threads' calls",
				  c->round, i, w->own_ia ? "its own" : "the shared",
				  w->bad_call, dc_ret_text(w->bad), w->bad_at,
				  c->nw - 1);
		if (w->ran_short)
			shorts++;
		if (w->side_odd != DAT_SUCCESS)
			dc_note(t, "round %d, worker %d: side call %s answered %s (not judged here)",
				c->round, i, w->side_odd_call, dc_ret_text(w->side_odd));
	}

	dc_note(t, "round %d: %d handles from %s by %d threads (%d ran short)",
		c->round, total, c->what, c->nw, shorts);
	if (total < 2)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "round %d: %d object(s) made in all: no concurrent creation to judge",
			  c->round, total);
	e = calloc((size_t)total, sizeof(*e));
	if (!e)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: out of memory");
	for (int i = 0; i < c->nw; i++)
		for (int j = 0; j < c->w[i].n; j++)
			e[k++] = (struct crowd_ent){ c->w[i].made[j], i, j };
	qsort(e, (size_t)total, sizeof(*e), ent_cmp);
	for (int i = 1; i < total; i++)
		if (e[i].h == e[i - 1].h) {
			struct crowd_ent a = e[i - 1], b = e[i];

			free(e);
			dc_end_at(t, DC_FAIL, file, line, false,
				  "round %d: %s gave handle %p twice (worker %d's create %d and worker %d's create %d)",
				  c->round, c->what, b.h, a.w, a.k, b.w, b.k);
		}
	free(e);
}

void dc_crowd_fini(struct dc_ctx *t, struct dc_crowd *c)
{
	for (int i = 0; i < c->nw; i++) {
		struct dc_crowd_worker *w = &c->w[i];

		if (w->own_ia) {
			DC_CLEANUP(dat_ia_close(w->ia, DAT_CLOSE_ABRUPT_FLAG));
			w->own_ia = false;
			w->ia = t->ia;
		}
		free(w->made);
		w->made = NULL;
	}
}
