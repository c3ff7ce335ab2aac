/* SPDX-License-Identifier: MIT */
/*
 * Finding cr-queue-full-double-reject (docs/certification/ofa-dapl-2.1.10/):
 * a PSP whose CR EVD (the backlog) is full gets one more request.
 * dat_psp_create(3DAT) PARAMETERS: the PSP's EVD queue size is the backlog;
 * dat_ep_connect(3DAT) DESCRIPTION: a request refused because the backlog is
 * full ends in DAT_CONNECTION_EVENT_NON_PEER_REJECTED at the requester.
 * All requesters share one connection EVD, so the one refused is seen
 * whichever request came last.
 */
#include "repro.h"

#define MAX_QLEN 8

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	struct repro_end first;
	DAT_EP_HANDLE ep[MAX_QLEN + 1];
	DAT_EVD_HANDLE cr_evd;
	DAT_EVD_PARAM evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_EVENT ev;
	DAT_RETURN r;
	int n;

	if ((r = repro_end(ia, &first)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 1, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd)) != DAT_SUCCESS ||
	    (r = dat_evd_query(cr_evd, DAT_EVD_FIELD_EVD_QLEN, &evd)) != DAT_SUCCESS ||
	    (r = dat_psp_create_any(ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp)) != DAT_SUCCESS ||
	    !self)
		return repro_say(REPRO_CANNOT, "making a PSP on a CR EVD of qlen 1 failed: %s",
				 REPRO_RET(r));
	if (evd.evd_qlen < 1 || evd.evd_qlen > MAX_QLEN)
		return repro_say(REPRO_CANNOT, "the CR EVD's qlen is %d", (int)evd.evd_qlen);
	/* qlen requests fill the backlog (none is dequeued); one more overflows it */
	ep[0] = first.ep;
	for (n = 0; n <= evd.evd_qlen; n++) {
		if ((n && (r = dat_ep_create(ia, first.pz, first.dto, first.dto, first.conn, NULL,
					     &ep[n])) != DAT_SUCCESS) ||
		    (r = dat_ep_connect(ep[n], self, q, 10000000, 0, NULL, DAT_QOS_BEST_EFFORT,
					DAT_CONNECT_DEFAULT_FLAG)) != DAT_SUCCESS)
			return repro_say(REPRO_CANNOT, "request %d of %d failed: %s", n + 1,
					 (int)evd.evd_qlen + 1, REPRO_RET(r));
	}
	r = repro_event(first.conn, 10000, &ev);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "no requester got an event within 10 s (%s)",
				 REPRO_RET(r));
	if (ev.event_number == DAT_CONNECTION_EVENT_NON_PEER_REJECTED)
		return repro_say(REPRO_ABSENT, "the request beyond the backlog of %d ended in "
				 "DAT_CONNECTION_EVENT_NON_PEER_REJECTED", (int)evd.evd_qlen);
	return repro_say(REPRO_CANNOT, "the first requester event was %s, which this finding "
			 "(a crash) is not about", REPRO_EVENT(ev.event_number));
}

REPRO_MAIN(.finding = "cr-queue-full-double-reject", .body = body,
	   .if_crash = "a Connection Request beyond the PSP's full backlog killed the process")
