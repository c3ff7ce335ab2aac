/* SPDX-License-Identifier: MIT */
/*
 * ep_ways.h - an EP brought into CONNECTED, or into DISCONNECTED without a
 * connection, each way the pages give (set-up only).  The clauses of
 * dat_ep_free, dat_ep_reset, dat_ep_modify, dat_ep_get_status and
 * dat_ep_disconnect speak of a state, not of the way the EP got there, so
 * their *_each_way cases run once per way (issue 38: "the state reached
 * another way").
 *
 * CONNECTED, the subject being:
 *   WAY_CONNECT            the active EP of dat_ep_connect(3DAT)
 *   WAY_DUP_CONNECT        the active EP of dat_ep_dup_connect(3DAT)
 *   WAY_ACCEPT_CONSUMER    the Consumer's EP accepting on a consumer-flag
 *                          PSP (dat_cr_accept(3DAT))
 *   WAY_ACCEPT_PROVIDER    the Provider EP of a provider-flag PSP
 *                          (dat_psp_create(3DAT)), accepted with it
 *   WAY_ACCEPT_RSP         the reserved EP of an RSP (dat_rsp_create(3DAT))
 *   WAY_ACCEPT_HANDOFF     the Consumer's EP accepting a request handed
 *                          off to another PSP (dat_cr_handoff(3DAT))
 * DISCONNECTED without a connection (dat_ep_connect(3DAT) DESCRIPTION):
 *   WAY_PEER_REJECTED      the active EP of a request the peer rejected
 *   WAY_TIMED_OUT          the active EP of a request nobody answered
 *                          within the connect timeout
 *
 * Every endpoint of a way shares one PZ and one DTO EVD and has its own
 * connect EVD, and way_down frees all of it, so the small legal limits
 * (Max EPs 8, Max EVDs 12, Max PZs 4 in the conforming variants) hold a
 * whole way.
 */
#ifndef EP_WAYS_H
#define EP_WAYS_H
#include "ep_common.h"

enum ep_way {
	WAY_CONNECT, WAY_DUP_CONNECT, WAY_ACCEPT_CONSUMER, WAY_ACCEPT_PROVIDER,
	WAY_ACCEPT_RSP, WAY_ACCEPT_HANDOFF, CONNECTED_WAYS,
	WAY_PEER_REJECTED = CONNECTED_WAYS, WAY_TIMED_OUT, EP_WAYS
};

static inline const char *ep_way_name(int way)
{
	static const char *const n[] = {
		"the active EP of dat_ep_connect",
		"the active EP of dat_ep_dup_connect",
		"an EP accepting on a consumer-flag PSP",
		"the Provider EP of a provider-flag PSP",
		"the reserved EP of an RSP",
		"an EP accepting a request handed off to another PSP",
		"the EP of a connect the peer rejected",
		"the EP of a connect that timed out",
	};
	return (unsigned)way < EP_WAYS ? n[way] : "?";
}

struct way_conn {
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, cr_evd, cr_evd2;
	DAT_PSP_HANDLE psp, psp2;
	DAT_RSP_HANDLE rsp;
	struct dc_endpoint s;		/* the subject: the EP that got there this way */
	struct dc_endpoint peer;	/* the other end of its connection (none for the
					 * two DISCONNECTED ways) */
	struct dc_endpoint x1, x2;	/* the first connection of WAY_DUP_CONNECT */
	DAT_CONN_QUAL q;		/* the qualifier the active EP connected to */
};

/* Set-up: an endpoint of w (its PZ and DTO EVD, its own connect EVD). */
static inline void way_endpoint_at(struct dc_ctx *t, const char *file, int line,
				   struct way_conn *w, struct dc_endpoint *e)
{
	DAT_EP_ATTR attr;

	memset(e, 0, sizeof(*e));
	dc_ep_attr_default(t, &attr);
	e->pz = w->pz;
	e->recv_evd = e->req_evd = w->dto;
	e->conn_evd = dc_evd_at(t, file, line, 8, DAT_EVD_CONNECTION_FLAG);
	e->ep = dc_ep_at(t, file, line, w->pz, w->dto, w->dto, e->conn_evd, DAT_HANDLE_NULL,
			 &attr);
}

