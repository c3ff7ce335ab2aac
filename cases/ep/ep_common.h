/* SPDX-License-Identifier: MIT */
/*
 * ep_common.h - set-up helpers shared by the Endpoint (cases/ep/) and
 * connection-management (cases/cm/) cases.
 *
 * Header-only (static) so each page file stays one translation unit.  A
 * helper whose name starts with expect_/assert_ checks a clause (FAIL);
 * every other helper is set-up (UNRESOLVED on a miss).
 *
 * The centre piece is the *subject*: one EP brought into a given DAT EP
 * state for real, through the two-node fixture, before the clause is
 * checked on it.  at_state(t, state, fn, arg) runs in both halves of a
 * two-node case (or alone in a single-node case for the two states that
 * need no peer); the half that owns the subject reaches the state,
 * verifies it with dat_ep_get_status, calls fn, then tells the other half
 * it is done.  Which half owns the subject:
 *
 *   UNCONNECTED, RESERVED               either (no peer needed)
 *   PASSIVE_CONNECTION_PENDING          passive: EP reserved by an RSP, the
 *                                       active half's request has arrived
 *   TENTATIVE_CONNECTION_PENDING        passive: the Provider EP of a
 *                                       request on a PSP(provider flag)
 *   COMPLETION_PENDING                  passive: accepted, the active half
 *                                       frozen before it can confirm
 *   ACTIVE_CONNECTION_PENDING           active: connected to a PSP whose
 *                                       owner holds the request unanswered
 *   CONNECTED                           active
 *   DISCONNECT_PENDING                  active: graceful disconnect while a
 *                                       Send waits for a peer Receive
 *   DISCONNECTED                        active: abrupt disconnect completed
 *
 * Nothing sleeps: every wait is an event, a relay message or a polled
 * condition with the case deadline.
 */
#ifndef EP_COMMON_H
#define EP_COMMON_H

#include "datcts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SUBJ_MEM (64u * 1024u)		/* bytes of the subject's buffer */
#define CANARY 0xC5
#define IOV_TRY 64			/* most segments a case builds */

/*
 * EP attributes of our own, unlike the defaults, to see them applied and
 * reported: counts within what the IA reports (dat_ia_query(3DAT)), so a
 * provider of one IOV segment or short DTO queues is judged the same.
 */
static inline DAT_EP_ATTR ep_attr_unusual(struct dc_ctx *t)
{
	DAT_EP_ATTR a;

	dc_ep_attr_default(t, &a);
	a.max_recv_dtos = dc_within_limit(7, t->ia_attr.max_dto_per_ep);
	a.max_request_dtos = dc_within_limit(9, t->ia_attr.max_dto_per_ep);
	a.max_recv_iov = dc_within_limit(2, t->ia_attr.max_iov_segments_per_dto);
	a.max_request_iov = dc_within_limit(3, t->ia_attr.max_iov_segments_per_dto);
	/* the RDMA Read limits differ too, so that a provider that swaps the
	 * two is seen (issue 54: asymmetric values where a swap is plausible) */
	a.max_rdma_read_in = dc_within_limit(3, t->ia_attr.max_rdma_read_per_ep_in);
	a.max_rdma_read_out = dc_within_limit(2, t->ia_attr.max_rdma_read_per_ep_out);
	a.max_message_size = 5000;
	a.max_rdma_size = 7000;
	return a;
}

/* Clause helper: the EP reports the attributes @a asked for (the counts and
 * sizes at least: a provider may give more, dat_ep_create(3DAT)). */
static inline void assert_attrs_as_asked(struct dc_ctx *t, const DAT_EP_ATTR *q,
					 const DAT_EP_ATTR *a)
{
	DC_ASSERT_EQ(q->service_type, a->service_type);
	DC_ASSERT_EQ(q->qos, a->qos);
	DC_ASSERT_EQ(q->recv_completion_flags, a->recv_completion_flags);
	DC_ASSERT_EQ(q->request_completion_flags, a->request_completion_flags);
	DC_ASSERT_GE(q->max_message_size, a->max_message_size);
	DC_ASSERT_GE(q->max_rdma_size, a->max_rdma_size);
	DC_ASSERT_GE(q->max_recv_dtos, a->max_recv_dtos);
	DC_ASSERT_GE(q->max_request_dtos, a->max_request_dtos);
	DC_ASSERT_GE(q->max_recv_iov, a->max_recv_iov);
	DC_ASSERT_GE(q->max_request_iov, a->max_request_iov);
	DC_ASSERT_GE(q->max_rdma_read_in, a->max_rdma_read_in);
	DC_ASSERT_GE(q->max_rdma_read_out, a->max_rdma_read_out);
}

static inline const char *state_name(DAT_EP_STATE s)
{
	static const char *const n[] = {
		"UNCONNECTED", "UNCONFIGURED_UNCONNECTED", "RESERVED",
		"UNCONFIGURED_RESERVED", "PASSIVE_CONNECTION_PENDING",
		"UNCONFIGURED_PASSIVE", "ACTIVE_CONNECTION_PENDING",
		"TENTATIVE_CONNECTION_PENDING", "UNCONFIGURED_TENTATIVE",
		"CONNECTED", "DISCONNECT_PENDING", "DISCONNECTED",
		"COMPLETION_PENDING",
	};

	if ((unsigned)s < sizeof(n) / sizeof(n[0]))
		return n[s];
	return "unknown state";
}

/* ---- EP parameters and state ------------------------------------------------- */

static inline DAT_EP_STATE ep_state_at(struct dc_ctx *t, const char *file,
				       int line, DAT_EP_HANDLE ep,
				       enum dc_state on_miss)
{
	DAT_EP_STATE st = (DAT_EP_STATE)-1;
	DAT_BOOLEAN ri, qi;
	DAT_RETURN r = dat_ep_get_status(ep, &st, &ri, &qi);

	if (r != DAT_SUCCESS)
		dc_end_at(t, on_miss, file, line, false,
			  "%sdat_ep_get_status returned %s",
			  on_miss == DC_UNRESOLVED ? "set-up " : "", dc_ret_text(r));
	return st;
}
#define ep_state(ep) ep_state_at(t, __FILE__, __LINE__, (ep), DC_UNRESOLVED)

/* Clause: the EP is in state `want` (dat_ep_get_status). */
#define ASSERT_STATE(ep, want)						\
	do {								\
		DAT_EP_STATE st_ = ep_state_at(t, __FILE__, __LINE__, (ep), DC_FAIL); \
		DC_ASSERT(st_ == (want), "EP state is %s (%d), expected %s", \
			  state_name(st_), (int)st_, state_name(want));	\
	} while (0)

static inline void idle_at(struct dc_ctx *t, const char *file, int line,
			   DAT_EP_HANDLE ep, DAT_BOOLEAN *recv_idle,
			   DAT_BOOLEAN *req_idle)
{
	DAT_EP_STATE st;
	DAT_RETURN r = dat_ep_get_status(ep, &st, recv_idle, req_idle);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "dat_ep_get_status returned %s", dc_ret_text(r));
}
#define ASSERT_RECV_IDLE(ep, want)					\
	do {								\
		DAT_BOOLEAN ri_, qi_;					\
		idle_at(t, __FILE__, __LINE__, (ep), &ri_, &qi_);	\
		DC_ASSERT(ri_ == (want), "recv_idle is %s, expected %s", \
			  ri_ ? "DAT_TRUE" : "DAT_FALSE",		\
			  (want) ? "DAT_TRUE" : "DAT_FALSE");		\
	} while (0)
#define ASSERT_REQUEST_IDLE(ep, want)					\
	do {								\
		DAT_BOOLEAN ri_, qi_;					\
		idle_at(t, __FILE__, __LINE__, (ep), &ri_, &qi_);	\
		DC_ASSERT(qi_ == (want), "request_idle is %s, expected %s", \
			  qi_ ? "DAT_TRUE" : "DAT_FALSE",		\
			  (want) ? "DAT_TRUE" : "DAT_FALSE");		\
	} while (0)

/*
 * A transient state the EP went past before the case could see it: a
 * graceful disconnect with nothing outstanding may complete at once, an
 * active connect may be established at once (the state's own page judges
 * whether it must be seen). A set-up that wanted it does not apply to this
 * provider; one that found the EP short of it is another matter.
 */
static inline bool passed_through(DAT_EP_STATE want, DAT_EP_STATE st)
{
	switch (want) {
	case DAT_EP_STATE_DISCONNECT_PENDING:
		return st == DAT_EP_STATE_DISCONNECTED;
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_COMPLETION_PENDING:
		return st == DAT_EP_STATE_CONNECTED || st == DAT_EP_STATE_DISCONNECTED;
	default:
		return false;
	}
}

/*
 * Clause: the EP reaches state `want` on its own within `ms` (a state the
 * provider enters asynchronously after something the case did).  Polls the
 * condition; returns as soon as it holds.
 */
static inline void await_state_at(struct dc_ctx *t, const char *file, int line,
				  DAT_EP_HANDLE ep, DAT_EP_STATE want, long ms,
				  enum dc_state on_miss)
{
	struct timespec ns = { 0, 500000 };
	long left0 = dc_remaining_ms(t), stop = left0 - (ms < left0 ? ms : left0);
	DAT_EP_STATE st;

	for (;;) {
		st = ep_state_at(t, file, line, ep, on_miss);
		if (st == want)
			return;
		if (dc_remaining_ms(t) <= stop || dc_remaining_ms(t) < 200)
			break;
		nanosleep(&ns, NULL);
	}
	if (on_miss == DC_UNRESOLVED && passed_through(want, st))
		dc_cause_needs(t, "state", state_name(want));
	dc_end_at(t, on_miss, file, line, false,
		  "%sthe EP stayed in %s, expected it to reach %s within %ld ms",
		  on_miss == DC_UNRESOLVED ? "set-up: " : "", state_name(st),
		  state_name(want), ms);
}
#define await_state(ep, want, ms) \
	await_state_at(t, __FILE__, __LINE__, (ep), (want), (ms), DC_UNRESOLVED)
#define ASSERT_REACHES_STATE(ep, want, ms) \
	await_state_at(t, __FILE__, __LINE__, (ep), (want), (ms), DC_FAIL)

/* Set-up: polls until no Request (recv false) or no Receive (recv true) of
 * ep is outstanding (dat_ep_get_status). */
