/* SPDX-License-Identifier: MIT */
/*
 * verbs.c - the rdma-core transport of the reference provider ("verbs").
 *
 * A hardware RC transport (REF_TP_CAP_HW_RECV, transport.h): one RC queue
 * pair per connected EP, connected through librdmacm (connection
 * qualifiers are rdma_cm ports on the IA address), work requests mapped
 * 1:1 to ibv_post_send / ibv_post_recv / ibv_post_srq_recv, completions
 * reported to core with ref_tp_wr_done (requests) or completed directly
 * (receives, which core matched to nothing: the HCA did).  Design and
 * the DAT <-> verbs mapping: docs/verbs.md.
 *
 * Instance data: "verbs:<ibdev or netdev>[:<IPv4 address>]".  Without an
 * address the IA address is the first IPv4 address that rdma_cm binds to
 * the named device (or the address of the named netdev).
 *
 * Objects:
 *  - one ibv_pd per DAT PZ (made lazily, kept until the IA closes), so the
 *    HCA enforces the PZ of remote accesses;
 *  - one CQ per connection, attached to the IA's completion channel:
 *    releasing a connection destroys its QP and CQ at once, so no
 *    completion ever names a work request core has already flushed;
 *  - one ibv_srq per DAT SRQ (made when its first EP gets a QP), sized to
 *    the IA maximum: core keeps the DAT depth, watermark and accounting.
 *
 * Private data: rdma_cm carries at most 56 bytes in a connect request
 * over IB/RoCE (196 in a reply) and 256 bytes over iWARP, and IB pads it
 * to the full size.  Every private data block this transport sends starts
 * with a 2-byte header: length, kind ('C' connect, 'A' accept, 'P'
 * Consumer reject, 'N' provider reject), so the receiver recovers the
 * exact length and tells a peer reject from a non-peer one.  The provider
 * attribute max_private_data_size says what is left (54 / 254).
 *
 * Threading: a progress thread per IA waits in epoll on the rdma_cm event
 * channel, the completion channel, the device's async fd and a wake-up
 * eventfd, then runs one progress round with ia->lock held.  Every event
 * is acknowledged before core hears about it (core may destroy ids, QPs
 * and CQs inside the upcall; their destroy waits for unacked events).
 */
#include "conn_priv.h"
#include "refmap.h"
#include "verbs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define PD_HDR		2	/* private data header: length, kind */
#define IB_REQ_PDATA	56	/* rdma_cm over IB/RoCE: REQ user bytes */
/* rdma_conn_param's length is a uint8_t, and MPA v2 (enhanced connection
 * set-up) puts its 8-byte IRD/ORD block into the same private data: siw
 * counts both in one uint8_t, so 248 and more bytes wrap around */
#define IW_PDATA	247
#define RESOLVE_MS	2000	/* rdma_resolve_addr / _route timeouts */
#define SRQ_DEPTH	REF_MAX_DTOS
#define TICK_MS		20	/* engine tick while a consumer polls */
/* Small Sends and RDMA Writes travel in the work request itself (the
 * device reads no memory region for them): what OFA's dapl asks for too */
#define INLINE_BYTES	64
/* The IA's shared CQ (struct v_tp cq): its first size, resized up to the
 * device's max_cqe.  Small to start with: siw maps every queue of a process
 * into one key space of 576 KiB (SIW_UOBJ_MAX_KEY), 32 bytes a CQ entry. */
#define SHARED_CQE_FIRST	1024


enum v_state {
	V_ADDR,		/* active: resolving the address */
	V_ROUTE,	/* active: resolving the route */
	V_REQ_SENT,	/* active: rdma_connect sent */
	V_PENDING,	/* passive: request delivered to core */
	V_ACCEPTING,	/* passive: rdma_accept sent */
	V_ESTABLISHED,
	V_DEAD,
};

struct v_tp;

struct v_listener {
	struct ref_list link;
	struct v_tp *tp;
	struct rdma_cm_id *id;
	void *ctx;
	DAT_CONN_QUAL qual;
};

struct v_conn {
	struct ref_tp_conn base;
	struct v_tp *tp;
	struct ref_list link;		/* tp->conns or tp->dead */
	struct rdma_cm_id *id;
	struct ibv_cq *cq;		/* where its QP completes: the IA's
					 * shared CQ, or its own (own_cq) */
	struct ibv_qp *qp;
	uint32_t qp_num;		/* qp's, which its completions name */
	int cq_share;			/* entries it holds of tp->cq */
	enum v_state state;
	bool released;			/* core let go: no more upcalls */
	bool own_cq;			/* cq is its own (on tp->own_cqs) */
	struct ref_list own_link;
	bool cq_ready;			/* own CQ: completion event seen */
	bool cq_armed;			/* own CQ: a notification is requested */
	unsigned int swept;		/* tp_poll_cqs: the last sweep that
					 * polled it */
	int fail_pending;		/* enum ref_tp_fail to report, or -1 */
	bool close_pending;		/* conn_closed(broken) to report */
	DAT_CONN_QUAL qual;
	uint8_t *pdata;			/* connect private data (with header) */
	int pdata_len;
	bool has_deadline;
	struct timespec deadline;
	uint64_t rx_msn;
	struct ref_srq *srq;		/* SRQ of the EP the QP serves */
	struct ref_ep *srq_ep;		/* that EP, until core drops the connection */
	uint8_t req_rd_in, req_rd_out;	/* passive: the request's read depths */
	uint32_t max_inline;		/* the QP's inline data limit */
};

struct v_pd {
	struct ref_list link;
	struct ref_pz *pz;
	struct ibv_pd *pd;
};

struct v_srq {
	struct ref_list link;
	struct ref_srq *srq;
	struct ibv_srq *hw;
};

struct v_tp {
	struct ref_transport base;
	char dev[64];
	struct sockaddr_storage addr;
	struct ibv_context *ctx;	/* librdmacm's context of the device */
	struct ibv_device_attr dattr;
	bool iwarp;
	struct rdma_event_channel *cm;
	struct ibv_comp_channel *comp;
	/* base.engine.epfd: the cm channel, completion channel and async fds,
	 * each with its own object as epoll data (a round reads those that
	 * are readable, non-blocking) */
	struct ref_list conns, dead, listeners, pds, srqs;
	struct ref_list own_cqs;	/* conns with a CQ of their own */
	unsigned int conns_gen;		/* changes when conns or own_cqs does */
	unsigned int sweep;		/* tp_poll_cqs of every own CQ */
	/*
	 * One CQ for the QPs of the IA, so that a poll costs the same however
	 * many connections there are (a CQ per connection made an empty
	 * dequeue poll each of them).  A QP takes entries of it for its queues
	 * (cq_room says how many are left; an SRQ's QP, or one that finds too
	 * few, gets a CQ of its own).  Its completions name their QP by
	 * number: qp_map finds the connection, and no entry of a destroyed QP
	 * stays in the CQ (conn_drop_hw), so a reused number names no one
	 * else.  stash holds, in order, entries taken out of the CQ before
	 * their turn (a connection's own, taken out first, or all of them
	 * when a QP goes); a poll delivers those first.
	 */
	struct ibv_cq *cq;
	int cq_room;
	bool cq_ready, cq_armed;
	struct ibv_wc *stash;
	size_t stash_head, stash_tail, stash_cap;
	struct ref_map qp_map;		/* qp_num + 1 -> conn (keys are not 0) */
};

static void conn_release(struct v_conn *c);
static bool srq_buffer_flushed(struct v_conn *c, struct ref_ep *ep, struct ref_dto *dto);
static void tp_round(struct v_tp *tp);

/* ---- helpers ------------------------------------------------------------------- */

