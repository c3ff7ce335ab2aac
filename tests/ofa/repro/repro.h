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
#include <stdint.h>
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

/* An EP and what it was made with: its PZ, one DTO EVD for both queues, a connection EVD. */
struct repro_side {
	DAT_EP_HANDLE ep;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, conn;
};

static inline DAT_RETURN repro_side(DAT_IA_HANDLE ia, struct repro_side *s)
{
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &s->pz)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &s->dto)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &s->conn)) !=
		    DAT_SUCCESS)
		return r;
	return dat_ep_create(ia, s->pz, s->dto, s->dto, s->conn, NULL, &s->ep);
}

/* repro_side, and the new EP's parameters (all of them, as dat_ep_query gives them). */
static inline DAT_RETURN repro_side_param(DAT_IA_HANDLE ia, struct repro_side *s, DAT_EP_PARAM *p)
{
	DAT_RETURN r = repro_side(ia, s);

	return r != DAT_SUCCESS ? r : dat_ep_query(s->ep, DAT_EP_FIELD_ALL, p);
}

/* An EP with a PZ, one DTO EVD for both queues and a connection EVD. */
static inline DAT_RETURN repro_ep(DAT_IA_HANDLE ia, DAT_EP_HANDLE *ep, DAT_EVD_HANDLE *conn)
{
	struct repro_side s;
	DAT_RETURN r = repro_side(ia, &s);

	*ep = s.ep;
	*conn = s.conn;
	return r;
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

/* The next event of evd, within timeout_s seconds. */
static inline DAT_RETURN repro_event(DAT_EVD_HANDLE evd, unsigned int timeout_s, DAT_EVENT *ev)
{
	DAT_COUNT more;

	return dat_evd_wait(evd, timeout_s * 1000000u, 1, ev, &more);
}

#define REPRO_ALL_PRIV (DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG | \
			DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/* An LMR of len bytes at buf in pz; *iov covers all of it, *rmr_context is its remote key. */
static inline DAT_RETURN repro_lmr(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, void *buf, DAT_VLEN len,
				   DAT_MEM_PRIV_FLAGS priv, DAT_LMR_TRIPLET *iov,
				   DAT_RMR_CONTEXT *rmr_context)
{
	DAT_REGION_DESCRIPTION region = { .for_va = buf };
	DAT_LMR_HANDLE lmr;
	DAT_RMR_CONTEXT rmr;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;
	DAT_RETURN r = dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, len, pz, priv,
				      DAT_VA_TYPE_VA, &lmr, &iov->lmr_context, &rmr, &reg_len,
				      &reg_addr);

	iov->virtual_address = (DAT_VADDR)(uintptr_t)buf;
	iov->segment_length = (DAT_SEG_LENGTH)len;
	if (rmr_context)
		*rmr_context = rmr;
	return r;
}

/*
 * Two EPs of the IA and a Connection Request between them (the IA connects
 * to itself): a asks, the RSP that reserves p takes the request. A side whose
 * ep is set on entry is used as it is (made with repro_side, maybe modified).
 */
struct repro_pair {
	struct repro_side a, p;
	DAT_EVD_HANDLE cr_evd;
	DAT_RSP_HANDLE rsp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;			/* the last event waited for */
	DAT_RETURN r;			/* the last call's return */
};

/*
 * The request has arrived and is not answered: p is PASSIVE_CONNECTION_PENDING,
 * a ACTIVE_CONNECTION_PENDING. NULL, or the step that failed.
 */
static inline const char *repro_requested(DAT_IA_HANDLE ia, struct repro_pair *pr)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	/* a qualifier of its own per pair and per run, below Linux's ephemeral ports */
	static unsigned int pairs;
	DAT_CONN_QUAL q = 20000 + (DAT_CONN_QUAL)(getpid() % 500) * 20 + pairs++ % 20;

	if ((!pr->a.ep && (pr->r = repro_side(ia, &pr->a)) != DAT_SUCCESS) ||
	    (!pr->p.ep && (pr->r = repro_side(ia, &pr->p)) != DAT_SUCCESS))
		return "making the two EPs";
	if ((pr->r = dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &pr->cr_evd)) !=
		    DAT_SUCCESS ||
	    (pr->r = dat_rsp_create(ia, q, pr->p.ep, pr->cr_evd, &pr->rsp)) != DAT_SUCCESS)
		return "making the RSP";
	if (!self)
		return "reading the IA address";
	if ((pr->r = dat_ep_connect(pr->a.ep, self, q, 10000000, 0, NULL, DAT_QOS_BEST_EFFORT,
				    DAT_CONNECT_DEFAULT_FLAG)) != DAT_SUCCESS)
		return "dat_ep_connect";
	if ((pr->r = repro_event(pr->cr_evd, 5, &pr->ev)) != DAT_SUCCESS ||
	    pr->ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
		return "waiting for the Connection Request";
	pr->cr = pr->ev.event_data.cr_arrival_event_data.cr_handle;
	return NULL;
}

/* The request accepted: both EPs CONNECTED. NULL, or the step that failed. */
static inline const char *repro_connected(DAT_IA_HANDLE ia, struct repro_pair *pr)
{
	const char *failed = repro_requested(ia, pr);

	if (failed)
		return failed;
	/* the request names the RSP's EP, so the accept names none */
	if ((pr->r = dat_cr_accept(pr->cr, DAT_HANDLE_NULL, 0, NULL)) != DAT_SUCCESS)
		return "dat_cr_accept";
	if ((pr->r = repro_event(pr->p.conn, 5, &pr->ev)) != DAT_SUCCESS ||
	    pr->ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED ||
	    (pr->r = repro_event(pr->a.conn, 5, &pr->ev)) != DAT_SUCCESS ||
	    pr->ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED)
		return "waiting for the connection to be established";
	return NULL;
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
