/* SPDX-License-Identifier: MIT */
/*
 * ep.c - Endpoints: creation, the state machine, connect / disconnect /
 * reset / free, query and modify, watermarks and dat_ep_recv_query.
 *
 * State machine (docs/reference-provider.md "EP state machine"):
 *
 *   UNCONNECTED --connect/dup_connect--> ACTIVE_CONNECTION_PENDING
 *   ACTIVE_CONNECTION_PENDING --accepted--> CONNECTED
 *   ACTIVE_CONNECTION_PENDING --rejected/unreachable/timeout/abort--> DISCONNECTED
 *   UNCONNECTED --rsp_create--> RESERVED --request--> PASSIVE_CONNECTION_PENDING
 *   RESERVED --rsp_free--> UNCONNECTED
 *   (PSP provider EP) --> TENTATIVE_CONNECTION_PENDING
 *   PASSIVE / TENTATIVE / UNCONNECTED(PSP consumer) --cr_accept--> COMPLETION_PENDING
 *   PASSIVE --cr_reject--> UNCONNECTED;  TENTATIVE --cr_reject--> (provider)
 *   COMPLETION_PENDING --peer confirmed--> CONNECTED
 *   COMPLETION_PENDING --peer gone/abort--> DISCONNECTED
 *   CONNECTED --graceful disconnect, requests outstanding--> DISCONNECT_PENDING
 *   CONNECTED/DISCONNECT_PENDING --disconnect/peer/broken--> DISCONNECTED
 *   DISCONNECTED --reset--> UNCONNECTED
 */
#include "conn_priv.h"
#include "refmap.h"

#include <arpa/inet.h>
#include <sched.h>

#include <stdio.h>

/* ---- shared helpers ----------------------------------------------------- */

