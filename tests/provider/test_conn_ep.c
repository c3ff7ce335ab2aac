// SPDX-License-Identifier: MIT
/*
 * EP state machine and per-call rules over loopback: dat_ep_modify's
 * per-parameter/per-state matrix, graceful disconnect and
 * DISCONNECT_PENDING, request limits and completion flags, EVD sharing
 * rules, length errors, barrier fence, dup_connect, cr_handoff, RMR bind
 * ordering and window checks, free during connection setup.
 */
#include "conn_fixture.h"

static DAT_EP_STATE state(DAT_EP_HANDLE ep)
{
	DAT_EP_STATE st = (DAT_EP_STATE)-1;

	CF_OK(dat_ep_get_status(ep, &st, NULL, NULL));
	return st;
}

static void test_modify_matrix(void)
{
	struct cf_side a, b;
	DAT_EP_PARAM p, q;
	DAT_PZ_HANDLE pz2;
	DAT_EVD_HANDLE evd2;
	DAT_LMR_TRIPLET t;
	DAT_RSP_HANDLE rsp;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
	DAT_EVENT ev;

	if (cf_open(&a) || cf_open(&b))
		return;
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	CF_OK(dat_pz_create(a.ia, &pz2));
	CF_OK(dat_evd_create(a.ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
			     &evd2));
	CF_OK(dat_ep_query(a.ep, DAT_EP_FIELD_ALL, &p));
	/* read-only fields and bad masks */
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_EP_STATE, &p),
	      DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_IA_HANDLE, &p),
	      DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_SRQ_HANDLE, &p),
	      DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_modify(a.ep, 0x800, &p), DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_PZ_HANDLE, NULL),
	      DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_query(a.ep, UINT64_C(1) << 40, &q),
	      DAT_INVALID_PARAMETER);
	/* UNCONNECTED: everything modifiable */
	p.pz_handle = pz2;
	p.recv_evd_handle = evd2;
	p.ep_attr.max_recv_dtos = 7;
	p.ep_attr.max_message_size = 1000;
	CF_OK(dat_ep_modify(a.ep, DAT_EP_FIELD_PZ_HANDLE |
			    DAT_EP_FIELD_RECV_EVD_HANDLE |
			    DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS |
			    DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, &p));
	CF_OK(dat_ep_query(a.ep, DAT_EP_FIELD_ALL, &q));
	CF_CHECK(q.pz_handle == pz2 && q.recv_evd_handle == evd2 &&
		 q.ep_attr.max_recv_dtos == 7 &&
		 q.ep_attr.max_message_size == 1000);
	CF_RC(dat_pz_free(pz2), DAT_INVALID_STATE);	/* in use by the EP */
	/* all-or-nothing: a bad value leaves the good one untouched */
	p.ep_attr.max_recv_dtos = 9;
	p.ep_attr.service_type = (DAT_SERVICE_TYPE)5;
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS |
			    DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, &p),
	      DAT_INVALID_PARAMETER);
	CF_OK(dat_ep_query(a.ep, DAT_EP_FIELD_ALL, &q));
	CF_CHECK(q.ep_attr.max_recv_dtos == 7 &&
		 q.ep_attr.service_type == DAT_SERVICE_TYPE_RC);
	/* back to the fixture's PZ and EVD */
	p.pz_handle = a.pz;
	p.recv_evd_handle = a.recv;
	p.ep_attr.max_message_size = 65536;
	p.ep_attr.max_recv_dtos = 64;
	p.ep_attr.service_type = DAT_SERVICE_TYPE_RC;
	CF_OK(dat_ep_modify(a.ep, DAT_EP_FIELD_PZ_HANDLE |
			    DAT_EP_FIELD_RECV_EVD_HANDLE |
			    DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE |
			    DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &p));
	CF_OK(dat_pz_free(pz2));
	/* receive flags cannot change once a receive is posted */
	t = cf_seg(&a, 0, 16);
	CF_OK(dat_ep_post_recv(a.ep, 1, &t, cf_cookie(1), 0));
	p.ep_attr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
			    &p), DAT_INVALID_STATE);
	p.ep_attr.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;

	/* RESERVED: EVDs and attributes yes, PZ no */
	CF_OK(dat_psp_create_any(b.ia, &qual, b.cr, 0, &psp));
	CF_OK(dat_psp_free(psp));
	CF_OK(dat_rsp_create(b.ia, qual, b.ep, b.cr, &rsp));
	CF_OK(dat_ep_query(b.ep, DAT_EP_FIELD_ALL, &q));
	CF_OK(dat_ep_modify(b.ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE |
			    DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, &q));
	CF_RC(dat_ep_modify(b.ep, DAT_EP_FIELD_PZ_HANDLE, &q),
	      DAT_INVALID_STATE);
	CF_RC(dat_ep_modify(b.ep, DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR, &q),
	      DAT_INVALID_STATE);
	/* ACTIVE_CONNECTION_PENDING and PASSIVE_CONNECTION_PENDING */
	CF_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, 0, NULL, 0, 0));
	CF_CHECK(state(a.ep) == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	CF_OK(dat_ep_query(a.ep, DAT_EP_FIELD_ALL, &q));
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE, &q),
	      DAT_INVALID_STATE);
	CF_CHECK(cf_wait(b.cr, &ev) == DAT_CONNECTION_REQUEST_EVENT);
	CF_CHECK(state(b.ep) == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
	CF_OK(dat_ep_query(b.ep, DAT_EP_FIELD_ALL, &q));
	CF_OK(dat_ep_modify(b.ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &q));
	CF_RC(dat_ep_modify(b.ep, DAT_EP_FIELD_PZ_HANDLE, &q),
	      DAT_INVALID_STATE);
	CF_RC(dat_ep_post_send(b.ep, 0, NULL, cf_cookie(0), 0),
	      DAT_INVALID_STATE);
	CF_RC(dat_ep_disconnect(b.ep, DAT_CLOSE_ABRUPT_FLAG),
	      DAT_INVALID_STATE);
	CF_RC(dat_ep_reset(b.ep), DAT_INVALID_STATE);
	CF_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			    DAT_HANDLE_NULL, 0, NULL));
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_ESTABLISHED);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_ESTABLISHED);
	/* CONNECTED: nothing */
	CF_OK(dat_ep_query(a.ep, DAT_EP_FIELD_ALL, &q));
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_EP_ATTR_QOS, &q),
	      DAT_INVALID_STATE);
	CF_RC(dat_ep_modify(a.ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &q),
	      DAT_INVALID_STATE);
	CF_RC(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, 0, NULL, 0, 0), DAT_INVALID_STATE);
	CF_RC(dat_ep_reset(a.ep), DAT_INVALID_STATE);
	CF_RC(dat_ep_disconnect(a.ep, 0x2), DAT_INVALID_PARAMETER);
	cf_close(&a);
	cf_close(&b);
}

