// SPDX-License-Identifier: MIT
/*
 * Fixtures: the set-up helpers.  Each one ends the case UNRESOLVED with the
 * call site's file:line when the provider does not let it build what the
 * case needs.  Objects are not tracked: the teardown's abrupt dat_ia_close
 * destroys them all, so a case may free a fixture object itself.
 */
#include "dc_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

void dc_setup_call_at(struct dc_ctx *t, const char *file, int line, DAT_RETURN r,
		      const char *call)
{
	char b[200];

	if (r == DAT_SUCCESS)
		return;
	dc_cause_call(t, t->priv->t_ia_open > 0 ? "setup" : "ia_open", call, &r);
	dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up %s returned %s", call,
		  dc_ret_str(r, b, sizeof(b)));
}

#define setup_ok dc_setup_call_at

static void need_ia(struct dc_ctx *t, const char *file, int line)
{
	if (!t->priv->ia_open)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: fixture used before the IA was opened (DC_NO_IA without dc_open_ia)");
}

void dc_attrs_of_at(struct dc_ctx *t, const char *file, int line, DAT_IA_HANDLE ia)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_RETURN r = dat_ia_query(ia, &evd, DAT_IA_FIELD_ALL, &t->ia_attr,
				    DAT_PROVIDER_FIELD_ALL, &t->prov_attr);

	setup_ok(t, file, line, r, "dat_ia_query(DAT_IA_FIELD_ALL, DAT_PROVIDER_FIELD_ALL)");
}

void dc_open_ia_at(struct dc_ctx *t, const char *file, int line)
{
	struct dc_priv *p = t->priv;
	struct dc_str why = { 0 };
	DAT_RETURN r;
	char b[200];
	char reason[512];
	int met;

	if (p->ia_open)
		return;
	if (!t->ia_name || !*t->ia_name)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "no IA under test: set DATCTS_IA or pass --ia NAME");
	t->async_evd = DAT_HANDLE_NULL;
	r = dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &t->async_evd, &t->ia);
	if (r != DAT_SUCCESS) {
		const char *conf = getenv("DAT_OVERRIDE");

		dc_cause_call(t, "ia_open", "dat_ia_open", &r);
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_ia_open(\"%s\") returned %s (DAT_OVERRIDE=%s)",
			  t->ia_name, dc_ret_str(r, b, sizeof(b)),
			  conf ? conf : "unset");
	}
	p->ia_open = true;
	dc_attrs_of_at(t, file, line, t->ia);
	dc_attrs_find_unreported(t);
	dc_learn_unreported(t, t->c->requires);
	p->t_ia_open = dc_now_ms();
	met = dc_requirements_met(t, t->c->requires, &why);
	/* the case ends here unless it applies: the reason outlives `why` */
	snprintf(reason, sizeof(reason), "%s", dc_str_c(&why));
	dc_str_free(&why);
	if (met == DC_REQ_UNREPORTED) {
		/* not the provider's lack: its answer is missing */
		dc_cause_needs(t, "unreported", t->c->requires);
		dc_end_at(t, DC_UNSUPPORTED, t->c->file, t->c->line, false, "%s",
			  reason);
	}
	if (met < 0)
		dc_end_at(t, DC_UNRESOLVED, t->c->file, t->c->line, false, "%s",
			  reason);
	if (met == 0)
		dc_cause_needs(t, "attribute", t->c->requires);
	if (met == 0)
		dc_end_at(t, DC_UNSUPPORTED, t->c->file, t->c->line, false, "%s",
			  reason);
}

DAT_PZ_HANDLE dc_pz_at(struct dc_ctx *t, const char *file, int line)
{
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;

	need_ia(t, file, line);
	setup_ok(t, file, line, dat_pz_create(t->ia, &pz), "dat_pz_create");
	return pz;
}

/*
 * The fixtures check what they are asked for against the IA's reported
 * maxima first: asking for more is not a set-up failure, the provider may be
 * that small (dat_ia_query(3DAT) DESCRIPTION), and the case cannot reach its
 * clause there (dc_need_reported_limit_at: UNSUPPORTED).
 */
DAT_EVD_HANDLE dc_evd_at(struct dc_ctx *t, const char *file, int line,
			 DAT_COUNT qlen, DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	need_ia(t, file, line);
	dc_need_reported_limit_at(t, file, line, "max_evd_qlen",
				  t->ia_attr.max_evd_qlen, qlen);
	setup_ok(t, file, line,
		 dat_evd_create(t->ia, qlen, DAT_HANDLE_NULL, flags, &evd),
		 "dat_evd_create");
	return evd;
}

void dc_ep_attr_default(const struct dc_ctx *t, DAT_EP_ATTR *a)
{
	const DAT_IA_ATTR *ia = &t->ia_attr;
	DAT_VLEN msg = 65536;

	memset(a, 0, sizeof(*a));
	a->service_type = DAT_SERVICE_TYPE_RC;
	if (ia->max_message_size && ia->max_message_size < msg)
		msg = ia->max_message_size;
	a->max_message_size = msg;
	a->max_rdma_size = ia->max_rdma_size && ia->max_rdma_size < msg ?
			   ia->max_rdma_size : msg;
	a->qos = DAT_QOS_BEST_EFFORT;
	a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->max_recv_dtos = dc_within_limit(16, ia->max_dto_per_ep);
	a->max_request_dtos = dc_within_limit(16, ia->max_dto_per_ep);
	a->max_recv_iov = dc_within_limit(4, ia->max_iov_segments_per_dto);
	a->max_request_iov = dc_within_limit(4, ia->max_iov_segments_per_dto);
	a->max_rdma_read_in = dc_within_limit(4, ia->max_rdma_read_per_ep_in);
	a->max_rdma_read_out = dc_within_limit(4, ia->max_rdma_read_per_ep_out);
	a->srq_soft_hw = DAT_HW_DEFAULT;
	a->max_rdma_read_iov = dc_within_limit(1, ia->max_iov_segments_per_rdma_read);
	a->max_rdma_write_iov = dc_within_limit(1, ia->max_iov_segments_per_rdma_write);
}