static void tp_wake(struct v_tp *tp)
{
	ref_engine_wake(&tp->base.engine);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static socklen_t sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

static void sa_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static int max_pdata(const struct v_tp *tp)
{
	return (tp->iwarp ? IW_PDATA : IB_REQ_PDATA) - PD_HDR;
}

/* Private data with our header; @out holds PD_HDR + len bytes. */
static int pdata_wrap(uint8_t *out, char kind, const void *p, DAT_COUNT len)
{
	out[0] = (uint8_t)len;
	out[1] = (uint8_t)kind;
	if (len > 0)
		memcpy(out + PD_HDR, p, (size_t)len);
	return PD_HDR + (int)len;
}

/* Decodes a received block: payload, length and kind (0 if none). */
static const void *pdata_unwrap(const void *p, uint8_t len, DAT_COUNT *out,
				char *kind)
{
	const uint8_t *b = p;

	*out = 0;
	*kind = 0;
	if (!b || len < PD_HDR || b[0] > len - PD_HDR)
		return NULL;
	*out = b[0];
	*kind = (char)b[1];
	return b + PD_HDR;
}

static DAT_DTO_COMPLETION_STATUS wc_status(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_LOC_QP_OP_ERR:
		return DAT_DTO_ERR_LOCAL_EP;
	case IBV_WC_SUCCESS:
		return DAT_DTO_SUCCESS;
	case IBV_WC_LOC_LEN_ERR:
		return DAT_DTO_ERR_LOCAL_LENGTH;
	case IBV_WC_LOC_EEC_OP_ERR:
		return DAT_DTO_ERR_LOCAL_EP;
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_MW_BIND_ERR:
		return DAT_DTO_ERR_LOCAL_PROTECTION;
	case IBV_WC_WR_FLUSH_ERR:
		return DAT_DTO_ERR_FLUSHED;
	case IBV_WC_BAD_RESP_ERR:
		return DAT_DTO_ERR_BAD_RESPONSE;
	case IBV_WC_LOC_ACCESS_ERR:
		return DAT_DTO_ERR_LOCAL_PROTECTION;
	case IBV_WC_REM_ACCESS_ERR:
		return DAT_DTO_ERR_REMOTE_ACCESS;
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_OP_ERR:
		return DAT_DTO_ERR_REMOTE_RESPONDER;
	case IBV_WC_RETRY_EXC_ERR:
		return DAT_DTO_ERR_TRANSPORT;
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return DAT_DTO_ERR_RECEIVER_NOT_READY;
	default:
		return DAT_DTO_ERR_TRANSPORT;
	}
}

/* ---- protection domains, SRQs --------------------------------------------------- */

static struct ibv_pd *pd_for(struct v_tp *tp, struct ref_pz *pz)
{
	struct ref_list *pos;
	struct v_pd *p;

	ref_list_for_each(pos, &tp->pds) {
		p = ref_container_of(pos, struct v_pd, link);
		if (p->pz == pz)
			return p->pd;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pd = ibv_alloc_pd(tp->ctx);
	if (!p->pd) {
		free(p);
		return NULL;
	}
	p->pz = pz;
	ref_list_add_tail(&tp->pds, &p->link);
	return p->pd;
}

static struct v_srq *srq_find(struct v_tp *tp, struct ref_srq *srq)
{
	struct ref_list *pos;

	ref_list_for_each(pos, &tp->srqs) {
		struct v_srq *s = ref_container_of(pos, struct v_srq, link);

		if (s->srq == srq)
			return s;
	}
	return NULL;
}

static struct v_srq *srq_get(struct v_tp *tp, struct ref_srq *srq)
{
	struct v_srq *s = srq_find(tp, srq);
	struct ibv_srq_init_attr a;
	struct ibv_pd *pd;
	struct ref_list *pos;

	if (s) {
		/*
		 * Until srq.c tells us about dat_srq_free (ref_conn_srq_free),
		 * a DAT SRQ at a reused address could find a stale ibv_srq:
		 * one that no live QP uses and none of whose buffers were
		 * posted is made afresh (nothing is lost: it holds none).
		 */
		bool keep = ref_verbs_srq_receiving(&tp->base, srq);

		ref_list_for_each(pos, &srq->free_q)
			if (ref_container_of(pos, struct ref_dto, link)->issued)
				keep = true;
		if (keep)
			return s;
		ibv_destroy_srq(s->hw);
		ref_list_del(&s->link);
		free(s);
	}
	pd = pd_for(tp, srq->pz);
	if (!pd)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.attr.max_wr = (uint32_t)(tp->dattr.max_srq_wr < SRQ_DEPTH ?
				   tp->dattr.max_srq_wr : SRQ_DEPTH);
	a.attr.max_sge = (uint32_t)(tp->dattr.max_srq_sge < REF_MAX_IOV ?
				    tp->dattr.max_srq_sge : REF_MAX_IOV);
	s->hw = ibv_create_srq(pd, &a);
	if (!s->hw) {
		free(s);
		return NULL;
	}
	s->srq = srq;
	ref_list_add_tail(&tp->srqs, &s->link);
	return s;
}

void ref_verbs_srq_free(struct ref_transport *base, struct ref_srq *srq)
{
	struct v_tp *tp = (struct v_tp *)base;
	struct v_srq *s = srq_find(tp, srq);

	if (!s)
		return;
	ibv_destroy_srq(s->hw);
	ref_list_del(&s->link);
	free(s);
}

bool ref_verbs_srq_receiving(struct ref_transport *base, const struct ref_srq *srq)
{
	struct v_tp *tp = (struct v_tp *)base;
	struct ref_list *pos;

	ref_list_for_each(pos, &tp->conns) {
		struct v_conn *c = ref_container_of(pos, struct v_conn, link);

		if (!c->released && c->qp && c->srq == srq)
			return true;
	}
	return false;
}

/* ---- memory ------------------------------------------------------------------------ */

static int mem_access(DAT_MEM_PRIV_FLAGS priv)
{
	int a = 0;

	if (priv & (DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
		    DAT_MEM_PRIV_REMOTE_WRITE_FLAG))
		a |= IBV_ACCESS_LOCAL_WRITE;
	if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		a |= IBV_ACCESS_REMOTE_READ;
	if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
		a |= IBV_ACCESS_REMOTE_WRITE;
	return a;
}

DAT_RETURN ref_verbs_mem_reg(struct ref_transport *base, struct ref_pz *pz,
			     DAT_VADDR addr, DAT_VLEN len,
			     DAT_MEM_PRIV_FLAGS priv, void **mem,
			     uint32_t *rkey)
{
	struct v_tp *tp = (struct v_tp *)base;
	struct ibv_pd *pd = pd_for(tp, pz);
	struct ibv_mr *mr;

	if (!pd)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES,
			       DAT_RESOURCE_PROTECTION_DOMAIN);
	mr = ibv_reg_mr(pd, (void *)(uintptr_t)addr, (size_t)len,
			mem_access(priv));
	if (!mr)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES,
			       DAT_RESOURCE_MEMORY_REGION);
	*mem = mr;
	*rkey = mr->rkey;
	return DAT_SUCCESS;
}

void ref_verbs_mem_dereg(struct ref_transport *tp, void *mem)
{
	(void)tp;
	if (mem)
		ibv_dereg_mr(mem);
}

/* The lkey of a posted segment (core already checked it). */
static bool seg_lkey(struct ref_ia *ia, const struct ref_dto *dto, int i,
		     uint32_t *lkey)
{
	struct ibv_mr *mr = NULL;

	if (dto->ep && dto->ep->posting == dto)
		mr = dto->seg[i].tp_mem;	/* checked in this very post */
	if (!mr) {
		struct ref_lmr *lmr = ref_ctx_find(ia, dto->iov[i].lmr_context,
						   REF_CTX_LMR);

		mr = lmr ? lmr->tp_mem : NULL;
	}
	if (!mr)
		return false;
	*lkey = mr->lkey;
	return true;
}

/* Scatter/gather list of @dto, at most @len bytes. */
static int dto_sge(struct ref_ia *ia, const struct ref_dto *dto,
		   uint64_t len, struct ibv_sge *sge)
{
	int n = 0;

	for (int i = 0; i < dto->nseg && len > 0; i++) {
		uint64_t k = dto->seg[i].len;

		if (k == 0)
			continue;
		if (k > len)
			k = len;
		if (!seg_lkey(ia, dto, i, &sge[n].lkey))
			return -1;
		sge[n].addr = (uint64_t)(uintptr_t)dto->seg[i].ptr;
		sge[n].length = (uint32_t)k;
		len -= k;
		n++;
	}
	return n;
}

/* ---- the IA's shared CQ ------------------------------------------------------------- */

static struct v_conn *conn_of_qp_num(struct v_tp *tp, uint32_t qp_num)
{
	return ref_map_get(&tp->qp_map, (uint64_t)qp_num + 1);
}

/* The stash as large as the shared CQ: every entry the CQ can hold may be
 * in the stash at once. */
static bool stash_fit(struct v_tp *tp, int cqe)
{
	struct ibv_wc *st;

	if ((size_t)cqe <= tp->stash_cap)
		return true;
	st = realloc(tp->stash, (size_t)cqe * sizeof(*st));
	if (!st)
		return false;
	tp->stash = st;
	tp->stash_cap = (size_t)cqe;
	return true;
}

/* The shared CQ resized for @n more entries (a device may not resize). */
static bool shared_cq_grow(struct v_tp *tp, int n)
{
	int most = tp->dattr.max_cqe;
	int used = tp->cq->cqe - tp->cq_room, cqe = tp->cq->cqe;

	while (cqe - used < n && cqe < most)
		cqe = cqe * 2 < most ? cqe * 2 : most;
	if (cqe - used < n || !stash_fit(tp, cqe) || ibv_resize_cq(tp->cq, cqe))
		return false;
	tp->cq_room = tp->cq->cqe - used;
	return stash_fit(tp, tp->cq->cqe) && tp->cq_room >= n;
}

/* @n entries of the shared CQ for a QP (made at the first): false if
 * there are not that many left, or no shared CQ can be made. */
