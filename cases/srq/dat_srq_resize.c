/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_srq_resize(3DAT); clauses in clauses/dat_srq_resize.toml.
 * Every refused resize is checked to leave the SRQ exactly as it was
 * (dc_snapshot before, DC_ASSERT_UNCHANGED after).
 */
#include "srq_common.h"
#include "srq_hold.h"

#include <limits.h>

DC_CASE(dat_srq_resize, grows,
	.summary = "growing 4 -> 8 succeeds, the query shows >= 8 and 8 buffers fit",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 4, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;

	dc_lmr(t, pz, 8 * SLOT, DC_PRIV_LOCAL, &m);
	/* a growth refused for resources is allowed (RETURN VALUES): then
	 * nothing is shown, either way */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_srq_resize(srq, 8));
	DC_ASSERT_GE(DC_SRQ_PARAM(srq).max_recv_dtos, 8);
	for (unsigned k = 0; k < 8; k++) {
		DAT_LMR_TRIPLET iov = dc_iov(&m, (DAT_VLEN)k * SLOT, SLOT);

		/* collateral: dat_srq_resize(3DAT) DESCRIPTION: the new depth shows as the SRQ taking that many buffers */
		DC_ASSERT_SUCCESS(dat_srq_post_recv(srq, 1, &iov, dc_cookie(k)));
	}
}

SRQ_CASE(dat_srq_resize, no_incoming_message_lost,
	.summary = "Sends arriving around resizes up and down all complete, in order",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .depth = 12 };
	/* up as far as the IA allows, at most 32 (dat_ia_query(3DAT): Max
	 * receives per SRQ is the IA's own) */
	DAT_COUNT up = dc_within_limit(32, t->ia_attr.max_recv_per_srq);

	DC_NEED_REPORTED_LIMIT("max_recv_per_srq", t->ia_attr.max_recv_per_srq, 13);
	link_up(&l, &o);
	post_slots(l.srq, &l.rbuf, 0, 12);
	for (unsigned i = 0; i < 4; i++)
		link_send(&l, i, 64);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_srq_resize(l.srq, up));	/* as in grows */
	for (unsigned i = 4; i < 8; i++)
		link_send(&l, i, 64);
	DC_ASSERT_SUCCESS(dat_srq_resize(l.srq, 12));	/* >= the 12 outstanding */
	for (unsigned i = 8; i < 12; i++)
		link_send(&l, i, 64);
	expect_in_send_order(t, &l, 0, 12);
}

DC_CASE(dat_srq_resize, below_outstanding_on_srq,
	.summary = "5 buffers on the SRQ, resize to 4: DAT_INVALID_STATE, SRQ unchanged; resize to 5 accepted",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	struct dc_snap s;

	dc_lmr(t, pz, 5 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 5);
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	DC_ASSERT_RET(dat_srq_resize(srq, 4), DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&s);
	/* the boundary: only more outstanding buffers than the requested
	 * length is refused (dat_srq_resize(3DAT) DESCRIPTION), so exactly 5 is
	 * not; the Provider need not shrink at all (USAGE) */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_srq_resize(srq, 5));
}

/*
 * With the hooks two buffers are frozen at the EP (2 left on the SRQ);
 * without them one is caught under way by watching (3 left), and the
 * resize is confirmed to have run while it was (srq_hold.h).  Either way
 * the buffers on the SRQ alone would allow a resize to 3.
 */
SRQ_CASE(dat_srq_resize, below_outstanding_held_by_ep,
	.summary = "of 4 buffers, 2 (or 1, caught under way) held mid-arrival by the EP, resize to 3: DAT_INVALID_STATE, unchanged",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .depth = 8, .long_msgs = true };
	struct srq_hold h;
	struct dc_snap s;
	unsigned taken;
	DAT_RETURN r;

	link_up(&l, &o);
	post_slots_catchable(&l, 4);
	taken = link_take_mid_arrival(&l, &h);	/* 4 - taken on the SRQ, taken at the EP */
	dc_snapshot(t, DC_OBJ_SRQ, l.srq, &s);
	r = dat_srq_resize(l.srq, 3);
	link_still_arriving(&l);
	dc_assert_ret_at(t, __FILE__, __LINE__, "dat_srq_resize(l.srq, 3)", r, DC_FAIL,
			 1, (const DAT_RETURN[]){ DAT_INVALID_STATE }, DC_ANY_SUBTYPE);
	DC_ASSERT_UNCHANGED(&s);
	link_release_held(&h);
	if (taken == 2)
		expect_in_send_order(t, &l, 0, 2);	/* and nothing was lost */
	else
		DC_ASSERT_EQ(DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd).user_cookie.as_64, 0);
}

