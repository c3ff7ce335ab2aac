/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_modify(3DAT): clauses/dat_ep_modify.toml.
 *
 * The page's parameter list is a matrix: for each parameter, the EP states
 * in which it may change and (implicitly) the states in which it may not.
 * Each cell of that matrix is one case, <param>_in_<state>, registered by
 * the table at the end of this file.  A cell brings an EP into the state
 * for real (ep_common.h: at_state), asks to change that one parameter to a
 * valid new value, and checks:
 *   allowed   -> DAT_SUCCESS, dat_ep_query shows the new value, nothing
 *                else changed (state included);
 *   forbidden -> DAT_INVALID_STATE and nothing changed at all.
 */
#include "ep_ways.h"

/* ---- the parameters of the page, and a valid new value for each --------------- */

struct mparam {
	const char *name;		/* also the snapshot field it changes */
	DAT_EP_PARAM_MASK mask;
	/* Writes a valid value, different from cur when possible, into nv. */
	bool (*new_value)(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv);
	/* True when q shows the value that nv asked for. */
	bool (*shows)(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv);
	/* The clause of the states in which the page forbids the change. */
	const char *forbidden;
};

static DAT_COUNT step_count(DAT_COUNT cur, DAT_COUNT lo, DAT_COUNT hi)
{
	if (hi <= 0)
		hi = cur + 1;	/* IA reports no limit: go up */
	if (cur + 1 <= hi)
		return cur + 1;
	if (cur - 1 >= lo)
		return cur - 1;
	return cur;
}

static DAT_VLEN step_len(DAT_VLEN cur, DAT_VLEN hi)
{
	if (cur > 4096)
		return cur - 1024;
	if (!hi || cur + 1024 <= hi)
		return cur + 1024;
	return cur;
}

static bool nv_pz(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	(void)cur;
	nv->pz_handle = dc_pz(t);
	return true;
}
static bool sh_pz(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->pz_handle == nv->pz_handle;
}

static bool nv_recv_evd(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	(void)cur;
	nv->recv_evd_handle = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	return true;
}
static bool sh_recv_evd(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->recv_evd_handle == nv->recv_evd_handle;
}

static bool nv_request_evd(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	(void)cur;
	nv->request_evd_handle = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	return true;
}
static bool sh_request_evd(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->request_evd_handle == nv->request_evd_handle;
}

static bool nv_connect_evd(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	(void)cur;
	nv->connect_evd_handle = dc_evd(t, 16, DAT_EVD_CONNECTION_FLAG);
	return true;
}
static bool sh_connect_evd(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->connect_evd_handle == nv->connect_evd_handle;
}

static bool nv_service_type(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	(void)t;
	(void)cur;
	nv->ep_attr.service_type = DAT_SERVICE_TYPE_RC;	/* the only one in 1.2 */
	return cur->ep_attr.service_type != DAT_SERVICE_TYPE_RC;
}
static bool sh_service_type(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->ep_attr.service_type == nv->ep_attr.service_type;
}

static bool nv_max_message_size(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	nv->ep_attr.max_message_size = step_len(cur->ep_attr.max_message_size,
						t->ia_attr.max_message_size);
	return nv->ep_attr.max_message_size != cur->ep_attr.max_message_size;
}
static bool sh_max_message_size(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->ep_attr.max_message_size == nv->ep_attr.max_message_size;
}

static bool nv_max_rdma_size(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	nv->ep_attr.max_rdma_size = step_len(cur->ep_attr.max_rdma_size,
					     t->ia_attr.max_rdma_size);
	return nv->ep_attr.max_rdma_size != cur->ep_attr.max_rdma_size;
}
static bool sh_max_rdma_size(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->ep_attr.max_rdma_size == nv->ep_attr.max_rdma_size;
}

static bool nv_qos(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	static const DAT_QOS bits[] = {
		DAT_QOS_BEST_EFFORT, DAT_QOS_HIGH_THROUGHPUT, DAT_QOS_LOW_LATENCY,
		DAT_QOS_ECONOMY, DAT_QOS_PREMIUM,
	};

	nv->ep_attr.qos = cur->ep_attr.qos;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		bool ok = bits[i] == DAT_QOS_BEST_EFFORT ||
			  (t->prov_attr.dat_qos_supported & bits[i]);

		if (ok && bits[i] != cur->ep_attr.qos) {
			nv->ep_attr.qos = bits[i];
			return true;
		}
	}
	return false;
}
static bool sh_qos(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->ep_attr.qos == nv->ep_attr.qos;
}

static DAT_COMPLETION_FLAGS pick_flags(struct dc_ctx *t, DAT_COMPLETION_FLAGS cur,
				       const DAT_COMPLETION_FLAGS *cand, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool ok = cand[i] == DAT_COMPLETION_DEFAULT_FLAG ||
			  (t->prov_attr.completion_flags_supported & cand[i]) == cand[i];

		if (ok && cand[i] != cur)
			return cand[i];
	}
	return cur;
}

static bool nv_recv_flags(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	static const DAT_COMPLETION_FLAGS cand[] = {
		DAT_COMPLETION_UNSIGNALLED_FLAG, DAT_COMPLETION_EVD_THRESHOLD_FLAG,
		DAT_COMPLETION_DEFAULT_FLAG,
	};

	nv->ep_attr.recv_completion_flags =
		pick_flags(t, cur->ep_attr.recv_completion_flags, cand, 3);
	return nv->ep_attr.recv_completion_flags != cur->ep_attr.recv_completion_flags;
}
static bool sh_recv_flags(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->ep_attr.recv_completion_flags == nv->ep_attr.recv_completion_flags;
}

static bool nv_request_flags(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	static const DAT_COMPLETION_FLAGS cand[] = {
		DAT_COMPLETION_UNSIGNALLED_FLAG, DAT_COMPLETION_EVD_THRESHOLD_FLAG,
		DAT_COMPLETION_DEFAULT_FLAG,
	};

	nv->ep_attr.request_completion_flags =
		pick_flags(t, cur->ep_attr.request_completion_flags, cand, 3);
	return nv->ep_attr.request_completion_flags != cur->ep_attr.request_completion_flags;
}
static bool sh_request_flags(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	return q->ep_attr.request_completion_flags == nv->ep_attr.request_completion_flags;
}

#define COUNT_PARAM(fld, lo, limit)						\
	static bool nv_##fld(struct dc_ctx *t, const DAT_EP_PARAM *cur,	\
			     DAT_EP_PARAM *nv)					\
	{									\
		nv->ep_attr.fld = step_count(cur->ep_attr.fld, (lo),		\
					     t->ia_attr.limit);			\
		return nv->ep_attr.fld != cur->ep_attr.fld;			\
	}									\
	static bool sh_##fld(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)	\
	{									\
		return q->ep_attr.fld == nv->ep_attr.fld;			\
	}

