/* SPDX-License-Identifier: MIT */
/*
 * dat_cr_accept(3DAT): clauses/dat_cr_accept.toml.
 * Requesters are EPs of the same IA connecting to its own address; "a" is
 * the requester, the accepting side holds the Service Point.
 */
#include "cm_common.h"

/* A request on a consumer-flag PSP from a fresh requester a (made with o). */
static DAT_CR_HANDLE request_with(struct dc_ctx *t, struct dc_endpoint *a, DAT_TIMEOUT tmo,
				  const struct dc_conn_opts *o)
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);

	dc_endpoint(t, a, o);
	DC_SETUP(dc_connect_to_self(t, a->ep, q, tmo, 0, NULL));
	return dc_await_cr(t, evd, NULL);
}

static DAT_CR_HANDLE request(struct dc_ctx *t, struct dc_endpoint *a, DAT_TIMEOUT tmo)
{
	return request_with(t, a, tmo, NULL);
}

/* Clause: the request still works: accepting it on a fresh EP connects. */
static void still_acceptable(struct dc_ctx *t, DAT_CR_HANDLE cr, struct dc_endpoint *a)
{
	struct dc_conn_opts no_dtos = { .few_evds = DC_IDLE_RECV | DC_IDLE_REQUEST };
	struct dc_endpoint b;

	dc_endpoint(t, &b, &no_dtos);	/* it connects, and carries nothing */
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
	DC_ASSERT_CONN_EVENT(a->conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a->ep);
}

DC_CASE(dat_cr_accept, establishes_explicit_ep,
	.summary = "accepting on a Consumer EP connects it to the requester")
{
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	DAT_CR_HANDLE cr = request(t, &a, 0);

	dc_endpoint(t, &b, NULL);
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &ma);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &mb);
	DC_SETUP(post_recv1(b.ep, &mb, 0, 1024, 1));
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
	ASSERT_STATE(b.ep, DAT_EP_STATE_CONNECTED);
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
	/* the requester is the only peer, so a Send of its that arrives shows
	 * whom b is connected to; the port qualifiers the two ends report are
	 * dat_ep_query's clauses (remote_address_valid_when_connected,
	 * local_port_qual_valid_when_connected), not this page's */
	dc_fill(ma.buf + 0, 40, 0x19);
	DC_SETUP(post_send1(a.ep, &ma, 0, 40, 2));
	DC_ASSERT_DTO(b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT(dc_check_fill(mb.buf, 40, 0x19), "the accepted EP received wrong bytes");
}

