/* SPDX-License-Identifier: MIT */
/*
 * dat_cr_reject(3DAT): clauses/dat_cr_reject.toml.
 */
#include "cm_common.h"

/*
 * This page's rejects use the call's whole DAT 2.0 form: the 2.0 build sends
 * private data back to the requester (the parameters 2.0 adds, dat12-facts.md
 * section 5) and checks the same outcome (the clauses' dat2 field); the 1.2
 * call has no private data.
 */
static DAT_RETURN reject(DAT_CR_HANDLE cr)
{
	static const char data[16] = "datcts reject";

	return dc_dat_cr_reject(cr, (DAT_COUNT)sizeof(data), data);
}

static void rejected(struct dc_ctx *t, enum cm_req_kind k, DAT_CR_HANDLE cr,
		     struct dc_endpoint *a, struct dc_endpoint *e)
{
	(void)k;
	(void)e;
	DC_ASSERT_SUCCESS(reject(cr));
	DC_ASSERT_CONN_EVENT(a->conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, a->ep);
	ASSERT_STATE(a->ep, DAT_EP_STATE_DISCONNECTED);
}

DC_CASE(dat_cr_reject, rejects,
	.summary = "the requester of a rejected request gets PEER_REJECTED and is Disconnected, whatever the request's Service Point",
	.flags = DC_NO_DTOS)
{
	/* each kind of request the pages distinguish (consumer PSP, provider PSP, RSP) */
	cm_each_request(t, rejected);
}

static void reject_succeeds(struct dc_ctx *t, enum cm_req_kind k, DAT_CR_HANDLE cr,
			    struct dc_endpoint *a, struct dc_endpoint *e)
{
	(void)k;
	(void)a;
	(void)e;
	DC_ASSERT_SUCCESS(reject(cr));
}

static void rejected_cr_gone(struct dc_ctx *t, enum cm_req_kind k, DAT_CR_HANDLE cr,
			     struct dc_endpoint *a, struct dc_endpoint *e)
{
	DAT_EP_HANDLE ep = cm_accept_ep(t, k);
	DAT_CR_PARAM c;

	(void)a;
	(void)e;
	DC_SETUP(reject(cr));
	/* collateral: dat_cr_reject(3DAT) DESCRIPTION: the rejected request is destroyed, so its handle fails */
	DC_ASSERT_INVALID_HANDLE(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c), 1, CR);
	/* collateral: dat_cr_reject(3DAT) DESCRIPTION: as above */
	DC_ASSERT_INVALID_HANDLE(dat_cr_accept(cr, ep, 0, NULL), 1, CR);
}

DC_CASE(dat_cr_reject, cr_destroyed,
	.summary = "a request is rejected, whatever its Service Point",
	.flags = DC_NO_DTOS)
{
	cm_each_request(t, reject_succeeds);
}

/* The dead handle: a case of its own, so that a call that does not
 * survive the handle of a destroyed request (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_cr_reject, cr_destroyed_freed,
	.clauses = "dat_cr_reject.cr_destroyed",
	.summary = "when reject returns, the CR handle is dead, whatever the request's Service Point",
	.flags = DC_NO_DTOS)
{
	cm_each_request(t, rejected_cr_gone);
}

DC_CASE(dat_cr_reject, provider_ep_reverts,
	.summary = "rejecting a request with a Provider EP works and the PSP keeps serving",
	.requires = "ep_creator!=0")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_PROVIDER_FLAG, &evd, &psp);
	struct dc_endpoint a, a2;
	DAT_CR_PARAM c;

	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	DC_ASSERT_SUCCESS(reject(dc_await_cr(t, evd, NULL)));
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, a.ep);
	dc_endpoint(t, &a2, NULL);
	DC_SETUP(dc_connect_to_self(t, a2.ep, q, 0, 0, NULL));
	{
		/* the PSP keeps serving: the next request must arrive */
		DAT_EVENT ev;
		DAT_RETURN r = dc_wait_event(t, evd, 5000, &ev);

		DC_ASSERT(r == DAT_SUCCESS &&
			  ev.event_number == DAT_CONNECTION_REQUEST_EVENT,
			  "after the reject the PSP took no further request within 5 s (%s)",
			  r == DAT_SUCCESS ? dc_event_name(ev.event_number) : dc_ret_text(r));
		memset(&c, 0, sizeof(c));
		/* collateral: dat_cr_reject(3DAT) DESCRIPTION: the Provider EP the request came with is the one handed back */
		DC_ASSERT_SUCCESS(dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
					       DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
	}
	DC_ASSERT(c.local_ep_handle != DAT_HANDLE_NULL, "the next request carries no Provider EP");
}

DC_CASE(dat_cr_reject, rsp_ep_reverts_to_consumer,
	.summary = "rejecting an RSP request gives the EP back, Unconnected and usable")
{
	struct dc_endpoint e, a;
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;

	dc_endpoint(t, &e, NULL);
	dc_rsp_any(t, e.ep, evd, &q, &rsp);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	DC_ASSERT_SUCCESS(reject(dc_await_cr(t, evd, NULL)));
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	/* collateral: dat_cr_reject(3DAT) DESCRIPTION: the EP is the Consumer's again, free for any use */
	DC_ASSERT_SUCCESS(dat_ep_free(e.ep));
}

DC_CASE(dat_cr_reject, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(reject((DAT_CR_HANDLE)dc_pz(t)), 1, CR);
}

/* The same for a rejected CR, which dat_cr_reject(3DAT) DESCRIPTION
 * destroys: a case of its own, so that a call that does not survive the
 * handle of a destroyed object (a registry that dispatches through the
 * handle) leaves the checks above judged. */
DC_CASE(dat_cr_reject, invalid_handle_freed,
	.clauses = "dat_cr_reject.invalid_handle",
	.summary = "a rejected CR is an invalid handle")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	struct dc_endpoint a;
	DAT_CR_HANDLE cr;

	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	cr = dc_await_cr(t, evd, NULL);
	DC_SETUP(reject(cr));
	DC_ASSERT_INVALID_HANDLE(reject(cr), 1, CR);
}
