/* SPDX-License-Identifier: MIT */
/*
 * dto.c - data transfer: the four post calls, RMR-bind ordering, the
 * receive side of the software RC transport (matching Sends to buffers,
 * target-side RDMA checks), completions, flushing, and the provider test
 * hooks daplref_test_* (docs/reference-provider.md "Test hooks").
 *
 * Requests of an EP sit on ep->req_q in post order.  Each is "issued" to
 * the transport (a request sequence number is assigned) unless a barrier
 * fence or the outstanding RDMA Read limit holds it back; everything after
 * a held-back request waits too, so the wire order is the post order.  A
 * request is "finished" when the peer acknowledged it (Send, RDMA Write),
 * its response was placed (RDMA Read) or it reaches the head (RMR bind);
 * completions are generated strictly from the head of the queue, so a
 * request's completion never overtakes an earlier one.
 */
#include "conn_priv.h"

#include <errno.h>
#include <time.h>


/* A Send held whole by daplref_test_hold_arrivals. */
struct ref_held {
	struct ref_list link;		/* ep->held, in MSN order */
	uint64_t seq, msn, len;
	bool solicited;
	bool complete;			/* every byte arrived */
	struct ref_dto *dto;		/* buffer from daplref_test_arrive_partial */
	uint8_t *data;
};

static void ep_ack(struct ref_ep *ep, uint64_t seq);
static void deliver_held(struct ref_ep *ep);

/* ---- DTO objects --------------------------------------------------------- */

/*
 * An EP keeps a few of its freed DTOs for its next posts: each operation
 * takes one and gives it back, and malloc plus free were a tenth of the
 * instructions of a post and its completion (callgrind, dapltest -T P).
 * SRQ buffers move between EPs and are not kept.  Under AddressSanitizer
 * every DTO goes back to malloc, so a use after free is still seen.
 */
#define SPARE_DTOS	16u

static bool keep_spare(const struct ref_dto *dto)
{
#if defined(__SANITIZE_ADDRESS__)
	(void)dto;
	return false;
#else
	return dto->ep && !dto->srq && dto->ep->spare_count < SPARE_DTOS;
#endif
}

struct ref_dto *ref_dto_new(struct ref_ep *ep, enum ref_wr_op op)
{
	struct ref_dto *dto;

	if (ep && !ref_list_empty(&ep->spare_dtos)) {
		dto = ref_container_of(ep->spare_dtos.next, struct ref_dto,
				       link);
		ref_list_del(&dto->link);
		ep->spare_count--;
	} else {
		dto = malloc(sizeof(*dto));
		if (!dto)
			return NULL;
	}
	memset(dto, 0, offsetof(struct ref_dto, seg));
	ref_list_init(&dto->link);
	dto->op = op;
	dto->ep = ep;
	dto->where = REF_DTO_POSTED;
	return dto;
}

void ref_dto_free(struct ref_dto *dto)
{
	if (keep_spare(dto)) {
		ref_list_add_tail(&dto->ep->spare_dtos, &dto->link);
		dto->ep->spare_count++;
		return;
	}
	free(dto);
}

/* The EP is going away: its spare DTOs go back to malloc. */
void ref_ep_free_spare_dtos(struct ref_ep *ep)
{
	while (!ref_list_empty(&ep->spare_dtos)) {
		struct ref_dto *dto = ref_container_of(ep->spare_dtos.next,
						       struct ref_dto, link);

		ref_list_del(&dto->link);
		free(dto);
	}
	ep->spare_count = 0;
}

#define KNOWN_FLAGS (DAT_COMPLETION_SUPPRESS_FLAG | \
		     DAT_COMPLETION_SOLICITED_WAIT_FLAG | \
		     DAT_COMPLETION_UNSIGNALLED_FLAG | \
		     DAT_COMPLETION_BARRIER_FENCE_FLAG | \
		     DAT_COMPLETION_EVD_THRESHOLD_FLAG)

/* Checks the local segments and records them in @dto. */
static DAT_RETURN dto_fill(struct ref_dto *dto, struct ref_ia *ia,
			   struct ref_pz *pz, DAT_COUNT nseg,
			   const DAT_LMR_TRIPLET *iov,
			   DAT_MEM_PRIV_FLAGS need)
{
	DAT_VLEN total = 0;


	dto->nseg = nseg;
	for (DAT_COUNT i = 0; i < nseg; i++) {
		void *ptr = NULL, *tp_mem = NULL;
		DAT_RETURN rc;

		dto->iov[i] = iov[i];
		if (iov[i].segment_length == 0) {
			dto->seg[i].ptr = NULL;
			dto->seg[i].len = 0;
			dto->seg[i].tp_mem = NULL;
			continue;
		}
		if (!pz)
			return REF_ERR(DAT_PROTECTION_VIOLATION,
				       need == DAT_MEM_PRIV_LOCAL_READ_FLAG ?
				       DAT_PROTECTION_READ :
				       DAT_PROTECTION_WRITE);
		rc = ref_mem_check_local(ia, pz, &iov[i], need, &ptr, &tp_mem);
		if (rc != DAT_SUCCESS)
			return rc;
		dto->seg[i].ptr = ptr;
		dto->seg[i].len = iov[i].segment_length;
		dto->seg[i].tp_mem = tp_mem;
		if (total + iov[i].segment_length < total)
			return REF_ERR(DAT_LENGTH_ERROR, 0);
		total += iov[i].segment_length;
	}
	dto->length = total;
	return DAT_SUCCESS;
}

