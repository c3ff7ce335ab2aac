/* SPDX-License-Identifier: MIT */
/*
 * dat_cr_handoff(3DAT): clauses/dat_cr_handoff.toml.
 */
#include "cm_common.h"

struct two_sps {
	DAT_EVD_HANDLE evd_a, evd_b;
	DAT_PSP_HANDLE psp_a, psp_b;
	DAT_CONN_QUAL qa, qb;
	struct dc_endpoint req;		/* the requester */
	DAT_CR_HANDLE cr;		/* its request, arrived at A */
	DAT_CR_PARAM c;
};

/* The requester's private data, which travels with a handed-off request. */
static const char handoff_pd[12] = "handoff pd!";

static void at_a(struct dc_ctx *t, struct two_sps *s)
{
	s->qa = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &s->evd_a, &s->psp_a);
	s->qb = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &s->evd_b, &s->psp_b);
	dc_endpoint(t, &s->req, NULL);
	DC_SETUP(dc_connect_to_self(t, s->req.ep, s->qa, 0, sizeof(handoff_pd), handoff_pd));
	s->cr = dc_await_cr(t, s->evd_a, NULL);
	memset(&s->c, 0, sizeof(s->c));
	DC_SETUP(dat_cr_query(s->cr, DAT_CR_FIELD_ALL, &s->c));
}

/* Between the parts of a case: s's objects freed (an IA may have few EVDs). */
static void two_sps_down(struct dc_ctx *t, struct two_sps *s)
{
	dc_endpoint_down(t, &s->req);
	DC_CLEANUP(dat_psp_free(s->psp_a));
	DC_CLEANUP(dat_psp_free(s->psp_b));
	DC_CLEANUP(dat_evd_free(s->evd_a));
	DC_CLEANUP(dat_evd_free(s->evd_b));
}

/*
 * s's request handed off to qualifier q: it arrives on evd for q, whose
 * query (*c) the caller checks; returns the new request.
 */
static DAT_CR_HANDLE handed_to(struct dc_ctx *t, struct two_sps *s, DAT_CONN_QUAL q,
			       DAT_EVD_HANDLE evd, DAT_CR_PARAM *c)
{
	DAT_EVENT ev;

	DC_ASSERT_SUCCESS(dat_cr_handoff(s->cr, q));
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.cr_arrival_event_data.conn_qual, q);
	memset(c, 0, sizeof(*c));
	/* collateral: dat_cr_handoff(3DAT) DESCRIPTION: the request reaches the other Service Point, as its query there shows */
	DC_ASSERT_SUCCESS(dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
				       DAT_CR_FIELD_ALL, c));
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

/*
 * The other kind of Service Point: handed off to an RSP's qualifier, with
 * another RSP listening too, the request arrives at that RSP, carrying its
 * reserved EP, and nowhere else.
 */
static void to_an_rsp(struct dc_ctx *t)
{
	struct rsp_fix other, f;
	struct two_sps s;
	DAT_CR_PARAM c;

	rsp_up(t, &other);
	rsp_up(t, &f);
	at_a(t, &s);
	handed_to(t, &s, f.q, f.evd, &c);
	DC_ASSERT_PTR_EQ(c.local_ep_handle, f.e.ep);
	DC_ASSERT_NO_EVENT(other.evd);
	DC_ASSERT_NO_EVENT(s.evd_b);
}

DC_CASE(dat_cr_handoff, delivered_to_other_sp,
	.summary = "a handed-off request arrives at the other PSP (or RSP) and can be accepted there",
	.flags = DC_NO_DTOS)
{
	struct two_sps s;
	struct dc_endpoint b;
	DAT_CR_HANDLE cr2;
	DAT_CR_PARAM c2;

	at_a(t, &s);
	cr2 = handed_to(t, &s, s.qb, s.evd_b, &c2);
	DC_ASSERT_EQ(c2.remote_port_qual, s.c.remote_port_qual);
	/* collateral: dat_cr_handoff(3DAT) DESCRIPTION: it is the same request, private data included */
	DC_ASSERT(c2.private_data_size >= (DAT_COUNT)sizeof(handoff_pd) && c2.private_data &&
		  !memcmp(c2.private_data, handoff_pd, sizeof(handoff_pd)),
		  "the handed-off request lost the requester's private data (size %d)",
		  (int)c2.private_data_size);
	dc_endpoint(t, &b, NULL);
	/* collateral: dat_cr_handoff(3DAT) DESCRIPTION: the Service Point it was handed to deals with it */
	DC_ASSERT_SUCCESS(dat_cr_accept(cr2, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
	DC_ASSERT_CONN_EVENT(s.req.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, s.req.ep);
	DC_ASSERT_NO_EVENT(s.evd_a);
	dc_endpoint_down(t, &b);
	two_sps_down(t, &s);
	to_an_rsp(t);
}

DC_CASE(dat_cr_handoff, cr_destroyed,
	.summary = "a request is handed off")
{
	struct two_sps s;

	at_a(t, &s);
	DC_ASSERT_SUCCESS(dat_cr_handoff(s.cr, s.qb));
}

/* The dead handle: a case of its own, so that a call that does not
 * survive the handle of a destroyed request (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_cr_handoff, cr_destroyed_freed,
	.clauses = "dat_cr_handoff.cr_destroyed",
	.summary = "after a handoff the original CR handle is dead")
{
	struct two_sps s;
	DAT_CR_PARAM c;

	at_a(t, &s);
	DC_SETUP(dat_cr_handoff(s.cr, s.qb));
	/* collateral: dat_cr_handoff(3DAT) DESCRIPTION: the original request is destroyed, so its handle fails */
	DC_ASSERT_INVALID_HANDLE(dat_cr_query(s.cr, DAT_CR_FIELD_ALL, &c), 1, CR);
}

DC_CASE(dat_cr_handoff, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);

	DC_ASSERT_INVALID_HANDLE(dat_cr_handoff((DAT_CR_HANDLE)dc_pz(t), q), 1, CR);
	DC_ASSERT_NO_EVENT(evd);
}

