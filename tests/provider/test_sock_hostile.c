// SPDX-License-Identifier: MIT
/*
 * A hostile / broken TCP peer against the sock transport: a raw socket
 * speaks the wire format (written here independently, little endian) to a
 * PSP of the reference provider and sends malformed frames.  Each must
 * break that connection only (EP DISCONNECTED with
 * DAT_CONNECTION_EVENT_BROKEN, or no Connection Request at all), never
 * touch memory outside a window, never take the process down.  The raw
 * peer also holds an accept in COMPLETION_PENDING, and the EP's own
 * request in ACTIVE_CONNECTION_PENDING, for a break there.
 */
#include "conn_fixture.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

enum { T_REQ = 1, T_ACCEPT, T_REJECT, T_RTU, T_DISC, T_SEND, T_WRITE,
       T_READ_REQ, T_READ_RESP, T_ACK, T_NAK };

struct hdr {
	uint8_t type;
	uint32_t length;
	uint64_t a0, a1;
	uint32_t a2, a3;
	uint64_t ack;
};

#define HLEN 40

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t rd(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static int xwrite(int fd, const void *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static uint64_t next_ack;	/* piggybacked on the next frame */

static int send_frame(int fd, uint8_t type, uint32_t len, uint64_t a0,
		      uint64_t a1, uint32_t a2, uint32_t a3,
		      const void *payload, size_t plen)
{
	uint8_t b[HLEN];

	le(b, 0xDA12, 2);
	b[2] = 1;
	b[3] = type;
	le(b + 4, len, 4);
	le(b + 8, a0, 8);
	le(b + 16, a1, 8);
	le(b + 24, a2, 4);
	le(b + 28, a3, 4);
	le(b + 32, next_ack, 8);
	next_ack = 0;
	if (xwrite(fd, b, HLEN))
		return -1;
	return plen ? xwrite(fd, payload, plen) : 0;
}

static int read_full(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pfd, 1, 5000) <= 0)
			return -1;
		r = read(fd, (char *)p + got, n - got);
		if (r <= 0)
			return r == 0 && got == 0 ? 0 : -1;
		got += (size_t)r;
	}
	return 1;
}

/* Reads one frame header (payload into buf).  1, 0 on EOF, -1 error. */
static int recv_frame(int fd, struct hdr *h, void *buf, size_t max)
{
	uint8_t b[HLEN];
	int r = read_full(fd, b, HLEN);

	if (r <= 0)
		return r;
	h->type = b[3];
	h->length = (uint32_t)rd(b + 4, 4);
	h->a0 = rd(b + 8, 8);
	h->a1 = rd(b + 16, 8);
	h->a2 = (uint32_t)rd(b + 24, 4);
	h->a3 = (uint32_t)rd(b + 28, 4);
	h->ack = rd(b + 32, 8);
	if (h->length > max)
		return -1;
	if (h->length && read_full(fd, buf, h->length) != 1)
		return -1;
	return 1;
}

/* Waits until the provider closed the socket (reads and drops input). */
static bool peer_closes(int fd)
{
	char junk[4096];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pfd, 1, 5000) <= 0)
			return false;
		r = read(fd, junk, sizeof(junk));
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return true;
		if (r < 0)
			return false;
	}
}

