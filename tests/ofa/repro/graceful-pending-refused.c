/* SPDX-License-Identifier: MIT */
/*
 * Finding graceful-pending-refused (docs/certification/ofa-dapl-2.1.10/):
 * a second graceful dat_ep_disconnect while the EP is in
 * DAT_EP_STATE_DISCONNECT_PENDING (a Send waits for the peer's Receive).
 * dat_ep_disconnect(3DAT) DESCRIPTION: that call has no effect; PARAMETERS:
 * DAT_CLOSE_GRACEFUL_FLAG is a valid disconnect_flags, so the
 * DAT_INVALID_PARAMETER of RETURN VALUES does not apply to it.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_EP_STATE state = DAT_EP_STATE_UNCONNECTED;
	DAT_RETURN r;
	int tries;

	/* libdaplofa sometimes ends a graceful disconnect at once (finding
	 * graceful-ignored): a fresh connection each try, until one waits */
	for (tries = 1; tries <= 5; tries++) {
		if ((r = repro_graceful_with_send(ia, &p, &state)) != DAT_SUCCESS)
			return repro_say(REPRO_CANNOT, "connecting, the Send or the first graceful "
					 "disconnect failed: %s", REPRO_RET(r));
		if (state == DAT_EP_STATE_DISCONNECT_PENDING)
			break;
	}
	if (state != DAT_EP_STATE_DISCONNECT_PENDING)
		return repro_say(REPRO_CANNOT, "after the graceful disconnect the EP is in state %d, "
				 "not DISCONNECT_PENDING, in 5 tries", (int)state);
	r = dat_ep_disconnect(p.a.ep, DAT_CLOSE_GRACEFUL_FLAG);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "the second graceful disconnect returned DAT_SUCCESS");
	if (DAT_GET_TYPE(r) != DAT_INVALID_PARAMETER)
		return repro_say(REPRO_CANNOT, "the second graceful disconnect returned %s",
				 REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "a graceful disconnect in DISCONNECT_PENDING returned %s",
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "graceful-pending-refused", .body = body, .timeout_s = 60,
	   .if_crash = "the second graceful disconnect killed the process")
