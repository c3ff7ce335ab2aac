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

#endif /* DC_LIMITS_H */