static inline void await_idle_at(struct dc_ctx *t, const char *file, int line,
				 DAT_EP_HANDLE ep, bool recv)
{
	struct timespec ns = { 0, 200000 };

	for (;;) {
		DAT_EP_STATE st;
		DAT_BOOLEAN ri, qi;
		DAT_RETURN r = dat_ep_get_status(ep, &st, &ri, &qi);

		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up dat_ep_get_status returned %s", dc_ret_text(r));
		if ((recv ? ri : qi) == DAT_TRUE)
			return;
		if (dc_remaining_ms(t) < 500)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the EP's %s never became idle", recv ? "Receives" : "Requests");
		nanosleep(&ns, NULL);
	}
}
#define await_request_idle(ep) await_idle_at(t, __FILE__, __LINE__, (ep), false)
#define await_recv_idle(ep) await_idle_at(t, __FILE__, __LINE__, (ep), true)

/* ---- events ---------------------------------------------------------------------- */

/* Set-up: a new CNO on the EVD the pair's unsignalled completions go to
 * (b's receive EVD for Receives, a's request EVD for Requests). */
static inline DAT_CNO_HANDLE unsignalled_cno_at(struct dc_ctx *t, const char *file, int line,
						struct dc_pair *p, bool recv)
{
	DAT_CNO_HANDLE cno;
	DAT_RETURN r = dat_cno_create(t->ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);

	if (r == DAT_SUCCESS)
		r = dat_evd_modify_cno(recv ? p->b.recv_evd : p->a.req_evd, cno);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the CNO for the unsignalled completions: %s", dc_ret_text(r));
	return cno;
}

/*
 * Set-up: a pair whose EPs select unsignalled completions for Receives
 * (recv true) or Requests, and a new CNO on the EVD those complete on
 * (b's receive EVD, a's request EVD); returns the CNO.
 */
static inline DAT_CNO_HANDLE unsignalled_pair_at(struct dc_ctx *t, const char *file, int line,
						 struct dc_pair *p, bool recv)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };

	dc_ep_attr_default(t, &attr);
	if (recv)
		attr.recv_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	else
		attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	dc_pair_up_at(t, file, line, p, SUBJ_MEM, &o);
	return unsignalled_cno_at(t, file, line, p, recv);
}
#define unsignalled_pair(t, p, recv) unsignalled_pair_at((t), __FILE__, __LINE__, (p), (recv))

/*
 * The same pair, but its EPs are created with the default completion flags
 * and the one that completes the unsignalled DTOs (b for Receives, a for
 * Requests) has DAT_COMPLETION_UNSIGNALLED_FLAG set by dat_ep_modify while
 * Unconnected (dat_ep_modify(3DAT) DESCRIPTION, Recv and Request Completion
 * Flags), before the connection.
 */
static inline DAT_CNO_HANDLE unsignalled_pair_by_modify_at(struct dc_ctx *t, const char *file,
							   int line, struct dc_pair *p, bool recv)
{
	struct dc_endpoint *e;
	DAT_EP_PARAM nv;
	DAT_RETURN r;

	memset(p, 0, sizeof(*p));
	dc_endpoint_at(t, file, line, &p->a, NULL);
	dc_endpoint_at(t, file, line, &p->b, NULL);
	e = recv ? &p->b : &p->a;
	nv = dc_ep_param(t, e->ep);
	if (recv)
		nv.ep_attr.recv_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	else
		nv.ep_attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	r = dat_ep_modify(e->ep, recv ? DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS :
				      DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, &nv);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_ep_modify selecting unsignalled %s: %s",
			  recv ? "Receives" : "Requests", dc_ret_text(r));
	dc_lmr_at(t, file, line, p->a.pz, SUBJ_MEM, DAT_MEM_PRIV_ALL_FLAG, &p->ma);
	dc_lmr_at(t, file, line, p->b.pz, SUBJ_MEM, DAT_MEM_PRIV_ALL_FLAG, &p->mb);
	dc_connect_local_at(t, file, line, &p->a, &p->b, NULL);
	return unsignalled_cno_at(t, file, line, p, recv);
}
#define unsignalled_pair_by_modify(t, p, recv)					\
	unsignalled_pair_by_modify_at((t), __FILE__, __LINE__, (p), (recv))

/*
 * Clause: `what` (a completion already queued) did not trigger cno: a
 * dat_cno_wait of 100 ms times out (dat_cno_wait(3DAT): DAT_QUEUE_EMPTY
 * when nothing notified it; any other failure is set-up's).
 */
static inline void assert_cno_quiet_at(struct dc_ctx *t, const char *file, int line,
				       DAT_CNO_HANDLE cno, const char *what)
{
	DAT_EVD_HANDLE woke = DAT_HANDLE_NULL;
	DAT_RETURN r = dat_cno_wait(cno, 100000, &woke);

	if (r == DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%s triggered the CNO (dat_cno_wait returned DAT_SUCCESS, EVD %p)",
			  what, (void *)woke);
	if (!dc_ret_is(r, DAT_QUEUE_EMPTY, DC_ANY_SUBTYPE))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_cno_wait returned %s", dc_ret_text(r));
}
#define assert_cno_quiet(cno, what) assert_cno_quiet_at(t, __FILE__, __LINE__, (cno), (what))

/* Dequeues every queued DTO completion of evd into a small log. */
struct dto_log {
	int n;
	DAT_DTO_COMPLETION_EVENT_DATA d[256];
	int other;		/* events that were not DTO completions */
};

static inline void dto_log_drain(struct dto_log *l, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	while (dat_evd_dequeue(evd, &ev) == DAT_SUCCESS) {
		if (ev.event_number == DAT_DTO_COMPLETION_EVENT &&
		    l->n < (int)(sizeof(l->d) / sizeof(l->d[0])))
			l->d[l->n++] = ev.event_data.dto_completion_event_data;
		else
			l->other++;
	}
}

/* Waits (bounded) until evd holds `n` more DTO completions, logging them. */
static inline void dto_log_collect_at(struct dc_ctx *t, const char *file,
				      int line, struct dto_log *l,
				      DAT_EVD_HANDLE evd, int n,
				      enum dc_state on_miss)
{
	int want = l->n + n;

	while (l->n < want) {
		DAT_EVENT ev;
		DAT_RETURN r = dc_wait_event(t, evd, -1, &ev);

		if (r != DAT_SUCCESS)
			dc_end_at(t, on_miss, file, line, false,
				  "%s%d of %d completions arrived; dat_evd_wait returned %s",
				  on_miss == DC_UNRESOLVED ? "set-up: " : "",
				  l->n - (want - n), n, dc_ret_text(r));
		if (ev.event_number == DAT_DTO_COMPLETION_EVENT)
			l->d[l->n++] = ev.event_data.dto_completion_event_data;
		else
			l->other++;
	}
}
#define dto_log_collect(l, evd, n) \
	dto_log_collect_at(t, __FILE__, __LINE__, (l), (evd), (n), DC_FAIL)

/*
 * The completion_flags a Request posting (Send, RDMA Read, RDMA Write) takes
 * on an EP with DEFAULT request_completion_flags, one value per flag the
 * pages distinguish: DEFAULT, SUPPRESS (always taken, dat_ep_modify(3DAT)
 * "Request Completion Flags"), and SOLICITED_WAIT and BARRIER_FENCE where
 * completion_flags_supported names them (as the cases of those flags are
 * gated), each alone and with SUPPRESS.  UNSIGNALLED needs the EP's flag and
 * is left out.  Returns the count written to out[].
 */
#define REQ_FLAG_SETS 6
static inline int request_flag_sets(const struct dc_ctx *t,
				    DAT_COMPLETION_FLAGS out[REQ_FLAG_SETS])
{
	static const DAT_COMPLETION_FLAGS gated[] = {
		DAT_COMPLETION_SOLICITED_WAIT_FLAG, DAT_COMPLETION_BARRIER_FENCE_FLAG,
	};
	int n = 0;

	out[n++] = DAT_COMPLETION_DEFAULT_FLAG;
	out[n++] = DAT_COMPLETION_SUPPRESS_FLAG;
	for (int i = 0; i < 2; i++)
		if (t->prov_attr.completion_flags_supported & gated[i]) {
			out[n++] = gated[i];
			out[n++] = gated[i] | DAT_COMPLETION_SUPPRESS_FLAG;
		}
	return n;
}

/*
 * Clause: on DISCONNECTED p->a, a Request posted with each of
 * request_flag_sets is accepted and flushed at once to the request EVD: a
 * flushed request did not succeed, and the suppress flag hides only a
 * successful completion (the posting pages, PARAMETERS completion_flags).
 * post(p, cookie, flags) posts one request; cookies are base, base+1, ...
 */
typedef DAT_RETURN (*flag_post_fn)(struct dc_pair *p, uint64_t cookie,
				   DAT_COMPLETION_FLAGS flags);
static inline void assert_flushed_each_flag_at(struct dc_ctx *t, const char *file, int line,
					       struct dc_pair *p, flag_post_fn post,
					       uint64_t base)
{
	DAT_COMPLETION_FLAGS fl[REQ_FLAG_SETS];
	int n = request_flag_sets(t, fl);
	DAT_DTO_COMPLETION_EVENT_DATA d;

	for (int i = 0; i < n; i++) {
		uint64_t c = base + (uint64_t)i;
		char what[80];

		dc_note(t, "completion_flags 0x%x", (unsigned)fl[i]);
		snprintf(what, sizeof(what), "posting on DISCONNECTED with completion_flags 0x%x",
			 (unsigned)fl[i]);
		dc_assert_ret_at(t, file, line, what, post(p, c, fl[i]), DC_FAIL, 1,
				 (const DAT_RETURN[]){ DAT_SUCCESS }, DC_ANY_SUBTYPE);
		d = dc_expect_dto_at(t, file, line, DC_FAIL, p->a.req_evd, &c, DAT_DTO_ERR_FLUSHED);
		/* the flushed completion is the posted request's: it names
		 * the EP it was posted on, as a successful one does */
		if (d.ep_handle != p->a.ep)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "the flushed completion (completion_flags 0x%x) names EP %p, expected %p",
				  (unsigned)fl[i], (void *)d.ep_handle, (void *)p->a.ep);
	}
}
#define assert_flushed_each_flag(p, post, base) \
	assert_flushed_each_flag_at(t, __FILE__, __LINE__, (p), (post), (base))

/*
 * The ways dat_ep_disconnect(3DAT) gives to bring a connected EP to
 * DISCONNECTED: its own abrupt or graceful disconnect, or the peer's.
 * disconnect_pair_by brings p->a there the given way (set-up).
 */
enum { DISC_OWN_ABRUPT, DISC_OWN_GRACEFUL, DISC_BY_PEER, DISC_WAYS };
static inline const char *disc_way_name(int way)
{
	return way == DISC_OWN_ABRUPT ? "its own abrupt disconnect" :
	       way == DISC_OWN_GRACEFUL ? "its own graceful disconnect" :
					  "the peer's disconnect";
}
static inline void disconnect_pair_by_at(struct dc_ctx *t, const char *file, int line,
					 struct dc_pair *p, int way)
{
	DAT_RETURN r;

