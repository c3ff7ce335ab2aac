// SPDX-License-Identifier: MIT
/*
 * datbench - latency and bandwidth over the DAT 1.2 API (any provider
 * found through libdat; default IA "ref-sock" from DAT_OVERRIDE/dat.conf).
 *
 *   datbench [-d ia] [-t lat|bw] [-o send|write] [-s size] [-n iters]
 *            [-w window] [-P] [-S | -C addr:conn_qual]
 *
 * lat/send:  ping-pong of Sends into pre-posted Receives; half the RTT.
 * lat/write: ping-pong of RDMA Writes; each side spins on the last byte
 *            of its own buffer (the classic RDMA latency test).
 * bw/send:   `window` Sends in flight, the receiver keeps `2*window`
 *            Receives posted; MB/s (1e6 bytes) at the sender once every
 *            Send completed (completion = acknowledged by the receiver).
 * bw/write:  `window` RDMA Writes in flight; MB/s at the writer.
 * -P: completions are busy-polled with dat_evd_dequeue (as perftest polls
 * its CQ) instead of waited for with dat_evd_wait (perftest's -e).
 * Without -S/-C the program forks: the parent is the passive side, the
 * child connects over the IA address (loopback for ref-sock).
 */
#define BENCH_NAME "datbench"
#include "bench_dat.h"

#include <netinet/in.h>
#include <sched.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *ia_name = "ref-sock";
static char mode[8] = "lat", op[8] = "send";
static size_t size = 64;
static long iters = 100000;
static int window = 64;
static int busy_poll;

struct remote {
	uint64_t addr;
	uint32_t rctx;
};

struct side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async, req, recv, conn, cr;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	char *buf;		/* [0, size*slots): send area, then recv area */
	size_t slots;
	struct remote peer;
	struct sockaddr_storage addr;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Per-iteration time stamps: the TSC where there is one (as perftest's
 * get_cycles), scaled by the ratio to the clock over the whole run.  Reading
 * the clock itself twice per iteration costs microseconds where it is an
 * emulated HPET (a TCG virtual machine), which would be charged to the
 * provider.
 */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static double stamp(void)
{
	return (double)__rdtsc();
}
#else
#define stamp now
#endif

/* Per-iteration round trips in stamp() units, for the median (robust
 * against the outliers of a busy or virtual machine). */
static double *rtt;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median one-way time: half the median round trip; @per_s: stamps a second. */
static double median_us(long n, double per_s)
{
	qsort(rtt, (size_t)n, sizeof(*rtt), cmp_double);
	return rtt[n / 2] / per_s / 2 * 1e6;
}

static void setup(struct side *s)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_VLEN len;
	DAT_VADDR va;
	DAT_IA_ATTR ia;
	DAT_EP_ATTR a;
	size_t bytes;

	memset(s, 0, sizeof(*s));
	DIE(dat_ia_open(ia_name, 16, &s->async, &s->ia));
	DIE(dat_ia_query(s->ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &ia, 0,
			 NULL));
	memcpy(&s->addr, ia.ia_address_ptr,
	       ia.ia_address_ptr->sa_family == AF_INET6 ?
	       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	DIE(dat_pz_create(s->ia, &s->pz));
	s->slots = (size_t)window * 2 + 2;
	bytes = (size > 0 ? size : 1) * s->slots * 2;
	s->buf = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
	memset(s->buf, 0, bytes);
	rd.for_va = s->buf;
	DIE(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, rd, bytes, s->pz,
			   DAT_MEM_PRIV_ALL_FLAG, &s->lmr, &s->lctx, &s->rctx,
			   &len, &va));
	DIE(dat_evd_create(s->ia, window * 4 + 16, DAT_HANDLE_NULL,
			   DAT_EVD_DTO_FLAG, &s->req));
	DIE(dat_evd_create(s->ia, window * 4 + 16, DAT_HANDLE_NULL,
			   DAT_EVD_DTO_FLAG, &s->recv));
	DIE(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
			   &s->conn));
	DIE(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
			   &s->cr));
	memset(&a, 0, sizeof(a));
	a.service_type = DAT_SERVICE_TYPE_RC;
	a.max_message_size = size > 0 ? size : 1;
	a.max_rdma_size = size > 0 ? size : 1;
	a.max_recv_dtos = window * 2 + 2;
	a.max_request_dtos = window * 2 + 2;
	a.max_recv_iov = 1;
	a.max_request_iov = 1;
	a.max_rdma_read_iov = 1;
	a.max_rdma_write_iov = 1;
	a.srq_soft_hw = DAT_HW_DEFAULT;
	DIE(dat_ep_create(s->ia, s->pz, s->recv, s->req, s->conn, &a, &s->ep));
}

