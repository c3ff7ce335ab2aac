/* SPDX-License-Identifier: MIT */
/*
 * dat_cr_handoff(3DAT): clauses/dat_cr_handoff.toml.
 */
#include "../ep/ep_common.h"

struct two_sps {
	DAT_EVD_HANDLE evd_a, evd_b;
	DAT_PSP_HANDLE psp_a, psp_b;
	DAT_CONN_QUAL qa, qb;
	struct dc_endpoint req;		/* the requester */
	DAT_CR_HANDLE cr;		/* its request, arrived at A */
	DAT_CR_PARAM c;
};

static void at_a(struct dc_ctx *t, struct two_sps *s)
{
	s->qa = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &s->evd_a, &s->psp_a);
	s->qb = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &s->evd_b, &s->psp_b);
	dc_endpoint(t, &s->req, NULL);
	DC_SETUP(dc_connect_to_self(t, s->req.ep, s->qa, 0, 0, NULL));
	s->cr = dc_await_cr(t, s->evd_a, NULL);
	memset(&s->c, 0, sizeof(s->c));
	DC_SETUP(dat_cr_query(s->cr, DAT_CR_FIELD_ALL, &s->c));
}

DC_CASE(dat_cr_handoff, delivered_to_other_sp,
	.summary = "a handed-off request arrives at the other PSP and can be accepted there")
{
	struct two_sps s;
	struct dc_endpoint b;
	DAT_EVENT ev;
	DAT_CR_PARAM c2;

	at_a(t, &s);
	DC_ASSERT_SUCCESS(dat_cr_handoff(s.cr, s.qb));
	DC_ASSERT_EVENT(s.evd_b, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.cr_arrival_event_data.conn_qual, s.qb);
	memset(&c2, 0, sizeof(c2));
	/* collateral: dat_cr_handoff(3DAT) DESCRIPTION: the request reaches the other Service Point, as its query there shows */
	DC_ASSERT_SUCCESS(dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
				       DAT_CR_FIELD_ALL, &c2));
	DC_ASSERT_EQ(c2.remote_port_qual, s.c.remote_port_qual);
	dc_endpoint(t, &b, NULL);
	/* collateral: dat_cr_handoff(3DAT) DESCRIPTION: the Service Point it was handed to deals with it */
	DC_ASSERT_SUCCESS(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
	DC_ASSERT_CONN_EVENT(s.req.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, s.req.ep);
	DC_ASSERT_NO_EVENT(s.evd_a);
}

DC_CASE(dat_cr_handoff, cr_destroyed,
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
	.summary = "a rejected CR or a handle of another type is an invalid handle")
{
	struct two_sps s;

	at_a(t, &s);
	DC_SETUP(dc_dat_cr_reject(s.cr, 0, NULL));
	DC_ASSERT_INVALID_HANDLE(dat_cr_handoff(s.cr, s.qb), 1, CR);
	DC_ASSERT_INVALID_HANDLE(dat_cr_handoff((DAT_CR_HANDLE)dc_pz(t), s.qb), 1, CR);
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