DAT_RETURN ref_lookup_ep(DAT_EP_HANDLE h, struct ref_ep **ep)
{
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_lookup(h, DAT_HANDLE_TYPE_EP, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	*ep = ref_container_of(obj, struct ref_ep, obj);
	return DAT_SUCCESS;
}

DAT_RETURN ref_lookup_evd(DAT_EVD_HANDLE h, DAT_EVD_FLAGS need,
			  DAT_RETURN_SUBTYPE subtype, struct ref_ia *ia,
			  struct ref_evd **evd)
{
	struct ref_obj *obj;

	*evd = NULL;
	if (h == DAT_HANDLE_NULL)
		return DAT_SUCCESS;
	if (ref_obj_lookup(h, DAT_HANDLE_TYPE_EVD, &obj) != DAT_SUCCESS ||
	    obj->ia != ia)
		return REF_ERR(DAT_INVALID_HANDLE, subtype);
	*evd = ref_container_of(obj, struct ref_evd, obj);
	if (!((*evd)->flags & need))
		return REF_ERR(DAT_INVALID_HANDLE, subtype);
	return DAT_SUCCESS;
}

DAT_RETURN ref_ep_state_error(const struct ref_ep *ep)
{
	static const DAT_RETURN_SUBTYPE map[] = {
		[DAT_EP_STATE_UNCONNECTED] = DAT_INVALID_STATE_EP_UNCONNECTED,
		[DAT_EP_STATE_UNCONFIGURED_UNCONNECTED] =
			DAT_INVALID_STATE_EP_UNCONFIGURED,
		[DAT_EP_STATE_RESERVED] = DAT_INVALID_STATE_EP_RESERVED,
		[DAT_EP_STATE_UNCONFIGURED_RESERVED] =
			DAT_INVALID_STATE_EP_UNCONFRESERVED,
		[DAT_EP_STATE_PASSIVE_CONNECTION_PENDING] =
			DAT_INVALID_STATE_EP_PASSCONNPENDING,
		[DAT_EP_STATE_UNCONFIGURED_PASSIVE] =
			DAT_INVALID_STATE_EP_UNCONFPASSIVE,
		[DAT_EP_STATE_ACTIVE_CONNECTION_PENDING] =
			DAT_INVALID_STATE_EP_ACTCONNPENDING,
		[DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING] =
			DAT_INVALID_STATE_EP_TENTCONNPENDING,
		[DAT_EP_STATE_UNCONFIGURED_TENTATIVE] =
			DAT_INVALID_STATE_EP_UNCONFTENTATIVE,
		[DAT_EP_STATE_CONNECTED] = DAT_INVALID_STATE_EP_CONNECTED,
		[DAT_EP_STATE_DISCONNECT_PENDING] =
			DAT_INVALID_STATE_EP_DISCPENDING,
		[DAT_EP_STATE_DISCONNECTED] = DAT_INVALID_STATE_EP_DISCONNECTED,
		[DAT_EP_STATE_COMPLETION_PENDING] =
			DAT_INVALID_STATE_EP_COMPLPENDING,
	};
	DAT_RETURN_SUBTYPE sub = DAT_INVALID_STATE_EP_NOTREADY;

	if ((unsigned int)ep->state < sizeof(map) / sizeof(map[0]))
		sub = map[ep->state];
	return REF_ERR(DAT_INVALID_STATE, sub);
}

bool ref_post_event(struct ref_evd *evd, const DAT_EVENT *ev, void *tag,
		    bool notify)
{
	if (!evd)
		return false;
	return ref_evd_post_ex(evd, ev, tag, notify);
}

void ref_ep_conn_event(struct ref_ep *ep, DAT_EVENT_NUMBER num,
		       const void *pdata, DAT_COUNT len)
{
	struct ref_evd *evd = ep->connect_evd;
	DAT_EVENT ev;

	if (!evd)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.event_number = num;
	ev.evd_handle = (DAT_EVD_HANDLE)evd;
	ev.event_data.connect_event_data.ep_handle = (DAT_EP_HANDLE)ep;
	ev.event_data.connect_event_data.private_data_size = len;
	ev.event_data.connect_event_data.private_data = (DAT_PVOID)pdata;
	ref_post_event(evd, &ev, NULL, true);
}

static DAT_COUNT max_dtos(const struct ref_ia *ia)
{
	return ref_ia_limit(ref_profile.max_dto_per_ep, ia->ia_attr.max_dto_per_ep);
}

static DAT_COUNT max_iov(const struct ref_ia *ia)
{
	return ref_ia_limit(ref_profile.max_iov, ia->ia_attr.max_iov_segments_per_dto);
}

static DAT_COUNT max_read_iov(const struct ref_ia *ia)
{
	return ref_ia_limit(ref_profile.max_iov,
			    ia->ia_attr.max_iov_segments_per_rdma_read);
}

static DAT_COUNT max_write_iov(const struct ref_ia *ia)
{
	return ref_ia_limit(ref_profile.max_iov,
			ia->ia_attr.max_iov_segments_per_rdma_write);
}

static DAT_COUNT max_read_in(const struct ref_ia *ia)
{
	return ref_ia_limit(ref_profile_max_rdma_read_in(),
			    ia->ia_attr.max_rdma_read_per_ep_in);
}

static DAT_COUNT max_read_out(const struct ref_ia *ia)
{
	return ref_ia_limit(ref_profile.max_rdma_read,
			ia->ia_attr.max_rdma_read_per_ep_out);
}

static DAT_COUNT min_count(DAT_COUNT a, DAT_COUNT b)
{
	return a < b ? a : b;
}

void ref_ep_default_attr(const struct ref_ia *ia, DAT_EP_ATTR *a)
{
	memset(a, 0, sizeof(*a));
	a->service_type = DAT_SERVICE_TYPE_RC;
	a->max_message_size = REF_DEF_MESSAGE_SIZE;
	a->max_rdma_size = REF_DEF_RDMA_SIZE;
	a->qos = DAT_QOS_BEST_EFFORT;
	a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	/* a default the IA could not honour would refuse its own EPs */
	a->max_recv_dtos = min_count(REF_DEF_DTOS, max_dtos(ia));
	a->max_request_dtos = min_count(REF_DEF_DTOS, max_dtos(ia));
	a->max_recv_iov = min_count(REF_DEF_IOV, max_iov(ia));
	a->max_request_iov = min_count(REF_DEF_IOV, max_iov(ia));
	a->max_rdma_read_in = min_count(REF_DEF_RDMA_READ, max_read_in(ia));
	a->max_rdma_read_out = min_count(REF_DEF_RDMA_READ, max_read_out(ia));
	a->srq_soft_hw = DAT_HW_DEFAULT;
	a->max_rdma_read_iov = min_count(REF_DEF_IOV, max_read_iov(ia));
	a->max_rdma_write_iov = min_count(REF_DEF_IOV, max_write_iov(ia));
}

/* ---- attribute checks ------------------------------------------------------ */


static bool recv_flags_ok(DAT_COMPLETION_FLAGS f)
{
	return f == DAT_COMPLETION_DEFAULT_FLAG ||
	       f == DAT_COMPLETION_UNSIGNALLED_FLAG ||
	       f == DAT_COMPLETION_SOLICITED_WAIT_FLAG ||
	       f == DAT_COMPLETION_EVD_THRESHOLD_FLAG;
}

static bool request_flags_ok(DAT_COMPLETION_FLAGS f)
{
	return f == DAT_COMPLETION_DEFAULT_FLAG ||
	       f == DAT_COMPLETION_UNSIGNALLED_FLAG ||
	       f == DAT_COMPLETION_EVD_THRESHOLD_FLAG;
}

static bool count_ok(DAT_COUNT v, DAT_COUNT max)
{
	return v >= 0 && v <= max;
}

/* dat_ep_create / _with_srq / dat_ep_modify attribute validation. */
static DAT_RETURN check_attr(const struct ref_ia *ia, const DAT_EP_ATTR *a,
			     bool srq, DAT_RETURN_SUBTYPE arg)
{
	if (a->service_type != DAT_SERVICE_TYPE_RC)
		return REF_INVALID_PARAM(arg);
	if (a->max_message_size > REF_MAX_MESSAGE_SIZE ||
	    a->max_rdma_size > REF_MAX_RDMA_SIZE)
		return REF_INVALID_PARAM(arg);
	/* the classes dat_ia_query reports in dat_qos_supported */
	if ((DAT_UINT32)a->qos & ~(DAT_UINT32)ref_profile.qos_supported)
		return REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	if (!recv_flags_ok(a->recv_completion_flags) ||
	    !request_flags_ok(a->request_completion_flags))
		return REF_INVALID_PARAM(arg);
	/* a valid flag the transport cannot honour (completion_flags_supported:
	 * no solicited-wait on iWARP) */
	if (!(ia->provider_attr.completion_flags_supported &
	      a->recv_completion_flags) &&
	    a->recv_completion_flags != DAT_COMPLETION_DEFAULT_FLAG)
		return REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	if (!count_ok(a->max_recv_dtos, max_dtos(ia)) ||
	    !count_ok(a->max_request_dtos, max_dtos(ia)))
		return REF_INVALID_PARAM(arg);
	if (!srq &&
	    !count_ok(a->max_recv_iov, max_iov(ia)))
		return REF_INVALID_PARAM(arg);
	if (!count_ok(a->max_request_iov, max_iov(ia)) ||
	    !count_ok(a->max_rdma_read_iov, max_read_iov(ia)) ||
	    !count_ok(a->max_rdma_write_iov, max_write_iov(ia)))
		return REF_INVALID_PARAM(arg);
	if (!count_ok(a->max_rdma_read_in, max_read_in(ia)) ||
	    !count_ok(a->max_rdma_read_out, max_read_out(ia)))
		return REF_INVALID_PARAM(arg);
	if (a->srq_soft_hw < 0 && a->srq_soft_hw != DAT_HW_DEFAULT)
		return REF_INVALID_PARAM(arg);
	if (a->ep_transport_specific_count < 0 ||
	    (a->ep_transport_specific_count > 0 && !a->ep_transport_specific))
		return REF_INVALID_PARAM(arg);
	if (a->ep_provider_specific_count < 0 ||
	    (a->ep_provider_specific_count > 0 && !a->ep_provider_specific))
		return REF_INVALID_PARAM(arg);
	return DAT_SUCCESS;
}

/*
 * The EVD sharing rules of dat_ep_create(3DAT) USAGE (same for
 * dat_ep_create_with_srq): DTO completion streams that share an EVD must
 * agree when one of them is unsignalled or solicited-wait; a solicited-wait
 * receive EVD carries nothing but solicited-wait receive streams; an EVD fed
 * by other kinds of events (its flags) takes only streams whose notification
 * is not Consumer-controlled; and an SRQ EP's threshold receive stream
 * forces threshold on every stream of that EVD.
 */
struct stream {
	struct ref_evd *evd;
	DAT_COMPLETION_FLAGS flags;
	bool recv;
	bool srq;
};

static bool consumer_controlled(DAT_COMPLETION_FLAGS f)
{
	return f == DAT_COMPLETION_UNSIGNALLED_FLAG ||
	       f == DAT_COMPLETION_SOLICITED_WAIT_FLAG;
}

static bool streams_compatible(const struct stream *a, const struct stream *b)
{
	if ((a->flags == DAT_COMPLETION_SOLICITED_WAIT_FLAG ||
	     b->flags == DAT_COMPLETION_SOLICITED_WAIT_FLAG))
		return a->recv && b->recv && a->flags == b->flags;
	if (a->flags == DAT_COMPLETION_UNSIGNALLED_FLAG ||
	    b->flags == DAT_COMPLETION_UNSIGNALLED_FLAG)
		return a->flags == b->flags;
	if ((a->srq && a->recv &&
	     a->flags == DAT_COMPLETION_EVD_THRESHOLD_FLAG) ||
	    (b->srq && b->recv &&
	     b->flags == DAT_COMPLETION_EVD_THRESHOLD_FLAG))
		return a->flags == b->flags;
	return true;
}

static bool stream_fits_evd(const struct stream *s)
{
	DAT_EVD_FLAGS other = s->evd->flags &
			      ~(DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG);

	return !(other && consumer_controlled(s->flags));
}

/*
 * The streams of the IA's EPs per EVD, counted by kind (flags, receive,
 * SRQ): streams_compatible depends on nothing else, so a new or modified
 * EP is checked against the few kinds on its EVDs instead of against every
 * EP of the IA (O(n) per dat_ep_create: 57 % of the set-up time of 4096
 * connections in growbench).
 */
struct stream_kind {
	DAT_COMPLETION_FLAGS flags;
	bool recv, srq;
	DAT_COUNT n;
};

struct evd_streams {
	int nkinds, cap;
	struct stream_kind kind[];
};

/* Adds @delta streams of kind @s to ia->streams; false on ENOMEM. */
static bool streams_count(struct ref_ia *ia, const struct stream *s, int delta)
{
	struct ref_map *m = ia->streams;
	uint64_t key = (uint64_t)(uintptr_t)s->evd;
	struct evd_streams *e;
	int i;

	if (!m) {
		if (delta < 0 || !(m = malloc(sizeof(*m))))
			return false;
		ref_map_init(m);
		ia->streams = m;
	}
	e = ref_map_get(m, key);
	for (i = 0; e && i < e->nkinds; i++)
		if (e->kind[i].flags == s->flags && e->kind[i].recv == s->recv &&
		    e->kind[i].srq == s->srq)
			break;
	if (delta < 0) {
		if (!e || i == e->nkinds)
			return false;
		if ((e->kind[i].n += delta) > 0)
			return true;
		e->kind[i] = e->kind[--e->nkinds];
		if (!e->nkinds)
			free(ref_map_del(m, key));
		return true;
	}
	if (!e || i == e->nkinds) {
		if (!e || e->nkinds == e->cap) {
			int cap = e ? 2 * e->cap : 2;
			struct evd_streams *ne =
				realloc(e, sizeof(*e) + cap * sizeof(e->kind[0]));

			if (!ne)
				return false;
			if (!e)
				ne->nkinds = 0;
			ne->cap = cap;
			/* replacing a key never fails; a new one may */
			if (ne != e && !ref_map_put(m, key, ne)) {
				free(ne);
				return false;
			}
			e = ne;
		}
		i = e->nkinds++;
		e->kind[i] = (struct stream_kind){ s->flags, s->recv, s->srq, 0 };
	}
	e->kind[i].n += delta;
	return true;
}

static void streams_forget(struct ref_ep *ep)
{
	struct ref_ia *ia = ep->obj.ia;

	for (int i = 0; i < 2; i++) {
		struct ref_stream_reg *r = &ep->sreg[i];
		struct stream s = { r->evd, r->flags, i == 0, r->srq };

		if (r->evd && !streams_count(ia, &s, -1))
			ia->streams_walk = true;	/* cannot happen */
		r->evd = NULL;
	}
}

void ref_ep_streams_sync(struct ref_ep *ep)
{
	struct ref_ia *ia = ep->obj.ia;
	struct stream now[2] = {
		{ ep->recv_evd, ep->attr.recv_completion_flags, true,
		  ep->srq != NULL },
		{ ep->request_evd, ep->attr.request_completion_flags, false,
		  false },
	};

	streams_forget(ep);
	for (int i = 0; i < 2; i++) {
		if (!now[i].evd)
			continue;
		if (!streams_count(ia, &now[i], 1)) {
			ia->streams_walk = true;
			continue;
		}
		ep->sreg[i] = (struct ref_stream_reg){ now[i].evd, now[i].flags,
						       now[i].srq };
	}
}

void ref_ep_streams_fini(struct ref_ia *ia)
{
	struct ref_map *m = ia->streams;

	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].key && !m->slot[i].tomb)
			free(m->slot[i].val);
	ref_map_fini(m);
	free(m);
	ia->streams = NULL;
}

