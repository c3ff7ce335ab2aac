/* SPDX-License-Identifier: MIT */
/*
 * dat_psp_create(3DAT): clauses/dat_psp_create.toml.
 * The requesters are EPs of the same IA connecting to its own address.
 */
#include "cm_common.h"

static DAT_PSP_HANDLE psp_on(struct dc_ctx *t, DAT_CONN_QUAL q, DAT_EVD_HANDLE evd,
			     DAT_PSP_FLAGS flags)
{
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_RETURN r;

	DC_ON_PROBED_QUAL(r, dat_psp_create(t->ia, q, evd, flags, &psp));
	DC_ASSERT_SUCCESS(r);
	return psp;
}

/* Clause: a request to q reaches evd (the qualifier is being listened on). */
static DAT_CR_HANDLE expect_request(struct dc_ctx *t, DAT_CONN_QUAL q, DAT_EVD_HANDLE evd,
				    DAT_CR_ARRIVAL_EVENT_DATA *arr)
{
	struct dc_endpoint e;
	DAT_EVENT ev;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(dc_connect_to_self(t, e.ep, q, 0, 0, NULL));
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	if (arr)
		*arr = ev.event_data.cr_arrival_event_data;
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

/* Clause: nobody listens on q (a fresh PSP can take it). */
static void assert_qual_free(struct dc_ctx *t, DAT_CONN_QUAL q)
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_RETURN r;

	DC_ON_PROBED_QUAL(r, dat_psp_create(t->ia, q, evd, DAT_PSP_CONSUMER_FLAG, &psp));
	DC_ASSERT_SUCCESS(r);
	DC_CLEANUP(dat_psp_free(psp));
}

DC_CASE(dat_psp_create, listening_on_return,
	.summary = "once dat_psp_create returns, requests to the qualifier arrive")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp = psp_on(t, q, evd, DAT_PSP_CONSUMER_FLAG);
	DAT_CR_ARRIVAL_EVENT_DATA arr;

	DC_ASSERT(psp != DAT_HANDLE_NULL, "no PSP handle");
	expect_request(t, q, evd, &arr);
	DC_ASSERT_PTR_EQ(arr.sp_handle.psp_handle, psp);
	DC_ASSERT_EQ(arr.conn_qual, q);
}

/*
 * The same while dat_psp_create_any draws from a narrowed space (the
 * provider's test hook): dat_psp_create on a qualifier outside that space
 * still listens on the qualifier asked for.
 */
DC_CASE(dat_psp_create, listening_on_return_narrowed,
	.clauses = "dat_psp_create.listening_on_return",
	.summary = "with dat_psp_create_any's space narrowed, a PSP created outside it listens on its own qualifier",
	.needs = "hook:daplref_test_conn_qual_space")
{
	DAT_CONN_QUAL lo = dc_unprobed_conn_qual();
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_CR_ARRIVAL_EVENT_DATA arr;

	narrow_qual_space(lo, lo + 3);
	DC_SETUP_ASSERT(q < lo || q > lo + 3, "qualifier %llu inside the narrowed space",
			(unsigned long long)q);
	psp = psp_on(t, q, evd, DAT_PSP_CONSUMER_FLAG);
	expect_request(t, q, evd, &arr);
	DC_ASSERT_PTR_EQ(arr.sp_handle.psp_handle, psp);
	DC_ASSERT_EQ(arr.conn_qual, q);
}

DC_CASE(dat_psp_create, persistent,
	.summary = "a PSP keeps listening: three requests, three Connection Requests")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp = psp_on(t, q, evd, DAT_PSP_CONSUMER_FLAG);
	DAT_CR_HANDLE crs[3];

	for (int i = 0; i < 3; i++) {
		DAT_CR_ARRIVAL_EVENT_DATA arr;

		crs[i] = expect_request(t, q, evd, &arr);
		DC_ASSERT_PTR_EQ(arr.sp_handle.psp_handle, psp);
		DC_ASSERT_EQ(arr.conn_qual, q);
		for (int k = 0; k < i; k++)
			DC_ASSERT(crs[k] != crs[i], "requests %d and %d share a CR handle", k, i);
	}
}

