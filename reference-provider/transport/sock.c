/* SPDX-License-Identifier: MIT */
/*
 * sock.c - the TCP transport of the reference provider ("sock").
 *
 * One TCP connection per connected EP; connection qualifiers are TCP ports
 * (1..65535) on the IA's address.  The IA address comes from the dat.conf
 * instance data "sock:<address>" (IPv4 or IPv6 literal or host name; the
 * environment variable DAPLREF_SOCK_ADDR overrides it, handy for runs
 * across network namespaces or hosts).  A progress thread per IA waits in
 * epoll and delivers into core with ia->lock held.
 *
 * Wire format.  Every frame is a 40-byte header followed by `length`
 * payload bytes.  All integers are LITTLE ENDIAN.
 *
 *   off size field
 *     0   2  magic   0xDA12
 *     2   1  version 1
 *     3   1  type    (below)
 *     4   4  length  payload bytes after the header
 *     8   8  arg0
 *    16   8  arg1
 *    24   4  arg2
 *    28   4  arg3
 *    32   8  ack     piggybacked cumulative acknowledgement: every request
 *                    of the receiver's with seq < ack is done (0 = none);
 *                    0 in CM frames (types 1-4)
 *
 *   type             dir    arg0        arg1        arg2        arg3    payload
 *   1 CONN_REQ       A->P   qual | qos  msg size    rd out      rd in   private data (<= REF_MAX_PRIVATE_DATA)
 *   2 CONN_ACCEPT    P->A   0           0           0           0       private data (<= REF_MAX_PRIVATE_DATA)
 *   3 CONN_REJECT    P->A   0           0           1=peer,     0       none
 *                                                   0=non-peer
 *   4 CONN_RTU       A->P   0           0           0           0       none
 *   5 DISCONNECT     both   0           0           0           0       none
 *   6 SEND           both   seq         msn         bit0=solicited 0    message (<= REF_MAX_MESSAGE_SIZE)
 *   7 RDMA_WRITE     both   seq         target addr rmr_context 0       data (<= REF_MAX_RDMA_SIZE)
 *   8 RDMA_READ_REQ  both   seq         source addr rmr_context length  none (length <= REF_MAX_RDMA_SIZE)
 *   9 READ_RESP      both   seq         0           0           0       data (== length asked for)
 *  10 ACK            both   seq         0           0           0       none
 *  11 NAK            both   seq         0           status      0       none
 *
 * (CONN_REQ also carries the active EP's max_message_size and its
 * outstanding RDMA Read limits, out and in, for a Provider-created EP; its
 * arg0 holds the connection qualifier in bits 0-31 and the requested
 * DAT_QOS in bits 32-63, which the passive side checks against the QoS its
 * IA supports: a class it lacks is a non-peer CONN_REJECT.)
 * Handshake: the active side opens TCP and sends CONN_REQ; the passive side
 * answers CONN_ACCEPT (then waits for CONN_RTU) or CONN_REJECT.  A closed
 * port (ECONNREFUSED) or a reset before the answer is a non-peer reject; no
 * TCP answer within the timeout, or an unreachable host/net, is
 * "unreachable"; a TCP connection that got no answer to CONN_REQ within the
 * timeout is "timed out".
 *
 * Data: SEND, RDMA_WRITE and RDMA_READ_REQ are requests; each carries the
 * sender's request sequence number `seq` (0, 1, 2, ... per connection and
 * direction); SEND also carries its message sequence number `msn` (0, 1,
 * ... counting Sends only).  The receiver processes requests strictly in
 * order and acknowledges them cumulatively in the `ack` field of the next
 * frame it sends anyway, or - when nothing goes back within ACK_DELAY_US or
 * ACK_EVERY requests piled up - in a standalone ACK frame (arg0 = seq, all
 * requests <= seq done).  An RDMA Read is answered by its READ_RESP; a
 * failed request by a NAK with a DAT_DTO_COMPLETION_STATUS, after which
 * both sides break the connection (RC semantics).  DISCONNECT is an orderly
 * close; EOF or an error without it is a broken connection.
 *
 * Hostile input: every header field is checked before use - magic,
 * version, known type, type allowed in the connection's state, payload
 * length capped per type (never more than the caps above), zero length
 * where no payload is defined, seq/msn equal to the next expected values,
 * NAK status inside the enum.  Payload bytes are only ever written into
 * iovecs core handed out for exactly that many bytes (or discarded).  A
 * violation breaks that connection only.
 */
#include "transport.h"
#include "sock_wire.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define RBUF_LEN	(64 * 1024)
#define DIRECT_MIN	4096	/* payload >= this is read straight into place */
#define DIRECT_TAIL	4096	/* ... and at most this of what follows it
				 * into rbuf, in the same readv: the next
				 * header, without copying much of a large
				 * payload behind it twice */
#define HANDSHAKE_MS	10000	/* passive side: CONN_REQ / RTU must come */
#define LINGER_MS	2000	/* closing: drain input this long at most */
#define RX_BUDGET	(1024 * 1024)	/* bytes per conn per progress round */
#define ACK_DELAY_US	200	/* standalone ACK if nothing carried it */
#define ACK_EVERY	16	/* ... or after this many requests */
#define TICK_MS		1	/* engine tick while a consumer polls */
#define IDLE_POLLS_YIELD 16	/* empty busy polls before a yield (<= 2 CPUs) */
#define DIRECT_POLLS	8	/* busy polls that read the one connection
				 * directly between two epoll_waits */

enum poll_kind { K_LISTENER, K_CONN };

struct sock_poll {
	enum poll_kind kind;
};

enum conn_state {
	C_CONNECTING,		/* active: TCP connect in progress */
	C_REQ_SENT,		/* active: waiting for ACCEPT / REJECT */
	C_WAIT_REQ,		/* passive: TCP accepted, waiting CONN_REQ */
	C_PENDING,		/* passive: CR handed to core */
	C_ACCEPT_SENT,		/* passive: waiting for RTU */
	C_ESTABLISHED,
	C_CLOSING,		/* released: flushing output, draining input */
	C_DEAD,			/* fd closed, waiting to be freed */
};

enum rx_state { RX_HDR, RX_PAYLOAD, RX_STALLED };

struct txframe {
	struct ref_list link;
	uint8_t hdr[HDR_LEN];
	struct iovec iov[REF_MAX_IOV + 2];
	int niov;
	int cur;		/* first iov not fully written */
	void *owned;		/* freed when the frame is gone */
	uint8_t type;
	bool user;		/* references Consumer memory (a DTO's) */
};

struct sock_tp;

struct sock_listener {
	struct sock_poll poll;	/* first */
	struct ref_list link;
	struct sock_tp *tp;
	int fd;
	void *ctx;
	DAT_CONN_QUAL qual;
};

struct sock_conn {
	struct ref_tp_conn base;	/* first */
	struct sock_poll poll;
	struct ref_list link;		/* tp->conns or tp->dead */
	struct sock_tp *tp;
	int fd;
	enum conn_state state;
	bool released;			/* core dropped it */
	bool on_dead;			/* moved to tp->dead */
	bool ack_timed;			/* ack_deadline is set */
	struct timespec ack_deadline;	/* standalone ACK due */
	unsigned int ack_count;		/* requests since the last ack */
	bool in_input;			/* inside conn_input */
	bool resume;			/* RX_STALLED: core has buffers again */
	struct ref_list resume_link;	/* on tp->resumeq */
	struct ref_list ack_link;	/* on tp->ackq while ack_timed */
	struct ref_list timer_link;	/* on tp->timed: a deadline or a
					 * failure to report */
	uint64_t order;			/* creation order, for tp->timed */
	bool in_armed;			/* EPOLLIN registered */
	bool out_armed;			/* EPOLLOUT registered */
	struct sock_listener *listener;	/* passive, until CR delivered */
	DAT_CONN_QUAL qual;		/* active: asked for; passive: arrived on */
	bool has_deadline;
	struct timespec deadline;
	int fail_pending;		/* -1, or enum ref_tp_fail to report */
	void *req_pdata;		/* active: CONN_REQ payload until sent */
	DAT_COUNT req_pdata_len;
	uint64_t req_msg_size;		/* active EP attributes, CONN_REQ */
	uint32_t req_rd_out, req_rd_in;	/* (received ones on the passive) */
	uint32_t req_qos;		/* DAT_QOS asked for */

	/* receive side */
	uint8_t *rbuf;
	size_t rpos, rlen;
	enum rx_state rx;
	struct frame cur;
	struct iovec riov[REF_MAX_IOV + 1];
	int rniov;
	uint64_t remain;		/* payload bytes still to come */
	void *rx_token;
	uint64_t rx_req_seq;		/* next request seq expected */
	uint64_t rx_msn;		/* next Send MSN expected */
	uint64_t ack_pending;		/* seq + 1 to ack, 0 = none */
	uint8_t *pd_buf;		/* CM private data being received */

	/* send side */
	struct ref_list txq;
	struct ref_list spare_tx;	/* written frames kept for the next ones */
	unsigned int nspare_tx;
	/* Requests posted while earlier ones are in flight are held in txq
	 * (not written) and go out together (send_request) */
	uint64_t tx_next;		/* seq + 1 of the newest request queued */
	uint64_t tx_sent;		/* seq + 1 of the newest one not held */
	uint64_t tx_done;		/* requests with seq < this answered */
	size_t held_bytes;		/* bytes of the held frames, 0 = none */
	int held_iov;			/* their iovecs */
	struct ref_list hold_link;	/* on tp->holdq while holding */
};

