/* SPDX-License-Identifier: MIT */
/*
 * Finding unwaitable-clear-rewaits (docs/certification/ofa-dapl-2.1.10/): a
 * thread is blocked in dat_evd_wait on an empty software EVD; the EVD is set
 * unwaitable and at once made waitable again, in rounds.
 * dat_evd_set_unwaitable(3DAT) DESCRIPTION: the threads blocked in
 * dat_evd_wait when the EVD is set unwaitable wake and return
 * DAT_INVALID_STATE; the later dat_evd_clear_unwaitable takes nothing back.
 */
#include "repro.h"

#define ROUNDS 20

static DAT_RETURN wait_on_evd(DAT_HANDLE evd)
{
	DAT_EVENT event;
	DAT_COUNT nmore;

	return dat_evd_wait(evd, DAT_TIMEOUT_INFINITE, 1, &event, &nmore);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static struct repro_waiter w[ROUNDS];
	DAT_EVD_HANDLE evd;
	DAT_RETURN r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_evd_create returned %s", REPRO_RET(r));
	for (int i = 0; i < ROUNDS; i++) {
		w[i].wait = wait_on_evd;
		w[i].handle = evd;
		if (!repro_waiter_start(&w[i]))
			return repro_say(REPRO_CANNOT, "round %d: no thread could be blocked in "
					 "dat_evd_wait", i + 1);
		if ((r = dat_evd_set_unwaitable(evd)) != DAT_SUCCESS ||
		    (r = dat_evd_clear_unwaitable(evd)) != DAT_SUCCESS)
			return repro_say(REPRO_CANNOT, "round %d: set or clear unwaitable returned %s",
					 i + 1, REPRO_RET(r));
		if (!repro_waiters_return(&w[i], 1, 5000))
			return repro_say(REPRO_SHOWS, "round %d: the thread blocked in dat_evd_wait "
					 "when dat_evd_set_unwaitable was called, then "
					 "dat_evd_clear_unwaitable, was still blocked 5 s later", i + 1);
		printf("round %d: the blocked dat_evd_wait returned %s\n", i + 1,
		       REPRO_RET(w[i].r));
		if (DAT_GET_TYPE(w[i].r) != DAT_INVALID_STATE)
			return repro_say(REPRO_CANNOT, "round %d: the blocked dat_evd_wait returned %s, "
					 "not DAT_INVALID_STATE", i + 1, REPRO_RET(w[i].r));
	}
	return repro_say(REPRO_ABSENT, "in %d rounds the blocked dat_evd_wait returned "
			 "DAT_INVALID_STATE despite the clear that followed", ROUNDS);
}

REPRO_MAIN(.finding = "unwaitable-clear-rewaits", .body = body, .timeout_s = 60,
	   .if_hang = "a thread blocked in dat_evd_wait stayed blocked after "
		      "dat_evd_set_unwaitable and dat_evd_clear_unwaitable")
