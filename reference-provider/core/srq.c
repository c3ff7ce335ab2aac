/* SPDX-License-Identifier: MIT */
/*
 * srq.c - shared receive queues.
 *
 * Accounting (docs/reference-provider.md "SRQ accounting"): every buffer
 * posted to the SRQ is in exactly one place -
 *   on the SRQ (srq->free_q, counted by `available`),
 *   taken by an EP for an arriving message (that EP's rx_alloc),
 *   completed, its event queued on the recv EVD but not yet reaped
 *   (srq->completed; tagged event, see ref_srq_event_reaped()).
 * `outstanding` counts all three; it drops when the Consumer dequeues the
 * completion (or the event is dropped/discarded), which is the
 * dat_srq_query USAGE example: 10/3/3 -> arrival 10/2/3 -> reap 10/2/2.
 * dat_srq_resize never goes below `outstanding` or the low watermark.
 */
#include "conn_priv.h"

#include <time.h>

static DAT_RETURN lookup_srq(DAT_SRQ_HANDLE h, struct ref_srq **srq)
{
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_lookup(h, DAT_HANDLE_TYPE_SRQ, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	*srq = ref_container_of(obj, struct ref_srq, obj);
	return DAT_SUCCESS;
}

static void lw_event(struct ref_srq *srq)
{
	if (srq->lw_armed && srq->available < srq->low_watermark) {
		srq->lw_armed = false;
		ref_ia_post_async(srq->obj.ia, REF_ASYNC_SRQ_EVENT,
				  (DAT_HANDLE)srq, DAT_SRQ_LOW_WATERMARK_EVENT);
	}
}

void ref_srq_buffer_taken(struct ref_srq *srq)
{
	/* dat_srq_set_lw(3DAT): once, when an EP's take leaves fewer
	 * buffers than the watermark. */
	lw_event(srq);
}

void ref_srq_resume_eps(struct ref_srq *srq)
{
	struct ref_list *pos, *tmp;

	ref_list_for_each_safe(pos, tmp, &srq->eps) {
		struct ref_ep *ep = ref_container_of(pos, struct ref_ep,
						     srq_link);

		ref_ep_rx_resume(ep);
	}
}

/* Orphans completed-but-unreaped buffers: their events stay on the EVDs
 * and free the records when reaped or discarded. */
static void srq_teardown(struct ref_srq *srq)
{
	/* a hardware transport drops its SRQ (ref.h) */
	ref_conn_srq_free(srq->obj.ia, srq);
	while (!ref_list_empty(&srq->free_q)) {
		struct ref_dto *dto = ref_container_of(srq->free_q.next,
						       struct ref_dto, link);

		ref_list_del(&dto->link);
		ref_dto_free(dto);
	}
	while (!ref_list_empty(&srq->completed)) {
		struct ref_dto *dto = ref_container_of(srq->completed.next,
						       struct ref_dto, link);

		ref_list_del(&dto->link);
		dto->srq = NULL;
		/* its EP may be gone (the SRQ was free to go): the event's
		 * reaping must not give the DTO to that EP's spares */
		dto->ep = NULL;
	}
	ref_obj_unregister(&srq->obj);
	ref_obj_free(srq);
}

static void srq_destroy_cb(struct ref_obj *obj)
{
	/* abrupt dat_ia_close: the PZ may be gone already */
	srq_teardown(ref_container_of(obj, struct ref_srq, obj));
}

/* Deepest SRQ: core's limit, or the device's where lower. */
static DAT_COUNT max_depth(const struct ref_ia *ia)
{
	return ref_ia_limit(ref_profile.max_recv_per_srq, ia->ia_attr.max_recv_per_srq);
}

DAT_RETURN ref_srq_create(DAT_IA_HANDLE iah, DAT_PZ_HANDLE pzh,
			  DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *out)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_pz *pz;
	struct ref_srq *srq;
	DAT_RETURN rc = ref_obj_lookup(iah, DAT_HANDLE_TYPE_IA, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	rc = ref_obj_lookup(pzh, DAT_HANDLE_TYPE_PZ, &obj);
	if (rc != DAT_SUCCESS || obj->ia != ia)
		return REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	pz = ref_container_of(obj, struct ref_pz, obj);
	if (!attr)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	if (!out)
		return REF_INVALID_PARAM(DAT_INVALID_ARG4);
	if (!ref_profile.srq_supported)	/* profile: no SRQs at all */
		return REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	if (attr->max_recv_dtos <= 0 ||
	    attr->max_recv_iov < 0 ||
	    attr->max_recv_iov > ref_ia_limit(ref_profile.max_iov,
				ia->ia_attr.max_iov_segments_per_dto) ||
	    attr->low_watermark < 0 ||
	    attr->low_watermark > attr->max_recv_dtos)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	if (attr->max_recv_dtos > max_depth(ia))
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);

	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	if (ia->count[DAT_HANDLE_TYPE_SRQ] >= ref_profile.max_srqs) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
		goto out;
	}
	srq = ref_obj_alloc(sizeof(*srq));
	if (!srq) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	srq->pz = pz;
	srq->state = DAT_SRQ_STATE_OPERATIONAL;
	srq->max_recv_dtos = attr->max_recv_dtos;
	if (ref_profile.srq_depth_granule > 1) {
		/* profile: depths in whole granules, within the maximum */
		DAT_COUNT g = ref_profile.srq_depth_granule;
		DAT_COUNT up = (attr->max_recv_dtos + g - 1) / g * g;

		srq->max_recv_dtos = up <= max_depth(ia) ? up : max_depth(ia);
	}
	srq->max_recv_iov = attr->max_recv_iov > 0 ? attr->max_recv_iov : 1;
	srq->low_watermark = attr->low_watermark;
	srq->lw_armed = attr->low_watermark > 0;
	ref_list_init(&srq->free_q);
	ref_list_init(&srq->eps);
	ref_list_init(&srq->completed);
	ref_obj_register(&srq->obj, DAT_HANDLE_TYPE_SRQ, ia);
	pz->users++;
	srq->obj.destroy = srq_destroy_cb;
	/* A non-default watermark on an empty SRQ fires at once
	 * (dat_srq_create(3DAT) DESCRIPTION). */
	lw_event(srq);
	*out = (DAT_SRQ_HANDLE)srq;
