/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_rmr_bind(3DAT); clauses in clauses/dat_rmr_bind.toml.
 * The picture of rmr_common.h: a binds its own memory through its EP, b
 * uses the context from the other end of the connection.  One case
 * (remote_peer_uses_window) does the same across two nodes.
 */
#include "rmr_common.h"

#include <time.h>

#define RW_REMOTE (DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/* A bind that must be accepted; DAT_MODEL_NOT_SUPPORTED ends UNSUPPORTED. */
#define BIND_OK(w, off, len, priv, cookie, flags, ctxp)			\
	do {								\
		DAT_LMR_TRIPLET iov_ = dc_iov(&(w)->m, (off), (len));	\
		DAT_RETURN r_ = dc_dat_rmr_bind((w)->rmr, (w)->m.lmr, &iov_, (priv), (w)->p.a.ep, dc_cookie(\
					  (cookie)), (flags), (ctxp));	\
		DC_ALLOW_MODEL_NOT_SUPPORTED(r_, "dat_rmr_bind", "RMR binding"); \
		DC_ASSERT_SUCCESS(r_);					\
	} while (0)

/*
 * The bind this page governs, checked (dc_bind_rmr is set-up: a refusal
 * there would leave the clause unresolved): DAT_SUCCESS and a successful
 * completion on e's request EVD; returns the context.
 */
static DAT_RMR_CONTEXT bind_checked(struct dc_ctx *t, DAT_RMR_HANDLE rmr, const struct dc_lmr *m,
				    DAT_VLEN off, DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv,
				    const struct dc_endpoint *e, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RETURN r = dc_dat_rmr_bind(rmr, m->lmr, &iov, priv, e->ep, dc_cookie(cookie),
				       DAT_COMPLETION_DEFAULT_FLAG, &ctx);

	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
	DC_ASSERT_SUCCESS(r);
	DC_ASSERT_DTO_STATUS(DC_ASSERT_BIND_EVENT(e->req_evd).status, DAT_RMR_BIND_SUCCESS);
	return ctx;
}

DC_CASE(dat_rmr_bind, binds_and_returns_context,
	.summary = "after the bind the peer RDMA-Writes and RDMA-Reads inside the window with the new context, also through read-only and write-only windows")
{
	struct win w;
	DAT_RMR_CONTEXT ctx = 0;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	BIND_OK(&w, 1024, 2048, RW_REMOTE, 1, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	DC_ASSERT_DTO_STATUS(DC_ASSERT_BIND_EVENT(w.p.a.req_evd).status, DAT_RMR_BIND_SUCCESS);
	dc_fill(w.peer.buf, 512, 9);
	DC_ASSERT_DTO_STATUS(peer_write(&w, ctx, 1024 + 100, 512, 2), DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(w.m.buf + 1024 + 100, w.peer.buf, 512), "the RDMA Write did not land");
	dc_fill(w.m.buf + 2048, 256, 140);
	DC_ASSERT_DTO_STATUS(peer_read(&w, ctx, 2048, 256, 3), DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(w.peer.buf, w.m.buf + 2048, 256), "the RDMA Read brought other bytes");

	/* windows granting one remote privilege each work for it */
	ctx = bind_checked(t, dc_rmr(t, w.p.a.pz), &w.m, 3072, 512, DAT_MEM_PRIV_REMOTE_READ_FLAG, &w.p.a, 4);
	dc_fill(w.m.buf + 3072, 256, 141);
	DC_ASSERT_DTO_STATUS(peer_read(&w, ctx, 3072, 256, 5), DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(w.peer.buf, w.m.buf + 3072, 256), "the RDMA Read through a read-only window brought other bytes");
	ctx = bind_checked(t, dc_rmr(t, w.p.a.pz), &w.m, 0, 512, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 6);
	dc_fill(w.peer.buf, 256, 142);
	DC_ASSERT_DTO_STATUS(peer_write(&w, ctx, 256, 256, 7), DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(w.m.buf + 256, w.peer.buf, 256), "the RDMA Write through a write-only window did not land");
}

/*
 * A window needs no more of its LMR than the local privilege matching its
 * remote one: that match is all dat_rmr_bind(3DAT) DESCRIPTION lets a
 * Provider ask for (remote read over local read, remote write over local
 * write), so such a bind is made and works.
 */
DC_CASE(dat_rmr_bind, binds_over_matching_lmr,
	.clauses = "dat_rmr_bind.binds_and_returns_context",
	.summary = "a remote-read window over a local-read-only LMR and a remote-write window over a local-write-only LMR work")
{
	static const struct {
		DAT_MEM_PRIV_FLAGS local, remote;
		bool write;
	} match[] = {
		{ DAT_MEM_PRIV_LOCAL_READ_FLAG, DAT_MEM_PRIV_REMOTE_READ_FLAG, false },
		{ DAT_MEM_PRIV_LOCAL_WRITE_FLAG, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, true },
	};
	struct win w;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	for (unsigned k = 0; k < sizeof(match) / sizeof(match[0]); k++) {
		struct dc_lmr m;
		DAT_RMR_CONTEXT ctx;
		DAT_RMR_TRIPLET dst;
		DAT_DTO_COMPLETION_STATUS st;

		dc_lmr(t, w.p.a.pz, BUF, match[k].local, &m);
		ctx = bind_checked(t, k ? dc_rmr(t, w.p.a.pz) : w.rmr, &m, 0, 512, match[k].remote,
				   &w.p.a, 2 * k + 1);
		dst = dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)m.buf, 256);
		dc_fill(match[k].write ? w.peer.buf : m.buf, 256, 143 + k);
		st = match[k].write ? dc_rdma_write(t, &w.p.b, &w.peer, 0, 256, dst, 2 * k + 2) :
				      dc_rdma_read(t, &w.p.b, &w.peer, 0, 256, dst, 2 * k + 2);
		DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
		DC_ASSERT(!memcmp(w.peer.buf, m.buf, 256),
			  "the RDMA %s over an LMR with local privilege 0x%x alone moved other bytes",
			  match[k].write ? "Write" : "Read", (unsigned int)match[k].local);
	}
}