COUNT_PARAM(max_recv_dtos, 1, max_dto_per_ep)
COUNT_PARAM(max_request_dtos, 1, max_dto_per_ep)
COUNT_PARAM(max_recv_iov, 1, max_iov_segments_per_dto)
COUNT_PARAM(max_request_iov, 1, max_iov_segments_per_dto)
COUNT_PARAM(max_rdma_read_in, 0, max_rdma_read_per_ep_in)
COUNT_PARAM(max_rdma_read_out, 0, max_rdma_read_per_ep_out)

/* Transport/provider-specific attributes: the portable new value is "none". */
static bool nv_no_transport_attr(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	(void)t;
	nv->ep_attr.ep_transport_specific_count = 0;
	nv->ep_attr.ep_transport_specific = NULL;
	return cur->ep_attr.ep_transport_specific_count != 0;
}
static bool sh_no_transport_attr(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	(void)nv;
	return q->ep_attr.ep_transport_specific_count == 0;
}
static bool nv_no_provider_attr(struct dc_ctx *t, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv)
{
	(void)t;
	nv->ep_attr.ep_provider_specific_count = 0;
	nv->ep_attr.ep_provider_specific = NULL;
	return cur->ep_attr.ep_provider_specific_count != 0;
}
static bool sh_no_provider_attr(const DAT_EP_PARAM *q, const DAT_EP_PARAM *nv)
{
	(void)nv;
	return q->ep_attr.ep_provider_specific_count == 0;
}

#define MP(slug, field, bit, nvf, shf)					\
	static const struct mparam P_##slug = {				\
		field, bit, nvf, shf, "dat_ep_modify." #slug "_forbidden_states" \
	}

MP(pz_handle, "pz_handle", DAT_EP_FIELD_PZ_HANDLE, nv_pz, sh_pz);
MP(recv_evd_handle, "recv_evd_handle", DAT_EP_FIELD_RECV_EVD_HANDLE, nv_recv_evd, sh_recv_evd);
MP(request_evd_handle, "request_evd_handle", DAT_EP_FIELD_REQUEST_EVD_HANDLE,
   nv_request_evd, sh_request_evd);
MP(connect_evd_handle, "connect_evd_handle", DAT_EP_FIELD_CONNECT_EVD_HANDLE,
   nv_connect_evd, sh_connect_evd);
MP(service_type, "service_type", DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE,
   nv_service_type, sh_service_type);
MP(max_message_size, "max_message_size", DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE,
   nv_max_message_size, sh_max_message_size);
MP(max_rdma_size, "max_rdma_size", DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE,
   nv_max_rdma_size, sh_max_rdma_size);
MP(qos, "qos", DAT_EP_FIELD_EP_ATTR_QOS, nv_qos, sh_qos);
MP(recv_completion_flags, "recv_completion_flags",
   DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, nv_recv_flags, sh_recv_flags);
MP(request_completion_flags, "request_completion_flags",
   DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, nv_request_flags, sh_request_flags);
MP(max_recv_dtos, "max_recv_dtos", DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS,
   nv_max_recv_dtos, sh_max_recv_dtos);
MP(max_request_dtos, "max_request_dtos", DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS,
   nv_max_request_dtos, sh_max_request_dtos);
MP(max_recv_iov, "max_recv_iov", DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV,
   nv_max_recv_iov, sh_max_recv_iov);
MP(max_request_iov, "max_request_iov", DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV,
   nv_max_request_iov, sh_max_request_iov);
MP(max_rdma_read_in, "max_rdma_read_in", DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN,
   nv_max_rdma_read_in, sh_max_rdma_read_in);
MP(max_rdma_read_out, "max_rdma_read_out", DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT,
   nv_max_rdma_read_out, sh_max_rdma_read_out);
MP(num_transport_attr, "ep_transport_specific_count",
   DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR, nv_no_transport_attr, sh_no_transport_attr);
MP(transport_specific_attr, "ep_transport_specific_count",
   DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR, nv_no_transport_attr, sh_no_transport_attr);
MP(num_provider_attr, "ep_provider_specific_count",
   DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR, nv_no_provider_attr, sh_no_provider_attr);
MP(provider_specific_attr, "ep_provider_specific_count",
   DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR, nv_no_provider_attr, sh_no_provider_attr);

/* ---- one cell of the matrix --------------------------------------------------- */

/* The page allows the change in this state: it happens, and only it. */
static void modify_allowed(struct dc_ctx *t, struct subject *s, const void *arg)
{
	const struct mparam *mp = arg;
	DAT_EP_PARAM cur = dc_ep_param(t, s->ep), nv = cur, q;
	struct dc_snap before;

	if (!mp->new_value(t, &cur, &nv))
		dc_note(t, "%s: no valid value differs from the current one here; asking for the same value",
			mp->name);
	dc_snapshot(t, DC_OBJ_EP, s->ep, &before);
	DC_ASSERT_SUCCESS(dat_ep_modify(s->ep, mp->mask, &nv));
	q = DC_EP_PARAM(s->ep);
	DC_ASSERT(mp->shows(&q, &nv), "after a successful dat_ep_modify, %s does not show the new value",
		  mp->name);
	ASSERT_STATE(s->ep, s->state);
	DC_ASSERT_UNCHANGED_EXCEPT(&before, mp->name);
}

/*
 * The page does not allow the change in this state: refused, nothing moves.
 * @also_state_clause: the refusal is state_not_allowing_change's too.
 */
static void forbid(struct dc_ctx *t, struct subject *s, const struct mparam *mp,
		   bool also_state_clause)
{
	DAT_EP_PARAM cur = dc_ep_param(t, s->ep), nv = cur;
	struct dc_snap before;

	mp->new_value(t, &cur, &nv);
	dc_snapshot(t, DC_OBJ_EP, s->ep, &before);
	/* the refusal is both clauses' (the row's and RETURN VALUES'); it is
	 * all that state_not_allowing_change asks, so that clause's checks end
	 * here, and only the row's "nothing moves" follows */
	DC_ASSERT_RET(dat_ep_modify(s->ep, mp->mask, &nv), DAT_INVALID_STATE);
	if (also_state_clause)
		DC_FOR_CLAUSE("dat_ep_modify.state_not_allowing_change");
	DC_FOR_CLAUSE(mp->forbidden);
	/* dat_ep_modify(3DAT) forbids a change by the call; a transitional state
	 * that ended by itself meanwhile is the connection's doing */
	DC_ASSERT_UNCHANGED_EXCEPT(&before, state_ended_meanwhile(t, s));
}

static void modify_forbidden(struct dc_ctx *t, struct subject *s, const void *arg)
{
	forbid(t, s, arg, true);
}

/*
 * The transport- and provider-specific attributes: the page's entries name
 * Unconnected as the state they can be changed in and leave the others to
 * the transport (the catalog marks their forbidden-states clauses
 * contested), so a change accepted there does not fail
 * state_not_allowing_change, which asks a refusal only where the parameter
 * may not change.
 */
static void modify_forbidden_by_transport(struct dc_ctx *t, struct subject *s, const void *arg)
{
	forbid(t, s, arg, false);
}

