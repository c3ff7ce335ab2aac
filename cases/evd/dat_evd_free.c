/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_free(3DAT); clauses in clauses/dat_evd_free.toml.
 * RETURN VALUES names no subtype for the in-use refusal: the type is
 * checked, the subtype reported.
 */
#include "evd_common.h"

DC_CASE(dat_evd_free, destroys,
	.summary = "an EVD that nothing feeds is freed")
{
	DC_ASSERT_SUCCESS(dat_evd_free(dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG)));
}

/* The dead handle: a case of its own, so that a call that does not
 * survive the handle of a destroyed EVD (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_free, destroys_freed,
	.clauses = "dat_evd_free.destroys",
	.summary = "every later use of a freed EVD's handle gives DAT_INVALID_HANDLE")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVENT ev = sw_event(TAG(1));
	DAT_EVD_PARAM p;

	DC_SETUP(dat_evd_free(evd));
	/* collateral: dat_evd_free(3DAT) DESCRIPTION: any later operation on the destroyed EVD's handle fails */
	DC_ASSERT_INVALID_HANDLE(dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p), 1, EVD);
	/* collateral: dat_evd_free(3DAT) DESCRIPTION: as above */
	DC_ASSERT_INVALID_HANDLE(dat_evd_post_se(evd, &ev), 1, EVD);
	/* collateral: dat_evd_free(3DAT) DESCRIPTION: as above */
	DC_ASSERT_INVALID_HANDLE(dat_evd_dequeue(evd, &ev), 1, EVD);
	DC_ASSERT_INVALID_HANDLE(dat_evd_free(evd), 1, EVD);
}

DC_CASE(dat_evd_free, queued_events_lost,
	.summary = "EVDs with queued events (one with a CNO) are freed; the events go with them")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE e1 = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_HANDLE e2 = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);

	post_n(e1, 0, 3);
	post(e2, TAG(9));
	DC_ASSERT_SUCCESS(dat_evd_free(e1));
	DC_ASSERT_SUCCESS(dat_evd_free(e2));
}

DC_CASE(dat_evd_free, originators_unaffected,
	.summary = "freeing an EVD an EP no longer uses leaves the EP as it was")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE conn_a = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_EVD_HANDLE conn_b = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_EP_HANDLE ep = dc_ep(t, pz, dto, dto, conn_a, NULL);
	DAT_EP_PARAM ep_param;
	struct dc_snap s;

	memset(&ep_param, 0, sizeof(ep_param));
	ep_param.connect_evd_handle = conn_b;
	DC_SETUP(dat_ep_modify(ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &ep_param));
	dc_snapshot(t, DC_OBJ_EP, ep, &s);
	DC_SETUP_ASSERT(s.u.ep.connect_evd_handle == conn_b,
			"set-up: dat_ep_modify did not move the EP to the second connect EVD");
	DC_ASSERT_SUCCESS(dat_evd_free(conn_a));
	DC_ASSERT_UNCHANGED(&s);
	/* collateral: dat_evd_free(3DAT) DESCRIPTION: the objects that fed the EVD are unaffected */
	DC_ASSERT_SUCCESS(dat_ep_free(ep));
}

/* Clause part: freeing `evd` is refused and changes nothing. */
static void expect_in_use(struct dc_ctx *t, DAT_EVD_HANDLE evd, const char *who)
{
	struct dc_snap s;
	char what[128];
	DAT_RETURN r;

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	r = dat_evd_free(evd);
	snprintf(what, sizeof(what), "dat_evd_free(%s)", who);
	note_ret(t, what, r);
	DC_ASSERT(dc_ret_is(r, DAT_INVALID_STATE, DC_ANY_SUBTYPE),
		  "%s returned %s, expected DAT_INVALID_STATE", what, dc_ret_text(r));
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_evd_free, in_use_refused,
	.summary = "EVDs still fed by an EP or a PSP give DAT_INVALID_STATE and stay intact")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE recv = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE req = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE conn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_EVD_HANDLE cr = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_EP_HANDLE ep = dc_ep(t, pz, recv, req, conn, NULL);
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL q = 0;

	DC_SETUP(dat_psp_create_any(t->ia, &q, cr, DAT_PSP_CONSUMER_FLAG, &psp));
	expect_in_use(t, recv, "the recv EVD of an EP");
	expect_in_use(t, req, "the request EVD of an EP");
	expect_in_use(t, conn, "the connect EVD of an EP");
	expect_in_use(t, cr, "the EVD of a PSP");
	/* still usable: the EP can be torn down normally */
	DC_SETUP(dat_ep_free(ep));
	DC_SETUP(dat_psp_free(psp));
	DC_ASSERT_SUCCESS(dat_evd_free(recv));
	DC_ASSERT_SUCCESS(dat_evd_free(req));
	DC_ASSERT_SUCCESS(dat_evd_free(conn));
	DC_ASSERT_SUCCESS(dat_evd_free(cr));
}

