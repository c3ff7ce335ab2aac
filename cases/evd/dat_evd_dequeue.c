/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_dequeue(3DAT); clauses in clauses/dat_evd_dequeue.toml.
 * The connection-event clauses share their bodies with dat_evd_wait's
 * (evd_cm.h); here every event is taken with dat_evd_dequeue.
 */
#include "evd_cm.h"

DC_CASE(dat_evd_dequeue, returns_first_event,
	.summary = "dequeue removes the oldest event and fills in its type, EVD and data")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVENT ev;

	post(evd, TAG(1));
	post(evd, TAG(2));
	memset(&ev, 0xa5, sizeof(ev));
	DC_ASSERT_SUCCESS(dat_evd_dequeue(evd, &ev));
	check_sw_at(t, __FILE__, __LINE__, "first dat_evd_dequeue", &ev, evd, TAG(1));
	EXPECT_SW(evd, TAG(2));
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_dequeue, cr_event_carries_cr,
	.summary = "a dequeued connection request event carries a live CR handle of the PSP")
{
	cm_cr_event_carries_cr(t, TAKE_DEQUEUE);
}

DC_CASE(dat_evd_dequeue, cr_gone_after_accept_or_reject,
	.summary = "after dat_cr_reject / dat_cr_accept the old cr_handle is invalid")
{
	cm_cr_gone_after_accept_or_reject(t, TAKE_DEQUEUE);
}

DC_CASE(dat_evd_dequeue, passive_established_no_private_data,
	.summary = "the passive Established event has private_data_size 0")
{
	cm_passive_established_no_private_data(t, TAKE_DEQUEUE);
}

DC_CASE(dat_evd_dequeue, active_established_private_data,
	.summary = "the active Established event carries the accept's private data, valid until Disconnected")
{
	cm_active_established_private_data(t, TAKE_DEQUEUE);
}

DC_CASE(dat_evd_dequeue, active_established_private_data_queued,
	.clauses = "dat_evd_dequeue.active_established_private_data",
	.summary = "the active Established event, left queued while a second connection is accepted with other private data, still carries its own",
	.flags = DC_NO_DTOS)
{
	cm_active_established_private_data_queued(t, TAKE_DEQUEUE);
}

DC_CASE(dat_evd_dequeue, active_established_private_data_none,
	.clauses = "dat_evd_dequeue.active_established_private_data",
	.summary = "after an accept without private data (on an EP reset from a connection with some) the active Established event's size is not negative and a size above 0 has a pointer")
{
	cm_active_established_private_data_none(t, TAKE_DEQUEUE);
}

DC_CASE(dat_evd_dequeue, entire_private_data,
	.summary = "max_private_data_size bytes of connect and accept private data arrive whole")
{
	cm_entire_private_data(t, TAKE_DEQUEUE);
}

DC_CASE(dat_evd_dequeue, private_data_too_large,
	.summary = "connect / accept with max_private_data_size + 1 bytes give DAT_INVALID_PARAMETER")
{
	cm_private_data_too_large(t, TAKE_DEQUEUE);
}

DC_CASE(dat_evd_dequeue, stream_order,
	.summary = "software events are dequeued in posting order")
{
	int n = 100;
	DAT_EVD_HANDLE evd = evd_for_n(128, &n);

	post_n(evd, 0, n);
	EXPECT_SW_N(evd, 0, n);
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_dequeue, queue_empty,
	.summary = "dequeue on an empty EVD gives DAT_QUEUE_EMPTY and changes nothing")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_snap s;
	DAT_EVENT ev;

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	DC_ASSERT_RET(dat_evd_dequeue(evd, &ev), DAT_QUEUE_EMPTY);
	DC_ASSERT_UNCHANGED(&s);
	post(evd, TAG(1));
	EXPECT_SW(evd, TAG(1));
	DC_ASSERT_RET(dat_evd_dequeue(evd, &ev), DAT_QUEUE_EMPTY);
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_evd_dequeue, refused_while_waiter,
	.summary = "dequeue while another thread waits on the EVD gives DAT_INVALID_STATE and takes nothing")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_waiter *w;
	DAT_EVENT ev;
	DAT_RETURN r;

	post(evd, TAG(1));
	w = dc_evd_waiter(t, evd, DAT_TIMEOUT_INFINITE, 2);
	DC_ASSERT_BLOCKS(w);
	memset(&ev, 0, sizeof(ev));
	r = dat_evd_dequeue(evd, &ev);
	note_ret(t, "dat_evd_dequeue while a thread waits", r);
	DC_ASSERT(r != DAT_SUCCESS,
		  "dat_evd_dequeue took event %p while another thread was blocked in dat_evd_wait",
		  ev.event_data.software_event_data.pointer);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	/* the queued event is still there: the waiter gets it at threshold 2 */
	post(evd, TAG(2));
	EXPECT_EVD_WOKEN(w, TAG(1), "the second post (threshold 2)");
	EXPECT_SW(evd, TAG(2));
}

