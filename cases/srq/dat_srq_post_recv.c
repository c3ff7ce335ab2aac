/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_srq_post_recv(3DAT); clauses in clauses/dat_srq_post_recv.toml.
 *
 * "Signalled" is observed as a notification event: the completion
 * triggers the CNO attached to the recv EVD (dc_evd_new_cno / cno_fired).
 */
#include "srq_common.h"
#include "srq_hold.h"

#include <time.h>

/* ---- PARAMETERS --------------------------------------------------------- */

SRQ_CASE(dat_srq_post_recv, zero_size_message,
	.summary = "a buffer of 0 segments / NULL iov receives a zero-byte Send",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	link_up(&l, NULL);
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 0, NULL, dc_cookie(5)));
	link_send(&l, 0, 0);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_EQ(d.user_cookie.as_64, 5);
	DC_ASSERT_EQ(d.transfered_length, 0);
	DC_ASSERT_PTR_EQ(d.ep_handle, l.rx.ep);
}

/* ---- DESCRIPTION -------------------------------------------------------- */

SRQ_CASE(dat_srq_post_recv, buffer_available_to_connected_eps,
	.summary = "a posted buffer raises the available count and takes the next arriving Send",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_COUNT before;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	link_up(&l, NULL);
	before = DC_SRQ_PARAM(l.srq).available_dto_count;
	post_slot(l.srq, &l.rbuf, 3);
	if (KNOWN(before))
		ASSERT_COUNT(DC_SRQ_PARAM(l.srq).available_dto_count, before + 1);
	link_send(&l, 42, 64);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_EQ(d.user_cookie.as_64, 3);
	DC_ASSERT_EQ(slot_seq(&l.rbuf, 3), 42);
}

SRQ_CASE(dat_srq_post_recv, fill_in_iov_order,
	.summary = "20 bytes into 3x16-byte segments: 16 + 4 bytes, the rest untouched; 18 bytes into 1 + 16 + 16: 1, 16, 1",
	.requires = "srq_supported")
{
	struct link_opts o = { .iov = 3 };
	struct srq_link l;
	DAT_LMR_TRIPLET iov[3];
	DAT_DTO_COMPLETION_EVENT_DATA d;
	unsigned char sent[20];
	const unsigned char *seg[3];

	DC_NEED_LIMIT("max_iov_segments_per_dto", t->ia_attr.max_iov_segments_per_dto, 3);
	link_up(&l, &o);
	memset(l.rbuf.buf, 0xEE, 3 * SLOT);
	for (unsigned i = 0; i < 3; i++) {
		iov[i] = dc_iov(&l.rbuf, (DAT_VLEN)i * SLOT, 16);	/* 16 bytes each, apart */
		seg[i] = l.rbuf.buf + (size_t)i * SLOT;
	}
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 3, iov, dc_cookie(9)));
	link_send(&l, 0x01020304, 20);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	sent_payload(0x01020304u, sent, sizeof(sent));
	DC_ASSERT_EQ(d.transfered_length, 20);
	DC_ASSERT(!memcmp(seg[0], sent, 16), "segment 0 does not hold bytes 0..15 of the message");
	DC_ASSERT(!memcmp(seg[1], sent + 16, 4), "segment 1 does not start with bytes 16..19");
	for (unsigned k = 4; k < SLOT; k++)
		DC_ASSERT(seg[1][k] == 0xEE, "segment 1 written past the message end (byte %u)", k);
	for (unsigned k = 0; k < SLOT; k++)
		DC_ASSERT(seg[2][k] == 0xEE, "segment 2 written although the message ended in segment 1 (byte %u)", k);
	/* segments of 1, 16 and 16 bytes take 18: the 1-byte segment is a
	 * front one, and the message's last byte alone starts segment 2 */
	memset(l.rbuf.buf + 3 * SLOT, 0xEE, 3 * SLOT);
	for (unsigned i = 0; i < 3; i++) {
		iov[i] = dc_iov(&l.rbuf, (DAT_VLEN)(3 + i) * SLOT, i ? 16 : 1);
		seg[i] = l.rbuf.buf + (size_t)(3 + i) * SLOT;
	}
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 3, iov, dc_cookie(10)));
	link_send(&l, 0x05060708, 18);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	sent_payload(0x05060708u, sent, 18);
	DC_ASSERT_EQ(d.transfered_length, 18);
	DC_ASSERT(seg[0][0] == sent[0], "the 1-byte segment 0 does not hold byte 0 of the message");
	DC_ASSERT(!memcmp(seg[1], sent + 1, 16), "segment 1 does not hold bytes 1..16");
	DC_ASSERT(seg[2][0] == sent[17], "segment 2 does not start with byte 17");
	for (unsigned k = 1; k < SLOT; k++)
		DC_ASSERT(seg[0][k] == 0xEE && seg[2][k] == 0xEE,
			  "written past the 1-byte segment 0 or past byte 17 in segment 2 (offset %u)", k);
}