/*
 * The same clause with the event streams given other ways: EVDs an EP
 * received from dat_ep_modify(3DAT) after its creation, and the EVD of a
 * reserved Service Point (dat_rsp_create(3DAT)) rather than a public one.
 */
DC_CASE(dat_evd_free, in_use_refused_other_ways,
	.clauses = "dat_evd_free.in_use_refused",
	.summary = "EVDs given to an EP by dat_ep_modify, and the EVD of an RSP, give DAT_INVALID_STATE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE dto0 = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE conn0 = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_EVD_HANDLE recv = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE req = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE conn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_EVD_HANDLE cr = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_EP_HANDLE ep = dc_ep(t, pz, dto0, dto0, conn0, NULL);
	DAT_EP_HANDLE ep2 = dc_ep(t, pz, dto0, dto0, conn0, NULL);
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_RSP_HANDLE rsp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL q = 0;
	DAT_EP_PARAM p;
	DAT_RETURN r;

	memset(&p, 0, sizeof(p));
	p.recv_evd_handle = recv;
	p.request_evd_handle = req;
	p.connect_evd_handle = conn;
	DC_SETUP(dat_ep_modify(ep, DAT_EP_FIELD_RECV_EVD_HANDLE | DAT_EP_FIELD_REQUEST_EVD_HANDLE |
			       DAT_EP_FIELD_CONNECT_EVD_HANDLE, &p));
	p = DC_EP_PARAM(ep);
	DC_SETUP_ASSERT(p.recv_evd_handle == recv && p.request_evd_handle == req &&
			p.connect_evd_handle == conn,
			"set-up: dat_ep_modify did not give the EP the three new EVDs");
	/* a qualifier nothing listens on, for the RSP (free again when the
	 * provider says so: dc_probed_qual_busy_at) */
	DC_SETUP(dat_psp_create_any(t->ia, &q, cr, DAT_PSP_CONSUMER_FLAG, &psp));
	DC_SETUP(dat_psp_free(psp));
	DC_ON_PROBED_QUAL(r, dat_rsp_create(t->ia, q, ep2, cr, &rsp));
	DC_SETUP(r);
	expect_in_use(t, recv, "the recv EVD given to an EP by dat_ep_modify");
	expect_in_use(t, req, "the request EVD given to an EP by dat_ep_modify");
	expect_in_use(t, conn, "the connect EVD given to an EP by dat_ep_modify");
	expect_in_use(t, cr, "the EVD of an RSP");
	DC_SETUP(dat_ep_free(ep));
	DC_SETUP(dat_rsp_free(rsp));
	DC_ASSERT_SUCCESS(dat_evd_free(recv));
	DC_ASSERT_SUCCESS(dat_evd_free(req));
	DC_ASSERT_SUCCESS(dat_evd_free(conn));
	DC_ASSERT_SUCCESS(dat_evd_free(cr));
}

/*
 * The same clause with the event streams given the ways the two cases above
 * leave out: the EVD of a PSP made by dat_psp_create on a chosen qualifier
 * (not dat_psp_create_any) and of a provider-flag PSP (dat_psp_create(3DAT)),
 * the EVDs of an EP made by dat_ep_create_with_srq(3DAT), and the EVDs a
 * Provider EP received from dat_ep_modify before its request was accepted
 * (dat_psp_create(3DAT): the Consumer may change the Provider EP's
 * parameters).  A provider without SRQs or Provider EPs skips those parts
 * (noted).
 */