static void test_graceful_and_requests(void)
{
	struct cf_side a, b;
	DAT_LMR_TRIPLET t;
	DAT_EVENT ev;
	DAT_BOOLEAN ri, qi;
	uint64_t ck;
	DAT_VLEN len;
	DAT_EP_ATTR attr;
	DAT_EP_HANDLE ep2;
	DAT_RETURN rc;

	if (cf_open(&a) || cf_open(&b))
		return;
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	if (cf_connect(&a, &b))
		goto out;
	t = cf_seg(&a, 0, 32);
	/* flags */
	CF_RC(dat_ep_post_send(a.ep, 1, &t, cf_cookie(1),
			       DAT_COMPLETION_UNSIGNALLED_FLAG),
	      DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_post_send(a.ep, 1, &t, cf_cookie(1), 0x80),
	      DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_post_send(a.ep, 5, &t, cf_cookie(1), 0),
	      DAT_INVALID_PARAMETER);
	{
		DAT_LMR_TRIPLET big[2] = { cf_seg(&a, 0, 40000),
					   cf_seg(&a, 0, 40000) };

		CF_RC(dat_ep_post_send(a.ep, 2, big, cf_cookie(1), 0),
		      DAT_LENGTH_ERROR);
	}
	/* a Send waits (no receive at b): graceful -> DISCONNECT_PENDING */
	CF_OK(dat_ep_post_send(a.ep, 1, &t, cf_cookie(2),
			       DAT_COMPLETION_SUPPRESS_FLAG));
	CF_OK(dat_ep_post_send(a.ep, 1, &t, cf_cookie(3), 0));
	CF_OK(dat_ep_get_status(a.ep, NULL, &ri, &qi));
	CF_CHECK(qi == DAT_FALSE);
	CF_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	CF_CHECK(state(a.ep) == DAT_EP_STATE_DISCONNECT_PENDING);
	CF_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG));	/* no-op */
	CF_CHECK(state(a.ep) == DAT_EP_STATE_DISCONNECT_PENDING);
	CF_RC(dat_ep_post_send(a.ep, 1, &t, cf_cookie(4), 0),
	      DAT_INVALID_STATE);
	CF_CHECK(cf_empty(a.conn));
	/* b posts receives: both Sends land, then the disconnect */
	t = cf_seg(&b, 0, 64);
	CF_OK(dat_ep_post_recv(b.ep, 1, &t, cf_cookie(20), 0));
	CF_OK(dat_ep_post_recv(b.ep, 1, &t, cf_cookie(21), 0));
	CF_CHECK(cf_dto(b.recv, &ck, &len) == DAT_DTO_SUCCESS && ck == 20 &&
		 len == 32);
	CF_CHECK(cf_dto(b.recv, &ck, NULL) == DAT_DTO_SUCCESS && ck == 21);
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_SUCCESS && ck == 3);
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_CHECK(state(a.ep) == DAT_EP_STATE_DISCONNECTED);

	/* abrupt in DISCONNECT_PENDING flushes */
	CF_OK(dat_ep_reset(a.ep));
	CF_OK(dat_ep_reset(b.ep));
	if (cf_connect(&a, &b))
		goto out;
	t = cf_seg(&a, 0, 32);
	CF_OK(dat_ep_post_send(a.ep, 1, &t, cf_cookie(5), 0));
	CF_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	CF_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_ERR_FLUSHED && ck == 5);
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);

	/* request queue limit */
	CF_OK(dat_ep_reset(a.ep));
	CF_OK(dat_ep_reset(b.ep));
	if (cf_connect(&a, &b))
		goto out;
	{
		DAT_EP_PARAM p;
		int i;

		CF_OK(dat_ep_query(a.ep, DAT_EP_FIELD_ALL, &p));
		for (i = 0; i < p.ep_attr.max_request_dtos; i++)
			CF_OK(dat_ep_post_send(a.ep, 1, &t, cf_cookie(100 + i),
					       0));
		CF_RC(dat_ep_post_send(a.ep, 1, &t, cf_cookie(0), 0),
		      DAT_INSUFFICIENT_RESOURCES);
		/* message longer than the receive: LOCAL_LENGTH, broken */
		t = cf_seg(&b, 0, 16);
		CF_OK(dat_ep_post_recv(b.ep, 1, &t, cf_cookie(30), 0));
		CF_CHECK(cf_dto(b.recv, &ck, NULL) == DAT_DTO_ERR_LOCAL_LENGTH &&
			 ck == 30);
		CF_CHECK(cf_dto(a.req, &ck, NULL) ==
			 DAT_DTO_ERR_REMOTE_RESPONDER && ck == 100);
		for (i = 1; i < p.ep_attr.max_request_dtos; i++)
			CF_CHECK(cf_dto(a.req, &ck, NULL) ==
				 DAT_DTO_ERR_FLUSHED && ck == 100u + i);
		CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_BROKEN);
		CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_BROKEN);
	}

	/* EVD sharing: an unsignalled request stream owns its EVD */
	{
		DAT_EVD_HANDLE evdu;
		DAT_EP_HANDLE ep3;

		CF_OK(dat_evd_create(a.ia, 16, DAT_HANDLE_NULL,
				     DAT_EVD_DTO_FLAG, &evdu));
		cf_ep_attr_default(&attr);
		attr.request_completion_flags =
			DAT_COMPLETION_UNSIGNALLED_FLAG;
		CF_OK(dat_ep_create(a.ia, a.pz, a.recv, evdu, a.conn, &attr,
				    &ep2));
		rc = dat_ep_create(a.ia, a.pz, a.recv, evdu, a.conn, NULL,
				   &ep3);
		CF_CHECK(DAT_GET_TYPE(rc) == DAT_INVALID_PARAMETER);
		/* an EVD fed by connection events: no unsignalled stream */
		rc = dat_ep_create(a.ia, a.pz, a.recv, a.conn, a.conn, &attr,
				   &ep3);
		CF_CHECK(DAT_GET_TYPE(rc) == DAT_INVALID_HANDLE ||
			 DAT_GET_TYPE(rc) == DAT_INVALID_PARAMETER);
	}