/* The same for a rejected CR, which dat_cr_reject(3DAT) DESCRIPTION
 * destroys: a case of its own, so that a call that does not survive the
 * handle of a destroyed object (a registry that dispatches through the
 * handle) leaves the checks above judged. */
DC_CASE(dat_cr_handoff, invalid_handle_freed,
	.clauses = "dat_cr_handoff.invalid_handle",
	.summary = "a rejected CR is an invalid handle")
{
	struct two_sps s;

	at_a(t, &s);
	DC_SETUP(dc_dat_cr_reject(s.cr, 0, NULL));
	DC_ASSERT_INVALID_HANDLE(dat_cr_handoff(s.cr, s.qb), 1, CR);
	DC_ASSERT_NO_EVENT(s.evd_b);
}

DC_CASE(dat_cr_handoff, invalid_qualifier,
	.summary = "handing off to a qualifier nobody listens on is invalid; the request stays")
{
	struct two_sps s;
	struct dc_endpoint b;

	at_a(t, &s);
	DC_ASSERT_RET(dat_cr_handoff(s.cr, dc_free_conn_qual(t)), DAT_INVALID_PARAMETER);
	dc_endpoint(t, &b, NULL);
	/* collateral: dat_cr_handoff(3DAT) RETURN VALUES: the handoff is refused,
	 * so the request is still the Consumer's to accept */
	DC_ASSERT_SUCCESS(dat_cr_accept(s.cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
}

/*
 * The qualifiers just outside the range the provider publishes
 * (dc_conn_qual_range): no Service Point can listen there, so a handoff to
 * them is refused like one to a free qualifier, and the request stays.
 */
DC_CASE(dat_cr_handoff, invalid_qualifier_outside_range,
	.clauses = "dat_cr_handoff.invalid_qualifier",
	.summary = "handing off to a qualifier just outside the published range is invalid; the request stays",
	.needs = "suite_attr:datcts.conn_qual_range")
{
	struct two_sps s;
	struct dc_endpoint b;
	DAT_CONN_QUAL lo, hi;

	dc_conn_qual_range(t, &lo, &hi);
	at_a(t, &s);
	if (lo > 0)
		DC_ASSERT_RET(dat_cr_handoff(s.cr, lo - 1), DAT_INVALID_PARAMETER);
	if (hi < UINT64_MAX)
		DC_ASSERT_RET(dat_cr_handoff(s.cr, hi + 1), DAT_INVALID_PARAMETER);
	if (lo == 0 && hi == UINT64_MAX)
		dc_note(t, "the published range holds every qualifier: none is outside it");
	dc_endpoint(t, &b, NULL);
	/* collateral: dat_cr_handoff(3DAT) RETURN VALUES: the handoffs were refused,
	 * so the request is still the Consumer's to accept */
	DC_ASSERT_SUCCESS(dat_cr_accept(s.cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
}

/*
 * The boundary: the qualifiers at both ends of the range the provider
 * publishes (dc_conn_qual_range) are qualifiers like any other, and a
 * Service Point listening there takes a handoff.  A Service Point the
 * transport will not create there is set-up (UNRESOLVED).
 */
DC_CASE(dat_cr_handoff, delivered_at_range_ends,
	.clauses = "dat_cr_handoff.delivered_to_other_sp",
	.summary = "a request handed off to a PSP on the lowest or highest published qualifier arrives there",
	.needs = "suite_attr:datcts.conn_qual_range")
{
	DAT_CONN_QUAL ends[2];

	dc_conn_qual_range(t, &ends[0], &ends[1]);
	for (int i = 0; i < 2; i++) {
		DAT_EVD_HANDLE evd_a, evd_e = dc_evd(t, 4, DAT_EVD_CR_FLAG);
		DAT_PSP_HANDLE psp_a, psp_e;
		DAT_CONN_QUAL qa = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd_a, &psp_a);
		struct dc_endpoint req;
		DAT_EVENT ev;

		DC_SETUP(dat_psp_create(t->ia, ends[i], evd_e, DAT_PSP_CONSUMER_FLAG, &psp_e));
		dc_endpoint(t, &req, NULL);
		DC_SETUP(dc_connect_to_self(t, req.ep, qa, 0, 0, NULL));
		DC_ASSERT_SUCCESS(dat_cr_handoff(dc_await_cr(t, evd_a, NULL), ends[i]));
		DC_ASSERT_EVENT(evd_e, DAT_CONNECTION_REQUEST_EVENT, &ev);
		DC_ASSERT_EQ(ev.event_data.cr_arrival_event_data.conn_qual, ends[i]);
		DC_SETUP(dc_dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle, 0, NULL));
		DC_SETUP(dat_psp_free(psp_e));
		if (ends[0] == ends[1])
			break;
	}
}
