/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_post_recv(3DAT): clauses/dat_ep_post_recv.toml.
 *
 * Data cases use a connected pair in this process (pair_up: a sends, b
 * receives).  A refused Receive must leave recv_idle DAT_TRUE: nothing was
 * queued.  valid_in_all_states posts on an EP brought into every state for
 * real through the two-node fixture.
 */
#include "ep_common.h"

/*
 * b posts a Receive of n (<= 3) segments of mb (at off[k], len[k] bytes) and
 * a sends `msg` bytes of ma from moff (filled with `seed`); the Receive's
 * completion must be successful and `msg` long.
 */
static void recv_take(struct dc_ctx *t, struct dc_pair *p, int n, const DAT_VLEN off[3],
		      const DAT_VLEN len[3], DAT_VLEN moff, DAT_VLEN msg, unsigned int seed,
		      uint64_t cookie)
{
	DAT_LMR_TRIPLET iov[4];
	DAT_DTO_COMPLETION_EVENT_DATA d;

	memset(p->mb.buf, CANARY, SUBJ_MEM);
	for (int k = 0; k < n; k++)
		iov[k] = dc_iov(&p->mb, off[k], len[k]);
	iov[n] = poison_triplet(&p->mb);	/* past num_segments: never read */
	DC_ASSERT_SUCCESS(dat_ep_post_recv(p->b.ep, n, iov, dc_cookie(cookie), DAT_COMPLETION_DEFAULT_FLAG));
	dc_fill(p->ma.buf + moff, (size_t)msg, seed);
	DC_SETUP(post_send1(p->a.ep, &p->ma, moff, msg, cookie + 1));
	d = DC_ASSERT_DTO(p->b.recv_evd, cookie, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, msg);
}

/*
 * As many segments as the EP takes, up to 3 (dat_ep_post_recv(3DAT) RETURN
 * VALUES: more than max_recv_iov is refused): with 2 the order is judged
 * over two, with 1 that the message fills the segment from its start and
 * no further; the parts that need 3 are skipped, noted.
 */
DC_CASE(dat_ep_post_recv, fills_in_iov_order,
	.summary = "a message fills the Receive's segments (up to 3, as many as the EP takes) in order: full, partial, untouched")
{
	struct dc_pair p;
	int n;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	n = (int)dc_within_limit(3, dc_ep_param(t, p.b.ep).ep_attr.max_recv_iov);
	if (n < 3)
		dc_note(t, "the EP takes %d segment(s) per Receive: the fill order is judged over %d", n, n);
	recv_take(t, &p, n, (const DAT_VLEN[]){ 0, 200, 400 }, (const DAT_VLEN[]){ 100, 100, 100 },
		  0, n > 1 ? 150 : 50, 0x31, 1);
	if (n > 1) {
		DC_ASSERT(dc_check_fill(p.mb.buf, 100, 0x31), "segment 1 is not the first 100 bytes");
		DC_ASSERT(!memcmp(p.mb.buf + 200, p.ma.buf + 100, 50),
			  "segment 2 does not start with bytes 100..149");
		DC_ASSERT_BYTES_ARE(p.mb.buf + 250, 50, CANARY, "the rest of segment 2");
	} else {
		DC_ASSERT(dc_check_fill(p.mb.buf, 50, 0x31), "the segment does not start with the 50 bytes");
		DC_ASSERT_BYTES_ARE(p.mb.buf + 50, 50, CANARY, "the rest of the segment");
	}
	DC_ASSERT_BYTES_ARE(p.mb.buf + 400, 100, CANARY, "segment 3");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 100, 100, CANARY, "the gap between segments 1 and 2");
	if (n < 2)
		return;
	/* segments of 1, 100 (and 100) bytes take 102 (101 with two): the
	 * 1-byte segment is a front one, and with three the message's last
	 * byte alone starts segment 3 */
	recv_take(t, &p, n, (const DAT_VLEN[]){ 1000, 1200, 1400 }, (const DAT_VLEN[]){ 1, 100, 100 },
		  1000, n > 2 ? 102 : 101, 0x32, 3);
	DC_ASSERT(p.mb.buf[1000] == p.ma.buf[1000], "the 1-byte segment 1 is not byte 0");
	DC_ASSERT(!memcmp(p.mb.buf + 1200, p.ma.buf + 1001, 100), "segment 2 is not bytes 1..100");
	if (n > 2)
		DC_ASSERT(p.mb.buf[1400] == p.ma.buf[1101], "segment 3 does not start with byte 101");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 1400 + (n > 2), 100 - (n > 2), CANARY, "the rest of segment 3");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 1001, 199, CANARY, "the gap between segments 1 and 2");
	if (n < 3) {
		dc_note(t, "the empty middle segment needs 3 segments: that part skipped");
		return;
	}
	/* segments of 10, 0 and 10 bytes take 15: the empty segment is a
	 * front one (completely filled by nothing), the message goes on into
	 * segment 3 */
	recv_take(t, &p, 3, (const DAT_VLEN[]){ 2000, 2100, 2200 }, (const DAT_VLEN[]){ 10, 0, 10 },
		  2000, 15, 0x33, 5);
	DC_ASSERT(!memcmp(p.mb.buf + 2000, p.ma.buf + 2000, 10), "segment 1 is not bytes 0..9");
	DC_ASSERT(!memcmp(p.mb.buf + 2200, p.ma.buf + 2010, 5),
		  "segment 3 does not start with bytes 10..14 (the empty segment 2 stopped the message?)");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 2205, 5, CANARY, "the rest of segment 3");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 2010, 190, CANARY, "the memory between segments 1 and 3");
}

