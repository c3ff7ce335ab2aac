/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_srq_create(3DAT); clauses in clauses/dat_srq_create.toml.
 * One function per clause, named after the clause.
 */
#include "srq_common.h"

#include <limits.h>

static DAT_RETURN try_create(struct dc_ctx *t, DAT_PZ_HANDLE pz, DAT_COUNT dtos,
			     DAT_COUNT iov, DAT_COUNT lw, DAT_SRQ_HANDLE *srq)
{
	DAT_SRQ_ATTR a = { .max_recv_dtos = dtos, .max_recv_iov = iov,
			   .low_watermark = lw };

	*srq = DAT_HANDLE_NULL;
	return dat_srq_create(t->ia, pz, &a, srq);
}

DC_CASE(dat_srq_create, success_returns_handle,
	.summary = "a successful create returns a handle of type SRQ that queries back its IA and PZ",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq;
	DAT_HANDLE_TYPE type;
	DAT_SRQ_PARAM p;

	DC_ASSERT_SUCCESS(try_create(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT, &srq));
	/* collateral: dat_srq_create(3DAT) DESCRIPTION: what is handed back is an SRQ */
	DC_ASSERT_SUCCESS(dat_get_handle_type(srq, &type));
	DC_ASSERT_EQ(type, DAT_HANDLE_TYPE_SRQ);
	p = DC_SRQ_PARAM(srq);
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	DC_ASSERT_PTR_EQ(p.pz_handle, pz);
}

DC_CASE(dat_srq_create, handle_undefined_on_failure,
	.summary = "failed creates leave no SRQ behind: the PZ can be freed",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq;
	DAT_RETURN r;

	r = try_create(t, pz, -1, 1, DAT_SRQ_LW_DEFAULT, &srq);
	DC_SETUP_ASSERT(r != DAT_SUCCESS, "set-up: a create with max_recv_dtos -1 succeeded");
	r = try_create(t, pz, 4, -1, DAT_SRQ_LW_DEFAULT, &srq);
	DC_SETUP_ASSERT(r != DAT_SUCCESS, "set-up: a create with max_recv_iov -1 succeeded");
	r = try_create(t, pz, 4, 1, 5, &srq);
	DC_SETUP_ASSERT(r != DAT_SUCCESS, "set-up: a create with low_watermark 5 > max_recv_dtos 4 succeeded");
	/* Whatever srq holds now is meaningless; the PZ must be free of SRQs. */
	/* collateral: dat_srq_create(3DAT) DESCRIPTION: after a failed create no SRQ exists, so the PZ is not in use */
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
}

DC_CASE(dat_srq_create, starts_unattached,
	.summary = "a fresh SRQ has no EP: nothing outstanding and it can be freed",
	.requires = "srq_supported")
{
	DAT_SRQ_HANDLE srq = DAT_HANDLE_NULL;
	DAT_SRQ_PARAM p;

	DC_NEED_REPORTED_LIMIT("max_recv_per_srq", t->ia_attr.max_recv_per_srq, 8);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(try_create(t, dc_pz(t), 8, 1, DAT_SRQ_LW_DEFAULT, &srq));
	p = DC_SRQ_PARAM(srq);
	ASSERT_COUNT(p.outstanding_dto_count, 0);
	ASSERT_COUNT(p.available_dto_count, 0);
	/* collateral: dat_srq_create(3DAT) DESCRIPTION: no EP is attached, so the SRQ frees */
	DC_ASSERT_SUCCESS(dat_srq_free(srq));
}

/*
 * dat_srq_create(3DAT) DESCRIPTION: the SRQ reaches only memory of LMRs of
 * its own PZ. The page promises the restriction, not a code: a buffer of
 * another PZ is refused at the post (which code is dat_srq_post_recv's
 * clause, pz_mismatch), or, taken, never receives a message.
 */
