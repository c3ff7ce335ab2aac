// SPDX-License-Identifier: MIT
/*
 * CNO internals: pending triggers, the one-shot OS Wait Proxy Agent
 * (invoked without the IA lock: it may call back into the provider),
 * timeouts, blocked waiters, release when the last EVD is freed.
 */
#include "tp.h"

#include <pthread.h>

static struct ref_ia *ia;

static int agent_calls;
static DAT_EVD_HANDLE agent_evd;
static DAT_RETURN agent_dequeue_rc;

static void agent(DAT_PVOID data, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	agent_calls++;
	agent_evd = evd;
	CHECK(data == (void *)&agent_calls);
	/* calling back into the provider must not deadlock */
	if (evd)
		agent_dequeue_rc = ref_evd_dequeue(evd, &ev);
}

static void post(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev = tp_se(NULL);

	CHECK_OK(ref_evd_post_se(evd, &ev));
}

static void drain(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	while (ref_evd_dequeue(evd, &ev) == DAT_SUCCESS)
		;
}

struct cw {
	DAT_CNO_HANDLE cno;
	DAT_TIMEOUT timeout;
	DAT_RETURN rc;
	DAT_EVD_HANDLE evd;
};

static void *cno_waiter(void *p)
{
	struct cw *a = p;

	a->evd = (DAT_EVD_HANDLE)0x1;
	a->rc = ref_cno_wait(a->cno, a->timeout, &a->evd);
	return NULL;
}

static void until_cno_waiting(struct ref_cno *c)
{
	int i, n;

	for (i = 0; i < 5000; i++) {
		ref_ia_lock(ia);
		n = c->waiters;
		ref_ia_unlock(ia);
		if (n)
			return;
		tp_sleep_ms(1);
	}
	CHECK(!"CNO waiter never blocked");
}

int main(void)
{
	DAT_OS_WAIT_PROXY_AGENT ag = { &agent_calls, agent }, bad = { &ag, NULL };
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE evd, evd2, got;
	DAT_CNO_PARAM cp;
	DAT_EVD_PARAM ep;
	struct cw a;
	pthread_t t;

	ia = tp_open(NULL);
	CHECK_RC_SUB(ref_cno_create(ia, bad, &cno), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_cno_create(ia, ag, NULL), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG3);
	CHECK_OK(ref_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	CHECK_OK(ref_cno_query(cno, DAT_CNO_FIELD_ALL, &cp));
	CHECK(cp.ia_handle == (DAT_IA_HANDLE)ia);
	CHECK(cp.agent.proxy_agent_func == NULL);
	CHECK_RC_SUB(ref_cno_query(cno, 4, &cp), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_cno_query(cno, DAT_CNO_FIELD_ALL, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	CHECK_RC_SUB(ref_cno_wait(cno, 0, NULL), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG3);
	got = (DAT_EVD_HANDLE)0x1;
	CHECK_RC(ref_cno_wait(cno, 10000, &got), DAT_QUEUE_EMPTY);
	CHECK(got == DAT_HANDLE_NULL);

	/* pending trigger, consumed once */
	CHECK_OK(ref_evd_create(ia, 8, cno, DAT_EVD_SOFTWARE_FLAG, &evd));
	CHECK_OK(ref_evd_query(evd, DAT_EVD_FIELD_CNO, &ep));
	CHECK(ep.cno_handle == cno);
	post(evd);
	CHECK_OK(ref_cno_wait(cno, 0, &got));
	CHECK(got == evd);
	CHECK_RC(ref_cno_wait(cno, 0, &got), DAT_QUEUE_EMPTY);

	/* agent: invoked once, then no longer associated */
	CHECK_RC_SUB(ref_cno_modify_agent(cno, bad), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_OK(ref_cno_modify_agent(cno, ag));
	CHECK_OK(ref_cno_query(cno, DAT_CNO_FIELD_AGENT, &cp));
	CHECK(cp.agent.proxy_agent_func == agent);
	post(evd);	/* queue holds 2 now */
	CHECK(agent_calls == 1);
	CHECK(agent_evd == evd);
	CHECK_OK(agent_dequeue_rc);
	CHECK_OK(ref_cno_query(cno, DAT_CNO_FIELD_AGENT, &cp));
	CHECK(cp.agent.proxy_agent_func == NULL);
	post(evd);
	CHECK(agent_calls == 1);
	CHECK_OK(ref_cno_modify_agent(cno, ag));
	CHECK_OK(ref_cno_modify_agent(cno, DAT_OS_WAIT_PROXY_AGENT_NULL));
	post(evd);
	CHECK(agent_calls == 1);
	CHECK_OK(ref_cno_wait(cno, 0, &got));	/* pending from the posts */
	drain(evd);

	/* a blocked waiter gets the EVD that fired */
	a.cno = cno;
	a.timeout = DAT_TIMEOUT_INFINITE;
	pthread_create(&t, NULL, cno_waiter, &a);
	until_cno_waiting(cno);
	CHECK_RC_SUB(ref_cno_free(cno), DAT_INVALID_STATE,
		     DAT_INVALID_STATE_CNO_IN_USE);
	post(evd);
	pthread_join(t, NULL);
	CHECK_OK(a.rc);
	CHECK(a.evd == evd);

	/* moving the EVD away: no notification reaches the old CNO */
	CHECK_OK(ref_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG,
				&evd2));
	CHECK_OK(ref_evd_modify_cno(evd2, cno));
	CHECK_OK(ref_evd_modify_cno(evd, DAT_HANDLE_NULL));
	post(evd);
	CHECK_RC(ref_cno_wait(cno, 0, &got), DAT_QUEUE_EMPTY);
	CHECK_RC_SUB(ref_evd_modify_cno(evd, ia), DAT_INVALID_HANDLE,
		     DAT_INVALID_HANDLE_CNO);

	/* freeing its last EVD releases the waiter with a NULL EVD */
	a.timeout = DAT_TIMEOUT_INFINITE;
	pthread_create(&t, NULL, cno_waiter, &a);
	until_cno_waiting(cno);
	CHECK_OK(ref_evd_free(evd2));
	pthread_join(t, NULL);
	CHECK_OK(a.rc);
	CHECK(a.evd == DAT_HANDLE_NULL);

	CHECK_OK(ref_cno_free(cno));
	CHECK_RC(ref_cno_free(cno), DAT_INVALID_HANDLE);
	CHECK_OK(ref_evd_free(evd));

	/* abrupt close: CNO waiter and agent see NULL */
	CHECK_OK(ref_cno_create(ia, ag, &cno));
	a.cno = cno;
	pthread_create(&t, NULL, cno_waiter, &a);
	until_cno_waiting(cno);
	agent_calls = 0;
	CHECK_OK(ref_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	pthread_join(t, NULL);
	CHECK_OK(a.rc);
	CHECK(a.evd == DAT_HANDLE_NULL);
	CHECK(agent_calls == 1 && agent_evd == DAT_HANDLE_NULL);
	return tp_done("provider.cno");
}