out:
	cf_close(&a);
	cf_close(&b);
}

static void test_fence_dup_handoff_bind(void)
{
	struct cf_side a, b;
	DAT_LMR_TRIPLET t;
	DAT_RMR_TRIPLET r;
	DAT_EVENT ev;
	uint64_t ck;
	DAT_EP_HANDLE dup;
	DAT_PSP_HANDLE psp, psp2;
	DAT_CONN_QUAL qual, qual2;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT rctx;
	DAT_RMR_COOKIE rck;

	if (cf_open(&a) || cf_open(&b))
		return;
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	if (cf_connect(&a, &b))
		goto out;
	/* RDMA Read into a.buf[0..64) then a fenced Send of those bytes */
	memset(b.buf + 8192, 'R', 64);
	t = cf_seg(&a, 0, 64);
	r.rmr_context = b.rctx;
	r.pad = 0;
	r.target_address = (DAT_VADDR)(uintptr_t)(b.buf + 8192);
	r.segment_length = 64;
	CF_OK(dat_ep_post_rdma_read(a.ep, 1, &t, cf_cookie(1), &r, 0));
	{
		DAT_LMR_TRIPLET rr = cf_seg(&b, 0, 64);

		CF_OK(dat_ep_post_recv(b.ep, 1, &rr, cf_cookie(9), 0));
	}
	CF_OK(dat_ep_post_send(a.ep, 1, &t, cf_cookie(2),
			       DAT_COMPLETION_BARRIER_FENCE_FLAG));
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_SUCCESS && ck == 1);
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_SUCCESS && ck == 2);
	CF_CHECK(cf_dto(b.recv, &ck, NULL) == DAT_DTO_SUCCESS && ck == 9);
	CF_CHECK(b.buf[0] == 'R' && b.buf[63] == 'R');

	/* RMR bind on the connected EP: completion on the request EVD,
	 * the peer writes inside the window, one byte past it fails */
	CF_OK(dat_rmr_create(b.pz, &rmr));
	t = cf_seg(&b, 16384, 256);
	rck.as_64 = 77;
	CF_OK(dat_rmr_bind(rmr, &t, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep, rck,
			   0, &rctx));
	CF_CHECK(cf_wait(b.req, &ev) == DAT_RMR_BIND_COMPLETION_EVENT &&
		 ev.event_data.rmr_completion_event_data.user_cookie.as_64 ==
		 77);
	memset(a.buf, 'W', 256);
	t = cf_seg(&a, 0, 256);
	r.rmr_context = rctx;
	r.target_address = (DAT_VADDR)(uintptr_t)(b.buf + 16384);
	r.segment_length = 256;
	CF_OK(dat_ep_post_rdma_write(a.ep, 1, &t, cf_cookie(3), &r, 0));
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_SUCCESS && ck == 3);
	CF_CHECK(b.buf[16384] == 'W' && b.buf[16384 + 255] == 'W');

	/* dup_connect to the same PSP, then handoff to a second PSP */
	CF_OK(dat_psp_create_any(b.ia, &qual, b.cr, 0, &psp));
	CF_OK(dat_psp_create_any(b.ia, &qual2, b.cr, 0, &psp2));
	CF_OK(dat_ep_create(a.ia, a.pz, a.recv, a.req, a.conn, NULL, &dup));
	/* a.ep connected to a PSP freed by cf_connect: dup goes there and
	 * is refused as non-peer; use a fresh pair to the live PSP */
	CF_OK(dat_ep_dup_connect(dup, a.ep, CF_WAIT, 0, NULL, 0));
	CF_CHECK(cf_wait(a.conn, &ev) ==
		 DAT_CONNECTION_EVENT_NON_PEER_REJECTED &&
		 ev.event_data.connect_event_data.ep_handle == dup);
	CF_OK(dat_ep_free(dup));
	CF_RC(dat_ep_dup_connect(a.ep, a.ep, CF_WAIT, 0, NULL, 0),
	      DAT_INVALID_STATE);
	{
		struct cf_side c;
		DAT_EP_HANDLE e1;
		DAT_CR_PARAM crp;

		if (cf_open(&c) == 0) {
			CF_OK(dat_ep_create(c.ia, c.pz, c.recv, c.req, c.conn,
					    NULL, &e1));
			CF_OK(dat_ep_connect(e1, (DAT_IA_ADDRESS_PTR)&b.ia_addr,
					     qual, CF_WAIT, 3, "abc", 0, 0));
			CF_CHECK(cf_wait(b.cr, &ev) ==
				 DAT_CONNECTION_REQUEST_EVENT);
			CF_RC(dat_cr_handoff(ev.event_data.cr_arrival_event_data
					     .cr_handle, 1), DAT_INVALID_PARAMETER);
			CF_OK(dat_cr_handoff(ev.event_data.cr_arrival_event_data
					     .cr_handle, qual2));
			CF_CHECK(cf_wait(b.cr, &ev) ==
				 DAT_CONNECTION_REQUEST_EVENT &&
				 ev.event_data.cr_arrival_event_data.conn_qual ==
				 qual2 &&
				 ev.event_data.cr_arrival_event_data.sp_handle
				 .psp_handle == psp2);
			CF_OK(dat_cr_query(ev.event_data.cr_arrival_event_data
					   .cr_handle, DAT_CR_FIELD_ALL, &crp));
			CF_CHECK(crp.private_data_size == 3 &&
				 memcmp(crp.private_data, "abc", 3) == 0);
			CF_OK(dat_cr_reject(ev.event_data.cr_arrival_event_data
					    .cr_handle));
			CF_CHECK(cf_wait(c.conn, &ev) ==
				 DAT_CONNECTION_EVENT_PEER_REJECTED);
			/* free while ACTIVE_CONNECTION_PENDING (the request
			 * is pending at b): b's accept fails */
			CF_OK(dat_ep_reset(e1));
			CF_OK(dat_ep_connect(e1, (DAT_IA_ADDRESS_PTR)&b.ia_addr,
					     qual, CF_WAIT, 0, NULL, 0, 0));
			CF_CHECK(cf_wait(b.cr, &ev) ==
				 DAT_CONNECTION_REQUEST_EVENT);
			CF_OK(dat_ep_free(e1));
			{
				DAT_EP_HANDLE e2;

				CF_OK(dat_ep_create(b.ia, b.pz, b.recv, b.req,
						    b.conn, NULL, &e2));
				CF_OK(dat_cr_accept(ev.event_data
						    .cr_arrival_event_data
						    .cr_handle, e2, 0, NULL));
				CF_CHECK(cf_wait(b.conn, &ev) ==
					 DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
				CF_OK(dat_ep_free(e2));
			}
			cf_close(&c);
		}
	}
	CF_OK(dat_psp_free(psp));
	CF_OK(dat_psp_free(psp2));
out:
	cf_close(&a);
	cf_close(&b);
}

int main(void)
{
	test_modify_matrix();
	test_graceful_and_requests();
	test_fence_dup_handoff_bind();
	return cf_done("test_conn_ep");
}