DC_CASE(dat_srq_create, pz_limits_recv_memory,
	.summary = "buffers in the SRQ's PZ are accepted; one of another PZ is refused, or never receives a message",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t), other = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	struct link_opts o = { .srq = srq, .pz = pz };
	struct srq_link l;
	struct dc_lmr mine, foreign;
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;
	DAT_RETURN r;
	struct dc_snap s;

	dc_lmr(t, pz, 4096, DC_PRIV_LOCAL, &mine);
	dc_lmr(t, other, 4096, DC_PRIV_LOCAL, &foreign);
	iov = dc_iov(&mine, 0, 256);
	/* collateral: dat_srq_create(3DAT) DESCRIPTION: receive buffers of the SRQ's PZ are taken */
	DC_ASSERT_SUCCESS(dat_srq_post_recv(srq, 1, &iov, dc_cookie(1)));
	dc_snapshot(t, DC_OBJ_SRQ, srq, &s);
	iov = dc_iov(&foreign, 0, 256);
	r = dat_srq_post_recv(srq, 1, &iov, dc_cookie(2));
	if (r != DAT_SUCCESS) {
		dc_note(t, "the buffer of another PZ was refused: %s", dc_ret_text(r));
		DC_ASSERT_UNCHANGED(&s);
		return;
	}
	dc_note(t, "the buffer of another PZ was taken; two messages are sent into the SRQ");
	link_up(&l, &o);
	link_send(&l, 1, 64);
	link_send(&l, 2, 64);
	/* which event reports a failed Receive is the DTO pages' clause */
	for (int i = 0; i < 2 && dc_wait_event(t, l.rx.recv_evd, 2000, &ev) == DAT_SUCCESS; i++) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

		if (ev.event_number != DAT_DTO_COMPLETION_EVENT)
			break;
		DC_ASSERT(!(d->status == DAT_DTO_SUCCESS && d->user_cookie.as_64 == 2),
			  "a message was received into the buffer of another PZ");
	}
	DC_ASSERT(dc_first_not(foreign.buf, 256, 0) < 0,
		  "the peer's bytes reached the LMR of another PZ");
}

DC_CASE(dat_srq_create, sizes_at_least_requested,
	.summary = "the created depth and scatter-list length are at least those requested",
	.requires = "srq_supported")
{
	/* 10, and the depths either side of a granule a Provider may round
	 * to (1, 17) where the IA takes them */
	static const DAT_COUNT depth[] = { 10, 1, 17 };
	DAT_COUNT iov = t->ia_attr.max_iov_segments_per_dto >= 2 ? 2 : 1;
	DAT_PZ_HANDLE pz = dc_pz(t);

	DC_NEED_REPORTED_LIMIT("max_recv_per_srq", t->ia_attr.max_recv_per_srq, 10);
	for (size_t i = 0; i < sizeof(depth) / sizeof(depth[0]); i++) {
		DAT_SRQ_HANDLE srq = DAT_HANDLE_NULL;
		DAT_SRQ_PARAM p;

		if (depth[i] > t->ia_attr.max_recv_per_srq)
			continue;
		/* the creation is this clause's own call: checked, not set-up */
		DC_ASSERT_SUCCESS_UNLESS_SHORT(try_create(t, pz, depth[i], iov,
							  DAT_SRQ_LW_DEFAULT, &srq));
		p = DC_SRQ_PARAM(srq);
		DC_ASSERT_GE(p.max_recv_dtos, depth[i]);
		DC_ASSERT_GE(p.max_recv_iov, iov);
		DC_CLEANUP(dat_srq_free(srq));
	}
}

