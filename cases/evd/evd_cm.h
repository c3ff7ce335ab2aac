/* SPDX-License-Identifier: MIT */
/*
 * evd_cm.h - the connection-event clauses that dat_evd_dequeue(3DAT) and
 * dat_evd_wait(3DAT) both state (DESCRIPTION: the Connection Request of a
 * request event, its lifetime, the private data of the Established event,
 * its size limit).  Each page has its own cases; they share these bodies
 * and differ only in how every event is taken off its EVD: TAKE_DEQUEUE
 * uses dat_evd_dequeue only (polled until an event is there, bounded by
 * wait_ms), TAKE_WAIT uses dat_evd_wait only.
 *
 * The connection runs in this process over the IA's own address: endpoint
 * "a" connects (active side), endpoint "b" accepts through a PSP (passive
 * side).  The harness's dc_connect_local takes its events with
 * dat_evd_wait, so the handshake is spelled out here.
 */
#ifndef EVD_CM_H
#define EVD_CM_H

#include "evd_common.h"

enum take { TAKE_DEQUEUE, TAKE_WAIT };

static inline DAT_RETURN take_event(struct dc_ctx *t, DAT_EVD_HANDLE evd,
				    enum take mode, DAT_EVENT *ev)
{
	double until = dc_now_ms() + (double)dc_wait_ms(t);
	DAT_COUNT nmore;
	DAT_RETURN r;

	memset(ev, 0, sizeof(*ev));
	if (mode == TAKE_WAIT)
		return dat_evd_wait(evd, (DAT_TIMEOUT)dc_wait_ms(t) * 1000u, 1,
				    ev, &nmore);
	for (;;) {
		r = dat_evd_dequeue(evd, ev);
		if (!dc_ret_is(r, DAT_QUEUE_EMPTY, DC_ANY_SUBTYPE) ||
		    dc_now_ms() > until)
			return r;
		sched_yield();
	}
}

static inline const char *take_name(enum take mode)
{
	return mode == TAKE_WAIT ? "dat_evd_wait" : "dat_evd_dequeue";
}

/* The next event on evd must be `num` (else the case ends `on_miss`). */
static inline void take_expect_at(struct dc_ctx *t, const char *file, int line,
				  enum dc_state on_miss, DAT_EVD_HANDLE evd,
				  enum take mode, DAT_EVENT_NUMBER num,
				  DAT_EVENT *ev)
{
	DAT_RETURN r = take_event(t, evd, mode, ev);

	if (r != DAT_SUCCESS)
		dc_end_at(t, on_miss, file, line, false,
			  "%staking %s with %s: %s", on_miss == DC_UNRESOLVED ?
			  "set-up: " : "", dc_event_name(num), take_name(mode),
			  dc_ret_text(r));
	if (ev->event_number != num)
		dc_end_at(t, on_miss, file, line, false,
			  "%s%s returned %s (0x%x), expected %s",
			  on_miss == DC_UNRESOLVED ? "set-up: " : "",
			  take_name(mode), dc_event_name(ev->event_number),
			  (unsigned int)ev->event_number, dc_event_name(num));
}
#define TAKE(evd, num, ev) \
	take_expect_at(t, __FILE__, __LINE__, DC_UNRESOLVED, (evd), c->mode, (num), (ev))
#define TAKE_CHECKED(evd, num, ev) \
	take_expect_at(t, __FILE__, __LINE__, DC_FAIL, (evd), c->mode, (num), (ev))

struct cm {
	enum take mode;
	struct dc_endpoint a;	/* active */
	struct dc_endpoint b;	/* passive */
	DAT_EVD_HANDLE cr_evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
};

/* Set-up: both endpoints (unconnected) and a PSP with its CR EVD. */
static inline void cm_setup_at(struct dc_ctx *t, const char *file, int line,
			       struct cm *c, enum take mode)
{
	DAT_RETURN r;