void dc_ep_attr_no_dtos(const struct dc_ctx *t, DAT_EP_ATTR *a)
{
	dc_ep_attr_default(t, a);
	a->max_recv_dtos = a->max_request_dtos = 0;
	a->max_recv_iov = a->max_request_iov = 0;
}

DAT_EP_HANDLE dc_ep_at(struct dc_ctx *t, const char *file, int line,
		       DAT_PZ_HANDLE pz, DAT_EVD_HANDLE recv_evd,
		       DAT_EVD_HANDLE req_evd, DAT_EVD_HANDLE conn_evd,
		       DAT_SRQ_HANDLE srq, const DAT_EP_ATTR *attr)
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_EP_ATTR dflt;

	need_ia(t, file, line);
	if (attr) {
		const DAT_IA_ATTR *ia = &t->ia_attr;

		dc_need_reported_limit_at(t, file, line, "max_dto_per_ep",
					  ia->max_dto_per_ep, attr->max_recv_dtos);
		dc_need_reported_limit_at(t, file, line, "max_dto_per_ep",
					  ia->max_dto_per_ep, attr->max_request_dtos);
		dc_need_reported_limit_at(t, file, line, "max_iov_segments_per_dto",
					  ia->max_iov_segments_per_dto, attr->max_recv_iov);
		dc_need_reported_limit_at(t, file, line, "max_iov_segments_per_dto",
					  ia->max_iov_segments_per_dto, attr->max_request_iov);
	}
	if (srq && !attr) {
		/* dat_ep_create_with_srq(3DAT) does not take NULL attributes */
		dc_ep_attr_default(t, &dflt);
		attr = &dflt;
	}
	if (srq)
		setup_ok(t, file, line,
			 dat_ep_create_with_srq(t->ia, pz, recv_evd, req_evd,
						conn_evd, srq, attr, &ep),
			 "dat_ep_create_with_srq");
	else
		setup_ok(t, file, line,
			 dat_ep_create(t->ia, pz, recv_evd, req_evd, conn_evd,
				       attr, &ep),
			 "dat_ep_create");
	return ep;
}

DAT_SRQ_HANDLE dc_srq_at(struct dc_ctx *t, const char *file, int line,
			 DAT_PZ_HANDLE pz, DAT_COUNT max_recv_dtos,
			 DAT_COUNT max_recv_iov, DAT_COUNT low_watermark)
{
	DAT_SRQ_ATTR a = {
		.max_recv_dtos = max_recv_dtos,
		.max_recv_iov = max_recv_iov,
		.low_watermark = low_watermark,
	};
	DAT_SRQ_HANDLE srq = DAT_HANDLE_NULL;

	need_ia(t, file, line);
	dc_need_reported_limit_at(t, file, line, "max_recv_per_srq",
				  t->ia_attr.max_recv_per_srq, max_recv_dtos);
	dc_need_reported_limit_at(t, file, line, "max_iov_segments_per_dto",
				  t->ia_attr.max_iov_segments_per_dto, max_recv_iov);
	setup_ok(t, file, line, dat_srq_create(t->ia, pz, &a, &srq),
		 "dat_srq_create");
	return srq;
}

void dc_lmr_at(struct dc_ctx *t, const char *file, int line, DAT_PZ_HANDLE pz,
	       DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv, struct dc_lmr *out)
{
	size_t align = t->prov_attr.optimal_buffer_alignment;

	need_ia(t, file, line);
	memset(out, 0, sizeof(*out));
	if (!align || (align & (align - 1)) || align > 65536)
		align = DAT_OPTIMAL_ALIGNMENT;
	out->buf = dc_track_alloc_(t, align, (size_t)len);
	if (!out->buf)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: no memory for a %llu-byte buffer",
			  (unsigned long long)len);
	setup_ok(t, file, line, dc_lmr_register(t->ia, pz, out->buf, len, priv, out),
		 "dat_lmr_create");
}

static DAT_COUNT opt_qlen(const struct dc_conn_opts *o)
{
	return o && o->evd_qlen > 0 ? o->evd_qlen : 16;
}

/* The Consumer chooses which PZs its EPs use (dat_pz_create(3DAT)). */
DAT_PZ_HANDLE dc_pz_or_shared_at(struct dc_ctx *t, const char *file, int line)
{
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	DAT_RETURN r;

	need_ia(t, file, line);
	r = dat_pz_create(t->ia, &pz);
	if (DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES && t->priv->fixture_pz) {
		dc_note(t, "no PZ left (max_pzs %d): a fixture shares the PZ of the one before",
			(int)t->ia_attr.max_pzs);
		return t->priv->fixture_pz;
	}
	setup_ok(t, file, line, r, "dat_pz_create");
	t->priv->fixture_pz = pz;
	return pz;
}