DC_CASE(dat_srq_create, query_reports_actual_sizes,
	.summary = "exactly the queried depth can be posted, and a post with the queried IOV length is accepted",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 5, 1, DAT_SRQ_LW_DEFAULT);
	DAT_SRQ_PARAM p = DC_SRQ_PARAM(srq);
	DAT_LMR_TRIPLET iov[64];
	struct dc_lmr m;
	DAT_COUNT n;

	DC_ASSERT_GE(p.max_recv_dtos, 5);
	DC_SETUP_ASSERT(p.max_recv_dtos <= 4096 && p.max_recv_iov <= 64,
			"set-up: reported sizes %d/%d too large to exercise",
			(int)p.max_recv_dtos, (int)p.max_recv_iov);
	dc_lmr(t, pz, 64 * (DAT_VLEN)p.max_recv_iov, DC_PRIV_LOCAL, &m);
	for (n = 0; n < p.max_recv_iov; n++)
		iov[n] = dc_iov(&m, 64 * (DAT_VLEN)n, 64);
	/* one post with every segment, then single-segment posts up to depth */
	/* collateral: dat_srq_create(3DAT) DESCRIPTION: the sizes the query reports are usable */
	DC_ASSERT_SUCCESS(dat_srq_post_recv(srq, p.max_recv_iov, iov, dc_cookie(0)));
	for (n = 1; n < p.max_recv_dtos; n++)
		/* collateral: dat_srq_create(3DAT) DESCRIPTION: as above */
		DC_ASSERT_SUCCESS(dat_srq_post_recv(srq, 1, iov, dc_cookie((uint64_t)n)));
	p = DC_SRQ_PARAM(srq);
	ASSERT_COUNT(p.available_dto_count, p.max_recv_dtos);
	DC_ASSERT(dat_srq_post_recv(srq, 1, iov, dc_cookie(99999)) != DAT_SUCCESS,
		  "a post beyond the queried depth %d was accepted: the query did not report the real size",
		  (int)p.max_recv_dtos);
}

DC_CASE(dat_srq_create, default_lw_no_event_on_create,
	.summary = "an empty SRQ created with DAT_SRQ_LW_DEFAULT raises no async event",
	.requires = "srq_supported")
{
	DAT_SRQ_HANDLE srq = dc_srq(t, dc_pz(t), 8, 1, DAT_SRQ_LW_DEFAULT);

	(void)dc_srq_param(t, srq);	/* the SRQ exists and is queryable */
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
}

DC_CASE(dat_srq_create, nondefault_lw_at_create,
	.summary = "a non-default low watermark at creation is refused with DAT_INVALID_PARAMETER or accepted",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq;
	DAT_RETURN r = try_create(t, pz, 8, 1, 1, &srq);
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;

	DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_INVALID_PARAMETER);
	if (r != DAT_SUCCESS) {
		dc_note(t, "refused: %s", dc_ret_text(r));
		DC_CLEANUP(dat_pz_free(pz));	/* nothing was made */
		return;
	}
	dc_note(t, "accepted");
	dc_lmr(t, pz, 256, DC_PRIV_LOCAL, &m);
	iov = dc_iov(&m, 0, 256);
	DC_SETUP(dat_srq_post_recv(srq, 1, &iov, dc_cookie(1)));
	(void)DC_SRQ_PARAM(srq);
}

DC_CASE(dat_srq_create, consumer_chosen_sizes,
	.summary = "the smallest sizes (1/1) and the IA maxima are both accepted",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_COUNT maxd = t->ia_attr.max_recv_per_srq;
	DAT_COUNT maxi = t->ia_attr.max_iov_segments_per_dto;
	DAT_SRQ_HANDLE srq;

	DC_ASSERT_SUCCESS(try_create(t, pz, 1, 1, DAT_SRQ_LW_DEFAULT, &srq));
	DC_SETUP_ASSERT(maxd > 0 && maxi > 0, "set-up: IA reports max_recv_per_srq %d, max_iov_segments_per_dto %d",
			(int)maxd, (int)maxi);
	DC_ASSERT_SUCCESS(try_create(t, pz, maxd, maxi, DAT_SRQ_LW_DEFAULT, &srq));
}

/*
 * What a Send does to an EP that has no receive buffer, observed as: the
 * first connection event on the receiver within a bounded window (0: none),
 * then, if none, the status of the receive once a buffer is posted.  The
 * plain EP and the SRQ EP are probed at once, so one window covers both.
 */
struct no_buffer_outcome {
	DAT_EVENT_NUMBER conn_event;
	int recv_status;	/* -1: no completion */
};

struct no_buffer_probe {
	struct srq_link l;
	bool with_srq;
	struct no_buffer_outcome o;
};