SRQ_CASE(dat_srq_post_recv, cookie_returned,
	.summary = "each completion carries the cookie its buffer was posted with",
	.requires = "srq_supported")
{
	static const uint64_t cookies[3] = {
		0xFEEDFACECAFEBEEFull, 0x8000000000000001ull, 12345,
	};
	struct srq_link l;
	bool seen[3] = { false };

	link_up(&l, NULL);
	for (unsigned k = 0; k < 3; k++) {
		DAT_LMR_TRIPLET iov = dc_iov(&l.rbuf, (DAT_VLEN)k * SLOT, SLOT);

		DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(cookies[k])));
	}
	for (unsigned i = 0; i < 3; i++)
		link_send(&l, i, 64);
	for (unsigned i = 0; i < 3; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
		unsigned k;

		for (k = 0; k < 3 && cookies[k] != d.user_cookie.as_64; k++)
			;
		DC_ASSERT(k < 3, "completion carries cookie 0x%llx, never posted",
			  (unsigned long long)d.user_cookie.as_64);
		DC_ASSERT(!seen[k], "cookie 0x%llx returned twice", (unsigned long long)cookies[k]);
		seen[k] = true;
		/* and it is the cookie of the buffer that holds the message */
		DC_ASSERT_EQ(slot_seq(&l.rbuf, k), i);
	}
}

SRQ_CASE(dat_srq_post_recv, cookie_not_unique,
	.summary = "two buffers with one cookie both complete with it; a zero cookie comes back as zero",
	.requires = "srq_supported")
{
	struct srq_link l;
	int n77 = 0, n0 = 0;

	link_up(&l, NULL);
	for (unsigned k = 0; k < 3; k++) {
		DAT_LMR_TRIPLET iov = dc_iov(&l.rbuf, (DAT_VLEN)k * SLOT, SLOT);

		DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(k < 2 ? 77 : 0)));
	}
	for (unsigned i = 0; i < 3; i++)
		link_send(&l, i, 64);
	for (unsigned i = 0; i < 3; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);

		if (d.user_cookie.as_64 == 77)
			n77++;
		else if (d.user_cookie.as_64 == 0)
			n0++;
		else
			DC_FAIL("completion carries cookie %llu, posted were 77, 77 and 0",
				(unsigned long long)d.user_cookie.as_64);
	}
	DC_ASSERT_EQ(n77, 2);
	DC_ASSERT_EQ(n0, 1);
}

SRQ_CASE(dat_srq_post_recv, signalled_with_unsignalled_ep,
	.summary = "on an EP with unsignalled receive flags every SRQ receive still notifies",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_EP_ATTR a;
	struct link_opts o = { .rx_attr = &a };

	dc_ep_attr_default(t, &a);
	a.recv_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	link_up(&l, &o);
	every_message_notifies(t, &l, 3);
}

SRQ_CASE(dat_srq_post_recv, iov_ownership,
	.summary = "with DAT_IOV_CONSUMER, rewriting the triplet array after the post does not redirect the data",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_LMR_TRIPLET iov[1];
	DAT_DTO_COMPLETION_EVENT_DATA d;
	bool consumer_owns = t->prov_attr.iov_ownership_on_return == DAT_IOV_CONSUMER;

	link_up(&l, NULL);
	memset(l.rbuf.buf, 0xEE, 2 * SLOT);
	iov[0] = dc_iov(&l.rbuf, 0, SLOT);
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 1, iov, dc_cookie(1)));
	if (consumer_owns)
		iov[0] = dc_iov(&l.rbuf, SLOT, SLOT);	/* the array is ours again */
	else
		dc_note(t, "iov_ownership_on_return = %d: the array stays the provider's; only delivery is checked",
			(int)t->prov_attr.iov_ownership_on_return);
	link_send(&l, 77, 64);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_EQ(d.user_cookie.as_64, 1);
	DC_ASSERT_EQ(slot_seq(&l.rbuf, 0), 77);
	DC_ASSERT(l.rbuf.buf[SLOT] == 0xEE, "data went where the rewritten triplet pointed");
}

