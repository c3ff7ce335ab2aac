/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_free(3DAT): clauses/dat_ep_free.toml.
 * Free is checked in every state it is allowed in and refused in the three
 * it is not, each state reached for real (ep_common.h: at_state).
 */
#include "ep_ways.h"

/* After a successful free the handle is dead. */
static void assert_handle_dead(struct dc_ctx *t, DAT_EP_HANDLE ep)
{
	DAT_EP_PARAM q;
	DAT_EP_STATE st;
	DAT_BOOLEAN ri, qi;

	/* collateral: dat_ep_free(3DAT) DESCRIPTION: operations on the freed EP's handle fail */
	DC_ASSERT_INVALID_HANDLE(dat_ep_query(ep, DAT_EP_FIELD_ALL, &q), 1, EP);
	/* collateral: dat_ep_free(3DAT) DESCRIPTION: as above */
	DC_ASSERT_INVALID_HANDLE(dat_ep_get_status(ep, &st, &ri, &qi), 1, EP);
}

DC_CASE(dat_ep_free, handle_unusable_after_free,
	.summary = "dat_ep_free frees an Unconnected EP")
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_SUCCESS(dat_ep_free(e.ep));
}

/* The dead handle: a case of its own, so that a call that does not
 * survive the handle of a destroyed EP (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_free, handle_unusable_after_free_freed,
	.clauses = "dat_ep_free.handle_unusable_after_free",
	.summary = "after dat_ep_free the handle is dead for query and get_status")
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(dat_ep_free(e.ep));
	assert_handle_dead(t, e.ep);
}

/* The free is allowed_states' (the state permits it); that the handle is
 * dead afterwards is handle_unusable_after_free's. */
static void freed_and_dead(struct dc_ctx *t, struct subject *s, const void *arg)
{
	(void)arg;
	DC_FOR_CLAUSE("dat_ep_free.allowed_states");
	DC_ASSERT_SUCCESS(dat_ep_free(s->ep));
	DC_FOR_CLAUSE("dat_ep_free.handle_unusable_after_free");
	assert_handle_dead(t, s->ep);
}