	if (way == DISC_BY_PEER)
		r = dat_ep_disconnect(p->b.ep, DAT_CLOSE_ABRUPT_FLAG);
	else
		r = dat_ep_disconnect(p->a.ep, way == DISC_OWN_ABRUPT ? DAT_CLOSE_ABRUPT_FLAG
								    : DAT_CLOSE_GRACEFUL_FLAG);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_ep_disconnect (%s) returned %s", disc_way_name(way),
			  dc_ret_text(r));
	if (way == DISC_BY_PEER) {
		/* the peer's end may reach a as DISCONNECTED or BROKEN */
		DAT_EVENT ev;

		r = dc_wait_event(t, p->a.conn_evd, -1, &ev);
		if (r != DAT_SUCCESS ||
		    (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
		     ev.event_number != DAT_CONNECTION_EVENT_BROKEN))
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: no DISCONNECTED or BROKEN after the peer's disconnect (%s, event 0x%x)",
				  dc_ret_text(r), r == DAT_SUCCESS ? (unsigned)ev.event_number : 0u);
	} else {
		dc_expect_event_at(t, file, line, DC_UNRESOLVED, p->a.conn_evd,
				   DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	}
	await_state_at(t, file, line, p->a.ep, DAT_EP_STATE_DISCONNECTED, 2000, DC_UNRESOLVED);
}
#define disconnect_pair_by(p, way) disconnect_pair_by_at(t, __FILE__, __LINE__, (p), (way))

/*
 * Clause: on an EP that selects unsignalled completions for its Requests
 * (recv false) or its Receives (recv true), a DTO posted with
 * DAT_COMPLETION_UNSIGNALLED_FLAG on DISCONNECTED is flushed like any other:
 * the flag asks for a completion that notifies nobody (the posting pages,
 * PARAMETERS completion_flags: non-notification completion), never for no
 * completion.  The flushed completion carries the cookie and names the EP.
 * post(p, cookie, flags) posts one DTO on p->a.  Where the provider does not
 * list the flag in completion_flags_supported (dat_ia_query(3DAT)) there is
 * no such EP to make: a note, nothing checked.
 */
static inline void assert_unsignalled_flushed_at(struct dc_ctx *t, const char *file, int line,
						 flag_post_fn post, bool recv, uint64_t cookie)
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_EVD_HANDLE evd;

	if (!dc_attr_reported(t, "completion_flags_supported") ||
	    !(t->prov_attr.completion_flags_supported & DAT_COMPLETION_UNSIGNALLED_FLAG)) {
		dc_note(t, "completion_flags_supported lacks DAT_COMPLETION_UNSIGNALLED_FLAG: "
			"no unsignalled EP to flush on");
		return;
	}
	unsignalled_pair_at(t, file, line, &p, recv);
	disconnect_pair_by_at(t, file, line, &p, DISC_OWN_ABRUPT);
	evd = recv ? p.a.recv_evd : p.a.req_evd;
	dc_note(t, "unsignalled %s on DISCONNECTED", recv ? "Receive" : "Request");
	dc_assert_ret_at(t, file, line, "posting with DAT_COMPLETION_UNSIGNALLED_FLAG on DISCONNECTED",
			 post(&p, cookie, DAT_COMPLETION_UNSIGNALLED_FLAG), DC_FAIL, 1,
			 (const DAT_RETURN[]){ DAT_SUCCESS }, DC_ANY_SUBTYPE);
	d = dc_expect_dto_at(t, file, line, DC_FAIL, evd, &cookie, DAT_DTO_ERR_FLUSHED);
	if (d.ep_handle != p.a.ep)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "the flushed unsignalled completion names EP %p, expected %p",
			  (void *)d.ep_handle, (void *)p.a.ep);
	dc_pair_down(t, &p);
}
#define assert_unsignalled_flushed(post, recv, cookie) \
	assert_unsignalled_flushed_at(t, __FILE__, __LINE__, (post), (recv), (cookie))

/*
 * Passive half of the remote-QoS cases: a peer that supports less QoS than
 * the active side.  This IA's QoS set is narrowed to best effort with the
 * provider's test hook (docs/reference-provider.md, "Test hooks";
 * UNSUPPORTED where there is none, or where the provider cannot carry the
 * QoS in its requests); set gets the set it then supports
 * (dat_qos_supported), as text for the announcement.  Two different
 * providers would stage the same without the hook.
 */
typedef DAT_RETURN (*qos_supported_fn)(DAT_IA_HANDLE ia, DAT_QOS qos);
static inline void narrow_qos(struct dc_ctx *t, const char *page, char *set, size_t len)
{
	qos_supported_fn narrow = (qos_supported_fn)dc_provider_hook("daplref_test_qos_supported");
	DAT_PROVIDER_ATTR pa;
	DAT_RETURN r = narrow(dc_provider_ia_handle(t->ia), DAT_QOS_BEST_EFFORT);

	DC_ALLOW_MODEL_NOT_SUPPORTED(r, page,
				     "the provider's requests do not carry the QoS here, so none of its "
				     "IAs can play a peer with less QoS support");
	DC_SETUP(r);
	DC_SETUP(dat_ia_query(t->ia, NULL, 0, NULL, DAT_PROVIDER_FIELD_ALL, &pa));
	snprintf(set, len, "%llu", (unsigned long long)pa.dat_qos_supported);
}

/* Active half: a QoS class this provider supports and the announced peer does not. */
static inline DAT_QOS qos_peer_lacks(struct dc_ctx *t)
{
	DAT_QOS peer = (DAT_QOS)strtoull(t->peer.data, NULL, 10);
	DAT_QOS ask = t->prov_attr.dat_qos_supported & ~peer;

	DC_SETUP_ASSERT(ask != 0, "set-up: the peer supports every QoS this provider does "
			"(peer 0x%llx, here 0x%llx)", (unsigned long long)peer,
			(unsigned long long)t->prov_attr.dat_qos_supported);
	return ask & -ask;
}

/*
 * Clause: the passive side accepts a request whose active EP aborted the
 * establishment (freed, or disconnected, in ACTIVE_CONNECTION_PENDING): it
 * must never stay connected.  Its accept fails (the EP stays Unconnected),
 * or the EP gets an event other than ESTABLISHED and reaches Disconnected
 * (which event is dat_cr_accept's clause, accept_completion_error).  A
 * transport whose establishment ends with the passive side's reply (iWARP's
 * MPA) completes the accept before the abort reaches it: dat_cr_accept(3DAT)
 * DESCRIPTION reports a completed accept as ESTABLISHED, and no page says
 * what the peer of an abort sees, so ESTABLISHED is allowed when the
 * connection then ends (DISCONNECTED or BROKEN) and the EP reaches
 * Disconnected.
 */
static inline void accept_of_aborted_at(struct dc_ctx *t, const char *file, int line,
					DAT_CR_HANDLE cr, const struct dc_endpoint *e)
{
	DAT_RETURN r = dat_cr_accept(cr, e->ep, 0, NULL);
	DAT_EVENT ev;

	if (r != DAT_SUCCESS) {
		dc_note(t, "dat_cr_accept refused the aborted request: %s", dc_ret_text(r));
		await_state_at(t, file, line, e->ep, DAT_EP_STATE_UNCONNECTED, 0, DC_FAIL);
		return;
	}
	r = dc_wait_event(t, e->conn_evd, -1, &ev);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "no connection event after accepting an aborted request (%s)",
			  dc_ret_text(r));
	dc_note(t, "accepting the aborted request gave %s", dc_event_name(ev.event_number));
	if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED) {
		r = dc_wait_event(t, e->conn_evd, -1, &ev);
		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "the passive side stayed connected to an EP that aborted the "
				  "establishment (no event after ESTABLISHED: %s)", dc_ret_text(r));
		dc_note(t, "then %s", dc_event_name(ev.event_number));
		if (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
		    ev.event_number != DAT_CONNECTION_EVENT_BROKEN)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "after ESTABLISHED the connection to the aborted EP gave %s, "
				  "expected it to end (DISCONNECTED or BROKEN)",
				  dc_event_name(ev.event_number));
	}
	await_state_at(t, file, line, e->ep, DAT_EP_STATE_DISCONNECTED, 5000, DC_FAIL);
}
#define ASSERT_ACCEPT_OF_ABORTED(cr, e) accept_of_aborted_at(t, __FILE__, __LINE__, (cr), (e))

/*
 * Set-up: UNCONNECTED reached the other way the pages give, a reset out of
 * DISCONNECTED (dat_ep_reset(3DAT)): p connected, ended by the peer, p->a
 * reset; its EVDs drained of what the old connection left.
 */
static inline void unconnected_by_reset_at(struct dc_ctx *t, const char *file, int line,
					   struct dc_pair *p)
{
	disconnect_pair_by_at(t, file, line, p, DISC_BY_PEER);
	if (dat_ep_reset(p->a.ep) != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: dat_ep_reset refused");
	await_state_at(t, file, line, p->a.ep, DAT_EP_STATE_UNCONNECTED, 2000, DC_UNRESOLVED);
	dc_drain(t, p->a.req_evd);
	dc_drain(t, p->a.recv_evd);
}
#define unconnected_by_reset(p) unconnected_by_reset_at(t, __FILE__, __LINE__, (p))

/* ---- memory ---------------------------------------------------------------------- */

/* Posts one Receive of [off, off+len) of m; returns the provider's answer. */
static inline DAT_RETURN post_recv1(DAT_EP_HANDLE ep, const struct dc_lmr *m,
				    DAT_VLEN off, DAT_VLEN len, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);

