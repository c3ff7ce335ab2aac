/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_ep_recv_query(3DAT); clauses in clauses/dat_ep_recv_query.toml.
 *
 * Buffers mid-arrival are staged with the provider's hold hooks
 * (srq_hold.h): a Send is held whole, then "arrives partially" (a buffer
 * is taken, nothing completes), then is released.  Counts the provider
 * answers with DAT_VALUE_UNKNOWN are accepted where the page allows it.
 */
#include "srq_common.h"

#include <pthread.h>
#include "srq_hold.h"

/* Clause: dat_ep_recv_query succeeds; returns (count, span). */
static void rq_at(struct dc_ctx *t, const char *file, int line,
		  DAT_EP_HANDLE ep, DAT_COUNT *n, DAT_COUNT *span)
{
	DAT_RETURN r;

	*n = *span = -12345;
	r = dat_ep_recv_query(ep, n, span);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "dat_ep_recv_query returned %s", dc_ret_text(r));
	if (KNOWN(*n) && KNOWN(*span) && *span < *n)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "span %d is below the count %d", (int)*span, (int)*n);
}
#define rq(ep, n, span) rq_at(t, __FILE__, __LINE__, (ep), (n), (span))

/* Clause: count and span are as given (each unless DAT_VALUE_UNKNOWN). */
#define ASSERT_RQ(ep, want_n, want_span)				\
	do {								\
		DAT_COUNT q_n_, q_s_;					\
		rq(ep, &q_n_, &q_s_);					\
		ASSERT_COUNT(q_n_, (want_n));				\
		ASSERT_COUNT(q_s_, (want_span));			\
	} while (0)

/* Set-up: a connected SRQ link with `posted` buffers on the SRQ. */
static void rq_link(struct dc_ctx *t, struct srq_link *l, unsigned posted)
{
	struct link_opts o = { .depth = 32 };

	link_up(l, &o);
	post_slots(l->srq, &l->rbuf, 0, posted);
}

/* n messages sent, received and reaped (moves the MSN on by n). */
static void complete_messages(struct dc_ctx *t, struct srq_link *l,
			      unsigned first, unsigned n)
{
	for (unsigned i = first; i < first + n; i++)
		link_send(l, i, 64);
	expect_in_send_order(t, l, first, n);
	link_sent(l, (int)n);
}

/* ---- DESCRIPTION -------------------------------------------------------- */

DC_CASE(dat_ep_recv_query, outputs_undefined_on_error,
	.summary = "a failing call touches nothing around its outputs",
	.requires = "srq_supported")
{
	struct {
		DAT_COUNT before, n, mid, span, after;
	} box = { 0x11111111, 0, 0x22222222, 0, 0x33333333 };

	DC_ASSERT_INVALID_HANDLE(dat_ep_recv_query(DAT_HANDLE_NULL, &box.n, &box.span), 1, EP);
	DC_ASSERT_EQ(box.before, 0x11111111);
	DC_ASSERT_EQ(box.mid, 0x22222222);
	DC_ASSERT_EQ(box.after, 0x33333333);
}

DC_CASE(dat_ep_recv_query, support_per_attribute,
	.summary = "the call succeeds or gives DAT_MODEL_NOT_SUPPORTED, the same for every EP and state",
	.requires = "srq_supported")
{
	struct srq_link l, p;
	struct link_opts o = { .no_connect = true, .few_evds = true };	/* two links */
	DAT_COUNT n, s;
	DAT_RETURN r[4];

	link_up(&l, &o);
	plain_link_up(&p, &o);
	r[0] = dat_ep_recv_query(l.rx.ep, &n, &s);
	r[1] = dat_ep_recv_query(p.rx.ep, &n, &s);
	link_connect(&l);
	r[2] = dat_ep_recv_query(l.rx.ep, &n, &s);
	link_down(&l);
	r[3] = dat_ep_recv_query(l.rx.ep, &n, &s);
	dc_note(t, "ep_recv_info_supported = %d; answers %s / %s / %s / %s",
		(int)t->prov_attr.ep_recv_info_supported, dc_ret_text(r[0]), dc_ret_text(r[1]),
		dc_ret_text(r[2]), dc_ret_text(r[3]));
	for (int i = 0; i < 4; i++) {
		DC_ASSERT_RET_ANY(r[i], DAT_SUCCESS, DAT_MODEL_NOT_SUPPORTED);
		DC_ASSERT(DAT_GET_TYPE(r[i]) == DAT_GET_TYPE(r[0]),
			  "answer %d (%s) differs from answer 0 (%s)", i, dc_ret_text(r[i]), dc_ret_text(r[0]));
	}
}

