/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_disconnect(3DAT): clauses/dat_ep_disconnect.toml.
 *
 * Most cases use a connected pair in this process (ep_common.h: pair_up):
 * "a" is the EP under test, "b" its peer.  A Send from a stays outstanding
 * while b has no Receive posted, which is how Disconnect Pending is held.
 * The cases about connection set-up (Active Connection Pending, Completion
 * Pending) and the refused states use the two-node state fixture.
 */
#include "ep_ways.h"

#define BIG (64u * 1024u)

/* a: graceful disconnect while a Send waits for a Receive at b. */
static void pair_disconnect_pending(struct dc_ctx *t, struct dc_pair *p)
{
	dc_fill(p->ma.buf + 0, 64, 9);
	DC_SETUP(post_send1(p->a.ep, &p->ma, 0, 64, 77));
	DC_SETUP(dat_ep_disconnect(p->a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	await_state(p->a.ep, DAT_EP_STATE_DISCONNECT_PENDING, 2000);
}

DC_CASE(dat_ep_disconnect, connected_to_disconnected,
	.summary = "disconnect of a Connected EP, active or passive side, ends in a DISCONNECTED event and state (abrupt and graceful)",
	.flags = DC_NO_DTOS)
{
	static const DAT_CLOSE_FLAGS how[] = { DAT_CLOSE_ABRUPT_FLAG, DAT_CLOSE_GRACEFUL_FLAG };

	/* each flag, on the EP that connected and on the one that accepted */
	for (size_t i = 0; i < 4; i++) {
		struct dc_pair p;
		struct dc_endpoint *e;

		dc_note(t, "%s, %s side", i & 1 ? "graceful" : "abrupt", i & 2 ? "passive" : "active");
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		e = i & 2 ? &p.b : &p.a;
		DC_ASSERT_SUCCESS(dat_ep_disconnect(e->ep, how[i & 1]));
		DC_ASSERT_CONN_EVENT(e->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, e->ep);
		ASSERT_STATE(e->ep, DAT_EP_STATE_DISCONNECTED);
		dc_pair_down(t, &p);	/* an IA may have few EVDs and EPs */
	}
}

/*
 * The connection itself ends, not just the local EP's view of it
 * (DESCRIPTION: the call requests the connection's termination): the peer
 * EP does not stay Connected.  Which event tells it is no clause of this
 * page: noted.
 */
static void peer_leaves_connected(struct dc_ctx *t, struct dc_endpoint *peer)
{
	DAT_EVENT ev;

	if (dc_wait_event(t, peer->conn_evd, -1, &ev) == DAT_SUCCESS)
		dc_note(t, "the peer got %s", dc_event_name(ev.event_number));
	ASSERT_REACHES_STATE(peer->ep, DAT_EP_STATE_DISCONNECTED, 5000);
}

DC_CASE(dat_ep_disconnect, connection_terminated,
	.summary = "after an abrupt or graceful disconnect, a graceful one that waited in DISCONNECT_PENDING, and an abrupt one in or towards DISCONNECT_PENDING, the peer EP is Disconnected too")
{
	static const DAT_CLOSE_FLAGS how[] = { DAT_CLOSE_ABRUPT_FLAG, DAT_CLOSE_GRACEFUL_FLAG };
	struct dc_pair p;

	for (size_t i = 0; i < 2; i++) {
		dc_note(t, "%s disconnect of a Connected EP", i ? "graceful" : "abrupt");
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		DC_SETUP(dat_ep_disconnect(p.a.ep, how[i]));
		dc_await_event(t, p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
		peer_leaves_connected(t, &p.b);
		pair_down(t, &p);
	}
	/*
	 * a waits in DISCONNECT_PENDING until its Send completes (b posts the
	 * Receive); then the graceful disconnect proceeds on its own and ends
	 * the connection for b as well (DESCRIPTION: the call requests the
	 * termination of the connection; the graceful one waits for the
	 * requests first, then disconnect proceeds)
	 */
	dc_note(t, "graceful disconnect that waited in DISCONNECT_PENDING, then proceeded");
	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	pair_disconnect_pending(t, &p);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 256, 1));
	dc_await_event(t, p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	peer_leaves_connected(t, &p.b);
	pair_down(t, &p);
	/* a waits in DISCONNECT_PENDING; then a itself, or its peer b, disconnects abruptly */
	for (size_t i = 0; i < 2; i++) {
		struct dc_endpoint *closer = i ? &p.b : &p.a, *peer = i ? &p.a : &p.b;

		dc_note(t, "abrupt disconnect %s DISCONNECT_PENDING", i ? "of the peer of an EP in" : "in");
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		pair_disconnect_pending(t, &p);
		DC_SETUP(dat_ep_disconnect(closer->ep, DAT_CLOSE_ABRUPT_FLAG));
		dc_await_event(t, closer->conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
		peer_leaves_connected(t, peer);
		pair_down(t, &p);
	}
}

DC_CASE(dat_ep_disconnect, all_dtos_completed,
	.summary = "every outstanding Receive and Send gets exactly one completion on disconnect")
{
	struct dc_pair p;
	struct dto_log rl = { 0 }, ql = { 0 };
	bool seen_r[8] = { false }, seen_q[8] = { false };

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	dc_fill(p.ma.buf + 0, BIG, 1);
	for (int i = 0; i < 8; i++)
		DC_SETUP(post_recv1(p.a.ep, &p.ma, (DAT_VLEN)i * 1024, 1024, 100 + (uint64_t)i));
	for (int i = 0; i < 8; i++)	/* b has no Receive: these stay outstanding */
		DC_SETUP(post_send1(p.a.ep, &p.ma, 8192 + (DAT_VLEN)i * 64, 64, 200 + (uint64_t)i));
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dto_log_collect(&rl, p.a.recv_evd, 8);
	dto_log_collect(&ql, p.a.req_evd, 8);
	for (int i = 0; i < 8; i++) {
		uint64_t rc = rl.d[i].user_cookie.as_64, qc = ql.d[i].user_cookie.as_64;

		DC_ASSERT(rc >= 100 && rc < 108 && !seen_r[rc - 100],
			  "Receive completion %d has cookie %llu (unknown or repeated)", i,
			  (unsigned long long)rc);
		DC_ASSERT(qc >= 200 && qc < 208 && !seen_q[qc - 200],
			  "Send completion %d has cookie %llu (unknown or repeated)", i,
			  (unsigned long long)qc);
		seen_r[rc - 100] = seen_q[qc - 200] = true;
	}
	DC_ASSERT_CONN_EVENT(p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, p.a.ep);
	DC_ASSERT_NO_EVENT(p.a.recv_evd);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	ASSERT_RECV_IDLE(p.a.ep, DAT_TRUE);
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_TRUE);
}

DC_CASE(dat_ep_disconnect, abrupt_flushes_outstanding,
	.summary = "an abrupt disconnect flushes every posted Receive, in posting order")
{
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	memset(p.ma.buf, CANARY, SUBJ_MEM);
	for (int i = 0; i < 8; i++)
		DC_SETUP(post_recv1(p.a.ep, &p.ma, (DAT_VLEN)i * 1024, 1024, 100 + (uint64_t)i));
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	for (int i = 0; i < 8; i++)
		DC_ASSERT_DTO(p.a.recv_evd, 100 + (uint64_t)i, DAT_DTO_ERR_FLUSHED);
	DC_ASSERT_NO_EVENT(p.a.recv_evd);
}

DC_CASE(dat_ep_disconnect, abrupt_flushes_outstanding_requests,
	.summary = "an abrupt disconnect completes outstanding Sends unsuccessfully, once each")
{
	struct dc_pair p;
	struct dto_log l = { 0 };

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	dc_fill(p.ma.buf + 0, 8 * 64, 2);
	for (int i = 0; i < 8; i++)	/* b posts nothing: none can be delivered */
		DC_SETUP(post_send1(p.a.ep, &p.ma, (DAT_VLEN)i * 64, 64, 200 + (uint64_t)i));
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dto_log_collect(&l, p.a.req_evd, 8);
	for (int i = 0; i < 8; i++) {
		DC_ASSERT_EQ(l.d[i].user_cookie.as_64, 200 + (uint64_t)i);
		/* Nothing could be delivered, so nothing may claim success. */
		DC_ASSERT(l.d[i].status != DAT_DTO_SUCCESS,
			  "Send %d completed DAT_DTO_SUCCESS although the peer never posted a Receive", i);
	}
	DC_ASSERT_NO_EVENT(p.a.req_evd);
}

DC_CASE(dat_ep_disconnect, failure_order_per_direction,
	.summary = "after the first failed Send of an abrupt disconnect, no later Send succeeds")
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { 0 };
	struct dc_pair p;
	struct dc_lmr rbuf;
	struct dto_log l = { 0 };
	int first_fail = -1, ok = 0;
	/* 64 Sends to 16 Receives; on an IA of shorter DTO or EVD queues
	 * (dat_ia_query(3DAT) maxima, no floor) as many as fit, a quarter of
	 * them received: the order is judged the same, noted */
	int n = (int)dc_within_limit(dc_within_limit(64, t->ia_attr.max_dto_per_ep),
				     t->ia_attr.max_evd_qlen > 0 ? t->ia_attr.max_evd_qlen / 4 : 0);
	int nrecv = n / 4 > 0 ? n / 4 : 1;

	if (n < 64)
		dc_note(t, "max_dto_per_ep %d, max_evd_qlen %d: %d Sends to %d Receives",
			(int)t->ia_attr.max_dto_per_ep, (int)t->ia_attr.max_evd_qlen, n, nrecv);
	DC_SETUP_ASSERT(n >= 2, "set-up: the IA takes %d DTOs per EP", n);
	dc_ep_attr_default(t, &attr);
	attr.max_request_dtos = attr.max_recv_dtos = n;
	o.attr = &attr;
	o.evd_qlen = 4 * n;
	dc_pair_up(t, &p, SUBJ_MEM, &o);
	dc_lmr(t, p.b.pz, 16 * BIG, DC_PRIV_LOCAL, &rbuf);
	for (int i = 0; i < nrecv; i++)	/* room for the first nrecv messages only */
		DC_SETUP(post_recv1(p.b.ep, &rbuf, (DAT_VLEN)i * BIG, BIG, 500 + (uint64_t)i));
	dc_fill(p.ma.buf + 0, BIG, 4);
	for (int i = 0; i < n; i++)
		DC_SETUP(post_send1(p.a.ep, &p.ma, 0, BIG, 200 + (uint64_t)i));
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dto_log_collect(&l, p.a.req_evd, n);
	for (int i = 0; i < n; i++) {
		DC_ASSERT(l.d[i].user_cookie.as_64 == 200 + (uint64_t)i,
			  "completion %d carries cookie %llu: not in posting order", i,
			  (unsigned long long)l.d[i].user_cookie.as_64);
		if (l.d[i].status == DAT_DTO_SUCCESS) {
			DC_ASSERT(first_fail < 0,
				  "Send %d succeeded after Send %d had failed (%s)", i,
				  first_fail, dc_dto_status_name(l.d[first_fail].status));
			ok++;
		} else if (first_fail < 0) {
			first_fail = i;
		}
	}
	dc_note(t, "%d Sends succeeded before the first failure", ok);
	DC_ASSERT(ok <= nrecv, "%d Sends succeeded but the peer had only %d Receives", ok, nrecv);
}

/* a: n Sends of len bytes (offset i * 1024, fill seed + i, cookie c0 + i)
 * that wait for Receives at b, then the graceful disconnect (checked). */
static void sends_then_graceful(struct dc_ctx *t, struct dc_pair *p, int n, DAT_VLEN len,
				unsigned seed, uint64_t c0)
{
	for (int i = 0; i < n; i++) {
		dc_fill(p->ma.buf + (DAT_VLEN)i * 1024, len, seed + (unsigned)i);
		DC_SETUP(post_send1(p->a.ep, &p->ma, (DAT_VLEN)i * 1024, len, c0 + (uint64_t)i));
	}
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p->a.ep, DAT_CLOSE_GRACEFUL_FLAG));
}