	memset(c, 0, sizeof(*c));
	c->mode = mode;
	dc_endpoint_at(t, file, line, &c->a, NULL);
	dc_endpoint_at(t, file, line, &c->b, NULL);
	c->cr_evd = dc_evd_at(t, file, line, 16, DAT_EVD_CR_FLAG);
	r = dat_psp_create_any(t->ia, &c->qual, c->cr_evd,
			       DAT_PSP_CONSUMER_FLAG, &c->psp);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_psp_create_any returned %s", dc_ret_text(r));
	if (!t->ia_attr.ia_address_ptr)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_ia_query gave no ia_address_ptr");
}
#define cm_setup(c, mode) cm_setup_at(t, __FILE__, __LINE__, (c), (mode))

/* Set-up: connect a (with private data), take the request, return its CR. */
static inline DAT_CR_HANDLE cm_request_at(struct dc_ctx *t, const char *file,
					  int line, struct cm *c,
					  DAT_EP_HANDLE ep, DAT_COUNT size,
					  const void *data, DAT_EVENT *ev)
{
	DAT_RETURN r = dc_connect_to_self(t, ep, c->qual, 0, size, data);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_ep_connect(%d bytes of private data) returned %s",
			  (int)size, dc_ret_text(r));
	take_expect_at(t, file, line, DC_UNRESOLVED, c->cr_evd, c->mode,
		       DAT_CONNECTION_REQUEST_EVENT, ev);
	return ev->event_data.cr_arrival_event_data.cr_handle;
}
#define cm_request(c, ep, size, data, ev) \
	cm_request_at(t, __FILE__, __LINE__, (c), (ep), (size), (data), (ev))

/* Set-up: ep connects, and the request is accepted on passive with this private data. */
static inline void cm_accept_at(struct dc_ctx *t, const char *file, int line,
				struct cm *c, DAT_EP_HANDLE ep, DAT_EP_HANDLE passive,
				DAT_COUNT size, const void *data)
{
	DAT_EVENT ev;
	DAT_RETURN r = dat_cr_accept(cm_request_at(t, file, line, c, ep, 0, NULL, &ev),
				     passive, size, (DAT_PVOID)data);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_cr_accept(%d bytes of private data) returned %s",
			  (int)size, dc_ret_text(r));
}
#define cm_accept(c, ep, passive, size, data) \
	cm_accept_at(t, __FILE__, __LINE__, (c), (ep), (passive), (size), (data))

/* How much private data the provider takes (capped at 64 KiB). */
static inline DAT_COUNT cm_max_pd_at(struct dc_ctx *t, const char *file,
				     int line)
{
	DAT_COUNT n = t->prov_attr.max_private_data_size;

	if (n <= 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: provider attribute max_private_data_size is %d",
			  (int)n);
	if (n > 65536) {
		dc_note(t, "max_private_data_size %d capped at 65536 for the test",
			(int)n);
		n = 65536;
	}
	return n;
}
#define cm_max_pd() cm_max_pd_at(t, __FILE__, __LINE__)

/* ---- the clause bodies ------------------------------------------------------ */