DC_CASE(dat_ep_post_recv, completion_on_recv_evd,
	.summary = "the Receive completes on the receive EVD with EP, cookie, status and length")
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_ASSERT_SUCCESS(post_recv1(p.b.ep, &p.mb, 0, 1024, 0xFEEDull << 20));	/* the clause's own post */
	dc_fill(p.ma.buf + 0, 77, 5);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 77, 2));
	d = DC_ASSERT_DTO(p.b.recv_evd, 0xFEEDull << 20, DAT_DTO_SUCCESS);
	DC_ASSERT_PTR_EQ(d.ep_handle, p.b.ep);
	DC_ASSERT_EQ(d.transfered_length, 77);
	DC_ASSERT(dc_check_fill(p.mb.buf, 77, 5), "the bytes are not the message");
	DC_ASSERT_NO_EVENT(p.b.req_evd);
}

DC_CASE(dat_ep_post_recv, zero_length,
	.summary = "a Receive with no segments takes an empty message")
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_LMR_TRIPLET poison;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_ASSERT_SUCCESS(dat_ep_post_recv(p.b.ep, 0, NULL, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
	DC_SETUP(dat_ep_post_send(p.a.ep, 0, NULL, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	d = DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 0);
	/* no segments, and a local_iov whose first triplet must not be read */
	poison = poison_triplet(&p.mb);
	DC_ASSERT_SUCCESS(dat_ep_post_recv(p.b.ep, 0, &poison, dc_cookie(3), DAT_COMPLETION_DEFAULT_FLAG));
	DC_SETUP(dat_ep_post_send(p.a.ep, 0, NULL, dc_cookie(4), DAT_COMPLETION_DEFAULT_FLAG));
	d = DC_ASSERT_DTO(p.b.recv_evd, 3, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 0);
}

DC_CASE(dat_ep_post_recv, unsignalled_needs_ep_flag,
	.summary = "the unsignalled flag is refused unless the EP selects unsignalled Receives")
{
	struct dc_endpoint e;
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	dc_endpoint(t, &e, NULL);
	dc_lmr(t, e.pz, 4096, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, 256);
	DC_ASSERT_RET(dat_ep_post_recv(e.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_UNSIGNALLED_FLAG),
		      DAT_INVALID_PARAMETER);
	ASSERT_RECV_IDLE(e.ep, DAT_TRUE);
}

DC_CASE(dat_ep_post_recv, unsignalled_allowed,
	.summary = "on an EP with unsignalled Receives, an unsignalled Receive completes without "
		   "notifying anyone",
	.requires = "completion_flags_supported&4")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_CNO_HANDLE cno = unsignalled_pair(t, &p, true);
	DAT_DTO_COMPLETION_EVENT_DATA d;

	iov = dc_iov(&p.mb, 0, 1024);
	DC_ASSERT_SUCCESS(dat_ep_post_recv(p.b.ep, 1, &iov, dc_cookie(11), DAT_COMPLETION_UNSIGNALLED_FLAG));
	dc_fill(p.ma.buf + 0, 64, 6);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 2));
	DC_SETUP_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	await_recv_idle(p.b.ep);
	assert_cno_quiet(cno, "the unsignalled Receive's completion");
	d = DC_ASSERT_DTO(p.b.recv_evd, 11, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 64);
	DC_ASSERT(dc_check_fill(p.mb.buf, 64, 6), "the unsignalled Receive holds wrong bytes");
	/* the pair of this part goes before the next part makes its own (few EVDs) */
	DC_CLEANUP(dat_evd_modify_cno(p.b.recv_evd, DAT_HANDLE_NULL));
	DC_CLEANUP(dat_cno_free(cno));
	dc_pair_down(t, &p);
	/*
	 * The same with the flag selected by dat_ep_modify after creation,
	 * while Unconnected and before any Receive is posted (dat_ep_modify(3DAT)
	 * DESCRIPTION, Recv Completion Flags; issue 54: a setting changed after
	 * creation is used afterwards): the EP takes an unsignalled Receive as
	 * if created so.
	 */
	dc_note(t, "recv_completion_flags set to unsignalled by dat_ep_modify");
	cno = unsignalled_pair_by_modify(t, &p, true);
	iov = dc_iov(&p.mb, 0, 1024);
	DC_ASSERT_SUCCESS(dat_ep_post_recv(p.b.ep, 1, &iov, dc_cookie(12),
					   DAT_COMPLETION_UNSIGNALLED_FLAG));
	dc_fill(p.ma.buf + 0, 64, 7);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 3));
	DC_SETUP_DTO(p.a.req_evd, 3, DAT_DTO_SUCCESS);
	await_recv_idle(p.b.ep);
	assert_cno_quiet(cno, "the unsignalled Receive's completion (flag set by dat_ep_modify)");
	d = DC_ASSERT_DTO(p.b.recv_evd, 12, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 64);
	DC_ASSERT(dc_check_fill(p.mb.buf, 64, 7),
		  "the unsignalled Receive holds wrong bytes (flag set by dat_ep_modify)");
}

