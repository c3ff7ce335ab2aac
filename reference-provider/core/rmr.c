// SPDX-License-Identifier: MIT
/*
 * rmr.c - Remote Memory Regions: dat_rmr_create, dat_rmr_query,
 * dat_rmr_free and dat_rmr_bind.
 *
 * A bind takes effect when it is posted (the software "TPT" is updated at
 * once) and its completion is queued in the EP's request stream through
 * conn (ref_ep_bind_complete), so it completes after every request posted
 * before it and is flushed on a DISCONNECTED EP.  Every bind, unbind and
 * free retires the previous rmr_context: remote accesses with it fail.
 */
#include "ref.h"
#include "conn.h"
#include "refmap.h"

#include <string.h>

#define RMR_HANDLE_SUB DAT_INVALID_HANDLE_RMR

#define REF_BIND_FLAGS (DAT_COMPLETION_SUPPRESS_FLAG | \
			DAT_COMPLETION_UNSIGNALLED_FLAG | \
			DAT_COMPLETION_BARRIER_FENCE_FLAG)

static struct ref_rmr *to_rmr(struct ref_obj *obj)
{
	return ref_container_of(obj, struct ref_rmr, obj);
}

/* Drops the current binding (lock held); @touch_lmr false during close. */
static void rmr_unbind(struct ref_rmr *rmr, bool touch_lmr)
{
	if (!rmr->bound)
		return;
	if (rmr->tp_mem) {	/* rmr_context is the transport's rkey */
		ref_conn_mem_dereg(rmr->obj.ia, rmr->tp_mem);
		rmr->tp_mem = NULL;
	} else {
		ref_ctx_remove(rmr->obj.ia, rmr->rmr_context);
	}
	if (touch_lmr)
		rmr->lmr->users--;
	rmr->bound = false;
	rmr->lmr = NULL;
	rmr->ep = NULL;
	memset(&rmr->triplet, 0, sizeof(rmr->triplet));
	rmr->priv = DAT_MEM_PRIV_NONE_FLAG;
	rmr->rmr_context = 0;
}

static void rmr_destroy(struct ref_obj *obj)
{
	struct ref_rmr *rmr = to_rmr(obj);

	rmr_unbind(rmr, false);
	ref_obj_unregister(obj);
	ref_obj_free(rmr);
}

/* dat_rmr_create.3dat: an unbound RMR in the PZ (and the PZ's IA). */
DAT_RETURN ref_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	struct ref_obj *obj;
	struct ref_pz *pz;
	struct ref_rmr *rmr;
	DAT_RETURN rc;

	rc = ref_obj_acquire(pz_handle, DAT_HANDLE_TYPE_PZ,
			     DAT_INVALID_HANDLE_PZ, &obj);
	if (rc)
		return rc;
	pz = ref_container_of(obj, struct ref_pz, obj);
	if (!rmr_handle) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	if (obj->ia->count[DAT_HANDLE_TYPE_RMR] >=
	    ref_profile.max_rmrs - ref_profile.rmrs_taken_elsewhere) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY_REGION);
		goto out;
	}
	rmr = ref_obj_alloc(sizeof(*rmr));
	if (!rmr) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	rmr->pz = pz;
	rmr->obj.destroy = rmr_destroy;
	ref_obj_register(&rmr->obj, DAT_HANDLE_TYPE_RMR, obj->ia);
	pz->users++;
	*rmr_handle = (DAT_RMR_HANDLE)rmr;
out:
	ref_obj_release(obj);
	return rc;
}

/*
 * dat_rmr_query.3dat: the whole DAT_RMR_PARAM is filled; for an unbound
 * RMR the triplet, privileges and context (undefined by the page) are 0.
 */
DAT_RETURN ref_rmr_query(DAT_RMR_HANDLE rmr_handle, DAT_RMR_PARAM_MASK mask,
			 DAT_RMR_PARAM *param)
{
	struct ref_obj *obj;
	struct ref_rmr *rmr;
	DAT_RETURN rc;

	rc = ref_obj_acquire(rmr_handle, DAT_HANDLE_TYPE_RMR, RMR_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	rmr = to_rmr(obj);
	if (((unsigned int)mask & ~(unsigned int)DAT_RMR_FIELD_ALL))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!param)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!rc) {
		memset(param, 0, sizeof(*param));
		param->ia_handle = (DAT_IA_HANDLE)obj->ia;
		param->pz_handle = (DAT_PZ_HANDLE)rmr->pz;
		param->lmr_triplet = rmr->triplet;
		param->mem_priv = rmr->priv;
		param->rmr_context = rmr->rmr_context;
		ref_abi_fill_rmr_param(param);
	}
	ref_obj_release(obj);
	return rc;
}

