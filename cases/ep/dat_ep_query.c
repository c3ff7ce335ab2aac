/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_query(3DAT): clauses/dat_ep_query.toml.
 * Address and port-qualifier clauses compare what each side reports with
 * what the other side (or its Connection Request) says, across the
 * two-node relay.
 */
#include "ep_ways.h"

#include <netinet/in.h>

static DAT_EP_ATTR query_attr_request(struct dc_ctx *t)
{
	return ep_attr_unusual(t);
}

DC_CASE(dat_ep_query, returns_all_params,
	.summary = "DAT_EP_FIELD_ALL reports the IA, state, PZ, EVDs and attributes of the EP")
{
	DAT_EP_ATTR a = query_attr_request(t);
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE r = dc_evd(t, 8, DAT_EVD_DTO_FLAG), q = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE c = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_EP_HANDLE ep = dc_ep(t, pz, r, q, c, &a);
	DAT_EP_PARAM p;

	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_ep_query(ep, DAT_EP_FIELD_ALL, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	DC_ASSERT_EQ(p.ep_state, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_PTR_EQ(p.pz_handle, pz);
	DC_ASSERT_PTR_EQ(p.recv_evd_handle, r);
	DC_ASSERT_PTR_EQ(p.request_evd_handle, q);
	DC_ASSERT_PTR_EQ(p.connect_evd_handle, c);
	DC_ASSERT_PTR_EQ(p.srq_handle, DAT_HANDLE_NULL);
	assert_attrs_as_asked(t, &p.ep_attr, &a);
}

DC_CASE(dat_ep_query, returns_masked_params,
	.summary = "each single mask bit fills its member in a poisoned DAT_EP_PARAM")
{
	/* the members this case can compare; the addresses and qualifiers of
	 * an unconnected EP and the attribute arrays have cases of their own */
	const DAT_EP_PARAM_MASK checked =
		DAT_EP_FIELD_IA_HANDLE | DAT_EP_FIELD_EP_STATE | DAT_EP_FIELD_PZ_HANDLE |
		DAT_EP_FIELD_RECV_EVD_HANDLE | DAT_EP_FIELD_REQUEST_EVD_HANDLE |
		DAT_EP_FIELD_CONNECT_EVD_HANDLE | DAT_EP_FIELD_SRQ_HANDLE |
		DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE | DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE |
		DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE | DAT_EP_FIELD_EP_ATTR_QOS |
		DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS |
		DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS |
		DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS | DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS |
		DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV | DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV |
		DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN | DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT;
	const DAT_EP_PARAM_MASK *bits;
	int nbits = dc_ep_field_masks(&bits);
	struct dc_endpoint e;
	DAT_EP_PARAM all;

	dc_endpoint(t, &e, NULL);
	all = dc_ep_param(t, e.ep);
	for (int i = 0; i < nbits; i++) {
		DAT_EP_PARAM p;

		if (!(bits[i] & checked))
			continue;
		memset(&p, 0xA5, sizeof(p));
		dc_note(t, "mask 0x%llx", (unsigned long long)bits[i]);
		DC_ASSERT_SUCCESS(dat_ep_query(e.ep, bits[i], &p));
		switch ((int)bits[i]) {
		case DAT_EP_FIELD_IA_HANDLE: DC_ASSERT_PTR_EQ(p.ia_handle, all.ia_handle); break;
		case DAT_EP_FIELD_EP_STATE: DC_ASSERT_EQ(p.ep_state, all.ep_state); break;
		case DAT_EP_FIELD_PZ_HANDLE: DC_ASSERT_PTR_EQ(p.pz_handle, all.pz_handle); break;
		case DAT_EP_FIELD_RECV_EVD_HANDLE:
			DC_ASSERT_PTR_EQ(p.recv_evd_handle, all.recv_evd_handle); break;
		case DAT_EP_FIELD_REQUEST_EVD_HANDLE:
			DC_ASSERT_PTR_EQ(p.request_evd_handle, all.request_evd_handle); break;
		case DAT_EP_FIELD_CONNECT_EVD_HANDLE:
			DC_ASSERT_PTR_EQ(p.connect_evd_handle, all.connect_evd_handle); break;
		case DAT_EP_FIELD_SRQ_HANDLE: DC_ASSERT_PTR_EQ(p.srq_handle, all.srq_handle); break;
		case DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE:
			DC_ASSERT_EQ(p.ep_attr.service_type, all.ep_attr.service_type); break;
		case DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE:
			DC_ASSERT_EQ(p.ep_attr.max_message_size, all.ep_attr.max_message_size); break;
		case DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE:
			DC_ASSERT_EQ(p.ep_attr.max_rdma_size, all.ep_attr.max_rdma_size); break;
		case DAT_EP_FIELD_EP_ATTR_QOS: DC_ASSERT_EQ(p.ep_attr.qos, all.ep_attr.qos); break;
		case DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS:
			DC_ASSERT_EQ(p.ep_attr.recv_completion_flags, all.ep_attr.recv_completion_flags); break;
		case DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS:
			DC_ASSERT_EQ(p.ep_attr.request_completion_flags, all.ep_attr.request_completion_flags); break;
		case DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS:
			DC_ASSERT_EQ(p.ep_attr.max_recv_dtos, all.ep_attr.max_recv_dtos); break;
		case DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS:
			DC_ASSERT_EQ(p.ep_attr.max_request_dtos, all.ep_attr.max_request_dtos); break;
		case DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV:
			DC_ASSERT_EQ(p.ep_attr.max_recv_iov, all.ep_attr.max_recv_iov); break;
		case DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV:
			DC_ASSERT_EQ(p.ep_attr.max_request_iov, all.ep_attr.max_request_iov); break;
		case DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN:
			DC_ASSERT_EQ(p.ep_attr.max_rdma_read_in, all.ep_attr.max_rdma_read_in); break;
		case DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT:
			DC_ASSERT_EQ(p.ep_attr.max_rdma_read_out, all.ep_attr.max_rdma_read_out); break;
		}
	}
}

/* ---- addresses and port qualifiers ------------------------------------------------ */

static const char *host_of(const struct sockaddr *a, char *buf, size_t len)
{
	buf[0] = '\0';
	if (a && a->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, buf, (socklen_t)len);
	else if (a && a->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, buf, (socklen_t)len);
	return buf;
}

static struct sockaddr_storage parse_host(const char *h)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, h, &((struct sockaddr_in *)&ss)->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, h, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	return ss;
}

/*
 * Both sides connected.  The active half reports its IA address and its
 * EP's local_port_qual; the passive half checks its EP's remote fields
 * against that, the active half checks its remote fields against the
 * announced address and qualifier.
 */
DC_TWO_NODE_CASE(dat_ep_query, remote_address_valid_when_connected,
		 .clauses = "dat_ep_query.remote_address_valid_when_connected dat_ep_query.local_port_qual_valid_when_connected",
		 .summary = "connected EPs report the peer's address and port qualifier, and each other's");
DC_PASSIVE(dat_ep_query, remote_address_valid_when_connected)
{
	struct dc_endpoint e;
	DAT_EP_PARAM p;
	char msg[128], host[64];
	unsigned long long port;
	struct sockaddr_storage act;

	memset(&e, 0, sizeof(e));
	dc_connect_passive(t, &e, NULL);
	dc_peer_wait(t, "active", msg, sizeof(msg));
	DC_SETUP_ASSERT(sscanf(msg, "%63s %llu", host, &port) == 2, "bad message '%s'", msg);
	act = parse_host(host);
	p = DC_EP_PARAM(e.ep);
	/* both clauses': a mismatch is either end's port qualifier wrong, and
	 * it is all local_port_qual_valid_when_connected asks here */
	DC_ASSERT(p.remote_port_qual == port,
		  "passive EP's remote_port_qual %llu, the active EP's local_port_qual is %llu",
		  (unsigned long long)p.remote_port_qual, port);
	DC_FOR_CLAUSE("dat_ep_query.local_port_qual_valid_when_connected");
	DC_FOR_CLAUSE("dat_ep_query.remote_address_valid_when_connected");
	DC_ASSERT(dc_same_host(p.remote_ia_address_ptr, (struct sockaddr *)&act),
		  "passive EP's remote_ia_address is not the active IA's address %s", host);
	dc_peer_send(t, "done", "ok");
}
DC_ACTIVE(dat_ep_query, remote_address_valid_when_connected)
{
	struct dc_endpoint e;
	DAT_EP_PARAM p;
	char host[64];

	memset(&e, 0, sizeof(e));
	dc_connect_active(t, &e, NULL);
	p = DC_EP_PARAM(e.ep);
	DC_FOR_CLAUSE("dat_ep_query.remote_address_valid_when_connected");
	DC_ASSERT(dc_same_host(p.remote_ia_address_ptr, (struct sockaddr *)&t->peer.addr),
		  "active EP's remote_ia_address is not the passive IA's address %s", t->peer.host);
	DC_ASSERT(p.remote_port_qual == t->peer.conn_qual,
		  "active EP's remote_port_qual %llu, it connected to %llu",
		  (unsigned long long)p.remote_port_qual, (unsigned long long)t->peer.conn_qual);
	dc_peer_send(t, "active", "%s %llu",
		     host_of((struct sockaddr *)t->ia_attr.ia_address_ptr, host, sizeof(host)),
		     (unsigned long long)p.local_port_qual);
	dc_peer_wait(t, "done", NULL, 0);
}

/*
 * The same clause on one host, for an EP connected each way (ep_ways.h):
 * the EP reports this IA's address as the remote one, and as remote port
 * qualifier the one it connected to (the active EP of dat_ep_connect and of
 * dat_ep_dup_connect, whose remote end is the first connection's) or the
 * active EP's local one (each kind of accepting EP), as the two-node case
 * above does across hosts.
 */
DC_CASE(dat_ep_query, remote_address_each_way,
	.clauses = "dat_ep_query.remote_address_valid_when_connected",
	.summary = "an EP connected each way (connect, dup_connect, consumer PSP, Provider EP, RSP, "
		   "handoff) reports its peer's address and port qualifier")
{
	struct way_conn w;

	DC_SETUP_ASSERT(t->ia_attr.ia_address_ptr != NULL, "set-up: dat_ia_query gave no ia_address_ptr");
	for (int way = 0; way < CONNECTED_WAYS; way++) {
		DAT_EP_PARAM p;
		DAT_PORT_QUAL want;
		bool active = way == WAY_CONNECT || way == WAY_DUP_CONNECT;

		if (!way_reach(&w, way))
			continue;
		want = active ? w.q : dc_ep_param(t, w.peer.ep).local_port_qual;
		p = DC_EP_PARAM(w.s.ep);
		DC_ASSERT(dc_same_host(p.remote_ia_address_ptr,
				       (struct sockaddr *)t->ia_attr.ia_address_ptr),
			  "the EP's remote_ia_address is not the peer IA's address");
		DC_ASSERT(p.remote_port_qual == want,
			  "the EP's remote_port_qual is %llu, expected %llu (%s)",
			  (unsigned long long)p.remote_port_qual, (unsigned long long)want,
			  active ? "the qualifier it connected to" : "the active EP's local_port_qual");
		way_down(t, &w);
	}
}

/* Active Connection Pending: remote fields are the target's. */
static void acp_remote(struct dc_ctx *t, struct subject *s, const void *arg)
{
	DAT_EP_PARAM p = DC_EP_PARAM(s->ep);

	(void)arg;
	DC_ASSERT(dc_same_host(p.remote_ia_address_ptr, (struct sockaddr *)&t->peer.addr),
		  "remote_ia_address is not the target IA's address %s", t->peer.host);
	DC_ASSERT_EQ(p.remote_port_qual, t->peer.conn_qual);
}
STATE_CASE(dat_ep_query, remote_address_in_active_connection_pending,
	   active_connection_pending, acp_remote, NULL,
	   "dat_ep_query.remote_address_valid_when_connected",
	   "in ACTIVE_CONNECTION_PENDING the EP reports the target's address and qualifier")

/* Passive Connection Pending: remote fields are those of the request. */
static void pcp_remote(struct dc_ctx *t, struct subject *s, const void *arg)
{
	DAT_EP_PARAM p = DC_EP_PARAM(s->ep);
	DAT_CR_PARAM c;

	(void)arg;
	memset(&c, 0, sizeof(c));
	DC_SETUP(dat_cr_query(s->cr, DAT_CR_FIELD_ALL, &c));
	DC_ASSERT(dc_same_host(p.remote_ia_address_ptr, c.remote_ia_address_ptr),
		  "remote_ia_address differs from the request's");
	DC_ASSERT_EQ(p.remote_port_qual, c.remote_port_qual);
}
STATE_CASE(dat_ep_query, remote_address_in_passive_connection_pending,
	   passive_connection_pending, pcp_remote, NULL,
	   "dat_ep_query.remote_address_valid_when_connected",
	   "in PASSIVE_CONNECTION_PENDING the EP reports the requester's address and port")

/*
 * Completion Pending (the accepting EP, its peer frozen before it can
 * confirm): DESCRIPTION lists the state among those where local_port_qual,
 * remote_ia_address and remote_port_qual are valid, and so it lists
 * CONNECTED, which the same connection reaches next. A valid value is the
 * connection's own, so each reads the same in both states.
 */
static void cp_as_connected(struct dc_ctx *t, struct subject *s, const void *arg)
{
	DAT_EP_PARAM p = DC_EP_PARAM(s->ep), c;
	struct sockaddr_storage ra;
	bool have_ra = p.remote_ia_address_ptr != NULL;

	(void)arg;
	DC_SETUP_ASSERT(p.ep_state == DAT_EP_STATE_COMPLETION_PENDING,
			"set-up: the EP left COMPLETION_PENDING (%s) before the query",
			state_name(p.ep_state));
	memset(&ra, 0, sizeof(ra));
	if (have_ra)
		memcpy(&ra, p.remote_ia_address_ptr,
		       p.remote_ia_address_ptr->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	thaw(s);
	dc_await_event(t, s->e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	c = DC_EP_PARAM(s->ep);
	DC_SETUP_ASSERT(c.ep_state == DAT_EP_STATE_CONNECTED,
			"set-up: after ESTABLISHED the EP is in %s", state_name(c.ep_state));
	DC_FOR_CLAUSE("dat_ep_query.local_port_qual_valid_when_connected");
	DC_ASSERT(p.local_port_qual == c.local_port_qual,
		  "local_port_qual %llu in COMPLETION_PENDING, %llu once CONNECTED",
		  (unsigned long long)p.local_port_qual, (unsigned long long)c.local_port_qual);
	DC_FOR_CLAUSE("dat_ep_query.remote_address_valid_when_connected");
	DC_ASSERT(have_ra, "remote_ia_address_ptr is NULL in COMPLETION_PENDING");
	DC_ASSERT(dc_same_host((struct sockaddr *)&ra, c.remote_ia_address_ptr),
		  "remote_ia_address in COMPLETION_PENDING is not the one reported once CONNECTED");
	DC_ASSERT(p.remote_port_qual == c.remote_port_qual,
		  "remote_port_qual %llu in COMPLETION_PENDING, %llu once CONNECTED",
		  (unsigned long long)p.remote_port_qual, (unsigned long long)c.remote_port_qual);
}
STATE_CASE(dat_ep_query, addresses_in_completion_pending,
	   completion_pending, cp_as_connected, NULL,
	   "dat_ep_query.local_port_qual_valid_when_connected dat_ep_query.remote_address_valid_when_connected",
	   "in COMPLETION_PENDING the accepting EP reports the port qualifiers and remote address "
	   "it reports once CONNECTED")

/* Active Connection Pending: the local port is the one the request carries. */
DC_TWO_NODE_CASE(dat_ep_query, local_port_qual_in_active_connection_pending,
		 .clauses = "dat_ep_query.local_port_qual_valid_when_connected",
		 .summary = "in ACTIVE_CONNECTION_PENDING local_port_qual is the port the peer's request shows");
DC_PASSIVE(dat_ep_query, local_port_qual_in_active_connection_pending)
{
	DAT_EVD_HANDLE cr_evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_CR_PARAM c;
	DAT_CR_HANDLE cr;

	DC_SETUP(dat_psp_create_any(t->ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	dc_announce(t, NULL, q);
	cr = dc_await_cr(t, cr_evd, NULL);
	memset(&c, 0, sizeof(c));
	DC_SETUP(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
	dc_peer_send(t, "cr", "%llu", (unsigned long long)c.remote_port_qual);
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_query, local_port_qual_in_active_connection_pending)
{
	struct dc_endpoint e;
	char msg[64];
	unsigned long long port = 0;
	DAT_EP_PARAM p;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(dat_ep_connect(e.ep, (DAT_IA_ADDRESS_PTR)&t->peer.addr, t->peer.conn_qual,
				dc_case_timeout_us(t), 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG));
	dc_peer_wait(t, "cr", msg, sizeof(msg));
	DC_SETUP_ASSERT(sscanf(msg, "%llu", &port) == 1, "bad message '%s'", msg);
	/* the peer's dat_cr_query is the witness; a 0 there is its own clause's
	 * miss (dat_cr_query.remote_address_and_port), not a port to compare */
	DC_SETUP_ASSERT(port != 0, "the peer's dat_cr_query reports remote_port_qual 0: "
			"no port of the request to compare local_port_qual with");
	p = DC_EP_PARAM(e.ep);
	DC_ASSERT_EQ(p.ep_state, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	DC_ASSERT(p.local_port_qual == port,
		  "local_port_qual %llu, the peer's request says %llu",
		  (unsigned long long)p.local_port_qual, port);
	dc_peer_send(t, "done", "ok");
}

static void query_works(struct dc_ctx *t, struct subject *s, const void *arg)
{
	DAT_EP_PARAM p;

	(void)arg;
	DC_ASSERT_SUCCESS(dat_ep_query(s->ep, DAT_EP_FIELD_LOCAL_PORT_QUAL, &p));
	dc_note(t, "local_port_qual in %s: %llu", state_name(s->state),
		(unsigned long long)p.local_port_qual);
}
#define PORT_MAYBE(st)							\
	STATE_CASE(dat_ep_query, local_port_qual_in_##st, st, query_works, NULL,	\
		   "dat_ep_query.local_port_qual_maybe_valid",			\
		   "local_port_qual can be queried in " #st)
PORT_MAYBE(unconnected)
PORT_MAYBE(reserved)
PORT_MAYBE(tentative_connection_pending)

DC_CASE(dat_ep_query, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DAT_EP_PARAM p;

	DC_ASSERT_INVALID_HANDLE(dat_ep_query((DAT_EP_HANDLE)dc_wrong_handle(t), DAT_EP_FIELD_ALL, &p), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_query, invalid_handle_freed,
	.clauses = "dat_ep_query.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	DAT_EP_PARAM p;

	DC_ASSERT_INVALID_HANDLE(dat_ep_query(dc_freed_ep(t), DAT_EP_FIELD_ALL, &p), 1, EP);
}

DC_CASE(dat_ep_query, invalid_mask,
	.summary = "mask bits that name no EP parameter are invalid")
{
	struct dc_endpoint e;
	DAT_EP_PARAM p;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_RET(dat_ep_query(e.ep, dc_mask_unused_bit(DAT_EP_FIELD_ALL), &p), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_ep_query(e.ep, (DAT_EP_PARAM_MASK)1 << 40, &p), DAT_INVALID_PARAMETER);
}
