// SPDX-License-Identifier: MIT
/*
 * Cases that exist to test the harness and the runner: one per outcome.
 * They run against tests/runner/fakeprov.c (IA "fake0").
 */
#include "datcts.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

DC_CASE(selftest, pass,
	.clauses = "selftest.pass selftest.pass_too",
	.summary = "passes")
{
	DC_ASSERT_EQ(1 + 1, 2);
	DC_ASSERT_SUCCESS(DAT_SUCCESS);
	DC_ASSERT_RET(DAT_CLASS_ERROR | DAT_INVALID_STATE | DAT_INVALID_STATE_SRQ_IN_USE,
		      DAT_INVALID_STATE);
	DC_ASSERT_RET_ANY(DAT_INVALID_PARAMETER, DAT_INVALID_HANDLE,
			  DAT_INVALID_PARAMETER);
	printf("hello from a passing case\n");
}

DC_CASE(selftest, fail,
	.summary = "fails an assertion on a DAT code")
{
	DAT_RETURN r = DAT_SUCCESS;

	DC_ASSERT_RET_SUB(r, DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE);
}

DC_CASE(selftest, fail_int,
	.summary = "fails an integer assertion")
{
	int a = 3;

	DC_ASSERT_EQ(a, 4);
}

DC_CASE(selftest, crash_segv,
	.summary = "dies of SIGSEGV")
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)pg, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	DC_SETUP_ASSERT(p != MAP_FAILED, "mmap failed");
	DC_ASSERT_SUCCESS(DAT_SUCCESS);	/* the last check before the crash */
	p[0] = 1;
}

DC_CASE(selftest, crash_abort,
	.summary = "dies of SIGABRT")
{
	abort();
}

DC_CASE(selftest, exit_early,
	.summary = "exits without a verdict")
{
	exit(7);
}

DC_CASE(selftest, hang,
	.summary = "never returns (killed at the timeout)")
{
	for (;;)
		pause();
}

static void arm_evd_create_hang(struct dc_ctx *t)
{
	((void (*)(void))dc_provider_hook("datcts_fake_hang_in_evd_create"))();
}

DC_CASE(selftest, hang_in_setup,
	.summary = "the provider hangs in a set-up helper's dat_evd_create")
{
	arm_evd_create_hang(t);
	(void)dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DC_FAIL("must not get here");
}

DC_CASE(selftest, hang_in_call,
	.summary = "the provider hangs in the call the case checks")
{
	DAT_EVD_HANDLE evd;

	arm_evd_create_hang(t);
	DC_ASSERT_SUCCESS(dat_evd_create(t->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd));
}

DC_CASE(selftest, second_clause_misses,
	.clauses = "selftest.first_clause selftest.second_clause selftest.third_clause",
	.summary = "a case of three clauses misses at a check of the second")
{
	DC_FOR_CLAUSE("selftest.first_clause");
	DC_ASSERT_EQ(1, 1);
	DC_FOR_CLAUSE("selftest.second_clause");
	DC_ASSERT_EQ(1, 2);
	DC_FOR_CLAUSE("selftest.third_clause");
}

DC_CASE(selftest, for_a_clause_it_does_not_name,
	.summary = "DC_FOR_CLAUSE of a clause the case does not name is a case bug")
{
	DC_FOR_CLAUSE("selftest.elsewhere");
	DC_FAIL("must not get here");
}

DC_CASE(selftest, unsupported_srq,
	.summary = "needs SRQs, which the fake provider lacks",
	.requires = "srq_supported")
{
	DC_FAIL("must not run: the provider has no SRQ");
}

DC_CASE(selftest, requires_met,
	.summary = "requirements that the fake provider meets",
	.requires = "!srq_supported dapl_version_major=1 ia.max_evds>=8")
{
}

DC_CASE(selftest, requires_malformed,
	.summary = "a requirement naming no attribute is a case bug",
	.requires = "no_such_attribute")
{
}

DC_CASE(selftest, setup_fails,
	.summary = "a fixture fails: UNRESOLVED, not FAIL")
{
	DAT_PZ_HANDLE pz = dc_pz(t);

	(void)pz;
	DC_FAIL("must not get here");
}

DC_CASE(selftest, hook_present,
	.summary = "finds a provider test hook")
{
	int (*fn)(void) = (int (*)(void))dc_provider_hook("datcts_fake_hook_present");

	DC_ASSERT_EQ(fn(), 42);
}

DC_CASE(selftest, crash_in_teardown,
	.summary = "passes, then the provider dies of SIGSEGV in the teardown's dat_ia_close")
{
	void (*arm)(void) = (void (*)(void))dc_provider_hook("datcts_fake_crash_on_close");

	arm();
	DC_ASSERT_EQ(1, 1);
}