/* Fills @iov with the first @len bytes of the DTO's segments. */
static int dto_iov(const struct ref_dto *dto, uint64_t len, struct iovec *iov,
		   int max)
{
	int n = 0;

	for (int j = 0; j < dto->nseg && len > 0 && n < max; j++) {
		const struct ref_seg *seg = &dto->seg[j];
		uint64_t k = seg->len;

		if (k == 0)
			continue;
		if (k > len)
			k = len;
		iov[n].iov_base = seg->ptr;
		iov[n].iov_len = (size_t)k;
		len -= k;
		n++;
	}
	return n;
}

/* Copies @len bytes of @src into the DTO's segments (held messages). */
static void dto_copy_in(struct ref_dto *dto, const uint8_t *src, uint64_t len)
{
	for (int i = 0; i < dto->nseg && len > 0; i++) {
		uint64_t k = dto->seg[i].len;

		if (k > len)
			k = len;
		if (k)
			memcpy(dto->seg[i].ptr, src, (size_t)k);
		src += k;
		len -= k;
	}
}

/* ---- completions --------------------------------------------------------- */

void ref_dto_complete(struct ref_dto *dto, DAT_DTO_COMPLETION_STATUS st,
		      DAT_VLEN len, bool solicited)
{
	struct ref_ep *ep = dto->ep;
	DAT_EVENT ev;
	struct ref_evd *evd;
	bool notify = true;

	memset(&ev, 0, sizeof(ev));
	if (dto->op == REF_WR_RECV) {
		evd = ep ? ep->recv_evd : NULL;
		if (st == DAT_DTO_SUCCESS && ep &&
		    ep->attr.recv_completion_flags ==
			    DAT_COMPLETION_SOLICITED_WAIT_FLAG && !solicited)
			notify = false;
		if (st == DAT_DTO_SUCCESS && !dto->srq &&
		    (dto->flags & DAT_COMPLETION_UNSIGNALLED_FLAG))
			notify = false;
	} else {
		evd = ep ? ep->request_evd : NULL;
		if (st == DAT_DTO_SUCCESS &&
		    (dto->flags & DAT_COMPLETION_SUPPRESS_FLAG)) {
			ref_dto_free(dto);
			return;
		}
		if (st == DAT_DTO_SUCCESS &&
		    (dto->flags & DAT_COMPLETION_UNSIGNALLED_FLAG))
			notify = false;
	}
	ev.evd_handle = (DAT_EVD_HANDLE)evd;
	if (dto->op == REF_WR_BIND) {
		ev.event_number = DAT_RMR_BIND_COMPLETION_EVENT;
		ev.event_data.rmr_completion_event_data.rmr_handle = dto->rmr;
		ev.event_data.rmr_completion_event_data.user_cookie =
			dto->cookie;
		ev.event_data.rmr_completion_event_data.status = st;
	} else {
		ev.event_number = DAT_DTO_COMPLETION_EVENT;
		ev.event_data.dto_completion_event_data.ep_handle =
			(DAT_EP_HANDLE)ep;
		ev.event_data.dto_completion_event_data.user_cookie =
			dto->cookie;
		ev.event_data.dto_completion_event_data.status = st;
		ev.event_data.dto_completion_event_data.transfered_length =
			st == DAT_DTO_SUCCESS ? len : 0;
		if (ref_profile.dto_length_where_defined &&
		    (dto->op != REF_WR_RECV || st != DAT_DTO_SUCCESS))
			ev.event_data.dto_completion_event_data.transfered_length =
				0x5eed5eed;	/* no page defines it here */
		ref_abi_fill_dto_event(&ev, dto->op);
	}
	if (dto->srq) {
		/* Counted as outstanding until the Consumer reaps the event
		 * (dat_srq_query / dat_srq_resize). */
		struct ref_srq *srq = dto->srq;

		dto->where = REF_DTO_COMPLETED;
		ref_list_add_tail(&srq->completed, &dto->link);
		if (!ref_post_event(evd, &ev, dto, notify)) {
			ref_list_del(&dto->link);
			srq->outstanding--;
			ref_dto_free(dto);
		}
		return;
	}
	if (evd)
		ref_post_event(evd, &ev, NULL, notify);
	ref_dto_free(dto);
}

void ref_srq_event_reaped(void *tag, bool reaped)
{
	struct ref_dto *dto = tag;

	(void)reaped;
	if (dto->srq) {
		dto->srq->outstanding--;
		ref_list_del(&dto->link);
	}
	ref_dto_free(dto);
}

/* Removes a receive buffer from the EP's allocation list. */
static void rx_unalloc(struct ref_ep *ep, struct ref_dto *dto)
{
	ref_list_del(&dto->link);
	ep->rx_alloc_count--;
	if (!dto->srq)
		ep->recv_count--;
}

void ref_ep_drop_held(struct ref_ep *ep)
{
	while (!ref_list_empty(&ep->held)) {
		struct ref_held *h = ref_container_of(ep->held.next,
						      struct ref_held, link);

		ref_list_del(&h->link);
		if (ep->rx_cur_held == h)
			ep->rx_cur_held = NULL;
		free(h->data);
		free(h);
	}
	ep->held_count = 0;
	pthread_cond_broadcast(&ep->held_cond);
}