SRQ_CASE(dat_ep_recv_query, nbufs_allocated_not_completed,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "0 idle, 2 with two messages mid-arrival, 0 once they completed (before the dequeue)",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;
	DAT_COUNT n, s;

	rq_link(t, &l, 4);
	ASSERT_RQ(l.rx.ep, 0, 0);
	hold_begin(&h, &l);
	link_send(&l, 0, 64);
	link_send(&l, 1, 64);
	hold_await_whole(&h, 2);
	ASSERT_RQ(l.rx.ep, 0, 0);	/* arrived nowhere yet: no buffer */
	hold_await(&h, 2);
	rq(l.rx.ep, &n, &s);
	ASSERT_COUNT(n, 2);
	hold_release(&h);
	/* completions generated, not dequeued: the count drops to 0 */
	for (;;) {
		rq(l.rx.ep, &n, &s);
		if (!KNOWN(n) || n == 0 || dc_remaining_ms(t) < 2000)
			break;
	}
	ASSERT_COUNT(n, 0);
	expect_in_send_order(t, &l, 0, 2);
}

DC_CASE(dat_ep_recv_query, null_output_skipped,
	.summary = "either output may be NULL; the call answers as with both",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_COUNT n, s;
	DAT_RETURN both, r;

	rq_link(t, &l, 2);
	both = dat_ep_recv_query(l.rx.ep, &n, &s);
	/* the answer with both outputs is model_not_supported's clause: where
	 * it is neither the counts nor "unsupported", this rule has nothing to
	 * compare with, and is not judged (set-up) */
	if (!dc_ret_is(both, DAT_MODEL_NOT_SUPPORTED, DC_ANY_SUBTYPE))
		dc_setup_at(t, __FILE__, __LINE__, "dat_ep_recv_query(ep, &n, &span)", both);
	r = dat_ep_recv_query(l.rx.ep, NULL, &s);
	DC_ASSERT_EQ(DAT_GET_TYPE(r), DAT_GET_TYPE(both));
	r = dat_ep_recv_query(l.rx.ep, &n, NULL);
	DC_ASSERT_EQ(DAT_GET_TYPE(r), DAT_GET_TYPE(both));
	r = dat_ep_recv_query(l.rx.ep, NULL, NULL);
	DC_ASSERT_EQ(DAT_GET_TYPE(r), DAT_GET_TYPE(both));
}