SRQ_CASE(dat_srq_resize, below_outstanding_unreaped,
	.summary = "3 of 4 buffers completed but not reaped, resize to 3: DAT_INVALID_STATE; after reaping it passes",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .depth = 8 };
	struct dc_snap s;

	link_up(&l, &o);
	post_slots(l.srq, &l.rbuf, 0, 4);
	link_arrive_unreaped(&l, 3, 1);
	dc_snapshot(t, DC_OBJ_SRQ, l.srq, &s);
	DC_ASSERT_RET(dat_srq_resize(l.srq, 3), DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED_EXCEPT(&s, "available_dto_count");
	expect_in_send_order(t, &l, 0, 3);	/* reap them */
	DC_ASSERT_SUCCESS(dat_srq_resize(l.srq, 3));
}

/*
 * The same with a completion in error (issue 54: accounting tried with
 * successful completions only): the completion, not reaped, keeps the
 * entry outstanding whatever its status (dat_srq_resize(3DAT) DESCRIPTION
 * counts the buffers posted to the SRQ whose completions are not reaped).
 * Failed: a message longer than the buffer it takes.  Flushed: a buffer an
 * EP took for a message still arriving when it leaves the connection
 * (dat_srq_post_recv(3DAT) DESCRIPTION: queued on its recv EVD), frozen with
 * the reference provider's hooks or caught by watching (srq_hold.h).  4 posted, 1 in error and
 * not reaped, 3 on the SRQ: resize to 3 is refused; once the completion is
 * dequeued, it is not.
 */
static void below_outstanding_in_error(struct dc_ctx *t, bool flushed)
{
	struct srq_link l;
	struct link_opts o = { .depth = 8, .long_msgs = flushed };
	struct dc_snap s;

	link_up(&l, &o);
	if (flushed)
		post_slots_catchable(&l, 4);
	else
		post_slots(l.srq, &l.rbuf, 0, 4);
	link_one_in_error(&l, flushed);
	dc_snapshot(t, DC_OBJ_SRQ, l.srq, &s);
	DC_ASSERT_RET(dat_srq_resize(l.srq, 3), DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED_EXCEPT(&s, "available_dto_count");
	link_reap_in_error(&l, flushed);
	DC_ASSERT_SUCCESS(dat_srq_resize(l.srq, 3));
}

SRQ_CASE(dat_srq_resize, below_outstanding_failed_unreaped,
	.clauses = "dat_srq_resize.below_outstanding_unreaped",
	.summary = "1 of 4 buffers completed in error (too long a message), not reaped: resize to 3 gives DAT_INVALID_STATE; after reaping it passes",
	.requires = "srq_supported")
{
	below_outstanding_in_error(t, false);
}

SRQ_CASE(dat_srq_resize, below_outstanding_flushed_unreaped,
	.clauses = "dat_srq_resize.below_outstanding_unreaped",
	.summary = "1 of 4 buffers flushed at a disconnect, not reaped: resize to 3 gives DAT_INVALID_STATE; after reaping it passes",
	.requires = "srq_supported")
{
	below_outstanding_in_error(t, true);
}

/*
 * The other way a completion leaves the recv EVD: with the EVD itself.
 * Once the EP is freed and then its recv EVD, the buffers whose
 * completions were queued there are in none of the places the page
 * counts (on the SRQ, at an EP of the SRQ, completed on the recv EVD of
 * one): dat_evd_free(3DAT) loses every queued event.
 */
DC_CASE(dat_srq_resize, unreaped_lost_with_evd,
	.summary = "2 of 4 buffers completed, their EP and recv EVD freed: only the 2 on the SRQ are outstanding, a resize to 2 is not refused",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .depth = 8 };

	link_up(&l, &o);
	post_slots(l.srq, &l.rbuf, 0, 4);
	link_arrive_unreaped(&l, 2, 2);
	DC_SETUP(dat_ep_free(l.rx.ep));
	DC_SETUP(dat_evd_free(l.rx.recv_evd));
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_srq_resize(l.srq, 2));
	/* collateral: dat_srq_query(3DAT) DESCRIPTION: the occupied entries are the 2 still on the SRQ */
	ASSERT_COUNT(DC_SRQ_PARAM(l.srq).outstanding_dto_count, 2);
}

