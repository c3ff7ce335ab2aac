/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_ep_set_watermark(3DAT); clauses in
 * clauses/dat_ep_set_watermark.toml.
 *
 * "Buffers at the EP" = buffers taken and not completed (dat_ep_recv_query's
 * count).  They are staged one by one with the hold hooks (srq_hold.h):
 * each hold_partial() makes one more buffer sit at the EP, and an event it
 * causes is queued by the time the hook returns.  The soft event is an
 * async event naming the EP with reason DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT;
 * the hard watermark breaks the connection (DAT_CONNECTION_EVENT_BROKEN).
 */
#include "srq_common.h"
#include "srq_hold.h"

#define INF DAT_WATERMARK_INFINITE
#define SOFT_EVENT DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT

/* Set-up: connected link; n Sends held whole at rx (MSN 0..n-1). */
static void staged_with(struct dc_ctx *t, struct srq_link *l, struct srq_hold *h,
			unsigned n, const struct link_opts *o)
{
	link_up(l, o);
	post_slots(l->srq, &l->rbuf, 0, 12);
	hold_begin(h, l);
	for (unsigned i = 0; i < n; i++)
		link_send(l, i, 64);
	hold_await_whole(h, (DAT_COUNT)n);
}

static void staged(struct dc_ctx *t, struct srq_link *l, struct srq_hold *h,
		   unsigned n)
{
	staged_with(t, l, h, n, NULL);
}

/* Set-up: buffer for Send msn taken: one more buffer at the EP. */
#define take(h, msn) DC_SETUP(hold_partial((h), (msn)))

/*
 * The same where taking the buffer is the clause's scenario (no watermark
 * may act): a take that fails because the connection broke is a FAIL.
 */
static void take_unbroken_at(struct dc_ctx *t, const char *file, int line,
			     struct srq_link *l, struct srq_hold *h,
			     unsigned msn)
{
	DAT_RETURN r = hold_partial(h, msn);
	DAT_EVENT ev;

	if (r != DAT_SUCCESS && dc_wait_event(t, l->rx.conn_evd, 0, &ev) ==
				 DAT_SUCCESS &&
	    ev.event_number == DAT_CONNECTION_EVENT_BROKEN)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "the connection broke when buffer %u was taken, with no watermark set",
			  msn + 1);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: taking the buffer of Send %u failed: %s", msn, dc_ret_text(r));
}
#define take_unbroken(l, h, msn) take_unbroken_at(t, __FILE__, __LINE__, (l), (h), (msn))

static void expect_soft_event_now(struct dc_ctx *t, DAT_EP_HANDLE ep)
{
	dc_expect_async_at(t, __FILE__, __LINE__, ep, SOFT_EVENT, 0);
}

static void expect_broken(struct dc_ctx *t, struct srq_link *l)
{
	DAT_EVENT ev;
	DAT_RETURN r = dc_wait_event(t, l->rx.conn_evd, -1, &ev);

	DC_ASSERT(r == DAT_SUCCESS, "no connection event on the connect EVD (%s)", dc_ret_text(r));
	DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_BROKEN,
		  "expected DAT_CONNECTION_EVENT_BROKEN, got %s", dc_event_name(ev.event_number));
}

/* ---- DESCRIPTION -------------------------------------------------------- */

SRQ_CASE(dat_ep_set_watermark, soft_event_when_exceeded,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "soft 2: no event at 1 and 2 buffers at the EP, one event at 3",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct srq_hold h;

	staged(t, &l, &h, 3);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 2, INF));
	take(&h, 0);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	take(&h, 1);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);		/* 2 is not above 2 */
	take(&h, 2);
	expect_soft_event_now(t, l.rx.ep);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	DC_ASSERT_NO_EVENT(l.rx.conn_evd);	/* the soft watermark breaks nothing */
}

/*
 * The same two clauses with an ordinary arrival, no hold hook: the only
 * buffer a Send takes from the SRQ is already above a watermark of 0.
 * Set-up of both: a connected link with 4 buffers posted, the watermarks
 * set (nothing happens in the call: no buffer is at the EP yet), then one
 * Send from tx.  The page gives the watermarks no range, so a provider may
 * take 0 for an invalid parameter: the case is then not demonstrated.
 */
