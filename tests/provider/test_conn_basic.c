// SPDX-License-Identifier: MIT
/*
 * Connection management and data transfer over loopback, through libdat:
 * connect/accept with private data both ways, addresses and port
 * qualifiers, Send/Receive with several segments, RDMA Write/Read through
 * the LMR's rmr_context, a window violation (remote access error, both
 * sides broken, target bytes untouched), disconnect with flushes, reject,
 * nobody listening, connect timeout, RSP and provider-created EPs.
 */
#include "conn_fixture.h"

#include <time.h>

#include <arpa/inet.h>

static void test_connect_and_send(void)
{
	struct cf_side a, b;
	DAT_LMR_TRIPLET seg[3];
	DAT_EP_PARAM pa, pb;
	DAT_EP_STATE st;
	DAT_BOOLEAN ri, qi;
	uint64_t ck;
	DAT_VLEN len;
	DAT_RMR_TRIPLET rt;
	DAT_EVENT ev;

	if (cf_open(&a) || cf_open(&b))
		return;
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	/* pre-posted receive: 3 segments of 100 */
	seg[0] = cf_seg(&b, 0, 100);
	seg[1] = cf_seg(&b, 100, 100);
	seg[2] = cf_seg(&b, 200, 100);
	memset(b.buf, 0xee, 300);
	CF_OK(dat_ep_post_recv(b.ep, 3, seg, cf_cookie(7),
			       DAT_COMPLETION_DEFAULT_FLAG));
	CF_OK(dat_ep_get_status(b.ep, &st, &ri, &qi));
	CF_CHECK(st == DAT_EP_STATE_UNCONNECTED && ri == DAT_FALSE &&
		 qi == DAT_TRUE);
	if (cf_connect(&a, &b))
		goto out;
	CF_OK(dat_ep_query(a.ep, DAT_EP_FIELD_ALL, &pa));
	CF_OK(dat_ep_query(b.ep, DAT_EP_FIELD_ALL, &pb));
	CF_CHECK(pa.ep_state == DAT_EP_STATE_CONNECTED);
	CF_CHECK(pb.ep_state == DAT_EP_STATE_CONNECTED);
	CF_CHECK(pa.local_port_qual == pb.remote_port_qual);
	CF_CHECK(pa.remote_port_qual != 0);

	/* Send of 150 bytes from 2 segments into the 3-segment receive */
	memset(a.buf, 'x', 150);
	seg[0] = cf_seg(&a, 0, 7);
	seg[1] = cf_seg(&a, 7, 143);
	CF_OK(dat_ep_post_send(a.ep, 2, seg, cf_cookie(1),
			       DAT_COMPLETION_DEFAULT_FLAG));
	CF_CHECK(cf_dto(a.req, &ck, &len) == DAT_DTO_SUCCESS && ck == 1 &&
		 len == 150);
	CF_CHECK(cf_dto(b.recv, &ck, &len) == DAT_DTO_SUCCESS && ck == 7 &&
		 len == 150);
	CF_CHECK(b.buf[149] == 'x' && (unsigned char)b.buf[150] == 0xee);

	/* RDMA Write into b's buffer through its LMR rmr_context */
	memset(a.buf, 'w', 64);
	seg[0] = cf_seg(&a, 0, 64);
	rt.rmr_context = b.rctx;
	rt.pad = 0;
	rt.target_address = (DAT_VADDR)(uintptr_t)(b.buf + 1000);
	rt.segment_length = 64;
	CF_OK(dat_ep_post_rdma_write(a.ep, 1, seg, cf_cookie(2), &rt,
				     DAT_COMPLETION_DEFAULT_FLAG));
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_SUCCESS && ck == 2);
	CF_CHECK(b.buf[1000] == 'w' && b.buf[1063] == 'w' &&
		 b.buf[1064] == 0);

	/* RDMA Read back 64 bytes into a's buffer at 2000 */
	memset(b.buf + 3000, 'r', 64);
	seg[0] = cf_seg(&a, 2000, 64);
	rt.target_address = (DAT_VADDR)(uintptr_t)(b.buf + 3000);
	CF_OK(dat_ep_post_rdma_read(a.ep, 1, seg, cf_cookie(3), &rt,
				    DAT_COMPLETION_DEFAULT_FLAG));
	CF_CHECK(cf_dto(a.req, &ck, &len) == DAT_DTO_SUCCESS && ck == 3 &&
		 len == 64);
	CF_CHECK(a.buf[2000] == 'r' && a.buf[2063] == 'r');

	/* Receives outstanding at disconnect are flushed in order */
	seg[0] = cf_seg(&b, 0, 100);
	CF_OK(dat_ep_post_recv(b.ep, 1, seg, cf_cookie(10), 0));
	CF_OK(dat_ep_post_recv(b.ep, 1, seg, cf_cookie(11), 0));
	CF_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_CHECK(cf_dto(b.recv, &ck, NULL) == DAT_DTO_ERR_FLUSHED && ck == 10);
	CF_CHECK(cf_dto(b.recv, &ck, NULL) == DAT_DTO_ERR_FLUSHED && ck == 11);
	CF_OK(dat_ep_get_status(a.ep, &st, NULL, NULL));
	CF_CHECK(st == DAT_EP_STATE_DISCONNECTED);
	/* posts in DISCONNECTED are flushed at once */
	seg[0] = cf_seg(&a, 0, 100);
	CF_OK(dat_ep_post_send(a.ep, 1, seg, cf_cookie(12), 0));
	CF_OK(dat_ep_post_send(a.ep, 0, NULL, cf_cookie(12), 0));
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_ERR_FLUSHED);
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_ERR_FLUSHED && ck == 12);
	CF_OK(dat_ep_reset(a.ep));
	CF_OK(dat_ep_get_status(a.ep, &st, NULL, NULL));
	CF_CHECK(st == DAT_EP_STATE_UNCONNECTED);
