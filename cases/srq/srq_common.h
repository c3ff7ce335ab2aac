/* SPDX-License-Identifier: MIT */
/*
 * srq_common.h - set-up helpers shared by the cases of cases/srq/.
 *
 * Header-only (static) so that every page file stays one translation unit.
 * Everything here is fixture work: a miss ends the case UNRESOLVED, except
 * the few helpers whose name says "expect", which check a clause.
 *
 * The usual picture: one SRQ in its own PZ, an EP "rx" created on it, and a
 * plain EP "tx" that sends to rx; both live in this process and are
 * connected over the IA's own address (dc_connect_local).  Message i is
 * sent from slot i of tx's buffer and carries i in its first 4 bytes;
 * receive buffer slot k is posted with cookie k, so a completion says which
 * buffer it used and the buffer says which message it got.
 */
#ifndef SRQ_COMMON_H
#define SRQ_COMMON_H

#include "datcts.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define SLOT		256u	/* bytes per message slot */
#define NSLOTS		64u	/* slots in each link buffer */
#define LINK_BUF	(SLOT * NSLOTS)
/* ---- SRQ parameters --------------------------------------------------------- */


#define KNOWN(v) ((v) != DAT_VALUE_UNKNOWN)

/*
 * A count the page lets the provider answer with DAT_VALUE_UNKNOWN: equal
 * to `want` when known; noted (not failed) when unknown.
 */
