/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_connect(3DAT): clauses/dat_ep_connect.toml.
 * Outcomes that depend on what the remote Consumer does (accept, reject,
 * hold) are two-node cases: the passive half plays the remote Consumer.
 */
#include "ep_common.h"

#include <sys/un.h>

static DAT_RETURN connect_to(struct dc_ctx *t, DAT_EP_HANDLE ep, DAT_TIMEOUT tmo,
			     DAT_COUNT pn, const void *pd)
{
	return dat_ep_connect(ep, (DAT_IA_ADDRESS_PTR)&t->peer.addr, t->peer.conn_qual, tmo,
			      pn, (DAT_PVOID)pd, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
}

/* Passive half: a PSP, announced; returns the first request's handle. */
static DAT_CR_HANDLE listen_and_take(struct dc_ctx *t, DAT_EVD_HANDLE *cr_evd)
{
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;

	*cr_evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(t->ia, &q, *cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	dc_announce(t, NULL, q);
	return dc_await_cr(t, *cr_evd, NULL);
}

static void acp_state(struct dc_ctx *t, struct subject *s, const void *arg)
{
	(void)arg;
	ASSERT_STATE(s->ep, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
}
static const struct at_opts no_verify = { .no_verify = true };
STATE_CASE_O(dat_ep_connect, active_connection_pending, active_connection_pending,
	     acp_state, NULL, &no_verify, "dat_ep_connect.active_connection_pending",
	     "after a successful connect the EP is in ACTIVE_CONNECTION_PENDING")

DC_TWO_NODE_CASE(dat_ep_connect, port_qual_passed_to_remote,
		 .summary = "the request shows the active EP's local port qualifier");
DC_PASSIVE(dat_ep_connect, port_qual_passed_to_remote)
{
	DAT_EVD_HANDLE cr_evd;
	DAT_CR_HANDLE cr = listen_and_take(t, &cr_evd);
	DAT_CR_PARAM c;

	memset(&c, 0, sizeof(c));
	DC_SETUP(dat_cr_query(cr, DAT_CR_FIELD_REMOTE_PORT_QUAL, &c));
	dc_peer_send(t, "cr", "%llu", (unsigned long long)c.remote_port_qual);
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_connect, port_qual_passed_to_remote)
{
	struct dc_endpoint e;
	char msg[64];
	unsigned long long port = 0;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(connect_to(t, e.ep, dc_case_timeout_us(t), 0, NULL));
	dc_peer_wait(t, "cr", msg, sizeof(msg));
	DC_SETUP_ASSERT(sscanf(msg, "%llu", &port) == 1, "bad message '%s'", msg);
	DC_ASSERT(DC_EP_PARAM(e.ep).local_port_qual == port,
		  "the EP's local_port_qual %llu differs from the request's remote_port_qual %llu",
		  (unsigned long long)DC_EP_PARAM(e.ep).local_port_qual, port);
	dc_peer_send(t, "done", "ok");
}

/* Private data: 1 byte, 16 bytes, then exactly max_private_data_size bytes. */
DC_TWO_NODE_CASE(dat_ep_connect, private_data_delivered,
		 .summary = "the private data of connect reaches the remote request");
DC_PASSIVE(dat_ep_connect, private_data_delivered)
{
	DAT_EVD_HANDLE cr_evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_COUNT sizes[3] = { 1, 16, t->prov_attr.max_private_data_size };

	DC_SETUP(dat_psp_create_any(t->ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	dc_announce(t, NULL, q);
	for (int i = 0; i < 3; i++) {
		DAT_CR_HANDLE cr = dc_await_cr(t, cr_evd, NULL);
		DAT_CR_PARAM c;
		const unsigned char *pd;

		memset(&c, 0, sizeof(c));
		/* collateral: dat_ep_connect(3DAT) DESCRIPTION: the private data reaches the peer inside its request, read by its query */
		DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
		DC_ASSERT(c.private_data_size >= sizes[i],
			  "request %d: private_data_size %d, sent %d", i, (int)c.private_data_size,
			  (int)sizes[i]);
		pd = c.private_data;
		DC_ASSERT(pd, "request %d: private_data is NULL", i);
		for (DAT_COUNT k = 0; k < sizes[i]; k++)
			DC_ASSERT(pd[k] == (unsigned char)(0x40 + i + k * 3),
				  "request %d: private data byte %d differs", i, (int)k);
		DC_SETUP(dc_dat_cr_reject(cr, 0, NULL));
	}
	dc_peer_send(t, "done", "ok");
}
DC_ACTIVE(dat_ep_connect, private_data_delivered)
{
	DAT_COUNT sizes[3] = { 1, 16, t->prov_attr.max_private_data_size };

	for (int i = 0; i < 3; i++) {
		struct dc_endpoint e;
		unsigned char *pd = calloc(1, (size_t)sizes[i] + 1);

		DC_SETUP_ASSERT(pd, "no memory");
		for (DAT_COUNT k = 0; k < sizes[i]; k++)
			pd[k] = (unsigned char)(0x40 + i + k * 3);
		dc_endpoint(t, &e, NULL);
		/* the clause's own call: up to max_private_data_size is taken */
		DC_ASSERT_SUCCESS_UNLESS_SHORT(connect_to(t, e.ep, dc_case_timeout_us(t), sizes[i], pd));
		dc_await_event(t, e.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, NULL);
		free(pd);
	}
	dc_peer_wait(t, "done", NULL, 0);
}

DC_TWO_NODE_CASE(dat_ep_connect, established,
		 .summary = "an accepted request gives ESTABLISHED on the connect EVD and CONNECTED");
DC_PASSIVE(dat_ep_connect, established)
{
	struct dc_endpoint e;

	memset(&e, 0, sizeof(e));
	dc_connect_passive(t, &e, NULL);
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_connect, established)
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(connect_to(t, e.ep, dc_case_timeout_us(t), 0, NULL));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, e.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_CONNECTED);
	dc_peer_send(t, "done", "ok");
}

/* A connect to a PSP on qualifier q of this IA is accepted and established. */
static void established_at(struct dc_ctx *t, DAT_CONN_QUAL q)
{
	struct dc_endpoint a, b;

	dc_note(t, "qualifier %llu", (unsigned long long)q);
	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	b.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create(t->ia, q, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp));
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, q,
					 dc_case_timeout_us(t), 0, NULL, DAT_QOS_BEST_EFFORT,
					 DAT_CONNECT_DEFAULT_FLAG));
	DC_SETUP(dat_cr_accept(dc_await_cr(t, b.cr_evd, NULL), b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
	ASSERT_STATE(a.ep, DAT_EP_STATE_CONNECTED);
	free_endpoint(t, &a);
	free_endpoint(t, &b);
}

/*
 * The qualifiers at both ends of the range the provider publishes
 * (dc_conn_qual_range) are qualifiers like any other.  A PSP the transport
 * will not create there is set-up (UNRESOLVED).
 */
DC_CASE(dat_ep_connect, qualifier_range_ends,
	.summary = "a connect to a PSP on the lowest or highest published qualifier is accepted and established",
	.needs = "suite_attr:datcts.conn_qual_range")
{
	DAT_CONN_QUAL lo, hi;

	dc_conn_qual_range(t, &lo, &hi);
	established_at(t, lo);
	if (hi != lo)
		established_at(t, hi);
}

DC_TWO_NODE_CASE(dat_ep_connect, peer_rejected,
		 .summary = "a rejected request gives PEER_REJECTED and DISCONNECTED");
DC_PASSIVE(dat_ep_connect, peer_rejected)
{
	DAT_EVD_HANDLE cr_evd;
	DAT_CR_HANDLE cr = listen_and_take(t, &cr_evd);

	DC_SETUP(dc_dat_cr_reject(cr, 0, NULL));
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_connect, peer_rejected)
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(connect_to(t, e.ep, dc_case_timeout_us(t), 0, NULL));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, e.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_DISCONNECTED);
	dc_peer_send(t, "done", "ok");
}