#define FN_allowed modify_allowed
#define FN_forbidden modify_forbidden
#define CL_allowed(p) "dat_ep_modify." #p "_allowed_states"
#define CL_forbidden(p) "dat_ep_modify." #p "_forbidden_states dat_ep_modify.state_not_allowing_change"
#define FN_forbidden_by_transport modify_forbidden_by_transport
#define CL_forbidden_by_transport(p) "dat_ep_modify." #p "_forbidden_states"

#define SAY_allowed "allowed"
#define SAY_forbidden "forbidden"
#define SAY_forbidden_by_transport "forbidden by the entry's heading (contested)"

#define CELL(param, st, verdict)						\
	STATE_CASE(dat_ep_modify, param##_in_##st, st, FN_##verdict,		\
		   &P_##param, CL_##verdict(param),				\
		   "changing " #param " in " #st " is " SAY_##verdict)

/* Parameters the page lets change in Unconnected, Reserved, Passive and
 * Tentative Connection Pending, and nowhere else. */
#define ROW_PRE_CONNECTION(param)					\
	CELL(param, unconnected, allowed)				\
	CELL(param, reserved, allowed)					\
	CELL(param, passive_connection_pending, allowed)		\
	CELL(param, tentative_connection_pending, allowed)		\
	CELL(param, active_connection_pending, forbidden)		\
	CELL(param, completion_pending, forbidden)			\
	CELL(param, connected, forbidden)				\
	CELL(param, disconnect_pending, forbidden)			\
	CELL(param, disconnected, forbidden)

/* The Protection Zone: only in the two quiescent states. */
#define ROW_QUIESCENT(param)						\
	CELL(param, unconnected, allowed)				\
	CELL(param, reserved, forbidden)				\
	CELL(param, passive_connection_pending, forbidden)		\
	CELL(param, tentative_connection_pending, allowed)		\
	CELL(param, active_connection_pending, forbidden)		\
	CELL(param, completion_pending, forbidden)			\
	CELL(param, connected, forbidden)				\
	CELL(param, disconnect_pending, forbidden)			\
	CELL(param, disconnected, forbidden)

/* Transport- and provider-specific attributes: Unconnected only, as the
 * entries' headings say (contested: the entries leave the other states to
 * the transport, so these cells judge their own clauses alone). */
#define ROW_UNCONNECTED_ONLY(param)					\
	CELL(param, unconnected, allowed)				\
	CELL(param, reserved, forbidden_by_transport)			\
	CELL(param, passive_connection_pending, forbidden_by_transport)	\
	CELL(param, tentative_connection_pending, forbidden_by_transport) \
	CELL(param, active_connection_pending, forbidden_by_transport)	\
	CELL(param, completion_pending, forbidden_by_transport)		\
	CELL(param, connected, forbidden_by_transport)			\
	CELL(param, disconnect_pending, forbidden_by_transport)		\
	CELL(param, disconnected, forbidden_by_transport)

ROW_QUIESCENT(pz_handle)
ROW_PRE_CONNECTION(recv_evd_handle)
ROW_PRE_CONNECTION(request_evd_handle)
ROW_PRE_CONNECTION(connect_evd_handle)
ROW_PRE_CONNECTION(service_type)
ROW_PRE_CONNECTION(max_message_size)
ROW_PRE_CONNECTION(max_rdma_size)
ROW_PRE_CONNECTION(qos)
ROW_PRE_CONNECTION(recv_completion_flags)
ROW_PRE_CONNECTION(request_completion_flags)
ROW_PRE_CONNECTION(max_recv_dtos)
ROW_PRE_CONNECTION(max_request_dtos)
ROW_PRE_CONNECTION(max_recv_iov)
ROW_PRE_CONNECTION(max_request_iov)
ROW_PRE_CONNECTION(max_rdma_read_in)
ROW_PRE_CONNECTION(max_rdma_read_out)
ROW_UNCONNECTED_ONLY(num_transport_attr)
ROW_UNCONNECTED_ONLY(transport_specific_attr)
ROW_UNCONNECTED_ONLY(num_provider_attr)
ROW_UNCONNECTED_ONLY(provider_specific_attr)

/* ---- the rest of the page ---------------------------------------------------------- */

static DAT_EP_HANDLE plain_ep(struct dc_ctx *t, struct dc_endpoint *e)
{
	dc_endpoint(t, e, NULL);
	return e->ep;
}

/*
 * Maximum Recv DTO given while Receives are posted (dat_ep_modify(3DAT)
 * DESCRIPTION: changeable in Unconnected; it is the number of outstanding
 * Receives the Consumer expects, and the page sets no rule about Receives
 * already posted): exactly their count is a value they fit.
 */
DC_CASE(dat_ep_modify, max_recv_dtos_at_posted_count,
	.clauses = "dat_ep_modify.max_recv_dtos_allowed_states",
	.summary = "with Receives posted on an Unconnected EP, max_recv_dtos equal to their count is taken")
{
	struct dc_endpoint e;
	struct dc_lmr m;
	DAT_EP_PARAM nv;

	dc_endpoint(t, &e, NULL);
	dc_lmr(t, e.pz, 4096, DC_PRIV_LOCAL, &m);
	DC_NEED_LIMIT("the EP's max_recv_dtos", dc_ep_param(t, e.ep).ep_attr.max_recv_dtos, 3);
	for (int i = 0; i < 3; i++)
		DC_SETUP(post_recv1(e.ep, &m, (DAT_VLEN)i * 256, 256, 1 + (uint64_t)i));
	nv = dc_ep_param(t, e.ep);
	nv.ep_attr.max_recv_dtos = 3;
	DC_ASSERT_SUCCESS(dat_ep_modify(e.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &nv));
	ASSERT_STATE(e.ep, DAT_EP_STATE_UNCONNECTED);
}

/*
 * Transport- and Provider-specific attributes are the provider's to define:
 * it may refuse a list it does not know (then there is nothing to judge).
 * Once it has taken one, at dat_ep_create or by dat_ep_modify, the EP is
 * still Unconnected and max_recv_dtos may still change.
 */
DC_CASE(dat_ep_modify, specific_attrs_keep_ep_modifiable,
	.summary = "after a one-entry transport- or Provider-specific attribute list is taken (create or modify), max_recv_dtos can change")
{
	static const DAT_NAMED_ATTR one[1] = { { "datcts.case", "1" } };
	int judged = 0;

	for (int i = 0; i < 4; i++) {
		bool provider = i & 1, at_create = i & 2;
		struct dc_endpoint e;
		DAT_EP_ATTR attr;
		DAT_EP_PARAM nv;
		DAT_RETURN r;

		dc_note(t, "a %s-specific list, given %s", provider ? "Provider" : "transport",
			at_create ? "at dat_ep_create" : "by dat_ep_modify");
		dc_ep_attr_default(t, &attr);
		if (at_create) {
			*(provider ? &attr.ep_provider_specific_count : &attr.ep_transport_specific_count) = 1;
			*(provider ? &attr.ep_provider_specific : &attr.ep_transport_specific) =
				(DAT_NAMED_ATTR *)one;
		}
		memset(&e, 0, sizeof(e));
		e.pz = dc_pz(t);
		e.recv_evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
		e.req_evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
		r = dat_ep_create(t->ia, e.pz, e.recv_evd, e.req_evd, DAT_HANDLE_NULL, &attr, &e.ep);
		if (r == DAT_SUCCESS && !at_create) {
			nv = dc_ep_param(t, e.ep);
			*(provider ? &nv.ep_attr.ep_provider_specific_count
				   : &nv.ep_attr.ep_transport_specific_count) = 1;
			*(provider ? &nv.ep_attr.ep_provider_specific
				   : &nv.ep_attr.ep_transport_specific) = (DAT_NAMED_ATTR *)one;
			r = dat_ep_modify(e.ep, provider ? DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR |
						   DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR :
						   DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR |
						   DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR, &nv);
		}
		if (r != DAT_SUCCESS) {
			dc_note(t, "the list was refused (%s): nothing to judge", dc_ret_text(r));
			continue;
		}
		nv = dc_ep_param(t, e.ep);
		nv.ep_attr.max_recv_dtos = nv.ep_attr.max_recv_dtos > 1 ? nv.ep_attr.max_recv_dtos - 1 : 2;
		DC_ASSERT_SUCCESS(dat_ep_modify(e.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &nv));
		DC_ASSERT_EQ(DC_EP_PARAM(e.ep).ep_attr.max_recv_dtos, nv.ep_attr.max_recv_dtos);
		judged++;
	}
	if (!judged)
		DC_UNRESOLVED("the provider took no one-entry specific-attribute list: nothing to judge");
}

/* One-bit modifies of ep, every other member of ep_param garbage: only that one changes. */
static void modify_only_masked(struct dc_ctx *t, DAT_EP_HANDLE ep, const struct mparam *p)
{
	DAT_EP_PARAM cur = dc_ep_param(t, ep), nv, q;
	struct dc_snap before;

	/* Every byte garbage: handles, pointers, counts, flags. */
	memset(&nv, 0x5A, sizeof(nv));
	p->new_value(t, &cur, &nv);
	dc_snapshot(t, DC_OBJ_EP, ep, &before);
	DC_ASSERT_SUCCESS(dat_ep_modify(ep, p->mask, &nv));
	q = DC_EP_PARAM(ep);
	DC_ASSERT(p->shows(&q, &nv), "%s does not show the new value", p->name);
	DC_ASSERT_UNCHANGED_EXCEPT(&before, p->name);
}

/*
 * One modify per EP: the clause speaks of what one call changes, so a
 * provider whose second modify of an EP goes wrong is judged by the clauses
 * about using a modified EP, not charged here.
 */
DC_CASE(dat_ep_modify, only_masked_modified,
	.summary = "only the parameter named by the mask changes; garbage elsewhere is ignored")
{
	static const struct mparam *const which[] = {
		&P_max_recv_dtos, &P_recv_evd_handle, &P_pz_handle, &P_max_message_size,
	};
	/* with a Receive posted: the garbage in the unmasked Receive flags is still ignored */
	static const struct mparam *const after_recv[] = {
		&P_max_request_dtos, &P_connect_evd_handle,
	};

	for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
		struct dc_endpoint e;

		modify_only_masked(t, plain_ep(t, &e), which[i]);
		dc_endpoint_down(t, &e);	/* an IA may have few EVDs and EPs */
	}
	for (size_t i = 0; i < sizeof(after_recv) / sizeof(after_recv[0]); i++) {
		struct dc_endpoint f;
		struct dc_lmr m;

		dc_endpoint(t, &f, NULL);
		dc_lmr(t, f.pz, 4096, DC_PRIV_LOCAL, &m);
		DC_SETUP(post_recv1(f.ep, &m, 0, 256, 1));
		modify_only_masked(t, f.ep, after_recv[i]);
		dc_endpoint_down(t, &f);
	}
}