DAT_EVD_HANDLE dc_idle_dto_evd_at(struct dc_ctx *t, const char *file, int line)
{
	if (!t->priv->idle_dto_evd)
		t->priv->idle_dto_evd = dc_evd_at(t, file, line, 16, DAT_EVD_DTO_FLAG);
	return t->priv->idle_dto_evd;
}

DAT_EVD_HANDLE dc_shared_cr_evd_at(struct dc_ctx *t, const char *file, int line)
{
	if (!t->priv->shared_cr_evd)
		t->priv->shared_cr_evd = dc_evd_at(t, file, line, 16, DAT_EVD_CR_FLAG);
	return t->priv->shared_cr_evd;
}

static unsigned int few_evds(const struct dc_ctx *t, const struct dc_conn_opts *o)
{
	unsigned int f = o ? o->few_evds : 0;

	if (t->c->flags & DC_NO_DTOS)
		f |= DC_IDLE_RECV | DC_IDLE_REQUEST;
	return f;
}

void dc_endpoint_at(struct dc_ctx *t, const char *file, int line,
		    struct dc_endpoint *e, const struct dc_conn_opts *o)
{
	DAT_COUNT q = opt_qlen(o);
	unsigned int f = few_evds(t, o);
	DAT_EP_ATTR attr;

	memset(e, 0, sizeof(*e));
	e->pz = o && o->pz ? o->pz : dc_pz_or_shared_at(t, file, line);
	e->recv_evd = f & DC_IDLE_RECV ? dc_idle_dto_evd_at(t, file, line) :
		      dc_evd_at(t, file, line, q, DAT_EVD_DTO_FLAG);
	e->req_evd = f & DC_IDLE_REQUEST ? dc_idle_dto_evd_at(t, file, line) :
		     dc_evd_at(t, file, line, q, DAT_EVD_DTO_FLAG);
	if (f & DC_SHARE_CR_EVD)
		e->cr_evd = dc_shared_cr_evd_at(t, file, line);
	e->conn_evd = dc_evd_at(t, file, line, q, DAT_EVD_CONNECTION_FLAG);
	if (!o || !o->attr)
		dc_ep_attr_default(t, &attr);
	e->ep = dc_ep_at(t, file, line, e->pz, e->recv_evd, e->req_evd,
			 e->conn_evd, o ? o->srq : DAT_HANDLE_NULL,
			 o && o->attr ? o->attr : &attr);
}

/* A DAT_EP_ATTR field of @size bytes (DAT_COUNT or DAT_VLEN) at @off, read or written. */
static uint64_t ep_attr_field(DAT_EP_ATTR *a, size_t off, size_t size, const uint64_t *set)
{
	char *f = (char *)a + off;

	if (size == sizeof(DAT_VLEN)) {
		if (set)
			*(DAT_VLEN *)f = (DAT_VLEN)*set;
		return *(DAT_VLEN *)f;
	}
	if (set)
		*(DAT_COUNT *)f = (DAT_COUNT)*set;
	return (uint64_t)*(DAT_COUNT *)f;
}

uint64_t dc_endpoint_modified_at(struct dc_ctx *t, const char *file, int line,
				 struct dc_endpoint *e, const char *name, size_t off,
				 size_t size, DAT_EP_PARAM_MASK mask, uint64_t created,
				 uint64_t now)
{
	DAT_EP_ATTR attr;
	struct dc_conn_opts o = { .attr = &attr };
	DAT_EP_PARAM nv;

	dc_note(t, "%s changed by dat_ep_modify from %llu to %llu", name,
		(unsigned long long)created, (unsigned long long)now);
	dc_ep_attr_default(t, &attr);
	ep_attr_field(&attr, off, size, &created);
	dc_endpoint_at(t, file, line, e, &o);
	nv = dc_ep_param_at(t, file, line, e->ep, DC_UNRESOLVED);
	ep_attr_field(&nv.ep_attr, off, size, &now);
	setup_ok(t, file, line, dat_ep_modify(e->ep, mask, &nv), "dat_ep_modify");
	nv = dc_ep_param_at(t, file, line, e->ep, DC_UNRESOLVED);
	return ep_attr_field(&nv.ep_attr, off, size, NULL);
}

static DAT_TIMEOUT wait_us(struct dc_ctx *t, long ms)
{
	long left = dc_remaining_ms(t);

	if (ms < 0 || ms > left)
		ms = left;
	return (DAT_TIMEOUT)ms * 1000u;
}

static void accept_one(struct dc_ctx *t, const char *file, int line,
		       struct dc_endpoint *e, const struct dc_conn_opts *o)
{
	DAT_EVENT ev;
	DAT_CR_HANDLE cr;

	dc_expect_event_at(t, file, line, DC_UNRESOLVED, e->cr_evd,
			   DAT_CONNECTION_REQUEST_EVENT, &ev);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	setup_ok(t, file, line,
		 dat_cr_accept(cr, e->ep, o ? o->private_data_size : 0,
			       o ? (DAT_PVOID)o->private_data : NULL),
		 "dat_cr_accept");
}

static void listen_any(struct dc_ctx *t, const char *file, int line,
		       struct dc_endpoint *e, const struct dc_conn_opts *o)
{
	if (!e->ep)
		dc_endpoint_at(t, file, line, e, o);
	/* an endpoint made to share the CR EVD (dc_endpoint_at) keeps sharing it */
	if ((e->cr_evd && e->cr_evd == t->priv->shared_cr_evd) ||
	    few_evds(t, o) & DC_SHARE_CR_EVD)
		e->cr_evd = dc_shared_cr_evd_at(t, file, line);
	else
		e->cr_evd = dc_evd_at(t, file, line, opt_qlen(o), DAT_EVD_CR_FLAG);
	setup_ok(t, file, line,
		 dat_psp_create_any(t->ia, &e->conn_qual, e->cr_evd,
				    DAT_PSP_CONSUMER_FLAG, &e->psp),
		 "dat_psp_create_any");
}

