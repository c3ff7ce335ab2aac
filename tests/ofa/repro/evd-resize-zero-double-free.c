/* SPDX-License-Identifier: MIT */
/*
 * Finding evd-resize-zero-double-free (docs/certification/ofa-dapl-2.1.10/):
 * dat_evd_resize to a queue length of 0, then an abrupt dat_ia_close.
 * dat_evd_resize(3DAT) RETURN VALUES: an invalid evd_qlen is refused with
 * DAT_INVALID_PARAMETER, and a refused resize leaves the EVD as it was;
 * dat_ia_close(3DAT) DESCRIPTION: the abrupt close destroys every object.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_EVD_HANDLE evd;
	DAT_RETURN r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd), rz;

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_evd_create returned %s", REPRO_RET(r));
	rz = dat_evd_resize(evd, 0);
	r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "after dat_evd_resize(evd, 0) returned %s, the abrupt "
				 "close returned %s", REPRO_RET(rz), REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "dat_evd_resize(evd, 0) returned %s; the abrupt close "
			 "succeeded", REPRO_RET(rz));
}

REPRO_MAIN(.finding = "evd-resize-zero-double-free", .body = body,
	   .if_crash = "after dat_evd_resize(evd, 0) was refused, the abrupt dat_ia_close "
		       "killed the process (the event array freed twice)")