static DAT_LMR_TRIPLET seg(struct side *s, size_t slot, int recv_area)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = s->lctx;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(s->buf +
		(recv_area ? s->slots * size : 0) + slot * size);
	t.segment_length = size;
	return t;
}

static void wait_ev(DAT_EVD_HANDLE evd, DAT_EVENT *ev, DAT_EVENT_NUMBER want)
{
	bench_wait_event(evd, ev, want, busy_poll);
}

static void post_recv(struct side *s, size_t slot)
{
	DAT_LMR_TRIPLET t = seg(s, slot, 1);
	DAT_DTO_COOKIE c = { .as_64 = slot };

	DIE(dat_ep_post_recv(s->ep, 1, &t, c, DAT_COMPLETION_DEFAULT_FLAG));
}

static void post_send(struct side *s, size_t slot, DAT_COMPLETION_FLAGS f)
{
	DAT_LMR_TRIPLET t = seg(s, slot, 0);
	DAT_DTO_COOKIE c = { .as_64 = slot };

	DIE(dat_ep_post_send(s->ep, 1, &t, c, f));
}

static void post_write(struct side *s, size_t slot, size_t rslot,
		       DAT_COMPLETION_FLAGS f)
{
	DAT_LMR_TRIPLET t = seg(s, slot, 0);
	DAT_RMR_TRIPLET r;
	DAT_DTO_COOKIE c = { .as_64 = slot };

	r.rmr_context = s->peer.rctx;
	r.pad = 0;
	r.target_address = s->peer.addr + s->slots * size + rslot * size;
	r.segment_length = size;
	DIE(dat_ep_post_rdma_write(s->ep, 1, &t, c, &r, f));
}

/* The receive area's address and context go to the peer. */
static struct remote my_remote(struct side *s)
{
	struct remote r = { (uint64_t)(uintptr_t)s->buf, s->rctx };

	return r;
}

static void passive(struct side *s, int port_fd)
{
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_EVENT ev;
	DAT_CR_PARAM crp;
	struct remote me = my_remote(s);

	DIE(dat_psp_create_any(s->ia, &q, s->cr, DAT_PSP_CONSUMER_FLAG, &psp));
	if (port_fd >= 0) {
		if (write(port_fd, &q, sizeof(q)) != sizeof(q))
			exit(1);
	} else {
		char a[64];

		inet_ntop(AF_INET, &((struct sockaddr_in *)&s->addr)->sin_addr,
			  a, sizeof(a));
		printf("datbench: listening on %s:%llu\n", a,
		       (unsigned long long)q);
		fflush(stdout);
	}
	/* receives first: the peer may start at once */
	if (!strcmp(op, "send"))
		for (int i = 0; i < window * 2 + 2; i++)
			post_recv(s, (size_t)i);
	wait_ev(s->cr, &ev, DAT_CONNECTION_REQUEST_EVENT);
	DIE(dat_cr_query(ev.event_data.cr_arrival_event_data.cr_handle,
			 DAT_CR_FIELD_ALL, &crp));
	memcpy(&s->peer, crp.private_data, sizeof(s->peer));
	DIE(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			  s->ep, sizeof(me), &me));
	wait_ev(s->conn, &ev, DAT_CONNECTION_EVENT_ESTABLISHED);
	DIE(dat_psp_free(psp));
}

