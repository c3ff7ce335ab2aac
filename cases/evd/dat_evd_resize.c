/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_resize(3DAT); clauses in clauses/dat_evd_resize.toml.
 */
#include "evd_common.h"

/* Clause part: the EVD reports room for `want` and takes `want` posts. */
static void expect_room(struct dc_ctx *t, DAT_EVD_HANDLE evd, DAT_COUNT want)
{
	DAT_EVD_PARAM p = DC_EVD_PARAM(evd);

	DC_ASSERT(p.evd_qlen >= want, "after resize to %d the EVD reports evd_qlen %d",
		  (int)want, (int)p.evd_qlen);
	for (DAT_COUNT i = 0; i < want; i++) {
		DAT_EVENT ev = sw_event(TAG(i));
		DAT_RETURN r = dat_evd_post_se(evd, &ev);

		DC_ASSERT(r == DAT_SUCCESS, "after resize to %d, post %d returned %s",
			  (int)want, (int)i + 1, dc_ret_text(r));
	}
	DC_ASSERT_EQ(dc_drain(t, evd), want);
}

DC_CASE(dat_evd_resize, resizes,
	.summary = "resize 4 -> 32 -> 8 -> 1: each time the queue takes at least the new length")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);

	DC_ASSERT_SUCCESS(dat_evd_resize(evd, 32));
	expect_room(t, evd, 32);
	DC_ASSERT_SUCCESS(dat_evd_resize(evd, 8));
	expect_room(t, evd, 8);
	/* the lowest length there is: a queue of one event (PARAMETERS; only
	 * a length below one is invalid) */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_evd_resize(evd, 1));
	expect_room(t, evd, 1);
}

/* The clause's own resize: only a lack of resources may refuse it. */
static void resize_keeping(struct dc_ctx *t, DAT_EVD_HANDLE evd, DAT_COUNT qlen)
{
	DAT_RETURN r = dat_evd_resize(evd, qlen);

	if (DAT_GET_TYPE(r) != DAT_INSUFFICIENT_RESOURCES)
		DC_ASSERT_SUCCESS(r);
	DC_SETUP(r);
}

DC_CASE(dat_evd_resize, keeps_events,
	.summary = "5 queued events survive resizes to 64 and back to exactly 5, in order")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);

	post_n(evd, 1, 5);
	/* the resizes are the clause's own calls: only a lack of resources
	 * (RETURN VALUES) may refuse them; exactly the queued count is not
	 * fewer entries than are queued (DESCRIPTION), so no DAT_INVALID_STATE */
	resize_keeping(t, evd, 64);
	resize_keeping(t, evd, 5);
	EXPECT_SW_N(evd, 1, 5);
	DC_ASSERT_NO_EVENT(evd);
}

/*
 * The same with a queue whose oldest event is no longer where the first
 * was posted: events have been taken and new ones posted after them, past
 * the end of the EVD's length (however the provider stores them).
 */
DC_CASE(dat_evd_resize, keeps_events_after_dequeues,
	.clauses = "dat_evd_resize.keeps_events",
	.summary = "a full queue, 3 taken, 2 more posted: the queued events survive resizes up and back to their count, in order")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_COUNT q = DC_EVD_PARAM(evd).evd_qlen;

	DC_SETUP_ASSERT(q >= 4 && q <= 4096,
			"the provider made an 8-entry EVD %d entries long", (int)q);
	post_n(evd, 0, q);
	EXPECT_SW_N(evd, 0, 3);
	post_n(evd, q, 2);		/* q - 1 queued: TAG(3) .. TAG(q + 1) */
	resize_keeping(t, evd, 2 * q + 8);
	resize_keeping(t, evd, q - 1);
	EXPECT_SW_N(evd, 3, q - 1);
	DC_ASSERT_NO_EVENT(evd);
}

/*
 * One below the queued count (the boundary itself: 5 with 6 queued), then
 * well below it (3).  Each is refused with the EVD unchanged, or succeeds
 * without losing an event (dat_evd_resize(3DAT) DESCRIPTION).
 */
DC_CASE(dat_evd_resize, below_queued,
	.summary = "resize to 5, then 3, with 6 queued: DAT_INVALID_STATE and unchanged, or success that keeps all 6")
{
	static const DAT_COUNT lens[] = { 5, 3 };
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_snap s;
	DAT_RETURN r;
	char what[64];

	post_n(evd, 0, 6);
	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		dc_snapshot(t, DC_OBJ_EVD, evd, &s);
		r = dat_evd_resize(evd, lens[i]);
		snprintf(what, sizeof(what), "dat_evd_resize(%d) with 6 events queued", (int)lens[i]);
		note_ret(t, what, r);
		DC_ASSERT_RET_ANY(r, DAT_INVALID_STATE, DAT_SUCCESS);
		if (r == DAT_SUCCESS)
			DC_ASSERT_GE(DC_EVD_PARAM(evd).evd_qlen, 6);
		else
			DC_ASSERT_UNCHANGED(&s);
	}
	EXPECT_SW_N(evd, 0, 6);
	DC_ASSERT_NO_EVENT(evd);
}

/* Clause part: resize(evd, bad) is refused with one of the types; nothing changes. */
/*
 * The resize is refused with DAT_INVALID_PARAMETER, or with `also` (0: none)
 * where a second listed error applies to the same call, and nothing changes.
 */
static void expect_refused(struct dc_ctx *t, DAT_EVD_HANDLE evd, DAT_COUNT bad,
			   DAT_RETURN also)
{
	struct dc_snap s;
	char what[64];
	DAT_RETURN r;

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	r = dat_evd_resize(evd, bad);
	snprintf(what, sizeof(what), "dat_evd_resize(%d)", (int)bad);
	note_ret(t, what, r);
	if (also)
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE) ||
			  dc_ret_is(r, also, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_PARAMETER or %s",
			  what, dc_ret_text(r), dc_ret_text(also));
	else
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_PARAMETER", what, dc_ret_text(r));
	DC_ASSERT_UNCHANGED(&s);
}