/*
 * How long the case gives a message to arrive before the Receive is posted:
 * ten times what one took on this connection with a Receive waiting for it
 * (a message both ways, reaped), at least 20 ms.
 */
static long arrival_window_ms(struct dc_ctx *t, struct dc_pair *p)
{
	double t0, took;

	DC_SETUP(post_recv1(p->b.ep, &p->mb, 0, 64, 90));
	t0 = dc_now_ms();
	DC_SETUP(post_send1(p->a.ep, &p->ma, 0, 64, 91));
	DC_SETUP_DTO(p->b.recv_evd, 90, DAT_DTO_SUCCESS);
	took = dc_now_ms() - t0;
	DC_SETUP_DTO(p->a.req_evd, 91, DAT_DTO_SUCCESS);
	dc_note(t, "a message took %.2f ms to arrive with a Receive waiting", took);
	return took * 10 > 20 ? (long)(took * 10) : 20;
}

DC_CASE(dat_ep_post_recv, posted_after_arrival,
	.summary = "a message that came before any Receive goes to the Receive posted later, or the "
		   "connection breaks")
{
	struct dc_pair p;
	DAT_EVENT ev;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	long window_ms;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	window_ms = arrival_window_ms(t, &p);
	memset(p.mb.buf, CANARY, SUBJ_MEM);
	dc_fill(p.ma.buf + 0, 200, 0x71);
	dc_fill(p.ma.buf + 1024, 100, 0x72);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 200, 1));	/* b has no Receive yet */
	/* time for it to arrive; dat_ep_set_watermark(3DAT) DESCRIPTION lets the
	 * provider break the connection over it meanwhile.  Which end sees it
	 * broken is not said: a's provider may give up on the Send and end the
	 * connection, and b then sees the peer's disconnect (verbs: RNR retries
	 * exhausted on a). */
	if (dc_wait_event(t, p.b.conn_evd, window_ms, &ev) == DAT_SUCCESS) {
		DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_BROKEN ||
			  ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED,
			  "with the message waiting for a Receive, b's connection EVD got %s",
			  dc_event_name(ev.event_number));
		dc_note(t, "the connection broke over the message with no Receive");
		return;
	}
	DC_ASSERT_SUCCESS(post_recv1(p.b.ep, &p.mb, 0, 1024, 10));
	DC_ASSERT_SUCCESS(post_recv1(p.b.ep, &p.mb, 2048, 1024, 11));
	DC_SETUP(post_send1(p.a.ep, &p.ma, 1024, 100, 2));	/* one with a Receive */
	d = DC_ASSERT_DTO_EVENT(p.b.recv_evd);
	if (d.status != DAT_DTO_SUCCESS) {
		dc_note(t, "the first Receive completed with %s", dc_dto_status_name(d.status));
		DC_ASSERT(d.user_cookie.as_64 == 10, "Receive %llu completed before the first one",
			  (unsigned long long)d.user_cookie.as_64);
		DC_ASSERT_CONN_END(p.b.conn_evd);	/* only a broken connection excuses it */
		return;
	}
	DC_ASSERT(d.user_cookie.as_64 == 10, "Receive %llu completed before the first one",
		  (unsigned long long)d.user_cookie.as_64);
	DC_ASSERT_EQ(d.transfered_length, 200);
	DC_ASSERT(dc_check_fill(p.mb.buf, 200, 0x71),
		  "the first Receive does not hold the message that arrived before it");
	d = DC_ASSERT_DTO(p.b.recv_evd, 11, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 100);
	DC_ASSERT(dc_check_fill(p.mb.buf + 2048, 100, 0x72), "the second Receive holds wrong bytes");
}