static bool shared_cq_reserve(struct v_tp *tp, int n)
{
	if (!tp->cq) {
		int cqe = tp->dattr.max_cqe < SHARED_CQE_FIRST ? tp->dattr.max_cqe
							       : SHARED_CQE_FIRST;

		tp->cq = ibv_create_cq(tp->ctx, cqe, NULL, tp->comp, 0);
		if (!tp->cq)
			return false;
		if (!stash_fit(tp, tp->cq->cqe) || ibv_req_notify_cq(tp->cq, 0)) {
			ibv_destroy_cq(tp->cq);
			tp->cq = NULL;
			return false;
		}
		tp->cq_armed = true;
		tp->cq_room = tp->cq->cqe;
	}
	if (tp->cq_room < n && !shared_cq_grow(tp, n))
		return false;
	tp->cq_room -= n;
	return true;
}

/* Moves every entry of the shared CQ to the end of the stash. */
static void shared_cq_pull(struct v_tp *tp)
{
	int want, n;

	do {
		if (tp->stash_tail == tp->stash_cap && tp->stash_head) {
			memmove(tp->stash, tp->stash + tp->stash_head,
				(tp->stash_tail - tp->stash_head) * sizeof(*tp->stash));
			tp->stash_tail -= tp->stash_head;
			tp->stash_head = 0;
		}
		want = (int)(tp->stash_cap - tp->stash_tail);
		n = want ? ibv_poll_cq(tp->cq, want, tp->stash + tp->stash_tail) : 0;
		if (n > 0)
			tp->stash_tail += (size_t)n;
	} while (n == want && n > 0);
}

/*
 * Takes out of the stash (after a pull) the first @max entries of QP
 * @qp_num, in order, into @wc (NULL: drops every one); the others keep
 * their places.  Returns how many it took.
 */
static int stash_take(struct v_tp *tp, uint32_t qp_num, struct ibv_wc *wc, int max)
{
	size_t keep = tp->stash_head;
	int n = 0;

	shared_cq_pull(tp);
	for (size_t i = tp->stash_head; i < tp->stash_tail; i++) {
		if (tp->stash[i].qp_num == qp_num && (!wc || n < max)) {
			if (wc)
				wc[n] = tp->stash[i];
			n++;
		} else {
			tp->stash[keep++] = tp->stash[i];
		}
	}
	tp->stash_tail = keep;
	return n;
}

/* Up to @max completions of @c's QP, in order. */
static int conn_next_wcs(struct v_conn *c, struct ibv_wc *wc, int max)
{
	if (c->own_cq)
		return ibv_poll_cq(c->cq, max, wc);
	return stash_take(c->tp, c->qp_num, wc, max);
}

/* ---- connection objects ------------------------------------------------------------ */

static struct v_conn *conn_new(struct v_tp *tp, struct rdma_cm_id *id)
{
	struct v_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->base.tp = &tp->base;
	c->tp = tp;
	c->id = id;
	c->fail_pending = -1;
	if (id)
		id->context = c;
	ref_list_add_tail(&tp->conns, &c->link);
	tp->conns_gen++;
	return c;
}

/*
 * Destroys the QP (and its own CQ) now: no completion can name a DTO
 * after this.  Its entries still in the shared CQ go with it: the next QP
 * may get its number.
 */
static void conn_drop_hw(struct v_conn *c)
{
	struct v_tp *tp = c->tp;

	if (c->qp) {
		if (c->id && c->id->qp == c->qp)
			rdma_destroy_qp(c->id);
		else
			ibv_destroy_qp(c->qp);
		c->qp = NULL;
		ref_map_del(&tp->qp_map, (uint64_t)c->qp_num + 1);
		if (c->cq && !c->own_cq)
			stash_take(tp, c->qp_num, NULL, 0);
	}
	tp->cq_room += c->cq_share;
	c->cq_share = 0;
	if (c->own_cq) {
		ibv_destroy_cq(c->cq);
		ref_list_del(&c->own_link);
		tp->conns_gen++;
		c->own_cq = false;
	}
	c->cq = NULL;
}

static void conn_kill(struct v_conn *c)
{
	conn_drop_hw(c);
	if (c->id) {
		c->id->context = NULL;
		rdma_destroy_id(c->id);
		c->id = NULL;
	}
	c->state = V_DEAD;
	c->has_deadline = false;
	free(c->pdata);
	c->pdata = NULL;
	if (c->released) {
		ref_list_del(&c->link);
		ref_list_add_tail(&c->tp->dead, &c->link);
		c->tp->conns_gen++;
	}
}

static void conn_release(struct v_conn *c)
{
	c->released = true;
	c->base.ep = NULL;
	c->srq_ep = NULL;
	c->fail_pending = -1;
	c->close_pending = false;
	conn_kill(c);
}

/* Posts every receive of the EP (or its SRQ) not yet given to the HCA. */
static int post_recvs(struct v_conn *c, struct ref_ep *ep)
{
	struct ref_ia *ia = ep->obj.ia;
	struct ref_list *pos, *head;
	struct v_srq *s = NULL;

	if (ep->srq) {
		s = srq_get(c->tp, ep->srq);
		if (!s)
			return -1;
		head = &ep->srq->free_q;
	} else {
		head = &ep->recv_q;
	}
	ref_list_for_each(pos, head) {
		struct ref_dto *dto = ref_container_of(pos, struct ref_dto,
						       link);
		struct ibv_sge sge[REF_MAX_IOV];
		struct ibv_recv_wr wr, *bad;
		int n;

		if (dto->issued)
			continue;
		n = dto_sge(ia, dto, UINT64_MAX, sge);
		if (n < 0)
			return -1;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)(uintptr_t)dto;
		wr.sg_list = sge;
		wr.num_sge = n;
		if (s ? ibv_post_srq_recv(s->hw, &wr, &bad)
		      : ibv_post_recv(c->qp, &wr, &bad))
			return -1;
		dto->issued = true;
	}
	/* keep core calling rx_resume after every receive post */
	ep->rx_stalled = true;
	return 0;
}