void dc_connect_passive_at(struct dc_ctx *t, const char *file, int line,
			   struct dc_endpoint *e, const struct dc_conn_opts *o)
{
	listen_any(t, file, line, e, o);
	dc_announce_at(t, file, line, NULL, e->conn_qual, NULL);
	accept_one(t, file, line, e, o);
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, e->conn_evd,
			   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}

void dc_connect_active_at(struct dc_ctx *t, const char *file, int line,
			  struct dc_endpoint *e, const struct dc_conn_opts *o)
{
	if (t->role != DC_ROLE_ACTIVE)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: dc_connect_active() outside an active half");
	if (!t->peer.addr.ss_family)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the passive half announced no usable address ('%s')",
			  t->peer.host);
	if (!e->ep)
		dc_endpoint_at(t, file, line, e, o);
	e->conn_qual = t->peer.conn_qual;
	setup_ok(t, file, line,
		 dat_ep_connect(e->ep, (DAT_IA_ADDRESS_PTR)&t->peer.addr,
				t->peer.conn_qual, wait_us(t, DC_WAIT_MS),
				o ? o->private_data_size : 0,
				o ? (DAT_PVOID)o->private_data : NULL,
				DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
		 "dat_ep_connect");
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, e->conn_evd,
			   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}

void dc_connect_local_at(struct dc_ctx *t, const char *file, int line,
			 struct dc_endpoint *a, struct dc_endpoint *b,
			 const struct dc_conn_opts *o)
{
	listen_any(t, file, line, b, o);
	if (!a->ep)
		dc_endpoint_at(t, file, line, a, o);
	a->conn_qual = b->conn_qual;
	if (!t->ia_attr.ia_address_ptr)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_ia_query gave no ia_address_ptr");
	setup_ok(t, file, line,
		 dc_connect_own_address(t, a->ep, b->conn_qual, wait_us(t, DC_WAIT_MS),
					o ? o->private_data_size : 0,
					o ? o->private_data : NULL),
		 "dat_ep_connect");
	accept_one(t, file, line, b, o);
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, b->conn_evd,
			   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, a->conn_evd,
			   DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}

/* ---- posting ---- */

void dc_post_recv_at(struct dc_ctx *t, const char *file, int line,
		     DAT_EP_HANDLE ep, const struct dc_lmr *m, DAT_VLEN off,
		     DAT_VLEN len, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_DTO_COOKIE ck = { .as_64 = cookie };

	setup_ok(t, file, line,
		 dat_ep_post_recv(ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG),
		 "dat_ep_post_recv");
}

void dc_post_send_at(struct dc_ctx *t, const char *file, int line,
		     DAT_EP_HANDLE ep, const struct dc_lmr *m, DAT_VLEN off,
		     DAT_VLEN len, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_DTO_COOKIE ck = { .as_64 = cookie };

	setup_ok(t, file, line,
		 dat_ep_post_send(ep, 1, &iov, ck, DAT_COMPLETION_DEFAULT_FLAG),
		 "dat_ep_post_send");
}

void dc_srq_post_recv_at(struct dc_ctx *t, const char *file, int line,
			 DAT_SRQ_HANDLE srq, const struct dc_lmr *m,
			 DAT_VLEN off, DAT_VLEN len, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_DTO_COOKIE ck = { .as_64 = cookie };

	setup_ok(t, file, line, dat_srq_post_recv(srq, 1, &iov, ck),
		 "dat_srq_post_recv");
}

/* ---- events ---- */

const char *dc_event_name(DAT_EVENT_NUMBER n)
{
	switch ((int)n) {	/* DAT 2.0 has more numbers: "unknown" below */
	case DAT_DTO_COMPLETION_EVENT:
		return "DAT_DTO_COMPLETION_EVENT";
	case DAT_RMR_BIND_COMPLETION_EVENT:
		return "DAT_RMR_BIND_COMPLETION_EVENT";
	case DAT_CONNECTION_REQUEST_EVENT:
		return "DAT_CONNECTION_REQUEST_EVENT";
	case DAT_CONNECTION_EVENT_ESTABLISHED:
		return "DAT_CONNECTION_EVENT_ESTABLISHED";
	case DAT_CONNECTION_EVENT_PEER_REJECTED:
		return "DAT_CONNECTION_EVENT_PEER_REJECTED";
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
		return "DAT_CONNECTION_EVENT_NON_PEER_REJECTED";
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
		return "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR";
	case DAT_CONNECTION_EVENT_DISCONNECTED:
		return "DAT_CONNECTION_EVENT_DISCONNECTED";
	case DAT_CONNECTION_EVENT_BROKEN:
		return "DAT_CONNECTION_EVENT_BROKEN";
	case DAT_CONNECTION_EVENT_TIMED_OUT:
		return "DAT_CONNECTION_EVENT_TIMED_OUT";
	case DAT_CONNECTION_EVENT_UNREACHABLE:
		return "DAT_CONNECTION_EVENT_UNREACHABLE";
	case DAT_ASYNC_ERROR_EVD_OVERFLOW:
		return "DAT_ASYNC_ERROR_EVD_OVERFLOW";
	case DAT_ASYNC_ERROR_IA_CATASTROPHIC:
		return "DAT_ASYNC_ERROR_IA_CATASTROPHIC";
	case DAT_ASYNC_ERROR_EP_BROKEN:
		return "DAT_ASYNC_ERROR_EP_BROKEN";
	case DAT_ASYNC_ERROR_TIMED_OUT:
		return "DAT_ASYNC_ERROR_TIMED_OUT";
	case DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR:
		return "DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR";
	case DAT_SOFTWARE_EVENT:
		return "DAT_SOFTWARE_EVENT";
	}
	return "unknown event";
}

