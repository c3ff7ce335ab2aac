/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_create(3DAT): clauses/dat_ep_create.toml.
 * The PZ-access clauses are also checked by the DTO pages' cases
 * (dat_ep_post_*.lmr_pz_mismatch, dat_ep_post_rdma_write.rmr_pz_mismatch).
 */
#include "ep_common.h"

static DAT_EP_ATTR create_attr_request(struct dc_ctx *t)
{
	DAT_EP_ATTR a = ep_attr_unusual(t);

	if (t->prov_attr.completion_flags_supported & DAT_COMPLETION_UNSIGNALLED_FLAG)
		a.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	/* a QoS other than the default one, when the provider has one */
	for (unsigned int bit = 1; bit <= 0x80; bit <<= 1)
		if ((unsigned int)t->prov_attr.dat_qos_supported & bit) {
			a.qos = (DAT_QOS)bit;
			break;
		}
	return a;
}

static DAT_RETURN create(struct dc_ctx *t, DAT_PZ_HANDLE pz, DAT_EVD_HANDLE r,
			 DAT_EVD_HANDLE q, DAT_EVD_HANDLE c, const DAT_EP_ATTR *a,
			 DAT_EP_HANDLE *ep)
{
	*ep = DAT_HANDLE_NULL;
	return dat_ep_create(t->ia, pz, r, q, c, a, ep);
}

DC_CASE(dat_ep_create, returns_handle,
	.summary = "a successful create returns a live EP handle")
{
	DAT_EP_HANDLE ep;
	DAT_HANDLE_TYPE ty = (DAT_HANDLE_TYPE)-1;
	DAT_EP_PARAM p;

	DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);

	/* real EVDs: NULL ones with the default DTO queues are a combination
	 * a provider may refuse (dat_ep_create(3DAT) RETURN VALUES) */
	DC_ASSERT_SUCCESS(create(t, dc_pz(t), dto, dto, dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG),
				 NULL, &ep));
	/* collateral: dat_ep_create(3DAT) DESCRIPTION: the handle handed back is an Endpoint's */
	DC_ASSERT_SUCCESS(dat_get_handle_type(ep, &ty));
	DC_ASSERT_EQ(ty, DAT_HANDLE_TYPE_EP);
	/* collateral: dat_ep_create(3DAT) DESCRIPTION: the handle names a live Endpoint, which answers its query */
	DC_ASSERT_SUCCESS(dat_ep_query(ep, DAT_EP_FIELD_ALL, &p));
}

/*
 * The clause's own dat_ep_create, checked (not a fixture): a PZ and three
 * EVDs of the right kinds, attributes within the IA's limits
 * (dc_ep_attr_default); DAT_INSUFFICIENT_RESOURCES is not demonstrated.
 */
static void created_endpoint(struct dc_ctx *t, struct dc_endpoint *e)
{
	DAT_EP_ATTR a;

	memset(e, 0, sizeof(*e));
	dc_ep_attr_default(t, &a);
	e->pz = dc_pz(t);
	e->recv_evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	e->req_evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	e->conn_evd = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(create(t, e->pz, e->recv_evd, e->req_evd, e->conn_evd,
					      &a, &e->ep));
}

DC_CASE(dat_ep_create, initial_state_unconnected,
	.summary = "a new EP is Unconnected")
{
	struct dc_endpoint e;
	DAT_EP_PARAM p;

	created_endpoint(t, &e);
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
	memset(&p, 0xA5, sizeof(p));
	/* collateral: dat_ep_create(3DAT) DESCRIPTION: the state the EP starts in is what its query reports */
	DC_ASSERT_SUCCESS(dat_ep_query(e.ep, DAT_EP_FIELD_EP_STATE, &p));
	DC_ASSERT_EQ(p.ep_state, DAT_EP_STATE_UNCONNECTED);
}

DC_CASE(dat_ep_create, handles_recorded,
	.summary = "the EP reports the IA, PZ and EVDs it was created with")
{
	struct dc_endpoint e;
	DAT_EP_PARAM p;

	created_endpoint(t, &e);
	p = DC_EP_PARAM(e.ep);
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	DC_ASSERT_PTR_EQ(p.pz_handle, e.pz);
	DC_ASSERT_PTR_EQ(p.recv_evd_handle, e.recv_evd);
	DC_ASSERT_PTR_EQ(p.request_evd_handle, e.req_evd);
	DC_ASSERT_PTR_EQ(p.connect_evd_handle, e.conn_evd);
}

/*
 * dat_ep_create(3DAT) DESCRIPTION: the EP's DTOs may use only LMRs of its PZ.
 * The page promises the restriction, not a code: a post refused (the DTO
 * pages name DAT_PROTECTION_VIOLATION, judged by their own clauses) or a DTO
 * that completes in error without touching the foreign memory both hold.
 * One connection per direction: a Receive's error may break its connection.
 */
DC_CASE(dat_ep_create, pz_limits_local_access,
	.summary = "a Receive into and a Send from an LMR of another PZ are refused or fail, and neither touches or carries its bytes")
{
	struct dc_pair rx, tx;
	struct dc_lmr other, peer_src = { 0 }, peer_dst;
	DAT_LMR_TRIPLET iov;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_EVENT ev;
	DAT_RETURN r;

	dc_pair_up(t, &rx, 0, NULL);
	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &other);
	iov = dc_iov(&other, 0, 64);
	r = dat_ep_post_recv(rx.a.ep, 1, &iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS) {
		dc_note(t, "the Receive was refused: %s", dc_ret_text(r));
	} else {
		dc_lmr(t, rx.b.pz, 4096, DC_PRIV_LOCAL, &peer_src);
		dc_fill(peer_src.buf, 64, 3);
		DC_SETUP(post_send1(rx.b.ep, &peer_src, 0, 64, 2));
		/* the Receive may stay outstanding (the message was not taken); which
		 * event reports a failed one is the DTO pages' clause */
		r = dc_wait_event(t, rx.a.recv_evd, 2000, &ev);
		if (r != DAT_SUCCESS) {
			dc_note(t, "no completion: the Receive stays outstanding");
		} else if (ev.event_number != DAT_DTO_COMPLETION_EVENT) {
			dc_note(t, "%s (0x%x) on the receive EVD", dc_event_name(ev.event_number),
				(unsigned int)ev.event_number);
		} else {
			d = ev.event_data.dto_completion_event_data;
			DC_ASSERT(d.status != DAT_DTO_SUCCESS,
				  "a Receive into an LMR of another PZ completed successfully");
			dc_note(t, "the Receive completed with %s", dc_dto_status_name(d.status));
		}
		DC_ASSERT(dc_first_not(other.buf, 64, 0) < 0,
			  "the peer's bytes reached the LMR of another PZ");
	}

	/* the Receive's pair goes before the Send's (an IA may have few EVDs
	 * and EPs, dat_ia_query(3DAT) Max EVDs, Max EPs) */
	if (peer_src.lmr)
		DC_CLEANUP(dat_lmr_free(peer_src.lmr));
	dc_pair_down(t, &rx);
	dc_pair_up(t, &tx, 0, NULL);
	dc_lmr(t, tx.b.pz, 4096, DC_PRIV_LOCAL, &peer_dst);
	dc_fill(other.buf, 64, 5);
	dc_post_recv(t, tx.b.ep, &peer_dst, 0, 64, 3);
	r = dat_ep_post_send(tx.a.ep, 1, &iov, dc_cookie(4), DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS) {
		dc_note(t, "the Send was refused: %s", dc_ret_text(r));
		return;
	}
	d = DC_ASSERT_DTO_EVENT(tx.a.req_evd);
	DC_ASSERT(d.status != DAT_DTO_SUCCESS,
		  "a Send from an LMR of another PZ completed successfully");
	dc_note(t, "the Send completed with %s", dc_dto_status_name(d.status));
	DC_ASSERT(dc_first_not(peer_dst.buf, 64, 0) < 0,
		  "bytes of the LMR of another PZ reached the peer");
}