DC_CASE(dat_cr_accept, establishes_implicit_ep,
	.summary = "a request that carries its EP (RSP; PSP with provider flag) is accepted with NULL",
	.flags = DC_NO_DTOS)
{
	struct dc_endpoint a, e;
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;

	dc_endpoint(t, &e, NULL);
	dc_rsp_any(t, e.ep, evd, &q, &rsp);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	DC_ASSERT_SUCCESS(dat_cr_accept(dc_await_cr(t, evd, NULL), DAT_HANDLE_NULL, 0, NULL));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, e.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_CONNECTED);
	dc_await_event(t, a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);

	if (t->prov_attr.ep_creator != DAT_PSP_CREATES_EP_NEVER) {
		struct dc_endpoint a2, mine;
		DAT_EVD_HANDLE pevd;
		DAT_PSP_HANDLE psp;
		DAT_CONN_QUAL pq = dc_psp_any(t, DAT_PSP_PROVIDER_FLAG, &pevd, &psp);
		DAT_CR_HANDLE cr;
		DAT_CR_PARAM c;
		DAT_EP_PARAM nv;

		dc_endpoint(t, &a2, NULL);
		dc_endpoint(t, &mine, NULL);
		DC_SETUP(dc_connect_to_self(t, a2.ep, pq, 0, 0, NULL));
		cr = dc_await_cr(t, pevd, NULL);
		memset(&c, 0, sizeof(c));
		DC_SETUP(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
		memset(&nv, 0, sizeof(nv));
		nv.pz_handle = mine.pz;
		nv.recv_evd_handle = mine.recv_evd;
		nv.request_evd_handle = mine.req_evd;
		nv.connect_evd_handle = mine.conn_evd;
		DC_SETUP(dat_ep_modify(c.local_ep_handle, DAT_EP_FIELD_PZ_HANDLE |
				       DAT_EP_FIELD_RECV_EVD_HANDLE |
				       DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				       DAT_EP_FIELD_CONNECT_EVD_HANDLE, &nv));
		DC_ASSERT_SUCCESS(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
		DC_ASSERT_CONN_EVENT(mine.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, c.local_ep_handle);
		ASSERT_STATE(c.local_ep_handle, DAT_EP_STATE_CONNECTED);
	}
}

/*
 * The boundaries of the private data: 1 byte, and exactly the provider's
 * max_private_data_size (dat_ia_query(3DAT)); dat_cr_accept(3DAT) RETURN
 * VALUES refuses only a size out of that range: accepted, delivered whole.
 */
static void accept_pdata_at_limits(struct dc_ctx *t)
{
	DAT_COUNT sizes[2];
	int ns = cm_pdata_sizes(t, sizes);

	for (int i = 0; i < ns; i++) {
		struct dc_endpoint a, b;
		DAT_CR_HANDLE cr = request(t, &a, 0);
		unsigned char *pd = cm_pdata(t, sizes[i], 0x52u + (unsigned)i);
		DAT_EVENT ev;
		const DAT_CONNECTION_EVENT_DATA *d = &ev.event_data.connect_event_data;

		dc_endpoint(t, &b, NULL);
		DC_ASSERT_SUCCESS(dat_cr_accept(cr, b.ep, sizes[i], pd));
		DC_ASSERT_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
		DC_ASSERT(d->private_data_size >= sizes[i] && d->private_data &&
			  cm_pdata_differs(d->private_data, sizes[i], 0x52u + (unsigned)i) < 0,
			  "accept with %d bytes of private data: the requester's event has %d, %s",
			  (int)sizes[i], (int)d->private_data_size,
			  d->private_data ? "bytes differ" : "private_data NULL");
		free(pd);
	}
}

DC_CASE(dat_cr_accept, private_data_delivered,
	.summary = "accept's private data reaches the requester in its ESTABLISHED event",
	.flags = DC_NO_DTOS)
{
	static const unsigned char pd[24] = "accept private data 24b";
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr = request(t, &a, 0);
	DAT_EVENT ev;
	const DAT_CONNECTION_EVENT_DATA *d;

	dc_endpoint(t, &b, NULL);
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, b.ep, sizeof(pd), (DAT_PVOID)pd));
	DC_ASSERT_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	d = &ev.event_data.connect_event_data;
	DC_ASSERT_GE(d->private_data_size, (DAT_COUNT)sizeof(pd));
	DC_ASSERT(d->private_data && !memcmp(d->private_data, pd, sizeof(pd)),
		  "the ESTABLISHED event does not carry accept's private data");
	accept_pdata_at_limits(t);
}

DC_CASE(dat_cr_accept, ep_given_for_implicit,
	.summary = "an EP given for a request that already names one is refused without effect")
{
	struct dc_endpoint a, e, other;
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;
	DAT_CR_HANDLE cr;
	struct dc_snap se, so;

	dc_endpoint(t, &e, NULL);
	dc_endpoint(t, &other, NULL);
	dc_rsp_any(t, e.ep, evd, &q, &rsp);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	cr = dc_await_cr(t, evd, NULL);
	dc_snapshot(t, DC_OBJ_EP, e.ep, &se);
	dc_snapshot(t, DC_OBJ_EP, other.ep, &so);
	DC_ASSERT_RET_ANY(dat_cr_accept(cr, other.ep, 0, NULL),
			  DAT_INVALID_PARAMETER, DAT_INVALID_HANDLE);
	DC_ASSERT_UNCHANGED(&se);
	DC_ASSERT_UNCHANGED(&so);
	DC_ASSERT_NO_EVENT(a.conn_evd);
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, e.ep);
}

DC_CASE(dat_cr_accept, no_ep_for_explicit,
	.summary = "a request without an EP cannot be accepted with NULL; it stays acceptable")
{
	struct dc_endpoint a;
	DAT_CR_HANDLE cr = request(t, &a, 0);

	DC_ASSERT_RET_ANY(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL),
			  DAT_INVALID_PARAMETER, DAT_INVALID_HANDLE);
	DC_ASSERT_NO_EVENT(a.conn_evd);
	still_acceptable(t, cr, &a);
}

