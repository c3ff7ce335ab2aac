/* SPDX-License-Identifier: MIT */
/*
 * Finding evd-free-waiter-hang (docs/certification/ofa-dapl-2.1.10/): an EVD
 * destroyed while a thread is blocked in dat_evd_wait on it, first by
 * dat_evd_free, then (if that returns) by an abrupt dat_ia_close.
 * dat_evd_wait(3DAT) RETURN VALUES: the wait ends with DAT_ABORT when the EVD
 * is destroyed or the IA closed; dat_ia_close(3DAT) DESCRIPTION and USAGE: the
 * abrupt close unblocks every EVD waiter with DAT_ABORT and always completes.
 */
#include "repro.h"

static DAT_RETURN wait_on_evd(DAT_HANDLE evd)
{
	DAT_EVENT event;
	DAT_COUNT nmore;

	return dat_evd_wait(evd, DAT_TIMEOUT_INFINITE, 1, &event, &nmore);
}

/* A thread blocked in dat_evd_wait on a new software EVD, or NULL. */
static struct repro_waiter *blocked_waiter(DAT_IA_HANDLE ia)
{
	static struct repro_waiter w[2];
	static int n;
	struct repro_waiter *p = &w[n++];

	p->wait = wait_on_evd;
	if (dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &p->handle) !=
	    DAT_SUCCESS)
		return NULL;
	return repro_waiter_start(p) ? p : NULL;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_waiter *w = blocked_waiter(ia);
	DAT_RETURN r;

	if (!w)
		return repro_say(REPRO_CANNOT, "no thread could be blocked in dat_evd_wait");
	printf("calling dat_evd_free with a thread blocked in dat_evd_wait on the EVD\n");
	fflush(stdout);
	r = dat_evd_free(w->handle);
	if (r == DAT_SUCCESS) {
		if (!repro_waiters_return(w, 1, 2000))
			return repro_say(REPRO_SHOWS, "dat_evd_free succeeded and the thread in "
					 "dat_evd_wait stayed blocked for 2 s");
		/* The free was fine: try the close with a fresh waiter. */
		if (!(w = blocked_waiter(ia)))
			return repro_say(REPRO_CANNOT, "no second thread could be blocked");
	}
	printf("calling dat_ia_close(ABRUPT) with a thread blocked in dat_evd_wait\n");
	fflush(stdout);
	if ((r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the abrupt close returned %s", REPRO_RET(r));
	if (!repro_waiters_return(w, 1, 2000))
		return repro_say(REPRO_SHOWS, "the abrupt close succeeded and the thread in "
				 "dat_evd_wait stayed blocked for 2 s");
	return repro_say(REPRO_ABSENT, "the waiter came out of dat_evd_wait with %s",
			 REPRO_RET(w->r));
}

REPRO_MAIN(.finding = "evd-free-waiter-hang", .body = body, .timeout_s = 10,
	   .if_hang = "the call destroying an EVD with a thread blocked in dat_evd_wait on it "
		      "(the line before names it) never returned")