#define FREE_OK(st)							\
	STATE_CASE(dat_ep_free, allowed_in_##st, st, freed_and_dead, NULL,	\
		   "dat_ep_free.allowed_states dat_ep_free.handle_unusable_after_free", \
		   "an EP can be freed in " #st)
FREE_OK(unconnected)
FREE_OK(active_connection_pending)
FREE_OK(completion_pending)
FREE_OK(connected)
FREE_OK(disconnect_pending)
FREE_OK(disconnected)

/* The same states reached the other ways the pages give: DISCONNECTED by a
 * graceful disconnect and by the peer's (dat_ep_disconnect(3DAT)),
 * UNCONNECTED by a reset out of DISCONNECTED (dat_ep_reset(3DAT)). */
DC_CASE(dat_ep_free, allowed_in_states_reached_other_ways,
	.clauses = "dat_ep_free.allowed_states",
	.summary = "an EP can be freed in DISCONNECTED reached gracefully or by the peer, and in "
		   "UNCONNECTED reached by a reset")
{
	static const int ways[] = { DISC_OWN_GRACEFUL, DISC_BY_PEER };
	struct dc_pair p;

	for (int i = 0; i < 2; i++) {
		dc_note(t, "DISCONNECTED by %s", disc_way_name(ways[i]));
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		disconnect_pair_by(&p, ways[i]);
		DC_ASSERT_SUCCESS(dat_ep_free(p.a.ep));
		p.a.ep = DAT_HANDLE_NULL;	/* freed: the clause's own call */
		pair_down(t, &p);
	}
	dc_note(t, "UNCONNECTED by a reset out of DISCONNECTED");
	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	disconnect_pair_by(&p, DISC_BY_PEER);
	DC_SETUP(dat_ep_reset(p.a.ep));
	await_state(p.a.ep, DAT_EP_STATE_UNCONNECTED, 2000);
	DC_ASSERT_SUCCESS(dat_ep_free(p.a.ep));
}

static void reserved_refused(struct dc_ctx *t, struct subject *s, const void *arg)
{
	struct dc_endpoint c;
	DAT_RETURN r;

	(void)arg;
	DC_ASSERT_RET(dat_ep_free(s->ep), DAT_INVALID_STATE);
	ASSERT_STATE(s->ep, DAT_EP_STATE_RESERVED);
	/* The RSP still works: a request to its qualifier arrives. */
	dc_endpoint(t, &c, NULL);
	r = dat_ep_connect(c.ep, t->ia_attr.ia_address_ptr, s->qual, dc_case_timeout_us(t), 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	DC_SETUP(r);
	dc_expect_event_at(t, __FILE__, __LINE__, DC_FAIL, s->cr_evd,
			   DAT_CONNECTION_REQUEST_EVENT, NULL);
}
STATE_CASE(dat_ep_free, reserved_refused, reserved, reserved_refused, NULL,
	   "dat_ep_free.reserved_refused", "freeing a Reserved EP is refused")

/* The request can still be accepted on the EP that could not be freed. */
static void pending_refused(struct dc_ctx *t, struct subject *s, const void *arg)
{
	(void)arg;
	DC_ASSERT_RET(dat_ep_free(s->ep), DAT_INVALID_STATE);
	ASSERT_STATE(s->ep, s->state);
	adopt(s);
	DC_SETUP(dat_cr_accept(s->cr, DAT_HANDLE_NULL, 0, NULL));
	DC_ASSERT_CONN_EVENT(s->e.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, s->ep);
}
STATE_CASE(dat_ep_free, passive_connection_pending_refused, passive_connection_pending,
	   pending_refused, NULL, "dat_ep_free.passive_connection_pending_refused",
	   "freeing an EP with a pending request (RSP) is refused")
STATE_CASE(dat_ep_free, tentative_connection_pending_refused, tentative_connection_pending,
	   pending_refused, NULL, "dat_ep_free.tentative_connection_pending_refused",
	   "freeing the Provider EP of a pending request is refused")

DC_CASE(dat_ep_free, reserved_after_rsp_free,
	.summary = "after its RSP is freed, a Reserved EP is Unconnected and can be freed")
{
	struct dc_endpoint e;
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;

	dc_endpoint(t, &e, NULL);
	dc_rsp_any(t, e.ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &q, &rsp);
	DC_SETUP(dat_rsp_free(rsp));
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_SUCCESS(dat_ep_free(e.ep));
}

static void free_after_reject(struct dc_ctx *t, struct subject *s, const void *arg)
{
	(void)arg;
	DC_SETUP(dc_dat_cr_reject(s->cr, 0, NULL));
	ASSERT_STATE(s->ep, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_SUCCESS(dat_ep_free(s->ep));
}
STATE_CASE(dat_ep_free, passive_pending_after_reject, passive_connection_pending,
	   free_after_reject, NULL, "dat_ep_free.passive_pending_after_reject",
	   "after the request is rejected the passive EP is Unconnected and can be freed")

/* Active frees its EP during set-up; the passive side must not end up connected. */
DC_TWO_NODE_CASE(dat_ep_free, aborts_connection_setup,
		 .summary = "freeing the active EP during set-up aborts the connection");
DC_PASSIVE(dat_ep_free, aborts_connection_setup)
{
	struct dc_endpoint e;
	DAT_EVD_HANDLE cr_evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_CR_HANDLE cr;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(dat_psp_create_any(t->ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	dc_announce(t, NULL, q);
	cr = dc_await_cr(t, cr_evd, NULL);
	dc_peer_send(t, "cr", "arrived");
	dc_peer_wait(t, "freed", NULL, 0);
	/* dat_ep_free(3DAT) DESCRIPTION: the establishment is aborted */
	ASSERT_ACCEPT_OF_ABORTED(cr, &e);
	dc_peer_send(t, "done", "ok");
}
DC_ACTIVE(dat_ep_free, aborts_connection_setup)
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(dat_ep_connect(e.ep, (DAT_IA_ADDRESS_PTR)&t->peer.addr, t->peer.conn_qual,
				dc_case_timeout_us(t), 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG));
	dc_peer_wait(t, "cr", NULL, 0);
	ASSERT_STATE(e.ep, DAT_EP_STATE_ACTIVE_CONNECTION_PENDING);
	DC_ASSERT_SUCCESS(dat_ep_free(e.ep));
	dc_peer_send(t, "freed", "ok");
	dc_peer_wait(t, "done", NULL, 0);
}

DC_CASE(dat_ep_free, outstanding_completions,
	.summary = "freeing an EP with Receives outstanding leaves at most clean flushed completions")
{
	struct dc_pair p;
	bool seen[4] = { false };
	DAT_EVENT ev;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	for (int i = 0; i < 4; i++)
		DC_SETUP(post_recv1(p.a.ep, &p.ma, (DAT_VLEN)i * 256, 256, 20 + (uint64_t)i));
	DC_ASSERT_SUCCESS(dat_ep_free(p.a.ep));
	while (dat_evd_dequeue(p.a.recv_evd, &ev) == DAT_SUCCESS) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;
		uint64_t c = d->user_cookie.as_64;

		DC_ASSERT(ev.event_number == DAT_DTO_COMPLETION_EVENT,
			  "unexpected %s on the receive EVD", dc_event_name(ev.event_number));
		DC_ASSERT(c >= 20 && c < 24 && !seen[c - 20],
			  "completion of unknown or repeated cookie %llu", (unsigned long long)c);
		DC_ASSERT(d->status != DAT_DTO_SUCCESS,
			  "Receive %llu reported success, but no data was sent", (unsigned long long)c);
		seen[c - 20] = true;
	}
}

DC_CASE(dat_ep_free, event_streams_destroyed,
	.summary = "after the EP is freed its EVDs are no longer in use and can be freed")
{
	struct dc_endpoint e;

	dc_endpoint(t, &e, NULL);
	DC_ASSERT_SUCCESS(dat_ep_free(e.ep));	/* the clause's own free (Unconnected) */
	/* collateral: dat_ep_free(3DAT) DESCRIPTION: the EP's streams are gone, so its EVDs are free to go */
	DC_ASSERT_SUCCESS(dat_evd_free(e.recv_evd));
	/* collateral: dat_ep_free(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_evd_free(e.req_evd));
	/* collateral: dat_ep_free(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_evd_free(e.conn_evd));
}

DC_CASE(dat_ep_free, double_free,
	.summary = "freeing a freed EP again does no harm")
{
	struct dc_endpoint e, e2;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(dat_ep_free(e.ep));
	DC_ASSERT_RET_ANY(dat_ep_free(e.ep), DAT_SUCCESS, DAT_INVALID_HANDLE);
	dc_endpoint(t, &e2, NULL);	/* the IA still works */
}

DC_CASE(dat_ep_free, invalid_handle,
	.summary = "a handle of another type is an invalid handle and is left alone")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_PZ_PARAM pp;

	DC_ASSERT_INVALID_HANDLE(dat_ep_free((DAT_EP_HANDLE)pz), 1, EP);
	DC_SETUP(dat_pz_query(pz, DAT_PZ_FIELD_ALL, &pp));
}

/*
 * allowed_states whichever way the EP got to its state (ep_ways.h): CONNECTED
 * as the active EP of dat_ep_connect or dat_ep_dup_connect and as each kind
 * of accepting EP, DISCONNECTED by a rejected and by a timed-out connect
 * (dat_ep_connect(3DAT) DESCRIPTION).  None of them is one of the three
 * states dat_ep_free(3DAT) DESCRIPTION refuses.
 */
/* Frees the subject of way (a DISCONNECTED way waited for first): the
 * clause's own call when checked, else set-up. */
static void free_subject(struct dc_ctx *t, struct way_conn *w, int way, bool checked)
{
	DAT_RETURN r;

	if (way >= CONNECTED_WAYS)
		await_state(w->s.ep, DAT_EP_STATE_DISCONNECTED, 2000);
	r = dat_ep_free(w->s.ep);
	if (checked)
		DC_ASSERT(r == DAT_SUCCESS, "dat_ep_free of %s returned %s", ep_way_name(way),
			  dc_ret_text(r));
	else
		DC_SETUP_ASSERT(r == DAT_SUCCESS, "set-up: dat_ep_free of %s returned %s",
				ep_way_name(way), dc_ret_text(r));
	w->s.ep = DAT_HANDLE_NULL;
}

DC_CASE(dat_ep_free, allowed_each_way,
	.clauses = "dat_ep_free.allowed_states",
	.summary = "an EP connected each way (connect, dup_connect, consumer PSP, Provider EP, RSP, "
		   "handoff), and one rejected or timed out, can be freed")
{
	struct way_conn w;

	for (int way = 0; way < EP_WAYS; way++) {
		if (!way_reach(&w, way))
			continue;
		free_subject(t, &w, way, true);
		way_down(t, &w);
	}
}

/*
 * event_streams_destroyed whichever way the EP got to its state (ep_ways.h):
 * freed while CONNECTED as each kind of active and accepting EP, or while
 * DISCONNECTED after a rejected or timed-out connect, its connect EVD (its
 * own in every way; the Provider EP's given by dat_ep_modify) is no longer
 * fed by it (dat_ep_free(3DAT) DESCRIPTION: the free destroys the EP's event
 * stream on each of its EVDs).
 */
DC_CASE(dat_ep_free, event_streams_destroyed_each_way,
	.clauses = "dat_ep_free.event_streams_destroyed",
	.summary = "after freeing an EP connected each way, rejected or timed out, its connect EVD "
		   "is no longer in use and can be freed")
{
	struct way_conn w;

	for (int way = 0; way < EP_WAYS; way++) {
		if (!way_reach(&w, way))
			continue;
		free_subject(t, &w, way, false);
		/* collateral: dat_ep_free(3DAT) DESCRIPTION: the EP's stream on its
		 * connect EVD is gone, so that EVD is free to go */
		DC_ASSERT_SUCCESS(dat_evd_free(w.s.conn_evd));
		w.s.conn_evd = DAT_HANDLE_NULL;
		way_down(t, &w);
	}
}
