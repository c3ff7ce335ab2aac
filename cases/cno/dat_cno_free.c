/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_cno_free(3DAT); clauses in clauses/dat_cno_free.toml.
 * RETURN VALUES names no subtype for the in-use refusal: the type is
 * checked, the subtype reported.
 */
#include "../evd/evd_common.h"

DC_CASE(dat_cno_free, destroys_unused,
	.summary = "a CNO nobody uses (new, whose EVD detached, or whose EVD moved to another CNO) is freed")
{
	DAT_CNO_HANDLE c1 = dc_plain_cno(t), c2 = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, c2);

	/* the freed handles are not probed: the page promises nothing of a
	 * call given one (review finding: the probe crashed a provider) */
	DC_ASSERT_SUCCESS(dat_cno_free(c1));
	DC_SETUP(dat_evd_modify_cno(evd, DAT_HANDLE_NULL));
	DC_ASSERT_SUCCESS(dat_cno_free(c2));
	/* and a CNO the EVD left for another one (dat_evd_modify_cno(3DAT):
	 * the EVD is then associated with the new CNO only), however the EVD
	 * got the first */
	for (int way = 0; way < CNO_WAYS; way++) {
		DAT_CNO_HANDLE from = dc_plain_cno(t), to = dc_plain_cno(t);
		DAT_EVD_HANDLE e = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, from, way);

		dc_note(t, "the EVD's first CNO %s, then moved to another", cno_way_name(way));
		DC_SETUP(dat_evd_modify_cno(e, to));
		DC_ASSERT_SUCCESS(dat_cno_free(from));
		DC_CLEANUP(dat_evd_free(e));
		DC_CLEANUP(dat_cno_free(to));
	}
}

/* Clause: freeing cno, which evd uses, is refused, changes nothing, and a
 * post to evd still wakes a waiter on cno. */
static void refused_still_works(struct dc_ctx *t, DAT_CNO_HANDLE cno, DAT_EVD_HANDLE evd,
				const char *what)
{
	struct dc_snap s;
	struct dc_waiter *w;
	DAT_RETURN r;

	dc_snapshot(t, DC_OBJ_CNO, cno, &s);
	r = dat_cno_free(cno);
	note_ret(t, what, r);
	DC_ASSERT_RET(r, DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&s);
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a post after the refused free");
	dc_waiter_free(w);
}

DC_CASE(dat_cno_free, in_use_by_evd,
	.summary = "freeing a CNO an EVD references (given at creation, then by modify) gives DAT_INVALID_STATE and leaves it working")
{
	for (int way = 0; way < CNO_WAYS; way++) {
		DAT_CNO_HANDLE cno = dc_plain_cno(t);
		DAT_EVD_HANDLE evd = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, cno, way);

		dc_note(t, "the EVD's CNO %s", cno_way_name(way));
		refused_still_works(t, cno, evd, "dat_cno_free with an EVD attached");
	}
}

/*
 * The CNO an EVD moved to from another CNO (dat_evd_modify_cno(3DAT)), the
 * first given at creation or by an earlier dat_evd_modify_cno: in use, and
 * it still works.
 */
DC_CASE(dat_cno_free, in_use_after_move,
	.clauses = "dat_cno_free.in_use_by_evd",
	.summary = "freeing the CNO an EVD was moved to from another CNO gives DAT_INVALID_STATE and leaves it working")
{
	for (int way = 0; way < CNO_WAYS; way++) {
		DAT_CNO_HANDLE from = dc_plain_cno(t), to = dc_plain_cno(t);
		DAT_EVD_HANDLE evd = evd_on_cno(8, DAT_EVD_SOFTWARE_FLAG, from, way);

		dc_note(t, "the EVD's first CNO %s, then moved to another", cno_way_name(way));
		DC_SETUP(dat_evd_modify_cno(evd, to));
		refused_still_works(t, to, evd, "dat_cno_free of the CNO the EVD moved to");
		DC_CLEANUP(dat_evd_free(evd));
		DC_CLEANUP(dat_cno_free(to));
		DC_CLEANUP(dat_cno_free(from));
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