const char *dc_dto_status_name(DAT_DTO_COMPLETION_STATUS s)
{
	static const char *const names[] = {
		"DAT_DTO_SUCCESS", "DAT_DTO_ERR_FLUSHED",
		"DAT_DTO_ERR_LOCAL_LENGTH", "DAT_DTO_ERR_LOCAL_EP",
		"DAT_DTO_ERR_LOCAL_PROTECTION", "DAT_DTO_ERR_BAD_RESPONSE",
		"DAT_DTO_ERR_REMOTE_ACCESS", "DAT_DTO_ERR_REMOTE_RESPONDER",
		"DAT_DTO_ERR_TRANSPORT", "DAT_DTO_ERR_RECEIVER_NOT_READY",
		"DAT_DTO_ERR_PARTIAL_PACKET", "DAT_RMR_OPERATION_FAILED",
	};

	if ((unsigned int)s < sizeof(names) / sizeof(names[0]))
		return names[s];
	return "unknown DTO status";
}

DAT_RETURN dc_wait_event(struct dc_ctx *t, DAT_EVD_HANDLE evd, long timeout_ms,
			 DAT_EVENT *ev)
{
	DAT_COUNT nmore = 0;

	if (timeout_ms < 0)
		timeout_ms = DC_WAIT_MS;
	memset(ev, 0, sizeof(*ev));
	return dat_evd_wait(evd, wait_us(t, timeout_ms), 1, ev, &nmore);
}

static void describe_event(struct dc_str *s, const DAT_EVENT *ev)
{
	dc_str_printf(s, "%s (0x%x)", dc_event_name(ev->event_number),
		      (unsigned int)ev->event_number);
	if (ev->event_number == DAT_DTO_COMPLETION_EVENT) {
		const DAT_DTO_COMPLETION_EVENT_DATA *d =
			&ev->event_data.dto_completion_event_data;

		dc_str_printf(s, " cookie %llu status %s length %llu",
			      (unsigned long long)d->user_cookie.as_64,
			      dc_dto_status_name(d->status),
			      (unsigned long long)d->transfered_length);
	} else if (ev->event_number >= DAT_ASYNC_ERROR_EVD_OVERFLOW &&
		   ev->event_number <= DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR) {
		dc_str_printf(s, " reason %d",
			      (int)ev->event_data.asynch_error_event_data.reason);
	}
}

void dc_expect_event_at(struct dc_ctx *t, const char *file, int line,
			enum dc_state on_miss, DAT_EVD_HANDLE evd,
			DAT_EVENT_NUMBER num, DAT_EVENT *out)
{
	struct dc_str s = { 0 };
	DAT_EVENT ev;
	DAT_RETURN r;
	char b[200];

	r = dc_wait_event(t, evd, -1, &ev);
	if (r != DAT_SUCCESS) {
		dc_cause_call(t, on_miss == DC_UNRESOLVED ? "setup" : "check", "dat_evd_wait", &r);
		snprintf(t->priv->cause.event_want, sizeof(t->priv->cause.event_want), "%s",
			 dc_event_name(num));
	}
	if (r != DAT_SUCCESS)
		dc_end_at(t, on_miss, file, line, false,
			  "%swaiting for %s: dat_evd_wait returned %s at %s:%d",
			  on_miss == DC_UNRESOLVED ? "set-up " : "",
			  dc_event_name(num), dc_ret_str(r, b, sizeof(b)), file,
			  line);
	if (ev.event_number != num) {
		struct dc_cause *c = &t->priv->cause;

		describe_event(&s, &ev);
		dc_cause_call(t, on_miss == DC_UNRESOLVED ? "setup" : "check", "dat_evd_wait", NULL);
		snprintf(c->event_want, sizeof(c->event_want), "%s", dc_event_name(num));
		snprintf(c->event_got, sizeof(c->event_got), "%s", dc_event_name(ev.event_number));
		dc_end_at(t, on_miss, file, line, false,
			  "%sexpected %s, got %s at %s:%d",
			  on_miss == DC_UNRESOLVED ? "set-up " : "",
			  dc_event_name(num), dc_str_c(&s), file, line);
	}
	if (out)
		*out = ev;
}

void dc_assert_no_completion_of_at(struct dc_ctx *t, const char *file, int line,
				   DAT_EVD_HANDLE evd, uint64_t cookie)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	while (dat_evd_dequeue(evd, &ev) == DAT_SUCCESS) {
		if (ev.event_number == DAT_DTO_COMPLETION_EVENT &&
		    ev.event_data.dto_completion_event_data.user_cookie.as_64 == cookie) {
			struct dc_str s = { 0 };

			describe_event(&s, &ev);
			dc_end_at(t, DC_FAIL, file, line, false,
				  "the refused post completed: %s at %s:%d", dc_str_c(&s), file, line);
		}
		memset(&ev, 0, sizeof(ev));
	}
}