	return dat_ep_post_recv(ep, 1, &iov, dc_cookie(cookie), DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * A triplet no DTO may read: an lmr_context the IA never issued, a segment
 * far longer than any LMR.  Placed in local_iov right after the
 * num_segments triplets a post names, it must be ignored (the posting
 * pages, PARAMETERS: num_segments is the number of triplets in local_iov);
 * a provider reading one triplet too many refuses the post or moves other
 * data.
 */
static inline DAT_LMR_TRIPLET poison_triplet(const struct dc_lmr *m)
{
	DAT_LMR_TRIPLET p = dc_iov(m, 0, 1);

	p.lmr_context = dc_unissued_lmr_context(m);
	p.segment_length = 0x7fffff00u;	/* fits DAT 2.0's 32-bit DAT_SEG_LENGTH too */
	return p;
}

/* iov[0..2]: the segments of m at off[k], len[k] bytes. */
static inline void iov3(DAT_LMR_TRIPLET iov[3], const struct dc_lmr *m, const DAT_VLEN off[3],
			const DAT_VLEN len[3])
{
	for (int k = 0; k < 3; k++)
		iov[k] = dc_iov(m, off[k], len[k]);
}

/*
 * A gather past an empty segment (Send, RDMA Write): ma holds 5 bytes of
 * seed 5 at 50000 and 6 of seed 6 at 50100, and iov is (5 at 50000, 0 at
 * 50050, 6 at 50100): 11 bytes to move.  gathered_past_empty(at) says
 * whether `at` holds them, in order.
 */
static inline void gather_past_empty(struct dc_pair *p, DAT_LMR_TRIPLET iov[3])
{
	dc_fill(p->ma.buf + 50000, 5, 5);
	dc_fill(p->ma.buf + 50100, 6, 6);
	iov3(iov, &p->ma, (const DAT_VLEN[]){ 50000, 50050, 50100 }, (const DAT_VLEN[]){ 5, 0, 6 });
}
static inline bool gathered_past_empty(const unsigned char *at)
{
	return dc_check_fill(at, 5, 5) && dc_check_fill(at + 5, 6, 6);
}

static inline DAT_RETURN post_send1(DAT_EP_HANDLE ep, const struct dc_lmr *m,
				    DAT_VLEN off, DAT_VLEN len, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);

	return dat_ep_post_send(ep, 1, &iov, dc_cookie(cookie), DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * Clause: a post on e's EP that must not move data was either refused at
 * once with one of `types`, or accepted and then completed (cookie) on e's
 * request EVD with one of `sts`, the completion naming e's EP (the failed
 * completion is the posted request's, as a successful one is).  Returns
 * true when it was refused synchronously.
 */
static inline bool refused_or_failed_at(struct dc_ctx *t, const char *file, int line,
					DAT_RETURN r, int ntypes, const DAT_RETURN *types,
					const struct dc_endpoint *e, uint64_t cookie,
					int nsts, const DAT_DTO_COMPLETION_STATUS *sts)
{
	DAT_EVENT ev;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;

	if (r != DAT_SUCCESS) {
		dc_assert_ret_at(t, file, line, "the post", r, DC_FAIL, ntypes, types,
				 DC_ANY_SUBTYPE);
		return true;
	}
	dc_expect_event_at(t, file, line, DC_FAIL, e->req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	d = &ev.event_data.dto_completion_event_data;
	if (d->user_cookie.as_64 != cookie)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "the post was accepted; expected its failed completion (cookie %llu), got cookie %llu (%s)",
			  (unsigned long long)cookie,
			  (unsigned long long)d->user_cookie.as_64,
			  dc_dto_status_name(d->status));
	for (int i = 0; i < nsts; i++)
		if (d->status == sts[i]) {
			dc_note(t, "accepted, then completed with %s", dc_dto_status_name(d->status));
			if (d->ep_handle != e->ep)
				dc_end_at(t, DC_FAIL, file, line, false,
					  "the failed completion (%s) names EP %p, expected %p",
					  dc_dto_status_name(d->status), (void *)d->ep_handle,
					  (void *)e->ep);
			return false;
		}
	dc_end_at(t, DC_FAIL, file, line, false,
		  "the post was accepted and completed with %s; expected a synchronous error or %s",
		  dc_dto_status_name(d->status), dc_dto_status_name(sts[0]));
}
#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define REFUSED_OR_FAILED(r, types, e, cookie, sts)			\
	refused_or_failed_at(t, __FILE__, __LINE__, (r), N_OF(types), (types), \
			     (e), (cookie), N_OF(sts), (sts))


/* ---- a connected pair in this process (for DTO cases) ---------------------------- */

/*
 * Clause: nothing reached b since b posted its Receive `rcookie` (at
 * mb[roff], 1024 bytes): a marker Send from a (seed 0x5E, 100 bytes) is the
 * first message b gets, and the first request completion a reports.
 */
static inline void prove_nothing_sent_at(struct dc_ctx *t, const char *file,
					 int line, struct dc_pair *p, DAT_VLEN roff,
					 uint64_t rcookie)
{
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_fill(p->ma.buf + SUBJ_MEM - 100, 100, 0x5E);
	if (post_send1(p->a.ep, &p->ma, SUBJ_MEM - 100, 100, 0x5E5E) != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: marker Send refused");
	d = dc_expect_dto_at(t, file, line, DC_FAIL, p->a.req_evd,
			     &(const uint64_t){ 0x5E5E }, DAT_DTO_SUCCESS);
	d = dc_expect_dto_at(t, file, line, DC_FAIL, p->b.recv_evd, &rcookie,
			     DAT_DTO_SUCCESS);
	if (d.transfered_length != 100 || !dc_check_fill(p->mb.buf + roff, 100, 0x5E))
		dc_end_at(t, DC_FAIL, file, line, false,
			  "the peer's Receive got %llu bytes that are not the marker: something else was delivered first",
			  (unsigned long long)d.transfered_length);
}
#define prove_nothing_sent(p, roff, rcookie) \
	prove_nothing_sent_at(t, __FILE__, __LINE__, (p), (roff), (rcookie))

/*
 * Clean-up between the iterations of a case that builds one pair per way or
 * per value: frees every object of the pair (dc_conn.h dc_endpoint_down /
 * dc_pair_down, shared with the rmr and evd areas).
 */
#define free_endpoint(t, e) dc_endpoint_down((t), (e))
/* A connected pair whose EPs have max_rdma_read_out 1 (UNSUPPORTED where
 * the IA allows no outgoing RDMA Read per EP). */
static inline void pair_up_one_read_out(struct dc_ctx *t, struct dc_pair *p)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };

	dc_ep_attr_default(t, &attr);
	DC_NEED_LIMIT("ia.max_rdma_read_per_ep_out", t->ia_attr.max_rdma_read_per_ep_out, 1);
	attr.max_rdma_read_out = 1;
	dc_pair_up(t, p, SUBJ_MEM, &o);
}

#define pair_down(t, p) dc_pair_down((t), (p))

/* ---- RDMA ---------------------------------------------------------------------- */

/* A pair whose EPs take RDMA with up to 3 local segments. */
static inline void rdma_pair_at(struct dc_ctx *t, const char *file, int line,
				 struct dc_pair *p, DAT_VLEN max_rdma_size)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { 0 };

	dc_ep_attr_default(t, &attr);
	if (t->ia_attr.max_iov_segments_per_rdma_read >= 3)
		attr.max_rdma_read_iov = 3;
	if (t->ia_attr.max_iov_segments_per_rdma_write >= 3)
		attr.max_rdma_write_iov = 3;
	if (max_rdma_size)
		attr.max_rdma_size = max_rdma_size;
	o.attr = &attr;
	dc_pair_up_at(t, file, line, p, SUBJ_MEM, &o);
	memset(p->ma.buf, CANARY, SUBJ_MEM);
	memset(p->mb.buf, CANARY, SUBJ_MEM);
}
#define rdma_pair(p) rdma_pair_at(t, __FILE__, __LINE__, (p), 0)

/*
 * A pair for RDMA whose a was created with max_rdma_size `created` and then
 * changed to `now` by dat_ep_modify while Unconnected (dat_ep_modify(3DAT)
 * DESCRIPTION, Maximum RDMA Size), before the connection.  Returns the
 * max_rdma_size a reports once connected: the limit its DTOs are held to.
 */
static inline DAT_VLEN rdma_pair_modified_at(struct dc_ctx *t, const char *file, int line,
					     struct dc_pair *p, DAT_VLEN created, DAT_VLEN now)
{
	memset(p, 0, sizeof(*p));
	dc_endpoint_modified_at(t, file, line, &p->a, "max_rdma_size",
				offsetof(DAT_EP_ATTR, max_rdma_size), sizeof(DAT_VLEN),
				DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, created, now);
	dc_endpoint_at(t, file, line, &p->b, NULL);
	dc_lmr_at(t, file, line, p->a.pz, SUBJ_MEM, DAT_MEM_PRIV_ALL_FLAG, &p->ma);
	dc_lmr_at(t, file, line, p->b.pz, SUBJ_MEM, DAT_MEM_PRIV_ALL_FLAG, &p->mb);
	memset(p->ma.buf, CANARY, SUBJ_MEM);
	memset(p->mb.buf, CANARY, SUBJ_MEM);
	dc_connect_local_at(t, file, line, &p->a, &p->b, NULL);
	return dc_ep_param(t, p->a.ep).ep_attr.max_rdma_size;
}
#define rdma_pair_modified(p, c, n) rdma_pair_modified_at(t, __FILE__, __LINE__, (p), (c), (n))

/*
 * The RDMA size limit is the EP's max_rdma_size as it is now: one
 * dat_ep_modify changed while Unconnected (dat_ep_modify(3DAT) DESCRIPTION,
 * Maximum RDMA Size) counts, not the one of creation (issue 54: a setting
 * changed after creation is used afterwards).  Lowered 8192 -> 4096, an RDMA
 * Read (read) or Write of the reported limit + 1 is refused or fails and
 * moves nothing into its target; raised 4096 -> 8192, one of the reported
 * limit moves whole.  An IA whose max_rdma_size is below 8192 has no such
 * pair of sizes (noted).  The target is local memory for a Read, the
 * peer's for a Write (dat_ep_post_rdma_read(3DAT), dat_ep_post_rdma_write(3DAT)
 * DESCRIPTION).
 */
static inline void modified_rdma_size_used(struct dc_ctx *t, bool read)
{
	static const DAT_RETURN sync[] = { DAT_LENGTH_ERROR, DAT_INVALID_PARAMETER };
	static const DAT_DTO_COMPLETION_STATUS async[] = { DAT_DTO_ERR_LOCAL_LENGTH };
	const char *op = read ? "Read" : "Write";

	if (t->ia_attr.max_rdma_size < 8192) {
		dc_note(t, "the IA's max_rdma_size %llu is below 8192: no change to try",
			(unsigned long long)t->ia_attr.max_rdma_size);
		return;
	}
	for (int raise = 0; raise < 2; raise++) {
		DAT_VLEN created = raise ? 4096 : 8192, now = raise ? 8192 : 4096, max, len;
		struct dc_pair p;
		struct dc_lmr *src, *dst;
		DAT_LMR_TRIPLET iov;
		DAT_RMR_TRIPLET rem;
		DAT_RETURN r;

		max = rdma_pair_modified(&p, created, now);
		src = read ? &p.mb : &p.ma;
		dst = read ? &p.ma : &p.mb;
		if (max < 1 || max >= SUBJ_MEM) {
			dc_note(t, "the EP reports max_rdma_size %llu after the change: beyond the "
				"%u bytes this part moves, left out", (unsigned long long)max,
				SUBJ_MEM);
			pair_down(t, &p);
			continue;
		}
		len = raise ? max : max + 1;
		dc_fill(src->buf, len, 11 + (unsigned)raise);
		iov = dc_iov(&p.ma, 0, len);
		rem = dc_rmr_iov(&p.mb, 0, len);
		r = read ? dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(3 + (uint64_t)raise),
						 &rem, DAT_COMPLETION_DEFAULT_FLAG)
			 : dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(3 + (uint64_t)raise),
						  &rem, DAT_COMPLETION_DEFAULT_FLAG);
		if (!raise) {
			REFUSED_OR_FAILED(r, sync, &p.a, 3, async);
			DC_ASSERT_BYTES_ARE(dst->buf, SUBJ_MEM, CANARY,
					    read ? "local memory (max_rdma_size lowered by dat_ep_modify)"
						 : "remote memory (max_rdma_size lowered by dat_ep_modify)");
		} else {
			DC_ASSERT_SUCCESS_UNLESS_SHORT(r);
			DC_ASSERT_DTO(p.a.req_evd, 4, DAT_DTO_SUCCESS);
			DC_ASSERT(!memcmp(p.ma.buf, p.mb.buf, max),
				  "the %s of the raised max_rdma_size moved wrong bytes", op);
		}
		pair_down(t, &p);
	}
}

