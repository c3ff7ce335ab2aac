/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_srq_query(3DAT); clauses in clauses/dat_srq_query.toml.
 * A count the provider reports as DAT_VALUE_UNKNOWN is accepted as the
 * page's USAGE allows (ASSERT_COUNT notes it instead of failing).
 */
#include "srq_common.h"
#include "srq_hold.h"

static const struct {
	DAT_SRQ_PARAM_MASK bit;
	const char *name;
} fields[] = {
	{ DAT_SRQ_FIELD_IA_HANDLE, "ia_handle" },
	{ DAT_SRQ_FIELD_SRQ_STATE, "srq_state" },
	{ DAT_SRQ_FIELD_PZ_HANDLE, "pz_handle" },
	{ DAT_SRQ_FIELD_MAX_RECV_DTO, "max_recv_dtos" },
	{ DAT_SRQ_FIELD_MAX_RECV_IOV, "max_recv_iov" },
	{ DAT_SRQ_FIELD_LOW_WATERMARK, "low_watermark" },
	{ DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT, "available_dto_count" },
	{ DAT_SRQ_FIELD_OUTSTANDING_DTO_COUNT, "outstanding_dto_count" },
};

/* Checks the field selected by bit in p against the SRQ made below. */
static void check_srq_field(struct dc_ctx *t, DAT_SRQ_PARAM_MASK bit,
			const DAT_SRQ_PARAM *p, DAT_PZ_HANDLE pz, DAT_COUNT posted)
{
	switch (bit) {
	case DAT_SRQ_FIELD_IA_HANDLE:
		DC_ASSERT_IA_HANDLE(p->ia_handle, t->ia);
		break;
	case DAT_SRQ_FIELD_SRQ_STATE:
		DC_ASSERT_EQ(p->srq_state, DAT_SRQ_STATE_OPERATIONAL);
		break;
	case DAT_SRQ_FIELD_PZ_HANDLE:
		DC_ASSERT_PTR_EQ(p->pz_handle, pz);
		break;
	case DAT_SRQ_FIELD_MAX_RECV_DTO:
		DC_ASSERT_GE(p->max_recv_dtos, 10);
		break;
	case DAT_SRQ_FIELD_MAX_RECV_IOV:
		DC_ASSERT_GE(p->max_recv_iov, 1);
		break;
	case DAT_SRQ_FIELD_LOW_WATERMARK:
		DC_ASSERT_EQ(p->low_watermark, DAT_SRQ_LW_DEFAULT);
		break;
	case DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT:
		ASSERT_COUNT(p->available_dto_count, posted);
		break;
	case DAT_SRQ_FIELD_OUTSTANDING_DTO_COUNT:
		ASSERT_COUNT(p->outstanding_dto_count, posted);
		break;
	default:
		break;
	}
}

DC_CASE(dat_srq_query, fills_requested_fields,
	.summary = "DAT_SRQ_FIELD_ALL and every single-field mask return the right values",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 10, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	DAT_SRQ_PARAM p;

	dc_lmr(t, pz, 2 * SLOT, DC_PRIV_LOCAL, &m);
	post_slots(srq, &m, 0, 2);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		check_srq_field(t, fields[i].bit, &p, pz, 2);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		memset(&p, 0xA5, sizeof(p));
		DC_ASSERT_SUCCESS(dat_srq_query(srq, fields[i].bit, &p));
		dc_note(t, "mask %s checked", fields[i].name);
		check_srq_field(t, fields[i].bit, &p, pz, 2);
	}
}

DC_CASE(dat_srq_query, other_fields_optional,
	.summary = "with a one-field mask the field is right and nothing outside the structure is written",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 10, 1, DAT_SRQ_LW_DEFAULT);
	struct {
		unsigned char before[64];
		DAT_SRQ_PARAM p;
		unsigned char after[64];
	} box;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		memset(&box, 0x5A, sizeof(box));
		DC_ASSERT_SUCCESS(dat_srq_query(srq, fields[i].bit, &box.p));
		check_srq_field(t, fields[i].bit, &box.p, pz, 0);
		for (size_t k = 0; k < sizeof(box.before); k++) {
			DC_ASSERT(box.before[k] == 0x5A && box.after[k] == 0x5A,
				  "mask %s: bytes around DAT_SRQ_PARAM were overwritten",
				  fields[i].name);
		}
	}
}

SRQ_CASE(dat_srq_query, available_count,
	.summary = "available_dto_count: 0, then n after n posts, then one less per arrival",
	.requires = "srq_supported srq_info_supported")
{
	struct srq_link l;
	DAT_SRQ_PARAM p;

	link_up(&l, NULL);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.available_dto_count, 0);
	post_slots(l.srq, &l.rbuf, 0, 3);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.available_dto_count, 3);
	/* the sender's completion means the message has arrived; its
	 * receive completion is still queued (not reaped) when we look */
	link_send(&l, 0, 64);
	link_sent(&l, 1);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.available_dto_count, 2);
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.available_dto_count, 2);
	link_send(&l, 1, 64);
	link_sent(&l, 1);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.available_dto_count, 1);
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
}