DC_CASE(dat_rmr_bind, completion_event,
	.summary = "DAT_RMR_BIND_COMPLETION_EVENT on the request EVD with RMR, cookie and success; nothing elsewhere")
{
	struct win w;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_EVENT ev;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 0x1234, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	DC_ASSERT_EVENT(w.p.a.req_evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	DC_ASSERT_PTR_EQ(ev.evd_handle, w.p.a.req_evd);
	DC_ASSERT_PTR_EQ(ev.event_data.rmr_completion_event_data.rmr_handle, w.rmr);
	DC_ASSERT_EQ(ev.event_data.rmr_completion_event_data.user_cookie.as_64, 0x1234);
	DC_ASSERT_DTO_STATUS(ev.event_data.rmr_completion_event_data.status, DAT_RMR_BIND_SUCCESS);
	DC_ASSERT_NO_EVENT(w.p.a.recv_evd);
	DC_ASSERT_NO_EVENT(w.p.a.conn_evd);
}

DC_CASE(dat_rmr_bind, new_context_each_bind,
	.summary = "rebinding (same range, then another) returns a new context every time")
{
	struct win w;
	DAT_RMR_CONTEXT c[3] = { 0 };

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	c[0] = bind_checked(t, w.rmr, &w.m, 0, 256, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 1);
	c[1] = bind_checked(t, w.rmr, &w.m, 0, 256, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 2);
	c[2] = bind_checked(t, w.rmr, &w.m, 512, 256, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 3);
	DC_ASSERT(c[0] != c[1] && c[1] != c[2] && c[0] != c[2],
		  "contexts 0x%x, 0x%x, 0x%x are not all new", (unsigned int)c[0],
		  (unsigned int)c[1], (unsigned int)c[2]);
}

/*
 * The context goes to the peer in a Send posted right after the bind,
 * without waiting for its completion; the peer uses it at once.
 */
DC_CASE(dat_rmr_bind, fences_later_requests,
	.summary = "a Send posted right after the bind carries a context the peer can use at once; bind completes first")
{
	struct win w;
	struct dc_lmr msg, inbox;
	DAT_RMR_CONTEXT ctx = 0, got;
	DAT_EVENT ev;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_lmr(t, w.p.a.pz, BUF, DC_PRIV_LOCAL, &msg);
	dc_lmr(t, w.p.b.pz, BUF, DC_PRIV_LOCAL, &inbox);
	dc_post_recv(t, w.p.b.ep, &inbox, 0, 64, 1);
	BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 2, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	memcpy(msg.buf, &ctx, sizeof(ctx));
	dc_post_send(t, w.p.a.ep, &msg, 0, sizeof(ctx), 3);
	dc_await_recv(t, &w.p.b, 1);
	memcpy(&got, inbox.buf, sizeof(got));
	dc_fill(w.peer.buf, 256, 4);
	DC_ASSERT_DTO_STATUS(peer_write(&w, got, 0, 256, 4), DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(w.m.buf, w.peer.buf, 256), "the write with the sent context did not land");
	/* on a's request EVD: the bind completion, then the Send's */
	DC_ASSERT_EVENT(w.p.a.req_evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	DC_ASSERT_EVENT(w.p.a.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 3);
}

DC_CASE(dat_rmr_bind, old_context_invalid,
	.summary = "after a rebind, the peer's RDMA Write with the previous context fails with REMOTE_ACCESS")
{
	struct win w;
	DAT_RMR_CONTEXT old, fresh;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	old = bind_checked(t, w.rmr, &w.m, 0, 256, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 1);
	fresh = bind_checked(t, w.rmr, &w.m, 1024, 256, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 2);
	DC_ASSERT(old != fresh, "the rebind returned the old context 0x%x", (unsigned int)old);
	dc_fill(w.peer.buf, 256, 7);
	DC_ASSERT_DTO_STATUS(peer_write(&w, old, 0, 256, 3), DAT_DTO_ERR_REMOTE_ACCESS);
	DC_ASSERT((dc_first_not(w.m.buf, 256, 0) < 0), "the old window was written with the old context");
}

DC_CASE(dat_rmr_bind, notification_by_default,
	.summary = "a thread blocked in dat_evd_wait on the request EVD is woken by a default bind's completion")
{
	struct win w;
	struct dc_waiter *wt;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_TIMEOUT us;
	double t0, ms;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	us = (DAT_TIMEOUT)(dc_remaining_ms(t) > 6000 ? 5000 : dc_remaining_ms(t) / 2) * 1000u;
	wt = dc_evd_waiter(t, w.p.a.req_evd, us, 1);
	DC_SETUP_ASSERT(dc_waiter_blocked(t, wt), "dat_evd_wait returned %s at once",
			dc_ret_text(wt->ret));
	t0 = dc_now_ms();
	BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 5, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	dc_waiter_join(t, wt, "the bind");
	ms = wt->t_return - t0;
	DC_ASSERT_SUCCESS(wt->ret);
	DC_ASSERT_EQ(wt->ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
	DC_ASSERT_EQ(wt->ev.event_data.rmr_completion_event_data.user_cookie.as_64, 5);
	/* woken by the completion, not released by its own timeout */
	DC_ASSERT(ms < (double)us / 2000.0,
		  "the waiter returned %.0f ms after the bind, near its %u us timeout: "
		  "the bind completion did not notify it", ms, (unsigned int)us);
}

enum rdma_op { OP_READ, OP_WRITE };

/*
 * A window over all of a's LMR granting `grant`: the peer's `refused` RDMA
 * completes with DAT_DTO_ERR_REMOTE_ACCESS and moves no byte.  One pair
 * each: the refusal may break the connection.
 */
static void window_refuses(struct dc_ctx *t, const struct dc_conn_opts *o, DAT_MEM_PRIV_FLAGS grant,
			   enum rdma_op refused)
{
	static unsigned char before[BUF];
	struct win w;
	DAT_RMR_CONTEXT ctx;

	win_setup(&w, DC_PRIV_LOCAL, o);
	if (grant == DAT_MEM_PRIV_NONE_FLAG) {
		/* the page lists DAT_INSUFFICIENT_RESOURCES for any bind: a
		 * no-privilege window refused so (soft-RoCE in the VM suite) is
		 * a window that could not be checked, said so; the others are */
		DAT_LMR_TRIPLET iov = dc_iov(&w.m, 0, BUF);
		DAT_RETURN r = dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, grant, w.p.a.ep,
					       dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG, &ctx);

		if (DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES) {
			dc_note(t, "a window granting no remote privilege: dat_rmr_bind returned %s; "
				"not checked", dc_ret_text(r));
			win_down_keep_pz(t, &w);
			return;
		}
		DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
		DC_ASSERT_SUCCESS(r);
		DC_ASSERT_DTO_STATUS(DC_ASSERT_BIND_EVENT(w.p.a.req_evd).status,
				     DAT_RMR_BIND_SUCCESS);
	} else {
		ctx = bind_checked(t, w.rmr, &w.m, 0, BUF, grant, &w.p.a, 1);
	}
	dc_fill(w.m.buf, BUF, 90);
	if (refused == OP_WRITE) {
		memcpy(before, w.m.buf, BUF);
		dc_fill(w.peer.buf, 256, 1);
		DC_ASSERT_DTO_STATUS(peer_write(&w, ctx, 1024, 256, 2), DAT_DTO_ERR_REMOTE_ACCESS);
		DC_ASSERT(!memcmp(before, w.m.buf, BUF),
			  "a window granted 0x%x (no remote write) was written", (unsigned int)grant);
	} else {
		DC_ASSERT_DTO_STATUS(peer_read(&w, ctx, 1024, 256, 2), DAT_DTO_ERR_REMOTE_ACCESS);
		DC_ASSERT((dc_first_not(w.peer.buf, 256, 0) < 0),
			  "bytes were read through a window granted 0x%x (no remote read)",
			  (unsigned int)grant);
	}
	/* the next window's objects fit an IA of few EVDs, EPs or RMRs */
	win_down_keep_pz(t, &w);
}

/* Each remote privilege alone, and none (the PARAMETERS default): what is
 * not granted is refused (dat_rmr_bind(3DAT) DESCRIPTION, mem_privileges). */
DC_CASE(dat_rmr_bind, privileges_restrict_remote,
	.summary = "read-only, write-only and no-privilege windows refuse the RDMA not granted with REMOTE_ACCESS")
{
	struct dc_conn_opts o = { .pz = dc_pz(t) };

	window_refuses(t, &o, DAT_MEM_PRIV_REMOTE_READ_FLAG, OP_WRITE);
	window_refuses(t, &o, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, OP_READ);
	window_refuses(t, &o, DAT_MEM_PRIV_NONE_FLAG, OP_WRITE);
	window_refuses(t, &o, DAT_MEM_PRIV_NONE_FLAG, OP_READ);
}

DC_CASE(dat_rmr_bind, privileges_must_match,
	.summary = "remote write over a local-read-only LMR: SUCCESS or PRIVILEGES_VIOLATION (then nothing bound, no event)")
{
	struct win w;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	struct dc_snap s;
	DAT_RETURN r;

	win_setup(&w, DAT_MEM_PRIV_LOCAL_READ_FLAG, NULL);
	dc_snapshot(t, DC_OBJ_RMR, w.rmr, &s);
	iov = dc_iov(&w.m, 0, BUF);
	r = dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
	if (r == DAT_SUCCESS) {
		dc_note(t, "the Provider does not require matching privileges");
		DC_ASSERT_DTO_STATUS(DC_ASSERT_BIND_EVENT(w.p.a.req_evd).status, DAT_RMR_BIND_SUCCESS);
		return;
	}
	DC_ASSERT_RET(r, DAT_PRIVILEGES_VIOLATION);
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT_NO_EVENT(w.p.a.req_evd);
}

DC_CASE(dat_rmr_bind, zero_length_unbinds,
	.summary = "a zero-length bind completes; the earlier context then fails and the LMR is free to go")
{
	struct win w;
	DAT_RMR_CONTEXT ctx, dummy = 0;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	ctx = bind_checked(t, w.rmr, &w.m, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &w.p.a, 1);
	BIND_OK(&w, 0, 0, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 2, DAT_COMPLETION_DEFAULT_FLAG, &dummy);
	DC_ASSERT_DTO_STATUS(DC_ASSERT_BIND_EVENT(w.p.a.req_evd).status, DAT_RMR_BIND_SUCCESS);
	dc_fill(w.peer.buf, 128, 3);
	DC_ASSERT_DTO_STATUS(peer_write(&w, ctx, 0, 128, 3), DAT_DTO_ERR_REMOTE_ACCESS);
	DC_ASSERT((dc_first_not(w.m.buf, BUF, 0) < 0), "the unbound window was written");
	/* collateral: dat_rmr_bind(3DAT) DESCRIPTION: the zero-length bind leaves the RMR on no memory, so the LMR it was bound to frees */
	DC_ASSERT_SUCCESS(dat_lmr_free(w.m.lmr));
}

DC_CASE(dat_rmr_bind, suppress_flag,
	.summary = "a suppressed successful bind queues no event: the next request event is the following Send's",
	.requires = "completion_flags_supported&0x1")
{
	struct win w;
	struct dc_lmr msg, inbox;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_EVENT ev;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_lmr(t, w.p.a.pz, BUF, DC_PRIV_LOCAL, &msg);
	dc_lmr(t, w.p.b.pz, BUF, DC_PRIV_LOCAL, &inbox);
	dc_post_recv(t, w.p.b.ep, &inbox, 0, 64, 1);
	BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 2, DAT_COMPLETION_SUPPRESS_FLAG, &ctx);
	dc_post_send(t, w.p.a.ep, &msg, 0, 64, 3);
	DC_ASSERT_EVENT(w.p.a.req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 3);
	DC_ASSERT_NO_EVENT(w.p.a.req_evd);
}

DC_CASE(dat_rmr_bind, unsignalled_needs_ep_config,
	.summary = "UNSIGNALLED on a default EP: INVALID_PARAMETER, nothing bound; on an unsignalled EP it is accepted",
	.requires = "completion_flags_supported&0x4")
{
	struct win w, v;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	struct dc_conn_opts o;
	struct dc_snap s;
	DAT_EP_ATTR attr;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_snapshot(t, DC_OBJ_RMR, w.rmr, &s);
	iov = dc_iov(&w.m, 0, BUF);
	DC_ASSERT_RET(dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(1), DAT_COMPLETION_UNSIGNALLED_FLAG, &ctx), DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT_NO_EVENT(w.p.a.req_evd);
	win_down(t, &w);	/* an IA may have few EVDs, EPs or RMRs */

	dc_ep_attr_default(t, &attr);
	attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	memset(&o, 0, sizeof(o));
	o.attr = &attr;
	win_setup(&v, DC_PRIV_LOCAL, &o);
	BIND_OK(&v, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 2, DAT_COMPLETION_UNSIGNALLED_FLAG, &ctx);
}

DC_CASE(dat_rmr_bind, cookie_returned,
	.summary = "cookies 0, all ones and a repeated value come back exactly in the completions")
{
	static const uint64_t cookies[] = { 0, ~(uint64_t)0, 42, 42 };
	struct win w;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	for (size_t i = 0; i < sizeof(cookies) / sizeof(cookies[0]); i++) {
		DAT_RMR_CONTEXT ctx = 0;
		DAT_RMR_BIND_COMPLETION_EVENT_DATA d;

		BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, cookies[i],
			DAT_COMPLETION_DEFAULT_FLAG, &ctx);
		d = DC_ASSERT_BIND_EVENT(w.p.a.req_evd);
		DC_ASSERT(d.user_cookie.as_64 == cookies[i], "bind %zu: cookie 0x%llx came back as 0x%llx",
			  i, (unsigned long long)cookies[i], (unsigned long long)d.user_cookie.as_64);
	}
}