#define ASSERT_COUNT(got, want)						\
	do {								\
		DAT_COUNT c_got_ = (got);				\
		if (KNOWN(c_got_))					\
			DC_ASSERT_INT_(c_got_, ==, (want));		\
		else							\
			dc_note(t, "%s is DAT_VALUE_UNKNOWN (allowed)", #got);	\
	} while (0)

/* True when the provider reports both SRQ counts (no DAT_VALUE_UNKNOWN). */
static inline bool srq_counts_known(const DAT_SRQ_PARAM *p)
{
	return KNOWN(p->available_dto_count) && KNOWN(p->outstanding_dto_count);
}

/* ---- buffers -------------------------------------------------------------- */

/* Posts receive slot k (SLOT bytes) of m to the SRQ with cookie k. */
static inline void post_slot_at(struct dc_ctx *t, const char *file, int line,
				DAT_SRQ_HANDLE srq, const struct dc_lmr *m,
				unsigned k)
{
	memset(m->buf + (size_t)k * SLOT, 0xEE, SLOT);
	dc_srq_post_recv_at(t, file, line, srq, m, (DAT_VLEN)k * SLOT, SLOT, k);
}
#define post_slot(srq, m, k) post_slot_at(t, __FILE__, __LINE__, (srq), (m), (k))

static inline void post_slots_at(struct dc_ctx *t, const char *file, int line,
				 DAT_SRQ_HANDLE srq, const struct dc_lmr *m,
				 unsigned first, unsigned n)
{
	for (unsigned k = first; k < first + n; k++)
		post_slot_at(t, file, line, srq, m, k);
}
#define post_slots(srq, m, first, n) \
	post_slots_at(t, __FILE__, __LINE__, (srq), (m), (first), (n))

/* The message number written in the first 4 bytes of receive slot k. */
static inline uint32_t slot_seq(const struct dc_lmr *m, unsigned k)
{
	uint32_t v;

	memcpy(&v, m->buf + (size_t)k * SLOT, sizeof(v));
	return v;
}

/* ---- the link: an SRQ EP (rx) and a plain sender (tx), connected -------- */

struct srq_link {
	DAT_PZ_HANDLE pz;		/* the SRQ's PZ */
	DAT_SRQ_HANDLE srq;
	struct dc_endpoint rx;		/* EP on the SRQ (passive side) */
	struct dc_endpoint tx;		/* plain EP that sends (active side) */
	struct dc_lmr rbuf;		/* receive memory, SRQ's PZ */
	struct dc_lmr sbuf;		/* send memory, tx's PZ (local tx only) */
	bool remote;			/* tx is the other half of a two-node case */
	bool few_evds;			/* made with link_opts.few_evds */
	struct dc_lmr long_rbuf;	/* a watched arrival's buffer (srq_hold.h) */
	struct dc_lmr long_sbuf;	/* ... and its message (local tx only) */
};

struct link_opts {
	DAT_COUNT depth;		/* SRQ max_recv_dtos (default 16, or the IA's maximum) */
	DAT_COUNT iov;			/* SRQ max_recv_iov (default 4, or the IA's maximum) */
	const DAT_EP_ATTR *rx_attr;	/* default: dc_ep_attr_default */
	DAT_SRQ_HANDLE srq;		/* share this SRQ ... */
	DAT_PZ_HANDLE pz;		/* ... and its PZ */
	DAT_EVD_HANDLE rx_recv_evd;	/* share this recv EVD */
	DAT_PZ_HANDLE ep_pz;		/* rx EP's PZ when not the SRQ's */
	bool no_connect;		/* create only */
	DAT_COUNT evd_qlen;		/* default 32 */
	/* rx posts no request and tx no Receive: those streams and the PSP's
	 * CR EVD take the case's shared EVDs (dc_conn_opts.few_evds) */
	bool few_evds;
	/* rx and tx carry messages of link_long_len bytes (srq_hold.h) */
	bool long_msgs;
};

/*
 * The length of the message a watched arrival catches under way
 * (srq_hold.h): long enough that placing it takes a while on any transport,
 * within what the IA reports.
 */
static inline DAT_VLEN link_long_len(const struct dc_ctx *t)
{
	DAT_VLEN len = 16u << 20;

	if (t->ia_attr.max_message_size && t->ia_attr.max_message_size < len)
		len = t->ia_attr.max_message_size;
	return len;
}

static inline void link_connect_at(struct dc_ctx *t, const char *file,
				   int line, struct srq_link *l)
{
	dc_connect_local_at(t, file, line, &l->tx, &l->rx, NULL);
}
#define link_connect(l) link_connect_at(t, __FILE__, __LINE__, (l))

static inline void link_up_at(struct dc_ctx *t, const char *file, int line,
			      struct srq_link *l, const struct link_opts *o)
{
	struct link_opts def = { 0 };
	struct dc_conn_opts tx = { 0 };
	DAT_EP_ATTR attr, txattr;
	DAT_COUNT q;

	if (!o)
		o = &def;
	q = o->evd_qlen ? o->evd_qlen : 32;
	memset(l, 0, sizeof(*l));
	l->few_evds = o->few_evds;
	l->pz = o->pz ? o->pz : dc_pz_or_shared_at(t, file, line);
	l->srq = o->srq ? o->srq :
		 dc_srq_at(t, file, line, l->pz,
			   o->depth ? o->depth : dc_within_limit(16, t->ia_attr.max_recv_per_srq),
			   o->iov ? o->iov : dc_within_limit(4, t->ia_attr.max_iov_segments_per_dto),
			   DAT_SRQ_LW_DEFAULT);
	dc_lmr_at(t, file, line, l->pz, LINK_BUF, DC_PRIV_LOCAL, &l->rbuf);
	l->rx.pz = l->pz;
	l->rx.recv_evd = o->rx_recv_evd ? o->rx_recv_evd :
			 dc_evd_at(t, file, line, q, DAT_EVD_DTO_FLAG);
	l->rx.req_evd = o->few_evds ? dc_idle_dto_evd_at(t, file, line) :
			dc_evd_at(t, file, line, q, DAT_EVD_DTO_FLAG);
	if (o->few_evds)
		l->rx.cr_evd = dc_shared_cr_evd_at(t, file, line);
	l->rx.conn_evd = dc_evd_at(t, file, line, q, DAT_EVD_CONNECTION_FLAG);
	if (!o->rx_attr)
		dc_ep_attr_default(t, &attr);
	if (!o->rx_attr && o->long_msgs)
		attr.max_message_size = link_long_len(t);
	l->rx.pz = o->ep_pz ? o->ep_pz : l->pz;
	l->rx.ep = dc_ep_at(t, file, line, l->rx.pz, l->rx.recv_evd, l->rx.req_evd,
			    l->rx.conn_evd, l->srq, o->rx_attr ? o->rx_attr : &attr);
	/* the sender may have many Sends outstanding (held ones are not
	 * acknowledged): room for 64, and EVDs long enough for them */
	dc_ep_attr_default(t, &txattr);
	txattr.max_request_dtos = t->ia_attr.max_dto_per_ep > 0 &&
				  t->ia_attr.max_dto_per_ep < 64 ?
				  t->ia_attr.max_dto_per_ep : 64;
	if (o->long_msgs)
		txattr.max_message_size = link_long_len(t);
	tx.attr = &txattr;
	tx.evd_qlen = q > 64 ? q : 64;
	tx.few_evds = o->few_evds ? DC_IDLE_RECV : 0;
	if (t->role == DC_ROLE_PASSIVE) {
		/* two-node: the sender is the active half (srq_servant) */
		struct dc_conn_opts rxo = { .evd_qlen = q };

		if (o->no_connect)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "case bug: a two-node link is connected at link_up");
		l->remote = true;
		dc_connect_passive_at(t, file, line, &l->rx, &rxo);
		return;
	}
	dc_endpoint_at(t, file, line, &l->tx, &tx);
	dc_lmr_at(t, file, line, l->tx.pz, LINK_BUF, DC_PRIV_LOCAL, &l->sbuf);
	if (!o->no_connect)
		link_connect_at(t, file, line, l);
}
#define link_up(l, o) link_up_at(t, __FILE__, __LINE__, (l), (o))