SRQ_CASE(dat_srq_post_recv, success_means_posted,
	.summary = "a Send issued after the post returned completes into the buffer",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	link_up(&l, NULL);
	post_slot(l.srq, &l.rbuf, 0);
	link_send(&l, 1, 64);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);		/* the clause: it lands */
	link_sent(&l, 1);
	DC_ASSERT_EQ(d.user_cookie.as_64, 0);
	DC_ASSERT_EQ(slot_seq(&l.rbuf, 0), 1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

DC_CASE(dat_srq_post_recv, nonblocking,
	.summary = "with no EP, posts up to the depth all succeed at once, none for lack of resources",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 64, 1, DAT_SRQ_LW_DEFAULT);
	DAT_COUNT depth = dc_srq_param(t, srq).max_recv_dtos;
	struct dc_lmr m;
	double t0, worst = 0;

	DC_SETUP_ASSERT(depth <= 4096, "set-up: depth %d too large", (int)depth);
	dc_lmr(t, pz, 64, DC_PRIV_LOCAL, &m);
	for (DAT_COUNT k = 0; k < depth; k++) {
		DAT_LMR_TRIPLET iov = dc_iov(&m, 0, 64);
		DAT_RETURN r;
		double dt;

		t0 = now_s();
		r = dat_srq_post_recv(srq, 1, &iov, dc_cookie((uint64_t)k));
		dt = now_s() - t0;
		if (dt > worst)
			worst = dt;
		DC_ASSERT(r == DAT_SUCCESS, "post %d of %d returned %s", (int)k + 1, (int)depth, dc_ret_text(r));
	}
	dc_note(t, "%d posts, slowest %.3f ms", (int)depth, worst * 1e3);
	/* nothing can make a post wait here: no EP, no peer; a post that
	 * takes a second is blocking on something */
	DC_ASSERT(worst < 1.0, "a post took %.3f s", worst);
}

DC_CASE(dat_srq_post_recv, completion_as_for_ep_recv,
	.summary = "an SRQ receive completes exactly as the same receive posted to a plain EP",
	.requires = "srq_supported")
{
	/* two links at once; s.rx's request EVD is the case's idle one */
	struct link_opts few = { .few_evds = true };
	struct srq_link s, p;
	DAT_DTO_COMPLETION_EVENT_DATA ds, dp;

	link_up(&s, &few);
	plain_link_up(&p, &few);
	post_slot(s.srq, &s.rbuf, 0);
	dc_post_recv(t, p.rx.ep, &p.rbuf, 0, SLOT, 0);
	link_send(&s, 5, 100);
	link_send(&p, 5, 100);
	ds = DC_ASSERT_DTO_SUCCESS(s.rx.recv_evd);
	dp = DC_ASSERT_DTO_SUCCESS(p.rx.recv_evd);
	DC_ASSERT_PTR_EQ(ds.ep_handle, s.rx.ep);
	DC_ASSERT_PTR_EQ(dp.ep_handle, p.rx.ep);
	DC_ASSERT_EQ(ds.status, dp.status);
	DC_ASSERT_EQ(ds.transfered_length, dp.transfered_length);
	DC_ASSERT_EQ(ds.user_cookie.as_64, dp.user_cookie.as_64);
	DC_ASSERT(!memcmp(s.rbuf.buf, p.rbuf.buf, 100), "the received bytes differ");
	DC_ASSERT_NO_EVENT(s.rx.req_evd);	/* not on the request EVD */
}

SRQ_CASE(dat_srq_post_recv, order_per_connection,
	.summary = "Sends 0..7 of one connection complete in that order",
	.requires = "srq_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 8);
	for (unsigned i = 0; i < 8; i++)
		link_send(&l, i, 64);
	expect_in_send_order(t, &l, 0, 8);
}

DC_CASE(dat_srq_post_recv, no_order_across_connections,
	.summary = "two connections sharing SRQ and recv EVD: all arrive, each in its own order",
	.requires = "srq_supported")
{
	two_connections_interleaved(t, true);
}

SRQ_CASE(dat_srq_post_recv, failed_completion_undefined,
	.summary = "a receive that fails (message too long) still reports its cookie, EP and a failure status",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;

	link_up(&l, NULL);
	iov = dc_iov(&l.rbuf, 0, 16);
	DC_SETUP(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(31)));
	link_send(&l, 1, 64);		/* 64 bytes into 16 */
	DC_ASSERT_EVENT(l.rx.recv_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	d = &ev.event_data.dto_completion_event_data;
	dc_note(t, "status %s, length %llu (undefined, not checked)",
		dc_dto_status_name(d->status), (unsigned long long)d->transfered_length);
	DC_ASSERT(d->status != DAT_DTO_SUCCESS, "a 64-byte message completed successfully into 16 bytes");
	DC_ASSERT_EQ(d->user_cookie.as_64, 31);
	DC_ASSERT_PTR_EQ(d->ep_handle, l.rx.ep);
}