SRQ_CASE(dat_srq_query, outstanding_count,
	.summary = "outstanding_dto_count: n after n posts, kept over an arrival, one less after the dequeue",
	.requires = "srq_supported srq_info_supported")
{
	struct srq_link l;
	DAT_SRQ_PARAM p;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 3);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.outstanding_dto_count, 3);
	link_send(&l, 0, 64);
	link_sent(&l, 1);
	if (!srq_await_available(l.srq, 2))
		dc_note(t, "arrival not observable through available_dto_count");
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.outstanding_dto_count, 3);	/* completion not reaped */
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.outstanding_dto_count, 2);
}

/*
 * The same accounting for a completion that failed: a message longer than
 * the buffer it took completes that buffer with an error
 * (dat_srq_post_recv(3DAT): transfered_length and the contents then
 * undefined), and the buffer stays outstanding until that completion is
 * reaped, like a successful one (dat_srq_query(3DAT) DESCRIPTION: entries in
 * use include completions not yet reaped, whatever their status).
 */
SRQ_CASE(dat_srq_query, outstanding_counts_failed_completion,
	.clauses = "dat_srq_query.outstanding_count",
	.summary = "a failed (too long) arrival's buffer stays outstanding until its completion is dequeued, then one less",
	.requires = "srq_supported srq_info_supported")
{
	struct srq_link l;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_SRQ_PARAM p;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 3);
	link_send(&l, 0, SLOT + 64);		/* longer than the slot it lands in */
	if (!srq_await_available(l.srq, 2))
		dc_note(t, "arrival not observable through available_dto_count");
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.outstanding_dto_count, 3);	/* failed completion not reaped */
	d = DC_ASSERT_DTO_EVENT(l.rx.recv_evd);
	DC_ASSERT(d.status != DAT_DTO_SUCCESS,
		  "a %u-byte message into a %u-byte buffer completed successfully",
		  SLOT + 64, SLOT);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.outstanding_dto_count, 2);
}

DC_CASE(dat_srq_query, invalid_mask,
	.summary = "mask bits outside DAT_SRQ_FIELD_ALL give DAT_INVALID_PARAMETER",
	.requires = "srq_supported")
{
	DAT_SRQ_HANDLE srq = dc_srq(t, dc_pz(t), 8, 1, DAT_SRQ_LW_DEFAULT);
	DAT_SRQ_PARAM p;

	DC_ASSERT_RET(dat_srq_query(srq, (DAT_SRQ_PARAM_MASK)(DAT_SRQ_FIELD_ALL | 0x100), &p),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_srq_query(srq, (DAT_SRQ_PARAM_MASK)0x100, &p),
		      DAT_INVALID_PARAMETER);
}

DC_CASE(dat_srq_query, invalid_handle,
	.summary = "a NULL handle or a PZ handle gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DAT_SRQ_PARAM p;

	DC_ASSERT_INVALID_HANDLE(dat_srq_query(DAT_HANDLE_NULL, DAT_SRQ_FIELD_ALL, &p), 1, SRQ);
	DC_ASSERT_INVALID_HANDLE(dat_srq_query((DAT_SRQ_HANDLE)dc_wrong_handle(t), DAT_SRQ_FIELD_ALL, &p), 1, SRQ);
}

static void counts_in_range(struct dc_ctx *t, DAT_SRQ_HANDLE srq, const char *when)
{
	DAT_SRQ_PARAM p = DC_SRQ_PARAM(srq);
	DAT_COUNT a = p.available_dto_count, o = p.outstanding_dto_count;

	dc_note(t, "%s: available %d outstanding %d (max %d)", when, (int)a,
		(int)o, (int)p.max_recv_dtos);
	DC_ASSERT(!KNOWN(a) || (a >= 0 && a <= p.max_recv_dtos),
		  "%s: available_dto_count %d is neither DAT_VALUE_UNKNOWN nor within 0..%d",
		  when, (int)a, (int)p.max_recv_dtos);
	DC_ASSERT(!KNOWN(o) || (o >= 0 && o <= p.max_recv_dtos),
		  "%s: outstanding_dto_count %d is neither DAT_VALUE_UNKNOWN nor within 0..%d",
		  when, (int)o, (int)p.max_recv_dtos);
	if (KNOWN(a) && KNOWN(o))
		DC_ASSERT_LE(a, o);
}

SRQ_CASE(dat_srq_query, counts_may_be_unknown,
	.summary = "each count is DAT_VALUE_UNKNOWN or a count within 0..max_recv_dtos",
	.requires = "srq_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	counts_in_range(t, l.srq, "empty");
	post_slots(l.srq, &l.rbuf, 0, 4);
	counts_in_range(t, l.srq, "4 posted");
	link_send(&l, 0, 64);
	link_sent(&l, 1);
	counts_in_range(t, l.srq, "after a Send");
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	counts_in_range(t, l.srq, "after the dequeue");
}