static void one_plain_arrival(struct dc_ctx *t, struct srq_link *l, DAT_COUNT soft,
			      DAT_COUNT hard)
{
	link_up(l, NULL);
	post_slots(l->srq, &l->rbuf, 0, 4);
	DC_SETUP(dat_ep_set_watermark(l->rx.ep, soft, hard));
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	DC_ASSERT_NO_EVENT(l->rx.conn_evd);
	link_send(l, 0, 64);
}

DC_CASE(dat_ep_set_watermark, soft_event_on_plain_arrival,
	.summary = "soft 0: the buffer an ordinary Send takes raises the soft event naming the EP",
	.clauses = "dat_ep_set_watermark.soft_event_when_exceeded",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;

	one_plain_arrival(t, &l, 0, INF);
	DC_SETUP_DTO(l.rx.recv_evd, 0, DAT_DTO_SUCCESS);
	DC_ASSERT_ASYNC_EVENT(l.rx.ep, SOFT_EVENT);
	DC_ASSERT_NO_EVENT(l.rx.conn_evd);	/* the soft watermark breaks nothing */
}

/*
 * The same with an arrival that fails (issue 54: accounting tried with
 * successful completions only): a message longer than the SRQ buffer it
 * takes still took it, and the soft event comes when the EP takes a buffer
 * (dat_ep_set_watermark(3DAT) DESCRIPTION), whatever the arrival then does:
 * soft 0, the event naming the EP, the buffer completing with an error on
 * the recv EVD (dat_ep_post_recv(3DAT) DESCRIPTION).
 */
DC_CASE(dat_ep_set_watermark, soft_event_on_failed_arrival,
	.summary = "soft 0: the buffer a Send too long for it takes raises the soft event naming the EP",
	.clauses = "dat_ep_set_watermark.soft_event_when_exceeded",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 4);
	DC_SETUP(dat_ep_set_watermark(l.rx.ep, 0, INF));
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	link_send(&l, 0, SLOT + 64);		/* longer than the slot it lands in */
	link_await_failed(&l);
	DC_ASSERT_ASYNC_EVENT(l.rx.ep, SOFT_EVENT);
	link_reap_in_error(&l, false);
}

DC_CASE(dat_ep_set_watermark, hard_breaks_on_plain_arrival,
	.summary = "hard 0: the buffer an ordinary Send takes breaks the connection",
	.clauses = "dat_ep_set_watermark.hard_breaks_connection",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;

	one_plain_arrival(t, &l, INF, 0);
	expect_broken(t, &l);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);	/* no soft event: soft is infinite */
}

SRQ_CASE(dat_ep_set_watermark, hard_breaks_connection,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "hard 2: the connection holds with 2 buffers at the EP and breaks at the 3rd",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct srq_hold h;

	staged(t, &l, &h, 3);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, INF, 2));
	take(&h, 0);
	take(&h, 1);
	DC_ASSERT_NO_EVENT(l.rx.conn_evd);
	DC_ASSERT_EQ(dc_ep_param(t, l.rx.ep).ep_state, DAT_EP_STATE_CONNECTED);
	(void)hold_partial(&h, 2);	/* may fail: the connection is going */
	expect_broken(t, &l);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);		/* no soft event: soft is infinite */
}

/*
 * The same rule in DISCONNECT_PENDING: the page gives the hard watermark no
 * state but the connection (USAGE: armed from establishment; DESCRIPTION:
 * the call is allowed in every state, and the break can come within it),
 * and a graceful disconnect keeps the connection until its requests are
 * done (dat_ep_disconnect(3DAT) DESCRIPTION).  rx holds 2 buffers, posts a
 * Send the peer has no Receive for (it stays outstanding, so the graceful
 * disconnect waits), disconnects gracefully, then sets hard 1: the
 * connection must break.  DISCONNECTED instead is not demonstrated: the
 * disconnect may have finished before the call.
 */