DC_TWO_NODE_CASE(dat_ep_connect, non_peer_rejected_no_listener,
		 .summary = "a request to a qualifier nobody listens on is NON_PEER_REJECTED");
DC_PASSIVE(dat_ep_connect, non_peer_rejected_no_listener)
{
	dc_announce(t, NULL, dc_free_conn_qual(t));	/* a qualifier with no Service Point */
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_connect, non_peer_rejected_no_listener)
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(connect_to(t, e.ep, dc_case_timeout_us(t), 0, NULL));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, e.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_DISCONNECTED);
	dc_peer_send(t, "done", "ok");
}

/*
 * The peer process dies (SIGKILL, dc_peer_die) after its Connection Request
 * arrived and before anyone answered it: a transport error, neither a
 * timeout (the connect timeout outlives the case), nor an unreachable host
 * (the request got there), nor the peer Consumer's rejection.
 */
DC_TWO_NODE_CASE(dat_ep_connect, peer_killed_mid_connect,
		 .clauses = "dat_ep_connect.non_peer_rejected_transport_error",
		 .summary = "the peer dies with the request unanswered: NON_PEER_REJECTED and DISCONNECTED");
DC_PASSIVE(dat_ep_connect, peer_killed_mid_connect)
{
	DAT_EVD_HANDLE cr_evd;

	listen_and_take(t, &cr_evd);	/* the request is here, unanswered */
	dc_peer_die(t);
}
DC_ACTIVE(dat_ep_connect, peer_killed_mid_connect)
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(connect_to(t, e.ep, dc_case_timeout_us(t), 0, NULL));
	dc_peer_wait_gone(t);
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, e.ep);
	ASSERT_REACHES_STATE(e.ep, DAT_EP_STATE_DISCONNECTED, 2000);
}