SRQ_CASE(dat_srq_query, example_sequence,
	.summary = "the page's example: 10/3/3, a Send arrives 10/2/3, its completion is dequeued 10/2/2",
	.requires = "srq_supported srq_info_supported")
{
	struct link_opts o = { .depth = 10, .iov = 1 };
	struct srq_link l;
	DAT_SRQ_PARAM p;
	DAT_COUNT depth;

	link_up(&l, &o);		/* 10 entries, one EP */
	depth = DC_SRQ_PARAM(l.srq).max_recv_dtos;
	DC_ASSERT_GE(depth, 10);
	if (depth != 10)
		dc_note(t, "the provider made the SRQ %d deep (allowed); the example's 10 reads as %d",
			(int)depth, (int)depth);
	post_slots(l.srq, &l.rbuf, 0, 3);
	p = DC_SRQ_PARAM(l.srq);
	DC_ASSERT_EQ(p.max_recv_dtos, depth);
	ASSERT_COUNT(p.available_dto_count, 3);
	ASSERT_COUNT(p.outstanding_dto_count, 3);

	link_send(&l, 0, 64);		/* a Send message arrives */
	link_sent(&l, 1);
	if (!srq_await_available(l.srq, 2))
		dc_note(t, "available_dto_count never read 2 (unknown or late); checked below");
	p = DC_SRQ_PARAM(l.srq);
	DC_ASSERT_EQ(p.max_recv_dtos, depth);
	ASSERT_COUNT(p.available_dto_count, 2);
	ASSERT_COUNT(p.outstanding_dto_count, 3);

	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);	/* the consumer dequeues it */
	p = DC_SRQ_PARAM(l.srq);
	DC_ASSERT_EQ(p.max_recv_dtos, depth);
	ASSERT_COUNT(p.available_dto_count, 2);
	ASSERT_COUNT(p.outstanding_dto_count, 2);
}

/*
 * With the hooks two buffers are frozen at the EP; without them one is
 * caught under way by watching, and the query is confirmed to have run
 * while it was (srq_hold.h).
 */
SRQ_CASE(dat_srq_query, ep_ownership_accounting,
	.summary = "buffers held mid-arrival are outstanding but not available; dequeue releases them",
	.requires = "srq_supported srq_info_supported")
{
	struct srq_link l;
	struct link_opts o = { .long_msgs = true };
	struct srq_hold h;
	DAT_SRQ_PARAM p;
	unsigned taken;

	link_up(&l, &o);
	post_slots_catchable(&l, 4);
	taken = link_take_mid_arrival(&l, &h);	/* buffers taken, messages incomplete */
	p = DC_SRQ_PARAM(l.srq);
	link_still_arriving(&l);
	ASSERT_COUNT(p.available_dto_count, 4 - taken);
	ASSERT_COUNT(p.outstanding_dto_count, 4);
	if (h.release)			/* a watched message may complete any time */
		DC_ASSERT_NO_EVENT(l.rx.recv_evd);
	link_release_held(&h);
	for (unsigned i = 0; i < taken; i++)
		(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.available_dto_count, 4 - taken);
	ASSERT_COUNT(p.outstanding_dto_count, 4 - taken);
}

/*
 * The same accounting for a flushed buffer (issue 54: accounting tried with
 * successful completions only).  A buffer an EP has taken for a message
 * still arriving when the EP leaves the connection is flushed to the EP's
 * recv EVD (dat_srq_post_recv(3DAT) DESCRIPTION: on the move to
 * Disconnected the buffers the EP took are queued on its recv_evd), so it
 * does not go back to the SRQ: not available, and outstanding until its
 * completion is dequeued (dat_srq_query(3DAT) DESCRIPTION: the occupied
 * entries include completions not reaped, whatever their status).  The
 * counts are read once the EP is Disconnected, when the page has the
 * completion queued.
 */
SRQ_CASE(dat_srq_query, outstanding_counts_flushed_buffer,
	.clauses = "dat_srq_query.outstanding_count dat_srq_query.ep_ownership_accounting",
	.summary = "a buffer held mid-arrival when the EP disconnects is flushed: outstanding, not available, until its completion is dequeued",
	.requires = "srq_supported srq_info_supported")
{
	struct srq_link l;
	struct link_opts o = { .long_msgs = true };
	DAT_SRQ_PARAM p;

	link_up(&l, &o);
	post_slots_catchable(&l, 4);
	link_one_in_error(&l, true);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.available_dto_count, 3);
	ASSERT_COUNT(p.outstanding_dto_count, 4);	/* flushed completion not reaped */
	link_reap_in_error(&l, true);
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.available_dto_count, 3);
	ASSERT_COUNT(p.outstanding_dto_count, 3);
}
