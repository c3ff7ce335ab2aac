// SPDX-License-Identifier: MIT
/*
 * lmr.c - Local Memory Regions (dat_lmr_create / query / free /
 * sync_rdma_read / sync_rdma_write), the LMR/RMR context generator, and
 * the memory access checks every DTO goes through.
 *
 * Contexts: each IA numbers the contexts it issues (1, 2, 3, ...), puts
 * the kind (LMR context, LMR rmr_context, RMR binding) in the two low
 * bits and scrambles the result with a keyed 32-bit permutation (a
 * four-round Feistel network, key from getrandom).  Contexts are unique
 * per IA, not guessable from each other, never 0, and the IA can tell
 * "was issued and is gone" (freed LMR, retired RMR binding) from "never
 * issued" without remembering anything.
 */
#include "ref.h"
#include "conn.h"
#include "refmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#define LMR_HANDLE_SUB DAT_INVALID_HANDLE_LMR
#define REF_CTX_MAX_SEQ ((UINT32_C(1) << 30) - 1)

/* ---- contexts ----------------------------------------------------------------- */

static uint16_t feistel_f(uint16_t half, uint64_t key)
{
	uint64_t x = (half ^ key) * UINT64_C(0x9e3779b97f4a7c15);

	x ^= x >> 29;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	return (uint16_t)(x >> 48);
}

static uint32_t ctx_perm(const uint64_t key[4], uint32_t v)
{
	uint16_t l = (uint16_t)(v >> 16), r = (uint16_t)v, t;
	int i;

	for (i = 0; i < 4; i++) {
		t = l ^ feistel_f(r, key[i]);
		l = r;
		r = t;
	}
	return ((uint32_t)l << 16) | r;
}

static uint32_t ctx_unperm(const uint64_t key[4], uint32_t v)
{
	uint16_t l = (uint16_t)(v >> 16), r = (uint16_t)v, t;
	int i;

	for (i = 3; i >= 0; i--) {
		t = r ^ feistel_f(l, key[i]);
		r = l;
		l = t;
	}
	return ((uint32_t)l << 16) | r;
}