/* b's Receive of `len` bytes of mb at off: two segments (60% and the rest)
 * where the EP takes two, else one */
static DAT_RETURN post_recv_split(struct dc_pair *p, DAT_COUNT nseg, DAT_VLEN off, DAT_VLEN len,
				  uint64_t cookie)
{
	DAT_LMR_TRIPLET iov[2];

	if (nseg < 2)
		return post_recv1(p->b.ep, &p->mb, off, len, cookie);
	iov[0] = dc_iov(&p->mb, off, len * 3 / 5);
	iov[1] = dc_iov(&p->mb, off + 1024, len - len * 3 / 5);	/* not adjacent */
	return dat_ep_post_recv(p->b.ep, 2, iov, dc_cookie(cookie), DAT_COMPLETION_DEFAULT_FLAG);
}

DC_CASE(dat_ep_post_recv, message_too_long,
	.summary = "a message one byte longer than the Receive completes it with the length error; "
		   "one of exactly its size fills it")
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_COUNT nseg;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	nseg = dc_ep_param(t, p.b.ep).ep_attr.max_recv_iov >= 2 ? 2 : 1;
	dc_note(t, "Receives of %d segment(s)", (int)nseg);
	memset(p.mb.buf, CANARY, SUBJ_MEM);
	/* at the boundary: a message of exactly the Receive's size is not
	 * larger than it (DESCRIPTION), so it fills the Receive */
	DC_ASSERT_SUCCESS(post_recv_split(&p, nseg, 0, 100, 1));	/* the clause's own post */
	dc_fill(p.ma.buf + 0, 100, 5);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 100, 2));
	d = DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 100);
	if (nseg == 2)
		DC_ASSERT(!memcmp(p.mb.buf, p.ma.buf, 60) && !memcmp(p.mb.buf + 1024, p.ma.buf + 60, 40),
			  "the message of exactly the Receive's size did not fill its two segments");
	else
		DC_ASSERT(dc_check_fill(p.mb.buf, 100, 5),
			  "the message of exactly the Receive's size did not fill it");
	/* one byte more than the Receive holds: the length error */
	DC_ASSERT_SUCCESS(post_recv_split(&p, nseg, 4096, 100, 3));	/* the clause's own post */
	dc_fill(p.ma.buf + 0, 101, 6);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 101, 4));
	d = DC_ASSERT_DTO(p.b.recv_evd, 3, DAT_DTO_ERR_LOCAL_LENGTH);
	DC_ASSERT_PTR_EQ(d.ep_handle, p.b.ep);	/* the failed completion is the Receive's */
}

static void recv_posts(struct dc_ctx *t, struct subject *s, const void *arg)
{
	(void)arg;
	adopt(s);
	/* dat_ep_post_recv(3DAT) DESCRIPTION: the post is valid in every state,
	 * so the return is the clause; that the Receive is then outstanding is
	 * dat_ep_get_status's recv_idle clause, not this page's */
	DC_ASSERT_SUCCESS(post_recv1(s->ep, &s->mem, 8192, 256, 4242));
}

#define RECV_OK(st)							\
	STATE_CASE(dat_ep_post_recv, valid_in_##st, st, recv_posts, NULL,	\
		   "dat_ep_post_recv.valid_in_all_states",			\
		   "a Receive can be posted in " #st)
RECV_OK(unconnected)
RECV_OK(reserved)
RECV_OK(passive_connection_pending)
RECV_OK(tentative_connection_pending)
RECV_OK(active_connection_pending)
RECV_OK(completion_pending)
RECV_OK(connected)
RECV_OK(disconnect_pending)
RECV_OK(disconnected)

DC_CASE(dat_ep_post_recv, preposted_used_once_connected,
	.summary = "a Receive posted before the connection takes the first message after it")
{
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	memset(&a, 0, sizeof(a));
	dc_endpoint(t, &b, NULL);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &mb);
	DC_ASSERT_SUCCESS(post_recv1(b.ep, &mb, 0, 1024, 1));
	dc_connect_local(t, &a, &b, NULL);
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &ma);
	dc_fill(ma.buf + 0, 300, 0x44);
	DC_SETUP(post_send1(a.ep, &ma, 0, 300, 2));
	d = DC_ASSERT_DTO(b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 300);
	DC_ASSERT(dc_check_fill(mb.buf, 300, 0x44), "the pre-posted Receive holds wrong bytes");
}

