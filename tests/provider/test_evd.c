// SPDX-License-Identifier: MIT
/*
 * EVD internals: ring order, overflow reporting, resize keeping events,
 * threshold wake-up, notification vs non-notification events, waiter
 * exclusivity, unwaitable, interrupted waits, abort on free.
 */
#include "tp.h"
#include "conn.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>

static struct ref_ia *ia;
static DAT_EVD_HANDLE async;

static DAT_EVD_HANDLE mk_evd(DAT_COUNT qlen, DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	CHECK_OK(ref_evd_create(ia, qlen, DAT_HANDLE_NULL, flags, &evd));
	return evd;
}

static void post(DAT_EVD_HANDLE evd, uintptr_t v)
{
	DAT_EVENT ev = tp_se((void *)v);

	CHECK_OK(ref_evd_post_se(evd, &ev));
}

static uintptr_t take(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	CHECK_OK(ref_evd_dequeue(evd, &ev));
	CHECK(ev.evd_handle == evd);
	CHECK(ev.event_number == DAT_SOFTWARE_EVENT);
	return (uintptr_t)ev.event_data.software_event_data.pointer;
}

static void test_create_params(void)
{
	DAT_EVD_HANDLE evd;
	DAT_EVD_PARAM p;
	int local;

	CHECK_RC_SUB(ref_evd_create(ia, 0, NULL, DAT_EVD_SOFTWARE_FLAG, &evd),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_evd_create(ia, REF_MAX_EVD_QLEN + 1, NULL,
				    DAT_EVD_SOFTWARE_FLAG, &evd),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_evd_create(ia, 4, NULL, 0, &evd),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	CHECK_RC_SUB(ref_evd_create(ia, 4, NULL, 0x1000, &evd),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	CHECK_RC_SUB(ref_evd_create(ia, 4, NULL, DAT_EVD_SOFTWARE_FLAG, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	CHECK_RC_SUB(ref_evd_create(&local, 4, NULL, DAT_EVD_SOFTWARE_FLAG,
				    &evd),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	CHECK_RC_SUB(ref_evd_create(ia, 4, &local, DAT_EVD_SOFTWARE_FLAG, &evd),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);

	evd = mk_evd(7, DAT_EVD_SOFTWARE_FLAG | DAT_EVD_DTO_FLAG);
	CHECK_OK(ref_evd_query(evd, DAT_EVD_FIELD_ALL, &p));
	CHECK(p.ia_handle == (DAT_IA_HANDLE)ia);
	CHECK(p.evd_qlen == 7);
	CHECK(p.cno_handle == DAT_HANDLE_NULL);
	CHECK(p.evd_flags == (DAT_EVD_SOFTWARE_FLAG | DAT_EVD_DTO_FLAG));
	CHECK(p.evd_state & DAT_EVD_STATE_ENABLED);
	CHECK(p.evd_state & DAT_EVD_STATE_WAITABLE);
	CHECK_RC_SUB(ref_evd_query(evd, 0x100, &p), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_evd_query(evd, DAT_EVD_FIELD_ALL, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	CHECK_OK(ref_evd_disable(evd));
	CHECK_OK(ref_evd_disable(evd));	/* no-op */
	CHECK_OK(ref_evd_set_unwaitable(evd));
	CHECK_OK(ref_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &p));
	CHECK(p.evd_state & DAT_EVD_STATE_DISABLED);
	CHECK(p.evd_state & DAT_EVD_STATE_UNWAITABLE);
	CHECK_OK(ref_evd_free(evd));
	CHECK_RC(ref_evd_free(evd), DAT_INVALID_HANDLE);
	CHECK_RC(ref_evd_query(evd, DAT_EVD_FIELD_ALL, &p), DAT_INVALID_HANDLE);
}

static void test_order_and_full(void)
{
	DAT_EVD_HANDLE evd = mk_evd(4, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVENT ev = tp_se(NULL), out;
	uintptr_t i;

	CHECK_RC(ref_evd_dequeue(evd, &out), DAT_QUEUE_EMPTY);
	CHECK_RC_SUB(ref_evd_dequeue(evd, NULL), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	/* wrap the ring a few times */
	for (i = 1; i <= 10; i++) {
		post(evd, i);
		post(evd, i + 100);
		CHECK(take(evd) == i);
		CHECK(take(evd) == i + 100);
	}
	for (i = 1; i <= 4; i++)
		post(evd, i);
	CHECK_RC(ref_evd_post_se(evd, &ev), DAT_QUEUE_FULL);
	for (i = 1; i <= 4; i++)
		CHECK(take(evd) == i);
	CHECK_RC(ref_evd_dequeue(evd, &out), DAT_QUEUE_EMPTY);
	/* a full post_se is not an overflow: nothing on the async EVD */
	CHECK_RC(ref_evd_dequeue(async, &out), DAT_QUEUE_EMPTY);

	CHECK_RC_SUB(ref_evd_post_se(evd, NULL), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	ev.event_number = DAT_DTO_COMPLETION_EVENT;
	CHECK_RC_SUB(ref_evd_post_se(evd, &ev), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_OK(ref_evd_free(evd));

	/* no software stream: post_se refused */
	evd = mk_evd(4, DAT_EVD_DTO_FLAG);
	ev = tp_se(NULL);
	CHECK_RC(ref_evd_post_se(evd, &ev), DAT_INVALID_PARAMETER);
	CHECK_OK(ref_evd_free(evd));
}

static void test_overflow(void)
{
	DAT_EVD_HANDLE evd = mk_evd(2, DAT_EVD_SOFTWARE_FLAG);
	struct ref_evd *e = evd;
	DAT_EVENT ev = tp_se((void *)7), out;

	ref_ia_lock(ia);
	CHECK(ref_evd_post(e, &ev));
	CHECK(ref_evd_post(e, &ev));
	CHECK(!ref_evd_post(e, &ev));
	CHECK(!ref_evd_post(e, &ev));	/* same episode: reported once */
	ref_ia_unlock(ia);
	CHECK_OK(ref_evd_dequeue(async, &out));
	CHECK(out.event_number == DAT_ASYNC_ERROR_EVD_OVERFLOW);
	CHECK(out.evd_handle == async);
	CHECK(out.event_data.asynch_error_event_data.dat_handle == evd);
	CHECK(out.event_data.asynch_error_event_data.reason ==
	      DAT_EVD_OVERFLOW_ERROR);
	CHECK_RC(ref_evd_dequeue(async, &out), DAT_QUEUE_EMPTY);
	/* the queued events survived */
	CHECK(take(evd) == 7);
	ref_ia_lock(ia);
	CHECK(ref_evd_post(e, &ev));
	CHECK(!ref_evd_post(e, &ev));	/* a new episode */
	ref_ia_unlock(ia);
	CHECK_OK(ref_evd_dequeue(async, &out));
	CHECK(out.event_number == DAT_ASYNC_ERROR_EVD_OVERFLOW);
	CHECK_OK(ref_evd_free(evd));
}

static void test_resize(void)
{
	DAT_EVD_HANDLE evd = mk_evd(4, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_PARAM p;
	uintptr_t i;

	post(evd, 1);
	CHECK(take(evd) == 1);		/* head no longer at slot 0 */
	for (i = 2; i <= 5; i++)
		post(evd, i);		/* wraps */
	CHECK_RC(ref_evd_resize(evd, 3), DAT_INVALID_STATE);
	CHECK_RC_SUB(ref_evd_resize(evd, 0), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_evd_resize(evd, -5), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_OK(ref_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
	CHECK(p.evd_qlen == 4);
	CHECK_OK(ref_evd_resize(evd, 9));
	CHECK_OK(ref_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
	CHECK(p.evd_qlen == 9);
	post(evd, 6);
	for (i = 2; i <= 6; i++)
		CHECK(take(evd) == i);
	post(evd, 7);
	CHECK_OK(ref_evd_resize(evd, 1));	/* exactly the queued count */
	CHECK(take(evd) == 7);
	CHECK_OK(ref_evd_free(evd));
}

struct waiter_arg {
	DAT_EVD_HANDLE evd;
	DAT_TIMEOUT timeout;
	DAT_COUNT threshold;
	DAT_RETURN rc;
	DAT_EVENT ev;
	DAT_COUNT nmore;
};

static void *waiter(void *p)
{
	struct waiter_arg *a = p;

	a->nmore = -1;
	a->rc = ref_evd_wait(a->evd, a->timeout, a->threshold, &a->ev,
			     &a->nmore);
	return NULL;
}

/* Spins (briefly) until a thread blocks in dat_evd_wait on @evd. */
static void until_waiting(struct ref_evd *e)
{
	int i, n;

	for (i = 0; i < 5000; i++) {
		ref_ia_lock(ia);
		n = e->waiters;
		ref_ia_unlock(ia);
		if (n)
			return;
		tp_sleep_ms(1);
	}
	CHECK(!"waiter never blocked");
}

static void test_wait_basics(void)
{
	DAT_EVD_HANDLE evd = mk_evd(4, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVENT ev;
	DAT_COUNT nmore = -1;

	CHECK_RC_SUB(ref_evd_wait(evd, 0, 0, &ev, &nmore),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	CHECK_RC_SUB(ref_evd_wait(evd, 0, 5, &ev, &nmore),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	CHECK_RC_SUB(ref_evd_wait(evd, 0, 1, NULL, &nmore),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	CHECK_RC_SUB(ref_evd_wait(evd, 0, 1, &ev, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	CHECK_RC(ref_evd_wait(evd, 0, 1, &ev, &nmore), DAT_TIMEOUT_EXPIRED);
	CHECK(nmore == 0);
	post(evd, 1);
	post(evd, 2);
	post(evd, 3);
	CHECK_OK(ref_evd_wait(evd, DAT_TIMEOUT_INFINITE, 3, &ev, &nmore));
	CHECK(ev.event_data.software_event_data.pointer == (void *)1);
	CHECK(nmore == 2);
	CHECK_RC(ref_evd_wait(evd, 20000, 3, &ev, &nmore),
		 DAT_TIMEOUT_EXPIRED);	/* 20 ms, two queued */
	CHECK(nmore == 2);
	CHECK_OK(ref_evd_wait(evd, 0, 2, &ev, &nmore));
	CHECK(ev.event_data.software_event_data.pointer == (void *)2);
	CHECK(nmore == 1);
	/* unwaitable: waits refused, dequeue still works */
	CHECK_OK(ref_evd_set_unwaitable(evd));
	CHECK_RC_SUB(ref_evd_wait(evd, 0, 1, &ev, &nmore), DAT_INVALID_STATE,
		     DAT_INVALID_STATE_EVD_UNWAITABLE);
	CHECK(take(evd) == 3);
	CHECK_OK(ref_evd_clear_unwaitable(evd));
	post(evd, 4);
	CHECK_OK(ref_evd_wait(evd, 0, 1, &ev, &nmore));
	CHECK(nmore == 0);
	CHECK_OK(ref_evd_free(evd));
}

static void test_threshold_wakeup(void)
{
	DAT_EVD_HANDLE evd = mk_evd(8, DAT_EVD_SOFTWARE_FLAG);
	struct ref_evd *e = evd;
	struct waiter_arg a = { evd, DAT_TIMEOUT_INFINITE, 3, 0, {0}, 0 };
	DAT_EVENT ev = tp_se((void *)9), out;
	DAT_COUNT nmore;
	pthread_t t;

	pthread_create(&t, NULL, waiter, &a);
	until_waiting(e);
	/* exclusive: a second waiter and a dequeue are refused */
	CHECK_RC_SUB(ref_evd_wait(evd, 0, 1, &out, &nmore), DAT_INVALID_STATE,
		     DAT_INVALID_STATE_EVD_WAITER);
	CHECK_RC_SUB(ref_evd_dequeue(evd, &out), DAT_INVALID_STATE,
		     DAT_INVALID_STATE_EVD_WAITER);
	post(evd, 1);
	post(evd, 2);
	/* non-notification events do not wake it, even past the threshold */
	ref_ia_lock(ia);
	CHECK(ref_evd_post_ex(e, &ev, NULL, false));
	CHECK(ref_evd_post_ex(e, &ev, NULL, false));
	ref_ia_unlock(ia);
	tp_sleep_ms(30);
	ref_ia_lock(ia);
	CHECK(e->waiters == 1 && e->count == 4);
	ref_ia_unlock(ia);
	post(evd, 3);			/* a notification: wakes it */
	pthread_join(t, NULL);
	CHECK_OK(a.rc);
	CHECK(a.ev.event_data.software_event_data.pointer == (void *)1);
	CHECK(a.nmore == 4);
	CHECK(take(evd) == 2);
	CHECK(take(evd) == 9);
	CHECK(take(evd) == 9);
	CHECK(take(evd) == 3);

	/* a quiet event meets the threshold: returned at the timeout */
	a.timeout = 30000;
	a.threshold = 1;
	pthread_create(&t, NULL, waiter, &a);
	until_waiting(e);
	ref_ia_lock(ia);
	CHECK(ref_evd_post_ex(e, &ev, NULL, false));
	ref_ia_unlock(ia);
	pthread_join(t, NULL);
	CHECK_OK(a.rc);
	CHECK(a.nmore == 0);

	/* timeout below threshold: DAT_TIMEOUT_EXPIRED with nmore */
	post(evd, 5);
	a.timeout = 20000;
	a.threshold = 2;
	pthread_create(&t, NULL, waiter, &a);
	pthread_join(t, NULL);
	CHECK_RC(a.rc, DAT_TIMEOUT_EXPIRED);
	CHECK(a.nmore == 1);
	CHECK(take(evd) == 5);
	CHECK_OK(ref_evd_free(evd));
}

static void test_unwaitable_wakes(void)
{
	DAT_EVD_HANDLE evd = mk_evd(4, DAT_EVD_SOFTWARE_FLAG);
	struct waiter_arg a = { evd, DAT_TIMEOUT_INFINITE, 1, 0, {0}, 0 };
	pthread_t t;

	pthread_create(&t, NULL, waiter, &a);
	until_waiting(evd);
	CHECK_OK(ref_evd_set_unwaitable(evd));
	pthread_join(t, NULL);
	CHECK_RC_SUB(a.rc, DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE);
	CHECK_OK(ref_evd_free(evd));
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void test_interrupted(void)
{
	DAT_EVD_HANDLE evd = mk_evd(4, DAT_EVD_SOFTWARE_FLAG);
	struct waiter_arg a = { evd, DAT_TIMEOUT_INFINITE, 1, 0, {0}, 0 };
	struct sigaction sa;
	pthread_t t;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t, NULL, waiter, &a);
	until_waiting(evd);
	for (i = 0; i < 1000; i++) {
		bool waiting;

		pthread_kill(t, SIGUSR1);
		tp_sleep_ms(2);
		ref_ia_lock(ia);
		waiting = ((struct ref_evd *)evd)->waiters > 0;
		ref_ia_unlock(ia);
		if (!waiting)
			break;
	}
	pthread_join(t, NULL);
	CHECK_RC(a.rc, DAT_INTERRUPTED_CALL);
	CHECK(a.nmore == 0);
	signal(SIGUSR1, SIG_DFL);
	CHECK_OK(ref_evd_free(evd));
}

static void test_free(void)
{
	DAT_EVD_HANDLE evd = mk_evd(4, DAT_EVD_SOFTWARE_FLAG);
	struct ref_evd *e = evd;
	struct waiter_arg a = { evd, DAT_TIMEOUT_INFINITE, 1, 0, {0}, 0 };
	pthread_t t;

	/* in use: refused, nothing changes */
	ref_ia_lock(ia);
	e->users++;
	ref_ia_unlock(ia);
	post(evd, 1);
	CHECK_RC_SUB(ref_evd_free(evd), DAT_INVALID_STATE,
		     DAT_INVALID_STATE_EVD_IN_USE);
	CHECK(take(evd) == 1);
	ref_ia_lock(ia);
	e->users--;
	ref_ia_unlock(ia);
	/* the async EVD is in use by its IA */
	CHECK_RC_SUB(ref_evd_free(async), DAT_INVALID_STATE,
		     DAT_INVALID_STATE_EVD_IN_USE);

	/* a blocked waiter is aborted */
	pthread_create(&t, NULL, waiter, &a);
	until_waiting(e);
	CHECK_OK(ref_evd_free(evd));
	pthread_join(t, NULL);
	CHECK_RC(a.rc, DAT_ABORT);
	CHECK_RC(ref_evd_dequeue(evd, &a.ev), DAT_INVALID_HANDLE);
}

static void test_cno_rules(void)
{
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE evd, got;
	struct waiter_arg a;
	pthread_t t;

	CHECK_OK(ref_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	CHECK_OK(ref_evd_create(ia, 4, cno, DAT_EVD_SOFTWARE_FLAG, &evd));
	/* disabled: no notification */
	CHECK_OK(ref_evd_disable(evd));
	post(evd, 1);
	CHECK_RC(ref_cno_wait(cno, 0, &got), DAT_QUEUE_EMPTY);
	CHECK(got == DAT_HANDLE_NULL);
	CHECK_OK(ref_evd_enable(evd));
	post(evd, 2);
	CHECK_OK(ref_cno_wait(cno, 0, &got));
	CHECK(got == evd);
	CHECK(take(evd) == 1 && take(evd) == 2);
	/* a direct waiter preempts the CNO */
	memset(&a, 0, sizeof(a));
	a.evd = evd;
	a.timeout = DAT_TIMEOUT_INFINITE;
	a.threshold = 2;
	pthread_create(&t, NULL, waiter, &a);
	until_waiting(evd);
	post(evd, 3);
	post(evd, 4);
	pthread_join(t, NULL);
	CHECK_OK(a.rc);
	CHECK_RC(ref_cno_wait(cno, 0, &got), DAT_QUEUE_EMPTY);
	CHECK(take(evd) == 4);
	/* unwaitable EVDs still notify the CNO */
	CHECK_OK(ref_evd_set_unwaitable(evd));
	post(evd, 5);
	CHECK_OK(ref_cno_wait(cno, 0, &got));
	CHECK(got == evd);
	CHECK_RC(ref_cno_free(cno), DAT_INVALID_STATE);
	CHECK_OK(ref_evd_free(evd));
	CHECK_OK(ref_cno_free(cno));
}

/* Concurrent waiters (one per EVD), posters and object churn. */
enum { NEVD = 4, NEV = 300 };

struct conc {
	DAT_EVD_HANDLE evd;
	int got;
	uintptr_t last;
	bool ordered;
};

static void *conc_waiter(void *p)
{
	struct conc *c = p;
	DAT_EVENT ev;
	DAT_COUNT n;

	c->ordered = true;
	while (c->got < NEV) {
		DAT_RETURN rc = ref_evd_wait(c->evd, 5000000, 1, &ev, &n);

		if (rc != DAT_SUCCESS) {
			CHECK_OK(rc);
			break;
		}
		if ((uintptr_t)ev.event_data.software_event_data.pointer !=
		    c->last + 1)
			c->ordered = false;
		c->last++;
		c->got++;
	}
	return NULL;
}

static void *conc_poster(void *p)
{
	struct conc *c = p;
	DAT_EVENT ev;
	uintptr_t i;

	for (i = 1; i <= NEV; i++) {
		ev = tp_se((void *)i);
		while (DAT_GET_TYPE(ref_evd_post_se(c->evd, &ev)) ==
		       DAT_QUEUE_FULL)
			sched_yield();
	}
	return NULL;
}

static void *conc_churn(void *p)
{
	DAT_PZ_HANDLE pz;
	DAT_CNO_HANDLE cno;
	int i;

	(void)p;
	for (i = 0; i < 200; i++) {
		CHECK_OK(ref_pz_create(ia, &pz));
		CHECK_OK(ref_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
		CHECK_OK(ref_pz_free(pz));
		CHECK_OK(ref_cno_free(cno));
	}
	return NULL;
}

static void test_concurrent(void)
{
	struct conc c[NEVD];
	pthread_t w[NEVD], p[NEVD], ch[2];
	int i;

	for (i = 0; i < NEVD; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].evd = mk_evd(8, DAT_EVD_SOFTWARE_FLAG);
		pthread_create(&w[i], NULL, conc_waiter, &c[i]);
		pthread_create(&p[i], NULL, conc_poster, &c[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_create(&ch[i], NULL, conc_churn, NULL);
	for (i = 0; i < NEVD; i++) {
		pthread_join(w[i], NULL);
		pthread_join(p[i], NULL);
		CHECK(c[i].got == NEV && c[i].ordered);
		CHECK_OK(ref_evd_free(c[i].evd));
	}
	for (i = 0; i < 2; i++)
		pthread_join(ch[i], NULL);
}

int main(void)
{
	ia = tp_open(&async);
	test_create_params();
	test_order_and_full();
	test_overflow();
	test_resize();
	test_wait_basics();
	test_threshold_wakeup();
	test_unwaitable_wakes();
	test_interrupted();
	test_free();
	test_cno_rules();
	test_concurrent();
	CHECK_OK(ref_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return tp_done("provider.evd");
}
