/* SPDX-License-Identifier: MIT */
/*
 * conn.h - endpoints, shared receive queues, service points, connection
 * requests and data transfer operations of the reference provider.
 *
 * Owner: the "conn" half of the provider (ep.c srq.c psp.c rsp.c cr.c
 * dto.c and transport/).  Core (provider.c, rmr.c, ia.c, evd.c) reads the
 * structs below and calls the functions declared here; everything else of
 * these objects is private to their files.
 *
 * Locking follows ref.h: ia->lock protects every field below.  The public
 * ref_* entry points (the dispatch-table functions) take the lock
 * themselves; the internal helpers expect it held.
 *
 * Semantic model in one paragraph (details in docs/reference-provider.md,
 * "EP state machine" and "SRQ accounting"): every posted work request is a
 * struct ref_dto.  Requests (Send, RDMA Read/Write, RMR Bind) sit on
 * ep->req_q in post order and complete in that order when the peer
 * acknowledges them (or are flushed).  Receives sit on ep->recv_q (or on
 * srq->free_q); an arriving Send takes the head buffer (it is then
 * "allocated to the EP", on ep->rx_alloc, ordered by MSN) and completes
 * when the whole message has been placed, strictly in MSN order.  A
 * receive that came from an SRQ stays counted as outstanding on the SRQ
 * until its completion event is handed to the Consumer (see
 * ref_srq_event_reaped()).
 */
#ifndef REF_CONN_H
#define REF_CONN_H

#include "ref.h"

#include <sys/socket.h>

struct ref_tp_conn;		/* a transport connection (RC QP), transport.h */
struct ref_tp_listener;		/* a transport listener, transport.h */

/* ---- limits the provider advertises (core copies them into IA attrs) --- */

#define REF_MAX_IOV		16		/* segments per DTO / SRQ recv */
#define REF_MAX_MESSAGE_SIZE	(16u << 20)	/* ia max_message_size */
#define REF_MAX_RDMA_SIZE	(1u << 30)	/* ia max_rdma_size */
#define REF_MAX_DTOS		4096		/* max_dto_per_ep, max_recv_per_srq */
#define REF_MAX_RDMA_READ	64		/* max_rdma_read_per_ep_in/out */
#define REF_MAX_PRIVATE_DATA	1024		/* provider max_private_data_size */
#define REF_MAX_EP_PER_SRQ	1024
#define REF_MAX_EPS		4096		/* ia max_eps */
#define REF_MAX_SRQS		1024		/* ia max_srqs */

/*
 * Asynchronous event numbers of the watermark events.  The 1.2 headers
 * define reasons (DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT for EPs,
 * DAT_SRQ_LOW_WATERMARK_EVENT for SRQs) but no event numbers for them; we
 * use the EP-affiliated async event for the EP one and the provider event
 * for the SRQ one.  Cases should match on the handle and the reason.
 */
#define REF_ASYNC_EP_EVENT	DAT_ASYNC_ERROR_EP_BROKEN
#define REF_ASYNC_SRQ_EVENT	DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR

/*
 * Core's own maximum for an attribute, lowered to the IA's where the
 * transport's device allows less (ref_conn_ia_attrs lowers ia_attr; an IA
 * attribute above core's maximum never raises it).
 */
static inline DAT_COUNT ref_ia_limit(DAT_COUNT core_max, DAT_COUNT ia_max)
{
	return ia_max >= 0 && ia_max < core_max ? ia_max : core_max;
}

/* Defaults used by dat_ep_create(..., NULL attributes, ...). */
#define REF_DEF_MESSAGE_SIZE	(64u << 10)
#define REF_DEF_RDMA_SIZE	(1u << 20)
#define REF_DEF_DTOS		64
#define REF_DEF_IOV		4
#define REF_DEF_RDMA_READ	0	/* recommended by dat_ep_create_with_srq USAGE */

/* ---- work requests -------------------------------------------------------- */

enum ref_wr_op {
	REF_WR_SEND,
	REF_WR_RECV,
	REF_WR_RDMA_READ,
	REF_WR_RDMA_WRITE,
	REF_WR_BIND,		/* an RMR bind ordered in the request stream */
};