out:
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_srq_free(DAT_SRQ_HANDLE h)
{
	struct ref_srq *srq;
	struct ref_ia *ia;
	DAT_RETURN rc = lookup_srq(h, &srq);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = srq->obj.ia;
	rc = ref_enter(&srq->obj, DAT_HANDLE_TYPE_SRQ);
	if (rc != DAT_SUCCESS)
		return rc;
	if (srq->users > 0) {
		rc = REF_ERR(DAT_INVALID_STATE,
			     DAT_INVALID_STATE_SRQ_IN_USE);
	} else {
		srq->pz->users--;
		if (srq->users > 0) {
			/* freed under its EPs: they let go of it */
			while (!ref_list_empty(&srq->eps)) {
				struct ref_ep *ep = ref_container_of(
					srq->eps.next, struct ref_ep, srq_link);

				ref_list_del(&ep->srq_link);
				ep->srq = NULL;
				ref_ep_streams_sync(ep);
			}
			srq->users = 0;
		}
		srq_teardown(srq);
	}
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_srq_post_recv(DAT_SRQ_HANDLE h, DAT_COUNT nseg,
			     DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie)
{
	struct ref_srq *srq;
	struct ref_ia *ia;
	struct ref_dto *dto;
	DAT_RETURN rc = lookup_srq(h, &srq);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = srq->obj.ia;
	rc = ref_enter(&srq->obj, DAT_HANDLE_TYPE_SRQ);
	if (rc != DAT_SUCCESS)
		return rc;
	if (nseg < 0 || nseg > srq->max_recv_iov) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
		goto out;
	}
	if (nseg > 0 && !iov) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG3);
		goto out;
	}
	if (srq->outstanding >= srq->max_recv_dtos) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
		goto out;
	}
	dto = ref_dto_new(NULL, REF_WR_RECV);
	if (!dto) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	dto->cookie = cookie;
	dto->nseg = nseg;
	dto->length = 0;
	for (DAT_COUNT i = 0; i < nseg; i++) {
		void *ptr = NULL;

		dto->iov[i] = iov[i];
		dto->seg[i].ptr = NULL;
		dto->seg[i].len = iov[i].segment_length;
		dto->seg[i].tp_mem = NULL;
		if (iov[i].segment_length == 0)
			continue;
		rc = ref_mem_check_local(ia, srq->pz, &iov[i],
					 DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &ptr, NULL);
		if (rc != DAT_SUCCESS) {
			ref_dto_free(dto);
			goto out;
		}
		dto->seg[i].ptr = ptr;
		dto->length += iov[i].segment_length;
	}
	dto->srq = srq;
	ref_list_add_tail(&srq->free_q, &dto->link);
	srq->available++;
	srq->outstanding++;
	ref_srq_resume_eps(srq);