SRQ_CASE(dat_ep_set_watermark, hard_breaks_in_disconnect_pending,
	.clauses = "dat_ep_set_watermark.hard_breaks_connection",
	.needs = SRQ_HOLD_NEEDS,
	.summary = "2 buffers at an EP in DISCONNECT_PENDING, set hard 1: the connection breaks",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct srq_hold h;
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev, dto;
	DAT_RETURN r;

	staged(t, &l, &h, 2);
	take(&h, 0);
	take(&h, 1);
	iov = dc_iov(&l.rbuf, LINK_BUF - SLOT, 64);
	DC_SETUP(dat_ep_post_send(l.rx.ep, 1, &iov, dc_cookie(77), DAT_COMPLETION_DEFAULT_FLAG));
	DC_SETUP(dat_ep_disconnect(l.rx.ep, DAT_CLOSE_GRACEFUL_FLAG));
	DC_SETUP_ASSERT(dc_ep_param(t, l.rx.ep).ep_state == DAT_EP_STATE_DISCONNECT_PENDING,
			"set-up: after the graceful disconnect the EP is not DISCONNECT_PENDING");
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, INF, 1));
	r = dc_wait_event(t, l.rx.conn_evd, -1, &ev);
	DC_ASSERT(r == DAT_SUCCESS, "no connection event on the connect EVD (%s)", dc_ret_text(r));
	/* a graceful disconnect's requests only try to complete (dat_ep_disconnect
	 * DESCRIPTION): one that ended by itself, its Send completed or failed,
	 * may have ended before the call, leaving no connection to break */
	if (ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED)
		DC_UNRESOLVED("the graceful disconnect ended (DISCONNECTED, the Send %s): it may "
			      "have done so before the call",
			      dc_wait_event(t, l.rx.req_evd, 0, &dto) == DAT_SUCCESS &&
			      dto.event_number == DAT_DTO_COMPLETION_EVENT ?
			      (dto.event_data.dto_completion_event_data.status == DAT_DTO_SUCCESS ?
			       "completed" : "completed in error") : "still outstanding");
	DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_BROKEN,
		  "expected DAT_CONNECTION_EVENT_BROKEN, got %s", dc_event_name(ev.event_number));
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);		/* no soft event: soft is infinite */
}

SRQ_CASE(dat_ep_set_watermark, event_during_call,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "3 buffers at the EP, set soft 1: the event is queued when the call returns",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct srq_hold h;

	staged(t, &l, &h, 3);
	take(&h, 0);
	take(&h, 1);
	take(&h, 2);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 1, INF));
	expect_soft_event_now(t, l.rx.ep);
}

DC_CASE(dat_ep_set_watermark, soft_hard_independent,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "soft 1 + hard infinite: event, no break; soft infinite + hard 1: break, no event",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct link_opts few = { .few_evds = true };	/* two links at once */
	struct srq_link a, b;
	struct srq_hold ha, hb;

	staged_with(t, &a, &ha, 2, &few);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(a.rx.ep, 1, INF));
	take(&ha, 0);
	take(&ha, 1);
	expect_soft_event_now(t, a.rx.ep);
	DC_ASSERT_NO_EVENT(a.rx.conn_evd);
	DC_ASSERT_EQ(dc_ep_param(t, a.rx.ep).ep_state, DAT_EP_STATE_CONNECTED);

	staged_with(t, &b, &hb, 2, &few);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(b.rx.ep, INF, 1));
	take(&hb, 0);
	(void)hold_partial(&hb, 1);
	expect_broken(t, &b);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
}

SRQ_CASE(dat_ep_set_watermark, soft_once_per_setting,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "soft 1: one event at the 2nd buffer, none at the 3rd; setting it again gives one more",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct srq_hold h;

	staged(t, &l, &h, 3);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 1, INF));
	take(&h, 0);
	take(&h, 1);
	expect_soft_event_now(t, l.rx.ep);
	take(&h, 2);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 1, INF));
	expect_soft_event_now(t, l.rx.ep);	/* 3 > 1, re-armed */
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
}

