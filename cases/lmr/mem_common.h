/* SPDX-License-Identifier: MIT */
/*
 * mem_common.h - set-up helpers for the memory cases (cases/lmr, cases/rmr,
 * cases/pz, and the memory clauses of cases/ia).
 *
 * Header-only (static) so that every page file stays one translation unit.
 * The usual picture: a connected pair in this process (dc_connect_local),
 * "a" the initiator of RDMA, "b" the target whose memory is exposed.  Each
 * side has its own PZ unless the case passes one.  Helpers named post_* and
 * *_status run a DTO and return what happened; the case asserts on it.
 */
#ifndef MEM_COMMON_H
#define MEM_COMMON_H

#include "datcts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIV_LOCAL	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define PRIV_RW_ALL	DAT_MEM_PRIV_ALL_FLAG
#define BUF		4096u

static inline DAT_DTO_COOKIE ck(uint64_t v)
{
	DAT_DTO_COOKIE c;

	memset(&c, 0, sizeof(c));
	c.as_64 = v;
	return c;
}

static inline const char *ret_s(DAT_RETURN r)
{
	static char b[4][160];
	static int i;

	i = (i + 1) % 4;
	return dc_ret_str(r, b[i], sizeof(b[i]));
}

static inline void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7u + 1u);
}

static inline bool all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/*
 * Consumer memory for the case, zero-filled, freed at process exit (after
 * the teardown's dat_ia_close, so no registration outlives its memory).
 */
static void *case_bufs_[256];
static int n_case_bufs_;

static void case_bufs_free_(void)
{
	while (n_case_bufs_ > 0)
		free(case_bufs_[--n_case_bufs_]);
}

static inline void *case_buf_at(struct dc_ctx *t, const char *file, int line,
				size_t align, size_t len)
{
	void *p;

	if (n_case_bufs_ == (int)(sizeof(case_bufs_) / sizeof(case_bufs_[0])))
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "case bug: too many case buffers");
	p = aligned_alloc(align, (len + align - 1) / align * align);
	if (!p)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: out of memory");
	memset(p, 0, len);
	if (n_case_bufs_ == 0)
		atexit(case_bufs_free_);
	case_bufs_[n_case_bufs_++] = p;
	return p;
}
#define case_buf(align, len) case_buf_at(t, __FILE__, __LINE__, (align), (len))

/* A connected pair: a is the active side (the RDMA initiator), b the target. */
struct pair {
	struct dc_endpoint a, b;
};

static inline void pair_connect_at(struct dc_ctx *t, const char *file, int line,
				   struct pair *p, const struct dc_conn_opts *o)
{
	memset(p, 0, sizeof(*p));
	dc_connect_local_at(t, file, line, &p->a, &p->b, o);
}
#define pair_connect(p, o) pair_connect_at(t, __FILE__, __LINE__, (p), (o))

/*
 * Waits for the next event of `evd`, which must be a DTO completion
 * (FAIL otherwise, naming what came); returns its data.
 */
static inline DAT_DTO_COMPLETION_EVENT_DATA
dto_event_at(struct dc_ctx *t, const char *file, int line, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	dc_expect_event_at(t, file, line, DC_FAIL, evd, DAT_DTO_COMPLETION_EVENT, &ev);
	return ev.event_data.dto_completion_event_data;
}
#define dto_event(evd) dto_event_at(t, __FILE__, __LINE__, (evd))

/* RDMA Write of m[off, off+len) to `dst`; returns the completion status. */
static inline DAT_DTO_COMPLETION_STATUS
rdma_write_at(struct dc_ctx *t, const char *file, int line,
	      const struct dc_endpoint *e, const struct dc_lmr *m,
	      DAT_VLEN off, DAT_VLEN len, DAT_RMR_TRIPLET dst, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_RETURN r;

	r = dat_ep_post_rdma_write(e->ep, 1, &iov, ck(cookie), &dst,
				   DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_ep_post_rdma_write returned %s", ret_s(r));
	d = dto_event_at(t, file, line, e->req_evd);
	if (d.user_cookie.as_64 != cookie)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "expected the completion of cookie %llu, got cookie %llu",
			  (unsigned long long)cookie,
			  (unsigned long long)d.user_cookie.as_64);
	return d.status;
}
#define rdma_write(e, m, off, len, dst, cookie)				\
	rdma_write_at(t, __FILE__, __LINE__, (e), (m), (off), (len), (dst), (cookie))

