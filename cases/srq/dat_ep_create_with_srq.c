/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_ep_create_with_srq(3DAT); clauses in
 * clauses/dat_ep_create_with_srq.toml.  "Nothing made" after a failed
 * create is observed as: the SRQ can still be freed (no EP holds it); a
 * check only in handle_undefined_on_failure, whose text says it, clean-up in
 * the other refusal cases.
 */
#include "srq_common.h"


/* Objects to create EPs with by hand. */
struct kit {
	DAT_PZ_HANDLE pz;
	DAT_SRQ_HANDLE srq;
	DAT_EVD_HANDLE recv, req, conn;
	DAT_EP_ATTR attr;
};

static void kit_at(struct dc_ctx *t, const char *file, int line, struct kit *k)
{
	k->pz = dc_pz_at(t, file, line);
	k->srq = dc_srq_at(t, file, line, k->pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	k->recv = dc_evd_at(t, file, line, 16, DAT_EVD_DTO_FLAG);
	k->req = dc_evd_at(t, file, line, 16, DAT_EVD_DTO_FLAG);
	k->conn = dc_evd_at(t, file, line, 16, DAT_EVD_CONNECTION_FLAG);
	dc_ep_attr_default(t, &k->attr);
}
#define kit(k) kit_at(t, __FILE__, __LINE__, (k))

static DAT_RETURN make(struct dc_ctx *t, const struct kit *k, DAT_EP_HANDLE *ep)
{
	*ep = DAT_HANDLE_NULL;
	return dat_ep_create_with_srq(t->ia, k->pz, k->recv, k->req, k->conn,
				      k->srq, (DAT_EP_ATTR *)&k->attr, ep);
}

/* Clause: no EP holds the SRQ (it can be freed); only where the clause's
 * text says so (handle_undefined_on_failure, srq_bound_until_ep_free).
 * Elsewhere freeing the SRQ after a refused create is clean-up. */
/* collateral: dat_ep_create_with_srq(3DAT) DESCRIPTION: a failed create, or the EP's destruction, leaves no EP holding the SRQ, so it frees */
#define ASSERT_SRQ_FREE(srq) DC_ASSERT_SUCCESS(dat_srq_free(srq))
#define CLEANUP_SRQ(srq) DC_CLEANUP(dat_srq_free(srq))

/* ---- DESCRIPTION -------------------------------------------------------- */

DC_CASE(dat_ep_create_with_srq, success_returns_handle,
	.summary = "a successful create returns an EP handle that queries back its SRQ, PZ and EVDs",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;
	DAT_HANDLE_TYPE type;
	DAT_EP_PARAM p;

	kit(&k);
	DC_ASSERT_SUCCESS(make(t, &k, &ep));
	/* collateral: dat_ep_create_with_srq(3DAT) DESCRIPTION: what is handed back is an EP */
	DC_ASSERT_SUCCESS(dat_get_handle_type(ep, &type));
	DC_ASSERT_EQ(type, DAT_HANDLE_TYPE_EP);
	p = dc_ep_param_at(t, __FILE__, __LINE__, ep, DC_FAIL);
	DC_ASSERT_PTR_EQ(p.srq_handle, k.srq);
	DC_ASSERT_PTR_EQ(p.pz_handle, k.pz);
	DC_ASSERT_PTR_EQ(p.recv_evd_handle, k.recv);
	DC_ASSERT_PTR_EQ(p.request_evd_handle, k.req);
	DC_ASSERT_PTR_EQ(p.connect_evd_handle, k.conn);
}

DC_CASE(dat_ep_create_with_srq, handle_undefined_on_failure,
	.summary = "refused creates leave no EP holding the SRQ",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;
	DAT_RETURN r;

	kit(&k);
	r = dat_ep_create_with_srq(t->ia, k.pz, k.recv, k.req, k.conn, k.srq, NULL, &ep);
	DC_SETUP_ASSERT(r != DAT_SUCCESS, "set-up: a create with NULL attributes succeeded");
	/* one above the IA's max_message_size, where the type has room for it
	 * (an IA may report the type's maximum: +1 would be 0) */
	if (t->ia_attr.max_message_size && DC_BELOW_TYPE_MAX(t->ia_attr.max_message_size)) {
		k.attr.max_message_size = t->ia_attr.max_message_size + 1;
		r = make(t, &k, &ep);
		DC_SETUP_ASSERT(r != DAT_SUCCESS, "set-up: a create above max_message_size succeeded");
	}
	ASSERT_SRQ_FREE(k.srq);
}

DC_CASE(dat_ep_create_with_srq, starts_unconnected,
	.summary = "the new EP is DAT_EP_STATE_UNCONNECTED",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;

	kit(&k);
	DC_SETUP(make(t, &k, &ep));
	DC_ASSERT_EQ(dc_ep_param_at(t, __FILE__, __LINE__, ep, DC_FAIL).ep_state,
		     DAT_EP_STATE_UNCONNECTED);
}

DC_CASE(dat_ep_create_with_srq, ep_pz_governs_other_dtos,
	.summary = "Sends from the EP's PZ work; a Send from another PZ is a protection error",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct dc_lmr foreign;
	DAT_LMR_TRIPLET iov;
	DAT_EVENT ev;
	DAT_RETURN r;

	link_up(&l, NULL);
	dc_lmr(t, dc_pz(t), SLOT, DC_PRIV_LOCAL, &foreign);
	dc_post_recv(t, l.tx.ep, &l.sbuf, 0, SLOT, 0);
	dc_post_recv(t, l.tx.ep, &l.sbuf, SLOT, SLOT, 1);
	/* rbuf is in the EP's PZ */
	iov = dc_iov(&l.rbuf, 0, 64);
	/* collateral: dat_ep_create_with_srq(3DAT) DESCRIPTION: the EP's PZ governs its other DTOs */
	DC_ASSERT_SUCCESS(dat_ep_post_send(l.rx.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_EVENT(l.rx.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
	iov = dc_iov(&foreign, 0, 64);
	r = dat_ep_post_send(l.rx.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG);
	if (r == DAT_SUCCESS) {
		DC_ASSERT_EVENT(l.rx.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
		DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.status,
			     DAT_DTO_ERR_LOCAL_PROTECTION);
	} else {
		DC_ASSERT_RET(r, DAT_PROTECTION_VIOLATION);
	}
}

DC_CASE(dat_ep_create_with_srq, recv_buffers_use_srq_pz,
	.summary = "receive buffers must be in the SRQ's PZ, even when the EP's PZ differs",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { 0 };
	struct dc_lmr other;
	DAT_PZ_HANDLE ep_pz = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET iov;
	struct dc_snap s;

	if (t->prov_attr.srq_ep_pz_difference_supported) {
		ep_pz = dc_pz(t);
		o.ep_pz = ep_pz;
		dc_note(t, "EP and SRQ in different PZs");
	}
	link_up(&l, &o);
	dc_lmr(t, ep_pz ? ep_pz : dc_pz(t), SLOT, DC_PRIV_LOCAL, &other);
	dc_snapshot(t, DC_OBJ_SRQ, l.srq, &s);
	iov = dc_iov(&other, 0, SLOT);
	/* collateral: dat_ep_create_with_srq(3DAT) DESCRIPTION: receive buffers come under the SRQ's PZ */
	DC_ASSERT_RET(dat_srq_post_recv(l.srq, 1, &iov, dc_cookie(1)), DAT_PROTECTION_VIOLATION);
	DC_ASSERT_UNCHANGED(&s);
	post_slot(l.srq, &l.rbuf, 0);	/* the SRQ's PZ */
	link_send(&l, 3, 64);
	DC_ASSERT_EQ(DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd).user_cookie.as_64, 0);
	DC_ASSERT_EQ(slot_seq(&l.rbuf, 0), 3);
}

DC_CASE(dat_ep_create_with_srq, pz_difference_per_attribute,
	.summary = "an EP PZ other than the SRQ's is accepted iff srq_ep_pz_difference_supported, else DAT_INVALID_PARAMETER",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;
	DAT_RETURN r;

	DC_NEED_REPORTED("srq_ep_pz_difference_supported");
	kit(&k);
	k.pz = dc_pz(t);
	r = make(t, &k, &ep);
	dc_note(t, "srq_ep_pz_difference_supported = %d",
		(int)t->prov_attr.srq_ep_pz_difference_supported);
	if (t->prov_attr.srq_ep_pz_difference_supported) {
		DC_ASSERT_SUCCESS(r);
	} else {
		DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
		CLEANUP_SRQ(k.srq);
	}
}

DC_CASE(dat_ep_create_with_srq, dto_completions_routed,
	.summary = "receives complete on the recv EVD; Send, RDMA Write and RDMA Read on the request EVD",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct dc_lmr target;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rmr;
	DAT_EVENT ev;

	link_up(&l, NULL);
	dc_lmr(t, l.tx.pz, SLOT, DAT_MEM_PRIV_ALL_FLAG, &target);
	/* receive */
	post_slot(l.srq, &l.rbuf, 0);
	link_send(&l, 1, 64);
	(void)DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_NO_EVENT(l.rx.req_evd);
	DC_ASSERT_NO_EVENT(l.rx.conn_evd);
	/* Send */
	dc_post_recv(t, l.tx.ep, &l.sbuf, 0, SLOT, 0);
	iov = dc_iov(&l.rbuf, SLOT, 64);
	/* the posts make the completions the clause routes: set-up */
	DC_SETUP(dat_ep_post_send(l.rx.ep, 1, &iov, dc_cookie(11), DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_EVENT(l.rx.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 11);
	/* RDMA Write */
	rmr = dc_rmr_iov(&target, 0, 64);
	DC_SETUP(dat_ep_post_rdma_write(l.rx.ep, 1, &iov, dc_cookie(12), &rmr,
					DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_EVENT(l.rx.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 12);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
	/* RDMA Read */
	iov = dc_iov(&l.rbuf, 2 * SLOT, 64);
	DC_SETUP(dat_ep_post_rdma_read(l.rx.ep, 1, &iov, dc_cookie(13), &rmr,
				       DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_EVENT(l.rx.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 13);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.status, DAT_DTO_SUCCESS);
	DC_ASSERT_NO_EVENT(l.rx.recv_evd);
	DC_ASSERT_NO_EVENT(l.rx.conn_evd);
}

DC_CASE(dat_ep_create_with_srq, connection_events_on_connect_evd,
	.summary = "ESTABLISHED and DISCONNECTED arrive on the connect EVD only",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .no_connect = true };
	DAT_EVENT ev;

	link_up(&l, &o);
	connect_checked(&l);		/* ESTABLISHED on rx's connect EVD */
	DC_ASSERT_NO_EVENT(l.rx.recv_evd);
	DC_ASSERT_NO_EVENT(l.rx.req_evd);
	DC_SETUP(dat_ep_disconnect(l.tx.ep, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT(dc_wait_event(t, l.rx.conn_evd, -1, &ev) == DAT_SUCCESS &&
		  (ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
		   ev.event_number == DAT_CONNECTION_EVENT_BROKEN),
		  "no disconnection event on the connect EVD");
	DC_ASSERT_NO_EVENT(l.rx.recv_evd);
	DC_ASSERT_NO_EVENT(l.rx.req_evd);
}

SRQ_CASE(dat_ep_create_with_srq, takes_buffers_from_srq,
	.summary = "the EP reports its SRQ and receives into buffers posted there",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	link_up(&l, NULL);
	DC_ASSERT_PTR_EQ(dc_ep_param_at(t, __FILE__, __LINE__, l.rx.ep, DC_FAIL).srq_handle, l.srq);
	post_slot(l.srq, &l.rbuf, 6);
	link_send(&l, 66, 64);
	d = DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd);
	DC_ASSERT_EQ(d.user_cookie.as_64, 6);
	DC_ASSERT_EQ(slot_seq(&l.rbuf, 6), 66);
}

DC_CASE(dat_ep_create_with_srq, reset_keeps_srq,
	.summary = "after disconnect and dat_ep_reset the EP still uses its SRQ",
	.requires = "srq_supported")
{
	struct srq_link l;

	link_up(&l, NULL);
	link_down(&l);
	/* collateral: dat_ep_create_with_srq(3DAT) DESCRIPTION: the EP can be reset */
	DC_ASSERT_SUCCESS(dat_ep_reset(l.rx.ep));
	DC_SETUP(dat_ep_reset(l.tx.ep));
	DC_ASSERT_PTR_EQ(dc_ep_param_at(t, __FILE__, __LINE__, l.rx.ep, DC_FAIL).srq_handle, l.srq);
	/* collateral: dat_ep_create_with_srq(3DAT) DESCRIPTION: the reset keeps the SRQ in use by the EP */
	DC_ASSERT_RET(dat_srq_free(l.srq), DAT_INVALID_STATE);
	link_connect(&l);
	post_slot(l.srq, &l.rbuf, 2);
	link_send(&l, 22, 64);
	DC_ASSERT_EQ(DC_ASSERT_DTO_SUCCESS(l.rx.recv_evd).user_cookie.as_64, 2);
}

DC_CASE(dat_ep_create_with_srq, srq_bound_until_ep_free,
	.summary = "dat_ep_modify cannot replace or remove the SRQ; only dat_ep_free releases it",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_SRQ_HANDLE other;
	DAT_EP_HANDLE ep;
	DAT_EP_PARAM p;
	DAT_RETURN r;

	kit(&k);
	other = dc_srq(t, k.pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	DC_SETUP(make(t, &k, &ep));
	memset(&p, 0, sizeof(p));
	p.srq_handle = other;
	r = dat_ep_modify(ep, DAT_EP_FIELD_SRQ_HANDLE, &p);
	DC_ASSERT(r != DAT_SUCCESS, "dat_ep_modify replaced the EP's SRQ");
	p.srq_handle = DAT_HANDLE_NULL;
	r = dat_ep_modify(ep, DAT_EP_FIELD_SRQ_HANDLE, &p);
	DC_ASSERT(r != DAT_SUCCESS, "dat_ep_modify removed the EP's SRQ");
	DC_ASSERT_PTR_EQ(dc_ep_param_at(t, __FILE__, __LINE__, ep, DC_FAIL).srq_handle, k.srq);
	/* collateral: dat_ep_create_with_srq(3DAT) DESCRIPTION: the SRQ cannot be removed while the EP lives */
	DC_ASSERT_RET(dat_srq_free(k.srq), DAT_INVALID_STATE);
	/* collateral: dat_ep_create_with_srq(3DAT) DESCRIPTION: the SRQ was not replaced, so the would-be replacement is held by no EP and frees */
	DC_ASSERT_SUCCESS(dat_srq_free(other));
	DC_SETUP(dat_ep_free(ep));
	ASSERT_SRQ_FREE(k.srq);
}

DC_CASE(dat_ep_create_with_srq, no_recv_post_to_ep,
	.summary = "dat_ep_post_recv on an SRQ EP fails and changes nothing",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_LMR_TRIPLET iov;
	DAT_COUNT n = DAT_VALUE_UNKNOWN;
	struct dc_snap s;
	DAT_RETURN r;

	link_up(&l, NULL);
	dc_snapshot(t, DC_OBJ_SRQ, l.srq, &s);
	iov = dc_iov(&l.rbuf, 0, SLOT);
	r = dat_ep_post_recv(l.rx.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG);
	dc_note(t, "dat_ep_post_recv returned %s", dc_ret_text(r));
	DC_ASSERT(r != DAT_SUCCESS, "a receive was posted directly to an SRQ EP");
	DC_ASSERT_UNCHANGED(&s);
	if (dat_ep_recv_query(l.rx.ep, &n, NULL) == DAT_SUCCESS)
		ASSERT_COUNT(n, 0);
}

DC_CASE(dat_ep_create_with_srq, attributes_required,
	.summary = "NULL ep_attributes gives DAT_INVALID_PARAMETER and makes nothing",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;

	kit(&k);
	DC_ASSERT_RET(dat_ep_create_with_srq(t->ia, k.pz, k.recv, k.req, k.conn, k.srq, NULL, &ep),
		      DAT_INVALID_PARAMETER);
	CLEANUP_SRQ(k.srq);
}

DC_CASE(dat_ep_create_with_srq, request_limits_at_least,
	.summary = "max_request_dtos and max_request_iov are at least those requested",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;
	DAT_EP_PARAM p;

	kit(&k);
	k.attr.max_request_dtos = 7;
	k.attr.max_request_iov = t->ia_attr.max_iov_segments_per_dto >= 2 ? 2 : 1;
	DC_SETUP(make(t, &k, &ep));
	p = dc_ep_param_at(t, __FILE__, __LINE__, ep, DC_FAIL);
	DC_ASSERT_GE(p.ep_attr.max_request_dtos, 7);
	DC_ASSERT_GE(p.ep_attr.max_request_iov, k.attr.max_request_iov);
}

/* Clause: every exactly-honoured attribute of got equals want. */
static void assert_exact_attrs(struct dc_ctx *t, const DAT_EP_ATTR *got,
			       const DAT_EP_ATTR *want)
{
	DC_ASSERT_EQ(got->service_type, want->service_type);
	DC_ASSERT_EQ(got->max_message_size, want->max_message_size);
	DC_ASSERT_EQ(got->max_rdma_size, want->max_rdma_size);
	DC_ASSERT_EQ(got->qos, want->qos);
	DC_ASSERT_EQ(got->recv_completion_flags, want->recv_completion_flags);
	DC_ASSERT_EQ(got->request_completion_flags, want->request_completion_flags);
	DC_ASSERT_EQ(got->max_recv_dtos, want->max_recv_dtos);
	DC_ASSERT_EQ(got->max_rdma_read_in, want->max_rdma_read_in);
	DC_ASSERT_EQ(got->max_rdma_read_out, want->max_rdma_read_out);
	DC_ASSERT_EQ(got->srq_soft_hw, want->srq_soft_hw);
	DC_ASSERT_EQ(got->max_rdma_read_iov, want->max_rdma_read_iov);
	DC_ASSERT_EQ(got->max_rdma_write_iov, want->max_rdma_write_iov);
}

DC_CASE(dat_ep_create_with_srq, exact_attributes,
	.summary = "max_recv_dtos, message/RDMA sizes, RDMA Read limits and the rest come back exactly",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;

	kit(&k);
	k.attr.max_recv_dtos = 9;
	k.attr.max_message_size = 4000;
	k.attr.max_rdma_size = 8000;
	k.attr.max_rdma_read_in = t->ia_attr.max_rdma_read_per_ep_in >= 1 ? 1 : 0;
	k.attr.max_rdma_read_out = t->ia_attr.max_rdma_read_per_ep_out >= 1 ? 1 : 0;
	DC_SETUP(make(t, &k, &ep));
	{
		DAT_EP_ATTR got = dc_ep_param_at(t, __FILE__, __LINE__, ep, DC_FAIL).ep_attr;

		assert_exact_attrs(t, &got, &k.attr);
	}
}

DC_CASE(dat_ep_create_with_srq, max_recv_iov_ignored,
	.summary = "a max_recv_iov far beyond the IA limit does not stop the create",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;

	kit(&k);
	k.attr.max_recv_iov = t->ia_attr.max_iov_segments_per_dto * 100 + 1;
	DC_ASSERT_SUCCESS(make(t, &k, &ep));
}

/*
 * The attributes the page makes exact (dat_ep_create_with_srq(3DAT)
 * DESCRIPTION: max_message_size, max_rdma_size, max_rdma_read_in,
 * max_rdma_read_out), each at the IA's maximum for it (dat_ia_query(3DAT))
 * and one above.  At the maximum the IA supports the value, so the EP is
 * made with exactly it (DAT_INSUFFICIENT_RESOURCES: not demonstrated); one
 * above it the Provider cannot satisfy, so the create fails: a Provider
 * that takes the value and clamps it, or ignores it, breaks the rule.
 */
static void srq_ep_at_limit(struct dc_ctx *t, const struct kit *k, const char *what,
			    const DAT_EP_ATTR *want)
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_RETURN r = make(t, k, &ep);
	DAT_EP_ATTR got;

	dc_note(t, "%s: %s", what, dc_ret_text(r));
	DC_ASSERT_SUCCESS_UNLESS_SHORT(r);
	got = dc_ep_param_at(t, __FILE__, __LINE__, ep, DC_FAIL).ep_attr;
	DC_ASSERT_EQ(got.max_message_size, want->max_message_size);
	DC_ASSERT_EQ(got.max_rdma_size, want->max_rdma_size);
	DC_ASSERT_EQ(got.max_rdma_read_in, want->max_rdma_read_in);
	DC_ASSERT_EQ(got.max_rdma_read_out, want->max_rdma_read_out);
	DC_CLEANUP(dat_ep_free(ep));
}

DC_CASE(dat_ep_create_with_srq, unsatisfiable_fails,
	.clauses = "dat_ep_create_with_srq.unsatisfiable_fails dat_ep_create_with_srq.exact_attributes",
	.summary = "max_message_size, max_rdma_size, max_rdma_read_in/out, max_request_dtos/iov one above the IA's fail and make nothing; exactly at it the first four come back exactly",
	.requires = "srq_supported")
{
	const DAT_IA_ATTR *ia = &t->ia_attr;
	struct kit k;
	DAT_EP_HANDLE ep;

	kit(&k);
	/* one above each maximum: refused */
	DC_FOR_CLAUSE("dat_ep_create_with_srq.unsatisfiable_fails");
	for (int which = 0; which < 6; which++) {
		const char *what[] = { "max_message_size", "max_rdma_size",
				       "max_rdma_read_in", "max_rdma_read_out",
				       "max_request_dtos", "max_request_iov" };

		dc_ep_attr_default(t, &k.attr);
		/* one above each where the type has room for it: an IA may report
		 * the type's maximum (soft-iWARP's max_message_size under DAT 2.0's
		 * 32-bit DAT_VLEN), and +1 would then ask for 0 */
		if (which == 0 && ia->max_message_size && DC_BELOW_TYPE_MAX(ia->max_message_size))
			k.attr.max_message_size = ia->max_message_size + 1;
		else if (which == 1 && ia->max_rdma_size && DC_BELOW_TYPE_MAX(ia->max_rdma_size))
			k.attr.max_rdma_size = ia->max_rdma_size + 1;
		else if (which == 2 && ia->max_rdma_read_per_ep_in >= 0 &&
			 ia->max_rdma_read_per_ep_in < INT32_MAX)
			k.attr.max_rdma_read_in = ia->max_rdma_read_per_ep_in + 1;
		else if (which == 3 && ia->max_rdma_read_per_ep_out >= 0 &&
			 ia->max_rdma_read_per_ep_out < INT32_MAX)
			k.attr.max_rdma_read_out = ia->max_rdma_read_per_ep_out + 1;
		/* the request limits may come out larger than asked, never
		 * beyond what the IA can give (Max DTOs per EP, Max IOV
		 * segments per DTO) */
		else if (which == 4 && ia->max_dto_per_ep > 0 && ia->max_dto_per_ep < INT32_MAX)
			k.attr.max_request_dtos = ia->max_dto_per_ep + 1;
		else if (which == 5 && ia->max_iov_segments_per_dto > 0 &&
			 ia->max_iov_segments_per_dto < INT32_MAX)
			k.attr.max_request_iov = ia->max_iov_segments_per_dto + 1;
		else
			continue;
		dc_note(t, "%s one above the IA's", what[which]);
		DC_ASSERT_RET_ANY(make(t, &k, &ep), DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES);
	}
	/* exactly each maximum: made, with exactly that value */
	DC_FOR_CLAUSE("dat_ep_create_with_srq.exact_attributes");
	for (int which = 0; which < 4; which++) {
		dc_ep_attr_default(t, &k.attr);
		if (which == 0 && ia->max_message_size)
			k.attr.max_message_size = ia->max_message_size;
		else if (which == 1 && ia->max_rdma_size)
			k.attr.max_rdma_size = ia->max_rdma_size;
		else if (which == 2 && ia->max_rdma_read_per_ep_in > 0)
			k.attr.max_rdma_read_in = ia->max_rdma_read_per_ep_in;
		else if (which == 3 && ia->max_rdma_read_per_ep_out > 0)
			k.attr.max_rdma_read_out = ia->max_rdma_read_per_ep_out;
		else
			continue;
		srq_ep_at_limit(t, &k, which == 0 ? "max_message_size = the IA's" :
				which == 1 ? "max_rdma_size = the IA's" :
				which == 2 ? "max_rdma_read_in = max_rdma_read_per_ep_in" :
					     "max_rdma_read_out = max_rdma_read_per_ep_out", &k.attr);
	}
	CLEANUP_SRQ(k.srq);
}

/* ---- RETURN VALUES ------------------------------------------------------ */

DC_CASE(dat_ep_create_with_srq, insufficient_resources,
	.summary = "one EP past max_ep_per_srq gives DAT_INSUFFICIENT_RESOURCES; the others survive",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_COUNT max = t->ia_attr.max_ep_per_srq;
	DAT_EP_HANDLE ep, first = DAT_HANDLE_NULL;

	DAT_RETURN r = DAT_SUCCESS;

	/* More EPs than the case makes is a bound of its own; running out
	 * earlier (fewer EPs in the IA than per SRQ, or resources) is the same
	 * refusal (dat_ep_create_with_srq(3DAT) RETURN VALUES) */
	if (max > 1024)
		DC_BEYOND_SUITE_BOUND("1024 EPs on one SRQ", "the IA reports max_ep_per_srq = %d",
				      (int)max);
	kit(&k);
	for (DAT_COUNT i = 0; i < max; i++) {
		r = make(t, &k, &ep);
		if (r != DAT_SUCCESS) {
			dc_note(t, "creation stopped at %d of max_ep_per_srq %d", (int)i, (int)max);
			break;
		}
		if (!first)
			first = ep;
	}
	if (r == DAT_SUCCESS)
		r = make(t, &k, &ep);
	DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	if (!first)
		return;
	DC_ASSERT_PTR_EQ(dc_ep_param_at(t, __FILE__, __LINE__, first, DC_FAIL).srq_handle, k.srq);
}

DC_CASE(dat_ep_create_with_srq, invalid_handle,
	.summary = "NULL IA/PZ/SRQ and wrong-type EVD or SRQ handles give DAT_INVALID_HANDLE",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR *a;

	kit(&k);
	a = &k.attr;
	DC_ASSERT_INVALID_HANDLE(dat_ep_create_with_srq(DAT_HANDLE_NULL, k.pz, k.recv, k.req, k.conn, k.srq, a, &ep), 1, IA);
	DC_ASSERT_INVALID_HANDLE(dat_ep_create_with_srq(t->ia, DAT_HANDLE_NULL, k.recv, k.req, k.conn, k.srq, a, &ep), 2, PZ);
	DC_ASSERT_INVALID_HANDLE(dat_ep_create_with_srq(t->ia, k.pz, k.recv, k.req, k.conn, DAT_HANDLE_NULL, a, &ep), 6, SRQ);
	DC_ASSERT_INVALID_HANDLE(dat_ep_create_with_srq(t->ia, k.pz, (DAT_EVD_HANDLE)k.pz, k.req, k.conn, k.srq, a, &ep), 3, EVD_RECV);
	DC_ASSERT_INVALID_HANDLE(dat_ep_create_with_srq(t->ia, k.pz, k.recv, k.req, k.conn, (DAT_SRQ_HANDLE)k.pz, a, &ep), 6, SRQ);
	CLEANUP_SRQ(k.srq);
}

DC_CASE(dat_ep_create_with_srq, invalid_parameter,
	.summary = "max_rdma_read_iov above the IA's capability gives DAT_INVALID_PARAMETER",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;

	kit(&k);
	k.attr.max_rdma_read_iov = t->ia_attr.max_iov_segments_per_rdma_read + 1;
	DC_ASSERT_RET(make(t, &k, &ep), DAT_INVALID_PARAMETER);
	CLEANUP_SRQ(k.srq);
}

DC_CASE(dat_ep_create_with_srq, model_not_supported,
	.summary = "an RC, best-effort EP on a supported SRQ is never refused as an unsupported model",
	.requires = "srq_supported")
{
	struct kit k;
	DAT_EP_HANDLE ep;

	kit(&k);
	k.attr.service_type = DAT_SERVICE_TYPE_RC;
	k.attr.qos = DAT_QOS_BEST_EFFORT;
	DC_ASSERT_SUCCESS(make(t, &k, &ep));
}

/* A provider without SRQs: no SRQ handle can be valid there (srq_handle
 * names an SRQ instance, PARAMETERS), and the call may answer
 * DAT_INVALID_HANDLE (that handle) or DAT_MODEL_NOT_SUPPORTED (the model),
 * two listed errors at once; the page leaves the pick open, so the case
 * checks only what all of them share: no DAT_SUCCESS. */
DC_CASE(dat_ep_create_with_srq, refused_without_srq,
	.summary = "a provider without SRQs never answers DAT_SUCCESS: no SRQ handle is valid there",
	.requires = "!srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE recv = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE req = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE conn = dc_evd(t, 16, DAT_EVD_CONNECTION_FLAG);
	DAT_EP_ATTR attr;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_RETURN r;

	dc_ep_attr_default(t, &attr);
	r = dat_ep_create_with_srq(t->ia, pz, recv, req, conn, DAT_HANDLE_NULL,
				   &attr, &ep);
	DC_ASSERT(DAT_GET_TYPE(r) != DAT_SUCCESS,
		  "dat_ep_create_with_srq with no SRQ (the provider has none) returned DAT_SUCCESS");
}

/* ---- USAGE -------------------------------------------------------------- */

/* One message over l lands in an SRQ buffer. */
static void receives_via_srq(struct dc_ctx *t, struct srq_link *l, unsigned seq)
{
	DAT_DTO_COMPLETION_EVENT_DATA d;

	post_slot(l->srq, &l->rbuf, seq % NSLOTS);
	link_send(l, seq, 64);
	d = DC_ASSERT_DTO_SUCCESS(l->rx.recv_evd);
	DC_ASSERT_EQ(d.user_cookie.as_64, seq % NSLOTS);
	DC_ASSERT_EQ(slot_seq(&l->rbuf, seq % NSLOTS), seq);
}

/* Between the parts of connect_paths: l's endpoints, their EVDs and its SRQ
 * freed, so that the next part can make its own on an IA of few SRQs or
 * EVDs (dat_ia_query(3DAT) Max SRQs, Max EVDs: no floor given). */
static void connect_path_done(struct dc_ctx *t, struct srq_link *l)
{
	link_down(l);
	dc_endpoint_down(t, &l->rx);
	dc_endpoint_down(t, &l->tx);
	DC_CLEANUP(dat_srq_free(l->srq));
}

DC_CASE(dat_ep_create_with_srq, connect_paths,
	.summary = "the SRQ EP connects actively, by accepting a request, and through an RSP",
	.requires = "srq_supported")
{
	struct srq_link pas, act, rsp;
	struct link_opts o = { .no_connect = true };
	DAT_EVENT ev;
	DAT_RSP_HANDLE rh = DAT_HANDLE_NULL;
	DAT_CONN_QUAL q = 0;
	DAT_RETURN r = DAT_CONN_QUAL_IN_USE;

	/* passive: accept a connection request with the SRQ EP */
	link_up(&pas, &o);
	connect_checked(&pas);
	receives_via_srq(t, &pas, 1);
	connect_path_done(t, &pas);

	/* active: the SRQ EP calls dat_ep_connect; its tx is the listener */
	link_up(&act, &o);
	act.tx.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(t->ia, &act.tx.conn_qual, act.tx.cr_evd,
				    DAT_PSP_CONSUMER_FLAG, &act.tx.psp));
	/* collateral: dat_ep_create_with_srq(3DAT) USAGE: the new EP connects
	 * actively (a connect short of resources is allowed, dat_ep_connect(3DAT)
	 * RETURN VALUES: nothing shown then) */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_connect(act.rx.ep, t->ia_attr.ia_address_ptr, act.tx.conn_qual,
					 DC_WAIT_MS * 1000u, 0, NULL, DAT_QOS_BEST_EFFORT,
					 DAT_CONNECT_DEFAULT_FLAG));
	dc_await_event(t, act.tx.cr_evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_SETUP(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, act.tx.ep, 0, NULL));
	DC_ASSERT_EVENT(act.rx.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_await_event(t, act.tx.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	receives_via_srq(t, &act, 2);
	connect_path_done(t, &act);

	/* reserved service point made with the SRQ EP */
	link_up(&rsp, &o);
	rsp.rx.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	/* a qualifier the provider accepts and nobody uses: borrow one from
	 * dat_psp_create_any, release it, reserve it with the RSP */
	for (int i = 0; i < 8 && r != DAT_SUCCESS; i++) {
		DAT_PSP_HANDLE probe;

		DC_SETUP(dat_psp_create_any(t->ia, &q, rsp.rx.cr_evd,
					    DAT_PSP_CONSUMER_FLAG, &probe));
		DC_SETUP(dat_psp_free(probe));
		r = dat_rsp_create(t->ia, q, rsp.rx.ep, rsp.rx.cr_evd, &rh);
		if (dc_ret_is(r, DAT_CONN_QUAL_IN_USE, DC_ANY_SUBTYPE))
			continue;
		break;
	}
	DC_ASSERT_SUCCESS(r);
	DC_SETUP(dat_ep_connect(rsp.tx.ep, t->ia_attr.ia_address_ptr, q, DC_WAIT_MS * 1000u,
				0, NULL, DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	DC_ASSERT_EVENT(rsp.rx.cr_evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	/* collateral: dat_ep_create_with_srq(3DAT) USAGE: the new EP accepts a request passively */
	DC_ASSERT_SUCCESS(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
					rsp.rx.ep, 0, NULL));
	DC_ASSERT_EVENT(rsp.rx.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_await_event(t, rsp.tx.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	receives_via_srq(t, &rsp, 3);
}

DC_CASE(dat_ep_create_with_srq, shared_evd_flag_mismatch,
	.summary = "a second EP with conflicting receive flags on a shared EVD is refused or created",
	.requires = "srq_supported completion_flags_supported&2")
{
	struct kit k;
	DAT_EP_HANDLE ep1, ep2;
	DAT_RETURN r;

	kit(&k);
	DC_SETUP(make(t, &k, &ep1));
	k.attr.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	r = make(t, &k, &ep2);
	dc_note(t, "second EP: %s", dc_ret_text(r));
	DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_INVALID_PARAMETER);
	if (r != DAT_SUCCESS) {
		DC_SETUP(dat_ep_free(ep1));
		CLEANUP_SRQ(k.srq);		/* the refused one holds nothing */
	}
}

SRQ_CASE(dat_ep_create_with_srq, srq_recv_always_signalled,
	.summary = "with unsignalled receive flags every SRQ receive still notifies",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_EP_ATTR a;
	struct link_opts o = { .rx_attr = &a };

	dc_ep_attr_default(t, &a);
	a.recv_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	link_up(&l, &o);
	every_message_notifies(t, &l, 2);
}

DC_CASE(dat_ep_create_with_srq, threshold_evd_takes_other_streams,
	.summary = "one EVD serves as recv and connect EVD of a threshold SRQ EP; both event kinds arrive",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_EVD_HANDLE both;
	DAT_EP_ATTR a;
	struct dc_conn_opts txo = { .evd_qlen = 32 };
	DAT_RETURN r;

	DC_NEED_STREAMS_MERGE(DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG);
	both = dc_evd(t, 32, DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG);
	memset(&l, 0, sizeof(l));
	l.pz = dc_pz(t);
	l.srq = dc_srq(t, l.pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	dc_lmr(t, l.pz, LINK_BUF, DC_PRIV_LOCAL, &l.rbuf);
	dc_ep_attr_default(t, &a);
	a.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	l.rx.pz = l.pz;
	l.rx.recv_evd = l.rx.conn_evd = both;
	l.rx.req_evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	r = dat_ep_create_with_srq(t->ia, l.pz, both, l.rx.req_evd, both, l.srq, &a, &l.rx.ep);
	DC_ASSERT_SUCCESS(r);
	dc_endpoint(t, &l.tx, &txo);
	dc_lmr(t, l.tx.pz, LINK_BUF, DC_PRIV_LOCAL, &l.sbuf);
	connect_checked(&l);		/* ESTABLISHED arrives on `both` */
	post_slot(l.srq, &l.rbuf, 0);
	link_send(&l, 9, 64);
	DC_ASSERT_EQ(DC_ASSERT_DTO_SUCCESS(both).user_cookie.as_64, 0);	/* and the DTO too */
}

/*
 * USAGE: the recv EVD of an SRQ EP with threshold Receive completions takes
 * only threshold DTO streams: a default stream on it is refused, whether it
 * is the EP's own Request stream or another EP's that came first.
 */
static void threshold_streams_only(struct dc_ctx *t)
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	DAT_EVD_HANDLE x = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE y = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EP_ATTR dflt, thr;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;

	dc_ep_attr_default(t, &dflt);
	thr = dflt;
	thr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	/* the EP's own Request stream, default, on its threshold recv EVD */
	DC_ASSERT_RET(dat_ep_create_with_srq(t->ia, pz, x, x, DAT_HANDLE_NULL, srq, &thr, &ep),
		      DAT_INVALID_PARAMETER);
	/* another EP's default Request stream there first */
	dc_ep(t, pz, dc_evd(t, 16, DAT_EVD_DTO_FLAG), y, DAT_HANDLE_NULL, &dflt);
	DC_ASSERT_RET(dat_ep_create_with_srq(t->ia, pz, y, dc_evd(t, 16, DAT_EVD_DTO_FLAG),
					     DAT_HANDLE_NULL, srq, &thr, &ep),
		      DAT_INVALID_PARAMETER);
	/* the threshold SRQ Receive stream there first, then another EP's
	 * default Request stream */
	{
		DAT_EVD_HANDLE w = dc_evd(t, 16, DAT_EVD_DTO_FLAG);

		dc_ep_with_srq(t, pz, w, dc_evd(t, 16, DAT_EVD_DTO_FLAG), DAT_HANDLE_NULL, srq, &thr);
		/* collateral: dat_ep_create_with_srq(3DAT) USAGE: the threshold rule covers every stream on the EVD, a plain EP's too */
		DC_ASSERT_RET(dat_ep_create(t->ia, pz, dc_evd(t, 16, DAT_EVD_DTO_FLAG), w,
					    DAT_HANDLE_NULL, &dflt, &ep),
			      DAT_INVALID_PARAMETER);
	}
	/* an SRQ EP's default Receive and Request streams on one EVD, its
	 * Receive flags then changed to threshold (dat_ep_modify sets the same
	 * attribute) */
	{
		DAT_EVD_HANDLE z = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
		struct dc_snap before;
		DAT_EP_PARAM nv;

		ep = dc_ep_with_srq(t, pz, z, z, DAT_HANDLE_NULL, srq, &dflt);
		nv = dc_ep_param(t, ep);
		nv.ep_attr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
		dc_snapshot(t, DC_OBJ_EP, ep, &before);
		/* collateral: dat_ep_create_with_srq(3DAT) USAGE: every DTO stream on a threshold SRQ Receive stream's EVD must be threshold */
		DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, &nv),
			      DAT_INVALID_PARAMETER);
		DC_ASSERT_UNCHANGED(&before);
	}
}

DC_CASE(dat_ep_create_with_srq, threshold_evd_threshold_streams_only,
	.summary = "a threshold SRQ Receive stream and a default DTO stream on one EVD are refused, either order",
	.requires = "srq_supported")
{
	threshold_streams_only(t);
}

/*
 * USAGE: the threshold rule is about the streams that use the EVD when the
 * call is made: a freed EP's streams no longer do, every other one still
 * does.
 */
DC_CASE(dat_ep_create_with_srq, threshold_evd_current_streams,
	.summary = "the threshold SRQ Receive rule weighs the streams on the EVD at the call: freed streams stop counting, the others still count",
	.requires = "srq_supported")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	DAT_EVD_HANDLE y = dc_evd(t, 16, DAT_EVD_DTO_FLAG), v = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE x = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	/* for the default streams the case does not look at (few EVDs) */
	DAT_EVD_HANDLE other_recv = dc_evd(t, 64, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE other_req = dc_evd(t, 64, DAT_EVD_DTO_FLAG);
	DAT_EP_ATTR dflt, thr_recv, thr_req;
	DAT_EP_HANDLE ep3, ep4, ep5, ep6, ep, epa, epc, epd;
	DAT_EP_PARAM nv;
	DAT_RETURN r;

	dc_ep_attr_default(t, &dflt);
	thr_recv = thr_req = dflt;
	thr_recv.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	thr_req.request_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;

	/* y: a default and a threshold Request stream (a mix the page lets a
	 * provider refuse: then this part has nothing to judge) */
	ep3 = dc_ep(t, pz, other_recv, y, DAT_HANDLE_NULL, &dflt);
	ep4 = DAT_HANDLE_NULL;
	r = dat_ep_create(t->ia, pz, other_recv, y, DAT_HANDLE_NULL, &thr_req, &ep4);
	if (r != DAT_SUCCESS) {
		dc_note(t, "a threshold Request stream beside a default one was refused (%s): y not judged",
			dc_ret_text(r));
	} else {
		DC_SETUP(dat_ep_free(ep3));
		dc_note(t, "y: EP3's default stream freed, EP4's threshold one left; an SRQ EP with threshold Receive flags on y");
		ep = DAT_HANDLE_NULL;
		r = dat_ep_create_with_srq(t->ia, pz, y, other_req, DAT_HANDLE_NULL, srq, &thr_recv,
					   &ep);
		DC_ASSERT_SUCCESS_UNLESS_SHORT(r);
		DC_CLEANUP(dat_ep_free(ep));	/* an IA may take few EPs per SRQ */
	}

	/* v: an SRQ EP's threshold Receive stream and a threshold Request stream */
	ep5 = dc_ep_with_srq(t, pz, v, other_req, DAT_HANDLE_NULL, srq, &thr_recv);
	ep6 = dc_ep(t, pz, other_recv, v, DAT_HANDLE_NULL, &thr_req);
	DC_SETUP(dat_ep_free(ep6));
	dc_note(t, "v: EP6's threshold Request stream freed, EP5's threshold SRQ Receive stream left; a default Request stream on v");
	ep = DAT_HANDLE_NULL;
	/* collateral: dat_ep_create_with_srq(3DAT) USAGE: the threshold rule covers every stream on the EVD, a plain EP's too */
	DC_ASSERT_RET(dat_ep_create(t->ia, pz, other_recv, v, DAT_HANDLE_NULL, &dflt, &ep),
		      DAT_INVALID_PARAMETER);
	DC_SETUP(dat_ep_free(ep5));
	dc_note(t, "v: every EP freed; a default Request stream on v");
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_create(t->ia, pz, other_recv, v, DAT_HANDLE_NULL,
						     &dflt, &ep));

	/* x: a threshold Request stream (EPa), a plain threshold Receive
	 * stream (EPb) and two SRQ EPs' default Receive streams (EPc, EPd);
	 * once EPa and EPd are freed, EPc's Receive flags may turn threshold:
	 * every other stream left on x is threshold (set-up: a provider may
	 * refuse the default/threshold mix in the first place) */
	epa = dc_ep(t, pz, other_recv, x, DAT_HANDLE_NULL, &thr_req);
	dc_ep(t, pz, x, other_req, DAT_HANDLE_NULL, &thr_recv);
	epc = dc_ep_with_srq(t, pz, x, other_req, DAT_HANDLE_NULL, srq, &dflt);
	epd = dc_ep_with_srq(t, pz, x, other_req, DAT_HANDLE_NULL, srq, &dflt);
	DC_SETUP(dat_ep_free(epa));
	DC_SETUP(dat_ep_free(epd));
	dc_note(t, "x: EPa and EPd freed; EPc's Receive flags turned threshold beside EPb's threshold Receive stream");
	nv = dc_ep_param(t, epc);
	nv.ep_attr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	/* collateral: dat_ep_create_with_srq(3DAT) USAGE: the threshold rule covers every stream on the EVD, a modified EP's too */
	DC_ASSERT_SUCCESS(dat_ep_modify(epc, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, &nv));
}

DC_CASE(dat_ep_create_with_srq, ready_to_connect,
	.summary = "after a connection came and went, a new SRQ EP connects at once",
	.requires = "srq_supported")
{
	struct link_opts few = { .few_evds = true };	/* two links at once */
	struct srq_link a, b;
	struct link_opts o;

	link_up(&a, &few);
	receives_via_srq(t, &a, 1);
	link_down(&a);
	DC_SETUP(dat_ep_free(a.rx.ep));
	o = (struct link_opts){ .srq = a.srq, .pz = a.pz, .no_connect = true, .few_evds = true };
	link_up(&b, &o);
	connect_checked(&b);
	receives_via_srq(t, &b, 2);
}

DC_CASE(dat_ep_create_with_srq, reset_hides_previous_connection,
	.summary = "after dat_ep_reset the EP is Unconnected and connects again",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct dc_conn_opts txo = { .evd_qlen = 32 };

	link_up(&l, NULL);
	link_down(&l);
	DC_SETUP(dat_ep_reset(l.rx.ep));
	DC_ASSERT_EQ(dc_ep_param_at(t, __FILE__, __LINE__, l.rx.ep, DC_FAIL).ep_state,
		     DAT_EP_STATE_UNCONNECTED);
	dc_endpoint(t, &l.tx, &txo);	/* a fresh peer EP */
	dc_lmr(t, l.tx.pz, LINK_BUF, DC_PRIV_LOCAL, &l.sbuf);
	connect_checked(&l);
	receives_via_srq(t, &l, 4);
}

DC_CASE(dat_ep_create_with_srq, attributes_kept_through_connect,
	.summary = "the attributes queried after ESTABLISHED equal those before connecting",
	.requires = "srq_supported")
{
	struct srq_link l;
	struct link_opts o = { .no_connect = true };
	DAT_EP_ATTR before;

	link_up(&l, &o);
	before = dc_ep_param(t, l.rx.ep).ep_attr;
	link_connect(&l);
	{
		DAT_EP_ATTR after = dc_ep_param_at(t, __FILE__, __LINE__, l.rx.ep, DC_FAIL).ep_attr;

		assert_exact_attrs(t, &after, &before);
		DC_ASSERT_EQ(after.max_request_dtos, before.max_request_dtos);
		DC_ASSERT_EQ(after.max_request_iov, before.max_request_iov);
	}
}

DC_CASE(dat_ep_create_with_srq, rdma_read_default_zero,
	.summary = "an SRQ EP with RDMA Read limits 0 connects and keeps 0/0",
	.requires = "srq_supported")
{
	struct srq_link l;
	DAT_EP_ATTR a;
	struct link_opts o = { .rx_attr = &a };
	DAT_EP_ATTR got;

	dc_ep_attr_default(t, &a);
	a.max_rdma_read_in = 0;
	a.max_rdma_read_out = 0;
	link_up(&l, &o);
	got = dc_ep_param_at(t, __FILE__, __LINE__, l.rx.ep, DC_FAIL).ep_attr;
	DC_ASSERT_EQ(got.max_rdma_read_in, 0);
	DC_ASSERT_EQ(got.max_rdma_read_out, 0);
}

DC_CASE(dat_ep_create_with_srq, rdma_read_iov_mismatch,
	.summary = "max_rdma_read_iov 2 with max_rdma_read_out 0 is created or refused with DAT_INVALID_PARAMETER",
	.requires = "srq_supported ia.max_iov_segments_per_rdma_read>=2")
{
	struct kit k;
	DAT_EP_HANDLE ep;
	DAT_RETURN r;

	DC_SETUP_ASSERT(t->ia_attr.max_iov_segments_per_rdma_read >= 2,
			"set-up: the IA allows %d RDMA Read segments",
			(int)t->ia_attr.max_iov_segments_per_rdma_read);
	kit(&k);
	k.attr.max_rdma_read_iov = 2;
	k.attr.max_rdma_read_out = 0;
	r = make(t, &k, &ep);
	dc_note(t, "%s", dc_ret_text(r));
	DC_ASSERT_RET_ANY(r, DAT_SUCCESS, DAT_INVALID_PARAMETER);
}

DC_CASE(dat_ep_create_with_srq, rdma_read_resources_allocated,
	.summary = "max_rdma_read_out 2 x max_rdma_read_iov 2: two 2-segment RDMA Reads outstanding complete",
	.requires = "srq_supported ia.max_iov_segments_per_rdma_read>=2 ia.max_rdma_read_per_ep_out>=2 ia.max_rdma_read_per_ep_in>=2")
{
	struct srq_link l;
	DAT_EP_ATTR a;
	struct link_opts o = { .rx_attr = &a };
	struct dc_lmr src;
	bool done[2] = { false };

	DC_SETUP_ASSERT(t->ia_attr.max_iov_segments_per_rdma_read >= 2 &&
			t->ia_attr.max_rdma_read_per_ep_out >= 2 &&
			t->ia_attr.max_rdma_read_per_ep_in >= 2,
			"set-up: the IA cannot do 2 x 2 RDMA Reads");
	dc_ep_attr_default(t, &a);
	a.max_rdma_read_out = 2;
	a.max_rdma_read_iov = 2;
	link_up(&l, &o);
	dc_lmr(t, l.tx.pz, 256, DAT_MEM_PRIV_ALL_FLAG, &src);
	for (unsigned i = 0; i < 256; i++)
		src.buf[i] = (unsigned char)(i * 7 + 1);
	for (unsigned n = 0; n < 2; n++) {
		DAT_LMR_TRIPLET iov[2] = {
			dc_iov(&l.rbuf, n * SLOT, 32),
			dc_iov(&l.rbuf, n * SLOT + 64, 32),
		};
		DAT_RMR_TRIPLET rmr = dc_rmr_iov(&src, n * 64, 64);

		/* collateral: dat_ep_create_with_srq(3DAT) USAGE: the reserved RDMA Read resources serve posted Reads */
		DC_ASSERT_SUCCESS(dat_ep_post_rdma_read(l.rx.ep, 2, iov, dc_cookie(n), &rmr,
							DAT_COMPLETION_DEFAULT_FLAG));
	}
	for (unsigned n = 0; n < 2; n++) {
		DAT_EVENT ev;
		const DAT_DTO_COMPLETION_EVENT_DATA *d;

		DC_ASSERT_EVENT(l.rx.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
		d = &ev.event_data.dto_completion_event_data;
		DC_ASSERT_EQ(d->status, DAT_DTO_SUCCESS);
		DC_ASSERT_LT(d->user_cookie.as_64, 2);
		done[d->user_cookie.as_64] = true;
	}
	for (unsigned n = 0; n < 2; n++) {
		DC_ASSERT(done[n], "RDMA Read %u did not complete", n);
		DC_ASSERT(!memcmp(l.rbuf.buf + n * SLOT, src.buf + n * 64, 32) &&
			  !memcmp(l.rbuf.buf + n * SLOT + 64, src.buf + n * 64 + 32, 32),
			  "RDMA Read %u placed the wrong bytes", n);
	}
}

/*
 * Out of memory (the allocation fault hook): each allocation of 40 creates
 * in a row (on one SRQ, sharing their EVDs) failing in turn, the create
 * gives DAT_INSUFFICIENT_RESOURCES (dat_ep_create_with_srq(3DAT) RETURN
 * VALUES) or an EP on the SRQ; once the EPs and their objects are freed
 * the IA closes gracefully (no refused create left an EP).
 */
struct oom_srq_eps {
	DAT_PZ_HANDLE pz;
	DAT_SRQ_HANDLE srq;
	DAT_EVD_HANDLE recv, req;
	DAT_EP_ATTR attr;
	DAT_EP_HANDLE ep[DC_ALLOC_FAULT_OBJECTS];
	int n;
};

static DAT_RETURN oom_srq_ep_make(struct dc_ctx *t, void *arg)
{
	struct oom_srq_eps *o = arg;

	return dat_ep_create_with_srq(t->ia, o->pz, o->recv, o->req, DAT_HANDLE_NULL, o->srq,
				      &o->attr, &o->ep[o->n]);
}

static void oom_srq_ep_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct oom_srq_eps *o = arg;
	DAT_EP_PARAM p = DC_EP_PARAM(o->ep[o->n]);

	/* collateral: dat_ep_create_with_srq(3DAT) RETURN VALUES: DAT_SUCCESS made the EP asked for, which its query shows */
	DC_ASSERT(p.ep_state == DAT_EP_STATE_UNCONNECTED && p.srq_handle == o->srq &&
		  p.recv_evd_handle == o->recv && p.request_evd_handle == o->req,
		  "an EP made with an allocation failing: state %d, SRQ %p, EVDs %p %p",
		  (int)p.ep_state, p.srq_handle, p.recv_evd_handle, p.request_evd_handle);
	if (keep)
		o->n++;
	else
		DC_CLEANUP(dat_ep_free(o->ep[o->n]));
}

/* Up to DC_ALLOC_FAULT_OBJECTS creates, leaving `spare` of the IA's Max EPs
 * (dat_ia_query(3DAT)) for what the case checks afterwards. */
static void oom_srq_eps_make(struct dc_ctx *t, struct oom_srq_eps *o, DAT_COUNT spare)
{
	struct dc_alloc_call c = { "dat_ep_create_with_srq", oom_srq_ep_make, oom_srq_ep_works, o, NULL };
	int n = dc_within_limit(dc_within_limit(DC_ALLOC_FAULT_OBJECTS,
						dc_limit_less(t->ia_attr.max_eps, spare)),
				t->ia_attr.max_ep_per_srq);

	o->pz = dc_pz(t);
	o->srq = dc_srq(t, o->pz, 8, 1, DAT_SRQ_LW_DEFAULT);
	o->recv = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	o->req = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	dc_ep_attr_default(t, &o->attr);
	o->n = 0;
	for (int i = 0; i < n; i++)
		if (dc_alloc_sweep(t, &c) < 0)
			break;
}

DC_CASE(dat_ep_create_with_srq, out_of_memory,
	.clauses = "dat_ep_create_with_srq.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.requires = "srq_supported",
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES or a working EP, and no EP left behind")
{
	struct oom_srq_eps o;

	oom_srq_eps_make(t, &o, 0);
	for (int i = 0; i < o.n; i++)
		DC_CLEANUP(dat_ep_free(o.ep[i]));
	DC_CLEANUP(dat_srq_free(o.srq));
	DC_CLEANUP(dat_evd_free(o.recv));
	DC_CLEANUP(dat_evd_free(o.req));
	DC_CLEANUP(dat_pz_free(o.pz));
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}

/*
 * The threshold rule of dat_ep_create_with_srq(3DAT) USAGE holds whatever
 * memory the provider could or could not get before: after creates that
 * met failing allocations, threshold_evd_threshold_streams_only's checks.
 */
DC_CASE(dat_ep_create_with_srq, threshold_after_out_of_memory,
	.clauses = "dat_ep_create_with_srq.threshold_evd_threshold_streams_only",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.requires = "srq_supported",
	.summary = "after EP creates met failing allocations, a threshold SRQ Receive stream and a default DTO stream on one EVD are still refused")
{
	struct oom_srq_eps o;

	oom_srq_eps_make(t, &o, 3);	/* threshold_streams_only makes 3 EPs */
	threshold_streams_only(t);
}
