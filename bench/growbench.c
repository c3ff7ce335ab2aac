// SPDX-License-Identifier: MIT
/*
 * growbench - how the cost of the provider grows with the work (DAT 1.2
 * API through libdat; default IA "ref-sock" from DAT_OVERRIDE/dat.conf).
 * One process: the measured EPs are on one IA ("A"), their peers on a
 * second IA of the same provider ("B"), so N EPs means N on one IA and on
 * one EVD of each kind (a sock IA has at most 4096 EPs).
 *
 *   growbench -t conn [-n iters]
 *       connection set-up and tear-down: dat_ep_connect, the Connection
 *       Request, dat_cr_accept, both ESTABLISHED events, dat_ep_disconnect
 *       and both DISCONNECTED events, per second; and the same shape over
 *       plain TCP (connect, accept, close both) for comparison.
 *   growbench -t eps -e N [-n ops] [-P]
 *       N connected EPs on IA A, all on the same three EVDs (request,
 *       receive, connection); ops Sends round-robin over them, each
 *       waited for (dat_evd_wait, or dat_evd_dequeue with -P) at both
 *       ends and its Receive reposted: microseconds per post + completion.
 *   growbench -t threads -e T [-n ops]
 *       T threads, each with its own EP pair (and its own DTO EVDs) on the
 *       same two IAs, each doing ops Sends, each waited for at both ends
 *       (the dapltest -T T shape): Sends per second in all, and the
 *       consumer-driven progress of several threads at once.
 *   growbench -t mem -e N
 *       resident memory per unconnected EP, per connection (both ends,
 *       both IAs) and per LMR (4 KiB each), from /proc/self/statm around
 *       creating N of each.
 */
#define BENCH_NAME "growbench"
#include "bench_dat.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>


#define MSG	64

static char *ia_name = "ref-sock";
static int busy_poll;

struct side {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE async_evd, req_evd, recv_evd, conn_evd, cr_evd;
	DAT_IA_ADDRESS_PTR addr;
};

static struct side A, B;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	long pages = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Closes a plain TCP socket with a reset: repeated runs would otherwise
 * fill the ephemeral port range with TIME_WAIT. */
static void close_now(int fd)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

static void wait_ev(DAT_EVD_HANDLE evd, DAT_EVENT *ev, DAT_EVENT_NUMBER want)
{
	bench_wait_event(evd, ev, want, busy_poll);
}

static void open_side(struct side *s, int neps)
{
	DAT_IA_ATTR ia_attr;
	DAT_COUNT qlen;

	DIE(dat_ia_open(ia_name, 8, &s->async_evd, &s->ia));
	DIE(dat_ia_query(s->ia, &s->async_evd, DAT_IA_FIELD_ALL, &ia_attr, 0,
			 NULL));
	s->addr = ia_attr.ia_address_ptr;
	qlen = neps + 64;
	if (qlen > ia_attr.max_evd_qlen)
		qlen = ia_attr.max_evd_qlen;
	DIE(dat_pz_create(s->ia, &s->pz));
	bench_make_evds(s->ia, qlen, &s->req_evd, &s->recv_evd, &s->conn_evd,
			&s->cr_evd);
}

static void open_ias(int neps)
{
	open_side(&A, neps);
	open_side(&B, neps);
}

static void close_ias(void)
{
	DIE(dat_ia_close(A.ia, DAT_CLOSE_ABRUPT_FLAG));
	DIE(dat_ia_close(B.ia, DAT_CLOSE_ABRUPT_FLAG));
}

static DAT_EP_HANDLE new_ep(struct side *s)
{
	DAT_EP_HANDLE ep;

	DIE(dat_ep_create(s->ia, s->pz, s->recv_evd, s->req_evd, s->conn_evd,
			  NULL, &ep));
	return ep;
}

/* Connects @a (IA A) to @b (IA B, listening on @q). */
static void connect_pair(DAT_EP_HANDLE a, DAT_EP_HANDLE b, DAT_CONN_QUAL q)
{
	bench_connect(a, b, B.addr, q, B.cr_evd, A.conn_evd, B.conn_evd);
}

static void disconnect_pair(DAT_EP_HANDLE a)
{
	DAT_EVENT ev;

	DIE(dat_ep_disconnect(a, DAT_CLOSE_GRACEFUL_FLAG));
	wait_ev(A.conn_evd, &ev, DAT_CONNECTION_EVENT_DISCONNECTED);
	wait_ev(B.conn_evd, &ev, DAT_CONNECTION_EVENT_DISCONNECTED);
}

