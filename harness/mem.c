// SPDX-License-Identifier: MIT
/* mem.c - dc_mem.h: patterns, Consumer buffers, synchronous DTOs and binds. */
#include "datcts.h"

#include <stdlib.h>
#include <string.h>

static unsigned char pattern_byte(size_t i, unsigned int seed)
{
	return (unsigned char)(seed + i * 7u + (i >> 8));
}

void dc_fill(void *p, size_t len, unsigned int seed)
{
	unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = pattern_byte(i, seed);
}

bool dc_check_fill(const void *p, size_t len, unsigned int seed)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != pattern_byte(i, seed))
			return false;
	return true;
}

long dc_first_not(const void *p, size_t len, unsigned char v)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != v)
			return (long)i;
	return -1;
}

static void *case_bufs[256];
static int n_case_bufs;

static void case_bufs_free(void)
{
	while (n_case_bufs > 0)
		free(case_bufs[--n_case_bufs]);
}

void *dc_case_buf_at(struct dc_ctx *t, const char *file, int line,
		     size_t align, size_t len)
{
	void *p;

	if (n_case_bufs == (int)(sizeof(case_bufs) / sizeof(case_bufs[0])))
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "case bug: too many case buffers");
	p = aligned_alloc(align, (len + align - 1) / align * align);
	if (!p)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: out of memory");
	memset(p, 0, len);
	if (n_case_bufs == 0)
		atexit(case_bufs_free);
	case_bufs[n_case_bufs++] = p;
	return p;
}

void dc_lmr_guarded_at(struct dc_ctx *t, const char *file, int line, DAT_PZ_HANDLE pz,
		       DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv, struct dc_lmr *out)
{
	unsigned char *all;
	DAT_RETURN r;

	/* DC_GUARD_LEN keeps the registered range at the buffer's alignment. */
	all = dc_case_buf_at(t, file, line, DAT_OPTIMAL_ALIGNMENT,
			     (size_t)len + 2 * DC_GUARD_LEN);
	memset(all, DC_GUARD_BYTE, DC_GUARD_LEN);
	memset(all + DC_GUARD_LEN + len, DC_GUARD_BYTE, DC_GUARD_LEN);
	r = dc_lmr_register(t->ia, pz, all + DC_GUARD_LEN, len, priv, out);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_lmr_create of a guarded %llu-byte buffer: %s",
			  (unsigned long long)len, dc_ret_text(r));
}

/* The request completion of an RDMA the caller posted: its cookie, its status. */
static DAT_DTO_COMPLETION_STATUS rdma_done(struct dc_ctx *t, const char *file, int line,
					   const struct dc_endpoint *e, DAT_RETURN r,
					   const char *call, uint64_t cookie)
{
	dc_setup_call_at(t, file, line, r, call);
	return dc_expect_dto_at(t, file, line, DC_FAIL, e->req_evd, &cookie,
				DC_ANY_STATUS).status;
}

DAT_DTO_COMPLETION_STATUS dc_rdma_write_at(struct dc_ctx *t, const char *file, int line,
					   const struct dc_endpoint *e,
					   const struct dc_lmr *m, DAT_VLEN off,
					   DAT_VLEN len, DAT_RMR_TRIPLET dst,
					   uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);

	return rdma_done(t, file, line, e,
			 dat_ep_post_rdma_write(e->ep, 1, &iov, dc_cookie(cookie), &dst,
						DAT_COMPLETION_DEFAULT_FLAG),
			 "dat_ep_post_rdma_write", cookie);
}

DAT_DTO_COMPLETION_STATUS dc_rdma_read_at(struct dc_ctx *t, const char *file, int line,
					  const struct dc_endpoint *e,
					  const struct dc_lmr *m, DAT_VLEN off,
					  DAT_VLEN len, DAT_RMR_TRIPLET src,
					  uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);

	return rdma_done(t, file, line, e,
			 dat_ep_post_rdma_read(e->ep, 1, &iov, dc_cookie(cookie), &src,
					       DAT_COMPLETION_DEFAULT_FLAG),
			 "dat_ep_post_rdma_read", cookie);
}

