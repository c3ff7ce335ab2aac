/* SPDX-License-Identifier: MIT */
/*
 * dat_rsp_create(3DAT): clauses/dat_rsp_create.toml.
 * The requester is an EP of the same IA connecting to its own address.
 */
#include "cm_common.h"

DC_CASE(dat_rsp_create, ep_reserved,
	.summary = "the EP of a new RSP is Reserved, and the RSP names it")
{
	struct rsp_fix f;
	DAT_RSP_PARAM p;
	DAT_RETURN r;

	dc_endpoint(t, &f.e, NULL);
	f.evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	f.q = dc_free_conn_qual(t);
	DC_ON_PROBED_QUAL(r, dat_rsp_create(t->ia, f.q, f.e.ep, f.evd, &f.rsp));
	DC_ASSERT_SUCCESS(r);
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_RESERVED);
	memset(&p, 0, sizeof(p));
	/* collateral: dat_rsp_create(3DAT) DESCRIPTION: the EP reserved is the RSP's, as its query shows */
	DC_ASSERT_SUCCESS(dat_rsp_query(f.rsp, DAT_RSP_FIELD_EP_HANDLE, &p));
	DC_ASSERT_PTR_EQ(p.ep_handle, f.e.ep);
}

/*
 * The request reached another way: handed off to the RSP from a PSP
 * (dat_cr_handoff(3DAT) hands a request to another Service Point).  It
 * arrives on the RSP's EVD carrying the reserved EP, which leaves RESERVED.
 */
static void request_by_handoff(struct dc_ctx *t)
{
	struct rsp_fix f;
	struct dc_endpoint a;
	DAT_EVD_HANDLE pevd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL pq = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &pevd, &psp);
	DAT_EVENT ev;
	DAT_CR_PARAM c;

	rsp_up(t, &f);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, pq, 0, 0, NULL));
	DC_SETUP(dat_cr_handoff(dc_await_cr(t, pevd, NULL), f.q));
	DC_ASSERT_EVENT(f.evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	memset(&c, 0, sizeof(c));
	/* collateral: dat_rsp_create(3DAT) DESCRIPTION: the handed-off request carries the reserved EP, as its query shows */
	DC_ASSERT_SUCCESS(dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
				       DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
	DC_ASSERT_PTR_EQ(c.local_ep_handle, f.e.ep);
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
}

DC_CASE(dat_rsp_create, request_carries_ep,
	.summary = "the request, direct or handed off, names the reserved EP, which becomes Passive Connection Pending",
	.flags = DC_NO_DTOS)
{
	struct rsp_fix f;
	struct dc_endpoint a;
	DAT_CR_ARRIVAL_EVENT_DATA arr;
	DAT_EVENT ev;
	DAT_CR_PARAM c;

	rsp_up(t, &f);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, f.q, 0, 0, NULL));
	DC_ASSERT_EVENT(f.evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	arr = ev.event_data.cr_arrival_event_data;
	DC_ASSERT_EQ(arr.conn_qual, f.q);
	memset(&c, 0, sizeof(c));
	/* collateral: dat_rsp_create(3DAT) DESCRIPTION: the request carries the reserved EP, as its query shows */
	DC_ASSERT_SUCCESS(dat_cr_query(arr.cr_handle, DAT_CR_FIELD_ALL, &c));
	DC_ASSERT_PTR_EQ(c.local_ep_handle, f.e.ep);
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
	cm_assert_ep_remote_is_requester(t, f.e.ep, &c);
	request_by_handoff(t);
}

/*
 * A request to an RSP that has produced its one Connection Request.
 * dat_rsp_create(3DAT) DESCRIPTION limits the Connection Requests the RSP
 * generates and says nothing of what the requester gets (its event is
 * dat_ep_connect's clauses): any end but a connection, and no request on
 * the RSP's EVD.
 */
static void later_request_not_delivered(struct dc_ctx *t, struct dc_endpoint *req,
					DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	if (dc_wait_event(t, req->conn_evd, -1, &ev) == DAT_SUCCESS) {
		dc_note(t, "later requester: %s", dc_event_name(ev.event_number));
		DC_ASSERT(ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED,
			  "a later request to the RSP was connected");
	}
	DC_ASSERT_NO_EVENT(evd);
}

