/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_dup_connect(3DAT): clauses/dat_ep_dup_connect.toml.
 * Two-node: the active half connects EP1 to the passive half's PSP, then
 * asks for a second connection "like EP1" with dat_ep_dup_connect; the
 * passive half plays the remote Consumer for that second request.
 */
#include "ep_common.h"

#include <netinet/in.h>

/* Passive: PSP, announce (with data, if any), accept the first request on a fresh EP. */
static DAT_EVD_HANDLE serve_on(struct dc_ctx *t, DAT_PSP_HANDLE *psp, const char *data,
			       bool own_range)
{
	struct dc_endpoint e;
	DAT_EVD_HANDLE cr_evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_CONN_QUAL q;
	DAT_RETURN r = DAT_CONN_QUAL_IN_USE;

	dc_endpoint(t, &e, NULL);
	if (!own_range) {
		DC_SETUP(dat_psp_create_any(t->ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, psp));
	} else {
		/* a qualifier above the ones "any" hands out on this host, so
		 * that no sibling case's PSP takes it once this one is freed */
		for (int i = 0; i < 8 && DAT_GET_TYPE(r) == DAT_CONN_QUAL_IN_USE; i++)
			r = dat_psp_create(t->ia, q = dc_unprobed_conn_qual(), cr_evd,
					   DAT_PSP_CONSUMER_FLAG, psp);
		DC_SETUP(r);
	}
	if (data)
		dc_announce_data(t, NULL, q, data);
	else
		dc_announce(t, NULL, q);
	DC_SETUP(dat_cr_accept(dc_await_cr(t, cr_evd, NULL), e.ep, 0, NULL));
	dc_await_event(t, e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	return cr_evd;
}
#define serve_first_with(t, psp, data) serve_on((t), (psp), (data), false)
#define serve_first(t, psp) serve_on((t), (psp), NULL, false)

/* Active: EP1 connected to the announced PSP; EP2 fresh. */
static void first_up(struct dc_ctx *t, struct dc_endpoint *e1, struct dc_endpoint *e2)
{
	memset(e1, 0, sizeof(*e1));
	dc_connect_active(t, e1, NULL);
	dc_endpoint(t, e2, NULL);
}

static const unsigned char pdata[16] = "dup-connect-pd!";

DC_TWO_NODE_CASE(dat_ep_dup_connect, same_remote_end,
		 .clauses = "dat_ep_dup_connect.same_remote_end dat_ep_dup_connect.active_connection_pending "
			    "dat_ep_dup_connect.port_qual_passed_to_remote dat_ep_dup_connect.private_data_delivered "
			    "dat_ep_dup_connect.established",
		 .summary = "the duplicate request reaches the same PSP with its port and private data, and connects");
DC_PASSIVE(dat_ep_dup_connect, same_remote_end)
{
	DAT_PSP_HANDLE psp;
	DAT_EVD_HANDLE cr_evd = serve_first(t, &psp);
	struct dc_endpoint e2;
	DAT_CR_ARRIVAL_EVENT_DATA arr;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM c;
	DAT_PSP_PARAM pp;

	dc_endpoint(t, &e2, NULL);
	DC_FOR_CLAUSE("dat_ep_dup_connect.same_remote_end");
	{
		/* the request reaching this PSP is the clause (bounded wait) */
		DAT_EVENT ev;
		DAT_RETURN r = dc_wait_event(t, cr_evd, 5000, &ev);

		DC_ASSERT(r == DAT_SUCCESS &&
			  ev.event_number == DAT_CONNECTION_REQUEST_EVENT,
			  "the duplicate request did not reach the PSP of the first connection within 5 s (%s)",
			  r == DAT_SUCCESS ? dc_event_name(ev.event_number) : dc_ret_text(r));
		arr = ev.event_data.cr_arrival_event_data;
		cr = arr.cr_handle;
	}
	DC_SETUP(dat_psp_query(psp, DAT_PSP_FIELD_CONN_QUAL, &pp));
	DC_ASSERT_PTR_EQ(arr.sp_handle.psp_handle, psp);
	DC_ASSERT_EQ(arr.conn_qual, pp.conn_qual);
	memset(&c, 0, sizeof(c));
	DC_SETUP(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
	DC_FOR_CLAUSE("dat_ep_dup_connect.private_data_delivered");
	DC_ASSERT(c.private_data_size >= (DAT_COUNT)sizeof(pdata) && c.private_data &&
		  !memcmp(c.private_data, pdata, sizeof(pdata)),
		  "the duplicate request does not carry the private data");
	dc_peer_send(t, "cr2", "%llu", (unsigned long long)c.remote_port_qual);
	dc_peer_wait(t, "go", NULL, 0);
	DC_SETUP(dat_cr_accept(cr, e2.ep, 0, NULL));
	dc_await_event(t, e2.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_dup_connect, same_remote_end)
{
	struct dc_endpoint e1, e2;
	char msg[64];
	unsigned long long port = 0;
	DAT_EP_PARAM p1, p2;

	first_up(t, &e1, &e2);
	/* one case, five clauses of dat_ep_dup_connect(3DAT) DESCRIPTION: each
	 * check is charged to its own (a miss of one is not a miss of all) */
	DC_FOR_CLAUSE("dat_ep_dup_connect.active_connection_pending");
	DC_ASSERT_SUCCESS(dat_ep_dup_connect(e2.ep, e1.ep, dc_case_timeout_us(t), sizeof(pdata),
					     (DAT_PVOID)pdata, DAT_QOS_BEST_EFFORT));
	dc_peer_wait(t, "cr2", msg, sizeof(msg));
	DC_SETUP_ASSERT(sscanf(msg, "%llu", &port) == 1, "bad message '%s'", msg);
	ASSERT_STATE(e2.ep, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	DC_FOR_CLAUSE("dat_ep_dup_connect.port_qual_passed_to_remote");
	DC_ASSERT(DC_EP_PARAM(e2.ep).local_port_qual == port,
		  "EP2's local_port_qual differs from the request's remote_port_qual %llu", port);
	dc_peer_send(t, "go", "accept");
	DC_FOR_CLAUSE("dat_ep_dup_connect.established");
	DC_ASSERT_CONN_EVENT(e2.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, e2.ep);
	ASSERT_STATE(e2.ep, DAT_EP_STATE_CONNECTED);
	DC_FOR_CLAUSE("dat_ep_dup_connect.same_remote_end");
	p1 = DC_EP_PARAM(e1.ep);
	p2 = DC_EP_PARAM(e2.ep);
	DC_ASSERT(p1.remote_ia_address_ptr && p2.remote_ia_address_ptr &&
		  p1.remote_ia_address_ptr->sa_family == p2.remote_ia_address_ptr->sa_family,
		  "EP1 and EP2 report different remote address families");
	DC_ASSERT_EQ(p2.remote_port_qual, p1.remote_port_qual);
	dc_peer_send(t, "done", "ok");
}

DC_TWO_NODE_CASE(dat_ep_dup_connect, peer_rejected,
		 .summary = "a rejected duplicate request gives PEER_REJECTED and DISCONNECTED");
DC_PASSIVE(dat_ep_dup_connect, peer_rejected)
{
	DAT_PSP_HANDLE psp;
	DAT_EVD_HANDLE cr_evd = serve_first(t, &psp);

	DC_SETUP(dc_dat_cr_reject(dc_await_cr(t, cr_evd, NULL), 0, NULL));
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_dup_connect, peer_rejected)
{
	struct dc_endpoint e1, e2;

	first_up(t, &e1, &e2);
	DC_ASSERT_SUCCESS(dat_ep_dup_connect(e2.ep, e1.ep, dc_case_timeout_us(t), 0, NULL,
					     DAT_QOS_BEST_EFFORT));
	DC_ASSERT_CONN_EVENT(e2.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, e2.ep);
	ASSERT_STATE(e2.ep, DAT_EP_STATE_DISCONNECTED);
	dc_peer_send(t, "done", "ok");
}

DC_TWO_NODE_CASE(dat_ep_dup_connect, non_peer_rejected,
		 .summary = "when the remote PSP is gone, the duplicate request is NON_PEER_REJECTED");
DC_PASSIVE(dat_ep_dup_connect, non_peer_rejected)
{
	DAT_PSP_HANDLE psp;

	serve_on(t, &psp, NULL, true);
	DC_SETUP(dat_psp_free(psp));
	dc_peer_send(t, "freed", "ok");
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_dup_connect, non_peer_rejected)
{
	struct dc_endpoint e1, e2;

	first_up(t, &e1, &e2);
	dc_peer_wait(t, "freed", NULL, 0);
	DC_ASSERT_SUCCESS(dat_ep_dup_connect(e2.ep, e1.ep, dc_case_timeout_us(t), 0, NULL,
					     DAT_QOS_BEST_EFFORT));
	DC_ASSERT_CONN_EVENT(e2.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, e2.ep);
	ASSERT_STATE(e2.ep, DAT_EP_STATE_DISCONNECTED);
	dc_peer_send(t, "done", "ok");
}

DC_TWO_NODE_CASE(dat_ep_dup_connect, timed_out,
		 .summary = "a duplicate request nobody answers within the timeout is TIMED_OUT");
DC_PASSIVE(dat_ep_dup_connect, timed_out)
{
	DAT_PSP_HANDLE psp;
	DAT_EVD_HANDLE cr_evd = serve_first(t, &psp);

	dc_await_cr(t, cr_evd, NULL);		/* ... and never answer */
	dc_peer_wait(t, "done", NULL, 0);
}
DC_ACTIVE(dat_ep_dup_connect, timed_out)
{
	struct dc_endpoint e1, e2;

	first_up(t, &e1, &e2);
	DC_ASSERT_SUCCESS(dat_ep_dup_connect(e2.ep, e1.ep, dc_unanswered_timeout_us(t), 0, NULL, DAT_QOS_BEST_EFFORT));
	DC_ASSERT_CONN_EVENT(e2.conn_evd, DAT_CONNECTION_EVENT_TIMED_OUT, e2.ep);
	ASSERT_STATE(e2.ep, DAT_EP_STATE_DISCONNECTED);
	dc_peer_send(t, "done", "ok");
}

DC_CASE(dat_ep_dup_connect, qos_not_supported_local,
	.summary = "a QoS the provider does not support fails synchronously",
	.requires = "dat_qos_supported<15")
{
	DAT_QOS all = DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY | DAT_QOS_ECONOMY |
		      DAT_QOS_PREMIUM;
	DAT_QOS missing = all & ~t->prov_attr.dat_qos_supported;
	struct dc_pair p;
	struct dc_endpoint e;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	dc_endpoint(t, &e, NULL);
	DC_ASSERT_RET(dat_ep_dup_connect(e.ep, p.a.ep, dc_case_timeout_us(t), 0, NULL, missing & -missing),
		      DAT_MODEL_NOT_SUPPORTED);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
}

/* A QoS the peer's provider does not support (narrow_qos, ep_common.h). */
DC_TWO_NODE_CASE(dat_ep_dup_connect, qos_not_supported_remote,
		 .summary = "a QoS the peer's provider does not support: NON_PEER_REJECTED and DISCONNECTED",
		 .requires = "dat_qos_supported!=0",
		 .needs = "hook:daplref_test_qos_supported");
DC_PASSIVE(dat_ep_dup_connect, qos_not_supported_remote)
{
	DAT_PSP_HANDLE psp;
	DAT_EVD_HANDLE cr_evd;
	char set[32];

	narrow_qos(t, "dat_ep_dup_connect", set, sizeof(set));
	cr_evd = serve_first_with(t, &psp, set);
	dc_peer_wait(t, "done", NULL, 0);
	/* the provider refused the duplicate request: its Consumer never saw it */
	DC_ASSERT_NO_EVENT(cr_evd);
}
DC_ACTIVE(dat_ep_dup_connect, qos_not_supported_remote)
{
	DAT_QOS ask = qos_peer_lacks(t);
	struct dc_endpoint e1, e2;

	first_up(t, &e1, &e2);
	DC_ASSERT_SUCCESS(dat_ep_dup_connect(e2.ep, e1.ep, dc_case_timeout_us(t), 0, NULL, ask));
	DC_ASSERT_CONN_EVENT(e2.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, e2.ep);
	ASSERT_STATE(e2.ep, DAT_EP_STATE_DISCONNECTED);
	dc_peer_send(t, "done", "ok");
}

/* A dup_connect with an invalid parameter: refused, nothing reaches the peer. */
static void refused_dup_connect(struct dc_ctx *t, DAT_TIMEOUT tmo, DAT_COUNT pn, const void *pd)
{
	struct dc_pair p;
	struct dc_endpoint e;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	dc_endpoint(t, &e, NULL);
	DC_ASSERT_RET(dat_ep_dup_connect(e.ep, p.a.ep, tmo, pn, (DAT_PVOID)pd, DAT_QOS_BEST_EFFORT),
		      DAT_INVALID_PARAMETER);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_NO_EVENT(p.b.cr_evd);
}

DC_CASE(dat_ep_dup_connect, timeout_positive,
	.summary = "a zero timeout is an invalid parameter")
{
	refused_dup_connect(t, 0, 0, NULL);
}

DC_CASE(dat_ep_dup_connect, private_data_size_negative,
	.summary = "a negative private data size is an invalid parameter")
{
	refused_dup_connect(t, dc_case_timeout_us(t), -1, pdata);
}

DC_CASE(dat_ep_dup_connect, private_data_null_with_size,
	.summary = "a NULL private data pointer with size 1 is an invalid parameter")
{
	refused_dup_connect(t, dc_case_timeout_us(t), 1, NULL);
}

DC_CASE(dat_ep_dup_connect, invalid_handle,
	.summary = "a freed EP as either argument is an invalid handle")
{
	struct dc_pair p;
	struct dc_endpoint e;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	dc_endpoint(t, &e, NULL);
	DC_ASSERT_INVALID_HANDLE(dat_ep_dup_connect(dc_freed_ep(t), p.a.ep, dc_case_timeout_us(t), 0, NULL,
					 DAT_QOS_BEST_EFFORT), 1, EP);
	DC_ASSERT_INVALID_HANDLE(dat_ep_dup_connect(e.ep, dc_freed_ep(t), dc_case_timeout_us(t), 0, NULL,
					 DAT_QOS_BEST_EFFORT), 2, EP);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
}

/*
 * The local EP on a second IA of the provider, the duplicated one Connected
 * on the first: the page does not say whether that may be refused, but a
 * success moves the local EP into Active Connection Pending.
 */
DC_CASE(dat_ep_dup_connect, dup_of_other_ia,
	.clauses = "dat_ep_dup_connect.active_connection_pending",
	.summary = "dup_connect of an EP of another IA: refused (EP Unconnected), or DAT_SUCCESS and the EP leaves Unconnected")
{
	struct dc_pair p;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL, evd, cevd;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_RETURN r;
	DAT_EP_STATE st;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2));
	DC_SETUP(dat_pz_create(ia2, &pz));
	DC_SETUP(dat_evd_create(ia2, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd));
	DC_SETUP(dat_evd_create(ia2, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &cevd));
	DC_SETUP(dat_ep_create(ia2, pz, evd, evd, cevd, NULL, &ep));
	r = dat_ep_dup_connect(ep, p.a.ep, dc_case_timeout_us(t), 0, NULL, DAT_QOS_BEST_EFFORT);
	dc_note(t, "dat_ep_dup_connect(EP of a second IA, a Connected EP of the first): %s", dc_ret_text(r));
	st = ep_state_at(t, __FILE__, __LINE__, ep, DC_FAIL);
	if (r == DAT_SUCCESS)
		DC_ASSERT(st != DAT_EP_STATE_UNCONNECTED,
			  "dat_ep_dup_connect returned DAT_SUCCESS but the EP is still Unconnected");
	else
		DC_ASSERT(st == DAT_EP_STATE_UNCONNECTED,
			  "the refused dat_ep_dup_connect left the EP %s", state_name(st));
	DC_SETUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

/*
 * The RESERVED state, reached through dat_rsp_create: neither an Unconnected
 * local EP nor a Connected one to duplicate.
 */
static void reserved_either_side(struct dc_ctx *t, struct dc_pair *q, struct dc_endpoint *e)
{
	struct rsp_fix f;

	rsp_up(t, &f);
	/* ep_handle Reserved */
	DC_ASSERT_RET(dat_ep_dup_connect(f.e.ep, q->a.ep, dc_case_timeout_us(t), 0, NULL,
					 DAT_QOS_BEST_EFFORT),
		      DAT_INVALID_STATE);
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_RESERVED);
	/* dup_ep_handle Reserved */
	DC_ASSERT_RET(dat_ep_dup_connect(e->ep, f.e.ep, dc_case_timeout_us(t), 0, NULL,
					 DAT_QOS_BEST_EFFORT),
		      DAT_INVALID_STATE);
	ASSERT_STATE(e->ep, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_NO_EVENT(q->b.cr_evd);
	DC_ASSERT_NO_EVENT(f.evd);
}

DC_CASE(dat_ep_dup_connect, invalid_state,
	.summary = "the local EP must be Unconnected (not Connected, Disconnected, Reserved) and the duplicated one Connected (not Unconnected, Disconnected, Reserved)",
	.flags = DC_NO_DTOS)
{
	struct dc_pair p, q;
	struct dc_endpoint e, idle;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	dc_pair_up(t, &q, SUBJ_MEM, NULL);
	dc_endpoint(t, &e, NULL);
	dc_endpoint(t, &idle, NULL);
	/* ep_handle already Connected */
	DC_ASSERT_RET(dat_ep_dup_connect(q.a.ep, p.a.ep, dc_case_timeout_us(t), 0, NULL,
					 DAT_QOS_BEST_EFFORT),
		      DAT_INVALID_STATE);
	ASSERT_STATE(q.a.ep, DAT_EP_STATE_CONNECTED);
	/* dup_ep_handle Unconnected */
	DC_ASSERT_RET(dat_ep_dup_connect(e.ep, idle.ep, dc_case_timeout_us(t), 0, NULL,
					 DAT_QOS_BEST_EFFORT),
		      DAT_INVALID_STATE);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	/* dup_ep_handle Disconnected */
	DC_SETUP(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_await_event(t, p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	await_state(p.a.ep, DAT_EP_STATE_DISCONNECTED, 2000);
	DC_ASSERT_RET(dat_ep_dup_connect(e.ep, p.a.ep, dc_case_timeout_us(t), 0, NULL,
					 DAT_QOS_BEST_EFFORT),
		      DAT_INVALID_STATE);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	/* ep_handle Disconnected (not Unconnected) */
	DC_ASSERT_RET(dat_ep_dup_connect(p.a.ep, q.a.ep, dc_case_timeout_us(t), 0, NULL,
					 DAT_QOS_BEST_EFFORT),
		      DAT_INVALID_STATE);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_DISCONNECTED);
	DC_ASSERT_NO_EVENT(p.b.cr_evd);
	DC_ASSERT_NO_EVENT(q.b.cr_evd);
	reserved_either_side(t, &q, &e);
}

/*
 * A remote host that vanished after the first connection cannot be staged
 * portably from one side (on a single host its address stays reachable), so
 * the provider's test hook makes the host of EP1's remote end "gone" for
 * this IA (docs/reference-provider.md, "Test hooks"); UNSUPPORTED elsewhere.
 */
typedef DAT_RETURN (*host_vanished_fn)(DAT_IA_HANDLE ia, const struct sockaddr *addr);

DC_CASE(dat_ep_dup_connect, unreachable,
	.summary = "a duplicate request to a remote host that vanished gives UNREACHABLE and DISCONNECTED",
	.needs = "hook:daplref_test_host_vanished")
{
	host_vanished_fn vanish = (host_vanished_fn)dc_provider_hook("daplref_test_host_vanished");
	struct dc_endpoint a = { 0 }, b = { 0 }, e2;

	dc_connect_local(t, &a, &b, NULL);
	dc_endpoint(t, &e2, NULL);
	DC_SETUP(vanish(dc_provider_ia_handle(t->ia), DC_EP_PARAM(a.ep).remote_ia_address_ptr));
	DC_ASSERT_SUCCESS(dat_ep_dup_connect(e2.ep, a.ep, 500000, 0, NULL, DAT_QOS_BEST_EFFORT));
	DC_ASSERT_CONN_EVENT(e2.conn_evd, DAT_CONNECTION_EVENT_UNREACHABLE, e2.ep);
	ASSERT_STATE(e2.ep, DAT_EP_STATE_DISCONNECTED);
}
