/* SPDX-License-Identifier: MIT */
/*
 * conn_priv.h - helpers shared by ep.c, srq.c, psp.c, rsp.c, cr.c and
 * dto.c only (not part of the interface to the rest of core).
 */
#ifndef REF_CONN_PRIV_H
#define REF_CONN_PRIV_H

#include "conn.h"

/* Test hooks (daplref_test_*) are exported from the shared library. */
#define DAPLREF_EXPORT __attribute__((visibility("default")))
#include "transport.h"

#include <stdlib.h>
#include <string.h>

#define REF_INVALID_PARAM(arg) REF_ERR(DAT_INVALID_PARAMETER, (arg))

static inline struct ref_transport *ref_tp(struct ref_ia *ia)
{
	return ia->transport;
}

static inline const struct ref_transport_ops *ref_ep_ops(struct ref_ep *ep)
{
	return ep->obj.ia->transport->ops;
}

/*
 * Enters an object found with ref_obj_lookup: pins its IA, takes ia->lock
 * (ref_obj_acquire) and re-checks the handle.  Leave with
 * ref_ia_release(ia).
 */
static inline DAT_RETURN ref_enter(struct ref_obj *obj, DAT_HANDLE_TYPE type)
{
	struct ref_obj *o;

	return ref_obj_acquire((DAT_HANDLE)obj, type, 0, &o);
}

/*
 * ref_lookup_ep and ref_enter in one: the EP of @h, its IA pinned and
 * locked (one table lookup where both take three; for the data path).
 * Leave with ref_ia_release(ep->obj.ia).
 */
static inline DAT_RETURN ref_acquire_ep(DAT_EP_HANDLE h, struct ref_ep **ep)
{
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_acquire(h, DAT_HANDLE_TYPE_EP, 0, &obj);

	if (rc == DAT_SUCCESS)
		*ep = ref_container_of(obj, struct ref_ep, obj);
	return rc;
}

/* Lookups that also take nothing; the caller locks obj->ia afterwards. */
DAT_RETURN ref_lookup_ep(DAT_EP_HANDLE h, struct ref_ep **ep);
DAT_RETURN ref_lookup_evd(DAT_EVD_HANDLE h, DAT_EVD_FLAGS need,
			  DAT_RETURN_SUBTYPE subtype, struct ref_ia *ia,
			  struct ref_evd **evd);

/* DAT_INVALID_STATE with the subtype naming the EP's state. */
DAT_RETURN ref_ep_state_error(const struct ref_ep *ep);

/* Event helpers (lock held).  Return false if the event was dropped. */
bool ref_post_event(struct ref_evd *evd, const DAT_EVENT *ev, void *tag,
		    bool notify);
void ref_ep_conn_event(struct ref_ep *ep, DAT_EVENT_NUMBER num,
		       const void *pdata, DAT_COUNT len);

/* ---- ep.c ---- */
/* Creates an EP object (provider-created EPs of PSP/RSP use it too). */
DAT_RETURN ref_ep_new(struct ref_ia *ia, struct ref_pz *pz,
		      struct ref_evd *recv, struct ref_evd *req,
		      struct ref_evd *conn, struct ref_srq *srq,
		      const DAT_EP_ATTR *attr, bool provider,
		      struct ref_ep **out);
/* Frees an EP object without any event (dat_ep_free, provider EPs). */
void ref_ep_delete(struct ref_ep *ep);
/* Connection gone: state DISCONNECTED, flush all, connection event. */
void ref_ep_disconnected(struct ref_ep *ep, DAT_EVENT_NUMBER ev);
/* Graceful disconnect finishes once the request queue drained. */
void ref_ep_finish_graceful(struct ref_ep *ep);
/* Break the connection (hostile peer, DTO error, hard watermark). */
void ref_ep_break(struct ref_ep *ep);
/* The accepting EP learns that its peer confirmed: CONNECTED, ESTABLISHED. */
void ref_ep_confirmed(struct ref_ep *ep);
/* Default attributes for dat_ep_create(NULL) and provider EPs. */
void ref_ep_default_attr(const struct ref_ia *ia, DAT_EP_ATTR *attr);
/* Receive-side accounting after a buffer arrived at / left the EP. */
void ref_ep_check_watermarks(struct ref_ep *ep);
DAT_COUNT ref_ep_recv_held(const struct ref_ep *ep);

/* ---- dto.c ---- */
struct ref_dto *ref_dto_new(struct ref_ep *ep, enum ref_wr_op op);
void ref_dto_free(struct ref_dto *dto);
void ref_ep_free_spare_dtos(struct ref_ep *ep);
/* Completes a DTO: event (per flags), SRQ accounting, frees it. */
void ref_dto_complete(struct ref_dto *dto, DAT_DTO_COMPLETION_STATUS st,
		      DAT_VLEN len, bool solicited);
/* Flushes everything outstanding on the EP (requests, receives, held). */
void ref_ep_flush(struct ref_ep *ep);
/* Drains finished requests from the head, issues waiting ones. */
void ref_ep_req_progress(struct ref_ep *ep);
/* Takes a receive buffer for an arriving message (SRQ or EP queue). */
struct ref_dto *ref_ep_take_buffer(struct ref_ep *ep, uint64_t msn);
/* Resume transport reads stalled for lack of a buffer. */
void ref_ep_rx_resume(struct ref_ep *ep);
/* Deletes held messages (test hooks) without delivering them. */
void ref_ep_drop_held(struct ref_ep *ep);

/* ---- srq.c ---- */
void ref_srq_buffer_taken(struct ref_srq *srq);
void ref_srq_resume_eps(struct ref_srq *srq);

/* ---- cr.c ---- */
DAT_RETURN ref_cr_deliver(struct ref_obj *sp, struct ref_tp_conn *c,
			  const struct sockaddr *peer, DAT_PORT_QUAL peer_port,
			  DAT_CONN_QUAL qual, const void *pdata,
			  DAT_COUNT pdata_len);
void ref_cr_delete(struct ref_cr *cr);

/* ---- psp.c / rsp.c ---- */
/* Finds a PSP or RSP of @ia listening on @qual (for dat_cr_handoff). */
struct ref_obj *ref_sp_find(struct ref_ia *ia, DAT_CONN_QUAL qual);
/* RSP fired: it is destroyed (the CR arrival event names no SP). */
void ref_rsp_consumed(struct ref_rsp *rsp);

#endif /* REF_CONN_PRIV_H */