/* @mine against the streams of every EP but @self, by walking them. */
static bool streams_clash_walk(struct ref_ia *ia, struct ref_ep *self,
			       const struct stream *mine, int n)
{
	struct ref_list *pos;

	ref_list_for_each(pos, &ia->objects) {
		struct ref_obj *o = ref_container_of(pos, struct ref_obj,
						     ia_link);
		struct ref_ep *ep;
		struct stream other[2];

		if (o->type != DAT_HANDLE_TYPE_EP)
			continue;
		ep = ref_container_of(o, struct ref_ep, obj);
		if (ep == self)
			continue;
		other[0] = (struct stream){ ep->recv_evd,
					    ep->attr.recv_completion_flags,
					    true, ep->srq != NULL };
		other[1] = (struct stream){ ep->request_evd,
					    ep->attr.request_completion_flags,
					    false, false };
		for (int i = 0; i < n; i++)
			for (int j = 0; j < 2; j++)
				if (mine[i].evd && mine[i].evd == other[j].evd &&
				    !streams_compatible(&mine[i], &other[j]))
					return true;
	}
	return false;
}

/* The same from ia->streams: the kinds on each of my EVDs, less @self's. */
static bool streams_clash(struct ref_ia *ia, struct ref_ep *self,
			  const struct stream *mine, int n)
{
	for (int i = 0; i < n; i++) {
		struct evd_streams *e;

		if (!mine[i].evd || !ia->streams)
			continue;
		e = ref_map_get(ia->streams,
				(uint64_t)(uintptr_t)mine[i].evd);
		for (int k = 0; e && k < e->nkinds; k++) {
			struct stream other = { mine[i].evd, e->kind[k].flags,
						e->kind[k].recv,
						e->kind[k].srq };
			DAT_COUNT cnt = e->kind[k].n;

			for (int j = 0; self && j < 2; j++) {
				const struct ref_stream_reg *r = &self->sreg[j];

				if (r->evd == other.evd &&
				    r->flags == other.flags &&
				    (j == 0) == other.recv && r->srq == other.srq)
					cnt--;
			}
			if (cnt > 0 && !streams_compatible(&mine[i], &other))
				return true;
		}
	}
	return false;
}

static DAT_RETURN check_streams(struct ref_ia *ia, struct ref_ep *self,
				const struct stream *mine, int n)
{
	bool clash;

	for (int i = 0; i < n; i++) {
		if (!mine[i].evd)
			continue;
		if (!stream_fits_evd(&mine[i]))
			return REF_INVALID_PARAM(DAT_NO_SUBTYPE);
		for (int j = i + 1; j < n; j++)
			if (mine[j].evd == mine[i].evd &&
			    !streams_compatible(&mine[i], &mine[j]))
				return REF_INVALID_PARAM(DAT_NO_SUBTYPE);
	}
	clash = ia->streams_walk ? streams_clash_walk(ia, self, mine, n) :
		streams_clash(ia, self, mine, n);
#ifdef REF_STREAMS_VERIFY
	/* the index against the walk (a build for testing this file) */
	if (!ia->streams_walk && clash != streams_clash_walk(ia, self, mine, n))
		abort();
#endif
	return clash ? REF_INVALID_PARAM(DAT_NO_SUBTYPE) : DAT_SUCCESS;
}

/* ---- creation / destruction --------------------------------------------------- */

static void ep_destroy_cb(struct ref_obj *obj);

DAT_RETURN ref_ep_new(struct ref_ia *ia, struct ref_pz *pz,
		      struct ref_evd *recv, struct ref_evd *req,
		      struct ref_evd *conn, struct ref_srq *srq,
		      const DAT_EP_ATTR *attr, bool provider,
		      struct ref_ep **out)
{
	struct ref_ep *ep;

	if (ia->count[DAT_HANDLE_TYPE_EP] >= ref_profile.max_eps)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	ep = ref_obj_alloc(sizeof(*ep));
	if (!ep)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	ep->state = DAT_EP_STATE_UNCONNECTED;
	ep->pz = pz;
	ep->recv_evd = recv;
	ep->request_evd = req;
	ep->connect_evd = conn;
	ep->srq = srq;
	ep->attr = *attr;
	ep->attr.ep_transport_specific_count = 0;
	ep->attr.ep_transport_specific = NULL;
	ep->attr.ep_provider_specific_count = 0;
	ep->attr.ep_provider_specific = NULL;
	ep->provider_created = provider;
	ep->soft_hw = DAT_WATERMARK_INFINITE;
	ep->hard_hw = DAT_WATERMARK_INFINITE;
	if (attr->srq_soft_hw >= 0) {
		ep->soft_hw = attr->srq_soft_hw;
		ep->soft_hw_armed = true;
	}
	ref_list_init(&ep->req_q);
	ref_list_init(&ep->spare_dtos);
	ref_list_init(&ep->recv_q);
	ref_list_init(&ep->rx_alloc);
	ref_list_init(&ep->held);
	ref_list_init(&ep->srq_link);
	ref_cond_init(&ep->held_cond);
	ref_obj_register(&ep->obj, DAT_HANDLE_TYPE_EP, ia);
	if (pz)
		pz->users++;
	if (recv)
		recv->users++;
	if (req)
		req->users++;
	if (conn)
		conn->users++;
	if (srq) {
		srq->users++;
		ref_list_add_tail(&srq->eps, &ep->srq_link);
	}
	ref_ep_streams_sync(ep);
	ep->obj.destroy = ep_destroy_cb;
	*out = ep;
	return DAT_SUCCESS;
}

/* Releases the transport connection, if any (no events). */
static void ep_drop_conn(struct ref_ep *ep, bool tell_peer)
{
	struct ref_tp_conn *c = ep->conn;

	if (!c)
		return;
	ep->conn = NULL;
	c->ep = NULL;
	if (tell_peer)
		c->tp->ops->disconnect(c);
	else
		c->tp->ops->abort(c);
}

/* Frees every DTO the EP still owns, without completions. */
static void ep_drop_dtos(struct ref_ep *ep)
{
	struct ref_list *lists[] = { &ep->req_q, &ep->recv_q, &ep->rx_alloc };

	ref_ep_drop_held(ep);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		while (!ref_list_empty(lists[i])) {
			struct ref_dto *dto = ref_container_of(lists[i]->next,
						struct ref_dto, link);

			ref_list_del(&dto->link);
			if (dto->srq)
				dto->srq->outstanding--;
			ref_dto_free(dto);
		}
	}
	ep->req_count = 0;
	ep->recv_count = 0;
	ep->rx_alloc_count = 0;
	ep->rx_read = NULL;
	ref_ep_free_spare_dtos(ep);
}