DC_CASE(dat_ep_create, pz_limits_remote_access,
	.summary = "the peer cannot RDMA into memory outside the EP's PZ")
{
	static const DAT_RETURN sync[] = { DAT_PROTECTION_VIOLATION, DAT_PRIVILEGES_VIOLATION };
	static const DAT_DTO_COMPLETION_STATUS async[] = { DAT_DTO_ERR_REMOTE_ACCESS };
	struct dc_pair p;
	struct dc_lmr foreign;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	dc_lmr(t, dc_pz(t), 4096, DAT_MEM_PRIV_ALL_FLAG, &foreign);	/* b's IA, not b's PZ */
	memset(foreign.buf, CANARY, 4096);
	dc_fill(p.ma.buf + 0, 64, 1);
	iov = dc_iov(&p.ma, 0, 64);
	rem = dc_rmr_iov(&foreign, 0, 64);
	REFUSED_OR_FAILED(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(1), &rem,
						 DAT_COMPLETION_DEFAULT_FLAG),
			  sync, &p.a, 1, async);
	DC_ASSERT_BYTES_ARE(foreign.buf, 4096, CANARY, "memory outside b's PZ");
}

DC_CASE(dat_ep_create, recv_completions_on_recv_evd,
	.summary = "Receive completions go to the receive EVD only")
{
	struct dc_pair p;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, 1));
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 2));
	d = DC_ASSERT_DTO(p.b.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT_PTR_EQ(d.ep_handle, p.b.ep);
	DC_ASSERT_NO_EVENT(p.b.req_evd);
	DC_ASSERT_NO_EVENT(p.b.conn_evd);
}

DC_CASE(dat_ep_create, request_completions_on_request_evd,
	.summary = "Send, RDMA Write and RDMA Read completions go to the request EVD only")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	DC_SETUP(post_recv1(p.b.ep, &p.mb, 0, 1024, 1));
	DC_SETUP(post_send1(p.a.ep, &p.ma, 0, 64, 11));
	iov = dc_iov(&p.ma, 0, 64);
	rem = dc_rmr_iov(&p.mb, 4096, 64);
	DC_SETUP(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(12), &rem, DAT_COMPLETION_DEFAULT_FLAG));
	iov = dc_iov(&p.ma, 8192, 64);
	DC_SETUP(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(13), &rem, DAT_COMPLETION_DEFAULT_FLAG));
	for (uint64_t c = 11; c <= 13; c++) {
		DAT_DTO_COMPLETION_EVENT_DATA d = DC_ASSERT_DTO(p.a.req_evd, c, DAT_DTO_SUCCESS);

		DC_ASSERT_PTR_EQ(d.ep_handle, p.a.ep);
	}
	DC_ASSERT_NO_EVENT(p.a.recv_evd);
	DC_ASSERT_NO_EVENT(p.a.conn_evd);
}

DC_CASE(dat_ep_create, rmr_bind_completions_on_request_evd,
	.summary = "an RMR bind through the EP completes on its request EVD")
{
	struct dc_pair p;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_CONTEXT ctx;
	DAT_LMR_TRIPLET tr;
	DAT_RMR_COOKIE rc;
	DAT_EVENT ev;

	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	rmr = dc_rmr(t, p.a.pz);
	tr = dc_iov(&p.ma, 0, 256);
	memset(&rc, 0, sizeof(rc));
	rc.as_64 = 0xB1D;
	DC_ASSERT_SUCCESS(dc_dat_rmr_bind(rmr, p.ma.lmr, &tr, DAT_MEM_PRIV_REMOTE_READ_FLAG, p.a.ep, rc,
				       DAT_COMPLETION_DEFAULT_FLAG, &ctx));
	DC_ASSERT_EVENT(p.a.req_evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.rmr_completion_event_data.user_cookie.as_64, 0xB1D);
	DC_ASSERT_NO_EVENT(p.a.recv_evd);
}

DC_CASE(dat_ep_create, connection_events_on_connect_evd,
	.summary = "ESTABLISHED and DISCONNECTED for the EP arrive on its connect EVD")
{
	struct dc_endpoint a, b;
	DAT_RETURN r;
	DAT_CR_HANDLE cr;

	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	b.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(t->ia, &b.conn_qual, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp));
	r = dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, b.conn_qual, dc_case_timeout_us(t), 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	DC_SETUP(r);
	cr = dc_await_cr(t, b.cr_evd, NULL);
	DC_SETUP(dat_cr_accept(cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
	DC_SETUP(dat_ep_disconnect(a.ep, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, a.ep);
	DC_ASSERT_NO_EVENT(a.recv_evd);
	DC_ASSERT_NO_EVENT(a.req_evd);
}

DC_CASE(dat_ep_create, null_evds_allowed,
	.summary = "all three EVDs may be DAT_HANDLE_NULL")
{
	DAT_EP_HANDLE ep;
	DAT_EP_PARAM p;
	DAT_EP_ATTR a;

	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_RETURN r;

	/*
	 * No DTO queues first (no DTOs, no segments): nothing then completes
	 * to an EVD, so only the clause applies. Attributes of the Consumer's
	 * are a combination dat_ep_create(3DAT) RETURN VALUES lets the provider
	 * refuse (DAT_INVALID_PARAMETER), so the provider's own attributes
	 * (ep_attributes NULL, which PARAMETERS allows) come next, then the
	 * default queues; one of them must be taken.
	 */
	dc_ep_attr_no_dtos(t, &a);
	r = create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep);
	if (dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE)) {
		dc_note(t, "with no DTO queues: %s; trying the provider's attributes",
			dc_ret_text(r));
		r = create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL, NULL, &ep);
	}
	if (dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE)) {
		dc_note(t, "with the provider's attributes: %s; trying the default queues",
			dc_ret_text(r));
		dc_ep_attr_default(t, &a);
		r = create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep);
	}
	DC_ASSERT_SUCCESS(r);
	p = DC_EP_PARAM(ep);
	DC_ASSERT_PTR_EQ(p.recv_evd_handle, DAT_HANDLE_NULL);
	DC_ASSERT_PTR_EQ(p.request_evd_handle, DAT_HANDLE_NULL);
	DC_ASSERT_PTR_EQ(p.connect_evd_handle, DAT_HANDLE_NULL);
}