DC_CASE(dat_rsp_create, at_most_one_request,
	.summary = "an RSP produces one Connection Request, never a second, even with its EP reserved again",
	.flags = DC_NO_DTOS)
{
	struct rsp_fix f;
	struct dc_endpoint a, b, c;
	DAT_CR_HANDLE cr;
	DAT_EVD_HANDLE evd2 = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_RSP_HANDLE rsp2;
	DAT_CONN_QUAL q2 = dc_unprobed_conn_qual();

	rsp_up(t, &f);
	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, f.q, 0, 0, NULL));
	cr = dc_await_cr(t, f.evd, NULL);
	DC_SETUP(dc_connect_to_self(t, b.ep, f.q, 1000000, 0, NULL));
	later_request_not_delivered(t, &b, f.evd);
	/*
	 * The state reached another way: the request rejected, its EP goes
	 * back to the Consumer (USAGE), who reserves it again with a second
	 * RSP on another qualifier.  The first RSP has had its request: a new
	 * one to its qualifier still produces none.
	 */
	DC_SETUP(dc_dat_cr_reject(cr, 0, NULL));
	DC_SETUP_ASSERT(q2 != f.q, "the unprobed qualifier is the RSP's");
	DC_SETUP(dat_rsp_create(t->ia, q2, f.e.ep, evd2, &rsp2));
	dc_endpoint(t, &c, NULL);
	DC_SETUP(dc_connect_to_self(t, c.ep, f.q, 1000000, 0, NULL));
	later_request_not_delivered(t, &c, f.evd);
	DC_ASSERT_NO_EVENT(evd2);
}

DC_CASE(dat_rsp_create, accept_connects_ep,
	.summary = "accepting the request connects the reserved EP itself")
{
	struct rsp_fix f;
	struct dc_endpoint a;
	struct dc_lmr ma, mb;

	rsp_up(t, &f);
	dc_endpoint(t, &a, NULL);
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &ma);
	dc_lmr(t, f.e.pz, 4096, DC_PRIV_LOCAL, &mb);
	DC_SETUP(post_recv1(f.e.ep, &mb, 0, 1024, 1));
	DC_SETUP(dc_connect_to_self(t, a.ep, f.q, 0, 0, NULL));
	/* collateral: dat_rsp_create(3DAT) DESCRIPTION: accepting connects the reserved EP */
	DC_ASSERT_SUCCESS(dat_cr_accept(dc_await_cr(t, f.evd, NULL), DAT_HANDLE_NULL, 0, NULL));
	DC_ASSERT_CONN_EVENT(f.e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, f.e.ep);
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_CONNECTED);
	dc_await_event(t, a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_fill(ma.buf + 0, 50, 0x2A);
	DC_SETUP(post_send1(a.ep, &ma, 0, 50, 2));
	DC_ASSERT_DTO(f.e.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT(dc_check_fill(mb.buf, 50, 0x2A), "the reserved EP received wrong bytes");
}

DC_CASE(dat_rsp_create, reject_returns_ep,
	.summary = "rejecting the request returns the reserved EP to Unconnected, usable again")
{
	struct rsp_fix f;
	struct dc_endpoint a;
	DAT_EVD_HANDLE evd2;
	DAT_PSP_HANDLE psp2;
	DAT_CONN_QUAL q2;

	rsp_up(t, &f);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, f.q, 0, 0, NULL));
	DC_SETUP(dc_dat_cr_reject(dc_await_cr(t, f.evd, NULL), 0, NULL));
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_UNCONNECTED);
	q2 = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd2, &psp2);
	DC_ASSERT_SUCCESS(dc_connect_to_self(t, f.e.ep, q2, 0, 0, NULL));
	dc_await_cr(t, evd2, NULL);
}