/* The active side's copy of the peer's private data (keep_peer_pdata). */
static void free_peer_pdata(struct ref_ep *ep);

void ref_ep_delete(struct ref_ep *ep)
{
	ep_drop_conn(ep, true);
	ep_drop_dtos(ep);
	if (ep->cr)
		ep->cr->ep = NULL;
	if (ep->rsp)
		ep->rsp->ep = NULL;
	if (ep->pz)
		ep->pz->users--;
	if (ep->recv_evd)
		ep->recv_evd->users--;
	if (ep->request_evd)
		ep->request_evd->users--;
	if (ep->connect_evd)
		ep->connect_evd->users--;
	if (ep->srq) {
		ep->srq->users--;
		ref_list_del(&ep->srq_link);
	}
	streams_forget(ep);
	ref_obj_unregister(&ep->obj);
	pthread_cond_destroy(&ep->held_cond);
	free_peer_pdata(ep);
	ref_obj_free(ep);
}

/*
 * Abrupt dat_ia_close: objects go newest first, so EVDs and the PZ may be
 * gone already - touch nothing but our own memory, the SRQ (always older)
 * and the transport connection.
 */
static void ep_destroy_cb(struct ref_obj *obj)
{
	struct ref_ep *ep = ref_container_of(obj, struct ref_ep, obj);

	ep_drop_conn(ep, false);
	ep_drop_dtos(ep);
	if (ep->srq) {
		ep->srq->users--;
		ref_list_del(&ep->srq_link);
	}
	ref_obj_unregister(&ep->obj);
	pthread_cond_destroy(&ep->held_cond);
	free_peer_pdata(ep);
	ref_obj_free(ep);
}

static DAT_RETURN ep_create_common(DAT_IA_HANDLE iah, DAT_PZ_HANDLE pzh,
				   DAT_EVD_HANDLE recvh, DAT_EVD_HANDLE reqh,
				   DAT_EVD_HANDLE connh, DAT_SRQ_HANDLE srqh,
				   const DAT_EP_ATTR *attr, DAT_EP_HANDLE *out,
				   bool with_srq)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_pz *pz = NULL;
	struct ref_srq *srq = NULL;
	struct ref_evd *recv, *req, *conn;
	struct ref_ep *ep;
	DAT_EP_ATTR a;
	DAT_RETURN rc;
	DAT_RETURN_SUBTYPE attr_arg = with_srq ? DAT_INVALID_ARG7
					       : DAT_INVALID_ARG6;

	rc = ref_obj_lookup(iah, DAT_HANDLE_TYPE_IA, &obj);
	if (rc != DAT_SUCCESS)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if (!out)
		return REF_INVALID_PARAM(with_srq ? DAT_INVALID_ARG8
						  : DAT_INVALID_ARG7);
	if (with_srq && !attr)
		return REF_INVALID_PARAM(DAT_INVALID_ARG7);
	if (with_srq && !ref_profile.srq_supported) {
		return REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	}

	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	if (pzh != DAT_HANDLE_NULL || with_srq) {
		rc = ref_obj_lookup(pzh, DAT_HANDLE_TYPE_PZ, &obj);
		if (rc != DAT_SUCCESS || obj->ia != ia) {
			rc = REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
			goto out;
		}
		pz = ref_container_of(obj, struct ref_pz, obj);
	}
	{
		DAT_EVD_FLAGS any = 0;

		rc = ref_lookup_evd(recvh, DAT_EVD_DTO_FLAG | any,
				    DAT_INVALID_HANDLE_EVD_RECV, ia, &recv);
		if (rc == DAT_SUCCESS)
			rc = ref_lookup_evd(reqh, DAT_EVD_DTO_FLAG |
					    DAT_EVD_RMR_BIND_FLAG | any,
					    DAT_INVALID_HANDLE_EVD_REQUEST, ia,
					    &req);
		if (rc == DAT_SUCCESS)
			rc = ref_lookup_evd(connh, DAT_EVD_CONNECTION_FLAG | any,
					    DAT_INVALID_HANDLE_EVD_CONN, ia,
					    &conn);
		if (rc != DAT_SUCCESS) {
			goto out;
		}
	}
	if (with_srq) {
		rc = ref_obj_lookup(srqh, DAT_HANDLE_TYPE_SRQ, &obj);
		if (rc != DAT_SUCCESS || obj->ia != ia) {
			rc = REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ);
			goto out;
		}
		srq = ref_container_of(obj, struct ref_srq, obj);
		if (pz && srq->pz != pz &&
		    !ia->provider_attr.srq_ep_pz_difference_supported) {
			rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
			goto out;
		}
	}
	if (attr) {
		a = *attr;
		rc = check_attr(ia, &a, with_srq, attr_arg);
		if (rc != DAT_SUCCESS)
			goto out;
	} else {
		ref_ep_default_attr(ia, &a);
	}
	/* profile: a DTO queue whose completions have no EVD is a combination
	 * this provider refuses (dat_ep_create(3DAT) RETURN VALUES) */
	if (ref_profile.null_evd_needs_no_dtos &&
	    ((!recv && !with_srq && a.max_recv_dtos > 0) ||
	     (!req && a.max_request_dtos > 0))) {
		rc = REF_INVALID_PARAM(attr_arg);
		goto out;
	}
	{
		struct stream mine[2] = {
			{ recv, a.recv_completion_flags, true, with_srq },
			{ req, a.request_completion_flags, false, false },
		};

		rc = check_streams(ia, NULL, mine, 2);
		if (rc != DAT_SUCCESS)
			goto out;
	}
	if (srq && ia->ia_attr.max_ep_per_srq > 0 &&
	    srq->users >= ia->ia_attr.max_ep_per_srq) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_SRQ);
		goto out;
	}
	rc = ref_ep_new(ia, pz, recv, req, conn, srq, &a, false, &ep);
	if (rc == DAT_SUCCESS)
		*out = (DAT_EP_HANDLE)ep;
out:
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
			 DAT_EVD_HANDLE recv_evd, DAT_EVD_HANDLE request_evd,
			 DAT_EVD_HANDLE connect_evd,
			 const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep)
{
	return ep_create_common(ia, pz, recv_evd, request_evd, connect_evd,
				DAT_HANDLE_NULL, attr, ep, false);
}

DAT_RETURN ref_ep_create_with_srq(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				  DAT_EVD_HANDLE recv_evd,
				  DAT_EVD_HANDLE request_evd,
				  DAT_EVD_HANDLE connect_evd,
				  DAT_SRQ_HANDLE srq,
				  const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep)
{
	return ep_create_common(ia, pz, recv_evd, request_evd, connect_evd,
				srq, attr, ep, true);
}

DAT_RETURN ref_ep_free(DAT_EP_HANDLE eph)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	switch (ep->state) {
	case DAT_EP_STATE_RESERVED:
	case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING:
		/* dat_ep_free(3DAT) DESCRIPTION / RETURN VALUES */
		rc = ref_ep_state_error(ep);
		break;
	default:
		ref_ep_delete(ep);
		break;
	}
	ref_ia_release(ia);
	return rc;
}

/* ---- connection life cycle ------------------------------------------------------ */

static void free_peer_pdata(struct ref_ep *ep)
{
	free(ep->est_pdata);
	ep->est_pdata = NULL;
	ep->est_pdata_len = 0;
}

/*
 * The active side keeps the peer's private data (accept, or a DAT 2.0
 * reject) for the connection event that points at it, until the EP is reset
 * or freed.
 */
static void keep_peer_pdata(struct ref_ep *ep, const void *pdata,
			    DAT_COUNT pdata_len)
{
	free_peer_pdata(ep);
	if (pdata_len > 0) {
		ep->est_pdata = malloc((size_t)pdata_len);
		if (ep->est_pdata) {
			memcpy(ep->est_pdata, pdata, (size_t)pdata_len);
			ep->est_pdata_len = pdata_len;
		}
	}
}