static DAT_RETURN recv_flagged(struct dc_pair *p, uint64_t cookie, DAT_COMPLETION_FLAGS fl)
{
	DAT_LMR_TRIPLET iov = dc_iov(&p->ma, 0, 1024);

	return dat_ep_post_recv(p->a.ep, 1, &iov, dc_cookie(cookie), fl);
}

DC_CASE(dat_ep_post_recv, disconnected_flushed,
	.summary = "a Receive posted on a Disconnected EP is flushed at once, however the EP was "
		   "disconnected, and with the unsignalled flag too")
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	for (int way = 0; way < DISC_WAYS; way++) {
		dc_note(t, "DISCONNECTED by %s", disc_way_name(way));
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		disconnect_pair_by(&p, way);
		memset(p.ma.buf, CANARY, 1024);
		DC_ASSERT_SUCCESS(post_recv1(p.a.ep, &p.ma, 0, 1024, 51));
		d = DC_ASSERT_DTO(p.a.recv_evd, 51, DAT_DTO_ERR_FLUSHED);
		/* the flushed completion is the posted Receive's: it names the
		 * EP it was posted on, as a successful one does */
		DC_ASSERT_PTR_EQ(d.ep_handle, p.a.ep);
		DC_ASSERT_BYTES_ARE(p.ma.buf, 1024, CANARY, "the flushed Receive's buffer");
		pair_down(t, &p);
	}
	assert_unsignalled_flushed(recv_flagged, true, 52);
}

/* An unconnected EP and an LMR in its PZ: enough for the synchronous checks. */
struct lone {
	struct dc_endpoint e;
	struct dc_lmr m;
};

static void lone_up(struct dc_ctx *t, struct lone *l)
{
	dc_endpoint(t, &l->e, NULL);
	dc_lmr(t, l->e.pz, 4096, DC_PRIV_LOCAL, &l->m);
}

/* Frees what lone_up (or the same made by hand) made: the LMR, the EP and
 * its EVDs, the PZ. */
static void lone_down(struct dc_ctx *t, struct lone *l)
{
	DAT_PZ_HANDLE pz = l->e.pz;

	DC_CLEANUP(dat_lmr_free(l->m.lmr));
	free_endpoint(t, &l->e);
	DC_CLEANUP(dat_pz_free(pz));
}

