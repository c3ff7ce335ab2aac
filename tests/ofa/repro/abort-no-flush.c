/* SPDX-License-Identifier: MIT */
/*
 * Finding abort-no-flush (docs/certification/ofa-dapl-2.1.10/):
 * an EP with four Receives posted requests a connection to a PSP of the
 * same IA; once the request has arrived (EP in Active Connection Pending)
 * the EP is disconnected abruptly. dat_ep_disconnect(3DAT) DESCRIPTION: a
 * disconnect during connection establishment aborts it, the EP goes to
 * Disconnected and the pre-posted Receives are flushed to its recv EVD.
 * Whatever event number the flush comes as counts here (that number is
 * the finding flush-as-extension-event).
 */
#include "repro.h"

#define RECVS 4

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_EP_STATE state;
	DAT_BOOLEAN recv_idle, request_idle;
	DAT_EVENT ev;
	DAT_RETURN r;

	if ((r = repro_pending(ia, &p, RECVS)) != DAT_SUCCESS ||
	    (r = dat_ep_get_status(p.a.ep, &state, &recv_idle, &request_idle)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "posting the Receives or getting the request to the "
				 "PSP failed: %s", REPRO_RET(r));
	if (state != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
		return repro_say(REPRO_CANNOT, "the requesting EP is in state %d, not "
				 "ACTIVE_CONNECTION_PENDING", (int)state);
	if ((r = dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the abrupt disconnect returned %s", REPRO_RET(r));
	for (int i = 0; i < RECVS; i++)
		if (repro_event(p.a.dto, 5000, &ev) != DAT_SUCCESS) {
			dat_ep_get_status(p.a.ep, &state, &recv_idle, &request_idle);
			return repro_say(REPRO_SHOWS, "%d of %d pre-posted Receives were flushed "
					 "within 5 s of aborting the connection set-up (EP state "
					 "%d, DISCONNECTED is %d)", i, RECVS, (int)state,
					 (int)DAT_EP_STATE_DISCONNECTED);
		}
	return repro_say(REPRO_ABSENT, "the %d pre-posted Receives were flushed", RECVS);
}

REPRO_MAIN(.finding = "abort-no-flush", .body = body,
	   .if_crash = "aborting the connection set-up killed the process")