void ref_ep_flush(struct ref_ep *ep)
{
	/* Requests in post order; nothing after a failure succeeds. */
	while (!ref_list_empty(&ep->req_q)) {
		struct ref_dto *dto = ref_container_of(ep->req_q.next,
						       struct ref_dto, link);
		DAT_DTO_COMPLETION_STATUS st = DAT_DTO_ERR_FLUSHED;

		ref_list_del(&dto->link);
		ep->req_count--;
		ref_dto_complete(dto, st, 0, true);
	}
	ep->rdma_read_out = 0;
	ep->rx_read = NULL;
	ref_ep_drop_held(ep);
	/* Buffers taken for arriving messages (MSN order), then the rest. */
	while (!ref_list_empty(&ep->rx_alloc)) {
		struct ref_dto *dto = ref_container_of(ep->rx_alloc.next,
						       struct ref_dto, link);

		rx_unalloc(ep, dto);
		ref_dto_complete(dto, DAT_DTO_ERR_FLUSHED, 0, true);
	}
	while (!ref_list_empty(&ep->recv_q)) {
		struct ref_dto *dto = ref_container_of(
			ep->recv_q.next, struct ref_dto, link);

		ref_list_del(&dto->link);
		ep->recv_count--;
		ref_dto_complete(dto, DAT_DTO_ERR_FLUSHED, 0, true);
	}
	ep->ack_deferred = 0;
}

/* ---- request stream -------------------------------------------------------- */

static bool can_issue(struct ref_ep *ep)
{
	return ep->conn && (ep->state == DAT_EP_STATE_CONNECTED ||
			    ep->state == DAT_EP_STATE_DISCONNECT_PENDING);
}

static void issue_requests(struct ref_ep *ep)
{
	struct ref_list *pos;
	DAT_COUNT read_limit = ep->attr.max_rdma_read_out > 0 ?
			       ep->attr.max_rdma_read_out : 1;
	struct ref_list *start = &ep->req_q;

	/*
	 * Start after the last request this loop issued: everything before
	 * it is issued (the loop issues in queue order and stops at the
	 * first it holds back; binds are issued when posted, so they may
	 * follow a held-back request and are stepped over).  Walking from
	 * the head made each post and each ack O(requests in flight).
	 */
	for (pos = ep->req_q.prev; pos != &ep->req_q; pos = pos->prev) {
		struct ref_dto *d = ref_container_of(pos, struct ref_dto, link);

		if (d->issued && d->op != REF_WR_BIND) {
			start = pos;
			break;
		}
	}
	for (pos = start->next; pos != &ep->req_q; pos = pos->next) {
		struct ref_dto *dto = ref_container_of(pos, struct ref_dto,
						       link);
		const struct ref_transport_ops *ops;
		int rc = 0;

		if (!can_issue(ep))
			return;
		if (dto->issued)
			continue;
		if ((dto->flags & DAT_COMPLETION_BARRIER_FENCE_FLAG) &&
		    ep->rdma_read_out > 0)
			return;
		if (dto->op == REF_WR_RDMA_READ &&
		    ep->rdma_read_out >= read_limit)
			return;
		ops = ep->conn->tp->ops;
		dto->issued = true;
		switch (dto->op) {
		case REF_WR_SEND:
			dto->seq = ep->next_req_seq++;
			rc = ops->send(ep->conn, dto->seq, ep->tx_next_msn++,
				       (dto->flags &
					DAT_COMPLETION_SOLICITED_WAIT_FLAG),
				       dto);
			break;
		case REF_WR_RDMA_WRITE:
			dto->seq = ep->next_req_seq++;
			rc = ops->rdma_write(ep->conn, dto->seq, dto);
			break;
		case REF_WR_RDMA_READ:
			dto->seq = ep->next_req_seq++;
			ep->rdma_read_out++;
			rc = ops->rdma_read(ep->conn, dto->seq, dto);
			break;
		default:
			break;
		}
		if (rc < 0)
			return;	/* dying connection; its upcall flushes */
	}
}

static bool request_precheck_state(const struct ref_ep *ep)
{
	return ep->state == DAT_EP_STATE_CONNECTED ||
	       ep->state == DAT_EP_STATE_DISCONNECTED;
}

void ref_ep_req_progress(struct ref_ep *ep)
{
	while (!ref_list_empty(&ep->req_q)) {
		struct ref_dto *dto = ref_container_of(ep->req_q.next,
						       struct ref_dto, link);

		if (!dto->finished)
			break;
		ref_list_del(&dto->link);
		ep->req_count--;
		if (dto->op == REF_WR_BIND && dto->status != DAT_DTO_SUCCESS) {
			/* dat_rmr_bind.3dat: a bind failing after the call
			 * returned breaks the connection */
			ref_dto_complete(dto, dto->status, dto->done, true);
			ref_ep_break(ep);
			continue;
		}
		ref_dto_complete(dto, dto->status, dto->done, true);
	}
	ref_ep_finish_graceful(ep);
	issue_requests(ep);
}

/* Common checks of the four request posts (@op), against the EP's
 * segment limit of that kind of request. */
static DAT_RETURN request_precheck(struct ref_ep *ep, enum ref_wr_op op,
				   DAT_COMPLETION_FLAGS flags,
				   DAT_COUNT nseg, const DAT_LMR_TRIPLET *iov)
{
	DAT_COUNT max_iov = op == REF_WR_SEND ? ep->attr.max_request_iov :
			    op == REF_WR_RDMA_WRITE ? ep->attr.max_rdma_write_iov :
			    op == REF_WR_RDMA_READ ? ep->attr.max_rdma_read_iov : 0;
	/* dat_ep_post_send takes the flags fifth; the RDMA posts and
	 * dat_rmr_bind sixth */
	DAT_RETURN_SUBTYPE flags_arg = op == REF_WR_SEND ? DAT_INVALID_ARG5
							 : DAT_INVALID_ARG6;

	if (!request_precheck_state(ep))
		return ref_ep_state_error(ep);
	if ((DAT_UINT32)flags & ~(DAT_UINT32)KNOWN_FLAGS)
		return REF_INVALID_PARAM(flags_arg);
	if ((flags & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
	    ep->attr.request_completion_flags !=
		    DAT_COMPLETION_UNSIGNALLED_FLAG)
		return REF_INVALID_PARAM(flags_arg);
	if (nseg < 0 || nseg > max_iov || nseg > ref_profile.max_iov)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (nseg > 0 && !iov)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	if (ep->req_count >= ep->attr.max_request_dtos)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	return DAT_SUCCESS;
}

/* Queues a checked request; flushed at once when DISCONNECTED. */
static void request_post(struct ref_ep *ep, struct ref_dto *dto)
{
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		ref_dto_complete(dto, DAT_DTO_ERR_FLUSHED, 0, true);
		return;
	}
	ref_list_add_tail(&ep->req_q, &dto->link);
	ep->req_count++;
	ref_ep_req_progress(ep);
}

