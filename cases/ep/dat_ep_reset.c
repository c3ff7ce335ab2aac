/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_reset(3DAT): clauses/dat_ep_reset.toml.
 * Reset is valid only from Disconnected (and a no-op in Unconnected); every
 * other state is reached for real and must refuse it.
 */
#include "ep_ways.h"

static void disconnect_active(struct dc_ctx *t, struct dc_pair *p)
{
	DC_SETUP(dat_ep_disconnect(p->a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_await_event(t, p->a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	await_state(p->a.ep, DAT_EP_STATE_DISCONNECTED, 2000);
}

DC_CASE(dat_ep_reset, disconnected_to_unconnected,
	.summary = "reset takes a Disconnected EP to Unconnected, ready to connect again, however "
		   "it was disconnected")
{
	struct dc_pair p;
	struct dc_endpoint b2;
	struct dc_lmr mb2;

	for (int way = 0; way < DISC_WAYS; way++) {
		dc_note(t, "DISCONNECTED by %s", disc_way_name(way));
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		/* a message each way first: the old connection's sequencing has moved on */
		DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, 61));
		DC_SETUP(post_recv1(p.a.ep, &p.ma, 0, 1024, 62));
		dc_send_sync(t, &p.a, &p.ma, 2048, 100, 63);
		dc_send_sync(t, &p.b, &p.mb, 2048, 100, 64);
		dc_await_recv(t, &p.b, 61);
		dc_await_recv(t, &p.a, 62);
		disconnect_pair_by(&p, way);
		DC_ASSERT_SUCCESS(dat_ep_reset(p.a.ep));
		ASSERT_STATE(p.a.ep, DAT_EP_STATE_UNCONNECTED);
		memset(&b2, 0, sizeof(b2));
		dc_drain(t, p.a.recv_evd);
		dc_drain(t, p.a.req_evd);
		dc_connect_local(t, &p.a, &b2, NULL);	/* UNRESOLVED unless ESTABLISHED */
		ASSERT_STATE(p.a.ep, DAT_EP_STATE_CONNECTED);
		/* Unconnected again means as good as new: on the new connection
		 * a message crosses each way and the Send completes (nothing of the
		 * old connection's sequencing is left over) */
		dc_lmr(t, b2.pz, 4096, DC_PRIV_LOCAL, &mb2);
		DC_SETUP(post_recv1(b2.ep, &mb2, 0, 1024, 71));
		DC_SETUP(post_recv1(p.a.ep, &p.ma, 0, 1024, 72));
		dc_fill(p.ma.buf + 2048, 100, 0x31);
		dc_fill(mb2.buf + 2048, 100, 0x32);
		DC_SETUP(post_send1(p.a.ep, &p.ma, 2048, 100, 73));
		DC_SETUP(post_send1(b2.ep, &mb2, 2048, 100, 74));
		DC_ASSERT_DTO(b2.recv_evd, 71, DAT_DTO_SUCCESS);
		DC_ASSERT(dc_check_fill(mb2.buf, 100, 0x31),
			  "the reset EP's first message on the new connection arrived altered");
		DC_ASSERT_DTO(p.a.recv_evd, 72, DAT_DTO_SUCCESS);
		DC_ASSERT(dc_check_fill(p.ma.buf, 100, 0x32),
			  "the reset EP received altered bytes on the new connection");
		DC_ASSERT_DTO(p.a.req_evd, 73, DAT_DTO_SUCCESS);
		/* nor any RDMA Read of it: a fenced Send has nothing to wait for */
		if (t->prov_attr.completion_flags_supported & DAT_COMPLETION_BARRIER_FENCE_FLAG) {
			DAT_LMR_TRIPLET iov = dc_iov(&p.ma, 2048, 100);

			DC_SETUP(post_recv1(b2.ep, &mb2, 0, 1024, 75));
			DC_SETUP(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(76),
						  DAT_COMPLETION_BARRIER_FENCE_FLAG));
			DC_ASSERT_DTO(p.a.req_evd, 76, DAT_DTO_SUCCESS);
			DC_ASSERT_DTO(b2.recv_evd, 75, DAT_DTO_SUCCESS);
		}
		DC_CLEANUP(dat_lmr_free(mb2.lmr));
		{
			DAT_PZ_HANDLE pz2 = b2.pz;

			free_endpoint(t, &b2);
			DC_CLEANUP(dat_pz_free(pz2));
		}
		pair_down(t, &p);
	}
}