DC_CASE(dat_ep_create, attributes_applied,
	.summary = "the EP starts with the attributes it was created with")
{
	DAT_EP_ATTR a = create_attr_request(t);
	DAT_EP_HANDLE ep = dc_ep(t, dc_pz(t), dc_evd(t, 8, DAT_EVD_DTO_FLAG),
				 dc_evd(t, 8, DAT_EVD_DTO_FLAG),
				 dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG), &a);
	DAT_EP_ATTR q = DC_EP_PARAM(ep).ep_attr;

	assert_attrs_as_asked(t, &q, &a);
}

DC_CASE(dat_ep_create, null_attributes_defaults,
	.summary = "with NULL attributes the provider fills in its defaults")
{
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR q;

	DC_ASSERT_SUCCESS(create(t, dc_pz(t), dc_evd(t, 8, DAT_EVD_DTO_FLAG),
				 dc_evd(t, 8, DAT_EVD_DTO_FLAG),
				 dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG), NULL, &ep));
	q = DC_EP_PARAM(ep).ep_attr;
	DC_ASSERT_EQ(q.service_type, DAT_SERVICE_TYPE_RC);
}

DC_CASE(dat_ep_create, defaults_reasonable,
	.summary = "provider defaults allow at least one Receive and one Request of one segment")
{
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR q;
	DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);

	/* EVDs for the default queues' completions (NULL ones with queues are
	 * a combination a provider may refuse: RETURN VALUES) */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(create(t, dc_pz(t), dto, dto,
					      dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG), NULL, &ep));
	q = DC_EP_PARAM(ep).ep_attr;
	dc_note(t, "defaults: msg %llu rdma %llu recv %d/%d iov request %d/%d iov rdma_read in/out %d/%d",
		(unsigned long long)q.max_message_size, (unsigned long long)q.max_rdma_size,
		(int)q.max_recv_dtos, (int)q.max_recv_iov, (int)q.max_request_dtos,
		(int)q.max_request_iov, (int)q.max_rdma_read_in, (int)q.max_rdma_read_out);
	DC_ASSERT_GE(q.max_recv_dtos, 1);
	DC_ASSERT_GE(q.max_request_dtos, 1);
	DC_ASSERT_GE(q.max_recv_iov, 1);
	DC_ASSERT_GE(q.max_request_iov, 1);
	DC_ASSERT_GE(q.max_message_size, 1);
}

DC_CASE(dat_ep_create, usage_created_unconnected,
	.summary = "a fresh EP can connect, accept a request without EP, and back an RSP",
	.flags = DC_NO_DTOS)
{
	struct dc_endpoint a, b, c;
	DAT_CR_HANDLE cr;
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;
	DAT_RETURN r;

	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	dc_endpoint(t, &c, NULL);
	b.cr_evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(t->ia, &b.conn_qual, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp));
	/* collateral: dat_ep_create(3DAT) USAGE: a created EP can connect at once */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, b.conn_qual,
					 dc_case_timeout_us(t), 0, NULL, DAT_QOS_BEST_EFFORT,
					 DAT_CONNECT_DEFAULT_FLAG));
	cr = dc_await_cr(t, b.cr_evd, NULL);
	/* collateral: dat_ep_create(3DAT) USAGE: a created EP can accept a request that came without an EP */
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
	/*
	 * A freshly probed qualifier: dat_psp_free(3DAT) does not say when the
	 * probe's freed PSP leaves it (DC_ON_PROBED_QUAL); scm-rxe0 answered
	 * DAT_CONN_QUAL_IN_USE there once in the certification of 2026-11-28.
	 */
	q = dc_free_conn_qual(t);
	/* collateral: dat_ep_create(3DAT) USAGE: a created EP can back a Reserved Service Point */
	DC_ON_PROBED_QUAL(r, dat_rsp_create(t->ia, q, c.ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &rsp));
	DC_ASSERT_SUCCESS(r);
}

/*
 * dat_ep_create(3DAT) USAGE: every stream on an EVD an unsignalled stream
 * uses must have the same flags, whichever comes first, and whether the
 * streams are two EPs' or one EP's Receive and Request streams.
 */
/* A recv EVD of the EP's own, so that its Receive stream shares no EVD (and
 * no provider need refuse Receive DTOs without an EVD). */
static DAT_EVD_HANDLE own_recv_evd(struct dc_ctx *t)
{
	return dc_evd(t, 16, DAT_EVD_DTO_FLAG);
}

static void flags_must_match(struct dc_ctx *t)
{
	DAT_EP_ATTR dflt, unsig;
	DAT_EVD_HANDLE x = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE y = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE z = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE own[6];
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EP_HANDLE ep, on_x, on_y;

	for (int i = 0; i < 6; i++)
		own[i] = own_recv_evd(t);
	dc_ep_attr_default(t, &dflt);
	unsig = dflt;
	unsig.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	/* the unsignalled stream first */
	on_x = dc_ep(t, pz, own[0], x, DAT_HANDLE_NULL, &unsig);
	DC_ASSERT_RET(create(t, pz, own[1], x, DAT_HANDLE_NULL, &dflt, &ep),
		      DAT_INVALID_PARAMETER);
	/* the default stream first */
	on_y = dc_ep(t, pz, own[2], y, DAT_HANDLE_NULL, &dflt);
	DC_ASSERT_RET(create(t, pz, own[3], y, DAT_HANDLE_NULL, &unsig, &ep),
		      DAT_INVALID_PARAMETER);
	/* one EP: default Receive and unsignalled Request streams on one EVD */
	DC_ASSERT_RET(create(t, pz, z, z, DAT_HANDLE_NULL, &unsig, &ep), DAT_INVALID_PARAMETER);
	/* an EP's default Request stream moved onto x by dat_ep_modify */
	{
		struct dc_snap before;
		DAT_EP_PARAM nv;

		ep = dc_ep(t, pz, own[4], own[5], DAT_HANDLE_NULL, &dflt);
		nv = dc_ep_param(t, ep);
		nv.request_evd_handle = x;
		dc_snapshot(t, DC_OBJ_EP, ep, &before);
		/* collateral: dat_ep_create(3DAT) USAGE: the Consumer cannot give a request EVD flags that do not match the other streams on it */
		DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE, &nv),
			      DAT_INVALID_PARAMETER);
		DC_ASSERT_UNCHANGED(&before);
	}
	/* its objects go before the checks that may follow in the same case
	 * (an IA may have few EPs and EVDs, Max EPs and Max EVDs,
	 * dat_ia_query(3DAT)) */
	DC_CLEANUP(dat_ep_free(ep));
	DC_CLEANUP(dat_ep_free(on_y));
	DC_CLEANUP(dat_ep_free(on_x));
	for (int i = 0; i < 6; i++)
		DC_CLEANUP(dat_evd_free(own[i]));
	DC_CLEANUP(dat_evd_free(x));
	DC_CLEANUP(dat_evd_free(y));
	DC_CLEANUP(dat_evd_free(z));
	DC_CLEANUP(dat_pz_free(pz));
}