DC_CASE(dat_ep_connect, non_peer_rejected_backlog_full,
	.summary = "a request beyond the PSP's EVD backlog is NON_PEER_REJECTED")
{
	DAT_EVD_HANDLE cr_evd = dc_evd(t, 1, DAT_EVD_CR_FLAG);
	DAT_EVD_PARAM ep;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_COUNT qlen;
	struct dc_endpoint extra;

	DC_SETUP(dat_evd_query(cr_evd, DAT_EVD_FIELD_EVD_QLEN, &ep));
	qlen = ep.evd_qlen;
	DC_SETUP_ASSERT(qlen >= 1 && qlen <= 64, "CR EVD qlen is %d", (int)qlen);
	DC_SETUP(dat_psp_create_any(t->ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	for (DAT_COUNT i = 0; i < qlen; i++) {	/* fill the backlog, dequeue nothing */
		struct dc_endpoint e;

		dc_endpoint(t, &e, NULL);
		DC_SETUP(dat_ep_connect(e.ep, t->ia_attr.ia_address_ptr, q, dc_case_timeout_us(t), 0,
					NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	}
	dc_endpoint(t, &extra, NULL);
	DC_SETUP(dat_ep_connect(extra.ep, t->ia_attr.ia_address_ptr, q, 3000000, 0, NULL,
				DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	DC_ASSERT_CONN_EVENT(extra.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, extra.ep);
	ASSERT_STATE(extra.ep, DAT_EP_STATE_DISCONNECTED);
}

DC_CASE(dat_ep_connect, unreachable,
	.summary = "a request to an address with no host behind it is UNREACHABLE")
{
	struct dc_endpoint e;
	struct sockaddr_in nowhere;
	DAT_RETURN r;

	memset(&nowhere, 0, sizeof(nowhere));
	nowhere.sin_family = AF_INET;
	nowhere.sin_addr.s_addr = htonl(0xC0000201);	/* 192.0.2.1, TEST-NET-1 (RFC 5737) */
	dc_endpoint(t, &e, NULL);
	r = dat_ep_connect(e.ep, (DAT_IA_ADDRESS_PTR)&nowhere, 4791, 500000, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (dc_ret_is(r, DAT_INVALID_ADDRESS, DC_ANY_SUBTYPE)) {
		dc_note(t, "refused synchronously with DAT_INVALID_ADDRESS (allowed by the page)");
		ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
		return;
	}
	DC_ASSERT_SUCCESS(r);
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_UNREACHABLE, e.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_DISCONNECTED);
}

DC_TWO_NODE_CASE(dat_ep_connect, timed_out,
		 .summary = "a request nobody answers within the timeout is TIMED_OUT");
DC_PASSIVE(dat_ep_connect, timed_out)
{
	DAT_EVD_HANDLE cr_evd;

	listen_and_take(t, &cr_evd);	/* ... and never answer */
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_connect, timed_out)
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(connect_to(t, e.ep, dc_unanswered_timeout_us(t), 0, NULL));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_TIMED_OUT, e.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_DISCONNECTED);
	dc_peer_send(t, "done", "ok");
}

DC_CASE(dat_ep_connect, qos_not_supported_local,
	.summary = "a QoS the provider does not support fails synchronously",
	.requires = "dat_qos_supported<15")
{
	DAT_QOS all = DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY | DAT_QOS_ECONOMY |
		      DAT_QOS_PREMIUM;
	DAT_QOS missing = all & ~t->prov_attr.dat_qos_supported;
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_RET(dat_ep_connect(e.ep, t->ia_attr.ia_address_ptr, dc_free_conn_qual(t),
				     dc_case_timeout_us(t), 0, NULL, missing & -missing,
				     DAT_CONNECT_DEFAULT_FLAG),
		      DAT_MODEL_NOT_SUPPORTED);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
}

/*
 * A QoS the peer's provider does not support.  The peer must support less
 * than this side: the passive half narrows its own IA's QoS set
 * (narrow_qos, ep_common.h) and announces the set it then supports; the
 * active half asks for a class it supports and the peer does not.
 */

DC_TWO_NODE_CASE(dat_ep_connect, qos_not_supported_remote,
		 .summary = "a QoS the peer's provider does not support: NON_PEER_REJECTED and DISCONNECTED",
		 .requires = "dat_qos_supported!=0",
		 .needs = "hook:daplref_test_qos_supported");
DC_PASSIVE(dat_ep_connect, qos_not_supported_remote)
{
	DAT_EVD_HANDLE cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	char set[32];

	narrow_qos(t, "dat_ep_connect", set, sizeof(set));
	DC_SETUP(dat_psp_create_any(t->ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	dc_announce_data(t, NULL, q, set);
	dc_peer_wait(t, "done", NULL, 0);
	/* the provider refused the request: its Consumer never saw it */
	DC_ASSERT_NO_EVENT(cr_evd);
}
DC_ACTIVE(dat_ep_connect, qos_not_supported_remote)
{
	DAT_QOS ask = qos_peer_lacks(t);
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_SUCCESS(dat_ep_connect(e.ep, (DAT_IA_ADDRESS_PTR)&t->peer.addr, t->peer.conn_qual,
					 dc_case_timeout_us(t), 0, NULL, ask,
					 DAT_CONNECT_DEFAULT_FLAG));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, e.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_DISCONNECTED);
	dc_peer_send(t, "done", "ok");
}

DC_CASE(dat_ep_connect, invalid_address,
	.summary = "an address of a family the transport cannot use fails cleanly")
{
	struct dc_endpoint e;
	struct sockaddr_un un;
	DAT_RETURN r;
	DAT_EVENT ev;

	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	strcpy(un.sun_path, "/nonexistent/datcts");
	dc_endpoint(t, &e, NULL);
	r = dat_ep_connect(e.ep, (DAT_IA_ADDRESS_PTR)&un, 1, 500000, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (r != DAT_SUCCESS) {
		DC_ASSERT_RET(r, DAT_INVALID_ADDRESS);
		ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
		return;
	}
	DC_ASSERT_SUCCESS(dc_wait_event(t, e.conn_evd, -1, &ev));
	DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_UNREACHABLE ||
		  ev.event_number == DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
		  "connecting to an AF_UNIX address gave %s", dc_event_name(ev.event_number));
	ASSERT_STATE(e.ep, DAT_EP_STATE_DISCONNECTED);
}

/*
 * An IP address of the other family than the IA's own: ::1 for an IPv4 IA,
 * 127.0.0.1 for an IPv6 one.  A provider that cannot convert it to its
 * transport's address may refuse it at once (DESCRIPTION: DAT_INVALID_ADDRESS,
 * synchronously); one that takes it must then end the attempt with a
 * connection event and DISCONNECTED (nothing listens at the qualifier, so
 * no connection can be established): every failure outcome the page names
 * is accepted (NON_PEER_REJECTED, UNREACHABLE, TIMED_OUT, PEER_REJECTED).
 */
DC_CASE(dat_ep_connect, other_family_address,
	.clauses = "dat_ep_connect.invalid_address",
	.summary = "an address of the other IP family than the IA's fails cleanly: refused at once, or a failure event")
{
	const struct sockaddr *own = (const struct sockaddr *)t->ia_attr.ia_address_ptr;
	struct sockaddr_storage ss;
	struct dc_endpoint e;
	DAT_CONN_QUAL q;
	DAT_EP_STATE st;
	DAT_RETURN r;
	DAT_EVENT ev;

	DC_SETUP_ASSERT(own && (own->sa_family == AF_INET || own->sa_family == AF_INET6),
			"the IA's address is of neither IP family");
	memset(&ss, 0, sizeof(ss));
	if (own->sa_family == AF_INET) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	q = dc_free_conn_qual(t);
	dc_endpoint(t, &e, NULL);
	r = dat_ep_connect(e.ep, (DAT_IA_ADDRESS_PTR)&ss, q, 2000000, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (r != DAT_SUCCESS) {
		DC_ASSERT_RET(r, DAT_INVALID_ADDRESS);
		ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
		DC_ASSERT_NO_EVENT(e.conn_evd);
		return;
	}
	dc_note(t, "the address was taken; the attempt must end with an event");
	/* DESCRIPTION: a successful call moves the EP to ACTIVE_CONNECTION_PENDING
	 * (already DISCONNECTED when the failure came at once) */
	st = ep_state(e.ep);
	DC_ASSERT(st == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING || st == DAT_EP_STATE_DISCONNECTED,
		  "after DAT_SUCCESS the EP is %s, neither ACTIVE_CONNECTION_PENDING nor DISCONNECTED",
		  state_name(st));
	DC_ASSERT_SUCCESS(dc_wait_event(t, e.conn_evd, -1, &ev));
	DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_NON_PEER_REJECTED ||
		  ev.event_number == DAT_CONNECTION_EVENT_UNREACHABLE ||
		  ev.event_number == DAT_CONNECTION_EVENT_TIMED_OUT ||
		  ev.event_number == DAT_CONNECTION_EVENT_PEER_REJECTED,
		  "connecting to an address of the other family gave %s",
		  dc_event_name(ev.event_number));
	ASSERT_STATE(e.ep, DAT_EP_STATE_DISCONNECTED);
}

static void refused_connect(struct dc_ctx *t, DAT_TIMEOUT tmo, DAT_COUNT pn, const void *pd,
			    DAT_CONNECT_FLAGS flags)
{
	struct dc_endpoint e;

	DAT_RETURN r;

	dc_endpoint(t, &e, NULL);
	r = dat_ep_connect(e.ep, t->ia_attr.ia_address_ptr, dc_free_conn_qual(t), tmo, pn,
			   (DAT_PVOID)pd, DAT_QOS_BEST_EFFORT, flags);
	DC_CONNECT_SHORT_FOR_REAL(r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_NO_EVENT(e.conn_evd);
}

DC_CASE(dat_ep_connect, timeout_positive,
	.summary = "a zero timeout is an invalid parameter")
{
	refused_connect(t, 0, 0, NULL, DAT_CONNECT_DEFAULT_FLAG);
}

DC_CASE(dat_ep_connect, private_data_size_negative,
	.summary = "a negative private data size is an invalid parameter")
{
	static const char pd[16];

	refused_connect(t, dc_case_timeout_us(t), -1, pd, DAT_CONNECT_DEFAULT_FLAG);
}

DC_CASE(dat_ep_connect, private_data_too_large,
	.summary = "private data beyond max_private_data_size is an invalid parameter")
{
	DAT_COUNT n = t->prov_attr.max_private_data_size + 1;
	char *pd = calloc(1, (size_t)n);

	DC_SETUP_ASSERT(pd && n > 1, "max_private_data_size %d", (int)n - 1);
	refused_connect(t, dc_case_timeout_us(t), n, pd, DAT_CONNECT_DEFAULT_FLAG);
	free(pd);
}

/* size 1, the smallest that needs a buffer: a larger one may also be refused as too large */
DC_CASE(dat_ep_connect, private_data_null_with_size,
	.summary = "a NULL private data pointer with size 1 is an invalid parameter")
{
	refused_connect(t, dc_case_timeout_us(t), 1, NULL, DAT_CONNECT_DEFAULT_FLAG);
}

DC_CASE(dat_ep_connect, null_private_data_when_zero,
	.summary = "size 0 with a NULL pointer connects and the request carries no data")
{
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM c;

	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	b.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(t->ia, &b.conn_qual, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp));
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, b.conn_qual,
					 dc_case_timeout_us(t), 0, NULL, DAT_QOS_BEST_EFFORT,
					 DAT_CONNECT_DEFAULT_FLAG));
	cr = dc_await_cr(t, b.cr_evd, NULL);
	memset(&c, 0xA5, sizeof(c));
	/*
	 * dat_ep_connect(3DAT) PARAMETERS only permit NULL with size 0; no page
	 * says the peer's request then reports size 0 (rdma_cm on RoCE pads the
	 * private data it carries), so the size is noted, not judged; the
	 * clause is that the call is taken and the connection made.
	 */
	DC_SETUP(dat_cr_query(cr, DAT_CR_FIELD_PRIVATE_DATA_SIZE, &c));
	if (c.private_data_size)
		dc_note(t, "the request reports %d bytes of private data", (int)c.private_data_size);
	DC_SETUP(dat_cr_accept(cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
}

/*
 * dat_ep_connect(3DAT) PARAMETERS defines only the multipath bit of
 * connect_flags; what a provider does with other bits is not said, so they
 * are not tried (review finding: 0x80 was required to be refused).
 */
DC_CASE(dat_ep_connect, multipath_flag,
	.summary = "multipath is honoured or refused per supports_multipath")
{
	struct dc_endpoint a, b;
	DAT_RETURN r;

	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	b.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(t->ia, &b.conn_qual, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp));
	r = dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, b.conn_qual, dc_case_timeout_us(t), 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_MULTIPATH_FLAG);
	if (t->prov_attr.supports_multipath) {
		DC_ASSERT_SUCCESS(r);
		DC_SETUP(dat_cr_accept(dc_await_cr(t, b.cr_evd, NULL), b.ep, 0, NULL));
		DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
	} else {
		DC_ASSERT_RET_ANY(r, DAT_MODEL_NOT_SUPPORTED, DAT_INVALID_PARAMETER);
		ASSERT_STATE(a.ep, DAT_EP_STATE_UNCONNECTED);
	}
}

DC_CASE(dat_ep_connect, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(dat_ep_connect((DAT_EP_HANDLE)dc_wrong_handle(t), t->ia_attr.ia_address_ptr, 1,
				     1000000, 0, NULL, DAT_QOS_BEST_EFFORT,
				     DAT_CONNECT_DEFAULT_FLAG), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_connect, invalid_handle_freed,
	.clauses = "dat_ep_connect.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(dat_ep_connect(dc_freed_ep(t), t->ia_attr.ia_address_ptr, 1, 1000000, 0, NULL,
				     DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG), 1, EP);
}

/* A connect from a state other than Unconnected: refused, nothing reaches a listener. */
static void connect_refused(struct dc_ctx *t, struct subject *s, const void *arg)
{
	struct dc_snap before;
	DAT_EVD_HANDLE cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;

	(void)arg;
	DC_SETUP(dat_psp_create_any(t->ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	dc_snapshot(t, DC_OBJ_EP, s->ep, &before);
	DC_ASSERT_RET(dat_ep_connect(s->ep, t->ia_attr.ia_address_ptr, q, dc_case_timeout_us(t), 0,
				     NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
		      DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&before);
	DC_ASSERT_NO_EVENT(cr_evd);
}

#define CONNECT_REFUSED(st)						\
	STATE_CASE(dat_ep_connect, invalid_state_##st, st, connect_refused, NULL,	\
		   "dat_ep_connect.invalid_state", "connect is refused in " #st)
CONNECT_REFUSED(reserved)
CONNECT_REFUSED(passive_connection_pending)
CONNECT_REFUSED(tentative_connection_pending)
CONNECT_REFUSED(active_connection_pending)
CONNECT_REFUSED(completion_pending)
CONNECT_REFUSED(connected)
CONNECT_REFUSED(disconnect_pending)
CONNECT_REFUSED(disconnected)

/*
 * An EP whose two outstanding RDMA Read attributes the Consumer set to 0
 * (dat_ep_connect(3DAT) USAGE: it can). Setting them is the clause: at
 * creation, or, should the create refuse them, by dat_ep_modify of an EP
 * made with the other attributes; only both ways refused is a FAIL.
 */
static void zero_read_endpoint(struct dc_ctx *t, struct dc_endpoint *e)
{
	DAT_EP_ATTR attr;
	DAT_EP_PARAM p;
	DAT_RETURN r;

	memset(e, 0, sizeof(*e));
	e->pz = dc_pz(t);
	e->recv_evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	e->req_evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	e->conn_evd = dc_evd(t, 16, DAT_EVD_CONNECTION_FLAG);
	dc_ep_attr_default(t, &attr);
	attr.max_rdma_read_in = attr.max_rdma_read_out = 0;
	r = dat_ep_create(t->ia, e->pz, e->recv_evd, e->req_evd, e->conn_evd, &attr, &e->ep);
	if (r == DAT_SUCCESS)
		return;
	if (DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES)
		DC_UNRESOLVED("dat_ep_create with both RDMA Read attributes 0 ran short: %s",
			      dc_ret_text(r));
	dc_note(t, "dat_ep_create refused both RDMA Read attributes 0 (%s); setting them with "
		   "dat_ep_modify instead", dc_ret_text(r));
	dc_ep_attr_default(t, &attr);
	e->ep = dc_ep(t, e->pz, e->recv_evd, e->req_evd, e->conn_evd, &attr);
	memset(&p, 0, sizeof(p));
	p.ep_attr = attr;
	p.ep_attr.max_rdma_read_in = p.ep_attr.max_rdma_read_out = 0;
	/* collateral: dat_ep_connect(3DAT) USAGE: the Consumer can set both RDMA Read attributes to 0 */
	DC_ASSERT_SUCCESS(dat_ep_modify(e->ep, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN |
					DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, &p));
}

DC_CASE(dat_ep_connect, zero_rdma_read_attrs,
	.summary = "EPs with both RDMA Read limits at 0 connect and exchange a Send")
{
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	DAT_EVENT ev;

	zero_read_endpoint(t, &a);
	zero_read_endpoint(t, &b);
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &ma);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &mb);
	b.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(t->ia, &b.conn_qual, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp));
	/* the connection itself is the clause: each step is checked */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, b.conn_qual, 5000000,
					 0, NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	/* collateral: dat_ep_connect(3DAT) USAGE: with both RDMA Read attributes zero the EPs still connect, the accept included */
	DC_ASSERT_SUCCESS(dat_cr_accept(dc_await_cr(t, b.cr_evd, NULL), b.ep, 0, NULL));
	DC_ASSERT_SUCCESS(dc_wait_event(t, a.conn_evd, -1, &ev));
	DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED,
		  "active side: %s instead of ESTABLISHED", dc_event_name(ev.event_number));
	DC_ASSERT_SUCCESS(dc_wait_event(t, b.conn_evd, -1, &ev));
	DC_ASSERT(ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED,
		  "passive side: %s instead of ESTABLISHED", dc_event_name(ev.event_number));
	DC_SETUP(post_recv1(b.ep, &mb, 0, 1024, 1));
	DC_SETUP(post_send1(a.ep, &ma, 0, 64, 2));
	DC_ASSERT_DTO(b.recv_evd, 1, DAT_DTO_SUCCESS);
}

DC_CASE(dat_ep_connect, rdma_read_attr_mismatch,
	.summary = "outgoing RDMA Read limit above the peer's incoming one: connects or fails cleanly")
{
	DAT_EP_ATTR aa, ab;
	struct dc_conn_opts oa = { 0 }, ob = { 0 };
	struct dc_endpoint a, b;
	DAT_EVENT ev;

	dc_ep_attr_default(t, &aa);
	dc_ep_attr_default(t, &ab);
	aa.max_rdma_read_out = 4;
	ab.max_rdma_read_in = 1;
	oa.attr = &aa;
	ob.attr = &ab;
	dc_endpoint(t, &a, &oa);
	dc_endpoint(t, &b, &ob);
	b.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(t->ia, &b.conn_qual, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp));
	DC_SETUP(dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, b.conn_qual, 5000000, 0, NULL,
				DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	if (dat_cr_accept(dc_await_cr(t, b.cr_evd, NULL), b.ep, 0, NULL) != DAT_SUCCESS)
		dc_note(t, "the passive side refused to accept");
	DC_ASSERT_SUCCESS(dc_wait_event(t, a.conn_evd, -1, &ev));
	dc_note(t, "outcome: %s", dc_event_name(ev.event_number));
	DC_ASSERT(ev.event_number >= DAT_CONNECTION_EVENT_ESTABLISHED &&
		  ev.event_number <= DAT_CONNECTION_EVENT_UNREACHABLE,
		  "got %s instead of a connection outcome", dc_event_name(ev.event_number));
}
