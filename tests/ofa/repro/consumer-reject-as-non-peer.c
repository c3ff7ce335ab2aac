/* SPDX-License-Identifier: MIT */
/*
 * Finding consumer-reject-as-non-peer (docs/certification/ofa-dapl-2.1.10/):
 * an EP requests a connection to a PSP of the same IA and the Consumer
 * rejects the request with dat_cr_reject. dat_ep_connect(3DAT) DESCRIPTION:
 * the remote Consumer's rejection reaches the requester as
 * DAT_CONNECTION_EVENT_PEER_REJECTED.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_EVENT ev;
	DAT_RETURN r;

	if ((r = repro_pending(ia, &p, 0)) != DAT_SUCCESS ||
	    (r = dat_cr_reject(p.cr, 0, NULL)) != DAT_SUCCESS ||
	    (r = repro_event(p.a.conn, 10000, &ev)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting a request, rejecting it or the requester's "
				 "event failed: %s", REPRO_RET(r));
	return repro_judge_event(ev.event_number, DAT_CONNECTION_EVENT_PEER_REJECTED,
				 DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
				 "the request the Consumer rejected with dat_cr_reject");
}

REPRO_MAIN(.finding = "consumer-reject-as-non-peer", .body = body,
	   .if_crash = "rejecting the request killed the process")
