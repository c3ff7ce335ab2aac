/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_cno_free(3DAT); clauses in clauses/dat_cno_free.toml.
 * RETURN VALUES names no subtype for the in-use refusal: the type is
 * checked, the subtype reported.
 */
#include "../evd/evd_common.h"

DC_CASE(dat_cno_free, destroys_unused,
	.summary = "a CNO nobody uses (new, or whose EVD moved off) is freed")
{
	DAT_CNO_HANDLE c1 = dc_plain_cno(t), c2 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, c2);

	/* the freed handles are not probed: the page promises nothing of a
	 * call given one (review finding: the probe crashed a provider) */
	DC_ASSERT_SUCCESS(dat_cno_free(c1));
	DC_SETUP(dat_evd_modify_cno(evd, DAT_HANDLE_NULL));
	DC_ASSERT_SUCCESS(dat_cno_free(c2));
}

DC_CASE(dat_cno_free, in_use_by_evd,
	.summary = "freeing a CNO an EVD references (given at creation, then by modify) gives DAT_INVALID_STATE and leaves it working")
{
	for (int way = 0; way < CNO_WAYS; way++) {
		DAT_CNO_HANDLE cno = dc_plain_cno(t);
		DAT_EVD_HANDLE evd = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, cno, way);
		struct dc_snap s;
		struct dc_waiter *w;
		DAT_RETURN r;

		dc_note(t, "the EVD's CNO %s", cno_way_name(way));
		dc_snapshot(t, DC_OBJ_CNO, cno, &s);
		r = dat_cno_free(cno);
		note_ret(t, "dat_cno_free with an EVD attached", r);
		DC_ASSERT_RET(r, DAT_INVALID_STATE);
		DC_ASSERT_UNCHANGED(&s);
		w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
		DC_ASSERT_BLOCKS(w);
		post(evd, TAG(1));
		EXPECT_CNO_WOKEN(w, evd, "a post after the refused free");
		dc_waiter_free(w);
	}
}

DC_CASE(dat_cno_free, in_use_by_waiter,
	.summary = "freeing a CNO a thread waits on gives DAT_INVALID_STATE; the waiter keeps waiting")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	struct dc_waiter *w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DAT_RETURN r;

	DC_ASSERT_BLOCKS(w);
	r = dat_cno_free(cno);
	note_ret(t, "dat_cno_free with a blocked waiter", r);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	DC_ASSERT_STILL_WAITING(w, "the refused dat_cno_free");
	release_cno_waiter(w);
}

DC_CASE(dat_cno_free, usage_unblock_then_free,
	.summary = "a temporary software EVD attached and posted releases the CNO waiter; CNO and EVD then free")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE tmp = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);	/* made in advance */
	struct dc_waiter *w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);

	DC_ASSERT_BLOCKS(w);
	/* collateral: dat_cno_free(3DAT) USAGE: the release the page describes
	 * is attaching a software EVD, posting to it, then freeing both */
	DC_ASSERT_SUCCESS(dat_evd_modify_cno(tmp, cno));
	post(tmp, TAG(1));
	EXPECT_CNO_WOKEN(w, tmp, "the post to the temporary EVD");
	dc_waiter_free(w);
	/* collateral: dat_cno_free(3DAT) USAGE: as above */
	DC_ASSERT_SUCCESS(dat_evd_modify_cno(tmp, DAT_HANDLE_NULL));
	DC_ASSERT_SUCCESS(dat_cno_free(cno));
	/* collateral: dat_cno_free(3DAT) USAGE: as above */
	DC_ASSERT_SUCCESS(dat_evd_free(tmp));
}

DC_CASE(dat_cno_free, invalid_handle,
	.summary = "NULL or an EVD handle gives DAT_INVALID_HANDLE and the EVD survives")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_RETURN r;

	r = dat_cno_free(DAT_HANDLE_NULL);
	note_ret(t, "dat_cno_free(DAT_HANDLE_NULL)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CNO);
	r = dat_cno_free((DAT_CNO_HANDLE)evd);
	note_ret(t, "dat_cno_free(an EVD handle)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CNO);
	DC_EVD_PARAM(evd);
}