/* The same picture with a plain EP (no SRQ) as rx, for comparisons; of o,
 * only no_connect and few_evds apply. */
static inline void plain_link_up_at(struct dc_ctx *t, const char *file,
				    int line, struct srq_link *l, const struct link_opts *o)
{
	bool few = o && o->few_evds;
	struct dc_conn_opts rx = { .evd_qlen = 32,
				   .few_evds = few ? DC_IDLE_REQUEST | DC_SHARE_CR_EVD : 0 };
	struct dc_conn_opts tx = { .evd_qlen = 32, .few_evds = few ? DC_IDLE_RECV : 0 };

	memset(l, 0, sizeof(*l));
	l->few_evds = few;
	dc_endpoint_at(t, file, line, &l->rx, &rx);
	l->pz = l->rx.pz;
	dc_lmr_at(t, file, line, l->pz, LINK_BUF, DC_PRIV_LOCAL, &l->rbuf);
	dc_endpoint_at(t, file, line, &l->tx, &tx);
	dc_lmr_at(t, file, line, l->tx.pz, LINK_BUF, DC_PRIV_LOCAL, &l->sbuf);
	if (!o || !o->no_connect)
		link_connect_at(t, file, line, l);
}
#define plain_link_up(l, o) plain_link_up_at(t, __FILE__, __LINE__, (l), (o))

/* tx sends message `seq` (len bytes, seq in the first 4) from slot seq. */
static inline void link_send_flags_at(struct dc_ctx *t, const char *file,
				      int line, struct srq_link *l,
				      uint32_t seq, DAT_VLEN len,
				      DAT_COMPLETION_FLAGS flags)
{
	unsigned char *p;
	DAT_LMR_TRIPLET iov;
	DAT_RETURN r;

	if (l->remote) {
		dc_peer_send(t, "cmd", "send %u %llu %u", (unsigned)seq,
			     (unsigned long long)len, (unsigned)flags);
		return;
	}
	p = l->sbuf.buf + (size_t)(seq % NSLOTS) * SLOT;
	iov = dc_iov(&l->sbuf, (DAT_VLEN)(seq % NSLOTS) * SLOT, len);
	memset(p, 0xA0 | (seq & 0xF), SLOT);
	memcpy(p, &seq, sizeof(seq));
	r = dat_ep_post_send(l->tx.ep, len ? 1 : 0, len ? &iov : NULL,
			     dc_cookie(seq), flags);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_ep_post_send(message %u) returned %s",
			  (unsigned)seq, dc_ret_text(r));
}
#define link_send(l, seq, len) \
	link_send_flags_at(t, __FILE__, __LINE__, (l), (seq), (len), \
			   DAT_COMPLETION_DEFAULT_FLAG)
#define link_send_flags(l, seq, len, flags) \
	link_send_flags_at(t, __FILE__, __LINE__, (l), (seq), (len), (flags))

/*
 * tx sends one message of len bytes (0x5A), from an LMR of its own made
 * for it, cookie LONG_COOKIE; nothing waits for its completion.
 */
#define LONG_COOKIE	9999u
static inline void link_send_long_at(struct dc_ctx *t, const char *file, int line,
				     struct srq_link *l, DAT_VLEN len)
{
	DAT_LMR_TRIPLET iov;
	DAT_RETURN r;

	if (l->remote) {
		dc_peer_send(t, "cmd", "long %llu", (unsigned long long)len);
		return;
	}
	if (!l->long_sbuf.lmr)
		dc_lmr_at(t, file, line, l->tx.pz, len, DC_PRIV_LOCAL, &l->long_sbuf);
	memset(l->long_sbuf.buf, 0x5A, (size_t)len);
	iov = dc_iov(&l->long_sbuf, 0, len);
	r = dat_ep_post_send(l->tx.ep, 1, &iov, dc_cookie(LONG_COOKIE),
			     DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_ep_post_send(a message of %llu bytes) returned %s",
			  (unsigned long long)len, dc_ret_text(r));
}
#define link_send_long(l, len) link_send_long_at(t, __FILE__, __LINE__, (l), (len))

