/* SPDX-License-Identifier: MIT */
/*
 * Finding accept-error-as-non-peer (docs/certification/ofa-dapl-2.1.10/):
 * the requester's connect times out (200 ms) while its request waits at a
 * PSP of the same IA; the Consumer accepts the request after that.
 * dat_cr_accept(3DAT) DESCRIPTION: when the Provider cannot complete the
 * establishment (the active side's timeout is named among the causes), the
 * accepting EP gets DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR. A
 * synchronous refusal of the accept is not this finding either.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
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
	if (ev.event_number == DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR)
		return repro_say(REPRO_ABSENT, "the accepting EP got "
				 "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR");
	if (ev.event_number != DAT_CONNECTION_EVENT_NON_PEER_REJECTED &&
	    ev.event_number != DAT_CONNECTION_EVENT_PEER_REJECTED)
		return repro_say(REPRO_CANNOT, "the accepting EP got %s",
				 REPRO_EVENT(ev.event_number));
	return repro_say(REPRO_SHOWS, "the accept of a timed-out requester's request ended in %s "
			 "(a requester's event), not DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR",
			 REPRO_EVENT(ev.event_number));
}

REPRO_MAIN(.finding = "accept-error-as-non-peer", .body = body,
	   .if_crash = "accepting the timed-out request killed the process")
