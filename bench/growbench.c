// SPDX-License-Identifier: MIT
/*
 * growbench - how the cost of the provider grows with the work (DAT 1.2
 * API through libdat; default IA "ref-sock" from DAT_OVERRIDE/dat.conf).
 * One process, one IA: every connection is made to the IA's own address
 * (both ends of each connection live in this IA, as in the suite).
 *
 *   growbench -t conn [-n iters]
 *       connection set-up and tear-down: dat_ep_connect, the Connection
 *       Request, dat_cr_accept, both ESTABLISHED events, dat_ep_disconnect
 *       and both DISCONNECTED events, per second; and the same shape over
 *       plain TCP (connect, accept, close both) for comparison.
 *   growbench -t eps -e N [-n ops] [-P]
 *       N connected EP pairs on one IA, every EP on the same three EVDs
 *       (request, receive, connection); ops Sends round-robin over the
 *       pairs, each waited for (dat_evd_wait, or dat_evd_dequeue with -P)
 *       and its Receive reposted: microseconds per post + completion.
 *   growbench -t mem -e N
 *       resident memory per unconnected EP, per connected EP pair and per
 *       LMR (4 KiB each), from /proc/self/statm around creating N of each.
 */
#include <dat/udat.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DIE(expr) do { \
	DAT_RETURN rc_ = (expr); \
	if (rc_ != DAT_SUCCESS) { \
		fprintf(stderr, "growbench: %s: 0x%08x (line %d)\n", #expr, \
			(unsigned int)rc_, __LINE__); \
		exit(1); \
	} \
} while (0)

#define MSG	64

static char *ia_name = "ref-sock";
static int busy_poll;

static DAT_IA_HANDLE ia;
static DAT_PZ_HANDLE pz;
static DAT_EVD_HANDLE async_evd, req_evd, recv_evd, conn_evd, cr_evd;
static DAT_IA_ADDRESS_PTR self_addr;

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

static void wait_ev(DAT_EVD_HANDLE evd, DAT_EVENT *ev, DAT_EVENT_NUMBER want)
{
	DAT_COUNT nmore;

	if (busy_poll && want == DAT_DTO_COMPLETION_EVENT) {
		DAT_RETURN rc;

		while ((rc = dat_evd_dequeue(evd, ev)) != DAT_SUCCESS)
			if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
				DIE(rc);
	} else {
		DIE(dat_evd_wait(evd, DAT_TIMEOUT_INFINITE, 1, ev, &nmore));
	}
	if (ev->event_number != want) {
		fprintf(stderr, "growbench: event 0x%x, want 0x%x\n",
			ev->event_number, want);
		exit(1);
	}
}

static void open_ia(int neps)
{
	DAT_IA_ATTR ia_attr;
	DAT_COUNT qlen, conn_qlen;

	DIE(dat_ia_open(ia_name, 8, &async_evd, &ia));
	DIE(dat_ia_query(ia, &async_evd, DAT_IA_FIELD_ALL, &ia_attr, 0, NULL));
	self_addr = ia_attr.ia_address_ptr;
	qlen = neps * 2 + 64;
	if (qlen > ia_attr.max_evd_qlen)
		qlen = ia_attr.max_evd_qlen;
	conn_qlen = qlen;
	DIE(dat_pz_create(ia, &pz));
	DIE(dat_evd_create(ia, qlen, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &req_evd));
	DIE(dat_evd_create(ia, qlen, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &recv_evd));
	DIE(dat_evd_create(ia, conn_qlen, DAT_HANDLE_NULL,
			   DAT_EVD_CONNECTION_FLAG, &conn_evd));
	DIE(dat_evd_create(ia, 64, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd));
}

static DAT_EP_HANDLE new_ep(void)
{
	DAT_EP_HANDLE ep;

	DIE(dat_ep_create(ia, pz, recv_evd, req_evd, conn_evd, NULL, &ep));
	return ep;
}

