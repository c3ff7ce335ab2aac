/* SPDX-License-Identifier: MIT */
/*
 * The frame of a finding's reproducer (docs/certification/ofa-dapl-2.1.10/):
 * a few DAT 2.0 calls through libdat2 against the IA named on the command
 * line (dat.conf from DAT_OVERRIDE), run in a child process so that a crash
 * or a hang is an answer, not the end of the program. One line of output and
 * the exit status say what was seen:
 *   0   SHOWS   the defect the finding describes
 *   1   ABSENT  the provider behaved as the page requires
 *   77  CANNOT  the reproducer could not get to the calls (e.g. no such IA)
 * The reference provider (libdaplref2) must give ABSENT: that is the control
 * that a reproducer tells a defect from its absence (tests/ofa/CMakeLists.txt).
 */
#ifndef DATCTS_REPRO_H
#define DATCTS_REPRO_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid, for struct repro_waiter */
#endif
#include <dat2/udat.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum repro_answer { REPRO_SHOWS = 0, REPRO_ABSENT = 1, REPRO_CANNOT = 77 };

/* The IA name of the command line (not const: dat_ia_open takes a char *). */
static char *repro_ia_name;

struct repro {
	const char *finding;		/* the finding file's name, without .md */
	enum repro_answer (*body)(DAT_IA_HANDLE ia);
	const char *if_crash;		/* the defect, when a crash is it; NULL: a crash is not */
	const char *if_hang;		/* the same for a hang */
	unsigned int timeout_s;
};

static inline enum repro_answer repro_say(enum repro_answer a, const char *fmt, ...)
{
	static const char *const word[] = { "SHOWS", "ABSENT" };
	va_list ap;

	printf("%s: ", a == REPRO_CANNOT ? "CANNOT" : word[a]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return a;
}

static inline const char *repro_ret(DAT_RETURN r, char *buf, size_t n)
{
	const char *major = "?", *minor = "?";

	if (dat_strerror(r, &major, &minor) != DAT_SUCCESS)
		major = minor = "?";
	snprintf(buf, n, "%s%s%s [0x%08x]", major, DAT_GET_SUBTYPE(r) ? " " : "",
		 DAT_GET_SUBTYPE(r) ? minor : "", (unsigned int)r);
	return buf;
}
#define REPRO_RET(r) repro_ret((r), (char[160]){ 0 }, 160)

/* An EP with a PZ, one DTO EVD for both queues and a connection EVD. */
static inline DAT_RETURN repro_ep(DAT_IA_HANDLE ia, DAT_EP_HANDLE *ep, DAT_EVD_HANDLE *conn)
{
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto;
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, conn)) !=
		    DAT_SUCCESS)
		return r;
	return dat_ep_create(ia, pz, dto, dto, *conn, NULL, ep);
}

/* A CNO with the agent given and one software EVD on it. */
static inline DAT_RETURN repro_cno_evd(DAT_IA_HANDLE ia, DAT_OS_WAIT_PROXY_AGENT agent,
				       DAT_CNO_HANDLE *cno, DAT_EVD_HANDLE *evd)
{
	DAT_RETURN r = dat_cno_create(ia, agent, cno);

	return r != DAT_SUCCESS ? r : dat_evd_create(ia, 8, *cno, DAT_EVD_SOFTWARE_FLAG, evd);
}

/* A virtual LMR over buf in pz with the privileges given. */
static inline DAT_RETURN repro_lmr(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, void *buf, DAT_VLEN len,
				   DAT_MEM_PRIV_FLAGS priv, DAT_LMR_HANDLE *lmr,
				   DAT_LMR_CONTEXT *lmr_context, DAT_RMR_CONTEXT *rmr_context)
{
	DAT_REGION_DESCRIPTION region = { .for_va = buf };
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;

	return dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, len, pz, priv, DAT_VA_TYPE_VA, lmr,
			      lmr_context, rmr_context, &reg_len, &reg_addr);
}

static inline void repro_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * A thread that makes one blocking call (wait, on handle), and what it
 * returned. repro_waiter_start says whether the thread is asleep in the
 * kernel within 2 s after announcing the call: then it is blocked in it.
 */
struct repro_waiter {
	DAT_RETURN (*wait)(DAT_HANDLE handle);
	DAT_HANDLE handle;
	pthread_t thread;
	_Atomic pid_t tid;
	_Atomic int done;
	DAT_RETURN r;
};

static inline void *repro_waiter_run(void *arg)
{
	struct repro_waiter *w = arg;

	w->tid = gettid();
	w->r = w->wait(w->handle);
	w->done = 1;
	return NULL;
}

static inline int repro_waiter_start(struct repro_waiter *w)
{
	char path[64], buf[512], *state;
	FILE *f;

	if (pthread_create(&w->thread, NULL, repro_waiter_run, w))
		return 0;
	while (!w->tid)
		repro_sleep_ms(1);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)w->tid);
	for (int i = 0; i < 200 && !w->done; i++, repro_sleep_ms(10)) {
		f = fopen(path, "r");
		if (!f)
			continue;
		state = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (state && state[1] == ' ' && state[2] == 'S')
			return !w->done;
	}
	return 0;
}

/* Whether the waiters' calls have all returned within ms milliseconds. */
static inline int repro_waiters_return(struct repro_waiter *w, int n, long ms)
{
	int done = 0;

	for (long t = 0; t <= ms; t += 10, repro_sleep_ms(10)) {
		done = 0;
		for (int i = 0; i < n; i++)
			done += w[i].done;
		if (done == n)
			break;
	}
	return done == n;
}

/* The IA's own address, to connect to itself. */
static inline DAT_IA_ADDRESS_PTR repro_ia_address(DAT_IA_HANDLE ia)
{
	static DAT_IA_ATTR attr;
	DAT_EVD_HANDLE async;

	if (dat_ia_query(ia, &async, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0, NULL) != DAT_SUCCESS)
		return NULL;
	return attr.ia_address_ptr;
}

static inline int repro_main(const struct repro *rp, int argc, char **argv)
{
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_RETURN r;
	pid_t pid;
	int st;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IA_NAME   (dat.conf: DAT_OVERRIDE)\n", argv[0]);
		return 2;
	}
	repro_ia_name = argv[1];
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return repro_say(REPRO_CANNOT, "fork failed");
	if (pid == 0) {
		alarm(rp->timeout_s ? rp->timeout_s : 20);
		r = dat_ia_open(argv[1], 8, &async, &ia);
		if (r != DAT_SUCCESS)
			_exit(repro_say(REPRO_CANNOT, "dat_ia_open(%s) returned %s", argv[1],
					REPRO_RET(r)));
		_exit(rp->body(ia));
	}
	while (waitpid(pid, &st, 0) < 0)
		;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WTERMSIG(st) == SIGALRM)
		return rp->if_hang ? repro_say(REPRO_SHOWS, "%s (no return within %u s)", rp->if_hang,
					      rp->timeout_s ? rp->timeout_s : 20) :
			repro_say(REPRO_CANNOT, "hung, which this finding is not about");
	return rp->if_crash ? repro_say(REPRO_SHOWS, "%s (the process died of %s)", rp->if_crash,
				       strsignal(WTERMSIG(st))) :
		repro_say(REPRO_CANNOT, "died of %s, which this finding is not about",
			  strsignal(WTERMSIG(st)));
}

#define REPRO_MAIN(...)							\
	int main(int argc, char **argv)					\
	{								\
		static const struct repro rp = { __VA_ARGS__ };		\
		return repro_main(&rp, argc, argv);			\
	}

#endif
