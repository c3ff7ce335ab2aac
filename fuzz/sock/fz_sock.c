// SPDX-License-Identifier: MIT
/*
 * fz_sock.c - libFuzzer target for the sock transport's frame decoding:
 * the input is what a TCP peer sends to the reference provider (the wire
 * format is at the top of reference-provider/transport/sock.c).
 *
 * The first input byte picks where the bytes arrive:
 *   even  on a fresh TCP connection to a PSP, before any handshake (the
 *         bytes may well hold a Connection Request, which is then rejected);
 *   odd   on an established connection: a raw peer makes the handshake
 *         (CONN_REQ, the EP accepts, CONN_RTU), the EP posts receives into
 *         its registered buffer, and the RMR context of that buffer is
 *         offered for RDMA.
 * Then the peer closes.  Checked: no crash, no access outside what was
 * handed out (ASan), and the connection ends: an established EP reaches
 * DISCONNECTED (within the fixture's 5 s event wait) and can be reset,
 * with every receive flushed.  Seeds: fuzz/sock/corpus/ (tests/provider/test_sock_hostile.c
 * has the same peer, frame by frame).
 */
#include "conn_fixture.h"

#include <errno.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#define HLEN 40

static struct cf_side b;
static DAT_PSP_HANDLE psp;
static DAT_CONN_QUAL qual;

/*
 * "ERROR:" in the line: libFuzzer's fork mode passes on only such lines of
 * a job's log, so the reason reaches fuzz.log.
 */
static void fail(const char *what)
{
	int e = errno;

	dprintf(2, "==== datcts fuzz: FINDING: sock transport: ERROR: %s (errno: %s) ====\n",
		what, strerror(e));
	abort();
}

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void send_hdr(int fd, uint8_t type, uint32_t len, uint64_t a0)
{
	uint8_t h[HLEN] = { 0 };

	put(h, 0xDA12, 2);
	h[2] = 1;
	h[3] = type;
	put(h + 4, len, 4);
	put(h + 8, a0, 8);
	(void)!write(fd, h, sizeof(h));
}

/*
 * libFuzzer's SIGALRM (its -timeout watch, every timeout/2 + 1 s, no
 * SA_RESTART) interrupts blocking calls: a connect so interrupted goes on
 * in the background, and is waited for here.
 */
static int raw_connect(void)
{
	struct sockaddr_storage ss = b.ia_addr;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = 0;

	((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)qual);
	if (fd < 0)
		fail("cannot make a TCP socket");
	if (connect(fd, (struct sockaddr *)&ss, sizeof(struct sockaddr_in)) == 0)
		return fd;
	if (errno != EINTR)
		fail("cannot reach the PSP over TCP");
	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			fail("cannot wait for the TCP connection");
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
		errno = err;
		fail("cannot reach the PSP over TCP");
	}
	return fd;
}

/* recv(MSG_WAITALL) of @n bytes, again where a signal cut it short. */
static bool recv_all(int fd, void *p, size_t n)
{
	while (n) {
		ssize_t r = recv(fd, p, n, MSG_WAITALL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p = (char *)p + r;
		n -= (size_t)r;
	}
	return true;
}

/* Reads and drops what the provider sends until it closes (or @ms pass). */
static void drain(int fd, int ms)
{
	char junk[4096];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (poll(&pfd, 1, ms) > 0 && read(fd, junk, sizeof(junk)) > 0)
		;
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return;		/* the provider closed: that is allowed */
		p += w;
		n -= (size_t)w;
	}
}

static void reject_requests(void)
{
	DAT_EVENT ev;

	while (dat_evd_dequeue(b.cr, &ev) == DAT_SUCCESS)
		if (ev.event_number == DAT_CONNECTION_REQUEST_EVENT)
			dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle);
}

/* The port of the peer that made @cr. */
static uint16_t cr_port(DAT_CR_HANDLE cr)
{
	DAT_CR_PARAM p;

	if (dat_cr_query(cr, DAT_CR_FIELD_ALL, &p) || !p.remote_ia_address_ptr)
		return 0;
	return ntohs(((const struct sockaddr_in *)p.remote_ia_address_ptr)->sin_port);
}