DC_CASE(dat_ep_disconnect, graceful_completes_requests_first,
	.summary = "a graceful disconnect lets the outstanding Sends complete successfully first")
{
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	/*
	 * The peer's Receives are posted right after the disconnect call, so
	 * the Sends are certainly still outstanding when it is made (without
	 * a Receive a Send cannot complete); they must then complete
	 * successfully before the EP disconnects.
	 */
	sends_then_graceful(t, &p, 8, 1000, 10, 200);
	for (int i = 0; i < 8; i++)
		DC_SETUP(post_recv1(p.b.ep, &p.mb, (DAT_VLEN)i * 1024, 1024, 300 + (uint64_t)i));
	for (int i = 0; i < 8; i++)
		DC_ASSERT_DTO(p.a.req_evd, 200 + (uint64_t)i, DAT_DTO_SUCCESS);
	DC_ASSERT_CONN_EVENT(p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, p.a.ep);
	for (int i = 0; i < 8; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA d =
			DC_ASSERT_DTO(p.b.recv_evd, 300 + (uint64_t)i, DAT_DTO_SUCCESS);

		DC_ASSERT_EQ(d.transfered_length, 1000);
		DC_ASSERT(dc_check_fill(p.mb.buf + (size_t)i * 1024, 1000, 10 + (unsigned)i),
			  "message %d arrived with wrong bytes", i);
	}
}