struct sock_tp {
	struct ref_transport base;	/* first */
	/* base.engine.epfd holds every socket; it is waited on only under
	 * ia->lock with timeout 0 (tp_progress) */
	bool consumer_round;	/* a consumer runs tp_progress right now */
	unsigned int idle_polls;	/* busy polls in a row that found nothing */
	unsigned int direct_polls;	/* busy polls since the last epoll_wait */
	uint64_t reads;			/* read/readv calls that returned data */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct ref_list conns;
	struct ref_list dead;
	struct ref_list listeners;
	struct ref_list resumeq;
	struct ref_list ackq;	/* conns whose ack waits for a reply */
	struct ref_list holdq;	/* conns holding requests (send_request) */
	/* conns with a deadline or a failure to report, in creation order:
	 * the timers look at these, not at every connection */
	struct ref_list timed;
	uint64_t conns_made;
};

/*
 * The IA on which this thread last held something back: an ack for its
 * answer (sock_ack), or its own requests (send_request).  A handle, not a
 * pointer: the IA may be closed.
 */
static __thread DAT_IA_HANDLE held_acks_ia;

static void conn_fail(struct sock_conn *c, enum ref_tp_fail why);
static void conn_broken(struct sock_conn *c);
static void conn_close_now(struct sock_conn *c);
static void flush_ack(struct sock_conn *c);

/* ---- small helpers ---------------------------------------------------- */


/* The wire is little-endian; one store or load per field (the header is
 * written for every frame). */
static void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

void ref_sock_encode_header(uint8_t *p, const struct frame *f)
{
	put16(p, SOCK_MAGIC);
	p[2] = SOCK_VERSION;
	p[3] = f->type;
	put32(p + 4, f->length);
	put64(p + 8, f->arg0);
	put64(p + 16, f->arg1);
	put32(p + 24, f->arg2);
	put32(p + 28, f->arg3);
	put64(p + 32, f->ack);
}

uint64_t ref_sock_frame_cap(uint8_t type)
{
	switch (type) {
	case F_CONN_REQ:
	case F_CONN_ACCEPT:
	case F_CONN_REJECT:
		return REF_MAX_PRIVATE_DATA;
	case F_SEND:
		return REF_MAX_MESSAGE_SIZE;
	case F_RDMA_WRITE:
	case F_READ_RESP:
		return REF_MAX_RDMA_SIZE;
	default:
		return 0;
	}
}

int ref_sock_parse_header(const uint8_t *p, struct frame *f)
{
	f->magic = get16(p);
	f->version = p[2];
	f->type = p[3];
	f->length = get32(p + 4);
	f->arg0 = get64(p + 8);
	f->arg1 = get64(p + 16);
	f->arg2 = get32(p + 24);
	f->arg3 = get32(p + 28);
	f->ack = get64(p + 32);
	if (f->magic != SOCK_MAGIC || f->version != SOCK_VERSION)
		return -1;
	if (f->type < F_CONN_REQ || f->type >= F_MAX)
		return -1;
	if (f->length > ref_sock_frame_cap(f->type))
		return -1;
	if (f->type <= F_CONN_RTU && f->ack)
		return -1;
	switch (f->type) {
	case F_CONN_REJECT:
		if (f->arg2 > 1)
			return -1;
		break;
	case F_RDMA_READ_REQ:
		if (f->arg3 > REF_MAX_RDMA_SIZE)
			return -1;
		break;
	case F_NAK:
		if (f->arg2 == DAT_DTO_SUCCESS ||
		    f->arg2 > DAT_RMR_OPERATION_FAILED)
			return -1;
		break;
	case F_SEND:
		if (f->arg2 & ~1u)
			return -1;
		break;
	default:
		break;
	}
	return 0;
}

static void tp_wake(struct sock_tp *tp)
{
	ref_engine_wake(&tp->base.engine);
}

