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
#include <stdint.h>
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

/* One end of a connection: an EP with its PZ, one DTO EVD for both queues and a connection EVD. */
struct repro_end {
	DAT_EP_HANDLE ep;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, conn;
};

static inline DAT_RETURN repro_end(DAT_IA_HANDLE ia, struct repro_end *e)
{
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &e->pz)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &e->dto)) !=
		    DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &e->conn)) !=
		    DAT_SUCCESS)
		return r;
	return dat_ep_create(ia, e->pz, e->dto, e->dto, e->conn, NULL, &e->ep);
}

static inline DAT_RETURN repro_ep(DAT_IA_HANDLE ia, DAT_EP_HANDLE *ep, DAT_EVD_HANDLE *conn)
{
	struct repro_end e;
	DAT_RETURN r = repro_end(ia, &e);

	*ep = e.ep;
	*conn = e.conn;
	return r;
}

/* repro_end, and the new EP's parameters (all of them, as dat_ep_query gives them). */
static inline DAT_RETURN repro_end_param(DAT_IA_HANDLE ia, struct repro_end *e, DAT_EP_PARAM *p)
{
	DAT_RETURN r = repro_end(ia, e);

	return r != DAT_SUCCESS ? r : dat_ep_query(e->ep, DAT_EP_FIELD_ALL, p);
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

/*
 * repro_lmr as the triplet a post takes: *iov covers all len bytes at buf; *rmr_context
 * (NULL: not wanted) is the LMR's remote key.
 */
static inline DAT_RETURN repro_lmr_iov(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, void *buf, DAT_VLEN len,
				       DAT_MEM_PRIV_FLAGS priv, DAT_LMR_TRIPLET *iov,
				       DAT_RMR_CONTEXT *rmr_context)
{
	DAT_LMR_HANDLE lmr;
	DAT_RMR_CONTEXT rmr;

	iov->virtual_address = (DAT_VADDR)(uintptr_t)buf;
	iov->segment_length = len;
	return repro_lmr(ia, pz, buf, len, priv, &lmr, &iov->lmr_context,
			 rmr_context ? rmr_context : &rmr);
}

static inline void repro_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * A thread that makes one blocking call (wait, on handle), and what it
 * returned. repro_waiter_start says whether the thread is seen asleep in
 * the kernel, without a break, for 200 ms within 3 s after announcing the
 * call: then it is blocked in it. A single look could catch it asleep on a
 * lock inside the call, before the call has begun to wait (on a loaded
 * machine the reference provider's progress thread can hold the IA lock
 * that long), and a control would then SHOW what is not there.
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
	for (int i = 0, asleep = 0; i < 300 && !w->done; i++, repro_sleep_ms(10)) {
		f = fopen(path, "r");
		if (!f)
			continue;
		state = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		asleep = state && state[1] == ' ' && state[2] == 'S' ? asleep + 1 : 0;
		if (asleep >= 20)
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

/* The next event on evd within timeout_ms; DAT_TIMEOUT_EXPIRED when none came. */
static inline DAT_RETURN repro_event(DAT_EVD_HANDLE evd, unsigned int timeout_ms, DAT_EVENT *ev)
{
	DAT_COUNT more;

	return dat_evd_wait(evd, timeout_ms * 1000, 1, ev, &more);
}

static inline const char *repro_event_name(DAT_EVENT_NUMBER n, char *buf, size_t len)
{
	static const struct { DAT_EVENT_NUMBER n; const char *name; } known[] = {
		{ DAT_DTO_COMPLETION_EVENT, "DAT_DTO_COMPLETION_EVENT" },
		{ DAT_CONNECTION_REQUEST_EVENT, "DAT_CONNECTION_REQUEST_EVENT" },
		{ DAT_CONNECTION_EVENT_ESTABLISHED, "DAT_CONNECTION_EVENT_ESTABLISHED" },
		{ DAT_CONNECTION_EVENT_PEER_REJECTED, "DAT_CONNECTION_EVENT_PEER_REJECTED" },
		{ DAT_CONNECTION_EVENT_NON_PEER_REJECTED, "DAT_CONNECTION_EVENT_NON_PEER_REJECTED" },
		{ DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
		  "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR" },
		{ DAT_CONNECTION_EVENT_DISCONNECTED, "DAT_CONNECTION_EVENT_DISCONNECTED" },
		{ DAT_CONNECTION_EVENT_BROKEN, "DAT_CONNECTION_EVENT_BROKEN" },
		{ DAT_CONNECTION_EVENT_TIMED_OUT, "DAT_CONNECTION_EVENT_TIMED_OUT" },
		{ DAT_CONNECTION_EVENT_UNREACHABLE, "DAT_CONNECTION_EVENT_UNREACHABLE" },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].n == n)
			return known[i].name;
	snprintf(buf, len, "event 0x%x", (unsigned int)n);
	return buf;
}
#define REPRO_EVENT(n) repro_event_name((n), (char[32]){ 0 }, 32)

/* A PSP on a qualifier of the Provider's choice, its requests on a new CR EVD. */
static inline DAT_RETURN repro_psp(DAT_IA_HANDLE ia, DAT_CONN_QUAL *q, DAT_EVD_HANDLE *cr_evd,
				   DAT_PSP_HANDLE *psp)
{
	DAT_RETURN r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, cr_evd);

	return r != DAT_SUCCESS ? r :
		dat_psp_create_any(ia, q, *cr_evd, DAT_PSP_CONSUMER_FLAG, psp);
}