/* Creates CQ and QP for @ep on the connection's cm id. */
static int conn_make_qp(struct v_conn *c, struct ref_ep *ep)
{
	struct v_tp *tp = c->tp;
	struct ibv_qp_init_attr qa;
	struct ibv_pd *pd;
	struct v_srq *s = NULL;
	int sq = ep->attr.max_request_dtos + 1;
	int rq = ep->srq ? 0 : ep->attr.max_recv_dtos + 1;
	int sge = tp->dattr.max_sge < REF_MAX_IOV ? tp->dattr.max_sge
						  : REF_MAX_IOV;
	int cqe;

	if (!ep->pz)
		return -1;
	pd = pd_for(tp, ep->pz);
	if (!pd)
		return -1;
	if (ep->srq) {
		s = srq_get(tp, ep->srq);
		if (!s)
			return -1;
	}
	cqe = sq + (ep->srq ? SRQ_DEPTH : rq) + 16;
	if (!ep->srq && shared_cq_reserve(tp, sq + rq)) {
		/* an SRQ's receives may complete on any of its QPs: its QPs
		 * keep a CQ each, sized for the whole SRQ */
		c->cq = tp->cq;
		c->cq_share = sq + rq;
	} else {
		if (cqe > tp->dattr.max_cqe)
			cqe = tp->dattr.max_cqe;
		c->cq = ibv_create_cq(tp->ctx, cqe, c, tp->comp, 0);
		if (!c->cq)
			return -1;
		c->own_cq = true;
		ref_list_add_tail(&tp->own_cqs, &c->own_link);
		tp->conns_gen++;
		if (ibv_req_notify_cq(c->cq, 0))
			return -1;
		c->cq_armed = true;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_context = c;
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.srq = s ? s->hw : NULL;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 1;
	qa.cap.max_send_wr = (uint32_t)sq;
	qa.cap.max_recv_wr = (uint32_t)(s ? 0 : rq);
	qa.cap.max_send_sge = (uint32_t)sge;
	qa.cap.max_recv_sge = s ? 0 : (uint32_t)sge;
	qa.cap.max_inline_data = INLINE_BYTES;
	if (rdma_create_qp(c->id, pd, &qa)) {
		/* a device without inline data */
		qa.cap.max_inline_data = 0;
		if (rdma_create_qp(c->id, pd, &qa))
			return -1;
	}
	c->max_inline = qa.cap.max_inline_data;
	c->qp = c->id->qp;
	c->qp_num = c->qp->qp_num;
	if (!ref_map_put(&tp->qp_map, (uint64_t)c->qp_num + 1, c))
		return -1;
	c->srq = ep->srq;
	c->srq_ep = ep->srq ? ep : NULL;
	c->rx_msn = 0;
	return post_recvs(c, ep);
}

static void conn_param(struct v_conn *c, struct rdma_conn_param *p,
		       const void *pdata, int len)
{
	int rd = c->tp->dattr.max_qp_rd_atom;
	int ird = c->tp->dattr.max_qp_init_rd_atom;

	memset(p, 0, sizeof(*p));
	p->private_data = pdata;
	p->private_data_len = (uint8_t)len;
	p->responder_resources = (uint8_t)(rd < REF_MAX_RDMA_READ ? rd :
					   REF_MAX_RDMA_READ);
	p->initiator_depth = (uint8_t)(ird < REF_MAX_RDMA_READ ? ird :
				       REF_MAX_RDMA_READ);
	p->retry_count = 7;
	p->rnr_retry_count = 7;		/* infinite: wait for a buffer */
}

/* ---- ops: listen -------------------------------------------------------------------- */

static DAT_RETURN v_listen(struct ref_transport *base, DAT_CONN_QUAL *qual,
			   void *ctx, struct ref_tp_listener **out)
{
	struct v_tp *tp = (struct v_tp *)base;
	struct sockaddr_storage ss = tp->addr;
	struct v_listener *l;
	struct rdma_cm_id *id;

	if (*qual > 65535)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	l = calloc(1, sizeof(*l));
	if (!l)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	if (rdma_create_id(tp->cm, &id, l, RDMA_PS_TCP)) {
		free(l);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	sa_set_port(&ss, (uint16_t)*qual);
	if (rdma_bind_addr(id, (struct sockaddr *)&ss)) {
		int e = errno;

		rdma_destroy_id(id);
		free(l);
		if (*qual == 0)
			return REF_ERR(DAT_CONN_QUAL_UNAVAILABLE, 0);
		if (e == EADDRINUSE || e == EACCES)
			return REF_ERR(DAT_CONN_QUAL_IN_USE, 0);
		return REF_ERR(DAT_INVALID_ADDRESS,
			       DAT_INVALID_ADDRESS_UNSUPPORTED);
	}
	if (rdma_listen(id, 128)) {
		int e = errno;

		rdma_destroy_id(id);
		free(l);
		if (*qual == 0)
			return REF_ERR(DAT_CONN_QUAL_UNAVAILABLE, 0);
		(void)e;
		return REF_ERR(DAT_CONN_QUAL_IN_USE, 0);
	}
	l->tp = tp;
	l->id = id;
	l->ctx = ctx;
	l->qual = ntohs(rdma_get_src_port(id));
	ref_list_add_tail(&tp->listeners, &l->link);
	*qual = l->qual;
	*out = (struct ref_tp_listener *)l;
	return DAT_SUCCESS;
}

static void v_unlisten(struct ref_tp_listener *lb)
{
	struct v_listener *l = (struct v_listener *)lb;

	rdma_destroy_id(l->id);
	ref_list_del(&l->link);
	free(l);
}

/* ---- ops: connect / accept / reject / disconnect ------------------------------------- */

static DAT_RETURN v_connect(struct ref_transport *base, struct ref_ep *ep,
			    const struct sockaddr *addr, DAT_CONN_QUAL qual,
			    DAT_TIMEOUT timeout, const void *pdata,
			    DAT_COUNT pdata_len, struct ref_tp_conn **out)
{
	struct v_tp *tp = (struct v_tp *)base;
	struct sockaddr_storage dst, src = tp->addr;
	struct rdma_cm_id *id;
	struct v_conn *c;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return REF_ERR(DAT_INVALID_ADDRESS,
			       DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (qual == 0 || qual > 65535)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (pdata_len > max_pdata(tp))
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (addr->sa_family != tp->addr.ss_family)
		return REF_ERR(DAT_INVALID_ADDRESS,
			       DAT_INVALID_ADDRESS_UNREACHABLE);
	memset(&dst, 0, sizeof(dst));
	memcpy(&dst, addr, sa_len(addr));
	sa_set_port(&dst, (uint16_t)qual);
	sa_set_port(&src, 0);
	if (rdma_create_id(tp->cm, &id, NULL, RDMA_PS_TCP))
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	c = conn_new(tp, id);
	if (!c) {
		rdma_destroy_id(id);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	c->pdata = malloc(PD_HDR + (size_t)pdata_len);
	if (!c->pdata) {
		c->released = true;
		conn_kill(c);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	c->pdata_len = pdata_wrap(c->pdata, 'C', pdata, pdata_len);
	c->base.ep = ep;
	c->qual = qual;
	c->state = V_ADDR;
	if (timeout != DAT_TIMEOUT_INFINITE) {
		c->has_deadline = true;
		c->deadline = deadline_after_us(timeout);
	}
	/* bound first: the local port qualifier is known at once */
	if (rdma_bind_addr(id, (struct sockaddr *)&src) ||
	    rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst,
			      RESOLVE_MS)) {
		c->fail_pending = REF_TP_UNREACHABLE;
		tp_wake(tp);
	}
	*out = &c->base;
	return DAT_SUCCESS;
}

static DAT_RETURN v_accept(struct ref_tp_conn *cb, struct ref_ep *ep,
			   const void *pdata, DAT_COUNT pdata_len)
{
	struct v_conn *c = (struct v_conn *)cb;
	struct rdma_conn_param p;
	uint8_t buf[IW_PDATA + PD_HDR];
	int n;

	if (pdata_len > max_pdata(c->tp))
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	c->base.ep = ep;
	if (c->state != V_PENDING || conn_make_qp(c, ep) < 0)
		goto fail;
	n = pdata_wrap(buf, 'A', pdata, pdata_len);
	conn_param(c, &p, buf, n);
	if (rdma_accept(c->id, &p))
		goto fail;
	c->state = V_ACCEPTING;
	return DAT_SUCCESS;
fail:
	/* The active side is gone: ACCEPT_COMPLETION_ERROR, async. */
	conn_drop_hw(c);
	c->fail_pending = REF_TP_ACCEPT_ERROR;
	tp_wake(c->tp);
	return DAT_SUCCESS;
}

/* A Provider-created EP fits the request: its read depths, crossed. */
static void v_peer_attr(struct ref_tp_conn *cb, DAT_EP_ATTR *a)
{
	struct v_conn *c = (struct v_conn *)cb;

	a->max_rdma_read_in = ref_peer_read_limit(c->req_rd_out, ref_profile_max_rdma_read_in());
	a->max_rdma_read_out = ref_peer_read_limit(c->req_rd_in, ref_profile.max_rdma_read);
}

static void v_reject(struct ref_tp_conn *cb, bool peer, const void *pdata,
		     DAT_COUNT pdata_len)
{
	struct v_conn *c = (struct v_conn *)cb;
	uint8_t buf[PD_HDR + REF_MAX_PRIVATE_DATA];

	if (c->id && c->state == V_PENDING)
		rdma_reject(c->id, buf, (uint8_t)pdata_wrap(buf, peer ? 'P' : 'N',
							    pdata, pdata_len));
	conn_release(c);
}

/*
 * Core drops an SRQ EP's connection: before the CQ goes with it, the
 * buffer the device had taken for a message still arriving is collected
 * (srq_buffer_flushed).  After the disconnect the QP is moved to Error
 * (rdma_disconnect does so on RoCE, not on iWARP); the device's flush of
 * that request may trail the move, so the CQ is watched for a moment, until
 * it comes.  Whatever else the CQ holds is dropped, as before: core
 * flushes the EP's requests and receives itself.
 */
#define SRQ_FLUSH_WAIT_US	50000u
static void srq_collect_taken(struct v_conn *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct timespec deadline, now;
	bool found = false;

	if (!c->srq_ep || !c->qp || !c->cq || c->state != V_ESTABLISHED)
		return;
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE))
		return;
	deadline = deadline_after_us(SRQ_FLUSH_WAIT_US);
	do {
		struct ibv_wc wc[16];
		int n = conn_next_wcs(c, wc, 16);

		for (int i = 0; i < n; i++) {
			struct ref_dto *dto = (struct ref_dto *)(uintptr_t)wc[i].wr_id;

			if (dto && srq_buffer_flushed(c, c->srq_ep, dto))
				found = true;
		}
		now = now_mono();
	} while (!found && ts_before(&now, &deadline));
}

static void v_disconnect(struct ref_tp_conn *cb)
{
	struct v_conn *c = (struct v_conn *)cb;

	if (c->id && (c->state == V_ESTABLISHED || c->state == V_ACCEPTING ||
		      c->state == V_REQ_SENT))
		rdma_disconnect(c->id);
	srq_collect_taken(c);
	conn_release(c);
}

static void v_abort(struct ref_tp_conn *cb)
{
	struct v_conn *c = (struct v_conn *)cb;

	if (c->id && c->state == V_PENDING) {
		uint8_t buf[PD_HDR];

		rdma_reject(c->id, buf, (uint8_t)pdata_wrap(buf, 'N', NULL, 0));
	} else if (c->id && c->state != V_DEAD) {
		rdma_disconnect(c->id);
	}
	srq_collect_taken(c);
	conn_release(c);
}

static void v_addresses(struct ref_tp_conn *cb, struct sockaddr_storage *local,
			DAT_PORT_QUAL *local_port,
			struct sockaddr_storage *remote,
			DAT_PORT_QUAL *remote_port)
{
	struct v_conn *c = (struct v_conn *)cb;
	struct sockaddr *sa;

	if (!c->id)
		return;
	sa = rdma_get_local_addr(c->id);
	if (sa && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)) {
		memset(local, 0, sizeof(*local));
		memcpy(local, sa, sa_len(sa));
		*local_port = ntohs(rdma_get_src_port(c->id));
	}
	sa = rdma_get_peer_addr(c->id);
	if (sa && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)) {
		memset(remote, 0, sizeof(*remote));
		memcpy(remote, sa, sa_len(sa));
		*remote_port = ntohs(rdma_get_dst_port(c->id));
	}
}