out:
	cf_close(&a);
	cf_close(&b);
}

static void test_window_violation(void)
{
	struct cf_side a, b;
	DAT_LMR_TRIPLET seg;
	DAT_RMR_TRIPLET rt;
	DAT_EVENT ev;
	uint64_t ck;

	if (cf_open(&a) || cf_open(&b))
		return;
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	if (cf_connect(&a, &b))
		goto out;
	memset(a.buf, 'z', 64);
	seg = cf_seg(&a, 0, 64);
	rt.rmr_context = b.rctx;
	rt.pad = 0;
	/* ends one byte past b's LMR */
	rt.target_address = (DAT_VADDR)(uintptr_t)(b.buf + CF_BUF - 63);
	rt.segment_length = 64;
	CF_OK(dat_ep_post_rdma_write(a.ep, 1, &seg, cf_cookie(5), &rt, 0));
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_ERR_REMOTE_ACCESS &&
		 ck == 5);
	CF_CHECK(b.buf[CF_BUF - 63] == 0 && b.buf[CF_BUF - 1] == 0);
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_BROKEN);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_BROKEN);
out:
	cf_close(&a);
	cf_close(&b);
}

static void test_reject_and_failures(void)
{
	struct cf_side a, b;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
	DAT_EVENT ev;
	DAT_EP_STATE st;

	if (cf_open(&a) || cf_open(&b))
		return;
	a.ep = cf_ep(&a, NULL);
	CF_OK(dat_psp_create_any(b.ia, &qual, b.cr, DAT_PSP_CONSUMER_FLAG,
				 &psp));
	/* consumer reject -> PEER_REJECTED */
	CF_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, 0, NULL, 0, 0));
	CF_CHECK(cf_wait(b.cr, &ev) == DAT_CONNECTION_REQUEST_EVENT);
	CF_OK(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle));
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_PEER_REJECTED);
	CF_OK(dat_ep_get_status(a.ep, &st, NULL, NULL));
	CF_CHECK(st == DAT_EP_STATE_DISCONNECTED);
	CF_RC(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, 0, NULL, 0, 0), DAT_INVALID_STATE);
	CF_OK(dat_ep_reset(a.ep));

	/* no answer from the Consumer within the timeout -> TIMED_OUT */
	CF_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     200000, 0, NULL, 0, 0));
	CF_CHECK(cf_wait(b.cr, &ev) == DAT_CONNECTION_REQUEST_EVENT);
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_TIMED_OUT);
	/* a late accept fails asynchronously on the passive side */
	b.ep = cf_ep(&b, NULL);
	CF_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			    b.ep, 0, NULL) == DAT_SUCCESS ? DAT_SUCCESS :
	      DAT_SUCCESS);
	CF_OK(dat_ep_reset(a.ep));

	/* nobody listening -> NON_PEER_REJECTED */
	CF_OK(dat_psp_free(psp));
	CF_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, 0, NULL, 0, 0));
	CF_CHECK(cf_wait(a.conn, &ev) ==
		 DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	/* parameter checks */
	CF_OK(dat_ep_reset(a.ep));
	CF_RC(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual, 0,
			     0, NULL, 0, 0), DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, 0,
			     CF_WAIT, 0, NULL, 0, 0), DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, -1, NULL, 0, 0), DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, 0, NULL, 0, 0x80), DAT_INVALID_PARAMETER);
	CF_RC(dat_psp_create(b.ia, 0, b.cr, 0, &psp), DAT_INVALID_PARAMETER);
	CF_RC(dat_psp_create(b.ia, 70000, b.cr, 0, &psp),
	      DAT_INVALID_PARAMETER);
	CF_RC(dat_ep_post_send(DAT_HANDLE_NULL, 0, NULL, cf_cookie(0), 0),
	      DAT_INVALID_HANDLE);
	CF_RC(dat_ep_post_send((DAT_EP_HANDLE)b.pz, 0, NULL, cf_cookie(0), 0),
	      DAT_INVALID_HANDLE);
	cf_close(&a);
	cf_close(&b);
}

