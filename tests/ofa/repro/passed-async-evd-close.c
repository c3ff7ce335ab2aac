/* SPDX-License-Identifier: MIT */
/*
 * Finding passed-async-evd-close (docs/certification/ofa-dapl-2.1.10/): an
 * abrupt dat_ia_close of a second instance opened with the first one's
 * asynchronous EVD. dat_ia_open(3DAT) DESCRIPTION: a Consumer may pass its own
 * async EVD; dat_ia_close(3DAT) DESCRIPTION: the close (either mode) does not
 * destroy an async EVD the Consumer passed to dat_ia_open.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_EVD_HANDLE async, passed;
	DAT_IA_HANDLE ia2;
	DAT_EVENT event;
	DAT_RETURN r = dat_ia_query(ia, &async, 0, NULL, 0, NULL);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ia_query returned %s", REPRO_RET(r));
	passed = async;
	r = dat_ia_open(repro_ia_name, 8, &passed, &ia2);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ia_open with the first IA's async EVD returned "
				 "%s", REPRO_RET(r));
	r = dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "the abrupt close of the instance opened with a passed "
				 "async EVD returned %s", REPRO_RET(r));
	r = dat_evd_dequeue(async, &event);
	if (r != DAT_SUCCESS && DAT_GET_TYPE(r) != DAT_QUEUE_EMPTY)
		return repro_say(REPRO_SHOWS, "after the close, the passed async EVD answers "
				 "dat_evd_dequeue with %s", REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "the close succeeded and the passed async EVD lives on");
}

REPRO_MAIN(.finding = "passed-async-evd-close", .body = body,
	   .if_crash = "the abrupt close of an instance opened with a passed async EVD killed "
		       "the process")