DC_CASE(dat_ep_post_recv, iov_outside_lmr,
	.summary = "a segment reaching outside its LMR is an invalid parameter")
{
	struct lone l;
	DAT_LMR_TRIPLET iov;

	lone_up(t, &l);
	iov = dc_iov_past_end(&l.m, 256);		/* 1 byte past the end */
	DC_ASSERT_RET(dat_ep_post_recv(l.e.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_PARAMETER);
	iov = dc_iov_before_start(&l.m, 1, 256);	/* starts before it */
	DC_ASSERT_RET(dat_ep_post_recv(l.e.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_PARAMETER);
	iov = dc_iov_longest(&l.m);			/* from its start, 2^64 - 1 bytes */
	DC_ASSERT_RET_ANY(dat_ep_post_recv(l.e.ep, 1, &iov, dc_cookie(3), DAT_COMPLETION_DEFAULT_FLAG),
			  DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR);
	ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
}

DC_CASE(dat_ep_post_recv, invalid_num_segments,
	.summary = "a negative segment count is an invalid parameter")
{
	struct lone l;
	DAT_LMR_TRIPLET iov;

	lone_up(t, &l);
	iov = dc_iov(&l.m, 0, 256);
	DC_ASSERT_RET_ANY(dat_ep_post_recv(l.e.ep, -1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
			  DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR);
	ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
}

DC_CASE(dat_ep_post_recv, null_local_iov,
	.summary = "segments announced with no I/O vector should be an invalid parameter")
{
	struct lone l;

	lone_up(t, &l);
	DC_ASSERT_RET(dat_ep_post_recv(l.e.ep, 1, NULL, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_PARAMETER);
	ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
}

DC_CASE(dat_ep_post_recv, invalid_flags,
	.summary = "completion flag bits no DAT_COMPLETION_* flag has should be an invalid parameter")
{
	static const DAT_COMPLETION_FLAGS undefined[] = { 0x40, 0x80 };
	struct lone l;
	DAT_LMR_TRIPLET iov;

	lone_up(t, &l);
	iov = dc_iov(&l.m, 0, 256);
	for (int i = 0; i < N_OF(undefined); i++)
		DC_ASSERT_RET(dat_ep_post_recv(l.e.ep, 1, &iov, dc_cookie(1 + (uint64_t)i), undefined[i]),
			      DAT_INVALID_PARAMETER);
	ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
}

DC_CASE(dat_ep_post_recv, lmr_pz_mismatch,
	.summary = "a segment of an LMR in another PZ is a protection violation")
{
	struct lone l;
	struct dc_lmr other;
	DAT_LMR_TRIPLET iov;

	lone_up(t, &l);
	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &other);
	iov = dc_iov(&other, 0, 256);
	DC_ASSERT_RET(dat_ep_post_recv(l.e.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PROTECTION_VIOLATION);
	ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
}

DC_CASE(dat_ep_post_recv, lmr_pz_mismatch_no_pz,
	.summary = "a segment of an LMR is a protection violation on an EP that has no PZ",
	.clauses = "dat_ep_post_recv.lmr_pz_mismatch")
{
	DAT_EVD_HANDLE recv = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE req = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE conn = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	DAT_EP_HANDLE ep;
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	/* an EP without a PZ, as dat_psp_create(3DAT)'s Provider EP starts;
	 * a provider that will not create one leaves this unchecked */
	DC_SETUP(dat_ep_create(t->ia, DAT_HANDLE_NULL, recv, req, conn, NULL, &ep));
	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, 256);
	DC_ASSERT_RET(dat_ep_post_recv(ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PROTECTION_VIOLATION);
	ASSERT_RECV_IDLE(ep, DAT_TRUE);
	DC_CLEANUP(dat_ep_free(ep));
}

DC_CASE(dat_ep_post_recv, lmr_no_local_access,
	.summary = "a segment of an LMR with no local privilege is a privileges violation")
{
	struct lone l;
	struct dc_lmr ro;
	DAT_LMR_TRIPLET iov;

	lone_up(t, &l);
	dc_lmr(t, l.e.pz, 4096, DAT_MEM_PRIV_REMOTE_READ_FLAG, &ro);
	iov = dc_iov(&ro, 0, 256);
	DC_ASSERT_RET(dat_ep_post_recv(l.e.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PRIVILEGES_VIOLATION);
	ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
}

DC_CASE(dat_ep_post_recv, lmr_no_local_write,
	.summary = "a segment of an LMR without local write privilege should be a privileges "
		   "violation, for each privilege set without it")
{
	DAT_MEM_PRIV_FLAGS sets[16];
	int n = priv_sets_without(DAT_MEM_PRIV_LOCAL_WRITE_FLAG, sets);
	struct lone l;
	struct dc_lmr ro;
	DAT_LMR_TRIPLET iov;

	lone_up(t, &l);
	for (int i = 0; i < n; i++) {	/* one bit at a time */
		if (!try_priv_lmr(t, l.e.pz, sets[i], &ro))
			continue;
		iov = dc_iov(&ro, 0, 256);
		DC_ASSERT_RET(dat_ep_post_recv(l.e.ep, 1, &iov, dc_cookie(1 + (uint64_t)i),
					       DAT_COMPLETION_DEFAULT_FLAG),
			      DAT_PRIVILEGES_VIOLATION);
	}
	ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
}

DC_CASE(dat_ep_post_recv, invalid_lmr_context,
	.summary = "a segment naming an lmr_context no LMR has is a privileges violation")
{
	struct lone l;
	struct dc_lmr unknown;
	DAT_LMR_TRIPLET iov;

	lone_up(t, &l);
	dc_lmr(t, l.e.pz, 4096, DC_PRIV_LOCAL, &unknown);
	iov = dc_iov(&unknown, 0, 256);
	iov.lmr_context = dc_unissued_lmr_context(&unknown);
	DC_ASSERT_RET(dat_ep_post_recv(l.e.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PRIVILEGES_VIOLATION);
	ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
}

/*
 * The limit a Receive is held to is the EP's max_recv_iov as it is now: one
 * dat_ep_modify changed while the EP was Unconnected (dat_ep_modify(3DAT)
 * DESCRIPTION, Maximum Recv IOV) counts, not the one it was created with
 * (issue 54: a setting changed after creation is used afterwards).  Lowered
 * from l to 1, a Receive of the reported limit + 1 segments is refused;
 * raised from 1 to l, one of the reported limit (at most l) is taken, as a
 * Receive is valid in UNCONNECTED (dat_ep_post_recv(3DAT) DESCRIPTION).  An
 * IA of one segment per DTO has nothing to change (noted).
 */
static void modified_recv_iov_used(struct dc_ctx *t)
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };
	DAT_COUNT l = dc_within_limit(4, t->ia_attr.max_iov_segments_per_dto);
	DAT_LMR_TRIPLET iov[IOV_TRY];

	if (l < 2) {
		dc_note(t, "the IA takes one segment per DTO: no max_recv_iov to change");
		return;
	}
	for (int raise = 0; raise < 2; raise++) {
		DAT_COUNT created = raise ? 1 : l, now = raise ? l : 1;
		struct lone x;
		DAT_COUNT got = (DAT_COUNT)dc_endpoint_modified(t, &x.e, max_recv_iov,
								DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV,
								created, now);

		dc_lmr(t, x.e.pz, 4096, DC_PRIV_LOCAL, &x.m);
		for (DAT_COUNT i = 0; i < IOV_TRY; i++)
			iov[i] = dc_iov(&x.m, (DAT_VLEN)i * 16, 16);
		if (!raise) {
			if (got + 1 > l) {
				dc_note(t, "the EP reports max_recv_iov %d after the change to 1: no "
					"smaller limit to exceed", (int)got);
			} else {
				dc_assert_ret_at(t, __FILE__, __LINE__,
						 "dat_ep_post_recv(max_recv_iov + 1 segments, "
						 "max_recv_iov lowered by dat_ep_modify)",
						 dat_ep_post_recv(x.e.ep, got + 1, iov, dc_cookie(1),
								  DAT_COMPLETION_DEFAULT_FLAG),
						 DC_FAIL, 2, bad, DC_ANY_SUBTYPE);
			}
		} else {
			DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_post_recv(x.e.ep, got < l ? got : l, iov,
									dc_cookie(2),
									DAT_COMPLETION_DEFAULT_FLAG));
		}
		lone_down(t, &x);
	}
}

DC_CASE(dat_ep_post_recv, exceeds_max_recv_iov,
	.summary = "more segments than max_recv_iov is an invalid parameter; the limit dat_ep_modify set is the one used")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };
	struct lone l;
	DAT_LMR_TRIPLET iov[IOV_TRY];
	DAT_COUNT n;
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };

	/* the EP's limit below the IA's, then at it: a provider checking
	 * the IA's limit instead of the EP's, or refusing the IA's own, shows */
	for (int below = 1; below >= 0; below--) {
		/* max_recv_iov as large as the IA allows (limit + 1 still fits) */
		dc_ep_attr_default(t, &attr);
		attr.max_recv_iov = iov_limit(t->ia_attr.max_iov_segments_per_dto, below);
		dc_endpoint(t, &l.e, &o);
		dc_lmr(t, l.e.pz, 4096, DC_PRIV_LOCAL, &l.m);
		n = dc_ep_param(t, l.e.ep).ep_attr.max_recv_iov + 1;
		DC_SETUP_ASSERT(n <= IOV_TRY, "max_recv_iov %d too large for this case", (int)n - 1);
		for (DAT_COUNT i = 0; i < n; i++)
			iov[i] = dc_iov(&l.m, (DAT_VLEN)i * 16, 16);
		dc_assert_ret_at(t, __FILE__, __LINE__, "dat_ep_post_recv(max_recv_iov + 1 segments)",
				 dat_ep_post_recv(l.e.ep, n, iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
				 DC_FAIL, 2, bad, DC_ANY_SUBTYPE);
		ASSERT_RECV_IDLE(l.e.ep, DAT_TRUE);
		/* exactly max_recv_iov segments is within the limit (dat_ep_modify(3DAT)
		 * Maximum Recv IOV) and the post is valid in UNCONNECTED (DESCRIPTION) */
		DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_post_recv(l.e.ep, n - 1, iov, dc_cookie(2),
								DAT_COMPLETION_DEFAULT_FLAG));
		DC_CLEANUP(dat_lmr_free(l.m.lmr));
		{
			DAT_PZ_HANDLE pz = l.e.pz;

			free_endpoint(t, &l.e);
			DC_CLEANUP(dat_pz_free(pz));
		}
	}
	modified_recv_iov_used(t);
}