void ref_ep_disconnected(struct ref_ep *ep, DAT_EVENT_NUMBER ev)
{
	struct ref_list keep;

	ref_list_init(&keep);
	ep->state = DAT_EP_STATE_DISCONNECTED;
	ep->disconnect_requested = false;
	ep->rx_stalled = false;
	ref_ep_flush(ep);
	while (!ref_list_empty(&keep)) {
		struct ref_list *n = keep.next;

		ref_list_del(n);
		ref_list_add_tail(&ep->recv_q, n);
	}
	if (ev == DAT_CONNECTION_EVENT_PEER_REJECTED)
		ref_ep_conn_event(ep, ev, ep->est_pdata, ep->est_pdata_len);
	else if (!(ev == DAT_CONNECTION_EVENT_DISCONNECTED &&
		   ep->disconnect_event_posted))
		ref_ep_conn_event(ep, ev, NULL, 0);
	ep->disconnect_event_posted = false;
}

void ref_ep_break(struct ref_ep *ep)
{
	if (ep->state != DAT_EP_STATE_CONNECTED &&
	    ep->state != DAT_EP_STATE_DISCONNECT_PENDING &&
	    ep->state != DAT_EP_STATE_COMPLETION_PENDING &&
	    ep->state != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
		return;
	ep_drop_conn(ep, false);
	/*
	 * A connection that breaks before it is established (on siw a Receive
	 * flushed by the peer's close can come before the cm event) ends as
	 * the pages say its setup ends: an accept that cannot be completed in
	 * ACCEPT_COMPLETION_ERROR (dat_cr_accept(3DAT) DESCRIPTION), a
	 * connect that fails on a transport error in NON_PEER_REJECTED
	 * (dat_ep_connect(3DAT) DESCRIPTION).
	 */
	if (ep->state == DAT_EP_STATE_COMPLETION_PENDING)
		ref_ep_disconnected(ep, DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
	else if (ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
		ref_ep_disconnected(ep, DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
	else
		ref_ep_disconnected(ep, DAT_CONNECTION_EVENT_BROKEN);
	if (ref_profile.async_on_broken)
		ref_ia_post_async(ep->obj.ia, DAT_ASYNC_ERROR_EP_BROKEN,
				  (DAT_HANDLE)ep, DAT_EP_OTHER_ERROR);
}

/* Hard high watermark: break once connected and above it. */
static void check_hard_hw(struct ref_ep *ep)
{
	DAT_COUNT hard = ep->hard_hw;

	if (hard != DAT_WATERMARK_INFINITE &&
	    (ep->state == DAT_EP_STATE_CONNECTED ||
	     ep->state == DAT_EP_STATE_DISCONNECT_PENDING) &&
	    ref_ep_recv_held(ep) > hard)
		ref_ep_break(ep);
}

DAT_COUNT ref_ep_recv_held(const struct ref_ep *ep)
{
	/* dat_ep_recv_query: buffers allocated to the EP, not completed. */
	return ep->srq ? ep->rx_alloc_count : ep->recv_count;
}

void ref_ep_check_watermarks(struct ref_ep *ep)
{
	DAT_COUNT held = ref_ep_recv_held(ep);

	if (ep->soft_hw_armed && ep->soft_hw != DAT_WATERMARK_INFINITE &&
	    held > ep->soft_hw) {
		ep->soft_hw_armed = false;
		ref_ia_post_async(ep->obj.ia, REF_ASYNC_EP_EVENT,
				  (DAT_HANDLE)ep,
				  DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT);
	}
	check_hard_hw(ep);
}

/* Just Connected: the receive side's rules apply from now on. */
static void ep_now_connected(struct ref_ep *ep)
{
	ref_ep_check_watermarks(ep);
	if (ep->state == DAT_EP_STATE_CONNECTED)
		ref_ep_rx_resume(ep);
}

void ref_tp_established(struct ref_ep *ep, const void *pdata,
			DAT_COUNT pdata_len)
{
	struct ref_tp_conn *c = ep->conn;

	if (c)
		c->tp->ops->addresses(c, &ep->local_addr, &ep->local_port,
				      &ep->remote_addr, &ep->remote_port);
	if (ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) {
		ep->remote_port = ep->remote_conn_qual;
		keep_peer_pdata(ep, pdata, pdata_len);
		ep->state = DAT_EP_STATE_CONNECTED;
		ref_ep_conn_event(ep, DAT_CONNECTION_EVENT_ESTABLISHED,
				  ep->est_pdata, ep->est_pdata_len);
		ep_now_connected(ep);
	} else if (ep->state == DAT_EP_STATE_COMPLETION_PENDING) {
		if (ep->hold_confirmation)
			ep->confirmation_held = true;
		else
			ref_ep_confirmed(ep);
	}
}

void ref_ep_confirmed(struct ref_ep *ep)
{
	if (ep->state != DAT_EP_STATE_COMPLETION_PENDING)
		return;
	ep->state = DAT_EP_STATE_CONNECTED;
	/* dat_evd_wait(3DAT): passive side gets no private data */
	ref_ep_conn_event(ep, DAT_CONNECTION_EVENT_ESTABLISHED, NULL, 0);
	ep_now_connected(ep);
}

void ref_tp_conn_failed(struct ref_ep *ep, enum ref_tp_fail why,
			const void *pdata, DAT_COUNT pdata_len)
{
	static const DAT_EVENT_NUMBER map[] = {
		[REF_TP_PEER_REJECTED] = DAT_CONNECTION_EVENT_PEER_REJECTED,
		[REF_TP_NON_PEER_REJECTED] =
			DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
		[REF_TP_UNREACHABLE] = DAT_CONNECTION_EVENT_UNREACHABLE,
		[REF_TP_TIMED_OUT] = DAT_CONNECTION_EVENT_TIMED_OUT,
		[REF_TP_ACCEPT_ERROR] =
			DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
	};

	ep->conn = NULL;
	if (ep->state != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING &&
	    ep->state != DAT_EP_STATE_COMPLETION_PENDING)
		return;
	keep_peer_pdata(ep, pdata, pdata_len);
	ref_ep_disconnected(ep, map[why]);
}

void ref_tp_conn_closed(struct ref_ep *ep, bool graceful)
{
	ep->conn = NULL;
	/* The transport was up, but this EP never took the peer's
	 * confirmation (daplref_test_hold_confirmation): the accept could not
	 * be completed (dat_cr_accept(3DAT) DESCRIPTION). */
	if (ep->state == DAT_EP_STATE_COMPLETION_PENDING) {
		ref_ep_disconnected(ep,
				    DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
		return;
	}
	if (ep->state != DAT_EP_STATE_CONNECTED &&
	    ep->state != DAT_EP_STATE_DISCONNECT_PENDING)
		return;
	ref_ep_disconnected(ep, graceful ? DAT_CONNECTION_EVENT_DISCONNECTED
					 : DAT_CONNECTION_EVENT_BROKEN);
}

static DAT_RETURN check_pdata(const struct ref_ia *ia, DAT_COUNT size,
			      const void *pdata,
			      DAT_RETURN_SUBTYPE size_arg,
			      DAT_RETURN_SUBTYPE ptr_arg)
{
	if (size < 0 || size > ia->max_pdata)
		return REF_INVALID_PARAM(size_arg);
	if (size > 0 && !pdata)
		return REF_INVALID_PARAM(ptr_arg);
	return DAT_SUCCESS;
}

/* Same host (family and address; the port is the qualifier's business). */
static bool same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

static bool host_vanished(struct ref_ia *ia, const struct sockaddr *addr)
{
	return ia->vanished_set &&
	       same_host((const struct sockaddr *)&ia->vanished, addr);
}

/*
 * Test hook: from now on the host of @addr is gone for @iah - a connection
 * request to it meets nobody (it is sent to a documentation address that
 * no host answers) and ends as unreachable, as when a remote host
 * vanished.  NULL forgets it.  Connections already up are not touched.
 */
DAPLREF_EXPORT DAT_RETURN daplref_test_host_vanished(DAT_IA_HANDLE iah,
						      const struct sockaddr *addr);
DAPLREF_EXPORT DAT_RETURN daplref_test_host_vanished(DAT_IA_HANDLE iah,
						      const struct sockaddr *addr)
{
	struct ref_ia *ia;
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_lookup(iah, DAT_HANDLE_TYPE_IA, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if (addr && addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	ia->vanished_set = addr != NULL;
	if (addr)
		memcpy(&ia->vanished, addr,
		       addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						   : sizeof(struct sockaddr_in));
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

/*
 * Test hook: @iah supports only the QoS classes of @qos (within the
 * provider's own set; DAT_QOS_BEST_EFFORT, 0, is always supported), so one
 * IA of this provider can play a peer with less QoS support
 * (dat_ep_connect(3DAT) DESCRIPTION).  dat_ia_query reports the narrowed
 * dat_qos_supported; a connect asking for more is DAT_MODEL_NOT_SUPPORTED
 * there, and a request that arrives asking for more is refused as a
 * non-peer rejection.  DAT_MODEL_NOT_SUPPORTED on a transport whose
 * connection request does not carry the QoS (REF_TP_CAP_QOS).
 */
DAPLREF_EXPORT DAT_RETURN daplref_test_qos_supported(DAT_IA_HANDLE iah, DAT_QOS qos);
DAPLREF_EXPORT DAT_RETURN daplref_test_qos_supported(DAT_IA_HANDLE iah, DAT_QOS qos)
{
	struct ref_ia *ia;
	struct ref_obj *obj;
	DAT_RETURN rc = ref_obj_lookup(iah, DAT_HANDLE_TYPE_IA, &obj);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if ((DAT_UINT32)qos & ~(DAT_UINT32)REF_QOS_ALL)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	if (!(ia->transport->ops->caps & REF_TP_CAP_QOS)) {
		rc = REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	} else {
		ia->qos_supported = qos;
		ia->provider_attr.dat_qos_supported = qos;
	}
	ref_ia_release(ia);
	return rc;
}

static DAT_RETURN ep_start_connect(struct ref_ep *ep,
				   const struct sockaddr *addr,
				   DAT_CONN_QUAL qual, DAT_TIMEOUT timeout,
				   DAT_COUNT pdata_size, const void *pdata)
{
	struct ref_ia *ia = ep->obj.ia;
	struct ref_tp_conn *c;
	struct sockaddr_storage nowhere;
	bool vanished = host_vanished(ia, addr);
	DAT_RETURN rc;

	if (vanished) {
		/* a host that is gone: the request goes where nobody answers */
		memset(&nowhere, 0, sizeof(nowhere));
		if (addr->sa_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&nowhere;

			s6->sin6_family = AF_INET6;
			s6->sin6_addr.s6_addr[0] = 0x01;	/* 100::1, RFC 6666 discard */
			s6->sin6_addr.s6_addr[15] = 0x01;
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&nowhere;

			s4->sin_family = AF_INET;
			s4->sin_addr.s_addr = htonl(0xC0000201);	/* 192.0.2.1, RFC 5737 */
		}
	}
	rc = ia->transport->ops->connect(ia->transport, ep,
					 vanished ? (struct sockaddr *)&nowhere : addr,
					 qual, timeout, pdata, pdata_size, &c);
	if (rc != DAT_SUCCESS)
		return rc;
	ep->conn = c;
	ep->was_active = true;
	ep->remote_conn_qual = qual;
	memset(&ep->remote_addr, 0, sizeof(ep->remote_addr));
	memcpy(&ep->remote_addr, addr,
	       addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					   : sizeof(struct sockaddr_in));
	ep->remote_port = qual;
	ep->local_port = 0;
	c->tp->ops->addresses(c, &ep->local_addr, &ep->local_port,
			      &ep->remote_addr, &ep->remote_port);
	if (vanished)	/* the Consumer asked for this one */
		memcpy(&ep->remote_addr, addr,
		       addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						   : sizeof(struct sockaddr_in));
	ep->remote_port = qual;
	ep->state = DAT_EP_STATE_ACTIVE_CONNECTION_PENDING;
	return DAT_SUCCESS;
}

DAT_RETURN ref_ep_connect(DAT_EP_HANDLE eph, DAT_IA_ADDRESS_PTR remote_addr,
			  DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
			  DAT_COUNT pdata_size, const DAT_PVOID pdata,
			  DAT_QOS qos, DAT_CONNECT_FLAGS flags)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	ref_profile_connect_delay();
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		rc = ref_ep_state_error(ep);
		goto out;
	}
	if (!remote_addr) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
		goto out;
	}
	if (remote_addr->sa_family != AF_INET &&
	    remote_addr->sa_family != AF_INET6) {
		rc = REF_ERR(DAT_INVALID_ADDRESS,
			     DAT_INVALID_ADDRESS_UNSUPPORTED);
		goto out;
	}
	if (remote_conn_qual == 0 || remote_conn_qual > 65535) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG3);
		goto out;
	}
	if (timeout == 0) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG4);
		goto out;
	}
	rc = check_pdata(ep->obj.ia, pdata_size, pdata, DAT_INVALID_ARG5,
			 DAT_INVALID_ARG6);
	if (rc != DAT_SUCCESS)
		goto out;
	if ((DAT_UINT32)qos & ~(DAT_UINT32)ia->qos_supported) {
		rc = REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
		goto out;
	}
	if ((DAT_UINT32)flags & ~(DAT_UINT32)DAT_CONNECT_MULTIPATH_FLAG) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG8);
		goto out;
	}
	if (flags & DAT_CONNECT_MULTIPATH_FLAG) {
		/* supports_multipath is false: one TCP path only */
		rc = REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
		goto out;
	}
	ep->connect_qos = qos;
	rc = ep_start_connect(ep, remote_addr, remote_conn_qual, timeout,
			      pdata_size, pdata);