/* ---- ops: data ------------------------------------------------------------------------ */

static int post_send(struct v_conn *c, const struct ref_dto *dto,
		     enum ibv_wr_opcode op, uint64_t len, bool solicited)
{
	struct ref_ia *ia = c->tp->base.ia;
	struct ibv_sge sge[REF_MAX_IOV];
	struct ibv_send_wr wr, *bad;
	int n;

	if (c->state != V_ESTABLISHED || !c->qp)
		return -1;
	n = dto_sge(ia, dto, len, sge);
	if (n < 0)
		goto broken;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)(uintptr_t)dto;
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (op != IBV_WR_RDMA_READ && c->max_inline) {
		uint64_t bytes = 0;

		for (int i = 0; i < n; i++)
			bytes += sge[i].length;
		if (bytes <= c->max_inline)
			wr.send_flags |= IBV_SEND_INLINE;
	}
	if (op == IBV_WR_SEND) {
		if (solicited)
			wr.send_flags |= IBV_SEND_SOLICITED;
		if (!c->tp->iwarp) {
			/* the solicited bit travels as immediate data */
			wr.opcode = IBV_WR_SEND_WITH_IMM;
			wr.imm_data = htonl(solicited ? 1u : 0u);
		}
	} else {
		wr.wr.rdma.remote_addr = REF_RMR_TRIPLET_ADDRESS(&dto->remote);
		wr.wr.rdma.rkey = dto->remote.rmr_context;
	}
	if (ibv_post_send(c->qp, &wr, &bad) == 0)
		return 0;
broken:
	/* reported from the progress round, never inside the post */
	c->close_pending = true;
	tp_wake(c->tp);
	return -1;
}

static int v_send(struct ref_tp_conn *cb, uint64_t seq, uint64_t msn,
		  bool solicited, const struct ref_dto *dto)
{
	(void)seq;
	(void)msn;
	return post_send((struct v_conn *)cb, dto, IBV_WR_SEND, UINT64_MAX,
			 solicited);
}

static int v_rdma_write(struct ref_tp_conn *cb, uint64_t seq,
			const struct ref_dto *dto)
{
	(void)seq;
	return post_send((struct v_conn *)cb, dto, IBV_WR_RDMA_WRITE,
			 UINT64_MAX, false);
}

static int v_rdma_read(struct ref_tp_conn *cb, uint64_t seq,
		       const struct ref_dto *dto)
{
	(void)seq;
	return post_send((struct v_conn *)cb, dto, IBV_WR_RDMA_READ,
			 dto->remote.segment_length, false);
}

/* Software-RC answers: the HCA does all of this. */
static void v_ack(struct ref_tp_conn *c, uint64_t seq)
{
	(void)c;
	(void)seq;
}

static void v_read_resp(struct ref_tp_conn *c, uint64_t seq,
			const struct iovec *iov, int niov)
{
	(void)c;
	(void)seq;
	(void)iov;
	(void)niov;
}

static void v_nak(struct ref_tp_conn *c, uint64_t seq,
		  DAT_DTO_COMPLETION_STATUS status)
{
	(void)seq;
	(void)status;
	v_abort(c);
}

/* Core queued receives (EP or SRQ): hand the new ones to the HCA. */
static void v_rx_resume(struct ref_tp_conn *cb)
{
	struct v_conn *c = (struct v_conn *)cb;
	struct ref_ep *ep = c->base.ep;

	if (!ep || c->released || !c->qp)
		return;
	if (post_recvs(c, ep) < 0) {
		c->close_pending = true;
		tp_wake(c->tp);
	}
}

/* ---- completions -------------------------------------------------------------------- */

/* The HCA matched a receive to an arrival: it moves to the EP's allocated
 * list (an SRQ's buffer becomes the EP's). */
static void recv_taken(struct v_conn *c, struct ref_ep *ep, struct ref_dto *dto)
{
	ref_list_del(&dto->link);
	if (dto->srq) {
		dto->srq->available--;
		dto->ep = ep;
	}
	dto->where = REF_DTO_ALLOCATED;
	dto->seq = c->rx_msn++;
	ref_list_add_tail(&ep->rx_alloc, &dto->link);
	ep->rx_alloc_count++;
	if (dto->srq)
		ref_srq_buffer_taken(dto->srq);
}

static void recv_done(struct v_conn *c, struct ref_ep *ep, struct ref_dto *dto,
		      const struct ibv_wc *wc)
{
	DAT_DTO_COMPLETION_STATUS st = wc_status(wc->status);
	bool solicited = true;

	/* rxe reports a Send longer than the buffer as a local QP
	 * operation error on the receive; it is DAT's local length error */
	if (wc->status == IBV_WC_LOC_QP_OP_ERR)
		st = DAT_DTO_ERR_LOCAL_LENGTH;

	recv_taken(c, ep, dto);
	ref_ep_check_watermarks(ep);
	if (c->released || ep->conn != &c->base)
		return;		/* hard watermark broke it: flushed */
	ref_list_del(&dto->link);
	ep->rx_alloc_count--;
	if (!dto->srq)
		ep->recv_count--;
	ep->rx_next_msn = dto->seq + 1;
	if (st == DAT_DTO_SUCCESS && (wc->wc_flags & IBV_WC_WITH_IMM))
		solicited = ntohl(wc->imm_data) & 1;
	ref_dto_complete(dto, st, st == DAT_DTO_SUCCESS ? wc->byte_len : 0,
			 solicited);
	if (st != DAT_DTO_SUCCESS && !c->released && ep->conn == &c->base)
		ref_ep_break(ep);
}

/*
 * A QP in Error flushes, of its SRQ's buffers, only the one it had taken
 * for a message still arriving: that buffer is the EP's now, and core
 * flushes it with the EP's own when the connection ends
 * (dat_srq_post_recv(3DAT) DESCRIPTION).  Returns whether @dto was one.
 */
static bool srq_buffer_flushed(struct v_conn *c, struct ref_ep *ep, struct ref_dto *dto)
{
	if (dto->op != REF_WR_RECV || !dto->srq || dto->where == REF_DTO_ALLOCATED)
		return false;
	recv_taken(c, ep, dto);
	return true;
}

/*
 * Delivers @c's completions.  @closing: the connection is ending (a cm
 * event); flush completions are left out, core flushes those DTOs itself
 * when the connection closes (a flush is the end of the connection, not an
 * error of the DTO that would make a graceful end a broken one).
 */
static void wc_deliver(struct v_conn *c, const struct ibv_wc *wc, bool closing)
{
	struct ref_dto *dto = (struct ref_dto *)(uintptr_t)wc->wr_id;
	struct ref_ep *ep = c->base.ep;
	DAT_DTO_COMPLETION_STATUS st;

	if (!ep || !dto)
		return;
	if (closing && wc->status == IBV_WC_WR_FLUSH_ERR) {
		srq_buffer_flushed(c, ep, dto);
		return;
	}
	if (dto->op == REF_WR_RECV) {
		recv_done(c, ep, dto, wc);
		return;
	}
	st = wc_status(wc->status);
	if (dto->op == REF_WR_RDMA_READ && ep->rdma_read_out > 0)
		ep->rdma_read_out--;
	ref_tp_wr_done(ep, dto, st, st == DAT_DTO_SUCCESS ? dto->done : 0);
	if (st != DAT_DTO_SUCCESS && !c->released && ep->conn == &c->base)
		ref_ep_break(ep);
}

static void conn_poll_cq(struct v_conn *c, bool closing)
{
	struct ibv_wc wc[16];
	int n = 16;

	/* a short batch emptied the queue: no second poll to learn that */
	while (n == 16 && !c->released && c->cq &&
	       (n = conn_next_wcs(c, wc, 16)) > 0)
		for (int i = 0; i < n && !c->released; i++)
			wc_deliver(c, &wc[i], closing);
}

/* A completion of the shared CQ, to its connection if core still has it. */
static void shared_deliver(struct v_tp *tp, const struct ibv_wc *wc)
{
	struct v_conn *c = conn_of_qp_num(tp, wc->qp_num);

	if (c && !c->own_cq && !c->released)
		wc_deliver(c, wc, false);
}

