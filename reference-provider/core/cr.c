/* SPDX-License-Identifier: MIT */
/*
 * cr.c - Connection Requests: created when a connection request arrives on
 * a PSP or RSP; accepted, rejected or handed off by the Consumer.
 */
#include "conn_priv.h"

static DAT_RETURN lookup_cr(DAT_CR_HANDLE h, struct ref_cr **cr)
{
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_lookup(h, DAT_HANDLE_TYPE_CR, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	*cr = ref_container_of(obj, struct ref_cr, obj);
	return DAT_SUCCESS;
}

void ref_cr_delete(struct ref_cr *cr)
{
	if (cr->ep && cr->ep->cr == cr)
		cr->ep->cr = NULL;
	ref_obj_unregister(&cr->obj);
	free(cr->pdata);
	ref_obj_free(cr);
}

static void cr_destroy_cb(struct ref_obj *obj)
{
	struct ref_cr *cr = ref_container_of(obj, struct ref_cr, obj);

	if (cr->conn)
		cr->conn->tp->ops->abort(cr->conn);
	cr->conn = NULL;
	ref_cr_delete(cr);
}

static bool evd_full(const struct ref_evd *evd)
{
	return evd->count >= evd->qlen;
}

/* Would @sp take a request now?  (backlog = free room on its EVD) */
static bool sp_ready(struct ref_obj *sp)
{
	if (sp->type == DAT_HANDLE_TYPE_PSP)
		return !evd_full(ref_container_of(sp, struct ref_psp, obj)->evd);
	if (sp->type == DAT_HANDLE_TYPE_RSP) {
		struct ref_rsp *rsp = ref_container_of(sp, struct ref_rsp, obj);

		return !evd_full(rsp->evd) && rsp->ep &&
		       rsp->ep->state == DAT_EP_STATE_RESERVED;
	}
	return false;
}

DAT_RETURN ref_cr_deliver(struct ref_obj *sp, struct ref_tp_conn *c,
			  const struct sockaddr *peer, DAT_PORT_QUAL peer_port,
			  DAT_CONN_QUAL qual, const void *pdata,
			  DAT_COUNT pdata_len)
{
	struct ref_ia *ia = sp->ia;
	struct ref_psp *psp = NULL;
	struct ref_rsp *rsp = NULL;
	struct ref_evd *evd;
	struct ref_cr *cr;
	struct ref_ep *ep = NULL;
	DAT_EVENT ev;

	if (!sp_ready(sp))
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_NO_SUBTYPE);
	if (sp->type == DAT_HANDLE_TYPE_PSP) {
		psp = ref_container_of(sp, struct ref_psp, obj);
		evd = psp->evd;
	} else {
		rsp = ref_container_of(sp, struct ref_rsp, obj);
		evd = rsp->evd;
	}
	cr = ref_obj_alloc(sizeof(*cr));
	if (!cr)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	if (pdata_len > 0) {
		cr->pdata = malloc((size_t)pdata_len);
		if (!cr->pdata) {
			ref_obj_free(cr);
			return REF_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_MEMORY);
		}
		memcpy(cr->pdata, pdata, (size_t)pdata_len);
	}
	cr->pdata_len = pdata_len;
	cr->conn = c;
	cr->conn_qual = qual;
	memcpy(&cr->remote_addr, peer,
	       peer->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					   : sizeof(struct sockaddr_in));
	cr->remote_port = peer_port;
	if (psp && psp->flags == DAT_PSP_PROVIDER_FLAG) {
		DAT_EP_ATTR a;

		ref_ep_default_attr(ia, &a);
		/* attributes that match the active side's request */
		if (c->tp->ops->peer_attr)
			c->tp->ops->peer_attr(c, &a);
		if (ref_ep_new(ia, NULL, NULL, NULL, NULL, NULL, &a, true,
			       &ep) != DAT_SUCCESS) {
			free(cr->pdata);
			ref_obj_free(cr);
			return REF_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_TEP);
		}
		ep->state = DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING;
		cr->provider_ep = true;
	} else if (rsp) {
		ep = rsp->ep;
		ep->state = DAT_EP_STATE_PASSIVE_CONNECTION_PENDING;
	}
	if (ep) {
		cr->ep = ep;
		ep->cr = cr;
		ep->remote_addr = cr->remote_addr;
		ep->remote_port = peer_port;
	}
	ref_obj_register(&cr->obj, DAT_HANDLE_TYPE_CR, ia);
	cr->obj.destroy = cr_destroy_cb;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_CONNECTION_REQUEST_EVENT;
	ev.evd_handle = (DAT_EVD_HANDLE)evd;
	if (psp)
		ev.event_data.cr_arrival_event_data.sp_handle.psp_handle =
			(DAT_PSP_HANDLE)psp;
	else
		ev.event_data.cr_arrival_event_data.sp_handle.rsp_handle =
			DAT_HANDLE_NULL;
	ev.event_data.cr_arrival_event_data.local_ia_address_ptr =
		(DAT_IA_ADDRESS_PTR)&ia->address;
	ev.event_data.cr_arrival_event_data.conn_qual = qual;
	ev.event_data.cr_arrival_event_data.cr_handle =
		(DAT_CR_HANDLE)cr;
	if (rsp)
		ref_rsp_consumed(rsp);	/* at most one request per RSP */
	ref_post_event(evd, &ev, NULL, true);
	return DAT_SUCCESS;
}