/* RDMA Read from `src` into m[off, off+len); returns the completion status. */
static inline DAT_DTO_COMPLETION_STATUS
rdma_read_at(struct dc_ctx *t, const char *file, int line,
	     const struct dc_endpoint *e, const struct dc_lmr *m,
	     DAT_VLEN off, DAT_VLEN len, DAT_RMR_TRIPLET src, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_RETURN r;

	r = dat_ep_post_rdma_read(e->ep, 1, &iov, ck(cookie), &src,
				  DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_ep_post_rdma_read returned %s", ret_s(r));
	d = dto_event_at(t, file, line, e->req_evd);
	if (d.user_cookie.as_64 != cookie)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "expected the completion of cookie %llu, got cookie %llu",
			  (unsigned long long)cookie,
			  (unsigned long long)d.user_cookie.as_64);
	return d.status;
}
#define rdma_read(e, m, off, len, src, cookie)				\
	rdma_read_at(t, __FILE__, __LINE__, (e), (m), (off), (len), (src), (cookie))

/* An RMR triplet over an arbitrary context and address. */
static inline DAT_RMR_TRIPLET rmr_triplet(DAT_RMR_CONTEXT ctx, const void *addr,
					  DAT_VLEN len)
{
	DAT_RMR_TRIPLET r;

	memset(&r, 0, sizeof(r));
	r.rmr_context = ctx;
	r.target_address = (DAT_VADDR)(uintptr_t)addr;
	r.segment_length = len;
	return r;
}

#define ASSERT_STATUS(got, want)					\
	DC_ASSERT((got) == (want), "DTO status %s, expected %s",	\
		  dc_dto_status_name(got), dc_dto_status_name(want))

/* Clause: the connection of `e` ends (BROKEN, or DISCONNECTED). */
static inline void expect_conn_end_at(struct dc_ctx *t, const char *file,
				      int line, const struct dc_endpoint *e)
{
	DAT_EVENT ev;
	DAT_RETURN r = dc_wait_event(t, e->conn_evd, -1, &ev);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "expected the connection to end, dat_evd_wait on the connection EVD returned %s",
			  ret_s(r));
	if (ev.event_number != DAT_CONNECTION_EVENT_BROKEN &&
	    ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "expected DAT_CONNECTION_EVENT_BROKEN or _DISCONNECTED, got %s",
			  dc_event_name(ev.event_number));
}
#define expect_conn_end(e) expect_conn_end_at(t, __FILE__, __LINE__, (e))

