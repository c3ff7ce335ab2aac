/* SPDX-License-Identifier: MIT */
/*
 * Finding cno-wakes-one (docs/certification/ofa-dapl-2.1.10/): two threads
 * blocked in dat_cno_wait on a CNO whose only EVD is then freed.
 * dat_cno_wait(3DAT) DESCRIPTION: when every EVD the CNO is associated with
 * has been freed, all the waiters on the CNO are unblocked with a NULL EVD.
 */
#include "repro.h"

static DAT_RETURN wait_on_cno(DAT_HANDLE cno)
{
	DAT_EVD_HANDLE evd;

	return dat_cno_wait(cno, DAT_TIMEOUT_INFINITE, &evd);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static struct repro_waiter w[2];
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE evd;
	int released;
	DAT_RETURN r;

	if ((r = repro_cno_evd(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno, &evd)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the CNO and its EVD failed: %s",
				 REPRO_RET(r));
	for (int i = 0; i < 2; i++) {
		w[i] = (struct repro_waiter){ .wait = wait_on_cno, .handle = cno };
		if (!repro_waiter_start(&w[i]))
			return repro_say(REPRO_CANNOT, "waiter %d did not block in dat_cno_wait", i);
	}
	if ((r = dat_evd_free(evd)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_evd_free returned %s", REPRO_RET(r));
	/* Give the waiters 3 s to come out. */
	repro_waiters_return(w, 2, 3000);
	released = w[0].done + w[1].done;
	if (released == 2)
		return repro_say(REPRO_ABSENT, "both waiters were released");
	if (released == 0)
		return repro_say(REPRO_CANNOT, "no waiter was released (this finding is about a "
				 "release that reaches only one)");
	return repro_say(REPRO_SHOWS, "freeing the CNO's last EVD released one of its two "
			 "waiters (it returned %s); the other stayed blocked for 3 s",
			 REPRO_RET(w[0].done ? w[0].r : w[1].r));
}

REPRO_MAIN(.finding = "cno-wakes-one", .body = body)