static void probe_no_buffer_send(struct dc_ctx *t, struct no_buffer_probe *p, bool with_srq)
{
	/* two links at once: as few EVDs as the probe reads */
	struct link_opts lo = { .no_connect = true, .few_evds = true };

	p->with_srq = with_srq;
	p->o = (struct no_buffer_outcome){ 0, -1 };
	if (with_srq)
		link_up(&p->l, &lo);
	else
		plain_link_up(&p->l, &lo);
	link_connect(&p->l);
	link_send(&p->l, 7, 64);
}

/* The first connection event on the receiver, if one comes before @until_ms. */
static void probe_no_buffer_event(struct dc_ctx *t, struct no_buffer_probe *p, double until_ms)
{
	double left = until_ms - dc_now_ms();
	DAT_EVENT ev;

	if (p->o.conn_event)
		return;
	if (dc_wait_event(t, p->l.rx.conn_evd, left > 0 ? (long)left : 0, &ev) == DAT_SUCCESS)
		p->o.conn_event = ev.event_number;
}

/* No connection event: what the held-back Send does once a buffer is posted. */
static void probe_no_buffer_receive(struct dc_ctx *t, struct no_buffer_probe *p)
{
	DAT_EVENT ev;

	if (p->o.conn_event)
		return;
	if (p->with_srq)
		post_slot(p->l.srq, &p->l.rbuf, 0);
	else
		dc_post_recv(t, p->l.rx.ep, &p->l.rbuf, 0, SLOT, 0);
	if (dc_wait_event(t, p->l.rx.recv_evd, 5000, &ev) == DAT_SUCCESS &&
	    ev.event_number == DAT_DTO_COMPLETION_EVENT)
		p->o.recv_status = (int)ev.event_data.dto_completion_event_data.status;
}

/*
 * Both Sends are out when the window opens.  The window is 200 ms; where
 * one EP's connection ended in it and the other's not yet, the other is
 * given up to 1 s (an EP that breaks a little later is not a different
 * outcome).  Where neither ended within 200 ms both are given a buffer.
 */
DC_CASE(dat_srq_create, empty_srq_like_empty_rq,
	.summary = "a Send meeting an empty SRQ fares as one meeting a plain EP with no receive posted",
	.requires = "srq_supported")
{
	struct no_buffer_probe plain_p, srq_p;
	struct no_buffer_outcome plain, srq;
	double opened;

	probe_no_buffer_send(t, &plain_p, false);
	probe_no_buffer_send(t, &srq_p, true);
	opened = dc_now_ms();
	probe_no_buffer_event(t, &plain_p, opened + 200);
	probe_no_buffer_event(t, &srq_p, opened + 200);
	if (!plain_p.o.conn_event != !srq_p.o.conn_event) {
		probe_no_buffer_event(t, &plain_p, opened + 1000);
		probe_no_buffer_event(t, &srq_p, opened + 1000);
	}
	probe_no_buffer_receive(t, &plain_p);
	probe_no_buffer_receive(t, &srq_p);
	plain = plain_p.o;
	srq = srq_p.o;
	dc_note(t, "plain EP: connection event %s, receive status %d",
		plain.conn_event ? dc_event_name(plain.conn_event) : "none",
		plain.recv_status);
	dc_note(t, "SRQ EP:   connection event %s, receive status %d",
		srq.conn_event ? dc_event_name(srq.conn_event) : "none",
		srq.recv_status);
	DC_ASSERT_EQ(srq.conn_event, plain.conn_event);
	DC_ASSERT_EQ(srq.recv_status, plain.recv_status);
}

DC_CASE(dat_srq_create, invalid_ia_handle,
	.summary = "a NULL or wrong-type IA handle gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_ATTR a = { 8, 1, DAT_SRQ_LW_DEFAULT };
	DAT_SRQ_HANDLE srq;

	DC_ASSERT_INVALID_HANDLE(dat_srq_create(DAT_HANDLE_NULL, pz, &a, &srq), 1, IA);
	DC_ASSERT_INVALID_HANDLE(dat_srq_create((DAT_IA_HANDLE)pz, pz, &a, &srq), 1, IA);
	DC_CLEANUP(dat_pz_free(pz));
}