/*
 * The same with a completion in error among the lost ones (issue 54):
 * one buffer failed (a message too long) or flushed (taken mid-arrival,
 * the EP disconnected), its completion not reaped; once the EP and its
 * recv EVD are freed, that entry is in none of the places the page counts
 * either: only the 3 on the SRQ are outstanding, a resize to 3 is not
 * refused.
 */
static void lost_with_evd_in_error(struct dc_ctx *t, bool flushed)
{
	struct srq_link l;
	struct link_opts o = { .depth = 8, .long_msgs = flushed };

	for (int tries = 1;; tries++) {
		link_up(&l, &o);
		if (flushed)
			post_slots_catchable(&l, 4);
		else
			post_slots(l.srq, &l.rbuf, 0, 4);
		if (link_one_in_error_try(&l, flushed, tries))
			break;
	}
	DC_SETUP(dat_ep_free(l.rx.ep));
	DC_SETUP(dat_evd_free(l.rx.recv_evd));
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_srq_resize(l.srq, 3));
	/* collateral: dat_srq_query(3DAT) DESCRIPTION: the occupied entries are the 3 still on the SRQ */
	ASSERT_COUNT(DC_SRQ_PARAM(l.srq).outstanding_dto_count, 3);
}

DC_CASE(dat_srq_resize, unreaped_failed_lost_with_evd,
	.clauses = "dat_srq_resize.unreaped_lost_with_evd",
	.summary = "1 of 4 buffers completed in error, its EP and recv EVD freed: only the 3 on the SRQ are outstanding, a resize to 3 is not refused",
	.requires = "srq_supported")
{
	lost_with_evd_in_error(t, false);
}

/* Two-node: on sock a message from a sender in the same process was
 * placed whole before the watch saw it, three links in a row, in one run
 * of six (srq_hold.h); one from the other half is caught. */
SRQ_CASE(dat_srq_resize, unreaped_flushed_lost_with_evd,
	.clauses = "dat_srq_resize.unreaped_lost_with_evd",
	.summary = "1 of 4 buffers flushed at a disconnect, its EP and recv EVD freed: only the 3 on the SRQ are outstanding, a resize to 3 is not refused",
	.requires = "srq_supported")
{
	lost_with_evd_in_error(t, true);
}

DC_CASE(dat_srq_resize, below_low_watermark,
	.summary = "depth 8, low watermark 4, resize to 3: DAT_INVALID_STATE, SRQ unchanged; resize to 4 accepted",
	.requires = "srq_supported srq_watermarks_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	struct dc_snap s;

	dc_lmr(t, pz, 6 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 2);	/* 2 outstanding: below 3, so only the watermark forbids it */
	DC_SETUP(dat_srq_set_lw(srq, 4));
	dc_drain(t, t->async_evd);	/* 2 < 4: the watermark event, not this clause */
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	DC_ASSERT_RET(dat_srq_resize(srq, 3), DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&s);
	/* the boundary: only a length below the watermark is refused
	 * (dat_srq_resize(3DAT) DESCRIPTION), so exactly 4 is not */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_srq_resize(srq, 4));
}

DC_CASE(dat_srq_resize, invalid_handle,
	.summary = "a NULL handle or a PZ handle gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DC_ASSERT_INVALID_HANDLE(dat_srq_resize(DAT_HANDLE_NULL, 8), 1, SRQ);
	DC_ASSERT_INVALID_HANDLE(dat_srq_resize((DAT_SRQ_HANDLE)dc_wrong_handle(t), 8), 1, SRQ);
}

