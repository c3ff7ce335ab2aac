// SPDX-License-Identifier: MIT
/*
 * mutants.c - run-time switches that break one rule of the man pages on
 * purpose, so the suite can prove that the case checking that rule fails.
 *
 * Usage: DATREF_MUTANT=<id>[,<id>...] in the environment of the process
 * that loads libdaplref.so.  The variable is read once (first call of
 * ref_mutant()); an id that is not in the table below is reported once
 * on stderr and otherwise ignored.  Unset, ref_mutant() is a pthread_once
 * check and one pointer compare.
 *
 * Table format, one entry per mutant:
 *     { "<id>", "<clause id>[ <clause id>...]", "<what it breaks>" },
 * optionally followed by
 *     .quick = true       one of the CI subset (datcts mutate --quick);
 *     .survives = "..."   why no case can kill it (an equivalent mutant, a
 *                         rule no case can provoke); reported with it.
 * <id>: lower-case words joined by '-', naming the object and the broken
 *       behaviour (e.g. "evd-resize-drops-events");
 * clause ids: the stable ids of clauses/<page>.toml that the mutant must
 *       make FAIL (space separated);
 * the code tests it where the rule is enforced:
 *     if (ref_mutant("evd-resize-drops-events")) ...
 * A mutant breaks that one rule and nothing else: it must not stop the
 * provider from working for the cases of other clauses.
 * Both halves of the provider (core and conn) add their mutants here.
 *
 * The table is this file's only copy: `datcts mutate` reads it from the
 * built library through daplref_test_mutant() (printed as JSON by
 * <build>/bin/datref-mutants), and tests/mutants checks that every id
 * tested in the sources is in the table and the other way round.
 * How to add one, and the kill matrix: docs/mutants.md.
 */
#include "ref.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ref_mutant_def {
	const char *id;
	const char *clauses;
	const char *what;
	bool quick;		/* in the CI subset */
	const char *survives;	/* known reason no case kills it, or NULL */
};