/* Disconnects a's EP and waits for it to be DISCONNECTED. */
static void disconnect_owner(struct dc_ctx *t, struct win *w)
{
	DC_SETUP(dat_ep_disconnect(w->p.a.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_await_event(t, w->p.a.conn_evd, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	dc_drain(t, w->p.a.req_evd);
	dc_drain(t, w->p.a.recv_evd);
}

DC_CASE(dat_rmr_bind, valid_states,
	.summary = "a bind is accepted on a CONNECTED and on a DISCONNECTED EP")
{
	struct win w;
	DAT_RMR_CONTEXT ctx = 0;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 1, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	disconnect_owner(t, &w);
	BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 2, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
}

/*
 * Clause: on w's DISCONNECTED EP a bind of w's RMR with `flags` is accepted
 * and flushed at once: a DAT_RMR_BIND_COMPLETION_EVENT already queued on the
 * request EVD, status DAT_RMR_BIND_FAILURE, naming the RMR and carrying the
 * cookie.  (The one RMR is bound again for each flag: a provider with a
 * single RMR runs them all.)
 */
static void assert_bind_flushed(struct dc_ctx *t, struct win *w, DAT_COMPLETION_FLAGS flags,
				uint64_t cookie)
{
	DAT_RMR_HANDLE rmr = w->rmr;
	DAT_LMR_TRIPLET iov = dc_iov(&w->m, 0, BUF);
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RMR_BIND_COMPLETION_EVENT_DATA d;
	DAT_EVENT ev;
	DAT_RETURN r;

	dc_note(t, "completion_flags 0x%x", (unsigned)flags);
	r = dc_dat_rmr_bind(rmr, w->m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w->p.a.ep,
			    dc_cookie(cookie), flags, &ctx);
	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
	DC_ASSERT_SUCCESS(r);
	memset(&ev, 0, sizeof(ev));
	/* "at once": already queued when the call returns */
	/* collateral: dat_rmr_bind(3DAT) DESCRIPTION: the bind is flushed to the request EVD, where it is dequeued */
	DC_ASSERT_SUCCESS(dat_evd_dequeue(w->p.a.req_evd, &ev));
	DC_ASSERT_EQ(ev.event_number, DAT_RMR_BIND_COMPLETION_EVENT);
	d = ev.event_data.rmr_completion_event_data;
	DC_ASSERT_DTO_STATUS(d.status, DAT_RMR_BIND_FAILURE);
	DC_ASSERT_EQ(d.user_cookie.as_64, cookie);
	DC_ASSERT_PTR_EQ(d.rmr_handle, rmr);
}

DC_CASE(dat_rmr_bind, disconnected_flushed,
	.summary = "a bind on a DISCONNECTED EP completes at once as DAT_RMR_BIND_FAILURE (flushed) with "
		   "its cookie and RMR, whatever its completion flags")
{
	/* PARAMETERS completion_flags: suppression hides only a successful
	 * completion and the unsignalled flag only the notification, so a
	 * flushed bind completes with each; the flags the provider lists in
	 * completion_flags_supported (dat_ia_query(3DAT)), each alone and
	 * with SUPPRESS, the same RMR bound again each time */
	static const DAT_COMPLETION_FLAGS each[] = {
		DAT_COMPLETION_DEFAULT_FLAG, DAT_COMPLETION_SUPPRESS_FLAG,
		DAT_COMPLETION_BARRIER_FENCE_FLAG,
		DAT_COMPLETION_BARRIER_FENCE_FLAG | DAT_COMPLETION_SUPPRESS_FLAG,
	};
	DAT_COMPLETION_FLAGS have = dc_attr_reported(t, "completion_flags_supported") ?
				    t->prov_attr.completion_flags_supported : 0;
	struct win w, v;
	struct dc_conn_opts o;
	DAT_EP_ATTR attr;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	disconnect_owner(t, &w);
	for (int i = 0; i < (int)(sizeof(each) / sizeof(each[0])); i++) {
		if ((each[i] & have) != each[i]) {
			dc_note(t, "completion_flags 0x%x: not in completion_flags_supported, skipped",
				(unsigned)each[i]);
			continue;
		}
		assert_bind_flushed(t, &w, each[i], 77 + (uint64_t)i);
	}
	/* an EP that selects unsignalled requests: a bind with the
	 * unsignalled flag is flushed too */
	if (!(have & DAT_COMPLETION_UNSIGNALLED_FLAG)) {
		dc_note(t, "completion_flags_supported lacks DAT_COMPLETION_UNSIGNALLED_FLAG: "
			"no unsignalled EP to flush on");
		return;
	}
	win_down(t, &w);
	dc_ep_attr_default(t, &attr);
	attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	memset(&o, 0, sizeof(o));
	o.attr = &attr;
	win_setup(&v, DC_PRIV_LOCAL, &o);
	disconnect_owner(t, &v);
	assert_bind_flushed(t, &v, DAT_COMPLETION_UNSIGNALLED_FLAG, 90);
}

DC_CASE(dat_rmr_bind, invalid_state,
	.summary = "a bind on an UNCONNECTED EP gives DAT_INVALID_STATE; nothing bound, no event")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_endpoint e;
	struct dc_conn_opts o;
	struct dc_lmr m;
	DAT_RMR_HANDLE rmr = dc_rmr(t, pz);
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	struct dc_snap s;

	memset(&o, 0, sizeof(o));
	o.pz = pz;
	dc_endpoint(t, &e, &o);
	dc_lmr(t, pz, BUF, DC_PRIV_LOCAL, &m);
	dc_snapshot(t, DC_OBJ_RMR, rmr, &s);
	iov = dc_iov(&m, 0, BUF);
	DC_ASSERT_RET(dc_dat_rmr_bind(rmr, m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, e.ep, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG, &ctx), DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT_NO_EVENT(e.req_evd);
}

DC_CASE(dat_rmr_bind, triplet_outside_lmr,
	.summary = "windows starting 64 or 1 bytes before, or ending 128 or 1 bytes past, the LMR give DAT_INVALID_PARAMETER; nothing bound")
{
	struct win w;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	struct dc_snap s;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_snapshot(t, DC_OBJ_RMR, w.rmr, &s);
	iov = dc_iov(&w.m, 0, 256);
	/* 256-byte windows starting 64 and 1 bytes before the registered range,
	 * and ending 128 and 1 bytes past it: the one-byte misses are the
	 * boundary itself (dat_rmr_bind(3DAT) RETURN VALUES, DAT_INVALID_PARAMETER:
	 * the window exceeds the LMR) */
	const DAT_VADDR lo = w.m.registered_address;
	const DAT_VADDR hi = w.m.registered_address + w.m.registered_length;
	const DAT_VADDR starts[] = { lo - 64, lo - 1, hi - 256 + 128, hi - 256 + 1 };

	for (unsigned k = 0; k < sizeof(starts) / sizeof(starts[0]); k++) {
		iov.virtual_address = starts[k];
		DC_ASSERT_RET(dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(k + 1), DAT_COMPLETION_DEFAULT_FLAG, &ctx), DAT_INVALID_PARAMETER);
	}
	/* the whole range and one byte more, from its start */
	iov.virtual_address = lo;
	iov.segment_length = w.m.registered_length + 1;
	DC_ASSERT_RET(dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(9), DAT_COMPLETION_DEFAULT_FLAG, &ctx), DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT_NO_EVENT(w.p.a.req_evd);
	/* the other side of the boundary: the whole registered range, and a
	 * window ending exactly where it ends, do not go beyond the LMR (only
	 * that is refused, RETURN VALUES): each is bound and completes */
	{
		const struct { DAT_VADDR at; DAT_VLEN len; const char *what; } in[] = {
			{ lo, w.m.registered_length, "the whole registered range" },
			{ hi - 256, 256, "256 bytes ending at the LMR's end" },
		};

		for (unsigned k = 0; k < sizeof(in) / sizeof(in[0]); k++) {
			DAT_RETURN r;

			iov.virtual_address = in[k].at;
			iov.segment_length = in[k].len;
			r = dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep,
					    dc_cookie(10 + k), DAT_COMPLETION_DEFAULT_FLAG, &ctx);
			dc_note(t, "a window over %s: %s", in[k].what, dc_ret_text(r));
			DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
			DC_ASSERT_SUCCESS(r);
			DC_ASSERT_DTO_STATUS(DC_ASSERT_BIND_EVENT(w.p.a.req_evd).status,
					     DAT_RMR_BIND_SUCCESS);
		}
	}
}

DC_CASE(dat_rmr_bind, invalid_handle,
	.summary = "NULL or PZ handles as RMR or as EP give DAT_INVALID_HANDLE; nothing bound")
{
	struct win w;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	struct dc_snap s;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_snapshot(t, DC_OBJ_RMR, w.rmr, &s);
	iov = dc_iov(&w.m, 0, BUF);
	DC_ASSERT_INVALID_HANDLE(dc_dat_rmr_bind(DAT_HANDLE_NULL, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(1), 0, &ctx), 1, RMR);
	DC_ASSERT_INVALID_HANDLE(dc_dat_rmr_bind((DAT_RMR_HANDLE)w.p.a.pz, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(1), 0, &ctx), 1, RMR);
	DC_ASSERT_INVALID_HANDLE(dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, DAT_HANDLE_NULL, dc_cookie(1), 0, &ctx), 4, EP);
	DC_ASSERT_INVALID_HANDLE(dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, (DAT_EP_HANDLE)w.p.a.pz, dc_cookie(1), 0, &ctx), 4, EP);
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT_NO_EVENT(w.p.a.req_evd);
}