DC_CASE(dat_cr_accept, unsuitable_ep_no_effect,
	.summary = "accepting on an EP that cannot take the request fails and changes nothing")
{
	/* a connection, a request and a fresh EP at once: as few EVDs as the
	 * checks read (busy.a only sends, busy.b only receives, a carries nothing) */
	struct dc_conn_opts one_way = { .few_evds = DC_PAIR_ONE_WAY | DC_SHARE_CR_EVD };
	struct dc_conn_opts no_dtos = { .few_evds = DC_IDLE_RECV | DC_IDLE_REQUEST };
	struct dc_endpoint a;
	struct dc_pair busy;
	DAT_CR_HANDLE cr;
	struct dc_snap before;

	dc_pair_up(t, &busy, SUBJ_MEM, &one_way);
	cr = request_with(t, &a, 0, &no_dtos);
	dc_snapshot(t, DC_OBJ_EP, busy.b.ep, &before);
	DC_ASSERT_RET_ANY(dat_cr_accept(cr, busy.b.ep, 0, NULL),
			  DAT_INVALID_PARAMETER, DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&before);
	DC_ASSERT_NO_EVENT(busy.b.conn_evd);
	DC_ASSERT_NO_EVENT(a.conn_evd);
	DC_SETUP(post_recv1(busy.b.ep, &busy.mb, 0, 1024, 1));	/* old connection still up */
	DC_SETUP(post_send1(busy.a.ep, &busy.ma, 0, 16, 2));
	DC_ASSERT_DTO(busy.b.recv_evd, 1, DAT_DTO_SUCCESS);
	still_acceptable(t, cr, &a);
}

/* An accept that could not be completed leaves the EP Disconnected with its
 * two Receives (cookies 1, 2) flushed: dat_cr_accept(3DAT) DESCRIPTION. */
static void assert_accept_undone(struct dc_ctx *t, const struct dc_endpoint *e)
{
	ASSERT_REACHES_STATE(e->ep, DAT_EP_STATE_DISCONNECTED, 5000);
	DC_ASSERT_DTO(e->recv_evd, 1, DAT_DTO_ERR_FLUSHED);
	DC_ASSERT_DTO(e->recv_evd, 2, DAT_DTO_ERR_FLUSHED);
}

DC_CASE(dat_cr_accept, accept_completion_error,
	.summary = "accepting after the requester gave up: ACCEPT_COMPLETION_ERROR, DISCONNECTED, Receives flushed")
{
	struct dc_endpoint a, b;
	struct dc_lmr mb;
	DAT_CR_HANDLE cr = request(t, &a, dc_unanswered_timeout_us(t));
	DAT_RETURN r;

	dc_endpoint(t, &b, NULL);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &mb);
	dc_await_event(t, a.conn_evd, DAT_CONNECTION_EVENT_TIMED_OUT, NULL);
	DC_SETUP(post_recv1(b.ep, &mb, 0, 256, 1));
	DC_SETUP(post_recv1(b.ep, &mb, 256, 256, 2));
	r = dat_cr_accept(cr, b.ep, 0, NULL);
	if (r != DAT_SUCCESS) {
		dc_note(t, "dat_cr_accept refused at once: %s", dc_ret_text(r));
		ASSERT_STATE(b.ep, DAT_EP_STATE_UNCONNECTED);
		return;
	}
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, b.ep);
	assert_accept_undone(t, &b);
}

/*
 * The same with the request's own EP (issue 54: a state is reached but what
 * follows it is not): the reserved EP of an RSP waits in
 * PASSIVE_CONNECTION_PENDING, the Provider EP in TENTATIVE_CONNECTION_PENDING,
 * each with two Receives posted (valid there, dat_ep_post_recv(3DAT)), when
 * the requester gives up (its own abrupt disconnect aborts the
 * establishment, dat_ep_disconnect(3DAT) DESCRIPTION).  Accepting then cannot
 * establish the connection: refused at once (noted), or
 * ACCEPT_COMPLETION_ERROR on the EP's connect EVD, the EP Disconnected and
 * its Receives flushed (dat_cr_accept(3DAT) DESCRIPTION).  A consumer-flag
 * PSP's request carries no EP: the case above.
 */
static void requester_gave_up(struct dc_ctx *t, enum cm_req_kind k, DAT_CR_HANDLE cr,
			      struct dc_endpoint *a, struct dc_endpoint *e)
{
	struct dc_lmr m;
	DAT_EVENT ev;
	DAT_RETURN r;