DC_CASE(dat_srq_create, invalid_pz_handle,
	.summary = "a NULL or wrong-type PZ handle gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DAT_SRQ_ATTR a = { 8, 1, DAT_SRQ_LW_DEFAULT };
	DAT_SRQ_HANDLE srq;
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_DTO_FLAG);

	DC_ASSERT_INVALID_HANDLE(dat_srq_create(t->ia, DAT_HANDLE_NULL, &a, &srq), 2, PZ);
	DC_ASSERT_INVALID_HANDLE(dat_srq_create(t->ia, (DAT_PZ_HANDLE)evd, &a, &srq), 2, PZ);
	DC_CLEANUP(dat_evd_free(evd));
}

DC_CASE(dat_srq_create, invalid_attributes,
	.summary = "negative sizes, NULL pointers and a watermark above the depth give DAT_INVALID_PARAMETER",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_ATTR a = { 8, 1, DAT_SRQ_LW_DEFAULT };
	DAT_SRQ_HANDLE srq;

	DC_ASSERT_RET(try_create(t, pz, -1, 1, DAT_SRQ_LW_DEFAULT, &srq), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(try_create(t, pz, 8, -1, DAT_SRQ_LW_DEFAULT, &srq), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(try_create(t, pz, 4, 1, 5, &srq), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_srq_create(t->ia, pz, NULL, &srq), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_srq_create(t->ia, pz, &a, NULL), DAT_INVALID_PARAMETER);
	DC_CLEANUP(dat_pz_free(pz));	/* nothing was made */
}

DC_CASE(dat_srq_create, insufficient_resources,
	.summary = "one SRQ past max_srqs, or a depth past max_recv_per_srq, fails for resources",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_COUNT max_srqs = t->ia_attr.max_srqs;
	DAT_COUNT max_depth = t->ia_attr.max_recv_per_srq;
	DAT_SRQ_HANDLE srq, first = DAT_HANDLE_NULL;
	bool checked = false;
	DAT_RETURN r;

	if (max_depth > 0 && max_depth < INT_MAX) {
		DC_ASSERT_RET_ANY(try_create(t, pz, max_depth + 1, 1, DAT_SRQ_LW_DEFAULT, &srq),
				  DAT_INSUFFICIENT_RESOURCES, DAT_INVALID_PARAMETER);
		checked = true;
	}
	if (max_srqs > 0 && max_srqs <= 1024) {
		DAT_COUNT n;

		for (n = 0; n < max_srqs; n++) {
			r = try_create(t, pz, 1, 1, DAT_SRQ_LW_DEFAULT, &srq);
			DC_SETUP_ASSERT(r == DAT_SUCCESS,
					"set-up: SRQ %d of max_srqs %d failed: %s",
					(int)n + 1, (int)max_srqs, dc_ret_text(r));
			if (!first)
				first = srq;
		}
		DC_ASSERT_RET(try_create(t, pz, 1, 1, DAT_SRQ_LW_DEFAULT, &srq),
			      DAT_INSUFFICIENT_RESOURCES);
		(void)DC_SRQ_PARAM(first);	/* earlier SRQs intact */
		checked = true;
	} else {
		dc_note(t, "max_srqs %d: too many to exhaust, count limit not exercised", (int)max_srqs);
	}
	DC_SETUP_ASSERT(checked, "set-up: the IA reports no finite SRQ limit to exceed");
}

/*
 * dat_srq_create(3DAT) RETURN VALUES: DAT_MODEL_NOT_SUPPORTED says the
 * Provider lacks the model. So a Provider that reports srq_supported must not
 * answer an ordinary request with it, and one that reports no SRQ support has
 * that code to say so. A Provider that creates the SRQ evidently supports the
 * model, whatever its attribute says (the attribute is dat_ia_query's to
 * judge); one that left srq_supported unwritten cannot be judged here.
 */
DC_CASE(dat_srq_create, model_not_supported,
	.summary = "DAT_MODEL_NOT_SUPPORTED only where srq_supported is false, and then for an ordinary request")
{
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	DAT_RETURN r = try_create(t, dc_pz(t), 8, 1, DAT_SRQ_LW_DEFAULT, &srq);

	if (r == DAT_SUCCESS) {
		if (dc_attr_reported(t, "srq_supported") && !t->prov_attr.srq_supported)
			dc_note(t, "an SRQ was created although srq_supported is DAT_FALSE");
		/* collateral: dat_srq_create(3DAT) RETURN VALUES: DAT_SUCCESS made an SRQ, which answers its query */
		DC_ASSERT_SUCCESS(dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p));
		return;
	}
	DC_SETUP_ASSERT(dc_attr_reported(t, "srq_supported"),
			"dat_srq_create returned %s and dat_ia_query did not write srq_supported",
			dc_ret_text(r));
	if (t->prov_attr.srq_supported)
		DC_ASSERT(DAT_GET_TYPE(r) != DAT_MODEL_NOT_SUPPORTED,
			  "an ordinary SRQ request got DAT_MODEL_NOT_SUPPORTED while srq_supported is DAT_TRUE");
	else
		DC_ASSERT_RET(r, DAT_MODEL_NOT_SUPPORTED);
}

DC_CASE(dat_srq_create, precedes_its_eps,
	.summary = "EPs are created on an existing SRQ; a NULL SRQ gives DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	DAT_EVD_HANDLE evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 16, DAT_EVD_CONNECTION_FLAG);
	DAT_EP_ATTR a;
	DAT_EP_HANDLE ep1, ep2, ep3;

	dc_ep_attr_default(t, &a);
	/* collateral: dat_srq_create(3DAT) USAGE: several EPs are created on the existing SRQ */
	DC_ASSERT_SUCCESS(dat_ep_create_with_srq(t->ia, pz, evd, evd, cevd, srq, &a, &ep1));
	/* collateral: dat_srq_create(3DAT) USAGE: as above */
	DC_ASSERT_SUCCESS(dat_ep_create_with_srq(t->ia, pz, evd, evd, cevd, srq, &a, &ep2));
	/* collateral: dat_srq_create(3DAT) USAGE: the SRQ must exist before its EPs, so an EP naming none is refused */
	DC_ASSERT_INVALID_HANDLE(dat_ep_create_with_srq(t->ia, pz, evd, evd, cevd, DAT_HANDLE_NULL, &a, &ep3), 6, SRQ);
}

DC_CASE(dat_srq_create, pz_difference_per_attribute,
	.summary = "an EP in another PZ than its SRQ is accepted iff srq_ep_pz_difference_supported",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz, other;
	DAT_SRQ_HANDLE srq;
	DAT_EVD_HANDLE evd, cevd;
	DAT_EP_ATTR a;
	DAT_EP_HANDLE ep;
	DAT_RETURN r;

	DC_NEED_REPORTED("srq_ep_pz_difference_supported");
	pz = dc_pz(t);
	other = dc_pz(t);
	srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	cevd = dc_evd(t, 16, DAT_EVD_CONNECTION_FLAG);

	dc_ep_attr_default(t, &a);
	r = dat_ep_create_with_srq(t->ia, other, evd, evd, cevd, srq, &a, &ep);
	dc_note(t, "srq_ep_pz_difference_supported = %d", (int)t->prov_attr.srq_ep_pz_difference_supported);
	if (t->prov_attr.srq_ep_pz_difference_supported) {
		DC_ASSERT_SUCCESS(r);
	} else {
		DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
		DC_CLEANUP(dat_srq_free(srq));
	}
}

static void recv_on(struct dc_ctx *t, struct srq_link *l, DAT_EVD_HANDLE evd,
		    unsigned seq, unsigned slot)
{
	DAT_DTO_COMPLETION_EVENT_DATA d;

	post_slot(l->srq, &l->rbuf, slot);
	link_send(l, seq, 64);
	d = DC_ASSERT_DTO_SUCCESS(evd);
	DC_ASSERT_PTR_EQ(d.ep_handle, l->rx.ep);
	DC_ASSERT_EQ(d.user_cookie.as_64, slot);
	DC_ASSERT_EQ(slot_seq(&l->rbuf, slot), seq);
}

DC_CASE(dat_srq_create, recv_evd_shared_or_not,
	.summary = "EPs on one SRQ complete receives on their own recv EVDs, separate or shared",
	.requires = "srq_supported")
{
	struct srq_link a, b, c;

	link_up(&a, NULL);
	second_link(t, &b, &a, DAT_HANDLE_NULL);	/* separate recv EVD */
	second_link(t, &c, &a, a.rx.recv_evd);		/* shares a's recv EVD */
	/* buffers are posted from each link's own memory, all in the SRQ's PZ */
	recv_on(t, &b, b.rx.recv_evd, 1, 1);
	DC_ASSERT_NO_EVENT(a.rx.recv_evd);
	recv_on(t, &a, a.rx.recv_evd, 2, 2);
	DC_ASSERT_NO_EVENT(b.rx.recv_evd);
	recv_on(t, &c, a.rx.recv_evd, 3, 3);
	DC_ASSERT_NO_EVENT(b.rx.recv_evd);
	recv_on(t, &a, a.rx.recv_evd, 4, 4);
}

DC_CASE(dat_srq_create, any_ep_takes_any_buffer,
	.summary = "a single posted buffer is taken by whichever EP on the SRQ receives a Send",
	.requires = "srq_supported")
{
	struct link_opts few = { .few_evds = true };	/* two links at once */
	struct srq_link a, b;

	link_up(&a, &few);
	second_link(t, &b, &a, DAT_HANDLE_NULL);
	/* one buffer at a time, alternating the EP that gets the message */
	recv_on(t, &b, b.rx.recv_evd, 10, 0);
	recv_on(t, &a, a.rx.recv_evd, 11, 1);
	recv_on(t, &b, b.rx.recv_evd, 12, 2);
	DC_ASSERT_NO_EVENT(a.rx.recv_evd);
	DC_ASSERT_NO_EVENT(b.rx.recv_evd);
}

SRQ_CASE(dat_srq_create, default_lw_no_event_on_consume,
	.summary = "with the default low watermark, draining the SRQ raises no async event",
	.requires = "srq_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 2);
	link_send(&l, 0, 64);
	link_send(&l, 1, 64);
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_NO_ASYNC_EVENT(DAT_SRQ_LOW_WATERMARK_EVENT);
}

SRQ_CASE(dat_srq_create, ep_may_hold_several,
	.summary = "while a burst arrives, outstanding = posted - reaped and every buffer completes once",
	.requires = "srq_supported")
{
	enum { N = 8 };
	struct srq_link l;
	bool seen[N] = { false };
	DAT_SRQ_PARAM p;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, N);
	for (unsigned i = 0; i < N; i++)
		link_send(&l, i, 64);
	for (int reaped = 0; reaped < N; reaped++) {
		DAT_COUNT n = DAT_VALUE_UNKNOWN, span = DAT_VALUE_UNKNOWN;
		DAT_DTO_COMPLETION_EVENT_DATA d;

		p = DC_SRQ_PARAM(l.srq);
		if (srq_counts_known(&p)) {
			DC_ASSERT_EQ(p.outstanding_dto_count, N - reaped);
			DC_ASSERT_LE(p.available_dto_count, p.outstanding_dto_count);
		}
		if (dat_ep_recv_query(l.rx.ep, &n, &span) == DAT_SUCCESS &&
		    KNOWN(n) && srq_counts_known(&p))
			DC_ASSERT_LE(n, N - reaped);
		d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
		DC_ASSERT_LT(d.user_cookie.as_64, N);
		DC_ASSERT(!seen[d.user_cookie.as_64], "buffer %llu completed twice",
			  (unsigned long long)d.user_cookie.as_64);
		seen[d.user_cookie.as_64] = true;
	}
	p = DC_SRQ_PARAM(l.srq);
	ASSERT_COUNT(p.outstanding_dto_count, 0);
}