/*
 * The connection event rx's connection EVD holds, or 0: a loop waiting for
 * arrivals stops at one (the link came up, so any later event ends it and
 * nothing more can arrive) instead of spinning out the case's time.
 */
static inline DAT_EVENT_NUMBER link_ended(struct srq_link *l)
{
	DAT_EVENT ev;

	if (dat_evd_dequeue(l->rx.conn_evd, &ev) != DAT_SUCCESS)
		return 0;
	return ev.event_number;
}

/* Set-up: the next n Send completions on tx's request EVD are successful. */
static inline void link_sent_at(struct dc_ctx *t, const char *file, int line,
				struct srq_link *l, int n)
{
	if (l->remote) {
		char ack[128];

		dc_peer_send(t, "cmd", "sent %d", n);
		dc_peer_wait_at(t, file, line, "ack", ack, sizeof(ack));
		if (strcmp(ack, "ok"))
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the sending half reports: %s", ack);
		return;
	}
	for (int i = 0; i < n; i++) {
		DAT_EVENT ev;
		const DAT_DTO_COMPLETION_EVENT_DATA *d;

		dc_expect_event_at(t, file, line, DC_UNRESOLVED, l->tx.req_evd,
				   DAT_DTO_COMPLETION_EVENT, &ev);
		d = &ev.event_data.dto_completion_event_data;
		if (d->status != DAT_DTO_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: Send %llu completed with %s",
				  (unsigned long long)d->user_cookie.as_64,
				  dc_dto_status_name(d->status));
	}
}
#define link_sent(l, n) link_sent_at(t, __FILE__, __LINE__, (l), (n))

/*
 * Clause: the next event on evd is a successful receive completion; returns
 * its data.
 */
/*
 * Set-up: polls the SRQ until its available count is `want` (a state the
 * provider reaches on its own after an arrival the case caused); used
 * where the clause needs the moment between arrival and dequeue.  Polling
 * with a deadline, not a sleep: it returns as soon as the state is seen.
 */
static inline bool srq_await_available_at(struct dc_ctx *t, const char *file,
					  int line, DAT_SRQ_HANDLE srq,
					  DAT_COUNT want)
{
	struct timespec ns = { 0, 1000000 };
	DAT_SRQ_PARAM p;

	(void)file;
	(void)line;
	for (;;) {
		memset(&p, 0, sizeof(p));
		if (dat_srq_query(srq, DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT, &p) !=
		    DAT_SUCCESS || !KNOWN(p.available_dto_count))
			return false;
		if (p.available_dto_count == want)
			return true;
		if (dc_remaining_ms(t) < 500)
			return false;
		nanosleep(&ns, NULL);
	}
}
#define srq_await_available(srq, want) \
	srq_await_available_at(t, __FILE__, __LINE__, (srq), (want))

/*
 * Set-up: messages 0 .. n - 1 (64 bytes each) arrive and complete on rx's
 * recv EVD, where their completions stay unreaped; returns once the SRQ
 * has `left` buffers available (or that count cannot be seen).
 */
static inline void link_arrive_unreaped_at(struct dc_ctx *t, const char *file,
					   int line, struct srq_link *l,
					   unsigned n, DAT_COUNT left)
{
	for (unsigned i = 0; i < n; i++)
		link_send_flags_at(t, file, line, l, i, 64, DAT_COMPLETION_DEFAULT_FLAG);
	link_sent_at(t, file, line, l, (int)n);
	if (!srq_await_available_at(t, file, line, l->srq, left))
		dc_note(t, "arrivals not observable through available_dto_count; the Send completions stand for them");
}
#define link_arrive_unreaped(l, n, left) \
	link_arrive_unreaped_at(t, __FILE__, __LINE__, (l), (n), (left))

/*
 * Set-up: after a message longer than the buffer it takes was sent to rx,
 * waits until rx's connection has ended: the Receive completes with an
 * error and the connection breaks (dat_ep_post_recv(3DAT) DESCRIPTION), and
 * once the EP is Disconnected every buffer it took is queued on its recv EVD
 * (dat_srq_post_recv(3DAT) DESCRIPTION), the failed completion among them.
 * A connection that does not end within the wait is noted: the completion
 * may then still be on its way, which weakens the check, never fails it.
 */
static inline void link_await_failed_at(struct dc_ctx *t, const char *file, int line,
					struct srq_link *l)
{
	DAT_EVENT ev;

	(void)file;
	(void)line;
	if (dc_wait_event(t, l->rx.conn_evd, -1, &ev) != DAT_SUCCESS)
		dc_note(t, "the connection did not end after the failed arrival: its completion "
			"may not be queued yet");
}
#define link_await_failed(l) link_await_failed_at(t, __FILE__, __LINE__, (l))