	(void)k;
	dc_lmr(t, e->pz, 4096, DC_PRIV_LOCAL, &m);
	DC_SETUP(post_recv1(e->ep, &m, 0, 256, 1));
	DC_SETUP(post_recv1(e->ep, &m, 256, 256, 2));
	DC_SETUP(dat_ep_disconnect(a->ep, DAT_CLOSE_ABRUPT_FLAG));
	if (dc_wait_event(t, a->conn_evd, -1, &ev) == DAT_SUCCESS)
		dc_note(t, "the requester got %s", dc_event_name(ev.event_number));
	await_state(a->ep, DAT_EP_STATE_DISCONNECTED, 5000);
	r = dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL);
	if (r != DAT_SUCCESS) {
		dc_note(t, "dat_cr_accept refused at once: %s", dc_ret_text(r));
		return;
	}
	DC_ASSERT_CONN_EVENT(e->conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, e->ep);
	assert_accept_undone(t, e);
}

DC_CASE(dat_cr_accept, accept_completion_error_pending_ep,
	.clauses = "dat_cr_accept.accept_completion_error",
	.summary = "the requester gives up while the request's own EP (RSP, Provider EP) waits: accepting gives ACCEPT_COMPLETION_ERROR, DISCONNECTED, Receives flushed")
{
	/* the two kinds whose request carries an EP; each requester is freed
	 * before the next request (few EVDs) */
	static const enum cm_req_kind kinds[] = { CM_REQ_PROVIDER_PSP, CM_REQ_RSP };

	for (size_t i = 0; i < 2; i++) {
		struct dc_endpoint a, e;
		DAT_CR_HANDLE cr = cm_request_of_kind(t, kinds[i], &a, &e);

		if (cr == DAT_HANDLE_NULL)
			continue;
		dc_note(t, "request on a %s", cm_req_kind_name(kinds[i]));
		requester_gave_up(t, kinds[i], cr, &a, &e);
		dc_endpoint_down(t, &a);
	}
}

/*
 * COMPLETION_PENDING crossed with what the peer does next (issue 54,
 * docs/coverage-crossings.md): b accepts a's request while the provider's
 * test hook keeps b from taking a's confirmation, so a is Connected and b
 * still waits in COMPLETION_PENDING with two Receives posted.  A Consumer
 * cannot hold its peer's confirmation, so elsewhere these are UNSUPPORTED.
 */
typedef DAT_RETURN (*hold_confirmation_fn)(DAT_EP_HANDLE, DAT_BOOLEAN);

struct unconfirmed {
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	hold_confirmation_fn hold;
};