#define way_setup_at dc_setup_call_at

static inline DAT_CR_HANDLE way_request_at(struct dc_ctx *t, const char *file, int line,
					   struct way_conn *w, struct dc_endpoint *from,
					   DAT_CONN_QUAL q, DAT_EVD_HANDLE cr_evd,
					   DAT_TIMEOUT timeout_us)
{
	w->q = q;
	way_setup_at(t, file, line, dc_connect_to_self(t, from->ep, q, timeout_us, 0, NULL),
		     "dat_ep_connect");
	return dc_await_cr_at(t, file, line, cr_evd, NULL);
}

/* Set-up: both ends of a just-accepted connection saw ESTABLISHED. */
static inline void way_established_at(struct dc_ctx *t, const char *file, int line,
				      struct way_conn *w)
{
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, w->s.conn_evd,
			   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, w->peer.conn_evd,
			   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}

/*
 * Set-up: w->s.ep brought to CONNECTED (ways below CONNECTED_WAYS) or to
 * DISCONNECTED without a connection, the given way; the events that got it
 * there are consumed.  Returns false (noted) where the provider offers no
 * such way: a provider-flag PSP under ep_creator DAT_PSP_CREATES_EP_NEVER
 * (dat_psp_create(3DAT)), dat_ep_dup_connect answering
 * DAT_MODEL_NOT_SUPPORTED (its RETURN VALUES).
 */
static inline void way_down(struct dc_ctx *t, struct way_conn *w);
static inline bool way_reach_in(struct dc_ctx *t, const char *file, int line,
				struct way_conn *w, int way)
{
	DAT_CONN_QUAL q, q2;
	DAT_CR_HANDLE cr;
	DAT_TIMEOUT unanswered_us;
	DAT_RETURN r;