DC_CASE(dat_ep_reset, may_lose_completions,
	.summary = "after reset, what is left of undequeued flushed completions is a clean subset")
{
	struct dc_pair p;
	bool seen[4] = { false };
	DAT_EVENT ev;
	int n = 0;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	for (int i = 0; i < 4; i++)
		DC_SETUP(post_recv1(p.a.ep, &p.ma, (DAT_VLEN)i * 256, 256, 10 + (uint64_t)i));
	disconnect_active(t, &p);
	DC_ASSERT_SUCCESS(dat_ep_reset(p.a.ep));
	while (dat_evd_dequeue(p.a.recv_evd, &ev) == DAT_SUCCESS) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;
		uint64_t c = d->user_cookie.as_64;

		DC_ASSERT(ev.event_number == DAT_DTO_COMPLETION_EVENT,
			  "unexpected %s on the receive EVD", dc_event_name(ev.event_number));
		DC_ASSERT(c >= 10 && c < 14 && !seen[c - 10],
			  "completion of unknown or repeated cookie %llu", (unsigned long long)c);
		DC_ASSERT(d->status == DAT_DTO_ERR_FLUSHED, "cookie %llu completed with %s",
			  (unsigned long long)c, dc_dto_status_name(d->status));
		seen[c - 10] = true;
		n++;
	}
	dc_note(t, "%d of 4 flushed completions were kept", n);
}

DC_CASE(dat_ep_reset, unconnected_noop,
	.summary = "reset of an Unconnected EP succeeds and changes nothing")
{
	struct dc_endpoint e;
	struct dc_snap before;

	struct dc_pair p;

	dc_endpoint(t, &e, NULL);
	dc_snapshot(t, DC_OBJ_EP, e.ep, &before);
	DC_ASSERT_SUCCESS(dat_ep_reset(e.ep));
	DC_ASSERT_UNCHANGED(&before);
	/* UNCONNECTED the other way the page gives: a reset out of DISCONNECTED */
	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	disconnect_active(t, &p);
	DC_SETUP(dat_ep_reset(p.a.ep));
	await_state(p.a.ep, DAT_EP_STATE_UNCONNECTED, 2000);
	dc_snapshot(t, DC_OBJ_EP, p.a.ep, &before);
	DC_ASSERT_SUCCESS(dat_ep_reset(p.a.ep));
	DC_ASSERT_UNCHANGED(&before);
}

DC_CASE(dat_ep_reset, unconnected_keeps_recvs,
	.summary = "reset of an Unconnected EP keeps its pre-posted Receives")
{
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	memset(&a, 0, sizeof(a));
	dc_endpoint(t, &b, NULL);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &mb);
	DC_SETUP(post_recv1(b.ep, &mb, 0, 1024, 1));
	DC_ASSERT_SUCCESS(dat_ep_reset(b.ep));
	/* kept: no completion now, and the peer's Send lands in it (recv_idle
	 * would say the same through dat_ep_get_status's own clause) */
	DC_ASSERT_NO_EVENT(b.recv_evd);
	dc_connect_local(t, &a, &b, NULL);
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &ma);
	dc_fill(ma.buf + 0, 123, 0x71);
	DC_SETUP(post_send1(a.ep, &ma, 0, 123, 2));
	d = DC_ASSERT_DTO(b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 123);
	DC_ASSERT(dc_check_fill(mb.buf, 123, 0x71), "the kept Receive holds wrong bytes");
}

static void reset_refused(struct dc_ctx *t, struct subject *s, const void *arg)
{
	struct dc_snap before;

	(void)arg;
	dc_snapshot(t, DC_OBJ_EP, s->ep, &before);
	DC_ASSERT_RET(dat_ep_reset(s->ep), DAT_INVALID_STATE);
	/* dat_ep_reset(3DAT) forbids a change by the call; a transitional state
	 * that ended by itself meanwhile (a graceful disconnect completing) is
	 * the connection's doing */
	DC_ASSERT_UNCHANGED_EXCEPT(&before, state_ended_meanwhile(t, s));
}