static void active(struct side *s, const struct sockaddr *addr,
		   DAT_CONN_QUAL q)
{
	DAT_EVENT ev;
	struct remote me = my_remote(s);

	if (!strcmp(op, "send"))
		for (int i = 0; i < window * 2 + 2; i++)
			post_recv(s, (size_t)i);
	DIE(dat_ep_connect(s->ep, (DAT_IA_ADDRESS_PTR)addr, q,
			   DAT_TIMEOUT_INFINITE, sizeof(me), &me,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	wait_ev(s->conn, &ev, DAT_CONNECTION_EVENT_ESTABLISHED);
	memcpy(&s->peer, ev.event_data.connect_event_data.private_data,
	       sizeof(s->peer));
}

/* Reaps request completions so the request EVD never overflows. */
static void reap_requests(struct side *s)
{
	DAT_EVENT ev;

	while (dat_evd_dequeue(s->req, &ev) == DAT_SUCCESS)
		;
}

static void lat_send(struct side *s, int initiator)
{
	DAT_EVENT ev;
	size_t slot = 0, nslots = (size_t)window * 2 + 2;
	double t0 = now(), s0 = stamp(), per_s;

	rtt = calloc((size_t)iters, sizeof(*rtt));
	for (long i = 0; i < iters; i++) {
		double ti = stamp();

		if (initiator) {
			post_send(s, 0, DAT_COMPLETION_SUPPRESS_FLAG);
			wait_ev(s->recv, &ev, DAT_DTO_COMPLETION_EVENT);
		} else {
			wait_ev(s->recv, &ev, DAT_DTO_COMPLETION_EVENT);
			post_send(s, 0, DAT_COMPLETION_SUPPRESS_FLAG);
		}
		post_recv(s, slot);
		slot = (slot + 1) % nslots;
		rtt[i] = stamp() - ti;
	}
	per_s = (stamp() - s0) / (now() - t0);
	if (initiator)
		printf("datbench lat send size %zu: %.2f us one-way (median %.2f us)\n",
		       size, (now() - t0) / iters / 2 * 1e6, median_us(iters, per_s));
	free(rtt);
}

static void lat_write(struct side *s, int initiator)
{
	volatile char *flag = s->buf + s->slots * size + (size - 1);
	char *out = s->buf + (size - 1);
	double t0 = now(), s0 = stamp(), per_s;

	rtt = calloc((size_t)iters, sizeof(*rtt));
	for (long i = 0; i < iters; i++) {
		char mark = (char)(i % 255 + 1);
		double ti = stamp();

		if (initiator) {
			*out = mark;
			post_write(s, 0, 0, DAT_COMPLETION_SUPPRESS_FLAG);
			while (*flag != mark)
				sched_yield();
		} else {
			while (*flag != mark)
				sched_yield();
			*out = mark;
			post_write(s, 0, 0, DAT_COMPLETION_SUPPRESS_FLAG);
		}
		rtt[i] = stamp() - ti;
	}
	per_s = (stamp() - s0) / (now() - t0);
	if (initiator)
		printf("datbench lat write size %zu: %.2f us one-way (median %.2f us)\n",
		       size, (now() - t0) / iters / 2 * 1e6, median_us(iters, per_s));
	free(rtt);
}

static void bw(struct side *s, int initiator)
{
	DAT_EVENT ev;
	long posted = 0, done = 0;
	size_t nslots = (size_t)window * 2 + 2;
	double t0 = now(), t;
	int is_send = !strcmp(op, "send");

	if (!initiator) {
		if (!is_send) {
			/* the writer tells us it is done with one Send */
			wait_ev(s->recv, &ev, DAT_DTO_COMPLETION_EVENT);
			return;
		}
		for (long i = 0; i < iters; i++) {
			wait_ev(s->recv, &ev, DAT_DTO_COMPLETION_EVENT);
			post_recv(s, (size_t)ev.event_data
					  .dto_completion_event_data
					  .user_cookie.as_64);
		}
		return;
	}
	while (done < iters) {
		while (posted < iters && posted - done < window) {
			if (is_send)
				post_send(s, (size_t)(posted % (long)nslots),
					  0);
			else
				post_write(s, (size_t)(posted % (long)nslots),
					   (size_t)(posted % (long)nslots), 0);
			posted++;
		}
		wait_ev(s->req, &ev, DAT_DTO_COMPLETION_EVENT);
		done++;
	}
	t = now() - t0;
	printf("datbench bw %s size %zu: %.1f MB/s\n", op, size,
	       (double)size * iters / t / 1e6);
	if (!is_send) {
		/* a Send as end marker (the peer posted receives for it) */
		post_send(s, 0, 0);
		wait_ev(s->req, &ev, DAT_DTO_COMPLETION_EVENT);
	}
}

static void run(struct side *s, int initiator)
{
	DAT_EVENT ev;

	if (!strcmp(mode, "lat")) {
		if (!strcmp(op, "send"))
			lat_send(s, initiator);
		else
			lat_write(s, initiator);
	} else {
		if (!strcmp(op, "write") && !initiator)
			post_recv(s, 0);
		bw(s, initiator);
	}
	reap_requests(s);
	if (initiator) {
		DIE(dat_ep_disconnect(s->ep, DAT_CLOSE_ABRUPT_FLAG));
		wait_ev(s->conn, &ev, DAT_CONNECTION_EVENT_DISCONNECTED);
	} else {
		wait_ev(s->conn, &ev, DAT_CONNECTION_EVENT_DISCONNECTED);
	}
	DIE(dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG));
	free(s->buf);
}

int main(int argc, char **argv)
{
	const char *connect_to = NULL;
	int serve = 0, opt, pfd[2];
	struct side s;

	while ((opt = getopt(argc, argv, "d:t:o:s:n:w:PSC:")) != -1) {
		switch (opt) {
		case 'd': ia_name = optarg; break;
		case 't': snprintf(mode, sizeof(mode), "%s", optarg); break;
		case 'o': snprintf(op, sizeof(op), "%s", optarg); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'n': iters = strtol(optarg, NULL, 0); break;
		case 'w': window = atoi(optarg); break;
		case 'P': busy_poll = 1; break;
		case 'S': serve = 1; break;
		case 'C': connect_to = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-d ia] [-t lat|bw] [-o send|write] [-s size] [-n iters] [-w window] [-P] [-S | -C addr:qual]\n",
				argv[0]);
			return 2;
		}
	}
	if (size == 0 || window < 1 || iters < 1)
		return 2;
	if (!strcmp(mode, "lat"))
		window = 1;
	if (connect_to) {
		struct sockaddr_in sa = { .sin_family = AF_INET };
		char host[256];
		const char *c = strrchr(connect_to, ':');

		if (!c)
			return 2;
		snprintf(host, sizeof(host), "%.*s", (int)(c - connect_to),
			 connect_to);
		inet_pton(AF_INET, host, &sa.sin_addr);
		setup(&s);
		active(&s, (struct sockaddr *)&sa, strtoull(c + 1, NULL, 0));
		run(&s, 1);
		return 0;
	}
	if (serve) {
		setup(&s);
		passive(&s, -1);
		run(&s, 0);
		return 0;
	}
	if (pipe(pfd) < 0)
		return 1;
	if (fork() == 0) {
		DAT_CONN_QUAL q;

		close(pfd[1]);
		if (read(pfd[0], &q, sizeof(q)) != sizeof(q))
			_exit(1);
		setup(&s);
		active(&s, (struct sockaddr *)&s.addr, q);
		run(&s, 1);
		fflush(stdout);
		_exit(0);
	} else {
		int st;

		close(pfd[0]);
		setup(&s);
		passive(&s, pfd[1]);
		run(&s, 0);
		wait(&st);
		return !WIFEXITED(st) || WEXITSTATUS(st);
	}
}