DC_CASE(dat_rsp_create, null_ep_provider_created,
	.summary = "with ep_handle NULL the request comes with a Provider EP",
	.requires = "ep_creator!=0")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_RSP_HANDLE rsp;
	struct dc_endpoint a;
	DAT_CR_PARAM c;
	DAT_HANDLE_TYPE ty = (DAT_HANDLE_TYPE)-1;
	DAT_EVENT ev;

	DC_ASSERT_SUCCESS(dat_rsp_create(t->ia, q, DAT_HANDLE_NULL, evd, &rsp));
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	/* the RSP the call made listens: its request arrives (DESCRIPTION), a
	 * check of this clause, not set-up */
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	memset(&c, 0, sizeof(c));
	/* collateral: dat_rsp_create(3DAT) DESCRIPTION: the request carries the provider's EP, as its query shows */
	DC_ASSERT_SUCCESS(dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
				       DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
	DC_ASSERT(c.local_ep_handle != DAT_HANDLE_NULL, "the request carries no EP");
	/* collateral: dat_rsp_create(3DAT) DESCRIPTION: what it carries is an Endpoint */
	DC_ASSERT_SUCCESS(dat_get_handle_type(c.local_ep_handle, &ty));
	DC_ASSERT_EQ(ty, DAT_HANDLE_TYPE_EP);
}

/* The failed create left the EP and the qualifier alone. */
static void nothing_taken(struct dc_ctx *t, DAT_EP_HANDLE ep, DAT_EP_STATE st, DAT_CONN_QUAL q)
{
	DAT_PSP_HANDLE psp;

	if (ep)
		ASSERT_STATE(ep, st);
	/* collateral: dat_rsp_create(3DAT) RETURN VALUES: a refused create takes no qualifier, which then takes a PSP */
	DC_ASSERT_SUCCESS(dat_psp_create(t->ia, q, dc_evd(t, 4, DAT_EVD_CR_FLAG),
					 DAT_PSP_CONSUMER_FLAG, &psp));
	DC_CLEANUP(dat_psp_free(psp));
}

/*
 * The EP of another instance of the IA: the page does not say whether an
 * RSP may reserve it.  A refusal takes no qualifier and leaves the EP as it
 * was; a DAT_SUCCESS made an RSP that reserves the EP.
 */
DC_CASE(dat_rsp_create, ep_of_other_ia,
	.clauses = "dat_rsp_create.ep_reserved",
	.summary = "an EP of a second IA instance: refused with nothing taken, or an RSP that reserves it")
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, dto, conn;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_RSP_HANDLE rsp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	DAT_RSP_PARAM p;
	DAT_RETURN r;

	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &async, &ia2));
	DC_SETUP(dat_pz_create(ia2, &pz));
	DC_SETUP(dat_evd_create(ia2, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto));
	DC_SETUP(dat_evd_create(ia2, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &conn));
	DC_SETUP(dat_ep_create(ia2, pz, dto, dto, conn, NULL, &ep));
	r = dat_rsp_create(t->ia, q, ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &rsp);
	if (r != DAT_SUCCESS) {
		dc_note(t, "refused: %s", dc_ret_text(r));
		nothing_taken(t, ep, DAT_EP_STATE_UNCONNECTED, q);
	} else {
		ASSERT_STATE(ep, DAT_EP_STATE_RESERVED);
		memset(&p, 0, sizeof(p));
		/* collateral: dat_rsp_create(3DAT) DESCRIPTION: DAT_SUCCESS hands back the RSP made for that EP, which answers its query */
		DC_ASSERT_SUCCESS(dat_rsp_query(rsp, DAT_RSP_FIELD_EP_HANDLE, &p));
		DC_ASSERT_PTR_EQ(p.ep_handle, ep);
		DC_CLEANUP(dat_rsp_free(rsp));
	}
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

/*
 * ep_handle NULL while the IA holds max_eps EPs: the Provider's own EP may
 * not be to be had.  The create then succeeds (an EP made later, when the
 * request arrives) or fails for resources; a failure takes no qualifier.
 */
#define RSP_EP_BOUND 16384

DC_CASE(dat_rsp_create, provider_ep_unavailable,
	.summary = "ep_handle NULL with max_eps EPs alive: DAT_SUCCESS, or DAT_INSUFFICIENT_RESOURCES with the qualifier left free",
	.requires = "ep_creator!=0")
{
	DAT_COUNT max = t->ia_attr.max_eps, n = 0;
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE conn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_RSP_HANDLE rsp = DAT_HANDLE_NULL;
	DAT_EP_HANDLE ep;
	DAT_RETURN r;

	if (max > RSP_EP_BOUND)
		DC_BEYOND_SUITE_BOUND("16384 EPs", "the IA reports max_eps = %d", (int)max);
	while (n < max && dat_ep_create(t->ia, pz, dto, dto, conn, NULL, &ep) == DAT_SUCCESS)
		n++;
	dc_note(t, "%d EPs alive of max_eps %d", (int)n, (int)max);
	r = dat_rsp_create(t->ia, q, DAT_HANDLE_NULL, dc_evd(t, 4, DAT_EVD_CR_FLAG), &rsp);
	if (r == DAT_SUCCESS) {
		dc_note(t, "the RSP was created (its EP is the Provider's business)");
		DC_CLEANUP(dat_rsp_free(rsp));
		return;
	}
	DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	nothing_taken(t, DAT_HANDLE_NULL, 0, q);
}