static void accept_unconfirmed(struct dc_ctx *t, struct unconfirmed *u)
{
	DAT_CR_HANDLE cr;
	DAT_EP_STATE st;

	u->hold = (hold_confirmation_fn)dc_provider_hook("daplref_test_hold_confirmation");
	cr = request(t, &u->a, 0);
	dc_endpoint(t, &u->b, NULL);
	dc_lmr(t, u->a.pz, 4096, DC_PRIV_LOCAL, &u->ma);
	/* b's memory is also the target of the peer's RDMA Write and Read */
	dc_lmr(t, u->b.pz, 4096, DC_PRIV_LOCAL | DAT_MEM_PRIV_REMOTE_READ_FLAG |
	       DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &u->mb);
	DC_SETUP(post_recv1(u->b.ep, &u->mb, 0, 256, 1));
	DC_SETUP(post_recv1(u->b.ep, &u->mb, 256, 256, 2));
	DC_SETUP(u->hold(u->b.ep, DAT_TRUE));
	DC_SETUP(dat_cr_accept(cr, u->b.ep, 0, NULL));
	dc_await_event(t, u->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	st = ep_state(u->b.ep);
	DC_SETUP_ASSERT(st == DAT_EP_STATE_COMPLETION_PENDING,
			"the hook did not hold the accepting EP in COMPLETION_PENDING: it is %s",
			state_name(st));
}

/*
 * A Send from the Connected peer reaches b before b took the confirmation:
 * it lands in the first Receive, posted before the connection existed
 * (dat_ep_post_recv(3DAT) DESCRIPTION), and b ends Connected with one
 * ESTABLISHED, whenever the provider takes the confirmation (the message
 * itself may confirm, as on InfiniBand).  Or the provider gives the accept
 * up: ACCEPT_COMPLETION_ERROR, DISCONNECTED, both Receives flushed
 * (dat_cr_accept(3DAT) DESCRIPTION: "any other reason").  Never the message
 * lost with the connection up.
 */
DC_CASE(dat_cr_accept, message_before_confirmation,
	.clauses = "dat_ep_post_recv.preposted_used_once_connected dat_cr_accept.accept_completion_error",
	.summary = "a message from the peer reaches the accepting EP in COMPLETION_PENDING: it lands in the Receive posted before",
	.needs = "hook:daplref_test_hold_confirmation")
{
	struct unconfirmed u;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	accept_unconfirmed(t, &u);
	dc_fill(u.ma.buf, 40, 0x3c);
	DC_SETUP(post_send1(u.a.ep, &u.ma, 0, 40, 7));
	d = DC_ASSERT_DTO_EVENT(u.b.recv_evd);
	if (d.status == DAT_DTO_ERR_FLUSHED) {
		dc_note(t, "the provider gave the accept up when the message came");
		DC_ASSERT(d.user_cookie.as_64 == 1,
			  "the first flushed Receive is cookie %llu, expected 1",
			  (unsigned long long)d.user_cookie.as_64);
		DC_ASSERT_CONN_EVENT(u.b.conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, u.b.ep);
		ASSERT_REACHES_STATE(u.b.ep, DAT_EP_STATE_DISCONNECTED, 5000);
		DC_ASSERT_DTO(u.b.recv_evd, 2, DAT_DTO_ERR_FLUSHED);
		return;
	}
	DC_ASSERT_DTO_STATUS(d.status, DAT_DTO_SUCCESS);
	DC_ASSERT(d.user_cookie.as_64 == 1 && d.transfered_length == 40,
		  "the message completed Receive %llu with %llu bytes, expected Receive 1 with 40",
		  (unsigned long long)d.user_cookie.as_64,
		  (unsigned long long)d.transfered_length);
	DC_ASSERT(dc_check_fill(u.mb.buf, 40, 0x3c), "the Receive holds wrong bytes");
	DC_SETUP(u.hold(u.b.ep, DAT_FALSE));
	DC_ASSERT_CONN_EVENT(u.b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, u.b.ep);
	ASSERT_STATE(u.b.ep, DAT_EP_STATE_CONNECTED);
}

/*
 * An RDMA Write or Read from the Connected peer reaches b before b took the
 * confirmation.  b's memory is registered with remote access, so the
 * request is the peer's to make (dat_ep_post_rdma_write(3DAT),
 * dat_ep_post_rdma_read(3DAT) DESCRIPTION): it completes on the peer's
 * request EVD, and a Write places its bytes in b's memory, whenever b takes
 * its confirmation (the request may confirm it, as a message does); or the
 * provider gives the accept up, and the request completes in error.  It is
 * given the suite's wait while b is held, then again once the hold is let
 * go; never left pending with the connection up.
 */
static bool request_completes(struct dc_ctx *t, struct unconfirmed *u, uint64_t cookie,
			      const char *what)
{
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_EVENT ev;

	if (dc_wait_event(t, u->a.req_evd, dc_wait_ms(t), &ev) != DAT_SUCCESS) {
		dc_note(t, "no completion while the accepting EP is held; the hold let go");
		DC_SETUP(u->hold(u->b.ep, DAT_FALSE));
		d = DC_ASSERT_DTO_EVENT(u->a.req_evd);
	} else {
		DC_ASSERT(ev.event_number == DAT_DTO_COMPLETION_EVENT,
			  "the request EVD got %s, expected a DTO completion",
			  dc_event_name(ev.event_number));
		d = ev.event_data.dto_completion_event_data;
	}
	DC_ASSERT(d.user_cookie.as_64 == cookie, "the completion carries cookie %llu, expected %llu",
		  (unsigned long long)d.user_cookie.as_64, (unsigned long long)cookie);
	if (d.status == DAT_DTO_SUCCESS)
		return true;
	dc_note(t, "the %s completed %s: the accept given up", what, dc_dto_status_name(d.status));
	DC_ASSERT_CONN_EVENT(u->b.conn_evd, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, u->b.ep);
	return false;
}

DC_CASE(dat_cr_accept, rdma_write_before_confirmation,
	.clauses = "dat_ep_post_rdma_write.transfers_local_data dat_ep_post_rdma_write.completion_on_request_evd",
	.summary = "an RDMA Write from the peer reaches the accepting EP in COMPLETION_PENDING: it completes and its bytes are placed",
	.needs = "hook:daplref_test_hold_confirmation")
{
	struct unconfirmed u;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET dst;

	accept_unconfirmed(t, &u);
	dc_fill(u.ma.buf, 40, 0x3d);
	iov = dc_iov(&u.ma, 0, 40);
	dst = dc_rmr_triplet(u.mb.rmr_context, (DAT_VADDR)(uintptr_t)(u.mb.buf + 1024), 40);
	DC_SETUP(dat_ep_post_rdma_write(u.a.ep, 1, &iov, dc_cookie(5), &dst,
					DAT_COMPLETION_DEFAULT_FLAG));
	if (request_completes(t, &u, 5, "RDMA Write"))
		DC_ASSERT(dc_check_fill(u.mb.buf + 1024, 40, 0x3d),
			  "the RDMA Write completed but its bytes are not in the target memory");
}

DC_CASE(dat_cr_accept, rdma_read_before_confirmation,
	.clauses = "dat_ep_post_rdma_read.completion_on_request_evd",
	.summary = "an RDMA Read from the peer reaches the accepting EP in COMPLETION_PENDING: it completes with the bytes read",
	.needs = "hook:daplref_test_hold_confirmation")
{
	struct unconfirmed u;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET src;

	accept_unconfirmed(t, &u);
	dc_fill(u.mb.buf + 2048, 40, 0x3e);
	iov = dc_iov(&u.ma, 1024, 40);
	src = dc_rmr_triplet(u.mb.rmr_context, (DAT_VADDR)(uintptr_t)(u.mb.buf + 2048), 40);
	DC_SETUP(dat_ep_post_rdma_read(u.a.ep, 1, &iov, dc_cookie(6), &src,
				       DAT_COMPLETION_DEFAULT_FLAG));
	if (request_completes(t, &u, 6, "RDMA Read"))
		DC_ASSERT(dc_check_fill(u.ma.buf + 1024, 40, 0x3e),
			  "the RDMA Read completed but the local buffer does not hold the bytes read");
}

/*
 * The Connected peer disconnects before b took its confirmation: b cannot
 * complete the accept, so ACCEPT_COMPLETION_ERROR, DISCONNECTED and both
 * Receives flushed (dat_cr_accept(3DAT) DESCRIPTION); a provider that took
 * the confirmation first reports ESTABLISHED and then the end of the
 * connection, the Receives flushed as a disconnect flushes them
 * (dat_ep_disconnect(3DAT) DESCRIPTION).  Never b left waiting.
 */
DC_CASE(dat_cr_accept, peer_gone_before_confirmation,
	.clauses = "dat_cr_accept.accept_completion_error",
	.summary = "the peer disconnects while the accepting EP waits for its confirmation: ACCEPT_COMPLETION_ERROR, DISCONNECTED, Receives flushed",
	.needs = "hook:daplref_test_hold_confirmation")
{
	struct unconfirmed u;
	DAT_EVENT ev;

	accept_unconfirmed(t, &u);
	DC_SETUP(dat_ep_disconnect(u.a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	DC_ASSERT(dc_wait_event(t, u.b.conn_evd, dc_wait_ms(t), &ev) == DAT_SUCCESS,
		  "no connection event on the accepting EP after its peer disconnected");
	if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED) {
		dc_note(t, "the provider took the confirmation before the disconnect");
		DC_ASSERT_CONN_END(u.b.conn_evd);
	} else {
		DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
			  "the accepting EP got %s, expected ACCEPT_COMPLETION_ERROR",
			  dc_event_name(ev.event_number));
	}
	assert_accept_undone(t, &u.b);
}

static void accept_succeeds(struct dc_ctx *t, enum cm_req_kind k, DAT_CR_HANDLE cr,
			    struct dc_endpoint *a, struct dc_endpoint *e)
{
	(void)a;
	(void)e;
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, cm_accept_ep(t, k), 0, NULL));
}

