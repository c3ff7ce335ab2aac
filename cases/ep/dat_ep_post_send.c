/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_post_send(3DAT): clauses/dat_ep_post_send.toml.
 *
 * Data cases use a connected pair in this process (pair_up: a sends, b
 * receives).  Every refused post is followed by prove_nothing_sent: a
 * marker Send must be the first thing b receives and the first completion
 * a reports, so a refused post provably moved nothing.
 */
#include "ep_common.h"

#define RCOOKIE 900	/* the Receive b posts before a refused Send */
#define MSG_TRY (16u * 1024u)	/* the largest max_message_size the limit case exercises */

static void pair_with_recv(struct dc_ctx *t, struct dc_pair *p, const struct dc_conn_opts *o)
{
	dc_pair_up(t, p, SUBJ_MEM, o);
	memset(p->mb.buf, CANARY, SUBJ_MEM);
	DC_SETUP(post_recv1(p->b.ep, &p->mb, 0, 1024, RCOOKIE));
}

DC_CASE(dat_ep_post_send, transfers_all_data,
	.summary = "a Send of up to 3 segments (as many as the EP takes) arrives as one message, segments concatenated in order")
{
	static const DAT_VLEN off[3] = { 100, 10000, 30000 }, len[3] = { 7, 4096, 1 };
	struct dc_pair p;
	DAT_LMR_TRIPLET iov[3];
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_VLEN total = 0;
	int n;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	/* as many segments as the EP takes, up to 3 (dat_ep_post_send(3DAT)
	 * RETURN VALUES: more than max_request_iov is refused): the gather
	 * order is judged over those */
	n = (int)dc_within_limit(3, dc_ep_param(t, p.a.ep).ep_attr.max_request_iov);
	if (n < 3)
		dc_note(t, "the EP takes %d segment(s) per Send: the gather is judged over %d", n, n);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 8192, 1));
	for (int k = 0; k < n; k++) {
		dc_fill(p.ma.buf + off[k], (size_t)len[k], 1 + (unsigned int)k);
		iov[k] = dc_iov(&p.ma, off[k], len[k]);
	}
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, n, iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	for (int k = 0; k < n; k++) {
		DC_ASSERT(dc_check_fill(p.mb.buf + total, (size_t)len[k], 1 + (unsigned int)k),
			  "bytes %llu..%llu are not segment %d", (unsigned long long)total,
			  (unsigned long long)(total + len[k] - 1), k + 1);
		total += len[k];
	}
	DC_ASSERT_EQ(d.transfered_length, total);
	/* a 1-byte message arrives whole too */
	memset(p.mb.buf, CANARY, 8192);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 64, 3));
	dc_fill(p.ma.buf + 40000, 1, 4);
	iov[0] = dc_iov(&p.ma, 40000, 1);
	iov[1] = poison_triplet(&p.ma);		/* past num_segments: never read */
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 1, iov, dc_cookie(4), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_DTO(p.a.req_evd, 4, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO(p.b.recv_evd, 3, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 1);
	DC_ASSERT(dc_check_fill(p.mb.buf, 1, 4), "the 1-byte message's byte did not arrive");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 1, 63, CANARY, "the Receive beyond the 1-byte message");
	/* a segment of length 0 between two others holds no data: the
	 * gather goes on past it, and the message is the other two */
	if (n < 3) {
		dc_note(t, "the empty middle segment needs 3 segments: that part skipped");
		return;
	}
	memset(p.mb.buf, CANARY, 8192);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 64, 5));
	gather_past_empty(&p, iov);
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 3, iov, dc_cookie(6), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_DTO(p.a.req_evd, 6, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO(p.b.recv_evd, 5, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 11);
	DC_ASSERT(gathered_past_empty(p.mb.buf),
		  "segments of 5, 0 and 6 bytes did not arrive as the 5 and the 6 bytes in order");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 11, 53, CANARY, "the Receive beyond the 11-byte message");
}

DC_CASE(dat_ep_post_send, zero_length,
	.summary = "a Send with no segments delivers an empty message")
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_LMR_TRIPLET poison;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 256, 1));
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 0, NULL, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 0);
	/* no segments, and a local_iov whose first triplet must not be read */
	poison = poison_triplet(&p.ma);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 256, 3));
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 0, &poison, dc_cookie(4), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_DTO(p.a.req_evd, 4, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO(p.b.recv_evd, 3, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 0);
}

DC_CASE(dat_ep_post_send, completion_on_request_evd,
	.summary = "the Send completes on the request EVD with EP, cookie and status")
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, 1));
	dc_fill(p.ma.buf + 0, 333, 4);
	DC_ASSERT_SUCCESS(post_send1(p.a.ep, &p.ma, 0, 333, 0xABCDEF01234ull));	/* the clause's own post */
	d = DC_ASSERT_DTO(p.a.req_evd, 0xABCDEF01234ull, DAT_DTO_SUCCESS);
	DC_ASSERT_PTR_EQ(d.ep_handle, p.a.ep);
	/* dat_ep_post_send(3DAT) defines no transfered_length for the Send's
	 * own completion (only a Receive's is: dat_ep_post_recv(3DAT)):
	 * noted, not judged */
	if (d.transfered_length != 333)
		dc_note(t, "the Send's completion reports transfered_length %llu for 333 bytes sent",
			(unsigned long long)d.transfered_length);
	DC_ASSERT_NO_EVENT(p.a.recv_evd);
}

DC_CASE(dat_ep_post_send, cookie_not_unique,
	.summary = "repeated and zero cookies come back, one per Send")
{
	static const uint64_t cookies[] = { 5, 5, 0 };
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	for (int i = 0; i < 3; i++)
		DC_SETUP(post_recv1(p.b.ep, &p.mb, (DAT_VLEN)i * 1024, 1024, 10 + (uint64_t)i));
	/* posting the repeated cookies is the clause: each post is checked */
	for (int i = 0; i < 3; i++)
		DC_ASSERT_SUCCESS(post_send1(p.a.ep, &p.ma, 0, 16, cookies[i]));
	for (int i = 0; i < 3; i++)
		DC_ASSERT_DTO(p.a.req_evd, cookies[i], DAT_DTO_SUCCESS);
}

DC_CASE(dat_ep_post_send, unsignalled_needs_ep_flag,
	.summary = "the unsignalled flag is refused unless the EP selects unsignalled completions")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;

	pair_with_recv(t, &p, NULL);
	iov = dc_iov(&p.ma, 0, 64);
	DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_UNSIGNALLED_FLAG),
		      DAT_INVALID_PARAMETER);
	prove_nothing_sent(&p, 0, RCOOKIE);
}