DC_CASE(dat_rsp_create, invalid_ia_handle,
	.summary = "an ia_handle that is not an open IA is an invalid handle")
{
	struct dc_endpoint e;
	DAT_CONN_QUAL q = dc_unprobed_conn_qual();
	DAT_RSP_HANDLE rsp;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_INVALID_HANDLE(dat_rsp_create((DAT_IA_HANDLE)dc_pz(t), q, e.ep, dc_evd(t, 4, DAT_EVD_CR_FLAG),
				     &rsp), 1, IA);
	nothing_taken(t, e.ep, DAT_EP_STATE_UNCONNECTED, q);
}

DC_CASE(dat_rsp_create, invalid_evd_handle,
	.summary = "a freed EVD is an invalid handle")
{
	struct dc_endpoint e;
	DAT_CONN_QUAL q = dc_unprobed_conn_qual();
	DAT_RSP_HANDLE rsp;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_INVALID_HANDLE(dat_rsp_create(t->ia, q, e.ep, dc_freed_evd(t, DAT_EVD_CR_FLAG), &rsp), 4, EVD_CR);
	nothing_taken(t, e.ep, DAT_EP_STATE_UNCONNECTED, q);
}

DC_CASE(dat_rsp_create, invalid_ep_handle,
	.summary = "a handle of another type as ep_handle is an invalid handle")
{
	DAT_CONN_QUAL q = dc_unprobed_conn_qual();
	DAT_RSP_HANDLE rsp;

	DC_ASSERT_INVALID_HANDLE(dat_rsp_create(t->ia, q, (DAT_EP_HANDLE)dc_pz(t),
				     dc_evd(t, 4, DAT_EVD_CR_FLAG), &rsp), 3, EP);
	nothing_taken(t, DAT_HANDLE_NULL, 0, q);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_rsp_create, invalid_ep_handle_freed,
	.clauses = "dat_rsp_create.invalid_ep_handle",
	.summary = "a freed EP as ep_handle is an invalid handle")
{
	DAT_CONN_QUAL q = dc_unprobed_conn_qual();
	DAT_RSP_HANDLE rsp;

	DC_ASSERT_INVALID_HANDLE(dat_rsp_create(t->ia, q, dc_freed_ep(t), dc_evd(t, 4, DAT_EVD_CR_FLAG), &rsp), 3, EP);
	nothing_taken(t, DAT_HANDLE_NULL, 0, q);
}

