/* SPDX-License-Identifier: MIT */
/*
 * Finding provider-reject-as-peer (docs/certification/ofa-dapl-2.1.10/):
 * an EP connected over a PSP of the same IA, the PSP freed, then
 * dat_ep_dup_connect of a second EP to the same remote end: nobody listens
 * there any more and no Consumer rejects. dat_ep_dup_connect(3DAT) and
 * dat_ep_connect(3DAT) DESCRIPTION: a request that fails for any reason but
 * a timeout, an unreachable host or the remote Consumer's rejection (the
 * remote Consumer not listening is named) ends in
 * DAT_CONNECTION_EVENT_NON_PEER_REJECTED; PEER_REJECTED is the remote
 * Consumer's rejection.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	struct repro_end dup;
	DAT_EVENT ev;
	DAT_RETURN r;

	if ((r = repro_pair(ia, &p)) != DAT_SUCCESS || (r = repro_end(ia, &dup)) != DAT_SUCCESS ||
	    (r = dat_psp_free(p.psp)) != DAT_SUCCESS ||
	    (r = dat_ep_dup_connect(dup.ep, p.a.ep, 10000000, 0, NULL, DAT_QOS_BEST_EFFORT)) !=
		    DAT_SUCCESS ||
	    (r = repro_event(dup.conn, 10000, &ev)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting, freeing the PSP, the duplicate connect "
				 "or its event failed: %s", REPRO_RET(r));
	return repro_judge_event(ev.event_number, DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
				 DAT_CONNECTION_EVENT_PEER_REJECTED,
				 "the duplicate connect to the freed PSP's qualifier (no Consumer "
				 "rejected it)");
}

REPRO_MAIN(.finding = "provider-reject-as-peer", .body = body,
	   .if_crash = "the duplicate connect to a freed PSP killed the process")