/*
 * The same with the peer's Receives posted one at a time, each after the
 * Send before it has completed: the first completion does not end the
 * wait for the others.
 */
DC_CASE(dat_ep_disconnect, graceful_completes_requests_in_turn,
	.clauses = "dat_ep_disconnect.graceful_completes_requests_first",
	.summary = "a graceful disconnect waits for every outstanding Send, not only the first to complete")
{
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	sends_then_graceful(t, &p, 4, 500, 40, 600);
	for (int i = 0; i < 4; i++) {
		DC_SETUP(post_recv1(p.b.ep, &p.mb, (DAT_VLEN)i * 1024, 1024, 700 + (uint64_t)i));
		DC_ASSERT_DTO(p.a.req_evd, 600 + (uint64_t)i, DAT_DTO_SUCCESS);
		/* the bytes are the peer's to see once its Receive completes: a
		 * Send's own completion does not say they are placed yet (on
		 * iWARP it comes when they are sent) */
		DC_SETUP_DTO(p.b.recv_evd, 700 + (uint64_t)i, DAT_DTO_SUCCESS);
		DC_ASSERT(dc_check_fill(p.mb.buf + (size_t)i * 1024, 500, 40 + (unsigned)i),
			  "message %d arrived with wrong bytes", i);
	}
	DC_ASSERT_CONN_EVENT(p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, p.a.ep);
}

/*
 * RDMA Reads beyond max_rdma_read_out (1) wait their turn on the EP; a
 * graceful disconnect made while they wait lets each of them complete.
 */
DC_CASE(dat_ep_disconnect, graceful_completes_waiting_reads,
	.clauses = "dat_ep_disconnect.graceful_completes_requests_first",
	.summary = "Reads waiting behind max_rdma_read_out 1 at a graceful disconnect all complete successfully")
{
	struct dc_pair p;
	struct dc_lmr src;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	pair_up_one_read_out(t, &p);
	dc_lmr(t, p.b.pz, 8 * 1024, DAT_MEM_PRIV_ALL_FLAG, &src);
	memset(p.ma.buf, CANARY, 8 * 1024);
	for (int i = 0; i < 8; i++) {
		dc_fill(src.buf + (size_t)i * 1024, 256, 50 + (unsigned)i);
		iov = dc_iov(&p.ma, (DAT_VLEN)i * 1024, 256);
		rem = dc_rmr_iov(&src, (DAT_VLEN)i * 1024, 256);
		DC_SETUP(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(800 + (uint64_t)i), &rem,
					       DAT_COMPLETION_DEFAULT_FLAG));
	}
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	for (int i = 0; i < 8; i++) {
		DC_ASSERT_DTO(p.a.req_evd, 800 + (uint64_t)i, DAT_DTO_SUCCESS);
		DC_ASSERT(dc_check_fill(p.ma.buf + (size_t)i * 1024, 256, 50 + (unsigned)i),
			  "Read %d fetched wrong bytes", i);
	}
	DC_ASSERT_CONN_EVENT(p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, p.a.ep);
}