/* Where a receive buffer is (for SRQ accounting and ep_recv_query). */
enum ref_dto_where {
	REF_DTO_FREE,		/* on the recycle list */
	REF_DTO_POSTED,		/* on ep->recv_q, srq->free_q or ep->req_q */
	REF_DTO_ALLOCATED,	/* recv: matched to an arriving message */
	REF_DTO_COMPLETED,	/* completion event queued, not yet reaped */
};

struct ref_seg {
	void *ptr;		/* resolved by ref_mem_check_local at post */
	DAT_VLEN len;
	void *tp_mem;		/* its LMR's registration, as it was at post:
				 * current only while ep->posting is this DTO */
};

struct ref_dto {
	struct ref_list link;
	enum ref_wr_op op;
	enum ref_dto_where where;
	DAT_DTO_COOKIE cookie;
	DAT_COMPLETION_FLAGS flags;
	DAT_COUNT nseg;
	DAT_VLEN length;		/* sum of seg[].len */
	DAT_VLEN done;			/* bytes placed so far (recv) */
	DAT_RMR_TRIPLET remote;		/* RDMA Read / Write target */
	uint64_t seq;			/* request: sequence on the connection;
					 * recv: MSN of the message it got */
	DAT_DTO_COMPLETION_STATUS status;
	struct ref_ep *ep;		/* EP it is posted to / allocated to */
	struct ref_srq *srq;		/* SRQ it was posted to, or NULL */
	DAT_RMR_HANDLE rmr;		/* REF_WR_BIND */
	bool issued;			/* request handed to the transport */
	bool finished;			/* request done, waiting for its turn */
	/* ref_dto_new clears the fields above; the post fills seg[] and
	 * iov[] up to nseg */
	struct ref_seg seg[REF_MAX_IOV];
	DAT_LMR_TRIPLET iov[REF_MAX_IOV];	/* as posted (PZ re-check) */
};

/* ---- endpoint ------------------------------------------------------------- */

/* Every QoS class the provider knows (DAT_QOS_BEST_EFFORT is 0). */
#define REF_QOS_ALL ((DAT_QOS)(DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY | \
			       DAT_QOS_ECONOMY | DAT_QOS_PREMIUM))

struct ref_ep {
	struct ref_obj obj;
	DAT_EP_STATE state;
	struct ref_pz *pz;
	struct ref_evd *recv_evd, *request_evd, *connect_evd;
	struct ref_srq *srq;		/* dat_ep_create_with_srq, else NULL */
	DAT_EP_ATTR attr;

	bool provider_created;		/* PSP_PROVIDER / RSP with NULL EP */
	struct ref_rsp *rsp;		/* RSP holding it (RESERVED state) */
	struct ref_cr *cr;		/* pending CR naming this EP */
	struct ref_tp_conn *conn;	/* transport connection, or NULL */

	struct sockaddr_storage local_addr, remote_addr;
	DAT_PORT_QUAL local_port, remote_port;
	DAT_CONN_QUAL remote_conn_qual;	/* what we connected to (dup_connect) */
	bool was_active;		/* this EP initiated the connection */
	DAT_QOS connect_qos;		/* asked for by the pending connect */
	/* The DTO being posted in this call, its segments checked under the
	 * lock still held: a transport that issues it now may use
	 * seg[].tp_mem.  Once the post returned an LMR may be freed, and a
	 * later issue looks the LMR up again. */
	struct ref_dto *posting;
	struct ref_list spare_dtos;	/* freed, for the next posts (dto.c) */
	unsigned int spare_count;
	void *est_pdata;		/* active side: peer's accept/reject pdata */
	DAT_COUNT est_pdata_len;

	/* Requests in post order (incl. REF_WR_BIND); completed from the head. */
	struct ref_list req_q;
	DAT_COUNT req_count;
	uint64_t next_req_seq;
	/* Receives posted to this EP (no SRQ), not yet matched. */
	struct ref_list recv_q;
	DAT_COUNT recv_count;		/* posted + allocated (EP-owned) */
	/* Buffers allocated to arriving messages, ordered by MSN. */
	struct ref_list rx_alloc;
	DAT_COUNT rx_alloc_count;
	uint64_t rx_next_msn;		/* MSN of the next Send to complete */
	uint64_t tx_next_msn;		/* MSN of our next outgoing Send */
	DAT_COUNT rdma_read_out;	/* outstanding RDMA Reads we issued */