out:
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_srq_query(DAT_SRQ_HANDLE h, DAT_SRQ_PARAM_MASK mask,
			 DAT_SRQ_PARAM *p)
{
	DAT_SRQ_PARAM full, *out = NULL;
	struct ref_srq *srq;
	struct ref_ia *ia;
	DAT_RETURN rc = lookup_srq(h, &srq);

	if (rc != DAT_SUCCESS)
		return rc;
	if (((DAT_UINT32)mask & ~(DAT_UINT32)DAT_SRQ_FIELD_ALL))
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (!p)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	ia = srq->obj.ia;
	rc = ref_enter(&srq->obj, DAT_HANDLE_TYPE_SRQ);
	if (rc != DAT_SUCCESS)
		return rc;
	/* dat_srq_query(3DAT) counts a message that has arrived as having
	 * taken its buffer: what the transport already has counts */
	ref_conn_poll(ia);
	if (ref_query_masked()) {
		out = p;
		p = &full;
	}
	p->ia_handle = (DAT_IA_HANDLE)ia;
	p->srq_state = srq->state;
	p->pz_handle = (DAT_PZ_HANDLE)srq->pz;
	p->max_recv_dtos = srq->max_recv_dtos;
	p->max_recv_iov = srq->max_recv_iov;
	p->low_watermark = srq->low_watermark;
	p->available_dto_count = ref_conn_srq_available(ia, srq);
	p->outstanding_dto_count = srq->outstanding;
	if (out)
		ref_profile_masked_copy(REF_Q_SRQ, out, p, mask);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

DAT_RETURN ref_srq_resize(DAT_SRQ_HANDLE h, DAT_COUNT n)
{
	struct ref_srq *srq;
	struct ref_ia *ia;
	DAT_RETURN rc = lookup_srq(h, &srq);

	if (rc != DAT_SUCCESS)
		return rc;
	if (n < 0)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	ia = srq->obj.ia;
	if (n > max_depth(ia))
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
	rc = ref_enter(&srq->obj, DAT_HANDLE_TYPE_SRQ);
	if (rc != DAT_SUCCESS)
		return rc;
	/* dat_srq_resize(3DAT): never below what is outstanding (on the SRQ,
	 * at EPs, completed but unreaped), nor below the low watermark. */
	{
		DAT_COUNT counted = srq->outstanding;

		if (n < counted ||
		    n < srq->low_watermark)
			rc = REF_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		else if (n < srq->max_recv_dtos &&
			 ref_profile.srq_shrink_part_way)
			srq->max_recv_dtos = n + (srq->max_recv_dtos - n) / 2;
		else
			srq->max_recv_dtos = n;
	}
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_srq_set_lw(DAT_SRQ_HANDLE h, DAT_COUNT lw)
{
	struct ref_srq *srq;
	struct ref_ia *ia;
	DAT_RETURN rc = lookup_srq(h, &srq);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = srq->obj.ia;
	rc = ref_enter(&srq->obj, DAT_HANDLE_TYPE_SRQ);
	if (rc != DAT_SUCCESS)
		return rc;
	if (lw < 0 || lw > srq->max_recv_dtos) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
	} else if (!ref_profile.srq_watermarks_supported) {
		rc = REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	} else {
		srq->low_watermark = lw;
		srq->lw_armed = true;
		/* Below it already: the event comes from this call. */
		lw_event(srq);
	}
	ref_ia_release(ia);
	return rc;
}