void dc_send_sync_at(struct dc_ctx *t, const char *file, int line,
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

DAT_DTO_COMPLETION_EVENT_DATA dc_await_recv_at(struct dc_ctx *t, const char *file,
					       int line, const struct dc_endpoint *e,
					       uint64_t cookie)
{
	DAT_DTO_COMPLETION_EVENT_DATA d = dc_await_dto_at(t, file, line, e->recv_evd, cookie);

	if (d.status != DAT_DTO_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up receive completed with %s", dc_dto_status_name(d.status));
	return d;
}

DAT_RMR_BIND_COMPLETION_EVENT_DATA dc_expect_bind_at(struct dc_ctx *t, const char *file,
						     int line, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;

	dc_expect_event_at(t, file, line, DC_FAIL, evd, DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	return ev.event_data.rmr_completion_event_data;
}

DAT_RMR_CONTEXT dc_bind_rmr_at(struct dc_ctx *t, const char *file, int line,
			       DAT_RMR_HANDLE rmr, const struct dc_lmr *m,
			       DAT_VLEN off, DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv,
			       const struct dc_endpoint *e, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_RMR_BIND_COMPLETION_EVENT_DATA *d;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_EVENT ev;
	DAT_RETURN r;

	r = dc_dat_rmr_bind(rmr, m->lmr, &iov, priv, e->ep, dc_cookie(cookie),
			    DAT_COMPLETION_DEFAULT_FLAG, &ctx);
	dc_allow_model_not_supported_at(t, file, line, "dat_rmr_bind", r,
					"dat_rmr_bind", "RMR binding");
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_rmr_bind returned %s", dc_ret_text(r));
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, e->req_evd,
			   DAT_RMR_BIND_COMPLETION_EVENT, &ev);
	d = &ev.event_data.rmr_completion_event_data;
	if (d->status != DAT_RMR_BIND_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up bind completed with %s", dc_dto_status_name(d->status));
	return ctx;
}

/* ---- dc_abi.h parts that are the same in both ABIs ---- */

DAT_LMR_TRIPLET dc_lmr_triplet(DAT_LMR_CONTEXT ctx, DAT_VADDR addr, DAT_VLEN len)
{
	DAT_LMR_TRIPLET iov;

	memset(&iov, 0, sizeof(iov));
	iov.lmr_context = ctx;
	iov.virtual_address = addr;
	iov.segment_length = len;
	return iov;
}

DAT_LMR_TRIPLET dc_iov(const struct dc_lmr *m, DAT_VLEN off, DAT_VLEN len)
{
	return dc_lmr_triplet(m->lmr_context, (DAT_VADDR)(uintptr_t)(m->buf + off), len);
}

/* The LMR's memory is what the provider registered (dat_lmr_create(3DAT)
 * registered_address, registered_size), which may be more than was asked. */
static void registered(const struct dc_lmr *m, DAT_VADDR *lo, DAT_VADDR *hi)
{
	*lo = (DAT_VADDR)(uintptr_t)m->buf;
	*hi = *lo + m->len;
	if (m->registered_length && m->registered_address <= *lo &&
	    m->registered_address + m->registered_length >= *hi) {
		*lo = m->registered_address;
		*hi = m->registered_address + m->registered_length;
	}
}

DAT_VLEN dc_off_past_end(const struct dc_lmr *m, DAT_VLEN len)
{
	DAT_VADDR lo, hi;

	registered(m, &lo, &hi);
	return (DAT_VLEN)(hi - (DAT_VADDR)(uintptr_t)m->buf) - len + 1;
}

DAT_LMR_TRIPLET dc_iov_past_end(const struct dc_lmr *m, DAT_VLEN len)
{
	return dc_iov(m, dc_off_past_end(m, len), len);
}

DAT_LMR_TRIPLET dc_iov_before_start(const struct dc_lmr *m, DAT_VLEN before, DAT_VLEN len)
{
	DAT_VADDR lo, hi;

	registered(m, &lo, &hi);
	return dc_lmr_triplet(m->lmr_context, lo - before, len);
}

DAT_LMR_TRIPLET dc_iov_longest(const struct dc_lmr *m)
{
	return dc_iov(m, 0, ~(DAT_VLEN)0);
}

DAT_RMR_TRIPLET dc_rmr_iov(const struct dc_lmr *m, DAT_VLEN off, DAT_VLEN len)
{
	return dc_rmr_triplet(m->rmr_context, (DAT_VADDR)(uintptr_t)(m->buf + off), len);
}

DAT_RETURN dc_lmr_register(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, void *addr,
			   DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv,
			   struct dc_lmr *out)
{
	DAT_REGION_DESCRIPTION rd;

	memset(out, 0, sizeof(*out));
	memset(&rd, 0, sizeof(rd));
	rd.for_va = addr;
	out->buf = addr;
	out->len = len;
	return dc_dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, len, pz, priv,
				 &out->lmr, &out->lmr_context, &out->rmr_context,
				 &out->registered_length,
				 &out->registered_address);
}