SRQ_CASE(dat_ep_set_watermark, infinite_means_none,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "default and explicit infinite watermarks: several buffers at the EP, no event, no break",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct srq_hold h;

	staged(t, &l, &h, 4);
	DC_ASSERT_EQ(dc_ep_param(t, l.rx.ep).ep_attr.srq_soft_hw, DAT_HW_DEFAULT);
	take_unbroken(&l, &h, 0);
	take_unbroken(&l, &h, 1);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, INF, INF));
	take_unbroken(&l, &h, 2);
	take_unbroken(&l, &h, 3);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	DC_ASSERT_NO_EVENT(l.rx.conn_evd);
	hold_release(&h);
	expect_in_send_order(t, &l, 0, 4);
}

/*
 * The default holds for an EP made with NULL attributes too (the Provider's
 * defaults, dat_ep_create(3DAT)): no soft event however many Receives it has.
 */
DC_CASE(dat_ep_set_watermark, infinite_default_null_attributes,
	.clauses = "dat_ep_set_watermark.infinite_means_none",
	.summary = "an EP created with NULL attributes, Receives posted: no soft watermark event",
	.requires = "srq_watermarks_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE recv = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EP_HANDLE ep = dc_ep(t, pz, recv, dc_evd(t, 16, DAT_EVD_DTO_FLAG),
				 dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG), NULL);
	DAT_COUNT n = dc_ep_param(t, ep).ep_attr.max_recv_dtos;
	struct dc_lmr m;

	DC_NEED_LIMIT("the default max_recv_dtos", n, 1);
	if (n > 4)
		n = 4;
	dc_lmr(t, pz, 4096, DC_PRIV_LOCAL, &m);
	for (DAT_COUNT i = 0; i < n; i++)
		dc_post_recv(t, ep, &m, (DAT_VLEN)i * 256, 256, 1 + (uint64_t)i);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
}

SRQ_CASE(dat_ep_set_watermark, no_buffer_still_breaks,
	.summary = "infinite watermarks, empty SRQ: a Send may break the connection, else it completes once a buffer comes",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_EVENT ev;
	DAT_RETURN r;

	link_up(&l, NULL);
	r = dat_ep_set_watermark(l.rx.ep, INF, INF);
	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_ep_set_watermark", "no EP watermarks");
	DC_SETUP(r);
	link_send(&l, 0, 64);
	/*
	 * Either outcome passes; the window only decides which is judged.  A
	 * break is the receiver's (at once) or the sender's retries running out
	 * (an RNR count: unlimited in the reference and OFA providers); one
	 * that would come after the window is pre-empted by the buffer posted
	 * then, and the Send's completion is judged instead.  So the window
	 * need not be long: 50 ms.
	 */
	r = dc_wait_event(t, l.rx.conn_evd, 50, &ev);
	if (r == DAT_SUCCESS) {
		dc_note(t, "the connection ended: %s", dc_event_name(ev.event_number));
		DC_ASSERT_EQ(ev.event_number, DAT_CONNECTION_EVENT_BROKEN);
		return;
	}
	dc_note(t, "the Send waited for a buffer");
	post_slot(l.srq, &l.rbuf, 0);
	DC_ASSERT_EQ(slot_seq(&l.rbuf, (unsigned)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd).user_cookie.as_64), 0);
}

DC_CASE(dat_ep_set_watermark, any_ep_state,
	.summary = "the call succeeds Unconnected, Connected and Disconnected",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct link_opts o = { .no_connect = true };

	link_up(&l, &o);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 4, 8));
	link_connect(&l);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 5, 9));
	link_down(&l);
	DC_ASSERT_EQ(dc_ep_param(t, l.rx.ep).ep_state, DAT_EP_STATE_DISCONNECTED);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, INF, INF));
}

/* ---- RETURN VALUES ------------------------------------------------------ */