	memset(w, 0, sizeof(*w));
	/* timed before the way's own objects exist: its connection needs room */
	unanswered_us = way == WAY_TIMED_OUT ? dc_unanswered_timeout_us(t) : 0;
	if (way == WAY_ACCEPT_PROVIDER && t->prov_attr.ep_creator == DAT_PSP_CREATES_EP_NEVER) {
		dc_note(t, "ep_creator is DAT_PSP_CREATES_EP_NEVER: no Provider EP to connect");
		return false;
	}
	w->pz = dc_pz_at(t, file, line);
	w->dto = dc_evd_at(t, file, line, 16, DAT_EVD_DTO_FLAG);
	w->cr_evd = dc_evd_at(t, file, line, 8, DAT_EVD_CR_FLAG);
	switch (way) {
	case WAY_CONNECT:
	case WAY_ACCEPT_CONSUMER:
	case WAY_PEER_REJECTED:
	case WAY_TIMED_OUT: {
		struct dc_endpoint *act = way == WAY_ACCEPT_CONSUMER ? &w->peer : &w->s;
		struct dc_endpoint *pas = way == WAY_ACCEPT_CONSUMER ? &w->s : &w->peer;

		way_setup_at(t, file, line, dat_psp_create_any(t->ia, &q, w->cr_evd,
							       DAT_PSP_CONSUMER_FLAG, &w->psp),
			     "dat_psp_create_any");
		way_endpoint_at(t, file, line, w, act);
		cr = way_request_at(t, file, line, w, act, q, w->cr_evd,
				    unanswered_us);
		if (way == WAY_TIMED_OUT) {
			/* the request is left unanswered */
			dc_expect_event_at(t, file, line, DC_UNRESOLVED, w->s.conn_evd,
					   DAT_CONNECTION_EVENT_TIMED_OUT, NULL);
			return true;
		}
		if (way == WAY_PEER_REJECTED) {
			way_setup_at(t, file, line, dc_dat_cr_reject(cr, 0, NULL), "dat_cr_reject");
			dc_expect_event_at(t, file, line, DC_UNRESOLVED, w->s.conn_evd,
					   DAT_CONNECTION_EVENT_PEER_REJECTED, NULL);
			return true;
		}
		way_endpoint_at(t, file, line, w, pas);
		way_setup_at(t, file, line, dat_cr_accept(cr, pas->ep, 0, NULL), "dat_cr_accept");
		break;
	}
	case WAY_DUP_CONNECT:
		way_setup_at(t, file, line, dat_psp_create_any(t->ia, &q, w->cr_evd,
							       DAT_PSP_CONSUMER_FLAG, &w->psp),
			     "dat_psp_create_any");
		way_endpoint_at(t, file, line, w, &w->x1);
		way_endpoint_at(t, file, line, w, &w->x2);
		cr = way_request_at(t, file, line, w, &w->x1, q, w->cr_evd, 0);
		way_setup_at(t, file, line, dat_cr_accept(cr, w->x2.ep, 0, NULL), "dat_cr_accept");
		dc_expect_event_at(t, file, line, DC_UNRESOLVED, w->x1.conn_evd,
				   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
		dc_expect_event_at(t, file, line, DC_UNRESOLVED, w->x2.conn_evd,
				   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
		way_endpoint_at(t, file, line, w, &w->s);
		r = dat_ep_dup_connect(w->s.ep, w->x1.ep, dc_case_timeout_us(t), 0, NULL,
				       DAT_QOS_BEST_EFFORT);
		if (DAT_GET_TYPE(r) == DAT_MODEL_NOT_SUPPORTED) {
			dc_note(t, "dat_ep_dup_connect answered DAT_MODEL_NOT_SUPPORTED");
			return false;
		}
		way_setup_at(t, file, line, r, "dat_ep_dup_connect");
		cr = dc_await_cr_at(t, file, line, w->cr_evd, NULL);
		way_endpoint_at(t, file, line, w, &w->peer);
		way_setup_at(t, file, line, dat_cr_accept(cr, w->peer.ep, 0, NULL), "dat_cr_accept");
		break;
	case WAY_ACCEPT_PROVIDER: {
		DAT_CR_PARAM c;
		DAT_EP_PARAM nv;
		struct dc_endpoint mine;

		way_setup_at(t, file, line, dat_psp_create_any(t->ia, &q, w->cr_evd,
							       DAT_PSP_PROVIDER_FLAG, &w->psp),
			     "dat_psp_create_any");
		way_endpoint_at(t, file, line, w, &w->peer);
		cr = way_request_at(t, file, line, w, &w->peer, q, w->cr_evd, 0);
		memset(&c, 0, sizeof(c));
		way_setup_at(t, file, line, dat_cr_query(cr, DAT_CR_FIELD_LOCAL_EP_HANDLE, &c),
			     "dat_cr_query");
		if (c.local_ep_handle == DAT_HANDLE_NULL)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the request on a provider-flag PSP carries no EP");
		/* the Provider EP takes the way's PZ and EVDs (dat_psp_create(3DAT):
		 * the Consumer may modify it before accepting) */
		mine.conn_evd = dc_evd_at(t, file, line, 8, DAT_EVD_CONNECTION_FLAG);
		memset(&nv, 0, sizeof(nv));
		nv.pz_handle = w->pz;
		nv.recv_evd_handle = w->dto;
		nv.request_evd_handle = w->dto;
		nv.connect_evd_handle = mine.conn_evd;
		way_setup_at(t, file, line,
			     dat_ep_modify(c.local_ep_handle, DAT_EP_FIELD_PZ_HANDLE |
					   DAT_EP_FIELD_RECV_EVD_HANDLE |
					   DAT_EP_FIELD_REQUEST_EVD_HANDLE |
					   DAT_EP_FIELD_CONNECT_EVD_HANDLE, &nv),
			     "dat_ep_modify of the Provider EP");
		w->s.pz = w->pz;
		w->s.recv_evd = w->s.req_evd = w->dto;
		w->s.conn_evd = mine.conn_evd;
		w->s.ep = c.local_ep_handle;
		way_setup_at(t, file, line, dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL),
			     "dat_cr_accept");
		break;
	}
	case WAY_ACCEPT_RSP:
		way_endpoint_at(t, file, line, w, &w->s);
		dc_rsp_any_at(t, file, line, t->ia, w->s.ep, w->cr_evd, &q, &w->rsp);
		way_endpoint_at(t, file, line, w, &w->peer);
		cr = way_request_at(t, file, line, w, &w->peer, q, w->cr_evd, 0);
		way_setup_at(t, file, line, dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL),
			     "dat_cr_accept");
		w->rsp = DAT_HANDLE_NULL;	/* consumed by the request (dat_rsp_create(3DAT)) */
		break;
	case WAY_ACCEPT_HANDOFF:
		way_setup_at(t, file, line, dat_psp_create_any(t->ia, &q, w->cr_evd,
							       DAT_PSP_CONSUMER_FLAG, &w->psp),
			     "dat_psp_create_any");
		w->cr_evd2 = dc_evd_at(t, file, line, 8, DAT_EVD_CR_FLAG);
		way_setup_at(t, file, line, dat_psp_create_any(t->ia, &q2, w->cr_evd2,
							       DAT_PSP_CONSUMER_FLAG, &w->psp2),
			     "dat_psp_create_any");
		way_endpoint_at(t, file, line, w, &w->peer);
		cr = way_request_at(t, file, line, w, &w->peer, q, w->cr_evd, 0);
		way_setup_at(t, file, line, dat_cr_handoff(cr, q2), "dat_cr_handoff");
		cr = dc_await_cr_at(t, file, line, w->cr_evd2, NULL);
		way_endpoint_at(t, file, line, w, &w->s);
		way_setup_at(t, file, line, dat_cr_accept(cr, w->s.ep, 0, NULL), "dat_cr_accept");
		break;
	default:
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "case bug: way %d", way);
	}
	way_established_at(t, file, line, w);
	return true;
}
/* way_reach_in, noting the way; where there is none, what was made for it
 * is freed. */
