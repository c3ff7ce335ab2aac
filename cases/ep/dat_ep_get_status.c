/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_get_status(3DAT): clauses/dat_ep_get_status.toml.
 *
 * reports_state is checked once per EP state, each reached for real through
 * the two-node fixture (ep_common.h).  The evidence that the state was
 * reached is the way there (the request that arrived, the event that came),
 * not dat_ep_get_status itself, so these cases turn the fixture's own
 * get_status verification off.
 */
#include "ep_ways.h"

static const struct at_opts trust_the_path = { .no_verify = true };

static void reports_state(struct dc_ctx *t, struct subject *s, const void *arg)
{
	DAT_EP_STATE st = (DAT_EP_STATE)-1;
	DAT_BOOLEAN ri = (DAT_BOOLEAN)7, qi = (DAT_BOOLEAN)7;
	DAT_EP_PARAM q;

	(void)arg;
	DC_ASSERT_SUCCESS(dat_ep_get_status(s->ep, &st, &ri, &qi));
	if (st != s->state) {
		const char *ended = state_ended_on_its_own(s, st);

		DC_SETUP_ASSERT(!ended, "%s ended on its own before the query (%s came on the "
				"connect EVD), and dat_ep_get_status reports %s, where it leads",
				state_name(s->state), ended, state_name(st));
	}
	DC_ASSERT(st == s->state, "dat_ep_get_status reports %s, the EP is in %s",
		  state_name(st), state_name(s->state));
	DC_ASSERT(ri == DAT_TRUE || ri == DAT_FALSE, "recv_idle is %d, not a DAT_BOOLEAN", (int)ri);
	DC_ASSERT(qi == DAT_TRUE || qi == DAT_FALSE, "request_idle is %d, not a DAT_BOOLEAN", (int)qi);
	memset(&q, 0xA5, sizeof(q));
	DC_SETUP(dat_ep_query(s->ep, DAT_EP_FIELD_EP_STATE, &q));
	DC_ASSERT(q.ep_state == st, "dat_ep_query reports %s, dat_ep_get_status %s",
		  state_name(q.ep_state), state_name(st));
}

#define STATE(st)							\
	STATE_CASE_O(dat_ep_get_status, reports_##st, st, reports_state,	\
		     NULL, &trust_the_path, "dat_ep_get_status.reports_state",	\
		     "an EP brought into " #st " reports exactly that")

STATE(unconnected)
STATE(reserved)
STATE(passive_connection_pending)
STATE(tentative_connection_pending)
STATE(completion_pending)
STATE(active_connection_pending)
STATE(connected)
STATE(disconnect_pending)
STATE(disconnected)

/*
 * A DTO that failed (not flushed) is no longer outstanding once its
 * completion is dequeued (dat_ep_get_status(3DAT) DESCRIPTION: recv_idle and
 * request_idle say whether any DTO is outstanding or in progress; issue 54:
 * accounting tried with failed completions, not only successful ones).  The
 * peer's Receive is one byte shorter than the message: the Receive fails
 * with the length error and the connection breaks (dat_ep_post_recv(3DAT)
 * DESCRIPTION), and the Send fails at the sender, or on a transport whose
 * Send completes once sent, succeeds (noted).  recv (the Receive's EP) or
 * request (the Send's): after the one completion is dequeued the EP is
 * idle.  Whether a DTO whose completion is still queued counts as
 * outstanding the page does not say (no synchronization with DTO
 * processing is implied), so nothing is read before the dequeue but the
 * idle flag while the DTO is surely outstanding.
 */
static void failed_dtos_leave_idle(struct dc_ctx *t, bool recv)
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 100, 5));
	if (recv)
		ASSERT_RECV_IDLE(p.b.ep, DAT_FALSE);
	dc_fill(p.ma.buf + 0, 101, 7);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 101, 6));
	if (recv) {
		d = dc_await_dto(t, p.b.recv_evd, 5);
		DC_SETUP_ASSERT(d.status != DAT_DTO_SUCCESS,
				"set-up: a Receive one byte shorter than its message succeeded");
		dc_note(t, "the Receive too short for its message completed with %s",
			dc_dto_status_name(d.status));
		ASSERT_RECV_IDLE(p.b.ep, DAT_TRUE);
	} else {
		d = dc_await_dto(t, p.a.req_evd, 6);
		dc_note(t, "the Send too long for the peer's Receive completed with %s%s",
			dc_dto_status_name(d.status),
			d.status == DAT_DTO_SUCCESS ? " (sent is done here): not a failed request" : "");
		ASSERT_REQUEST_IDLE(p.a.ep, DAT_TRUE);
	}
	dc_pair_down(t, &p);
}