/* Read-only parameters: asking to change them is an invalid parameter. */
struct ro_arg {
	DAT_EP_PARAM_MASK mask;
	const char *what;
};

static void ro_check(struct dc_ctx *t, DAT_EP_HANDLE ep, const struct ro_arg *a,
		     const char *where)
{
	static struct sockaddr_in other;
	DAT_EP_PARAM nv = dc_ep_param(t, ep);
	struct dc_snap before;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL;

	other.sin_family = AF_INET;
	other.sin_port = htons(4791);
	other.sin_addr.s_addr = htonl(0x7f000002);
	switch ((int)a->mask) {
	case DAT_EP_FIELD_IA_HANDLE:
		if (dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2) == DAT_SUCCESS)
			nv.ia_handle = ia2;
		else
			nv.ia_handle = (DAT_IA_HANDLE)dc_pz(t);	/* any other handle */
		break;
	case DAT_EP_FIELD_EP_STATE:
		nv.ep_state = nv.ep_state == DAT_EP_STATE_DISCONNECTED ?
			      DAT_EP_STATE_UNCONNECTED : DAT_EP_STATE_DISCONNECTED;
		break;
	case DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR:
		nv.local_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&other;
		break;
	case DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR:
		nv.remote_ia_address_ptr = (DAT_IA_ADDRESS_PTR)&other;
		break;
	case DAT_EP_FIELD_LOCAL_PORT_QUAL:
		nv.local_port_qual += 1;
		break;
	case DAT_EP_FIELD_REMOTE_PORT_QUAL:
		nv.remote_port_qual += 1;
		break;
	}
	dc_snapshot(t, DC_OBJ_EP, ep, &before);
	dc_note(t, "%s on a%s EP", a->what, where);
	DC_ASSERT_RET(dat_ep_modify(ep, a->mask, &nv), DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&before);
	if (ia2)
		dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG);
}

static void ro_case(struct dc_ctx *t, const struct ro_arg *a)
{
	struct dc_endpoint e;
	struct dc_pair p;

	ro_check(t, plain_ep(t, &e), a, "n unconnected");
	dc_pair_up(t, &p, SUBJ_MEM, NULL);
	ro_check(t, p.a.ep, a, " connected (active)");
	ro_check(t, p.b.ep, a, " connected (passive)");
}