/*
 * The count of outstanding Receives an EP is held to is its max_recv_dtos as
 * it is now: one dat_ep_modify changed while the EP was Unconnected
 * (dat_ep_modify(3DAT) DESCRIPTION, Maximum Recv DTO) counts, not the one it
 * was created with (issue 54: a setting changed after creation is used
 * afterwards).  Lowered from l (4, or the IA's limit) to l / 2, and raised
 * from l / 2 to l: Receives up to the count the EP then reports are taken
 * (Unconnected, so all stay outstanding: dat_ep_post_recv(3DAT)
 * DESCRIPTION), one more is refused for lack of resources, as with the
 * value of creation above.  An IA of one DTO per EP has nothing to change
 * (noted).
 */
static void modified_recv_dtos_used(struct dc_ctx *t)
{
	DAT_COUNT l = dc_within_limit(4, t->ia_attr.max_dto_per_ep);

	if (l < 2) {
		dc_note(t, "the IA takes one DTO per EP: no max_recv_dtos to change");
		return;
	}
	for (int raise = 0; raise < 2; raise++) {
		DAT_COUNT created = raise ? l / 2 : l, now = raise ? l : l / 2;
		struct lone x;
		DAT_COUNT got = (DAT_COUNT)dc_endpoint_modified(t, &x.e, max_recv_dtos,
								DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
								created, now);

		dc_lmr(t, x.e.pz, 4096, DC_PRIV_LOCAL, &x.m);

		if (got < 1 || got > 32) {
			dc_note(t, "the EP reports max_recv_dtos %d after the change: beyond the 32 "
				"this part posts, left out", (int)got);
		} else {
			for (DAT_COUNT i = 0; i < got; i++)
				DC_ASSERT_SUCCESS_UNLESS_SHORT(post_recv1(x.e.ep, &x.m,
									  (DAT_VLEN)i * 64, 64,
									  20 + (uint64_t)i));
			dc_assert_ret_at(t, __FILE__, __LINE__,
					 "dat_ep_post_recv(one Receive beyond the max_recv_dtos "
					 "dat_ep_modify set)",
					 post_recv1(x.e.ep, &x.m, 3000, 64, 98), DC_FAIL, 2,
					 (const DAT_RETURN[]){ DAT_INSUFFICIENT_RESOURCES,
							       DAT_QUEUE_FULL },
					 DC_ANY_SUBTYPE);
		}
		lone_down(t, &x);
	}
}