/* ---- scenarios shared by several pages ---------------------------------- */

/* Two links on one SRQ: returns the second, sharing the first's SRQ and PZ. */
static inline void second_link(struct dc_ctx *t, struct srq_link *l2,
			const struct srq_link *l1, DAT_EVD_HANDLE recv_evd)
{
	struct link_opts o = { .srq = l1->srq, .pz = l1->pz, .rx_recv_evd = recv_evd,
			       .few_evds = l1->few_evds };

	link_up(l2, &o);
}

/* Receives n messages on one EVD; checks Send order and cookie/buffer match. */
static inline void expect_in_send_order(struct dc_ctx *t, struct srq_link *l,
				 unsigned first_seq, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA d = DC_ASSERT_DTO_SUCCESS(l->rx.recv_evd);
		unsigned slot = (unsigned)d.user_cookie.as_64;

		DC_ASSERT_LT(slot, NSLOTS);
		DC_ASSERT_EQ(d.transfered_length, 64);
		DC_ASSERT(slot_seq(&l->rbuf, slot) == first_seq + i,
			  "completion %u carries message %u, expected message %u (Send order)",
			  i, (unsigned)slot_seq(&l->rbuf, slot), first_seq + i);
	}
}

/* Two connections on one SRQ, Sends interleaved; per-connection order only. */
static inline void two_connections_interleaved(struct dc_ctx *t, bool shared_evd)
{
	enum { N = 6 };
	struct link_opts few = { .few_evds = true };	/* two links at once */
	struct srq_link a, b;
	unsigned next_a = 0, next_b = 0;

	link_up(&a, &few);
	second_link(t, &b, &a, shared_evd ? a.rx.recv_evd : DAT_HANDLE_NULL);
	post_slots(a.srq, &a.rbuf, 0, 2 * N);
	for (unsigned i = 0; i < N; i++) {
		link_send(&a, i, 64);
		link_send(&b, 32 + i, 64);
	}
	while (next_a + next_b < 2 * N) {
		DAT_EVENT ev;
		DAT_RETURN r;
		const DAT_DTO_COMPLETION_EVENT_DATA *d;
		unsigned seq;

		long waited = 0;

		for (;;) {
			r = dc_wait_event(t, a.rx.recv_evd, 20, &ev);
			if (r == DAT_SUCCESS || shared_evd)
				break;
			r = dc_wait_event(t, b.rx.recv_evd, 20, &ev);
			if (r == DAT_SUCCESS || (waited += 40) > DC_WAIT_MS)
				break;
		}
		DC_ASSERT(r == DAT_SUCCESS, "only %u of %u messages arrived (%s)",
			  next_a + next_b, 2 * N, dc_ret_text(r));
		DC_ASSERT_EQ(ev.event_number, DAT_DTO_COMPLETION_EVENT);
		d = &ev.event_data.dto_completion_event_data;
		DC_ASSERT_EQ(d->status, DAT_DTO_SUCCESS);
		/* every buffer came from a's memory (slots 0..2N-1) */
		seq = slot_seq(&a.rbuf, (unsigned)d->user_cookie.as_64);
		if (d->ep_handle == a.rx.ep) {
			DC_ASSERT_EQ(seq, next_a);
			next_a++;
		} else {
			DC_ASSERT_PTR_EQ(d->ep_handle, b.rx.ep);
			DC_ASSERT_EQ(seq, 32 + next_b);
			next_b++;
		}
	}
}

/* ---- notification (signalled completions) -------------------------------- */

/*
 * A signalled completion is a notification event: it triggers the CNO of
 * its EVD.  dc_evd_new_cno() gives evd a fresh CNO; cno_fired() waits up to
 * timeout_ms for a trigger and returns dat_cno_wait's result (DAT_SUCCESS,
 * or DAT_QUEUE_EMPTY on a timeout without notification, per dat_cno_wait).
 */
static inline DAT_RETURN cno_fired(struct dc_ctx *t, DAT_CNO_HANDLE cno,
				   long timeout_ms, DAT_EVD_HANDLE *which)
{
	long left = dc_remaining_ms(t);

	if (timeout_ms > left)
		timeout_ms = left;
	*which = DAT_HANDLE_NULL;
	return dat_cno_wait(cno, (DAT_TIMEOUT)timeout_ms * 1000u, which);
}