static DAT_RETURN post_request(DAT_EP_HANDLE eph, enum ref_wr_op op,
			       DAT_COUNT nseg, DAT_LMR_TRIPLET *iov,
			       DAT_DTO_COOKIE cookie,
			       const DAT_RMR_TRIPLET *remote,
			       DAT_COMPLETION_FLAGS flags)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	struct ref_dto *dto;
	DAT_RETURN rc = ref_acquire_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ep->obj.ia;
	rc = request_precheck(ep, op, flags, nseg, iov);
	if (rc != DAT_SUCCESS)
		goto out;
	if (op != REF_WR_SEND && !remote) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG5);
		goto out;
	}
	dto = ref_dto_new(ep, op);
	if (!dto) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	dto->cookie = cookie;
	dto->flags = flags;
	rc = dto_fill(dto, ia, ep->pz, nseg, iov,
		      op == REF_WR_RDMA_READ ? DAT_MEM_PRIV_LOCAL_WRITE_FLAG
					     : DAT_MEM_PRIV_LOCAL_READ_FLAG);
	if (rc == DAT_SUCCESS) {
		switch (op) {
		case REF_WR_SEND:
			if (dto->length > ep->attr.max_message_size)
				rc = REF_ERR(DAT_LENGTH_ERROR, 0);
			break;
		case REF_WR_RDMA_WRITE:
			dto->remote = *remote;
			if (dto->length > ep->attr.max_rdma_size ||
			    dto->length > remote->segment_length)
				rc = REF_ERR(DAT_LENGTH_ERROR, 0);
			break;
		case REF_WR_RDMA_READ:
			dto->remote = *remote;
			if (remote->segment_length > ep->attr.max_rdma_size ||
			    remote->segment_length > dto->length)
				rc = REF_ERR(DAT_LENGTH_ERROR, 0);
			break;
		default:
			break;
		}
	}
	if (rc != DAT_SUCCESS) {
		ref_dto_free(dto);
		goto out;
	}
	if (op == REF_WR_RDMA_READ)
		dto->done = remote->segment_length;
	else
		dto->done = dto->length;
	ep->posting = dto;
	request_post(ep, dto);
	ep->posting = NULL;
out:
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT nseg,
			    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    DAT_COMPLETION_FLAGS flags)
{
	return post_request(ep, REF_WR_SEND, nseg, iov, cookie, NULL, flags);
}

DAT_RETURN ref_ep_post_rdma_read(DAT_EP_HANDLE ep, DAT_COUNT nseg,
				 DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				 const DAT_RMR_TRIPLET *remote,
				 DAT_COMPLETION_FLAGS flags)
{
	return post_request(ep, REF_WR_RDMA_READ, nseg, iov, cookie, remote,
			    flags);
}

DAT_RETURN ref_ep_post_rdma_write(DAT_EP_HANDLE ep, DAT_COUNT nseg,
				  DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				  const DAT_RMR_TRIPLET *remote,
				  DAT_COMPLETION_FLAGS flags)
{
	return post_request(ep, REF_WR_RDMA_WRITE, nseg, iov, cookie, remote,
			    flags);
}

DAT_RETURN ref_ep_bind_check(struct ref_ep *ep, DAT_COMPLETION_FLAGS flags)
{
	return request_precheck(ep, REF_WR_BIND, flags, 0, NULL);
}

void ref_ep_bind_complete(struct ref_ep *ep, DAT_RMR_HANDLE rmr,
			  DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags)
{
	struct ref_dto *dto = ref_dto_new(ep, REF_WR_BIND);

	if (!dto)
		return;
	dto->rmr = rmr;
	dto->cookie = cookie;
	dto->flags = flags;
	dto->issued = true;
	dto->finished = true;
	dto->status = DAT_DTO_SUCCESS;
	if (ep->fail_next_bind && ep->state != DAT_EP_STATE_DISCONNECTED) {
		/* daplref_test_fail_next_bind: the bind fails when carried out */
		ep->fail_next_bind = false;
		dto->status = DAT_RMR_OPERATION_FAILED;
	}
	request_post(ep, dto);
}

/* ---- receives ---------------------------------------------------------------- */