DC_CASE(dat_ep_create, shared_evd_flags_must_match,
	.summary = "streams sharing an EVD with an unsignalled stream must use the same flags",
	.requires = "completion_flags_supported&4")
{
	flags_must_match(t);
}

/*
 * dat_ep_create(3DAT) USAGE: the sharing rules are about the streams that use
 * the EVD when the call is made.  A freed EP's streams, and a stream
 * dat_ep_modify moved to another EVD or other flags, no longer use it; every
 * stream still there does, however many others came and went.  The EPs
 * whose Request stream the case looks at have no Receive stream where the
 * provider takes that (an IA may have only a dozen EVDs), else one on an
 * EVD of their own.
 */
struct sharing {
	DAT_PZ_HANDLE pz;
	int recv_evd_needed;	/* -1: not known yet */
};

static DAT_EP_ATTR with_flags(struct dc_ctx *t, DAT_COMPLETION_FLAGS recv, DAT_COMPLETION_FLAGS req)
{
	DAT_EP_ATTR a;

	dc_ep_attr_default(t, &a);
	a.recv_completion_flags = recv;
	a.request_completion_flags = req;
	return a;
}

/* dat_ep_create of an EP whose Request stream, flags @f, uses @evd. */
static DAT_RETURN create_request_ep(struct dc_ctx *t, struct sharing *sh, DAT_EVD_HANDLE evd,
				    DAT_COMPLETION_FLAGS f, DAT_EP_HANDLE *ep)
{
	DAT_EP_ATTR a = with_flags(t, DAT_COMPLETION_DEFAULT_FLAG, f);
	DAT_EP_ATTR no_recv = a;
	DAT_RETURN r;

	no_recv.max_recv_dtos = 0;
	no_recv.max_recv_iov = 0;
	if (sh->recv_evd_needed == 1)
		return create(t, sh->pz, own_recv_evd(t), evd, DAT_HANDLE_NULL, &a, ep);
	r = create(t, sh->pz, DAT_HANDLE_NULL, evd, DAT_HANDLE_NULL, &no_recv, ep);
	if (sh->recv_evd_needed == -1) {
		sh->recv_evd_needed = r != DAT_SUCCESS;
		if (r != DAT_SUCCESS) {
			dc_note(t, "an EP without Receive stream was refused (%s): each gets a recv EVD",
				dc_ret_text(r));
			return create_request_ep(t, sh, evd, f, ep);
		}
	}
	return r;
}

/* Set-up: such an EP. */
static DAT_EP_HANDLE request_on(struct dc_ctx *t, struct sharing *sh, DAT_EVD_HANDLE evd,
				DAT_COMPLETION_FLAGS f)
{
	DAT_EP_HANDLE ep;

	DC_SETUP(create_request_ep(t, sh, evd, f, &ep));
	return ep;
}

/* The create the clause judges: such an EP (freed again when made). */
static DAT_RETURN try_request_on(struct dc_ctx *t, struct sharing *sh, DAT_EVD_HANDLE evd,
				 DAT_COMPLETION_FLAGS f)
{
	DAT_EP_HANDLE ep;
	DAT_RETURN r = create_request_ep(t, sh, evd, f, &ep);

	if (r == DAT_SUCCESS)
		DC_CLEANUP(dat_ep_free(ep));
	return r;
}

/* dat_ep_modify of @ep's Request stream to @evd with flags @f. */
static DAT_RETURN move_request(struct dc_ctx *t, DAT_EP_HANDLE ep, DAT_EVD_HANDLE evd,
			       DAT_COMPLETION_FLAGS f)
{
	DAT_EP_PARAM nv = dc_ep_param(t, ep);

	nv.request_evd_handle = evd;
	nv.ep_attr.request_completion_flags = f;
	return dat_ep_modify(ep, DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				     DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, &nv);
}

/* A modify the rules refuse: DAT_INVALID_PARAMETER and @ep unchanged. */
#define ASSERT_MOVE_REFUSED(ep, evd, f)						\
	do {									\
		struct dc_snap before_;						\
										\
		dc_snapshot(t, DC_OBJ_EP, (ep), &before_);			\
		DC_ASSERT_RET(move_request(t, (ep), (evd), (f)), DAT_INVALID_PARAMETER); \
		DC_ASSERT_UNCHANGED(&before_);					\
	} while (0)

static void current_streams(struct dc_ctx *t)
{
	const DAT_COMPLETION_FLAGS U = DAT_COMPLETION_UNSIGNALLED_FLAG, D = DAT_COMPLETION_DEFAULT_FLAG;
	struct sharing sh = { dc_pz(t), -1 };
	DAT_EVD_HANDLE x = dc_evd(t, 16, DAT_EVD_DTO_FLAG), z = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE u = dc_evd(t, 16, DAT_EVD_DTO_FLAG), w = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE v = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EP_HANDLE ep1, ep2, ep3, ep4;
	DAT_EP_ATTR a;
	DAT_RETURN r;

	/* two unsignalled Request streams on x: neither may turn default
	 * (before any EP is freed: a provider may handle the first free on an
	 * IA apart) */
	ep3 = request_on(t, &sh, x, U);
	ep4 = request_on(t, &sh, x, U);
	dc_note(t, "x: EP3 and EP4 unsignalled; EP4's flags changed to default");
	ASSERT_MOVE_REFUSED(ep4, x, D);

	/* a Receive stream and a Request stream on z: once the Receive stream's
	 * EP is freed, the Request stream is alone there and takes any flags */
	a = with_flags(t, D, D);
	a.max_request_dtos = 0;		/* EP1: no Request stream, where the provider allows it */
	if (create(t, sh.pz, z, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep1) != DAT_SUCCESS)
		ep1 = dc_ep(t, sh.pz, z, dc_evd(t, 16, DAT_EVD_DTO_FLAG), DAT_HANDLE_NULL, &a);
	ep2 = request_on(t, &sh, z, D);
	DC_SETUP(dat_ep_free(ep1));
	dc_note(t, "z: EP1's default Receive stream freed; EP2's default Request stream turned unsignalled");
	DC_ASSERT_SUCCESS(move_request(t, ep2, z, U));
	DC_SETUP(dat_ep_free(ep2));
	if (t->prov_attr.completion_flags_supported & DAT_COMPLETION_SOLICITED_WAIT_FLAG) {
		dc_note(t, "z: every EP freed; a solicited-wait Receive stream created on z");
		a = with_flags(t, DAT_COMPLETION_SOLICITED_WAIT_FLAG, D);
		a.max_request_dtos = 0;
		r = create(t, sh.pz, z, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep1);
		DC_ASSERT_SUCCESS_UNLESS_SHORT(r);
	}

	/* EP3 freed: EP4's unsignalled stream still uses x */
	DC_SETUP(dat_ep_free(ep3));
	dc_note(t, "x: EP3 freed, EP4 unsignalled; a default Request stream created on x");
	DC_ASSERT_RET(try_request_on(t, &sh, x, D), DAT_INVALID_PARAMETER);
	dc_note(t, "x: EP4 unsignalled; EP5's unsignalled stream on w moved to x as default");
	ep1 = request_on(t, &sh, w, U);
	ASSERT_MOVE_REFUSED(ep1, x, D);
	/* EP4 freed too: nothing uses x */
	DC_SETUP(dat_ep_free(ep4));
	dc_note(t, "x: EP3 and EP4 freed; a default Request stream created on x");
	DC_ASSERT_SUCCESS_UNLESS_SHORT(try_request_on(t, &sh, x, D));

	/* a stream moved by dat_ep_modify uses the EVD it went to, not the one it left */
	ep1 = request_on(t, &sh, u, D);
	dc_note(t, "EP6's default Request stream moved from u to v");
	DC_ASSERT_SUCCESS(move_request(t, ep1, v, D));
	dc_note(t, "v: EP6 default; an unsignalled Request stream created on v");
	DC_ASSERT_RET(try_request_on(t, &sh, v, U), DAT_INVALID_PARAMETER);
	dc_note(t, "u: left by EP6; an unsignalled Request stream created on u");
	DC_ASSERT_SUCCESS_UNLESS_SHORT(try_request_on(t, &sh, u, U));

	/* EP8's Request stream taken off its EVD (DAT_HANDLE_NULL), then put back */
	(void)request_on(t, &sh, u, U);	/* EP7; u: the unsignalled stream made above was freed */
	ep2 = request_on(t, &sh, u, U);
	r = move_request(t, ep2, DAT_HANDLE_NULL, U);
	if (r != DAT_SUCCESS) {
		dc_note(t, "a Request stream without an EVD was refused (%s): not judged", dc_ret_text(r));
		return;
	}
	dc_note(t, "u: EP7 and EP8 unsignalled; EP8's Request stream, off u, put back as default");
	ASSERT_MOVE_REFUSED(ep2, u, D);
}

