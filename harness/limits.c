// SPDX-License-Identifier: MIT
/*
 * limits.c - resource exhaustion fixtures (dc_limits.h).
 *
 * State is per process (one case per process), kept here so the harness
 * can undo it before the teardown whatever way the body ended.
 */
#include "dc_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define FILL_MAX 1024		/* the lowered RLIMIT_NOFILE, at most */

static struct {
	bool nofile_saved, memlock_saved;
	struct rlimit nofile, memlock;
	int fillers[FILL_MAX];
	int nfillers;
} lim;

/* The provider's allocation fault hook, once a case armed it. */
typedef DAT_RETURN (*fail_alloc_fn)(DAT_COUNT nth);
typedef DAT_RETURN (*alloc_fired_fn)(DAT_BOOLEAN *fired);

static struct {
	fail_alloc_fn arm;
	alloc_fired_fn fired;
} fault;

void dc_exhaust_fds_at(struct dc_ctx *t, const char *file, int line)
{
	struct rlimit now;
	int base, fd;

	if (lim.nofile_saved)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: descriptors are already exhausted");
	if (getrlimit(RLIMIT_NOFILE, &lim.nofile) < 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
	base = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (base < 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: open(/dev/null): %s", strerror(errno));
	now = lim.nofile;
	if (now.rlim_cur == RLIM_INFINITY || now.rlim_cur > FILL_MAX)
		now.rlim_cur = FILL_MAX;
	if (setrlimit(RLIMIT_NOFILE, &now) < 0) {
		close(base);
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: setrlimit(RLIMIT_NOFILE, %llu): %s",
			  (unsigned long long)now.rlim_cur, strerror(errno));
	}
	lim.nofile_saved = true;
	lim.fillers[lim.nfillers++] = base;
	/* dup() takes the lowest free slot: EMFILE once none is left below the limit */
	while (lim.nfillers < FILL_MAX &&
	       (fd = fcntl(base, F_DUPFD_CLOEXEC, 0)) >= 0)
		lim.fillers[lim.nfillers++] = fd;
	if (errno != EMFILE) {
		int e = errno;

		dc_exhaust_end(t);
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: filling the descriptor table stopped with %s",
			  strerror(e));
	}
	dc_note(t, "descriptors exhausted: RLIMIT_NOFILE %llu, %d filled",
		(unsigned long long)now.rlim_cur, lim.nfillers);
}

void dc_limit_memlock_at(struct dc_ctx *t, const char *file, int line, bool *binding)
{
	struct rlimit now;

	if (getrlimit(RLIMIT_MEMLOCK, &lim.memlock) < 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: getrlimit(RLIMIT_MEMLOCK): %s", strerror(errno));
	now = lim.memlock;
	now.rlim_cur = 0;
	if (setrlimit(RLIMIT_MEMLOCK, &now) < 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: setrlimit(RLIMIT_MEMLOCK, 0): %s", strerror(errno));
	lim.memlock_saved = true;
	/* the limit binds only a process that cannot lock beyond it */
	{
		static char probe[4096] __attribute__((aligned(4096)));

		*binding = mlock(probe, sizeof(probe)) < 0;
		if (!*binding)
			munlock(probe, sizeof(probe));
	}
}

void dc_exhaust_end(struct dc_ctx *t)
{
	(void)t;
	if (fault.arm)
		(void)fault.arm(0);
	while (lim.nfillers > 0)
		close(lim.fillers[--lim.nfillers]);
	if (lim.nofile_saved)
		setrlimit(RLIMIT_NOFILE, &lim.nofile);
	if (lim.memlock_saved)
		setrlimit(RLIMIT_MEMLOCK, &lim.memlock);
	lim.nofile_saved = lim.memlock_saved = false;
}

int dc_open_fd_count(void)
{
	struct dirent *d;
	DIR *dp = opendir("/proc/self/fd");
	int n = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dp);
	return n - 1;	/* the directory's own descriptor */
}

/* ---- allocation faults (the provider's hook) ------------------------------ */

void dc_fail_alloc_at(struct dc_ctx *t, const char *file, int line, DAT_COUNT k)
{
	DAT_RETURN r;

	if (!fault.arm) {
		fault.arm = (fail_alloc_fn)dc_provider_hook_at(t, file, line,
							       "daplref_test_fail_alloc");
		fault.fired = (alloc_fired_fn)dc_provider_hook_at(t, file, line,
								  "daplref_test_alloc_fired");
	}
	if (k > DC_ALLOC_FAULT_BOUND)
		dc_beyond_suite_bound_at(t, file, line, "512 allocations in one call",
					 "the call still reached its allocation %d",
					 (int)DC_ALLOC_FAULT_BOUND);
	r = fault.arm(k);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up daplref_test_fail_alloc(%d) returned %s", (int)k,
			  dc_ret_text(r));
}

