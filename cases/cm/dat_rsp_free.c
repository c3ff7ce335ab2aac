/* SPDX-License-Identifier: MIT */
/*
 * dat_rsp_free(3DAT): clauses/dat_rsp_free.toml.
 */
#include "../ep/ep_common.h"

DC_CASE(dat_rsp_free, handle_unusable_after_free,
	.summary = "dat_rsp_free frees a listening RSP")
{
	struct rsp_fix f;

	rsp_up(t, &f);
	DC_ASSERT_SUCCESS(dat_rsp_free(f.rsp));
}

/* The dead handle: a case of its own, so that a call that does not
 * survive the handle of a destroyed RSP (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_rsp_free, handle_unusable_after_free_freed,
	.clauses = "dat_rsp_free.handle_unusable_after_free",
	.summary = "after dat_rsp_free the handle is dead")
{
	struct rsp_fix f;
	DAT_RSP_PARAM p;

	rsp_up(t, &f);
	DC_SETUP(dat_rsp_free(f.rsp));
	/* collateral: dat_rsp_free(3DAT) DESCRIPTION: operations on the destroyed RSP's handle fail */
	DC_ASSERT_INVALID_HANDLE(dat_rsp_query(f.rsp, DAT_RSP_FIELD_ALL, &p), 1, RSP);
}

DC_CASE(dat_rsp_free, later_requests_rejected,
	.summary = "requests after the free are rejected as if nobody listened")
{
	DAT_EVENT_NUMBER none_listening = no_listener_event(t);
	struct rsp_fix f;
	struct dc_endpoint a;

	/* a qualifier no sibling's dat_psp_create_any is handed after the
	 * free (as dat_psp_free.later_requests_rejected) */
	dc_endpoint(t, &f.e, NULL);
	f.evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	f.q = dc_unprobed_conn_qual();
	DC_SETUP(dat_rsp_create(t->ia, f.q, f.e.ep, f.evd, &f.rsp));
	DC_ASSERT_SUCCESS(dat_rsp_free(f.rsp));
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, f.q, 0, 0, NULL));
	/* dat_rsp_free(3DAT) DESCRIPTION: rejected as when nobody listens */
	DC_ASSERT_CONN_EVENT(a.conn_evd, none_listening, a.ep);
	ASSERT_STATE(a.ep, DAT_EP_STATE_DISCONNECTED);
	DC_ASSERT_NO_EVENT(f.evd);
}

DC_CASE(dat_rsp_free, previous_request_unaffected,
	.summary = "a request received before the free can still be accepted")
{
	struct rsp_fix f;
	struct dc_endpoint a;
	DAT_CR_HANDLE cr;

	rsp_up(t, &f);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, f.q, 0, 0, NULL));
	cr = dc_await_cr(t, f.evd, NULL);
	DC_ASSERT_RET_ANY(dat_rsp_free(f.rsp), DAT_SUCCESS, DAT_INVALID_HANDLE);
	/* collateral: dat_rsp_free(3DAT) DESCRIPTION: a request made before the free is not affected */
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
	DC_ASSERT_CONN_EVENT(f.e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, f.e.ep);
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_CONNECTED);
}

DC_CASE(dat_rsp_free, ep_reverts_to_consumer,
	.summary = "freeing an unused RSP returns its EP to Unconnected, usable again")
{
	struct rsp_fix f;
	DAT_RSP_HANDLE rsp2;
	DAT_CONN_QUAL q2;
	DAT_RETURN r;

	rsp_up(t, &f);
	DC_ASSERT_SUCCESS(dat_rsp_free(f.rsp));
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_UNCONNECTED);
	/*
	 * A fresh qualifier: the page does not say when the old one is free
	 * again, and the clause speaks of the EP only.  Nor when the probe's
	 * freed PSP leaves it (DC_ON_PROBED_QUAL): scm-rxe0 answered
	 * DAT_CONN_QUAL_IN_USE there once in the certification of 2026-11-27.
	 */
	q2 = dc_free_conn_qual(t);
	/* collateral: dat_rsp_free(3DAT) DESCRIPTION: the EP is the Consumer's again, free to back a new RSP */
	DC_ON_PROBED_QUAL(r, dat_rsp_create(t->ia, q2, f.e.ep, f.evd, &rsp2));
	DC_ASSERT_SUCCESS(r);
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_RESERVED);
}

DC_CASE(dat_rsp_free, in_progress_consistent,
	.summary = "a request racing the free either arrives (EP pending) or is rejected (EP back)")
{
	struct rsp_fix f;
	struct dc_endpoint a;
	DAT_EVENT ev;
	DAT_RETURN r;

	rsp_up(t, &f);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, f.q, 0, 0, NULL));
	r = dat_rsp_free(f.rsp);		/* races the request */
	DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_INVALID_HANDLE);
	r = dc_wait_event(t, a.conn_evd, 1000, &ev);
	if (r == DAT_SUCCESS) {
		DC_ASSERT_EQ(ev.event_number, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
		DC_ASSERT_NO_EVENT(f.evd);
		ASSERT_STATE(f.e.ep, DAT_EP_STATE_UNCONNECTED);
		return;
	}
	DC_ASSERT_EVENT(f.evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	ASSERT_STATE(f.e.ep, DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
	DC_SETUP(dc_dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle, 0, NULL));
}

DC_CASE(dat_rsp_free, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(dat_rsp_free((DAT_RSP_HANDLE)dc_pz(t)), 1, RSP);
}

/* The same for a freed RSP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_rsp_free, invalid_handle_freed,
	.clauses = "dat_rsp_free.invalid_handle",
	.summary = "a freed RSP is an invalid handle")
{
	struct rsp_fix f;

	rsp_up(t, &f);
	DC_SETUP(dat_rsp_free(f.rsp));
	DC_ASSERT_INVALID_HANDLE(dat_rsp_free(f.rsp), 1, RSP);
}