void dc_assert_no_event_at(struct dc_ctx *t, const char *file, int line,
			   DAT_EVD_HANDLE evd)
{
	struct dc_str s = { 0 };
	DAT_EVENT ev;
	DAT_RETURN r;
	char b[200];

	memset(&ev, 0, sizeof(ev));
	r = dat_evd_dequeue(evd, &ev);
	if (dc_ret_is(r, DAT_QUEUE_EMPTY, DC_ANY_SUBTYPE))
		return;
	if (r == DAT_SUCCESS) {
		describe_event(&s, &ev);
		dc_end_at(t, DC_FAIL, file, line, false,
			  "expected no event, dequeued %s at %s:%d",
			  dc_str_c(&s), file, line);
	}
	dc_end_at(t, DC_FAIL, file, line, false,
		  "expected DAT_QUEUE_EMPTY from dat_evd_dequeue, got %s at %s:%d",
		  dc_ret_str(r, b, sizeof(b)), file, line);
}

void dc_assert_no_async_event_at(struct dc_ctx *t, const char *file, int line,
				 int reason)
{
	struct dc_str s = { 0 };
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	while (dat_evd_dequeue(t->async_evd, &ev) == DAT_SUCCESS) {
		const DAT_ASYNCH_ERROR_EVENT_DATA *a = &ev.event_data.asynch_error_event_data;
		bool async = ev.event_number >= DAT_ASYNC_ERROR_EVD_OVERFLOW &&
			     ev.event_number <= DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR;

		describe_event(&s, &ev);
		if (!async || (int)a->reason == reason)
			dc_end_at(t, DC_FAIL, file, line, false,
				  "expected no asynchronous event of reason %d, dequeued %s at %s:%d",
				  reason, dc_str_c(&s), file, line);
		dc_note(t, "an asynchronous event of another kind (not judged): %s", dc_str_c(&s));
		dc_str_free(&s);
		memset(&ev, 0, sizeof(ev));
	}
}

DAT_DTO_COMPLETION_EVENT_DATA dc_await_dto_at(struct dc_ctx *t,
					      const char *file, int line,
					      DAT_EVD_HANDLE evd,
					      uint64_t cookie)
{
	DAT_EVENT ev;
	const DAT_DTO_COMPLETION_EVENT_DATA *d;

	dc_expect_event_at(t, file, line, DC_UNRESOLVED, evd,
			   DAT_DTO_COMPLETION_EVENT, &ev);
	d = &ev.event_data.dto_completion_event_data;
	if (d->user_cookie.as_64 != cookie)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: expected the completion of cookie %llu, got cookie %llu (%s) at %s:%d",
			  (unsigned long long)cookie,
			  (unsigned long long)d->user_cookie.as_64,
			  dc_dto_status_name(d->status), file, line);
	return *d;
}

int dc_drain(struct dc_ctx *t, DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;
	int n = 0;

	(void)t;
	while (dat_evd_dequeue(evd, &ev) == DAT_SUCCESS)
		n++;
	return n;
}

/* ---- snapshots ---- */

enum fkind { F_INT, F_UINT, F_HEX, F_PTR };

struct field {
	const char *name;
	size_t off, size;
	enum fkind kind;
};

#define FLD(T, f, k) { #f, offsetof(T, f), sizeof(((T *)0)->f), k }
#define FEND { NULL, 0, 0, F_INT }

static const struct field srq_fields[] = {
	FLD(DAT_SRQ_PARAM, ia_handle, F_PTR),
	FLD(DAT_SRQ_PARAM, srq_state, F_INT),
	FLD(DAT_SRQ_PARAM, pz_handle, F_PTR),
	FLD(DAT_SRQ_PARAM, max_recv_dtos, F_INT),
	FLD(DAT_SRQ_PARAM, max_recv_iov, F_INT),
	FLD(DAT_SRQ_PARAM, low_watermark, F_INT),
	FLD(DAT_SRQ_PARAM, available_dto_count, F_INT),
	FLD(DAT_SRQ_PARAM, outstanding_dto_count, F_INT),
	FEND,
};

static const struct field ep_fields[] = {
	FLD(DAT_EP_PARAM, ia_handle, F_PTR),
	FLD(DAT_EP_PARAM, ep_state, F_INT),
	FLD(DAT_EP_PARAM, local_ia_address_ptr, F_PTR),
	FLD(DAT_EP_PARAM, local_port_qual, F_UINT),
	FLD(DAT_EP_PARAM, remote_ia_address_ptr, F_PTR),
	FLD(DAT_EP_PARAM, remote_port_qual, F_UINT),
	FLD(DAT_EP_PARAM, pz_handle, F_PTR),
	FLD(DAT_EP_PARAM, recv_evd_handle, F_PTR),
	FLD(DAT_EP_PARAM, request_evd_handle, F_PTR),
	FLD(DAT_EP_PARAM, connect_evd_handle, F_PTR),
	FLD(DAT_EP_PARAM, srq_handle, F_PTR),
	FLD(DAT_EP_PARAM, ep_attr.service_type, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.max_message_size, F_UINT),
	FLD(DAT_EP_PARAM, ep_attr.max_rdma_size, F_UINT),
	FLD(DAT_EP_PARAM, ep_attr.qos, F_HEX),
	FLD(DAT_EP_PARAM, ep_attr.recv_completion_flags, F_HEX),
	FLD(DAT_EP_PARAM, ep_attr.request_completion_flags, F_HEX),
	FLD(DAT_EP_PARAM, ep_attr.max_recv_dtos, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.max_request_dtos, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.max_recv_iov, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.max_request_iov, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.max_rdma_read_in, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.max_rdma_read_out, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.srq_soft_hw, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.max_rdma_read_iov, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.max_rdma_write_iov, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.ep_transport_specific_count, F_INT),
	FLD(DAT_EP_PARAM, ep_attr.ep_provider_specific_count, F_INT),
	FEND,
};

