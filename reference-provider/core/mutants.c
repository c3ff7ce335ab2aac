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
	  "dat_ep_recv_query reports a span below the buffer count",
	  .quick = true },
	{ "send-length-unchecked", "dat_ep_post_send.exceeds_max_message_size",
	  "a Send above max_message_size is accepted",
	  .quick = true },
	{ "send-suppress-ignored", "dat_ep_post_send.suppress_success",
	  "successful suppressed requests still generate completions" },
	{ "srq-lw-never-fires", "dat_srq_set_lw.event_when_count_drops_below",
	  "the SRQ low watermark event is never generated",
	  .quick = true },
	{ "srq-outstanding-ignores-unreaped",
	  "dat_srq_query.outstanding_count dat_srq_resize.below_outstanding_unreaped",
	  "completed but unreaped SRQ receives are not counted outstanding" },
	{ "srq-resize-loses", "dat_srq_resize.below_outstanding_on_srq",
	  "dat_srq_resize shrinks below the outstanding buffers",
	  .quick = true },
	/* core: handles and the handle-generic calls (handle.c) */
	{ "handle-ia-invalid-is-parameter", "dat_ia_query.invalid_handle",
	  "an invalid IA handle is reported as DAT_INVALID_PARAMETER",
	  .survives = "equivalent through libdat: the registry refuses an IA handle "
		      "dat_ia_open did not return (or that was closed) before any "
		      "provider sees it" },
	{ "handle-pz-invalid-is-parameter",
	  "dat_lmr_create.invalid_handle dat_pz_free.invalid_handle "
	  "dat_pz_query.invalid_handle dat_rmr_create.invalid_handle",
	  "an invalid PZ handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-lmr-invalid-is-parameter",
	  "dat_lmr_create.invalid_handle dat_lmr_free.invalid_handle "
	  "dat_lmr_query.invalid_handle",
	  "an invalid LMR handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-rmr-invalid-is-parameter",
	  "dat_rmr_bind.invalid_handle dat_rmr_free.invalid_handle "
	  "dat_rmr_query.invalid_handle",
	  "an invalid RMR handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-evd-invalid-is-parameter",
	  "dat_evd_clear_unwaitable.invalid_handle "
	  "dat_evd_dequeue.invalid_handle dat_evd_disable.invalid_handle "
	  "dat_evd_enable.invalid_handle dat_evd_free.invalid_handle "
	  "dat_evd_modify_cno.invalid_handle "
	  "dat_evd_post_se.invalid_handle dat_evd_query.invalid_handle "
	  "dat_evd_resize.invalid_handle "
	  "dat_evd_set_unwaitable.invalid_handle "
	  "dat_evd_wait.invalid_handle",
	  "an invalid EVD handle is reported as DAT_INVALID_PARAMETER",
	  .quick = true },
	{ "handle-cno-invalid-is-parameter",
	  "dat_cno_free.invalid_handle "
	  "dat_cno_modify_agent.invalid_handle "
	  "dat_cno_query.invalid_handle dat_cno_wait.invalid_handle "
	  "dat_evd_create.invalid_cno_handle "
	  "dat_evd_modify_cno.invalid_handle",
	  "an invalid CNO handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-ep-invalid-is-parameter",
	  "dat_cr_accept.invalid_ep_handle dat_ep_connect.invalid_handle "
	  "dat_ep_disconnect.invalid_handle "
	  "dat_ep_dup_connect.invalid_handle dat_ep_free.invalid_handle "
	  "dat_ep_get_status.invalid_handle dat_ep_modify.invalid_handle "
	  "dat_ep_post_rdma_read.invalid_handle "
	  "dat_ep_post_rdma_write.invalid_handle "
	  "dat_ep_post_recv.invalid_handle "
	  "dat_ep_post_send.invalid_handle dat_ep_query.invalid_handle "
	  "dat_ep_recv_query.invalid_handle dat_ep_reset.invalid_handle "
	  "dat_ep_set_watermark.invalid_handle "
	  "dat_rmr_bind.invalid_handle dat_rsp_create.invalid_ep_handle",
	  "an invalid EP handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-srq-invalid-is-parameter",
	  "dat_srq_free.invalid_handle dat_srq_post_recv.invalid_handle "
	  "dat_srq_query.invalid_handle dat_srq_resize.invalid_handle "
	  "dat_srq_set_lw.invalid_handle",
	  "an invalid SRQ handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-psp-invalid-is-parameter",
	  "dat_psp_free.invalid_handle dat_psp_query.invalid_handle",
	  "an invalid PSP handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-rsp-invalid-is-parameter",
	  "dat_rsp_free.invalid_handle dat_rsp_query.invalid_handle",
	  "an invalid RSP handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-cr-invalid-is-parameter",
	  "dat_cr_accept.invalid_cr_handle dat_cr_handoff.invalid_handle "
	  "dat_cr_query.invalid_handle dat_cr_reject.invalid_handle",
	  "an invalid CR handle is reported as DAT_INVALID_PARAMETER" },
	{ "handle-any-invalid-is-parameter",
	  "dat_get_consumer_context.invalid_handle "
	  "dat_get_handle_type.invalid_handle "
	  "dat_set_consumer_context.invalid_handle",
	  "an invalid handle of the handle-generic calls is reported as DAT_INVALID_PARAMETER" },
	{ "handle-invalid-generic-subtype",
	  "dat_lmr_free.invalid_handle dat_lmr_query.invalid_handle "
	  "dat_pz_free.invalid_handle dat_pz_query.invalid_handle "
	  "dat_rmr_create.invalid_handle dat_rmr_free.invalid_handle "
	  "dat_rmr_query.invalid_handle",
	  "DAT_INVALID_HANDLE carries DAT_INVALID_HANDLE1 instead of the subtype naming the handle type",
	  .quick = true },
	{ "context-rejects-odd-values", "dat_set_consumer_context.opaque_no_check",
	  "odd or top-bit-set contexts are refused as invalid parameters" },
	{ "context-ignored-for-service-points", "dat_set_consumer_context.associates",
	  "setting the context of a PSP, RSP or CR succeeds but is not kept" },
	{ "context-set-keeps-first", "dat_set_consumer_context.replaces",
	  "a second set does not replace the first context" },
	{ "context-null-ignored", "dat_set_consumer_context.null_disassociates",
	  "setting a NULL context leaves the old one" },
	{ "context-truncated-to-32-bits", "dat_get_consumer_context.returns_context",
	  "only the low 32 bits of a context are kept",
	  .quick = true },
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
	{ "pz-query-wrong-ia", "dat_pz_query.fills_requested",
	  "dat_pz_query reports a NULL IA" },
	{ "pz-query-mask-unchecked", "dat_pz_query.invalid_mask",
	  "unknown dat_pz_query mask bits are accepted" },
	{ "pz-query-reports-first-ia", "dat_ia_open.unique_handle",
	  "dat_pz_query names the first IA ever queried as every PZ's IA" },
	{ "pz-free-ignores-users", "dat_pz_free.refused_while_in_use",
	  "a PZ still used by an EP, LMR or RMR is freed",
	  .quick = true },
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
	  "dat_evd_dequeue / dat_evd_wait take the newest event first",
	  .quick = true },
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
	  "a refused dat_evd_post_se reports an overflow on the async EVD",
	  .quick = true },
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
	  "dat_evd_create.returns_handle dat_ia_open.objects_owned_by_ia",
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
	  "dat_evd_resize loses the newest queued event",
	  .quick = true },
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
	  "dat_evd_wait wakes at one event whatever the threshold",
	  .quick = true },
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
	  "the agent stays associated after its upcall",
	  .quick = true },
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
	  "a CNO with EVDs attached is freed",
	  .quick = true },
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
	/* core: IA (ia.c), registration (provider.c), LMR (lmr.c), RMR (rmr.c) */
	{ "ia-open-single-instance",
	  "dat_ia_open.multiple_instances",
	  "a second dat_ia_open while one IA is open fails" },
	{ "ia-open-async-evd-not-returned",
	  "dat_ia_open.null_async_evd_creates",
	  "the async EVD made by dat_ia_open is not handed back" },
	{ "ia-open-async-evd-small",
	  "dat_ia_open.async_evd_qlen_at_least_min dat_evd_create.async_evd_by_ia_open",
	  "the async EVD made by dat_ia_open holds 16 events whatever the minimum" },
	{ "ia-open-async-evd-with-cno",
	  "dat_ia_open.async_evd_no_cno",
	  "the async EVD made by dat_ia_open has a CNO" },
	{ "ia-open-passed-evd-checks-qlen",
	  "dat_ia_open.passed_async_evd_used",
	  "async_evd_min_qlen is checked even when an async EVD is passed in" },
	{ "ia-open-bad-async-evd-wrong-code",
	  "dat_ia_open.async_evd_check_optional",
	  "an EVD that is no async EVD is refused with DAT_INVALID_PARAMETER" },
	{ "ia-open-bad-async-evd-overwrites-handle",
	  "dat_ia_open.invalid_async_evd",
	  "a refused async EVD handle is overwritten with NULL" },
	{ "ia-open-bad-async-evd-no-subtype",
	  "dat_ia_open.invalid_async_evd",
	  "a refused async EVD gives DAT_INVALID_HANDLE without DAT_INVALID_HANDLE_EVD_ASYNC" },
	{ "ia-async-ignores-passed-evd",
	  "dat_ia_open.async_events_to_passed_evd",
	  "asynchronous events of an IA opened with a passed async EVD are dropped" },
	{ "ia-open-async-exists-creates",
	  "dat_ia_open.async_evd_exists_accepted",
	  "DAT_EVD_ASYNC_EXISTS is treated as NULL: an async EVD is created" },
	{ "ia-query-exists-reports-null",
	  "dat_ia_open.out_of_scope_reported",
	  "an IA opened with DAT_EVD_ASYNC_EXISTS reports a NULL async EVD" },
	{ "ia-open-negative-qlen-accepted",
	  "dat_ia_open.invalid_parameter",
	  "a negative async_evd_min_qlen is accepted" },
	{ "ia-query-only-all-mask",
	  "dat_ia_query.fills_requested",
	  "dat_ia_query fills nothing unless the mask is DAT_*_FIELD_ALL" },
	{ "ia-query-async-evd-null",
	  "dat_ia_query.async_evd_reported",
	  "dat_ia_query reports a NULL async EVD" },
	{ "ia-query-attrs-per-instance",
	  "dat_ia_query.ia_attrs_common",
	  "max_pzs differs between two instances of the IA" },
	{ "ia-query-adapter-name-wrong",
	  "dat_ia_query.adapter_name_is_ia_name",
	  "adapter_name is the library's name, not the IA name" },
	{ "ia-query-address-unspec",
	  "dat_ia_query.ia_address",
	  "ia_address_ptr points at an AF_UNSPEC address" },
	{ "ia-query-max-dto-overstated",
	  "dat_ia_query.max_dto_per_ep_usable",
	  "max_dto_per_ep is twice what an EP supports" },
	{ "ia-query-max-evd-qlen-overstated",
	  "dat_ia_query.max_evd_qlen_usable",
	  "max_evd_qlen is twice what dat_evd_create accepts" },
	{ "ia-query-max-iov-overstated",
	  "dat_ia_query.max_iov_usable",
	  "max_iov_segments_per_dto is twice what an EP supports" },
	{ "ia-query-max-lmr-va-small",
	  "dat_ia_query.max_lmr_virtual_address",
	  "max_lmr_virtual_address is below the addresses LMRs cover" },
	{ "ia-query-named-attr-null-value",
	  "dat_ia_query.named_attrs_well_formed",
	  "a transport attribute has a NULL value" },
	{ "ia-query-dapl-version-wrong",
	  "dat_ia_query.dapl_version dat_provider_init.attrs_match_registration",
	  "dapl_version_minor is 1" },
	{ "ia-query-iov-ownership-invalid",
	  "dat_ia_query.iov_ownership_valid",
	  "iov_ownership_on_return is no DAT_IOV_* value" },
	{ "ia-query-qos-undefined-bits",
	  "dat_ia_query.qos_valid",
	  "dat_qos_supported has an undefined bit" },
	{ "ia-query-completion-flags-undefined-bits",
	  "dat_ia_query.completion_flags_valid",
	  "completion_flags_supported has an undefined bit" },
	{ "ia-query-thread-safe-not-boolean",
	  "dat_ia_query.thread_safety_boolean",
	  "is_thread_safe is 2" },
	{ "ia-query-thread-safe-mismatch",
	  "dat_provider_init.attrs_match_registration",
	  "is_thread_safe is DAT_TRUE although registered nonthreadsafe" },
	{ "ia-query-private-data-small",
	  "dat_ia_query.private_data_at_least_64",
	  "max_private_data_size is 32" },
	{ "ia-query-ep-creator-invalid",
	  "dat_ia_query.ep_creator_valid",
	  "ep_creator is no DAT_PSP_CREATES_EP_* value" },
	{ "ia-query-alignment-bad",
	  "dat_ia_query.optimal_alignment",
	  "optimal_buffer_alignment is 48",
	  .quick = true },
	{ "ia-query-merging-asymmetric",
	  "dat_ia_query.stream_merging_matrix",
	  "evd_stream_merging_supported is not symmetric" },
	{ "ia-query-merging-partial",
	  "dat_ia_query.stream_merging_all",
	  "two event streams may not share an EVD" },
	{ "ia-query-mask-unchecked",
	  "dat_ia_query.invalid_parameter",
	  "undefined dat_ia_query mask bits are accepted" },
	{ "ia-close-graceful-counts-async-evd",
	  "dat_ia_close.graceful_ignores_created_async_evd",
	  "a graceful close counts the async EVD made by dat_ia_open as left over" },
	{ "ia-close-flags-unchecked",
	  "dat_ia_close.invalid_flags",
	  "unknown close flags are taken as abrupt" },
	{ "ia-close-graceful-ignores-objects",
	  "dat_ia_close.graceful_refused_with_objects",
	  "a graceful close destroys objects that are left like an abrupt one",
	  .quick = true },
	{ "ia-close-in-use-no-subtype",
	  "dat_ia_close.graceful_refused_with_objects",
	  "a refused graceful close omits DAT_INVALID_STATE_IA_IN_USE" },
	{ "ia-close-abrupt-refuses-connected",
	  "dat_ia_close.abrupt_always_succeeds",
	  "an abrupt close is refused while an EP is connected" },
	{ "ia-close-abrupt-refuses-queued-events",
	  "dat_ia_close.abrupt_always_succeeds dat_evd_free.ia_close_destroys_evds",
	  "an abrupt close is refused while an EVD holds events" },
	{ "ia-close-leaks-fd",
	  "dat_ia_close.no_leaks",
	  "every close leaks a file descriptor" },
	{ "ia-close-keeps-created-async-evd",
	  "dat_ia_close.created_async_evd_destroyed",
	  "the async EVD made by dat_ia_open survives the close" },
	{ "ia-close-keeps-handle",
	  "dat_ia_close.destroys_instance",
	  "dat_ia_close succeeds but the IA handle keeps working",
	  .survives = "equivalent through libdat: after dat_ia_close the registry "
		      "itself refuses the IA handle; only the leak shows "
		      "(dat_ia_close.no_leaks)" },
	{ "ia-close-frees-passed-async-evd",
	  "dat_ia_close.passed_async_evd_kept",
	  "closing an IA frees the async EVD the Consumer passed in" },
	{ "provider-init-ignores-reinit",
	  "dat_provider_init.called_again_after_fini",
	  "dat_provider_init does not register a name again after dat_provider_fini" },
	{ "provider-init-registers-other-name",
	  "dat_provider_init.registers_given_name",
	  "dat_provider_init registers the IA name with a '_' appended" },
	{ "provider-init-registers-extra-name",
	  "dat_provider_init.no_other_names",
	  "dat_provider_init also registers the name ref-sock" },
	{ "provider-fini-keeps-registration",
	  "dat_provider_fini.unregisters_name",
	  "dat_provider_fini leaves the name registered" },
	{ "lmr-query-privileges-wrong",
	  "dat_lmr_create.registers_virtual dat_lmr_query.fills_requested",
	  "dat_lmr_query adds remote write to the privileges" },
	{ "lmr-create-requires-resident-memory",
	  "dat_lmr_create.provider_pins_memory",
	  "memory that is not resident yet cannot be registered" },
	{ "lmr-local-context-refused",
	  "dat_lmr_create.context_for_local_dtos",
	  "no lmr_context is accepted in a local segment" },
	{ "lmr-create-type-lmr-refused",
	  "dat_lmr_create.handle_for_lmr_type",
	  "DAT_MEM_TYPE_LMR registrations are refused" },
	{ "lmr-registered-range-short",
	  "dat_lmr_create.registered_range_covers",
	  "the registered range is one byte short of the region" },
	{ "lmr-local-pz-unchecked",
	  "dat_lmr_create.pz_restricts_local_access dat_pz_create.protects_local_access",
	  "local segments of an LMR of another PZ are accepted",
	  .quick = true },
	{ "lmr-shared-cookie-as-string",
	  "dat_lmr_create.shared_cookie_all_bytes",
	  "the shared memory cookie is copied as a C string" },
	{ "lmr-rmr-context-unusable",
	  "dat_lmr_create.rmr_context_for_remote",
	  "an LMR's rmr_context is refused for remote access" },
	{ "lmr-rmr-context-always",
	  "dat_lmr_create.no_rmr_context_without_remote",
	  "an rmr_context is made without remote privileges" },
	{ "lmr-remote-priv-unchecked",
	  "dat_lmr_create.remote_only_as_granted",
	  "remote access through an LMR's rmr_context ignores its privileges" },
	{ "rmr-remote-priv-unchecked",
	  "dat_rmr_bind.privileges_restrict_remote",
	  "remote access through an RMR ignores its privileges" },
	{ "mem-remote-pz-unchecked",
	  "dat_pz_create.protects_remote_access dat_rmr_create.pz_restricts_access",
	  "remote access to memory of another PZ is allowed",
	  .quick = true },
	{ "lmr-create-type-lmr-uses-length",
	  "dat_lmr_create.type_lmr_same_range",
	  "DAT_MEM_TYPE_LMR registers the length argument, not the original's range" },
	{ "lmr-create-shared-unsupported",
	  "dat_ia_query.mem_types_all_supported dat_lmr_create.type_shared_virtual",
	  "DAT_MEM_TYPE_SHARED_VIRTUAL is not supported" },
	{ "lmr-create-priv-unchecked",
	  "dat_lmr_create.invalid_parameter",
	  "undefined privilege bits are accepted" },
	{ "lmr-create-shared-private-accepted",
	  "dat_lmr_create.shared_not_shared_invalid_state",
	  "private memory is registered as shared" },
	{ "lmr-create-unknown-type-as-virtual",
	  "dat_lmr_create.unknown_type_refused",
	  "an unknown memory type is registered as virtual" },
	{ "lmr-create-limit-off-by-one",
	  "dat_lmr_create.insufficient_resources",
	  "LMR creation is refused one below max_lmrs" },
	{ "lmr-create-type-lmr-inherits",
	  "dat_lmr_create.lmr_over_lmr_own_pz_privileges",
	  "an LMR made over an LMR takes the original's PZ and privileges" },
	{ "lmr-free-keeps-rmr-context",
	  "dat_lmr_create.rmr_context_until_free dat_lmr_free.remote_use_after_free_fails",
	  "a freed LMR's rmr_context keeps working" },
	{ "lmr-free-keeps-pz-user",
	  "dat_lmr_free.destroys_unused",
	  "a freed LMR still counts as a user of its PZ" },
	{ "lmr-free-ignores-rmr",
	  "dat_lmr_free.refused_while_rmr_bound",
	  "an LMR with an RMR bound into it is freed" },
	{ "lmr-free-in-use-no-subtype",
	  "dat_lmr_free.refused_while_rmr_bound",
	  "refusing to free an LMR in use omits DAT_INVALID_STATE_LMR_IN_USE",
	  .quick = true },
	{ "lmr-free-scribbles",
	  "dat_lmr_free.memory_kept",
	  "dat_lmr_free clears the Consumer's memory" },
	{ "lmr-free-keeps-handle",
	  "dat_lmr_free.stale_handle_fails",
	  "dat_lmr_free succeeds but the LMR stays alive" },
	{ "lmr-free-keeps-local-context",
	  "dat_lmr_free.local_use_after_free_fails",
	  "a freed LMR's lmr_context keeps working locally" },
	{ "lmr-query-mask-unchecked",
	  "dat_lmr_query.invalid_mask",
	  "undefined dat_lmr_query mask bits are accepted" },
	{ "lmr-rdma-read-needs-sync",
	  "dat_lmr_sync_rdma_read.needed_only_if_required",
	  "RDMA Reads are served from a copy refreshed only by dat_lmr_sync_rdma_read, although lmr_sync_req is false" },
	{ "lmr-rdma-write-needs-sync",
	  "dat_lmr_sync_rdma_write.needed_only_if_required",
	  "RDMA Writes land in a copy the Consumer sees only after dat_lmr_sync_rdma_write, although lmr_sync_req is false" },
	{ "lmr-sync-read-no-op",
	  "dat_lmr_sync_rdma_read.makes_visible",
	  "RDMA Reads are served from a copy that dat_lmr_sync_rdma_read does not refresh" },
	{ "lmr-sync-write-no-op",
	  "dat_lmr_sync_rdma_write.makes_visible",
	  "RDMA Writes land in a copy that dat_lmr_sync_rdma_write does not copy back" },
	{ "lmr-sync-read-one-pz",
	  "dat_lmr_sync_rdma_read.batch_segments",
	  "dat_lmr_sync_rdma_read refuses segments of more than one PZ" },
	{ "lmr-sync-write-one-pz",
	  "dat_lmr_sync_rdma_write.batch_segments",
	  "dat_lmr_sync_rdma_write refuses segments of more than one PZ" },
	{ "lmr-sync-read-bounds-unchecked",
	  "dat_lmr_sync_rdma_read.segment_outside_lmr",
	  "dat_lmr_sync_rdma_read does not check segment bounds" },
	{ "lmr-sync-write-bounds-unchecked",
	  "dat_lmr_sync_rdma_write.segment_outside_lmr",
	  "dat_lmr_sync_rdma_write does not check segment bounds" },
	{ "lmr-sync-read-context-unchecked",
	  "dat_lmr_sync_rdma_read.invalid_lmr",
	  "dat_lmr_sync_rdma_read skips segments of unknown LMRs" },
	{ "lmr-sync-write-context-unchecked",
	  "dat_lmr_sync_rdma_write.invalid_lmr",
	  "dat_lmr_sync_rdma_write skips segments of unknown LMRs" },
	{ "rmr-create-limit-off-by-one",
	  "dat_rmr_create.insufficient_resources",
	  "RMR creation is refused one below max_rmrs" },
	{ "rmr-create-skips-pz-user",
	  "dat_rmr_create.creates_rmr",
	  "a new RMR does not hold its PZ" },
	{ "rmr-query-mask-unchecked",
	  "dat_rmr_query.invalid_mask",
	  "undefined dat_rmr_query mask bits are accepted" },
	{ "rmr-query-unbound-refused",
	  "dat_rmr_query.unbound_undefined",
	  "an unbound RMR cannot be queried" },
	{ "rmr-query-context-wrong",
	  "dat_rmr_query.fills_requested",
	  "dat_rmr_query reports another rmr_context than the bind returned" },
	{ "rmr-free-keeps-handle",
	  "dat_rmr_free.stale_handle_fails",
	  "dat_rmr_free succeeds but the RMR stays alive" },
	{ "rmr-free-keeps-context",
	  "dat_rmr_free.remote_use_after_free_fails",
	  "a freed bound RMR's context keeps working" },
	{ "rmr-free-keeps-lmr-user",
	  "dat_rmr_free.destroys_bound",
	  "freeing a bound RMR leaves its LMR in use" },
	{ "rmr-free-keeps-pz-user",
	  "dat_rmr_free.destroys_unbound",
	  "a freed RMR still counts as a user of its PZ" },
	{ "rmr-bind-bounds-unchecked",
	  "dat_rmr_bind.triplet_outside_lmr",
	  "a window outside its LMR is bound" },
	{ "rmr-bind-refuses-fresh-rmr",
	  "dat_rmr_create.bindable dat_lmr_create.context_for_rmr_bind",
	  "an RMR that was never bound cannot be bound" },
	{ "rmr-bind-unsignalled-unchecked",
	  "dat_rmr_bind.unsignalled_needs_ep_config",
	  "an unsignalled bind is accepted whatever the EP's completion flags" },
	{ "rmr-bind-any-state",
	  "dat_rmr_bind.invalid_state",
	  "binds are accepted in any EP state" },
	{ "rmr-bind-queue-full-accepted",
	  "dat_rmr_bind.insufficient_resources",
	  "a bind is accepted when the request queue is full" },
	{ "rmr-bind-refused-when-disconnected",
	  "dat_rmr_bind.valid_states",
	  "a bind to a DISCONNECTED EP is refused" },
	{ "rmr-bind-pz-unchecked",
	  "dat_rmr_bind.protection_violation",
	  "a bind across protection zones is accepted" },
	{ "rmr-bind-priv-refused-after-binding",
	  "dat_rmr_bind.privileges_must_match",
	  "a bind refused for privileges has already bound the window" },
	{ "rmr-unbind-keeps-window",
	  "dat_rmr_bind.zero_length_unbinds",
	  "a zero-length bind leaves the window bound" },
	{ "rmr-bind-reuses-context",
	  "dat_rmr_bind.new_context_each_bind",
	  "a rebind hands out the RMR's previous rmr_context" },
	{ "rmr-bind-old-context-kept",
	  "dat_rmr_bind.old_context_invalid",
	  "after a rebind the previous rmr_context still reaches the old window",
	  .quick = true },
	{ "rmr-bind-effective-late",
	  "dat_rmr_bind.fences_later_requests",
	  "a binding takes effect 300 ms after the bind, after later requests started" },
	{ "rmr-bind-suppress-ignored",
	  "dat_rmr_bind.suppress_flag",
	  "a suppressed bind still reports its completion" },
	{ "rmr-bind-completion-unsignalled",
	  "dat_rmr_bind.notification_by_default",
	  "a default bind completion is queued without notification" },
	{ "rmr-bind-cookie-lost",
	  "dat_rmr_bind.cookie_returned",
	  "the bind completion carries cookie 0" },
	{ "rmr-bind-disconnected-not-flushed",
	  "dat_rmr_bind.disconnected_flushed",
	  "a bind on a DISCONNECTED EP completes with no event" },
	{ "rmr-bind-no-completion",
	  "dat_rmr_bind.completion_event",
	  "a bind produces no completion event" },
	{ "rmr-bind-context-not-returned",
	  "dat_rmr_bind.binds_and_returns_context",
	  "the bind returns rmr_context 0" },
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