static void conn_rate(long iters)
{
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	double t0, dat_s, tcp_s;
	int lfd;

	open_ias(2);
	DIE(dat_psp_create_any(B.ia, &q, B.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	t0 = now();
	for (long i = 0; i < iters; i++) {
		DAT_EP_HANDLE a = new_ep(&A), b = new_ep(&B);

		connect_pair(a, b, q);
		disconnect_pair(a);
		DIE(dat_ep_free(a));
		DIE(dat_ep_free(b));
	}
	dat_s = now() - t0;
	DIE(dat_psp_free(psp));

	/* the same over plain TCP: connect, accept, close both */
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(lfd, 64) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len) < 0) {
		perror("growbench: listen");
		exit(1);
	}
	t0 = now();
	for (long i = 0; i < iters; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0), s;

		if (c < 0 || connect(c, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
		    (s = accept(lfd, NULL, NULL)) < 0) {
			perror("growbench: tcp");
			exit(1);
		}
		close_now(c);
		close(s);
	}
	tcp_s = now() - t0;
	close(lfd);
	printf("growbench conn: %.0f connections/s (set up and torn down; %.1f us each); "
	       "plain TCP %.0f/s (%.1f us); ratio %.2fx\n",
	       iters / dat_s, dat_s / iters * 1e6, iters / tcp_s,
	       tcp_s / iters * 1e6, tcp_s / dat_s);
	close_ias();
}

static DAT_LMR_TRIPLET seg_of(char *buf, DAT_LMR_CONTEXT lctx, long i)
{
	DAT_LMR_TRIPLET t = { .lmr_context = lctx, .pad = 0,
			      .virtual_address =
				      (DAT_VADDR)(uintptr_t)(buf + i * MSG),
			      .segment_length = MSG };

	return t;
}

/* The same round-robin over n plain TCP connections: write, then read
 * at the other end (what the kernel's share of the cost does with n). */