#define RESET_REFUSED(st)							\
	STATE_CASE(dat_ep_reset, invalid_state_##st, st, reset_refused, NULL,	\
		   "dat_ep_reset.invalid_state", "reset is refused in " #st)
RESET_REFUSED(reserved)
RESET_REFUSED(passive_connection_pending)
RESET_REFUSED(tentative_connection_pending)
RESET_REFUSED(active_connection_pending)
RESET_REFUSED(completion_pending)
RESET_REFUSED(connected)
RESET_REFUSED(disconnect_pending)

DC_CASE(dat_ep_reset, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(dat_ep_reset((DAT_EP_HANDLE)dc_wrong_handle(t)), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_reset, invalid_handle_freed,
	.clauses = "dat_ep_reset.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	DC_ASSERT_INVALID_HANDLE(dat_ep_reset(dc_freed_ep(t)), 1, EP);
}

DC_CASE(dat_ep_reset, marker_flush_order,
	.summary = "a Receive posted after the disconnect is flushed behind all earlier ones, "
		   "however the EP was disconnected")
{
	struct dc_pair p;

	for (int way = 0; way < DISC_WAYS; way++) {
		dc_note(t, "DISCONNECTED by %s", disc_way_name(way));
		dc_pair_up(t, &p, SUBJ_MEM, NULL);
		for (int i = 0; i < 4; i++)
			DC_SETUP(post_recv1(p.a.ep, &p.ma, (DAT_VLEN)i * 256, 256, 10 + (uint64_t)i));
		disconnect_pair_by(&p, way);
		DC_SETUP(post_recv1(p.a.ep, &p.ma, 4096, 256, 99));
		for (int i = 0; i < 4; i++)
			DC_ASSERT_DTO(p.a.recv_evd, 10 + (uint64_t)i, DAT_DTO_ERR_FLUSHED);
		DC_ASSERT_DTO(p.a.recv_evd, 99, DAT_DTO_ERR_FLUSHED);
		DC_ASSERT_SUCCESS(dat_ep_reset(p.a.ep));
		pair_down(t, &p);
	}
}

/*
 * Refused in CONNECTED whichever way the EP got there (dat_ep_reset(3DAT)
 * DESCRIPTION: valid only in Disconnected and Unconnected): the active EP
 * of dat_ep_connect and of dat_ep_dup_connect, and each kind of accepting
 * EP (ep_ways.h).  Nothing of the EP changes and it stays Connected.
 */
DC_CASE(dat_ep_reset, invalid_state_connected_each_way,
	.clauses = "dat_ep_reset.invalid_state",
	.summary = "reset is refused, changing nothing, on an EP connected each way (connect, "
		   "dup_connect, consumer PSP, Provider EP, RSP, handoff)")
{
	struct way_conn w;

	for (int way = 0; way < CONNECTED_WAYS; way++) {
		struct dc_snap before;

		if (!way_reach(&w, way))
			continue;
		dc_snapshot(t, DC_OBJ_EP, w.s.ep, &before);
		DC_ASSERT_RET(dat_ep_reset(w.s.ep), DAT_INVALID_STATE);
		DC_ASSERT_UNCHANGED(&before);
		way_down(t, &w);
	}
}

/*
 * Disconnected -> Unconnected whichever way the EP got to Disconnected
 * (dat_ep_reset(3DAT) DESCRIPTION): an EP connected each way (ep_ways.h)
 * and ended by its own abrupt disconnect or by the peer's, and the EP of
 * a connect the peer rejected or that timed out (dat_ep_connect(3DAT)
 * DESCRIPTION: both leave the EP Disconnected).
 */
DC_CASE(dat_ep_reset, disconnected_each_way,
	.clauses = "dat_ep_reset.disconnected_to_unconnected",
	.summary = "reset makes Unconnected an EP connected each way then disconnected by itself or "
		   "the peer, and the EP of a rejected and of a timed-out connect")
{
	struct way_conn w;

	for (int way = 0; way < EP_WAYS; way++) {
		for (int by_peer = 0; by_peer < (way < CONNECTED_WAYS ? 2 : 1); by_peer++) {
			if (!way_reach(&w, way))
				break;
			if (way < CONNECTED_WAYS) {
				dc_note(t, "ended by %s",
					by_peer ? "the peer" : "its own abrupt disconnect");
				if (by_peer) {
					way_peer_ends(&w);
				} else {
					DC_SETUP(dat_ep_disconnect(w.s.ep, DAT_CLOSE_ABRUPT_FLAG));
					dc_await_event(t, w.s.conn_evd,
						       DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
				}
			}
			await_state(w.s.ep, DAT_EP_STATE_DISCONNECTED, 2000);
			DC_ASSERT_SUCCESS(dat_ep_reset(w.s.ep));
			ASSERT_STATE(w.s.ep, DAT_EP_STATE_UNCONNECTED);
			way_down(t, &w);
		}
	}
}