DC_CASE(dat_psp_create, backlog_is_evd_qlen,
	.summary = "the PSP's EVD queue length bounds the requests waiting")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 1, DAT_EVD_CR_FLAG);
	DAT_EVD_PARAM ep;
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	struct dc_endpoint extra, late;
	DAT_EVENT ev;

	DC_SETUP(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &ep));
	DC_SETUP_ASSERT(ep.evd_qlen >= 1 && ep.evd_qlen <= 64, "qlen %d", (int)ep.evd_qlen);
	psp_on(t, q, evd, DAT_PSP_CONSUMER_FLAG);
	for (DAT_COUNT i = 0; i < ep.evd_qlen; i++) {
		struct dc_endpoint e;

		dc_endpoint(t, &e, NULL);
		DC_SETUP(dc_connect_to_self(t, e.ep, q, 0, 0, NULL));
	}
	dc_endpoint(t, &extra, NULL);
	DC_SETUP(dc_connect_to_self(t, extra.ep, q, 3000000, 0, NULL));
	DC_ASSERT_CONN_EVENT(extra.conn_evd, DAT_CONNECTION_EVENT_NON_PEER_REJECTED, extra.ep);
	/* Take one request off the queue: a new one fits again. */
	DC_SETUP(dc_wait_event(t, evd, -1, &ev));
	DC_SETUP(dc_dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle, 0, NULL));
	dc_endpoint(t, &late, NULL);
	DC_SETUP(dc_connect_to_self(t, late.ep, q, 0, 0, NULL));
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_REQUEST_EVENT, NULL);
}

DC_CASE(dat_psp_create, consumer_flag_no_ep,
	.summary = "with the consumer flag a request carries no EP")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_CR_PARAM c;

	psp_on(t, q, evd, DAT_PSP_CONSUMER_FLAG);
	memset(&c, 0xA5, sizeof(c));
	/* collateral: dat_psp_create(3DAT) PARAMETERS: no EP comes with the request, which the request's query shows */
	DC_ASSERT_SUCCESS(dat_cr_query(expect_request(t, q, evd, NULL), DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
	DC_ASSERT_PTR_EQ(c.local_ep_handle, DAT_HANDLE_NULL);
}

DC_CASE(dat_psp_create, provider_flag_creates_ep,
	.summary = "with the provider flag each request carries its own Provider EP, TENTATIVE",
	.requires = "ep_creator!=0")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_EP_HANDLE eps[2];

	psp_on(t, q, evd, DAT_PSP_PROVIDER_FLAG);
	for (int i = 0; i < 2; i++) {
		DAT_CR_PARAM c;
		DAT_HANDLE_TYPE ty = (DAT_HANDLE_TYPE)-1;

		memset(&c, 0, sizeof(c));
		/* collateral: dat_psp_create(3DAT) PARAMETERS: an EP comes with each request, which the request's query shows */
		DC_ASSERT_SUCCESS(dat_cr_query(expect_request(t, q, evd, NULL), DAT_CR_FIELD_ALL, &c));
		eps[i] = c.local_ep_handle;
		DC_ASSERT(eps[i] != DAT_HANDLE_NULL, "request %d carries no EP", i);
		/* collateral: dat_psp_create(3DAT) PARAMETERS: what comes with the request is an Endpoint */
		DC_ASSERT_SUCCESS(dat_get_handle_type(eps[i], &ty));
		DC_ASSERT_EQ(ty, DAT_HANDLE_TYPE_EP);
		ASSERT_STATE(eps[i], DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
		cm_assert_ep_remote_is_requester(t, eps[i], &c);
	}
	DC_ASSERT(eps[0] != eps[1], "both requests carry the same EP");
}

DC_CASE(dat_psp_create, flag_unsatisfiable,
	.summary = "a flag the provider cannot honour (per ep_creator) is model-not-supported")
{
	static const DAT_PSP_FLAGS flags[] = { DAT_PSP_CONSUMER_FLAG, DAT_PSP_PROVIDER_FLAG };
	DAT_EP_CREATOR_FOR_PSP cr = t->prov_attr.ep_creator;

	for (int i = 0; i < 2; i++) {
		/* not dc_free_conn_qual: its probe is a consumer-flag PSP, the
		 * very call this clause may find refused */
		DAT_CONN_QUAL q = dc_unprobed_conn_qual();
		DAT_PSP_HANDLE psp;
		bool can = cr == DAT_PSP_CREATES_EP_IFASKED ||
			   (cr == DAT_PSP_CREATES_EP_NEVER && flags[i] == DAT_PSP_CONSUMER_FLAG) ||
			   (cr == DAT_PSP_CREATES_EP_ALWAYS && flags[i] == DAT_PSP_PROVIDER_FLAG);
		DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
		DAT_RETURN r;

		r = dat_psp_create(t->ia, q, evd, flags[i], &psp);
		DC_SETUP_ASSERT(!dc_ret_is(r, DAT_CONN_QUAL_IN_USE, DC_ANY_SUBTYPE),
				"qualifier %llu is in use by another process", (unsigned long long)q);

		dc_note(t, "ep_creator %d, flag %d", (int)cr, (int)flags[i]);
		if (can) {
			DC_ASSERT_SUCCESS(r);
		} else {
			DC_ASSERT_RET(r, DAT_MODEL_NOT_SUPPORTED);
			assert_qual_free(t, q);
		}
	}
}

DC_CASE(dat_psp_create, provider_ep_null_handles,
	.summary = "a Provider EP has no PZ and no EVDs",
	.requires = "ep_creator!=0")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_CR_PARAM c;
	DAT_EP_PARAM p;

	psp_on(t, q, evd, DAT_PSP_PROVIDER_FLAG);
	memset(&c, 0, sizeof(c));
	DC_SETUP(dat_cr_query(expect_request(t, q, evd, NULL), DAT_CR_FIELD_ALL, &c));
	p = DC_EP_PARAM(c.local_ep_handle);
	DC_ASSERT_PTR_EQ(p.pz_handle, DAT_HANDLE_NULL);
	DC_ASSERT_PTR_EQ(p.recv_evd_handle, DAT_HANDLE_NULL);
	DC_ASSERT_PTR_EQ(p.request_evd_handle, DAT_HANDLE_NULL);
	DC_ASSERT_PTR_EQ(p.connect_evd_handle, DAT_HANDLE_NULL);
}