void ref_tp_conn_request(void *ctx, struct ref_tp_conn *c,
			 const struct sockaddr *peer, DAT_PORT_QUAL peer_port,
			 DAT_CONN_QUAL qual, const void *pdata,
			 DAT_COUNT pdata_len, DAT_QOS qos)
{
	/* A QoS this IA does not support: refused by the provider
	 * (dat_ep_connect(3DAT) DESCRIPTION: non-peer rejection). */
	if (((DAT_UINT32)qos & ~(DAT_UINT32)c->tp->ia->qos_supported)) {
		c->tp->ops->reject(c, false, NULL, 0);
		return;
	}
	if (ref_cr_deliver(ctx, c, peer, peer_port, qual, pdata,
			   pdata_len) != DAT_SUCCESS)
		c->tp->ops->reject(c, false, NULL, 0);	/* backlog full: non-peer */
}

DAT_RETURN ref_cr_query(DAT_CR_HANDLE h, DAT_CR_PARAM_MASK mask,
			DAT_CR_PARAM *p)
{
	struct ref_cr *cr;
	DAT_RETURN rc = lookup_cr(h, &cr);

	if (rc != DAT_SUCCESS)
		return rc;
	if (((DAT_UINT32)mask & ~(DAT_UINT32)DAT_CR_FIELD_ALL))
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (!p)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	rc = ref_enter(&cr->obj, DAT_HANDLE_TYPE_CR);
	if (rc != DAT_SUCCESS)
		return rc;
	p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&cr->remote_addr;
	p->remote_port_qual = cr->remote_port;
	p->private_data_size = cr->pdata_len;
	p->private_data = cr->pdata;
	p->local_ep_handle = (DAT_EP_HANDLE)cr->ep;
	ref_ia_release(cr->obj.ia);
	return DAT_SUCCESS;
}

static void cr_release_ep(struct ref_cr *cr);

DAT_RETURN ref_cr_accept(DAT_CR_HANDLE h, DAT_EP_HANDLE eph,
			 DAT_COUNT pdata_size, const DAT_PVOID pdata)
{
	struct ref_cr *cr;
	struct ref_ep *ep;
	struct ref_ia *ia;
	DAT_RETURN rc = lookup_cr(h, &cr);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = cr->obj.ia;
	if (pdata_size < 0 || pdata_size > ia->max_pdata)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	if (pdata_size > 0 && !pdata)
		return REF_INVALID_PARAM(DAT_INVALID_ARG4);
	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	if (cr->ep) {
		ep = cr->ep;
		if (eph != DAT_HANDLE_NULL && eph != (DAT_EP_HANDLE)ep) {
			rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
			goto out;
		}
		if (ep->state != DAT_EP_STATE_PASSIVE_CONNECTION_PENDING &&
		    ep->state != DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING) {
			rc = ref_ep_state_error(ep);
			goto out;
		}
	} else {
		if (eph == DAT_HANDLE_NULL) {
			rc = REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
			goto out;
		}
		rc = ref_lookup_ep(eph, &ep);
		if (rc != DAT_SUCCESS)
			goto out;
		if (ep->obj.ia != ia) {
			rc = REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
			goto out;
		}
		/* The EP must be free for this request: no effect on
		 * anything otherwise (dat_cr_accept(3DAT) DESCRIPTION). */
		if (ep->state != DAT_EP_STATE_UNCONNECTED) {
			rc = ref_ep_state_error(ep);
			goto out;
		}
	}
	rc = cr->conn->tp->ops->accept(cr->conn, ep, pdata, pdata_size);
	if (rc != DAT_SUCCESS)
		goto out;
	ep->conn = cr->conn;
	cr->conn = NULL;
	ep->was_active = false;
	ep->remote_addr = cr->remote_addr;
	ep->remote_port = cr->remote_port;
	ep->conn->tp->ops->addresses(ep->conn, &ep->local_addr,
				     &ep->local_port, &ep->remote_addr,
				     &ep->remote_port);
	ep->cr = NULL;
	ep->state = DAT_EP_STATE_COMPLETION_PENDING;
	ep->confirmation_held = false;	/* from an earlier connection */
	cr->ep = NULL;
	ref_cr_delete(cr);
out:
	ref_ia_release(ia);
	return rc;
}