DC_CASE(dat_srq_post_recv, valid_in_every_srq_state,
	.summary = "posting succeeds with no EP, with a connected EP and after it disconnected",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .no_connect = true };
	DAT_SRQ_PARAM p;

	/* an SRQ no EP uses */
	DC_ASSERT_SUCCESS(dat_srq_post_recv(dc_srq(t, dc_pz(t), 4, 1, DAT_SRQ_LW_DEFAULT),
					    0, NULL, dc_cookie(9)));
	link_up(&l, &o);
	p = DC_SRQ_PARAM(l.srq);
	dc_note(t, "state %d with an unconnected EP", (int)p.srq_state);
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 0, NULL, dc_cookie(0)));
	link_connect(&l);
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 0, NULL, dc_cookie(1)));
	DC_SETUP(dat_ep_disconnect(l.rx.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_await_event(t, l.rx.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	p = DC_SRQ_PARAM(l.srq);
	dc_note(t, "state %d after the disconnect", (int)p.srq_state);
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 0, NULL, dc_cookie(2)));
	/* the error state cannot be forced through the DAT API; when the
	 * provider is in it on its own it is covered by the same calls */
	if (p.srq_state == DAT_SRQ_STATE_ERROR)
		dc_note(t, "posted in DAT_SRQ_STATE_ERROR");
	else
		dc_note(t, "DAT_SRQ_STATE_ERROR not reachable here");
}

/* ---- RETURN VALUES ------------------------------------------------------ */

DC_CASE(dat_srq_post_recv, invalid_handle,
	.summary = "a NULL handle or a PZ handle gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	dc_lmr(t, pz, SLOT, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, SLOT);
	DC_ASSERT_INVALID_HANDLE(dat_srq_post_recv(DAT_HANDLE_NULL, 1, &iov, dc_cookie(0)), 1, SRQ);
	DC_ASSERT_INVALID_HANDLE(dat_srq_post_recv((DAT_SRQ_HANDLE)pz, 1, &iov, dc_cookie(0)), 1, SRQ);
}

DC_CASE(dat_srq_post_recv, insufficient_resources,
	.summary = "with every entry used, one more post gives DAT_INSUFFICIENT_RESOURCES and changes nothing",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 4, 1, DAT_SRQ_LW_DEFAULT);
	DAT_COUNT depth = dc_srq_param(t, srq).max_recv_dtos;
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;
	struct dc_snap s;

	DC_SETUP_ASSERT(depth <= 4096, "set-up: depth %d too large", (int)depth);
	dc_lmr(t, pz, SLOT, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, SLOT);
	for (DAT_COUNT k = 0; k < depth; k++)
		DC_SETUP(dat_srq_post_recv(srq, 1, &iov, dc_cookie((uint64_t)k)));
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	DC_ASSERT_RET(dat_srq_post_recv(srq, 1, &iov, dc_cookie(999)), DAT_INSUFFICIENT_RESOURCES);
	DC_ASSERT_UNCHANGED(&s);
}

/*
 * Set-up: a link on an SRQ asked for 4 entries, every entry the SRQ reports
 * posted; returns the segment of one more post (the link buffer's last
 * slot, never posted here).  catchable: the first entry is one a watched
 * arrival can be caught in (post_slots_catchable, srq_hold.h).
 */
static DAT_LMR_TRIPLET full_link_up(struct dc_ctx *t, struct srq_link *l, bool catchable)
{
	struct link_opts o = { .depth = 4, .long_msgs = catchable };
	DAT_COUNT depth;

	link_up(l, &o);
	depth = dc_srq_param(t, l->srq).max_recv_dtos;
	if (depth > (DAT_COUNT)NSLOTS - 1)
		DC_BEYOND_SUITE_BOUND("an SRQ of at most 63 entries",
				      "asked for 4 entries, the SRQ reports %d", (int)depth);
	if (catchable)
		post_slots_catchable(l, (unsigned)depth);
	else
		post_slots(l->srq, &l->rbuf, 0, (unsigned)depth);
	return dc_iov(&l->rbuf, (DAT_VLEN)(NSLOTS - 1) * SLOT, SLOT);
}