void ref_ctx_init(struct ref_ia *ia)
{
	struct ref_map *m = calloc(1, sizeof(*m));

	if (getrandom(ia->ctx_key, sizeof(ia->ctx_key), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(ia->ctx_key)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ia->ctx_key[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u;
		ia->ctx_key[1] = (uint64_t)(uintptr_t)ia ^ (uint64_t)ts.tv_sec;
		ia->ctx_key[2] = ia->ctx_key[0] ^ (ia->ctx_key[1] << 17);
		ia->ctx_key[3] = ia->ctx_key[1] * 0xbf58476d1ce4e5b9u;
	}
	if (m)
		ref_map_init(m);
	ia->ctx_map = m;
	ia->ctx_next = 0;
}

void ref_ctx_fini(struct ref_ia *ia)
{
	struct ref_map *m = ia->ctx_map;

	if (m) {
		ref_map_fini(m);
		free(m);
	}
	ia->ctx_map = NULL;
}

static uint32_t ctx_issue(struct ref_ia *ia, enum ref_ctx_kind kind)
{
	uint32_t ctx;

	do {
		if (ia->ctx_next >= REF_CTX_MAX_SEQ)
			return 0;	/* 2^30 contexts: exhausted */
		ia->ctx_next++;
		ctx = ctx_perm(ia->ctx_key, (ia->ctx_next << 2) | kind);
	} while (!ctx);
	return ctx;
}

/*
 * The map's value is the object with the context's kind in its two low
 * bits (objects are malloc'ed, so aligned): a lookup that hits needs no
 * ctx_unperm to know the kind, and a context that was never issued is not
 * in the map.
 */
static void *ctx_tag(void *obj, enum ref_ctx_kind kind)
{
	return (void *)((uintptr_t)obj | (uintptr_t)kind);
}

bool ref_ctx_put(struct ref_ia *ia, uint32_t ctx, enum ref_ctx_kind kind,
		 void *obj)
{
	return ia->ctx_map && ref_map_put(ia->ctx_map, ctx, ctx_tag(obj, kind));
}

uint32_t ref_ctx_new(struct ref_ia *ia, enum ref_ctx_kind kind, void *obj)
{
	uint32_t ctx;

	if (!ia->ctx_map)
		return 0;
	ctx = ctx_issue(ia, kind);
	if (ctx && !ref_ctx_put(ia, ctx, kind, obj))
		return 0;
	return ctx;
}

uint32_t ref_ctx_new_dead(struct ref_ia *ia, enum ref_ctx_kind kind)
{
	return ctx_issue(ia, kind);
}

void ref_ctx_remove(struct ref_ia *ia, uint32_t ctx)
{
	if (ctx && ia->ctx_map)
		ref_map_del(ia->ctx_map, ctx);
}

bool ref_ctx_issued(struct ref_ia *ia, uint32_t ctx, enum ref_ctx_kind kind)
{
	uint32_t v;

	if (!ctx)
		return false;
	v = ctx_unperm(ia->ctx_key, ctx);
	return (v & 3) == (uint32_t)kind && (v >> 2) >= 1 &&
	       (v >> 2) <= ia->ctx_next;
}

void *ref_ctx_find(struct ref_ia *ia, uint32_t ctx, enum ref_ctx_kind kind)
{
	uintptr_t v;

	if (!ctx || !ia->ctx_map)
		return NULL;
	v = (uintptr_t)ref_map_get(ia->ctx_map, ctx);
	if ((v & 3) != (uintptr_t)kind)
		return NULL;
	return (void *)(v & ~(uintptr_t)3);
}

/* ---- range helpers ------------------------------------------------------------ */

/* [addr, addr+len) inside [base, base+size), without overflow. */
static bool range_inside(DAT_VADDR addr, DAT_VLEN len, DAT_VADDR base,
			 DAT_VLEN size)
{
	return addr >= base && len <= size && addr - base <= size - len;
}

/*
 * What /proc/self/maps says about [start, start+len): all of it mapped,
 * and whether all of it is readable, writable, shared.  Returns false
 * when the map cannot be read (then nothing is known).
 */
struct map_info {
	bool covered, readable, writable, shared;
};

static bool map_lookup(uintptr_t start, uint64_t len, struct map_info *mi)
{
	uintptr_t cursor = start, end = start + (uintptr_t)len;
	char line[512];
	FILE *f;

	mi->covered = false;
	mi->readable = mi->writable = mi->shared = true;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	while (cursor < end && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[5];

		if (!strchr(line, '\n')) {	/* long path: skip its tail */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3)
			continue;
		if (hi <= cursor)
			continue;
		if (lo > cursor)
			break;		/* a hole */
		mi->readable &= perms[0] == 'r';
		mi->writable &= perms[1] == 'w';
		mi->shared &= perms[3] == 's';
		cursor = hi;
	}
	fclose(f);
	mi->covered = cursor >= end;
	return true;
}

/* ---- objects ------------------------------------------------------------------- */

static struct ref_lmr *to_lmr(struct ref_obj *obj)
{
	return ref_container_of(obj, struct ref_lmr, obj);
}

static void lmr_release(struct ref_lmr *lmr)
{
	struct ref_ia *ia = lmr->obj.ia;

	ref_ctx_remove(ia, lmr->lmr_context);
	if (lmr->tp_mem)	/* rmr_context is the transport's rkey */
		ref_conn_mem_dereg(ia, lmr->tp_mem);
	else
		ref_ctx_remove(ia, lmr->rmr_context);
	ref_obj_unregister(&lmr->obj);
	ref_obj_free(lmr);
}

static void lmr_destroy(struct ref_obj *obj)
{
	lmr_release(to_lmr(obj));
}

#define REF_REMOTE_PRIV (DAT_MEM_PRIV_REMOTE_READ_FLAG | \
			 DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
#define REF_WRITE_PRIV (DAT_MEM_PRIV_LOCAL_WRITE_FLAG | \
			DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/*
 * dat_lmr_create.3dat (order: handles, then parameters, then state).
 *  - DAT_MEM_TYPE_VIRTUAL: for_va, length > 0; the whole range must be
 *    mapped and readable (INVALID_PARAMETER, ARG3), and writable when a
 *    write privilege is asked (INVALID_PARAMETER, ARG6).
 *  - DAT_MEM_TYPE_LMR: for_lmr_handle, an LMR of the same IA; length is
 *    ignored; the new LMR covers the same registered range with its own
 *    PZ and privileges and does not depend on the original afterwards.
 *  - DAT_MEM_TYPE_SHARED_VIRTUAL: virtual_address + a 40-byte cookie
 *    (compared as bytes, never as a string); the range must be a shared
 *    mapping, else DAT_INVALID_STATE.
 * Registers exactly [address, address+length): registered_address and
 * registered_size report that.  rmr_context is 0 unless a remote
 * privilege is asked.  The rmr_context, registered_size and
 * registered_address result pointers may be NULL (not asked).
 */
DAT_RETURN ref_lmr_create(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE type,
			  DAT_REGION_DESCRIPTION region, DAT_VLEN length,
			  DAT_PZ_HANDLE pz_handle, DAT_MEM_PRIV_FLAGS priv,
			  DAT_LMR_HANDLE *lmr_handle,
			  DAT_LMR_CONTEXT *lmr_context,
			  DAT_RMR_CONTEXT *rmr_context,
			  DAT_VLEN *registered_size,
			  DAT_VADDR *registered_address)
{
	struct ref_obj *obj, *o;
	struct ref_ia *ia;
	struct ref_pz *pz;
	struct ref_lmr *orig = NULL, *lmr;
	DAT_VADDR addr = 0;
	DAT_VLEN size = 0;
	struct map_info mi;
	DAT_RETURN rc;

	/* in and out again (it yields inside, so callers meet) */
	rc = ref_obj_acquire(ia_handle, DAT_HANDLE_TYPE_IA,
			     DAT_INVALID_HANDLE_IA, &obj);
	if (rc)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);

	/* handles */
	rc = ref_obj_lookup(pz_handle, DAT_HANDLE_TYPE_PZ, &o);
	if (!rc && o->ia != ia)
		rc = REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (rc)
		goto out;
	pz = ref_container_of(o, struct ref_pz, obj);
	if (type == DAT_MEM_TYPE_LMR) {
		rc = ref_obj_lookup(region.for_lmr_handle, DAT_HANDLE_TYPE_LMR,
				    &o);
		if (!rc && o->ia != ia)
			rc = REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
		if (rc)
			goto out;
		orig = to_lmr(o);
	}

	/* parameters */
	rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	switch (type) {
	case DAT_MEM_TYPE_VIRTUAL:
		if (!region.for_va)
			goto out;
		addr = (DAT_VADDR)(uintptr_t)region.for_va;
		size = length;
		break;
	case DAT_MEM_TYPE_SHARED_VIRTUAL:
		if (!region.for_shared_memory.virtual_address ||
		    !region.for_shared_memory.shared_memory_id)
			goto out;
		addr = (DAT_VADDR)(uintptr_t)
			region.for_shared_memory.virtual_address;
		size = length;
		break;
	case DAT_MEM_TYPE_LMR:
		addr = orig->registered_address;
		size = orig->registered_size;
		break;
	default:
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (size == 0 || size > (DAT_VLEN)UINTPTR_MAX - addr)
		goto out;
	rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (((unsigned int)priv & ~(unsigned int)DAT_MEM_PRIV_ALL_FLAG))
		goto out;
	if (!lmr_handle) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
		goto out;
	}
	if (!lmr_context) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG8);
		goto out;
	}
	if (map_lookup((uintptr_t)addr, size, &mi)) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		if (!mi.covered || !mi.readable)
			goto out;
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
		if ((priv & REF_WRITE_PRIV) && !mi.writable)
			goto out;
		/* state: the platform did not make it shared memory */
		rc = REF_ERR(DAT_INVALID_STATE, 0);
		if (type == DAT_MEM_TYPE_SHARED_VIRTUAL && !mi.shared)
			goto out;
	}

	/* resources */
	rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY_REGION);
	if (ia->count[DAT_HANDLE_TYPE_LMR] >=
	    ref_profile.max_lmrs - ref_profile.lmrs_taken_elsewhere) {
		goto out;
	}
	lmr = ref_obj_alloc(sizeof(*lmr));
	if (!lmr) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	lmr->pz = pz;
	lmr->mem_type = type;
	lmr->region = region;
	if (type == DAT_MEM_TYPE_SHARED_VIRTUAL) {
		memcpy(lmr->shared_id,
		       *region.for_shared_memory.shared_memory_id,
		       DAT_LMR_COOKIE_SIZE);
	}
	lmr->length = size;
	lmr->priv = priv;
	lmr->registered_address = addr;
	lmr->registered_size = size;
	if (ref_profile.lmr_page_registration) {
		/* profile: whole 4 KiB pages around the region */
		DAT_VADDR lo = addr & ~(DAT_VADDR)4095;
		DAT_VADDR hi = (addr + size + 4095) & ~(DAT_VADDR)4095;

		lmr->registered_address = lo;
		lmr->registered_size = (DAT_VLEN)(hi - lo);
	}
	{
		/* a hardware transport registers the memory: its rkey is
		 * the rmr_context (docs/verbs.md) */
		uint32_t rkey = 0;
		DAT_RETURN mrc = ref_conn_mem_reg(ia, pz, addr, size, priv,
						  &lmr->tp_mem, &rkey);

		if (mrc) {
			ref_obj_free(lmr);
			rc = mrc;
			goto out;
		}
		if (lmr->tp_mem && (priv & REF_REMOTE_PRIV))
			lmr->rmr_context = rkey;
	}
	lmr->lmr_context = ref_ctx_new(ia, REF_CTX_LMR, lmr);
	if ((priv & REF_REMOTE_PRIV) &&
	    !lmr->tp_mem)
		lmr->rmr_context = ref_ctx_new(ia, REF_CTX_LMR_RMR, lmr);
	lmr->obj.destroy = lmr_destroy;
	if (!lmr->lmr_context || ((priv & REF_REMOTE_PRIV) &&
				  !lmr->rmr_context)) {
		ref_ctx_remove(ia, lmr->lmr_context);
		if (lmr->tp_mem)
			ref_conn_mem_dereg(ia, lmr->tp_mem);
		else
			ref_ctx_remove(ia, lmr->rmr_context);
		ref_obj_free(lmr);
		goto out;	/* INSUFFICIENT_RESOURCES */
	}
	ref_obj_register(&lmr->obj, DAT_HANDLE_TYPE_LMR, ia);
	pz->users++;
	*lmr_handle = (DAT_LMR_HANDLE)lmr;
	*lmr_context = lmr->lmr_context;
	if (rmr_context)
		*rmr_context = lmr->rmr_context;
	if (registered_size)
		*registered_size = lmr->registered_size;
	if (registered_address)
		*registered_address = lmr->registered_address;
	rc = DAT_SUCCESS;
