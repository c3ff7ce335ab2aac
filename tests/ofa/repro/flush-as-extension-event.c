/* SPDX-License-Identifier: MIT */
/*
 * Finding flush-as-extension-event (docs/certification/ofa-dapl-2.1.10/):
 * four Receives on a Connected EP, then an abrupt dat_ep_disconnect.
 * dat_ep_disconnect(3DAT) DESCRIPTION: the outstanding Receives complete
 * unsuccessfully on the recv EVD; dat_ep_post_recv(3DAT) DESCRIPTION: a
 * Receive's completion is a DAT_DTO_COMPLETION_EVENT.
 */
#include "repro.h"

#define RECVS 4

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_EVENT ev;
	DAT_RETURN r;

	if ((r = repro_pair(ia, &p)) != DAT_SUCCESS ||
	    (r = repro_post_recvs(ia, &p.a, RECVS, 100)) != DAT_SUCCESS ||
	    (r = dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting, posting the Receives or disconnecting "
				 "failed: %s", REPRO_RET(r));
	for (int i = 0; i < RECVS; i++) {
		if ((r = repro_event(p.a.dto, 5000, &ev)) != DAT_SUCCESS)
			return repro_say(REPRO_CANNOT, "%d of %d Receives completed within 5 s (%s)",
					 i, RECVS, REPRO_RET(r));
		if (ev.event_number != DAT_DTO_COMPLETION_EVENT)
			return repro_say(REPRO_SHOWS, "flushed Receive %d of %d arrived as %s, not "
					 "DAT_DTO_COMPLETION_EVENT (its data: cookie %llu, status %d)",
					 i + 1, RECVS, REPRO_EVENT(ev.event_number),
					 (unsigned long long)
					 ev.event_data.dto_completion_event_data.user_cookie.as_64,
					 (int)ev.event_data.dto_completion_event_data.status);
	}
	return repro_say(REPRO_ABSENT, "the %d Receives completed as DAT_DTO_COMPLETION_EVENTs",
			 RECVS);
}

REPRO_MAIN(.finding = "flush-as-extension-event", .body = body,
	   .if_crash = "the abrupt disconnect or the flush killed the process")