/*
 * The same with entries occupied the other way the pages count: buffers
 * whose messages arrived and whose completions are not reaped yet are
 * outstanding (dat_srq_resize(3DAT) DESCRIPTION), and an outstanding entry
 * is not available for a new posting (dat_srq_query(3DAT) DESCRIPTION,
 * outstanding_dto_count).
 */
DC_CASE(dat_srq_post_recv, insufficient_resources_unreaped,
	.clauses = "dat_srq_post_recv.insufficient_resources",
	.summary = "every entry used, two by completions not yet reaped: one more post gives DAT_INSUFFICIENT_RESOURCES",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_LMR_TRIPLET iov = full_link_up(t, &l, false);
	DAT_COUNT depth = dc_srq_param(t, l.srq).max_recv_dtos;

	DC_SETUP_ASSERT(depth >= 2, "set-up: the SRQ reports a depth of %d", (int)depth);
	link_arrive_unreaped(&l, 2, depth - 2);
	DC_ASSERT_RET(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(NSLOTS - 1)),
		      DAT_INSUFFICIENT_RESOURCES);
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	dc_note(t, "after the two completions were reaped, a post returned %s (not judged)",
		dc_ret_text(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(NSLOTS - 1))));
}

/*
 * The same with entries held by completions in error, not reaped (issue 54:
 * accounting tried with successful completions only; dat_srq_query(3DAT)
 * DESCRIPTION: the occupied entries include completions not reaped,
 * whatever their status).  Failed: a message longer than the buffer it
 * takes.  Flushed: a buffer an EP took for a message still arriving when it
 * leaves the connection (dat_srq_post_recv(3DAT) DESCRIPTION: queued on its
 * recv EVD), frozen with the reference provider's hooks or caught by
 * watching (srq_hold.h).  Every other entry is on the SRQ: one more post gives
 * DAT_INSUFFICIENT_RESOURCES.
 */
static void full_with_error_completion(struct dc_ctx *t, bool flushed)
{
	struct srq_link l;
	DAT_LMR_TRIPLET iov;

	for (int tries = 1;; tries++) {
		iov = full_link_up(t, &l, flushed);
		if (link_one_in_error_try(&l, flushed, tries))
			break;
	}
	DC_ASSERT_RET(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(NSLOTS - 1)),
		      DAT_INSUFFICIENT_RESOURCES);
	link_reap_in_error(&l, flushed);
	dc_note(t, "after the %s completion was reaped, a post returned %s (not judged)",
		flushed ? "flushed" : "failed",
		dc_ret_text(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(NSLOTS - 1))));
}

DC_CASE(dat_srq_post_recv, insufficient_resources_failed_unreaped,
	.clauses = "dat_srq_post_recv.insufficient_resources",
	.summary = "every entry used, one by a failed completion not yet reaped: one more post gives DAT_INSUFFICIENT_RESOURCES",
	.requires = "srq_supported")
{
	full_with_error_completion(t, false);
}

DC_CASE(dat_srq_post_recv, insufficient_resources_flushed_unreaped,
	.clauses = "dat_srq_post_recv.insufficient_resources",
	.summary = "every entry used, one by a flushed completion not yet reaped: one more post gives DAT_INSUFFICIENT_RESOURCES",
	.requires = "srq_supported")
{
	full_with_error_completion(t, true);
}