DC_CASE(dat_ep_post_send, unsignalled_allowed,
	.summary = "on an unsignalled EP, an unsignalled Send completes without notifying anyone",
	.requires = "completion_flags_supported&4")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_CNO_HANDLE cno = unsignalled_pair(t, &p, false);

	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, 1));
	dc_fill(p.ma.buf + 0, 64, 6);
	iov = dc_iov(&p.ma, 0, 64);
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(11), DAT_COMPLETION_UNSIGNALLED_FLAG));
	DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT(dc_check_fill(p.mb.buf, 64, 6), "the unsignalled Send's data did not arrive");
	await_request_idle(p.a.ep);
	assert_cno_quiet(cno, "the unsignalled completion");
	DC_ASSERT_DTO(p.a.req_evd, 11, DAT_DTO_SUCCESS);
	/* the pair of this part goes before the next part makes its own (few EVDs) */
	DC_CLEANUP(dat_evd_modify_cno(p.a.req_evd, DAT_HANDLE_NULL));
	DC_CLEANUP(dat_cno_free(cno));
	pair_down(t, &p);
	/*
	 * The same with the flag selected by dat_ep_modify after creation,
	 * while Unconnected (dat_ep_modify(3DAT) DESCRIPTION, Request
	 * Completion Flags; issue 54: a setting changed after creation is used
	 * afterwards): the EP takes an unsignalled Send as if created so.
	 */
	dc_note(t, "request_completion_flags set to unsignalled by dat_ep_modify");
	cno = unsignalled_pair_by_modify(t, &p, false);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, 2));
	dc_fill(p.ma.buf + 0, 64, 7);
	iov = dc_iov(&p.ma, 0, 64);
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(12),
					   DAT_COMPLETION_UNSIGNALLED_FLAG));
	DC_ASSERT_DTO(p.b.recv_evd, 2, DAT_DTO_SUCCESS);
	DC_ASSERT(dc_check_fill(p.mb.buf, 64, 7),
		  "the unsignalled Send's data did not arrive (flag set by dat_ep_modify)");
	await_request_idle(p.a.ep);
	assert_cno_quiet(cno, "the unsignalled completion (flag set by dat_ep_modify)");
	DC_ASSERT_DTO(p.a.req_evd, 12, DAT_DTO_SUCCESS);
}

DC_CASE(dat_ep_post_send, suppress_success,
	.summary = "a successful Send with the suppress flag reports no completion")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, 1));
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 1024, 1024, 2));
	dc_fill(p.ma.buf + 0, 64, 7);
	dc_fill(p.ma.buf + 64, 64, 8);
	iov = dc_iov(&p.ma, 0, 64);
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(21), DAT_COMPLETION_SUPPRESS_FLAG));
	DC_SETUP(post_send1(p.a.ep, &p.ma, 64, 64, 22));
	DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_DTO(p.b.recv_evd, 2, DAT_DTO_SUCCESS);
	DC_ASSERT(dc_check_fill(p.mb.buf, 64, 7) && dc_check_fill(p.mb.buf + 1024, 64, 8),
		  "the two messages did not arrive in order");
	DC_ASSERT_DTO(p.a.req_evd, 22, DAT_DTO_SUCCESS);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
}

/*
 * Solicited wait: the receiver's EP takes solicited-wait Receive
 * completions and its receive EVD feeds a CNO.  A plain Send's Receive
 * completion must not notify (the CNO stays quiet); a solicited Send's
 * must.  Two-node, so the receiver is already blocked in dat_cno_wait when
 * the solicited message crosses the wire.
 */
DC_TWO_NODE_CASE(dat_ep_post_send, solicited_wait,
		 .summary = "only a solicited Send's Receive completion notifies a solicited-wait receiver",
		 .requires = "completion_flags_supported&2");