static void accepted_cr_gone(struct dc_ctx *t, enum cm_req_kind k, DAT_CR_HANDLE cr,
			     struct dc_endpoint *a, struct dc_endpoint *e)
{
	DAT_CR_PARAM c;

	(void)a;
	(void)e;
	DC_SETUP(dat_cr_accept(cr, cm_accept_ep(t, k), 0, NULL));
	/* collateral: dat_cr_accept(3DAT) DESCRIPTION: the accepted request is destroyed, so its handle fails */
	DC_ASSERT_INVALID_HANDLE(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c), 1, CR);
}

DC_CASE(dat_cr_accept, cr_destroyed,
	.summary = "a request is accepted, whatever its Service Point",
	.flags = DC_NO_DTOS)
{
	cm_each_request(t, accept_succeeds);
}

/* The dead handle: a case of its own, so that a call that does not
 * survive the handle of a destroyed request (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_cr_accept, cr_destroyed_freed,
	.clauses = "dat_cr_accept.cr_destroyed",
	.summary = "after a successful accept the CR handle is dead, whatever the request's Service Point",
	.flags = DC_NO_DTOS)
{
	cm_each_request(t, accepted_cr_gone);
}

DC_CASE(dat_cr_accept, invalid_cr_handle,
	.summary = "a handle of another type is an invalid handle")
{
	struct dc_endpoint b;

	dc_endpoint(t, &b, NULL);
	DC_ASSERT_INVALID_HANDLE(dat_cr_accept((DAT_CR_HANDLE)dc_pz(t), b.ep, 0, NULL), 1, CR);
	ASSERT_STATE(b.ep, DAT_EP_STATE_UNCONNECTED);
}

/* The same for a rejected CR, which dat_cr_reject(3DAT) DESCRIPTION
 * destroys: a case of its own, so that a call that does not survive the
 * handle of a destroyed object (a registry that dispatches through the
 * handle) leaves the checks above judged. */
