/* SPDX-License-Identifier: MIT */
/*
 * dat_psp_query(3DAT): clauses/dat_psp_query.toml.
 */
#include "../ep/ep_common.h"

/*
 * Each value the parameters can take: the provider flag too (where the
 * provider creates EPs), and a qualifier the Consumer chose with
 * dat_psp_create rather than one dat_psp_create_any handed out.
 */
static void other_flag_and_qualifier(struct dc_ctx *t)
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_CONN_QUAL q = dc_unprobed_conn_qual();
	DAT_PSP_FLAGS flags = t->prov_attr.ep_creator != DAT_PSP_CREATES_EP_NEVER ?
			      DAT_PSP_PROVIDER_FLAG : DAT_PSP_CONSUMER_FLAG;
	DAT_PSP_HANDLE psp;
	DAT_PSP_PARAM p;

	DC_SETUP(dat_psp_create(t->ia, q, evd, flags, &psp));
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_psp_query(psp, DAT_PSP_FIELD_ALL, &p));
	DC_ASSERT_EQ(p.conn_qual, q);
	DC_ASSERT_PTR_EQ(p.evd_handle, evd);
	DC_ASSERT_EQ(p.psp_flags, flags);
}

DC_CASE(dat_psp_query, returns_params,
	.summary = "the PSP reports its IA, qualifier, EVD and flags, for ALL and for single bits")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	DAT_PSP_PARAM p;

	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_psp_query(psp, DAT_PSP_FIELD_ALL, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	DC_ASSERT_EQ(p.conn_qual, q);
	DC_ASSERT_PTR_EQ(p.evd_handle, evd);
	DC_ASSERT_EQ(p.psp_flags, DAT_PSP_CONSUMER_FLAG);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_psp_query(psp, DAT_PSP_FIELD_IA_HANDLE, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_psp_query(psp, DAT_PSP_FIELD_CONN_QUAL, &p));
	DC_ASSERT_EQ(p.conn_qual, q);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_psp_query(psp, DAT_PSP_FIELD_EVD_HANDLE, &p));
	DC_ASSERT_PTR_EQ(p.evd_handle, evd);
	memset(&p, 0xA5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_psp_query(psp, DAT_PSP_FIELD_PSP_FLAGS, &p));
	DC_ASSERT_EQ(p.psp_flags, DAT_PSP_CONSUMER_FLAG);
	other_flag_and_qualifier(t);
}

DC_CASE(dat_psp_query, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DAT_PSP_PARAM p;

	DC_ASSERT_INVALID_HANDLE(dat_psp_query((DAT_PSP_HANDLE)dc_pz(t), DAT_PSP_FIELD_ALL, &p), 1, PSP);
}

/* The same for a freed PSP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_psp_query, invalid_handle_freed,
	.clauses = "dat_psp_query.invalid_handle",
	.summary = "a freed PSP is an invalid handle")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_PSP_PARAM p;

	dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	DC_SETUP(dat_psp_free(psp));
	DC_ASSERT_INVALID_HANDLE(dat_psp_query(psp, DAT_PSP_FIELD_ALL, &p), 1, PSP);
}

DC_CASE(dat_psp_query, invalid_mask,
	.summary = "mask bits that name no PSP parameter are invalid")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_PSP_PARAM p;

	dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &evd, &psp);
	DC_ASSERT_RET(dat_psp_query(psp, (DAT_PSP_PARAM_MASK)0x10, &p), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_psp_query(psp, (DAT_PSP_PARAM_MASK)0x80000000u, &p), DAT_INVALID_PARAMETER);
}