DAT_RETURN ref_ep_post_recv(DAT_EP_HANDLE eph, DAT_COUNT nseg,
			    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    DAT_COMPLETION_FLAGS flags)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	struct ref_dto *dto;
	DAT_RETURN rc = ref_acquire_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ep->obj.ia;
	if (ep->srq) {
		/* dat_ep_create_with_srq: receives go to the SRQ only */
		rc = REF_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out;
	}
	if (((DAT_UINT32)flags & ~(DAT_UINT32)KNOWN_FLAGS) ||
	    (flags & (DAT_COMPLETION_SUPPRESS_FLAG |
		      DAT_COMPLETION_BARRIER_FENCE_FLAG)) ||
	    ((flags & DAT_COMPLETION_UNSIGNALLED_FLAG) &&
	     ep->attr.recv_completion_flags !=
		     DAT_COMPLETION_UNSIGNALLED_FLAG)) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG5);
		goto out;
	}
	if (nseg < 0 || nseg > ep->attr.max_recv_iov ||
	    nseg > ref_profile.max_iov) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
		goto out;
	}
	if (nseg > 0 && !iov) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG3);
		goto out;
	}
	if (ep->recv_count >= ep->attr.max_recv_dtos) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	dto = ref_dto_new(ep, REF_WR_RECV);
	if (!dto) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	dto->cookie = cookie;
	dto->flags = flags;
	rc = dto_fill(dto, ia, ep->pz, nseg, iov,
		      DAT_MEM_PRIV_LOCAL_WRITE_FLAG);
	if (rc != DAT_SUCCESS) {
		ref_dto_free(dto);
		goto out;
	}
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		/* dat_ep_post_recv(3DAT): flushed at once */
		ref_dto_complete(dto, DAT_DTO_ERR_FLUSHED, 0, true);
		goto out;
	}
	ref_list_add_tail(&ep->recv_q, &dto->link);
	ep->recv_count++;
	ref_ep_check_watermarks(ep);
	ep->posting = dto;
	ref_ep_rx_resume(ep);
	ep->posting = NULL;
out:
	ref_ia_release(ia);
	return rc;
}

void ref_ep_rx_resume(struct ref_ep *ep)
{
	if (!ref_list_empty(&ep->held) && !ep->hold_arrivals)
		deliver_held(ep);
	if (ep->rx_stalled && ep->conn) {
		ep->rx_stalled = false;
		ep->conn->tp->ops->rx_resume(ep->conn);
	}
}

/* Inserts @dto into ep->rx_alloc keeping MSN order. */
static void rx_alloc_insert(struct ref_ep *ep, struct ref_dto *dto)
{
	struct ref_list *pos = ep->rx_alloc.prev;

	while (pos != &ep->rx_alloc &&
	       ref_container_of(pos, struct ref_dto, link)->seq > dto->seq)
		pos = pos->prev;
	/* insert after pos */
	dto->link.next = pos->next;
	dto->link.prev = pos;
	pos->next->prev = &dto->link;
	pos->next = &dto->link;
	ep->rx_alloc_count++;
}

struct ref_dto *ref_ep_take_buffer(struct ref_ep *ep, uint64_t msn)
{
	struct ref_dto *dto;

	if (ep->srq) {
		struct ref_srq *srq = ep->srq;

		/* dat_srq_post_recv(3DAT) USAGE: only Connected or
		 * Disconnect Pending EPs take buffers from the SRQ. */
		if ((ep->state != DAT_EP_STATE_CONNECTED &&
		     ep->state != DAT_EP_STATE_DISCONNECT_PENDING) ||
		    ref_list_empty(&srq->free_q))
			return NULL;
		dto = ref_container_of(srq->free_q.next, struct ref_dto, link);
		ref_list_del(&dto->link);
		srq->available--;
		dto->ep = ep;
		dto->where = REF_DTO_ALLOCATED;
		dto->seq = msn;
		rx_alloc_insert(ep, dto);
		ref_srq_buffer_taken(srq);
	} else {
		if (ref_list_empty(&ep->recv_q))
			return NULL;
		dto = ref_container_of(ep->recv_q.next, struct ref_dto, link);
		ref_list_del(&dto->link);
		dto->where = REF_DTO_ALLOCATED;
		dto->seq = msn;
		rx_alloc_insert(ep, dto);
	}
	return dto;
}

/* Target-side acknowledgement, held back behind held messages. */
static void ep_ack(struct ref_ep *ep, uint64_t seq)
{
	if (!ep->conn)
		return;
	if (!ref_list_empty(&ep->held)) {
		if (seq + 1 > ep->ack_deferred)
			ep->ack_deferred = seq + 1;
		return;
	}
	ep->conn->tp->ops->ack(ep->conn, seq);
}

/* A receive got a message longer than the buffer: completes it with a
 * length error, tells the sender, breaks the connection (RC semantics). */
static void rx_length_error(struct ref_ep *ep, struct ref_dto *dto,
			    uint64_t seq)
{
	rx_unalloc(ep, dto);
	ref_dto_complete(dto, DAT_DTO_ERR_LOCAL_LENGTH, 0, true);
	if (ep->conn)
		ep->conn->tp->ops->nak(ep->conn, seq,
				       DAT_DTO_ERR_REMOTE_RESPONDER);
	ref_ep_break(ep);
}

/*
 * A request from the peer reaches an accepting EP whose peer's confirmation
 * it has not taken (daplref_test_hold_confirmation): the peer is connected,
 * so the request confirms the connection, as a first message does on an
 * InfiniBand connection whose confirmation was lost.
 */
static void peer_request_arrives(struct ref_ep *ep)
{
	if (ep->state == DAT_EP_STATE_COMPLETION_PENDING)
		ref_ep_confirmed(ep);
}

int ref_tp_rx_send_begin(struct ref_ep *ep, uint64_t seq, uint64_t msn,
			 uint64_t len, bool solicited, struct iovec *iov,
			 int max, void **rx)
{
	struct ref_dto *dto;

	peer_request_arrives(ep);
	ep->rx_cur_held = NULL;
	ep->rx_cur_seq = seq;
	ep->rx_cur_solicited = solicited;
	if (ep->hold_arrivals || !ref_list_empty(&ep->held)) {
		struct ref_held *h = calloc(1, sizeof(*h));

		if (!h || (len && !(h->data = malloc((size_t)len)))) {
			free(h);
			ref_ep_break(ep);
			return 0;
		}
		h->seq = seq;
		h->msn = msn;
		h->len = len;
		h->solicited = solicited;
		ref_list_add_tail(&ep->held, &h->link);
		ep->rx_cur_held = h;
		*rx = h;
		if (len == 0)
			return 0;
		iov[0].iov_base = h->data;
		iov[0].iov_len = (size_t)len;
		return 1;
	}
	dto = ref_ep_take_buffer(ep, msn);
	if (!dto) {
		ep->rx_stalled = true;	/* wait for a buffer (RNR) */
		return -1;
	}
	ref_ep_check_watermarks(ep);
	if (ep->state != DAT_EP_STATE_CONNECTED &&
	    ep->state != DAT_EP_STATE_DISCONNECT_PENDING)
		return 0;
	if (len > dto->length) {
		rx_length_error(ep, dto, seq);
		return 0;
	}
	dto->done = len;
	*rx = dto;
	return dto_iov(dto, len, iov, max);
}

