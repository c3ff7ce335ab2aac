/* SPDX-License-Identifier: MIT */
/*
 * cm_common.h - helpers of the connection-management cases (cases/cm/)
 * beyond ep_common.h: the private data sizes a clause is checked at.
 */
#ifndef CM_COMMON_H
#define CM_COMMON_H

#include "../ep/ep_common.h"

/*
 * The private data sizes at the limit: 1 byte (the smallest that carries
 * data) and exactly the provider's max_private_data_size, read from its
 * attributes.  A maximum above 64 KiB is not exercised (noted, not
 * demonstrated); returns how many sizes were written to sizes[].
 */
static inline int cm_pdata_sizes(struct dc_ctx *t, DAT_COUNT sizes[2])
{
	DAT_COUNT max = t->prov_attr.max_private_data_size;
	int n = 0;

	sizes[n++] = 1;
	if (max > 1 && max <= 65536)
		sizes[n++] = max;
	else if (max > 65536)
		dc_note(t, "max_private_data_size %d not exercised (above 64 KiB)", (int)max);
	return n;
}

/* n bytes of a pattern that differs with seed (the caller frees it). */
static inline unsigned char *cm_pdata(struct dc_ctx *t, DAT_COUNT n, unsigned seed)
{
	unsigned char *pd = malloc((size_t)n + 1);

	DC_SETUP_ASSERT(pd, "no memory for %d bytes of private data", (int)n);
	for (DAT_COUNT k = 0; k < n; k++)
		pd[k] = (unsigned char)(seed + (unsigned)k * 7u);
	return pd;
}

/* The first byte where the n bytes at p differ from cm_pdata(n, seed), or -1. */
static inline DAT_COUNT cm_pdata_differs(const void *p, DAT_COUNT n, unsigned seed)
{
	const unsigned char *b = p;

	for (DAT_COUNT k = 0; k < n; k++)
		if (b[k] != (unsigned char)(seed + (unsigned)k * 7u))
			return k;
	return -1;
}

/*
 * The three kinds of Connection Request the pages distinguish: one on a
 * consumer-flag PSP (no local EP), one on a provider-flag PSP (a Provider
 * EP, dat_psp_create(3DAT)), one on an RSP (the reserved EP,
 * dat_rsp_create(3DAT)).
 */
enum cm_req_kind { CM_REQ_CONSUMER_PSP, CM_REQ_PROVIDER_PSP, CM_REQ_RSP, CM_REQ_KINDS };

static inline const char *cm_req_kind_name(enum cm_req_kind k)
{
	return k == CM_REQ_CONSUMER_PSP ? "consumer-flag PSP" :
	       k == CM_REQ_PROVIDER_PSP ? "provider-flag PSP" : "RSP";
}

/*
 * A request of kind k from a fresh requester a (set-up); *sp (if not NULL)
 * is the Service Point it arrived at.  e->ep is the
 * request's own EP, with e's PZ and EVDs: the reserved EP of an RSP, or the
 * Provider EP, given them by dat_ep_modify as dat_psp_create(3DAT) lets the
 * Consumer do before accepting.  DAT_HANDLE_NULL (noted) for a
 * provider-flag PSP when the provider creates no EPs (ep_creator NEVER).
 */