out:
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_ep_dup_connect(DAT_EP_HANDLE eph, DAT_EP_HANDLE duph,
			      DAT_TIMEOUT timeout, DAT_COUNT pdata_size,
			      const DAT_PVOID pdata, DAT_QOS qos)
{
	struct ref_ep *ep, *dup;
	struct ref_ia *ia;
	struct sockaddr_storage addr;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	rc = ref_lookup_ep(duph, &dup);
	if (rc != DAT_SUCCESS)
		return rc;
	ia = ep->obj.ia;
	if (dup->obj.ia != ia)
		return REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	ref_profile_connect_delay();
	rc = ref_enter(&ia->obj, DAT_HANDLE_TYPE_IA);
	if (rc != DAT_SUCCESS)
		return rc;
	if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		rc = ref_ep_state_error(ep);
		goto out;
	}
	if (dup == ep || dup->state != DAT_EP_STATE_CONNECTED) {
		rc = ref_ep_state_error(dup);
		goto out;
	}
	if (!dup->was_active) {
		/* The remote end of a passive EP is no service point. */
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG2);
		goto out;
	}
	if (timeout == 0) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG3);
		goto out;
	}
	rc = check_pdata(dup->obj.ia, pdata_size, pdata, DAT_INVALID_ARG4,
			 DAT_INVALID_ARG5);
	if (rc != DAT_SUCCESS)
		goto out;
	if ((DAT_UINT32)qos & ~(DAT_UINT32)ia->qos_supported) {
		rc = REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
		goto out;
	}
	addr = dup->remote_addr;
	ep->connect_qos = qos;
	rc = ep_start_connect(ep, (struct sockaddr *)&addr,
			      dup->remote_conn_qual,
			      timeout, pdata_size, pdata);
out:
	ref_ia_release(ia);
	return rc;
}

/* Graceful disconnect completes once the request queue drained. */
void ref_ep_finish_graceful(struct ref_ep *ep);
void ref_ep_finish_graceful(struct ref_ep *ep)
{
	if (ep->state != DAT_EP_STATE_DISCONNECT_PENDING ||
	    !ep->disconnect_requested || !ref_list_empty(&ep->req_q))
		return;
	ep_drop_conn(ep, true);
	ref_ep_disconnected(ep, DAT_CONNECTION_EVENT_DISCONNECTED);
}