static void rx_complete(struct ref_ep *ep, struct ref_dto *dto,
			uint64_t seq, bool solicited)
{
	rx_unalloc(ep, dto);
	ep->rx_next_msn = dto->seq + 1;
	ref_dto_complete(dto, DAT_DTO_SUCCESS, dto->done, solicited);
	ep_ack(ep, seq);
}

void ref_tp_rx_send_end(struct ref_ep *ep, void *rx)
{
	if (rx && rx == ep->rx_cur_held) {
		struct ref_held *h = rx;

		ep->rx_cur_held = NULL;
		h->complete = true;
		ep->held_count++;
		pthread_cond_broadcast(&ep->held_cond);
		if (!ep->hold_arrivals)
			deliver_held(ep);
		return;
	}
	if (rx)
		rx_complete(ep, rx, ep->rx_cur_seq, ep->rx_cur_solicited);
}

/* Delivers held messages in MSN order while buffers last. */
static void deliver_held(struct ref_ep *ep)
{
	while (!ref_list_empty(&ep->held)) {
		struct ref_held *h = ref_container_of(ep->held.next,
						      struct ref_held, link);
		struct ref_dto *dto = h->dto;

		if (!h->complete)
			return;
		if (!dto) {
			dto = ref_ep_take_buffer(ep, h->msn);
			if (!dto) {
				ep->rx_stalled = true;
				return;
			}
			if (ep->state != DAT_EP_STATE_CONNECTED &&
			    ep->state != DAT_EP_STATE_DISCONNECT_PENDING)
				return;
			ref_ep_check_watermarks(ep);
			if (ep->state != DAT_EP_STATE_CONNECTED &&
			    ep->state != DAT_EP_STATE_DISCONNECT_PENDING)
				return;
		}
		ref_list_del(&h->link);
		ep->held_count--;
		if (h->len > dto->length) {
			uint64_t seq = h->seq;

			free(h->data);
			free(h);
			rx_length_error(ep, dto, seq);
			return;
		}
		dto_copy_in(dto, h->data, h->len);
		dto->done = h->len;
		rx_unalloc(ep, dto);
		ep->rx_next_msn = dto->seq + 1;
		ref_dto_complete(dto, DAT_DTO_SUCCESS, dto->done,
				 h->solicited);
		if (ep->conn)
			ep->conn->tp->ops->ack(ep->conn, h->seq);
		free(h->data);
		free(h);
	}
	if (ep->ack_deferred && ep->conn) {
		uint64_t seq = ep->ack_deferred - 1;

		ep->ack_deferred = 0;
		ep->conn->tp->ops->ack(ep->conn, seq);
	}
}

/* ---- RDMA, target side ------------------------------------------------------- */

static bool data_state(const struct ref_ep *ep)
{
	return ep->state == DAT_EP_STATE_CONNECTED ||
	       ep->state == DAT_EP_STATE_DISCONNECT_PENDING;
}

int ref_tp_rx_write_begin(struct ref_ep *ep, uint64_t seq,
			  DAT_RMR_CONTEXT ctx, DAT_VADDR addr, uint64_t len,
			  struct iovec *iov, int max)
{
	DAT_DTO_COMPLETION_STATUS st;
	void *ptr = NULL;

	(void)max;
	peer_request_arrives(ep);
	if (!data_state(ep) || len == 0)
		return 0;
	/* The window is checked before a single byte is placed. */
	st = ref_mem_check_remote(ep->obj.ia, ep, ctx, addr, len,
				  DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &ptr);
	if (st != DAT_DTO_SUCCESS) {
		if (ep->conn)
			ep->conn->tp->ops->nak(ep->conn, seq, st);
		ref_ep_break(ep);
		return 0;
	}
	iov[0].iov_base = ptr;
	iov[0].iov_len = (size_t)len;
	return 1;
}

void ref_tp_rx_write_end(struct ref_ep *ep, uint64_t seq)
{
	if (data_state(ep))
		ep_ack(ep, seq);
}

void ref_tp_rx_read_req(struct ref_ep *ep, uint64_t seq, DAT_RMR_CONTEXT ctx,
			DAT_VADDR addr, uint64_t len)
{
	DAT_DTO_COMPLETION_STATUS st = DAT_DTO_SUCCESS;
	struct iovec iov = { NULL, 0 };
	void *ptr = NULL;

	peer_request_arrives(ep);
	if (!data_state(ep) || !ep->conn)
		return;
	if (len > 0) {
		st = ref_mem_check_remote(ep->obj.ia, ep, ctx, addr, len,
					  DAT_MEM_PRIV_REMOTE_READ_FLAG, &ptr);
		if (st != DAT_DTO_SUCCESS) {
			ep->conn->tp->ops->nak(ep->conn, seq, st);
			ref_ep_break(ep);
			return;
		}
		iov.iov_base = ptr;
		iov.iov_len = (size_t)len;
	}
	ep->conn->tp->ops->read_resp(ep->conn, seq, &iov, len ? 1 : 0);
}