DC_PASSIVE(dat_ep_post_send, solicited_wait)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { 0 };
	struct dc_endpoint e;
	struct dc_lmr m;
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE woke = DAT_HANDLE_NULL;
	DAT_RETURN r;

	memset(&e, 0, sizeof(e));
	dc_ep_attr_default(t, &attr);
	attr.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	o.attr = &attr;
	dc_endpoint(t, &e, &o);
	dc_lmr(t, e.pz, 4096, DC_PRIV_LOCAL, &m);
	DC_SETUP(dat_cno_create(t->ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	DC_SETUP(dat_evd_modify_cno(e.recv_evd, cno));
	DC_SETUP(post_recv1(e.ep, &m, 0, 1024, 1));
	DC_SETUP(post_recv1(e.ep, &m, 1024, 1024, 2));
	dc_connect_passive(t, &e, &o);
	dc_peer_wait(t, "plain-done", NULL, 0);	/* message 1 has been placed */
	r = dat_cno_wait(cno, 200000, &woke);
	DC_ASSERT(r != DAT_SUCCESS,
		  "the Receive completion of a plain Send triggered the CNO of a solicited-wait EP");
	dc_peer_send(t, "ready", "ok");
	r = dat_cno_wait(cno, 5000000, &woke);
	DC_ASSERT(r == DAT_SUCCESS, "the solicited Send's Receive completion did not notify (dat_cno_wait %s)",
		  dc_ret_text(r));
	DC_ASSERT_DTO(e.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_DTO(e.recv_evd, 2, DAT_DTO_SUCCESS);
	dc_peer_wait(t, "sent", NULL, 0);	/* stay up until the sender has its completion */
}
DC_ACTIVE(dat_ep_post_send, solicited_wait)
{
	struct dc_endpoint e;
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	memset(&e, 0, sizeof(e));
	dc_connect_active(t, &e, NULL);
	dc_lmr(t, e.pz, 4096, DC_PRIV_LOCAL, &m);
	DC_SETUP(post_send1(e.ep, &m, 0, 32, 1));
	DC_ASSERT_DTO(e.req_evd, 1, DAT_DTO_SUCCESS);
	dc_peer_send(t, "plain-done", "ok");
	dc_peer_wait(t, "ready", NULL, 0);
	iov = dc_iov(&m, 0, 32);
	DC_ASSERT_SUCCESS(dat_ep_post_send(e.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_SOLICITED_WAIT_FLAG));
	DC_ASSERT_DTO(e.req_evd, 2, DAT_DTO_SUCCESS);
	dc_peer_send(t, "sent", "ok");
}

/*
 * Barrier fence.  Two-node, so the Read's responder can be held still: the
 * passive half (the responder, and the Send's receiver) stops itself after
 * the set-up; the active half posts an RDMA Read and, right after it, a
 * fenced Send of the bytes that Read fills, then resumes the passive half.
 * Nothing of the Read can have arrived when the Send is posted, so a Send
 * that does not wait for the Read carries the canary, deterministically.
 */
enum { FENCE_READ = 64u << 10, FENCE_SEND = 4096 };

static void fence_attr(struct dc_ctx *t, DAT_EP_ATTR *attr)
{
	dc_ep_attr_default(t, attr);
	if (attr->max_rdma_size < FENCE_READ)
		attr->max_rdma_size = FENCE_READ;
	if (attr->max_rdma_read_in < 1)
		attr->max_rdma_read_in = 1;
	if (attr->max_rdma_read_out < 1)
		attr->max_rdma_read_out = 1;
}

/*
 * Passive half, once e is connected: announces the Read's window (src),
 * stops itself until both requests are posted, then checks that the
 * fenced Send, received in rcv (Receive 1), carried the Read's bytes.
 */
static void fence_responder(struct dc_ctx *t, struct dc_endpoint *e, struct dc_lmr *src,
			    struct dc_lmr *rcv)
{
	DAT_RMR_TRIPLET rem = dc_rmr_iov(src, 0, FENCE_READ);
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_peer_send(t, "window", "%llx %llx", (unsigned long long)rem.rmr_context,
		     (unsigned long long)dc_rmr_triplet_address(&rem));
	freeze_self(t);		/* until both requests are posted */
	d = DC_ASSERT_DTO(e->recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, FENCE_SEND);
	DC_ASSERT(!memcmp(rcv->buf, src->buf + FENCE_READ - FENCE_SEND, FENCE_SEND),
		  "the fenced Send carried bytes from before the RDMA Read completed");
	dc_peer_send(t, "checked", "ok");
}

/* Passive half's set-up: e (fence_attr) with src filled and Receive 1 posted in rcv. */
static void fence_responder_ep(struct dc_ctx *t, struct dc_endpoint *e, struct dc_conn_opts *o,
			       struct dc_lmr *src, struct dc_lmr *rcv)
{
	memset(e, 0, sizeof(*e));
	dc_endpoint(t, e, o);
	dc_lmr(t, e->pz, FENCE_READ, DAT_MEM_PRIV_ALL_FLAG, src);
	dc_lmr(t, e->pz, FENCE_SEND, DC_PRIV_LOCAL, rcv);
	dc_fill(src->buf + 0, FENCE_READ, 0x3C);	/* what the Read fetches */
	memset(rcv->buf, 0, FENCE_SEND);
	DC_SETUP(post_recv1(e->ep, rcv, 0, FENCE_SEND, 1));
}

/*
 * Active half, once e is connected: an RDMA Read of the peer's window and
 * right after it a fenced Send of the bytes it fills, the peer held still.
 */
static void fence_reader(struct dc_ctx *t, struct dc_endpoint *e)
{
	struct dc_lmr la;
	DAT_LMR_TRIPLET liov, siov;
	DAT_RMR_TRIPLET rem;
	unsigned long long ctx, addr;
	char msg[128];
	pid_t peer;

	dc_lmr(t, e->pz, FENCE_READ, DAT_MEM_PRIV_ALL_FLAG, &la);
	memset(la.buf, CANARY, FENCE_READ);
	dc_peer_wait(t, "window", msg, sizeof(msg));
	DC_SETUP_ASSERT(sscanf(msg, "%llx %llx", &ctx, &addr) == 2,
			"set-up: malformed window message '%s'", msg);
	rem = dc_rmr_triplet((DAT_RMR_CONTEXT)ctx, (DAT_VADDR)addr, FENCE_READ);
	peer = await_frozen();
	remember_frozen(peer);
	liov = dc_iov(&la, 0, FENCE_READ);
	DC_SETUP(dat_ep_post_rdma_read(e->ep, 1, &liov, dc_cookie(10), &rem, DAT_COMPLETION_DEFAULT_FLAG));
	siov = dc_iov(&la, FENCE_READ - FENCE_SEND, FENCE_SEND);	/* what the Read fills */
	DC_ASSERT_SUCCESS(dat_ep_post_send(e->ep, 1, &siov, dc_cookie(11),
					   DAT_COMPLETION_BARRIER_FENCE_FLAG));
	kill(peer, SIGCONT);
	epc_frozen_pid = 0;
	DC_ASSERT_DTO(e->req_evd, 10, DAT_DTO_SUCCESS);
	DC_ASSERT_DTO(e->req_evd, 11, DAT_DTO_SUCCESS);
	dc_peer_wait(t, "checked", NULL, 0);
}

/*
 * The halves of the fence cases.  With `again`, the active EP is first
 * connected, disconnected and reset (dat_ep_reset(3DAT): Unconnected like a
 * new EP), and the fence is checked on its second connection, which the
 * passive half accepts on a fresh EP at the same PSP.
 */
static void fence_passive(struct dc_ctx *t, bool again)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };
	struct dc_endpoint first, e;
	struct dc_lmr src, rcv;

	fence_attr(t, &attr);
	memset(&first, 0, sizeof(first));
	if (again)
		dc_connect_passive(t, &first, &o);
	fence_responder_ep(t, &e, &o, &src, &rcv);
	if (again) {
		DC_SETUP(dat_cr_accept(dc_await_cr(t, first.cr_evd, NULL), e.ep, 0, NULL));
		dc_await_event(t, e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	} else {
		dc_connect_passive(t, &e, &o);
	}
	fence_responder(t, &e, &src, &rcv);
}
static void fence_active(struct dc_ctx *t, bool again)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };
	struct dc_endpoint e;

	fence_attr(t, &attr);
	memset(&e, 0, sizeof(e));
	dc_connect_active(t, &e, &o);
	if (again) {
		DC_SETUP(dat_ep_disconnect(e.ep, DAT_CLOSE_ABRUPT_FLAG));
		dc_await_event(t, e.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
		DC_SETUP(dat_ep_reset(e.ep));
		dc_drain(t, e.req_evd);
		dc_drain(t, e.recv_evd);
		DC_SETUP(dat_ep_connect(e.ep, (DAT_IA_ADDRESS_PTR)&t->peer.addr, t->peer.conn_qual,
					dc_case_timeout_us(t), 0, NULL, DAT_QOS_BEST_EFFORT,
					DAT_CONNECT_DEFAULT_FLAG));
		dc_await_event(t, e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	}
	fence_reader(t, &e);
}

DC_TWO_NODE_CASE(dat_ep_post_send, barrier_fence,
		 .summary = "a fenced Send of a buffer being RDMA-read carries the read data, not stale bytes",
		 .requires = "completion_flags_supported&8");
DC_PASSIVE(dat_ep_post_send, barrier_fence)
{
	fence_passive(t, false);
}
DC_ACTIVE(dat_ep_post_send, barrier_fence)
{
	fence_active(t, false);
}

/* The same on an EP reset and connected again: nothing of the first
 * connection's RDMA Read accounting may let the fenced Send go early, or
 * hold it for ever. */
DC_TWO_NODE_CASE(dat_ep_post_send, barrier_fence_after_reset,
		 .clauses = "dat_ep_post_send.barrier_fence",
		 .summary = "on an EP reset and connected again, a fenced Send after an RDMA Read carries the read data",
		 .requires = "completion_flags_supported&8");
DC_PASSIVE(dat_ep_post_send, barrier_fence_after_reset)
{
	fence_passive(t, true);
}
DC_ACTIVE(dat_ep_post_send, barrier_fence_after_reset)
{
	fence_active(t, true);
}

DC_CASE(dat_ep_post_send, valid_states,
	.summary = "posting a Send succeeds in CONNECTED and in DISCONNECTED, reached each way")
{
	struct dc_pair p;

	for (int way = 0; way < DISC_WAYS; way++) {
		dc_note(t, "DISCONNECTED by %s", disc_way_name(way));
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, 1));
		DC_ASSERT_SUCCESS(post_send1(p.a.ep, &p.ma, 0, 64, 2));
		DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
		disconnect_pair_by(&p, way);
		DC_ASSERT_SUCCESS(post_send1(p.a.ep, &p.ma, 0, 64, 3));
		pair_down(t, &p);
	}
}