	/* dat_ep_set_watermark */
	DAT_COUNT soft_hw, hard_hw;
	bool soft_hw_armed;

	/* provider test hooks (daplref_test_*) */
	bool hold_arrivals;
	struct ref_list held;		/* held whole messages (dto.c) */
	DAT_COUNT held_count;
	pthread_cond_t held_cond;	/* daplref_test_wait_held */
	bool fail_next_bind;		/* daplref_test_fail_next_bind */
	bool hold_confirmation;		/* daplref_test_hold_confirmation */
	bool confirmation_held;		/* the peer's confirmation, not yet used */

	bool disconnect_requested;	/* graceful disconnect waits for req_q */
	bool rx_stalled;		/* a Send waits for a receive buffer */
	uint64_t rx_cur_seq;		/* Send being received: its seq, */
	bool rx_cur_solicited;		/* its solicited bit, */
	void *rx_cur_held;		/* and its held copy (test hooks) */
	uint64_t ack_deferred;		/* seq + 1 to ack after held ones */
	struct ref_dto *rx_read;	/* RDMA Read response being placed */
	struct ref_list srq_link;	/* on srq->eps */
	/*
	 * Its DTO streams as counted in ia->streams (ep.c, check_streams):
	 * [0] receive, [1] request; evd NULL when not counted.
	 */
	struct ref_stream_reg {
		struct ref_evd *evd;
		DAT_COMPLETION_FLAGS flags;
		bool srq;
	} sreg[2];
	bool disconnect_event_posted;	/* DISCONNECTED already reported */
};

/* ---- shared receive queue --------------------------------------------------- */

struct ref_srq {
	struct ref_obj obj;
	struct ref_pz *pz;
	DAT_SRQ_STATE state;
	DAT_COUNT max_recv_dtos;
	DAT_COUNT max_recv_iov;
	DAT_COUNT low_watermark;
	bool lw_armed;
	struct ref_list free_q;		/* buffers available to EPs */
	DAT_COUNT available;		/* length of free_q */
	DAT_COUNT outstanding;		/* on SRQ + at EPs + completed unreaped */
	DAT_COUNT users;		/* EPs created with this SRQ */
	struct ref_list eps;		/* those EPs (ep->srq_link) */
	struct ref_list completed;	/* completion queued, not yet reaped */
};

/* ---- service points and connection requests -------------------------------- */

struct ref_psp {
	struct ref_obj obj;
	DAT_CONN_QUAL conn_qual;
	struct ref_evd *evd;
	DAT_PSP_FLAGS flags;
	struct ref_tp_listener *listener;
};

struct ref_rsp {
	struct ref_obj obj;
	DAT_CONN_QUAL conn_qual;
	struct ref_evd *evd;
	struct ref_ep *ep;
	struct ref_tp_listener *listener;
};

struct ref_cr {
	struct ref_obj obj;
	struct ref_ep *ep;		/* RSP or provider EP, else NULL */
	bool provider_ep;		/* ep was made by the provider (PSP) */
	struct ref_tp_conn *conn;	/* the arriving transport connection */
	DAT_CONN_QUAL conn_qual;
	struct sockaddr_storage remote_addr;
	DAT_PORT_QUAL remote_port;
	void *pdata;
	DAT_COUNT pdata_len;
};

/* ---- dispatch-table functions (provider.c) ----------------------------------- */

DAT_RETURN ref_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
			 DAT_EVD_HANDLE recv_evd, DAT_EVD_HANDLE request_evd,
			 DAT_EVD_HANDLE connect_evd,
			 const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep);
DAT_RETURN ref_ep_create_with_srq(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				  DAT_EVD_HANDLE recv_evd,
				  DAT_EVD_HANDLE request_evd,
				  DAT_EVD_HANDLE connect_evd,
				  DAT_SRQ_HANDLE srq,
				  const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep);
DAT_RETURN ref_ep_query(DAT_EP_HANDLE ep, DAT_EP_PARAM_MASK mask,
			DAT_EP_PARAM *param);
DAT_RETURN ref_ep_modify(DAT_EP_HANDLE ep, DAT_EP_PARAM_MASK mask,
			 const DAT_EP_PARAM *param);
