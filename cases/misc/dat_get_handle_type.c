/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_get_handle_type(3DAT); clauses in
 * clauses/dat_get_handle_type.toml.  One case per kind (handles.h).
 */
#include "handles.h"

static void type_is(struct dc_ctx *t, enum kind k, DAT_HANDLE h)
{
	DAT_HANDLE_TYPE type = (DAT_HANDLE_TYPE)0x7777;

	DC_ASSERT_SUCCESS(dat_get_handle_type(h, &type));
	DC_ASSERT_EQ(type, kind_type[k]);
}

PER_KIND_CASES(dat_get_handle_type, reports, "dat_get_handle_type.reports_type",
	       "the handle's type is reported", type_is)

DC_CASE(dat_get_handle_type, invalid_handle,
	.summary = "NULL gives DAT_INVALID_HANDLE")
{
	DAT_HANDLE_TYPE type;

	DC_ASSERT_INVALID_HANDLE(dat_get_handle_type(DAT_HANDLE_NULL, &type), 1, ANY);
}

/* The same for a freed PZ: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_get_handle_type, invalid_handle_freed,
	.clauses = "dat_get_handle_type.invalid_handle",
	.summary = "a freed PZ gives DAT_INVALID_HANDLE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_HANDLE_TYPE type;

	DC_SETUP(dat_pz_free(pz));
	DC_ASSERT_INVALID_HANDLE(dat_get_handle_type(pz, &type), 1, ANY);
}