DC_CASE(dat_ep_create, shared_evd_current_streams,
	.summary = "the sharing rules weigh the streams on the EVD at the call: freed and moved streams stop counting, the others still count",
	.requires = "completion_flags_supported&4")
{
	current_streams(t);
}

DC_CASE(dat_ep_create, mixed_stream_evd_threshold_only,
	.summary = "on an EVD that also takes connection (or, where the IA merges those not, CR) events only threshold flags are allowed",
	.requires = "completion_flags_supported&4")
{
	DAT_EP_ATTR a;
	DAT_EVD_FLAGS other = DAT_EVD_CONNECTION_FLAG;
	DAT_EVD_HANDLE x;
	DAT_EP_HANDLE ep;

	/* the other stream on the EVD: connection where the IA's merging
	 * matrix allows it beside DTOs (dat_ia_query(3DAT)), else CR */
	if (!dc_streams_merge(t, DAT_EVD_DTO_FLAG | other)) {
		other = DAT_EVD_CR_FLAG;
		dc_note(t, "DTO and connection streams share no EVD on this IA: the EVD carries CR events instead");
	}
	DC_NEED_STREAMS_MERGE(DAT_EVD_DTO_FLAG | other);
	x = dc_evd(t, 16, DAT_EVD_DTO_FLAG | other);
	dc_ep_attr_default(t, &a);
	a.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	a.max_recv_dtos = 0;		/* no recv EVD: the refusal is the flags' alone */
	DC_ASSERT_RET(create(t, dc_pz(t), DAT_HANDLE_NULL, x,
			     other == DAT_EVD_CONNECTION_FLAG ? x : DAT_HANDLE_NULL, &a, &ep),
		      DAT_INVALID_PARAMETER);
}

static void solicited_wait_exclusive(struct dc_ctx *t)
{
	DAT_EP_ATTR a1, a2;
	DAT_EVD_HANDLE x = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EP_HANDLE ep;

	/* a stream with no EVD has no DTOs (a provider may refuse DTOs whose
	 * completions have nowhere to go: dat_ep_create(3DAT) RETURN VALUES),
	 * so each refusal below is the solicited-wait rule's alone */
	dc_ep_attr_default(t, &a1);
	a1.recv_completion_flags = DAT_COMPLETION_SOLICITED_WAIT_FLAG;
	a1.max_request_dtos = 0;
	dc_ep(t, pz, x, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a1);
	dc_ep_attr_default(t, &a2);
	a2.max_recv_dtos = 0;
	DC_ASSERT_RET(create(t, pz, DAT_HANDLE_NULL, x, DAT_HANDLE_NULL, &a2, &ep),
		      DAT_INVALID_PARAMETER);
	dc_ep_attr_default(t, &a2);
	a2.max_request_dtos = 0;
	DC_ASSERT_RET(create(t, pz, x, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a2, &ep),
		      DAT_INVALID_PARAMETER);
}

DC_CASE(dat_ep_create, solicited_wait_evd_exclusive,
	.summary = "an EVD of solicited-wait Receives takes only Receive streams with those flags",
	.requires = "completion_flags_supported&2")
{
	solicited_wait_exclusive(t);
}

DC_CASE(dat_ep_create, invalid_ia_handle,
	.summary = "an ia_handle that is not an open IA is an invalid handle")
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;

	DC_ASSERT_INVALID_HANDLE(dat_ep_create((DAT_IA_HANDLE)dc_pz(t), dc_pz(t), DAT_HANDLE_NULL,
				    DAT_HANDLE_NULL, DAT_HANDLE_NULL, NULL, &ep), 1, IA);
}

DC_CASE(dat_ep_create, invalid_pz_handle,
	.summary = "a handle of another type as pz_handle is an invalid handle")
{
	DAT_EP_HANDLE ep;

	DC_ASSERT_INVALID_HANDLE(create(t, (DAT_PZ_HANDLE)dc_evd(t, 4, DAT_EVD_DTO_FLAG),
					DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL, NULL,
					&ep), 2, PZ);
}

/* The same for a freed PZ: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_create, invalid_pz_handle_freed,
	.clauses = "dat_ep_create.invalid_pz_handle",
	.summary = "a freed PZ as pz_handle is an invalid handle")
{
	DAT_EP_HANDLE ep;

	DC_ASSERT_INVALID_HANDLE(create(t, dc_freed_pz(t), DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					DAT_HANDLE_NULL, NULL, &ep), 2, PZ);
}

DC_CASE(dat_ep_create, invalid_evd_handle,
	.summary = "a freed EVD in any of the three positions is an invalid handle")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EP_HANDLE ep;

	DC_ASSERT_INVALID_HANDLE(create(t, pz, dc_freed_evd(t, DAT_EVD_DTO_FLAG), DAT_HANDLE_NULL,
					DAT_HANDLE_NULL, NULL, &ep), 3, EVD_RECV);
	DC_ASSERT_INVALID_HANDLE(create(t, pz, DAT_HANDLE_NULL, dc_freed_evd(t, DAT_EVD_DTO_FLAG),
					DAT_HANDLE_NULL, NULL, &ep), 4, EVD_REQUEST);
	DC_ASSERT_INVALID_HANDLE(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					dc_freed_evd(t, DAT_EVD_CONNECTION_FLAG), NULL, &ep),
				 5, EVD_CONN);
}

DC_CASE(dat_ep_create, evd_wrong_kind,
	.summary = "an EVD of the wrong kind for its stream should be refused")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EP_HANDLE ep;

	DC_ASSERT_RET_ANY(create(t, pz, dc_evd(t, 4, DAT_EVD_CR_FLAG), DAT_HANDLE_NULL,
				 DAT_HANDLE_NULL, NULL, &ep),
			  DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER);
	DC_ASSERT_RET_ANY(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				 dc_evd(t, 4, DAT_EVD_DTO_FLAG), NULL, &ep),
			  DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER);
}

/* The DAT_COUNT attributes of an EP and the IA attribute that bounds each. */
static const struct {
	const char *attr, *ia;
	size_t attr_off, ia_off;
} bounded[] = {
#define B(f, l) { #f, #l, offsetof(DAT_EP_ATTR, f), offsetof(DAT_IA_ATTR, l) }
	B(max_request_dtos, max_dto_per_ep),
	B(max_request_iov, max_iov_segments_per_dto),
	B(max_rdma_read_in, max_rdma_read_per_ep_in),
	B(max_rdma_read_out, max_rdma_read_per_ep_out),
	B(max_rdma_read_iov, max_iov_segments_per_rdma_read),
	B(max_rdma_write_iov, max_iov_segments_per_rdma_write),
#undef B
};

