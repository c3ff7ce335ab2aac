// SPDX-License-Identifier: MIT
/*
 * LMR / RMR internals: registration rules, contexts, and the local and
 * remote access checks (bounds without overflow, PZ, privileges, freed
 * and retired contexts).
 */
#include "tp.h"

#include <sys/mman.h>
#include <unistd.h>

static struct ref_ia *ia;
static DAT_PZ_HANDLE pz1, pz2;

struct reg {
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN size;
	DAT_VADDR addr;
};

static DAT_RETURN reg_va(void *p, DAT_VLEN len, DAT_PZ_HANDLE pz,
			 DAT_MEM_PRIV_FLAGS priv, struct reg *r)
{
	DAT_REGION_DESCRIPTION rd;

	memset(r, 0, sizeof(*r));
	rd.for_va = p;
	return ref_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, len, pz, priv,
			      &r->lmr, &r->lctx, &r->rctx, &r->size, &r->addr);
}

static DAT_LMR_TRIPLET seg(DAT_LMR_CONTEXT ctx, DAT_VADDR va, DAT_VLEN len)
{
	DAT_LMR_TRIPLET t;

	memset(&t, 0, sizeof(t));
	t.lmr_context = ctx;
	t.virtual_address = va;
	t.segment_length = len;
	return t;
}

static DAT_RETURN local(DAT_PZ_HANDLE pz, DAT_LMR_TRIPLET t,
			DAT_MEM_PRIV_FLAGS need)
{
	void *ptr = (void *)1;
	DAT_RETURN rc;

	ref_ia_lock(ia);
	rc = ref_mem_check_local(ia, pz, &t, need, &ptr, NULL);
	ref_ia_unlock(ia);
	if (rc == DAT_SUCCESS && t.segment_length)
		CHECK(ptr == (void *)(uintptr_t)t.virtual_address);
	return rc;
}

static DAT_DTO_COMPLETION_STATUS remote(DAT_PZ_HANDLE pz, DAT_RMR_CONTEXT ctx,
					DAT_VADDR a, DAT_VLEN len,
					DAT_MEM_PRIV_FLAGS need)
{
	DAT_DTO_COMPLETION_STATUS st;
	void *ptr;

	ref_ia_lock(ia);
	st = ref_mem_check_remote_pz(ia, pz, ctx, a, len, need, &ptr);
	ref_ia_unlock(ia);
	return st;
}