static DAT_RETURN send_flagged(struct dc_pair *p, uint64_t cookie, DAT_COMPLETION_FLAGS fl)
{
	DAT_LMR_TRIPLET iov = dc_iov(&p->ma, 0, 64);

	return dat_ep_post_send(p->a.ep, 1, &iov, dc_cookie(cookie), fl);
}

DC_CASE(dat_ep_post_send, disconnected_flushed,
	.summary = "a Send posted on a Disconnected EP is flushed at once, whatever its completion "
		   "flags and however the EP was disconnected")
{
	struct dc_pair p;

	for (int way = 0; way < DISC_WAYS; way++) {
		dc_note(t, "DISCONNECTED by %s", disc_way_name(way));
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		disconnect_pair_by(&p, way);
		assert_flushed_each_flag(&p, send_flagged, 31);
		pair_down(t, &p);
	}
	assert_unsignalled_flushed(send_flagged, false, 39);
}

static void send_refused_in_state(struct dc_ctx *t, struct subject *s, const void *arg)
{
	(void)arg;
	adopt(s);
	ASSERT_POST_REFUSED(s, post_send1(s->ep, &s->mem, 0, 64, 41));
	ASSERT_STATE_KEPT(s);
	/* the set-up's own Send may complete here; only the refused post's
	 * completion is the clause's (dat_ep_post_send(3DAT) RETURN VALUES) */
	DC_ASSERT_NO_COMPLETION_OF(s->e.req_evd, 41);
}

#define SEND_REFUSED(st)							\
	STATE_CASE(dat_ep_post_send, invalid_state_##st, st, send_refused_in_state, \
		   NULL, "dat_ep_post_send.invalid_state",			\
		   "a Send is refused in " #st)
SEND_REFUSED(unconnected)
SEND_REFUSED(reserved)
SEND_REFUSED(passive_connection_pending)
SEND_REFUSED(tentative_connection_pending)
SEND_REFUSED(active_connection_pending)
SEND_REFUSED(completion_pending)
SEND_REFUSED(disconnect_pending)

DC_CASE(dat_ep_post_send, invalid_state_unconnected_after_reset,
	.clauses = "dat_ep_post_send.invalid_state",
	.summary = "a Send is refused in UNCONNECTED reached by a reset out of DISCONNECTED")
{
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	unconnected_by_reset(&p);
	DC_ASSERT_RET(post_send1(p.a.ep, &p.ma, 0, 64, 41), DAT_INVALID_STATE);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_NO_COMPLETION_OF(p.a.req_evd, 41);
}

DC_CASE(dat_ep_post_send, iov_outside_lmr,
	.summary = "a segment reaching outside its LMR is an invalid parameter; nothing is sent")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;

	pair_with_recv(t, &p, NULL);
	iov = dc_iov_before_start(&p.ma, 1, 64);	/* starts before the LMR */
	DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_PARAMETER);
	iov = dc_iov_past_end(&p.ma, 64);		/* ends past it */
	DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_PARAMETER);
	iov = dc_iov_longest(&p.ma);			/* 2^64 - 1 bytes: also past max_message_size */
	DC_ASSERT_RET_ANY(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(3), DAT_COMPLETION_DEFAULT_FLAG),
			  DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR);
	prove_nothing_sent(&p, 0, RCOOKIE);
}

/* Clause: a Send of `nseg` segments, local_iov a valid one-segment vector
 * (or, with_iov false, NULL), is refused with one of `types`; nothing sent. */
static void send_iov_refused(struct dc_ctx *t, DAT_COUNT nseg, bool with_iov,
			     int ntypes, const DAT_RETURN *types)
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;

	pair_with_recv(t, &p, NULL);
	iov = dc_iov(&p.ma, 0, 64);
	dc_assert_ret_at(t, __FILE__, __LINE__, "dat_ep_post_send",
			 dat_ep_post_send(p.a.ep, nseg, with_iov ? &iov : NULL, dc_cookie(1),
					  DAT_COMPLETION_DEFAULT_FLAG),
			 DC_FAIL, ntypes, types, DC_ANY_SUBTYPE);
	prove_nothing_sent(&p, 0, RCOOKIE);
}

DC_CASE(dat_ep_post_send, invalid_num_segments,
	.summary = "a negative segment count is an invalid parameter; nothing is sent")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };

	send_iov_refused(t, -1, true, N_OF(bad), bad);
}

DC_CASE(dat_ep_post_send, null_local_iov,
	.summary = "segments announced with no I/O vector should be an invalid parameter")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER };

	send_iov_refused(t, 1, false, N_OF(bad), bad);
}

/* PARAMETERS lists DEFAULT 0x00, SUPPRESS 0x01, SOLICITED_WAIT 0x02,
 * UNSIGNALLED 0x04 and BARRIER_FENCE 0x08 for a Send; 0x40 and 0x80 are no
 * DAT_COMPLETION_* flag in the DAT 1.2 or 2.0 headers. */
DC_CASE(dat_ep_post_send, invalid_flags,
	.summary = "completion flag bits no DAT_COMPLETION_* flag has should be an invalid parameter; "
		   "nothing is sent")
{
	static const DAT_COMPLETION_FLAGS undefined[] = { 0x40, 0x80 };
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;

	pair_with_recv(t, &p, NULL);
	iov = dc_iov(&p.ma, 0, 64);
	for (int i = 0; i < N_OF(undefined); i++)
		DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(1 + (uint64_t)i), undefined[i]),
			      DAT_INVALID_PARAMETER);
	prove_nothing_sent(&p, 0, RCOOKIE);
}