/*
 * a connects to the IA itself on q, with a connect timeout of timeout_us; the Connection
 * Request that arrives on cr_evd. DAT_TIMEOUT_EXPIRED or DAT_INTERNAL_ERROR (another event)
 * when none arrived. repro_request: a timeout (10 s) nothing here waits out.
 */
static inline DAT_RETURN repro_request_within(DAT_IA_HANDLE ia, const struct repro_end *a,
					      DAT_CONN_QUAL q, DAT_EVD_HANDLE cr_evd,
					      DAT_TIMEOUT timeout_us, DAT_CR_HANDLE *cr)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_EVENT ev;
	DAT_RETURN r;

	if (!self)
		return DAT_INTERNAL_ERROR;
	if ((r = dat_ep_connect(a->ep, self, q, timeout_us, 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG)) != DAT_SUCCESS ||
	    (r = repro_event(cr_evd, 10000, &ev)) != DAT_SUCCESS)
		return r;
	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
		return DAT_INTERNAL_ERROR;
	*cr = ev.event_data.cr_arrival_event_data.cr_handle;
	return DAT_SUCCESS;
}

static inline DAT_RETURN repro_request(DAT_IA_HANDLE ia, const struct repro_end *a,
				       DAT_CONN_QUAL q, DAT_EVD_HANDLE cr_evd, DAT_CR_HANDLE *cr)
{
	return repro_request_within(ia, a, q, cr_evd, 10000000, cr);
}

/* Waits for event number want on evd: DAT_INTERNAL_ERROR when another came. */
static inline DAT_RETURN repro_expect(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER want)
{
	DAT_EVENT ev;
	DAT_RETURN r = repro_event(evd, 10000, &ev);

	return r != DAT_SUCCESS ? r : ev.event_number == want ? DAT_SUCCESS : DAT_INTERNAL_ERROR;
}

/*
 * An RSP for e on a qualifier nobody uses, its request on a new CR EVD. The qualifiers
 * tried start from the pid, above Linux's ephemeral ports, so that reproducers run side
 * by side do not meet; a process's later RSPs go on from its earlier ones, since OFA's
 * dat_rsp_create takes over a live RSP's qualifier instead of refusing it (rsp-qual-takeover).
 */
static inline DAT_RETURN repro_rsp(DAT_IA_HANDLE ia, const struct repro_end *e, DAT_CONN_QUAL *q,
				   DAT_EVD_HANDLE *cr_evd, DAT_RSP_HANDLE *rsp)
{
	static int tried;
	DAT_RETURN r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, cr_evd);

	for (int i = 0; i < 64 && r == DAT_SUCCESS; i++) {
		*q = 61000 + (getpid() * 7 + tried++) % 4000;
		r = dat_rsp_create(ia, *q, e->ep, *cr_evd, rsp);
		if (DAT_GET_TYPE(r) != DAT_CONN_QUAL_IN_USE)
			return r;
		r = DAT_SUCCESS;
	}
	return DAT_CONN_QUAL_IN_USE;
}

/* A registered buffer of len bytes in pz, as the triplet a post takes. */
static inline DAT_RETURN repro_buffer(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, DAT_VLEN len,
				      DAT_LMR_TRIPLET *iov)
{
	void *buf = calloc(1, len);

	return buf ? repro_lmr_iov(ia, pz, buf, len, DAT_MEM_PRIV_ALL_FLAG, iov, NULL) :
		DAT_INSUFFICIENT_RESOURCES;
}