/* Set-up: Send m[off, off+len) from e and wait for its completion. */
static inline void send_sync_at(struct dc_ctx *t, const char *file, int line,
				const struct dc_endpoint *e, const struct dc_lmr *m,
				DAT_VLEN off, DAT_VLEN len, uint64_t cookie)
{
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_post_send_at(t, file, line, e->ep, m, off, len, cookie);
	d = dc_await_dto_at(t, file, line, e->req_evd, cookie);
	if (d.status != DAT_DTO_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up Send completed with %s", dc_dto_status_name(d.status));
}
#define send_sync(e, m, off, len, cookie)				\
	send_sync_at(t, __FILE__, __LINE__, (e), (m), (off), (len), (cookie))

/* Set-up: the receive with `cookie` completes successfully on e. */
static inline DAT_DTO_COMPLETION_EVENT_DATA
recv_done_at(struct dc_ctx *t, const char *file, int line,
	     const struct dc_endpoint *e, uint64_t cookie)
{
	DAT_DTO_COMPLETION_EVENT_DATA d = dc_await_dto_at(t, file, line, e->recv_evd, cookie);

	if (d.status != DAT_DTO_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up receive completed with %s", dc_dto_status_name(d.status));
	return d;
}
#define recv_done(e, cookie) recv_done_at(t, __FILE__, __LINE__, (e), (cookie))

/* Set-up: dat_lmr_query(DAT_LMR_FIELD_ALL). */
static inline DAT_LMR_PARAM lmr_param_at(struct dc_ctx *t, const char *file,
					 int line, DAT_LMR_HANDLE lmr)
{
	DAT_LMR_PARAM p;
	DAT_RETURN r;

	memset(&p, 0, sizeof(p));
	r = dat_lmr_query(lmr, DAT_LMR_FIELD_ALL, &p);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_lmr_query(DAT_LMR_FIELD_ALL) returned %s", ret_s(r));
	return p;
}
#define lmr_param(lmr) lmr_param_at(t, __FILE__, __LINE__, (lmr))

/*
 * Registers `len` bytes at `addr` (Consumer memory) on the case's IA;
 * returns what dat_lmr_create returned and fills `out` on success.
 */
static inline DAT_RETURN lmr_virtual(struct dc_ctx *t, DAT_PZ_HANDLE pz, void *addr,
				     DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv,
				     struct dc_lmr *out)
{
	DAT_REGION_DESCRIPTION rd;

	memset(out, 0, sizeof(*out));
	memset(&rd, 0, sizeof(rd));
	rd.for_va = addr;
	out->buf = addr;
	out->len = len;
	return dat_lmr_create(t->ia, DAT_MEM_TYPE_VIRTUAL, rd, len, pz, priv,
			      &out->lmr, &out->lmr_context, &out->rmr_context,
			      &out->registered_length, &out->registered_address);
}

/*
 * The RMR bind helpers: post the bind, wait for its completion on the
 * EP's request EVD (FAIL when another event comes), return its status.
 * The first bind of a case may meet DAT_MODEL_NOT_SUPPORTED, which the
 * page lists: that ends the case UNSUPPORTED.
 */
static inline DAT_RETURN bind_post(DAT_RMR_HANDLE rmr, const DAT_LMR_TRIPLET *iov,
				   DAT_MEM_PRIV_FLAGS priv, DAT_EP_HANDLE ep,
				   uint64_t cookie, DAT_COMPLETION_FLAGS flags,
				   DAT_RMR_CONTEXT *ctx)
{
	DAT_RMR_COOKIE c;

	memset(&c, 0, sizeof(c));
	c.as_64 = cookie;
	return dat_rmr_bind(rmr, (DAT_LMR_TRIPLET *)iov, priv, ep, c, flags, ctx);
}

static inline DAT_RMR_BIND_COMPLETION_EVENT_DATA
bind_event_at(struct dc_ctx *t, const char *file, int line, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	dc_expect_event_at(t, file, line, DC_FAIL, evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	return ev.event_data.rmr_completion_event_data;
}
#define bind_event(evd) bind_event_at(t, __FILE__, __LINE__, (evd))

/* Set-up: bind and wait for a successful completion; returns the context. */
static inline DAT_RMR_CONTEXT bind_sync_at(struct dc_ctx *t, const char *file, int line,
					   DAT_RMR_HANDLE rmr, const struct dc_lmr *m,
					   DAT_VLEN off, DAT_VLEN len,
					   DAT_MEM_PRIV_FLAGS priv,
					   const struct dc_endpoint *e, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *d;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_EVENT ev;
	DAT_RETURN r;

	r = bind_post(rmr, &iov, priv, e->ep, cookie, DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	dc_allow_model_not_supported_at(t, file, line, "dat_rmr_bind", r,
					"dat_rmr_bind", "RMR binding");
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_rmr_bind returned %s", ret_s(r));
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, e->req_evd,
			   DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	d = &ev.event_data.rmr_completion_event_data;
	if (d->status != DAT_RMR_BIND_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up bind completed with %s", dc_dto_status_name(d->status));
	return ctx;
}
#define bind_sync(rmr, m, off, len, priv, e, cookie)			\
	bind_sync_at(t, __FILE__, __LINE__, (rmr), (m), (off), (len), (priv), (e), (cookie))

/* Set-up: dat_rmr_create. */
static inline DAT_RMR_HANDLE rmr_new_at(struct dc_ctx *t, const char *file, int line,
					DAT_PZ_HANDLE pz)
{
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	DAT_RETURN r = dat_rmr_create(pz, &rmr);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_rmr_create returned %s", ret_s(r));
	return rmr;
}
#define rmr_new(pz) rmr_new_at(t, __FILE__, __LINE__, (pz))

/* Set-up: dat_cno_create without an agent. */
static inline DAT_CNO_HANDLE cno_new_at(struct dc_ctx *t, const char *file, int line,
					DAT_IA_HANDLE ia)
{
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	DAT_RETURN r = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_cno_create returned %s", ret_s(r));
	return cno;
}
#define cno_new(ia) cno_new_at(t, __FILE__, __LINE__, (ia))

#endif /* MEM_COMMON_H */