SRQ_CASE(dat_srq_create, order_per_connection,
	.summary = "receives of one connection complete in the peer's Send order",
	.requires = "srq_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, 8);
	for (unsigned i = 0; i < 8; i++)
		link_send(&l, i, 64);
	expect_in_send_order(t, &l, 0, 8);
}

SRQ_CASE(dat_srq_create, buffer_order_not_guaranteed,
	.summary = "every posted buffer completes once, holding the message its completion reports",
	.requires = "srq_supported")
{
	enum { N = 8 };
	struct srq_link l;
	bool seen[N] = { false };

	link_up(&l, NULL);
	post_slots(l.srq, &l.rbuf, 0, N);
	for (unsigned i = 0; i < N; i++)
		link_send(&l, 100 + i, 64 + i);
	for (unsigned i = 0; i < N; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
		unsigned k = (unsigned)d.user_cookie.as_64;

		DC_ASSERT_LT(k, N);
		DC_ASSERT(!seen[k], "buffer %u completed twice", k);
		seen[k] = true;
		/* the data is in the buffer the cookie names, and the length
		 * is that of the message found there */
		DC_ASSERT_EQ(slot_seq(&l.rbuf, k), 100 + i);
		DC_ASSERT_EQ(d.transfered_length, 64 + i);
	}
}

