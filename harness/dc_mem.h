/* SPDX-License-Identifier: MIT */
/*
 * dc_mem.h - memory helpers: byte patterns, Consumer buffers, synchronous
 * DTOs and RMR binds over connected endpoints.  Included by datcts.h.
 */
#ifndef DC_MEM_H
#define DC_MEM_H

/* Local read and write: what a buffer for Sends and Receives needs. */
#define DC_PRIV_LOCAL (DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)

/* A pattern that differs from byte to byte and from seed to seed. */
void dc_fill(void *p, size_t len, unsigned int seed);
bool dc_check_fill(const void *p, size_t len, unsigned int seed);
/* Index of the first byte of p[0..len) that is not v, or -1. */
long dc_first_not(const void *p, size_t len, unsigned char v);
/* Clause: p[0..len) is all v (e.g. a canary nothing may overwrite). */
#define DC_ASSERT_BYTES_ARE(p, len, v, what)				\
	do {								\
		const unsigned char *p_ = (const unsigned char *)(p);	\
		long at_ = dc_first_not(p_, (len), (v));		\
		DC_ASSERT(at_ < 0, "%s: byte %ld is 0x%02x, expected it untouched (0x%02x)", \
			  (what), at_, at_ < 0 ? 0 : p_[at_], (unsigned)(v)); \
	} while (0)

/*
 * Consumer memory for the case: aligned, zero-filled, freed at process
 * exit (after the teardown's dat_ia_close, so no registration outlives
 * its memory).
 */
void *dc_case_buf_at(struct dc_ctx *t, const char *file, int line,
		     size_t align, size_t len);
#define dc_case_buf(t, align, len) dc_case_buf_at((t), __FILE__, __LINE__, (align), (len))

/*
 * An LMR with guard bytes: DC_GUARD_LEN bytes of DC_GUARD_BYTE right before
 * and right after the registered range m->buf[0, len), in the same
 * allocation but outside the LMR, so no transfer of the provider may ever
 * write them.  DC_ASSERT_GUARDS(&m) checks both sides (FAIL naming the
 * first touched byte).  Set-up (UNRESOLVED) on failure like dc_lmr().
 */
#define DC_GUARD_LEN 4096
#define DC_GUARD_BYTE 0xA5
void dc_lmr_guarded_at(struct dc_ctx *t, const char *file, int line, DAT_PZ_HANDLE pz,
		       DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv, struct dc_lmr *out);
#define dc_lmr_guarded(t, pz, len, priv, out)				\
	dc_lmr_guarded_at((t), __FILE__, __LINE__, (pz), (len), (priv), (out))
#define DC_ASSERT_GUARDS(m)						\
	do {								\
		DC_ASSERT_BYTES_ARE((m)->buf - DC_GUARD_LEN, DC_GUARD_LEN,	\
				    DC_GUARD_BYTE, "guard before the LMR"); \
		DC_ASSERT_BYTES_ARE((m)->buf + (m)->len, DC_GUARD_LEN,	\
				    DC_GUARD_BYTE, "guard after the LMR"); \
	} while (0)

/*
 * RDMA Write of m[off, off+len) to dst (Read from src into it) on e's EP;
 * set-up until the completion, which must carry `cookie` (else FAIL).
 * Returns the completion status.
 */
DAT_DTO_COMPLETION_STATUS dc_rdma_write_at(struct dc_ctx *t, const char *file, int line,
					   const struct dc_endpoint *e,
					   const struct dc_lmr *m, DAT_VLEN off,
					   DAT_VLEN len, DAT_RMR_TRIPLET dst,
					   uint64_t cookie);
#define dc_rdma_write(t, e, m, off, len, dst, cookie)			\
	dc_rdma_write_at((t), __FILE__, __LINE__, (e), (m), (off), (len), (dst), (cookie))
DAT_DTO_COMPLETION_STATUS dc_rdma_read_at(struct dc_ctx *t, const char *file, int line,
					  const struct dc_endpoint *e,
					  const struct dc_lmr *m, DAT_VLEN off,
					  DAT_VLEN len, DAT_RMR_TRIPLET src,
					  uint64_t cookie);
#define dc_rdma_read(t, e, m, off, len, src, cookie)			\
	dc_rdma_read_at((t), __FILE__, __LINE__, (e), (m), (off), (len), (src), (cookie))

/* Set-up: Send m[off, off+len) from e and wait for its successful completion. */
void dc_send_sync_at(struct dc_ctx *t, const char *file, int line,
		     const struct dc_endpoint *e, const struct dc_lmr *m,
		     DAT_VLEN off, DAT_VLEN len, uint64_t cookie);
#define dc_send_sync(t, e, m, off, len, cookie)				\
	dc_send_sync_at((t), __FILE__, __LINE__, (e), (m), (off), (len), (cookie))
/* Set-up: the Receive with `cookie` completes successfully on e. */
DAT_DTO_COMPLETION_EVENT_DATA dc_await_recv_at(struct dc_ctx *t, const char *file,
					       int line, const struct dc_endpoint *e,
					       uint64_t cookie);
#define dc_await_recv(t, e, cookie) dc_await_recv_at((t), __FILE__, __LINE__, (e), (cookie))

/* Clause: the next event on evd is an RMR bind completion; returns its data. */
DAT_RMR_BIND_COMPLETION_EVENT_DATA dc_expect_bind_at(struct dc_ctx *t, const char *file,
						     int line, DAT_EVD_HANDLE evd);
#define DC_ASSERT_BIND_EVENT(evd) dc_expect_bind_at(t, __FILE__, __LINE__, (evd))

/*
 * Set-up: binds rmr over m[off, off+len) with priv through e's EP and waits
 * for the successful completion; returns the RMR context.  A provider that
 * answers DAT_MODEL_NOT_SUPPORTED (dat_rmr_bind lists it) makes the case
 * UNSUPPORTED.
 */
DAT_RMR_CONTEXT dc_bind_rmr_at(struct dc_ctx *t, const char *file, int line,
			       DAT_RMR_HANDLE rmr, const struct dc_lmr *m,
			       DAT_VLEN off, DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv,
			       const struct dc_endpoint *e, uint64_t cookie);
#define dc_bind_rmr(t, rmr, m, off, len, priv, e, cookie)		\
	dc_bind_rmr_at((t), __FILE__, __LINE__, (rmr), (m), (off), (len), (priv), \
		       (e), (cookie))

#endif /* DC_MEM_H */