/* Posts n Receives of one buffer each on e, cookies first .. first + n - 1. */
static inline DAT_RETURN repro_post_recvs(DAT_IA_HANDLE ia, const struct repro_end *e, int n,
					  DAT_UINT64 first)
{
	DAT_LMR_TRIPLET iov;
	DAT_RETURN r;

	for (int i = 0; i < n; i++)
		if ((r = repro_buffer(ia, e->pz, 64, &iov)) != DAT_SUCCESS ||
		    (r = dat_ep_post_recv(e->ep, 1, &iov, (DAT_DTO_COOKIE){ .as_64 = first + i },
					  DAT_COMPLETION_DEFAULT_FLAG)) != DAT_SUCCESS)
			return r;
	return DAT_SUCCESS;
}

/*
 * Two ends of one IA: a requests a connection to a PSP of the IA (repro_pending: the request
 * waits in cr; repro_pending_for: and b is made, to accept it on; repro_timed_out: the same
 * after the requester's connect timed out), or a and b are connected over it (repro_pair: b
 * accepted). repro_pending_rsp and repro_pair_rsp do the same over an RSP that reserves b
 * instead of the PSP.
 */
struct repro_pair {
	struct repro_end a, b;
	DAT_PSP_HANDLE psp;
	DAT_RSP_HANDLE rsp;
	DAT_EVD_HANDLE cr_evd;
	DAT_CONN_QUAL q;
	DAT_CR_HANDLE cr;
};

/* recvs Receives are posted on a before it connects (cookies 1000 on). */
static inline DAT_RETURN repro_pending(DAT_IA_HANDLE ia, struct repro_pair *p, int recvs)
{
	DAT_RETURN r;

	if ((r = repro_end(ia, &p->a)) != DAT_SUCCESS ||
	    (r = repro_post_recvs(ia, &p->a, recvs, 1000)) != DAT_SUCCESS ||
	    (r = repro_psp(ia, &p->q, &p->cr_evd, &p->psp)) != DAT_SUCCESS)
		return r;
	return repro_request(ia, &p->a, p->q, p->cr_evd, &p->cr);
}

/* The pending request accepted on ep, and both ends ESTABLISHED. */
static inline DAT_RETURN repro_accept(struct repro_pair *p, DAT_EP_HANDLE ep)
{
	DAT_RETURN r;

	if ((r = dat_cr_accept(p->cr, ep, 0, NULL)) != DAT_SUCCESS ||
	    (r = repro_expect(p->b.conn, DAT_CONNECTION_EVENT_ESTABLISHED)) != DAT_SUCCESS)
		return r;
	return repro_expect(p->a.conn, DAT_CONNECTION_EVENT_ESTABLISHED);
}

static inline DAT_RETURN repro_pending_for(DAT_IA_HANDLE ia, struct repro_pair *p)
{
	DAT_RETURN r = repro_pending(ia, p, 0);

	return r != DAT_SUCCESS ? r : repro_end(ia, &p->b);
}

/* The requester's connect (200 ms) timed out while its request waited in cr. */
static inline DAT_RETURN repro_timed_out(DAT_IA_HANDLE ia, struct repro_pair *p)
{
	DAT_RETURN r;

	if ((r = repro_end(ia, &p->a)) != DAT_SUCCESS || (r = repro_end(ia, &p->b)) != DAT_SUCCESS ||
	    (r = repro_psp(ia, &p->q, &p->cr_evd, &p->psp)) != DAT_SUCCESS ||
	    (r = repro_request_within(ia, &p->a, p->q, p->cr_evd, 200000, &p->cr)) != DAT_SUCCESS)
		return r;
	return repro_expect(p->a.conn, DAT_CONNECTION_EVENT_TIMED_OUT);
}

static inline DAT_RETURN repro_pair(DAT_IA_HANDLE ia, struct repro_pair *p)
{
	DAT_RETURN r = repro_pending_for(ia, p);

	return r != DAT_SUCCESS ? r : repro_accept(p, p->b.ep);
}

/*
 * repro_pending over an RSP on b (repro_rsp) in place of the PSP, for what needs the passive
 * EP before the accept: an RSP's EP is PASSIVE_CONNECTION_PENDING while the request waits,
 * and it is the EP the request is for, so one modified beforehand is the one connected (a
 * PSP's EP is named only at the accept). b: that EP made by the caller (repro_end), or NULL
 * to make one here. No Receives are posted.
 */
static inline DAT_RETURN repro_pending_rsp(DAT_IA_HANDLE ia, struct repro_pair *p,
					   const struct repro_end *b)
{
	DAT_RETURN r;

	if ((r = repro_end(ia, &p->a)) != DAT_SUCCESS)
		return r;
	if (b)
		p->b = *b;
	else if ((r = repro_end(ia, &p->b)) != DAT_SUCCESS)
		return r;
	if ((r = repro_rsp(ia, &p->b, &p->q, &p->cr_evd, &p->rsp)) != DAT_SUCCESS)
		return r;
	return repro_request(ia, &p->a, p->q, p->cr_evd, &p->cr);
}