/* ---- RDMA / acks, initiator side --------------------------------------------- */

static struct ref_dto *find_issued(struct ref_ep *ep, uint64_t seq)
{
	struct ref_list *pos;

	ref_list_for_each(pos, &ep->req_q) {
		struct ref_dto *dto = ref_container_of(pos, struct ref_dto,
						       link);

		if (!dto->issued)
			break;
		if (dto->op != REF_WR_BIND && dto->seq == seq)
			return dto;
	}
	return NULL;
}

int ref_tp_rx_read_resp_begin(struct ref_ep *ep, uint64_t seq, uint64_t len,
			      struct iovec *iov, int max)
{
	struct ref_dto *dto = find_issued(ep, seq);

	if (!dto || dto->op != REF_WR_RDMA_READ || dto->finished ||
	    len != dto->remote.segment_length || len > dto->length) {
		ref_ep_break(ep);	/* the peer answered something else */
		return 0;
	}
	ep->rx_read = dto;
	return dto_iov(dto, len, iov, max);
}

void ref_tp_rx_read_resp_end(struct ref_ep *ep, uint64_t seq)
{
	struct ref_dto *dto = ep->rx_read;

	if (!dto || dto->seq != seq) {
		ref_ep_break(ep);
		return;
	}
	ep->rx_read = NULL;
	dto->finished = true;
	dto->status = DAT_DTO_SUCCESS;
	ep->rdma_read_out--;
	ref_ep_req_progress(ep);
}

/* Marks every issued Send / RDMA Write up to @seq finished.  false if the
 * peer acknowledged something we never sent or a Read it never answered. */
static bool ack_upto(struct ref_ep *ep, uint64_t seq, bool inclusive)
{
	struct ref_list *pos;

	if (seq >= ep->next_req_seq)
		return false;
	ref_list_for_each(pos, &ep->req_q) {
		struct ref_dto *dto = ref_container_of(pos, struct ref_dto,
						       link);

		if (!dto->issued)
			break;
		if (dto->op == REF_WR_BIND)
			continue;
		if (dto->seq > seq || (!inclusive && dto->seq == seq))
			break;
		if (dto->op == REF_WR_RDMA_READ) {
			if (!dto->finished)
				return false;
			continue;
		}
		dto->finished = true;
		dto->status = DAT_DTO_SUCCESS;
	}
	return true;
}

void ref_tp_rx_ack(struct ref_ep *ep, uint64_t seq)
{
	if (!data_state(ep))
		return;
	if (!ack_upto(ep, seq, true)) {
		ref_ep_break(ep);
		return;
	}
	ref_ep_req_progress(ep);
}

void ref_tp_rx_nak(struct ref_ep *ep, uint64_t seq,
		   DAT_DTO_COMPLETION_STATUS status)
{
	struct ref_dto *dto;

	if (!data_state(ep))
		return;
	dto = find_issued(ep, seq);
	if (dto && ack_upto(ep, seq, false)) {
		dto->finished = true;
		dto->status = status;
		dto->done = 0;
		if (dto->op == REF_WR_RDMA_READ)
			ep->rdma_read_out--;
		/* complete what precedes and the failed one, then break */
		while (!ref_list_empty(&ep->req_q)) {
			struct ref_dto *d = ref_container_of(ep->req_q.next,
						struct ref_dto, link);

			if (!d->finished)
				break;
			ref_list_del(&d->link);
			ep->req_count--;
			ref_dto_complete(d, d->status, d->done, true);
			if (d == dto)
				break;
		}
	}
	ref_ep_break(ep);
}

void ref_tp_wr_done(struct ref_ep *ep, struct ref_dto *dto,
		    DAT_DTO_COMPLETION_STATUS status, DAT_VLEN len)
{
	/* Hardware RC transports: completions arrive in order per queue. */
	dto->finished = true;
	dto->status = status;
	dto->done = len;
	if (dto->op == REF_WR_RECV) {
		rx_unalloc(ep, dto);
		ref_dto_complete(dto, status, len, true);
		return;
	}
	ref_ep_req_progress(ep);
}

/* ---- provider test hooks ------------------------------------------------------- */

/*
 * daplref_test_*: provider-specific entry points for the conformance
 * suite, found with dlsym() (docs/reference-provider.md, "Test hooks").
 * Inert unless called.  They make in-flight receive states reachable
 * deterministically:
 *   hold_arrivals(ep, TRUE)  arriving Sends are kept whole by the provider,
 *                            no buffer allocated, not acknowledged;
 *   wait_held(ep, n, us)     blocks until n Sends are held (or timeout);
 *   arrive_partial(ep, msn)  the first fragment of held message msn
 *                            "arrives": its buffer is allocated now (EP
 *                            queue or SRQ, arrival order), no completion;
 *   release(ep)              holding stops, held messages are delivered
 *                            and complete in MSN order.
 * MSNs count the Sends of the current connection from 0.
 */
static DAT_RETURN hook_ep(DAT_EP_HANDLE h, struct ref_ep **ep)
{
	return ref_lookup_ep(h, ep);
}

/* hook_ep, entered: the IA locked and pinned until ref_ia_release. */
static DAT_RETURN hook_enter(DAT_EP_HANDLE h, struct ref_ep **ep)
{
	DAT_RETURN rc = hook_ep(h, ep);

	return rc != DAT_SUCCESS ? rc :
	       ref_enter(&(*ep)->obj, DAT_HANDLE_TYPE_EP);
}