static int established(void)
{
	struct sockaddr_in me;
	socklen_t len = sizeof(me);
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	int fd = raw_connect();
	uint8_t h[HLEN];

	getsockname(fd, (struct sockaddr *)&me, &len);
	send_hdr(fd, 1, 1, qual);
	(void)!write(fd, "x", 1);
	/* A request left by an earlier input (its peer is gone) is rejected. */
	for (;;) {
		if (cf_wait(b.cr, &ev) != DAT_CONNECTION_REQUEST_EVENT)
			fail("no Connection Request for a well-formed CONN_REQ");
		cr = ev.event_data.cr_arrival_event_data.cr_handle;
		if (cr_port(cr) == ntohs(me.sin_port))
			break;
		dat_cr_reject(cr);
	}
	if (dat_cr_accept(cr, b.ep, 0, NULL))
		fail("dat_cr_accept refused a fresh request");
	if (!recv_all(fd, h, sizeof(h)) || h[3] != 2)
		fail("no CONN_ACCEPT after dat_cr_accept");
	send_hdr(fd, 4, 0, 0);
	if (cf_wait(b.conn, &ev) != DAT_CONNECTION_EVENT_ESTABLISHED)
		fail("no ESTABLISHED after CONN_RTU");
	return fd;
}

/* The EP must end DISCONNECTED once the peer is gone; then it is reset. */
static void ends(void)
{
	DAT_EVENT ev;
	DAT_EP_STATE st = DAT_EP_STATE_CONNECTED;

	for (int i = 0; i < 2 && st != DAT_EP_STATE_DISCONNECTED; i++) {
		cf_wait(b.conn, &ev);
		if (dat_ep_get_status(b.ep, &st, NULL, NULL))
			fail("dat_ep_get_status failed on the fixture EP");
	}
	if (st != DAT_EP_STATE_DISCONNECTED)
		fail("the EP is not DISCONNECTED after its peer closed the connection");
	while (!cf_empty(b.recv) || !cf_empty(b.req))
		;
	if (dat_ep_reset(b.ep))
		fail("dat_ep_reset refused the disconnected EP");
}

/*
 * At exit the IA is closed, so its progress thread is gone before
 * LeakSanitizer's exit check (registered earlier, so run later) stops the
 * threads to scan them: with the thread still running that check itself
 * crashed now and then ("Tracer caught signal 11"), which libFuzzer's fork
 * mode counted as a finding of the empty input.
 */
static void teardown(void)
{
	if (psp)
		dat_psp_free(psp);
	psp = DAT_HANDLE_NULL;
	cf_close(&b);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (cf_open(&b))
		fail("cannot open the IA (DAT_OVERRIDE, ref-sock)");
	b.ep = cf_ep(&b, NULL);
	if (dat_psp_create_any(b.ia, &qual, b.cr, DAT_PSP_CONSUMER_FLAG, &psp))
		fail("dat_psp_create_any failed");
	atexit(teardown);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool est = size && (data[0] & 1);
	int fd;

	if (size)
		data++, size--;
	if (!est) {
		fd = raw_connect();
		write_all(fd, data, size);
		shutdown(fd, SHUT_WR);
		drain(fd, 50);
		close(fd);
		/* A request it made, if any, is answered; nothing else is left. */
		for (int i = 0; i < 20 && !cf_empty(b.cr); i++)
			reject_requests();
		return 0;
	}
	fd = established();
	for (int i = 0; i < 4; i++) {
		DAT_LMR_TRIPLET t = cf_seg(&b, (size_t)i * 4096, 4096);

		dat_ep_post_recv(b.ep, 1, &t, cf_cookie((uint64_t)i), DAT_COMPLETION_DEFAULT_FLAG);
	}
	write_all(fd, data, size);
	shutdown(fd, SHUT_WR);
	drain(fd, 20);
	close(fd);
	ends();
	return 0;
}