DC_CASE(selftest, crash_in_cleanup,
	.summary = "passes its checks, then the provider dies of SIGSEGV in a DC_CLEANUP close")
{
	void (*arm)(void) = (void (*)(void))dc_provider_hook("datcts_fake_crash_on_close");
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia2;

	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &evd, &ia2));
	DC_ASSERT_EQ(1, 1);
	arm();
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(selftest, short_of_resources,
	.summary = "the call under test runs short of resources, which its page allows")
{
	DC_ASSERT_SUCCESS_UNLESS_SHORT(DAT_CLASS_ERROR | DAT_INSUFFICIENT_RESOURCES);
	DC_FAIL("must not get here");
}

DC_CASE(selftest, requires_unreported,
	.summary = "needs an attribute the fake provider's dat_ia_query leaves unwritten",
	.requires = "lmr_sync_req")
{
	DC_FAIL("must not run: whether the case applies is not known");
}

DC_CASE(selftest, hook_absent,
	.summary = "a missing provider hook makes the case UNSUPPORTED",
	.needs = "hook:datcts_no_such_hook")
{
	(void)dc_provider_hook("datcts_no_such_hook");
	DC_FAIL("must not get here");
}

DC_CASE(selftest, model_not_supported,
	.summary = "DAT_MODEL_NOT_SUPPORTED on a page that lists it")
{
	DAT_RETURN r = DAT_CLASS_ERROR | DAT_MODEL_NOT_SUPPORTED;

	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_srq_set_lw",
				     "low watermarks are optional");
	DC_FAIL("must not get here");
}

DC_CASE(selftest, model_not_supported_wrong_page,
	.summary = "citing a page that does not list DAT_MODEL_NOT_SUPPORTED")
{
	DAT_RETURN r = DAT_CLASS_ERROR | DAT_MODEL_NOT_SUPPORTED;

	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_srq_free", "not allowed");
	DC_FAIL("must not get here");
}

DC_CASE(selftest, unchanged,
	.summary = "a snapshot compares equal when nothing changed")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	DC_ASSERT_NO_EVENT(evd);
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(selftest, changed,
	.summary = "a snapshot reports what changed")
{
	void (*bump)(DAT_EVD_HANDLE) =
		(void (*)(DAT_EVD_HANDLE))dc_provider_hook("datcts_fake_evd_bump_qlen");
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_EVD, evd, &s);
	bump(evd);
	DC_ASSERT_UNCHANGED_EXCEPT(&s, "evd_flags");
}

DC_CASE(selftest, noisy,
	.summary = "writes 200 KiB of output, then passes")
{
	static char line[101];
	int i;

	memset(line, 'x', 99);
	line[99] = '\n';
	for (i = 0; i < 2048; i++) {
		line[0] = (char)('a' + i % 26);
		fputs(line, stdout);
	}
	fputs("last line\n", stdout);
}

DC_CASE(selftest, no_ia,
	.summary = "a case that opens no IA",
	.flags = DC_NO_IA)
{
	DC_ASSERT_PTR_EQ(t->ia, DAT_HANDLE_NULL);
}

/* ---- two node ---- */

DC_TWO_NODE_CASE(selftest, relay,
	.summary = "two halves exchange messages through the relay");

DC_PASSIVE(selftest, relay)
{
	char buf[64];

	dc_announce_data(t, NULL, 4242, "extra");
	dc_peer_wait(t, "ping", buf, sizeof(buf));
	DC_ASSERT(!strcmp(buf, "hello"), "got '%s'", buf);
	dc_peer_send(t, "pong", "%s back", buf);
	dc_peer_wait(t, "done", NULL, 0);
}

DC_ACTIVE(selftest, relay)
{
	char buf[64];

	DC_ASSERT_EQ(t->peer.conn_qual, 4242);
	DC_ASSERT(!strcmp(t->peer.host, "127.0.0.1"), "host '%s'", t->peer.host);
	DC_ASSERT(!strcmp(t->peer.data, "extra"), "data '%s'", t->peer.data);
	dc_peer_send(t, "ping", "hello");
	dc_peer_wait(t, "pong", buf, sizeof(buf));
	DC_ASSERT(!strcmp(buf, "hello back"), "got '%s'", buf);
	dc_peer_send(t, "done", "%s", "");
}

DC_TWO_NODE_CASE(selftest, relay_active_fails,
	.summary = "the active half fails; the passive one is released");

DC_PASSIVE(selftest, relay_active_fails)
{
	dc_announce(t, NULL, 1);
	dc_peer_wait(t, "never", NULL, 0);
}

DC_ACTIVE(selftest, relay_active_fails)
{
	DC_FAIL("deliberate failure in the active half");
}

DC_TWO_NODE_CASE(selftest, relay_passive_crashes,
	.summary = "the passive half crashes before it is ready");

DC_PASSIVE(selftest, relay_passive_crashes)
{
	abort();
}

DC_ACTIVE(selftest, relay_passive_crashes)
{
	DC_FAIL("must not run: the passive half never announced");
}

DC_CASE(selftest, garbage_output,
	.summary = "prints bytes that are not UTF-8 and control characters")
{
	fputs("bad \xff\xfe bytes, a bell \a, a quote \" and a backslash \\\n", stdout);
	fputs("\x1b[31mred\x1b[0m\n", stderr);
}