static int raw_connect(struct cf_side *b, DAT_CONN_QUAL qual)
{
	struct sockaddr_storage ss = b->ia_addr;
	int fd = socket(ss.ss_family, SOCK_STREAM, 0);

	((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)qual);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss,
			      sizeof(struct sockaddr_in)) < 0) {
		fprintf(stderr, "raw connect: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* A raw listener on the IA's address; *qual is its port. */
static int raw_listen(struct cf_side *b, DAT_CONN_QUAL *qual)
{
	struct sockaddr_storage ss = b->ia_addr;
	socklen_t len = sizeof(struct sockaddr_in);
	int fd = socket(ss.ss_family, SOCK_STREAM, 0);

	((struct sockaddr_in *)&ss)->sin_port = 0;
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(fd, 1) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		fprintf(stderr, "raw listen: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*qual = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/*
 * Handshake up to the provider's CONN_ACCEPT: b->ep is COMPLETION_PENDING
 * (no RTU sent yet).  Returns the socket; -1, a failed check, when the
 * handshake does not get there.
 */
static int raw_accepted(struct cf_side *b, DAT_CONN_QUAL qual)
{
	DAT_EVENT ev;
	struct hdr h;
	char buf[64];
	int fd = raw_connect(b, qual);
	bool ok;

	CF_CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	send_frame(fd, T_REQ, 1, qual, 0, 0, 0, "x", 1);
	ok = cf_wait(b->cr, &ev) == DAT_CONNECTION_REQUEST_EVENT;
	CF_CHECK(ok);
	if (ok) {
		CF_OK(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
				    b->ep, 0, NULL));
		ok = recv_frame(fd, &h, buf, sizeof(buf)) == 1 &&
		     h.type == T_ACCEPT;
		CF_CHECK(ok);
	}
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Full handshake up to ESTABLISHED on b->ep; returns the socket. */
static int raw_established(struct cf_side *b, DAT_CONN_QUAL qual)
{
	DAT_EVENT ev;
	int fd = raw_accepted(b, qual);

	if (fd < 0)
		return -1;
	send_frame(fd, T_RTU, 0, 0, 0, 0, 0, NULL, 0);
	if (cf_wait(b->conn, &ev) != DAT_CONNECTION_EVENT_ESTABLISHED) {
		CF_CHECK(!"ESTABLISHED after the RTU");
		close(fd);
		return -1;
	}
	return fd;
}

/* The EP broke; reset it for the next round. */
static void expect_broken(struct cf_side *b, int fd)
{
	DAT_EVENT ev;
	DAT_EP_STATE st;

	CF_CHECK(cf_wait(b->conn, &ev) == DAT_CONNECTION_EVENT_BROKEN);
	CF_OK(dat_ep_get_status(b->ep, &st, NULL, NULL));
	CF_CHECK(st == DAT_EP_STATE_DISCONNECTED);
	CF_CHECK(peer_closes(fd));
	close(fd);
	/* flushed receives, if any */
	while (!cf_empty(b->recv))
		;
	CF_OK(dat_ep_reset(b->ep));
}

typedef DAT_RETURN (*break_fn)(DAT_EP_HANDLE);

/*
 * b->ep waits in @pending with a Receive (@cookie) posted and the raw peer
 * on @fd: the connection breaks (@brk); the EP ends DISCONNECTED with
 * @want, its Receive flushed, the peer's socket closed.
 */
static void break_pending(struct cf_side *b, int fd, break_fn brk,
			  DAT_EP_STATE pending, DAT_EVENT_NUMBER want,
			  uint64_t cookie)
{
	DAT_EVENT ev;
	DAT_EP_STATE st;
	uint64_t ck = 0;

	CF_OK(dat_ep_get_status(b->ep, &st, NULL, NULL));
	CF_CHECK(st == pending);
	if (brk)
		CF_OK(brk(b->ep));
	CF_CHECK(cf_wait(b->conn, &ev) == want);
	CF_OK(dat_ep_get_status(b->ep, &st, NULL, NULL));
	CF_CHECK(st == DAT_EP_STATE_DISCONNECTED);
	CF_CHECK(cf_dto(b->recv, &ck, NULL) == DAT_DTO_ERR_FLUSHED &&
		 ck == cookie);
	CF_CHECK(peer_closes(fd));
	close(fd);
}

int main(void)
{
	struct cf_side b;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
	struct hdr h;
	char buf[256];
	break_fn brk;
	int fd;

	if (cf_open(&b))
		return 1;
	b.ep = cf_ep(&b, NULL);
	CF_OK(dat_psp_create_any(b.ia, &qual, b.cr, DAT_PSP_CONSUMER_FLAG,
				 &psp));

	/* 1. garbage instead of a CONN_REQ: dropped, no request */
	fd = raw_connect(&b, qual);
	memset(buf, 0xff, HLEN);
	xwrite(fd, buf, HLEN);
	CF_CHECK(peer_closes(fd));
	close(fd);
	CF_CHECK(cf_empty(b.cr));

	/* 2. CONN_REQ claiming 4 GiB of private data */
	fd = raw_connect(&b, qual);
	send_frame(fd, T_REQ, 0xffffffffu, qual, 0, 0, 0, NULL, 0);
	CF_CHECK(peer_closes(fd));
	close(fd);
	CF_CHECK(cf_empty(b.cr));

	/* 3. data frame before the handshake */
	fd = raw_connect(&b, qual);
	send_frame(fd, T_SEND, 4, 0, 0, 0, 0, "abcd", 4);
	CF_CHECK(peer_closes(fd));
	close(fd);
	CF_CHECK(cf_empty(b.cr));

	/* 4. Send longer than any message may be */
	fd = raw_established(&b, qual);
	if (fd >= 0) {
		send_frame(fd, T_SEND, 0x7fffffffu, 0, 0, 0, 0, NULL, 0);
		expect_broken(&b, fd);
	}

	/* 5. Send with a sequence number out of order */
	fd = raw_established(&b, qual);
	if (fd >= 0) {
		send_frame(fd, T_SEND, 4, 5, 0, 0, 0, "abcd", 4);
		expect_broken(&b, fd);
	}

	/* 6. acknowledgement of a request never sent */
	fd = raw_established(&b, qual);
	if (fd >= 0) {
		send_frame(fd, T_ACK, 0, 0, 0, 0, 0, NULL, 0);
		expect_broken(&b, fd);
	}

	/* 6b. a piggybacked acknowledgement of a request never sent */
	fd = raw_established(&b, qual);
	if (fd >= 0) {
		DAT_LMR_TRIPLET t = cf_seg(&b, 512, 64);

		CF_OK(dat_ep_post_recv(b.ep, 1, &t, cf_cookie(1), 0));
		next_ack = 5;
		send_frame(fd, T_SEND, 1, 0, 0, 0, 0, "a", 1);
		expect_broken(&b, fd);
	}

	/* 7. unsolicited RDMA Read response */
	fd = raw_established(&b, qual);
	if (fd >= 0) {
		send_frame(fd, T_READ_RESP, 4, 0, 0, 0, 0, "abcd", 4);
		expect_broken(&b, fd);
	}

	/* 8. RDMA Write ending past the window: NAK, broken, untouched */
	fd = raw_established(&b, qual);
	if (fd >= 0) {
		memset(buf, 'E', 16);
		send_frame(fd, T_WRITE, 16, 0,
			   (uint64_t)(uintptr_t)(b.buf + CF_BUF - 8), b.rctx,
			   0, buf, 16);
		CF_CHECK(recv_frame(fd, &h, buf, sizeof(buf)) == 1 &&
			 h.type == T_NAK && h.a0 == 0 &&
			 h.a2 == DAT_DTO_ERR_REMOTE_ACCESS);
		CF_CHECK(b.buf[CF_BUF - 8] == 0 && b.buf[CF_BUF - 1] == 0);
		expect_broken(&b, fd);
	}

	/* 9. well-formed traffic works, then a truncated frame and EOF */
	fd = raw_established(&b, qual);
	if (fd >= 0) {
		DAT_LMR_TRIPLET t = cf_seg(&b, 512, 64);
		uint64_t ck;
		DAT_VLEN len;

		send_frame(fd, T_WRITE, 8, 0, (uint64_t)(uintptr_t)b.buf, b.rctx,
			   0, "12345678", 8);
		CF_CHECK(recv_frame(fd, &h, buf, sizeof(buf)) == 1 &&
			 h.type == T_ACK && h.a0 == 0);
		CF_CHECK(memcmp(b.buf, "12345678", 8) == 0);
		send_frame(fd, T_READ_REQ, 0, 1, (uint64_t)(uintptr_t)b.buf,
			   b.rctx, 4, NULL, 0);
		CF_CHECK(recv_frame(fd, &h, buf, sizeof(buf)) == 1 &&
			 h.type == T_READ_RESP && h.a0 == 1 &&
			 h.length == 4 && memcmp(buf, "1234", 4) == 0);
		CF_OK(dat_ep_post_recv(b.ep, 1, &t, cf_cookie(77), 0));
		send_frame(fd, T_SEND, 5, 2, 0, 0, 0, "hello", 5);
		CF_CHECK(cf_dto(b.recv, &ck, &len) == DAT_DTO_SUCCESS &&
			 ck == 77 && len == 5);
		CF_CHECK(recv_frame(fd, &h, buf, sizeof(buf)) == 1 &&
			 h.type == T_ACK && h.a0 == 2);
		/* read beyond the LMR: NAK */
		send_frame(fd, T_READ_REQ, 0, 3,
			   (uint64_t)(uintptr_t)(b.buf + CF_BUF), b.rctx, 1,
			   NULL, 0);
		CF_CHECK(recv_frame(fd, &h, buf, sizeof(buf)) == 1 &&
			 h.type == T_NAK && h.a0 == 3);
		expect_broken(&b, fd);
	}

	fd = raw_established(&b, qual);
	if (fd >= 0) {
		uint8_t part[10] = { 0x12, 0xDA, 1, T_SEND };

		xwrite(fd, part, sizeof(part));
		shutdown(fd, SHUT_WR);
		expect_broken(&b, fd);
	}

	/* 10. a flood of random bytes after the handshake */
	fd = raw_established(&b, qual);
	if (fd >= 0) {
		static uint8_t junk[1 << 20];
		uint32_t x = 12345;

		for (size_t i = 0; i < sizeof(junk); i++) {
			x = x * 1103515245u + 12345u;
			junk[i] = (uint8_t)(x >> 16);
		}
		(void)!write(fd, junk, sizeof(junk));
		expect_broken(&b, fd);
	}

	brk = (break_fn)(uintptr_t)cf_hook("daplref_test_break");
	CF_CHECK(brk != NULL);
	/*
	 * 11. the connection breaks while the accept waits for the RTU (verbs
	 * breaks an EP so when the requester's close flushes a Receive before
	 * the cm event comes): an accept that cannot complete is
	 * ACCEPT_COMPLETION_ERROR, not BROKEN (dat_cr_accept(3DAT)
	 * DESCRIPTION), the EP DISCONNECTED, its Receive flushed
	 */
	{
		DAT_LMR_TRIPLET t = cf_seg(&b, 512, 64);

		CF_OK(dat_ep_post_recv(b.ep, 1, &t, cf_cookie(11), 0));
		fd = raw_accepted(&b, qual);
		if (fd >= 0)
			break_pending(&b, fd, brk, DAT_EP_STATE_COMPLETION_PENDING,
				      DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, 11);
		CF_OK(dat_ep_reset(b.ep));
	}

	/*
	 * 12. the connection breaks while the EP's own request waits for the
	 * answer (the raw peer reads the request and says nothing): a connect
	 * that fails on a transport error is NON_PEER_REJECTED, not BROKEN
	 * (dat_ep_connect(3DAT) DESCRIPTION), the EP DISCONNECTED, its
	 * Receive flushed
	 */
	{
		DAT_LMR_TRIPLET t = cf_seg(&b, 512, 64);
		DAT_CONN_QUAL port = 0;
		int lfd = raw_listen(&b, &port);

		CF_CHECK(lfd >= 0);
		CF_OK(dat_ep_post_recv(b.ep, 1, &t, cf_cookie(12), 0));
		if (lfd >= 0) {
			CF_OK(dat_ep_connect(b.ep, (DAT_IA_ADDRESS_PTR)&b.ia_addr,
					     port, CF_WAIT, 0, NULL, 0, 0));
			fd = accept(lfd, NULL, NULL);
			CF_CHECK(fd >= 0);
			if (fd >= 0) {
				CF_CHECK(recv_frame(fd, &h, buf, sizeof(buf)) == 1 &&
					 h.type == T_REQ);
				break_pending(&b, fd, brk,
					      DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
					      DAT_CONNECTION_EVENT_NON_PEER_REJECTED, 12);
			}
			close(lfd);
		}
		CF_OK(dat_ep_reset(b.ep));
	}

	/* the IA still works: a regular connection over loopback */
	{
		struct cf_side a;

		if (cf_open(&a) == 0) {
			a.ep = cf_ep(&a, NULL);
			CF_OK(dat_psp_free(psp));
			psp = DAT_HANDLE_NULL;
			CF_CHECK(cf_connect(&a, &b) == 0);
			cf_close(&a);
		}
	}
	if (psp)
		dat_psp_free(psp);
	cf_close(&b);
	return cf_done("test_sock_hostile");
}
