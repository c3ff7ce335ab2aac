/* SPDX-License-Identifier: MIT */
/*
 * Finding graceful-close-with-cno (docs/certification/ofa-dapl-2.1.10/):
 * a graceful dat_ia_close of an IA that still has a CNO. dat_ia_close(3DAT)
 * DESCRIPTION: a graceful close destroys the instance only when the Consumer
 * has freed every object it made, and otherwise returns DAT_INVALID_STATE.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_CNO_HANDLE cno;
	DAT_RETURN r = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_cno_create returned %s", REPRO_RET(r));
	r = dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG);
	if (DAT_GET_TYPE(r) == DAT_INVALID_STATE)
		return repro_say(REPRO_ABSENT, "the graceful close was refused with %s",
				 REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "the graceful close of an IA with a CNO returned %s, "
			 "not DAT_INVALID_STATE", REPRO_RET(r));
}

REPRO_MAIN(.finding = "graceful-close-with-cno", .body = body,
	   .if_crash = "the graceful close of an IA that still has a CNO killed the process")