SRQ_CASE(dat_ep_recv_query, allocated_buffer_completes,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "a buffer allocated to the EP completes on its recv EVD: released, or flushed at disconnect",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct srq_hold h;
	DAT_EVENT ev;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;

	rq_link(t, &l, 4);
	hold_begin(&h, &l);
	link_send(&l, 0, 64);
	hold_await(&h, 1);
	hold_release(&h);
	DC_ASSERT_EQ(DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd).transfered_length, 64);
	DC_SETUP(h.hold(l.rx.ep, DAT_TRUE));
	h.msn_base = h.next_partial = 1;
	link_send(&l, 1, 64);
	hold_await_whole(&h, 1);
	DC_SETUP(hold_partial(&h, 1));
	DC_SETUP(dat_ep_disconnect(l.rx.ep, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_EVENT(l.rx.recv_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	d = &ev.event_data.dto_completion_event_data;
	DC_ASSERT_EQ(d->status, DAT_DTO_ERR_FLUSHED);
	DC_ASSERT_PTR_EQ(d->ep_handle, l.rx.ep);
}

/*
 * The counts with an arrival that fails and with one flushed (issue 54:
 * accounting tried with successful completions only).  A buffer an EP of
 * an SRQ takes is allocated to it until it completes, whatever the
 * completion's status (dat_ep_recv_query(3DAT) DESCRIPTION: allocated and
 * not completed), and completes on the EP's recv EVD.  Failed: a message
 * longer than the SRQ buffer it takes, staged mid-arrival (count 1, span 1),
 * then released: the buffer completes with an error, the connection
 * breaks; the counts are 0 before and after the completion is reaped.
 * Flushed: a buffer taken mid-arrival when the EP disconnects: 0 once the
 * EP is Disconnected (dat_srq_post_recv(3DAT) DESCRIPTION: its buffers are
 * then queued on its recv EVD).  Each read also holds span >= count.
 */
static void allocated_then_in_error(struct dc_ctx *t, bool flushed)
{
	struct srq_link l;
	struct link_opts o = { .depth = 4 };	/* within any IA's SRQ depth here */
	struct srq_hold h;
	DAT_EVENT ev;
	const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

	link_up(&l, &o);
	post_slots(l.srq, &l.rbuf, 0, 3);
	hold_begin(&h, &l);
	link_send(&l, 0, flushed ? 64 : SLOT + 64);
	hold_await(&h, 1);			/* the buffer taken, nothing completed */
	DC_FOR_CLAUSE("dat_ep_recv_query.allocated_on_take_with_srq");
	ASSERT_RQ(l.rx.ep, 1, 1);
	if (flushed) {
		DC_SETUP(dat_ep_disconnect(l.rx.ep, DAT_CLOSE_ABRUPT_FLAG));
		dc_await_event(t, l.rx.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	} else {
		hold_release(&h);
		link_await_failed(&l);
	}
	DC_FOR_CLAUSE("dat_ep_recv_query.nbufs_allocated_not_completed");
	ASSERT_RQ(l.rx.ep, 0, 0);		/* completed, not yet reaped */
	DC_FOR_CLAUSE("dat_ep_recv_query.allocated_buffer_completes");
	DC_ASSERT_EVENT(l.rx.recv_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_ASSERT(flushed ? d->status == DAT_DTO_ERR_FLUSHED : d->status != DAT_DTO_SUCCESS,
		  "the buffer taken completed with %s, expected %s", dc_dto_status_name(d->status),
		  flushed ? "DAT_DTO_ERR_FLUSHED" : "an error");
	DC_ASSERT_PTR_EQ(d->ep_handle, l.rx.ep);
	DC_FOR_CLAUSE("dat_ep_recv_query.nbufs_allocated_not_completed");
	ASSERT_RQ(l.rx.ep, 0, 0);
}

SRQ_CASE(dat_ep_recv_query, allocated_failed_arrival,
	.clauses = "dat_ep_recv_query.allocated_on_take_with_srq "
		   "dat_ep_recv_query.nbufs_allocated_not_completed "
		   "dat_ep_recv_query.allocated_buffer_completes dat_ep_recv_query.span_not_below_count",
	.needs = SRQ_HOLD_NEEDS,
	.summary = "a message too long for the SRQ buffer it takes: count and span 1 mid-arrival, 0 once it failed, reaped or not; the error completes on the EP's recv EVD",
	.requires = "srq_supported ep_recv_info_supported")
{
	allocated_then_in_error(t, false);
}

SRQ_CASE(dat_ep_recv_query, allocated_flushed_buffer,
	.clauses = "dat_ep_recv_query.allocated_on_take_with_srq "
		   "dat_ep_recv_query.nbufs_allocated_not_completed "
		   "dat_ep_recv_query.allocated_buffer_completes dat_ep_recv_query.span_not_below_count",
	.needs = SRQ_HOLD_NEEDS,
	.summary = "a buffer taken mid-arrival when the EP disconnects: count and span 1 before, 0 once flushed, reaped or not",
	.requires = "srq_supported ep_recv_info_supported")
{
	allocated_then_in_error(t, true);
}

DC_CASE(dat_ep_recv_query, allocated_on_post_without_srq,
	.summary = "a plain EP with 3 posted receives reports 3 allocated before any connection",
	.requires = "ep_recv_info_supported")
{
	struct srq_link p;
	DAT_COUNT n, s;

	plain_link_up(&p, &(struct link_opts){ .no_connect = true });
	for (unsigned k = 0; k < 3; k++)
		dc_post_recv(t, p.rx.ep, &p.rbuf, (DAT_VLEN)k * SLOT, SLOT, k);
	rq(p.rx.ep, &n, &s);
	ASSERT_COUNT(n, 3);
}

SRQ_CASE(dat_ep_recv_query, allocated_on_take_with_srq,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "3 buffers on the SRQ: 0 allocated to the idle EP; 1 once a message takes one",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;
	DAT_COUNT n, s;

	rq_link(t, &l, 3);
	rq(l.rx.ep, &n, &s);
	ASSERT_COUNT(n, 0);
	hold_begin(&h, &l);
	link_send(&l, 0, 64);
	hold_await(&h, 1);
	rq(l.rx.ep, &n, &s);
	ASSERT_COUNT(n, 1);
	hold_release(&h);
	expect_in_send_order(t, &l, 0, 1);
}

SRQ_CASE(dat_ep_recv_query, span_definition,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "span 0 idle, 2 with two consecutive messages mid-arrival, 0 after they completed",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;

	rq_link(t, &l, 4);
	ASSERT_RQ(l.rx.ep, 0, 0);
	hold_begin(&h, &l);
	link_send(&l, 0, 64);
	link_send(&l, 1, 64);
	hold_await(&h, 2);
	ASSERT_RQ(l.rx.ep, 2, 2);
	hold_release(&h);
	expect_in_send_order(t, &l, 0, 2);
	ASSERT_RQ(l.rx.ep, 0, 0);
}

/*
 * Messages seq and seq + 1 sent after `base` Sends of the connection,
 * held; only the second (MSN base + 1) takes a buffer: count 1, span 2.
 */
static void only_second_allocated(struct dc_ctx *t, struct srq_link *l, struct srq_hold *h,
				  unsigned seq, DAT_COUNT base)
{
	hold_begin_ep_at(t, __FILE__, __LINE__, h, l->rx.ep, base);
	link_send(l, seq, 64);
	link_send(l, seq + 1, 64);
	hold_await_whole(h, 2);
	DC_SETUP(hold_partial(h, base + 1));
	ASSERT_RQ(l->rx.ep, 1, 2);
}

SRQ_CASE(dat_ep_recv_query, span_by_msn,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "after 3 completed: only MSN 4 allocated gives count 1 span 2; with MSN 3 too, 2 and 2",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;

	rq_link(t, &l, 8);
	complete_messages(t, &l, 0, 3);		/* MSNs 0..2 done */
	only_second_allocated(t, &l, &h, 3, 3);	/* MSN 4: 4 - 3 + 1 */
	DC_SETUP(hold_partial(&h, 3));
	ASSERT_RQ(l.rx.ep, 2, 2);
	hold_release(&h);
	expect_in_send_order(t, &l, 3, 2);
}

/*
 * MSNs count the Sends of the connection (DESCRIPTION): an EP reset out of
 * DISCONNECTED after 3 messages and connected again counts from 0 (a local
 * link: both EPs are reset and reconnected in this process).
 */
DC_CASE(dat_ep_recv_query, span_by_msn_after_reset,
	.clauses = "dat_ep_recv_query.span_by_msn",
	.needs = SRQ_HOLD_NEEDS,
	.summary = "an SRQ EP reset after 3 messages and connected again: only MSN 1 allocated gives count 1 span 2",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;

	rq_link(t, &l, 8);
	complete_messages(t, &l, 0, 3);		/* MSNs 0..2 of the first connection */
	link_down(&l);
	DC_SETUP(dat_ep_reset(l.rx.ep));
	DC_SETUP(dat_ep_reset(l.tx.ep));
	dc_drain(t, l.rx.recv_evd);
	dc_drain(t, l.tx.req_evd);
	link_connect(&l);
	only_second_allocated(t, &l, &h, 3, 0);	/* MSN 1 of the new connection: 1 - 0 + 1 */
	hold_release(&h);
	expect_in_send_order(t, &l, 3, 2);
}

SRQ_CASE(dat_ep_recv_query, msn_counts_sends_only,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "Send, RDMA Write, Send, all mid-arrival: count 2 and span 2",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;
	struct dc_lmr target;
	DAT_RMR_TRIPLET rmr;

	rq_link(t, &l, 4);
	dc_lmr(t, l.rx.pz, SLOT, DAT_MEM_PRIV_ALL_FLAG, &target);
	hold_begin(&h, &l);
	link_send(&l, 0, 64);
	rmr = dc_rmr_iov(&target, 0, 64);
	link_rdma_write(&l, 10, 64, rmr.rmr_context, dc_rmr_triplet_address(&rmr));
	link_send(&l, 1, 64);
	hold_await_whole(&h, 2);
	DC_SETUP(hold_partial(&h, 0));
	{
		/* the Sends are MSN 0 and 1: the RDMA Write took none */
		DAT_RETURN r = hold_partial(&h, 1);

		DC_ASSERT(r == DAT_SUCCESS,
			  "no held Send has MSN 1 (%s): the RDMA Write took a message sequence number",
			  dc_ret_text(r));
	}
	ASSERT_RQ(l.rx.ep, 2, 2);
	hold_release(&h);
	expect_in_send_order(t, &l, 0, 2);
}

SRQ_CASE(dat_ep_recv_query, unknown_when_costly,
	.summary = "every count returned is DAT_VALUE_UNKNOWN or non-negative",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_COUNT n, s;
	DAT_RETURN r;

	rq_link(t, &l, 4);
	for (int step = 0; step < 3; step++) {
		r = dat_ep_recv_query(l.rx.ep, &n, &s);
		DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_ep_recv_query", "neither count supported");
		DC_ASSERT_SUCCESS(r);
		DC_ASSERT(!KNOWN(n) || n >= 0, "count %d", (int)n);
		DC_ASSERT(!KNOWN(s) || s >= 0, "span %d", (int)s);
		if (step < 2)
			complete_messages(t, &l, (unsigned)step, 1);
	}
}

/* ---- RETURN VALUES ------------------------------------------------------ */

DC_CASE(dat_ep_recv_query, invalid_parameter,
	.summary = "no mix of NULL and non-NULL outputs is an invalid parameter",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_COUNT n, s;

	rq_link(t, &l, 1);
	DC_ASSERT(!dc_ret_is(dat_ep_recv_query(l.rx.ep, &n, &s), DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE), "(&n, &s)");
	DC_ASSERT(!dc_ret_is(dat_ep_recv_query(l.rx.ep, NULL, &s), DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE), "(NULL, &s)");
	DC_ASSERT(!dc_ret_is(dat_ep_recv_query(l.rx.ep, &n, NULL), DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE), "(&n, NULL)");
	DC_ASSERT(!dc_ret_is(dat_ep_recv_query(l.rx.ep, NULL, NULL), DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE), "(NULL, NULL)");
}

DC_CASE(dat_ep_recv_query, invalid_handle,
	.summary = "a NULL handle or an SRQ handle gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DAT_SRQ_HANDLE srq = dc_srq(t, dc_pz(t), 4, 1, DAT_SRQ_LW_DEFAULT);
	DAT_COUNT n, s;

	DC_ASSERT_INVALID_HANDLE(dat_ep_recv_query(DAT_HANDLE_NULL, &n, &s), 1, EP);
	DC_ASSERT_INVALID_HANDLE(dat_ep_recv_query((DAT_EP_HANDLE)srq, &n, &s), 1, EP);
}

DC_CASE(dat_ep_recv_query, model_not_supported,
	.summary = "DAT_MODEL_NOT_SUPPORTED only from a provider that supports neither count",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_COUNT n, s;
	DAT_RETURN r;

	rq_link(t, &l, 1);
	r = dat_ep_recv_query(l.rx.ep, &n, &s);
	if (!dc_attr_reported(t, "ep_recv_info_supported")) {
		/* nothing advertised: a provider without either count answers
		 * DAT_MODEL_NOT_SUPPORTED or succeeds (RETURN VALUES), no other code */
		DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_MODEL_NOT_SUPPORTED);
		return;
	}
	dc_note(t, "ep_recv_info_supported = %d: %s",
		(int)t->prov_attr.ep_recv_info_supported, dc_ret_text(r));
	if (t->prov_attr.ep_recv_info_supported) {
		DC_ASSERT_SUCCESS(r);
	} else if (r == DAT_SUCCESS) {
		DC_ASSERT(!KNOWN(n) && !KNOWN(s),
			  "the attribute says no count is supported, yet counts %d/%d came back",
			  (int)n, (int)s);
	} else {
		DC_ASSERT_RET(r, DAT_MODEL_NOT_SUPPORTED);
	}
}

/* ---- USAGE -------------------------------------------------------------- */

SRQ_CASE(dat_ep_recv_query, unsupported_count_is_unknown,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "a count that is not DAT_VALUE_UNKNOWN is exact at every step of a held scenario",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct srq_hold h;
	DAT_COUNT n, s;
	DAT_RETURN r;

	rq_link(t, &l, 4);
	r = dat_ep_recv_query(l.rx.ep, &n, &s);
	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_ep_recv_query", "neither count supported");
	ASSERT_RQ(l.rx.ep, 0, 0);
	hold_begin(&h, &l);
	for (unsigned i = 0; i < 3; i++)
		link_send(&l, i, 64);
	hold_await_whole(&h, 3);
	DC_SETUP(hold_partial(&h, 0));
	ASSERT_RQ(l.rx.ep, 1, 1);
	DC_SETUP(hold_partial(&h, 2));
	ASSERT_RQ(l.rx.ep, 2, 3);
	DC_SETUP(hold_partial(&h, 1));
	ASSERT_RQ(l.rx.ep, 3, 3);
	hold_release(&h);
	expect_in_send_order(t, &l, 0, 3);
	ASSERT_RQ(l.rx.ep, 0, 0);
}

/* The page's gap scenario: 19 messages done, 19 22 23 allocated, 20 21 not. */
static void gap_scenario(struct dc_ctx *t, struct srq_link *l, struct srq_hold *h)
{
	rq_link(t, l, 28);
	complete_messages(t, l, 0, 19);
	hold_begin_after(h, l, 19);
	for (unsigned i = 19; i <= 23; i++)
		link_send(l, i, 64);
	hold_await_whole(h, 5);
	DC_SETUP(hold_partial(h, 19));
	DC_SETUP(hold_partial(h, 22));
	DC_SETUP(hold_partial(h, 23));
}

SRQ_CASE(dat_ep_recv_query, msn_gaps_allowed,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "with a gap in the allocated MSNs count <= span, and the messages still complete in MSN order",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;
	DAT_COUNT n, s;

	gap_scenario(t, &l, &h);
	rq(l.rx.ep, &n, &s);		/* rq() checks span >= count */
	dc_note(t, "count %d span %d", (int)n, (int)s);
	hold_release(&h);
	expect_in_send_order(t, &l, 19, 5);
}

SRQ_CASE(dat_ep_recv_query, gap_example,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "the page's example: MSNs 19, 22, 23 allocated give count 3, span 5; completion in MSN order",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;

	gap_scenario(t, &l, &h);
	ASSERT_RQ(l.rx.ep, 3, 5);
	DC_ASSERT_NO_EVENT(l.rx.recv_evd);	/* 22 and 23 wait for 20 and 21 */
	hold_release(&h);
	expect_in_send_order(t, &l, 19, 5);
	ASSERT_RQ(l.rx.ep, 0, 0);
}

SRQ_CASE(dat_ep_recv_query, gap_eager_allocation,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "in the gap scenario the count is 3..5 (eager allocation allowed) and the span 5",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;
	DAT_COUNT n, s;

	gap_scenario(t, &l, &h);
	rq(l.rx.ep, &n, &s);
	dc_note(t, "count %d span %d", (int)n, (int)s);
	if (KNOWN(n)) {
		DC_ASSERT_GE(n, 3);
		DC_ASSERT_LE(n, 5);
	}
	ASSERT_COUNT(s, 5);
	hold_release(&h);
	expect_in_send_order(t, &l, 19, 5);
}

/*
 * consistent_snapshot, second part: the sender streams 64 KiB messages
 * (link_stream) through 8 buffers that are reposted as they complete,
 * while the receiver queries in a tight loop.  A message that large is
 * read in several steps, so a buffer is often mid-arrival between two of
 * them; an answer built from two looks at the EP then shows a count above
 * the span or above the buffers posted.  Rounds of ROUND messages go on for
 * about a second (at most MAX_ROUNDS): on a fast transport that is 10000
 * messages, on an emulated one (the TCG VM) as many as a second allows.
 */
/*
 * A second thread that queries while the case's own thread dequeues and
 * reposts: a provider whose Consumer calls make the progress (the reference
 * provider on sock) changes the buffers only inside those calls, so an
 * answer built from two looks shows only when the looks race another
 * thread's call.  It records the first bad answer; the case judges it.
 */
struct side_query {
	DAT_EP_HANDLE ep;
	DAT_COUNT limit;
	volatile bool stop;
	long queries;
	DAT_RETURN bad_ret;
	DAT_COUNT bad_n, bad_span;
	bool bad;
};

static void *side_query_loop(void *arg)
{
	struct side_query *q = arg;

	while (!q->stop && !q->bad) {
		DAT_COUNT n = -12345, span = -12345;
		DAT_RETURN r = dat_ep_recv_query(q->ep, &n, &span);

		q->queries++;
		if (r != DAT_SUCCESS ||
		    (KNOWN(n) && KNOWN(span) && span < n) ||
		    (KNOWN(n) && n > q->limit) || (KNOWN(span) && span > q->limit)) {
			q->bad_ret = r;
			q->bad_n = n;
			q->bad_span = span;
			q->bad = true;
		}
	}
	return NULL;
}

static void snapshot_big_stream(struct dc_ctx *t, struct srq_link *l)
{
	enum { NB = 8, ROUND = 200, MAX_ROUNDS = 50, STREAM_MS = 1000 };
	DAT_VLEN big = 65536;
	struct dc_lmr rb;
	unsigned got = 0, rounds = 0;
	long queries = 0;
	long start = dc_remaining_ms(t);

	if (t->ia_attr.max_message_size && t->ia_attr.max_message_size < big)
		big = t->ia_attr.max_message_size;
	struct side_query side = { .ep = l->rx.ep, .limit = NB };
	pthread_t side_thread;

	dc_lmr(t, l->pz, NB * big, DC_PRIV_LOCAL, &rb);
	for (unsigned k = 0; k < NB; k++)
		dc_srq_post_recv(t, l->srq, &rb, (DAT_VLEN)k * big, big, k);
	DC_SETUP_ASSERT(pthread_create(&side_thread, NULL, side_query_loop, &side) == 0,
			"cannot start the querying thread");
	while (rounds < MAX_ROUNDS &&
	       (rounds == 0 || start - dc_remaining_ms(t) < STREAM_MS)) {
		unsigned want = got + ROUND;

		link_stream(l, ROUND, big);
		while (got < want) {
			DAT_COUNT n, s;
			DAT_EVENT ev;
			DAT_EVENT_NUMBER end;

			rq(l->rx.ep, &n, &s);		/* checks span >= count */
			queries++;
			if (KNOWN(n))
				DC_ASSERT_LE(n, NB);
			if (KNOWN(s))
				DC_ASSERT_LE(s, NB);
			if (dat_evd_dequeue(l->rx.recv_evd, &ev) == DAT_SUCCESS) {
				const DAT_DTO_COMPLETION_EVENT_DATA *d =
					&ev.event_data.dto_completion_event_data;

				DC_ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
				DC_ASSERT_EQ(d->status, DAT_DTO_SUCCESS);
				got++;
				dc_srq_post_recv(t, l->srq, &rb,
						 (DAT_VLEN)d->user_cookie.as_64 * big, big,
						 d->user_cookie.as_64);
			} else if ((end = link_ended(l)) != 0) {
				DC_UNRESOLVED("set-up: only %u of %u large messages arrived: %s on the connection",
					      got, want, dc_event_name(end));
			} else if (dc_remaining_ms(t) < 1000) {
				DC_UNRESOLVED("set-up: only %u of %u large messages arrived in the case's time",
					      got, want);
			}
		}
		link_stream_done(l);
		rounds++;
	}
	side.stop = true;
	pthread_join(side_thread, NULL);
	dc_note(t, "%u messages of %lu bytes in %u rounds, %ld queries while receiving, "
		"%ld more from a second thread", got, (unsigned long)big, rounds, queries,
		side.queries);
	if (side.bad)
		DC_FAIL("dat_ep_recv_query from a second thread returned %s with count %d and "
			"span %d (%d buffers posted; the span may not be below the count)",
			dc_ret_text(side.bad_ret), (int)side.bad_n, (int)side.bad_span, (int)NB);
}

SRQ_CASE(dat_ep_recv_query, consistent_snapshot,
	.summary = "queried while messages stream in (24 small, then large ones for a second), span >= count and both within what was posted",
	.requires = "srq_supported ep_recv_info_supported")
{
	enum { N = 24 };
	struct srq_link l;
	unsigned got = 0;
	int queries = 0;

	rq_link(t, &l, N);
	for (unsigned i = 0; i < N; i++)
		link_send(&l, i, 64);
	while (got < N) {
		DAT_COUNT n, s;
		DAT_EVENT ev;
		DAT_EVENT_NUMBER end;

		rq(l.rx.ep, &n, &s);		/* checks span >= count */
		queries++;
		if (KNOWN(n))
			DC_ASSERT_LE(n, N);
		if (KNOWN(s))
			DC_ASSERT_LE(s, N);
		if (dat_evd_dequeue(l.rx.recv_evd, &ev) == DAT_SUCCESS) {
			DC_ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
			got++;
		} else if ((end = link_ended(&l)) != 0) {
			DC_UNRESOLVED("set-up: only %u of %u messages arrived: %s on the connection",
				      got, (unsigned)N, dc_event_name(end));
		} else if (dc_remaining_ms(t) < 1000) {
			DC_UNRESOLVED("set-up: only %u of %u messages arrived in the case's time",
				      got, (unsigned)N);
		}
	}
	dc_note(t, "%d queries while receiving", queries);
	snapshot_big_stream(t, &l);
}

SRQ_CASE(dat_ep_recv_query, span_not_below_count,
	.needs = SRQ_HOLD_NEEDS,
	.summary = "span >= count at every step: idle, in-order, out-of-order and gapped allocations",
	.requires = "srq_supported ep_recv_info_supported")
{
	struct srq_link l;
	struct srq_hold h;
	DAT_COUNT n, s;
	static const DAT_COUNT order[] = { 3, 0, 4, 1, 2 };

	rq_link(t, &l, 8);
	rq(l.rx.ep, &n, &s);
	hold_begin(&h, &l);
	for (unsigned i = 0; i < 5; i++)
		link_send(&l, i, 64);
	hold_await_whole(&h, 5);
	for (unsigned i = 0; i < 5; i++) {
		DC_SETUP(hold_partial(&h, order[i]));
		rq(l.rx.ep, &n, &s);		/* each answer: span >= count */
		dc_note(t, "after MSN %d: count %d span %d", (int)order[i], (int)n, (int)s);
	}
	hold_release(&h);
	expect_in_send_order(t, &l, 0, 5);
	rq(l.rx.ep, &n, &s);
}
