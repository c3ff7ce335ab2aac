/* SPDX-License-Identifier: MIT */
/*
 * psp.c - Public Service Points: a listener on a connection qualifier
 * (a TCP port for sock) that turns every arriving connection request into
 * a Connection Request (cr.c) and a DAT_CONNECTION_REQUEST_EVENT.  The
 * backlog is the EVD: a request arriving while the EVD is full is refused
 * as non-peer (dat_psp_create(3DAT) DESCRIPTION).
 */
#include "conn_priv.h"

static DAT_RETURN lookup_psp(DAT_PSP_HANDLE h, struct ref_psp **psp)
{
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_lookup(h, DAT_HANDLE_TYPE_PSP, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	*psp = ref_container_of(obj, struct ref_psp, obj);
	return DAT_SUCCESS;
}

static void psp_teardown(struct ref_psp *psp)
{
	if (psp->listener)
		psp->obj.ia->transport->ops->unlisten(psp->listener);
	psp->listener = NULL;
	ref_obj_unregister(&psp->obj);
	ref_obj_free(psp);
}

static void psp_destroy_cb(struct ref_obj *obj)
{
	struct ref_psp *psp = ref_container_of(obj, struct ref_psp, obj);

	psp_teardown(psp);
}

/*
 * dat_psp_create_any in a qualifier space narrowed by the test hook
 * daplref_test_conn_qual_space: the lowest qualifier of [lo, hi] that
 * nobody listens on; DAT_CONN_QUAL_UNAVAILABLE when every one is taken.
 */
static DAT_RETURN listen_in_space(struct ref_ia *ia, struct ref_psp *psp,
				  DAT_CONN_QUAL *q)
{
	for (DAT_CONN_QUAL t = ia->any_qual_lo; t <= ia->any_qual_hi; t++) {
		DAT_CONN_QUAL tq = t;
		DAT_RETURN rc;

		if (ref_sp_find(ia, t))
			continue;
		rc = ia->transport->ops->listen(ia->transport, &tq, &psp->obj,
						&psp->listener);
		if (rc == DAT_SUCCESS) {
			*q = tq;
			return DAT_SUCCESS;
		}
		if (DAT_GET_TYPE(rc) != DAT_CONN_QUAL_IN_USE)
			return rc;
	}
	return REF_ERR(DAT_CONN_QUAL_UNAVAILABLE, 0);
}

/*
 * Test hook: dat_psp_create_any on @iah takes its qualifiers from [lo, hi]
 * only, so a case can use up the whole space; lo 0 restores the transport's
 * own choice.  DAT_INVALID_PARAMETER for an empty or unusable range.
 */
DAPLREF_EXPORT DAT_RETURN daplref_test_conn_qual_space(DAT_IA_HANDLE iah,
							DAT_CONN_QUAL lo,
							DAT_CONN_QUAL hi);
DAPLREF_EXPORT DAT_RETURN daplref_test_conn_qual_space(DAT_IA_HANDLE iah,
							DAT_CONN_QUAL lo,
							DAT_CONN_QUAL hi)
{
	struct ref_ia *ia;
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_lookup(iah, DAT_HANDLE_TYPE_IA, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if (lo && (hi < lo || hi > 65535))
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	ia->any_qual_lo = lo;
	ia->any_qual_hi = lo ? hi : 0;
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

static DAT_RETURN psp_create(DAT_IA_HANDLE iah, DAT_CONN_QUAL *qual,
			     bool any, DAT_EVD_HANDLE evdh,
			     DAT_PSP_FLAGS flags, DAT_PSP_HANDLE *out)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_evd *evd;
	struct ref_psp *psp;
	DAT_CONN_QUAL q;
	DAT_RETURN rc = ref_obj_lookup(iah, DAT_HANDLE_TYPE_IA, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if (!qual)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	q = any ? 0 : *qual;
	if (!any && (q == 0 || q > 65535))
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (flags != DAT_PSP_CONSUMER_FLAG && flags != DAT_PSP_PROVIDER_FLAG)
		return REF_INVALID_PARAM(DAT_INVALID_ARG4);
	/* dat_psp_create(3DAT) DESCRIPTION: a request it cannot satisfy */
	if (flags == DAT_PSP_PROVIDER_FLAG &&
	    ref_profile.ep_creator == DAT_PSP_CREATES_EP_NEVER)
		return REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	if (!out)
		return REF_INVALID_PARAM(DAT_INVALID_ARG5);
	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	if (evdh == DAT_HANDLE_NULL) {
		rc = REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
		goto out;
	}
	rc = ref_lookup_evd(evdh, DAT_EVD_CR_FLAG,
			    DAT_INVALID_HANDLE_EVD_CR, ia, &evd);
	if (rc != DAT_SUCCESS) {
		goto out;
	}
	psp = ref_obj_alloc(sizeof(*psp));
	if (!psp) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	if (any && ia->any_qual_lo)
		rc = listen_in_space(ia, psp, &q);
	else
		rc = psp->listener ? DAT_SUCCESS :
		     ia->transport->ops->listen(ia->transport, &q, &psp->obj,
						&psp->listener);
	if (rc != DAT_SUCCESS) {
		ref_obj_free(psp);
		goto out;
	}
	ref_obj_register(&psp->obj, DAT_HANDLE_TYPE_PSP, ia);
	psp->conn_qual = q;
	psp->evd = evd;
	psp->flags = flags;
	evd->users++;
	psp->obj.destroy = psp_destroy_cb;
	if (any) {
		static DAT_CONN_QUAL first;

		if (!first)
			first = q;
		*qual = q;
	}
	*out = (DAT_PSP_HANDLE)psp;
out:
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL conn_qual,
			  DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
			  DAT_PSP_HANDLE *psp)
{
	return psp_create(ia, &conn_qual, false, evd, flags, psp);
}

DAT_RETURN ref_psp_create_any(DAT_IA_HANDLE ia, DAT_CONN_QUAL *conn_qual,
			      DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
			      DAT_PSP_HANDLE *psp)
{
	return psp_create(ia, conn_qual, true, evd, flags, psp);
}

DAT_RETURN ref_psp_query(DAT_PSP_HANDLE h, DAT_PSP_PARAM_MASK mask,
			 DAT_PSP_PARAM *p)
{
	struct ref_psp *psp;
	DAT_RETURN rc = lookup_psp(h, &psp);

	if (rc != DAT_SUCCESS)
		return rc;
	if (((DAT_UINT32)mask & ~(DAT_UINT32)DAT_PSP_FIELD_ALL))
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (!p)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	rc = ref_enter(&psp->obj, DAT_HANDLE_TYPE_PSP);
	if (rc != DAT_SUCCESS)
		return rc;
	p->ia_handle = (DAT_IA_HANDLE)psp->obj.ia;
	p->conn_qual = psp->conn_qual;
	p->evd_handle = (DAT_EVD_HANDLE)psp->evd;
	p->psp_flags = psp->flags;
	ref_ia_release(psp->obj.ia);
	return DAT_SUCCESS;
}

DAT_RETURN ref_psp_free(DAT_PSP_HANDLE h)
{
	struct ref_psp *psp;
	struct ref_ia *ia;
	DAT_RETURN rc = lookup_psp(h, &psp);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = psp->obj.ia;
	rc = ref_enter(&psp->obj, DAT_HANDLE_TYPE_PSP);
	if (rc != DAT_SUCCESS)
		return rc;
	/* Later requests are refused like with nobody listening; earlier
	 * Connection Requests stay valid (dat_psp_free(3DAT)). */
	psp->evd->users--;
	psp_teardown(psp);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

struct ref_obj *ref_sp_find(struct ref_ia *ia, DAT_CONN_QUAL qual)
{
	struct ref_list *pos;

	ref_list_for_each(pos, &ia->objects) {
		struct ref_obj *o = ref_container_of(pos, struct ref_obj,
						     ia_link);

		if (o->type == DAT_HANDLE_TYPE_PSP &&
		    ref_container_of(o, struct ref_psp, obj)->conn_qual == qual)
			return o;
		if (o->type == DAT_HANDLE_TYPE_RSP &&
		    ref_container_of(o, struct ref_rsp, obj)->conn_qual == qual)
			return o;
	}
	return NULL;
}