DC_CASE(dat_srq_post_recv, iov_outside_lmr,
	.summary = "segments running past the end of, or starting before, their LMR give DAT_INVALID_PARAMETER",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 2, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov[2];
	struct dc_snap s;

	dc_lmr(t, pz, 4096, DC_PRIV_LOCAL, &m);
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	iov[0] = dc_iov(&m, dc_off_past_end(&m, 200) + 103, 200);	/* 104 bytes past the end */
	DC_ASSERT_RET(dat_srq_post_recv(srq, 1, iov, dc_cookie(1)), DAT_INVALID_PARAMETER);
	iov[0] = dc_iov_before_start(&m, 64, 128);	/* starts 64 bytes before */
	DC_ASSERT_RET(dat_srq_post_recv(srq, 1, iov, dc_cookie(2)), DAT_INVALID_PARAMETER);
	iov[0] = dc_iov(&m, 0, 128);			/* good first, bad second */
	iov[1] = dc_iov_past_end(&m, 32);
	DC_ASSERT_RET(dat_srq_post_recv(srq, 2, iov, dc_cookie(3)), DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_srq_post_recv, pz_mismatch,
	.summary = "an LMR of another PZ gives DAT_PROTECTION_VIOLATION and changes nothing",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t), other = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;
	struct dc_snap s;

	dc_lmr(t, other, SLOT, DC_PRIV_LOCAL, &m);
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	iov = dc_iov(&m, 0, SLOT);
	DC_ASSERT_RET(dat_srq_post_recv(srq, 1, &iov, dc_cookie(1)), DAT_PROTECTION_VIOLATION);
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_srq_post_recv, lmr_without_local_write,
	.summary = "an LMR registered for local read only gives DAT_PRIVILEGES_VIOLATION",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;
	struct dc_snap s;

	dc_lmr(t, pz, SLOT, DAT_MEM_PRIV_LOCAL_READ_FLAG, &m);
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	iov = dc_iov(&m, 0, SLOT);
	DC_ASSERT_RET(dat_srq_post_recv(srq, 1, &iov, dc_cookie(1)), DAT_PRIVILEGES_VIOLATION);
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_srq_post_recv, invalid_lmr,
	.summary = "an lmr_context that names no LMR gives DAT_PRIVILEGES_VIOLATION",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;
	struct dc_snap s;

	dc_lmr(t, pz, SLOT, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, SLOT);
	iov.lmr_context = dc_unissued_lmr_context(&m);
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	DC_ASSERT_RET(dat_srq_post_recv(srq, 1, &iov, dc_cookie(1)), DAT_PRIVILEGES_VIOLATION);
	DC_ASSERT_UNCHANGED(&s);
}

/* ---- USAGE -------------------------------------------------------------- */

SRQ_CASE(dat_srq_post_recv, alignment_advised,
	.summary = "an aligned and an odd-address segment both receive correctly",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	uint32_t v;

	link_up(&l, NULL);
	iov = dc_iov(&l.rbuf, 0, 64);			/* aligned */
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(0)));
	link_send(&l, 10, 64);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_EQ(d.user_cookie.as_64, 0);
	DC_ASSERT_EQ(slot_seq(&l.rbuf, 0), 10);
	iov = dc_iov(&l.rbuf, SLOT + 1, 64);		/* odd address */
	DC_ASSERT_SUCCESS(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(1)));
	link_send(&l, 11, 64);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_EQ(d.user_cookie.as_64, 1);
	DC_ASSERT_EQ(d.transfered_length, 64);
	memcpy(&v, l.rbuf.buf + SLOT + 1, sizeof(v));
	DC_ASSERT_EQ(v, 11);
}

/* An SRQ link s and a plain link p each get a 16-byte buffer at rbuf[off]
 * (cookie seq) and a message of len bytes (seq); returns p's status after
 * checking s's is the same (the SRQ's completion is what a plain EP's
 * Receive of that size gets, DESCRIPTION). */
static DAT_DTO_COMPLETION_STATUS same_as_plain(struct dc_ctx *t, struct srq_link *s,
					       struct srq_link *p, DAT_VLEN off, uint32_t seq,
					       DAT_VLEN len)
{
	DAT_LMR_TRIPLET iov = dc_iov(&s->rbuf, off, 16);
	DAT_EVENT es, ep;

	DC_SETUP(dat_srq_post_recv(s->srq, 1, &iov, dc_cookie(seq)));
	dc_post_recv(t, p->rx.ep, &p->rbuf, off, 16, seq);
	link_send(s, seq, len);
	link_send(p, seq, len);
	DC_ASSERT_EVENT(s->rx.recv_evd, DAT_DTO_COMPLETION_EVENT, &es);
	DC_ASSERT_EVENT(p->rx.recv_evd, DAT_DTO_COMPLETION_EVENT, &ep);
	dc_note(t, "%llu bytes into 16: SRQ EP %s, plain EP %s", (unsigned long long)len,
		dc_dto_status_name(es.event_data.dto_completion_event_data.status),
		dc_dto_status_name(ep.event_data.dto_completion_event_data.status));
	DC_ASSERT_EQ(es.event_data.dto_completion_event_data.status,
		     ep.event_data.dto_completion_event_data.status);
	return ep.event_data.dto_completion_event_data.status;
}