DAT_RETURN ref_ep_connect(DAT_EP_HANDLE ep, DAT_IA_ADDRESS_PTR remote_addr,
			  DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
			  DAT_COUNT pdata_size, const DAT_PVOID pdata,
			  DAT_QOS qos, DAT_CONNECT_FLAGS flags);
DAT_RETURN ref_ep_dup_connect(DAT_EP_HANDLE ep, DAT_EP_HANDLE dup_ep,
			      DAT_TIMEOUT timeout, DAT_COUNT pdata_size,
			      const DAT_PVOID pdata, DAT_QOS qos);
DAT_RETURN ref_ep_disconnect(DAT_EP_HANDLE ep, DAT_CLOSE_FLAGS flags);
DAT_RETURN ref_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT nseg,
			    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    DAT_COMPLETION_FLAGS flags);
DAT_RETURN ref_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT nseg,
			    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    DAT_COMPLETION_FLAGS flags);
DAT_RETURN ref_ep_post_rdma_read(DAT_EP_HANDLE ep, DAT_COUNT nseg,
				 DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				 const DAT_RMR_TRIPLET *remote,
				 DAT_COMPLETION_FLAGS flags);
DAT_RETURN ref_ep_post_rdma_write(DAT_EP_HANDLE ep, DAT_COUNT nseg,
				  DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				  const DAT_RMR_TRIPLET *remote,
				  DAT_COMPLETION_FLAGS flags);
DAT_RETURN ref_ep_get_status(DAT_EP_HANDLE ep, DAT_EP_STATE *state,
			     DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *request_idle);
DAT_RETURN ref_ep_free(DAT_EP_HANDLE ep);
/*
 * Recounts @ep's completion streams in its IA's per-EVD index after its
 * EVDs, completion flags or SRQ changed (ia->lock held).
 */
void ref_ep_streams_sync(struct ref_ep *ep);
/* Frees the IA's stream index (dat_ia_close, ia_free). */
void ref_ep_streams_fini(struct ref_ia *ia);
DAT_RETURN ref_ep_reset(DAT_EP_HANDLE ep);
DAT_RETURN ref_ep_recv_query(DAT_EP_HANDLE ep, DAT_COUNT *nbufs_allocated,
			     DAT_COUNT *bufs_alloc_span);
DAT_RETURN ref_ep_set_watermark(DAT_EP_HANDLE ep, DAT_COUNT soft_hw,
				DAT_COUNT hard_hw);

DAT_RETURN ref_srq_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
			  DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *srq);
DAT_RETURN ref_srq_free(DAT_SRQ_HANDLE srq);
DAT_RETURN ref_srq_post_recv(DAT_SRQ_HANDLE srq, DAT_COUNT nseg,
			     DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie);
DAT_RETURN ref_srq_query(DAT_SRQ_HANDLE srq, DAT_SRQ_PARAM_MASK mask,
			 DAT_SRQ_PARAM *param);
DAT_RETURN ref_srq_resize(DAT_SRQ_HANDLE srq, DAT_COUNT max_recv_dtos);
DAT_RETURN ref_srq_set_lw(DAT_SRQ_HANDLE srq, DAT_COUNT low_watermark);

DAT_RETURN ref_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL conn_qual,
			  DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
			  DAT_PSP_HANDLE *psp);
DAT_RETURN ref_psp_create_any(DAT_IA_HANDLE ia, DAT_CONN_QUAL *conn_qual,
			      DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
			      DAT_PSP_HANDLE *psp);
DAT_RETURN ref_psp_query(DAT_PSP_HANDLE psp, DAT_PSP_PARAM_MASK mask,
			 DAT_PSP_PARAM *param);
DAT_RETURN ref_psp_free(DAT_PSP_HANDLE psp);

DAT_RETURN ref_rsp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL conn_qual,
			  DAT_EP_HANDLE ep, DAT_EVD_HANDLE evd,
			  DAT_RSP_HANDLE *rsp);
DAT_RETURN ref_rsp_query(DAT_RSP_HANDLE rsp, DAT_RSP_PARAM_MASK mask,
			 DAT_RSP_PARAM *param);