#define RO_CASE(name, bit)						\
	DC_CASE(dat_ep_modify, name##_read_only,			\
		.summary = #bit " cannot be modified")			\
	{								\
		static const struct ro_arg a = { bit, #bit };		\
		ro_case(t, &a);						\
	}

RO_CASE(ia_handle, DAT_EP_FIELD_IA_HANDLE)
RO_CASE(ep_state, DAT_EP_FIELD_EP_STATE)
RO_CASE(local_ia_address, DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR)
RO_CASE(local_port_qual, DAT_EP_FIELD_LOCAL_PORT_QUAL)
RO_CASE(remote_ia_address, DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR)
RO_CASE(remote_port_qual, DAT_EP_FIELD_REMOTE_PORT_QUAL)

DC_CASE(dat_ep_modify, pz_change_mismatched_recvs,
	.summary = "Receives posted before a PZ change fail with a protection error and place no data")
{
	struct dc_endpoint a, b;
	struct dc_lmr rb, sa;
	DAT_EP_PARAM nv;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	memset(&a, 0, sizeof(a));
	dc_endpoint(t, &b, NULL);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &rb);
	memset(rb.buf, CANARY, 4096);
	DC_SETUP(post_recv1(b.ep, &rb, 0, 256, 1));
	DC_SETUP(post_recv1(b.ep, &rb, 512, 1, 2));	/* a Receive of one byte too */

	nv = dc_ep_param(t, b.ep);
	nv.pz_handle = dc_pz(t);
	DC_ASSERT_SUCCESS(dat_ep_modify(b.ep, DAT_EP_FIELD_PZ_HANDLE, &nv));

	/* Connect and send: the Receives can no longer take the data. */
	dc_connect_local(t, &a, &b, NULL);
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &sa);
	dc_fill(sa.buf + 0, 64, 3);
	DC_SETUP(post_send1(a.ep, &sa, 0, 64, 2));
	d = DC_ASSERT_DTO(b.recv_evd, 1, DAT_DTO_ERR_LOCAL_PROTECTION);
	(void)d;
	/* the one-byte Receive: failed the same way, unless the first failure
	 * broke the connection (a provider that fails Receives as data
	 * arrives), which flushes it; the second Send is for that provider */
	(void)post_send1(a.ep, &sa, 0, 1, 3);
	d = dc_expect_dto_at(t, __FILE__, __LINE__, DC_FAIL, b.recv_evd,
			     &(const uint64_t){ 2 }, DC_ANY_STATUS);
	DC_ASSERT(d.status == DAT_DTO_ERR_LOCAL_PROTECTION || d.status == DAT_DTO_ERR_FLUSHED,
		  "the one-byte Receive completed %s, expected DAT_DTO_ERR_LOCAL_PROTECTION (or "
		  "DAT_DTO_ERR_FLUSHED after a broken connection)", dc_dto_status_name(d.status));
	DC_ASSERT_BYTES_ARE(rb.buf, 4096, CANARY, "the mismatched Receives' buffer");
}

/*
 * Protection Zone: only the posted Receives that do not match the new PZ
 * fail.  A Receive with no segment, or only a zero-length one, has no
 * memory the new PZ could contradict: it stays posted and completes.  The
 * Receives are posted after an earlier one failed at a change, so a
 * provider that reuses its record sees them too.
 */
DC_CASE(dat_ep_modify, pz_change_empty_recvs_kept,
	.summary = "Receives with no memory to check (no segment, a zero-length one) stay posted across a PZ change and complete")
{
	struct dc_endpoint a, b;
	struct dc_lmr old, next;
	DAT_EP_PARAM nv;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_LMR_TRIPLET empty;
	DAT_PZ_HANDLE pz_c = dc_pz(t);
	bool with_empty_seg;
	DAT_RETURN r;

	memset(&a, 0, sizeof(a));
	dc_endpoint(t, &b, NULL);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &old);
	dc_lmr(t, pz_c, 4096, DC_PRIV_LOCAL, &next);
	/* set-up: a Receive of the first PZ, failed by a change to a second */
	DC_SETUP(post_recv1(b.ep, &old, 0, 256, 1));
	nv = dc_ep_param(t, b.ep);
	nv.pz_handle = dc_pz(t);
	DC_SETUP(dat_ep_modify(b.ep, DAT_EP_FIELD_PZ_HANDLE, &nv));
	DC_SETUP_DTO(b.recv_evd, 1, DAT_DTO_ERR_LOCAL_PROTECTION);

	DC_SETUP(dat_ep_post_recv(b.ep, 0, NULL, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	empty = dc_iov(&next, 0, 0);	/* names an LMR of the PZ to come */
	r = dat_ep_post_recv(b.ep, 1, &empty, dc_cookie(3), DAT_COMPLETION_DEFAULT_FLAG);
	with_empty_seg = r == DAT_SUCCESS;
	if (!with_empty_seg)
		dc_note(t, "a zero-length segment of another PZ's LMR was refused at the post (%s): "
			"only the Receive with no segment is judged", dc_ret_text(r));
	nv = dc_ep_param(t, b.ep);
	nv.pz_handle = pz_c;
	DC_ASSERT_SUCCESS(dat_ep_modify(b.ep, DAT_EP_FIELD_PZ_HANDLE, &nv));

	dc_connect_local(t, &a, &b, NULL);
	DC_SETUP(dat_ep_post_send(a.ep, 0, NULL, dc_cookie(10), DAT_COMPLETION_DEFAULT_FLAG));
	d = DC_ASSERT_DTO(b.recv_evd, 2, DAT_DTO_SUCCESS);
	DC_ASSERT_EQ(d.transfered_length, 0);
	if (with_empty_seg) {
		DC_SETUP(dat_ep_post_send(a.ep, 0, NULL, dc_cookie(11), DAT_COMPLETION_DEFAULT_FLAG));
		d = DC_ASSERT_DTO(b.recv_evd, 3, DAT_DTO_SUCCESS);
		DC_ASSERT_EQ(d.transfered_length, 0);
	}
}

DC_CASE(dat_ep_modify, recv_completion_flags_after_recv_posted,
	.summary = "Receive completion flags cannot change once a Receive is posted")
{
	struct dc_endpoint e;
	DAT_EP_HANDLE ep = plain_ep(t, &e);
	struct dc_lmr m;
	DAT_EP_PARAM cur, nv;
	struct dc_snap before;

	dc_lmr(t, e.pz, 4096, DC_PRIV_LOCAL, &m);
	DC_SETUP(post_recv1(ep, &m, 0, 256, 1));
	cur = dc_ep_param(t, ep);
	nv = cur;
	if (!nv_recv_flags(t, &cur, &nv))
		DC_UNRESOLVED("set-up: the provider supports no second Receive completion flag value");
	dc_snapshot(t, DC_OBJ_EP, ep, &before);
	DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, &nv),
		      DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&before);
	ASSERT_RECV_IDLE(ep, DAT_FALSE);
}

DC_CASE(dat_ep_modify, recv_completion_flags_request_only,
	.summary = "suppress and barrier-fence are not valid Receive completion flags")
{
	static const DAT_COMPLETION_FLAGS bad[] = {
		DAT_COMPLETION_SUPPRESS_FLAG, DAT_COMPLETION_BARRIER_FENCE_FLAG,
	};
	struct dc_endpoint e;
	DAT_EP_HANDLE ep = plain_ep(t, &e);

	for (size_t i = 0; i < 2; i++) {
		DAT_EP_PARAM nv = dc_ep_param(t, ep);
		struct dc_snap before;

		nv.ep_attr.recv_completion_flags = bad[i];
		dc_snapshot(t, DC_OBJ_EP, ep, &before);
		DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, &nv),
			      DAT_INVALID_PARAMETER);
		DC_ASSERT_UNCHANGED(&before);
	}
}