DAPLREF_EXPORT DAT_RETURN daplref_test_hold_arrivals(DAT_EP_HANDLE h,
						     DAT_BOOLEAN on)
{
	struct ref_ep *ep;
	DAT_RETURN rc = hook_enter(h, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	if (ep->obj.ia->transport->ops->caps & REF_TP_CAP_HW_RECV) {
		/* the device places arriving messages itself: nothing to hold */
		ref_ia_release(ep->obj.ia);
		return REF_ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	}
	ep->hold_arrivals = on == DAT_TRUE;
	if (!ep->hold_arrivals)
		ref_ep_rx_resume(ep);
	ref_ia_release(ep->obj.ia);
	return DAT_SUCCESS;
}

/*
 * While @on, the accepting EP @h does not take its peer's confirmation of
 * an accepted connection: it stays in COMPLETION_PENDING while the peer is
 * connected and may send or disconnect, as when the confirmation is lost
 * or late on a transport whose peer may send first.  A request arriving
 * from the peer confirms the connection (the sock transport); a peer that
 * disconnects ends the accept in ACCEPT_COMPLETION_ERROR.  Turned off, a
 * confirmation held is taken now.
 */
DAPLREF_EXPORT DAT_RETURN daplref_test_hold_confirmation(DAT_EP_HANDLE h,
							 DAT_BOOLEAN on);
DAPLREF_EXPORT DAT_RETURN daplref_test_hold_confirmation(DAT_EP_HANDLE h,
							 DAT_BOOLEAN on)
{
	struct ref_ep *ep;
	DAT_RETURN rc = hook_enter(h, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	ep->hold_confirmation = on == DAT_TRUE;
	if (!ep->hold_confirmation && ep->confirmation_held)
		ref_ep_confirmed(ep);
	ref_ia_release(ep->obj.ia);
	return DAT_SUCCESS;
}

/*
 * The next dat_rmr_bind posted on @h returns DAT_SUCCESS but fails when
 * the provider carries it out (as a transport's bind work request can):
 * its completion has status DAT_RMR_OPERATION_FAILED and the connection
 * breaks.  DAT_INVALID_STATE unless the EP is connected.
 */
DAPLREF_EXPORT DAT_RETURN daplref_test_fail_next_bind(DAT_EP_HANDLE h);
DAPLREF_EXPORT DAT_RETURN daplref_test_fail_next_bind(DAT_EP_HANDLE h)
{
	struct ref_ep *ep;
	DAT_RETURN rc = hook_enter(h, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	if (ep->state != DAT_EP_STATE_CONNECTED)
		rc = REF_ERR(DAT_INVALID_STATE, 0);
	else
		ep->fail_next_bind = true;
	ref_ia_release(ep->obj.ia);
	return rc;
}

/*
 * @h's connection breaks now, as a transport breaks it on an error or
 * flushed completion (ref_ep_break), in whatever state the EP is in: on
 * verbs that can happen during an accept, but only as a race.
 * DAT_INVALID_STATE when the EP has no connection or connection attempt.
 */
DAPLREF_EXPORT DAT_RETURN daplref_test_break(DAT_EP_HANDLE h);
DAPLREF_EXPORT DAT_RETURN daplref_test_break(DAT_EP_HANDLE h)
{
	struct ref_ep *ep;
	DAT_RETURN rc = hook_enter(h, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	if (!ep->conn)
		rc = REF_ERR(DAT_INVALID_STATE, 0);
	else
		ref_ep_break(ep);
	ref_ia_release(ep->obj.ia);
	return rc;
}

DAPLREF_EXPORT DAT_RETURN daplref_test_release(DAT_EP_HANDLE h)
{
	return daplref_test_hold_arrivals(h, DAT_FALSE);
}

DAPLREF_EXPORT DAT_RETURN daplref_test_arrive_partial(DAT_EP_HANDLE h,
						      DAT_COUNT msn)
{
	struct ref_ep *ep;
	struct ref_list *pos;
	DAT_RETURN rc = hook_ep(h, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	if (msn < 0)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
	ref_list_for_each(pos, &ep->held) {
		struct ref_held *hm = ref_container_of(pos, struct ref_held,
						       link);

		if (hm->msn != (uint64_t)msn)
			continue;
		if (hm->dto) {
			rc = REF_ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
			break;
		}
		hm->dto = ref_ep_take_buffer(ep, hm->msn);
		if (!hm->dto) {
			rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES,
				     DAT_RESOURCE_MEMORY);
			break;
		}
		/* allocated: counts in dat_ep_recv_query, watermarks apply */
		rc = DAT_SUCCESS;
		ref_ep_check_watermarks(ep);
		break;
	}
	ref_ia_release(ep->obj.ia);
	return rc;
}

DAPLREF_EXPORT DAT_RETURN daplref_test_wait_held(DAT_EP_HANDLE h,
						 DAT_COUNT count,
						 DAT_TIMEOUT timeout_us)
{
	struct ref_ep *ep;
	struct timespec dl;
	DAT_RETURN rc = hook_ep(h, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	dl = ref_deadline(timeout_us);
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	while (ep->held_count < count) {
		if (ref_cond_wait(&ep->held_cond, &ep->obj.ia->lock, &dl,
				  timeout_us == DAT_TIMEOUT_INFINITE) ==
		    ETIMEDOUT) {
			rc = REF_ERR(DAT_TIMEOUT_EXPIRED, 0);
			break;
		}
	}
	ref_ia_release(ep->obj.ia);
	return rc;
}

DAPLREF_EXPORT DAT_RETURN daplref_test_held_count(DAT_EP_HANDLE h,
						  DAT_COUNT *count)
{
	struct ref_ep *ep;
	DAT_RETURN rc = hook_ep(h, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	if (!count)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	*count = ep->held_count;
	ref_ia_release(ep->obj.ia);
	return DAT_SUCCESS;
}
