/* SPDX-License-Identifier: MIT */
/*
 * Finding overflow-on-refused-post (docs/certification/ofa-dapl-2.1.10/):
 * dat_evd_post_se to a full software EVD. dat_evd_post_se(3DAT) DESCRIPTION:
 * the post is refused with DAT_QUEUE_FULL, the event is not queued, and the
 * asynchronous Event Dispatcher is not affected.
 */
#include "repro.h"

/* Whether the async EVD holds an overflow event, now or within 200 ms. */
static int overflow_reported(DAT_EVD_HANDLE async)
{
	DAT_EVENT event;
	DAT_COUNT nmore;

	while (dat_evd_dequeue(async, &event) == DAT_SUCCESS)
		if (event.event_number == DAT_ASYNC_ERROR_EVD_OVERFLOW)
			return 1;
	while (dat_evd_wait(async, 200000, 1, &event, &nmore) == DAT_SUCCESS)
		if (event.event_number == DAT_ASYNC_ERROR_EVD_OVERFLOW)
			return 1;
	return 0;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static int cookie;
	DAT_EVD_HANDLE evd, async;
	DAT_EVENT se = { .event_number = DAT_SOFTWARE_EVENT,
			 .event_data.software_event_data.pointer = &cookie };
	DAT_COUNT posted = 0;
	DAT_RETURN r;

	if ((r = dat_ia_query(ia, &async, 0, NULL, 0, NULL)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd)) !=
		    DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ia_query or dat_evd_create failed: %s",
				 REPRO_RET(r));
	while ((r = dat_evd_post_se(evd, &se)) == DAT_SUCCESS && posted < 4096)
		posted++;
	if (DAT_GET_TYPE(r) != DAT_QUEUE_FULL)
		return repro_say(REPRO_CANNOT, "after %d posts dat_evd_post_se returned %s, not "
				 "DAT_QUEUE_FULL", (int)posted, REPRO_RET(r));
	if (overflow_reported(async))
		return repro_say(REPRO_SHOWS, "the post refused with DAT_QUEUE_FULL (after %d posts) "
				 "also put DAT_ASYNC_ERROR_EVD_OVERFLOW on the async EVD",
				 (int)posted);
	return repro_say(REPRO_ABSENT, "the refused post left the async EVD without an "
			 "overflow event");
}

REPRO_MAIN(.finding = "overflow-on-refused-post", .body = body)
