/* SPDX-License-Identifier: MIT */
/*
 * Finding accept-after-timeout-established (docs/certification/ofa-dapl-2.1.10/):
 * the requester's connect times out (200 ms) while its request waits at a
 * PSP of the same IA; the Consumer accepts the request after that.
 * dat_cr_accept(3DAT) DESCRIPTION: when the Provider cannot complete the
 * establishment (the active side's timeout is named among the causes), the
 * accepting EP gets DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR. Here the
 * accepting EP reports the connection established while the requester,
 * which was told DAT_CONNECTION_EVENT_TIMED_OUT, is not connected: a
 * connection with nobody. (scm's answer, NON_PEER_REJECTED, is the finding
 * accept-error-as-non-peer; a synchronous refusal is neither.)
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_EP_STATE st;
	DAT_BOOLEAN ri, qi;
	DAT_EVENT ev;
	DAT_RETURN r;

	if ((r = repro_timed_out(ia, &p)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting a request whose requester then timed out "
				 "failed: %s", REPRO_RET(r));
	r = dat_cr_accept(p.cr, p.b.ep, 0, NULL);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "the accept was refused at once (%s)", REPRO_RET(r));
	if ((r = repro_event(p.b.conn, 10000, &ev)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the accepting EP got no event (%s)", REPRO_RET(r));
	if (ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED)
		return repro_say(REPRO_ABSENT, "the accepting EP got %s, not ESTABLISHED",
				 REPRO_EVENT(ev.event_number));
	if ((r = dat_ep_get_status(p.a.ep, &st, &ri, &qi)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ep_get_status of the requester: %s",
				 REPRO_RET(r));
	if (st == DAT_EP_STATE_CONNECTED)
		return repro_say(REPRO_CANNOT, "the requester is CONNECTED after its TIMED_OUT: "
				 "another defect than this one");
	return repro_say(REPRO_SHOWS, "the accept of a timed-out requester's request ended in "
			 "DAT_CONNECTION_EVENT_ESTABLISHED on the accepting EP, while the requester "
			 "(told DAT_CONNECTION_EVENT_TIMED_OUT) is in state %d, not connected",
			 (int)st);
}

REPRO_MAIN(.finding = "accept-after-timeout-established", .body = body,
	   .if_crash = "accepting the timed-out request killed the process")