/*
 * A pair for the IOV limit cases: each EP's IOV limits as large as the IA
 * allows (up to IOV_TRY - 1, so limit + 1 segments still fit; with `below`
 * one less, iov_limit), except the
 * RDMA kind `small_rdma` (a DTO_RDMA_* below), which gets 1: a provider that
 * checks a DTO against another kind's limit then shows it.
 */
enum { SMALL_NONE, SMALL_READ, SMALL_WRITE };
/* The IOV limit to ask for: the IA's (up to IOV_TRY - 1), or (below) one
 * less, so that the EP's own limit is not the IA's: both must be kept. */
static inline DAT_COUNT iov_limit(DAT_COUNT ia_max, bool below)
{
	DAT_COUNT v = dc_within_limit(IOV_TRY - 1, ia_max);

	return below && v == ia_max && v > 1 ? v - 1 : v;
}
static inline void iov_pair_at(struct dc_ctx *t, const char *file, int line,
			       struct dc_pair *p, int small_rdma, bool below)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { 0 };
	const DAT_IA_ATTR *ia = &t->ia_attr;

	dc_ep_attr_default(t, &attr);
	attr.max_recv_iov = iov_limit(ia->max_iov_segments_per_dto, below);
	attr.max_request_iov = iov_limit(ia->max_iov_segments_per_dto, below);
	attr.max_rdma_read_iov = small_rdma == SMALL_READ ? 1 :
		iov_limit(ia->max_iov_segments_per_rdma_read, below);
	attr.max_rdma_write_iov = small_rdma == SMALL_WRITE ? 1 :
		iov_limit(ia->max_iov_segments_per_rdma_write, below);
	o.attr = &attr;
	dc_pair_up_at(t, file, line, p, SUBJ_MEM, &o);
	memset(p->ma.buf, CANARY, SUBJ_MEM);
	memset(p->mb.buf, CANARY, SUBJ_MEM);
}
#define iov_pair(p, small, below) iov_pair_at(t, __FILE__, __LINE__, (p), (small), (below))

/*
 * Clause: an RDMA Read (read true) or Write of p->a over mb[0, 64) with
 * `nseg` local segments, local_iov a valid one-segment vector into ma (or,
 * with_iov false, NULL), and completion_flags `flags`, is refused with one
 * of `types`: no completion, and the memory it would have written (ma for
 * a Read, mb for a Write) keeps its CANARY (rdma_pair).
 */
static inline void expect_rdma_iov_refused_at(struct dc_ctx *t, const char *file, int line,
					      struct dc_pair *p, bool read, DAT_COUNT nseg,
					      bool with_iov, DAT_COMPLETION_FLAGS flags,
					      int ntypes, const DAT_RETURN *types)
{
	DAT_LMR_TRIPLET iov = dc_iov(&p->ma, 0, 64);
	DAT_RMR_TRIPLET rem = dc_rmr_iov(&p->mb, 0, 64);
	DAT_LMR_TRIPLET *v = with_iov ? &iov : NULL;

	dc_assert_ret_at(t, file, line, read ? "dat_ep_post_rdma_read" : "dat_ep_post_rdma_write",
			 read ? dat_ep_post_rdma_read(p->a.ep, nseg, v, dc_cookie(1), &rem, flags) :
				dat_ep_post_rdma_write(p->a.ep, nseg, v, dc_cookie(1), &rem, flags),
			 DC_FAIL, ntypes, types, DC_ANY_SUBTYPE);
	dc_assert_no_event_at(t, file, line, p->a.req_evd);
	if (dc_first_not(read ? p->ma.buf : p->mb.buf, SUBJ_MEM, CANARY) >= 0)
		dc_end_at(t, DC_FAIL, file, line, false, "the refused %s changed %s memory",
			  read ? "RDMA Read" : "RDMA Write", read ? "local" : "remote");
}
#define expect_rdma_iov_refused(p, read, nseg, with_iov, types)		\
	expect_rdma_iov_refused_at(t, __FILE__, __LINE__, (p), (read), (nseg), (with_iov), \
				   DAT_COMPLETION_DEFAULT_FLAG, N_OF(types), (types))

/*
 * Clause (the RDMA pages' invalid_flags): on a fresh rdma_pair, an RDMA Read
 * (read true) or Write with one valid segment and completion_flags 0x40,
 * then 0x80, is refused with DAT_INVALID_PARAMETER (any subtype), as
 * expect_rdma_iov_refused checks.  PARAMETERS of both pages list DEFAULT
 * 0x00, SUPPRESS 0x01, UNSIGNALLED 0x04 and BARRIER_FENCE 0x08; 0x40 and
 * 0x80 are no DAT_COMPLETION_* flag in the DAT 1.2 or 2.0 headers.
 */
static inline void expect_rdma_undefined_flags_refused_at(struct dc_ctx *t, const char *file,
							  int line, bool read)
{
	static const DAT_COMPLETION_FLAGS undefined[] = { 0x40, 0x80 };
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER };
	struct dc_pair p;

	rdma_pair_at(t, file, line, &p, 0);
	for (int i = 0; i < N_OF(undefined); i++)
		expect_rdma_iov_refused_at(t, file, line, &p, read, 1, true, undefined[i],
					   N_OF(bad), bad);
}
#define expect_rdma_undefined_flags_refused(read) \
	expect_rdma_undefined_flags_refused_at(t, __FILE__, __LINE__, (read))

/*
 * Clause: a 1-byte RDMA Read (read true: mb[roff] into ma[loff]) or Write
 * (ma[loff] to mb[roff]) of p->a completes DAT_DTO_SUCCESS, and the byte
 * written is the source byte while its two neighbours keep CANARY.
 */
static inline void expect_rdma_one_byte_at(struct dc_ctx *t, const char *file, int line,
					   struct dc_pair *p, bool read, DAT_VLEN loff,
					   DAT_VLEN roff, uint64_t cookie)
{
	/* one segment, an unreadable triplet after it (poison_triplet) */
	DAT_LMR_TRIPLET iov[2] = { dc_iov(&p->ma, loff, 1), poison_triplet(&p->ma) };
	DAT_RMR_TRIPLET rem = dc_rmr_iov(&p->mb, roff, 1);
	unsigned char *src = read ? p->mb.buf + roff : p->ma.buf + loff;
	unsigned char *dst = read ? p->ma.buf + loff : p->mb.buf + roff;

	dc_fill(src, 1, 0x62);
	dc_assert_ret_at(t, file, line, read ? "dat_ep_post_rdma_read" : "dat_ep_post_rdma_write",
			 read ? dat_ep_post_rdma_read(p->a.ep, 1, iov, dc_cookie(cookie), &rem,
						      DAT_COMPLETION_DEFAULT_FLAG) :
				dat_ep_post_rdma_write(p->a.ep, 1, iov, dc_cookie(cookie), &rem,
						       DAT_COMPLETION_DEFAULT_FLAG),
			 DC_FAIL, 1, (const DAT_RETURN[]){ DAT_SUCCESS }, DC_ANY_SUBTYPE);
	dc_expect_dto_at(t, file, line, DC_FAIL, p->a.req_evd, &cookie, DAT_DTO_SUCCESS);
	if (dst[0] != src[0])
		dc_end_at(t, DC_FAIL, file, line, false, "the 1-byte %s did not move its byte",
			  read ? "RDMA Read" : "RDMA Write");
	if (dst[-1] != CANARY || dst[1] != CANARY)
		dc_end_at(t, DC_FAIL, file, line, false, "the 1-byte %s wrote beside its byte",
			  read ? "RDMA Read" : "RDMA Write");
}
#define expect_rdma_one_byte(p, read, loff, roff, cookie) \
	expect_rdma_one_byte_at(t, __FILE__, __LINE__, (p), (read), (loff), (roff), (cookie))

/* b binds an RMR over mb[off, off+len) with `priv`; returns its context. */
#define bind_window(p, off, len, priv)					\
	dc_bind_rmr(t, dc_rmr(t, (p)->b.pz), &(p)->mb, (off), (len), (priv), \
		    &(p)->b, 0xB1)

/*
 * The privilege sets of the four DAT_MEM_PRIV_* bits that lack `missing`,
 * each registered in turn: try_priv_lmr registers 4 KiB (zeroed) in pz with
 * priv, or returns false (with a note) when dat_lmr_create refuses that
 * combination, which its page lets a provider do; the case then skips it.
 */
static inline int priv_sets_without(DAT_MEM_PRIV_FLAGS missing, DAT_MEM_PRIV_FLAGS out[16])
{
	static const DAT_MEM_PRIV_FLAGS bits[] = {
		DAT_MEM_PRIV_LOCAL_READ_FLAG, DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
		DAT_MEM_PRIV_REMOTE_READ_FLAG, DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
	};
	int n = 0;

	for (unsigned set = 1; set < 16; set++) {
		DAT_MEM_PRIV_FLAGS f = 0;

		for (int b = 0; b < 4; b++)
			if (set & (1u << b))
				f |= bits[b];
		if (!(f & missing))
			out[n++] = f;
	}
	return n;
}
static inline bool try_priv_lmr(struct dc_ctx *t, DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
				struct dc_lmr *m)
{
	unsigned char *buf = dc_case_buf(t, 4096, 4096);
	DAT_RETURN r = dc_lmr_register(t->ia, pz, buf, 4096, priv, m);

