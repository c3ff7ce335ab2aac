/* SPDX-License-Identifier: MIT */
/*
 * dc_limits.h - resource exhaustion: the case process runs out of file
 * descriptors (or of lockable memory) on purpose, so a case can check what
 * a call does when the provider cannot get what it needs.  Each case runs
 * in its own process, so a limit never reaches another case; the harness
 * lifts every limit again before the teardown.  Included by datcts.h.
 */
#ifndef DC_LIMITS_H
#define DC_LIMITS_H

/*
 * Uses up every file descriptor this process may open: the soft
 * RLIMIT_NOFILE is lowered (to at most 1024) and every free slot below it
 * is filled with a duplicate of /dev/null.  Descriptors open before keep
 * working; socket(), eventfd(), epoll_create(), open(), accept() and
 * pthread-free dlopen() then fail with EMFILE.  Set-up (UNRESOLVED) when
 * the limit cannot be changed.
 */
void dc_exhaust_fds_at(struct dc_ctx *t, const char *file, int line);
#define dc_exhaust_fds(t) dc_exhaust_fds_at((t), __FILE__, __LINE__)

/*
 * Lowers the soft RLIMIT_MEMLOCK to what is locked now: a provider that
 * pins memory (registration on RDMA hardware) cannot pin more.  A process
 * with CAP_IPC_LOCK (root) is not bound by it; *binding says whether the
 * limit binds this process (false: the caller can still check what it
 * checks, but nothing ran out).
 */
void dc_limit_memlock_at(struct dc_ctx *t, const char *file, int line, bool *binding);
#define dc_limit_memlock(t, binding) dc_limit_memlock_at((t), __FILE__, __LINE__, (binding))

/*
 * Closes the filler descriptors and restores every limit changed above
 * (no-op when nothing is exhausted).  Called by the harness before the
 * teardown; a case calls it to check that the provider recovers, or to
 * use what needs fresh descriptors after a refusal.
 */
void dc_exhaust_end(struct dc_ctx *t);

/* Open descriptors of this process (for "nothing leaked" checks), -1 if unknown. */
int dc_open_fd_count(void);

/*
 * Running out of memory, one allocation at a time, through the reference
 * provider's test hook (docs/reference-provider.md "Test hooks"): after
 * dc_fail_alloc(t, k) the kth allocation this thread makes inside the
 * provider returns NULL (one failure, then allocations work again);
 * dc_alloc_fired(t) says whether it did and disarms the hook.  A case
 * fails each allocation of a call in turn, k = 1, 2, ... until the call no
 * longer reaches the kth (dc_alloc_fired false), and declares
 * .needs = DC_ALLOC_FAULT_NEEDS (UNSUPPORTED without the hook).  k beyond
 * DC_ALLOC_FAULT_BOUND ends the case at the suite's own bound.
 */
#define DC_ALLOC_FAULT_NEEDS "hook:daplref_test_fail_alloc hook:daplref_test_alloc_fired"
#define DC_ALLOC_FAULT_BOUND 512
void dc_fail_alloc_at(struct dc_ctx *t, const char *file, int line, DAT_COUNT k);
#define dc_fail_alloc(t, k) dc_fail_alloc_at((t), __FILE__, __LINE__, (k))
bool dc_alloc_fired_at(struct dc_ctx *t, const char *file, int line);
#define dc_alloc_fired(t) dc_alloc_fired_at((t), __FILE__, __LINE__)

/*
 * The sweep: for k = 1, 2, ... the kth allocation fails while c->call(t,
 * c->arg) makes the call the clause judges.  With a failure the call must
 * return DAT_INSUFFICIENT_RESOURCES or DAT_SUCCESS; the first k the call no
 * longer reaches ends the sweep, and then the call must succeed, or say
 * DAT_INSUFFICIENT_RESOURCES on its own: the provider's own limit, which
 * its page allows (a note; the sweep returns -1 and the caller makes no
 * more of that object).  After
 * each DAT_SUCCESS c->check(t, c->arg, keep) shows that what the call made
 * works and frees it, except with keep (the last call, made without a
 * failure): that object stays the caller's.  c->after (optional) runs
 * after every call, whatever it returned, the hook disarmed (for the
 * objects the call works on, which must keep working).  FAIL names the
 * allocation that failed.  Returns how many allocations were failed in
 * turn, or -1 (the provider's own limit).
 */
struct dc_alloc_call {
	const char *what;			/* the call, for messages */
	DAT_RETURN (*call)(struct dc_ctx *t, void *arg);
	void (*check)(struct dc_ctx *t, void *arg, bool keep);
	void *arg;
	void (*after)(struct dc_ctx *t, void *arg, DAT_RETURN r);
};
DAT_COUNT dc_alloc_sweep_at(struct dc_ctx *t, const char *file, int line,
			    const struct dc_alloc_call *c);
#define dc_alloc_sweep(t, c) dc_alloc_sweep_at((t), __FILE__, __LINE__, (c))
/*
 * The sweep for each of n calls in a row, each keeping what it made: the
 * ith call gets c->arg + i * size (an array of n handles or structs), so
 * the tables a provider grows as objects accumulate grow while
 * allocations fail too.  Returns how many calls made an object (fewer
 * than n when the provider's own limit came first).
 */
int dc_alloc_sweep_n_at(struct dc_ctx *t, const char *file, int line,
			 const struct dc_alloc_call *c, int n, size_t size);
#define dc_alloc_sweep_n(t, c, n, arr)					\
	dc_alloc_sweep_n_at((t), __FILE__, __LINE__, (c), (n), sizeof((arr)[0]))
/* How many objects such a case makes: 40, or fewer where the IA's limit is lower. */
#define DC_ALLOC_FAULT_OBJECTS 40

/*
 * The check that a case left no object on its IA: it frees what it made and
 * closes the IA gracefully, which dat_ia_close(3DAT) DESCRIPTION refuses
 * (DAT_INVALID_STATE) while any object the Consumer created is left.  FAIL
 * when the close is refused (a failed call left an object behind); the
 * teardown then has no IA to close.
 */
void dc_close_ia_graceful_at(struct dc_ctx *t, const char *file, int line);
#define DC_ASSERT_IA_CLOSES_GRACEFULLY() dc_close_ia_graceful_at(t, __FILE__, __LINE__)

#endif /* DC_LIMITS_H */