/*
 * Delivers the stash, then the shared CQ.  An upcall that destroys a QP
 * moves what the CQ holds to the stash: the rest of the batch in hand is
 * older and goes first, then the stash, before the CQ is polled again.
 */
static void shared_poll(struct v_tp *tp)
{
	struct ibv_wc wc[16];
	int n = 16;

	for (;;) {
		while (tp->stash_head < tp->stash_tail) {
			struct ibv_wc one = tp->stash[tp->stash_head++];

			shared_deliver(tp, &one);
		}
		tp->stash_head = tp->stash_tail = 0;
		if (n < 16)	/* the last batch emptied the CQ */
			return;
		n = ibv_poll_cq(tp->cq, 16, wc);
		for (int i = 0; i < n; i++)
			shared_deliver(tp, &wc[i]);
	}
}

/* Polls the shared CQ and every own CQ (@all), or those that had an event:
 * one walk of the own CQs, unless an upcall changed the list. */
static void tp_poll_cqs(struct v_tp *tp, bool all)
{
	struct ref_list *pos = tp->own_cqs.next;

	if (tp->cq && (all || tp->cq_ready)) {
		tp->cq_ready = false;
		shared_poll(tp);
	}
	if (all)
		tp->sweep++;
	while (pos != &tp->own_cqs) {
		struct v_conn *c = ref_container_of(pos, struct v_conn, own_link);
		unsigned int gen = tp->conns_gen;

		if (!c->cq_ready && !(all && c->cq && c->swept != tp->sweep)) {
			pos = pos->next;
			continue;
		}
		c->cq_ready = false;
		if (all)
			c->swept = tp->sweep;
		conn_poll_cq(c, false);
		/* changed: from the start again, past what this sweep polled */
		pos = gen == tp->conns_gen ? pos->next : tp->own_cqs.next;
	}
}

/*
 * Completion events.  A queue is not re-armed here: only a sleeper arms
 * (engine_arm), so a consumer that keeps polling is not followed by an
 * event, a wake-up and a round of the thread per completion.
 */
static void tp_comp_events(struct v_tp *tp)
{
	struct ibv_cq *cq;
	void *ctx;

	while (ibv_get_cq_event(tp->comp, &cq, &ctx) == 0) {
		struct v_conn *c = ctx;

		ibv_ack_cq_events(cq, 1);
		if (cq == tp->cq) {
			tp->cq_armed = false;
			tp->cq_ready = true;
		} else if (c && c->cq == cq && !c->released) {
			c->cq_armed = false;
			c->cq_ready = true;
		}
	}
	tp_poll_cqs(tp, false);
}

/* Before a sleep on the completion channel (engine.c): arms every queue
 * not armed, then reaps what completed before it was armed. */
static void tp_arm(struct v_tp *tp)
{
	struct ref_list *pos;

	if (tp->cq && !tp->cq_armed && ibv_req_notify_cq(tp->cq, 0) == 0) {
		tp->cq_armed = true;
		tp->cq_ready = true;
	}
	ref_list_for_each(pos, &tp->own_cqs) {
		struct v_conn *c = ref_container_of(pos, struct v_conn, own_link);

		if (!c->released && !c->cq_armed &&
		    ibv_req_notify_cq(c->cq, 0) == 0) {
			c->cq_armed = true;
			c->cq_ready = true;
		}
	}
	tp_poll_cqs(tp, false);
}

/* ---- connection events ----------------------------------------------------------------- */

/* Core copies @pdata before the connection (which owns it) is killed. */
static void conn_fail_pdata(struct v_conn *c, enum ref_tp_fail why,
			    const void *pdata, DAT_COUNT pdata_len)
{
	struct ref_ep *ep = c->base.ep;
	bool report = !c->released && ep;

	c->released = true;
	c->base.ep = NULL;
	if (report)
		ref_tp_conn_failed(ep, why, pdata, pdata_len);
	conn_kill(c);
}

static void conn_fail(struct v_conn *c, enum ref_tp_fail why)
{
	conn_fail_pdata(c, why, NULL, 0);
}

static void conn_broken(struct v_conn *c, bool graceful)
{
	struct ref_ep *ep = c->base.ep;

	switch (c->state) {
	case V_ADDR:
	case V_ROUTE:
		conn_fail(c, REF_TP_UNREACHABLE);
		return;
	case V_REQ_SENT:
		conn_fail(c, REF_TP_NON_PEER_REJECTED);
		return;
	case V_ACCEPTING:
		conn_fail(c, REF_TP_ACCEPT_ERROR);
		return;
	case V_PENDING:
		/* core holds it through the CR; accept will fail */
		conn_drop_hw(c);
		c->state = V_DEAD;
		return;
	case V_ESTABLISHED:
		/* what the device completed before the connection ended comes
		 * first: an error completion here is often why the peer left
		 * (destroying the CQ would lose it, and with it an SRQ
		 * buffer the device had taken) */
		conn_poll_cq(c, true);
		if (c->released)
			return;		/* the completion broke it already */
		ep = c->base.ep;
		c->released = true;
		c->base.ep = NULL;
		conn_kill(c);
		if (ep)
			ref_tp_conn_closed(ep, graceful);
		return;
	default:
		return;
	}
}

static void on_connect_request(struct v_tp *tp, struct rdma_cm_id *id,
			       struct v_listener *l, const uint8_t *pd,
			       uint8_t pd_len, uint8_t rd_in, uint8_t rd_out)
{
	struct v_conn *c;
	struct sockaddr_storage peer;
	struct sockaddr *sa = rdma_get_peer_addr(id);
	const void *p;
	DAT_COUNT len;
	char kind;

	if (!l || !sa) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	c = conn_new(tp, id);
	if (!c) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	c->state = V_PENDING;
	c->qual = l->qual;
	c->req_rd_in = rd_in;
	c->req_rd_out = rd_out;
	memset(&peer, 0, sizeof(peer));
	memcpy(&peer, sa, sa_len(sa));
	p = pdata_unwrap(pd, pd_len, &len, &kind);
	ref_tp_conn_request(l->ctx, &c->base, (struct sockaddr *)&peer,
			    ntohs(rdma_get_dst_port(id)), l->qual, p, len,
			    DAT_QOS_BEST_EFFORT);	/* not carried: no REF_TP_CAP_QOS */
}

static void cm_event(struct v_tp *tp, struct rdma_cm_event *ev)
{
	uint8_t rd_in = ev->param.conn.responder_resources;
	uint8_t rd_out = ev->param.conn.initiator_depth;
	struct rdma_cm_id *id = ev->id;
	enum rdma_cm_event_type type = ev->event;
	int status = ev->status;
	uint8_t pd[256];
	uint8_t pd_len = 0;
	struct v_listener *l = NULL;
	struct v_conn *c = NULL;
	const void *p;
	DAT_COUNT len;
	char kind;

	if (ev->param.conn.private_data && ev->param.conn.private_data_len) {
		pd_len = ev->param.conn.private_data_len;
		memcpy(pd, ev->param.conn.private_data, pd_len);
	}
	if (type == RDMA_CM_EVENT_CONNECT_REQUEST)
		l = ev->listen_id ? ev->listen_id->context : NULL;
	else
		c = id ? id->context : NULL;
	rdma_ack_cm_event(ev);	/* before any upcall: core may destroy ids */

	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		on_connect_request(tp, id, l, pd, pd_len, rd_in, rd_out);
		return;
	}
	if (!c || c->released || c->state == V_DEAD)
		return;
	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (c->state != V_ADDR)
			break;
		c->state = V_ROUTE;
		if (rdma_resolve_route(c->id, RESOLVE_MS))
			conn_fail(c, REF_TP_UNREACHABLE);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED: {
		struct rdma_conn_param prm;

		if (c->state != V_ROUTE || !c->base.ep)
			break;
		if (conn_make_qp(c, c->base.ep) < 0) {
			conn_fail(c, REF_TP_NON_PEER_REJECTED);
			break;
		}
		conn_param(c, &prm, c->pdata, c->pdata_len);
		if (rdma_connect(c->id, &prm)) {
			/* iWARP connects TCP inside rdma_connect: a closed
			 * port is refused right here */
			conn_fail(c, errno == ECONNREFUSED ||
				     errno == ECONNRESET ?
				     REF_TP_NON_PEER_REJECTED :
				     REF_TP_UNREACHABLE);
			break;
		}
		c->state = V_REQ_SENT;
		break;
	}
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		conn_fail(c, REF_TP_UNREACHABLE);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (c->state == V_REQ_SENT)
			conn_fail(c, type == RDMA_CM_EVENT_UNREACHABLE ?
				     REF_TP_UNREACHABLE :
				     REF_TP_NON_PEER_REJECTED);
		else
			conn_broken(c, false);
		break;
	case RDMA_CM_EVENT_REJECTED:
		(void)status;
		if (c->state != V_REQ_SENT) {
			conn_broken(c, false);
			break;
		}
		p = pdata_unwrap(pd, pd_len, &len, &kind);
		if (kind == 'P')
			conn_fail_pdata(c, REF_TP_PEER_REJECTED, p, len);
		else
			conn_fail(c, REF_TP_NON_PEER_REJECTED);
		break;
	case RDMA_CM_EVENT_ESTABLISHED: {
		struct ref_ep *ep = c->base.ep;

		if (c->state == V_REQ_SENT) {
			c->state = V_ESTABLISHED;
			c->has_deadline = false;
			free(c->pdata);
			c->pdata = NULL;
			p = pdata_unwrap(pd, pd_len, &len, &kind);
			if (ep)
				ref_tp_established(ep, p, len);
		} else if (c->state == V_ACCEPTING) {
			c->state = V_ESTABLISHED;
			if (ep)
				ref_tp_established(ep, NULL, 0);
		}
		break;
	}
	case RDMA_CM_EVENT_DISCONNECTED:
		conn_broken(c, true);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		conn_broken(c, false);
		break;
	default:
		break;
	}
}