/* Each of n messages to rx triggers the recv EVD's CNO, then is dequeued. */
static inline void every_message_notifies(struct dc_ctx *t, struct srq_link *l,
				   unsigned n)
{
	DAT_CNO_HANDLE cno = dc_evd_new_cno(t, l->rx.recv_evd);

	post_slots(l->srq, &l->rbuf, 0, n);
	for (unsigned i = 0; i < n; i++) {
		DAT_EVD_HANDLE which;
		DAT_RETURN r;

		link_send(l, i, 64);
		r = cno_fired(t, cno, DC_WAIT_MS, &which);
		DC_ASSERT(r == DAT_SUCCESS,
			  "message %u: its receive completion did not trigger the CNO (dat_cno_wait %s): not signalled",
			  i, dc_ret_text(r));
		DC_ASSERT_PTR_EQ(which, l->rx.recv_evd);
		(void)DC_ASSERT_DTO_SUCCESS(l->rx.recv_evd);
	}
}

/*
 * Clause: connects l (tx active, rx passive) where the connection itself is
 * what the clause checks: every step is an assertion (FAIL, not UNRESOLVED).
 */
static inline void connect_checked_at(struct dc_ctx *t, const char *file,
				      int line, struct srq_link *l)
{
	DAT_EVENT ev;
	DAT_RETURN r;

	if (!l->rx.cr_evd)
		l->rx.cr_evd = dc_evd_at(t, file, line, 4, DAT_EVD_CR_FLAG);
	if (l->rx.psp)
		(void)dat_psp_free(l->rx.psp);
	r = dat_psp_create_any(t->ia, &l->rx.conn_qual, l->rx.cr_evd,
			       DAT_PSP_CONSUMER_FLAG, &l->rx.psp);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_psp_create_any: %s", dc_ret_text(r));
	r = dat_ep_connect(l->tx.ep, t->ia_attr.ia_address_ptr, l->rx.conn_qual,
			   DC_WAIT_MS * 1000u, 0, NULL, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_DEFAULT_FLAG);
	/* dat_ep_connect(3DAT) RETURN VALUES lets a connect run short */
	dc_assert_success_unless_short_at(t, file, line, "dat_ep_connect", r);
	dc_expect_event_at(t, file, line, DC_FAIL, l->rx.cr_evd,
			   DAT_CONNECTION_REQUEST_EVENT, &ev);
	r = dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			  l->rx.ep, 0, NULL);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false, "dat_cr_accept: %s", dc_ret_text(r));
	dc_expect_event_at(t, file, line, DC_FAIL, l->rx.conn_evd,
			   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_expect_event_at(t, file, line, DC_FAIL, l->tx.conn_evd,
			   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}
#define connect_checked(l) connect_checked_at(t, __FILE__, __LINE__, (l))

/* Set-up: both ends of l disconnected (tx closes) and the events seen. */
static inline void link_down_at(struct dc_ctx *t, const char *file, int line,
				struct srq_link *l)
{
	DAT_RETURN r;

	if (l->remote) {
		char ack[128];

		dc_peer_send(t, "cmd", "down");
		dc_peer_wait_at(t, file, line, "ack", ack, sizeof(ack));
		if (strcmp(ack, "ok"))
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the sending half reports: %s", ack);
	} else {
		r = dat_ep_disconnect(l->tx.ep, DAT_CLOSE_ABRUPT_FLAG);
		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: dat_ep_disconnect: %s", dc_ret_text(r));
		dc_expect_event_at(t, file, line, DC_UNRESOLVED, l->tx.conn_evd,
				   DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	}
	{
		DAT_EVENT ev;

		r = dc_wait_event(t, l->rx.conn_evd, -1, &ev);
		if (r != DAT_SUCCESS ||
		    (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
		     ev.event_number != DAT_CONNECTION_EVENT_BROKEN))
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the peer of a disconnected EP saw %s / %s",
				  dc_ret_text(r), r == DAT_SUCCESS ? dc_event_name(ev.event_number) : "-");
	}
}
#define link_down(l) link_down_at(t, __FILE__, __LINE__, (l))

/* ---- asynchronous events -------------------------------------------------- */

/* ---- misc ----------------------------------------------------------------- */

/* ---- two-node form ----------------------------------------------------------- */

/* The bytes of message seq as every sender writes them (len <= SLOT). */
static inline void sent_payload(uint32_t seq, unsigned char *out, size_t len)
{
	unsigned char slot[SLOT];

	memset(slot, 0xA0 | (seq & 0xF), SLOT);
	memcpy(slot, &seq, sizeof(seq));
	memcpy(out, slot, len < SLOT ? len : SLOT);
}

/*
 * tx streams n Sends of len bytes (len <= the EP's max_message_size), at
 * most 32 outstanding, from an LMR of its own; link_stream_done waits
 * until all of them completed successfully (else UNRESOLVED).
 */
static inline void stream_sends(struct dc_ctx *t, struct srq_link *l,
				unsigned n, DAT_VLEN len, char *err, size_t errlen)
{
	struct dc_lmr m;
	unsigned posted = 0, done = 0;

	*err = 0;
	dc_lmr(t, l->tx.pz, len, DC_PRIV_LOCAL, &m);
	memset(m.buf, 0x5A, (size_t)len);
	while (done < n) {
		DAT_EVENT ev;
		DAT_RETURN r;

		while (posted < n && posted - done < 32) {
			DAT_LMR_TRIPLET iov = dc_iov(&m, 0, len);

			r = dat_ep_post_send(l->tx.ep, 1, &iov, dc_cookie(posted),
					     DAT_COMPLETION_DEFAULT_FLAG);
			if (r != DAT_SUCCESS) {
				snprintf(err, errlen, "Send %u of %u: %s",
					 posted + 1, n, dc_ret_text(r));
				return;
			}
			posted++;
		}
		r = dc_wait_event(t, l->tx.req_evd, -1, &ev);
		if (r != DAT_SUCCESS || ev.event_number != DAT_DTO_COMPLETION_EVENT ||
		    ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
			snprintf(err, errlen, "Send completion %u of %u: %s / %s",
				 done + 1, n, dc_ret_text(r),
				 r == DAT_SUCCESS ? dc_event_name(ev.event_number) : "-");
			return;
		}
		done++;
	}
}

static inline void link_stream_at(struct dc_ctx *t, const char *file, int line,
				  struct srq_link *l, unsigned n, DAT_VLEN len)
{
	if (!l->remote)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: link_stream needs the two-node link");
	dc_peer_send(t, "cmd", "stream %u %llu", n, (unsigned long long)len);
}
#define link_stream(l, n, len) link_stream_at(t, __FILE__, __LINE__, (l), (n), (len))

static inline void link_stream_done_at(struct dc_ctx *t, const char *file,
				       int line, struct srq_link *l)
{
	char ack[128];

	if (!l->remote)
		return;
	dc_peer_wait_at(t, file, line, "ack", ack, sizeof(ack));
	if (strcmp(ack, "ok"))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the sending half reports: %s", ack);
}
#define link_stream_done(l) link_stream_done_at(t, __FILE__, __LINE__, (l))

/*
 * The active half of every SRQ two-node case: a sender that connects to the
 * passive half (where the SRQ, its EP and the clause live) and carries out
 * its commands, so the case body reads the same in both forms:
 *   send SEQ LEN FLAGS     post Send SEQ (no wait)
 *   sent N                 wait for N Send completions, answer "ack ok"
 *   stream N LEN           N Sends of LEN bytes (stream_sends), "ack ok"
 *   write SEQ LEN CTX ADDR RDMA Write of message SEQ to (CTX, ADDR)
 *   long LEN               post one Send of LEN bytes (link_send_long, no wait)
 *   down                   disconnect, answer "ack ok" once DISCONNECTED
 *   done                   the passive half is finished
 */
static inline void srq_servant(struct dc_ctx *t)
{
	struct srq_link l;
	struct dc_conn_opts o = { .evd_qlen = 64 };
	DAT_EP_ATTR a;

	memset(&l, 0, sizeof(l));
	dc_ep_attr_default(t, &a);
	a.max_request_dtos = t->ia_attr.max_dto_per_ep > 0 &&
			     t->ia_attr.max_dto_per_ep < 64 ?
			     t->ia_attr.max_dto_per_ep : 64;
	a.max_message_size = link_long_len(t);	/* for "long" */
	o.attr = &a;
	dc_endpoint(t, &l.tx, &o);
	dc_lmr(t, l.tx.pz, LINK_BUF, DC_PRIV_LOCAL, &l.sbuf);
	dc_connect_active(t, &l.tx, &o);
	for (;;) {
		char cmd[256];
		unsigned seq, flags;
		unsigned long long len, addr;
		unsigned ctx;
		int n;

		dc_peer_wait(t, "cmd", cmd, sizeof(cmd));
		if (sscanf(cmd, "send %u %llu %u", &seq, &len, &flags) == 3) {
			link_send_flags(&l, seq, (DAT_VLEN)len, (DAT_COMPLETION_FLAGS)flags);
		} else if (sscanf(cmd, "sent %d", &n) == 1) {
			for (int i = 0; i < n; i++) {
				DAT_EVENT ev;
				DAT_RETURN r = dc_wait_event(t, l.tx.req_evd, -1, &ev);

				if (r != DAT_SUCCESS || ev.event_number != DAT_DTO_COMPLETION_EVENT ||
				    ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
					dc_peer_send(t, "ack", "Send completion %d of %d: %s / %s", i + 1, n,
						     dc_ret_text(r), r == DAT_SUCCESS ? dc_event_name(ev.event_number) : "-");
					break;
				}
				if (i == n - 1)
					dc_peer_send(t, "ack", "ok");
			}
			if (n <= 0)
				dc_peer_send(t, "ack", "ok");
		} else if (sscanf(cmd, "stream %u %llu", &seq, &len) == 2) {
			char err[160];

			stream_sends(t, &l, seq, (DAT_VLEN)len, err, sizeof(err));
			dc_peer_send(t, "ack", "%s", *err ? err : "ok");
		} else if (sscanf(cmd, "long %llu", &len) == 1) {
			link_send_long(&l, (DAT_VLEN)len);
		} else if (sscanf(cmd, "write %u %llu %u %llu", &seq, &len, &ctx, &addr) == 4) {
			DAT_LMR_TRIPLET iov = dc_iov(&l.sbuf, (DAT_VLEN)(seq % NSLOTS) * SLOT, len);
			DAT_RMR_TRIPLET rmr;

			rmr = dc_rmr_triplet(ctx, addr, len);
			DC_SETUP(dat_ep_post_rdma_write(l.tx.ep, 1, &iov, dc_cookie(1000 + seq), &rmr,
							DAT_COMPLETION_DEFAULT_FLAG));
		} else if (!strcmp(cmd, "down")) {
			DC_SETUP(dat_ep_disconnect(l.tx.ep, DAT_CLOSE_ABRUPT_FLAG));
			for (;;) {
				DAT_EVENT ev;

				if (dc_wait_event(t, l.tx.conn_evd, -1, &ev) != DAT_SUCCESS) {
					dc_peer_send(t, "ack", "no DISCONNECTED event");
					break;
				}
				if (ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
				    ev.event_number == DAT_CONNECTION_EVENT_BROKEN) {
					dc_peer_send(t, "ack", "ok");
					break;
				}
			}
		} else if (!strcmp(cmd, "done")) {
			return;
		} else {
			DC_UNRESOLVED("case bug: unknown command '%s'", cmd);
		}
	}
}

/* RDMA Write of message seq (len bytes) from tx to (ctx, addr) on rx's side. */
static inline void link_rdma_write_at(struct dc_ctx *t, const char *file,
				      int line, struct srq_link *l, uint32_t seq,
				      DAT_VLEN len, DAT_RMR_CONTEXT ctx,
				      DAT_VADDR addr)
{
	if (l->remote) {
		dc_peer_send(t, "cmd", "write %u %llu %u %llu", (unsigned)seq,
			     (unsigned long long)len, (unsigned)ctx,
			     (unsigned long long)addr);
	} else {
		DAT_LMR_TRIPLET iov = dc_iov(&l->sbuf, (DAT_VLEN)(seq % NSLOTS) * SLOT, len);
		DAT_RMR_TRIPLET rmr;
		DAT_RETURN r;

		rmr = dc_rmr_triplet(ctx, addr, len);
		r = dat_ep_post_rdma_write(l->tx.ep, 1, &iov, dc_cookie(1000 + seq), &rmr,
					   DAT_COMPLETION_DEFAULT_FLAG);
		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: dat_ep_post_rdma_write: %s", dc_ret_text(r));
	}
}
#define link_rdma_write(l, seq, len, ctx, addr) \
	link_rdma_write_at(t, __FILE__, __LINE__, (l), (seq), (len), (ctx), (addr))

/*
 * SRQ_CASE(page, name, fields...) { body }: a case whose Sends come from a
 * peer.  It is a two-node case: the body runs in the passive half (the SRQ
 * side; link_up connects it to the other half), and the active half is
 * srq_servant, which sends on the body's behalf.  The body uses only
 * link_send / link_sent / link_down / link_rdma_write on the sender, so the
 * same body also reads as a single-process case.
 */
#define SRQ_BODY_(page, name) srq_body__##page##__##name
#define SRQ_CASE(page, name, ...)					\
	static void SRQ_BODY_(page, name)(struct dc_ctx *t);		\
	DC_TWO_NODE_CASE(page, name, __VA_ARGS__);			\
	DC_PASSIVE(page, name)						\
	{								\
		SRQ_BODY_(page, name)(t);				\
		dc_peer_send(t, "cmd", "done");				\
	}								\
	DC_ACTIVE(page, name)						\
	{								\
		srq_servant(t);						\
	}								\
	static void SRQ_BODY_(page, name)(struct dc_ctx *t)

#endif /* SRQ_COMMON_H */