DC_CASE(dat_cr_accept, invalid_cr_handle_freed,
	.clauses = "dat_cr_accept.invalid_cr_handle",
	.summary = "a rejected CR is an invalid handle")
{
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr = request(t, &a, 0);

	dc_endpoint(t, &b, NULL);
	DC_SETUP(dc_dat_cr_reject(cr, 0, NULL));
	DC_ASSERT_INVALID_HANDLE(dat_cr_accept(cr, b.ep, 0, NULL), 1, CR);
	ASSERT_STATE(b.ep, DAT_EP_STATE_UNCONNECTED);
}

DC_CASE(dat_cr_accept, invalid_ep_handle,
	.summary = "a handle of another type as ep_handle is an invalid handle")
{
	struct dc_endpoint a;
	DAT_CR_HANDLE cr = request(t, &a, 0);

	DC_ASSERT_INVALID_HANDLE(dat_cr_accept(cr, (DAT_EP_HANDLE)dc_pz(t), 0, NULL), 2, EP);
	still_acceptable(t, cr, &a);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_cr_accept, invalid_ep_handle_freed,
	.clauses = "dat_cr_accept.invalid_ep_handle",
	.summary = "a freed EP as ep_handle is an invalid handle")
{
	struct dc_endpoint a;
	DAT_CR_HANDLE cr = request(t, &a, 0);

	DC_ASSERT_INVALID_HANDLE(dat_cr_accept(cr, dc_freed_ep(t), 0, NULL), 2, EP);
	still_acceptable(t, cr, &a);
}

DC_CASE(dat_cr_accept, private_data_invalid,
	.summary = "negative, oversized or missing private data is an invalid parameter")
{
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr = request(t, &a, 0);
	DAT_COUNT big = t->prov_attr.max_private_data_size + 1;
	char *pd = calloc(1, (size_t)big + 16);

	DC_SETUP_ASSERT(pd, "no memory");
	dc_endpoint(t, &b, NULL);
	DC_ASSERT_RET(dat_cr_accept(cr, b.ep, -1, pd), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_cr_accept(cr, b.ep, big, pd), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_cr_accept(cr, b.ep, 16, NULL), DAT_INVALID_PARAMETER);
	/* the boundary of the NULL rule: one byte already needs a buffer (PARAMETERS) */
	DC_ASSERT_RET(dat_cr_accept(cr, b.ep, 1, NULL), DAT_INVALID_PARAMETER);
	ASSERT_STATE(b.ep, DAT_EP_STATE_UNCONNECTED);
	free(pd);
	still_acceptable(t, cr, &a);
}

DC_CASE(dat_cr_accept, null_private_data_when_zero,
	.summary = "accept with (0, NULL) private data connects")
{
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr = request(t, &a, 0);

	dc_endpoint(t, &b, NULL);
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
}