/* entries name only the fields they need (positional + designated) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct ref_mutant_def ref_mutants[] = {
	/* conn: endpoints, SRQ, data transfer */
	{ "ep-free-keeps-handle", "dat_ep_free.handle_unusable_after_free",
	  "dat_ep_free succeeds but the EP stays usable" },
	{ "fence-ignored", "dat_ep_post_send.barrier_fence",
	  "a fenced request starts before earlier RDMA Reads completed" },
	{ "recv-length-unchecked", "dat_ep_post_recv.message_too_long",
	  "an arriving message longer than the receive buffer is accepted" },
	{ "recv-query-span-below-count",
	  "dat_ep_recv_query.span_not_below_count",
	  "dat_ep_recv_query reports a span below the buffer count" },
	{ "send-length-unchecked", "dat_ep_post_send.exceeds_max_message_size",
	  "a Send above max_message_size is accepted" },
	{ "send-suppress-ignored", "dat_ep_post_send.suppress_success",
	  "successful suppressed requests still generate completions" },
	{ "srq-lw-never-fires", "dat_srq_set_lw.event_when_count_drops_below",
	  "the SRQ low watermark event is never generated" },
	{ "srq-outstanding-ignores-unreaped",
	  "dat_srq_query.outstanding_count dat_srq_resize.below_outstanding_unreaped",
	  "completed but unreaped SRQ receives are not counted outstanding" },
	{ "srq-resize-loses", "dat_srq_resize.below_outstanding_on_srq",
	  "dat_srq_resize shrinks below the outstanding buffers" },
	/* core: handles and the handle-generic calls (handle.c) */
	{ "handle-ia-invalid-is-parameter", "dat_ia_query.invalid_handle",
	  "an invalid IA handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-pz-invalid-is-parameter", "dat_pz_query.invalid_handle",
	  "an invalid PZ handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-lmr-invalid-is-parameter", "dat_lmr_query.invalid_handle",
	  "an invalid LMR handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-rmr-invalid-is-parameter", "dat_rmr_query.invalid_handle",
	  "an invalid RMR handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-evd-invalid-is-parameter", "dat_evd_query.invalid_handle",
	  "an invalid EVD handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-cno-invalid-is-parameter", "dat_cno_query.invalid_handle",
	  "an invalid CNO handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-ep-invalid-is-parameter", "dat_ep_query.invalid_handle",
	  "an invalid EP handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-srq-invalid-is-parameter", "dat_srq_query.invalid_handle",
	  "an invalid SRQ handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-psp-invalid-is-parameter", "dat_psp_query.invalid_handle",
	  "an invalid PSP handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-rsp-invalid-is-parameter", "dat_rsp_query.invalid_handle",
	  "an invalid RSP handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-cr-invalid-is-parameter", "dat_cr_query.invalid_handle",
	  "an invalid CR handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-any-invalid-is-parameter", "dat_get_handle_type.invalid_handle",
	  "an invalid handle of the handle-generic calls is reported as DAT_INVALID_PARAMETER" },
	{ "handle-invalid-generic-subtype", "dat_pz_query.invalid_handle",
	  "DAT_INVALID_HANDLE carries DAT_INVALID_HANDLE1 instead of the subtype naming the handle type" },
	{ "context-rejects-odd-values", "dat_set_consumer_context.opaque_no_check",
	  "odd or top-bit-set contexts are refused as invalid parameters" },
	{ "context-ignored-for-service-points", "dat_set_consumer_context.associates",
	  "setting the context of a PSP, RSP or CR succeeds but is not kept" },
	{ "context-set-keeps-first", "dat_set_consumer_context.replaces",
	  "a second set does not replace the first context" },
	{ "context-null-ignored", "dat_set_consumer_context.null_disassociates",
	  "setting a NULL context leaves the old one" },
	{ "context-truncated-to-32-bits", "dat_get_consumer_context.returns_context",
	  "only the low 32 bits of a context are kept" },
	{ "context-shared-by-ia", "dat_set_consumer_context.one_per_handle",
	  "all handles of an IA share one context" },
	{ "handle-type-rsp-reported-as-psp", "dat_get_handle_type.reports_type",
	  "dat_get_handle_type says PSP for an RSP" },
	{ "handle-type-ia-reported-as-pz", "dat_ia_open.opens_instance",
	  "dat_get_handle_type says PZ for an IA" },
	/* core: PZ (pz.c) */
	{ "pz-create-singleton", "dat_pz_create.creates_pz",
	  "dat_pz_create hands back the IA's existing PZ instead of a new one" },
	{ "pz-create-leaks-on-null-pointer", "dat_pz_create.invalid_parameter",
	  "a NULL pz_handle pointer is refused only after a PZ was made (and kept)" },
	{ "pz-create-limit-off-by-one", "dat_pz_create.insufficient_resources dat_ia_query.max_pzs_usable",
	  "PZ creation is refused one below max_pzs" },
	{ "pz-query-only-all-mask", "dat_pz_query.fills_requested",
	  "dat_pz_query fills nothing unless the mask is DAT_PZ_FIELD_ALL" },
	{ "pz-query-mask-unchecked", "dat_pz_query.invalid_mask",
	  "unknown dat_pz_query mask bits are accepted" },
	{ "pz-query-reports-first-ia", "dat_ia_open.unique_handle",
	  "dat_pz_query names the first IA ever queried as every PZ's IA" },
	{ "pz-free-ignores-users", "dat_pz_free.refused_while_in_use",
	  "a PZ still used by an EP, LMR or RMR is freed" },
	{ "pz-free-in-use-no-subtype", "dat_pz_free.refused_while_in_use",
	  "refusing to free a PZ in use omits DAT_INVALID_STATE_PZ_IN_USE" },
	{ "pz-free-keeps-handle", "dat_pz_free.destroys_unused dat_pz_free.stale_handle_fails",
	  "dat_pz_free succeeds but the PZ stays alive" },
	/* core: EVD (evd.c) and CNO (cno.c) */
	{ "evd-event-no-evd-handle",
	  "dat_evd_dequeue.returns_first_event dat_evd_wait.returns_first_event dat_evd_post_se.queued",
	  "events handed to the Consumer carry a NULL evd_handle" },
	{ "evd-lifo",
	  "dat_evd_dequeue.stream_order dat_evd_wait.stream_order dat_evd_post_se.queue_full",
	  "dat_evd_dequeue / dat_evd_wait take the newest event first" },
	{ "evd-dequeue-empty-succeeds",
	  "dat_evd_dequeue.queue_empty",
	  "dequeue from an empty EVD returns DAT_SUCCESS with an empty event" },
	{ "evd-dequeue-ignores-waiter",
	  "dat_evd_dequeue.refused_while_waiter",
	  "dat_evd_dequeue takes events while a thread waits on the EVD" },
	{ "evd-dequeue-race",
	  "dat_evd_dequeue.exactly_once",
	  "dequeue reads the head and removes it later without holding the lock" },
	{ "evd-dequeue-per-thread-cache",
	  "dat_evd_dequeue.serialized_order_kept",
	  "each thread prefetches one event for its next dequeue" },
	{ "evd-dequeue-not-mt-safe",
	  "dat_evd_dequeue.mt_safe",
	  "dat_evd_dequeue fails while another thread is inside it" },
	{ "evd-disabled-still-triggers-cno",
	  "dat_evd_disable.cno_not_notified dat_cno_wait.disabled_evd_silent",
	  "a disabled EVD still notifies its CNO" },
	{ "evd-disable-toggles",
	  "dat_evd_disable.already_disabled_noop",
	  "disabling a disabled EVD enables it" },
	{ "evd-enable-toggles",
	  "dat_evd_enable.already_enabled_noop",
	  "enabling an enabled EVD disables it" },
	{ "evd-enable-disable-not-mt-safe",
	  "dat_evd_disable.mt_safe dat_evd_enable.mt_safe",
	  "dat_evd_enable/disable fail while another thread is inside them" },
	{ "evd-enable-ignored",
	  "dat_evd_enable.cno_notified",
	  "dat_evd_enable succeeds but the EVD stays disabled" },
	{ "evd-disabled-mutes-waiter",
	  "dat_evd_enable.direct_waiters_unaffected",
	  "a direct waiter on a disabled EVD is not woken" },
	{ "evd-waiter-does-not-preempt-cno",
	  "dat_evd_enable.waiter_preempts_cno dat_evd_wait.cno_not_triggered_while_waiting dat_cno_wait.waited_evd_silent",
	  "an EVD with a direct waiter still notifies its CNO" },
	{ "evd-free-keeps-handle",
	  "dat_evd_free.destroys",
	  "dat_evd_free succeeds but the EVD stays alive" },
	{ "evd-free-refuses-queued",
	  "dat_evd_free.queued_events_lost",
	  "an EVD with queued events cannot be freed" },
	{ "evd-free-ignores-users",
	  "dat_evd_free.in_use_refused",
	  "an EVD still fed by an EP or PSP is freed" },
	{ "evd-modify-cno-keeps-old",
	  "dat_evd_modify_cno.new_cno_used",
	  "dat_evd_modify_cno keeps the old CNO" },
	{ "evd-modify-cno-null-ignored",
	  "dat_evd_modify_cno.null_detaches",
	  "dat_evd_modify_cno(DAT_HANDLE_NULL) keeps the CNO" },
	{ "evd-modify-cno-old-still-notified",
	  "dat_evd_modify_cno.new_cno_only_when_disabled",
	  "after dat_evd_modify_cno the old CNO is notified too" },
	{ "evd-post-se-drops-pointer",
	  "dat_evd_post_se.queued",
	  "a software event is queued without its pointer" },
	{ "evd-post-se-validates-pointer",
	  "dat_evd_post_se.pointer_opaque",
	  "software events with an unaligned pointer are refused" },
	{ "evd-post-se-full-overwrites",
	  "dat_evd_post_se.queue_full",
	  "dat_evd_post_se on a full queue drops the oldest event and succeeds" },
	{ "evd-post-se-full-reports-overflow",
	  "dat_evd_post_se.full_is_not_overflow",
	  "a refused dat_evd_post_se reports an overflow on the async EVD" },
	{ "evd-post-se-any-evd",
	  "dat_evd_post_se.non_software_evd",
	  "software events are accepted by EVDs without DAT_EVD_SOFTWARE_FLAG" },
	{ "evd-post-se-event-unchecked",
	  "dat_evd_post_se.invalid_event",
	  "dat_evd_post_se accepts events that are not DAT_SOFTWARE_EVENT" },
	{ "evd-query-only-all-mask",
	  "dat_evd_query.returns_requested",
	  "dat_evd_query fills nothing unless the mask is DAT_EVD_FIELD_ALL" },
	{ "evd-query-state-always-initial",
	  "dat_evd_query.reports_state dat_evd_set_unwaitable.query_reports_unwaitable",
	  "dat_evd_query always reports enabled and waitable" },
	{ "evd-query-waitable-bits-swapped",
	  "dat_evd_clear_unwaitable.query_reports_waitable",
	  "dat_evd_query swaps WAITABLE and UNWAITABLE" },
	{ "evd-query-mask-unchecked",
	  "dat_evd_query.invalid_mask",
	  "unknown dat_evd_query mask bits are accepted" },
	{ "evd-query-wrong-ia",
	  "dat_evd_create.returns_handle",
	  "dat_evd_query reports a NULL IA" },
	{ "evd-query-qlen-overstated",
	  "dat_evd_create.holds_min_qlen",
	  "dat_evd_query reports one more entry than the queue holds" },
	{ "evd-query-flags-wrong",
	  "dat_evd_create.query_reports_creation",
	  "dat_evd_query adds stream flags the EVD was not created with" },
	{ "evd-create-starts-disabled",
	  "dat_evd_create.starts_enabled_waitable",
	  "a new EVD starts disabled" },
	{ "evd-create-ignores-cno",
	  "dat_evd_create.cno_notified",
	  "the CNO given to dat_evd_create is not attached" },
	{ "evd-overflow-not-reported",
	  "dat_evd_create.overflow_reported_on_async_evd",
	  "an EVD overflow is not reported on the async EVD" },
	{ "evd-create-qlen-unchecked",
	  "dat_evd_create.invalid_qlen",
	  "dat_evd_create accepts a queue length below 1" },
	{ "evd-create-max-qlen-refused",
	  "dat_evd_create.qlen_above_max dat_ia_query.max_evd_qlen_usable",
	  "an EVD of exactly max_evd_qlen entries is refused" },
	{ "evd-create-flags-unchecked",
	  "dat_evd_create.invalid_flags",
	  "undefined EVD flag bits are accepted" },
	{ "evd-resize-ignored",
	  "dat_evd_resize.resizes",
	  "dat_evd_resize succeeds but the queue keeps its size" },
	{ "evd-resize-drops-newest",
	  "dat_evd_resize.keeps_events",
	  "dat_evd_resize loses the newest queued event" },
	{ "evd-resize-below-queued-truncates",
	  "dat_evd_resize.below_queued",
	  "resizing below the queued count drops events" },
	{ "evd-resize-qlen-unchecked",
	  "dat_evd_resize.invalid_qlen",
	  "dat_evd_resize accepts a length below 1 (and ignores it)" },
	{ "evd-resize-max-unchecked",
	  "dat_evd_resize.above_max",
	  "dat_evd_resize accepts lengths above max_evd_qlen" },
	{ "evd-resize-refuses-async",
	  "dat_evd_create.async_evd_modifiable dat_ia_open.async_evd_modifiable",
	  "the async EVD cannot be resized" },
	{ "evd-clear-unwaitable-ignored",
	  "dat_evd_clear_unwaitable.wait_permitted",
	  "dat_evd_clear_unwaitable succeeds but the EVD stays unwaitable" },
	{ "evd-clear-unwaitable-detaches-cno",
	  "dat_evd_clear_unwaitable.cno_unaffected",
	  "dat_evd_clear_unwaitable detaches the CNO" },
	{ "evd-set-unwaitable-detaches-cno",
	  "dat_evd_set_unwaitable.cno_and_dequeue_unaffected",
	  "dat_evd_set_unwaitable detaches the CNO" },
	{ "evd-unwaitable-blocks-dequeue",
	  "dat_evd_set_unwaitable.cno_and_dequeue_unaffected",
	  "dat_evd_dequeue is refused on an unwaitable EVD" },
	{ "evd-unwaitable-toggle-not-mt-safe",
	  "dat_evd_clear_unwaitable.mt_safe",
	  "set/clear_unwaitable fail while another thread is inside them" },
	{ "evd-wait-ignores-unwaitable",
	  "dat_evd_set_unwaitable.wait_refused dat_evd_wait.unwaitable_refused",
	  "dat_evd_wait waits on an unwaitable EVD" },
	{ "evd-set-unwaitable-no-wake",
	  "dat_evd_set_unwaitable.blocked_waiter_released",
	  "dat_evd_set_unwaitable does not wake a blocked waiter" },
	{ "evd-set-unwaitable-lost-wakeup",
	  "dat_evd_set_unwaitable.mt_safe",
	  "dat_evd_wait checks waitable and then sleeps without the lock: set_unwaitable in between is lost" },
	{ "evd-wait-second-waiter-allowed",
	  "dat_evd_wait.waiter_owns_evd",
	  "a second thread may wait on an EVD that has a waiter" },
	{ "evd-wait-timeout-ms",
	  "dat_evd_wait.timeout_in_microseconds",
	  "the dat_evd_wait timeout is read as milliseconds" },
	{ "evd-wait-infinite-clamped",
	  "dat_evd_wait.infinite_timeout",
	  "DAT_TIMEOUT_INFINITE waits 20 ms" },
	{ "evd-wait-timeout-nmore-zero",
	  "dat_evd_wait.timeout_below_threshold",
	  "a timed-out wait reports nmore 0" },
	{ "evd-wait-ignores-threshold",
	  "dat_evd_wait.threshold_reached",
	  "dat_evd_wait wakes at one event whatever the threshold" },
	{ "evd-wait-threshold-above-qlen-accepted",
	  "dat_evd_wait.threshold_above_qlen",
	  "a threshold above the queue length is clamped instead of refused" },
	{ "evd-wait-threshold-not-positive-accepted",
	  "dat_evd_wait.threshold_not_positive",
	  "a threshold below 1 is taken as 1" },
	{ "evd-wait-threshold-config-unchecked",
	  "dat_evd_wait.threshold_one_for_consumer_notification",
	  "thresholds above 1 are allowed on Consumer-notification EVDs" },
	{ "evd-wait-nmore-off-by-one",
	  "dat_evd_wait.nmore_on_success",
	  "nmore is one more than the events left" },
	{ "evd-wait-ia-close-not-abort",
	  "dat_evd_wait.abort_on_ia_close dat_ia_close.abrupt_aborts_evd_waiters",
	  "a waiter released by dat_ia_close gets DAT_INVALID_STATE, not DAT_ABORT" },
	{ "evd-wait-free-not-abort",
	  "dat_evd_wait.abort_on_evd_free",
	  "a waiter released by dat_evd_free gets DAT_INVALID_HANDLE, not DAT_ABORT" },
	{ "evd-wait-restarts-on-eintr",
	  "dat_evd_wait.interrupted_by_signal",
	  "dat_evd_wait goes back to sleep after a signal" },
	{ "evd-wait-global-waiter-slot",
	  "dat_evd_wait.mt_safe",
	  "a post wakes the last waiter of any EVD, not its own" },
	{ "cno-create-ignores-agent",
	  "dat_cno_create.returns_handle",
	  "dat_cno_create does not keep the agent" },
	{ "cno-create-counts-a-user",
	  "dat_cno_create.starts_unattached",
	  "a new CNO counts as in use" },
	{ "cno-agent-never-called",
	  "dat_cno_create.agent_invoked dat_cno_modify_agent.sets_agent",
	  "the OS Wait Proxy Agent is never called" },
	{ "cno-agent-kept-after-call",
	  "dat_cno_create.agent_one_shot",
	  "the agent stays associated after its upcall" },
	{ "cno-query-skips-null-agent",
	  "dat_cno_create.null_agent dat_cno_query.null_agent_reported",
	  "dat_cno_query leaves the agent unwritten when there is none" },
	{ "cno-agent-unchecked",
	  "dat_cno_create.invalid_agent dat_cno_modify_agent.invalid_agent",
	  "an agent with instance data but no function is accepted" },
	{ "cno-create-not-mt-safe",
	  "dat_cno_create.mt_safe",
	  "dat_cno_create fails while another thread is inside it" },
	{ "cno-detach-keeps-user",
	  "dat_cno_free.destroys_unused",
	  "an EVD moved off a CNO still counts as its user" },
	{ "cno-free-ignores-evds",
	  "dat_cno_free.in_use_by_evd",
	  "a CNO with EVDs attached is freed" },
	{ "cno-free-ignores-waiters",
	  "dat_cno_free.in_use_by_waiter",
	  "a CNO with a blocked waiter is freed" },
	{ "cno-modify-agent-ignored",
	  "dat_cno_modify_agent.sets_agent",
	  "dat_cno_modify_agent succeeds but installs nothing" },
	{ "cno-modify-agent-keeps-old",
	  "dat_cno_modify_agent.replaces_agent",
	  "the replaced agent is still called" },
	{ "cno-agent-replaces-local",
	  "dat_cno_modify_agent.in_addition_to_local",
	  "with an agent installed, dat_cno_wait waiters are not woken" },
	{ "cno-modify-null-ignored",
	  "dat_cno_modify_agent.null_disassociates",
	  "DAT_OS_WAIT_PROXY_AGENT_NULL does not remove the agent" },
	{ "cno-query-only-all-mask",
	  "dat_cno_query.returns_requested",
	  "dat_cno_query fills nothing unless the mask is DAT_CNO_FIELD_ALL" },
	{ "cno-query-mask-unchecked",
	  "dat_cno_query.invalid_mask",
	  "unknown dat_cno_query mask bits are accepted" },
	{ "cno-wait-reports-null-evd",
	  "dat_cno_wait.returns_on_notification",
	  "dat_cno_wait returns DAT_SUCCESS with a NULL EVD on a notification" },
	{ "cno-wait-reports-first-evd",
	  "dat_cno_wait.several_evds",
	  "dat_cno_wait always names the first EVD that ever fired" },
	{ "cno-wait-timeout-leaves-evd-handle",
	  "dat_cno_wait.timeout",
	  "a timed-out dat_cno_wait leaves *evd_handle unwritten" },
	{ "ia-close-skips-cno-agent",
	  "dat_cno_wait.released_on_ia_close dat_ia_close.abrupt_unblocks_cno_waiters",
	  "dat_ia_close does not call the agents of its CNOs" },
	{ "cno-evds-freed-keeps-waiters",
	  "dat_cno_wait.released_when_evds_freed",
	  "freeing a CNO's last EVD leaves its waiters blocked" },
	{ "cno-wait-restarts-on-eintr",
	  "dat_cno_wait.interrupted_by_signal",
	  "dat_cno_wait goes back to sleep after a signal" },
	{ "cno-wait-null-pointer-wrong-code",
	  "dat_cno_wait.null_evd_pointer",
	  "a NULL evd_handle pointer gives DAT_QUEUE_EMPTY" },
	{ "cno-wait-shared-waiter-list",
	  "dat_cno_wait.mt_safe",
	  "the waiters of every CNO share one list: a trigger wakes them all" },
	{ NULL, NULL, NULL },	/* terminator */
};
#pragma GCC diagnostic pop