DC_CASE(dat_ep_post_send, lmr_pz_mismatch,
	.summary = "a segment of an LMR in another PZ is a protection violation")
{
	struct dc_pair p;
	struct dc_lmr other;
	DAT_LMR_TRIPLET iov;

	pair_with_recv(t, &p, NULL);
	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &other);
	iov = dc_iov(&other, 0, 64);
	DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PROTECTION_VIOLATION);
	prove_nothing_sent(&p, 0, RCOOKIE);
}

DC_CASE(dat_ep_post_send, lmr_no_local_read,
	.summary = "a segment of an LMR without local read privilege is a privileges violation, "
		   "for each privilege set without it")
{
	DAT_MEM_PRIV_FLAGS sets[16];
	int n = priv_sets_without(DAT_MEM_PRIV_LOCAL_READ_FLAG, sets);
	struct dc_pair p;
	struct dc_lmr wo;
	DAT_LMR_TRIPLET iov;

	pair_with_recv(t, &p, NULL);
	for (int i = 0; i < n; i++) {	/* one bit at a time */
		if (!try_priv_lmr(t, p.a.pz, sets[i], &wo))
			continue;
		iov = dc_iov(&wo, 0, 64);
		DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(1 + (uint64_t)i),
					       DAT_COMPLETION_DEFAULT_FLAG),
			      DAT_PRIVILEGES_VIOLATION);
	}
	prove_nothing_sent(&p, 0, RCOOKIE);
}

DC_CASE(dat_ep_post_send, invalid_lmr_context,
	.summary = "a segment naming an lmr_context no LMR has is a privileges violation")
{
	struct dc_pair p;
	struct dc_lmr unknown;
	DAT_LMR_TRIPLET iov;

	pair_with_recv(t, &p, NULL);
	dc_lmr(t, p.a.pz, 4096, DC_PRIV_LOCAL, &unknown);
	iov = dc_iov(&unknown, 0, 64);
	iov.lmr_context = dc_unissued_lmr_context(&unknown);
	DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PRIVILEGES_VIOLATION);
	prove_nothing_sent(&p, 0, RCOOKIE);
}

/*
 * An LMR's rmr_context is no lmr_context: a segment naming the rmr_context
 * of a live LMR (with the LMR's own address) names no LMR for local access.
 * Where the Provider gave that value as an lmr_context too (an rmr_context
 * equal to its LMR's lmr_context, as with keys of some verbs devices), the
 * segment is valid and the case shows nothing.
 */
DC_CASE(dat_ep_post_send, rmr_context_as_lmr_context,
	.clauses = "dat_ep_post_send.invalid_lmr_context",
	.summary = "a segment naming a live LMR's rmr_context instead of its lmr_context is a "
		   "privileges violation")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;

	pair_with_recv(t, &p, NULL);	/* ma and mb, the IA's only LMRs, with remote access */
	DC_SETUP_ASSERT(p.ma.rmr_context != 0, "set-up: an LMR with remote privileges has no rmr_context");
	if (p.ma.rmr_context == p.ma.lmr_context || p.ma.rmr_context == p.mb.lmr_context)
		DC_UNRESOLVED("the rmr_context 0x%x is also an lmr_context the IA returned: "
			      "no LMR-free value to try", (unsigned)p.ma.rmr_context);
	iov = dc_iov(&p.ma, 0, 64);
	iov.lmr_context = (DAT_LMR_CONTEXT)p.ma.rmr_context;
	DC_ASSERT_RET(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PRIVILEGES_VIOLATION);
	prove_nothing_sent(&p, 0, RCOOKIE);
}

/*
 * The size a Send is held to is the EP's max_message_size as it is now: one
 * dat_ep_modify changed while the EP was Unconnected (dat_ep_modify(3DAT)
 * DESCRIPTION, Maximum Message Size) counts, not the one it was created with
 * (issue 54: a setting changed after creation is used afterwards).  Lowered
 * from 8192 to 4096, a Send of the size the EP then reports + 1 is refused or
 * fails and delivers nothing; raised from 4096 to 8192, a Send of the size it
 * reports is transferred whole.  An IA whose max_message_size is below 8192
 * has no such pair of sizes (noted).
 */
static void modified_message_size_used(struct dc_ctx *t)
{
	static const DAT_RETURN sync[] = { DAT_LENGTH_ERROR, DAT_INVALID_PARAMETER };
	static const DAT_DTO_COMPLETION_STATUS async[] = { DAT_DTO_ERR_LOCAL_LENGTH };

	if (t->ia_attr.max_message_size < 8192) {
		dc_note(t, "the IA's max_message_size %llu is below 8192: no change to try",
			(unsigned long long)t->ia_attr.max_message_size);
		return;
	}
	for (int raise = 0; raise < 2; raise++) {
		DAT_VLEN created = raise ? 4096 : 8192, now = raise ? 8192 : 4096, max;
		struct dc_pair p;
		DAT_DTO_COMPLETION_EVENT_DATA d;

		memset(&p, 0, sizeof(p));
		max = dc_endpoint_modified(t, &p.a, max_message_size,
					   DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, created, now);
		dc_endpoint(t, &p.b, NULL);
		if (max < 1 || max > MSG_TRY) {
			dc_note(t, "the EP reports max_message_size %llu after the change: beyond "
				"the 16 KiB this part sends, left out", (unsigned long long)max);
			pair_down(t, &p);
			continue;
		}
		DC_SETUP_ASSERT(dc_ep_param(t, p.b.ep).ep_attr.max_message_size >= max,
				"set-up: the receiving EP's max_message_size is below the sender's");
		dc_lmr(t, p.a.pz, MSG_TRY + 1, DC_PRIV_LOCAL, &p.ma);
		dc_lmr(t, p.b.pz, MSG_TRY + 1, DC_PRIV_LOCAL, &p.mb);
		memset(p.mb.buf, CANARY, MSG_TRY + 1);
		DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, max + 1, 1));
		dc_connect_local(t, &p.a, &p.b, NULL);
		if (!raise) {
			dc_fill(p.ma.buf + 0, max + 1, 5);
			if (!REFUSED_OR_FAILED(post_send1(p.a.ep, &p.ma, 0, max + 1, 2), sync, &p.a, 2,
					       async))
				dc_drain(t, p.b.recv_evd);
			DC_ASSERT_BYTES_ARE(p.mb.buf, max + 1, CANARY,
					    "the peer's Receive buffer (max_message_size lowered)");
		} else {
			dc_fill(p.ma.buf + 0, max, 6);
			DC_ASSERT_SUCCESS_UNLESS_SHORT(post_send1(p.a.ep, &p.ma, 0, max, 3));
			DC_ASSERT_DTO(p.a.req_evd, 3, DAT_DTO_SUCCESS);
			d = DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
			DC_ASSERT_EQ(d.transfered_length, max);
			DC_ASSERT(dc_check_fill(p.mb.buf, max, 6),
				  "the Send of the raised max_message_size arrived altered");
		}
		pair_down(t, &p);
	}
}

