/* SPDX-License-Identifier: MIT */
/*
 * Finding graceful-ignored (docs/certification/ofa-dapl-2.1.10/):
 * on a Connected EP a Send waits for the peer's Receive; the EP is
 * disconnected gracefully, then the peer posts the Receive.
 * dat_ep_disconnect(3DAT) DESCRIPTION: a graceful disconnect first lets the
 * outstanding request DTOs try to complete successfully, the EP meanwhile in
 * DAT_EP_STATE_DISCONNECT_PENDING. The Send must not be flushed while the
 * Receive it waits for is still to come.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_EP_STATE state;
	DAT_DTO_COMPLETION_EVENT_DATA *dto;
	DAT_EVENT ev;
	DAT_RETURN r;

	if ((r = repro_graceful_with_send(ia, &p, &state)) != DAT_SUCCESS ||
	    (r = repro_post_recvs(ia, &p.b, 1, 1)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting, the Send, the graceful disconnect or the "
				 "peer's Receive failed: %s", REPRO_RET(r));
	if ((r = repro_event(p.a.dto, 5000, &ev)) != DAT_SUCCESS ||
	    ev.event_number != DAT_DTO_COMPLETION_EVENT)
		return repro_say(REPRO_CANNOT, "the Send gave no DTO completion within 5 s (%s)",
				 r != DAT_SUCCESS ? REPRO_RET(r) : REPRO_EVENT(ev.event_number));
	dto = &ev.event_data.dto_completion_event_data;
	if (dto->status == DAT_DTO_SUCCESS)
		return repro_say(REPRO_ABSENT, "the Send completed successfully after the graceful "
				 "disconnect");
	if (dto->status != DAT_DTO_ERR_FLUSHED)
		return repro_say(REPRO_CANNOT, "the Send completed with status %d, not a flush",
				 (int)dto->status);
	return repro_say(REPRO_SHOWS, "the graceful disconnect flushed the Send waiting for the "
			 "peer's Receive (DAT_DTO_ERR_FLUSHED; the EP was in state %d right after the "
			 "call, DISCONNECT_PENDING is %d)", (int)state,
			 (int)DAT_EP_STATE_DISCONNECT_PENDING);
}

REPRO_MAIN(.finding = "graceful-ignored", .body = body,
	   .if_crash = "the graceful disconnect killed the process")