out:
	ref_obj_release(obj);
	return rc;
}

/* dat_lmr_query.3dat: the whole DAT_LMR_PARAM is filled. */
DAT_RETURN ref_lmr_query(DAT_LMR_HANDLE lmr_handle, DAT_LMR_PARAM_MASK mask,
			 DAT_LMR_PARAM *param)
{
	DAT_LMR_PARAM full, *out = NULL;
	struct ref_obj *obj;
	struct ref_lmr *lmr;
	DAT_RETURN rc;

	rc = ref_obj_acquire(lmr_handle, DAT_HANDLE_TYPE_LMR, LMR_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	lmr = to_lmr(obj);
	if (((unsigned int)mask & ~(unsigned int)DAT_LMR_FIELD_ALL))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!param)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!rc && ref_query_masked()) {
		out = param;
		param = &full;
	}
	if (!rc) {
		memset(param, 0, sizeof(*param));
		param->ia_handle = (DAT_IA_HANDLE)obj->ia;
		param->mem_type = lmr->mem_type;
		param->region_desc = lmr->region;
		param->length = lmr->length;
		param->pz_handle = (DAT_PZ_HANDLE)lmr->pz;
		param->mem_priv = lmr->priv;
		param->lmr_context = lmr->lmr_context;
		param->rmr_context = lmr->rmr_context;
		param->registered_size = lmr->registered_size;
		param->registered_address = lmr->registered_address;
		if (out)
			ref_profile_masked_copy(REF_Q_LMR, out, param, mask);
	}
	ref_obj_release(obj);
	return rc;
}