DC_CASE(dat_ep_post_send, exceeds_max_message_size,
	.summary = "a Send longer than max_message_size is a length error and delivers nothing")
{
	static const DAT_RETURN sync[] = { DAT_LENGTH_ERROR, DAT_INVALID_PARAMETER };
	static const DAT_DTO_COMPLETION_STATUS async[] = { DAT_DTO_ERR_LOCAL_LENGTH };
	DAT_EP_ATTR small;
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	struct dc_conn_opts oa = { 0 };

	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_VLEN max;

	memset(&a, 0, sizeof(a));
	dc_ep_attr_default(t, &small);
	small.max_message_size = 4096;
	oa.attr = &small;
	dc_endpoint(t, &a, &oa);
	dc_endpoint(t, &b, NULL);
	/* the limit is what the EP took, not what the case asked for */
	max = dc_ep_param(t, a.ep).ep_attr.max_message_size;
	if (max < 1 || max > MSG_TRY)
		DC_BEYOND_SUITE_BOUND("a message of 16 KiB + 1", "the EP's max_message_size is %llu",
				      (unsigned long long)max);
	DC_SETUP_ASSERT(dc_ep_param(t, b.ep).ep_attr.max_message_size >= max,
			"set-up: the receiving EP's max_message_size is below the sender's");
	dc_lmr(t, a.pz, 2 * MSG_TRY + 2, DC_PRIV_LOCAL, &ma);
	dc_lmr(t, b.pz, 2 * MSG_TRY + 2, DC_PRIV_LOCAL, &mb);
	memset(mb.buf, CANARY, 2 * MSG_TRY + 2);
	DC_SETUP(post_recv1(b.ep, &mb, 0, max + 1, 1));
	DC_SETUP(post_recv1(b.ep, &mb, max + 1, max + 1, 3));
	dc_connect_local(t, &a, &b, NULL);
	/* exactly max_message_size is within the limit (dat_ep_modify(3DAT):
	 * the EP's maximum message size): transferred whole */
	dc_fill(ma.buf + 0, max, 4);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(post_send1(a.ep, &ma, 0, max, 4));
	DC_ASSERT_DTO(a.req_evd, 4, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO(b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, max);
	DC_ASSERT(dc_check_fill(mb.buf, max, 4), "the max_message_size Send arrived altered");
	/* one byte more is never transferred */
	dc_fill(ma.buf + 0, max + 1, 3);
	if (!REFUSED_OR_FAILED(post_send1(a.ep, &ma, 0, max + 1, 2), sync, &a, 2, async))
		dc_drain(t, b.recv_evd);
	DC_ASSERT_BYTES_ARE(mb.buf + max + 1, max + 1, CANARY, "the peer's second Receive buffer");
	/* the pair of this part goes before the next part makes its own (few EVDs) */
	DC_CLEANUP(dat_lmr_free(ma.lmr));
	DC_CLEANUP(dat_lmr_free(mb.lmr));
	free_endpoint(t, &a);
	free_endpoint(t, &b);
	modified_message_size_used(t);
}

/*
 * The limit a Send is held to is the EP's max_request_iov as it is now:
 * one dat_ep_modify changed while the EP was Unconnected
 * (dat_ep_modify(3DAT) DESCRIPTION) counts, not the one it was created
 * with.  a is created with `created` and modified to `now`, then connected.
 */
static void modified_iov_pair(struct dc_ctx *t, struct dc_pair *p, DAT_COUNT created,
			      DAT_COUNT now)
{
	memset(p, 0, sizeof(*p));
	dc_endpoint_modified(t, &p->a, max_request_iov, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV,
			     created, now);
	dc_endpoint(t, &p->b, NULL);
	dc_lmr(t, p->a.pz, SUBJ_MEM, DAT_MEM_PRIV_ALL_FLAG, &p->ma);
	dc_lmr(t, p->b.pz, SUBJ_MEM, DAT_MEM_PRIV_ALL_FLAG, &p->mb);
	dc_connect_local(t, &p->a, &p->b, NULL);
	memset(p->ma.buf, CANARY, SUBJ_MEM);
	memset(p->mb.buf, CANARY, SUBJ_MEM);
}

/* Lowered from l to 1: two segments are refused, nothing sent; raised from
 * 1 to l: l segments are sent, in order.  Needs an IA of 2 segments or more
 * (dat_ia_query(3DAT)): with one there is nothing to change, noted. */
static void modified_limit_used(struct dc_ctx *t)
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };
	DAT_COUNT l = dc_within_limit(4, t->ia_attr.max_iov_segments_per_dto);
	DAT_LMR_TRIPLET iov[4];
	DAT_DTO_COMPLETION_EVENT_DATA d;
	struct dc_pair p;

	if (l < 2) {
		dc_note(t, "the IA takes one segment per DTO: no max_request_iov to change");
		return;
	}
	modified_iov_pair(t, &p, l, 1);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, RCOOKIE));
	iov[0] = dc_iov(&p.ma, 0, 8);
	iov[1] = dc_iov(&p.ma, 8, 8);
	dc_assert_ret_at(t, __FILE__, __LINE__, "dat_ep_post_send(2 segments, max_request_iov modified to 1)",
			 dat_ep_post_send(p.a.ep, 2, iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
			 DC_FAIL, 2, bad, DC_ANY_SUBTYPE);
	prove_nothing_sent(&p, 0, RCOOKIE);
	pair_down(t, &p);
	modified_iov_pair(t, &p, 1, l);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, RCOOKIE));
	for (DAT_COUNT i = 0; i < l; i++) {
		dc_fill(p.ma.buf + i * 8, 8, (unsigned int)i + 1);
		iov[i] = dc_iov(&p.ma, (DAT_VLEN)i * 8, 8);
	}
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_post_send(p.a.ep, l, iov, dc_cookie(2),
							DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO(p.b.recv_evd, RCOOKIE, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, (DAT_VLEN)l * 8);
	for (DAT_COUNT i = 0; i < l; i++)
		DC_ASSERT(dc_check_fill(p.mb.buf + i * 8, 8, (unsigned int)i + 1),
			  "segment %d of the Send arrived altered", (int)i);
	pair_down(t, &p);
}