static void tp_cm_events(struct v_tp *tp)
{
	struct rdma_cm_event *ev;

	while (rdma_get_cm_event(tp->cm, &ev) == 0)
		cm_event(tp, ev);
}

static struct v_conn *conn_of_qp(struct v_tp *tp, struct ibv_qp *qp)
{
	struct v_conn *c = conn_of_qp_num(tp, qp->qp_num);

	return c && c->qp == qp ? c : NULL;
}

static void tp_async_events(struct v_tp *tp)
{
	struct ibv_async_event ev;

	while (ibv_get_async_event(tp->ctx, &ev) == 0) {
		enum ibv_event_type t = ev.event_type;
		struct ibv_qp *qp = NULL;
		struct v_conn *c;

		if (t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR ||
		    t == IBV_EVENT_QP_ACCESS_ERR)
			qp = ev.element.qp;
		/* before the ack, which lets the QP go */
		c = qp ? conn_of_qp(tp, qp) : NULL;
		ibv_ack_async_event(&ev);
		switch (t) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
			if (c && !c->released && c->base.ep)
				c->close_pending = true;
			break;
		case IBV_EVENT_CQ_ERR:
		case IBV_EVENT_DEVICE_FATAL:
		case IBV_EVENT_PORT_ERR:
			ref_ia_post_async(tp->base.ia,
					  t == IBV_EVENT_DEVICE_FATAL ?
					  DAT_ASYNC_ERROR_IA_CATASTROPHIC :
					  DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR,
					  (DAT_HANDLE)tp->base.ia, 0);
			break;
		default:
			break;	/* SRQ limit: core keeps the watermark */
		}
	}
}

/* Deferred failures, broken connections, connect timeouts. */
static void tp_timers(struct v_tp *tp)
{
	struct timespec now;
	bool have_now = false;	/* a clock read may be a system call */

	for (bool again = true; again;) {
		struct ref_list *pos;

		again = false;
		ref_list_for_each(pos, &tp->conns) {
			struct v_conn *c = ref_container_of(pos, struct v_conn,
							    link);

			if (c->released)
				continue;
			if (c->fail_pending >= 0) {
				enum ref_tp_fail why = c->fail_pending;

				c->fail_pending = -1;
				conn_fail(c, why);
				again = true;
				break;
			}
			if (c->close_pending) {
				c->close_pending = false;
				if (c->base.ep && c->state == V_ESTABLISHED) {
					struct ref_ep *ep = c->base.ep;

					/* core breaks it: abort releases c */
					ref_ep_break(ep);
					again = true;
					break;
				}
			}
			if (!c->has_deadline)
				continue;
			if (!have_now) {
				now = now_mono();
				have_now = true;
			}
			if (!ts_before(&now, &c->deadline)) {
				c->has_deadline = false;
				conn_fail(c, c->state == V_REQ_SENT ?
					     REF_TP_TIMED_OUT :
					     REF_TP_UNREACHABLE);
				again = true;
				break;
			}
		}
	}
}

static int tp_timeout_ms(struct v_tp *tp)
{
	struct timespec now, best = { 0, 0 };
	bool any = false;
	struct ref_list *pos;
	long ms;

	ref_list_for_each(pos, &tp->conns) {
		struct v_conn *c = ref_container_of(pos, struct v_conn, link);

		if (c->released)
			continue;
		if (c->fail_pending >= 0 || c->close_pending)
			return 0;
		if (c->has_deadline && (!any || ts_before(&c->deadline, &best))) {
			best = c->deadline;
			any = true;
		}
	}
	if (!any)
		return -1;
	now = now_mono();
	if (!ts_before(&now, &best))
		return 0;
	ms = (long)(best.tv_sec - now.tv_sec) * 1000 +
	     (best.tv_nsec - now.tv_nsec) / 1000000 + 1;
	return ms > 60000 ? 60000 : (int)ms;
}

static void tp_reap(struct v_tp *tp)
{
	while (!ref_list_empty(&tp->dead)) {
		struct v_conn *c = ref_container_of(tp->dead.next,
						    struct v_conn, link);

		ref_list_del(&c->link);
		free(c);
	}
}

/*
 * One progress round, ia->lock held.  One look at the set says which
 * descriptors to read: a read of each costs a system call apiece, most of
 * them answered EAGAIN, on every wake-up of a consumer waiting for its
 * completions.
 */
static void tp_round(struct v_tp *tp)
{
	struct epoll_event ev[3];
	bool cm = false, comp = false, async = false;
	int n = epoll_wait(tp->base.engine.epfd, ev, 3, 0);

	for (int i = 0; i < n; i++) {
		cm |= ev[i].data.ptr == tp->cm;
		comp |= ev[i].data.ptr == tp->comp;
		async |= ev[i].data.ptr == tp->ctx;
	}
	if (cm)
		tp_cm_events(tp);
	if (comp)
		tp_comp_events(tp);
	else
		tp_poll_cqs(tp, false);	/* queues found ready when armed */
	if (async)
		tp_async_events(tp);
	tp_timers(tp);
	tp_reap(tp);
}

/* The engine's round and timer (engine.c). */
static void engine_round(struct ref_engine *e)
{
	tp_round(ref_container_of(e, struct v_tp, base.engine));
}

static int engine_timeout_ms(struct ref_engine *e)
{
	return tp_timeout_ms(ref_container_of(e, struct v_tp, base.engine));
}

static void engine_arm(struct ref_engine *e)
{
	tp_arm(ref_container_of(e, struct v_tp, base.engine));
}

/* ---- consumer-driven progress (ref_conn_wait, busy polling) ----------------------------- */

static void v_progress(struct ref_transport *base)
{
	tp_round((struct v_tp *)base);
}

/* Busy polling (dat_evd_dequeue, a spinning wait): the CQs directly,
 * without waiting for the completion channel's interrupt. */
static void v_poll_completions(struct ref_transport *base)
{
	struct v_tp *tp = (struct v_tp *)base;

	/*
	 * While a consumer busy-polls, the progress thread leaves the fds to
	 * it: a thread woken by every completion event (and re-arming the CQ
	 * each time) would cost the poller more than the completion itself.
	 */
	if (ref_engine_busy_poll(&base->engine))
		tp_round(tp);
	tp_poll_cqs(tp, true);
}

/* ---- attributes ------------------------------------------------------------------------ */

static DAT_COUNT min_count(DAT_COUNT a, long long b)
{
	return b < a ? (DAT_COUNT)b : a;
}

void ref_verbs_attrs(struct ref_transport *base, DAT_IA_ATTR *a,
		     DAT_PROVIDER_ATTR *p)
{
	struct v_tp *tp = (struct v_tp *)base;
	const struct ibv_device_attr *d = &tp->dattr;
	DAT_COUNT sge = min_count(min_count(REF_MAX_IOV, d->max_sge),
				  d->max_srq_sge);

	a->hardware_version_major = (DAT_UINT32)d->hw_ver;
	a->max_dto_per_ep = min_count(a->max_dto_per_ep, d->max_qp_wr - 1);
	a->max_rdma_read_per_ep_in = min_count(a->max_rdma_read_per_ep_in,
					       d->max_qp_rd_atom);
	a->max_rdma_read_per_ep_out = min_count(a->max_rdma_read_per_ep_out,
						d->max_qp_init_rd_atom);
	a->max_iov_segments_per_dto = sge;
	a->max_iov_segments_per_rdma_write = min_count(REF_MAX_IOV,
						       d->max_sge);
	a->max_iov_segments_per_rdma_read =
		min_count(REF_MAX_IOV, d->max_sge_rd > 0 ? d->max_sge_rd
							 : d->max_sge);
	a->max_srqs = min_count(a->max_srqs, d->max_srq);
	a->max_recv_per_srq = min_count(a->max_recv_per_srq,
					d->max_srq_wr < SRQ_DEPTH ?
					d->max_srq_wr : SRQ_DEPTH);
	a->max_lmrs = min_count(a->max_lmrs, d->max_mr);
	if (d->max_mr_size && d->max_mr_size < a->max_lmr_block_size)
		a->max_lmr_block_size = d->max_mr_size;
	a->max_pzs = min_count(a->max_pzs, d->max_pd);
	p->max_private_data_size = max_pdata(tp);
	/* the HCA checks a receive's keys against the QP's PD */
	p->srq_ep_pz_difference_supported = DAT_FALSE;
	if (tp->iwarp)
		/* no immediate data: a receive cannot tell a solicited Send */
		p->completion_flags_supported &=
			~DAT_COMPLETION_SOLICITED_WAIT_FLAG;
}