DC_CASE(dat_ep_modify, request_completion_flags_values,
	.summary = "unsignalled Request completions can be selected; undefined bits cannot",
	.requires = "completion_flags_supported&4")
{
	struct dc_endpoint e;
	DAT_EP_HANDLE ep = plain_ep(t, &e);
	DAT_EP_PARAM nv = dc_ep_param(t, ep), q;
	struct dc_snap before;

	nv.ep_attr.request_completion_flags = DAT_COMPLETION_UNSIGNALLED_FLAG;
	DC_ASSERT_SUCCESS(dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, &nv));
	q = DC_EP_PARAM(ep);
	DC_ASSERT_EQ(q.ep_attr.request_completion_flags, DAT_COMPLETION_UNSIGNALLED_FLAG);

	nv = q;
	nv.ep_attr.request_completion_flags = 0x80;
	dc_snapshot(t, DC_OBJ_EP, ep, &before);
	DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, &nv),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&before);
}

/*
 * The EVDs dat_ep_modify gave an Unconnected EP are the ones its events go
 * to (dat_ep_modify(3DAT) DESCRIPTION: the parameters are changed, and the
 * EVD parameters are where the EP's streams are reported, dat_ep_create(3DAT)
 * PARAMETERS): the connection's ESTABLISHED, a Receive's and a Send's
 * completions each come on the new EVD, none on the one it had before.  A
 * provider whose completion queues are fixed at creation and which only
 * reports the new handles fails here.
 */
DC_CASE(dat_ep_modify, evd_handles_used,
	.clauses = "dat_ep_modify.recv_evd_handle_allowed_states dat_ep_modify.request_evd_handle_allowed_states "
		   "dat_ep_modify.connect_evd_handle_allowed_states",
	.summary = "recv, request and connect EVDs changed while Unconnected: ESTABLISHED, Receive and Send completions come on the new EVDs, nothing on the old")
{
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	DAT_EVD_HANDLE old_recv, old_req, old_conn, cr;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q;
	DAT_EP_PARAM nv;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dc_endpoint(t, &a, NULL);
	dc_endpoint(t, &b, NULL);
	old_recv = a.recv_evd;
	old_req = a.req_evd;
	old_conn = a.conn_evd;
	nv = dc_ep_param(t, a.ep);
	nv.recv_evd_handle = a.recv_evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	nv.request_evd_handle = a.req_evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	nv.connect_evd_handle = a.conn_evd = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DC_ASSERT_SUCCESS(dat_ep_modify(a.ep, DAT_EP_FIELD_RECV_EVD_HANDLE |
					DAT_EP_FIELD_REQUEST_EVD_HANDLE |
					DAT_EP_FIELD_CONNECT_EVD_HANDLE, &nv));
	dc_lmr(t, a.pz, 4096, DC_PRIV_LOCAL, &ma);
	dc_lmr(t, b.pz, 4096, DC_PRIV_LOCAL, &mb);
	dc_post_recv(t, a.ep, &ma, 0, 256, 1);
	q = dc_psp_any(t, DAT_PSP_CONSUMER_FLAG, &cr, &psp);
	DC_SETUP(dc_connect_to_self(t, a.ep, q, 0, 0, NULL));
	DC_SETUP(dat_cr_accept(dc_await_cr(t, cr, NULL), b.ep, 0, NULL));
	dc_await_event(t, b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	DC_ASSERT_CONN_EVENT(a.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, a.ep);
	dc_post_recv(t, b.ep, &mb, 0, 256, 2);
	dc_post_send(t, b.ep, &mb, 512, 64, 3);		/* into a's Receive */
	DC_ASSERT_DTO(a.recv_evd, 1, DAT_DTO_SUCCESS);
	dc_post_send(t, a.ep, &ma, 512, 64, 4);		/* a's own Send */
	DC_ASSERT_DTO(a.req_evd, 4, DAT_DTO_SUCCESS);
	DC_ASSERT_NO_EVENT(old_recv);
	DC_ASSERT_NO_EVENT(old_req);
	DC_ASSERT_NO_EVENT(old_conn);
}

DC_CASE(dat_ep_modify, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DAT_EP_PARAM nv;

	memset(&nv, 0, sizeof(nv));
	nv.ep_attr.max_recv_dtos = 2;
	DC_ASSERT_INVALID_HANDLE(dat_ep_modify((DAT_EP_HANDLE)dc_wrong_handle(t),
				    DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &nv), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_modify, invalid_handle_freed,
	.clauses = "dat_ep_modify.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	DAT_EP_PARAM nv;

	memset(&nv, 0, sizeof(nv));
	nv.ep_attr.max_recv_dtos = 2;
	DC_ASSERT_INVALID_HANDLE(dat_ep_modify(dc_freed_ep(t), DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &nv), 1, EP);
}

DC_CASE(dat_ep_modify, invalid_mask,
	.summary = "mask bits that name no EP parameter are invalid")
{
	/*
	 * The lowest bit the headers' DAT_EP_FIELD_ALL leaves out (0x800 in
	 * DAT 1.2; in DAT 2.0 0x800 is DAT_EP_FIELD_SRQ_HANDLE, a real field),
	 * and one far above every field.
	 */
	DAT_EP_PARAM_MASK bad[2] = { 0, (DAT_EP_PARAM_MASK)1 << 40 };
	struct dc_endpoint e;
	DAT_EP_HANDLE ep = plain_ep(t, &e);

	while (!bad[0] || (bad[0] & (DAT_EP_PARAM_MASK)DAT_EP_FIELD_ALL))
		bad[0] = bad[0] ? bad[0] << 1 : 1;
	for (size_t i = 0; i < 2; i++) {
		DAT_EP_PARAM nv = dc_ep_param(t, ep);
		struct dc_snap before;

		dc_snapshot(t, DC_OBJ_EP, ep, &before);
		dc_note(t, "mask 0x%llx", (unsigned long long)bad[i]);
		DC_ASSERT_RET(dat_ep_modify(ep, bad[i], &nv), DAT_INVALID_PARAMETER);
		DC_ASSERT_UNCHANGED(&before);
	}
}

DC_CASE(dat_ep_modify, invalid_value,
	.summary = "values beyond the IA limits, unknown service types and unsupported QoS are refused")
{
	struct dc_endpoint e;
	DAT_EP_HANDLE ep = plain_ep(t, &e);
	const DAT_IA_ATTR *ia = &t->ia_attr;
	struct {
		DAT_EP_PARAM_MASK mask;
		const char *what;
		int which;
	} tries[] = {
		{ DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, "max_recv_dtos above max_dto_per_ep", 0 },
		{ DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, "max_request_iov above max_iov_segments_per_dto", 1 },
		{ DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, "max_message_size above the IA's", 2 },
		{ DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, "service_type not RC", 3 },
		{ DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, "negative max_recv_dtos", 4 },
		{ DAT_EP_FIELD_EP_ATTR_QOS, "a QoS bit outside dat_qos_supported", 5 },
		{ DAT_EP_FIELD_EP_ATTR_QOS, "a QoS bit no DAT_QOS class has", 6 },
		{ DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, "max_recv_iov above max_iov_segments_per_dto", 7 },
		{ DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR, "negative ep_transport_specific_count", 8 },
		{ DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR, "negative ep_provider_specific_count", 9 },
		/* the rest of the attributes the page lets change on an
		 * Unconnected EP that an IA maximum bounds (dat_ia_query(3DAT)) */
		{ DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, "max_request_dtos above max_dto_per_ep", 10 },
		{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, "max_rdma_size above the IA's", 11 },
		{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, "max_rdma_read_in above max_rdma_read_per_ep_in", 12 },
		{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, "max_rdma_read_out above max_rdma_read_per_ep_out", 13 },
	};

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		DAT_EP_PARAM nv = dc_ep_param(t, ep);
		struct dc_snap before;

		switch (tries[i].which) {
		case 0:
			if (ia->max_dto_per_ep <= 0 || ia->max_dto_per_ep == INT32_MAX)
				continue;
			nv.ep_attr.max_recv_dtos = ia->max_dto_per_ep + 1;
			break;
		case 1:
		case 7:
			if (ia->max_iov_segments_per_dto <= 0 ||
			    ia->max_iov_segments_per_dto == INT32_MAX)
				continue;
			*(tries[i].which == 1 ? &nv.ep_attr.max_request_iov
					      : &nv.ep_attr.max_recv_iov) = ia->max_iov_segments_per_dto + 1;
			break;
		case 2:
			if (!ia->max_message_size || !DC_BELOW_TYPE_MAX(ia->max_message_size))
				continue;
			nv.ep_attr.max_message_size = ia->max_message_size + 1;
			break;
		case 3:
			nv.ep_attr.service_type = (DAT_SERVICE_TYPE)7;
			break;
		case 4:
			nv.ep_attr.max_recv_dtos = -1;
			break;
		case 5: {
			DAT_QOS all = DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY |
				      DAT_QOS_ECONOMY | DAT_QOS_PREMIUM;
			DAT_QOS missing = all & ~t->prov_attr.dat_qos_supported;

			if (!missing)
				continue;
			nv.ep_attr.qos = missing & -missing;	/* lowest missing bit */
			break;
		}
		case 6:
			nv.ep_attr.qos = (DAT_QOS)(DAT_QOS_PREMIUM << 1);
			break;
		case 8:
			nv.ep_attr.ep_transport_specific_count = -1;
			break;
		case 9:
			nv.ep_attr.ep_provider_specific_count = -1;
			break;
		case 10:
			if (ia->max_dto_per_ep <= 0 || ia->max_dto_per_ep == INT32_MAX)
				continue;
			nv.ep_attr.max_request_dtos = ia->max_dto_per_ep + 1;
			break;
		case 11:
			if (!ia->max_rdma_size || !DC_BELOW_TYPE_MAX(ia->max_rdma_size))
				continue;
			nv.ep_attr.max_rdma_size = ia->max_rdma_size + 1;
			break;
		case 12:
			if (ia->max_rdma_read_per_ep_in < 0 || ia->max_rdma_read_per_ep_in == INT32_MAX)
				continue;
			nv.ep_attr.max_rdma_read_in = ia->max_rdma_read_per_ep_in + 1;
			break;
		case 13:
			if (ia->max_rdma_read_per_ep_out < 0 || ia->max_rdma_read_per_ep_out == INT32_MAX)
				continue;
			nv.ep_attr.max_rdma_read_out = ia->max_rdma_read_per_ep_out + 1;
			break;
		}
		dc_note(t, "%s", tries[i].what);
		dc_snapshot(t, DC_OBJ_EP, ep, &before);
		DC_ASSERT_RET(dat_ep_modify(ep, tries[i].mask, &nv), DAT_INVALID_PARAMETER);
		DC_ASSERT_UNCHANGED(&before);
	}
	/* the other side of the limits: exactly the IA's maximum is a valid
	 * value (dat_ia_query(3DAT): the most an EP supports), not an invalid
	 * parameter; the EP is Unconnected, where each may change */
	for (int which = 0; which < 8; which++) {
		static const char *const names[] = {
			"max_recv_dtos", "max_request_iov", "max_message_size", "max_recv_iov",
			"max_request_dtos", "max_rdma_size", "max_rdma_read_in", "max_rdma_read_out",
		};
		DAT_EP_PARAM nv = dc_ep_param(t, ep);
		DAT_EP_PARAM_MASK mask;

		if (which == 0 && ia->max_dto_per_ep > 0) {
			nv.ep_attr.max_recv_dtos = ia->max_dto_per_ep;
			mask = DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS;
		} else if (which == 1 && ia->max_iov_segments_per_dto > 0) {
			nv.ep_attr.max_request_iov = ia->max_iov_segments_per_dto;
			mask = DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV;
		} else if (which == 2 && ia->max_message_size) {
			nv.ep_attr.max_message_size = ia->max_message_size;
			mask = DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE;
		} else if (which == 3 && ia->max_iov_segments_per_dto > 0) {
			nv.ep_attr.max_recv_iov = ia->max_iov_segments_per_dto;
			mask = DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV;
		} else if (which == 4 && ia->max_dto_per_ep > 0) {
			nv.ep_attr.max_request_dtos = ia->max_dto_per_ep;
			mask = DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS;
		} else if (which == 5 && ia->max_rdma_size) {
			nv.ep_attr.max_rdma_size = ia->max_rdma_size;
			mask = DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE;
		} else if (which == 6 && ia->max_rdma_read_per_ep_in > 0) {
			nv.ep_attr.max_rdma_read_in = ia->max_rdma_read_per_ep_in;
			mask = DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN;
		} else if (which == 7 && ia->max_rdma_read_per_ep_out > 0) {
			nv.ep_attr.max_rdma_read_out = ia->max_rdma_read_per_ep_out;
			mask = DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT;
		} else {
			continue;
		}
		dc_note(t, "%s exactly at the IA's limit", names[which]);
		DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_modify(ep, mask, &nv));
	}
}

