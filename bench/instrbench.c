// SPDX-License-Identifier: MIT
/*
 * instrbench - user-space instructions per DAT call, counted by valgrind's
 * callgrind in the calling thread only (datcts bench-instructions runs it,
 * docs/reference-provider.md "Instructions per call").  Any provider: the
 * IA is named by -d and found in DAT_OVERRIDE's dat.conf (or /etc/dat.conf);
 * built twice, against DAT 1.2 (libdat, instrbench) and DAT 2.0 (libdat2,
 * instrbench2).
 *
 *   valgrind --tool=callgrind --collect-atstart=no \
 *       --callgrind-out-file=DIR/cg.%p instrbench [-d ia] [-n calls] [-e live]
 *
 * One process, two IAs of the provider ("A" posts, "B" is its peer), one
 * connected EP pair measured; -e N makes N EPs (N-1 more connected pairs on
 * the same EVDs) and N LMRs on each IA live while it counts (the growth
 * table).  Collection is switched on just before each measured call and
 * off just after it (CALLGRIND_TOGGLE_COLLECT); everything in between
 * (posting the peer's receives, reaping) is not counted.  Each measured
 * operation is one dump (CALLGRIND_DUMP_STATS_AT, its name; the counters are
 * zeroed first), and "toggle" counts the empty pair of toggles, to take off.
 * Each dump's number of calls is printed on stdout:
 *   instrbench: count NAME CALLS
 */
#define BENCH_NAME "instrbench"
#include "bench_dat.h"

#include <valgrind/callgrind.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MSG	64
#define BATCH	16	/* DTOs in flight at a time (at most) */

/* What differs between the DAT 1.2 and 2.0 ABIs, for this program. */
static DAT_RETURN lmr_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, void *buf,
			     DAT_VLEN len, DAT_LMR_HANDLE *lmr,
			     DAT_LMR_CONTEXT *lctx, DAT_RMR_CONTEXT *rctx)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_VLEN rlen;
	DAT_VADDR raddr;

	memset(&rd, 0, sizeof(rd));
	rd.for_va = buf;
#ifdef DATCTS_DAT2
	return dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, len, pz,
			      DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, lmr, lctx,
			      rctx, &rlen, &raddr);
#else
	return dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, len, pz,
			      DAT_MEM_PRIV_ALL_FLAG, lmr, lctx, rctx, &rlen,
			      &raddr);
#endif
}

static DAT_RMR_TRIPLET rmr_iov(DAT_RMR_CONTEXT ctx, void *addr, DAT_VLEN len)
{
	DAT_RMR_TRIPLET r;

	memset(&r, 0, sizeof(r));
	r.rmr_context = ctx;
#ifdef DATCTS_DAT2
	r.virtual_address = (DAT_VADDR)(uintptr_t)addr;
#else
	r.target_address = (DAT_VADDR)(uintptr_t)addr;
#endif
	r.segment_length = len;
	return r;
}

struct side {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE async_evd, req_evd, recv_evd, conn_evd, cr_evd;
	DAT_IA_ADDRESS_PTR addr;
	DAT_IA_ATTR attr;
	DAT_EP_HANDLE ep;		/* the measured one, or its peer */
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	char *buf;			/* BATCH * MSG bytes */
};

static struct side A, B;
static DAT_EP_ATTR ep_attr;
static int batch = BATCH, read_batch = BATCH;

static void reap(DAT_EVD_HANDLE evd, int n)
{
	DAT_EVENT ev;

	while (n-- > 0)
		bench_wait_event(evd, &ev, DAT_DTO_COMPLETION_EVENT, 0);
}

static void open_side(struct side *s, char *ia_name, int neps)
{
	DAT_COUNT qlen = neps + 4 * BATCH;

	DIE(dat_ia_open(ia_name, 8, &s->async_evd, &s->ia));
	DIE(dat_ia_query(s->ia, &s->async_evd, DAT_IA_FIELD_ALL, &s->attr, 0,
			 NULL));
	s->addr = s->attr.ia_address_ptr;
	if (qlen > s->attr.max_evd_qlen)
		qlen = s->attr.max_evd_qlen;
	DIE(dat_pz_create(s->ia, &s->pz));
	bench_make_evds(s->ia, qlen, &s->req_evd, &s->recv_evd, &s->conn_evd,
			&s->cr_evd);
	s->buf = aligned_alloc(4096, 4096);
	if (!s->buf)
		exit(1);
	memset(s->buf, 0, 4096);
	DIE(lmr_create(s->ia, s->pz, s->buf, 4096, &s->lmr, &s->lctx, &s->rctx));
}

