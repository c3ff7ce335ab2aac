/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_disable(3DAT); clauses in clauses/dat_evd_disable.toml.
 */
#include "evd_common.h"

/*
 * The disabled EVD feeds the CNO each way the pages give: its cno_handle
 * at dat_evd_create, or dat_evd_modify_cno after the disable (the disabled
 * state then meets a CNO given later).
 */
static void cno_not_notified(struct dc_ctx *t, enum cno_way way)
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE e1 = evd_on_cno_after(cno, way, PREP_DISABLE, true);
	DAT_EVD_HANDLE e2 = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_EVD_HANDLE got = DC_UNWRITTEN_EVD;
	struct dc_waiter *w;
	DAT_RETURN r;

	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(e1, TAG(1));
	DC_ASSERT_STILL_WAITING(w, "a post to the disabled EVD");
	post(e2, TAG(2));
	EXPECT_CNO_WOKEN(w, e2, "a post to the enabled EVD of the same CNO");
	EXPECT_SW(e1, TAG(1));
	/* nor did the disabled EVD leave a notification behind */
	r = dat_cno_wait(cno, 20000, &got);
	DC_ASSERT(!(r == DAT_SUCCESS && got == e1),
		  "dat_cno_wait returned a notification from the disabled EVD %p", e1);
	if (r == DAT_SUCCESS)
		dc_note(t, "a later dat_cno_wait returned a notification of EVD %p", got);
	else
		DC_ASSERT_RET(r, DAT_QUEUE_EMPTY);
	dc_waiter_free(w);
}

DC_CASE(dat_evd_disable, cno_not_notified,
	.summary = "a disabled EVD (CNO given at creation, or by modify after the disable) queues events but does not wake its CNO's waiter")
{
	for (int way = 0; way < CNO_WAYS; way++)
		cno_not_notified(t, way);
}

DC_CASE(dat_evd_disable, already_disabled_noop,
	.summary = "disabling a disabled EVD succeeds and changes nothing")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct dc_snap s;

	post(evd, TAG(1));
	DC_SETUP(dat_evd_disable(evd));
	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	DC_ASSERT_SUCCESS(dat_evd_disable(evd));
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT(EVD_DISABLED(s.u.evd.evd_state), "state 0x%x is not disabled",
		  (unsigned int)s.u.evd.evd_state);
	EXPECT_SW(evd, TAG(1));
}

DC_CASE(dat_evd_disable, in_flight_wakeup,
	.summary = "a disable racing posts may let one wake-up through; once settled the disabled EVD wakes nobody")
{
	/* 200 posts racing, fewer on an IA whose queues are shorter
	 * (dat_ia_query(3DAT) Max EVD queue size): the race is the same */
	const int N = (int)dc_within_limit(200, dc_limit_less(t->ia_attr.max_evd_qlen, 8));
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, dc_within_limit(256, t->ia_attr.max_evd_qlen),
					      DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	struct poster p[1] = { { .evd = evd, .first = 0, .n = N } };
	struct dc_gate g;
	pthread_t th[1];
	int n;

	DC_ASSERT_BLOCKS(w);
	dc_gate_init(&g, 2);
	p[0].g = &g;
	dc_threads_start(th, 1, poster_main, p);
	dc_gate_pass(&g);
	DC_ASSERT_SUCCESS(dat_evd_disable(evd));
	dc_threads_join(th, 1);
	DC_SETUP_ASSERT(p[0].bad == DAT_SUCCESS, "set-up: the poster got %s",
			dc_ret_text(p[0].bad));
	if (dc_waiter_done(w)) {
		dc_note(t, "the CNO waiter was woken during the race");
		DC_ASSERT(w->ret == DAT_SUCCESS && w->evd == evd,
			  "the woken CNO waiter got %s with EVD %p, expected DAT_SUCCESS with %p",
			  dc_ret_text(w->ret), w->evd, evd);
	} else {
		dc_note(t, "the CNO waiter was not woken during the race");
		release_cno_waiter(w);
	}
	n = cno_drain(cno);
	if (n)
		dc_note(t, "%d notification(s) were still held by the CNO", n);
	/* settled: the disabled EVD wakes nobody */
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(N));
	DC_ASSERT_STILL_WAITING(w, "a post to the disabled EVD after the race");
	release_cno_waiter(w);
	EXPECT_SW_N(evd, 0, N + 1);
	DC_ASSERT_NO_EVENT(evd);
}

/* Clause: dat_evd_disable refuses each handle of bad_evd_handles(freed) with
 * DAT_INVALID_HANDLE. */
static void refuses_bad_handles(struct dc_ctx *t, bool freed)
{
	DAT_EVD_HANDLE bad[3];
	const char *names[3];
	int n = bad_evd_handles(t, bad, names, freed);
	DAT_RETURN r;

	for (int i = 0; i < n; i++) {
		char what[96];

		r = dat_evd_disable(bad[i]);
		snprintf(what, sizeof(what), "dat_evd_disable(%s)", names[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_HANDLE, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_HANDLE", what, dc_ret_text(r));
	}
}

DC_CASE(dat_evd_disable, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, false);
}

/* The same for a freed EVD: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_evd_disable, invalid_handle_freed,
	.clauses = "dat_evd_disable.invalid_handle",
	.summary = "a freed EVD handle gives DAT_INVALID_HANDLE")
{
	refuses_bad_handles(t, true);
}

DC_CASE(dat_evd_disable, mt_safe,
	.summary = "4 threads alternating disable/enable on one EVD: every call succeeds, state stays coherent")
{
	enum { NT = 4 };
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_SOFTWARE_FLAG);
	struct hammer h[NT];
	struct dc_gate g;
	DAT_EVD_PARAM p;

	dc_gate_init(&g, NT);
	memset(h, 0, sizeof(h));
	for (int i = 0; i < NT; i++)
		h[i] = (struct hammer){ .g = &g, .evd = evd,
					.op = H_DISABLE_ENABLE, .n = 2000 };
	dc_run_threads(NT, hammer_main_, h);
	ASSERT_HAMMERS(h, NT);
	p = DC_EVD_PARAM(evd);
	DC_ASSERT(EVD_ENABLED(p.evd_state) || EVD_DISABLED(p.evd_state),
		  "state 0x%x is neither cleanly enabled nor cleanly disabled",
		  (unsigned int)p.evd_state);
	DC_ASSERT_SUCCESS(dat_evd_disable(evd));
	p = DC_EVD_PARAM(evd);
	DC_ASSERT(EVD_DISABLED(p.evd_state), "state 0x%x after a final disable",
		  (unsigned int)p.evd_state);
}