static inline DAT_CR_HANDLE cm_request_of_kind_sp(struct dc_ctx *t, enum cm_req_kind k,
						  struct dc_endpoint *a, struct dc_endpoint *e,
						  DAT_HANDLE *sp)
{
	DAT_EVD_HANDLE evd;
	DAT_CONN_QUAL q;
	DAT_CR_HANDLE cr;

	if (k == CM_REQ_RSP) {
		DAT_RSP_HANDLE rsp;

		dc_endpoint(t, e, NULL);
		evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
		dc_rsp_any(t, e->ep, evd, &q, &rsp);
		if (sp)
			*sp = (DAT_HANDLE)rsp;
	} else {
		DAT_PSP_HANDLE psp;

		if (k == CM_REQ_PROVIDER_PSP &&
		    t->prov_attr.ep_creator == DAT_PSP_CREATES_EP_NEVER) {
			dc_note(t, "ep_creator is DAT_PSP_CREATES_EP_NEVER: no provider-flag PSP");
			return DAT_HANDLE_NULL;
		}
		q = dc_psp_any(t, k == CM_REQ_PROVIDER_PSP ? DAT_PSP_PROVIDER_FLAG :
			       DAT_PSP_CONSUMER_FLAG, &evd, &psp);
		if (sp)
			*sp = (DAT_HANDLE)psp;
	}
	dc_endpoint(t, a, NULL);
	DC_SETUP(dc_connect_to_self(t, a->ep, q, 0, 0, NULL));
	cr = dc_await_cr(t, evd, NULL);
	if (k == CM_REQ_PROVIDER_PSP) {
		DAT_CR_PARAM c;
		DAT_EP_PARAM nv;

		dc_endpoint(t, e, NULL);
		memset(&c, 0, sizeof(c));
		DC_SETUP(dat_cr_query(cr, DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
		memset(&nv, 0, sizeof(nv));
		nv.pz_handle = e->pz;
		nv.recv_evd_handle = e->recv_evd;
		nv.request_evd_handle = e->req_evd;
		nv.connect_evd_handle = e->conn_evd;
		DC_SETUP(dat_ep_modify(c.local_ep_handle, DAT_EP_FIELD_PZ_HANDLE |
				       DAT_EP_FIELD_RECV_EVD_HANDLE | DAT_EP_FIELD_REQUEST_EVD_HANDLE |
				       DAT_EP_FIELD_CONNECT_EVD_HANDLE, &nv));
		e->ep = c.local_ep_handle;
	}
	return cr;
}

/*
 * The EP a request carries is in PASSIVE or TENTATIVE_CONNECTION_PENDING,
 * where dat_ep_query(3DAT) DESCRIPTION says its remote address and port
 * qualifier are valid: they are the requester's, as the request reports them.
 */
static inline void cm_assert_ep_remote_is_requester(struct dc_ctx *t, DAT_EP_HANDLE ep,
						    const DAT_CR_PARAM *c)
{
	DAT_EP_PARAM p = DC_EP_PARAM(ep);

	/* collateral: dat_ep_query(3DAT) DESCRIPTION: the pending EP's remote end is the requester */
	DC_ASSERT(p.remote_port_qual == c->remote_port_qual,
		  "the request's EP reports remote_port_qual %llu, the request %llu",
		  (unsigned long long)p.remote_port_qual,
		  (unsigned long long)c->remote_port_qual);
	/* collateral: dat_ep_query(3DAT) DESCRIPTION: as above */
	DC_ASSERT(p.remote_ia_address_ptr && c->remote_ia_address_ptr &&
		  p.remote_ia_address_ptr->sa_family == c->remote_ia_address_ptr->sa_family,
		  "the request's EP reports no remote address of the requester's family");
	if (c->remote_ia_address_ptr->sa_family == AF_INET)
		/* collateral: dat_ep_query(3DAT) DESCRIPTION: as above */
		DC_ASSERT(((const struct sockaddr_in *)p.remote_ia_address_ptr)->sin_addr.s_addr ==
			  ((const struct sockaddr_in *)c->remote_ia_address_ptr)->sin_addr.s_addr,
			  "the request's EP reports another remote IA address than the request");
	if (c->remote_ia_address_ptr->sa_family == AF_INET6)
		/* collateral: dat_ep_query(3DAT) DESCRIPTION: as above */
		DC_ASSERT(!memcmp(&((const struct sockaddr_in6 *)p.remote_ia_address_ptr)->sin6_addr,
				  &((const struct sockaddr_in6 *)c->remote_ia_address_ptr)->sin6_addr,
				  sizeof(struct in6_addr)),
			  "the request's EP reports another remote IA address than the request");
}

#define cm_request_of_kind(t, k, a, e) cm_request_of_kind_sp((t), (k), (a), (e), NULL)

/*
 * fn on a request of each kind the provider can make (a the requester, e
 * the request's own EP where it has one).
 */
typedef void (*cm_request_fn)(struct dc_ctx *t, enum cm_req_kind k, DAT_CR_HANDLE cr,
			      struct dc_endpoint *a, struct dc_endpoint *e);

static inline void cm_each_request(struct dc_ctx *t, cm_request_fn fn)
{
	for (int k = 0; k < CM_REQ_KINDS; k++) {
		struct dc_endpoint a, e;
		DAT_CR_HANDLE cr = cm_request_of_kind(t, (enum cm_req_kind)k, &a, &e);

		if (cr == DAT_HANDLE_NULL)
			continue;
		dc_note(t, "request on a %s", cm_req_kind_name((enum cm_req_kind)k));
		fn(t, (enum cm_req_kind)k, cr, &a, &e);
	}
}

/* The ep_handle to accept a request of kind k with: a fresh EP where the
 * request carries none, DAT_HANDLE_NULL where it does (dat_cr_accept(3DAT)
 * PARAMETERS). */
static inline DAT_EP_HANDLE cm_accept_ep(struct dc_ctx *t, enum cm_req_kind k)
{
	struct dc_endpoint b;

	if (k != CM_REQ_CONSUMER_PSP)
		return DAT_HANDLE_NULL;
	dc_endpoint(t, &b, NULL);
	return b.ep;
}

/*
 * The provider's test hook that narrows the space dat_psp_create_any draws
 * from to [lo, hi] (docs/reference-provider.md, "Test hooks"); the case
 * needs "hook:daplref_test_conn_qual_space" (UNSUPPORTED without it).
 */
typedef DAT_RETURN (*qual_space_fn)(DAT_IA_HANDLE ia, DAT_CONN_QUAL lo, DAT_CONN_QUAL hi);

static inline void narrow_qual_space_at(struct dc_ctx *t, const char *file, int line,
					DAT_CONN_QUAL lo, DAT_CONN_QUAL hi)
{
	qual_space_fn narrow = (qual_space_fn)dc_provider_hook_at(t, file, line,
								 "daplref_test_conn_qual_space");
	DAT_RETURN r = narrow(dc_provider_ia_handle(t->ia), lo, hi);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up daplref_test_conn_qual_space returned %s", dc_ret_text(r));
}
#define narrow_qual_space(lo, hi) narrow_qual_space_at(t, __FILE__, __LINE__, (lo), (hi))

/*
 * Service Points made one after the other while allocations fail in turn
 * (the *.out_of_memory cases, harness/dc_limits.h).  Each slot's qualifier
 * is one this process never listened on: DAT_CONN_QUAL_IN_USE at its first
 * create is another process's (a new one is drawn), while after a refused
 * create on it the qualifier must be free again for the next try.
 */
struct cm_oom_sps {
	DAT_EVD_HANDLE evd;
	DAT_EP_HANDLE ep[DC_ALLOC_FAULT_OBJECTS];	/* RSPs: each its own EP */
	DAT_CONN_QUAL q[DC_ALLOC_FAULT_OBJECTS];
	DAT_HANDLE sp[DC_ALLOC_FAULT_OBJECTS];
	bool tried;		/* the slot's qualifier was asked for already */
	int n;
};

static inline DAT_RETURN cm_oom_sp_create(struct dc_ctx *t, struct cm_oom_sps *o,
					  DAT_RETURN (*create)(struct dc_ctx *t,
							       struct cm_oom_sps *o))
{
	DAT_RETURN r;

	for (int draws = 0;; draws++) {
		if (!o->tried)
			o->q[o->n] = dc_unprobed_conn_qual();
		r = create(t, o);
		if (o->tried || DAT_GET_TYPE(r) != DAT_CONN_QUAL_IN_USE || draws == 8)
			break;
	}
	o->tried = true;
	return r;
}

/* The slot's Service Point stays (keep: the next slot is taken) or is freed. */
static inline void cm_oom_sp_next(struct dc_ctx *t, struct cm_oom_sps *o, bool keep,
				  DAT_RETURN (*sp_free)(DAT_HANDLE))
{
	if (!keep) {
		DC_CLEANUP(sp_free(o->sp[o->n]));
		return;
	}
	o->n++;
	o->tried = false;
}

static inline DAT_RETURN cm_oom_psp_free(DAT_HANDLE h)
{
	return dat_psp_free(h);
}

/* After DAT_SUCCESS: the PSP reports the slot's qualifier and the EVD. */
static inline void cm_oom_psp_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct cm_oom_sps *o = arg;
	DAT_PSP_PARAM p;

	memset(&p, 0, sizeof(p));
	/* collateral: dat_psp_create(3DAT), dat_psp_create_any(3DAT) RETURN VALUES: DAT_SUCCESS made a PSP on that qualifier, which its query shows */
	DC_ASSERT_SUCCESS(dat_psp_query(o->sp[o->n], DAT_PSP_FIELD_ALL, &p));
	DC_ASSERT(p.conn_qual == o->q[o->n] && p.evd_handle == o->evd,
		  "a PSP made with an allocation failing reports qualifier %llu and EVD %p "
		  "(expected %llu, %p)", (unsigned long long)p.conn_qual, p.evd_handle,
		  (unsigned long long)o->q[o->n], o->evd);
	cm_oom_sp_next(t, o, keep, cm_oom_psp_free);
}

/* The PSPs of the sweep freed, then the EVD: the IA must close gracefully. */
static inline void cm_oom_psps_gone(struct dc_ctx *t, struct cm_oom_sps *o)
{
	for (int i = 0; i < o->n; i++)
		DC_CLEANUP(dat_psp_free(o->sp[i]));
	DC_CLEANUP(dat_evd_free(o->evd));
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}

#endif /* CM_COMMON_H */