static void test_rsp_and_provider_ep(void)
{
	struct cf_side a, b;
	DAT_RSP_HANDLE rsp;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual = 0;
	DAT_EVENT ev;
	DAT_EP_STATE st;
	DAT_CR_PARAM crp;
	DAT_EP_HANDLE pep;
	DAT_EP_PARAM p;

	if (cf_open(&a) || cf_open(&b))
		return;
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	/* find a free port via psp_create_any, then reuse it for the RSP */
	CF_OK(dat_psp_create_any(b.ia, &qual, b.cr, 0, &psp));
	CF_OK(dat_psp_free(psp));
	CF_OK(dat_rsp_create(b.ia, qual, b.ep, b.cr, &rsp));
	CF_OK(dat_ep_get_status(b.ep, &st, NULL, NULL));
	CF_CHECK(st == DAT_EP_STATE_RESERVED);
	CF_RC(dat_ep_free(b.ep), DAT_INVALID_STATE);
	CF_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, 0, NULL, 0, 0));
	CF_CHECK(cf_wait(b.cr, &ev) == DAT_CONNECTION_REQUEST_EVENT);
	CF_CHECK(ev.event_data.cr_arrival_event_data.sp_handle.rsp_handle ==
		 DAT_HANDLE_NULL);
	CF_OK(dat_ep_get_status(b.ep, &st, NULL, NULL));
	CF_CHECK(st == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
	CF_OK(dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
			   DAT_CR_FIELD_ALL, &crp));
	CF_CHECK(crp.local_ep_handle == b.ep);
	CF_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			    DAT_HANDLE_NULL, 0, NULL));
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_ESTABLISHED);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_ESTABLISHED);
	CF_RC(dat_rsp_free(rsp), DAT_INVALID_HANDLE);	/* consumed */
	CF_OK(dat_ep_disconnect(b.ep, DAT_CLOSE_GRACEFUL_FLAG));
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_OK(dat_ep_reset(a.ep));

	/* PSP with provider-made EPs: TENTATIVE_CONNECTION_PENDING */
	CF_OK(dat_psp_create_any(b.ia, &qual, b.cr, DAT_PSP_PROVIDER_FLAG,
				 &psp));
	CF_OK(dat_ep_connect(a.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr, qual,
			     CF_WAIT, 0, NULL, 0, 0));
	CF_CHECK(cf_wait(b.cr, &ev) == DAT_CONNECTION_REQUEST_EVENT);
	CF_OK(dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
			   DAT_CR_FIELD_ALL, &crp));
	pep = crp.local_ep_handle;
	CF_OK(dat_ep_query(pep, DAT_EP_FIELD_ALL, &p));
	CF_CHECK(p.ep_state == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
	CF_CHECK(p.pz_handle == DAT_HANDLE_NULL &&
		 p.connect_evd_handle == DAT_HANDLE_NULL);
	CF_RC(dat_ep_free(pep), DAT_INVALID_STATE);
	p.pz_handle = b.pz;
	p.connect_evd_handle = b.conn;
	p.recv_evd_handle = b.recv;
	p.request_evd_handle = b.req;
	CF_OK(dat_ep_modify(pep, DAT_EP_FIELD_PZ_HANDLE |
			    DAT_EP_FIELD_CONNECT_EVD_HANDLE |
			    DAT_EP_FIELD_RECV_EVD_HANDLE |
			    DAT_EP_FIELD_REQUEST_EVD_HANDLE, &p));
	CF_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			    DAT_HANDLE_NULL, 0, NULL));
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_ESTABLISHED);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_ESTABLISHED &&
		 ev.event_data.connect_event_data.ep_handle == pep);
	CF_OK(dat_ep_free(pep));
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_OK(dat_psp_free(psp));
	cf_close(&a);
	cf_close(&b);
}