/* Clause: dat_evd_dequeue refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_EVENT ev;
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_dequeue(bad[i], &ev);
		snprintf(what, sizeof(what), "dat_evd_dequeue(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_dequeue, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_dequeue, invalid_handle_freed,
	.clauses = "dat_evd_dequeue.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}

/* Checks that seen[][] holds TAG(0) .. TAG(n - 1) exactly once overall. */
static void assert_exactly_once(struct dc_ctx *t, struct hammer *h, int nh, int n)
{
	static unsigned char count[4096];
	int total = 0;

	DC_SETUP_ASSERT(n <= (int)sizeof(count), "case bug: too many events");
	memset(count, 0, sizeof(count));
	for (int i = 0; i < nh; i++) {
		for (int k = 0; k < h[i].taken; k++) {
			uintptr_t v = (uintptr_t)h[i].seen[k] - (uintptr_t)TAG(0);

			DC_ASSERT(v < (uintptr_t)n,
				  "thread %d dequeued %p, which was never posted",
				  i, h[i].seen[k]);
			DC_ASSERT(count[v] == 0,
				  "event %p was delivered twice (thread %d got it again)",
				  h[i].seen[k], i);
			count[v]++;
		}
		total += h[i].taken;
	}
	DC_ASSERT(total == n, "%d of %d events were delivered; the rest were lost",
		  total, n);
}

DC_CASE(dat_evd_dequeue, exactly_once,
	.summary = "4 threads dequeueing one EVD get every event exactly once")
{
	enum { NMAX = 2000, NT = 4 };
	static DAT_PVOID seen[NT][NMAX];
	int N = NMAX;
	DAT_EVD_HANDLE evd = evd_for_n(2048, &N);
	struct hammer h[NT];
	struct dc_gate g;

	post_n(evd, 0, N);
	dc_gate_init(&g, NT);
	memset(h, 0, sizeof(h));
	for (int i = 0; i < NT; i++) {
		h[i].g = &g;
		h[i].evd = evd;
		h[i].op = H_DEQUEUE;
		h[i].seen = seen[i];
		h[i].seen_cap = N;
	}
	dc_run_threads(NT, hammer_main_, h);
	ASSERT_HAMMERS(h, NT);
	for (int i = 0; i < NT; i++)
		dc_note(t, "thread %d took %d events", i, h[i].taken);
	assert_exactly_once(t, h, NT, N);
	DC_ASSERT_NO_EVENT(evd);
}

/* Serialized dequeuers: one lock around dequeue + append. */
struct serial {
	pthread_mutex_t *mu;
	struct dc_gate *g;
	DAT_EVD_HANDLE evd;
	DAT_PVOID *list;
	int *len, cap;
	DAT_RETURN bad;
};

static void *serial_main(void *arg)
{
	struct serial *s = arg;
	DAT_EVENT ev;
	DAT_RETURN r;

	s->bad = DAT_SUCCESS;
	dc_gate_pass(s->g);
	for (;;) {
		pthread_mutex_lock(s->mu);
		r = dat_evd_dequeue(s->evd, &ev);
		if (r == DAT_SUCCESS && *s->len < s->cap)
			s->list[(*s->len)++] = ev.event_data.software_event_data.pointer;
		pthread_mutex_unlock(s->mu);
		if (r != DAT_SUCCESS) {
			if (!dc_ret_is(r, DAT_QUEUE_EMPTY, DC_ANY_SUBTYPE))
				s->bad = r;
			return NULL;
		}
		sched_yield();	/* let the other contexts in between */
	}
}

DC_CASE(dat_evd_dequeue, serialized_order_kept,
	.summary = "dequeues serialized by a lock across 3 threads keep the posting order")
{
	enum { NMAX = 1000, NT = 3 };
	static DAT_PVOID list[NMAX];
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	int N = NMAX;
	DAT_EVD_HANDLE evd = evd_for_n(1024, &N);
	struct serial s[NT];
	struct dc_gate g;
	int len = 0;

	post_n(evd, 0, N);
	dc_gate_init(&g, NT);
	for (int i = 0; i < NT; i++)
		s[i] = (struct serial){ .mu = &mu, .g = &g, .evd = evd,
					.list = list, .len = &len, .cap = N };
	dc_run_threads(NT, serial_main, s);
	for (int i = 0; i < NT; i++)
		DC_ASSERT(s[i].bad == DAT_SUCCESS,
			  "thread %d: dat_evd_dequeue returned %s", i, dc_ret_text(s[i].bad));
	DC_ASSERT_EQ(len, N);
	for (int i = 0; i < N; i++)
		DC_ASSERT(list[i] == TAG(i),
			  "serialized dequeue %d returned %p, expected %p (order lost)",
			  i, list[i], TAG(i));
}

DC_CASE(dat_evd_dequeue, mt_safe,
	.summary = "dequeues run safely alongside enable/disable and set/clear_unwaitable on other threads")
{
	enum { NMAX = 2000, NT = 4 };
	static DAT_PVOID seen[2][NMAX];
	int N = NMAX;
	DAT_EVD_HANDLE evd = evd_for_n(2048, &N);
	struct hammer h[NT];
	struct dc_gate g;
	DAT_EVD_PARAM p;

	post_n(evd, 0, N);
	dc_gate_init(&g, NT);
	memset(h, 0, sizeof(h));
	for (int i = 0; i < NT; i++) {
		h[i].g = &g;
		h[i].evd = evd;
		h[i].n = 1000;
	}
	h[0].op = h[1].op = H_DEQUEUE;
	h[0].seen = seen[0];
	h[1].seen = seen[1];
	h[0].seen_cap = h[1].seen_cap = N;
	h[2].op = H_DISABLE_ENABLE;
	h[3].op = H_UNWAIT_TOGGLE;
	dc_run_threads(NT, hammer_main_, h);
	ASSERT_HAMMERS(h, NT);
	assert_exactly_once(t, h, 2, N);
	p = DC_EVD_PARAM(evd);
	DC_ASSERT(EVD_ENABLED(p.evd_state) && EVD_WAITABLE(p.evd_state),
		  "after the threads ended (last calls: enable, clear_unwaitable) the state is 0x%x",
		  (unsigned int)p.evd_state);
}