static double tcp_round_robin_us(int n, long ops)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int *c = calloc((size_t)n, sizeof(*c)), *s = calloc((size_t)n, sizeof(*s));
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	char msg[MSG] = { 0 };
	double t0, t = 0;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!c || !s || lfd < 0 ||
	    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(lfd, 128) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len) < 0) {
		perror("growbench: tcp");
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		c[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (c[i] < 0 ||
		    connect(c[i], (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
		    (s[i] = accept(lfd, NULL, NULL)) < 0) {
			perror("growbench: tcp");
			exit(1);
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		long count = pass ? ops : (ops < n ? ops : n);

		t0 = now();
		for (long k = 0; k < count; k++) {
			int i = (int)(k % n);

			if (write(c[i], msg, MSG) != MSG ||
			    read(s[i], msg, MSG) != MSG) {
				perror("growbench: tcp");
				exit(1);
			}
		}
		t = now() - t0;
	}
	for (int i = 0; i < n; i++) {
		close_now(c[i]);
		close(s[i]);
	}
	close(lfd);
	free(c);
	free(s);
	return t / ops * 1e6;
}

static void eps_cost(int n, long ops)
{
	DAT_EP_HANDLE *a = calloc((size_t)n, sizeof(*a));
	DAT_EP_HANDLE *b = calloc((size_t)n, sizeof(*b));
	char *buf = calloc((size_t)n * 2, MSG);
	DAT_REGION_DESCRIPTION rd = { .for_va = buf };
	DAT_LMR_HANDLE lmr_a, lmr_b;
	DAT_LMR_CONTEXT lctx, bctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_EVENT ev;
	double t0, t, setup;

	if (!a || !b || !buf)
		exit(1);
	open_ias(n);
	DIE(dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, rd, (DAT_VLEN)n * 2 * MSG,
			   A.pz, DAT_MEM_PRIV_ALL_FLAG, &lmr_a, &lctx, &rctx,
			   &rlen, &raddr));
	DIE(dat_lmr_create(B.ia, DAT_MEM_TYPE_VIRTUAL, rd, (DAT_VLEN)n * 2 * MSG,
			   B.pz, DAT_MEM_PRIV_ALL_FLAG, &lmr_b, &bctx, &rctx,
			   &rlen, &raddr));
	DIE(dat_psp_create_any(B.ia, &q, B.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	t0 = now();
	for (int i = 0; i < n; i++) {
		DAT_LMR_TRIPLET r = seg_of(buf, bctx, n + i);
		DAT_DTO_COOKIE c = { .as_64 = (uint64_t)i };

		a[i] = new_ep(&A);
		b[i] = new_ep(&B);
		DIE(dat_ep_post_recv(b[i], 1, &r, c, DAT_COMPLETION_DEFAULT_FLAG));
		connect_pair(a[i], b[i], q);
	}
	setup = now() - t0;
	/* warm up, then measure */
	for (int pass = 0; pass < 2; pass++) {
		long count = pass ? ops : (ops < n ? ops : n);

		t0 = now();
		for (long k = 0; k < count; k++) {
			int i = (int)(k % n);
			DAT_LMR_TRIPLET s = seg_of(buf, lctx, i);
			DAT_DTO_COOKIE c = { .as_64 = (uint64_t)i };
			DAT_LMR_TRIPLET r;
			int j;

			DIE(dat_ep_post_send(a[i], 1, &s, c,
					     DAT_COMPLETION_DEFAULT_FLAG));
			wait_ev(B.recv_evd, &ev, DAT_DTO_COMPLETION_EVENT);
			j = (int)ev.event_data.dto_completion_event_data
				    .user_cookie.as_64;
			r = seg_of(buf, bctx, n + j);
			c.as_64 = (uint64_t)j;
			DIE(dat_ep_post_recv(b[j], 1, &r, c,
					     DAT_COMPLETION_DEFAULT_FLAG));
			wait_ev(A.req_evd, &ev, DAT_DTO_COMPLETION_EVENT);
		}
		t = now() - t0;
	}
	close_ias();
	printf("growbench eps %d: %.2f us per Send + both completions (%ld ops, "
	       "round-robin over %d connected EPs of one IA, one EVD each kind, %s); "
	       "set-up %.1f us per connection; plain TCP write + read round-robin "
	       "over %d connections: %.2f us\n",
	       n, t / ops * 1e6, ops, n, busy_poll ? "dequeue" : "evd_wait",
	       setup / n * 1e6, n, tcp_round_robin_us(n, ops));
	free(a);
	free(b);
	free(buf);
}

struct worker {
	pthread_t thread;
	DAT_EP_HANDLE a, b;
	DAT_EVD_HANDLE a_req, a_recv, b_req, b_recv;
	DAT_LMR_CONTEXT actx, bctx;
	char *buf;	/* [0, MSG): send, [MSG, 2 MSG): receive */
	long ops;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	DAT_LMR_TRIPLET s = seg_of(w->buf, w->actx, 0);
	DAT_LMR_TRIPLET r = seg_of(w->buf, w->bctx, 1);
	DAT_DTO_COOKIE c = { .as_64 = 0 };
	DAT_EVENT ev;

	for (long k = 0; k < w->ops; k++) {
		DIE(dat_ep_post_send(w->a, 1, &s, c, DAT_COMPLETION_DEFAULT_FLAG));
		wait_ev(w->b_recv, &ev, DAT_DTO_COMPLETION_EVENT);
		DIE(dat_ep_post_recv(w->b, 1, &r, c, DAT_COMPLETION_DEFAULT_FLAG));
		wait_ev(w->a_req, &ev, DAT_DTO_COMPLETION_EVENT);
	}
	return NULL;
}

static void threads_rate(int nthreads, long ops)
{
	struct worker *w = calloc((size_t)nthreads, sizeof(*w));
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	double t0, t;

	if (!w)
		exit(1);
	open_ias(nthreads);
	DIE(dat_psp_create_any(B.ia, &q, B.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	for (int i = 0; i < nthreads; i++) {
		DAT_REGION_DESCRIPTION rd;
		DAT_LMR_HANDLE lmr;
		DAT_RMR_CONTEXT rctx;
		DAT_VLEN rlen;
		DAT_VADDR raddr;
		DAT_LMR_TRIPLET r;
		DAT_DTO_COOKIE c = { .as_64 = 0 };

		w[i].buf = calloc(2, MSG);
		w[i].ops = ops;
		rd.for_va = w[i].buf;
		DIE(dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, rd, 2 * MSG, A.pz,
				   DAT_MEM_PRIV_ALL_FLAG, &lmr, &w[i].actx, &rctx,
				   &rlen, &raddr));
		DIE(dat_lmr_create(B.ia, DAT_MEM_TYPE_VIRTUAL, rd, 2 * MSG, B.pz,
				   DAT_MEM_PRIV_ALL_FLAG, &lmr, &w[i].bctx, &rctx,
				   &rlen, &raddr));
		DIE(dat_evd_create(A.ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &w[i].a_req));
		DIE(dat_evd_create(A.ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &w[i].a_recv));
		DIE(dat_evd_create(B.ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &w[i].b_req));
		DIE(dat_evd_create(B.ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &w[i].b_recv));
		DIE(dat_ep_create(A.ia, A.pz, w[i].a_recv, w[i].a_req, A.conn_evd,
				  NULL, &w[i].a));
		DIE(dat_ep_create(B.ia, B.pz, w[i].b_recv, w[i].b_req, B.conn_evd,
				  NULL, &w[i].b));
		r = seg_of(w[i].buf, w[i].bctx, 1);
		DIE(dat_ep_post_recv(w[i].b, 1, &r, c, DAT_COMPLETION_DEFAULT_FLAG));
		connect_pair(w[i].a, w[i].b, q);
	}
	t0 = now();
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&w[i].thread, NULL, worker_run, &w[i]) != 0)
			exit(1);
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	t = now() - t0;
	printf("growbench threads %d: %.0f Sends/s in all (%.2f us per Send + both "
	       "completions per thread; %ld each, %s)\n",
	       nthreads, nthreads * ops / t, t / ops * 1e6, ops,
	       busy_poll ? "dequeue" : "evd_wait");
	close_ias();
	for (int i = 0; i < nthreads; i++)
		free(w[i].buf);
	free(w);
}

static void mem_cost(int n)
{
	DAT_EP_HANDLE *a = calloc((size_t)n, sizeof(*a));
	DAT_EP_HANDLE *b = calloc((size_t)n, sizeof(*b));
	DAT_LMR_HANDLE *l = calloc((size_t)n, sizeof(*l));
	char *buf = aligned_alloc(4096, (size_t)n * 4096);
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	long r0, r1, r2, r3;

	if (!a || !b || !l || !buf)
		exit(1);
	memset(buf, 0, (size_t)n * 4096);
	open_ias(n);
	DIE(dat_psp_create_any(B.ia, &q, B.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	r0 = rss_kib();
	for (int i = 0; i < n; i++) {
		a[i] = new_ep(&A);
		b[i] = new_ep(&B);
	}
	r1 = rss_kib();
	for (int i = 0; i < n; i++)
		connect_pair(a[i], b[i], q);
	r2 = rss_kib();
	for (int i = 0; i < n; i++) {
		DAT_REGION_DESCRIPTION rd = { .for_va = buf + (size_t)i * 4096 };
		DAT_LMR_CONTEXT lctx;
		DAT_RMR_CONTEXT rctx;
		DAT_VLEN rlen;
		DAT_VADDR raddr;

		DIE(dat_lmr_create(A.ia, DAT_MEM_TYPE_VIRTUAL, rd, 4096, A.pz,
				   DAT_MEM_PRIV_ALL_FLAG, &l[i], &lctx, &rctx,
				   &rlen, &raddr));
	}
	r3 = rss_kib();
	printf("growbench mem %d: %.2f KiB per EP (unconnected), %.2f KiB more per "
	       "connection (both ends), %.3f KiB per LMR (resident set)\n",
	       n, (double)(r1 - r0) / (2.0 * n), (double)(r2 - r1) / n,
	       (double)(r3 - r2) / n);
	close_ias();
	free(a);
	free(b);
	free(l);
	free(buf);
}

int main(int argc, char **argv)
{
	const char *test = "conn";
	long iters = 0;
	int n = 1, opt;
	struct rlimit rl;

	while ((opt = getopt(argc, argv, "d:t:e:n:P")) != -1) {
		switch (opt) {
		case 'd': ia_name = optarg; break;
		case 't': test = optarg; break;
		case 'e': n = atoi(optarg); break;
		case 'n': iters = strtol(optarg, NULL, 0); break;
		case 'P': busy_poll = 1; break;
		default:
			fprintf(stderr, "usage: %s [-d ia] -t conn|eps|mem|threads [-e n] [-n iters] [-P]\n",
				argv[0]);
			return 2;
		}
	}
	if (n < 1)
		n = 1;
	/* two sockets per connected pair */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!strcmp(test, "conn"))
		conn_rate(iters ? iters : 2000);
	else if (!strcmp(test, "eps"))
		eps_cost(n, iters ? iters : 20000);
	else if (!strcmp(test, "mem"))
		mem_cost(n);
	else if (!strcmp(test, "threads"))
		threads_rate(n, iters ? iters : 20000);
	else
		return 2;
	return 0;
}
