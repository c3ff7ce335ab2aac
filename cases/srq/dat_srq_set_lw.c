/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_srq_set_lw(3DAT); clauses in clauses/dat_srq_set_lw.toml.
 *
 * The event is an asynchronous event on the IA async EVD naming the SRQ
 * with reason DAT_SRQ_LOW_WATERMARK_EVENT.  "Not before" is checked after
 * each arrival is visible as a completion: an EP takes the buffer before
 * the receive can complete, so an event due at that take is queued by then.
 */
#include "srq_common.h"
#include "srq_hold.h"

#define LW_EVENT DAT_SRQ_LOW_WATERMARK_EVENT

/* One message from tx, received and reaped. */
static void one_arrival(struct dc_ctx *t, struct srq_link *l, unsigned seq)
{
	link_send(l, seq, 64);
	(void)DC_ASSERT_DTO_SUCCESS(l->rx.recv_evd);
}

/* Clause: the async event is queued already (the call itself raised it). */
static void expect_async_now(struct dc_ctx *t, DAT_HANDLE h)
{
	dc_expect_async_at(t, __FILE__, __LINE__, h, LW_EVENT, 0);
}

DC_CASE(dat_srq_set_lw, sets_value,
	.summary = "the call succeeds and the query reports the new low watermark",
	.requires = "srq_supported srq_watermarks_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;

	dc_lmr(t, pz, 5 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 5);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, 3));
	DC_ASSERT_EQ(DC_SRQ_PARAM(srq).low_watermark, 3);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);		/* 5 buffers, not below 3 */
	/* the boundaries: only a value above max_recv_dtos is invalid
	 * (dat_srq_set_lw(3DAT) RETURN VALUES), so max_recv_dtos itself and
	 * 0 (DAT_SRQ_LW_DEFAULT, dat_srq_create(3DAT)) are set */
	{
		DAT_COUNT max = DC_SRQ_PARAM(srq).max_recv_dtos;

		DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, max));
		DC_ASSERT_EQ(DC_SRQ_PARAM(srq).low_watermark, max);
		DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, 0));
		DC_ASSERT_EQ(DC_SRQ_PARAM(srq).low_watermark, 0);
	}
}

SRQ_CASE(dat_srq_set_lw, event_when_count_drops_below,
	.summary = "watermark 2, 4 buffers: no event at 3 and 2 left, one event at 1 left",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 4);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(l.srq, 2));
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	one_arrival(t, &l, 0);		/* 3 left */
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	one_arrival(t, &l, 1);		/* 2 left: not below 2 */
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	one_arrival(t, &l, 2);		/* 1 left: below */
	DC_ASSERT_ASYNC_EVENT(l.srq, LW_EVENT);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
}

/*
 * A buffer an arrival takes counts the same when the arrival fails (issue
 * 54: accounting tried with successful completions only): the low
 * watermark compares the buffers left on the SRQ (dat_srq_set_lw(3DAT)
 * DESCRIPTION), and a message longer than the buffer it takes still took it
 * (the buffer completes with an error on the EP's recv EVD).  Watermark 4,
 * 4 buffers: no event; the failed arrival leaves 3: one event, before its
 * completion is reaped.
 */
SRQ_CASE(dat_srq_set_lw, event_for_failed_arrival,
	.clauses = "dat_srq_set_lw.event_when_count_drops_below",
	.summary = "watermark 4, 4 buffers: a message too long for the buffer it takes leaves 3, and the event comes",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 4);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(l.srq, 4));
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	link_send(&l, 0, SLOT + 64);		/* longer than the slot it lands in */
	link_await_failed(&l);
	DC_ASSERT_ASYNC_EVENT(l.srq, LW_EVENT);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	link_reap_in_error(&l, false);
}

DC_CASE(dat_srq_set_lw, event_during_call,
	.summary = "2 buffers, set watermark 3: the event is queued when the call returns",
	.requires = "srq_supported srq_watermarks_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;

	dc_lmr(t, pz, 2 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 2);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, 3));
	expect_async_now(t, srq);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
}

SRQ_CASE(dat_srq_set_lw, once_per_setting,
	.summary = "after the event, further drops below the watermark raise nothing",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 4);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(l.srq, 3));
	one_arrival(t, &l, 0);		/* 3 left */
	one_arrival(t, &l, 1);		/* 2 left: below 3 */
	DC_ASSERT_ASYNC_EVENT(l.srq, LW_EVENT);
	one_arrival(t, &l, 2);		/* 1 left */
	one_arrival(t, &l, 3);		/* 0 left */
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
}