/* Connects @a to @b through @psp (on qualifier @q). */
static void connect_pair(DAT_EP_HANDLE a, DAT_EP_HANDLE b, DAT_CONN_QUAL q)
{
	DAT_EVENT ev;

	DIE(dat_ep_connect(a, self_addr, q, DAT_TIMEOUT_INFINITE, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	wait_ev(cr_evd, &ev, DAT_CONNECTION_REQUEST_EVENT);
	DIE(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b,
			  0, NULL));
	wait_ev(conn_evd, &ev, DAT_CONNECTION_EVENT_ESTABLISHED);
	wait_ev(conn_evd, &ev, DAT_CONNECTION_EVENT_ESTABLISHED);
}

static void disconnect_pair(DAT_EP_HANDLE a)
{
	DAT_EVENT ev;

	DIE(dat_ep_disconnect(a, DAT_CLOSE_GRACEFUL_FLAG));
	wait_ev(conn_evd, &ev, DAT_CONNECTION_EVENT_DISCONNECTED);
	wait_ev(conn_evd, &ev, DAT_CONNECTION_EVENT_DISCONNECTED);
}

static void conn_rate(long iters)
{
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	double t0, dat_s, tcp_s;
	int lfd;

	open_ia(2);
	DIE(dat_psp_create_any(ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	t0 = now();
	for (long i = 0; i < iters; i++) {
		DAT_EP_HANDLE a = new_ep(), b = new_ep();

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
		close(c);
		close(s);
	}
	tcp_s = now() - t0;
	close(lfd);
	printf("growbench conn: %.0f connections/s (set up and torn down; %.1f us each); "
	       "plain TCP %.0f/s (%.1f us); ratio %.2fx\n",
	       iters / dat_s, dat_s / iters * 1e6, iters / tcp_s,
	       tcp_s / iters * 1e6, tcp_s / dat_s);
	DIE(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

static DAT_LMR_TRIPLET seg_of(char *buf, DAT_LMR_CONTEXT lctx, long i)
{
	DAT_LMR_TRIPLET t = { .lmr_context = lctx, .pad = 0,
			      .virtual_address =
				      (DAT_VADDR)(uintptr_t)(buf + i * MSG),
			      .segment_length = MSG };

	return t;
}

static void eps_cost(int n, long ops)
{
	DAT_EP_HANDLE *a = calloc((size_t)n, sizeof(*a));
	DAT_EP_HANDLE *b = calloc((size_t)n, sizeof(*b));
	char *buf = calloc((size_t)n * 2, MSG);
	DAT_REGION_DESCRIPTION rd = { .for_va = buf };
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_EVENT ev;
	double t0, t, setup;

	if (!a || !b || !buf)
		exit(1);
	open_ia(n * 2);
	DIE(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, (DAT_VLEN)n * 2 * MSG,
			   pz, DAT_MEM_PRIV_ALL_FLAG, &lmr, &lctx, &rctx, &rlen,
			   &raddr));
	DIE(dat_psp_create_any(ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	t0 = now();
	for (int i = 0; i < n; i++) {
		DAT_LMR_TRIPLET r = seg_of(buf, lctx, n + i);
		DAT_DTO_COOKIE c = { .as_64 = (uint64_t)i };

		a[i] = new_ep();
		b[i] = new_ep();
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
			wait_ev(recv_evd, &ev, DAT_DTO_COMPLETION_EVENT);
			j = (int)ev.event_data.dto_completion_event_data
				    .user_cookie.as_64;
			r = seg_of(buf, lctx, n + j);
			c.as_64 = (uint64_t)j;
			DIE(dat_ep_post_recv(b[j], 1, &r, c,
					     DAT_COMPLETION_DEFAULT_FLAG));
			wait_ev(req_evd, &ev, DAT_DTO_COMPLETION_EVENT);
		}
		t = now() - t0;
	}
	printf("growbench eps %d: %.2f us per Send + both completions (%ld ops, "
	       "round-robin over %d connected pairs, one IA, one EVD each kind, %s); "
	       "set-up %.1f us per pair\n",
	       n, t / ops * 1e6, ops, n, busy_poll ? "dequeue" : "evd_wait",
	       setup / n * 1e6);
	DIE(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	free(a);
	free(b);
	free(buf);
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
	open_ia(n * 2);
	DIE(dat_psp_create_any(ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	r0 = rss_kib();
	for (int i = 0; i < n; i++) {
		a[i] = new_ep();
		b[i] = new_ep();
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

		DIE(dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 4096, pz,
				   DAT_MEM_PRIV_ALL_FLAG, &l[i], &lctx, &rctx,
				   &rlen, &raddr));
	}
	r3 = rss_kib();
	printf("growbench mem %d: %.2f KiB per EP (unconnected), %.2f KiB more per "
	       "connected pair, %.3f KiB per LMR (resident set)\n",
	       n, (double)(r1 - r0) / (2.0 * n), (double)(r2 - r1) / n,
	       (double)(r3 - r2) / n);
	DIE(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
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
			fprintf(stderr, "usage: %s [-d ia] -t conn|eps|mem [-e n] [-n iters] [-P]\n",
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
	else
		return 2;
	return 0;
}