/* Clause: an EP with attributes exactly at the IA's limits is created (or
 * refused for resources only, which ends the case not demonstrated). */
struct limit_evds {
	DAT_EVD_HANDLE dto, conn;
};
static void create_at_limit(struct dc_ctx *t, DAT_PZ_HANDLE pz, const struct limit_evds *ev,
			    const DAT_EP_ATTR *a, const char *what)
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_RETURN r;

	/* with DTO EVDs: a NULL one with DTOs allowed may be refused
	 * (dat_ep_create(3DAT)); each EP is freed again */
	r = create(t, pz, ev->dto, ev->dto, ev->conn, a, &ep);

	dc_note(t, "%s", what);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(r);
	DC_CLEANUP(dat_ep_free(ep));
}

DC_CASE(dat_ep_create, invalid_attributes,
	.summary = "invalid or over-limit attributes are refused and create nothing")
{
	const DAT_IA_ATTR *ia = &t->ia_attr;
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EP_HANDLE ep;
	DAT_EP_ATTR a;
	const struct limit_evds lev = {
		dc_evd(t, 8, DAT_EVD_DTO_FLAG), dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG),
	};

	dc_ep_attr_default(t, &a);
	a.service_type = (DAT_SERVICE_TYPE)7;
	DC_ASSERT_RET(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep),
		      DAT_INVALID_PARAMETER);
	/* negative counts: of Receives, of transport- and of provider-specific attributes */
	for (int i = 0; i < 3; i++) {
		dc_note(t, "%s -1", i == 0 ? "max_recv_dtos" : i == 1 ? "ep_transport_specific_count"
									: "ep_provider_specific_count");
		dc_ep_attr_default(t, &a);
		*(i == 0 ? &a.max_recv_dtos : i == 1 ? &a.ep_transport_specific_count
						      : &a.ep_provider_specific_count) = -1;
		DC_ASSERT_RET(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep),
			      DAT_INVALID_PARAMETER);
	}
	if (ia->max_dto_per_ep > 0 && ia->max_dto_per_ep < INT32_MAX) {
		dc_ep_attr_default(t, &a);
		a.max_recv_dtos = ia->max_dto_per_ep + 1;
		DC_ASSERT_RET_ANY(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					 &a, &ep),
				  DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES);
	}
	if (ia->max_iov_segments_per_dto > 0 && ia->max_iov_segments_per_dto < INT32_MAX) {
		dc_ep_attr_default(t, &a);
		a.max_recv_iov = ia->max_iov_segments_per_dto + 1;
		DC_ASSERT_RET_ANY(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					 &a, &ep),
				  DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES);
	}
	if (ia->max_message_size && DC_BELOW_TYPE_MAX(ia->max_message_size)) {
		dc_ep_attr_default(t, &a);
		a.max_message_size = ia->max_message_size + 1;
		DC_ASSERT_RET_ANY(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					 &a, &ep),
				  DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES);
	}
	if (ia->max_rdma_size && DC_BELOW_TYPE_MAX(ia->max_rdma_size)) {
		/* dat_ia_query(3DAT): Max RDMA size is the largest an EP supports */
		dc_ep_attr_default(t, &a);
		a.max_rdma_size = ia->max_rdma_size + 1;
		dc_note(t, "max_rdma_size = the IA's max_rdma_size + 1");
		DC_ASSERT_RET_ANY(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					 &a, &ep),
				  DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES);
	}
	/* the other side of each limit: exactly the IA's maximum is a valid
	 * attribute (dat_ia_query(3DAT): the most an EP supports), so it is not
	 * refused as a parameter (DAT_INSUFFICIENT_RESOURCES: not demonstrated) */
	if (ia->max_dto_per_ep > 0) {
		dc_ep_attr_default(t, &a);
		a.max_recv_dtos = ia->max_dto_per_ep;
		create_at_limit(t, pz, &lev, &a, "max_recv_dtos = max_dto_per_ep");
	}
	if (ia->max_iov_segments_per_dto > 0) {
		dc_ep_attr_default(t, &a);
		a.max_recv_iov = ia->max_iov_segments_per_dto;
		create_at_limit(t, pz, &lev, &a, "max_recv_iov = max_iov_segments_per_dto");
	}
	if (ia->max_message_size) {
		dc_ep_attr_default(t, &a);
		a.max_message_size = ia->max_message_size;
		create_at_limit(t, pz, &lev, &a, "max_message_size = the IA's max_message_size");
	}
	if (ia->max_rdma_size) {
		dc_ep_attr_default(t, &a);
		a.max_rdma_size = ia->max_rdma_size;
		create_at_limit(t, pz, &lev, &a, "max_rdma_size = the IA's max_rdma_size");
	}
	/* every other attribute the IA bounds, one above (refused) and at the
	 * limit (created): dat_ia_query(3DAT) Max DTOs per EP, Max IOV segments
	 * per DTO / per RDMA Read / per RDMA Write, Max incoming / outgoing RDMA
	 * Reads per EP */
	for (size_t i = 0; i < sizeof(bounded) / sizeof(bounded[0]); i++) {
		DAT_COUNT lim = *(const DAT_COUNT *)((const char *)ia + bounded[i].ia_off);
		char what[96];

		if (lim <= 0)
			continue;
		if (lim < INT32_MAX) {
			dc_ep_attr_default(t, &a);
			*(DAT_COUNT *)((char *)&a + bounded[i].attr_off) = lim + 1;
			dc_note(t, "%s = %s + 1", bounded[i].attr, bounded[i].ia);
			DC_ASSERT_RET_ANY(create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
						 &a, &ep),
					  DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES);
		}
		dc_ep_attr_default(t, &a);
		*(DAT_COUNT *)((char *)&a + bounded[i].attr_off) = lim;
		snprintf(what, sizeof(what), "%s = %s", bounded[i].attr, bounded[i].ia);
		create_at_limit(t, pz, &lev, &a, what);
	}
}