DC_CASE(dat_ep_post_recv, exceeds_max_recv_dtos,
	.summary = "posting beyond max_recv_dtos outstanding is refused for lack of resources; the limit dat_ep_modify set is the one used")
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };
	struct lone l;
	DAT_COUNT max;

	dc_ep_attr_default(t, &attr);
	attr.max_recv_dtos = 4;
	dc_endpoint(t, &l.e, &o);
	dc_lmr(t, l.e.pz, 4096, DC_PRIV_LOCAL, &l.m);
	/* the limit is what the EP took, not what the case asked for */
	max = dc_ep_param(t, l.e.ep).ep_attr.max_recv_dtos;
	if (max < 1 || max > 32)
		DC_BEYOND_SUITE_BOUND("32 outstanding Receives",
				      "the EP's max_recv_dtos is %d (asked for 4)", (int)max);
	for (DAT_COUNT i = 0; i < max; i++)	/* Unconnected: all stay outstanding */
		DC_ASSERT_SUCCESS_UNLESS_SHORT(post_recv1(l.e.ep, &l.m, (DAT_VLEN)i * 64, 64,
							  10 + (uint64_t)i));
	DC_ASSERT_RET_ANY(post_recv1(l.e.ep, &l.m, 3000, 64, 99),
			  DAT_INSUFFICIENT_RESOURCES, DAT_QUEUE_FULL);
	/* the EP of this part goes before the next part makes its own */
	lone_down(t, &l);
	modified_recv_dtos_used(t);
}

DC_CASE(dat_ep_post_recv, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, 64);
	DC_ASSERT_INVALID_HANDLE(dat_ep_post_recv((DAT_EP_HANDLE)dc_wrong_handle(t), 1, &iov, dc_cookie(1),
				       DAT_COMPLETION_DEFAULT_FLAG), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_post_recv, invalid_handle_freed,
	.clauses = "dat_ep_post_recv.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, 64);
	DC_ASSERT_INVALID_HANDLE(dat_ep_post_recv(dc_freed_ep(t), 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG), 1, EP);
}

DC_CASE(dat_ep_post_recv, iov_ownership,
	.summary = "with the iov owned by the Consumer on return, rewriting it does not move the data",
	.requires = "iov_ownership_on_return=0")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov[2];
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_NEED_LIMIT("the EP's max_recv_iov", dc_ep_param(t, p.b.ep).ep_attr.max_recv_iov, 2);
	memset(p.mb.buf, CANARY, SUBJ_MEM);
	iov[0] = dc_iov(&p.mb, 0, 100);
	iov[1] = dc_iov(&p.mb, 1000, 100);
	DC_ASSERT_SUCCESS(dat_ep_post_recv(p.b.ep, 2, iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
	memset(iov, 0x77, sizeof(iov));
	dc_fill(p.ma.buf + 0, 200, 0x55);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 200, 2));
	d = DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 200);
	DC_ASSERT(dc_check_fill(p.mb.buf, 100, 0x55), "segment 1 is not where the original iov said");
	DC_ASSERT(!memcmp(p.mb.buf + 1000, p.ma.buf + 100, 100),
		  "segment 2 is not where the original iov said");
}