static inline bool way_reach_at(struct dc_ctx *t, const char *file, int line,
				struct way_conn *w, int way)
{
	if (!way_reach_in(t, file, line, w, way)) {
		way_down(t, w);
		return false;
	}
	dc_note(t, "%s", ep_way_name(way));
	return true;
}
#define way_reach(w, way) way_reach_at(t, __FILE__, __LINE__, (w), (way))

/* Set-up: the subject's connection ended by its peer (abrupt), as
 * dat_ep_disconnect(3DAT) gives; s.ep then DISCONNECTED (polled). */
static inline void way_peer_ends_at(struct dc_ctx *t, const char *file, int line,
				    struct way_conn *w)
{
	DAT_EVENT ev;
	DAT_RETURN r;

	way_setup_at(t, file, line, dat_ep_disconnect(w->peer.ep, DAT_CLOSE_ABRUPT_FLAG),
		     "the peer's dat_ep_disconnect");
	r = dc_wait_event(t, w->s.conn_evd, -1, &ev);
	if (r != DAT_SUCCESS || (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
				 ev.event_number != DAT_CONNECTION_EVENT_BROKEN))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: no DISCONNECTED or BROKEN after the peer's disconnect (%s)",
			  dc_ret_text(r));
}
#define way_peer_ends(w) way_peer_ends_at(t, __FILE__, __LINE__, (w))

/* Clean-up: every object of the way (failures are clean-up failures). */
static inline void way_down(struct dc_ctx *t, struct way_conn *w)
{
	struct dc_endpoint *es[] = { &w->s, &w->peer, &w->x1, &w->x2 };

	for (int i = 0; i < 4; i++)
		if (es[i]->ep)
			DC_CLEANUP(dat_ep_free(es[i]->ep));
	if (w->rsp)
		DC_CLEANUP(dat_rsp_free(w->rsp));
	if (w->psp)
		DC_CLEANUP(dat_psp_free(w->psp));
	if (w->psp2)
		DC_CLEANUP(dat_psp_free(w->psp2));
	for (int i = 0; i < 4; i++)
		if (es[i]->conn_evd)
			DC_CLEANUP(dat_evd_free(es[i]->conn_evd));
	if (w->cr_evd)
		DC_CLEANUP(dat_evd_free(w->cr_evd));
	if (w->cr_evd2)
		DC_CLEANUP(dat_evd_free(w->cr_evd2));
	if (w->dto)
		DC_CLEANUP(dat_evd_free(w->dto));
	if (w->pz)
		DC_CLEANUP(dat_pz_free(w->pz));
	memset(w, 0, sizeof(*w));
}

#endif /* EP_WAYS_H */
