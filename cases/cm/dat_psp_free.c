/* SPDX-License-Identifier: MIT */
/*
 * dat_psp_free(3DAT): clauses/dat_psp_free.toml.
 */
#include "cm_common.h"

DC_CASE(dat_psp_free, handle_unusable_after_free,
	.summary = "dat_psp_free frees a listening PSP")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;

	dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	DC_ASSERT_SUCCESS(dat_psp_free(psp));
}

/* The dead handle: a case of its own, so that a call that does not
 * survive the handle of a destroyed PSP (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_psp_free, handle_unusable_after_free_freed,
	.clauses = "dat_psp_free.handle_unusable_after_free",
	.summary = "after dat_psp_free the handle is dead")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_PSP_PARAM p;

	dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	DC_SETUP(dat_psp_free(psp));
	/* collateral: dat_psp_free(3DAT) DESCRIPTION: operations on the destroyed PSP's handle fail */
	DC_ASSERT_INVALID_HANDLE(dat_psp_query(psp, DAT_PSP_FIELD_ALL, &p), 1, PSP);
}

DC_CASE(dat_psp_free, later_requests_rejected,
	.summary = "requests after the free are rejected as if nobody listened")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 16, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_EVENT_NUMBER none_listening = no_listener_event(t);
	/*
	 * Not a qualifier of dat_psp_create_any: a sibling case's create_any
	 * may be handed the freed one at once (variant psp-any-from-40000)
	 * and answer the request; nobody else is handed this one.
	 */
	DAT_CONN_QUAL q = dc_unprobed_conn_qual();
	struct dc_endpoint e;

	DC_SETUP(dat_psp_create(t->ia, q, evd, DAT_PSP_CONSUMER_FLAG, &psp));
	DC_ASSERT_SUCCESS(dat_psp_free(psp));
	dc_endpoint(t, &e, NULL);
	DC_SETUP(dc_connect_to_self(t, e.ep, q, 0, 0, NULL));
	/* dat_psp_free(3DAT) DESCRIPTION: rejected as when nobody listens */
	DC_ASSERT_CONN_EVENT(e.conn_evd, none_listening, e.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_DISCONNECTED);
	DC_ASSERT_NO_EVENT(evd);
}

/*
 * The clause names the Provider EPs too: a request of a provider-flag PSP,
 * the PSP freed, the Provider EP it carries is still accepted with it.
 */
static void provider_ep_unaffected(struct dc_ctx *t)
{
	struct dc_endpoint a, e;
	DAT_HANDLE psp = DAT_HANDLE_NULL;
	DAT_CR_HANDLE cr = cm_request_of_kind_sp(t, CM_REQ_PROVIDER_PSP, &a, &e, &psp);

	if (cr == DAT_HANDLE_NULL)
		return;
	DC_ASSERT_SUCCESS(dat_psp_free((DAT_PSP_HANDLE)psp));
	/* collateral: dat_psp_free(3DAT) DESCRIPTION: the request and its Provider EP keep working */
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, e.ep);
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
	ASSERT_STATE(e.ep, DAT_EP_STATE_CONNECTED);
}

DC_CASE(dat_psp_free, previous_requests_unaffected,
	.summary = "a request received before the free, and the Provider EP it carries, can still be queried and accepted")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM c;

	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &ma);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &mb);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	cr = dc_await_cr(t, evd, NULL);
	DC_ASSERT_SUCCESS(dat_psp_free(psp));
	/* collateral: dat_psp_free(3DAT) DESCRIPTION: requests made before the free keep working */
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
	DC_SETUP(post_recv1(b.ep, &mb, 0, 1024, 1));
	/* collateral: dat_psp_free(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
	dc_fill(ma.buf + 0, 64, 0x23);
	DC_SETUP(post_send1(a.ep, &ma, 0, 64, 2));
	DC_ASSERT_DTO(b.recv_evd, 1, DAT_DTO_SUCCESS);
	/* the Provider EP's part makes a request of its own */
	dc_endpoint_down(t, &a);
	dc_endpoint_down(t, &b);
	provider_ep_unaffected(t);
}

DC_CASE(dat_psp_free, in_progress_consistent,
	.summary = "a request racing the free either arrives or is rejected, never both or neither")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	struct dc_endpoint e;
	DAT_EVENT ev;
	DAT_RETURN r;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(dc_connect_to_self(t, e.ep, q, 0, 0, NULL));
	DC_ASSERT_SUCCESS(dat_psp_free(psp));		/* races the request */
	r = dc_wait_event(t, e.conn_evd, 1000, &ev);
	if (r == DAT_SUCCESS) {
		DC_ASSERT_EQ(ev.event_number, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
		DC_ASSERT_NO_EVENT(evd);
		dc_note(t, "the request was rejected by the provider");
		return;
	}
	/* No outcome yet: then the request must be waiting on the EVD. */
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_SETUP(dc_dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle, 0, NULL));
	DC_ASSERT_CONN_EVENT(e.conn_evd, DAT_CONNECTION_EVENT_PEER_REJECTED, e.ep);
	dc_note(t, "the request arrived before the free");
}

DC_CASE(dat_psp_free, qual_reusable,
	.summary = "after the free a new PSP can take the qualifier")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);

	DC_ASSERT_SUCCESS(dat_psp_free(psp));
	/* collateral: dat_psp_free(3DAT) DESCRIPTION: the freed qualifier takes a new Service Point */
	DC_ASSERT_SUCCESS(dat_psp_create(t->ia, q, evd, DAT_PSP_CONSUMER_FLAG, &psp));
}

DC_CASE(dat_psp_free, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(dat_psp_free((DAT_PSP_HANDLE)dc_pz(t)), 1, PSP);
}

/* The same for a freed PSP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_psp_free, invalid_handle_freed,
	.clauses = "dat_psp_free.invalid_handle",
	.summary = "a freed PSP is an invalid handle")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;

	dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	DC_SETUP(dat_psp_free(psp));
	DC_ASSERT_INVALID_HANDLE(dat_psp_free(psp), 1, PSP);
}