static const struct field evd_fields[] = {
	FLD(DAT_EVD_PARAM, ia_handle, F_PTR),
	FLD(DAT_EVD_PARAM, evd_qlen, F_INT),
	FLD(DAT_EVD_PARAM, evd_state, F_HEX),
	FLD(DAT_EVD_PARAM, cno_handle, F_PTR),
	FLD(DAT_EVD_PARAM, evd_flags, F_HEX),
	FEND,
};

static const struct field lmr_fields[] = {
	FLD(DAT_LMR_PARAM, ia_handle, F_PTR),
	FLD(DAT_LMR_PARAM, mem_type, F_INT),
	FLD(DAT_LMR_PARAM, region_desc.for_va, F_PTR),
	FLD(DAT_LMR_PARAM, length, F_UINT),
	FLD(DAT_LMR_PARAM, pz_handle, F_PTR),
	FLD(DAT_LMR_PARAM, mem_priv, F_HEX),
	FLD(DAT_LMR_PARAM, lmr_context, F_HEX),
	FLD(DAT_LMR_PARAM, rmr_context, F_HEX),
	FLD(DAT_LMR_PARAM, registered_size, F_UINT),
	FLD(DAT_LMR_PARAM, registered_address, F_HEX),
	FEND,
};

static const struct field rmr_fields[] = {
	FLD(DAT_RMR_PARAM, ia_handle, F_PTR),
	FLD(DAT_RMR_PARAM, pz_handle, F_PTR),
	FLD(DAT_RMR_PARAM, lmr_triplet.lmr_context, F_HEX),
	FLD(DAT_RMR_PARAM, lmr_triplet.virtual_address, F_HEX),
	FLD(DAT_RMR_PARAM, lmr_triplet.segment_length, F_UINT),
	FLD(DAT_RMR_PARAM, mem_priv, F_HEX),
	FLD(DAT_RMR_PARAM, rmr_context, F_HEX),
	FEND,
};

static const struct field pz_fields[] = {
	FLD(DAT_PZ_PARAM, ia_handle, F_PTR),
	FEND,
};

static const struct field psp_fields[] = {
	FLD(DAT_PSP_PARAM, ia_handle, F_PTR),
	FLD(DAT_PSP_PARAM, conn_qual, F_UINT),
	FLD(DAT_PSP_PARAM, evd_handle, F_PTR),
	FLD(DAT_PSP_PARAM, psp_flags, F_HEX),
	FEND,
};

static const struct field rsp_fields[] = {
	FLD(DAT_RSP_PARAM, ia_handle, F_PTR),
	FLD(DAT_RSP_PARAM, conn_qual, F_UINT),
	FLD(DAT_RSP_PARAM, evd_handle, F_PTR),
	FLD(DAT_RSP_PARAM, ep_handle, F_PTR),
	FEND,
};

static const struct field cno_fields[] = {
	FLD(DAT_CNO_PARAM, ia_handle, F_PTR),
	FLD(DAT_CNO_PARAM, DC_CNO_PARAM_AGENT.instance_data, F_PTR),
	FLD(DAT_CNO_PARAM, DC_CNO_PARAM_AGENT.proxy_agent_func, F_PTR),
	FEND,
};

static const struct {
	const char *name;
	const struct field *fields;
} kinds[] = {
	[DC_OBJ_SRQ] = { "srq", srq_fields },
	[DC_OBJ_EP] = { "ep", ep_fields },
	[DC_OBJ_EVD] = { "evd", evd_fields },
	[DC_OBJ_LMR] = { "lmr", lmr_fields },
	[DC_OBJ_RMR] = { "rmr", rmr_fields },
	[DC_OBJ_PZ] = { "pz", pz_fields },
	[DC_OBJ_PSP] = { "psp", psp_fields },
	[DC_OBJ_RSP] = { "rsp", rsp_fields },
	[DC_OBJ_CNO] = { "cno", cno_fields },
};

static DAT_RETURN query(enum dc_obj kind, DAT_HANDLE h, struct dc_snap *s)
{
	memset(&s->u, 0, sizeof(s->u));
	s->kind = kind;
	s->h = h;
	switch (kind) {
	case DC_OBJ_SRQ:
		return dat_srq_query(h, DAT_SRQ_FIELD_ALL, &s->u.srq);
	case DC_OBJ_EP:
		return dat_ep_query(h, DAT_EP_FIELD_ALL, &s->u.ep);
	case DC_OBJ_EVD:
		return dat_evd_query(h, DAT_EVD_FIELD_ALL, &s->u.evd);
	case DC_OBJ_LMR:
		return dat_lmr_query(h, DAT_LMR_FIELD_ALL, &s->u.lmr);
	case DC_OBJ_RMR:
		return dat_rmr_query(h, DAT_RMR_FIELD_ALL, &s->u.rmr);
	case DC_OBJ_PZ:
		return dat_pz_query(h, DAT_PZ_FIELD_ALL, &s->u.pz);
	case DC_OBJ_PSP:
		return dat_psp_query(h, DAT_PSP_FIELD_ALL, &s->u.psp);
	case DC_OBJ_RSP:
		return dat_rsp_query(h, DAT_RSP_FIELD_ALL, &s->u.rsp);
	case DC_OBJ_CNO:
		return dat_cno_query(h, DAT_CNO_FIELD_ALL, &s->u.cno);
	}
	return DAT_INVALID_PARAMETER;
}