DC_CASE(dat_evd_free, in_use_refused_more_ways,
	.clauses = "dat_evd_free.in_use_refused",
	.summary = "EVDs of a dat_psp_create PSP, of a provider-flag PSP, of an EP on an SRQ and of a "
		   "Provider EP given them by dat_ep_modify give DAT_INVALID_STATE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE cr = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL q = 0;

	/* a qualifier nothing listens on, for dat_psp_create */
	DC_SETUP(dat_psp_create_any(t->ia, &q, cr, DAT_PSP_CONSUMER_FLAG, &psp));
	DC_SETUP(dat_psp_free(psp));
	DC_SETUP(dat_psp_create(t->ia, q, cr, DAT_PSP_CONSUMER_FLAG, &psp));
	expect_in_use(t, cr, "the EVD of a PSP made by dat_psp_create");
	DC_SETUP(dat_psp_free(psp));
	DC_ASSERT_SUCCESS(dat_evd_free(cr));

	if (dc_attr_reported(t, "srq_supported") && t->prov_attr.srq_supported) {
		DAT_SRQ_HANDLE srq = dc_srq(t, pz, 4, 1, DAT_SRQ_LW_DEFAULT);
		DAT_EVD_HANDLE recv = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE req = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE conn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
		DAT_EP_HANDLE ep = dc_ep_with_srq(t, pz, recv, req, conn, srq, NULL);

		expect_in_use(t, recv, "the recv EVD of an EP on an SRQ");
		expect_in_use(t, req, "the request EVD of an EP on an SRQ");
		expect_in_use(t, conn, "the connect EVD of an EP on an SRQ");
		DC_SETUP(dat_ep_free(ep));
		DC_ASSERT_SUCCESS(dat_evd_free(recv));
		DC_ASSERT_SUCCESS(dat_evd_free(req));
		DC_ASSERT_SUCCESS(dat_evd_free(conn));
	} else {
		dc_note(t, "no SRQs: the EP on an SRQ is left out");
	}

	if (t->prov_attr.ep_creator != DAT_PSP_CREATES_EP_NEVER) {
		DAT_EVD_HANDLE pcr = dc_evd(t, 8, DAT_EVD_CR_FLAG);
		DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE aconn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
		DAT_EVD_HANDLE recv = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE req = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
		DAT_EVD_HANDLE conn = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
		DAT_EP_HANDLE active = dc_ep(t, pz, dto, dto, aconn, NULL);
		DAT_CR_PARAM c;
		DAT_EP_PARAM nv;
		DAT_CR_HANDLE crh;

		DC_SETUP(dat_psp_create_any(t->ia, &q, pcr, DAT_PSP_PROVIDER_FLAG, &psp));
		expect_in_use(t, pcr, "the EVD of a provider-flag PSP");
		DC_SETUP(dc_connect_to_self(t, active, q, 0, 0, NULL));
		crh = dc_await_cr(t, pcr, NULL);
		memset(&c, 0, sizeof(c));
		DC_SETUP(dat_cr_query(crh, DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
		DC_SETUP_ASSERT(c.local_ep_handle != DAT_HANDLE_NULL,
				"set-up: the request on a provider-flag PSP carries no EP");
		memset(&nv, 0, sizeof(nv));
		nv.recv_evd_handle = recv;
		nv.request_evd_handle = req;
		nv.connect_evd_handle = conn;
		DC_SETUP(dat_ep_modify(c.local_ep_handle, DAT_EP_FIELD_RECV_EVD_HANDLE |
				       DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				       DAT_EP_FIELD_CONNECT_EVD_HANDLE, &nv));
		expect_in_use(t, recv, "the recv EVD given to a Provider EP by dat_ep_modify");
		expect_in_use(t, req, "the request EVD given to a Provider EP by dat_ep_modify");
		expect_in_use(t, conn, "the connect EVD given to a Provider EP by dat_ep_modify");
		DC_SETUP(dc_dat_cr_reject(crh, 0, NULL));
	} else {
		dc_note(t, "ep_creator is DAT_PSP_CREATES_EP_NEVER: no provider-flag PSP");
	}
}

DC_CASE(dat_evd_free, invalid_handle,
	.summary = "NULL or a PZ handle gives DAT_INVALID_HANDLE and the PZ survives")
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, false);
	DAT_PZ_PARAM pp;
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_free(bad[i]);
		snprintf(what, sizeof(what), "dat_evd_free(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
	DC_SETUP(dat_pz_query((DAT_PZ_HANDLE)bad[1], DAT_PZ_FIELD_ALL, &pp));
}

DC_CASE(dat_evd_free, ia_close_destroys_evds,
	.summary = "an abrupt dat_ia_close succeeds with EVDs (queued events, a CNO, an EP) left on the IA")
{
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL, e1, e2, e3, e4;
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_EVENT ev;

	DC_SETUP(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2));
	DC_SETUP(dat_cno_create(ia2, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	DC_SETUP(dat_evd_create(ia2, 8, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &e1));
	DC_SETUP(dat_evd_create(ia2, 8, cno, DAT_EVD_SOFTWARE_FLAG, &e2));
	DC_SETUP(dat_evd_create(ia2, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &e3));
	DC_SETUP(dat_evd_create(ia2, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &e4));
	DC_SETUP(dat_pz_create(ia2, &pz));
	DC_SETUP(dat_ep_create(ia2, pz, e3, e3, e4, NULL, &ep));
	for (int i = 0; i < 3; i++) {
		ev = sw_event(TAG(i));
		DC_SETUP(dat_evd_post_se(e1, &ev));
	}
	ev = sw_event(TAG(3));
	DC_SETUP(dat_evd_post_se(e2, &ev));
	/* collateral: dat_evd_free(3DAT) DESCRIPTION: the IA's close destroys its EVDs with the rest */
	DC_ASSERT_SUCCESS(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}