DC_CASE(dat_ep_get_status, recv_idle,
	.summary = "recv_idle is false exactly while a Receive is outstanding, and true again after a failed or flushed one is dequeued")
{
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	ASSERT_RECV_IDLE(p.b.ep, DAT_TRUE);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 256, 1));
	ASSERT_RECV_IDLE(p.b.ep, DAT_FALSE);
	dc_fill(p.ma.buf + 0, 64, 1);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 2));
	DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	ASSERT_RECV_IDLE(p.b.ep, DAT_TRUE);

	/* Also before any connection: a fresh EP with one Receive posted. */
	{
		struct dc_endpoint e;
		struct dc_lmr m;

		dc_endpoint(t, &e, NULL);
		dc_lmr(t, e.pz, 4096, DC_PRIV_LOCAL, &m);
		ASSERT_RECV_IDLE(e.ep, DAT_TRUE);
		DC_SETUP(post_recv1(e.ep, &m, 0, 256, 3));
		ASSERT_RECV_IDLE(e.ep, DAT_FALSE);
		DC_CLEANUP(dat_lmr_free(m.lmr));
		{
			DAT_PZ_HANDLE pz = e.pz;

			dc_endpoint_down(t, &e);
			DC_CLEANUP(dat_pz_free(pz));
		}
	}

	/* A Receive that ends in error is no longer outstanding either: flushed
	 * by the peer's disconnect, its completion dequeued */
	DC_SETUP(post_recv1(p.a.ep, &p.ma, 0, 256, 4));
	ASSERT_RECV_IDLE(p.a.ep, DAT_FALSE);
	disconnect_pair_by(&p, DISC_BY_PEER);
	dc_await_dto(t, p.a.recv_evd, 4);
	ASSERT_RECV_IDLE(p.a.ep, DAT_TRUE);
	dc_pair_down(t, &p);
	failed_dtos_leave_idle(t, true);
}

DC_CASE(dat_ep_get_status, request_idle,
	.summary = "request_idle is false exactly while a Send (or an RDMA Write and Read behind it) is outstanding, and true again after a failed or flushed one is dequeued")
{
	struct dc_pair p;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_TRUE);
	/* The peer has no Receive: the Send cannot complete yet. */
	dc_fill(p.ma.buf + 0, 64, 1);
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 2));
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_FALSE);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 256, 1));
	DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_TRUE);

	/* A Send that ends in error is no longer outstanding either: flushed
	 * by the peer's disconnect, its completion dequeued (b has no
	 * Receive left: the Send stays outstanding until then) */
	/* An RDMA Write and an RDMA Read are requests too (DESCRIPTION): held
	 * with a Send that waits for the peer's Receive (completions of one
	 * EP's requests come in order), the EP is not idle; once the three
	 * completions are dequeued it is */
	{
		DAT_LMR_TRIPLET iov = dc_iov(&p.ma, 1024, 256);
		DAT_RMR_TRIPLET rem = dc_rmr_iov(&p.mb, 2048, 256);

		DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 20));
		DC_SETUP(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(21), &rem,
						DAT_COMPLETION_DEFAULT_FLAG));
		iov = dc_iov(&p.ma, 4096, 256);
		DC_SETUP(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(22), &rem,
					       DAT_COMPLETION_DEFAULT_FLAG));
		ASSERT_REQUEST_IDLE(p.a.ep, DAT_FALSE);
		DC_SETUP(post_recv1(p.b.ep, &p.mb, 8192, 256, 23));
		for (uint64_t c = 20; c <= 22; c++)
			DC_SETUP_DTO(p.a.req_evd, c, DAT_DTO_SUCCESS);
		ASSERT_REQUEST_IDLE(p.a.ep, DAT_TRUE);
	}

	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 3));
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_FALSE);
	disconnect_pair_by(&p, DISC_BY_PEER);
	dc_await_dto(t, p.a.req_evd, 3);
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_TRUE);
	dc_pair_down(t, &p);
	failed_dtos_leave_idle(t, false);
}

DC_CASE(dat_ep_get_status, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DAT_EP_STATE st;
	DAT_BOOLEAN ri, qi;

	DC_ASSERT_INVALID_HANDLE(dat_ep_get_status((DAT_EP_HANDLE)dc_wrong_handle(t), &st, &ri, &qi), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_get_status, invalid_handle_freed,
	.clauses = "dat_ep_get_status.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	DAT_EP_STATE st;
	DAT_BOOLEAN ri, qi;

	DC_ASSERT_INVALID_HANDLE(dat_ep_get_status(dc_freed_ep(t), &st, &ri, &qi), 1, EP);
}

/*
 * The state the EP is in, whichever way it got there: CONNECTED reached as
 * the active EP of dat_ep_connect or dat_ep_dup_connect and as each kind of
 * accepting EP (consumer-flag PSP, Provider EP, RSP, a handed-off request),
 * DISCONNECTED by the peer's disconnect, by a rejection and by a timeout
 * (dat_ep_connect(3DAT) DESCRIPTION), UNCONNECTED by a reset out of it
 * (dat_ep_reset(3DAT)).  The evidence of each state is the event that
 * brought it (ep_ways.h); a state entered with its event may settle a
 * moment later, so each is polled for at most 2 s.
 */
DC_CASE(dat_ep_get_status, reports_state_each_way,
	.clauses = "dat_ep_get_status.reports_state",
	.summary = "CONNECTED, DISCONNECTED and UNCONNECTED reported for an EP connected each way "
		   "(connect, dup_connect, 4 kinds of accept), rejected and timed out")
{
	struct way_conn w;

	for (int way = 0; way < EP_WAYS; way++) {
		if (!way_reach(&w, way))
			continue;
		if (way < CONNECTED_WAYS) {
			ASSERT_REACHES_STATE(w.s.ep, DAT_EP_STATE_CONNECTED, 2000);
			way_peer_ends(&w);
		}
		ASSERT_REACHES_STATE(w.s.ep, DAT_EP_STATE_DISCONNECTED, 2000);
		DC_SETUP(dat_ep_reset(w.s.ep));
		ASSERT_REACHES_STATE(w.s.ep, DAT_EP_STATE_UNCONNECTED, 2000);
		way_down(t, &w);
	}
}