void dc_snapshot_at(struct dc_ctx *t, const char *file, int line,
		    enum dc_obj kind, DAT_HANDLE h, struct dc_snap *s)
{
	char what[48];

	if ((unsigned int)kind >= sizeof(kinds) / sizeof(kinds[0]))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: dc_snapshot of unknown kind %d", (int)kind);
	snprintf(what, sizeof(what), "dat_%s_query(*_FIELD_ALL)", kinds[kind].name);
	setup_ok(t, file, line, query(kind, h, s), what);
}

static uint64_t field_get(const void *base, const struct field *f)
{
	const unsigned char *p = (const unsigned char *)base + f->off;

	if (f->size == 4) {
		uint32_t v;

		memcpy(&v, p, 4);
		return f->kind == F_INT ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	if (f->size == 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	return 0;
}

static void field_fmt(struct dc_str *s, const struct field *f, uint64_t v)
{
	switch (f->kind) {
	case F_INT:
		dc_str_printf(s, "%lld", (long long)v);
		break;
	case F_UINT:
		dc_str_printf(s, "%llu", (unsigned long long)v);
		break;
	case F_HEX:
	case F_PTR:
		dc_str_printf(s, "0x%llx", (unsigned long long)v);
		break;
	}
}

void dc_assert_unchanged_at(struct dc_ctx *t, const char *file, int line,
			    const struct dc_snap *before, const char *ignore)
{
	const struct field *f;
	struct dc_snap after;
	struct dc_str diff = { 0 };
	DAT_RETURN r;
	char b[200];
	int n = 0;

	if ((unsigned int)before->kind >= sizeof(kinds) / sizeof(kinds[0]))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "case bug: DC_ASSERT_UNCHANGED of unknown kind");
	r = query(before->kind, before->h, &after);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%s changed: querying it again returned %s at %s:%d",
			  kinds[before->kind].name, dc_ret_str(r, b, sizeof(b)),
			  file, line);
	for (f = kinds[before->kind].fields; f->name; f++) {
		uint64_t x = field_get(&before->u, f), y = field_get(&after.u, f);
		const char *dot = strrchr(f->name, '.');

		if (x == y || dc_word_in(ignore, f->name) ||
		    (dot && dc_word_in(ignore, dot + 1)))
			continue;
		dc_str_printf(&diff, "%s%s.%s: ", n++ ? "; " : "",
			      kinds[before->kind].name, f->name);
		field_fmt(&diff, f, x);
		dc_str_puts(&diff, " -> ");
		field_fmt(&diff, f, y);
	}
	if (n)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "expected no change, but %s at %s:%d", dc_str_c(&diff),
			  file, line);
}

/* ---- provider hooks ---- */

struct hook_find {
	const char *name;
	void *sym;
};

static int hook_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hook_find *hf = arg;
	void *h;

	(void)size;
	if (!info->dlpi_name || !*info->dlpi_name)
		return 0;
	h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	hf->sym = dlsym(h, hf->name);
	dlclose(h);
	return hf->sym != NULL;
}

/*
 * DATCTS_NO_SUITE_FACILITIES=1 hides the reference provider's test hooks and
 * datcts.* attributes, so any provider looks like a third-party one (the
 * test that every case declares what it needs, tests/runner).
 */
static bool suite_facilities_hidden(void)
{
	const char *v = getenv("DATCTS_NO_SUITE_FACILITIES");

	return v && *v && strcmp(v, "0");
}

void *dc_provider_hook_find(const char *name)
{
	struct hook_find hf = { .name = name };

	if (suite_facilities_hidden())
		return NULL;
	hf.sym = dlsym(RTLD_DEFAULT, name);
	if (!hf.sym)
		dl_iterate_phdr(hook_cb, &hf);
	return hf.sym;
}

void *dc_provider_hook_at(struct dc_ctx *t, const char *file, int line,
			  const char *name)
{
	void *p = dc_provider_hook_find(name);

	if (!p)
		dc_cause_needs(t, "hook", name);
	if (!p)
		dc_end_at(t, DC_UNSUPPORTED, file, line, false,
			  "provider offers no %s", name);
	return p;
}

const char *dc_provider_attr_find(const struct dc_ctx *t, const char *name)
{
	const DAT_PROVIDER_ATTR *p = &t->prov_attr;

	if (!strncmp(name, "datcts.", 7) && suite_facilities_hidden())
		return NULL;
	for (DAT_COUNT i = 0; p->provider_specific_attr &&
			      i < p->num_provider_specific_attr; i++) {
		const DAT_NAMED_ATTR *a = &p->provider_specific_attr[i];

		if (a->name && a->value && !strcmp(a->name, name))
			return a->value;
	}
	return NULL;
}

const char *dc_provider_attr_at(struct dc_ctx *t, const char *file, int line,
				const char *name)
{
	const char *v = dc_provider_attr_find(t, name);

	if (!v)
		dc_cause_needs(t, strncmp(name, "datcts.", 7) ? "attribute" : "suite_attr", name);
	if (!v)
		dc_end_at(t, DC_UNSUPPORTED, file, line, false,
			  "provider publishes no %s", name);
	return v;
}