DC_CASE(dat_rmr_bind, protection_violation,
	.summary = "RMR and EP in one PZ, LMR in another: DAT_PROTECTION_VIOLATION; nothing bound")
{
	struct win w;
	struct dc_lmr other;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	struct dc_snap s;

	win_setup(&w, DC_PRIV_LOCAL, NULL);
	dc_lmr(t, dc_pz(t), BUF, DC_PRIV_LOCAL, &other);
	dc_snapshot(t, DC_OBJ_RMR, w.rmr, &s);
	iov = dc_iov(&other, 0, BUF);
	DC_ASSERT_RET(dc_dat_rmr_bind(w.rmr, other.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG, &ctx), DAT_PROTECTION_VIOLATION);
	DC_ASSERT_UNCHANGED(&s);
	DC_ASSERT_NO_EVENT(w.p.a.req_evd);
}

/* ---- across two nodes ----------------------------------------------------- */

DC_TWO_NODE_CASE(dat_rmr_bind, remote_peer_uses_window,
	.clauses = "dat_rmr_bind.binds_and_returns_context dat_rmr_bind.fences_later_requests",
	.summary = "two nodes: the passive side binds and Sends the context at once; the active side RDMA-Writes with it",
	.requires = "ia.max_rmrs>0");

DC_PASSIVE(dat_rmr_bind, remote_peer_uses_window)
{
	struct dc_endpoint e = { 0 };
	struct dc_lmr m, msg;
	DAT_RMR_HANDLE rmr;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RETURN r;
	char done[64];

	dc_connect_passive(t, &e, NULL);
	dc_lmr(t, e.pz, BUF, DC_PRIV_LOCAL, &m);
	dc_lmr(t, e.pz, BUF, DC_PRIV_LOCAL, &msg);
	rmr = dc_rmr(t, e.pz);
	iov = dc_iov(&m, 0, BUF);
	r = dc_dat_rmr_bind(rmr, m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, e.ep, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
	DC_ASSERT_SUCCESS(r);
	/* context and address go out at once, fenced behind the bind */
	memcpy(msg.buf, &ctx, sizeof(ctx));
	memcpy(msg.buf + 8, &(DAT_VADDR){ (DAT_VADDR)(uintptr_t)m.buf }, sizeof(DAT_VADDR));
	dc_post_send(t, e.ep, &msg, 0, 16, 2);
	dc_peer_wait(t, "written", done, sizeof(done));
	{
		unsigned char want[256];

		/* both clauses': the peer used the context it got at once */
		dc_fill(want, sizeof(want), 33);
		DC_ASSERT(!memcmp(m.buf, want, sizeof(want)),
			  "the remote RDMA Write through the window did not land");
	}
	/* the bind completes before the Send behind it: the fence's alone */
	DC_FOR_CLAUSE("dat_rmr_bind.binds_and_returns_context");
	DC_FOR_CLAUSE("dat_rmr_bind.fences_later_requests");
	DC_ASSERT_EVENT(e.req_evd, DAT_RMR_BIND_COMPLETION_EVENT, NULL);
	dc_peer_send(t, "checked", "%s", "");
}

DC_ACTIVE(dat_rmr_bind, remote_peer_uses_window)
{
	struct dc_endpoint e = { 0 };
	struct dc_lmr inbox, src;
	DAT_RMR_CONTEXT ctx;
	DAT_VADDR addr;
	DAT_DTO_COMPLETION_STATUS st;

	dc_endpoint(t, &e, NULL);
	dc_lmr(t, e.pz, BUF, DC_PRIV_LOCAL, &inbox);
	dc_lmr(t, e.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_post_recv(t, e.ep, &inbox, 0, 64, 1);
	dc_connect_active(t, &e, NULL);
	dc_await_recv(t, &e, 1);
	memcpy(&ctx, inbox.buf, sizeof(ctx));
	memcpy(&addr, inbox.buf + 8, sizeof(addr));
	dc_fill(src.buf, 256, 33);
	st = dc_rdma_write(t, &e, &src, 0, 256, dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)((void *)(uintptr_t)addr), 256), 2);
	DC_ASSERT_DTO_STATUS(st, DAT_DTO_SUCCESS);
	dc_peer_send(t, "written", "%s", "");
	dc_peer_wait(t, "checked", NULL, 0);
}

