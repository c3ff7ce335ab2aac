/* SPDX-License-Identifier: MIT */
/*
 * Finding ep-idle-flags-inverted (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_get_status on a new EP with nothing posted. dat_ep_get_status(3DAT)
 * DESCRIPTION: recv_idle (request_idle) is DAT_TRUE when no Receive (Send,
 * RDMA) DTO is outstanding or in progress, DAT_FALSE otherwise.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_EVD_HANDLE conn;
	DAT_EP_HANDLE ep;
	DAT_EP_STATE state;
	DAT_BOOLEAN recv_idle = 7, request_idle = 7;
	DAT_RETURN r = repro_ep(ia, &ep, &conn);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the EP failed: %s", REPRO_RET(r));
	r = dat_ep_get_status(ep, &state, &recv_idle, &request_idle);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ep_get_status returned %s", REPRO_RET(r));
	if (recv_idle != DAT_TRUE || request_idle != DAT_TRUE)
		return repro_say(REPRO_SHOWS, "a new EP with nothing posted reports recv_idle %d, "
				 "request_idle %d (DAT_TRUE is %d)", (int)recv_idle,
				 (int)request_idle, (int)DAT_TRUE);
	return repro_say(REPRO_ABSENT, "a new EP with nothing posted reports both idle");
}

REPRO_MAIN(.finding = "ep-idle-flags-inverted", .body = body)
