/* SPDX-License-Identifier: MIT */
/*
 * Finding disconnect-flags-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_disconnect of a Connected EP with disconnect_flags 0x2, neither
 * DAT_CLOSE_ABRUPT_FLAG (0) nor DAT_CLOSE_GRACEFUL_FLAG (1).
 * dat_ep_disconnect(3DAT) PARAMETERS name those two values; RETURN VALUES:
 * DAT_INVALID_PARAMETER for an invalid disconnect_flags.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_EP_STATE state;
	DAT_BOOLEAN recv_idle, request_idle;
	DAT_RETURN r = repro_pair(ia, &p);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting two EPs of the IA failed: %s",
				 REPRO_RET(r));
	r = dat_ep_disconnect(p.a.ep, (DAT_CLOSE_FLAGS)0x2);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "disconnect_flags 0x2 is refused with %s",
				 REPRO_RET(r));
	dat_ep_get_status(p.a.ep, &state, &recv_idle, &request_idle);
	return repro_say(REPRO_SHOWS, "dat_ep_disconnect with disconnect_flags 0x2 returned %s, "
			 "not DAT_INVALID_PARAMETER; the EP is then in state %d (CONNECTED is %d)",
			 REPRO_RET(r), (int)state, (int)DAT_EP_STATE_CONNECTED);
}

REPRO_MAIN(.finding = "disconnect-flags-unchecked", .body = body,
	   .if_crash = "dat_ep_disconnect with disconnect_flags 0x2 killed the process")