DC_CASE(dat_psp_create, provider_ep_attrs_match_request,
	.summary = "the Provider EP's attributes fit the active request",
	.requires = "ep_creator!=0")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	struct dc_endpoint a;
	DAT_CR_PARAM c;
	DAT_EP_ATTR pa, aa;

	psp_on(t, q, evd, DAT_PSP_PROVIDER_FLAG);
	dc_endpoint(t, &a, NULL);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	memset(&c, 0, sizeof(c));
	DC_SETUP(dat_cr_query(dc_await_cr(t, evd, NULL), DAT_CR_FIELD_ALL, &c));
	pa = DC_EP_PARAM(c.local_ep_handle).ep_attr;
	aa = dc_ep_param(t, a.ep).ep_attr;
	DC_ASSERT_EQ(pa.service_type, DAT_SERVICE_TYPE_RC);
	/* as many incoming Reads as the request's outgoing ones, where this IA
	 * takes so many per EP (dat_ia_query(3DAT): Max incoming RDMA Reads per
	 * EP is its own maximum, which may be below its outgoing one) */
	DC_ASSERT_GE(pa.max_rdma_read_in,
		     dc_within_limit(aa.max_rdma_read_out, t->ia_attr.max_rdma_read_per_ep_in));
	DC_ASSERT_GE(pa.max_message_size, 1);
}

