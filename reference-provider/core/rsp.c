/* SPDX-License-Identifier: MIT */
/*
 * rsp.c - Reserved Service Points: a listener bound to one EP that yields
 * at most one Connection Request.  When it does, the EP goes RESERVED ->
 * PASSIVE_CONNECTION_PENDING and the RSP is destroyed automatically; the
 * arrival event carries DAT_HANDLE_NULL as its service point (1.2 header
 * comment on DAT_CR_ARRIVAL_EVENT_DATA), and a later dat_rsp_free on the
 * old handle returns DAT_INVALID_HANDLE.
 */
#include "conn_priv.h"

static DAT_RETURN lookup_rsp(DAT_RSP_HANDLE h, struct ref_rsp **rsp)
{
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_lookup(h, DAT_HANDLE_TYPE_RSP, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	*rsp = ref_container_of(obj, struct ref_rsp, obj);
	return DAT_SUCCESS;
}

static void rsp_teardown(struct ref_rsp *rsp)
{
	if (rsp->listener)
		rsp->obj.ia->transport->ops->unlisten(rsp->listener);
	rsp->listener = NULL;
	ref_obj_unregister(&rsp->obj);
	ref_obj_free(rsp);
}

static void rsp_destroy_cb(struct ref_obj *obj)
{
	struct ref_rsp *rsp = ref_container_of(obj, struct ref_rsp, obj);

	if (rsp->ep)
		rsp->ep->rsp = NULL;
	rsp_teardown(rsp);
}

void ref_rsp_consumed(struct ref_rsp *rsp)
{
	rsp->evd->users--;
	if (rsp->ep)
		rsp->ep->rsp = NULL;
	rsp_teardown(rsp);
}

DAT_RETURN ref_rsp_create(DAT_IA_HANDLE iah, DAT_CONN_QUAL qual,
			  DAT_EP_HANDLE eph, DAT_EVD_HANDLE evdh,
			  DAT_RSP_HANDLE *out)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_evd *evd;
	struct ref_ep *ep = NULL;
	struct ref_rsp *rsp;
	DAT_CONN_QUAL q = qual;
	DAT_RETURN rc = ref_obj_lookup(iah, DAT_HANDLE_TYPE_IA, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if ((qual == 0 || qual > 65535))
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (!out)
		return REF_INVALID_PARAM(DAT_INVALID_ARG5);
	if (eph != DAT_HANDLE_NULL) {
		rc = ref_lookup_ep(eph, &ep);
		if (rc != DAT_SUCCESS)
			return rc;
		if (ep->obj.ia != ia)
			return REF_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_EP);
	}
	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	if (evdh == DAT_HANDLE_NULL) {
		rc = REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
		goto out;
	}
	rc = ref_lookup_evd(evdh, DAT_EVD_CR_FLAG, DAT_INVALID_HANDLE_EVD_CR,
			    ia, &evd);
	if (rc != DAT_SUCCESS) {
		goto out;
	}
	if (ep && ep->state != DAT_EP_STATE_UNCONNECTED) {
		rc = ref_ep_state_error(ep);
		goto out;
	}
	rsp = ref_obj_alloc(sizeof(*rsp));
	if (!rsp) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	rc = ia->transport->ops->listen(ia->transport, &q, &rsp->obj,
					&rsp->listener);
	if (rc != DAT_SUCCESS) {
		ref_obj_free(rsp);
		goto out;
	}
	if (!ep) {
		DAT_EP_ATTR a;

		ref_ep_default_attr(ia, &a);
		rc = ref_ep_new(ia, NULL, NULL, NULL, NULL, NULL, &a, true,
				&ep);
		if (rc != DAT_SUCCESS) {
			ia->transport->ops->unlisten(rsp->listener);
			ref_obj_free(rsp);
			goto out;
		}
	}
	ref_obj_register(&rsp->obj, DAT_HANDLE_TYPE_RSP, ia);
	rsp->conn_qual = q;
	rsp->evd = evd;
	rsp->ep = ep;
	evd->users++;
	ep->state = DAT_EP_STATE_RESERVED;
	ep->rsp = rsp;
	rsp->obj.destroy = rsp_destroy_cb;
	*out = (DAT_RSP_HANDLE)rsp;
out:
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_rsp_query(DAT_RSP_HANDLE h, DAT_RSP_PARAM_MASK mask,
			 DAT_RSP_PARAM *p)
{
	struct ref_rsp *rsp;
	DAT_RETURN rc = lookup_rsp(h, &rsp);

	if (rc != DAT_SUCCESS)
		return rc;
	if (((DAT_UINT32)mask & ~(DAT_UINT32)DAT_RSP_FIELD_ALL))
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (!p)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	rc = ref_enter(&rsp->obj, DAT_HANDLE_TYPE_RSP);
	if (rc != DAT_SUCCESS)
		return rc;
	p->ia_handle = (DAT_IA_HANDLE)rsp->obj.ia;
	p->conn_qual = rsp->conn_qual;
	p->evd_handle = (DAT_EVD_HANDLE)rsp->evd;
	p->ep_handle = (DAT_EP_HANDLE)rsp->ep;
	ref_ia_release(rsp->obj.ia);
	return DAT_SUCCESS;
}

DAT_RETURN ref_rsp_free(DAT_RSP_HANDLE h)
{
	struct ref_rsp *rsp;
	struct ref_ia *ia;
	struct ref_ep *ep;
	DAT_RETURN rc = lookup_rsp(h, &rsp);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = rsp->obj.ia;
	rc = ref_enter(&rsp->obj, DAT_HANDLE_TYPE_RSP);
	if (rc != DAT_SUCCESS)
		return rc;
	ep = rsp->ep;
	rsp->evd->users--;
	rsp->ep = NULL;
	rsp_teardown(rsp);
	if (ep) {
		ep->rsp = NULL;
		if (ep->state == DAT_EP_STATE_RESERVED) {
			/* back to the Consumer (dat_rsp_free(3DAT)); a
			 * Provider-made EP goes back to the Provider */
			if (ep->provider_created)
				ref_ep_delete(ep);
			else
				ep->state = DAT_EP_STATE_UNCONNECTED;
		}
	}
	ref_ia_release(ia);
	return DAT_SUCCESS;
}