/*
 * dat_lmr_free.3dat: refused while an RMR is bound into it
 * (DAT_INVALID_STATE, LMR_IN_USE).  Its contexts stop working at once:
 * later local use is a protection violation, remote use a remote access
 * error.
 */
DAT_RETURN ref_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	struct ref_obj *obj;
	struct ref_lmr *lmr;
	struct ref_ia *ia;
	DAT_RETURN rc;

	rc = ref_obj_acquire(lmr_handle, DAT_HANDLE_TYPE_LMR, LMR_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	lmr = to_lmr(obj);
	ia = obj->ia;
	if (lmr->users > 0) {
		ref_ia_release(ia);
		return REF_ERR(DAT_INVALID_STATE,
			       DAT_INVALID_STATE_LMR_IN_USE);
	}
	lmr->pz->users--;
	lmr_release(lmr);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

/*
 * dat_lmr_sync_rdma_read.3dat / _write.3dat: every non-empty segment must
 * lie inside an LMR of this IA (any PZ); else DAT_INVALID_PARAMETER.
 * Memory is coherent here (lmr_sync_req is false), so nothing else to do.
 */
static DAT_RETURN lmr_sync(DAT_IA_HANDLE ia_handle,
			   const DAT_LMR_TRIPLET *segs, DAT_VLEN nsegs, bool rd)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_pz *pz0 = NULL;
	DAT_VLEN i;
	DAT_RETURN rc;

	(void)rd;	/* coherent memory: both syncs do the same here */
	rc = ref_obj_acquire(ia_handle, DAT_HANDLE_TYPE_IA,
			     DAT_INVALID_HANDLE_IA, &obj);
	if (rc)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if (nsegs && !segs)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	for (i = 0; !rc && i < nsegs; i++) {
		struct ref_lmr *lmr;

		if (!segs[i].segment_length)
			continue;
		lmr = ref_ctx_find(ia, segs[i].lmr_context, REF_CTX_LMR);
		if (!lmr || !range_inside(segs[i].virtual_address,
					  segs[i].segment_length,
					  lmr->registered_address,
					  lmr->registered_size)) {
			rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
			break;
		}
		if (!pz0)
			pz0 = lmr->pz;
	}
	ref_obj_release(obj);
	return rc;
}

