/* SPDX-License-Identifier: MIT */
/*
 * Finding abrupt-close-asserts (docs/certification/ofa-dapl-2.1.10/):
 * an abrupt dat_ia_close of an IA that holds an object the Consumer could not
 * free at that moment, each in a part of its own (repro_parts):
 *   cno: a CNO with threads blocked in dat_cno_wait on it;
 *   rsp: an RSP that has received a connection request (its EP Passive
 *        Connection Pending; this part needs an IA that connects to itself).
 * dat_ia_close(3DAT) DESCRIPTION: the abrupt close destroys every object of
 * the IA, CNOs, EPs and Service Points included, whatever their state; USAGE:
 * it completes successfully under all conditions. dat_cno_wait(3DAT)
 * DESCRIPTION: the IA's destruction releases the CNO's waiters.
 */
#include "repro.h"

#define QUAL 62011

static enum repro_answer closed(DAT_IA_HANDLE ia, const char *what)
{
	DAT_RETURN r;

	printf("%s; closing the IA abruptly\n", what);
	fflush(stdout);
	r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "the abrupt close returned %s", REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "the abrupt close succeeded");
}

static DAT_RETURN wait_on_cno(DAT_HANDLE cno)
{
	DAT_EVD_HANDLE evd;

	return dat_cno_wait(cno, DAT_TIMEOUT_INFINITE, &evd);
}

/* Four waiters: the close wakes them before it frees the CNO, and the free is refused only
 * while one of them has not left the wait yet (with one waiter the close sometimes wins). */
#define WAITERS 4

static enum repro_answer cno_waited_on(DAT_IA_HANDLE ia)
{
	static struct repro_waiter w[WAITERS];
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE evd;
	enum repro_answer a;
	DAT_RETURN r;

	if ((r = repro_cno_evd(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno, &evd)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the CNO and its EVD failed: %s",
				 REPRO_RET(r));
	for (int i = 0; i < WAITERS; i++) {
		w[i] = (struct repro_waiter){ .wait = wait_on_cno, .handle = cno };
		if (!repro_waiter_start(&w[i]))
			return repro_say(REPRO_CANNOT, "waiter %d did not block in dat_cno_wait", i);
	}
	a = closed(ia, "four threads are blocked in dat_cno_wait on the IA's CNO");
	if (a == REPRO_ABSENT && !repro_waiters_return(w, WAITERS, 3000))
		return repro_say(REPRO_SHOWS, "the abrupt close succeeded but left a thread "
				 "in dat_cno_wait for 3 s");
	return a;
}

static enum repro_answer rsp_with_request(DAT_IA_HANDLE ia)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_EVD_HANDLE conn, active_conn, cr_evd;
	DAT_EP_HANDLE ep, active;
	DAT_RSP_HANDLE rsp;
	DAT_EVENT event;
	DAT_COUNT nmore;
	DAT_EP_STATE state;
	DAT_BOOLEAN idle;
	DAT_RETURN r;
	char what[128];

	if (!self || (r = repro_ep(ia, &ep, &conn)) != DAT_SUCCESS ||
	    (r = repro_ep(ia, &active, &active_conn)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the EPs failed");
	if ((r = dat_rsp_create(ia, QUAL, ep, cr_evd, &rsp)) != DAT_SUCCESS ||
	    (r = dat_ep_connect(active, self, QUAL, 2000000, 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_rsp_create or dat_ep_connect returned %s",
				 REPRO_RET(r));
	r = dat_evd_wait(cr_evd, 5000000, 1, &event, &nmore);
	if (r != DAT_SUCCESS || event.event_number != DAT_CONNECTION_REQUEST_EVENT)
		return repro_say(REPRO_CANNOT, "no connection request reached the RSP: %s",
				 REPRO_RET(r));
	dat_ep_get_status(ep, &state, &idle, &idle);
	snprintf(what, sizeof(what), "the RSP's EP is in state %d "
		 "(DAT_EP_STATE_PASSIVE_CONNECTION_PENDING is %d)", (int)state,
		 (int)DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
	return closed(ia, what);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const struct repro_part parts[] = {
		{ "cno", cno_waited_on },
		{ "rsp", rsp_with_request },
	};

	return repro_parts(ia, parts, 2);
}

REPRO_MAIN(.finding = "abrupt-close-asserts", .body = body, .timeout_s = 60,
	   .if_crash = "the abrupt close killed the process")
