/* SPDX-License-Identifier: MIT */
/*
 * Finding async-evd-exists-refused (docs/certification/ofa-dapl-2.1.10/):
 * dat_ia_open with *async_evd_handle = DAT_EVD_ASYNC_EXISTS. dat_ia_open(3DAT)
 * PARAMETERS and DESCRIPTION: that value tells the Provider that an
 * asynchronous Event Dispatcher for the IA already exists (the Consumer sees
 * to its uniqueness), and the open goes on without making one.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_EVD_HANDLE async = DAT_EVD_ASYNC_EXISTS;
	DAT_IA_HANDLE ia2;
	DAT_RETURN r = dat_ia_open(repro_ia_name, 8, &async, &ia2);

	(void)ia;
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "the open with DAT_EVD_ASYNC_EXISTS succeeded");
	return repro_say(REPRO_SHOWS, "dat_ia_open(%s) with DAT_EVD_ASYNC_EXISTS returned %s",
			 repro_ia_name, REPRO_RET(r));
}

REPRO_MAIN(.finding = "async-evd-exists-refused", .body = body)