/*
 * A length below the number of queued events is an invalid state as well
 * (dat_evd_resize(3DAT) DESCRIPTION and RETURN VALUES), and the page does not
 * order the two errors (review finding): where both apply, either is right.
 * Only 0 on an empty queue meets one alone; -5 is below even an empty
 * queue's count.  The events must stay.
 */
DC_CASE(dat_evd_resize, invalid_qlen,
	.summary = "resize to 0 or -5 gives DAT_INVALID_PARAMETER (or INVALID_STATE with events queued) and changes nothing")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);

	expect_refused(t, evd, 0, 0);
	expect_refused(t, evd, -5, DAT_INVALID_STATE);
	post_n(evd, 0, 2);
	expect_refused(t, evd, 0, DAT_INVALID_STATE);
	expect_refused(t, evd, -5, DAT_INVALID_STATE);
	EXPECT_SW_N(evd, 0, 2);
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_evd_resize, above_max,
	.summary = "resize to max_evd_qlen + 1 is refused and changes nothing; max_evd_qlen itself is no invalid length")
{
	DAT_COUNT max = t->ia_attr.max_evd_qlen;
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_RETURN r;

	DC_SETUP_ASSERT(max > 0 && max < 0x7fffffff,
			"max_evd_qlen %d leaves no larger DAT_COUNT to try", (int)max);
	post_n(evd, 0, 2);
	expect_refused(t, evd, max + 1, DAT_INSUFFICIENT_RESOURCES);
	EXPECT_SW_N(evd, 0, 2);
	DC_ASSERT_NO_EVENT(evd);
	/* the boundary: the IA's largest queue (dat_ia_query(3DAT)) is a
	 * length it supports; only resources may stand in its way */
	if (max > (1 << 20)) {
		dc_note(t, "max_evd_qlen %d: resizing to it was skipped (memory)", (int)max);
		return;
	}
	r = dat_evd_resize(evd, max);
	note_ret(t, "dat_evd_resize(max_evd_qlen)", r);
	DC_ASSERT(r == DAT_SUCCESS || dc_ret_is(r, DAT_INSUFFICIENT_RESOURCES, DC_ANY_SUBTYPE),
		  "dat_evd_resize(max_evd_qlen = %d) returned %s, expected DAT_SUCCESS or DAT_INSUFFICIENT_RESOURCES",
		  (int)max, dc_ret_text(r));
	if (r == DAT_SUCCESS)
		DC_ASSERT_GE(DC_EVD_PARAM(evd).evd_qlen, max);
}

/* Clause: dat_evd_resize refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_resize(bad[i], 16);
		snprintf(what, sizeof(what), "dat_evd_resize(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_resize, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_resize, invalid_handle_freed,
	.clauses = "dat_evd_resize.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}

/*
 * Out of memory (the allocation fault hook): each allocation of a resize
 * failing in turn (4 -> 64, then 64 -> 8), dat_evd_resize gives
 * DAT_INSUFFICIENT_RESOURCES (dat_evd_resize(3DAT) RETURN VALUES) or
 * DAT_SUCCESS with room for the new length.  Either way the EVD goes on
 * working: the 3 events queued before are dequeued in order (a should:
 * DESCRIPTION, no event lost), and it takes as many posts as its query
 * reports room for.
 */
struct oom_resize {
	DAT_EVD_HANDLE evd;
	DAT_COUNT qlen;
};

static DAT_RETURN oom_resize_make(struct dc_ctx *t, void *arg)
{
	struct oom_resize *o = arg;

	(void)t;
	return dat_evd_resize(o->evd, o->qlen);
}

static void oom_resize_after(struct dc_ctx *t, void *arg, DAT_RETURN r)
{
	struct oom_resize *o = arg;
	DAT_EVD_PARAM p = DC_EVD_PARAM(o->evd);
	DAT_EVENT ev;

	if (r == DAT_SUCCESS)
		DC_ASSERT(p.evd_qlen >= o->qlen, "after resize to %d the EVD reports evd_qlen %d",
			  (int)o->qlen, (int)p.evd_qlen);
	DC_FOR_CLAUSE("dat_evd_resize.keeps_events");
	for (int i = 0; i < 3; i++) {
		/* collateral: dat_evd_resize(3DAT) DESCRIPTION: the events queued before the resize are still there, in order */
		DC_ASSERT_SUCCESS(dat_evd_dequeue(o->evd, &ev));
		check_sw_at(t, __FILE__, __LINE__, "after a resize that met a failure", &ev,
			    o->evd, TAG(i));
	}
	DC_FOR_CLAUSE("dat_evd_resize.insufficient_resources");
	expect_room(t, o->evd, p.evd_qlen);
	post_n(o->evd, 0, 3);
}

DC_CASE(dat_evd_resize, out_of_memory,
	.clauses = "dat_evd_resize.insufficient_resources dat_evd_resize.keeps_events",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of a resize failing in turn: DAT_INSUFFICIENT_RESOURCES or the new length, and the EVD keeps its events and takes posts")
{
	struct oom_resize o = { dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG), 64 };
	struct dc_alloc_call c = { "dat_evd_resize", oom_resize_make, NULL, &o, oom_resize_after };

	o.qlen = dc_within_limit(64, t->ia_attr.max_evd_qlen);
	post_n(o.evd, 0, 3);
	if (dc_alloc_sweep(t, &c) < 0)
		return;
	o.qlen = 8;
	dc_alloc_sweep(t, &c);
}