/* The EP attributes: the provider's defaults, with RDMA Reads allowed. */
static void choose_ep_attr(void)
{
	DAT_EP_HANDLE ep;
	DAT_EP_PARAM p;
	DAT_COUNT rd = A.attr.max_rdma_read_per_ep_in;

	DIE(dat_ep_create(A.ia, A.pz, A.recv_evd, A.req_evd, A.conn_evd, NULL,
			  &ep));
	DIE(dat_ep_query(ep, DAT_EP_FIELD_ALL, &p));
	DIE(dat_ep_free(ep));
	ep_attr = p.ep_attr;
	if (rd > A.attr.max_rdma_read_per_ep_out)
		rd = A.attr.max_rdma_read_per_ep_out;
	if (rd > 4)
		rd = 4;
	if (ep_attr.max_rdma_read_in < rd)
		ep_attr.max_rdma_read_in = rd;
	if (ep_attr.max_rdma_read_out < rd)
		ep_attr.max_rdma_read_out = rd;
	if (ep_attr.max_rdma_read_iov < 1)
		ep_attr.max_rdma_read_iov = 1;
	if (batch > ep_attr.max_request_dtos)
		batch = ep_attr.max_request_dtos;
	if (batch > ep_attr.max_recv_dtos)
		batch = ep_attr.max_recv_dtos;
	read_batch = ep_attr.max_rdma_read_out < batch ?
		     ep_attr.max_rdma_read_out : batch;
	if (batch < 2 || read_batch < 1) {
		fprintf(stderr, "instrbench: EP queues too short (%d DTOs, %d reads)\n",
			batch, read_batch);
		exit(1);
	}
}

static DAT_EP_HANDLE new_ep(struct side *s)
{
	DAT_EP_HANDLE ep;

	DIE(dat_ep_create(s->ia, s->pz, s->recv_evd, s->req_evd, s->conn_evd,
			  &ep_attr, &ep));
	return ep;
}

/* Connects @a (IA A) to @b (IA B, listening on @q). */
static void connect_pair(DAT_EP_HANDLE a, DAT_EP_HANDLE b, DAT_CONN_QUAL q)
{
	bench_connect(a, b, B.addr, q, B.cr_evd, A.conn_evd, B.conn_evd);
}

static DAT_LMR_TRIPLET seg(struct side *s, int i)
{
	DAT_LMR_TRIPLET t;

	memset(&t, 0, sizeof(t));
	t.lmr_context = s->lctx;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(s->buf + i * MSG);
	t.segment_length = MSG;
	return t;
}

static DAT_DTO_COOKIE cookie(int i)
{
	DAT_DTO_COOKIE c;

	c.as_64 = (DAT_UINT64)i;
	return c;
}

/* A call that must succeed; collection is on just around it when @counted. */
#define CALL(counted, call) do { \
	DAT_RETURN r_; \
	if (counted) \
		CALLGRIND_TOGGLE_COLLECT; \
	r_ = (call); \
	if (counted) \
		CALLGRIND_TOGGLE_COLLECT; \
	if (r_ != DAT_SUCCESS) { \
		fprintf(stderr, "instrbench: %s: 0x%08x (line %d)\n", #call, \
			(unsigned int)r_, __LINE__); \
		exit(1); \
	} \
} while (0)

/* The counters are zeroed, then @calls measured calls are made, then dumped. */
static const char *pass = "";	/* "warmup." in the pass not reported */

static void dump(const char *name, long calls)
{
	char full[64];

	snprintf(full, sizeof(full), "%s%s", pass, name);
	CALLGRIND_DUMP_STATS_AT(full);
	printf("instrbench: count %s %ld\n", full, calls);
}

enum what { POST_SEND, POST_RECV, POST_WRITE, POST_READ };

static void post(enum what w, int i, int counted)
{
	DAT_LMR_TRIPLET l = seg(w == POST_RECV ? &B : &A, i);
	DAT_RMR_TRIPLET r = rmr_iov(B.rctx, B.buf + i * MSG, MSG);
	DAT_COMPLETION_FLAGS f = DAT_COMPLETION_DEFAULT_FLAG;

	switch (w) {
	case POST_SEND:
		CALL(counted, dat_ep_post_send(A.ep, 1, &l, cookie(i), f));
		break;
	case POST_RECV:
		CALL(counted, dat_ep_post_recv(B.ep, 1, &l, cookie(i), f));
		break;
	case POST_WRITE:
		CALL(counted, dat_ep_post_rdma_write(A.ep, 1, &l, cookie(i), &r, f));
		break;
	case POST_READ:
		CALL(counted, dat_ep_post_rdma_read(A.ep, 1, &l, cookie(i), &r, f));
		break;
	}
}

/* Posts of kind @w, @n at a time, each round reaped: @calls or a few more. */
static void count_posts(const char *name, enum what w, int n, long calls)
{
	long done;

	CALLGRIND_ZERO_STATS;
	for (done = 0; done < calls; done += n) {
		for (int i = 0; i < n; i++)
			if (w == POST_SEND)
				post(POST_RECV, i, 0);
		for (int i = 0; i < n; i++)
			post(w, i, 1);
		for (int i = 0; i < n; i++)
			if (w == POST_RECV)
				post(POST_SEND, i, 0);
		if (w == POST_SEND || w == POST_RECV)
			reap(B.recv_evd, n);
		reap(A.req_evd, n);
	}
	dump(name, done);
}

