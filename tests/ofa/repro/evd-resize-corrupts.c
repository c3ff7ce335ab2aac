/* SPDX-License-Identifier: MIT */
/*
 * Finding evd-resize-corrupts (docs/certification/ofa-dapl-2.1.10/): an empty
 * software EVD resized from 32 down to 8 entries, and one resized from 4 up
 * to 32 and then filled. dat_evd_resize(3DAT) DESCRIPTION and PARAMETERS:
 * the queue is resized to hold at least evd_min_qlen events; RETURN VALUES
 * refuse a length only below the events queued (DAT_INVALID_STATE), when
 * invalid, or for want of resources.
 */
#include "repro.h"

#define GROWN 32

static int marks[GROWN];

/* Whether GROWN software events go into the EVD and come out as posted. */
static int carries_events(DAT_EVD_HANDLE evd)
{
	DAT_EVENT se = { .event_number = DAT_SOFTWARE_EVENT }, event;

	for (int i = 0; i < GROWN; i++) {
		se.event_data.software_event_data.pointer = &marks[i];
		if (dat_evd_post_se(evd, &se) != DAT_SUCCESS)
			return 0;
	}
	for (int i = 0; i < GROWN; i++)
		if (dat_evd_dequeue(evd, &event) != DAT_SUCCESS ||
		    event.event_number != DAT_SOFTWARE_EVENT ||
		    event.event_data.software_event_data.pointer != &marks[i])
			return 0;
	return 1;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_EVD_HANDLE shrunk, grown;
	DAT_RETURN r, rs;

	if ((r = dat_evd_create(ia, GROWN, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &shrunk)) !=
		    DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &grown)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_evd_create returned %s", REPRO_RET(r));
	rs = dat_evd_resize(shrunk, 8);
	printf("dat_evd_resize of an empty EVD from %d to 8 returned %s\n", GROWN, REPRO_RET(rs));
	if ((r = dat_evd_resize(grown, GROWN)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_evd_resize from 4 to %d returned %s", GROWN,
				 REPRO_RET(r));
	printf("dat_evd_resize from 4 to %d succeeded; posting and dequeuing %d events\n", GROWN,
	       GROWN);
	fflush(stdout);
	if (!carries_events(grown))
		return repro_say(REPRO_SHOWS, "after dat_evd_resize from 4 to %d the EVD did not "
				 "carry %d software events intact", GROWN, GROWN);
	if (rs != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_evd_resize of an empty EVD from %d to 8 returned "
				 "%s", GROWN, REPRO_RET(rs));
	return repro_say(REPRO_ABSENT, "both resizes succeeded and the grown EVD carries %d "
			 "events", GROWN);
}

REPRO_MAIN(.finding = "evd-resize-corrupts", .body = body,
	   .if_crash = "using an EVD after dat_evd_resize killed the process (the line before "
		       "says which step)")