/* ---- open / close ------------------------------------------------------------------------ */

/* Does an IPv4 address of this host belong to RDMA device @dev? */
static bool addr_on_device(const struct sockaddr *sa, const char *dev,
			   int *err)
{
	struct rdma_cm_id *id;
	bool yes = false;

	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
		*err = errno;
		return false;
	}
	if (rdma_bind_addr(id, (struct sockaddr *)sa) == 0 && id->verbs &&
	    strcmp(ibv_get_device_name(id->verbs->device), dev) == 0)
		yes = true;
	rdma_destroy_id(id);
	return yes;
}

/* Out of descriptors or memory: an IA cannot be made now, which is not the
 * same as naming no device (dat_ia_open(3DAT) RETURN VALUES). */
static bool out_of_resources(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOMEM || e == ENOBUFS;
}

/*
 * IA address and device from "dev[:addr]" (dev: RDMA device or netdev):
 * 0, or -1 when params name nothing usable, or -2 when a system call ran out
 * of resources on the way.
 */
static int resolve(struct v_tp *tp, const char *params)
{
	int err = 0;

	char buf[128], *ip;
	struct ifaddrs *ifs = NULL, *i;
	struct ibv_context **list;
	int n = 0, found = 0;
	struct rdma_cm_id *id;

	snprintf(buf, sizeof(buf), "%s", params ? params : "");
	ip = strchr(buf, ':');
	if (ip)
		*ip++ = '\0';
	if (!buf[0])
		return -1;
	memset(&tp->addr, 0, sizeof(tp->addr));
	if (ip && *ip) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&tp->addr;

		sin->sin_family = AF_INET;
		if (inet_pton(AF_INET, ip, &sin->sin_addr) != 1)
			return -1;
		found = 1;
	} else if (getifaddrs(&ifs) < 0) {
		err = errno;
	} else {
		/* a netdev named so, else an address on the RDMA device */
		for (i = ifs; i && !found; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			    strcmp(i->ifa_name, buf) == 0) {
				memcpy(&tp->addr, i->ifa_addr,
				       sizeof(struct sockaddr_in));
				found = 1;
			}
		for (i = ifs; i && !found; i = i->ifa_next)
			if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
			    !(i->ifa_flags & IFF_LOOPBACK) &&
			    addr_on_device(i->ifa_addr, buf, &err)) {
				memcpy(&tp->addr, i->ifa_addr,
				       sizeof(struct sockaddr_in));
				found = 1;
			}
		freeifaddrs(ifs);
	}
	if (!found)
		return out_of_resources(err) ? -2 : -1;
	/* the device: what rdma_cm binds the address to */
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return out_of_resources(errno) ? -2 : -1;
	err = rdma_bind_addr(id, (struct sockaddr *)&tp->addr) ? errno : 0;
	if (err || !id->verbs) {
		rdma_destroy_id(id);
		return out_of_resources(err) ? -2 : -1;
	}
	snprintf(tp->dev, sizeof(tp->dev), "%s",
		 ibv_get_device_name(id->verbs->device));
	rdma_destroy_id(id);
	list = rdma_get_devices(&n);
	for (int k = 0; list && k < n; k++)
		if (strcmp(ibv_get_device_name(list[k]->device), tp->dev) == 0)
			tp->ctx = list[k];
	if (list)
		rdma_free_devices(list);
	return tp->ctx ? 0 : -1;
}

static void tp_free(struct v_tp *tp)
{
	while (!ref_list_empty(&tp->srqs)) {
		struct v_srq *s = ref_container_of(tp->srqs.next,
						   struct v_srq, link);

		ibv_destroy_srq(s->hw);
		ref_list_del(&s->link);
		free(s);
	}
	while (!ref_list_empty(&tp->pds)) {
		struct v_pd *p = ref_container_of(tp->pds.next, struct v_pd,
						  link);

		ibv_dealloc_pd(p->pd);
		ref_list_del(&p->link);
		free(p);
	}
	if (tp->cq)
		ibv_destroy_cq(tp->cq);
	free(tp->stash);
	ref_map_fini(&tp->qp_map);
	if (tp->comp)
		ibv_destroy_comp_channel(tp->comp);
	if (tp->cm)
		rdma_destroy_event_channel(tp->cm);
	ref_engine_fini(&tp->base.engine);
	free(tp);
}


static DAT_RETURN v_open(struct ref_ia *ia, const char *params,
			 struct ref_transport **out)
{
	struct v_tp *tp = calloc(1, sizeof(*tp));
	int rc;

	if (!tp)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	tp->base.ops = &ref_verbs_ops;
	tp->base.ia = ia;
	tp->base.engine.epfd = tp->base.engine.outer = -1;
	tp->base.engine.wakefd = -1;
	ref_list_init(&tp->conns);
	ref_list_init(&tp->dead);
	ref_list_init(&tp->listeners);
	ref_list_init(&tp->pds);
	ref_list_init(&tp->srqs);
	ref_list_init(&tp->own_cqs);
	ref_map_init(&tp->qp_map);
	rc = resolve(tp, params);
	if (rc < 0) {
		tp_free(tp);
		if (rc == -2)
			return REF_ERR(DAT_INSUFFICIENT_RESOURCES,
				       DAT_RESOURCE_MEMORY);
		return REF_ERR(DAT_INVALID_ADDRESS,
			       DAT_INVALID_ADDRESS_UNSUPPORTED);
	}
	if (ibv_query_device(tp->ctx, &tp->dattr))
		goto fail;
	tp->iwarp = tp->ctx->device->transport_type == IBV_TRANSPORT_IWARP;
	tp->cm = rdma_create_event_channel();
	tp->comp = ibv_create_comp_channel(tp->ctx);
	if (!tp->cm || !tp->comp ||
	    ref_engine_init(&tp->base.engine, ia, TICK_MS, engine_round,
			    engine_timeout_ms, engine_arm) < 0)
		goto fail;
	if (set_nonblock(tp->cm->fd) || set_nonblock(tp->comp->fd) ||
	    set_nonblock(tp->ctx->async_fd))
		goto fail;
	if (ref_engine_watch(&tp->base.engine, tp->cm->fd, EPOLLIN, tp->cm) ||
	    ref_engine_watch(&tp->base.engine, tp->comp->fd, EPOLLIN,
			     tp->comp) ||
	    ref_engine_watch(&tp->base.engine, tp->ctx->async_fd, EPOLLIN,
			     tp->ctx) ||
	    ref_engine_start(&tp->base.engine))
		goto fail;
	memcpy(&ia->address, &tp->addr, sizeof(tp->addr));
	*out = &tp->base;
	return DAT_SUCCESS;
fail:
	tp_free(tp);
	return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
}

static void v_close(struct ref_transport *base)
{
	struct v_tp *tp = (struct v_tp *)base;

	ref_engine_stop(&base->engine);
	while (!ref_list_empty(&tp->conns)) {
		struct v_conn *c = ref_container_of(tp->conns.next,
						    struct v_conn, link);

		c->released = true;
		conn_kill(c);	/* moves it to tp->dead */
	}
	tp_reap(tp);
	while (!ref_list_empty(&tp->listeners)) {
		struct v_listener *l = ref_container_of(tp->listeners.next,
							struct v_listener,
							link);

		v_unlisten((struct ref_tp_listener *)l);
	}
	tp_free(tp);
}

const struct ref_transport_ops ref_verbs_ops = {
	.name = "verbs",
	.caps = REF_TP_CAP_HW_RECV,
	.open = v_open,
	.close = v_close,
	.listen = v_listen,
	.unlisten = v_unlisten,
	.connect = v_connect,
	.accept = v_accept,
	.reject = v_reject,
	.disconnect = v_disconnect,
	.peer_attr = v_peer_attr,
	.addresses = v_addresses,
	.send = v_send,
	.rdma_write = v_rdma_write,
	.rdma_read = v_rdma_read,
	.ack = v_ack,
	.read_resp = v_read_resp,
	.nak = v_nak,
	.abort = v_abort,
	.rx_resume = v_rx_resume,
	.progress = v_progress,
	.poll_completions = v_poll_completions,
};