	if (r != DAT_SUCCESS) {
		dc_note(t, "privileges 0x%x: dat_lmr_create refused (%s), combination skipped",
			(unsigned)priv, dc_ret_text(r));
		return false;
	}
	dc_note(t, "privileges 0x%x", (unsigned)priv);
	return true;
}

/* ---- the subject: an EP brought into a state for real ---------------------------- */

struct subject {
	struct dc_endpoint e;	/* Consumer objects: pz, evds, ep */
	DAT_EP_HANDLE ep;	/* the EP in the state (e.ep, or the Provider EP) */
	DAT_EP_STATE state;
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_RSP_HANDLE rsp;
	DAT_CR_HANDLE cr;	/* pending request (PCP, TCP) */
	DAT_CONN_QUAL qual;
	struct dc_lmr mem;	/* SUBJ_MEM bytes, RW, in e.pz */
	DAT_COUNT pre_recvs;	/* Receives posted before the state (cookies 1000+i) */
	pid_t frozen;		/* COMPLETION_PENDING: the frozen active half */
};

struct at_opts {
	DAT_COUNT pre_recvs;	/* Receives to post on the subject first */
	const DAT_EP_ATTR *attr;
	bool no_verify;		/* the clause itself is about the reported state */
};

typedef void (*subject_fn)(struct dc_ctx *t, struct subject *s, const void *arg);

/*
 * A state the path reached that ends by itself (the connection completes or
 * breaks, a graceful disconnect finishes) may have ended before a check. The
 * move from s->state to @now is such an ending when @now is where that state
 * leads and a connection event on the connect EVD, consistent with @now, says
 * so. Returns the event's name (the event is taken off the EVD), else NULL.
 */
static inline const char *state_ended_on_its_own(struct subject *s, DAT_EP_STATE now)
{
	bool leads;
	DAT_EVENT ev;

	switch (s->state) {
	case DAT_EP_STATE_DISCONNECT_PENDING:
		leads = now == DAT_EP_STATE_DISCONNECTED;
		break;
	case DAT_EP_STATE_COMPLETION_PENDING:
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
		leads = now == DAT_EP_STATE_CONNECTED || now == DAT_EP_STATE_DISCONNECTED;
		break;
	default:
		return NULL;
	}
	/* the ending's event may trail the state by a moment (cma-rxe0 showed
	 * DISCONNECTED before the event was queued): waited for, 2 s at most */
	if (!leads || !s->e.conn_evd ||
	    dat_evd_wait(s->e.conn_evd, 2000000, 1, &ev, &(DAT_COUNT){ 0 }) != DAT_SUCCESS)
		return NULL;
	if ((ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED) !=
	    (now == DAT_EP_STATE_CONNECTED))
		return NULL;
	return dc_event_name(ev.event_number);
}

/*
 * For a call that must leave the EP alone: "ep_state" when its transitional
 * state ended by itself meanwhile (state_ended_on_its_own: the connection's
 * doing, noted), else NULL. The field a snapshot comparison then leaves out.
 * state_ended_by judges the state `now` the caller read; state_ended_meanwhile
 * reads it.
 */
static inline const char *state_ended_by(struct dc_ctx *t, struct subject *s, DAT_EP_STATE now)
{
	const char *ended = now != s->state ? state_ended_on_its_own(s, now) : NULL;

	if (!ended)
		return NULL;
	dc_note(t, "%s ended on its own meanwhile (%s): the state is not compared",
		state_name(s->state), ended);
	return "ep_state";
}

static inline const char *state_ended_meanwhile(struct dc_ctx *t, struct subject *s)
{
	return state_ended_by(t, s, DC_EP_PARAM(s->ep).ep_state);
}

/* Clause: a call that must leave the EP's state alone (a refused post) left
 * it in s->state, or its transitional state ended by itself meanwhile (the
 * state read once, judged as read). */
static inline void assert_state_kept_at(struct dc_ctx *t, const char *file, int line,
					struct subject *s)
{
	DAT_EP_STATE now = ep_state_at(t, file, line, s->ep, DC_FAIL);

	if (now == s->state || state_ended_by(t, s, now))
		return;
	dc_end_at(t, DC_FAIL, file, line, false, "EP state is %s (%d), expected %s",
		  state_name(now), (int)now, state_name(s->state));
}
#define ASSERT_STATE_KEPT(s) assert_state_kept_at(t, __FILE__, __LINE__, (s))

/*
 * Clause: a post that the page refuses in s->state (DAT_INVALID_STATE) was
 * refused. A post taken instead is judged by the state it met: when s->state
 * ended on its own meanwhile in DISCONNECTED, where the request pages take a
 * post (and flush it), the post may have come after the ending, so the case
 * cannot tell (UNRESOLVED with what it saw); otherwise the taken post fails.
 */
static inline void assert_post_refused_at(struct dc_ctx *t, const char *file, int line,
					  struct subject *s, const char *expr, DAT_RETURN got)
{
	DAT_EP_STATE now;
	char b[96];

	if (DAT_GET_TYPE(got) != DAT_INVALID_STATE && s->state != DAT_EP_STATE_DISCONNECTED &&
	    (now = ep_state_at(t, file, line, s->ep, DC_FAIL)) == DAT_EP_STATE_DISCONNECTED &&
	    state_ended_on_its_own(s, now))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "%s returned %s, and %s ended on its own in DISCONNECTED, where the "
			  "post is valid: which of the two states it met cannot be told",
			  expr, dc_ret_str(got, b, sizeof(b)), state_name(s->state));
	dc_assert_ret_at(t, file, line, expr, got, DC_FAIL, 1,
			 (const DAT_RETURN[]){ DAT_INVALID_STATE }, DC_ANY_SUBTYPE);
}
#define ASSERT_POST_REFUSED(s, post) \
	assert_post_refused_at(t, __FILE__, __LINE__, (s), #post, (post))

static inline bool subject_on_passive(DAT_EP_STATE st)
{
	return st == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING ||
	       st == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING ||
	       st == DAT_EP_STATE_COMPLETION_PENDING ||
	       st == DAT_EP_STATE_UNCONNECTED || st == DAT_EP_STATE_RESERVED;
}

static inline bool state_needs_peer(DAT_EP_STATE st)
{
	return st != DAT_EP_STATE_UNCONNECTED && st != DAT_EP_STATE_RESERVED;
}

/* Creates the Consumer objects of the subject, unconnected. */
static inline void subject_objects_at(struct dc_ctx *t, const char *file,
				      int line, struct subject *s,
				      const struct at_opts *o)
{
	struct dc_conn_opts co = { 0 };

	co.attr = o ? o->attr : NULL;
	co.evd_qlen = 64;
	dc_endpoint_at(t, file, line, &s->e, &co);
	s->ep = s->e.ep;
	dc_lmr_at(t, file, line, s->e.pz, SUBJ_MEM, DAT_MEM_PRIV_ALL_FLAG, &s->mem);
	memset(s->mem.buf, CANARY, SUBJ_MEM);
	s->pre_recvs = o ? o->pre_recvs : 0;
	for (DAT_COUNT i = 0; i < s->pre_recvs; i++) {
		DAT_RETURN r = post_recv1(s->e.ep, &s->mem, (DAT_VLEN)i * 256, 256,
					  1000 + (uint64_t)i);
		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up dat_ep_post_recv (pre-posted %d) returned %s",
				  (int)i, dc_ret_text(r));
	}
}

static inline void verify_reached_at(struct dc_ctx *t, const char *file,
				     int line, struct subject *s)
{
	DAT_EP_STATE st = ep_state_at(t, file, line, s->ep, DC_UNRESOLVED);

	if (st == s->state)
		return;
	if (passed_through(s->state, st))
		dc_cause_needs(t, "state", state_name(s->state));
	dc_end_at(t, DC_UNRESOLVED, file, line, false,
		  "set-up: wanted the EP in %s, it is in %s",
		  state_name(s->state), state_name(st));
}

/* An EP reserved by an RSP on a free qualifier (the RSP pages). */
struct rsp_fix {
	struct dc_endpoint e;		/* the reserved EP */
	DAT_EVD_HANDLE evd;
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;
};

static inline void rsp_up(struct dc_ctx *t, struct rsp_fix *f)
{
	dc_endpoint(t, &f->e, NULL);
	f->evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	dc_rsp_any(t, f->e.ep, f->evd, &f->q, &f->rsp);
}

/*
 * The connection event this provider gives a request to a qualifier nobody
 * listens on (set-up): the dat_psp_free / dat_rsp_free pages ask for the
 * same rejection after the free, whichever event that is (the event itself
 * is dat_ep_connect's clause, non_peer_rejected_no_listener).
 */
static inline DAT_EVENT_NUMBER no_listener_event(struct dc_ctx *t)
{
	struct dc_endpoint r;
	DAT_EVENT ev;

	dc_endpoint(t, &r, NULL);
	DC_SETUP(dc_connect_to_self(t, r.ep, dc_unprobed_conn_qual(), 0, 0, NULL));
	DC_SETUP(dc_wait_event(t, r.conn_evd, -1, &ev));
	DC_SETUP_ASSERT(ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED,
			"a connection to a qualifier nobody listens on was established");
	dc_note(t, "a request nobody listens for ends in %s", dc_event_name(ev.event_number));
	return ev.event_number;
}

/* Gives a Provider-created EP (TENTATIVE) the subject's PZ and EVDs. */
static inline void adopt_at(struct dc_ctx *t, const char *file, int line,
			    struct subject *s)
{
	DAT_EP_PARAM nv;
	DAT_RETURN r;

	if (s->ep == s->e.ep)
		return;
	memset(&nv, 0, sizeof(nv));
	nv.pz_handle = s->e.pz;
	nv.recv_evd_handle = s->e.recv_evd;
	nv.request_evd_handle = s->e.req_evd;
	nv.connect_evd_handle = s->e.conn_evd;
	r = dat_ep_modify(s->ep, DAT_EP_FIELD_PZ_HANDLE | DAT_EP_FIELD_RECV_EVD_HANDLE |
				 DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				 DAT_EP_FIELD_CONNECT_EVD_HANDLE, &nv);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: giving the Provider EP a PZ and EVDs (dat_ep_modify) returned %s",
			  dc_ret_text(r));
}
#define adopt(s) adopt_at(t, __FILE__, __LINE__, (s))

/* ---- freezing the active half (COMPLETION_PENDING) ------------------------------ */

static inline void boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

/* Active half: tell the passive half who we are, then stop until SIGCONT. */
static inline void freeze_self(struct dc_ctx *t)
{
	char id[64];

	boot_id(id, sizeof(id));
	dc_peer_send(t, "freeze", "%ld %s", (long)getpid(), id);
	raise(SIGSTOP);
}