/* The EP named by a CR that goes away without accept. */
static void cr_release_ep(struct ref_cr *cr)
{
	struct ref_ep *ep = cr->ep;

	if (!ep)
		return;
	cr->ep = NULL;
	ep->cr = NULL;
	if (cr->provider_ep) {
		/* back to Provider control: gone for the Consumer */
		ref_ep_delete(ep);
		return;
	}
	/* RSP EP: back to the Consumer, Unconnected (dat_rsp_create USAGE) */
	ep->state = DAT_EP_STATE_UNCONNECTED;
	memset(&ep->remote_addr, 0, sizeof(ep->remote_addr));
	ep->remote_port = 0;
}

static DAT_RETURN cr_reject(DAT_CR_HANDLE h, const void *pdata, DAT_COUNT len)
{
	struct ref_cr *cr;
	struct ref_ia *ia;
	DAT_RETURN rc = lookup_cr(h, &cr);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = cr->obj.ia;
	rc = ref_enter(&cr->obj, DAT_HANDLE_TYPE_CR);
	if (rc != DAT_SUCCESS)
		return rc;
	if (cr->conn)
		cr->conn->tp->ops->reject(cr->conn,
					  true,
					  pdata, len);
	cr->conn = NULL;
	cr_release_ep(cr);
	ref_cr_delete(cr);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

DAT_RETURN ref_cr_reject(DAT_CR_HANDLE h)
{
	return cr_reject(h, NULL, 0);
}

/*
 * DAT 2.0's dat_cr_reject carries private data to the active side, under
 * the same rules as dat_cr_accept's (size within max_private_data_size, a
 * buffer when the size is not 0).
 */
DAT_RETURN ref_cr_reject_with_data(DAT_CR_HANDLE h, DAT_COUNT size,
				   const DAT_PVOID pdata)
{
	struct ref_cr *cr;
	DAT_RETURN rc = lookup_cr(h, &cr);

	if (rc != DAT_SUCCESS)
		return rc;
	if (size < 0 || size > cr->obj.ia->max_pdata)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (size > 0 && !pdata)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	return cr_reject(h, pdata, size);
}

DAT_RETURN ref_cr_handoff(DAT_CR_HANDLE h, DAT_CONN_QUAL qual)
{
	struct ref_cr *cr;
	struct ref_ia *ia;
	struct ref_obj *sp;
	struct ref_tp_conn *c;
	struct sockaddr_storage peer;
	DAT_PORT_QUAL port;
	void *pdata;
	DAT_COUNT plen;
	DAT_RETURN rc = lookup_cr(h, &cr);

	if (rc != DAT_SUCCESS)
		return rc;
	if (qual == 0 || qual > 65535)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	ia = cr->obj.ia;
	rc = ref_enter(&cr->obj, DAT_HANDLE_TYPE_CR);
	if (rc != DAT_SUCCESS)
		return rc;
	sp = ref_sp_find(ia, qual);
	if (!sp || !sp_ready(sp) || !cr->conn) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
		goto out;
	}
	c = cr->conn;
	cr->conn = NULL;
	peer = cr->remote_addr;
	port = cr->remote_port;
	pdata = cr->pdata;
	plen = cr->pdata_len;
	cr->pdata = NULL;
	cr_release_ep(cr);
	ref_cr_delete(cr);
	if (ref_cr_deliver(sp, c, (struct sockaddr *)&peer, port, qual, pdata,
			   plen) != DAT_SUCCESS)
		c->tp->ops->reject(c, false, NULL, 0);
	free(pdata);
out:
	ref_ia_release(ia);
	return rc;
}