DAT_RETURN ref_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				  const DAT_LMR_TRIPLET *segs, DAT_VLEN nsegs)
{
	return lmr_sync(ia_handle, segs, nsegs, true);
}

DAT_RETURN ref_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *segs, DAT_VLEN nsegs)
{
	return lmr_sync(ia_handle, segs, nsegs, false);
}

/* ---- access checks --------------------------------------------------------------- */

DAT_RETURN ref_mem_check_local(struct ref_ia *ia, struct ref_pz *pz,
			       const DAT_LMR_TRIPLET *seg,
			       DAT_MEM_PRIV_FLAGS need, void **ptr,
			       void **tp_mem)
{
	bool write = (need & DAT_MEM_PRIV_LOCAL_WRITE_FLAG) != 0;
	struct ref_lmr *lmr;

	*ptr = NULL;
	if (tp_mem)
		*tp_mem = NULL;
	if (!seg->segment_length)
		return DAT_SUCCESS;
	lmr = ref_ctx_find(ia, seg->lmr_context, REF_CTX_LMR);
	if (!lmr) {
		if (ref_ctx_issued(ia, seg->lmr_context, REF_CTX_LMR))
			return REF_ERR(DAT_PROTECTION_VIOLATION,
				       write ? DAT_PROTECTION_WRITE :
					       DAT_PROTECTION_READ);
		return REF_ERR(DAT_PRIVILEGES_VIOLATION,
			       write ? DAT_PRIVILEGES_WRITE :
				       DAT_PRIVILEGES_READ);
	}
	if (!range_inside(seg->virtual_address, seg->segment_length,
			  lmr->registered_address, lmr->registered_size))
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (lmr->pz != pz)
		return REF_ERR(DAT_PROTECTION_VIOLATION,
			       write ? DAT_PROTECTION_WRITE :
				       DAT_PROTECTION_READ);
	if ((unsigned int)need & ~(unsigned int)lmr->priv)
		return REF_ERR(DAT_PRIVILEGES_VIOLATION,
			       write ? DAT_PRIVILEGES_WRITE :
				       DAT_PRIVILEGES_READ);
	*ptr = (void *)(uintptr_t)seg->virtual_address;
	if (tp_mem)
		*tp_mem = lmr->tp_mem;
	return DAT_SUCCESS;
}