static inline char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Passive half: waits until the active half has stopped itself; returns its pid. */
static inline pid_t await_frozen_at(struct dc_ctx *t, const char *file, int line)
{
	char msg[128], mine[64], theirs[64] = "";
	long pid = 0;
	struct timespec ns = { 0, 200000 };

	dc_peer_wait_at(t, file, line, "freeze", msg, sizeof(msg));
	if (sscanf(msg, "%ld %63s", &pid, theirs) < 1 || pid <= 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: malformed freeze message '%s'", msg);
	boot_id(mine, sizeof(mine));
	if (!mine[0] || strcmp(mine, theirs))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: holding COMPLETION_PENDING needs both halves on one host (freezing the active half)");
	for (;;) {
		char c = proc_state((pid_t)pid);

		if (c == 'T' || c == 't')
			return (pid_t)pid;
		if (c == '?' || dc_remaining_ms(t) < 1000)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the active half (pid %ld) did not stop (state %c)",
				  pid, c);
		nanosleep(&ns, NULL);	/* polling a condition, bounded */
	}
}
#define await_frozen() await_frozen_at(t, __FILE__, __LINE__)

/* The frozen half is resumed when the case ends, however it ends. */
static pid_t epc_frozen_pid;

static inline void epc_thaw_at_exit(void)
{
	if (epc_frozen_pid > 0)
		kill(epc_frozen_pid, SIGCONT);
}

static inline void remember_frozen(pid_t pid)
{
	static bool registered;

	epc_frozen_pid = pid;
	if (!registered) {
		registered = true;
		atexit(epc_thaw_at_exit);
	}
}

static inline void thaw(struct subject *s)
{
	if (s->frozen > 0) {
		kill(s->frozen, SIGCONT);
		s->frozen = 0;
		epc_frozen_pid = 0;
	}
}

/* ---- reaching a state ------------------------------------------------------------ */

/* The half (or single node) that owns the subject: reach the state. */
static inline void reach_subject_at(struct dc_ctx *t, const char *file,
				    int line, struct subject *s,
				    DAT_EP_STATE st, const struct at_opts *o)
{
	DAT_RETURN r;
	DAT_CR_PARAM crp;

	memset(s, 0, sizeof(*s));
	s->state = st;
	subject_objects_at(t, file, line, s, o);
	s->cr_evd = dc_evd_at(t, file, line, 8, DAT_EVD_CR_FLAG);

	switch ((int)st) {
	case DAT_EP_STATE_UNCONNECTED:
		if (t->role == DC_ROLE_PASSIVE)
			dc_announce_at(t, file, line, NULL, 0, NULL);
		break;
	case DAT_EP_STATE_RESERVED:
		dc_rsp_any_at(t, file, line, t->ia, s->ep, s->cr_evd, &s->qual, &s->rsp);
		if (t->role == DC_ROLE_PASSIVE)
			dc_announce_at(t, file, line, NULL, 0, NULL);
		break;
	case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
		dc_rsp_any_at(t, file, line, t->ia, s->ep, s->cr_evd, &s->qual, &s->rsp);
		dc_announce_at(t, file, line, NULL, s->qual, NULL);
		s->cr = dc_await_cr_at(t, file, line, s->cr_evd, NULL);
		break;
	case DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING:
		r = dat_psp_create_any(t->ia, &s->qual, s->cr_evd,
				       DAT_PSP_PROVIDER_FLAG, &s->psp);
		DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_psp_create_any",
					     "no Provider-created EPs, so no TENTATIVE_CONNECTION_PENDING");
		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up dat_psp_create_any(DAT_PSP_PROVIDER_FLAG) returned %s",
				  dc_ret_text(r));
		dc_announce_at(t, file, line, NULL, s->qual, NULL);
		s->cr = dc_await_cr_at(t, file, line, s->cr_evd, NULL);
		memset(&crp, 0, sizeof(crp));
		r = dat_cr_query(s->cr, DAT_CR_FIELD_ALL, &crp);
		if (r != DAT_SUCCESS || !crp.local_ep_handle)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the request of a PSP(provider flag) carries no EP (dat_cr_query %s)",
				  dc_ret_text(r));
		s->ep = crp.local_ep_handle;
		break;
	case DAT_EP_STATE_COMPLETION_PENDING:
		r = dat_psp_create_any(t->ia, &s->qual, s->cr_evd,
				       DAT_PSP_CONSUMER_FLAG, &s->psp);
		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up dat_psp_create_any returned %s", dc_ret_text(r));
		dc_announce_at(t, file, line, NULL, s->qual, NULL);
		s->cr = dc_await_cr_at(t, file, line, s->cr_evd, NULL);
		/* The request is here; now the active half may stop. */
		dc_peer_send(t, "cr", "arrived");
		s->frozen = await_frozen_at(t, file, line);
		remember_frozen(s->frozen);
		r = dat_cr_accept(s->cr, s->ep, 0, NULL);
		if (r != DAT_SUCCESS) {
			thaw(s);
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up dat_cr_accept returned %s", dc_ret_text(r));
		}
		s->cr = DAT_HANDLE_NULL;
		break;
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
		r = dat_ep_connect(s->ep, (DAT_IA_ADDRESS_PTR)&t->peer.addr,
				   t->peer.conn_qual, dc_case_timeout_us(t), 0, NULL,
				   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up dat_ep_connect returned %s", dc_ret_text(r));
		dc_peer_wait_at(t, file, line, "cr", NULL, 0);
		break;
	case DAT_EP_STATE_CONNECTED:
	case DAT_EP_STATE_DISCONNECTED:
	case DAT_EP_STATE_DISCONNECT_PENDING:
		dc_connect_active_at(t, file, line, &s->e, NULL);
		if (st == DAT_EP_STATE_DISCONNECTED) {
			r = dat_ep_disconnect(s->ep, DAT_CLOSE_ABRUPT_FLAG);
			if (r != DAT_SUCCESS)
				dc_end_at(t, DC_UNRESOLVED, file, line, false,
					  "set-up dat_ep_disconnect returned %s", dc_ret_text(r));
			dc_expect_event_at(t, file, line, DC_UNRESOLVED, s->e.conn_evd,
					   DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
		}
		if (st == DAT_EP_STATE_DISCONNECT_PENDING) {
			/* The peer posts no Receive: the Send stays outstanding. */
			r = post_send1(s->ep, &s->mem, SUBJ_MEM - 64, 64, 7);
			if (r == DAT_SUCCESS)
				r = dat_ep_disconnect(s->ep, DAT_CLOSE_GRACEFUL_FLAG);
			if (r != DAT_SUCCESS)
				dc_end_at(t, DC_UNRESOLVED, file, line, false,
					  "set-up (Send + graceful disconnect) returned %s",
					  dc_ret_text(r));
		}
		break;
	default:
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: no way to reach state %s", state_name(st));
	}
	if (!o || !o->no_verify)
		verify_reached_at(t, file, line, s);
}

/* The half that does not own the subject: help reach the state, then wait. */
static inline void serve_peer_at(struct dc_ctx *t, const char *file, int line,
				 DAT_EP_STATE st)
{
	struct dc_endpoint pe;
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_RETURN r;

	memset(&pe, 0, sizeof(pe));
	if (t->role == DC_ROLE_PASSIVE) {
		switch ((int)st) {
		case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
			cr_evd = dc_evd_at(t, file, line, 8, DAT_EVD_CR_FLAG);
			r = dat_psp_create_any(t->ia, &q, cr_evd,
					       DAT_PSP_CONSUMER_FLAG, &psp);
			if (r != DAT_SUCCESS)
				dc_end_at(t, DC_UNRESOLVED, file, line, false,
					  "set-up dat_psp_create_any returned %s", dc_ret_text(r));
			dc_announce_at(t, file, line, NULL, q, NULL);
			dc_await_cr_at(t, file, line, cr_evd, NULL);
			dc_peer_send(t, "cr", "arrived");
			break;
		default:	/* CONNECTED, DISCONNECT_PENDING, DISCONNECTED */
			dc_connect_passive_at(t, file, line, &pe, NULL);
			break;
		}
	} else {
		switch ((int)st) {
		case DAT_EP_STATE_UNCONNECTED:
		case DAT_EP_STATE_RESERVED:
			break;
		default:	/* PCP, TCP, CP: send the request */
			dc_endpoint_at(t, file, line, &pe, NULL);
			r = dat_ep_connect(pe.ep, (DAT_IA_ADDRESS_PTR)&t->peer.addr,
					   t->peer.conn_qual, dc_case_timeout_us(t), 0,
					   NULL, DAT_QOS_BEST_EFFORT,
					   DAT_CONNECT_DEFAULT_FLAG);
			if (r != DAT_SUCCESS)
				dc_end_at(t, DC_UNRESOLVED, file, line, false,
					  "set-up dat_ep_connect returned %s", dc_ret_text(r));
			if (st == DAT_EP_STATE_COMPLETION_PENDING) {
				/* Stop only once the request has arrived (the
				 * connect itself is asynchronous). */
				dc_peer_wait_at(t, file, line, "cr", NULL, 0);
				freeze_self(t);
			}
			break;
		}
	}
	dc_peer_wait_at(t, file, line, "done", NULL, 0);
}

/*
 * Runs fn on an EP in state st, reached for real.  Call it from both halves
 * of a DC_TWO_NODE_CASE (or from a DC_CASE for UNCONNECTED and RESERVED).
 */
static inline void at_state_at(struct dc_ctx *t, const char *file, int line,
			       DAT_EP_STATE st, subject_fn fn, const void *arg,
			       const struct at_opts *o)
{
	struct subject s;
	bool mine;

	if (t->role == DC_ROLE_SINGLE) {
		if (state_needs_peer(st))
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "case bug: state %s needs a two-node case",
				  state_name(st));
		mine = true;
	} else {
		mine = subject_on_passive(st) == (t->role == DC_ROLE_PASSIVE);
	}
	if (!mine) {
		serve_peer_at(t, file, line, st);
		return;
	}
	reach_subject_at(t, file, line, &s, st, o);
	fn(t, &s, arg);
	thaw(&s);
	if (t->role != DC_ROLE_SINGLE)
		dc_peer_send(t, "done", "ok");
}
#define at_state(st, fn, arg) at_state_at(t, __FILE__, __LINE__, (st), (fn), (arg), NULL)
#define at_state_opts(st, fn, arg, o) \
	at_state_at(t, __FILE__, __LINE__, (st), (fn), (arg), (o))

/*
 * Registering one case per state: STATE_CASE(page, name, state_token, fn,
 * arg, clause) where state_token is one of the lower-case names below.
 * Single-node states give a DC_CASE, the others a DC_TWO_NODE_CASE.
 */
