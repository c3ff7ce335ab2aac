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

#include <dat2/udat.h>

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum repro_answer { REPRO_SHOWS = 0, REPRO_ABSENT = 1, REPRO_CANNOT = 77 };

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