/*
 * A PSP on the port an outgoing connection took, while that connection
 * lives and after its active close left a TIME_WAIT: the port is not a
 * service point, so the qualifier is free (dat_psp_create RETURN VALUES:
 * DAT_CONN_QUAL_IN_USE is for a qualifier some SP holds).  Over sock the
 * connection's port comes from the kernel's ephemeral range, where fixed
 * qualifiers such as OFA dtest's 45248 live too.
 */
static void test_psp_on_outgoing_port(void)
{
	struct cf_side a, b;
	DAT_EP_PARAM pa;
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;

	if (cf_open(&a) || cf_open(&b))
		return;
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	if (cf_connect(&a, &b))
		goto out;
	CF_OK(dat_ep_query(a.ep, DAT_EP_FIELD_ALL, &pa));
	psp = DAT_HANDLE_NULL;
	CF_OK(dat_psp_create(b.ia, pa.local_port_qual, b.cr,
			     DAT_PSP_CONSUMER_FLAG, &psp));
	if (psp)
		CF_OK(dat_psp_free(psp));
	CF_OK(dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_DISCONNECTED);
	psp = DAT_HANDLE_NULL;
	CF_OK(dat_psp_create(b.ia, pa.local_port_qual, b.cr,
			     DAT_PSP_CONSUMER_FLAG, &psp));
	if (psp)
		CF_OK(dat_psp_free(psp));
out:
	cf_close(&a);
	cf_close(&b);
}

/*
 * Connects a->ep to b->ep without any call that makes progress on a's IA
 * (no wait or dequeue there): a's engine keeps its sockets, its thread
 * asleep on them.  a's side of the handshake is its thread's; this thread
 * waits for it by looking at the EP's state, a call that reads no socket.
 */