/*
 * n RDMA Writes whose n completions are all in A's request EVD (a wait with
 * threshold n returns once they are, and takes the first): n - 1 left.
 */
static void completions_queued(int n)
{
	DAT_EVENT ev;
	DAT_COUNT nmore;

	for (int i = 0; i < n; i++)
		post(POST_WRITE, i, 0);
	DIE(dat_evd_wait(A.req_evd, DAT_TIMEOUT_INFINITE, n, &ev, &nmore));
	if (nmore < n - 1) {
		fprintf(stderr, "instrbench: threshold %d met with %d more\n",
			n, (int)nmore);
		exit(1);
	}
}

static void count_reaps(long calls)
{
	DAT_EVENT ev;
	DAT_COUNT nmore;
	long done;

	CALLGRIND_ZERO_STATS;
	for (done = 0; done < calls; done += batch - 1) {
		completions_queued(batch);
		for (int i = 1; i < batch; i++)
			CALL(1, dat_evd_dequeue(A.req_evd, &ev));
	}
	dump("evd_dequeue", done);

	CALLGRIND_ZERO_STATS;
	for (done = 0; done < calls; done += batch - 1) {
		completions_queued(batch);
		for (int i = 1; i < batch; i++)
			CALL(1, dat_evd_wait(A.req_evd, DAT_TIMEOUT_INFINITE, 1,
					     &ev, &nmore));
	}
	dump("evd_wait", done);

	CALLGRIND_ZERO_STATS;
	for (done = 0; done < calls; done++) {
		DAT_RETURN r;

		CALLGRIND_TOGGLE_COLLECT;
		r = dat_evd_dequeue(A.req_evd, &ev);
		CALLGRIND_TOGGLE_COLLECT;
		if (DAT_GET_TYPE(r) != DAT_QUEUE_EMPTY) {
			fprintf(stderr, "instrbench: dequeue of an empty EVD: 0x%08x\n",
				(unsigned int)r);
			exit(1);
		}
	}
	dump("evd_dequeue_empty", done);
}

static void measure(long calls)
{
	CALLGRIND_ZERO_STATS;
	for (long i = 0; i < calls; i++) {
		CALLGRIND_TOGGLE_COLLECT;
		CALLGRIND_TOGGLE_COLLECT;
	}
	dump("toggle", calls);
	count_posts("ep_post_send", POST_SEND, batch, calls);
	count_posts("ep_post_recv", POST_RECV, batch, calls);
	count_posts("ep_post_rdma_write", POST_WRITE, batch, calls);
	count_posts("ep_post_rdma_read", POST_READ, read_batch, calls);
	count_reaps(calls);
}

/* n - 1 more connected EP pairs and n - 1 more LMRs on each IA. */
static void make_live(int n, DAT_CONN_QUAL q)
{
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;

	for (int i = 1; i < n; i++) {
		connect_pair(new_ep(&A), new_ep(&B), q);
		DIE(lmr_create(A.ia, A.pz, A.buf, 4096, &lmr, &lctx, &rctx));
		DIE(lmr_create(B.ia, B.pz, B.buf, 4096, &lmr, &lctx, &rctx));
	}
}

int main(int argc, char **argv)
{
	char *ia_name = "ref-sock";
	long calls = 1024;
	int live = 1, opt;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	struct rlimit rl;

	while ((opt = getopt(argc, argv, "d:n:e:")) != -1) {
		switch (opt) {
		case 'd': ia_name = optarg; break;
		case 'n': calls = strtol(optarg, NULL, 0); break;
		case 'e': live = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d ia] [-n calls] [-e live EPs and LMRs]\n",
				argv[0]);
			return 2;
		}
	}
	if (!RUNNING_ON_VALGRIND) {
		fprintf(stderr, "instrbench: run it under valgrind --tool=callgrind "
			"--collect-atstart=no (datcts bench-instructions does)\n");
		return 2;
	}
	if (live < 1)
		live = 1;
	/* two sockets per connected pair on sock */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	open_side(&A, ia_name, live);
	open_side(&B, ia_name, live);
	choose_ep_attr();
	DIE(dat_psp_create_any(B.ia, &q, B.cr_evd, DAT_PSP_CONSUMER_FLAG, &psp));
	A.ep = new_ep(&A);
	B.ep = new_ep(&B);
	connect_pair(A.ep, B.ep, q);
	make_live(live, q);

	/* a warm-up pass over every path, then the one reported */
	pass = "warmup.";
	measure(batch);
	pass = "";
	measure(calls);
	printf("instrbench: ia %s, %d live EPs and LMRs per IA, batch %d, calls %ld\n",
	       ia_name, live, batch, calls);
	DIE(dat_ia_close(A.ia, DAT_CLOSE_ABRUPT_FLAG));
	DIE(dat_ia_close(B.ia, DAT_CLOSE_ABRUPT_FLAG));
	return 0;
}