#define REF_MAX_ACTIVE 16

static pthread_once_t mutant_once = PTHREAD_ONCE_INIT;
static const char *active[REF_MAX_ACTIVE];
static size_t nactive;
static const char **active_p;	/* NULL while no mutant is set */
static char *env_copy;

static const struct ref_mutant_def *find_def(const char *id)
{
	const struct ref_mutant_def *d;

	for (d = ref_mutants; d->id; d++)
		if (!strcmp(d->id, id))
			return d;
	return NULL;
}

static void mutant_init(void)
{
	const char *env = getenv("DATREF_MUTANT");
	char *save = NULL, *tok;

	if (!env || !*env)
		return;
	env_copy = strdup(env);
	if (!env_copy)
		return;
	for (tok = strtok_r(env_copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (!find_def(tok))
			fprintf(stderr,
				"libdaplref: DATREF_MUTANT: unknown mutant \"%s\" ignored\n",
				tok);
		else if (nactive < REF_MAX_ACTIVE)
			active[nactive++] = tok;
	}
	if (nactive)
		active_p = active;
}

/*
 * Exported for datref-mutants (and any tool): entry @i of the table.
 * Returns 0 and the fields, or -1 past the end.  @survives is NULL for a
 * mutant a case is expected to kill.
 */
__attribute__((visibility("default")))
int daplref_test_mutant(int i, const char **id, const char **clauses,
			const char **what, int *quick, const char **survives)
{
	const struct ref_mutant_def *d;

	if (i < 0 || (size_t)i >= sizeof(ref_mutants) / sizeof(ref_mutants[0]))
		return -1;
	d = &ref_mutants[i];
	if (!d->id)
		return -1;
	if (id)
		*id = d->id;
	if (clauses)
		*clauses = d->clauses;
	if (what)
		*what = d->what;
	if (quick)
		*quick = d->quick;
	if (survives)
		*survives = d->survives;
	return 0;
}

bool ref_mutant(const char *id)
{
	size_t i;

	pthread_once(&mutant_once, mutant_init);
	if (!active_p)
		return false;
	for (i = 0; i < nactive; i++)
		if (!strcmp(active[i], id))
			return true;
	return false;
}

/*
 * MT-safety mutants: the call behaves like one that is not thread safe,
 * detectably so - it refuses to run while another thread is inside it.
 */
bool ref_mutant_enter(const char *id, int *inside)
{
	if (!ref_mutant(id))
		return true;
	if (__atomic_fetch_add(inside, 1, __ATOMIC_SEQ_CST) > 0) {
		__atomic_fetch_sub(inside, 1, __ATOMIC_SEQ_CST);
		return false;
	}
	/* stay inside a while, so concurrent callers meet even on one CPU */
	sched_yield();
	return true;
}

void ref_mutant_leave(const char *id, int *inside)
{
	if (ref_mutant(id))
		__atomic_fetch_sub(inside, 1, __ATOMIC_SEQ_CST);
}

/* For dat_ia_query's provider-specific attribute "datcts.mutant". */
const char *ref_mutant_active(void)
{
	const char *env;

	pthread_once(&mutant_once, mutant_init);
	if (!active_p)
		return "none";
	env = getenv("DATREF_MUTANT");
	return env ? env : "none";
}