DC_CASE(dat_psp_create, provider_ep_modifiable,
	.summary = "the Provider EP takes the Consumer's PZ and EVDs and then carries the connection",
	.requires = "ep_creator!=0")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	struct dc_endpoint a, mine;
	struct dc_lmr m, ma;
	DAT_CR_HANDLE cr;
	DAT_CR_PARAM c;
	DAT_EP_PARAM nv;

	psp_on(t, q, evd, DAT_PSP_PROVIDER_FLAG);
	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &mine, NULL);	/* supplies PZ and EVDs */
	dc_lmr(t, mine.pz, 4096, DC_PRIV_LOCAL, &m);
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &ma);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	cr = dc_await_cr(t, evd, NULL);
	memset(&c, 0, sizeof(c));
	DC_SETUP(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
	memset(&nv, 0, sizeof(nv));
	nv.pz_handle = mine.pz;
	nv.recv_evd_handle = mine.recv_evd;
	nv.request_evd_handle = mine.req_evd;
	nv.connect_evd_handle = mine.conn_evd;
	/* collateral: dat_psp_create(3DAT) DESCRIPTION: the Consumer may change the Provider EP's parameters before accepting */
	DC_ASSERT_SUCCESS(dat_ep_modify(c.local_ep_handle, DAT_EP_FIELD_PZ_HANDLE |
					DAT_EP_FIELD_RECV_EVD_HANDLE |
					DAT_EP_FIELD_REQUEST_EVD_HANDLE |
					DAT_EP_FIELD_CONNECT_EVD_HANDLE, &nv));
	DC_ASSERT_SUCCESS(post_recv1(c.local_ep_handle, &m, 0, 1024, 1));
	/* collateral: dat_psp_create(3DAT) DESCRIPTION: the connection is then made with the changed EP */
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, DAT_HANDLE_NULL, 0, NULL));
	DC_ASSERT_CONN_EVENT(mine.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, c.local_ep_handle);
	dc_await_event(t, a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_fill(ma.buf + 0, 99, 0x17);
	DC_SETUP(post_send1(a.ep, &ma, 0, 99, 2));
	DC_ASSERT_DTO(mine.recv_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT(dc_check_fill(m.buf, 99, 0x17), "the message did not land in the Consumer's LMR");
}

DC_CASE(dat_psp_create, invalid_ia_handle,
	.summary = "an ia_handle that is not an open IA is an invalid handle")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_PSP_HANDLE psp;

	DC_ASSERT_INVALID_HANDLE(dat_psp_create((DAT_IA_HANDLE)dc_pz(t), q, dc_evd(t, 4, DAT_EVD_CR_FLAG),
				     DAT_PSP_CONSUMER_FLAG, &psp), 1, IA);
	assert_qual_free(t, q);
}

DC_CASE(dat_psp_create, invalid_evd_handle,
	.summary = "a handle of another type as evd_handle is an invalid handle")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_PSP_HANDLE psp;

	DC_ASSERT_INVALID_HANDLE(dat_psp_create(t->ia, q, (DAT_EVD_HANDLE)dc_pz(t), DAT_PSP_CONSUMER_FLAG, &psp), 3, EVD_CR);
	assert_qual_free(t, q);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_psp_create, invalid_evd_handle_freed,
	.clauses = "dat_psp_create.invalid_evd_handle",
	.summary = "a freed EVD as evd_handle is an invalid handle")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_PSP_HANDLE psp;

	DC_ASSERT_INVALID_HANDLE(dat_psp_create(t->ia, q, dc_freed_evd(t, DAT_EVD_CR_FLAG), DAT_PSP_CONSUMER_FLAG, &psp), 3, EVD_CR);
	assert_qual_free(t, q);
}

DC_CASE(dat_psp_create, evd_without_cr_flag,
	.summary = "an EVD not made for Connection Requests should be refused")
{
	DAT_PSP_HANDLE psp;

	DC_ASSERT_INVALID_HANDLE(dat_psp_create(t->ia, dc_free_conn_qual(t), dc_evd(t, 4, DAT_EVD_DTO_FLAG),
				     DAT_PSP_CONSUMER_FLAG, &psp), 3, EVD_CR);
}

DC_CASE(dat_psp_create, invalid_flags,
	.summary = "psp_flags other than consumer/provider are invalid")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t);
	DAT_PSP_HANDLE psp;

	DC_ASSERT_RET(dat_psp_create(t->ia, q, dc_evd(t, 4, DAT_EVD_CR_FLAG), (DAT_PSP_FLAGS)0x2, &psp),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_psp_create(t->ia, q, dc_evd(t, 4, DAT_EVD_CR_FLAG), (DAT_PSP_FLAGS)0x80, &psp),
		      DAT_INVALID_PARAMETER);
	assert_qual_free(t, q);
}