DC_CASE(dat_ep_create, null_ep_handle,
	.summary = "a NULL ep_handle pointer gives DAT_INVALID_PARAMETER")
{
	DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);

	DC_ASSERT_RET(dat_ep_create(t->ia, dc_pz(t), dto, dto, dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG),
				    NULL, NULL),
		      DAT_INVALID_PARAMETER);
}

/*
 * dat_ep_create(3DAT) RETURN VALUES: running out is DAT_INSUFFICIENT_RESOURCES,
 * at max_eps or earlier.  More EPs than the case will make is a bound of its
 * own, said as such (review finding: it was a requirement).  Whether a free
 * makes room again the page does not say: noted, not judged.  The EPs share
 * real EVDs, as NULL EVDs with DTO queues are a combination a provider may
 * refuse.
 */
#define EP_CREATE_BOUND 131072

DC_CASE(dat_ep_create, insufficient_resources,
	.summary = "with max_eps EPs alive (or fewer, if the IA runs out first), one more is refused for lack of resources")
{
	DAT_COUNT max = t->ia_attr.max_eps, n = 0;
	DAT_EP_HANDLE *eps;
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE conn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_RETURN r = DAT_SUCCESS;

	if (max > EP_CREATE_BOUND)
		DC_BEYOND_SUITE_BOUND("131072 EPs", "the IA reports max_eps = %d", (int)max);
	eps = calloc((size_t)(max > 0 ? max : 0) + 1, sizeof(*eps));
	DC_SETUP_ASSERT(eps, "no memory");
	while (n < max) {
		r = dat_ep_create(t->ia, pz, dto, dto, conn, NULL, &eps[n]);
		if (r != DAT_SUCCESS)
			break;
		n++;
	}
	if (n < max)
		dc_note(t, "creation stopped at %d of max_eps %d", (int)n, (int)max);
	else
		r = dat_ep_create(t->ia, pz, dto, dto, conn, NULL, &eps[n]);
	DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	if (n > 0) {
		DC_SETUP(dat_ep_free(eps[n - 1]));
		r = dat_ep_create(t->ia, pz, dto, dto, conn, NULL, &eps[n - 1]);
		dc_note(t, "after one free, dat_ep_create returned %s (not judged)", dc_ret_text(r));
	}
	free(eps);
}

/*
 * The other side of model_not_supported: a QoS the Provider announces in
 * dat_qos_supported (dat_ia_query(3DAT)) is a model it offers, so an EP
 * asking for it is not refused as an unsupported model.
 */
DC_CASE(dat_ep_create, supported_qos_not_refused,
	.summary = "an EP asking for any one QoS of dat_qos_supported is not refused with DAT_MODEL_NOT_SUPPORTED")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EP_ATTR a;
	DAT_EP_HANDLE ep;

	for (unsigned int bit = 1; bit <= 0x80; bit <<= 1) {
		DAT_RETURN r;

		if (!((unsigned int)t->prov_attr.dat_qos_supported & bit))
			continue;
		dc_ep_attr_default(t, &a);
		a.qos = (DAT_QOS)bit;
		r = create(t, pz, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a, &ep);
		DC_ASSERT(DAT_GET_TYPE(r) != DAT_MODEL_NOT_SUPPORTED,
			  "qos 0x%x, announced in dat_qos_supported 0x%x, refused: %s", bit,
			  (unsigned int)t->prov_attr.dat_qos_supported, dc_ret_text(r));
		if (r == DAT_SUCCESS)
			DC_CLEANUP(dat_ep_free(ep));
	}
}

DC_CASE(dat_ep_create, model_not_supported,
	.summary = "a QoS outside dat_qos_supported is refused",
	.requires = "dat_qos_supported<15")
{
	DAT_QOS all = DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY | DAT_QOS_ECONOMY |
		      DAT_QOS_PREMIUM;
	DAT_QOS missing = all & ~t->prov_attr.dat_qos_supported;
	DAT_EP_ATTR a;
	DAT_EP_HANDLE ep;

	DC_SETUP_ASSERT(missing, "no unsupported QoS bit");
	dc_ep_attr_default(t, &a);
	a.qos = missing & -missing;
	DC_ASSERT_RET_ANY(create(t, dc_pz(t), DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
				 &a, &ep),
			  DAT_MODEL_NOT_SUPPORTED, DAT_INVALID_PARAMETER);
}

/*
 * Out of memory (the allocation fault hook): each allocation of 40 creates
 * in a row failing in turn, the create returns DAT_INSUFFICIENT_RESOURCES
 * (dat_ep_create(3DAT) RETURN VALUES) or an EP that works (Unconnected,
 * its query naming what it was given); once the EPs made and their objects
 * are freed, the IA closes gracefully: no refused create left an EP.  The
 * EPs share their EVDs, so the provider's bookkeeping of streams per EVD
 * meets the failures too.
 */
struct oom_eps {
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE recv, req, conn;
	DAT_EP_HANDLE ep[DC_ALLOC_FAULT_OBJECTS];
	int n;
};

static DAT_RETURN oom_ep_make(struct dc_ctx *t, void *arg)
{
	struct oom_eps *o = arg;

	return dat_ep_create(t->ia, o->pz, o->recv, o->req, o->conn, NULL, &o->ep[o->n]);
}

static void oom_ep_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct oom_eps *o = arg;
	DAT_EP_PARAM p = DC_EP_PARAM(o->ep[o->n]);

	/* collateral: dat_ep_create(3DAT) RETURN VALUES: DAT_SUCCESS made the EP asked for, which its query shows */
	DC_ASSERT(p.ep_state == DAT_EP_STATE_UNCONNECTED && p.pz_handle == o->pz &&
		  p.recv_evd_handle == o->recv && p.request_evd_handle == o->req &&
		  p.connect_evd_handle == o->conn,
		  "an EP made with an allocation failing: state %d, PZ %p, EVDs %p %p %p",
		  (int)p.ep_state, p.pz_handle, p.recv_evd_handle, p.request_evd_handle,
		  p.connect_evd_handle);
	if (keep)
		o->n++;
	else
		DC_CLEANUP(dat_ep_free(o->ep[o->n]));
}

/* Sweeps up to DC_ALLOC_FAULT_OBJECTS creates, leaving `spare` of the IA's
 * Max EPs (dat_ia_query(3DAT)) for what the case checks afterwards. */
static void oom_eps_make(struct dc_ctx *t, struct oom_eps *o, DAT_COUNT spare)
{
	struct dc_alloc_call c = { "dat_ep_create", oom_ep_make, oom_ep_works, o, NULL };
	int n = dc_within_limit(DC_ALLOC_FAULT_OBJECTS, dc_limit_less(t->ia_attr.max_eps, spare));

	o->pz = dc_pz(t);
	o->recv = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	o->req = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	o->conn = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	o->n = 0;
	for (int i = 0; i < n; i++)
		if (dc_alloc_sweep(t, &c) < 0)
			break;
}

/* The sweep's EPs and EVDs; its PZ stays. */
static void oom_eps_down_keep_pz(struct dc_ctx *t, struct oom_eps *o)
{
	for (int i = 0; i < o->n; i++)
		DC_CLEANUP(dat_ep_free(o->ep[i]));
	o->n = 0;
	DC_CLEANUP(dat_evd_free(o->recv));
	DC_CLEANUP(dat_evd_free(o->req));
	DC_CLEANUP(dat_evd_free(o->conn));
}