DC_CASE(dat_rsp_create, ep_not_unconnected,
	.summary = "a Connected, Disconnected or already Reserved EP cannot be reserved",
	.flags = DC_NO_DTOS)
{
	struct dc_pair p;
	struct rsp_fix f;
	DAT_CONN_QUAL q = dc_unprobed_conn_qual();
	DAT_RSP_HANDLE rsp;
	/* one CR EVD for the three creates, each refused (an IA may have few
	 * EVDs, Max EVDs, dat_ia_query(3DAT)) */
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_ASSERT_RET(dat_rsp_create(t->ia, q, p.a.ep, evd, &rsp),
		      DAT_INVALID_STATE);
	nothing_taken(t, p.a.ep, DAT_EP_STATE_CONNECTED, q);
	/* Disconnected: not Unconnected until dat_ep_reset */
	DC_SETUP(dat_ep_disconnect(p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	await_state(p.a.ep, DAT_EP_STATE_DISCONNECTED, 2000);
	q = dc_unprobed_conn_qual();
	DC_ASSERT_RET(dat_rsp_create(t->ia, q, p.a.ep, evd, &rsp),
		      DAT_INVALID_STATE);
	nothing_taken(t, p.a.ep, DAT_EP_STATE_DISCONNECTED, q);
	rsp_up(t, &f);
	/* a qualifier free now: the fixture's RSP may have taken q, which
	 * dat_psp_create_any(3DAT) is free to choose (variant psp-any-from-40000) */
	q = dc_unprobed_conn_qual();
	DC_ASSERT_RET(dat_rsp_create(t->ia, q, f.e.ep, evd, &rsp),
		      DAT_INVALID_STATE);
	nothing_taken(t, f.e.ep, DAT_EP_STATE_RESERVED, q);
}

DC_CASE(dat_rsp_create, conn_qual_in_use,
	.summary = "an RSP cannot take a qualifier held by a PSP or another RSP")
{
	struct rsp_fix f;
	struct dc_endpoint e;
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	DAT_RSP_HANDLE rsp;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_RET(dat_rsp_create(t->ia, q, e.ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &rsp),
		      DAT_CONN_QUAL_IN_USE);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	rsp_up(t, &f);
	DC_ASSERT_RET(dat_rsp_create(t->ia, f.q, e.ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &rsp),
		      DAT_CONN_QUAL_IN_USE);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
}

/* As dat_psp_create.invalid_conn_qual: just outside the published range. */
DC_CASE(dat_rsp_create, invalid_conn_qual,
	.summary = "a qualifier just outside the range the provider publishes is DAT_INVALID_PARAMETER; the EP stays UNCONNECTED",
	.needs = "suite_attr:datcts.conn_qual_range")
{
	struct dc_endpoint e;
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_RSP_HANDLE rsp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL lo, hi;

	dc_conn_qual_range(t, &lo, &hi);
	dc_endpoint(t, &e, NULL);
	if (lo > 0)
		DC_ASSERT_RET(dat_rsp_create(t->ia, lo - 1, e.ep, evd, &rsp), DAT_INVALID_PARAMETER);
	if (hi < UINT64_MAX) {
		DC_ASSERT_RET(dat_rsp_create(t->ia, hi + 1, e.ep, evd, &rsp), DAT_INVALID_PARAMETER);
		DC_ASSERT_RET(dat_rsp_create(t->ia, UINT64_MAX, e.ep, evd, &rsp),
			      DAT_INVALID_PARAMETER);
	}
	if (lo == 0 && hi == UINT64_MAX)
		dc_note(t, "the published range holds every qualifier: none is invalid");
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	/* the boundary itself: the ends of the range are usable qualifiers
	 * (in use by someone else at most) */
	for (int i = 0; i < 2; i++) {
		DAT_CONN_QUAL q = i ? hi : lo;
		DAT_RETURN r = dat_rsp_create(t->ia, q, e.ep, evd, &rsp);

		DC_ASSERT(!dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE),
			  "qualifier %llu, inside the published range, refused as invalid",
			  (unsigned long long)q);
		if (r == DAT_SUCCESS)
			DC_SETUP(dat_rsp_free(rsp));
	}
}

/*
 * Out of memory (the allocation fault hook): each allocation of 40 creates
 * in a row, each on an EP of its own, failing in turn, dat_rsp_create gives
 * DAT_INSUFFICIENT_RESOURCES (dat_rsp_create(3DAT) RETURN VALUES) or an RSP
 * on the qualifier and EP given.  A refused create leaves the qualifier
 * free and the EP the Consumer's, as it was: the next try, on both, takes
 * them.  The same with ep_handle NULL where the Provider makes EPs
 * (ep_creator not DAT_PSP_CREATES_EP_NEVER).  Once the RSPs and EPs are
 * freed the IA closes gracefully (no refused create left an RSP or an EP
 * of the Provider's).
 */
static DAT_RETURN oom_rsp_create(struct dc_ctx *t, struct cm_oom_sps *o)
{
	return dat_rsp_create(t->ia, o->q[o->n], o->ep[o->n], o->evd, &o->sp[o->n]);
}

static DAT_RETURN oom_rsp_make(struct dc_ctx *t, void *arg)
{
	return cm_oom_sp_create(t, arg, oom_rsp_create);
}

static DAT_RETURN rsp_free_h(DAT_HANDLE h)
{
	return dat_rsp_free(h);
}

static void oom_rsp_after(struct dc_ctx *t, void *arg, DAT_RETURN r)
{
	struct cm_oom_sps *o = arg;
	DAT_EP_PARAM p;

	if (r == DAT_SUCCESS)
		return;
	/* collateral: dat_rsp_create(3DAT) RETURN VALUES: a refused create reserved nothing, so the EP is as it was, Unconnected */
	p = DC_EP_PARAM(o->ep[o->n]);
	DC_ASSERT(p.ep_state == DAT_EP_STATE_UNCONNECTED,
		  "after a refused dat_rsp_create the EP is in state %d", (int)p.ep_state);
}

static void oom_rsp_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct cm_oom_sps *o = arg;
	DAT_RSP_PARAM p;

	memset(&p, 0, sizeof(p));
	/* collateral: dat_rsp_create(3DAT) RETURN VALUES: DAT_SUCCESS made the RSP asked for, which its query shows */
	DC_ASSERT_SUCCESS(dat_rsp_query(o->sp[o->n], DAT_RSP_FIELD_ALL, &p));
	DC_ASSERT(p.conn_qual == o->q[o->n] && p.ep_handle == o->ep[o->n] && p.evd_handle == o->evd,
		  "an RSP made with an allocation failing reports qualifier %llu, EP %p, EVD %p",
		  (unsigned long long)p.conn_qual, p.ep_handle, p.evd_handle);
	cm_oom_sp_next(t, o, keep, rsp_free_h);
}