DC_CASE(dat_psp_create, conn_qual_in_use,
	.summary = "a qualifier held by a PSP or an RSP cannot take another PSP")
{
	DAT_CONN_QUAL q = dc_free_conn_qual(t), q2;
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;
	DAT_RSP_HANDLE rsp;
	struct dc_endpoint r;

	psp_on(t, q, evd, DAT_PSP_CONSUMER_FLAG);
	DC_ASSERT_RET(dat_psp_create(t->ia, q, dc_evd(t, 4, DAT_EVD_CR_FLAG), DAT_PSP_CONSUMER_FLAG,
				     &psp),
		      DAT_CONN_QUAL_IN_USE);
	expect_request(t, q, evd, NULL);	/* the first PSP still works */
	dc_endpoint(t, &r, NULL);
	dc_rsp_any(t, r.ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &q2, &rsp);
	DC_ASSERT_RET(dat_psp_create(t->ia, q2, dc_evd(t, 4, DAT_EVD_CR_FLAG), DAT_PSP_CONSUMER_FLAG,
				     &psp),
		      DAT_CONN_QUAL_IN_USE);
	ASSERT_STATE(r.ep, DAT_EP_STATE_RESERVED);
}

/*
 * RETURN VALUES: a qualifier the transport cannot use is an invalid
 * parameter.  Which qualifiers those are is the transport's business, so the
 * case checks the qualifiers just outside the range the provider publishes
 * (dc_conn_qual_range; UNSUPPORTED when it publishes none).
 */
DC_CASE(dat_psp_create, invalid_conn_qual,
	.summary = "a qualifier just outside the range the provider publishes is DAT_INVALID_PARAMETER",
	.needs = "suite_attr:datcts.conn_qual_range")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL lo, hi;

	dc_conn_qual_range(t, &lo, &hi);
	if (lo > 0)
		DC_ASSERT_RET(dat_psp_create(t->ia, lo - 1, evd, DAT_PSP_CONSUMER_FLAG, &psp),
			      DAT_INVALID_PARAMETER);
	if (hi < UINT64_MAX) {
		DC_ASSERT_RET(dat_psp_create(t->ia, hi + 1, evd, DAT_PSP_CONSUMER_FLAG, &psp),
			      DAT_INVALID_PARAMETER);
		DC_ASSERT_RET(dat_psp_create(t->ia, UINT64_MAX, evd, DAT_PSP_CONSUMER_FLAG, &psp),
			      DAT_INVALID_PARAMETER);
	}
	if (lo == 0 && hi == UINT64_MAX)
		dc_note(t, "the published range holds every qualifier: none is invalid");
	/* the boundary itself: the ends of the range are usable qualifiers
	 * (in use by someone else at most) */
	for (int i = 0; i < 2; i++) {
		DAT_CONN_QUAL q = i ? hi : lo;
		DAT_RETURN r = dat_psp_create(t->ia, q, evd, DAT_PSP_CONSUMER_FLAG, &psp);

		DC_ASSERT(!dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE),
			  "qualifier %llu, inside the published range, refused as invalid",
			  (unsigned long long)q);
		if (r == DAT_SUCCESS)
			DC_SETUP(dat_psp_free(psp));
	}
}

/*
 * Out of memory (the allocation fault hook): each allocation of 40 creates
 * in a row failing in turn, dat_psp_create gives DAT_INSUFFICIENT_RESOURCES
 * (dat_psp_create(3DAT) RETURN VALUES) or a PSP on the qualifier asked for.
 * A refused create listens nowhere: the qualifier takes the next try
 * (no DAT_CONN_QUAL_IN_USE); once the PSPs made are freed the IA closes
 * gracefully (no refused create left a PSP).
 */
static DAT_RETURN oom_psp_create(struct dc_ctx *t, struct cm_oom_sps *o)
{
	return dat_psp_create(t->ia, o->q[o->n], o->evd, DAT_PSP_CONSUMER_FLAG, &o->sp[o->n]);
}

static DAT_RETURN oom_psp_make(struct dc_ctx *t, void *arg)
{
	return cm_oom_sp_create(t, arg, oom_psp_create);
}

DC_CASE(dat_psp_create, out_of_memory,
	.clauses = "dat_psp_create.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES (the qualifier free again) or a working PSP, and no PSP left behind")
{
	struct cm_oom_sps o = { .evd = dc_evd(t, 8, DAT_EVD_CR_FLAG) };
	struct dc_alloc_call c = { "dat_psp_create", oom_psp_make, cm_oom_psp_works, &o, NULL };

	for (int i = 0; i < DC_ALLOC_FAULT_OBJECTS; i++)
		if (dc_alloc_sweep(t, &c) < 0)
			break;
	cm_oom_psps_gone(t, &o);
}
