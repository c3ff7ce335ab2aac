/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_query(3DAT); clauses in clauses/dat_evd_query.toml.
 */
#include "evd_common.h"

DC_CASE(dat_evd_query, returns_requested,
	.summary = "DAT_EVD_FIELD_ALL and each single field report the EVD's values")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 6, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_EVD_PARAM p, all;

	memset(&all, 0xa5, sizeof(all));
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_ALL, &all));
	DC_ASSERT_IA_HANDLE(all.ia_handle, t->ia);
	DC_ASSERT_GE(all.evd_qlen, 6);
	DC_ASSERT(EVD_ENABLED(all.evd_state) && EVD_WAITABLE(all.evd_state),
		  "state 0x%x of a new EVD", (unsigned int)all.evd_state);
	DC_ASSERT_PTR_EQ(all.cno_handle, cno);
	DC_ASSERT_EQ(all.evd_flags, DAT_EVD_SOFTWARE_FLAG);

	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_IA_HANDLE, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
	DC_ASSERT_EQ(p.evd_qlen, all.evd_qlen);
	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &p));
	DC_ASSERT_EQ(p.evd_state, all.evd_state);
	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_CNO, &p));
	DC_ASSERT_PTR_EQ(p.cno_handle, cno);
	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_FLAGS, &p));
	DC_ASSERT_EQ(p.evd_flags, DAT_EVD_SOFTWARE_FLAG);
}

static DAT_EVD_STATE state_of(struct dc_ctx *t, DAT_EVD_HANDLE evd)
{
	DAT_EVD_PARAM p;

	memset(&p, 0, sizeof(p));
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_STATE, &p));
	return p.evd_state;
}

DC_CASE(dat_evd_query, reports_state,
	.summary = "the queried state follows disable/enable and set/clear_unwaitable")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_STATE st;

	DC_SETUP(dat_evd_disable(evd));
	st = state_of(t, evd);
	DC_ASSERT(EVD_DISABLED(st) && EVD_WAITABLE(st), "after disable: state 0x%x",
		  (unsigned int)st);
	DC_SETUP(dat_evd_set_unwaitable(evd));
	st = state_of(t, evd);
	DC_ASSERT(EVD_DISABLED(st) && EVD_UNWAITABLE(st),
		  "after disable + set_unwaitable: state 0x%x", (unsigned int)st);
	DC_SETUP(dat_evd_enable(evd));
	st = state_of(t, evd);
	DC_ASSERT(EVD_ENABLED(st) && EVD_UNWAITABLE(st),
		  "after enable (unwaitable): state 0x%x", (unsigned int)st);
	DC_SETUP(dat_evd_clear_unwaitable(evd));
	st = state_of(t, evd);
	DC_ASSERT(EVD_ENABLED(st) && EVD_WAITABLE(st),
		  "after clear_unwaitable: state 0x%x", (unsigned int)st);
}

DC_CASE(dat_evd_query, invalid_mask,
	.summary = "mask bits outside DAT_EVD_FIELD_ALL give DAT_INVALID_PARAMETER")
{
	static const DAT_EVD_PARAM_MASK bad[] = {
		(DAT_EVD_PARAM_MASK)0x20, (DAT_EVD_PARAM_MASK)0x80000000u,
	};
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_snap s;
	DAT_EVD_PARAM p;
	DAT_RETURN r;

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	for (unsigned int i = 0; i < 2; i++) {
		char what[64];

		r = dat_evd_query(evd, bad[i], &p);
		snprintf(what, sizeof(what), "dat_evd_query(mask 0x%x)", (unsigned int)bad[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_PARAMETER", what, dc_ret_text(r));
	}
	DC_ASSERT_UNCHANGED(&s);
}

/* Clause: dat_evd_query refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_EVD_PARAM p;
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_query(bad[i], DAT_EVD_FIELD_ALL, &p);
		snprintf(what, sizeof(what), "dat_evd_query(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_query, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_query, invalid_handle_freed,
	.clauses = "dat_evd_query.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}
