// SPDX-License-Identifier: MIT
/*
 * pz.c - Protection Zones: dat_pz_create, dat_pz_query, dat_pz_free.
 * LMRs, RMRs, EPs and SRQs count themselves in pz->users.
 */
#include "ref.h"

static struct ref_pz *to_pz(struct ref_obj *obj)
{
	return ref_container_of(obj, struct ref_pz, obj);
}

static void pz_destroy(struct ref_obj *obj)
{
	ref_obj_unregister(obj);
	ref_obj_free(to_pz(obj));
}

/* dat_pz_create.3dat. */
DAT_RETURN ref_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_pz *pz;
	DAT_RETURN rc;

	/* in and out again (it yields inside, so callers meet) */
	rc = ref_obj_acquire(ia_handle, DAT_HANDLE_TYPE_IA,
			     DAT_INVALID_HANDLE_IA, &obj);
	if (rc)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if (!pz_handle) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	if (ia->count[DAT_HANDLE_TYPE_PZ] >=
	    ref_profile.max_pzs) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES,
			     DAT_RESOURCE_PROTECTION_DOMAIN);
		goto out;
	}
	pz = ref_obj_alloc(sizeof(*pz));
	if (!pz) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	pz->obj.destroy = pz_destroy;
	ref_obj_register(&pz->obj, DAT_HANDLE_TYPE_PZ, ia);
	*pz_handle = (DAT_PZ_HANDLE)pz;
out:
	ref_obj_release(obj);
	return rc;
}

/* dat_pz_query.3dat: unknown mask bits are an invalid mask. */
DAT_RETURN ref_pz_query(DAT_PZ_HANDLE pz_handle, DAT_PZ_PARAM_MASK mask,
			DAT_PZ_PARAM *param)
{
	struct ref_obj *obj;
	DAT_RETURN rc;

	rc = ref_obj_acquire(pz_handle, DAT_HANDLE_TYPE_PZ,
			     DAT_INVALID_HANDLE_PZ, &obj);
	if (rc)
		return rc;
	if (((unsigned int)mask & ~(unsigned int)DAT_PZ_FIELD_ALL))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!param)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	else
		param->ia_handle = (DAT_IA_HANDLE)obj->ia;
	ref_obj_release(obj);
	return rc;
}

/*
 * dat_pz_free.3dat: refused while an EP, SRQ, LMR or RMR is in the PZ
 * (DAT_INVALID_STATE, PZ_IN_USE); nothing changes then.
 */
DAT_RETURN ref_pz_free(DAT_PZ_HANDLE pz_handle)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_pz *pz;
	DAT_RETURN rc;

	rc = ref_obj_acquire(pz_handle, DAT_HANDLE_TYPE_PZ,
			     DAT_INVALID_HANDLE_PZ, &obj);
	if (rc)
		return rc;
	pz = to_pz(obj);
	ia = obj->ia;
	if (pz->users > 0) {
		ref_ia_release(ia);
		return REF_ERR(DAT_INVALID_STATE,
			       DAT_INVALID_STATE_PZ_IN_USE);
	}
	ref_obj_unregister(obj);
	ref_obj_free(pz);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}
