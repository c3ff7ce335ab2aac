/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_pz_query(3DAT); clauses in clauses/dat_pz_query.toml.
 */
#include "../lmr/mem_common.h"

DC_CASE(dat_pz_query, fills_requested,
	.summary = "DAT_PZ_FIELD_IA_HANDLE and DAT_PZ_FIELD_ALL give the PZ's IA")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_PZ_PARAM p;

	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_pz_query(pz, DAT_PZ_FIELD_IA_HANDLE, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_pz_query(pz, DAT_PZ_FIELD_ALL, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
}

DC_CASE(dat_pz_query, invalid_mask,
	.summary = "mask bits no PZ parameter has give DAT_INVALID_PARAMETER")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_snap s;
	DAT_PZ_PARAM p;

	dc_snapshot(t, DC_OBJ_PZ, pz, &s);
	DC_ASSERT_RET(dat_pz_query(pz, (DAT_PZ_PARAM_MASK)0x2, &p), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_pz_query(pz, (DAT_PZ_PARAM_MASK)0x80000000u, &p), DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_pz_query, invalid_handle,
	.summary = "NULL and an EVD handle give DAT_INVALID_HANDLE/PZ")
{
	DAT_PZ_PARAM p;

	DC_ASSERT_INVALID_HANDLE(dat_pz_query(DAT_HANDLE_NULL, DAT_PZ_FIELD_ALL, &p), 1, PZ);
	DC_ASSERT_INVALID_HANDLE(dat_pz_query((DAT_PZ_HANDLE)dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG),
					      DAT_PZ_FIELD_ALL, &p), 1, PZ);
}

/* The same for a freed PZ: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_pz_query, invalid_handle_freed,
	.clauses = "dat_pz_query.invalid_handle",
	.summary = "a freed PZ gives DAT_INVALID_HANDLE/PZ")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_PZ_PARAM p;

	DC_SETUP(dat_pz_free(pz));
	DC_ASSERT_INVALID_HANDLE(dat_pz_query(pz, DAT_PZ_FIELD_ALL, &p), 1, PZ);
}
