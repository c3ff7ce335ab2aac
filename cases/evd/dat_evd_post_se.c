/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_post_se(3DAT); clauses in clauses/dat_evd_post_se.toml.
 */
#include "evd_common.h"

DC_CASE(dat_evd_post_se, queued,
	.summary = "posted software events are queued and dequeued as posted, in order")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);

	for (int i = 1; i <= 3; i++) {
		DAT_EVENT ev = sw_event(TAG(i));

		DC_ASSERT_SUCCESS(dat_evd_post_se(evd, &ev));
	}
	EXPECT_SW_N(evd, 1, 3);
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_post_se, pointer_opaque,
	.summary = "the software event pointer comes back unchanged and its memory is not touched")
{
	static const uintptr_t odd[] = { 0, 1, ~(uintptr_t)0 };
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	unsigned char buf[64], want[64];
	DAT_EVENT ev;

	for (unsigned int i = 0; i < 3; i++) {
		ev = sw_event((DAT_PVOID)odd[i]);
		DC_ASSERT_SUCCESS(dat_evd_post_se(evd, &ev));
	}
	for (unsigned int i = 0; i < sizeof(buf); i++)
		buf[i] = want[i] = (unsigned char)(0x3c ^ i);
	ev = sw_event(buf);
	DC_ASSERT_SUCCESS(dat_evd_post_se(evd, &ev));
	for (unsigned int i = 0; i < 3; i++)
		EXPECT_SW(evd, (DAT_PVOID)odd[i]);
	EXPECT_SW(evd, buf);
	DC_ASSERT(!memcmp(buf, want, sizeof(buf)),
		  "the memory a software event pointed to was changed");
}

DC_CASE(dat_evd_post_se, queue_full,
	.summary = "a post to a full queue gives DAT_QUEUE_FULL and is not queued")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT q = dc_evd_param(t, evd).evd_qlen;
	DAT_EVENT ev = sw_event(TAG(999));
	DAT_RETURN r;

	DC_SETUP_ASSERT(q >= 4 && q <= 4096, "a 4-entry EVD reports evd_qlen %d",
			(int)q);
	post_n(evd, 0, q);
	r = dat_evd_post_se(evd, &ev);
	note_ret(t, "dat_evd_post_se on a full queue", r);
	DC_ASSERT_RET(r, DAT_QUEUE_FULL);
	EXPECT_SW_N(evd, 0, q);
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_post_se, full_is_not_overflow,
	.summary = "a post refused with DAT_QUEUE_FULL puts nothing on the async EVD")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT q = dc_evd_param(t, evd).evd_qlen, nmore = 0;
	DAT_EVENT ev = sw_event(TAG(999));
	DAT_RETURN r;
	int old;

	DC_SETUP_ASSERT(q >= 4 && q <= 4096, "a 4-entry EVD reports evd_qlen %d",
			(int)q);
	old = dc_drain(t, t->async_evd);
	if (old)
		dc_note(t, "%d older async events were drained first", old);
	post_n(evd, 0, q);
	DC_SETUP_ASSERT(dc_ret_is(dat_evd_post_se(evd, &ev), DAT_QUEUE_FULL,
				  DC_ANY_SUBTYPE), "set-up: the post was not refused as full");
	/* the async EVD stays empty (watched for DC_QUIET_MS) */
	memset(&ev, 0, sizeof(ev));
	r = dat_evd_wait(t->async_evd, (DAT_TIMEOUT)DC_QUIET_MS * 1000u, 1, &ev, &nmore);
	DC_ASSERT(r != DAT_SUCCESS,
		  "the refused post produced %s (0x%x) on the async EVD",
		  dc_event_name(ev.event_number), (unsigned int)ev.event_number);
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);
}

/* Clause part: post_se to `evd` (no software stream) is refused, nothing queued. */
static void expect_no_software_stream(struct dc_ctx *t, DAT_EVD_HANDLE evd,
				      const char *what)
{
	DAT_EVENT ev = sw_event(TAG(1));
	struct dc_snap s;
	DAT_RETURN r;
	char b[128];

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	r = dat_evd_post_se(evd, &ev);
	snprintf(b, sizeof(b), "dat_evd_post_se on %s", what);
	note_ret(t, b, r);
	DC_ASSERT(dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE) ||
		  dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
		  "%s returned %s, expected DAT_INVALID_PARAMETER or DAT_INVALID_HANDLE",
		  b, dc_ret_text(r));
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_post_se, non_software_evd,
	.summary = "post_se to an EVD without DAT_EVD_SOFTWARE_FLAG is refused and queues nothing")
{
	DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE def = DAT_HANDLE_NULL;
	DAT_RETURN r;

	expect_no_software_stream(t, dto, "an EVD created with DAT_EVD_DTO_FLAG");
	r = dat_evd_create(t->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DEFAULT_FLAG, &def);
	if (r == DAT_SUCCESS)
		expect_no_software_stream(t, def, "an EVD created with DAT_EVD_DEFAULT_FLAG");
	else
		dc_note(t, "dat_evd_create(DAT_EVD_DEFAULT_FLAG) returned %s: that half was skipped",
			dc_ret_text(r));
}

DC_CASE(dat_evd_post_se, invalid_event,
	.summary = "a NULL event or a non-software event gives DAT_INVALID_PARAMETER")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVENT ev;
	DAT_RETURN r;

	r = dat_evd_post_se(evd, NULL);
	note_ret(t, "dat_evd_post_se(NULL event)", r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	ev = sw_event(TAG(1));
	ev.event_number = DAT_DTO_COMPLETION_EVENT;
	r = dat_evd_post_se(evd, &ev);
	note_ret(t, "dat_evd_post_se(DAT_DTO_COMPLETION_EVENT)", r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	DC_ASSERT_NO_EVENT(evd);
}

/* Clause: dat_evd_post_se refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_EVENT ev = sw_event(TAG(1));
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_post_se(bad[i], &ev);
		snprintf(what, sizeof(what), "dat_evd_post_se(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_post_se, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_post_se, invalid_handle_freed,
	.clauses = "dat_evd_post_se.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}