DC_CASE(dat_ep_disconnect, graceful_disconnect_pending,
	.summary = "graceful disconnect waits in DISCONNECT_PENDING until the outstanding Send completes")
{
	struct dc_pair p;
	DAT_RETURN r;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	dc_fill(p.ma.buf + 0, 64, 9);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 77));
	r = dat_ep_disconnect(p.a.ep, DAT_CLOSE_GRACEFUL_FLAG);
	DC_ASSERT_SUCCESS(r);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_DISCONNECT_PENDING);
	DC_ASSERT_NO_EVENT(p.a.conn_evd);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 256, 1));
	DC_ASSERT_DTO(p.a.req_evd, 77, DAT_DTO_SUCCESS);
	DC_ASSERT_CONN_EVENT(p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, p.a.ep);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_DISCONNECTED);
}

/*
 * The peer acts while the EP waits in DISCONNECT_PENDING (issue 54: a state
 * is reached but what follows it is not).  Receives stay valid in that state
 * and are DTOs like any other: on disconnect each one gets exactly one
 * completion (dat_ep_disconnect(3DAT) DESCRIPTION).  The page does not say
 * whether a message arriving during the wait fills a Receive or is dropped
 * with it flushed, so both are accepted: a Receive that succeeds holds the
 * message whole; one for which no message came does not succeed; none
 * completes twice, and they complete in posting order.
 */
static void collect_recvs_after_pending(struct dc_ctx *t, struct dc_pair *p, struct dto_log *l,
					uint64_t first, int n, int with_msg, DAT_VLEN len,
					unsigned fill)
{
	DAT_EVENT ev;

	if (l->n < n)
		dto_log_collect(l, p->a.recv_evd, n - l->n);
	for (int i = 0; i < n; i++) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d = &l->d[i];

		DC_ASSERT(d->user_cookie.as_64 == first + (uint64_t)i,
			  "Receive completion %d has cookie %llu (%s), expected %llu: one lost, "
			  "doubled or out of order", i, (unsigned long long)d->user_cookie.as_64,
			  dc_dto_status_name(d->status), (unsigned long long)(first + (uint64_t)i));
		dc_note(t, "Receive %llu completed with %s", (unsigned long long)d->user_cookie.as_64,
			dc_dto_status_name(d->status));
		if (i < with_msg && d->status == DAT_DTO_SUCCESS) {
			DC_ASSERT_EQ(d->transfered_length, len);
			DC_ASSERT(dc_check_fill(p->ma.buf + 4096 * (size_t)(i + 1), len, fill),
				  "the message that arrived in DISCONNECT_PENDING was altered");
		} else {
			DC_ASSERT(d->status != DAT_DTO_SUCCESS,
				  "Receive %llu succeeded, but no message was sent for it",
				  (unsigned long long)d->user_cookie.as_64);
		}
	}
	while (dat_evd_dequeue(p->a.recv_evd, &ev) == DAT_SUCCESS)
		DC_ASSERT(ev.event_number != DAT_DTO_COMPLETION_EVENT,
			  "a completion more than the %d Receives (cookie %llu)", n,
			  (unsigned long long)ev.event_data.dto_completion_event_data.user_cookie.as_64);
}

DC_CASE(dat_ep_disconnect, peer_message_in_disconnect_pending,
	.clauses = "dat_ep_disconnect.all_dtos_completed",
	.summary = "a message of the peer arriving while the EP waits in DISCONNECT_PENDING completes its Receive once, whole or flushed; the wait then ends as usual")
{
	struct dc_pair p;
	struct dto_log l = { 0 };
	DAT_EVENT ev;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(post_recv1(p.a.ep, &p.ma, 4096, 1024, 31));	/* for the peer's message */
	DC_SETUP(post_recv1(p.a.ep, &p.ma, 8192, 1024, 32));	/* no message comes for it */
	pair_disconnect_pending(t, &p);
	dc_fill(p.mb.buf + 0, 100, 0x51);
	DC_SETUP(post_send1(p.b.ep, &p.mb, 0, 100, 41));
	/* the message had its chance to arrive while a waited: the first
	 * Receive's completion, or (a provider that holds it) a bounded wait */
	if (dc_wait_event(t, p.a.recv_evd, 2000, &ev) == DAT_SUCCESS &&
	    ev.event_number == DAT_DTO_COMPLETION_EVENT)
		l.d[l.n++] = ev.event_data.dto_completion_event_data;
	else
		dc_note(t, "no Receive completed while the EP waited in DISCONNECT_PENDING");
	DC_SETUP_ASSERT(ep_state(p.a.ep) == DAT_EP_STATE_DISCONNECT_PENDING,
			"set-up: the EP left DISCONNECT_PENDING before its Send could complete");
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 1024, 1024, 42));	/* the waiting Send may complete */
	DC_SETUP_DTO(p.a.req_evd, 77, DAT_DTO_SUCCESS);
	DC_FOR_CLAUSE("dat_ep_disconnect.all_dtos_completed");
	DC_ASSERT_CONN_EVENT(p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, p.a.ep);
	collect_recvs_after_pending(t, &p, &l, 31, 2, 1, 100, 0x51);
}

/*
 * The peer disconnects while the EP waits in DISCONNECT_PENDING for a Send
 * the peer never takes: the connection is gone, so the wait ends; the EP
 * ends Disconnected with a connection event (DISCONNECTED, or BROKEN as the
 * end of a connection the Consumer did not end itself), and each DTO, the
 * waiting Send and a Receive no message came for, has exactly one
 * completion (dat_ep_disconnect(3DAT) DESCRIPTION), the Receive not
 * successful.
 */