/*
 * The request queue is filled with Sends the peer cannot take yet (it has
 * no receive posted); a bind then finds no room.  Receives at the peer let
 * the Sends complete and make room again.
 */
DC_CASE(dat_rmr_bind, insufficient_resources,
	.summary = "with the request queue full of pending Sends a bind gives INSUFFICIENT_RESOURCES; once they complete it is accepted")
{
	struct win w;
	struct dc_conn_opts o;
	struct dc_lmr msg, inbox;
	DAT_EP_ATTR attr;
	DAT_EP_PARAM ep;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT ctx = 0;
	struct dc_snap s;
	DAT_RETURN r;
	DAT_COUNT n;

	dc_ep_attr_default(t, &attr);
	attr.max_request_dtos = 2;
	memset(&o, 0, sizeof(o));
	o.attr = &attr;
	win_setup(&w, DC_PRIV_LOCAL, &o);
	DC_SETUP(dat_ep_query(w.p.a.ep, DAT_EP_FIELD_ALL, &ep));
	n = ep.ep_attr.max_request_dtos;
	DC_SETUP_ASSERT(n >= 1 && n <= 64, "the EP got max_request_dtos %d", n);
	dc_lmr(t, w.p.a.pz, BUF, DC_PRIV_LOCAL, &msg);
	dc_lmr(t, w.p.b.pz, BUF, DC_PRIV_LOCAL, &inbox);
	for (DAT_COUNT i = 0; i < n; i++)
		dc_post_send(t, w.p.a.ep, &msg, 0, 32, 100 + (uint64_t)i);
	dc_snapshot(t, DC_OBJ_RMR, w.rmr, &s);
	iov = dc_iov(&w.m, 0, BUF);
	r = dc_dat_rmr_bind(w.rmr, w.m.lmr, &iov, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, w.p.a.ep, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	DC_ALLOW_MODEL_NOT_SUPPORTED(r, "dat_rmr_bind", "RMR binding");
	DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	DC_ASSERT_UNCHANGED(&s);
	for (DAT_COUNT i = 0; i < n; i++)
		dc_post_recv(t, w.p.b.ep, &inbox, (DAT_VLEN)i * 32, 32, 200 + (uint64_t)i);
	for (DAT_COUNT i = 0; i < n; i++)
		dc_await_dto(t, w.p.a.req_evd, 100 + (uint64_t)i);
	BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 2, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
}

/*
 * No portable request makes a bind fail after dat_rmr_bind accepted it; the
 * provider's test hook fails the next bind when it is carried out (as a
 * transport's bind work request can fail), docs/reference-provider.md "Test
 * hooks"; UNSUPPORTED elsewhere.
 */
typedef DAT_RETURN (*fail_next_bind_fn)(DAT_EP_HANDLE ep);

DC_CASE(dat_rmr_bind, late_failure_breaks_connection,
	.summary = "a bind that fails after the call returned breaks the connection: BROKEN and DISCONNECTED",
	.needs = "hook:daplref_test_fail_next_bind")
{
	fail_next_bind_fn fail_next_bind = (fail_next_bind_fn)dc_provider_hook("daplref_test_fail_next_bind");
	/* DEFAULT, then SUPPRESS where the provider lists it: the flag hides
	 * only a successful completion (PARAMETERS completion_flags), so the
	 * failed bind completes with either */
	const DAT_COMPLETION_FLAGS each[] = { DAT_COMPLETION_DEFAULT_FLAG, DAT_COMPLETION_SUPPRESS_FLAG };
	const int n = dc_attr_reported(t, "completion_flags_supported") &&
		      (t->prov_attr.completion_flags_supported & DAT_COMPLETION_SUPPRESS_FLAG) ? 2 : 1;
	struct win w;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_EVENT ev;

	for (int i = 0; i < n; i++) {
		dc_note(t, "completion_flags 0x%x", (unsigned)each[i]);
		win_setup(&w, DC_PRIV_LOCAL, NULL);
		DC_SETUP(fail_next_bind(w.p.a.ep));
		BIND_OK(&w, 0, 1024, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 5 + (uint64_t)i, each[i], &ctx);
		DC_ASSERT_CONN_EVENT(w.p.a.conn_evd, DAT_CONNECTION_EVENT_BROKEN, w.p.a.ep);
		DC_ASSERT_EQ(DC_EP_PARAM(w.p.a.ep).ep_state, DAT_EP_STATE_DISCONNECTED);
		/* the failed bind completes, and not as a success */
		DC_ASSERT_EVENT(w.p.a.req_evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev);
		DC_ASSERT(ev.event_data.rmr_completion_event_data.status != DAT_RMR_BIND_SUCCESS,
			  "the bind that failed completed with DAT_RMR_BIND_SUCCESS");
		DC_ASSERT_EQ(ev.event_data.rmr_completion_event_data.user_cookie.as_64, 5 + (uint64_t)i);
		win_down(t, &w);
	}
	if (n == 1)
		dc_note(t, "completion_flags_supported lacks DAT_COMPLETION_SUPPRESS_FLAG: "
			"the suppressed variant is left out");
}

/*
 * A bind posted while RDMA Reads wait their turn behind max_rdma_read_out
 * (1 here), then a Send: the Reads, the bind and the Send all complete
 * successfully on the request EVD.
 */
DC_CASE(dat_rmr_bind, completes_behind_waiting_reads,
	.clauses = "dat_rmr_bind.completion_event",
	.summary = "a bind posted behind RDMA Reads waiting for max_rdma_read_out 1, then a Send: all complete successfully")
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };
	struct win w;
	struct dc_lmr src, dst, inbox;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_EVENT ev;
	bool seen[5] = { false };

	dc_ep_attr_default(t, &attr);
	DC_NEED_LIMIT("ia.max_rdma_read_per_ep_out", t->ia_attr.max_rdma_read_per_ep_out, 1);
	attr.max_rdma_read_out = 1;
	win_setup(&w, DC_PRIV_LOCAL, &o);
	dc_lmr(t, w.p.b.pz, BUF, DAT_MEM_PRIV_ALL_FLAG, &src);
	dc_lmr(t, w.p.a.pz, BUF, DC_PRIV_LOCAL, &dst);
	dc_lmr(t, w.p.b.pz, BUF, DC_PRIV_LOCAL, &inbox);
	dc_post_recv(t, w.p.b.ep, &inbox, 0, 64, 9);
	for (int i = 0; i < 3; i++) {
		dc_fill(src.buf + (size_t)i * 256, 256, 60 + (unsigned)i);
		iov = dc_iov(&dst, (DAT_VLEN)i * 256, 256);
		rem = dc_rmr_iov(&src, (DAT_VLEN)i * 256, 256);
		DC_SETUP(dat_ep_post_rdma_read(w.p.a.ep, 1, &iov, dc_cookie(1 + (uint64_t)i), &rem,
					       DAT_COMPLETION_DEFAULT_FLAG));
	}
	BIND_OK(&w, 0, BUF, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, 4, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	dc_post_send(t, w.p.a.ep, &dst, 0, 64, 5);
	for (int n = 0; n < 5; n++) {
		uint64_t c;
		int ok;

		DC_ASSERT_SUCCESS(dc_wait_event(t, w.p.a.req_evd, -1, &ev));
		if (ev.event_number == DAT_RMR_BIND_COMPLETION_EVENT) {
			c = ev.event_data.rmr_completion_event_data.user_cookie.as_64;
			ok = ev.event_data.rmr_completion_event_data.status == DAT_RMR_BIND_SUCCESS;
		} else {
			DC_ASSERT(ev.event_number == DAT_DTO_COMPLETION_EVENT,
				  "unexpected %s on the request EVD", dc_event_name(ev.event_number));
			c = ev.event_data.dto_completion_event_data.user_cookie.as_64;
			ok = ev.event_data.dto_completion_event_data.status == DAT_DTO_SUCCESS;
		}
		DC_ASSERT(c >= 1 && c <= 5 && !seen[c - 1], "unexpected or repeated cookie %llu",
			  (unsigned long long)c);
		DC_ASSERT(ok, "the request with cookie %llu did not complete successfully",
			  (unsigned long long)c);
		seen[c - 1] = true;
	}
	for (int i = 0; i < 3; i++)
		DC_ASSERT(dc_check_fill(dst.buf + (size_t)i * 256, 256, 60 + (unsigned)i),
			  "Read %d fetched wrong bytes", i + 1);
}