DC_CASE(dat_srq_resize, invalid_size,
	.summary = "a negative depth (-5, and -1) gives DAT_INVALID_PARAMETER, SRQ unchanged",
	.requires = "srq_supported")
{
	DAT_SRQ_HANDLE srq = dc_srq(t, dc_pz(t), 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	DC_ASSERT_RET(dat_srq_resize(srq, -5), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_srq_resize(srq, -1), DAT_INVALID_PARAMETER);	/* the boundary */
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_srq_resize, insufficient_resources,
	.summary = "a depth above max_recv_per_srq fails for resources (or as invalid), SRQ unchanged",
	.requires = "srq_supported")
{
	DAT_COUNT max = t->ia_attr.max_recv_per_srq, ask = INT_MAX;
	DAT_SRQ_HANDLE srq = dc_srq(t, dc_pz(t), 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_snap s;
	DAT_RETURN r;

	/* above the IA's maximum; where it reports none (unwritten, or 0 on an
	 * IA that has SRQs), the largest depth a DAT_COUNT holds: a provider
	 * that supplies even that has shown no depth it cannot supply */
	if (max > 0 && max < INT_MAX)
		ask = max + 1;
	else
		dc_note(t, "the IA reports max_recv_per_srq %d: asking for %d", (int)max, INT_MAX);
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	r = dat_srq_resize(srq, ask);
	if (r == DAT_SUCCESS && ask == INT_MAX)
		DC_BEYOND_SUITE_BOUND("a depth the provider cannot supply",
				      "the SRQ was resized to %d", INT_MAX);
	DC_ASSERT_RET_ANY(r, DAT_INSUFFICIENT_RESOURCES, DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&s);
}

SRQ_CASE(dat_srq_resize, never_loses_buffers,
	.summary = "after growing, shrinking and a refused shrink, all 6 posted buffers are there and complete",
	.requires = "srq_supported")
{
	enum { N = 6 };
	struct srq_link l;
	struct link_opts o = { .depth = 8 };
	bool seen[N] = { false };
	DAT_SRQ_PARAM p;

	link_up(&l, &o);
	post_slots(l.srq, &l.rbuf, 0, N);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_srq_resize(l.srq, 16));	/* as in grows */
	DC_ASSERT_SUCCESS(dat_srq_resize(l.srq, N));
	DC_ASSERT_RET(dat_srq_resize(l.srq, 3), DAT_INVALID_STATE);
	p = DC_SRQ_PARAM(l.srq);
	DC_ASSERT_GE(p.max_recv_dtos, N);
	ASSERT_COUNT(p.available_dto_count, N);
	ASSERT_COUNT(p.outstanding_dto_count, N);
	for (unsigned i = 0; i < N; i++)
		link_send(&l, i, 64);
	for (unsigned i = 0; i < N; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);

		DC_ASSERT_LT(d.user_cookie.as_64, N);
		DC_ASSERT(!seen[d.user_cookie.as_64], "buffer %llu completed twice",
			  (unsigned long long)d.user_cookie.as_64);
		seen[d.user_cookie.as_64] = true;
	}
}

DC_CASE(dat_srq_resize, shrink_not_required,
	.summary = "16 -> 8 with 3 outstanding succeeds; the depth ends between 8 and 16",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 16, 1, DAT_SRQ_LW_DEFAULT);
	DAT_COUNT before = dc_srq_param(t, srq).max_recv_dtos, after;
	struct dc_lmr m;

	dc_lmr(t, pz, 3 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 3);
	DC_ASSERT_SUCCESS(dat_srq_resize(srq, 8));
	after = DC_SRQ_PARAM(srq).max_recv_dtos;
	dc_note(t, "depth %d -> %d (asked 8)", (int)before, (int)after);
	DC_ASSERT_GE(after, 8);
	DC_ASSERT_LE(after, before);
	ASSERT_COUNT(DC_SRQ_PARAM(srq).available_dto_count, 3);
}

DC_CASE(dat_srq_resize, shrink_precision,
	.summary = "quality: a shrink 16 -> 8 with room to spare leaves exactly 8",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 16, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;

	dc_lmr(t, pz, 3 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 3);
	/* set-up: the clause is about a shrink that succeeded; a refusal is
	 * allowed (dat_srq_resize(3DAT) RETURN VALUES: resource limitations) */
	DC_SETUP(dat_srq_resize(srq, 8));
	DC_ASSERT_EQ(DC_SRQ_PARAM(srq).max_recv_dtos, 8);
}