#define ST_unconnected DAT_EP_STATE_UNCONNECTED
#define ST_reserved DAT_EP_STATE_RESERVED
#define ST_passive_connection_pending DAT_EP_STATE_PASSIVE_CONNECTION_PENDING
#define ST_tentative_connection_pending DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING
#define ST_completion_pending DAT_EP_STATE_COMPLETION_PENDING
#define ST_active_connection_pending DAT_EP_STATE_ACTIVE_CONNECTION_PENDING
#define ST_connected DAT_EP_STATE_CONNECTED
#define ST_disconnect_pending DAT_EP_STATE_DISCONNECT_PENDING
#define ST_disconnected DAT_EP_STATE_DISCONNECTED

/* Which registration a state needs. */
#define KIND_unconnected SINGLE
#define KIND_reserved SINGLE
#define KIND_passive_connection_pending TWO
#define KIND_tentative_connection_pending TWO
#define KIND_completion_pending TWO
#define KIND_active_connection_pending TWO
#define KIND_connected TWO
#define KIND_disconnect_pending TWO
#define KIND_disconnected TWO

/* Extra .requires of a state (TENTATIVE needs Provider-created EPs). */
#define REQ_unconnected NULL
#define REQ_reserved NULL
#define REQ_passive_connection_pending NULL
#define REQ_tentative_connection_pending "ep_creator!=0"
#define REQ_completion_pending NULL
#define REQ_active_connection_pending NULL
#define REQ_connected NULL
#define REQ_disconnect_pending NULL
#define REQ_disconnected NULL

#define EPC_CAT_(a, b) a##b
#define EPC_CAT(a, b) EPC_CAT_(a, b)

#define STATE_CASE_O(page, name, st, fn, arg, opts, clause, summ)	\
	EPC_CAT(STATE_CASE_O_, KIND_##st)(page, name, st, fn, arg, opts, clause, summ)

#define STATE_CASE_O_SINGLE(page, name, st, fn, arg, opts, clause, summ) \
	DC_CASE(page, name, .clauses = clause, .summary = summ,		\
		.requires = REQ_##st)					\
	{								\
		at_state_opts(ST_##st, fn, arg, opts);			\
	}

#define STATE_CASE_O_TWO(page, name, st, fn, arg, opts, clause, summ)	\
	DC_TWO_NODE_CASE(page, name, .clauses = clause, .summary = summ,	\
			 .requires = REQ_##st);				\
	DC_PASSIVE(page, name)						\
	{								\
		at_state_opts(ST_##st, fn, arg, opts);			\
	}								\
	DC_ACTIVE(page, name)						\
	{								\
		at_state_opts(ST_##st, fn, arg, opts);			\
	}

#define STATE_CASE(page, name, st, fn, arg, clause, summ)		\
	EPC_CAT(STATE_CASE_, KIND_##st)(page, name, st, fn, arg, clause, summ)

#define STATE_CASE_SINGLE(page, name, st, fn, arg, clause, summ)	\
	DC_CASE(page, name, .clauses = clause, .summary = summ,		\
		.requires = REQ_##st)					\
	{								\
		at_state(ST_##st, fn, arg);				\
	}

#define STATE_CASE_TWO(page, name, st, fn, arg, clause, summ)		\
	DC_TWO_NODE_CASE(page, name, .clauses = clause, .summary = summ,	\
			 .requires = REQ_##st);				\
	DC_PASSIVE(page, name)						\
	{								\
		at_state(ST_##st, fn, arg);				\
	}								\
	DC_ACTIVE(page, name)						\
	{								\
		at_state(ST_##st, fn, arg);				\
	}


/* ---- peer faults: the peer half killed with SIGKILL (dc_peer_die) ------------------ */

/*
 * The dying half: a connected EP that posts no Receive and exposes a window
 * `len` bytes long (remote read and write, filled with pattern 0x3D) for the
 * survivor's RDMA; announces it, then dies when the survivor says "die".
 * With no Receive, the survivor's first Send cannot complete on a transport
 * that waits for the peer's Receive (sock, InfiniBand and RoCE retry until
 * one is posted), so everything it posts after that stays outstanding until
 * the death.  On iWARP a Send completes once transmitted and the peer's
 * device ends the connection when no Receive takes it: the requests then
 * end before the death, and the same rules hold.
 */
static inline void die_with_window_at(struct dc_ctx *t, const char *file, int line,
				      DAT_VLEN len)
{
	struct dc_endpoint e;
	struct dc_lmr w;
	DAT_RMR_TRIPLET rem;

	memset(&e, 0, sizeof(e));
	dc_endpoint_at(t, file, line, &e, NULL);
	dc_lmr_at(t, file, line, e.pz, len, DAT_MEM_PRIV_ALL_FLAG, &w);
	dc_fill(w.buf, (size_t)len, 0x3D);
	dc_connect_passive_at(t, file, line, &e, NULL);
	rem = dc_rmr_iov(&w, 0, len);
	dc_peer_send(t, "window", "%llx %llx", (unsigned long long)rem.rmr_context,
		     (unsigned long long)dc_rmr_triplet_address(&rem));
	dc_peer_wait_at(t, file, line, "die", NULL, 0);
	dc_peer_die_at(t, file, line);
}
#define die_with_window(len) die_with_window_at(t, __FILE__, __LINE__, (len))

/* The survivor: the dying half's window (set-up). */
static inline DAT_RMR_TRIPLET peer_window_at(struct dc_ctx *t, const char *file, int line,
					     DAT_VLEN len)
{
	unsigned long long ctx, addr;
	char msg[128];

	dc_peer_wait_at(t, file, line, "window", msg, sizeof(msg));
	if (sscanf(msg, "%llx %llx", &ctx, &addr) != 2)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: malformed window message '%s'", msg);
	return dc_rmr_triplet((DAT_RMR_CONTEXT)ctx, (DAT_VADDR)addr, len);
}
#define peer_window(len) peer_window_at(t, __FILE__, __LINE__, (len))

/* A Request the survivor posted before the death, in post order. */
struct outstanding {
	uint64_t cookie;
	bool is_send;
};

/*
 * The peer was killed with the survivor's Requests outstanding; three
 * properties, each its own clause's (the case names which with
 * DC_FOR_CLAUSE before each). Every wait is bounded, within the case.
 *
 * The connection ends on its own: a connection event on the connect EVD
 * (DISCONNECTED or BROKEN: the pages tie no event to a peer's death) and the
 * EP DISCONNECTED.  No page says how soon a provider must notice that its
 * peer is gone (dat_ep_create(3DAT) DESCRIPTION only says where connection
 * events go): no event within the wait fails only when the EP is already
 * DISCONNECTED, an end the provider knows of and did not report; an EP still
 * CONNECTED has not noticed yet, which is not judged.
 */
static inline void assert_conn_ended_by_death_at(struct dc_ctx *t, const char *file, int line,
						 const struct dc_endpoint *e)
{
	DAT_EVENT ev;
	DAT_RETURN r = dc_wait_event(t, e->conn_evd, -1, &ev);
	DAT_EP_STATE st;

	if (DAT_GET_TYPE(r) == DAT_TIMEOUT_EXPIRED) {
		st = ep_state_at(t, file, line, e->ep, DC_FAIL);
		if (st == DAT_EP_STATE_DISCONNECTED)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "the EP is DISCONNECTED, but no connection event came on the "
				  "connection EVD in the wait (at most %ld ms) after the peer's "
				  "death", DC_WAIT_MS);
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "the provider did not notice the peer's death in the wait (at most "
			  "%ld ms; the EP is in %s; no page bounds that time)", DC_WAIT_MS,
			  state_name(st));
	}
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false, "dat_evd_wait on the connection EVD "
			  "returned %s", dc_ret_text(r));
	if (ev.event_number != DAT_CONNECTION_EVENT_BROKEN &&
	    ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "expected DAT_CONNECTION_EVENT_BROKEN or _DISCONNECTED, got %s",
			  dc_event_name(ev.event_number));
	await_state_at(t, file, line, e->ep, DAT_EP_STATE_DISCONNECTED, 2000, DC_FAIL);
}
#define ASSERT_CONN_ENDED_BY_DEATH(e) assert_conn_ended_by_death_at(t, __FILE__, __LINE__, (e))

/* Every Request completes exactly once, as a DTO completion on the request EVD; @log gets them. */
static inline void assert_each_request_completed_at(struct dc_ctx *t, const char *file, int line,
						    const struct dc_endpoint *e,
						    const struct outstanding *req, int n,
						    struct dto_log *log)
{
	memset(log, 0, sizeof(*log));
	dto_log_collect_at(t, file, line, log, e->req_evd, n, DC_FAIL);
	for (int i = 0; i < n; i++) {
		int seen = 0;

		for (int k = 0; k < n; k++)
			seen += log->d[k].user_cookie.as_64 == req[i].cookie;
		dc_note(t, "request %llu: %s", (unsigned long long)log->d[i].user_cookie.as_64,
			dc_dto_status_name(log->d[i].status));
		if (seen != 1)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "request %llu completed %d times among the %d completions",
				  (unsigned long long)req[i].cookie, seen, n);
	}
	if (log->other)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%d events other than DTO completions on the request EVD", log->other);
	dc_assert_no_event_at(t, file, line, e->req_evd);
}
#define ASSERT_EACH_REQUEST_COMPLETED(e, req, n, log) \
	assert_each_request_completed_at(t, __FILE__, __LINE__, (e), (req), (n), (log))

/* They complete in post order, none successfully after one that failed. */
static inline void assert_failure_order_at(struct dc_ctx *t, const char *file, int line,
					   const struct dto_log *log,
					   const struct outstanding *req, int n)
{
	bool failed = false;

	for (int i = 0; i < n; i++) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d = &log->d[i];

		if (d->user_cookie.as_64 != req[i].cookie)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "completion %d carries cookie %llu, expected %llu (post order)",
				  i + 1, (unsigned long long)d->user_cookie.as_64,
				  (unsigned long long)req[i].cookie);
		/* No page makes a Send's success wait for the peer's Receive:
		 * iWARP completes it once transmitted (docs/verbs.md). */
		if (d->status == DAT_DTO_SUCCESS && req[i].is_send)
			dc_note(t, "Send %llu completed successfully before the peer posted any "
				"Receive (the transport completes a Send once transmitted)",
				(unsigned long long)req[i].cookie);
		if (d->status == DAT_DTO_SUCCESS && failed)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "request %llu completed successfully after an earlier one failed",
				  (unsigned long long)req[i].cookie);
		failed = failed || d->status != DAT_DTO_SUCCESS;
	}
}
#define ASSERT_FAILURE_ORDER(log, req, n) \
	assert_failure_order_at(t, __FILE__, __LINE__, (log), (req), (n))

#endif /* EP_COMMON_H */