DC_CASE(dat_ep_post_send, exceeds_max_request_iov,
	.summary = "more segments than max_request_iov is an invalid parameter; nothing is sent")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };
	struct dc_pair p;
	DAT_LMR_TRIPLET iov[IOV_TRY];
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_COUNT n;

	/* the EP's limit below the IA's, then at it: a provider checking
	 * the IA's limit instead of the EP's, or refusing the IA's own, shows */
	for (int below = 1; below >= 0; below--) {
		iov_pair(&p, SMALL_NONE, below);	/* max_request_iov as large as the IA allows */
		DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, RCOOKIE));
		n = dc_ep_param(t, p.a.ep).ep_attr.max_request_iov + 1;
		DC_SETUP_ASSERT(n <= IOV_TRY, "max_request_iov %d too large for this case", (int)n - 1);
		for (DAT_COUNT i = 0; i < n; i++)
			iov[i] = dc_iov(&p.ma, (DAT_VLEN)i * 8, 8);
		dc_assert_ret_at(t, __FILE__, __LINE__, "dat_ep_post_send(max_request_iov + 1 segments)",
				 dat_ep_post_send(p.a.ep, n, iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG),
				 DC_FAIL, 2, bad, DC_ANY_SUBTYPE);
		prove_nothing_sent(&p, 0, RCOOKIE);
		/* exactly max_request_iov segments is within the limit: sent, in order */
		for (DAT_COUNT i = 0; i < n - 1; i++)
			dc_fill(p.ma.buf + i * 8, 8, (unsigned)i + 1);
		DC_SETUP(post_recv1(p.b.ep, &p.mb, 1024, 1024, RCOOKIE + 1));
		DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_post_send(p.a.ep, n - 1, iov, dc_cookie(2),
								DAT_COMPLETION_DEFAULT_FLAG));
		DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
		d = DC_ASSERT_DTO(p.b.recv_evd, RCOOKIE + 1, DAT_DTO_SUCCESS);
		DC_ASSERT_EQ(d.transfered_length, (DAT_VLEN)(n - 1) * 8);
		for (DAT_COUNT i = 0; i < n - 1; i++)
			DC_ASSERT(dc_check_fill(p.mb.buf + 1024 + i * 8, 8, (unsigned)i + 1),
				  "segment %d of the max_request_iov Send arrived altered", (int)i);
		pair_down(t, &p);
	}
	modified_limit_used(t);
}

/*
 * The count of outstanding requests an EP is held to is its
 * max_request_dtos as it is now: one dat_ep_modify changed while the EP was
 * Unconnected (dat_ep_modify(3DAT) DESCRIPTION, Maximum Request DTO)
 * counts, not the one it was created with (issue 54: a setting changed
 * after creation is used afterwards).  Lowered from l (4, or the IA's
 * limit) to l / 2, and raised from l / 2 to l, before the connection: Sends
 * up to the count the EP then reports are taken (no Receive at the peer,
 * so all stay outstanding), one more is refused for lack of resources, as
 * with the value of creation above; with the peer's Receives posted, each
 * taken Send completes.  An IA of one DTO per EP has nothing to change
 * (noted).
 */
static void modified_request_dtos_used(struct dc_ctx *t)
{
	DAT_COUNT l = dc_within_limit(4, t->ia_attr.max_dto_per_ep);

	if (l < 2) {
		dc_note(t, "the IA takes one DTO per EP: no max_request_dtos to change");
		return;
	}
	for (int raise = 0; raise < 2; raise++) {
		DAT_COUNT created = raise ? l / 2 : l, now = raise ? l : l / 2, got;
		struct dc_pair p;

		memset(&p, 0, sizeof(p));
		dc_endpoint_modified(t, &p.a, max_request_dtos, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS,
				     created, now);
		dc_endpoint(t, &p.b, NULL);
		dc_lmr(t, p.a.pz, SUBJ_MEM, DC_PRIV_LOCAL, &p.ma);
		dc_lmr(t, p.b.pz, SUBJ_MEM, DC_PRIV_LOCAL, &p.mb);
		dc_connect_local(t, &p.a, &p.b, NULL);
		got = dc_ep_param(t, p.a.ep).ep_attr.max_request_dtos;
		if (got < 1 || got > 32 || dc_ep_param(t, p.b.ep).ep_attr.max_recv_dtos < got) {
			dc_note(t, "the EP reports max_request_dtos %d after the change: beyond the "
				"32 this part posts or the peer's Receives, left out", (int)got);
			pair_down(t, &p);
			continue;
		}
		for (DAT_COUNT i = 0; i < got; i++)
			DC_ASSERT_SUCCESS_UNLESS_SHORT(post_send1(p.a.ep, &p.ma, (DAT_VLEN)i * 64, 64,
								  60 + (uint64_t)i));
		dc_assert_ret_at(t, __FILE__, __LINE__,
				 "dat_ep_post_send(one Send beyond the max_request_dtos "
				 "dat_ep_modify set)",
				 post_send1(p.a.ep, &p.ma, 4096, 64, 510), DC_FAIL, 2,
				 (const DAT_RETURN[]){ DAT_INSUFFICIENT_RESOURCES, DAT_QUEUE_FULL },
				 DC_ANY_SUBTYPE);
		for (DAT_COUNT i = 0; i < got; i++)
			DC_SETUP(post_recv1(p.b.ep, &p.mb, (DAT_VLEN)i * 1024, 1024,
					    800 + (uint64_t)i));
		for (DAT_COUNT i = 0; i < got; i++)
			DC_ASSERT_DTO(p.a.req_evd, 60 + (uint64_t)i, DAT_DTO_SUCCESS);
		pair_down(t, &p);
	}
}