static void oom_eps_free(struct dc_ctx *t, struct oom_eps *o)
{
	oom_eps_down_keep_pz(t, o);
	DC_CLEANUP(dat_pz_free(o->pz));
}

DC_CASE(dat_ep_create, out_of_memory,
	.clauses = "dat_ep_create.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES or a working EP, and no EP left behind")
{
	struct oom_eps o;

	oom_eps_make(t, &o, 0);
	oom_eps_free(t, &o);
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}

/*
 * The EVD sharing rules of dat_ep_create(3DAT) USAGE hold whatever memory
 * the provider could or could not get before: after creates that met
 * failing allocations (and succeeded or not), an unsignalled stream on an
 * EVD nobody else uses is taken, and the sharing checks of
 * shared_evd_flags_must_match, shared_evd_current_streams and
 * solicited_wait_evd_exclusive (where solicited-wait is supported) hold
 * again.
 */
DC_CASE(dat_ep_create, shared_evd_after_out_of_memory,
	.clauses = "dat_ep_create.shared_evd_flags_must_match dat_ep_create.shared_evd_current_streams "
		   "dat_ep_create.solicited_wait_evd_exclusive",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "after EP creates met failing allocations, streams sharing an EVD with an unsignalled stream must still use the same flags",
	.requires = "completion_flags_supported&4")
{
	struct oom_eps o;

	/* the checks below make EPs and EVDs of their own: a provider with few
	 * EPs (Max EPs, dat_ia_query(3DAT)) sweeps fewer creates, and frees
	 * what the sweep kept before them (they share no EVD with the checks);
	 * one with few EVDs (Max EVDs) frees the sweep's EVDs too */
	oom_eps_make(t, &o, 6);
	if (t->ia_attr.max_evds > 0 && t->ia_attr.max_evds < 32) {
		dc_note(t, "max_evds %d: the sweep's %d EPs and its EVDs are freed before the checks",
			(int)t->ia_attr.max_evds, o.n);
		oom_eps_down_keep_pz(t, &o);
	} else if (t->ia_attr.max_eps > 0 && t->ia_attr.max_eps < DC_ALLOC_FAULT_OBJECTS + 16) {
		dc_note(t, "max_eps %d: the %d EPs the sweep kept are freed before the checks",
			(int)t->ia_attr.max_eps, o.n);
		for (int i = 0; i < o.n; i++)
			DC_CLEANUP(dat_ep_free(o.ep[i]));
		o.n = 0;
	}
	DC_FOR_CLAUSE("dat_ep_create.shared_evd_flags_must_match");
	/* an unsignalled Request stream on an EVD of its own shares nothing
	 * with the default streams made above: it is taken */
	{
		DAT_EVD_HANDLE recv = own_recv_evd(t), req = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
		DAT_EP_ATTR unsig;
		DAT_EP_HANDLE ep;

		dc_ep_attr_default(t, &unsig);
		unsig.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
		DC_ASSERT_SUCCESS_UNLESS_SHORT(create(t, o.pz, recv, req, DAT_HANDLE_NULL, &unsig,
						      &ep));
		/* as flags_must_match frees its own */
		DC_CLEANUP(dat_ep_free(ep));
		DC_CLEANUP(dat_evd_free(recv));
		DC_CLEANUP(dat_evd_free(req));
	}
	flags_must_match(t);
	DC_FOR_CLAUSE("dat_ep_create.shared_evd_current_streams");
	current_streams(t);
	if (t->prov_attr.completion_flags_supported & DAT_COMPLETION_SOLICITED_WAIT_FLAG) {
		DC_FOR_CLAUSE("dat_ep_create.solicited_wait_evd_exclusive");
		solicited_wait_exclusive(t);
	}
}

/*
 * dat_ep_create(3DAT) ATTRIBUTES: MT-Level Safe.  Threads create EPs at
 * the same time, four on the case's IA and four on IAs they opened
 * themselves (dat_ia_open is Safe too), with the provider's default
 * attributes, on a PZ and EVDs of their IA made beforehand (serially:
 * dat_evd_create is on no page that calls it Safe); rounds for 0.7 s
 * (at least 2), so later
 * rounds reuse what the frees of the round before gave back.
 */
static DAT_RETURN ep_crowd_make(struct dc_crowd_worker *w, int i, DAT_HANDLE *out)
{
	(void)i;
	return dat_ep_create(w->ia, w->obj[0], w->obj[1], w->obj[1], w->obj[2],
			     NULL, (DAT_EP_HANDLE *)out);
}

DC_CASE(dat_ep_create, mt_safe_concurrent,
	.summary = "8 threads (4 on one IA, 4 on IAs of their own) create up to 200 EPs each at once, rounds for 0.7 s: no error but running out, all distinct, each an EP of its IA and PZ that frees")
{
	static struct dc_crowd c = {
		.what = "dat_ep_create", .per_worker = 200, .round_ms = 150,
		.create = ep_crowd_make,
	};
	DAT_COUNT qlen = dc_within_limit(64, t->ia_attr.max_evd_qlen);

	dc_crowd_init(&c, 4, 4);
	for (struct dc_crowd_worker *w = c.w; w < c.w + c.nw; w++) {
		struct dc_crowd_worker *f = dc_crowd_first_on(&c, w);

		if (f != w) {		/* one PZ and EVD pair per IA */
			memcpy(w->obj, f->obj, sizeof(w->obj));
			continue;
		}
		DC_SETUP(dat_pz_create(w->ia, &w->obj[0]));
		DC_SETUP(dat_evd_create(w->ia, qlen, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
					&w->obj[1]));
		DC_SETUP(dat_evd_create(w->ia, qlen, DAT_HANDLE_NULL,
					DAT_EVD_CONNECTION_FLAG, &w->obj[2]));
	}
	while (dc_crowd_again(&c, 2, 40, 700)) {
		dc_crowd_round(&c);
		DC_ASSERT_CROWD(&c);
		DC_CROWD_EACH(&c, w, k) {
			DAT_EP_PARAM p;

			memset(&p, 0, sizeof(p));
			/* collateral: dat_ep_create(3DAT) ATTRIBUTES: MT-Level Safe, so an EP made beside other threads' creates is an EP of its IA and PZ, as one made alone */
			DC_ASSERT_SUCCESS(dat_ep_query(w->made[k], DAT_EP_FIELD_IA_HANDLE |
						       DAT_EP_FIELD_PZ_HANDLE, &p));
			DC_ASSERT_IA_HANDLE(p.ia_handle, w->ia);
			DC_ASSERT_PTR_EQ(p.pz_handle, w->obj[0]);
		}
		DC_CROWD_EACH(&c, w, k)
			/* collateral: dat_ep_create(3DAT) DESCRIPTION: as above, an unconnected EP that frees */
			DC_ASSERT_SUCCESS(dat_ep_free(w->made[k]));
	}
	dc_crowd_fini(t, &c);
}