DAT_RETURN ref_ep_disconnect(DAT_EP_HANDLE eph, DAT_CLOSE_FLAGS flags)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	if (flags != DAT_CLOSE_ABRUPT_FLAG && flags != DAT_CLOSE_GRACEFUL_FLAG)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	switch (ep->state) {
	case DAT_EP_STATE_DISCONNECTED:
		break;		/* no-op */
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_COMPLETION_PENDING:
		/* aborts establishment; both flags behave the same */
		ep_drop_conn(ep, false);
		ref_ep_disconnected(ep, DAT_CONNECTION_EVENT_DISCONNECTED);
		break;
	case DAT_EP_STATE_CONNECTED:
		if (flags == DAT_CLOSE_GRACEFUL_FLAG &&
		    !ref_list_empty(&ep->req_q)) {
			ep->state = DAT_EP_STATE_DISCONNECT_PENDING;
			ep->disconnect_requested = true;
			break;
		}
		ep_drop_conn(ep, true);
		ref_ep_disconnected(ep, DAT_CONNECTION_EVENT_DISCONNECTED);
		break;
	case DAT_EP_STATE_DISCONNECT_PENDING:
		if (flags == DAT_CLOSE_GRACEFUL_FLAG)
			break;	/* no effect */
		ep_drop_conn(ep, true);
		ref_ep_disconnected(ep, DAT_CONNECTION_EVENT_DISCONNECTED);
		break;
	case DAT_EP_STATE_UNCONNECTED:
		rc = ref_ep_state_error(ep);
		break;
	default:
		rc = ref_ep_state_error(ep);
		break;
	}
	ref_ia_release(ia);
	return rc;
}

DAT_RETURN ref_ep_reset(DAT_EP_HANDLE eph)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	if (ep->state == DAT_EP_STATE_DISCONNECTED) {
		ep->state = DAT_EP_STATE_UNCONNECTED;
		free_peer_pdata(ep);
		memset(&ep->local_addr, 0, sizeof(ep->local_addr));
		memset(&ep->remote_addr, 0, sizeof(ep->remote_addr));
		ep->local_port = ep->remote_port = 0;
		ep->remote_conn_qual = 0;
		ep->was_active = false;
		ep->next_req_seq = 0;
		ep->rx_next_msn = 0;
		ep->tx_next_msn = 0;
		ep->rdma_read_out = 0;
	} else if (ep->state != DAT_EP_STATE_UNCONNECTED) {
		rc = ref_ep_state_error(ep);
	}
	ref_ia_release(ia);
	return rc;
}

/* ---- status, query, modify ----------------------------------------------------- */

/* The state dat_ep_get_status and dat_ep_query report. */
static DAT_EP_STATE reported_state(const struct ref_ep *ep)
{
	return ep->state;
}

DAT_RETURN ref_ep_get_status(DAT_EP_HANDLE eph, DAT_EP_STATE *state,
			     DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *request_idle)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	if (state)
		*state = reported_state(ep);
	if (recv_idle)
		*recv_idle = (ep->recv_count == 0 &&
			      ep->rx_alloc_count == 0) ? DAT_TRUE : DAT_FALSE;
	if (request_idle)
		*request_idle = ref_list_empty(&ep->req_q) ?
				DAT_TRUE : DAT_FALSE;
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

DAT_RETURN ref_ep_query(DAT_EP_HANDLE eph, DAT_EP_PARAM_MASK mask,
			DAT_EP_PARAM *p)
{
	DAT_EP_PARAM full, *out = NULL;
	struct ref_ep *ep;
	struct ref_ia *ia;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	if ((mask & ~(DAT_EP_PARAM_MASK)DAT_EP_FIELD_ALL))
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (!p)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	if (ref_query_masked()) {
		out = p;
		p = &full;
	}
	/* The page lets us fill more than asked: fill everything. */
	p->ia_handle = (DAT_IA_HANDLE)ia;
	p->ep_state = reported_state(ep);
	p->local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ia->address;
	p->local_port_qual = ep->local_port;
	p->remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ep->remote_addr;
	p->remote_port_qual = ep->remote_port;
	p->pz_handle = (DAT_PZ_HANDLE)ep->pz;
	p->recv_evd_handle = (DAT_EVD_HANDLE)ep->recv_evd;
	p->request_evd_handle = (DAT_EVD_HANDLE)ep->request_evd;
	p->connect_evd_handle = (DAT_EVD_HANDLE)ep->connect_evd;
	p->srq_handle = (DAT_SRQ_HANDLE)ep->srq;
	p->ep_attr = ep->attr;
	if (out)
		ref_profile_masked_copy(REF_Q_EP, out, p, mask);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

#define F_PRECONN_STATES (DAT_EP_FIELD_RECV_EVD_HANDLE | \
			  DAT_EP_FIELD_REQUEST_EVD_HANDLE | \
			  DAT_EP_FIELD_CONNECT_EVD_HANDLE | \
			  DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE | \
			  DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE | \
			  DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE | \
			  DAT_EP_FIELD_EP_ATTR_QOS | \
			  DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS | \
			  DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS | \
			  DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS | \
			  DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS | \
			  DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV | \
			  DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV | \
			  DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN | \
			  DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT | \
			  DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW | \
			  DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV | \
			  DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV)
#define F_QUIESCENT_ONLY (DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR | \
			  DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR | \
			  DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR | \
			  DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR)
#define F_READ_ONLY (DAT_EP_FIELD_IA_HANDLE | DAT_EP_FIELD_EP_STATE | \
		     DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR | \
		     DAT_EP_FIELD_LOCAL_PORT_QUAL | \
		     DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR | \
		     DAT_EP_FIELD_REMOTE_PORT_QUAL | DAT_EP_FIELD_SRQ_HANDLE)

static bool state_pre_connection(DAT_EP_STATE s)
{
	/* dat_ep_modify(3DAT): "prior to a request for a connection for an
	 * Active side or prior to accepting a Connection Request". */
	return s == DAT_EP_STATE_UNCONNECTED || s == DAT_EP_STATE_RESERVED ||
	       s == DAT_EP_STATE_PASSIVE_CONNECTION_PENDING ||
	       s == DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING;
}

/* Re-checks posted receives against a new PZ (dat_ep_modify, PZ entry). */
static void recheck_recv_pz(struct ref_ep *ep, struct ref_pz *pz)
{
	struct ref_list *pos, *tmp;

	ref_list_for_each_safe(pos, tmp, &ep->recv_q) {
		struct ref_dto *dto = ref_container_of(pos, struct ref_dto,
						       link);
		bool ok = true;

		for (int i = 0; i < dto->nseg && ok; i++) {
			void *ptr;

			if (dto->iov[i].segment_length == 0)
				continue;
			ok = ref_mem_check_local(ep->obj.ia, pz, &dto->iov[i],
						 DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
						 &ptr, NULL) == DAT_SUCCESS &&
			     ptr == dto->seg[i].ptr;
		}
		if (!ok) {
			ref_list_del(&dto->link);
			ep->recv_count--;
			ref_dto_complete(dto, DAT_DTO_ERR_LOCAL_PROTECTION, 0,
					 true);
		}
	}
}

