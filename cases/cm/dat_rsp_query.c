/* SPDX-License-Identifier: MIT */
/*
 * dat_rsp_query(3DAT): clauses/dat_rsp_query.toml.
 */
#include "../ep/ep_common.h"

DC_CASE(dat_rsp_query, returns_params,
	.summary = "the RSP reports its IA, qualifier, EVD and EP, for ALL and for single bits")
{
	struct dc_endpoint e;
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;
	DAT_RSP_PARAM p;

	dc_endpoint(t, &e, NULL);
	dc_rsp_any(t, e.ep, evd, &q, &rsp);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	DC_ASSERT_EQ(p.conn_qual, q);
	DC_ASSERT_PTR_EQ(p.evd_handle, evd);
	DC_ASSERT_PTR_EQ(p.ep_handle, e.ep);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_rsp_query(rsp, DAT_RSP_FIELD_IA_HANDLE, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_rsp_query(rsp, DAT_RSP_FIELD_CONN_QUAL, &p));
	DC_ASSERT_EQ(p.conn_qual, q);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_rsp_query(rsp, DAT_RSP_FIELD_EVD_HANDLE, &p));
	DC_ASSERT_PTR_EQ(p.evd_handle, evd);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_rsp_query(rsp, DAT_RSP_FIELD_EP_HANDLE, &p));
	DC_ASSERT_PTR_EQ(p.ep_handle, e.ep);
}

DC_CASE(dat_rsp_query, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DAT_RSP_PARAM p;

	DC_ASSERT_INVALID_HANDLE(dat_rsp_query((DAT_RSP_HANDLE)dc_pz(t), DAT_RSP_FIELD_ALL, &p), 1, RSP);
}

/* The same for a freed RSP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_rsp_query, invalid_handle_freed,
	.clauses = "dat_rsp_query.invalid_handle",
	.summary = "a freed RSP is an invalid handle")
{
	struct dc_endpoint e;
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;
	DAT_RSP_PARAM p;

	dc_endpoint(t, &e, NULL);
	dc_rsp_any(t, e.ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &q, &rsp);
	DC_SETUP(dat_rsp_free(rsp));
	DC_ASSERT_INVALID_HANDLE(dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &p), 1, RSP);
}

DC_CASE(dat_rsp_query, invalid_mask,
	.summary = "mask bits that name no RSP parameter are invalid")
{
	struct dc_endpoint e;
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;
	DAT_RSP_PARAM p;

	dc_endpoint(t, &e, NULL);
	dc_rsp_any(t, e.ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &q, &rsp);
	DC_ASSERT_RET(dat_rsp_query(rsp, (DAT_RSP_PARAM_MASK)0x10, &p), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_rsp_query(rsp, (DAT_RSP_PARAM_MASK)0x80000000u, &p), DAT_INVALID_PARAMETER);
}