/* A request event carries the handle of a new, live Connection Request. */
static inline void cm_cr_event_carries_cr(struct dc_ctx *t, enum take mode)
{
	struct cm cm, *c = &cm;
	const DAT_CR_ARRIVAL_EVENT_DATA *cd;
	DAT_HANDLE_TYPE ty;
	DAT_CR_PARAM cp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	DAT_RETURN r;

	cm_setup(c, mode);
	DC_SETUP(dc_connect_to_self(t, c->a.ep, c->qual, 0, 0, NULL));
	TAKE_CHECKED(c->cr_evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	cd = &ev.event_data.cr_arrival_event_data;
	cr = cd->cr_handle;
	DC_ASSERT(ev.evd_handle == c->cr_evd, "request event names EVD %p, expected %p",
		  ev.evd_handle, c->cr_evd);
	DC_ASSERT(cr != DAT_HANDLE_NULL, "request event carries a NULL cr_handle");
	r = dat_get_handle_type(cr, &ty);
	DC_ASSERT(r == DAT_SUCCESS && ty == DAT_HANDLE_TYPE_CR,
		  "dat_get_handle_type(cr_handle) returned %s, type %d (expected DAT_HANDLE_TYPE_CR)",
		  dc_ret_text(r), r == DAT_SUCCESS ? (int)ty : -1);
	memset(&cp, 0, sizeof(cp));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_ALL, &cp));
	DC_ASSERT_PTR_EQ(cd->sp_handle.psp_handle, c->psp);
	DC_ASSERT_EQ(cd->conn_qual, c->qual);
	DC_SETUP(dat_cr_accept(cr, c->b.ep, 0, NULL));
	TAKE(c->b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE(c->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

/* After reject and after accept the old cr_handle is invalid. */
static inline void cm_cr_gone_after_accept_or_reject(struct dc_ctx *t,
						     enum take mode)
{
	struct cm cm, *c = &cm;
	struct dc_endpoint a2;
	DAT_CR_PARAM cp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	DAT_RETURN r;

	cm_setup(c, mode);
	cr = cm_request(c, c->a.ep, 0, NULL, &ev);
	DC_SETUP(dc_dat_cr_reject(cr, 0, NULL));
	r = dat_cr_query(cr, DAT_CR_FIELD_ALL, &cp);
	note_ret(t, "dat_cr_query(CR after dat_cr_reject)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CR);
	/* the active side learns of the rejection; any connection event */
	DC_SETUP(take_event(t, c->a.conn_evd, mode, &ev));

	dc_endpoint(t, &a2, NULL);
	cr = cm_request(c, a2.ep, 0, NULL, &ev);
	DC_SETUP(dat_cr_accept(cr, c->b.ep, 0, NULL));
	r = dat_cr_query(cr, DAT_CR_FIELD_ALL, &cp);
	note_ret(t, "dat_cr_query(CR after dat_cr_accept)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CR);
	TAKE(c->b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE(a2.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

/* The passive side's Established event has private_data_size 0. */
static inline void cm_passive_established_no_private_data(struct dc_ctx *t,
							  enum take mode)
{
	struct cm cm, *c = &cm;
	unsigned char pd[32];
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	dc_fill(pd, sizeof(pd), 11);
	cm_setup(c, mode);
	cr = cm_request(c, c->a.ep, 0, NULL, &ev);
	DC_SETUP(dat_cr_accept(cr, c->b.ep, (DAT_COUNT)sizeof(pd), pd));
	TAKE_CHECKED(c->b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	DC_ASSERT_EQ(ev.event_data.connect_event_data.private_data_size, 0);
	TAKE(c->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
}

/*
 * The active side's Established event points to the accepted private data,
 * in provider memory that stays valid through Disconnected.
 */
static inline void cm_active_established_private_data(struct dc_ctx *t,
						      enum take mode)
{
	struct cm cm, *c = &cm;
	unsigned char pd[32], want[32];
	const DAT_CONNECTION_EVENT_DATA *cd;
	const unsigned char *got;
	DAT_COUNT size;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	dc_fill(pd, sizeof(pd), 23);
	memcpy(want, pd, sizeof(want));
	cm_setup(c, mode);
	cr = cm_request(c, c->a.ep, 0, NULL, &ev);
	DC_SETUP(dat_cr_accept(cr, c->b.ep, (DAT_COUNT)sizeof(pd), pd));
	memset(pd, 0, sizeof(pd));	/* the Consumer's copy is gone now */
	TAKE(c->b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE_CHECKED(c->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	cd = &ev.event_data.connect_event_data;
	got = cd->private_data;
	size = cd->private_data_size;
	DC_ASSERT(size >= (DAT_COUNT)sizeof(want),
		  "active Established event carries %d bytes of private data, the accept sent %zu",
		  (int)size, sizeof(want));
	DC_ASSERT(got != NULL, "active Established event has a NULL private_data pointer");
	DC_ASSERT(!memcmp(got, want, sizeof(want)),
		  "active Established event's private data differs from the accept's");
	/* still valid while Disconnected */
	DC_SETUP(dat_ep_disconnect(c->a.ep, DAT_CLOSE_GRACEFUL_FLAG));
	TAKE(c->a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
	DC_ASSERT(!memcmp(got, want, sizeof(want)),
		  "the private data of the active Established event changed once the EP was disconnected");
}

/*
 * The same, on the deferred path: the active Established event stays queued
 * while a second connection, accepted with other private data, is made and
 * its events taken; only then is the first event taken.  Its private data
 * must still be the first accept's: the provider keeps it per connection.
 */
static inline void cm_active_established_private_data_queued(struct dc_ctx *t,
							     enum take mode)
{
	struct cm cm, *c = &cm;
	struct dc_endpoint a2, b2;
	unsigned char pd1[32], pd2[32], want[32];
	const DAT_CONNECTION_EVENT_DATA *cd;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	dc_fill(pd1, sizeof(pd1), 41);
	dc_fill(pd2, sizeof(pd2), 42);
	memcpy(want, pd1, sizeof(want));
	cm_setup(c, mode);
	cr = cm_request(c, c->a.ep, 0, NULL, &ev);
	DC_SETUP(dat_cr_accept(cr, c->b.ep, (DAT_COUNT)sizeof(pd1), pd1));
	memset(pd1, 0, sizeof(pd1));
	TAKE(c->b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	/* a second connection while a's Established event waits in its EVD */
	dc_endpoint(t, &a2, NULL);
	dc_endpoint(t, &b2, NULL);
	cr = cm_request(c, a2.ep, 0, NULL, &ev);
	DC_SETUP(dat_cr_accept(cr, b2.ep, (DAT_COUNT)sizeof(pd2), pd2));
	TAKE(b2.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE(a2.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	/* now the first connection's event, queued all along */
	TAKE_CHECKED(c->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	cd = &ev.event_data.connect_event_data;
	DC_ASSERT(cd->private_data_size >= (DAT_COUNT)sizeof(want) && cd->private_data,
		  "the queued active Established event carries %d bytes of private data",
		  (int)cd->private_data_size);
	DC_ASSERT(!memcmp(cd->private_data, want, sizeof(want)),
		  "the queued active Established event's private data is not its accept's%s",
		  !memcmp(cd->private_data, pd2, sizeof(pd2)) ?
		  " but the later connection's" : "");
}

/*
 * An accept without private data, on the second connection of an EP reset
 * after one accepted with some (the first data's validity ends with the
 * reset): the active Established event's size counts the bytes its pointer
 * holds, so it is not negative, and a size above 0 (a transport may pad)
 * comes with a pointer to that many bytes.
 */
static inline void cm_active_established_private_data_none(struct dc_ctx *t,
							   enum take mode)
{
	struct cm cm, *c = &cm;
	struct dc_endpoint b2;
	/* a size of its own (up to max_private_data_size), so that a
	 * provider's copy of it is not a block every other call reuses */
	unsigned char pd[712];
	DAT_COUNT n = cm_max_pd() < (DAT_COUNT)sizeof(pd) ? cm_max_pd() : (DAT_COUNT)sizeof(pd);
	const DAT_CONNECTION_EVENT_DATA *cd;
	volatile unsigned char sum = 0;
	DAT_EVENT ev;

	dc_fill(pd, sizeof(pd), 61);
	cm_setup(c, mode);
	cm_accept(c, c->a.ep, c->b.ep, n, pd);
	TAKE(c->b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE(c->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	DC_SETUP(dat_ep_disconnect(c->a.ep, DAT_CLOSE_ABRUPT_FLAG));
	TAKE(c->a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
	DC_SETUP(dat_ep_reset(c->a.ep));
	dc_endpoint(t, &b2, NULL);
	cm_accept(c, c->a.ep, b2.ep, 0, NULL);
	TAKE(b2.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE_CHECKED(c->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	cd = &ev.event_data.connect_event_data;
	DC_ASSERT(cd->private_data_size >= 0,
		  "after an accept without private data the active Established event reports "
		  "private_data_size %d", (int)cd->private_data_size);
	DC_ASSERT(cd->private_data_size == 0 || cd->private_data != NULL,
		  "after an accept without private data the active Established event reports "
		  "%d bytes of private data at a NULL pointer", (int)cd->private_data_size);
	if (cd->private_data_size > 0) {
		for (DAT_COUNT i = 0; i < cd->private_data_size; i++)
			sum ^= ((const unsigned char *)cd->private_data)[i];
		dc_note(t, "the accept sent none; the event reports %d bytes",
			(int)cd->private_data_size);
	}
}

/* Every byte of maximal private data reaches the other side. */
static inline void cm_entire_private_data(struct dc_ctx *t, enum take mode)
{
	struct cm cm, *c = &cm;
	DAT_COUNT n = cm_max_pd();
	unsigned char *pc = calloc(2, (size_t)n), *pa = pc + n;
	const DAT_CONNECTION_EVENT_DATA *cd;
	DAT_CR_PARAM cp;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	DC_SETUP_ASSERT(pc != NULL, "set-up: out of memory");
	dc_fill(pc, (size_t)n, 3);
	dc_fill(pa, (size_t)n, 101);
	cm_setup(c, mode);
	cr = cm_request(c, c->a.ep, n, pc, &ev);
	memset(&cp, 0, sizeof(cp));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_ALL, &cp));
	DC_ASSERT(cp.private_data_size >= n && cp.private_data &&
		  !memcmp(cp.private_data, pc, (size_t)n),
		  "the Connection Request carries %d bytes of private data%s; dat_ep_connect sent %d",
		  (int)cp.private_data_size,
		  cp.private_data_size >= n ? " that differ" : "", (int)n);
	DC_SETUP(dat_cr_accept(cr, c->b.ep, n, pa));
	TAKE(c->b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE_CHECKED(c->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	cd = &ev.event_data.connect_event_data;
	DC_ASSERT(cd->private_data_size >= n && cd->private_data &&
		  !memcmp(cd->private_data, pa, (size_t)n),
		  "the active Established event carries %d bytes of private data%s; dat_cr_accept sent %d",
		  (int)cd->private_data_size,
		  cd->private_data_size >= n ? " that differ" : "", (int)n);
	free(pc);
}

/* One byte over max_private_data_size is refused by connect and accept. */
static inline void cm_private_data_too_large(struct dc_ctx *t, enum take mode)
{
	struct cm cm, *c = &cm;
	DAT_COUNT n = cm_max_pd();
	unsigned char *buf = calloc(1, (size_t)n + 1);
	DAT_EP_STATE st;
	DAT_BOOLEAN in_dto, out_dto;
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	DAT_RETURN r;

	DC_SETUP_ASSERT(buf != NULL, "set-up: out of memory");
	dc_fill(buf, (size_t)n + 1, 5);
	cm_setup(c, mode);
	r = dc_connect_to_self(t, c->a.ep, c->qual, 0, n + 1, buf);
	note_ret(t, "dat_ep_connect(max_private_data_size + 1 bytes)", r);
	DC_CONNECT_SHORT_FOR_REAL(r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	DC_ASSERT_SUCCESS(dat_ep_get_status(c->a.ep, &st, &in_dto, &out_dto));
	DC_ASSERT(st == DAT_EP_STATE_UNCONNECTED,
		  "after the refused dat_ep_connect the EP is in state %d, not UNCONNECTED",
		  (int)st);
	cr = cm_request(c, c->a.ep, 0, NULL, &ev);
	r = dat_cr_accept(cr, c->b.ep, n + 1, buf);
	note_ret(t, "dat_cr_accept(max_private_data_size + 1 bytes)", r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	/* the CR is still there to be accepted */
	DC_ASSERT_SUCCESS(dat_cr_accept(cr, c->b.ep, 0, NULL));
	TAKE(c->b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	TAKE(c->a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	free(buf);
}

#endif /* EVD_CM_H */