DAT_RETURN ref_ep_modify(DAT_EP_HANDLE eph, DAT_EP_PARAM_MASK mask,
			 const DAT_EP_PARAM *p)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	struct ref_pz *pz;
	struct ref_evd *recv, *req, *conn;
	DAT_EP_ATTR a;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	{
		DAT_EP_PARAM_MASK ro = F_READ_ONLY;

		if ((mask & ~(DAT_EP_PARAM_MASK)DAT_EP_FIELD_ALL) ||
		    (mask & ro))
			return REF_INVALID_PARAM(DAT_INVALID_ARG2);
		mask &= ~F_READ_ONLY;	/* the accepted ones change nothing */
	}
	if (!p)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;

	/* Per-parameter state rules first (DAT_INVALID_STATE). */
	{
		if ((mask & DAT_EP_FIELD_PZ_HANDLE) &&
		    ep->state != DAT_EP_STATE_UNCONNECTED &&
		    ep->state != DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING)
			goto bad_state;
		if ((mask & F_PRECONN_STATES) &&
		    !state_pre_connection(ep->state))
			goto bad_state;
		if ((mask & F_QUIESCENT_ONLY) &&
		    ep->state != DAT_EP_STATE_UNCONNECTED)
			goto bad_state;
	}
	if ((mask & DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) &&
	    p->ep_attr.recv_completion_flags !=
		    ep->attr.recv_completion_flags &&
	    (ep->recv_count > 0 || ep->rx_alloc_count > 0))
		goto bad_state;	/* "before posting of any Recvs" */

	/* New values. */
	pz = ep->pz;
	recv = ep->recv_evd;
	req = ep->request_evd;
	conn = ep->connect_evd;
	if (mask & DAT_EP_FIELD_PZ_HANDLE) {
		struct ref_obj *obj;

		pz = NULL;
		if (p->pz_handle != DAT_HANDLE_NULL) {
			/* a bad handle inside ep_param is a bad parameter
			 * (dat_ep_modify RETURN VALUES: INVALID_HANDLE is
			 * for ep_handle) */
			if (ref_obj_lookup(p->pz_handle, DAT_HANDLE_TYPE_PZ,
					   &obj) != DAT_SUCCESS ||
			    obj->ia != ia) {
				rc = REF_INVALID_PARAM(DAT_INVALID_ARG3);
				goto out;
			}
			pz = ref_container_of(obj, struct ref_pz, obj);
		}
	}
	if (mask & DAT_EP_FIELD_RECV_EVD_HANDLE) {
		rc = ref_lookup_evd(p->recv_evd_handle, DAT_EVD_DTO_FLAG,
				    DAT_INVALID_HANDLE_EVD_RECV, ia, &recv);
		if (rc != DAT_SUCCESS)
			goto bad_param;
	}
	if (mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE) {
		rc = ref_lookup_evd(p->request_evd_handle,
				    DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG,
				    DAT_INVALID_HANDLE_EVD_REQUEST, ia, &req);
		if (rc != DAT_SUCCESS)
			goto bad_param;
	}
	if (mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE) {
		rc = ref_lookup_evd(p->connect_evd_handle,
				    DAT_EVD_CONNECTION_FLAG,
				    DAT_INVALID_HANDLE_EVD_CONN, ia, &conn);
		if (rc != DAT_SUCCESS)
			goto bad_param;
	}
	a = ep->attr;
#define TAKE(bit, field) \
	do { if (mask & (bit)) a.field = p->ep_attr.field; } while (0)
	TAKE(DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, service_type);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, max_message_size);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, max_rdma_size);
	TAKE(DAT_EP_FIELD_EP_ATTR_QOS, qos);
	TAKE(DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, recv_completion_flags);
	TAKE(DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
	     request_completion_flags);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, max_recv_dtos);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, max_request_dtos);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, max_recv_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, max_request_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, max_rdma_read_in);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, max_rdma_read_out);
	TAKE(DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, srq_soft_hw);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, max_rdma_read_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, max_rdma_write_iov);
	TAKE(DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR,
	     ep_transport_specific_count);
	TAKE(DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR,
	     ep_transport_specific);
	TAKE(DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR,
	     ep_provider_specific_count);
	TAKE(DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR,
	     ep_provider_specific);
#undef TAKE
	rc = check_attr(ia, &a, ep->srq != NULL, DAT_INVALID_ARG3);
	if (rc != DAT_SUCCESS) {
		if (DAT_GET_TYPE(rc) == DAT_MODEL_NOT_SUPPORTED)
			rc = REF_INVALID_PARAM(DAT_INVALID_ARG3);
		goto out;
	}
	if (!ep->srq && a.max_recv_dtos < ep->recv_count) {
		rc = REF_INVALID_PARAM(DAT_INVALID_ARG3);
		goto out;
	}
	{
		struct stream mine[2] = {
			{ recv, a.recv_completion_flags, true, ep->srq != NULL },
			{ req, a.request_completion_flags, false, false },
		};

		rc = check_streams(ia, ep, mine, 2);
		if (rc != DAT_SUCCESS)
			goto out;
	}

	/* Commit. */
	if (pz != ep->pz) {
		if (ep->pz)
			ep->pz->users--;
		if (pz)
			pz->users++;
		ep->pz = pz;
		recheck_recv_pz(ep, pz);
	}
#define SWAP_EVD(field, val) \
	do { \
		if (ep->field != (val)) { \
			if (ep->field) \
				ep->field->users--; \
			if (val) \
				(val)->users++; \
			ep->field = (val); \
		} \
	} while (0)
	SWAP_EVD(recv_evd, recv);
	SWAP_EVD(request_evd, req);
	SWAP_EVD(connect_evd, conn);
#undef SWAP_EVD
	a.ep_transport_specific_count = 0;
	a.ep_transport_specific = NULL;
	a.ep_provider_specific_count = 0;
	a.ep_provider_specific = NULL;
	ep->attr = a;
	ref_ep_streams_sync(ep);
	goto out;
bad_param:
	rc = REF_INVALID_PARAM(DAT_INVALID_ARG3);
	goto out;
bad_state:
	rc = ref_ep_state_error(ep);
out:
	ref_ia_release(ia);
	return rc;
}

/* ---- receive queries and watermarks --------------------------------------------- */

DAT_RETURN ref_ep_recv_query(DAT_EP_HANDLE eph, DAT_COUNT *nbufs,
			     DAT_COUNT *span)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	struct ref_list *pos;
	DAT_COUNT count = 0;
	uint64_t max_msn = 0;
	bool any = false;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	if (!ref_profile.ep_recv_info_supported) {
		ref_ia_release(ia);
		return REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	}
	/*
	 * One scan under the lock (dat_ep_recv_query(3DAT) USAGE): the same
	 * set of buffers gives the count and the span.  Buffers matched to an
	 * arriving message carry its MSN; the span reaches from the next MSN
	 * to complete to the highest MSN holding a buffer.  Receives posted to
	 * a plain EP are allocated but not yet tied to a message; each one can
	 * take one more message, so they add one each to count and span.
	 */
	ref_list_for_each(pos, &ep->rx_alloc) {
		struct ref_dto *dto = ref_container_of(pos, struct ref_dto,
						       link);

		count++;
		if (!any || dto->seq > max_msn)
			max_msn = dto->seq;
		any = true;
	}
	{
		DAT_COUNT posted = ep->srq ? 0 : ep->recv_count -
						 ep->rx_alloc_count;
		DAT_COUNT sp = any ? (DAT_COUNT)(max_msn + 1 - ep->rx_next_msn)
				   : 0;

		if (sp < count)
			sp = count;	/* never fewer than the count */
		count += posted;
		sp += posted;
		if (nbufs)
			*nbufs = count;
		if (span)
			*span = sp;
	}
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

DAT_RETURN ref_ep_set_watermark(DAT_EP_HANDLE eph, DAT_COUNT soft_hw,
				DAT_COUNT hard_hw)
{
	struct ref_ep *ep;
	struct ref_ia *ia;
	DAT_RETURN rc = ref_lookup_ep(eph, &ep);

	if (rc != DAT_SUCCESS)
		return rc;
	if (soft_hw < 0 && soft_hw != DAT_WATERMARK_INFINITE)
		return REF_INVALID_PARAM(DAT_INVALID_ARG2);
	if (hard_hw < 0 && hard_hw != DAT_WATERMARK_INFINITE)
		return REF_INVALID_PARAM(DAT_INVALID_ARG3);
	if (!ref_profile.srq_watermarks_supported)
		return REF_ERR(DAT_MODEL_NOT_SUPPORTED, 0);
	ia = ep->obj.ia;
	rc = ref_enter(&ep->obj, DAT_HANDLE_TYPE_EP);
	if (rc != DAT_SUCCESS)
		return rc;
	ep->soft_hw = soft_hw;
	ep->soft_hw_armed = soft_hw != DAT_WATERMARK_INFINITE;
	ep->hard_hw = hard_hw;
	/* Above a new watermark already: the event comes from this call. */
	ref_ep_check_watermarks(ep);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}