DC_CASE(dat_srq_post_recv, size_for_any_ep,
	.summary = "a message of exactly its SRQ buffer's size, and one a byte too long, end as "
		   "they do in a plain EP's buffer of that size",
	.requires = "srq_supported")
{
	struct link_opts few = { .few_evds = true };	/* two links at once */
	struct srq_link s, p;

	link_up(&s, &few);
	plain_link_up(&p, &few);
	/* at the boundary: exactly the buffer's size */
	DC_SETUP_ASSERT(same_as_plain(t, &s, &p, 0, 1, 16) == DAT_DTO_SUCCESS,
			"set-up: the plain EP did not take 16 bytes into 16 bytes; nothing to compare against");
	/* one byte more than the buffer holds */
	DC_SETUP_ASSERT(same_as_plain(t, &s, &p, SLOT, 2, 17) != DAT_DTO_SUCCESS,
			"set-up: the plain EP accepted 17 bytes into 16 bytes; nothing to compare against");
}

SRQ_CASE(dat_srq_post_recv, solicited_wait_ep,
	.summary = "solicited-wait EP: an unsolicited Send does not notify, a solicited one does; both are queued",
	.requires = "srq_supported completion_flags_supported&2")
{
	struct srq_link l;
	DAT_EP_ATTR a;
	struct link_opts o = { .rx_attr = &a };
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE which;
	DAT_RETURN r;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_ep_attr_default(t, &a);
	a.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	link_up(&l, &o);
	cno = dc_evd_new_cno(t, l.rx.recv_evd);
	post_slots(l.srq, &l.rbuf, 0, 2);
	link_send(&l, 0, 64);				/* unsolicited */
	link_sent(&l, 1);
	if (!srq_await_available(l.srq, 1))
		dc_note(t, "arrival not observable through the SRQ count; relying on the Send completion");
	r = cno_fired(t, cno, 300, &which);
	DC_ASSERT_RET(r, DAT_QUEUE_EMPTY);		/* timed out: no notification (dat_cno_wait) */
	link_send_flags(&l, 1, 64, DAT_COMPLETION_SOLICITED_WAIT_FLAG);	/* solicited */
	r = cno_fired(t, cno, DC_WAIT_MS, &which);
	DC_ASSERT(r == DAT_SUCCESS, "the solicited Send's completion did not notify (dat_cno_wait %s)", dc_ret_text(r));
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);			/* the unsolicited one is queued first */
	DC_ASSERT_EQ(slot_seq(&l.rbuf, (unsigned)d.user_cookie.as_64), 0);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_EQ(slot_seq(&l.rbuf, (unsigned)d.user_cookie.as_64), 1);
}

SRQ_CASE(dat_srq_post_recv, other_flags_signal,
	.summary = "on an EP with default receive flags every SRQ receive notifies",
	.requires = "srq_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	every_message_notifies(t, &l, 3);
}

SRQ_CASE(dat_srq_post_recv, threshold_ep,
	.summary = "threshold EP: dat_evd_wait(threshold 3) waits for the 3rd receive, then returns with nmore >= 2",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_EP_ATTR a;
	struct link_opts o = { .rx_attr = &a };
	DAT_EVENT ev;
	DAT_COUNT nmore = -1;
	DAT_RETURN r;

	dc_ep_attr_default(t, &a);
	a.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	link_up(&l, &o);
	post_slots(l.srq, &l.rbuf, 0, 3);
	link_arrive_unreaped(&l, 2, 1);
	/* the two completions are queued already: the suite's quiet watch shows
	 * that the wait does not return with them */
	r = dat_evd_wait(l.rx.recv_evd, DC_QUIET_MS * 1000, 3, &ev, &nmore);
	DC_ASSERT_RET(r, DAT_TIMEOUT_EXPIRED);		/* 2 < threshold 3 */
	link_send(&l, 2, 64);
	r = dat_evd_wait(l.rx.recv_evd, DC_WAIT_MS * 1000, 3, &ev, &nmore);
	DC_ASSERT_SUCCESS(r);
	DC_ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
	DC_ASSERT_GE(nmore, 2);
}