DAT_DTO_COMPLETION_STATUS ref_mem_check_remote_pz(struct ref_ia *ia,
						  struct ref_pz *pz,
						  DAT_RMR_CONTEXT ctx,
						  DAT_VADDR addr, DAT_VLEN len,
						  DAT_MEM_PRIV_FLAGS need,
						  void **ptr)
{
	DAT_VADDR base;
	DAT_VLEN size;
	DAT_MEM_PRIV_FLAGS priv;
	struct ref_pz *wpz;
	struct ref_rmr *rmr;
	struct ref_lmr *lmr;
	/* the memory behind the window, and whether it is an RMR's: what a
	 * provider checking more than the pages ask would look at */
	struct ref_lmr *mem __attribute__((unused));
	bool is_rmr __attribute__((unused)) = false;

	*ptr = NULL;
	if (!len)
		return DAT_DTO_SUCCESS;
	rmr = ref_ctx_find(ia, ctx, REF_CTX_RMR);
	lmr = ref_ctx_find(ia, ctx, REF_CTX_LMR_RMR);
	if (rmr && rmr->bound && rmr->rmr_context == ctx) {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		base = rmr->triplet.virtual_address;
		size = rmr->triplet.segment_length;
		priv = rmr->priv;
		wpz = rmr->pz;
		mem = rmr->lmr;
		is_rmr = true;
	} else if (lmr && lmr->rmr_context == ctx) {
		base = lmr->registered_address;
		size = lmr->registered_size;
		priv = lmr->priv;
		wpz = lmr->pz;
		mem = lmr;
	} else {
		return DAT_DTO_ERR_REMOTE_ACCESS;
	}
	if (((unsigned int)need & ~(unsigned int)priv & REF_REMOTE_PRIV))
		return DAT_DTO_ERR_REMOTE_ACCESS;
	if (!(need & REF_REMOTE_PRIV))
		return DAT_DTO_ERR_REMOTE_ACCESS;	/* not a remote access */
	if (wpz != pz)
		return DAT_DTO_ERR_REMOTE_ACCESS;
	if (!range_inside(addr, len, base, size))
		return DAT_DTO_ERR_REMOTE_ACCESS;
	*ptr = (void *)(uintptr_t)addr;
	return DAT_DTO_SUCCESS;
}

DAT_DTO_COMPLETION_STATUS ref_mem_check_remote(struct ref_ia *ia,
					       struct ref_ep *ep,
					       DAT_RMR_CONTEXT ctx,
					       DAT_VADDR addr, DAT_VLEN len,
					       DAT_MEM_PRIV_FLAGS need,
					       void **ptr)
{
	return ref_mem_check_remote_pz(ia, ep->pz, ctx, addr, len, need, ptr);
}