DC_CASE(dat_ep_modify, invalid_handle_in_param,
	.summary = "a dead or wrong-kind handle inside ep_param is an invalid parameter")
{
	struct dc_endpoint e;
	DAT_EP_HANDLE ep = plain_ep(t, &e);
	DAT_EP_PARAM nv = dc_ep_param(t, ep);
	struct dc_snap before;

	nv.pz_handle = dc_freed_pz(t);
	dc_snapshot(t, DC_OBJ_EP, ep, &before);
	DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_PZ_HANDLE, &nv), DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&before);

	nv = dc_ep_param(t, ep);
	nv.recv_evd_handle = (DAT_EVD_HANDLE)dc_pz(t);
	DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &nv),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&before);
}

DC_CASE(dat_ep_modify, evd_wrong_kind,
	.summary = "an EVD not made for the stream it is given for is an invalid parameter")
{
	struct dc_endpoint e;
	DAT_EP_HANDLE ep = plain_ep(t, &e);
	DAT_EP_PARAM nv = dc_ep_param(t, ep);
	struct dc_snap before;

	dc_snapshot(t, DC_OBJ_EP, ep, &before);
	nv.connect_evd_handle = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_CONNECT_EVD_HANDLE, &nv),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&before);

	nv = dc_ep_param(t, ep);
	nv.recv_evd_handle = dc_evd(t, 16, DAT_EVD_CR_FLAG);
	DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_RECV_EVD_HANDLE, &nv),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&before);
}