DC_CASE(dat_ep_disconnect, peer_disconnects_in_disconnect_pending,
	.clauses = "dat_ep_disconnect.all_dtos_completed",
	.summary = "the peer disconnects while the EP waits in DISCONNECT_PENDING: the wait ends, the EP is Disconnected, its Send and Receive each complete once")
{
	struct dc_pair p;
	DAT_EVENT ev;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(post_recv1(p.a.ep, &p.ma, 8192, 1024, 31));	/* no message comes for it */
	pair_disconnect_pending(t, &p);
	DC_SETUP(dat_ep_disconnect(p.b.ep, DAT_CLOSE_ABRUPT_FLAG));
	if (dc_wait_event(t, p.a.conn_evd, -1, &ev) != DAT_SUCCESS)
		DC_FAIL("the peer disconnected, but the EP waiting in DISCONNECT_PENDING got no "
			"connection event within the wait (it stays %s)", state_name(ep_state(p.a.ep)));
	DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
		  ev.event_number == DAT_CONNECTION_EVENT_BROKEN,
		  "the EP waiting in DISCONNECT_PENDING got %s when the peer disconnected",
		  dc_event_name(ev.event_number));
	dc_note(t, "the EP got %s", dc_event_name(ev.event_number));
	ASSERT_REACHES_STATE(p.a.ep, DAT_EP_STATE_DISCONNECTED, 2000);
	d = DC_ASSERT_DTO_EVENT(p.a.req_evd);
	DC_ASSERT(d.user_cookie.as_64 == 77, "the request completion has cookie %llu, expected "
		  "the waiting Send's (77)", (unsigned long long)d.user_cookie.as_64);
	dc_note(t, "the waiting Send completed with %s", dc_dto_status_name(d.status));
	while (dat_evd_dequeue(p.a.req_evd, &ev) == DAT_SUCCESS)
		DC_ASSERT(ev.event_number != DAT_DTO_COMPLETION_EVENT,
			  "a second request completion (cookie %llu)",
			  (unsigned long long)ev.event_data.dto_completion_event_data.user_cookie.as_64);
	collect_recvs_after_pending(t, &p, &(struct dto_log){ 0 }, 31, 1, 0, 0, 0);
}

DC_CASE(dat_ep_disconnect, abrupt_in_disconnect_pending,
	.summary = "an abrupt disconnect in DISCONNECT_PENDING ends the wait at once")
{
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	pair_disconnect_pending(t, &p);
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_CONN_EVENT(p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, p.a.ep);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_DISCONNECTED);
	DC_ASSERT_DTO(p.a.req_evd, 77, DAT_DTO_ERR_FLUSHED);
}

DC_CASE(dat_ep_disconnect, graceful_in_disconnect_pending_noop,
	.summary = "a graceful disconnect in DISCONNECT_PENDING changes nothing")
{
	struct dc_pair p;
	struct dc_snap before;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	pair_disconnect_pending(t, &p);
	dc_snapshot(t, DC_OBJ_EP, p.a.ep, &before);
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_DISCONNECT_PENDING);
	DC_ASSERT_UNCHANGED(&before);
	DC_ASSERT_NO_EVENT(p.a.conn_evd);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_FALSE);
}

static void graceful_like_abrupt(struct dc_ctx *t, struct subject *s, const void *arg)
{
	(void)arg;
	DC_ASSERT_SUCCESS(dat_ep_disconnect(s->ep, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_REACHES_STATE(s->ep, DAT_EP_STATE_DISCONNECTED, 5000);
}
STATE_CASE(dat_ep_disconnect, flags_same_when_not_connected, active_connection_pending,
	   graceful_like_abrupt, NULL, "dat_ep_disconnect.flags_same_when_not_connected",
	   "graceful disconnect during ACTIVE_CONNECTION_PENDING aborts like abrupt")

DC_CASE(dat_ep_disconnect, no_requests_in_disconnect_pending,
	.summary = "no Send, RDMA or RMR bind can be posted in DISCONNECT_PENDING")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT rctx;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	/* an IA may have no RMRs (dat_ia_query(3DAT) Max RMRs, no floor): the
	 * bind is then skipped, noted, and the rule judged on the others */
	rmr = t->ia_attr.max_rmrs > 0 ? dc_rmr(t, p.a.pz) : DAT_HANDLE_NULL;
	pair_disconnect_pending(t, &p);
	iov = dc_iov(&p.ma, 1024, 64);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	/* collateral: dat_ep_disconnect(3DAT) DESCRIPTION: no new Send can be posted in Disconnect Pending */
	DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_STATE);
	/* collateral: dat_ep_disconnect(3DAT) DESCRIPTION: nor an RDMA Write */
	DC_ASSERT_RET(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(2), &rem,
					     DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_STATE);
	/* collateral: dat_ep_disconnect(3DAT) DESCRIPTION: nor an RDMA Read */
	DC_ASSERT_RET(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(3), &rem,
					    DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_STATE);
	if (!rmr) {
		dc_note(t, "the IA has no RMRs (max_rmrs 0): the RMR bind is skipped");
	} else {
		DAT_RMR_COOKIE rc;

		memset(&rc, 0, sizeof(rc));
		rc.as_64 = 4;
		DC_ASSERT_RET(dc_dat_rmr_bind(rmr, p.ma.lmr, &iov, DAT_MEM_PRIV_REMOTE_READ_FLAG, p.a.ep, rc,
					   DAT_COMPLETION_DEFAULT_FLAG, &rctx),
			      DAT_INVALID_STATE);
	}
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_DISCONNECT_PENDING);
}