DC_CASE(dat_ep_post_send, exceeds_max_request_dtos,
	.summary = "posting beyond max_request_dtos outstanding is refused for lack of resources; the limit dat_ep_modify set is the one used")
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { 0 };
	struct dc_pair p;
	DAT_RETURN r;
	DAT_COUNT max;

	dc_ep_attr_default(t, &attr);
	attr.max_request_dtos = 4;
	o.attr = &attr;
	dc_pair_up(t, &p, SUBJ_MEM, &o);
	/* the limit is what the EP took, not what the case asked for */
	max = dc_ep_param(t, p.a.ep).ep_attr.max_request_dtos;
	if (max < 1 || max > 32 ||
	    dc_ep_param(t, p.b.ep).ep_attr.max_recv_dtos < max)
		DC_BEYOND_SUITE_BOUND("32 outstanding Sends",
				      "the EP's max_request_dtos is %d (asked for 4)", (int)max);
	/* no Receive at b: all stay outstanding.  Up to max_request_dtos
	 * (dat_ep_modify(3DAT): the outstanding requests the Consumer
	 * expects at any time) the posts are taken */
	for (DAT_COUNT i = 0; i < max; i++)
		DC_ASSERT_SUCCESS_UNLESS_SHORT(post_send1(p.a.ep, &p.ma, (DAT_VLEN)i * 64, 64,
							  50 + (uint64_t)i));
	r = post_send1(p.a.ep, &p.ma, 4096, 64, 500);
	DC_ASSERT_RET_ANY(r, DAT_INSUFFICIENT_RESOURCES, DAT_QUEUE_FULL);
	for (DAT_COUNT i = 0; i < max; i++)
		DC_SETUP(post_recv1(p.b.ep, &p.mb, (DAT_VLEN)i * 1024, 1024, 600 + (uint64_t)i));
	for (DAT_COUNT i = 0; i < max; i++)
		DC_ASSERT_DTO(p.a.req_evd, 50 + (uint64_t)i, DAT_DTO_SUCCESS);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 32768, 1024, 700));
	DC_ASSERT_SUCCESS(post_send1(p.a.ep, &p.ma, 4096, 64, 501));
	DC_ASSERT_DTO(p.a.req_evd, 501, DAT_DTO_SUCCESS);
	/* the pair of this part goes before the next part makes its own (few EVDs) */
	pair_down(t, &p);
	modified_request_dtos_used(t);
}

DC_CASE(dat_ep_post_send, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, 64);
	DC_ASSERT_INVALID_HANDLE(dat_ep_post_send((DAT_EP_HANDLE)dc_wrong_handle(t), 1, &iov, dc_cookie(1),
				       DAT_COMPLETION_DEFAULT_FLAG), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_post_send, invalid_handle_freed,
	.clauses = "dat_ep_post_send.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, 64);
	DC_ASSERT_INVALID_HANDLE(dat_ep_post_send(dc_freed_ep(t), 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG), 1, EP);
}

DC_CASE(dat_ep_post_send, iov_ownership,
	.summary = "with the iov owned by the Consumer on return, rewriting it does not change the Send",
	.requires = "iov_ownership_on_return=0")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov[2];
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_NEED_LIMIT("the EP's max_request_iov", dc_ep_param(t, p.a.ep).ep_attr.max_request_iov, 2);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 4096, 1));
	dc_fill(p.ma.buf + 0, 100, 0x21);
	dc_fill(p.ma.buf + 1000, 100, 0x22);
	iov[0] = dc_iov(&p.ma, 0, 100);
	iov[1] = dc_iov(&p.ma, 1000, 100);
	DC_ASSERT_SUCCESS(dat_ep_post_send(p.a.ep, 2, iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	memset(iov, 0x77, sizeof(iov));
	DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	d = DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 200);
	DC_ASSERT(dc_check_fill(p.mb.buf, 100, 0x21) && dc_check_fill(p.mb.buf + 100, 100, 0x22),
		  "the message is not what the original iov described");
}

/*
 * Peer faults.  The passive half (the peer) posts no Receive and dies with
 * SIGKILL (dc_peer_die) once the active half has Sends and RDMA Writes
 * outstanding toward it; the active half survives and checks what its
 * provider makes of the death (ep_common.h, assert_ended_by_death).
 */
#define DEATH_MEM (32u * 1024u)
#define DEATH_REQS 8

DC_TWO_NODE_CASE(dat_ep_post_send, peer_killed_mid_stream,
		 .clauses = "dat_ep_post_send.completion_on_request_evd "
			    "dat_ep_post_rdma_write.completion_on_request_evd "
			    "dat_ep_disconnect.failure_order_per_direction "
			    "dat_ep_create.connection_events_on_connect_evd",
		 .summary = "the peer is killed with Sends and RDMA Writes outstanding: the connection "
			    "ends, each request completes once in order, none successfully after a "
			    "failure, no byte outside the LMR touched");
DC_PASSIVE(dat_ep_post_send, peer_killed_mid_stream)
{
	die_with_window(DEATH_MEM);
}
DC_ACTIVE(dat_ep_post_send, peer_killed_mid_stream)
{
	struct dc_endpoint e;
	struct dc_lmr m;
	struct outstanding req[DEATH_REQS];
	struct dto_log log;
	DAT_RMR_TRIPLET win;
	const DAT_VLEN seg = DEATH_MEM / DEATH_REQS;
	int i;

	memset(&e, 0, sizeof(e));
	dc_connect_active(t, &e, NULL);
	dc_lmr_guarded(t, e.pz, DEATH_MEM, DC_PRIV_LOCAL, &m);
	dc_fill(m.buf, DEATH_MEM, 0x11);
	win = peer_window(DEATH_MEM);
	for (i = 0; i < DEATH_REQS; i++) {
		DAT_LMR_TRIPLET iov = dc_iov(&m, (DAT_VLEN)i * seg, seg);

		req[i].cookie = (uint64_t)i + 1;
		req[i].is_send = !(i & 1);	/* Send, Write, Send, Write, ... */
		if (req[i].is_send) {
			DC_SETUP(dat_ep_post_send(e.ep, 1, &iov, dc_cookie(req[i].cookie),
						  DAT_COMPLETION_DEFAULT_FLAG));
		} else {
			DAT_RMR_TRIPLET dst = dc_rmr_triplet(win.rmr_context,
							     dc_rmr_triplet_address(&win) +
							     (DAT_VADDR)i * seg, seg);

			DC_SETUP(dat_ep_post_rdma_write(e.ep, 1, &iov, dc_cookie(req[i].cookie),
							&dst, DAT_COMPLETION_DEFAULT_FLAG));
		}
	}
	dc_peer_send(t, "die", "now");
	dc_peer_wait_gone(t);
	DC_FOR_CLAUSE("dat_ep_create.connection_events_on_connect_evd");
	ASSERT_CONN_ENDED_BY_DEATH(&e);
	DC_FOR_CLAUSE("dat_ep_post_send.completion_on_request_evd");
	ASSERT_EACH_REQUEST_COMPLETED(&e, req, DEATH_REQS, &log);
	DC_ASSERT(dc_check_fill(m.buf, DEATH_MEM, 0x11),
		  "the LMR changed, though only Sends and RDMA Writes (which read it) used it");
	DC_ASSERT_GUARDS(&m);
	DC_FOR_CLAUSE("dat_ep_disconnect.failure_order_per_direction");
	ASSERT_FAILURE_ORDER(&log, req, DEATH_REQS);
}