/* dat_rmr_free.3dat: bound or not; a binding is dropped first. */
DAT_RETURN ref_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	struct ref_obj *obj;
	struct ref_rmr *rmr;
	struct ref_ia *ia;
	DAT_RETURN rc;

	rc = ref_obj_acquire(rmr_handle, DAT_HANDLE_TYPE_RMR, RMR_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	rmr = to_rmr(obj);
	ia = obj->ia;
	rmr_unbind(rmr, true);
	rmr->pz->users--;
	ref_obj_unregister(obj);
	ref_obj_free(rmr);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

/*
 * dat_rmr_bind.3dat, checked in this order:
 *  handles     rmr (RMR), ep (EP);
 *  parameters  lmr_triplet pointer (ARG2), mem_privileges bits (ARG3),
 *              completion_flags other than SUPPRESS / UNSIGNALLED /
 *              BARRIER_FENCE (ARG6), rmr_context pointer (ARG7, not
 *              needed for an unbind), for a non-zero length: the
 *              lmr_context names an LMR of the IA and the window lies in
 *              it (ARG2);
 *  EP          state CONNECTED or DISCONNECTED, UNSIGNALLED only if the
 *              EP's request completion flags allow it, room in the
 *              request queue (ref_ep_bind_check);
 *  protection  RMR, EP (and LMR) in the same PZ;
 *  privileges  remote read needs local read on the LMR, remote write
 *              needs local write (the provider requires matching
 *              privileges, as the page allows).
 * A zero length unbinds.  On a DISCONNECTED EP the bind is flushed and
 * changes nothing (a fresh context that never worked is returned).
 */
DAT_RETURN ref_rmr_bind(DAT_RMR_HANDLE rmr_handle,
			const DAT_LMR_TRIPLET *triplet,
			DAT_MEM_PRIV_FLAGS priv, DAT_EP_HANDLE ep_handle,
			DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags,
			DAT_RMR_CONTEXT *rmr_context)
{
	struct ref_obj *obj, *o;
	struct ref_rmr *rmr;
	struct ref_ep *ep;
	struct ref_lmr *lmr = NULL;
	struct ref_ia *ia;
	bool unbind;
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RETURN rc, priv_rc = DAT_SUCCESS;

	rc = ref_obj_acquire(rmr_handle, DAT_HANDLE_TYPE_RMR, RMR_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	rmr = to_rmr(obj);
	ia = obj->ia;
	rc = ref_obj_lookup(ep_handle, DAT_HANDLE_TYPE_EP, &o);
	if (rc)
		goto out;
	if (o->ia != ia) {
		/* an EP of another IA cannot share the RMR's PZ */
		rc = REF_ERR(DAT_PROTECTION_VIOLATION, 0);
		goto out;
	}
	ep = ref_container_of(o, struct ref_ep, obj);

	rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!triplet)
		goto out;
	unbind = triplet->segment_length == 0;
	if ((unsigned int)priv & ~(unsigned int)DAT_MEM_PRIV_ALL_FLAG) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out;
	}
	if ((unsigned int)flags & ~(unsigned int)REF_BIND_FLAGS) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
		goto out;
	}
	if (!rmr_context && !unbind) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
		goto out;
	}
	if (!unbind) {
		lmr = ref_ctx_find(ia, triplet->lmr_context, REF_CTX_LMR);
		if (!lmr)
			goto out;	/* ARG2 */
		if ((triplet->virtual_address < lmr->registered_address ||
		     triplet->segment_length > lmr->registered_size ||
		     triplet->virtual_address - lmr->registered_address >
		     lmr->registered_size - triplet->segment_length))
			goto out;	/* ARG2 */
	}

	rc = ref_ep_bind_check(ep, flags);
	if (rc)
		goto out;

	if ((rmr->pz != ep->pz || (lmr && lmr->pz != rmr->pz))) {
		rc = REF_ERR(DAT_PROTECTION_VIOLATION, 0);
		goto out;
	}
	if (lmr && (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG) &&
	    !(lmr->priv & DAT_MEM_PRIV_LOCAL_READ_FLAG))
		rc = REF_ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_READ);
	if (lmr && (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG) &&
	    !(lmr->priv & DAT_MEM_PRIV_LOCAL_WRITE_FLAG))
		rc = REF_ERR(DAT_PRIVILEGES_VIOLATION, DAT_PRIVILEGES_WRITE);
	if (rc)
		goto out;
	priv_rc = rc;
	rc = DAT_SUCCESS;

	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		/* flushed: the binding does not change */
		if (!unbind)
			ctx = ref_ctx_new_dead(ia, REF_CTX_RMR);
	} else if (unbind) {
		rmr_unbind(rmr, true);
	} else {
		/* A hardware transport registers the window on its own (an
		 * MR of exactly the window; docs/verbs.md): its rkey is the
		 * new rmr_context and the old registration goes with the
		 * old binding. */
		void *mem = NULL;
		uint32_t rkey = 0;

		rc = ref_conn_mem_reg(ia, rmr->pz, triplet->virtual_address,
				      triplet->segment_length, priv, &mem,
				      &rkey);
		if (rc)
			goto out;
		ctx = mem ? rkey : ref_ctx_new(ia, REF_CTX_RMR, rmr);
		if (!ctx) {
			rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES,
				     DAT_RESOURCE_MEMORY);
			goto out;
		}
		rmr_unbind(rmr, true);
		rmr->tp_mem = mem;
		rmr->bound = true;
		rmr->lmr = lmr;
		lmr->users++;
		rmr->ep = ep;
		rmr->triplet = *triplet;
		rmr->priv = priv;
		rmr->rmr_context = ctx;
	}
	if (priv_rc)
		goto out;
	ref_ep_bind_complete(ep, rmr_handle, cookie, flags);
	if (rmr_context)
		*rmr_context = ctx;
out:
	if (priv_rc)
		rc = priv_rc;
	ref_ia_release(ia);
	return rc;
}