static void tune_socket(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static DAT_PORT_QUAL sa_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

static void sa_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static socklen_t sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

/* ---- epoll registration ----------------------------------------------- */

static void conn_set_events(struct sock_conn *c)
{
	struct epoll_event ev = { 0 };
	/* held requests wait for a flush, not for room in the socket */
	bool want_out = (!ref_list_empty(&c->txq) && !c->held_bytes) ||
			c->state == C_CONNECTING;
	bool want_in = c->rx != RX_STALLED;

	if (c->fd < 0 || (want_out == c->out_armed && want_in == c->in_armed))
		return;
	/* stalled: no EPOLLIN (backpressure), but learn when the peer shut
	 * down its side - it may have disconnected behind the stalled Send */
	ev.events = EPOLLRDHUP | (want_in ? EPOLLIN : 0) |
		    (want_out ? EPOLLOUT : 0);
	ev.data.ptr = &c->poll;
	if (epoll_ctl(c->tp->base.engine.epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0) {
		c->out_armed = want_out;
		c->in_armed = want_in;
	}
}

/* ---- output ------------------------------------------------------------- */

/*
 * A connection keeps a few written frames for its next ones: a post takes
 * one and gives it back, and malloc plus free of a frame were a tenth of a
 * post's instructions on this transport (and grew with the heap; docs/
 * reference-provider.md, Instructions per call).  Under AddressSanitizer
 * every frame goes back to malloc, so a use after free is still seen.
 */
#define SPARE_TX	8u

static void txframe_free(struct sock_conn *c, struct txframe *t)
{
	free(t->owned);
#if !defined(__SANITIZE_ADDRESS__)
	if (c->nspare_tx < SPARE_TX) {
		ref_list_add_tail(&c->spare_tx, &t->link);
		c->nspare_tx++;
		return;
	}
#else
	(void)c;
#endif
	free(t);
}

static struct txframe *txframe_new(struct sock_conn *c)
{
	struct txframe *t;

	if (ref_list_empty(&c->spare_tx))
		return malloc(sizeof(*t));
	t = ref_container_of(c->spare_tx.next, struct txframe, link);
	ref_list_del(&t->link);
	c->nspare_tx--;
	return t;
}

/*
 * Queued frames go out together: one sendmsg gathers the iovecs of as
 * many frames as fit in FLUSH_IOV and FLUSH_BYTES (no copy: they still
 * point into the DTOs' memory), so a backlog costs one system call per
 * batch instead of one per frame.
 */
#define FLUSH_IOV	64
#define FLUSH_BYTES	(256 * 1024)

/* The held requests are simply queued from now on. */
static void conn_unhold(struct sock_conn *c)
{
	c->tx_sent = c->tx_next;
	c->held_bytes = 0;
	c->held_iov = 0;
	ref_list_del(&c->hold_link);
}

/* Writes as much of the queue as the socket takes.  -1 on a dead socket. */
static int conn_flush(struct sock_conn *c)
{
	if (c->held_bytes)
		conn_unhold(c);
	while (!ref_list_empty(&c->txq)) {
		struct iovec v[FLUSH_IOV];
		struct msghdr mh = { 0 };
		struct ref_list *pos;
		size_t bytes = 0;
		bool short_write;
		int nv = 0;
		ssize_t n;

		ref_list_for_each(pos, &c->txq) {
			struct txframe *t = ref_container_of(pos,
						struct txframe, link);

			if (nv > 0 && (nv + t->niov - t->cur > FLUSH_IOV ||
				       bytes >= FLUSH_BYTES))
				break;
			for (int i = t->cur; i < t->niov && nv < FLUSH_IOV;
			     i++) {
				v[nv++] = t->iov[i];
				bytes += t->iov[i].iov_len;
			}
		}
		mh.msg_iov = v;
		mh.msg_iovlen = (size_t)nv;
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			return -1;
		}
		short_write = (size_t)n < bytes;
		/* retire what was written, frame by frame */
		while (n > 0 && !ref_list_empty(&c->txq)) {
			struct txframe *t = ref_container_of(c->txq.next,
							struct txframe, link);

			while (n > 0 && t->cur < t->niov) {
				struct iovec *w = &t->iov[t->cur];

				if ((size_t)n >= w->iov_len) {
					n -= (ssize_t)w->iov_len;
					w->iov_len = 0;
					t->cur++;
				} else {
					w->iov_base = (char *)w->iov_base + n;
					w->iov_len -= (size_t)n;
					n = 0;
				}
			}
			while (t->cur < t->niov && t->iov[t->cur].iov_len == 0)
				t->cur++;
			if (t->cur < t->niov)
				break;
			ref_list_del(&t->link);
			txframe_free(c, t);
		}
		if (short_write)
			break;	/* the socket is full: EPOLLOUT says when not */
	}
	conn_set_events(c);
	return 0;
}

/*
 * Appends a frame to txq: header + @niov data iovecs (referenced, not
 * copied; @owned is freed with the frame).  NULL when it cannot.
 */
static struct txframe *conn_queue_frame(struct sock_conn *c,
					const struct frame *f,
					const struct iovec *iov, int niov,
					void *owned)
{
	struct txframe *t;

	if (c->fd < 0 || c->state == C_DEAD) {
		free(owned);
		return NULL;
	}
	t = txframe_new(c);
	if (!t) {
		free(owned);
		return NULL;
	}
	if (c->ack_pending && c->state == C_ESTABLISHED &&
	    f->type >= F_DISCONNECT) {
		struct frame g = *f;

		g.ack = c->ack_pending;	/* piggyback */
		c->ack_pending = 0;
		c->ack_timed = false;
		c->ack_count = 0;
		ref_sock_encode_header(t->hdr, &g);
	} else {
		ref_sock_encode_header(t->hdr, f);
	}
	t->iov[0].iov_base = t->hdr;
	t->iov[0].iov_len = HDR_LEN;
	t->niov = 1;
	for (int i = 0; i < niov; i++) {
		if (iov[i].iov_len == 0)
			continue;
		t->iov[t->niov++] = iov[i];
	}
	t->cur = 0;
	t->owned = owned;
	t->type = f->type;
	t->user = !owned && t->niov > 1;
	ref_list_add_tail(&c->txq, &t->link);
	return t;
}

/*
 * Queues a frame and writes it at once when nothing is queued before it
 * but held requests (which go out ahead of it, in order).
 */
static int conn_send_frame(struct sock_conn *c, const struct frame *f,
			   const struct iovec *iov, int niov, void *owned)
{
	struct txframe *t = conn_queue_frame(c, f, iov, niov, owned);

	if (!t)
		return -1;
	if ((c->txq.next == &t->link || c->held_bytes) &&
	    c->state != C_CONNECTING) {
		if (conn_flush(c) < 0) {
			if (c->state == C_CLOSING)
				conn_close_now(c);
			return -1;
		}
	} else {
		conn_set_events(c);
	}
	return 0;
}

static int send_simple(struct sock_conn *c, uint8_t type, uint64_t a0,
		       uint32_t a2)
{
	struct frame f = { .type = type, .arg0 = a0, .arg2 = a2 };

	return conn_send_frame(c, &f, NULL, 0, NULL);
}

static int send_pdata(struct sock_conn *c, uint8_t type, uint64_t a0,
		      uint32_t a2, const void *pdata, DAT_COUNT len)
{
	struct frame f = { .type = type, .arg0 = a0, .arg2 = a2,
			   .length = (uint32_t)len };
	struct iovec iov;
	void *copy = NULL;

	if (len > 0) {
		copy = malloc((size_t)len);
		if (!copy)
			return -1;
		memcpy(copy, pdata, (size_t)len);
	}
	iov.iov_base = copy;
	iov.iov_len = (size_t)len;
	return conn_send_frame(c, &f, &iov, len > 0 ? 1 : 0, copy);
}

/* CONN_REQ: conn_qual, the active EP's attributes, private data. */
static int send_conn_req(struct sock_conn *c)
{
	struct frame f = { .type = F_CONN_REQ,
			   .arg0 = ((uint64_t)c->qual & 0xffffffffu) |
				   (uint64_t)c->req_qos << 32,
			   .arg1 = c->req_msg_size, .arg2 = c->req_rd_out,
			   .arg3 = c->req_rd_in,
			   .length = (uint32_t)c->req_pdata_len };
	struct iovec iov = { c->req_pdata, (size_t)c->req_pdata_len };

	/* the frame owns req_pdata from here */
	c->req_pdata = NULL;
	return conn_send_frame(c, &f, &iov, iov.iov_len ? 1 : 0,
			       iov.iov_base);
}

/* ---- connection objects -------------------------------------------------- */

static struct sock_conn *conn_new(struct sock_tp *tp, int fd)
{
	struct sock_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->rbuf = malloc(RBUF_LEN);
	if (!c->rbuf) {
		free(c);
		return NULL;
	}
	c->base.tp = &tp->base;
	c->poll.kind = K_CONN;
	c->tp = tp;
	c->fd = fd;
	c->fail_pending = -1;
	c->rx = RX_HDR;
	ref_list_init(&c->txq);
	ref_list_init(&c->spare_tx);
	ref_list_init(&c->resume_link);
	ref_list_init(&c->ack_link);
	ref_list_init(&c->hold_link);
	ref_list_init(&c->timer_link);
	c->order = tp->conns_made++;
	ref_list_add_tail(&tp->conns, &c->link);
	return c;
}

/*
 * Puts @c on tp->timed (a deadline was set or a failure is pending), in
 * creation order like tp->conns, so that timers fire in the order a walk
 * of every connection would find them.
 */
static void conn_timed(struct sock_conn *c)
{
	struct ref_list *pos;

	if (!ref_list_empty(&c->timer_link))
		return;
	/* older than all: dat_ia_close releases its EPs newest first, and
	 * the walk from the tail made closing n connections O(n^2) */
	pos = c->tp->timed.next;
	if (pos != &c->tp->timed &&
	    ref_container_of(pos, struct sock_conn, timer_link)->order >
	    c->order) {
		ref_list_add_tail(pos, &c->timer_link);
		return;
	}
	for (pos = c->tp->timed.prev; pos != &c->tp->timed; pos = pos->prev)
		if (ref_container_of(pos, struct sock_conn, timer_link)->order <
		    c->order)
			break;
	ref_list_add_tail(pos->next, &c->timer_link);
}

static int conn_register(struct sock_conn *c, bool out)
{
	struct epoll_event ev = { 0 };

	ev.events = EPOLLIN | EPOLLRDHUP | (out ? EPOLLOUT : 0);
	ev.data.ptr = &c->poll;
	c->out_armed = out;
	c->in_armed = true;
	return epoll_ctl(c->tp->base.engine.epfd, EPOLL_CTL_ADD, c->fd, &ev);
}

static void conn_retire(struct sock_conn *c)
{
	if (c->on_dead)
		return;
	ref_list_del(&c->link);
	ref_list_add_tail(&c->tp->dead, &c->link);
	c->on_dead = true;
}

/* Closes the socket; the struct is freed at the end of a progress round. */
static void conn_close_now(struct sock_conn *c)
{
	if (c->fd >= 0) {
		epoll_ctl(c->tp->base.engine.epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		c->fd = -1;
	}
	c->state = C_DEAD;
	c->has_deadline = false;
	while (!ref_list_empty(&c->txq)) {
		struct txframe *t = ref_container_of(c->txq.next,
						     struct txframe, link);

		ref_list_del(&t->link);
		txframe_free(c, t);
	}
	conn_unhold(c);
	if (c->released)
		conn_retire(c);
}

static void conn_free(struct sock_conn *c)
{
	while (!ref_list_empty(&c->spare_tx)) {
		struct txframe *t = ref_container_of(c->spare_tx.next,
						     struct txframe, link);

		ref_list_del(&t->link);
		free(t);
	}
	ref_list_del(&c->link);
	ref_list_del(&c->resume_link);
	ref_list_del(&c->ack_link);
	ref_list_del(&c->hold_link);
	ref_list_del(&c->timer_link);
	free(c->rbuf);
	free(c->req_pdata);
	free(c->pd_buf);
	free(c);
}

/*
 * Core has flushed the DTOs of this connection: from now on no byte of
 * Consumer memory may be read or written for it.  Queued request frames
 * that did not start are dropped; one that is half written gets the rest
 * of its data copied (the stream must stay well-formed for the frames
 * behind it); a payload being received is discarded.
 */
static void conn_forget_user_memory(struct sock_conn *c)
{
	struct ref_list *pos, *tmp;

	ref_list_for_each_safe(pos, tmp, &c->txq) {
		struct txframe *t = ref_container_of(pos, struct txframe,
						     link);
		bool started = t->cur > 0 || t->iov[0].iov_len < HDR_LEN;
		size_t total = 0, off = 0;
		char *copy;

		bool request = t->type == F_SEND || t->type == F_RDMA_WRITE ||
			       t->type == F_RDMA_READ_REQ;

		if (request && !started) {
			/* requests go out in order: what remains of them
			 * is a prefix, the peer sees no sequence gap */
			ref_list_del(&t->link);
			txframe_free(c, t);
			continue;
		}
		if (!t->user)
			continue;
		for (int i = t->cur; i < t->niov; i++)
			total += t->iov[i].iov_len;
		copy = malloc(total ? total : 1);
		if (!copy) {
			/* cannot finish it: the stream ends here */
			conn_close_now(c);
			return;
		}
		for (int i = t->cur; i < t->niov; i++) {
			memcpy(copy + off, t->iov[i].iov_base,
			       t->iov[i].iov_len);
			off += t->iov[i].iov_len;
		}
		t->iov[0].iov_base = copy;
		t->iov[0].iov_len = total;
		t->niov = 1;
		t->cur = 0;
		t->owned = copy;
		t->user = false;
	}
	conn_unhold(c);		/* held requests are unstarted: dropped */
	c->rniov = 0;
	c->rx_token = NULL;
	if (c->rx == RX_STALLED) {
		c->rx = RX_PAYLOAD;
		conn_set_events(c);
	}
}

/*
 * Core is done with @c: stop upcalls; send what is queued, then half-close
 * and drain the peer until EOF (so a final NAK or DISCONNECT is not lost
 * to a reset), bounded by LINGER_MS.
 */
static void conn_release(struct sock_conn *c)
{
	c->released = true;
	c->base.ep = NULL;
	c->fail_pending = -1;
	conn_forget_user_memory(c);
	if (c->state == C_DEAD) {
		conn_retire(c);
		return;
	}
	c->state = C_CLOSING;
	c->has_deadline = true;
	conn_timed(c);
	c->deadline = deadline_after_us(LINGER_MS * 1000ull);
	if (ref_list_empty(&c->txq)) {
		shutdown(c->fd, SHUT_WR);
	} else if (conn_flush(c) < 0) {
		conn_close_now(c);
		return;
	} else if (ref_list_empty(&c->txq)) {
		shutdown(c->fd, SHUT_WR);
	}
	tp_wake(c->tp);
}

/* ---- ops: listen ------------------------------------------------------------ */

static DAT_RETURN sock_listen(struct ref_transport *base, DAT_CONN_QUAL *qual,
			      void *ctx, struct ref_tp_listener **out)
{
	struct sock_tp *tp = (struct sock_tp *)base;
	struct sockaddr_storage ss = tp->addr;
	struct sock_listener *l;
	struct epoll_event ev = { 0 };
	socklen_t len = tp->addrlen;
	int fd, one = 1;

	if (*qual > 65535)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa_set_port(&ss, (uint16_t)*qual);
	if (bind(fd, (struct sockaddr *)&ss, tp->addrlen) < 0) {
		int e = errno;

		close(fd);
		if (*qual == 0)
			return REF_ERR(DAT_CONN_QUAL_UNAVAILABLE, 0);
		if (e == EADDRINUSE)
			return REF_ERR(DAT_CONN_QUAL_IN_USE, 0);
		if (e == EACCES)
			return REF_ERR(DAT_CONN_QUAL_IN_USE, 0);
		return REF_ERR(DAT_INVALID_ADDRESS,
			       DAT_INVALID_ADDRESS_UNSUPPORTED);
	}
	if (listen(fd, 128) < 0) {
		close(fd);
		return *qual == 0 ? REF_ERR(DAT_CONN_QUAL_UNAVAILABLE, 0)
				  : REF_ERR(DAT_CONN_QUAL_IN_USE, 0);
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		close(fd);
		return REF_ERR(DAT_INTERNAL_ERROR, 0);
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		close(fd);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	l->poll.kind = K_LISTENER;
	l->tp = tp;
	l->fd = fd;
	l->ctx = ctx;
	l->qual = sa_port(&ss);
	ev.events = EPOLLIN;
	ev.data.ptr = &l->poll;
	if (epoll_ctl(tp->base.engine.epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		free(l);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	ref_list_add_tail(&tp->listeners, &l->link);
	*qual = l->qual;
	*out = (struct ref_tp_listener *)l;
	return DAT_SUCCESS;
}

static void sock_unlisten(struct ref_tp_listener *lb)
{
	struct sock_listener *l = (struct sock_listener *)lb;
	struct sock_tp *tp = l->tp;
	struct ref_list *pos;

	/* Connections still in their handshake on this SP: refused as if
	 * nobody listened (dat_psp_free / dat_rsp_free DESCRIPTION).  A
	 * release moves the conn off tp->conns, so rescan after each. */
	for (bool again = true; again;) {
		again = false;
		ref_list_for_each(pos, &tp->conns) {
			struct sock_conn *c = ref_container_of(pos,
						struct sock_conn, link);

			if (c->listener != l)
				continue;
			c->listener = NULL;
			if (c->state == C_WAIT_REQ) {
				send_simple(c, F_CONN_REJECT, 0, 0);
				conn_release(c);
				again = true;
				break;
			}
		}
	}
	epoll_ctl(tp->base.engine.epfd, EPOLL_CTL_DEL, l->fd, NULL);
	close(l->fd);
	ref_list_del(&l->link);
	free(l);
}

/* ---- ops: connect / accept / reject / disconnect ----------------------------- */

static DAT_RETURN sock_connect(struct ref_transport *base, struct ref_ep *ep,
			       const struct sockaddr *addr, DAT_CONN_QUAL qual,
			       DAT_TIMEOUT timeout, const void *pdata,
			       DAT_COUNT pdata_len, struct ref_tp_conn **out)
{
	struct sock_tp *tp = (struct sock_tp *)base;
	struct sockaddr_storage ss;
	struct sockaddr_storage local = tp->addr;
	struct sock_conn *c;
	int fd, rc, one = 1;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return REF_ERR(DAT_INVALID_ADDRESS,
			       DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (qual == 0 || qual > 65535)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, addr, sa_len(addr));
	sa_set_port(&ss, (uint16_t)qual);
	if (ss.ss_family != tp->addr.ss_family)
		return REF_ERR(DAT_INVALID_ADDRESS,
			       DAT_INVALID_ADDRESS_UNREACHABLE);

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	tune_socket(fd);
	/*
	 * Source address = the IA address, port chosen by the kernel at
	 * connect(), not at bind(): a bind to port 0 searches the bound
	 * ports for a free one, and with thousands of connections (or their
	 * TIME_WAITs) that search was most of a connection's set-up
	 * (inet_bhash2_conflict in growbench).
	 */
	sa_set_port(&local, 0);
	setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	/*
	 * The port this connection takes (and its TIME_WAIT keeps) is no
	 * service point: with SO_REUSEADDR here as on the listeners, a PSP or
	 * RSP may still be created on it.  connect() prefers even ports, where
	 * fixed qualifiers such as OFA dtest's 45248 live.
	 */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&local, tp->addrlen) < 0) {
		close(fd);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	}
	c = conn_new(tp, fd);
	if (!c) {
		close(fd);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	if (pdata_len > 0) {
		c->req_pdata = malloc((size_t)pdata_len);
		if (!c->req_pdata) {
			close(fd);
			c->fd = -1;
			conn_free(c);
			return REF_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_MEMORY);
		}
		memcpy(c->req_pdata, pdata, (size_t)pdata_len);
	}
	c->req_pdata_len = pdata_len;
	c->req_msg_size = ep->attr.max_message_size;
	c->req_rd_out = (uint32_t)ep->attr.max_rdma_read_out;
	c->req_rd_in = (uint32_t)ep->attr.max_rdma_read_in;
	c->req_qos = (uint32_t)ep->connect_qos;
	c->base.ep = ep;
	c->qual = qual;
	c->state = C_CONNECTING;
	if (timeout != DAT_TIMEOUT_INFINITE) {
		c->has_deadline = true;
		conn_timed(c);
		c->deadline = deadline_after_us(timeout);
	}
	if (conn_register(c, true) < 0) {
		close(fd);
		c->fd = -1;
		conn_free(c);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	rc = connect(fd, (struct sockaddr *)&ss, sa_len((struct sockaddr *)&ss));
	if (rc < 0 && errno == EADDRNOTAVAIL) {
		/* no local port left: what the bind said before */
		close(fd);
		c->fd = -1;
		conn_free(c);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	}
	if (rc < 0 && errno != EINPROGRESS) {
		/* Reported asynchronously, like any other failure. */
		if (errno == ECONNREFUSED)
			c->fail_pending = REF_TP_NON_PEER_REJECTED;
		else
			c->fail_pending = REF_TP_UNREACHABLE;
		conn_timed(c);
		tp_wake(tp);
	}
	*out = &c->base;
	return DAT_SUCCESS;
}

static DAT_RETURN sock_accept(struct ref_tp_conn *cb, struct ref_ep *ep,
			      const void *pdata, DAT_COUNT pdata_len)
{
	struct sock_conn *c = (struct sock_conn *)cb;

	c->base.ep = ep;
	if (c->state != C_PENDING ||
	    send_pdata(c, F_CONN_ACCEPT, 0, 0, pdata, pdata_len) < 0) {
		/* The active side is gone: ACCEPT_COMPLETION_ERROR, async. */
		c->fail_pending = REF_TP_ACCEPT_ERROR;
		conn_timed(c);
		tp_wake(c->tp);
		return DAT_SUCCESS;
	}
	c->state = C_ACCEPT_SENT;
	c->has_deadline = true;
	conn_timed(c);
	c->deadline = deadline_after_us(HANDSHAKE_MS * 1000ull);
	return DAT_SUCCESS;
}

static void sock_peer_attr(struct ref_tp_conn *cb, DAT_EP_ATTR *a)
{
	struct sock_conn *c = (struct sock_conn *)cb;

	/* from the wire: clamp to what this provider supports */
	if (c->req_msg_size > 0)
		a->max_message_size = c->req_msg_size < REF_MAX_MESSAGE_SIZE ?
				      c->req_msg_size : REF_MAX_MESSAGE_SIZE;
	a->max_rdma_read_in = ref_peer_read_limit(c->req_rd_out, ref_profile_max_rdma_read_in());
	a->max_rdma_read_out = ref_peer_read_limit(c->req_rd_in, ref_profile.max_rdma_read);
}

static void sock_reject(struct ref_tp_conn *cb, bool peer, const void *pdata,
			DAT_COUNT pdata_len)
{
	struct sock_conn *c = (struct sock_conn *)cb;

	if (c->state != C_DEAD)
		send_pdata(c, F_CONN_REJECT, 0, peer ? 1 : 0, pdata, pdata_len);
	conn_release(c);
}

static void sock_disconnect(struct ref_tp_conn *cb)
{
	struct sock_conn *c = (struct sock_conn *)cb;

	if (c->state == C_ESTABLISHED) {
		/* what this side received and completed is acknowledged before
		 * the connection goes: else the peer flushes a delivered Send */
		flush_ack(c);
		send_simple(c, F_DISCONNECT, 0, 0);
	}
	conn_release(c);
}

static void sock_abort(struct ref_tp_conn *cb)
{
	struct sock_conn *c = (struct sock_conn *)cb;

	/* Requests processed so far were processed: say so before breaking
	 * (a delayed ACK would otherwise turn a delivered Send into a flush
	 * at the peer).  flush_ack sends nothing unless established.  Held
	 * requests go first, as if they had been written when posted. */
	if (c->held_bytes)
		conn_flush(c);	/* a dead socket: conn_release follows */
	flush_ack(c);
	conn_release(c);
}

static void sock_rx_resume(struct ref_tp_conn *cb)
{
	struct sock_conn *c = (struct sock_conn *)cb;
	struct ref_engine *e = &c->tp->base.engine;

	if (c->rx == RX_STALLED && !c->resume) {
		c->resume = true;
		ref_list_del(&c->resume_link);
		ref_list_add_tail(&c->tp->resumeq, &c->resume_link);
		/* A consumer busy-polls the sockets (engine detached, nobody
		 * asleep on them): its next poll, or engine_arm before it
		 * sleeps, resumes.  Waking the thread would cost a system
		 * call and a thread switch per Receive posted to a connection
		 * that stalls again at once. */
		if (!e->detached || e->pollers > 0)
			tp_wake(c->tp);
	}
}

static void sock_addresses(struct ref_tp_conn *cb,
			   struct sockaddr_storage *local,
			   DAT_PORT_QUAL *local_port,
			   struct sockaddr_storage *remote,
			   DAT_PORT_QUAL *remote_port)
{
	struct sock_conn *c = (struct sock_conn *)cb;
	socklen_t len;

	if (c->fd < 0)
		return;
	len = sizeof(*local);
	if (getsockname(c->fd, (struct sockaddr *)local, &len) == 0)
		*local_port = sa_port(local);
	len = sizeof(*remote);
	if (getpeername(c->fd, (struct sockaddr *)remote, &len) == 0)
		*remote_port = sa_port(remote);
}

/* ---- ops: data ------------------------------------------------------------------ */

/*
 * A request posted while earlier requests of its connection are in flight
 * (written, not answered yet) and while a consumer polls this IA (the
 * engine is detached) is held in txq, not written, up to a flush's budget:
 * the requests of a stream then go out in one sendmsg, and the kernel's
 * cost (over loopback the receiving stack's too) is per call far more than
 * per byte.  Held requests go out with the next frame sent on the
 * connection, before a consumer polls or sleeps (flush_held_acks) and at
 * the end of every progress round.  None waits for the Consumer's next
 * call: the answer to the requests in flight may never come (a peer with
 * no Receive posted acknowledges nothing), but a detached engine's thread
 * runs a round within a tick or two of the consumer's last poll.
 */
static int send_request(struct sock_conn *c, const struct frame *f,
			const struct iovec *iov, int niov)
{
	size_t bytes = HDR_LEN + f->length;
	bool hold = c->tp->base.engine.detached && c->tx_sent > c->tx_done &&
		    (ref_list_empty(&c->txq) || c->held_bytes) &&
		    c->held_bytes + bytes <= FLUSH_BYTES &&
		    c->held_iov + niov + 1 <= FLUSH_IOV;
	int rc;

	if (c->state != C_ESTABLISHED)
		return -1;
	c->tx_next = f->arg0 + 1;
	if (!hold) {
		rc = conn_send_frame(c, f, iov, niov, NULL);
		c->tx_sent = c->tx_next;
		return rc;
	}
	if (!conn_queue_frame(c, f, iov, niov, NULL))
		return -1;
	if (!c->held_bytes) {
		ref_list_add_tail(&c->tp->holdq, &c->hold_link);
		held_acks_ia = (DAT_IA_HANDLE)c->tp->base.ia;
	}
	c->held_bytes += bytes;
	c->held_iov += niov + 1;
	return 0;
}

/* The peer answered every request with seq < @upto (ACK, READ_RESP, NAK). */
static void tx_answered(struct sock_conn *c, uint64_t upto)
{
	if (upto > c->tx_done)
		c->tx_done = upto;
}

static int dto_iov(const struct ref_dto *dto, struct iovec *iov)
{
	int n = 0;

	for (int j = 0; j < dto->nseg; j++) {
		const struct ref_seg *seg = &dto->seg[j];

		if (seg->len == 0)
			continue;
		iov[n].iov_base = seg->ptr;
		iov[n].iov_len = (size_t)seg->len;
		n++;
	}
	return n;
}

static int sock_send(struct ref_tp_conn *cb, uint64_t seq, uint64_t msn,
		     bool solicited, const struct ref_dto *dto)
{
	struct sock_conn *c = (struct sock_conn *)cb;
	struct frame f = { .type = F_SEND, .arg0 = seq, .arg1 = msn,
			   .arg2 = solicited ? 1 : 0,
			   .length = (uint32_t)dto->length };
	struct iovec iov[REF_MAX_IOV];

	return send_request(c, &f, iov, dto_iov(dto, iov));
}

static int sock_rdma_write(struct ref_tp_conn *cb, uint64_t seq,
			   const struct ref_dto *dto)
{
	struct sock_conn *c = (struct sock_conn *)cb;
	struct frame f = { .type = F_RDMA_WRITE, .arg0 = seq,
			   .arg1 = REF_RMR_TRIPLET_ADDRESS(&dto->remote),
			   .arg2 = dto->remote.rmr_context,
			   .length = (uint32_t)dto->length };
	struct iovec iov[REF_MAX_IOV];

	return send_request(c, &f, iov, dto_iov(dto, iov));
}

static int sock_rdma_read(struct ref_tp_conn *cb, uint64_t seq,
			  const struct ref_dto *dto)
{
	struct sock_conn *c = (struct sock_conn *)cb;
	struct frame f = { .type = F_RDMA_READ_REQ, .arg0 = seq,
			   .arg1 = REF_RMR_TRIPLET_ADDRESS(&dto->remote),
			   .arg2 = dto->remote.rmr_context,
			   .arg3 = (uint32_t)dto->remote.segment_length };

	return send_request(c, &f, NULL, 0);
}

static void sock_ack(struct ref_tp_conn *cb, uint64_t seq)
{
	struct sock_conn *c = (struct sock_conn *)cb;

	c->ack_pending = seq + 1;
	if (++c->ack_count >= ACK_EVERY) {
		flush_ack(c);
		return;
	}
	if (!c->in_input) {
		/* from an API call (test hook release): at once */
		flush_ack(c);
		return;
	}
	if (!c->tp->consumer_round) {
		/* nobody waits here for it to arrive: ack at the end of the
		 * input batch (conn_input) */
		return;
	}
	/* A consumer waiting on this IA just received it and is likely to
	 * answer: the next frame going back carries the ack. */
	if (!c->ack_timed) {
		/* the progress thread's tick (TICK_MS, a consumer is
		 * polling) or its timeout sends it if nothing else does */
		c->ack_timed = true;
		c->ack_deadline = deadline_after_us(ACK_DELAY_US);
		ref_list_del(&c->ack_link);
		ref_list_add_tail(&c->tp->ackq, &c->ack_link);
		held_acks_ia = (DAT_IA_HANDLE)c->tp->base.ia;
	}
}

/* Held requests (send_request) go out. */
static void tp_flush_held(struct sock_tp *tp)
{
	while (!ref_list_empty(&tp->holdq)) {
		struct sock_conn *c = ref_container_of(tp->holdq.next,
						struct sock_conn, hold_link);

		if (conn_flush(c) < 0)	/* off holdq either way */
			conn_broken(c);
	}
}

/*
 * The acks a consumer's round held back for its reply (sock_ack), once
 * that consumer polls or sleeps for something else: it is not about to
 * answer, and the peer may be waiting for them (a Send's completion, a
 * full window).  Without this they waited for the timers (ACK_DELAY_US,
 * checked once a tick): ~1-2 ms per Send whose completion is waited for
 * without an answer in between.
 */
static void flush_held_acks(struct sock_tp *tp)
{
	while (!ref_list_empty(&tp->ackq)) {
		struct sock_conn *c = ref_container_of(tp->ackq.next,
						struct sock_conn, ack_link);

		ref_list_del(&c->ack_link);
		if (c->ack_timed)
			flush_ack(c);
	}
	tp_flush_held(tp);
}

/*
 * The same for acks this thread's rounds held on another IA, when it polls
 * or sleeps on @tp's (two IAs in one process: it received on B and now
 * waits on A for what B's ack releases).  @tp's lock is held, so B's is
 * only tried; when it is busy, the next poll tries again (and B's timers
 * send the ack after ACK_DELAY_US in any case).
 */
static void flush_acks_held_elsewhere(struct sock_tp *tp)
{
	DAT_IA_HANDLE h = held_acks_ia;
	struct ref_ia *ia;
	int r;

	if (!h || h == (DAT_IA_HANDLE)tp->base.ia)
		return;
	r = ref_ia_try_acquire(h, &ia);
	if (r > 0)
		return;
	held_acks_ia = NULL;
	if (r < 0)
		return;
	if (!ia->closing && ia->transport &&
	    ia->transport->ops == &ref_sock_ops)
		flush_held_acks((struct sock_tp *)ia->transport);
	ref_ia_release(ia);
}

/* A standalone ACK for whatever is pending. */
static void flush_ack(struct sock_conn *c)
{
	if (c->ack_pending && c->state == C_ESTABLISHED)
		send_simple(c, F_ACK, c->ack_pending - 1, 0);
	c->ack_pending = 0;
	c->ack_timed = false;
	c->ack_count = 0;
}

static void sock_read_resp(struct ref_tp_conn *cb, uint64_t seq,
			   const struct iovec *iov, int niov)
{
	struct sock_conn *c = (struct sock_conn *)cb;
	struct frame f = { .type = F_READ_RESP, .arg0 = seq };
	struct iovec one;
	size_t total = 0, off = 0;
	char *copy;

	if (c->state != C_ESTABLISHED)
		return;
	for (int i = 0; i < niov; i++)
		total += iov[i].iov_len;
	copy = total ? malloc(total) : NULL;
	if (total && !copy) {
		conn_broken(c);
		return;
	}
	for (int i = 0; i < niov; i++) {
		memcpy(copy + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	f.length = (uint32_t)total;
	one.iov_base = copy;
	one.iov_len = total;
	conn_send_frame(c, &f, &one, total ? 1 : 0, copy);
}

static void sock_nak(struct ref_tp_conn *cb, uint64_t seq,
		     DAT_DTO_COMPLETION_STATUS status)
{
	struct sock_conn *c = (struct sock_conn *)cb;

	if (c->state != C_ESTABLISHED)
		return;
	send_simple(c, F_NAK, seq, (uint32_t)status);	/* carries the ack */
}

/* ---- failures ----------------------------------------------------------------- */

/* Handshake failed: tell core (if it still cares) and close. */
/* Core copies @pdata before the connection (which owns it) is closed. */
static void conn_fail_pdata(struct sock_conn *c, enum ref_tp_fail why,
			    const void *pdata, DAT_COUNT pdata_len)
{
	struct ref_ep *ep = c->base.ep;
	bool report = !c->released && ep &&
		      c->state != C_WAIT_REQ && c->state != C_PENDING;

	c->released = true;
	c->base.ep = NULL;
	if (report)
		ref_tp_conn_failed(ep, why, pdata, pdata_len);
	conn_close_now(c);
}

static void conn_fail(struct sock_conn *c, enum ref_tp_fail why)
{
	conn_fail_pdata(c, why, NULL, 0);
}

/*
 * An established (or pending) connection died: tell core.  A passive
 * connection whose CR is still with the Consumer just dies quietly; the
 * accept will then report ACCEPT_COMPLETION_ERROR.
 */
static void conn_broken(struct sock_conn *c)
{
	struct ref_ep *ep = c->base.ep;

	if (c->released) {
		conn_close_now(c);
		return;
	}
	switch (c->state) {
	case C_CONNECTING:
		conn_fail(c, REF_TP_NON_PEER_REJECTED);
		return;
	case C_REQ_SENT:
		conn_fail(c, REF_TP_NON_PEER_REJECTED);
		return;
	case C_ACCEPT_SENT:
		conn_fail(c, REF_TP_ACCEPT_ERROR);
		return;
	case C_WAIT_REQ:
		c->released = true;
		conn_close_now(c);
		return;
	case C_PENDING:
		/* Core still holds it through the CR. */
		conn_close_now(c);
		return;
	case C_ESTABLISHED:
		c->released = true;
		c->base.ep = NULL;
		conn_close_now(c);
		if (ep)
			ref_tp_conn_closed(ep, false);
		return;
	default:
		conn_close_now(c);
		return;
	}
}

/* ---- input ----------------------------------------------------------------------- */

/* Is frame @type acceptable in the connection's state? */
static bool frame_allowed(const struct sock_conn *c, uint8_t type)
{
	switch (c->state) {
	case C_WAIT_REQ:
		return type == F_CONN_REQ;
	case C_REQ_SENT:
		return type == F_CONN_ACCEPT || type == F_CONN_REJECT;
	case C_PENDING:
		return false;
	case C_ACCEPT_SENT:
		return type == F_CONN_RTU;
	case C_ESTABLISHED:
		return type >= F_DISCONNECT;
	case C_CLOSING:
		return true;	/* drained, ignored */
	default:
		return false;
	}
}

static void deliver_request(struct sock_conn *c)
{
	struct sock_listener *l = c->listener;
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);

	c->listener = NULL;
	c->has_deadline = false;
	if (!l || getpeername(c->fd, (struct sockaddr *)&peer, &len) < 0) {
		send_simple(c, F_CONN_REJECT, 0, 0);
		c->released = true;
		conn_release(c);
		return;
	}
	c->state = C_PENDING;
	c->qual = l->qual;
	c->req_msg_size = c->cur.arg1;
	c->req_rd_out = c->cur.arg2;
	c->req_rd_in = c->cur.arg3;
	c->req_qos = (uint32_t)(c->cur.arg0 >> 32);
	ref_tp_conn_request(l->ctx, &c->base, (struct sockaddr *)&peer,
			    sa_port(&peer), l->qual, c->pd_buf,
			    (DAT_COUNT)c->cur.length, (DAT_QOS)c->req_qos);
}

/* A whole CM frame (header + private data in c->pd_buf) arrived. */
static void cm_frame(struct sock_conn *c)
{
	struct ref_ep *ep = c->base.ep;

	switch (c->cur.type) {
	case F_CONN_REQ:
		deliver_request(c);
		break;
	case F_CONN_ACCEPT:
		c->state = C_ESTABLISHED;
		c->has_deadline = false;
		if (send_simple(c, F_CONN_RTU, 0, 0) < 0) {
			conn_fail(c, REF_TP_NON_PEER_REJECTED);
			break;
		}
		if (ep)
			ref_tp_established(ep, c->pd_buf,
					   (DAT_COUNT)c->cur.length);
		break;
	case F_CONN_REJECT:
		if (c->cur.arg2)
			conn_fail_pdata(c, REF_TP_PEER_REJECTED, c->pd_buf,
					(DAT_COUNT)c->cur.length);
		else
			conn_fail(c, REF_TP_NON_PEER_REJECTED);
		break;
	case F_CONN_RTU:
		c->state = C_ESTABLISHED;
		c->has_deadline = false;
		if (ep)
			ref_tp_established(ep, NULL, 0);
		break;
	}
	free(c->pd_buf);
	c->pd_buf = NULL;
}

static bool frame_dispatch(struct sock_conn *c);

/* Header parsed: decide where the payload goes.  false = connection gone. */
static bool frame_begin(struct sock_conn *c)
{
	struct frame *f = &c->cur;
	struct ref_ep *ep = c->base.ep;

	c->rniov = 0;
	c->remain = f->length;
	c->rx_token = NULL;
	if (c->state == C_CLOSING)
		return true;		/* discard everything */
	if (!frame_allowed(c, f->type)) {
		conn_broken(c);
		return false;
	}
	if (f->ack && c->state == C_ESTABLISHED) {
		if (!c->base.ep) {
			conn_broken(c);
			return false;
		}
		tx_answered(c, f->ack);
		ref_tp_rx_ack(c->base.ep, f->ack - 1);
		if (c->released || c->state == C_DEAD)
			return false;
	}
	switch (f->type) {
	case F_CONN_REQ:
	case F_CONN_ACCEPT:
	case F_CONN_REJECT:
		if (f->length) {
			c->pd_buf = malloc(f->length);
			if (!c->pd_buf) {
				conn_broken(c);
				return false;
			}
			c->riov[0].iov_base = c->pd_buf;
			c->riov[0].iov_len = f->length;
			c->rniov = 1;
		}
		return true;
	case F_CONN_RTU:
	case F_DISCONNECT:
	case F_ACK:
	case F_NAK:
	case F_RDMA_READ_REQ:
		if (f->length) {
			conn_broken(c);
			return false;
		}
		break;
	default:
		break;
	}
	switch (f->type) {
	case F_SEND:
	case F_RDMA_WRITE:
	case F_RDMA_READ_REQ:
		if (f->arg0 != c->rx_req_seq ||
		    (f->type == F_SEND && f->arg1 != c->rx_msn)) {
			conn_broken(c);
			return false;
		}
		c->rx_req_seq++;
		if (f->type == F_SEND)
			c->rx_msn++;
		break;
	default:
		break;
	}
	if (!ep) {
		conn_broken(c);
		return false;
	}
	return frame_dispatch(c);
}

/*
 * Hands a validated data frame to core.  A Send with no receive buffer
 * stalls the connection (RX_STALLED) until rx_resume.
 */
static bool frame_dispatch(struct sock_conn *c)
{
	struct frame *f = &c->cur;
	struct ref_ep *ep = c->base.ep;
	int n = 0;

	c->rniov = 0;
	switch (f->type) {
	case F_SEND:
		n = ref_tp_rx_send_begin(ep, f->arg0, f->arg1, f->length,
					 f->arg2 & 1, c->riov, REF_MAX_IOV + 1,
					 &c->rx_token);
		if (n < 0 && !c->released && c->state != C_DEAD) {
			c->rx = RX_STALLED;
			conn_set_events(c);
			return true;
		}
		break;
	case F_RDMA_WRITE:
		n = ref_tp_rx_write_begin(ep, f->arg0, f->arg2, f->arg1,
					  f->length, c->riov, REF_MAX_IOV + 1);
		break;
	case F_READ_RESP:
		n = ref_tp_rx_read_resp_begin(ep, f->arg0, f->length, c->riov,
					      REF_MAX_IOV + 1);
		break;
	default:
		break;
	}
	if (c->released || c->state == C_DEAD)
		return false;
	c->rniov = n < 0 ? 0 : n;
	return true;
}

/* All payload bytes of the current frame are in. */
static bool frame_end(struct sock_conn *c)
{
	struct frame *f = &c->cur;
	struct ref_ep *ep = c->base.ep;

	if (c->state == C_CLOSING)
		return true;
	switch (f->type) {
	case F_CONN_REQ:
	case F_CONN_ACCEPT:
	case F_CONN_REJECT:
	case F_CONN_RTU:
		cm_frame(c);
		break;
	case F_DISCONNECT:
		c->released = true;
		c->base.ep = NULL;
		conn_release(c);
		if (ep)
			ref_tp_conn_closed(ep, true);
		return false;
	case F_SEND:
		ref_tp_rx_send_end(ep, c->rx_token);
		break;
	case F_RDMA_WRITE:
		ref_tp_rx_write_end(ep, f->arg0);
		break;
	case F_RDMA_READ_REQ:
		ref_tp_rx_read_req(ep, f->arg0, f->arg2, f->arg1, f->arg3);
		break;
	case F_READ_RESP:
		tx_answered(c, f->arg0 + 1);
		ref_tp_rx_read_resp_end(ep, f->arg0);
		break;
	case F_ACK:
		tx_answered(c, f->arg0 + 1);
		ref_tp_rx_ack(ep, f->arg0);
		break;
	case F_NAK:
		tx_answered(c, f->arg0 + 1);
		ref_tp_rx_nak(ep, f->arg0, f->arg2);
		break;
	}
	return !(c->released && c->state != C_CLOSING) && c->state != C_DEAD;
}

/* Places @n bytes from @src into the current payload iovecs. */
static void place(struct sock_conn *c, const uint8_t *src, size_t n)
{
	while (n > 0 && c->rniov > 0) {
		struct iovec *v = &c->riov[0];
		size_t k = n < v->iov_len ? n : v->iov_len;

		memcpy(v->iov_base, src, k);
		src += k;
		n -= k;
		v->iov_base = (char *)v->iov_base + k;
		v->iov_len -= k;
		if (v->iov_len == 0) {
			memmove(&c->riov[0], &c->riov[1],
				sizeof(c->riov[0]) * (size_t)(c->rniov - 1));
			c->rniov--;
		}
	}
}

static bool conn_input_batch(struct sock_conn *c);

/* Reads and processes input.  Returns false when the conn went away. */
static bool conn_input(struct sock_conn *c)
{
	bool alive;

	c->in_input = true;
	alive = conn_input_batch(c);
	c->in_input = false;

	if (alive && c->ack_pending && !c->ack_timed)
		flush_ack(c);
	return alive;
}

static bool conn_input_batch(struct sock_conn *c)
{
	size_t budget = RX_BUDGET;
	bool drained = false;

	/* Bytes already in rbuf are always processed (epoll would not report
	 * them again); the budget only limits further reads. */
	for (;;) {
		size_t avail = c->rlen - c->rpos;
		ssize_t n;

		if (c->rx == RX_HDR && avail >= HDR_LEN) {
			if (ref_sock_parse_header(c->rbuf + c->rpos,
						  &c->cur) < 0) {
				if (c->state == C_CLOSING) {
					conn_close_now(c);
					return false;
				}
				conn_broken(c);
				return false;
			}
			c->rpos += HDR_LEN;
			c->rx = RX_PAYLOAD;
			if (!frame_begin(c))
				return false;
			if (c->rx == RX_STALLED)
				return true;
			continue;
		}
		if (c->rx == RX_STALLED) {
			if (!c->resume)
				return true;
			c->resume = false;
			c->rx = RX_PAYLOAD;
			if (!frame_dispatch(c))
				return false;
			if (c->rx == RX_STALLED)
				return true;
			conn_set_events(c);
			continue;
		}
		if (c->rx == RX_PAYLOAD) {
			if (c->remain > 0 && avail > 0) {
				size_t k = avail < c->remain ? avail
							     : (size_t)c->remain;

				place(c, c->rbuf + c->rpos, k);
				c->rpos += k;
				c->remain -= k;
				continue;
			}
			if (c->remain == 0) {
				c->rx = RX_HDR;
				if (!frame_end(c))
					return false;
				continue;
			}
			if (budget == 0 || drained)
				break;
			/* remain > 0, buffer empty: read straight into place,
			 * and what follows the payload into rbuf */
			if (c->remain >= DIRECT_MIN && c->rniov > 0) {
				struct iovec v[REF_MAX_IOV + 2];
				int nv = 0;
				uint64_t left = c->remain, want;
				size_t tail = 0;

				for (int i = 0; i < c->rniov && left; i++) {
					v[nv] = c->riov[i];
					if (v[nv].iov_len > left)
						v[nv].iov_len = (size_t)left;
					left -= v[nv].iov_len;
					nv++;
				}
				want = c->remain - left;
				if (!left) {
					tail = DIRECT_TAIL;
					v[nv].iov_base = c->rbuf;
					v[nv].iov_len = tail;
					nv++;
				}
				c->rpos = c->rlen = 0;
				n = readv(c->fd, v, nv);
				if (n > 0) {
					uint64_t k = (uint64_t)n;

					c->tp->reads++;
					drained = k < want + tail;
					if (k > want) {
						c->rlen = (size_t)(k - want);
						k = want;
					}
					c->remain -= k;
					budget = budget > (uint64_t)n ?
						 budget - (uint64_t)n : 0;
					while (k > 0) {
						struct iovec *w = &c->riov[0];
						size_t s = k < w->iov_len ?
							   (size_t)k :
							   w->iov_len;

						w->iov_base = (char *)w->iov_base + s;
						w->iov_len -= s;
						k -= s;
						if (w->iov_len == 0) {
							memmove(&c->riov[0],
								&c->riov[1],
								sizeof(c->riov[0]) *
								(size_t)(c->rniov - 1));
							c->rniov--;
						}
					}
					continue;
				}
				goto read_result;
			}
		}
		/* Need more bytes in rbuf. */
		if (c->rpos > 0) {
			memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
			c->rlen -= c->rpos;
			c->rpos = 0;
		}
		if (drained || budget == 0)
			break;	/* short read: the socket is empty (level-
				 * triggered epoll reports anything new); or
				 * enough for this round */
		n = read(c->fd, c->rbuf + c->rlen, RBUF_LEN - c->rlen);
		if (n > 0) {
			c->tp->reads++;
			drained = (size_t)n < RBUF_LEN - c->rlen;
			c->rlen += (size_t)n;
			budget = budget > (size_t)n ? budget - (size_t)n : 0;
			continue;
		}
read_result:
		if (n == 0) {
			/* EOF */
			if (c->state == C_CLOSING) {
				conn_close_now(c);
				return false;
			}
			conn_broken(c);
			return false;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		if (c->state == C_CLOSING) {
			conn_close_now(c);
			return false;
		}
		conn_broken(c);
		return false;
	}
	return true;
}

/* Active side: TCP connect finished (or failed). */
static void conn_connected(struct sock_conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err == EINPROGRESS || err == EALREADY)
		return;
	if (err) {
		conn_fail(c, err == ECONNREFUSED || err == ECONNRESET ?
			  REF_TP_NON_PEER_REJECTED : REF_TP_UNREACHABLE);
		return;
	}
	c->state = C_REQ_SENT;
	if (send_conn_req(c) < 0) {
		conn_fail(c, REF_TP_NON_PEER_REJECTED);
		return;
	}
}

static void conn_event(struct sock_conn *c, uint32_t events)
{
	if (c->state == C_DEAD || c->fail_pending >= 0)
		return;		/* failures are reported by tp_timers */
	if (c->state == C_CONNECTING) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			conn_connected(c);
		if (c->state == C_CONNECTING || c->state == C_DEAD)
			return;
		conn_set_events(c);
	}
	if (events & EPOLLOUT) {
		if (conn_flush(c) < 0) {
			conn_broken(c);
			return;
		}
		if (c->state == C_CLOSING && ref_list_empty(&c->txq))
			shutdown(c->fd, SHUT_WR);
	}
	if (c->rx == RX_STALLED &&
	    (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
		/*
		 * The peer is gone or going while a Send of its waits for a
		 * receive buffer: that Send can no longer complete (the peer
		 * flushed it).  Drop it, unacknowledged, and read on to learn
		 * how the connection ended (DISCONNECT frame or not).
		 */
		c->rx = RX_PAYLOAD;
		c->rniov = 0;
		c->resume = false;
		conn_set_events(c);
	}
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
		if (!conn_input(c))
			return;
	}
}

static void listener_event(struct sock_listener *l)
{
	for (int i = 0; i < 16; i++) {
		int fd = accept4(l->fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct sock_conn *c;

		if (fd < 0)
			return;
		tune_socket(fd);
		c = conn_new(l->tp, fd);
		if (!c) {
			close(fd);
			continue;
		}
		c->state = C_WAIT_REQ;
		c->listener = l;
		c->qual = l->qual;
		c->has_deadline = true;
		conn_timed(c);
		c->deadline = deadline_after_us(HANDSHAKE_MS * 1000ull);
		if (conn_register(c, false) < 0) {
			c->released = true;
			conn_close_now(c);
		}
	}
}

/* Pending synchronous failures and expired deadlines. */
static void tp_timers(struct sock_tp *tp)
{
	struct timespec now = now_mono();
	bool again = true;
	struct ref_list *it, *next;

	/* delayed acks that nothing carried */
	ref_list_for_each_safe(it, next, &tp->ackq) {
		struct sock_conn *c = ref_container_of(it, struct sock_conn,
						       ack_link);

		if (!c->ack_timed)
			ref_list_del(&c->ack_link);
		else if (!ts_before(&now, &c->ack_deadline))
			flush_ack(c);
	}

	while (again) {
		struct ref_list *pos, *tmp;

		again = false;
		ref_list_for_each_safe(pos, tmp, &tp->timed) {
			struct sock_conn *c = ref_container_of(pos,
						struct sock_conn, timer_link);

			if (c->fail_pending >= 0 && !c->released) {
				int why = c->fail_pending;

				c->fail_pending = -1;
				conn_fail(c, (enum ref_tp_fail)why);
				again = true;
				break;
			}
			if (c->state == C_DEAD || !c->has_deadline) {
				if (c->fail_pending < 0)
					ref_list_del(&c->timer_link);
				continue;
			}
			if (ts_before(&now, &c->deadline))
				continue;
			c->has_deadline = false;
			switch (c->state) {
			case C_CONNECTING:
				conn_fail(c, REF_TP_UNREACHABLE);
				break;
			case C_REQ_SENT:
				conn_fail(c, REF_TP_TIMED_OUT);
				break;
			case C_ACCEPT_SENT:
				conn_fail(c, REF_TP_ACCEPT_ERROR);
				break;
			case C_WAIT_REQ:
				c->released = true;
				conn_close_now(c);
				break;
			case C_CLOSING:
				conn_close_now(c);
				break;
			default:
				break;
			}
			again = true;
			break;
		}
	}
}

static int tp_next_timeout_ms(struct sock_tp *tp)
{
	struct timespec now = now_mono(), best = { 0 };
	bool have = false;
	struct ref_list *pos;
	long ms;

	ref_list_for_each(pos, &tp->ackq) {
		struct sock_conn *c = ref_container_of(pos, struct sock_conn,
						       ack_link);

		if (c->ack_timed &&
		    (!have || ts_before(&c->ack_deadline, &best))) {
			best = c->ack_deadline;
			have = true;
		}
	}
	ref_list_for_each(pos, &tp->timed) {
		struct sock_conn *c = ref_container_of(pos, struct sock_conn,
						       timer_link);

		if (c->fail_pending >= 0)
			return 0;
		if (!c->has_deadline)
			continue;
		if (!have || ts_before(&c->deadline, &best)) {
			best = c->deadline;
			have = true;
		}
	}
	if (!have)
		return -1;
	if (ts_before(&best, &now))
		return 0;
	ms = (long)(best.tv_sec - now.tv_sec) * 1000 +
	     (best.tv_nsec - now.tv_nsec) / 1000000 + 1;
	return ms > 60000 ? 60000 : (int)ms;
}

static void tp_reap_dead(struct sock_tp *tp)
{
	while (!ref_list_empty(&tp->dead)) {
		struct sock_conn *c = ref_container_of(tp->dead.next,
						       struct sock_conn, link);

		conn_free(c);
	}
}

/* Connections whose stalled Send may now find a buffer. */
static void tp_resumes(struct sock_tp *tp)
{
	while (!ref_list_empty(&tp->resumeq)) {
		struct sock_conn *c = ref_container_of(tp->resumeq.next,
					struct sock_conn, resume_link);

		ref_list_del(&c->resume_link);
		if (c->state != C_DEAD && c->rx == RX_STALLED && c->resume)
			conn_input(c);
	}
}

/*
 * One progress round, ia->lock held: every ready socket, stalled
 * connections that may resume, timers, and freeing of dead connections.
 * epoll_wait runs with timeout 0 under the lock, so no event can be held
 * by a thread outside the lock while a connection is freed.
 */
/* Returns how many descriptors were ready. */
static int tp_progress_io(struct sock_tp *tp)
{
	struct epoll_event evs[64];
	int n = epoll_wait(tp->base.engine.epfd, evs, 64, 0);

	for (int i = 0; i < n; i++) {
		struct sock_poll *p = evs[i].data.ptr;

		switch (p->kind) {
		case K_LISTENER:
			listener_event((struct sock_listener *)p);
			break;
		case K_CONN:
			conn_event(ref_container_of(p, struct sock_conn, poll),
				   evs[i].events);
			break;
		default:
			break;
		}
	}
	tp_resumes(tp);
	return n > 0 ? n : 0;
}

static void tp_progress(struct sock_tp *tp)
{
	tp_progress_io(tp);
	tp_timers(tp);
	tp_flush_held(tp);
	tp_reap_dead(tp);
}

/* The engine's round and timer (engine.c). */
static void engine_round(struct ref_engine *e)
{
	tp_progress(ref_container_of(e, struct sock_tp, base.engine));
}

static int engine_timeout_ms(struct ref_engine *e)
{
	return tp_next_timeout_ms(ref_container_of(e, struct sock_tp,
						   base.engine));
}

/* Before anyone sleeps on the sockets: resumes no descriptor reports,
 * and acks held back for an answer (the sleeper is not answering). */
static void engine_arm(struct ref_engine *e)
{
	struct sock_tp *tp = ref_container_of(e, struct sock_tp, base.engine);

	flush_held_acks(tp);
	flush_acks_held_elsewhere(tp);
	tp_resumes(tp);
}

/* ---- consumer-driven progress (ref_conn_wait) --------------------------------- */

static void sock_progress(struct ref_transport *base)
{
	struct sock_tp *tp = (struct sock_tp *)base;

	tp->consumer_round = true;
	tp_progress(tp);
	tp->consumer_round = false;
}

/*
 * The IA's only connection, when a busy poll may read it without asking
 * epoll first: established, reading (not stalled on a full receive queue)
 * and with nothing queued to send (no EPOLLOUT to learn of).  NULL when
 * there are several, or none.
 */
static struct sock_conn *direct_conn(struct sock_tp *tp)
{
	struct sock_conn *c;

	if (ref_list_empty(&tp->conns) || tp->conns.next->next != &tp->conns)
		return NULL;
	c = ref_container_of(tp->conns.next, struct sock_conn, link);
	if (c->state != C_ESTABLISHED || c->rx == RX_STALLED ||
	    c->fail_pending >= 0 || !ref_list_empty(&c->txq))
		return NULL;
	return c;
}

/*
 * The busy poll's I/O: a consumer polling one connection reads it
 * straight away (a read that finds nothing costs what an epoll_wait that
 * finds nothing does, and one that finds a message saves the epoll_wait
 * before it: a system call on the latency path of every message).  Every
 * DIRECT_POLLS polls, and whenever the IA has another connection or this
 * one is not simply reading (connecting, output waiting for room),
 * epoll_wait looks at every socket, the listeners' included: a connection
 * request waits at most DIRECT_POLLS polls.  Returns how many sockets had
 * something.
 */
static int tp_poll_io(struct sock_tp *tp)
{
	struct sock_conn *c = direct_conn(tp);
	uint64_t reads = tp->reads;

	if (!c || ++tp->direct_polls >= DIRECT_POLLS) {
		tp->direct_polls = 0;
		return tp_progress_io(tp);
	}
	conn_event(c, EPOLLIN);
	tp_resumes(tp);
	return tp->reads != reads;
}

/*
 * Busy polling (dat_evd_dequeue, the spin of a wait), lock held: the
 * ready sockets in the caller's thread, non-blocking, so a consumer that
 * polls does not depend on the progress thread (which it would starve of
 * the CPU, or wait a scheduler tick for).  The engine leaves the sockets
 * to the poller meanwhile; timers walk every connection, so they run only
 * when ref_engine_busy_poll says a round is due (at most once a ms).
 */
static void sock_poll_completions(struct ref_transport *base)
{
	struct sock_tp *tp = (struct sock_tp *)base;
	bool timers = ref_engine_busy_tick(&base->engine);
	int ready;

	/* called when the consumer found nothing to return: what it holds
	 * back for an answer it is not giving now goes out first */
	flush_held_acks(tp);
	flush_acks_held_elsewhere(tp);
	tp->consumer_round = true;
	ready = tp_poll_io(tp);
	if (timers)
		tp_timers(tp);
	tp_flush_held(tp);
	tp->consumer_round = false;
	/*
	 * A consumer that polls in a loop on a machine with two CPUs or fewer
	 * may hold the CPU its peer (or this IA's progress thread) needs to
	 * send what it polls for: every IDLE_POLLS_YIELD empty polls it
	 * yields the CPU (a system call that returns at once when nobody else
	 * wants it).
	 */
	if (ready > 0)
		tp->idle_polls = 0;
	else if (++tp->idle_polls % IDLE_POLLS_YIELD == 0 &&
		 ref_usable_cpus() <= 2)
		sched_yield();
	if (!ref_list_empty(&tp->dead))
		tp_reap_dead(tp);
}

/* ---- open / close ------------------------------------------------------------------ */

static int resolve_addr(const char *s, struct sockaddr_storage *ss,
			socklen_t *len)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char host[256];
	const char *env = getenv("DAPLREF_SOCK_ADDR");

	if (env && *env)
		s = env;
	if (!s || !*s)
		s = "127.0.0.1";
	/* Accept "[v6]" as well as bare literals. */
	if (s[0] == '[') {
		const char *e = strchr(s, ']');
		size_t n = e ? (size_t)(e - s - 1) : 0;

		if (!e || n >= sizeof(host))
			return -1;
		memcpy(host, s + 1, n);
		host[n] = '\0';
	} else {
		size_t n = strcspn(s, " \t");

		if (n >= sizeof(host))
			return -1;
		memcpy(host, s, n);
		host[n] = '\0';
	}
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(host, "0", &hints, &res) != 0 || !res)
		return -1;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static DAT_RETURN sock_open(struct ref_ia *ia, const char *params,
			    struct ref_transport **out)
{
	struct sock_tp *tp = calloc(1, sizeof(*tp));

	if (!tp)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	tp->base.ops = &ref_sock_ops;
	tp->base.ia = ia;
	ref_list_init(&tp->conns);
	ref_list_init(&tp->dead);
	ref_list_init(&tp->listeners);
	ref_list_init(&tp->resumeq);
	ref_list_init(&tp->ackq);
	ref_list_init(&tp->holdq);
	ref_list_init(&tp->timed);
	if (resolve_addr(params, &tp->addr, &tp->addrlen) < 0) {
		free(tp);
		return REF_ERR(DAT_INVALID_ADDRESS,
			       DAT_INVALID_ADDRESS_MALFORMED);
	}
	if (ref_engine_init(&tp->base.engine, ia, TICK_MS, engine_round,
			    engine_timeout_ms, engine_arm) < 0 ||
	    ref_engine_start(&tp->base.engine) < 0)
		goto fail;
	memcpy(&ia->address, &tp->addr, sizeof(tp->addr));
	*out = &tp->base;
	return DAT_SUCCESS;
fail:
	ref_engine_fini(&tp->base.engine);
	free(tp);
	return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
}

static void sock_close(struct ref_transport *base)
{
	struct sock_tp *tp = (struct sock_tp *)base;

	ref_engine_stop(&base->engine);
	/* Everything left: connections core released or never claimed. */
	while (!ref_list_empty(&tp->conns)) {
		struct sock_conn *c = ref_container_of(tp->conns.next,
						       struct sock_conn, link);

		c->released = true;
		conn_close_now(c);	/* retires it to tp->dead */
	}
	tp_reap_dead(tp);
	while (!ref_list_empty(&tp->listeners)) {
		struct sock_listener *l = ref_container_of(tp->listeners.next,
						struct sock_listener, link);

		close(l->fd);
		ref_list_del(&l->link);
		free(l);
	}
	ref_engine_fini(&base->engine);
	free(tp);
}

const struct ref_transport_ops ref_sock_ops = {
	.name = "sock",
	.caps = REF_TP_CAP_QOS | REF_TP_CAP_SPIN,
	.open = sock_open,
	.close = sock_close,
	.listen = sock_listen,
	.unlisten = sock_unlisten,
	.connect = sock_connect,
	.accept = sock_accept,
	.reject = sock_reject,
	.disconnect = sock_disconnect,
	.addresses = sock_addresses,
	.peer_attr = sock_peer_attr,
	.send = sock_send,
	.rdma_write = sock_rdma_write,
	.rdma_read = sock_rdma_read,
	.ack = sock_ack,
	.read_resp = sock_read_resp,
	.nak = sock_nak,
	.abort = sock_abort,
	.rx_resume = sock_rx_resume,
	.progress = sock_progress,
	.poll_completions = sock_poll_completions,
};