DC_CASE(dat_ep_disconnect, shared_evd_order,
	.summary = "on a shared EVD, successful DTO completions come before the disconnect event")
{
	struct dc_endpoint a, b;
	DAT_EVD_HANDLE ev;
	DAT_EP_ATTR attr;
	struct dc_lmr ma, mb;
	bool disc = false;
	int ok = 0;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dc_ep_attr_default(t, &attr);
	/* dat_ep_create USAGE: streams on an EVD that also carries connection
	 * events use threshold completion flags. */
	if (t->prov_attr.completion_flags_supported & DAT_COMPLETION_EVD_THRESHOLD_FLAG)
		attr.recv_completion_flags = attr.request_completion_flags =
			DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	a.pz = dc_pz(t);
	DC_NEED_STREAMS_MERGE(DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG);
	ev = dc_evd(t, 64, DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG);
	a.recv_evd = a.req_evd = a.conn_evd = ev;
	a.ep = dc_ep(t, a.pz, ev, ev, ev, &attr);
	dc_endpoint(t, &b, NULL);
	dc_lmr(t, a.pz, 8 * 1024, DC_PRIV_LOCAL, &ma);
	dc_lmr(t, b.pz, 8 * 1024, DC_PRIV_LOCAL, &mb);
	dc_connect_local(t, &a, &b, NULL);
	/* Receives after the disconnect call: the Sends are outstanding then */
	for (int i = 0; i < 8; i++)
		DC_SETUP(post_send1(a.ep, &ma, (DAT_VLEN)i * 1024, 512, 200 + (uint64_t)i));
	DC_ASSERT_SUCCESS(dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	for (int i = 0; i < 8; i++)
		DC_SETUP(post_recv1(b.ep, &mb, (DAT_VLEN)i * 1024, 1024, 300 + (uint64_t)i));
	for (;;) {
		DAT_EVENT e;
		DAT_RETURN r = dc_wait_event(t, ev, disc ? 0 : -1, &e);

		if (disc && r != DAT_SUCCESS)
			break;	/* drained */
		if (r != DAT_SUCCESS)
			DC_FAIL("no DISCONNECTED event on the shared EVD (dat_evd_wait %s)", dc_ret_text(r));
		if (e.event_number == DAT_CONNECTION_EVENT_DISCONNECTED) {
			disc = true;
			/* drain only once the EP really is DISCONNECTED: any
			 * completion still to come would follow the event */
			await_state(a.ep, DAT_EP_STATE_DISCONNECTED, 2000);
			continue;
		}
		if (e.event_number == DAT_DTO_COMPLETION_EVENT &&
		    e.event_data.dto_completion_event_data.status == DAT_DTO_SUCCESS) {
			DC_ASSERT(!disc, "successful completion of cookie %llu dequeued after DISCONNECTED",
				  (unsigned long long)e.event_data.dto_completion_event_data.user_cookie.as_64);
			ok++;
		}
	}
	dc_note(t, "%d successful completions before DISCONNECTED", ok);
}

/* Both disconnects of an EP already Disconnected succeed and change nothing. */
static void noop_on(struct dc_ctx *t, struct dc_endpoint *e)
{
	struct dc_snap before;

	dc_snapshot(t, DC_OBJ_EP, e->ep, &before);
	DC_ASSERT_SUCCESS(dat_ep_disconnect(e->ep, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_SUCCESS(dat_ep_disconnect(e->ep, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_STATE(e->ep, DAT_EP_STATE_DISCONNECTED);
	DC_ASSERT_UNCHANGED(&before);
	DC_ASSERT_NO_EVENT(e->conn_evd);
}

/* An EP Disconnected by the rejection of its request (set-up). */
static struct dc_endpoint *rejected_ep(struct dc_ctx *t)
{
	static struct dc_endpoint a;
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);

	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	DC_SETUP(dc_dat_cr_reject(dc_await_cr(t, evd, NULL), 0, NULL));
	dc_await_event(t, a.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, NULL);
	await_state(a.ep, DAT_EP_STATE_DISCONNECTED, 2000);
	return &a;
}

DC_CASE(dat_ep_disconnect, disconnected_noop,
	.summary = "disconnecting a Disconnected EP (by itself, by the peer, by a rejection) changes nothing and posts no event")
{
	struct dc_pair p;
	struct dc_snap before;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_await_event(t, p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	await_state(p.a.ep, DAT_EP_STATE_DISCONNECTED, 2000);
	dc_snapshot(t, DC_OBJ_EP, p.a.ep, &before);
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_SUCCESS(dat_ep_disconnect(p.a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_DISCONNECTED);
	DC_ASSERT_UNCHANGED(&before);
	DC_ASSERT_NO_EVENT(p.a.conn_evd);
	/* Disconnected another way: by the peer's disconnect */
	dc_await_event(t, p.b.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	await_state(p.b.ep, DAT_EP_STATE_DISCONNECTED, 2000);
	noop_on(t, &p.b);
	/* and by a rejected connect (dat_ep_connect(3DAT): PEER_REJECTED, Disconnected) */
	noop_on(t, rejected_ep(t));
}

static void refused(struct dc_ctx *t, struct subject *s, const void *arg)
{
	struct dc_snap before;

	(void)arg;
	dc_snapshot(t, DC_OBJ_EP, s->ep, &before);
	DC_ASSERT_RET(dat_ep_disconnect(s->ep, DAT_CLOSE_ABRUPT_FLAG), DAT_INVALID_STATE);
	DC_ASSERT_RET(dat_ep_disconnect(s->ep, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&before);
	if (s->ep == s->e.ep)
		DC_ASSERT_NO_EVENT(s->e.conn_evd);
}

#define REFUSED(st)							\
	STATE_CASE(dat_ep_disconnect, disallowed_in_##st, st, refused, NULL,	\
		   "dat_ep_disconnect.disallowed_states",			\
		   "disconnect is refused in " #st)
REFUSED(unconnected)
REFUSED(reserved)
REFUSED(passive_connection_pending)
REFUSED(tentative_connection_pending)

static const struct at_opts four_recvs = { .pre_recvs = 4 };

static void abort_setup(struct dc_ctx *t, struct subject *s, const void *arg)
{
	DAT_CLOSE_FLAGS how = *(const DAT_CLOSE_FLAGS *)arg;

	DC_ASSERT_SUCCESS(dat_ep_disconnect(s->ep, how));
	ASSERT_REACHES_STATE(s->ep, DAT_EP_STATE_DISCONNECTED, 5000);
	for (int i = 0; i < 4; i++)
		DC_ASSERT_DTO(s->e.recv_evd, 1000 + (uint64_t)i, DAT_DTO_ERR_FLUSHED);
	DC_ASSERT_BYTES_ARE(s->mem.buf, 4 * 256, CANARY, "the flushed Receives' buffers");
}

static const DAT_CLOSE_FLAGS abrupt = DAT_CLOSE_ABRUPT_FLAG;
static const DAT_CLOSE_FLAGS graceful = DAT_CLOSE_GRACEFUL_FLAG;

STATE_CASE_O(dat_ep_disconnect, abort_active_connection_pending_abrupt,
	     active_connection_pending, abort_setup, &abrupt, &four_recvs,
	     "dat_ep_disconnect.abort_active_connection_pending",
	     "abrupt disconnect in ACTIVE_CONNECTION_PENDING: DISCONNECTED, Receives flushed")
STATE_CASE_O(dat_ep_disconnect, abort_active_connection_pending_graceful,
	     active_connection_pending, abort_setup, &graceful, &four_recvs,
	     "dat_ep_disconnect.abort_active_connection_pending",
	     "graceful disconnect in ACTIVE_CONNECTION_PENDING: DISCONNECTED, Receives flushed")
/* The abort reaches the peer: accepting the request then never connects it. */
DC_CASE(dat_ep_disconnect, abort_active_connection_pending_peer,
	.clauses = "dat_ep_disconnect.abort_active_connection_pending",
	.summary = "a request whose EP was disconnected in ACTIVE_CONNECTION_PENDING never connects the peer that accepts it")
{
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr;

	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	b.conn_qual = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &b.cr_evd, &b.psp);
	DC_SETUP(dc_connect_to_self(t, a.ep, b.conn_qual, 0, 0, NULL));
	cr = dc_await_cr(t, b.cr_evd, NULL);
	await_state(a.ep, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING, 0);
	DC_ASSERT_SUCCESS(dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	ASSERT_REACHES_STATE(a.ep, DAT_EP_STATE_DISCONNECTED, 5000);
	ASSERT_ACCEPT_OF_ABORTED(cr, &b);
}

STATE_CASE_O(dat_ep_disconnect, abort_completion_pending,
	     completion_pending, abort_setup, &abrupt, &four_recvs,
	     "dat_ep_disconnect.abort_completion_pending",
	     "disconnect in COMPLETION_PENDING: DISCONNECTED, Receives flushed")

DC_CASE(dat_ep_disconnect, invalid_flags,
	.summary = "flags other than abrupt/graceful are invalid and leave the connection up")
{
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_ASSERT_RET(dat_ep_disconnect(p.a.ep, (DAT_CLOSE_FLAGS)0x2), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_ep_disconnect(p.a.ep, (DAT_CLOSE_FLAGS)0x80), DAT_INVALID_PARAMETER);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_CONNECTED);
	DC_ASSERT_NO_EVENT(p.a.conn_evd);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 256, 1));
	dc_fill(p.ma.buf + 0, 64, 5);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 2));
	DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
}

DC_CASE(dat_ep_disconnect, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(dat_ep_disconnect((DAT_EP_HANDLE)dc_wrong_handle(t), DAT_CLOSE_ABRUPT_FLAG), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_disconnect, invalid_handle_freed,
	.clauses = "dat_ep_disconnect.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(dat_ep_disconnect(dc_freed_ep(t), DAT_CLOSE_ABRUPT_FLAG), 1, EP);
}

/*
 * connected_to_disconnected whichever way the EP got connected (ep_ways.h):
 * the active EP of dat_ep_dup_connect, the Provider EP of a provider-flag
 * PSP, the reserved EP of an RSP and the EP accepting a handed-off request
 * besides the two ways above, each with both flags.
 */
DC_CASE(dat_ep_disconnect, connected_to_disconnected_each_way,
	.clauses = "dat_ep_disconnect.connected_to_disconnected",
	.summary = "abrupt and graceful disconnect of an EP connected each way (connect, dup_connect, "
		   "consumer PSP, Provider EP, RSP, handoff) end in a DISCONNECTED event and state")
{
	static const DAT_CLOSE_FLAGS how[] = { DAT_CLOSE_ABRUPT_FLAG, DAT_CLOSE_GRACEFUL_FLAG };
	struct way_conn w;

	for (int way = 0; way < CONNECTED_WAYS; way++) {
		for (int i = 0; i < 2; i++) {
			if (!way_reach(&w, way))
				break;
			dc_note(t, "%s", i ? "graceful" : "abrupt");
			DC_ASSERT_SUCCESS(dat_ep_disconnect(w.s.ep, how[i]));
			DC_ASSERT_CONN_EVENT(w.s.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, w.s.ep);
			ASSERT_STATE(w.s.ep, DAT_EP_STATE_DISCONNECTED);
			way_down(t, &w);
		}
	}
}

/*
 * An abrupt disconnect flushes every outstanding request, also those the
 * provider still holds back and never put on the wire (dat_ep_disconnect(3DAT)
 * DESCRIPTION): the passive half, once connected with a window for RDMA Reads,
 * stops itself; the active half posts an RDMA Read (issued, unanswered), a
 * second one beyond its max_rdma_read_out of 1 (held back: dat_ep_post_rdma_read(3DAT)),
 * a Send behind it (fenced where the provider has fences) and one more Send,
 * then disconnects abruptly.  Each of the four completes exactly once, in
 * posting order; successes (an RDMA Read a peer's hardware answers) only at the
 * head, the rest unsuccessful.  A provider that flushes only what it issued
 * loses the held-back ones.
 */
enum { HELD_WINDOW = 4096 };

static void held_attr(struct dc_ctx *t, DAT_EP_ATTR *attr)
{
	dc_ep_attr_default(t, attr);
	attr->max_rdma_read_in = 1;
	attr->max_rdma_read_out = 1;
}

DC_TWO_NODE_CASE(dat_ep_disconnect, abrupt_flushes_held_back_requests,
		 .clauses = "dat_ep_disconnect.abrupt_flushes_outstanding_requests",
		 .summary = "requests held back behind the RDMA Read limit (and a fence) are flushed too: four requests, four completions, in order",
		 .requires = "ia.max_rdma_read_per_ep_out>=1 ia.max_rdma_read_per_ep_in>=1");
DC_PASSIVE(dat_ep_disconnect, abrupt_flushes_held_back_requests)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };
	struct dc_endpoint e;
	struct dc_lmr src;
	DAT_RMR_TRIPLET rem;

	held_attr(t, &attr);
	memset(&e, 0, sizeof(e));
	dc_endpoint(t, &e, &o);
	dc_lmr(t, e.pz, HELD_WINDOW, DAT_MEM_PRIV_ALL_FLAG, &src);
	dc_connect_passive(t, &e, &o);
	rem = dc_rmr_iov(&src, 0, HELD_WINDOW);
	dc_peer_send(t, "window", "%llx %llx", (unsigned long long)rem.rmr_context,
		     (unsigned long long)dc_rmr_triplet_address(&rem));
	freeze_self(t);		/* until the active half has disconnected */
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_disconnect, abrupt_flushes_held_back_requests)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };
	struct dc_endpoint e;
	struct dc_lmr la;
	DAT_LMR_TRIPLET liov;
	DAT_RMR_TRIPLET rem;
	unsigned long long ctx, addr;
	bool fence = t->prov_attr.completion_flags_supported & DAT_COMPLETION_BARRIER_FENCE_FLAG;
	bool failed = false;
	char msg[128];
	pid_t peer;

	held_attr(t, &attr);
	memset(&e, 0, sizeof(e));
	dc_connect_active(t, &e, &o);
	dc_lmr(t, e.pz, HELD_WINDOW, DAT_MEM_PRIV_ALL_FLAG, &la);
	dc_peer_wait(t, "window", msg, sizeof(msg));
	DC_SETUP_ASSERT(sscanf(msg, "%llx %llx", &ctx, &addr) == 2,
			"set-up: malformed window message '%s'", msg);
	rem = dc_rmr_triplet((DAT_RMR_CONTEXT)ctx, (DAT_VADDR)addr, 64);
	peer = await_frozen();
	remember_frozen(peer);
	liov = dc_iov(&la, 0, 64);
	DC_SETUP(dat_ep_post_rdma_read(e.ep, 1, &liov, dc_cookie(1), &rem, DAT_COMPLETION_DEFAULT_FLAG));
	liov = dc_iov(&la, 64, 64);
	DC_SETUP(dat_ep_post_rdma_read(e.ep, 1, &liov, dc_cookie(2), &rem, DAT_COMPLETION_DEFAULT_FLAG));
	liov = dc_iov(&la, 128, 64);
	DC_SETUP(dat_ep_post_send(e.ep, 1, &liov, dc_cookie(3),
				  fence ? DAT_COMPLETION_BARRIER_FENCE_FLAG : DAT_COMPLETION_DEFAULT_FLAG));
	if (!fence)
		dc_note(t, "no barrier fence (completion_flags_supported): the third request is held by order alone");
	DC_SETUP(dat_ep_post_send(e.ep, 1, &liov, dc_cookie(4), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_SUCCESS(dat_ep_disconnect(e.ep, DAT_CLOSE_ABRUPT_FLAG));
	for (uint64_t c = 1; c <= 4; c++) {
		DAT_DTO_COMPLETION_EVENT_DATA d = DC_ASSERT_DTO_EVENT(e.req_evd);

		DC_ASSERT(d.user_cookie.as_64 == c,
			  "completion %llu of the flushed requests has cookie %llu (%s): one lost or out of order",
			  (unsigned long long)c, (unsigned long long)d.user_cookie.as_64,
			  dc_dto_status_name(d.status));
		DC_ASSERT(!(failed && d.status == DAT_DTO_SUCCESS),
			  "request %llu succeeded after an earlier one failed", (unsigned long long)c);
		failed = failed || d.status != DAT_DTO_SUCCESS;
	}
	DC_ASSERT(failed, "all four requests succeeded while the peer was stopped");
	kill(peer, SIGCONT);
	epc_frozen_pid = 0;
	/* and none of them completes a second time */
	for (;;) {
		DAT_EVENT ev;

		if (dat_evd_dequeue(e.req_evd, &ev) != DAT_SUCCESS)
			break;
		DC_ASSERT(ev.event_number != DAT_DTO_COMPLETION_EVENT,
			  "a second completion, cookie %llu, after the four",
			  (unsigned long long)ev.event_data.dto_completion_event_data.user_cookie.as_64);
	}
	dc_peer_send(t, "done", "ok");
}