DC_CASE(dat_ep_set_watermark, invalid_handle,
	.summary = "a NULL handle or an SRQ handle gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DAT_SRQ_HANDLE srq = dc_srq(t, dc_pz(t), 4, 1, DAT_SRQ_LW_DEFAULT);

	DC_ASSERT_INVALID_HANDLE(dat_ep_set_watermark(DAT_HANDLE_NULL, 1, 2), 1, EP);
	DC_ASSERT_INVALID_HANDLE(dat_ep_set_watermark((DAT_EP_HANDLE)srq, 1, 2), 1, EP);
}

DC_CASE(dat_ep_set_watermark, invalid_parameter,
	.summary = "a soft or hard watermark of -5 gives DAT_INVALID_PARAMETER",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct link_opts o = { .no_connect = true };

	link_up(&l, &o);
	DC_ASSERT_RET(dat_ep_set_watermark(l.rx.ep, -5, INF), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_ep_set_watermark(l.rx.ep, INF, -5), DAT_INVALID_PARAMETER);
}

DC_CASE(dat_ep_set_watermark, model_not_supported,
	.summary = "DAT_MODEL_NOT_SUPPORTED exactly when srq_watermarks_supported is 0",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .no_connect = true };
	DAT_RETURN r;

	link_up(&l, &o);
	r = dat_ep_set_watermark(l.rx.ep, 4, 8);
	if (!dc_attr_reported(t, "srq_watermarks_supported")) {
		/* nothing advertised: one without watermarks answers
		 * DAT_MODEL_NOT_SUPPORTED (RETURN VALUES), not another code */
		DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_MODEL_NOT_SUPPORTED);
		return;
	}
	dc_note(t, "srq_watermarks_supported = %d: %s",
		(int)t->prov_attr.srq_watermarks_supported, dc_ret_text(r));
	if (t->prov_attr.srq_watermarks_supported == 0)
		DC_ASSERT_RET(r, DAT_MODEL_NOT_SUPPORTED);
	else
		DC_ASSERT_SUCCESS(r);
}

/* ---- USAGE -------------------------------------------------------------- */

DC_CASE(dat_ep_set_watermark, hard_armed_from_establishment,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "hard 1 set while Unconnected: the 2nd buffer taken after establishment breaks the connection",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct link_opts o = { .no_connect = true };
	struct srq_hold h;

	link_up(&l, &o);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, INF, 1));
	link_connect(&l);
	post_slots(l.srq, &l.rbuf, 0, 4);
	hold_begin(&h, &l);
	link_send(&l, 0, 64);
	link_send(&l, 1, 64);
	hold_await_whole(&h, 2);
	take(&h, 0);
	DC_ASSERT_NO_EVENT(l.rx.conn_evd);
	(void)hold_partial(&h, 1);
	expect_broken(t, &l);
}

SRQ_CASE(dat_ep_set_watermark, update_before_event,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "soft 5 then soft 2 before any event: the event comes at the 3rd buffer",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct srq_hold h;

	staged(t, &l, &h, 3);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 5, INF));
	take(&h, 0);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 2, INF));
	take(&h, 1);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	take(&h, 2);
	expect_soft_event_now(t, l.rx.ep);
}

SRQ_CASE(dat_ep_set_watermark, rearm_after_event,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "after an event with 2 at the EP: soft 1 fires at once; soft 4 fires only at the 5th buffer",
	.requires = "srq_supported srq_watermarks_supported")
{
	struct srq_link l;
	struct srq_hold h;

	staged(t, &l, &h, 5);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 1, INF));
	take(&h, 0);
	take(&h, 1);
	expect_soft_event_now(t, l.rx.ep);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 1, INF));	/* 2 > 1 */
	expect_soft_event_now(t, l.rx.ep);
	DC_ASSERT_SUCCESS(dat_ep_set_watermark(l.rx.ep, 4, INF));	/* 2 <= 4 */
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	take(&h, 2);
	take(&h, 3);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);		/* 4 is not above 4 */
	take(&h, 4);
	expect_soft_event_now(t, l.rx.ep);
}
