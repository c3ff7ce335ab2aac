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