SRQ_CASE(dat_srq_set_lw, rearm_for_another_event,
	.summary = "setting the watermark again after its event gives exactly one new event",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 3);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(l.srq, 2));
	one_arrival(t, &l, 0);
	one_arrival(t, &l, 1);		/* 1 left */
	DC_ASSERT_ASYNC_EVENT(l.srq, LW_EVENT);
	post_slots(l.srq, &l.rbuf, 3, 3);	/* replenish: 4 on the SRQ */
	DC_ASSERT_SUCCESS(dat_srq_set_lw(l.srq, 2));
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	one_arrival(t, &l, 2);		/* 3 left */
	one_arrival(t, &l, 3);		/* 2 left */
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	one_arrival(t, &l, 4);		/* 1 left */
	DC_ASSERT_ASYNC_EVENT(l.srq, LW_EVENT);
	one_arrival(t, &l, 5);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
}

DC_CASE(dat_srq_set_lw, invalid_handle,
	.summary = "a NULL handle or a PZ handle gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DC_ASSERT_INVALID_HANDLE(dat_srq_set_lw(DAT_HANDLE_NULL, 1), 1, SRQ);
	DC_ASSERT_INVALID_HANDLE(dat_srq_set_lw((DAT_SRQ_HANDLE)dc_wrong_handle(t), 1), 1, SRQ);
}

DC_CASE(dat_srq_set_lw, above_max_recv_dtos,
	.summary = "a watermark of max_recv_dtos + 1 gives DAT_INVALID_PARAMETER, nothing changes, no event",
	.requires = "srq_supported srq_watermarks_supported")
{
	DAT_SRQ_HANDLE srq = dc_srq(t, dc_pz(t), 8, 1, DAT_SRQ_LW_DEFAULT);
	DAT_COUNT max = dc_srq_param(t, srq).max_recv_dtos;
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	DC_ASSERT_RET(dat_srq_set_lw(srq, max + 1), DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
}

DC_CASE(dat_srq_set_lw, model_not_supported,
	.summary = "DAT_MODEL_NOT_SUPPORTED exactly when srq_watermarks_supported is 0",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	DAT_RETURN r;

	dc_lmr(t, pz, 4 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 4);
	r = dat_srq_set_lw(srq, 2);
	if (!dc_attr_reported(t, "srq_watermarks_supported")) {
		/* nothing advertised: the call alone says whether the provider
		 * has watermarks, and one without them answers DAT_MODEL_NOT_SUPPORTED
		 * (RETURN VALUES), not another code */
		DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_MODEL_NOT_SUPPORTED);
		return;
	}
	dc_note(t, "srq_watermarks_supported = %d", (int)t->prov_attr.srq_watermarks_supported);
	if (t->prov_attr.srq_watermarks_supported == 0)
		DC_ASSERT_RET(r, DAT_MODEL_NOT_SUPPORTED);
	else
		DC_ASSERT_SUCCESS(r);
}

DC_CASE(dat_srq_set_lw, replenish_after_event,
	.summary = "after the event the SRQ takes new buffers and its available count rises",
	.requires = "srq_supported srq_watermarks_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	DAT_SRQ_PARAM p;

	dc_lmr(t, pz, 4 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 1);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, 2));	/* the clause's own call */
	dc_expect_async_at(t, __FILE__, __LINE__, srq, LW_EVENT, -1);
	post_slots(srq, &m, 1, 3);
	p = DC_SRQ_PARAM(srq);
	ASSERT_COUNT(p.available_dto_count, 4);
	DC_ASSERT_EQ(p.srq_state, DAT_SRQ_STATE_OPERATIONAL);
}

DC_CASE(dat_srq_set_lw, set_regardless_of_prior_event,
	.summary = "after an event: a watermark at/below the count just replaces the value, one above fires at once",
	.requires = "srq_supported srq_watermarks_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;

	dc_lmr(t, pz, 4 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 2);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, 3));	/* 2 < 3: an event is raised */
	dc_expect_async_at(t, __FILE__, __LINE__, srq, LW_EVENT, -1);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, 2));	/* 2 is not below 2 */
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	DC_ASSERT_EQ(DC_SRQ_PARAM(srq).low_watermark, 2);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, 1));
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
	DC_ASSERT_EQ(DC_SRQ_PARAM(srq).low_watermark, 1);
	DC_ASSERT_SUCCESS(dat_srq_set_lw(srq, 4));	/* 2 < 4: at once */
	expect_async_now(t, srq);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
}