/* repro_pair over the RSP: the request names b's EP, so the accept names none. */
static inline DAT_RETURN repro_pair_rsp(DAT_IA_HANDLE ia, struct repro_pair *p,
					const struct repro_end *b)
{
	DAT_RETURN r = repro_pending_rsp(ia, p, b);

	return r != DAT_SUCCESS ? r : repro_accept(p, DAT_HANDLE_NULL);
}

/*
 * The answer for a connection event: want is the page's event, defect the finding's;
 * any other event is neither and cannot tell. what says whose event it was.
 */
static inline enum repro_answer repro_judge_event(DAT_EVENT_NUMBER got, DAT_EVENT_NUMBER want,
						  DAT_EVENT_NUMBER defect, const char *what)
{
	if (got == want)
		return repro_say(REPRO_ABSENT, "%s ended in %s", what, REPRO_EVENT(want));
	if (got != defect)
		return repro_say(REPRO_CANNOT, "%s ended in %s", what, REPRO_EVENT(got));
	return repro_say(REPRO_SHOWS, "%s ended in %s, not %s", what, REPRO_EVENT(defect),
			 REPRO_EVENT(want));
}

/*
 * A connected pair where a's Send waits for a Receive b has not posted, then a graceful
 * disconnect of a; state: a's state right after the call.
 */
static inline DAT_RETURN repro_graceful_with_send(DAT_IA_HANDLE ia, struct repro_pair *p,
						  DAT_EP_STATE *state)
{
	DAT_LMR_TRIPLET iov;
	DAT_BOOLEAN recv_idle, request_idle;
	DAT_RETURN r;

	if ((r = repro_pair(ia, p)) != DAT_SUCCESS ||
	    (r = repro_buffer(ia, p->a.pz, 64, &iov)) != DAT_SUCCESS ||
	    (r = dat_ep_post_send(p->a.ep, 1, &iov, (DAT_DTO_COOKIE){ .as_64 = 7 },
				  DAT_COMPLETION_DEFAULT_FLAG)) != DAT_SUCCESS ||
	    (r = dat_ep_disconnect(p->a.ep, DAT_CLOSE_GRACEFUL_FLAG)) != DAT_SUCCESS)
		return r;
	return dat_ep_get_status(p->a.ep, state, &recv_idle, &request_idle);
}

/*
 * A reproducer of several parts, each a way to the same defect, each in a process (and IA) of
 * its own, so that a crash of one leaves the others to run and one that cannot get to its calls
 * on an IA does not hide another that can. repro_parts runs this program again once per part,
 * REPRO_PART naming it in the environment (that run's body is the part's); each part's lines
 * stay in the output, and the answer is SHOWS when a part showed the defect, ABSENT when every
 * part found it absent, CANNOT otherwise. The caller's timeout_s must cover all parts.
 */
struct repro_part {
	const char *name;
	enum repro_answer (*body)(DAT_IA_HANDLE ia);
};

static inline enum repro_answer repro_parts(DAT_IA_HANDLE ia, const struct repro_part *parts,
					    int n)
{
	const char *mine = getenv("REPRO_PART");
	int shows = 0, absent = 0, st;
	pid_t pid;

	for (int i = 0; mine && i < n; i++)
		if (!strcmp(mine, parts[i].name))
			return parts[i].body(ia);
	if (mine)
		return repro_say(REPRO_CANNOT, "no part %s", mine);
	for (int i = 0; i < n; i++) {
		printf("part %s:\n", parts[i].name);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			setenv("REPRO_PART", parts[i].name, 1);
			execl("/proc/self/exe", parts[i].name, repro_ia_name, (char *)NULL);
			_exit(REPRO_CANNOT);
		}
		st = -1;
		while (pid > 0 && waitpid(pid, &st, 0) < 0)
			;
		st = pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : REPRO_CANNOT;
		shows += st == REPRO_SHOWS;
		absent += st == REPRO_ABSENT;
	}
	if (shows)
		return repro_say(REPRO_SHOWS, "%d of %d parts showed the defect (above)", shows, n);
	if (absent == n)
		return repro_say(REPRO_ABSENT, "no part showed the defect (above)");
	return repro_say(REPRO_CANNOT, "%d of %d parts could not get to their calls (above)",
			 n - absent, n);
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