DC_CASE(dat_srq_create, no_order_across_connections,
	.summary = "two interleaved connections: all messages arrive, each in its own order",
	.requires = "srq_supported")
{
	two_connections_interleaved(t, false);
	two_connections_interleaved(t, true);
}

/*
 * Out of memory (the allocation fault hook): each allocation of 40 creates
 * in a row failing in turn, dat_srq_create gives DAT_INSUFFICIENT_RESOURCES
 * (dat_srq_create(3DAT) RETURN VALUES) or an SRQ with the attributes asked
 * for; once the SRQs made are freed the IA closes gracefully (no refused
 * create left one).
 */
struct oom_srqs {
	DAT_PZ_HANDLE pz;
	DAT_SRQ_ATTR attr;
	DAT_SRQ_HANDLE srq[DC_ALLOC_FAULT_OBJECTS];
	int n;
};

static DAT_RETURN oom_srq_make(struct dc_ctx *t, void *arg)
{
	struct oom_srqs *o = arg;

	return dat_srq_create(t->ia, o->pz, &o->attr, &o->srq[o->n]);
}

static void oom_srq_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct oom_srqs *o = arg;
	DAT_SRQ_PARAM p = DC_SRQ_PARAM(o->srq[o->n]);

	/* collateral: dat_srq_create(3DAT) RETURN VALUES: DAT_SUCCESS made the SRQ asked for, which its query shows */
	DC_ASSERT(p.pz_handle == o->pz && p.max_recv_dtos >= o->attr.max_recv_dtos &&
		  p.max_recv_iov >= o->attr.max_recv_iov,
		  "an SRQ made with an allocation failing reports PZ %p, %d DTOs of %d segments",
		  p.pz_handle, (int)p.max_recv_dtos, (int)p.max_recv_iov);
	if (keep)
		o->n++;
	else
		DC_CLEANUP(dat_srq_free(o->srq[o->n]));
}

DC_CASE(dat_srq_create, out_of_memory,
	.clauses = "dat_srq_create.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.requires = "srq_supported",
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES or a working SRQ, and no SRQ left behind")
{
	struct oom_srqs o = { .pz = dc_pz(t), .attr = { 8, 1, DAT_SRQ_LW_DEFAULT } };
	struct dc_alloc_call c = { "dat_srq_create", oom_srq_make, oom_srq_works, &o, NULL };
	int n = dc_within_limit(DC_ALLOC_FAULT_OBJECTS, t->ia_attr.max_srqs);

	o.attr.max_recv_dtos = dc_within_limit(8, t->ia_attr.max_recv_per_srq);
	for (int i = 0; i < n; i++)
		if (dc_alloc_sweep(t, &c) < 0)
			break;
	for (int i = 0; i < o.n; i++)
		DC_CLEANUP(dat_srq_free(o.srq[i]));
	DC_CLEANUP(dat_pz_free(o.pz));
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}