static void test_create(void)
{
	static char buf[4096];
	struct reg r, r2;
	DAT_LMR_PARAM p;
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE h;
	DAT_LMR_CONTEXT lc;
	long pg = sysconf(_SC_PAGESIZE);
	char *m;

	CHECK_OK(reg_va(buf, sizeof(buf), pz1, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &r));
	CHECK(r.lctx != 0);
	CHECK(r.rctx == 0);		/* no remote privilege */
	CHECK(r.addr == (DAT_VADDR)(uintptr_t)buf);
	CHECK(r.size == sizeof(buf));
	CHECK_OK(reg_va(buf + 10, 100, pz1, DAT_MEM_PRIV_ALL_FLAG, &r2));
	CHECK(r2.rctx != 0 && r2.rctx != r2.lctx && r2.lctx != r.lctx);
	CHECK_OK(ref_lmr_query(r2.lmr, DAT_LMR_FIELD_ALL, &p));
	CHECK(p.ia_handle == (DAT_IA_HANDLE)ia);
	CHECK(p.mem_type == DAT_MEM_TYPE_VIRTUAL);
	CHECK(p.region_desc.for_va == buf + 10);
	CHECK(p.length == 100);
	CHECK(p.pz_handle == pz1);
	CHECK(p.mem_priv == DAT_MEM_PRIV_ALL_FLAG);
	CHECK(p.lmr_context == r2.lctx && p.rmr_context == r2.rctx);
	CHECK(p.registered_size == 100);
	CHECK(p.registered_address == (DAT_VADDR)(uintptr_t)(buf + 10));
	CHECK_RC_SUB(ref_lmr_query(r2.lmr, 0x400, &p), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_lmr_query(r2.lmr, DAT_LMR_FIELD_ALL, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	CHECK_OK(ref_lmr_free(r2.lmr));

	/* PZ in use */
	CHECK_RC_SUB(ref_pz_free(pz1), DAT_INVALID_STATE,
		     DAT_INVALID_STATE_PZ_IN_USE);

	/* parameters, in order */
	CHECK_RC_SUB(reg_va(NULL, 10, pz1, 0, &r2), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG3);
	CHECK_RC_SUB(reg_va(buf, 0, pz1, 0, &r2), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG4);
	CHECK_RC_SUB(reg_va(buf, UINT64_MAX, pz1, 0, &r2),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	CHECK_RC_SUB(reg_va(buf, 10, pz1, 0x4, &r2), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG6);
	CHECK_RC_SUB(reg_va(buf, 10, NULL, 0, &r2), DAT_INVALID_HANDLE,
		     DAT_INVALID_HANDLE_PZ);
	CHECK_RC_SUB(reg_va(buf, 10, r.lmr, 0, &r2), DAT_INVALID_HANDLE,
		     DAT_INVALID_HANDLE_PZ);
	rd.for_va = buf;
	CHECK_RC_SUB(ref_lmr_create(ia, (DAT_MEM_TYPE)7, rd, 10, pz1, 0, &h,
				    &lc, NULL, NULL, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 10, pz1, 0,
				    NULL, &lc, NULL, NULL, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	CHECK_RC_SUB(ref_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 10, pz1, 0,
				    &h, NULL, NULL, NULL, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
	/* optional results may be omitted */
	CHECK_OK(ref_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, 10, pz1, 0, &h,
				&lc, NULL, NULL, NULL));
	CHECK_OK(ref_lmr_free(h));

	/* unmapped and read-only memory */
	m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	munmap(m + pg, pg);
	CHECK_RC_SUB(reg_va(m, 3 * pg, pz1, 0, &r2), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG3);
	CHECK_OK(reg_va(m, pg, pz1, DAT_MEM_PRIV_ALL_FLAG, &r2));
	CHECK_OK(ref_lmr_free(r2.lmr));
	mprotect(m + 2 * pg, pg, PROT_READ);
	CHECK_RC_SUB(reg_va(m + 2 * pg, pg, pz1, DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
			    &r2), DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	CHECK_OK(reg_va(m + 2 * pg, pg, pz1, DAT_MEM_PRIV_READ_FLAG, &r2));
	CHECK_OK(ref_lmr_free(r2.lmr));
	munmap(m, pg);
	munmap(m + 2 * pg, pg);

	CHECK_OK(ref_lmr_free(r.lmr));
	CHECK_RC(ref_lmr_free(r.lmr), DAT_INVALID_HANDLE);
}

static void test_shared_and_lmr(void)
{
	static char priv_buf[256];
	char cookie[DAT_LMR_COOKIE_SIZE];
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE h, h2;
	DAT_LMR_CONTEXT lc, lc2;
	DAT_RMR_CONTEXT rc2;
	DAT_VLEN sz;
	DAT_VADDR va;
	DAT_LMR_PARAM p;
	char *shm;

	memset(cookie, 0, sizeof(cookie));	/* NULs inside: not a string */
	cookie[39] = 'x';
	shm = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED);
	rd.for_shared_memory.virtual_address = shm;
	rd.for_shared_memory.shared_memory_id = &cookie;
	CHECK_OK(ref_lmr_create(ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, 8192, pz1,
				DAT_MEM_PRIV_ALL_FLAG, &h, &lc, NULL, &sz,
				&va));
	CHECK(sz == 8192 && va == (DAT_VADDR)(uintptr_t)shm);
	CHECK(!memcmp(((struct ref_lmr *)h)->shared_id, cookie, 40));
	CHECK_OK(ref_lmr_query(h, DAT_LMR_FIELD_MEM_TYPE, &p));
	CHECK(p.mem_type == DAT_MEM_TYPE_SHARED_VIRTUAL);
	/* private memory is not shared memory */
	rd.for_shared_memory.virtual_address = priv_buf;
	CHECK_RC(ref_lmr_create(ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, 256, pz1,
				0, &h2, &lc2, NULL, NULL, NULL),
		 DAT_INVALID_STATE);
	rd.for_shared_memory.virtual_address = shm;
	rd.for_shared_memory.shared_memory_id = NULL;
	CHECK_RC_SUB(ref_lmr_create(ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, 256,
				    pz1, 0, &h2, &lc2, NULL, NULL, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	/* an LMR over an LMR: same range, own PZ and privileges */
	rd.for_lmr_handle = h;
	CHECK_OK(ref_lmr_create(ia, DAT_MEM_TYPE_LMR, rd, 12345, pz2,
				DAT_MEM_PRIV_LOCAL_READ_FLAG, &h2, &lc2, &rc2,
				&sz, &va));
	CHECK(sz == 8192 && va == (DAT_VADDR)(uintptr_t)shm);
	CHECK(rc2 == 0 && lc2 != lc);
	CHECK_OK(local(pz2, seg(lc2, va, 10), DAT_MEM_PRIV_LOCAL_READ_FLAG));
	CHECK_RC(local(pz2, seg(lc2, va, 10), DAT_MEM_PRIV_LOCAL_WRITE_FLAG),
		 DAT_PRIVILEGES_VIOLATION);
	CHECK_RC(local(pz1, seg(lc2, va, 10), DAT_MEM_PRIV_LOCAL_READ_FLAG),
		 DAT_PROTECTION_VIOLATION);
	rd.for_lmr_handle = pz1;
	CHECK_RC_SUB(ref_lmr_create(ia, DAT_MEM_TYPE_LMR, rd, 0, pz2, 0, &h2,
				    &lc2, NULL, NULL, NULL),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	/* the original can go; the derived one stands alone */
	CHECK_OK(ref_lmr_free(h));
	CHECK_OK(local(pz2, seg(lc2, va + 100, 10),
		       DAT_MEM_PRIV_LOCAL_READ_FLAG));
	CHECK_OK(ref_lmr_free(h2));
	munmap(shm, 8192);
}

static void test_local_checks(void)
{
	static char buf[1000];
	DAT_VADDR b = (DAT_VADDR)(uintptr_t)buf;
	struct reg r, ro;
	DAT_LMR_CONTEXT freed;

	CHECK_OK(reg_va(buf, sizeof(buf), pz1, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &r));
	CHECK_OK(reg_va(buf, 500, pz1, DAT_MEM_PRIV_LOCAL_READ_FLAG, &ro));
	/* zero length: always fine, nothing else looked at */
	CHECK_OK(local(pz2, seg(12345, 0, 0), DAT_MEM_PRIV_LOCAL_READ_FLAG));
	/* bounds */
	CHECK_OK(local(pz1, seg(r.lctx, b, 1000),
		       DAT_MEM_PRIV_LOCAL_WRITE_FLAG));
	CHECK_OK(local(pz1, seg(r.lctx, b + 999, 1),
		       DAT_MEM_PRIV_LOCAL_WRITE_FLAG));
	CHECK_RC_SUB(local(pz1, seg(r.lctx, b + 999, 2),
			   DAT_MEM_PRIV_LOCAL_READ_FLAG),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	CHECK_RC(local(pz1, seg(r.lctx, b - 1, 2),
		       DAT_MEM_PRIV_LOCAL_READ_FLAG), DAT_INVALID_PARAMETER);
	CHECK_RC(local(pz1, seg(r.lctx, b + 1, UINT64_MAX),
		       DAT_MEM_PRIV_LOCAL_READ_FLAG), DAT_INVALID_PARAMETER);
	CHECK_RC(local(pz1, seg(r.lctx, UINT64_MAX - 1, 4),
		       DAT_MEM_PRIV_LOCAL_READ_FLAG), DAT_INVALID_PARAMETER);
	CHECK_RC(local(pz1, seg(r.lctx, b + 1001, UINT64_MAX - b),
		       DAT_MEM_PRIV_LOCAL_READ_FLAG), DAT_INVALID_PARAMETER);
	/* PZ, privileges */
	CHECK_RC_SUB(local(pz2, seg(r.lctx, b, 10),
			   DAT_MEM_PRIV_LOCAL_WRITE_FLAG),
		     DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE);
	CHECK_RC_SUB(local(pz1, seg(ro.lctx, b, 10),
			   DAT_MEM_PRIV_LOCAL_WRITE_FLAG),
		     DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE);
	CHECK_OK(local(pz1, seg(ro.lctx, b, 10), DAT_MEM_PRIV_LOCAL_READ_FLAG));
	/* never-issued context: invalid LMR = privileges violation */
	CHECK_RC_SUB(local(pz1, seg(r.lctx ^ 0x5a5a5a5a, b, 10),
			   DAT_MEM_PRIV_LOCAL_READ_FLAG),
		     DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_READ);
	CHECK_RC(local(pz1, seg(0, b, 10), DAT_MEM_PRIV_LOCAL_READ_FLAG),
		 DAT_PRIVILEGES_VIOLATION);
	/* freed LMR: protection violation (dat_lmr_free) */
	freed = ro.lctx;
	CHECK_OK(ref_lmr_free(ro.lmr));
	CHECK_RC_SUB(local(pz1, seg(freed, b, 10),
			   DAT_MEM_PRIV_LOCAL_READ_FLAG),
		     DAT_PROTECTION_VIOLATION, DAT_PROTECTION_READ);
	CHECK_OK(ref_lmr_free(r.lmr));
}

static void test_remote_checks(void)
{
	static char buf[1000];
	DAT_VADDR b = (DAT_VADDR)(uintptr_t)buf;
	struct reg r, rw;
	DAT_RMR_HANDLE rmr_h;
	struct ref_rmr *rmr;
	DAT_RMR_PARAM rp;
	DAT_RMR_CONTEXT ctx, old;

	CHECK_OK(reg_va(buf, sizeof(buf), pz1, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_REMOTE_READ_FLAG, &r));
	CHECK(r.rctx != 0);
	CHECK(remote(pz1, r.rctx, b, 1000, DAT_MEM_PRIV_REMOTE_READ_FLAG) ==
	      DAT_DTO_SUCCESS);
	CHECK(remote(pz1, r.rctx, b, 1000, DAT_MEM_PRIV_REMOTE_WRITE_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK(remote(pz2, r.rctx, b, 10, DAT_MEM_PRIV_REMOTE_READ_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK(remote(pz1, r.rctx, b + 1, 1000, DAT_MEM_PRIV_REMOTE_READ_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK(remote(pz1, r.rctx, b + 2, UINT64_MAX,
		     DAT_MEM_PRIV_REMOTE_READ_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK(remote(pz1, r.lctx, b, 10, DAT_MEM_PRIV_REMOTE_READ_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);	/* an lmr_context is not one */
	CHECK(remote(pz1, r.rctx, b, 0, DAT_MEM_PRIV_REMOTE_WRITE_FLAG) ==
	      DAT_DTO_SUCCESS);

	/* an RMR window (bound by hand; dat_rmr_bind needs an EP) */
	CHECK_OK(reg_va(buf, sizeof(buf), pz1, DAT_MEM_PRIV_LOCAL_READ_FLAG |
			DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &rw));
	CHECK_OK(ref_rmr_create(pz1, &rmr_h));
	CHECK_OK(ref_rmr_query(rmr_h, DAT_RMR_FIELD_ALL, &rp));
	CHECK(rp.pz_handle == pz1 && rp.rmr_context == 0);
	rmr = rmr_h;
	ref_ia_lock(ia);
	ctx = ref_ctx_new(ia, REF_CTX_RMR, rmr);
	rmr->bound = true;
	rmr->lmr = rw.lmr;
	((struct ref_lmr *)rw.lmr)->users++;
	rmr->triplet = seg(rw.lctx, b + 100, 200);
	rmr->priv = DAT_MEM_PRIV_REMOTE_WRITE_FLAG;
	rmr->rmr_context = ctx;
	ref_ia_unlock(ia);
	CHECK(remote(pz1, ctx, b + 100, 200, DAT_MEM_PRIV_REMOTE_WRITE_FLAG) ==
	      DAT_DTO_SUCCESS);
	CHECK(remote(pz1, ctx, b + 99, 2, DAT_MEM_PRIV_REMOTE_WRITE_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK(remote(pz1, ctx, b + 299, 2, DAT_MEM_PRIV_REMOTE_WRITE_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK(remote(pz1, ctx, b + 100, 1, DAT_MEM_PRIV_REMOTE_READ_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK(remote(pz2, ctx, b + 100, 1, DAT_MEM_PRIV_REMOTE_WRITE_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK_OK(ref_rmr_query(rmr_h, DAT_RMR_FIELD_ALL, &rp));
	CHECK(rp.rmr_context == ctx && rp.lmr_triplet.segment_length == 200);
	/* the LMR is in use while the window is bound */
	CHECK_RC_SUB(ref_lmr_free(rw.lmr), DAT_INVALID_STATE,
		     DAT_INVALID_STATE_LMR_IN_USE);
	/* dat_rmr_free unbinds: the context stops working */
	old = ctx;
	CHECK_OK(ref_rmr_free(rmr_h));
	CHECK(remote(pz1, old, b + 100, 1, DAT_MEM_PRIV_REMOTE_WRITE_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK_OK(ref_lmr_free(rw.lmr));
	/* freed LMR: its rmr_context stops working */
	old = r.rctx;
	CHECK_OK(ref_lmr_free(r.lmr));
	CHECK(remote(pz1, old, b, 10, DAT_MEM_PRIV_REMOTE_READ_FLAG) ==
	      DAT_DTO_ERR_REMOTE_ACCESS);
	CHECK_RC(ref_rmr_create(pz1, NULL), DAT_INVALID_PARAMETER);
	CHECK_RC_SUB(ref_rmr_create(ia, &rmr_h), DAT_INVALID_HANDLE,
		     DAT_INVALID_HANDLE_PZ);
}

static void test_sync(void)
{
	static char buf[100];
	DAT_VADDR b = (DAT_VADDR)(uintptr_t)buf;
	DAT_LMR_TRIPLET t[3];
	struct reg r, r2;

	CHECK_OK(reg_va(buf, 100, pz1, 0, &r));
	CHECK_OK(reg_va(buf, 50, pz2, 0, &r2));
	t[0] = seg(r.lctx, b, 100);
	t[1] = seg(r2.lctx, b + 10, 40);	/* other LMR, other PZ: fine */
	t[2] = seg(999, 0, 0);
	CHECK_OK(ref_lmr_sync_rdma_read(ia, t, 3));
	CHECK_OK(ref_lmr_sync_rdma_write(ia, t, 3));
	CHECK_OK(ref_lmr_sync_rdma_write(ia, t, 0));
	t[1] = seg(r2.lctx, b + 10, 41);
	CHECK_RC_SUB(ref_lmr_sync_rdma_read(ia, t, 3), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	t[1] = seg(r2.lctx ^ 1, b + 10, 1);
	CHECK_RC(ref_lmr_sync_rdma_write(ia, t, 2), DAT_INVALID_PARAMETER);
	CHECK_RC(ref_lmr_sync_rdma_write(ia, NULL, 2), DAT_INVALID_PARAMETER);
	CHECK_RC(ref_lmr_sync_rdma_write(pz1, t, 1), DAT_INVALID_HANDLE);
	CHECK_OK(ref_lmr_free(r.lmr));
	CHECK_OK(ref_lmr_free(r2.lmr));
}

static void test_contexts(void)
{
	enum { N = 2000 };
	static uint32_t c[N];
	int i, j, issued = 0;
	static int dummy;

	ref_ia_lock(ia);
	for (i = 0; i < N; i++) {
		c[i] = ref_ctx_new(ia, REF_CTX_LMR, &dummy);
		CHECK(c[i] != 0);
		CHECK(ref_ctx_issued(ia, c[i], REF_CTX_LMR));
		CHECK(!ref_ctx_issued(ia, c[i], REF_CTX_RMR));
		CHECK(ref_ctx_find(ia, c[i], REF_CTX_LMR) == &dummy);
	}
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++)
			if (c[i] == c[j])
				CHECK(!"duplicate context");
	/* neighbours of issued contexts are mostly not issued */
	for (i = 0; i < N; i++)
		issued += ref_ctx_issued(ia, c[i] + 1, REF_CTX_LMR);
	CHECK(issued < N / 100);
	for (i = 0; i < N; i++) {
		ref_ctx_remove(ia, c[i]);
		CHECK(ref_ctx_find(ia, c[i], REF_CTX_LMR) == NULL);
		CHECK(ref_ctx_issued(ia, c[i], REF_CTX_LMR));
	}
	ref_ia_unlock(ia);
}

int main(void)
{
	DAT_PZ_PARAM pp;

	ia = tp_open(NULL);
	CHECK_OK(ref_pz_create(ia, &pz1));
	CHECK_OK(ref_pz_create(ia, &pz2));
	CHECK_RC_SUB(ref_pz_create(ia, NULL), DAT_INVALID_PARAMETER,
		     DAT_INVALID_ARG2);
	CHECK_OK(ref_pz_query(pz1, DAT_PZ_FIELD_ALL, &pp));
	CHECK(pp.ia_handle == (DAT_IA_HANDLE)ia);
	CHECK_RC(ref_pz_query(pz1, 2, &pp), DAT_INVALID_PARAMETER);
	test_create();
	test_shared_and_lmr();
	test_local_checks();
	test_remote_checks();
	test_sync();
	test_contexts();
	CHECK_OK(ref_pz_free(pz1));
	CHECK_OK(ref_pz_free(pz2));
	CHECK_RC(ref_pz_free(pz2), DAT_INVALID_HANDLE);
	CHECK_OK(ref_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	return tp_done("provider.mem");
}
