/* SPDX-License-Identifier: MIT */
/*
 * sync_common.h - the cases dat_lmr_sync_rdma_read(3DAT) and
 * dat_lmr_sync_rdma_write(3DAT) share word for word (batching, invalid IA,
 * segments outside their LMR, invalid LMRs), generated for each page by
 * SYNC_COMMON_CASES(page).  The page's own function is `page` itself.
 */
#ifndef SYNC_COMMON_H
#define SYNC_COMMON_H

#include "mem_common.h"

#define SYNC_COMMON_CASES(page)						\
DC_CASE(page, batch_segments,						\
	.summary = "one call covers segments of three LMRs in two PZs and a zero-length one") \
{									\
	DAT_PZ_HANDLE pz1 = dc_pz(t), pz2 = dc_pz(t);			\
	struct dc_lmr a, b, c;						\
	DAT_LMR_TRIPLET iov[4];						\
									\
	dc_lmr(t, pz1, BUF, DAT_MEM_PRIV_ALL_FLAG, &a);				\
	dc_lmr(t, pz1, BUF, DAT_MEM_PRIV_ALL_FLAG, &b);				\
	dc_lmr(t, pz2, BUF, DAT_MEM_PRIV_ALL_FLAG, &c);				\
	iov[0] = dc_iov(&a, 0, 100);					\
	iov[1] = dc_iov(&b, 1000, 2000);				\
	iov[2] = dc_iov(&c, 0, BUF);					\
	iov[3] = dc_lmr_triplet(0, 0, 0);					\
	DC_ASSERT_SUCCESS(page(t->ia, iov, 4));				\
}									\
									\
DC_CASE(page, invalid_handle,						\
	.summary = "NULL, a PZ handle and a closed IA give DAT_INVALID_HANDLE") \
{									\
	DAT_PZ_HANDLE pz = dc_pz(t);					\
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;				\
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;				\
	struct dc_lmr m;						\
	DAT_LMR_TRIPLET iov;						\
									\
	dc_lmr(t, pz, BUF, DAT_MEM_PRIV_ALL_FLAG, &m);				\
	iov = dc_iov(&m, 0, 64);					\
	DC_ASSERT_INVALID_HANDLE(page(DAT_HANDLE_NULL, &iov, 1), 1, IA); \
	DC_ASSERT_INVALID_HANDLE(page((DAT_IA_HANDLE)pz, &iov, 1), 1, IA); \
	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &async, &ia2)); \
	DC_SETUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));		\
	DC_ASSERT_INVALID_HANDLE(page(ia2, &iov, 1), 1, IA);		\
}									\
									\
DC_CASE(page, segment_outside_lmr,					\
	.summary = "segments starting before, ending past, or wrapping around their LMR give DAT_INVALID_PARAMETER") \
{									\
	struct dc_lmr m;						\
	DAT_LMR_TRIPLET iov;						\
	DAT_VADDR base;							\
									\
	dc_lmr(t, dc_pz(t), 2 * BUF, DAT_MEM_PRIV_ALL_FLAG, &m);			\
	base = m.registered_address;					\
	iov = dc_lmr_triplet(m.lmr_context, base - 64, 128);			\
	DC_ASSERT_RET(page(t->ia, &iov, 1), DAT_INVALID_PARAMETER);	\
	iov = dc_lmr_triplet(m.lmr_context, base + m.registered_length - 64, 128); \
	DC_ASSERT_RET(page(t->ia, &iov, 1), DAT_INVALID_PARAMETER);	\
	iov = dc_lmr_triplet(m.lmr_context, base + 64, ~(DAT_VLEN)0 - 32);	\
	DC_ASSERT_RET(page(t->ia, &iov, 1), DAT_INVALID_PARAMETER);	\
	/* and a good segment next to a bad one still fails the call */	\
	{								\
		DAT_LMR_TRIPLET two[2] = { dc_iov(&m, 0, 64),		\
			dc_lmr_triplet(m.lmr_context, base + m.registered_length, 1) }; \
		DC_ASSERT_RET(page(t->ia, two, 2), DAT_INVALID_PARAMETER); \
	}								\
}									\
									\
DC_CASE(page, invalid_lmr,						\
	.summary = "the context of a freed LMR and of another IA's LMR give DAT_INVALID_PARAMETER") \
{									\
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;				\
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;				\
	DAT_PZ_HANDLE pz2 = DAT_HANDLE_NULL;				\
	DAT_REGION_DESCRIPTION rd;					\
	DAT_LMR_HANDLE l2;						\
	DAT_LMR_CONTEXT c2 = 0;						\
	DAT_RMR_CONTEXT r2;						\
	DAT_VLEN sz;							\
	DAT_VADDR va;							\
	struct dc_lmr m;						\
	DAT_LMR_TRIPLET iov;						\
									\
	dc_lmr(t, dc_pz(t), BUF, DAT_MEM_PRIV_ALL_FLAG, &m);			\
	iov = dc_iov(&m, 0, 64);					\
	DC_SETUP(dat_lmr_free(m.lmr));					\
	DC_ASSERT_RET(page(t->ia, &iov, 1), DAT_INVALID_PARAMETER);	\
	/* an LMR of another instance, over memory of this process */	\
	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &async, &ia2)); \
	DC_SETUP(dat_pz_create(ia2, &pz2));				\
	memset(&rd, 0, sizeof(rd));					\
	rd.for_va = m.buf;						\
	DC_SETUP(dc_dat_lmr_create(ia2, DAT_MEM_TYPE_VIRTUAL, rd, BUF, pz2, DAT_MEM_PRIV_ALL_FLAG, \
				&l2, &c2, &r2, &sz, &va));		\
	iov = dc_lmr_triplet(c2, va, 64);					\
	if (c2 == m.lmr_context) {					\
		dc_note(t, "the other IA issued the same context value; checked the freed one only"); \
	} else {							\
		DC_ASSERT_RET(page(t->ia, &iov, 1), DAT_INVALID_PARAMETER); \
	}								\
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));		\
}

#endif /* SYNC_COMMON_H */