/* The same for an RSP with ep_handle NULL: qualifier and EVD as given. */
static void oom_rsp_null_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct cm_oom_sps *o = arg;
	DAT_RSP_PARAM p;

	memset(&p, 0, sizeof(p));
	/* collateral: dat_rsp_create(3DAT) RETURN VALUES: DAT_SUCCESS made the RSP asked for, which its query shows */
	DC_ASSERT_SUCCESS(dat_rsp_query(o->sp[o->n], DAT_RSP_FIELD_ALL, &p));
	DC_ASSERT(p.conn_qual == o->q[o->n] && p.evd_handle == o->evd,
		  "an RSP (ep_handle NULL) made with an allocation failing reports qualifier %llu, EVD %p",
		  (unsigned long long)p.conn_qual, p.evd_handle);
	cm_oom_sp_next(t, o, keep, rsp_free_h);
}

DC_CASE(dat_rsp_create, out_of_memory,
	.clauses = "dat_rsp_create.provider_ep_unavailable",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES (qualifier and EP as they were) or a working RSP, and nothing left behind")
{
	struct cm_oom_sps o = { .evd = dc_evd(t, 8, DAT_EVD_CR_FLAG) };
	struct dc_alloc_call c = { "dat_rsp_create", oom_rsp_make, oom_rsp_works, &o, oom_rsp_after };
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE conn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	int n = dc_within_limit(DC_ALLOC_FAULT_OBJECTS, t->ia_attr.max_eps);
	DAT_EP_ATTR a;

	dc_ep_attr_no_dtos(t, &a);
	for (int i = 0; i < n; i++) {
		o.ep[i] = dc_ep(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, conn, &a);
		if (dc_alloc_sweep(t, &c) < 0) {
			DC_CLEANUP(dat_ep_free(o.ep[i]));
			n = i;
		}
	}
	for (int i = 0; i < o.n; i++)
		DC_CLEANUP(dat_rsp_free(o.sp[i]));
	for (int i = 0; i < n; i++)
		DC_CLEANUP(dat_ep_free(o.ep[i]));
	/* with ep_handle NULL, where the Provider makes the EP: what it made
	 * for a refused create is gone, and so is what it made for an RSP freed */
	if (t->prov_attr.ep_creator != DAT_PSP_CREATES_EP_NEVER) {
		o.n = 0;
		o.tried = false;
		memset(o.ep, 0, sizeof(o.ep));
		c.check = oom_rsp_null_works;
		c.after = NULL;
		for (int i = 0; i < n; i++)
			if (dc_alloc_sweep(t, &c) < 0)
				break;
		for (int i = 0; i < o.n; i++)
			DC_CLEANUP(dat_rsp_free(o.sp[i]));
	}
	DC_CLEANUP(dat_evd_free(conn));
	DC_CLEANUP(dat_evd_free(o.evd));
	DC_CLEANUP(dat_pz_free(pz));
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}