DC_CASE(dat_srq_post_recv, only_connected_eps_take,
	.summary = "unconnected, pending and disconnected EPs take no SRQ buffer; a connected one does",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	/* two links at once, as few EVDs as the checks read */
	struct link_opts share = { .srq = srq, .pz = pz, .no_connect = true, .few_evds = true };
	struct srq_link idle, act;
	struct dc_endpoint *peer = &act.tx;	/* act's plain EP listens */
	DAT_EVENT ev;
	DAT_COUNT n;
	DAT_EP_STATE st;
	DAT_BOOLEAN ri, qi;

	link_up(&idle, &share);		/* an EP on the SRQ that never connects */
	link_up(&act, &share);		/* an EP on the SRQ that will connect actively */
	post_slots(srq, &idle.rbuf, 0, 3);
	ASSERT_COUNT(DC_SRQ_PARAM(srq).available_dto_count, 3);
	if (dat_ep_recv_query(idle.rx.ep, &n, NULL) == DAT_SUCCESS)
		ASSERT_COUNT(n, 0);
	/* act's EP on the SRQ connects to its plain EP; while pending it takes nothing */
	peer->cr_evd = dc_shared_cr_evd(t);
	DC_SETUP(dat_psp_create_any(t->ia, &peer->conn_qual, peer->cr_evd,
				    DAT_PSP_CONSUMER_FLAG, &peer->psp));
	DC_SETUP(dat_ep_connect(act.rx.ep, t->ia_attr.ia_address_ptr, peer->conn_qual,
				DC_WAIT_MS * 1000, 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG));
	dc_await_event(t, peer->cr_evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_SETUP(dat_ep_get_status(act.rx.ep, &st, &ri, &qi));
	dc_note(t, "active EP state while the request is pending: %d", (int)st);
	ASSERT_COUNT(DC_SRQ_PARAM(srq).available_dto_count, 3);
	DC_SETUP(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, peer->ep, 0, NULL));
	dc_await_event(t, act.rx.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_await_event(t, peer->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	ASSERT_COUNT(DC_SRQ_PARAM(srq).available_dto_count, 3);	/* connected, idle */
	/* a message on the connection is taken by the connected EP */
	{
		DAT_DTO_COMPLETION_EVENT_DATA d;

		dc_post_send(t, peer->ep, &act.sbuf, 0, 64, 1);
		d = DC_ASSERT_DTO_SUCCESS(act.rx.recv_evd);
		DC_ASSERT_PTR_EQ(d.ep_handle, act.rx.ep);
	}
	ASSERT_COUNT(DC_SRQ_PARAM(srq).available_dto_count, 2);
	DC_SETUP(dat_ep_disconnect(act.rx.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_await_event(t, act.rx.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	ASSERT_COUNT(DC_SRQ_PARAM(srq).available_dto_count, 2);	/* disconnected */
	if (dat_ep_recv_query(idle.rx.ep, &n, NULL) == DAT_SUCCESS)
		ASSERT_COUNT(n, 0);
	/* and the buffers are still there for a connected EP: idle connects now */
	link_connect(&idle);
	link_send(&idle, 5, 64);
	(void)DC_ASSERT_DTO_SUCCESS(idle.rx.recv_evd);
	link_send(&idle, 6, 64);
	(void)DC_ASSERT_DTO_SUCCESS(idle.rx.recv_evd);
}

SRQ_CASE(dat_srq_post_recv, disconnect_flushes_taken,
	.summary = "at disconnect the EP's taken buffers complete flushed on its recv EVD; the SRQ keeps the rest",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .long_msgs = true };
	struct srq_hold h;
	bool seen[4] = { false };
	unsigned taken;

	link_up(&l, &o);
	post_slots_catchable(&l, 4);
	taken = link_take_mid_arrival(&l, &h);	/* buffers taken, messages incomplete */
	DC_SETUP(dat_ep_disconnect(l.rx.ep, DAT_CLOSE_ABRUPT_FLAG));
	for (unsigned i = 0; i < taken; i++) {
		DAT_EVENT ev;
		const DAT_DTO_COMPLETION_EVENT_DATA *d;

		DC_ASSERT_EVENT(l.rx.recv_evd, DAT_DTO_COMPLETION_EVENT, &ev);
		d = &ev.event_data.dto_completion_event_data;
		if (d->status == DAT_DTO_SUCCESS)
			link_confirm_caught(&l);	/* outran the disconnect: not staged */
		DC_ASSERT_EQ(d->status, DAT_DTO_ERR_FLUSHED);
		DC_ASSERT_PTR_EQ(d->ep_handle, l.rx.ep);
		DC_ASSERT_LT(d->user_cookie.as_64, 4);
		DC_ASSERT(!seen[d->user_cookie.as_64], "buffer %llu flushed twice",
			  (unsigned long long)d->user_cookie.as_64);
		seen[d->user_cookie.as_64] = true;
	}
	DC_ASSERT_NO_EVENT(l.rx.recv_evd);
	ASSERT_COUNT(DC_SRQ_PARAM(l.srq).available_dto_count, 4 - taken);
	ASSERT_COUNT(DC_SRQ_PARAM(l.srq).outstanding_dto_count, 4 - taken);
}