bool dc_alloc_fired_at(struct dc_ctx *t, const char *file, int line)
{
	DAT_BOOLEAN fired = DAT_FALSE;
	DAT_RETURN r;

	if (!fault.arm)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: dc_alloc_fired before dc_fail_alloc");
	r = fault.fired(&fired);
	(void)fault.arm(0);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up daplref_test_alloc_fired returned %s", dc_ret_text(r));
	return fired == DAT_TRUE;
}

void dc_close_ia_graceful_at(struct dc_ctx *t, const char *file, int line)
{
	DAT_RETURN r = dat_ia_close(t->ia, DAT_CLOSE_GRACEFUL_FLAG);

	if (r == DAT_SUCCESS) {
		t->priv->ia_open = false;
		t->ia = DAT_HANDLE_NULL;
		return;
	}
	dc_end_at(t, DC_FAIL, file, line, false,
		  "a graceful dat_ia_close after the case freed every object it made "
		  "returned %s: an object was left behind", dc_ret_text(r));
}

DAT_COUNT dc_alloc_sweep_at(struct dc_ctx *t, const char *file, int line,
			    const struct dc_alloc_call *c)
{
	int coped = 0;
	char expr[200];

	for (DAT_COUNT k = 1;; k++) {
		DAT_RETURN r;
		bool fired;

		dc_fail_alloc_at(t, file, line, k);
		r = c->call(t, c->arg);
		fired = dc_alloc_fired_at(t, file, line);
		if (c->after)
			c->after(t, c->arg, r);
		if (!fired && DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES) {
			/* the provider's own limit (its page lists the code) */
			dc_note(t, "%s ran short with no allocation failed: %s", c->what,
				dc_ret_text(r));
			return -1;
		}
		if (!fired) {
			snprintf(expr, sizeof(expr), "%s (no allocation failed)", c->what);
			dc_assert_ret_at(t, file, line, expr, r, DC_FAIL, 1,
					 (const DAT_RETURN[]){ DAT_SUCCESS }, DC_ANY_SUBTYPE);
			if (c->check)
				c->check(t, c->arg, true);
			if (coped)
				dc_note(t, "%s: %d of its %d allocations failed, the call still "
					"succeeded", c->what, coped, (int)k - 1);
			return k - 1;
		}
		snprintf(expr, sizeof(expr), "%s (its allocation %d failed)", c->what, (int)k);
		dc_assert_ret_at(t, file, line, expr, r, DC_FAIL, 2,
				 (const DAT_RETURN[]){ DAT_INSUFFICIENT_RESOURCES, DAT_SUCCESS },
				 DC_ANY_SUBTYPE);
		if (r == DAT_SUCCESS) {
			coped++;
			if (c->check)
				c->check(t, c->arg, false);
		}
	}
}

int dc_alloc_sweep_n_at(struct dc_ctx *t, const char *file, int line,
			const struct dc_alloc_call *c, int n, size_t size)
{
	struct dc_alloc_call one = *c;

	for (int i = 0; i < n; i++) {
		one.arg = (char *)c->arg + (size_t)i * size;
		if (dc_alloc_sweep_at(t, file, line, &one) < 0)
			return i;
	}
	return n;
}