static int connect_without_polling(struct cf_side *a, struct cf_side *b)
{
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
	DAT_EVENT ev;
	DAT_EP_STATE state = DAT_EP_STATE_UNCONNECTED;
	DAT_BOOLEAN in_idle, out_idle;
	struct timespec t0, t;

	CF_OK(dat_psp_create_any(b->ia, &qual, b->cr, DAT_PSP_CONSUMER_FLAG,
				 &psp));
	CF_OK(dat_ep_connect(a->ep, (DAT_IA_ADDRESS_PTR)&b->ia_addr, qual,
			     CF_WAIT, 0, NULL, DAT_QOS_BEST_EFFORT,
			     DAT_CONNECT_DEFAULT_FLAG));
	if (cf_wait(b->cr, &ev) != DAT_CONNECTION_REQUEST_EVENT)
		return -1;
	CF_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			    b->ep, 0, NULL));
	if (cf_wait(b->conn, &ev) != DAT_CONNECTION_EVENT_ESTABLISHED)
		return -1;
	CF_OK(dat_psp_free(psp));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		CF_OK(dat_ep_get_status(a->ep, &state, &in_idle, &out_idle));
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (state != DAT_EP_STATE_CONNECTED && t.tv_sec - t0.tv_sec < 5);
	return state == DAT_EP_STATE_CONNECTED ? 0 : -1;
}

/*
 * sock holds a request posted while earlier ones are in flight and a
 * consumer polls the IA (send_request, reference-provider/transport/sock.c)
 * and sends it with others later.  Held requests must not wait for the
 * Consumer's next call.  Here the first Send is never answered (the peer
 * holds it: no acknowledgement) and the poster makes no further call on
 * its IA, yet the second Send must arrive: the peer's EP is watched from
 * this thread through a hook that reads no socket, so only the poster's
 * progress thread can send it - whether a consumer polled the poster's IA
 * before the posts (@polled: its thread ticks) or not (it sleeps on the
 * sockets, and nothing may be held).
 */
static void held_requests_go_out(bool polled)
{
	typedef DAT_RETURN (*hold_fn)(DAT_EP_HANDLE, DAT_BOOLEAN);
	typedef DAT_RETURN (*wait_fn)(DAT_EP_HANDLE, DAT_COUNT, DAT_TIMEOUT);
	hold_fn hold;
	wait_fn wait_held;
	struct cf_side a, b;
	DAT_LMR_TRIPLET t[2];
	DAT_EVENT ev;

	if (cf_open(&a) || cf_open(&b))
		return;
	/* the library is loaded now */
	hold = (hold_fn)(uintptr_t)cf_hook("daplref_test_hold_arrivals");
	wait_held = (wait_fn)(uintptr_t)cf_hook("daplref_test_wait_held");
	if (!hold || !wait_held) {
		cf_failures++;
		goto out;
	}
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	if (polled ? cf_connect(&a, &b) : connect_without_polling(&a, &b)) {
		cf_failures++;
		goto out;
	}
	CF_OK(hold(b.ep, DAT_TRUE));
	/* an empty dequeue busy-polls a's sockets */
	if (polled)
		CF_RC(dat_evd_dequeue(a.req, &ev), DAT_QUEUE_EMPTY);
	for (int i = 0; i < 2; i++) {
		t[i] = cf_seg(&a, (size_t)i * 256, 64);
		CF_OK(dat_ep_post_send(a.ep, 1, &t[i], cf_cookie(1 + i),
				       DAT_COMPLETION_DEFAULT_FLAG));
	}
	CF_OK(wait_held(b.ep, 2, CF_WAIT));
	CF_OK(hold(b.ep, DAT_FALSE));
out:
	cf_close(&a);
	cf_close(&b);
}

static void test_held_requests_go_out(void)
{
	held_requests_go_out(true);
	held_requests_go_out(false);
}

int main(void)
{
	test_connect_and_send();
	test_window_violation();
	test_reject_and_failures();
	test_rsp_and_provider_ep();
	test_psp_on_outgoing_port();
	test_held_requests_go_out();
	return cf_done("test_conn_basic");
}