DC_CASE(dat_ep_modify, mixed_mask_atomic,
	.summary = "a refused modify leaves the other requested parameters unchanged too")
{
	struct dc_endpoint e;
	DAT_EP_HANDLE ep = plain_ep(t, &e);
	DAT_EP_PARAM cur = dc_ep_param(t, ep), nv = cur;
	struct dc_snap before;
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;

	nv_max_recv_dtos(t, &cur, &nv);
	nv.local_port_qual += 1;
	dc_snapshot(t, DC_OBJ_EP, ep, &before);
	DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS |
					    DAT_EP_FIELD_LOCAL_PORT_QUAL, &nv),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&before);

	dc_rsp_any(t, ep, dc_evd(t, 4, DAT_EVD_CR_FLAG), &q, &rsp);
	cur = dc_ep_param(t, ep);
	nv = cur;
	nv_max_recv_dtos(t, &cur, &nv);
	nv.pz_handle = dc_pz(t);
	dc_snapshot(t, DC_OBJ_EP, ep, &before);
	DC_ASSERT_RET(dat_ep_modify(ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS |
					    DAT_EP_FIELD_PZ_HANDLE, &nv),
		      DAT_INVALID_STATE);
	DC_ASSERT_UNCHANGED(&before);
}

/*
 * ---- the states reached each way (ep_ways.h) ----------------------------------------
 *
 * The rows above reach CONNECTED as the active EP of dat_ep_connect and
 * UNCONNECTED as a new EP.  The page's table speaks of the state only, so
 * the same cells hold for an EP connected as the active EP of
 * dat_ep_dup_connect or as each kind of accepting EP, and for one that is
 * Unconnected again after a reset (dat_ep_reset(3DAT)).  Three parameters
 * of two rows: the PZ (quiescent states only) and the connect EVD and
 * Maximum Recv DTO (pre-connection states).  The new PZ or EVD is made for
 * the call and freed after the way.
 */
struct way_mparam {
	const struct mparam *mp;
	const char *allowed;		/* its <param>_allowed_states clause */
};
static const struct way_mparam way_params[] = {
	{ &P_pz_handle, "dat_ep_modify.pz_handle_allowed_states" },
	{ &P_connect_evd_handle, "dat_ep_modify.connect_evd_handle_allowed_states" },
	{ &P_max_recv_dtos, "dat_ep_modify.max_recv_dtos_allowed_states" },
};

/* A valid new value of way_params[k] into nv; the object made for it, if any,
 * into *made (freed by the caller). */
static void way_new_value(struct dc_ctx *t, int k, const DAT_EP_PARAM *cur, DAT_EP_PARAM *nv,
			  DAT_HANDLE *made)
{
	*made = DAT_HANDLE_NULL;
	if (way_params[k].mp == &P_pz_handle)
		*made = nv->pz_handle = dc_pz(t);
	else if (way_params[k].mp == &P_connect_evd_handle)
		*made = nv->connect_evd_handle = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	else
		way_params[k].mp->new_value(t, cur, nv);
}

static void way_free_made(struct dc_ctx *t, int k, DAT_HANDLE made)
{
	if (!made)
		return;
	if (way_params[k].mp == &P_pz_handle)
		DC_CLEANUP(dat_pz_free(made));
	else
		DC_CLEANUP(dat_evd_free(made));
}

DC_CASE(dat_ep_modify, connected_each_way_forbidden,
	.clauses = "dat_ep_modify.pz_handle_forbidden_states "
		   "dat_ep_modify.connect_evd_handle_forbidden_states "
		   "dat_ep_modify.max_recv_dtos_forbidden_states",
	.summary = "the PZ, connect EVD and max_recv_dtos of an EP connected each way (connect, "
		   "dup_connect, consumer PSP, Provider EP, RSP, handoff): refused, nothing moves")
{
	for (int k = 0; k < (int)N_OF(way_params); k++) {
		const struct mparam *mp = way_params[k].mp;

		DC_FOR_CLAUSE(mp->forbidden);
		dc_note(t, "%s", mp->name);
		for (int way = 0; way < CONNECTED_WAYS; way++) {
			struct way_conn w;
			struct dc_snap before;
			DAT_EP_PARAM cur, nv;
			DAT_HANDLE made;

			if (!way_reach(&w, way))
				continue;
			cur = dc_ep_param(t, w.s.ep);
			nv = cur;
			way_new_value(t, k, &cur, &nv, &made);
			dc_snapshot(t, DC_OBJ_EP, w.s.ep, &before);
			DC_ASSERT_RET(dat_ep_modify(w.s.ep, mp->mask, &nv), DAT_INVALID_STATE);
			DC_ASSERT_UNCHANGED(&before);
			way_down(t, &w);
			way_free_made(t, k, made);
		}
	}
}

DC_CASE(dat_ep_modify, unconnected_by_reset_each_way_allowed,
	.clauses = "dat_ep_modify.pz_handle_allowed_states "
		   "dat_ep_modify.connect_evd_handle_allowed_states "
		   "dat_ep_modify.max_recv_dtos_allowed_states",
	.summary = "the PZ, connect EVD and max_recv_dtos of an EP connected each way (or rejected), "
		   "disconnected and reset, change as asked and nothing else moves")
{
	for (int k = 0; k < (int)N_OF(way_params); k++) {
		const struct mparam *mp = way_params[k].mp;

		DC_FOR_CLAUSE(way_params[k].allowed);
		dc_note(t, "%s, each way then reset", mp->name);
		/* the rejected connect stands for both ways to Disconnected without
		 * a connection: a timed-out one takes ~10 s per round on siw0, and
		 * three rounds would outlast the case's 30 s */
		for (int way = 0; way < WAY_TIMED_OUT; way++) {
			struct way_conn w;
			struct dc_snap before;
			DAT_EP_PARAM cur, nv, q;
			DAT_HANDLE made;

			if (!way_reach(&w, way))
				continue;
			if (way < CONNECTED_WAYS)
				way_peer_ends(&w);
			await_state(w.s.ep, DAT_EP_STATE_DISCONNECTED, 2000);
			DC_SETUP(dat_ep_reset(w.s.ep));
			await_state(w.s.ep, DAT_EP_STATE_UNCONNECTED, 2000);
			cur = dc_ep_param(t, w.s.ep);
			nv = cur;
			way_new_value(t, k, &cur, &nv, &made);
			dc_snapshot(t, DC_OBJ_EP, w.s.ep, &before);
			DC_ASSERT_SUCCESS(dat_ep_modify(w.s.ep, mp->mask, &nv));
			q = DC_EP_PARAM(w.s.ep);
			DC_ASSERT(mp->shows(&q, &nv),
				  "after a successful dat_ep_modify, %s does not show the new value",
				  mp->name);
			DC_ASSERT_UNCHANGED_EXCEPT(&before, mp->name);
			/* the EP now holds the new PZ or EVD and the way's old one is free */
			DC_CLEANUP(dat_ep_free(w.s.ep));
			w.s.ep = DAT_HANDLE_NULL;
			way_down(t, &w);
			way_free_made(t, k, made);
		}
	}
}