DAT_RETURN ref_rsp_free(DAT_RSP_HANDLE rsp);

DAT_RETURN ref_cr_query(DAT_CR_HANDLE cr, DAT_CR_PARAM_MASK mask,
			DAT_CR_PARAM *param);
DAT_RETURN ref_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
			 DAT_COUNT pdata_size, const DAT_PVOID pdata);
DAT_RETURN ref_cr_reject(DAT_CR_HANDLE cr);
DAT_RETURN ref_cr_reject_with_data(DAT_CR_HANDLE cr, DAT_COUNT size,
				   const DAT_PVOID pdata);
DAT_RETURN ref_cr_handoff(DAT_CR_HANDLE cr, DAT_CONN_QUAL handoff);

/* ---- hooks for core --------------------------------------------------------- */

/*
 * IA life cycle (ia.c): open the transport named by the dat.conf instance
 * data (e.g. "sock:127.0.0.1"; NULL or "" means sock on 127.0.0.1), fill
 * ia->address and ia->transport.  Called without ia->lock held, after
 * ia->lock is initialised.  Returns DAT_SUCCESS or an error for
 * dat_ia_open (DAT_INVALID_ADDRESS / DAT_INSUFFICIENT_RESOURCES ...).
 */
DAT_RETURN ref_conn_ia_open(struct ref_ia *ia, const char *instance_data);
/*
 * Stops the progress engine and releases the transport.  Called WITHOUT
 * ia->lock held (it joins the progress thread, which takes the lock),
 * after every object of the IA has been freed or destroyed.
 */
void ref_conn_ia_close(struct ref_ia *ia);

/*
 * Sleep of dat_evd_wait / dat_cno_wait: same contract as
 * ref_waiter_sleep() (ref.h; lock held on entry and return; 0 woken,
 * ETIMEDOUT, EINTR), but while sleeping the thread polls the IA's
 * transport and runs its progress itself (no hand-off through the
 * progress thread).  Falls back to ref_waiter_sleep when the transport
 * cannot be polled.
 */
int ref_conn_wait(struct ref_waiter *w, struct ref_ia *ia,
		  const struct timespec *deadline, bool infinite);
/*
 * Busy polling (dat_evd_dequeue on an empty EVD): completions the transport
 * already has are delivered now, without waiting for its progress engine
 * (the completion channel's notification on verbs; on sock a round of the
 * ready sockets in the caller's thread).  Lock held; a no-op on transports
 * without it.
 */
void ref_conn_poll(struct ref_ia *ia);
/*
 * The same at the start of a wait that may already be satisfied
 * (@satisfied: the EVD holds enough events).  A satisfied wait skips the
 * poll where it costs a system call (sock: each would be an epoll_wait);
 * on verbs, whose poll reads the CQs in user space, it polls as before.
 */
void ref_conn_poll_wait(struct ref_ia *ia, bool satisfied);

/*
 * dat_rmr_bind support (rmr.c).  ref_ep_bind_check() validates that @ep
 * may take a request post with @flags (state CONNECTED or DISCONNECTED,
 * UNSIGNALLED only if the EP's request completion flags allow it, request
 * queue not full); returns DAT_SUCCESS or the error for dat_rmr_bind.
 * ref_ep_bind_complete() then queues the bind in the EP's request stream:
 * its DAT_RMR_BIND_COMPLETION_EVENT goes to the request EVD after all
 * earlier requests of the EP completed (immediately flushed if the EP is
 * DISCONNECTED).  Both with ia->lock held.
 */
DAT_RETURN ref_ep_bind_check(struct ref_ep *ep, DAT_COMPLETION_FLAGS flags);
void ref_ep_bind_complete(struct ref_ep *ep, DAT_RMR_HANDLE rmr,
			  DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags);

/*
 * Called by evd.c (lock held) for every event posted with
 * ref_evd_post_tagged() when it leaves the EVD: @reaped true when it was
 * handed to the Consumer by dat_evd_dequeue / dat_evd_wait, false when it
 * was discarded (EVD freed, destroyed by dat_ia_close).  Drives the
 * "completed but not reaped" part of the SRQ outstanding count.
 */
void ref_srq_event_reaped(void *tag, bool reaped);

#endif /* REF_CONN_H */
