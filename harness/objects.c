// SPDX-License-Identifier: MIT
/*
 * objects.c - dc_objects.h: more objects, parameters, freed handles and
 * the invalid-handle rule.
 */
#include "datcts.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *dc_ret_text(DAT_RETURN r)
{
	/* a few at a time fit in one message */
	static __thread char buf[8][200];
	static __thread unsigned int next;

	next = (next + 1) % 8;
	return dc_ret_str(r, buf[next], sizeof(buf[next]));
}

DAT_DTO_COOKIE dc_cookie(uint64_t v)
{
	DAT_DTO_COOKIE c;

	memset(&c, 0, sizeof(c));
	c.as_64 = v;
	return c;
}

#define setup_call dc_setup_call_at

DAT_CNO_HANDLE dc_cno_at(struct dc_ctx *t, const char *file, int line,
			 DAT_OS_WAIT_PROXY_AGENT agent)
{
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;

	setup_call(t, file, line, dat_cno_create(t->ia, agent, &cno),
		   "dat_cno_create");
	return cno;
}

void dc_evd_set_cno_at(struct dc_ctx *t, const char *file, int line,
		       DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno)
{
	DAT_RETURN r = dat_evd_modify_cno(evd, cno);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_evd_modify_cno returned %s", dc_ret_text(r));
}

DAT_CNO_HANDLE dc_evd_new_cno_at(struct dc_ctx *t, const char *file, int line,
				 DAT_EVD_HANDLE evd)
{
	DAT_CNO_HANDLE cno = dc_cno_at(t, file, line, DAT_OS_WAIT_PROXY_AGENT_NULL);

	dc_evd_set_cno_at(t, file, line, evd, cno);
	return cno;
}

bool dc_streams_merge(struct dc_ctx *t, DAT_EVD_FLAGS flags)
{
	static const DAT_EVD_FLAGS row[6] = {
		DAT_EVD_SOFTWARE_FLAG, DAT_EVD_CR_FLAG, DAT_EVD_DTO_FLAG,
		DAT_EVD_CONNECTION_FLAG, DAT_EVD_RMR_BIND_FLAG, DAT_EVD_ASYNC_FLAG,
	};

	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++)
			if ((flags & row[i]) && (flags & row[j]) &&
			    t->prov_attr.evd_stream_merging_supported[i][j] != DAT_TRUE)
				return false;
	return true;
}

void dc_need_streams_merge_at(struct dc_ctx *t, const char *file, int line,
			      DAT_EVD_FLAGS flags)
{
	char what[96];

	if (dc_streams_merge(t, flags))
		return;
	snprintf(what, sizeof(what), "evd_stream_merging_supported for the streams of flags 0x%x",
		 (unsigned int)flags);
	dc_need_limit_at(t, file, line, what, 0, 1);
}

DAT_EVD_HANDLE dc_evd_with_cno_at(struct dc_ctx *t, const char *file, int line,
				  DAT_COUNT qlen, DAT_EVD_FLAGS flags,
				  DAT_CNO_HANDLE cno)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_RETURN r;

	/* as dc_evd: a queue longer than the IA has is the case's need */
	dc_need_reported_limit_at(t, file, line, "max_evd_qlen", t->ia_attr.max_evd_qlen, qlen);
	r = dat_evd_create(t->ia, qlen, cno, flags, &evd);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_evd_create(qlen %d, flags 0x%x, cno %p) returned %s",
			  (int)qlen, (unsigned int)flags, cno, dc_ret_text(r));
	return evd;
}

DAT_RMR_HANDLE dc_rmr_at(struct dc_ctx *t, const char *file, int line,
			 DAT_PZ_HANDLE pz)
{
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;

	/* an IA without RMRs is legal (dat_ia_query(3DAT): Max RMRs) */
	dc_need_limit_at(t, file, line, "max_rmrs", t->ia_attr.max_rmrs, 1);
	setup_call(t, file, line, dat_rmr_create(pz, &rmr), "dat_rmr_create");
	return rmr;
}

/* ---- parameters ------------------------------------------------------------ */

static void query_done(struct dc_ctx *t, const char *file, int line,
		       enum dc_state on_miss, DAT_RETURN r, const char *call)
{
	if (r != DAT_SUCCESS)
		dc_end_at(t, on_miss, file, line, false, "%s%s returned %s",
			  on_miss == DC_UNRESOLVED ? "set-up " : "", call,
			  dc_ret_text(r));
}

DAT_EP_PARAM dc_ep_param_at(struct dc_ctx *t, const char *file, int line,
			    DAT_EP_HANDLE ep, enum dc_state on_miss)
{
	DAT_EP_PARAM p;

	memset(&p, 0, sizeof(p));
	query_done(t, file, line, on_miss, dat_ep_query(ep, DAT_EP_FIELD_ALL, &p),
		   "dat_ep_query(DAT_EP_FIELD_ALL)");
	return p;
}

DAT_EVD_PARAM dc_evd_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_EVD_HANDLE evd, enum dc_state on_miss)
{
	DAT_EVD_PARAM p;

	memset(&p, 0, sizeof(p));
	query_done(t, file, line, on_miss, dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p),
		   "dat_evd_query(DAT_EVD_FIELD_ALL)");
	return p;
}

DAT_CNO_PARAM dc_cno_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_CNO_HANDLE cno, enum dc_state on_miss)
{
	DAT_CNO_PARAM p;

	memset(&p, 0, sizeof(p));
	query_done(t, file, line, on_miss, dat_cno_query(cno, DAT_CNO_FIELD_ALL, &p),
		   "dat_cno_query(DAT_CNO_FIELD_ALL)");
	return p;
}

DAT_SRQ_PARAM dc_srq_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_SRQ_HANDLE srq, enum dc_state on_miss)
{
	DAT_SRQ_PARAM p;

	memset(&p, 0, sizeof(p));
	query_done(t, file, line, on_miss, dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p),
		   "dat_srq_query(DAT_SRQ_FIELD_ALL)");
	return p;
}

DAT_LMR_PARAM dc_lmr_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_LMR_HANDLE lmr)
{
	DAT_LMR_PARAM p;

	memset(&p, 0, sizeof(p));
	query_done(t, file, line, DC_UNRESOLVED,
		   dat_lmr_query(lmr, DAT_LMR_FIELD_ALL, &p),
		   "dat_lmr_query(DAT_LMR_FIELD_ALL)");
	return p;
}

DAT_RMR_PARAM dc_rmr_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_RMR_HANDLE rmr)
{
	DAT_RMR_PARAM p;

	memset(&p, 0, sizeof(p));
	query_done(t, file, line, DC_UNRESOLVED,
		   dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p),
		   "dat_rmr_query(DAT_RMR_FIELD_ALL)");
	return p;
}

/* ---- freed handles ---------------------------------------------------------- */

DAT_EP_HANDLE dc_freed_ep_at(struct dc_ctx *t, const char *file, int line)
{
	DAT_EP_ATTR a;
	DAT_EP_HANDLE ep;

	dc_ep_attr_no_dtos(t, &a);
	ep = dc_ep_at(t, file, line, DAT_HANDLE_NULL, DAT_HANDLE_NULL, DAT_HANDLE_NULL,
		      DAT_HANDLE_NULL, DAT_HANDLE_NULL, &a);
	setup_call(t, file, line, dat_ep_free(ep), "dat_ep_free");
	return ep;
}

DAT_EVD_HANDLE dc_freed_evd_at(struct dc_ctx *t, const char *file, int line,
			       DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd = dc_evd_at(t, file, line, 4, flags);

	setup_call(t, file, line, dat_evd_free(evd), "dat_evd_free");
	return evd;
}

DAT_PZ_HANDLE dc_freed_pz_at(struct dc_ctx *t, const char *file, int line)
{
	DAT_PZ_HANDLE pz = dc_pz_at(t, file, line);

	setup_call(t, file, line, dat_pz_free(pz), "dat_pz_free");
	return pz;
}

/* ---- the invalid-handle rule -------------------------------------------------- */

static const struct {
	enum dc_handle_kind kind;
	DAT_RETURN_SUBTYPE sub;
	const char *name;
} kind_subtypes[] = {
	{ DC_HANDLE_IA, DAT_INVALID_HANDLE_IA, "DAT_INVALID_HANDLE_IA" },
	{ DC_HANDLE_EP, DAT_INVALID_HANDLE_EP, "DAT_INVALID_HANDLE_EP" },
	{ DC_HANDLE_LMR, DAT_INVALID_HANDLE_LMR, "DAT_INVALID_HANDLE_LMR" },
	{ DC_HANDLE_RMR, DAT_INVALID_HANDLE_RMR, "DAT_INVALID_HANDLE_RMR" },
	{ DC_HANDLE_PZ, DAT_INVALID_HANDLE_PZ, "DAT_INVALID_HANDLE_PZ" },
	{ DC_HANDLE_PSP, DAT_INVALID_HANDLE_PSP, "DAT_INVALID_HANDLE_PSP" },
	{ DC_HANDLE_RSP, DAT_INVALID_HANDLE_RSP, "DAT_INVALID_HANDLE_RSP" },
	{ DC_HANDLE_CR, DAT_INVALID_HANDLE_CR, "DAT_INVALID_HANDLE_CR" },
	{ DC_HANDLE_CNO, DAT_INVALID_HANDLE_CNO, "DAT_INVALID_HANDLE_CNO" },
	{ DC_HANDLE_SRQ, DAT_INVALID_HANDLE_SRQ, "DAT_INVALID_HANDLE_SRQ" },
	{ DC_HANDLE_EVD_CR, DAT_INVALID_HANDLE_EVD_CR, "DAT_INVALID_HANDLE_EVD_CR" },
	{ DC_HANDLE_EVD_REQUEST, DAT_INVALID_HANDLE_EVD_REQUEST,
	  "DAT_INVALID_HANDLE_EVD_REQUEST" },
	{ DC_HANDLE_EVD_RECV, DAT_INVALID_HANDLE_EVD_RECV, "DAT_INVALID_HANDLE_EVD_RECV" },
	{ DC_HANDLE_EVD_CONN, DAT_INVALID_HANDLE_EVD_CONN, "DAT_INVALID_HANDLE_EVD_CONN" },
	{ DC_HANDLE_EVD_ASYNC, DAT_INVALID_HANDLE_EVD_ASYNC,
	  "DAT_INVALID_HANDLE_EVD_ASYNC" },
};
#define N_KIND_SUBTYPES ((int)(sizeof(kind_subtypes) / sizeof(kind_subtypes[0])))

static bool is_evd_kind(enum dc_handle_kind k)
{
	return k >= DC_HANDLE_EVD_CR && k <= DC_HANDLE_EVD_ASYNC;
}

/* Does kind subtype entry i name an argument of kind k? */
static bool kind_names(int i, enum dc_handle_kind k)
{
	enum dc_handle_kind ki = kind_subtypes[i].kind;

	if (k == DC_HANDLE_ANY || ki == k)
		return true;
	return k == DC_HANDLE_EVD && is_evd_kind(ki);
}

bool dc_invalid_handle_ok(DAT_RETURN r, int arg, enum dc_handle_kind kind)
{
	DAT_UINT32 sub = DAT_GET_SUBTYPE(r);

	if (DAT_GET_TYPE(r) != DAT_INVALID_HANDLE)
		return false;
	if (sub == DAT_NO_SUBTYPE)
		return true;
	if (arg >= 1 && arg <= 10 &&
	    sub == (DAT_UINT32)DAT_INVALID_HANDLE1 + (DAT_UINT32)(arg - 1))
		return true;
	for (int i = 0; i < N_KIND_SUBTYPES; i++)
		if (sub == (DAT_UINT32)kind_subtypes[i].sub)
			return kind_names(i, kind);
	return false;
}

void dc_assert_invalid_handle_at(struct dc_ctx *t, const char *file, int line,
				 const char *expr, DAT_RETURN got, int arg,
				 enum dc_handle_kind kind)
{
	char allowed[512];
	size_t n;

	if (dc_invalid_handle_ok(got, arg, kind))
		return;
	n = (size_t)snprintf(allowed, sizeof(allowed), "DAT_NO_SUBTYPE, DAT_INVALID_HANDLE%d",
			     arg);
	for (int i = 0; i < N_KIND_SUBTYPES && n < sizeof(allowed); i++)
		if (kind_names(i, kind))
			n += (size_t)snprintf(allowed + n, sizeof(allowed) - n, ", %s",
					      kind_subtypes[i].name);
	if (DAT_GET_TYPE(got) != DAT_INVALID_HANDLE)
		dc_end_at(t, DC_FAIL, file, line, false,
			  "%s: expected DAT_INVALID_HANDLE, got %s", expr,
			  dc_ret_text(got));
	dc_end_at(t, DC_FAIL, file, line, false,
		  "%s: DAT_INVALID_HANDLE with a subtype that names another handle: got %s; "
		  "argument %d allows %s", expr, dc_ret_text(got), arg, allowed);
}

/* ---- a call from the agent upcall of an abrupt dat_ia_close ---------------- */

/*
 * The upcall hands the call to a thread of its own and waits for it a
 * while, so that a provider that makes the upcall under a lock of its own
 * delays the call rather than hanging the close; such a late call is not
 * judged.
 */
struct close_call {
	DAT_IA_HANDLE ia;
	void (*fn)(DAT_IA_HANDLE ia, void *arg);
	void *arg;
	bool ran, started;
	int done;
	pthread_t th;
};

static void *close_call_main(void *arg)
{
	struct close_call *c = arg;

	c->fn(c->ia, c->arg);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void close_call_upcall(DAT_PVOID instance, DAT_EVD_HANDLE evd)
{
	struct close_call *c = instance;
	double until = dc_now_ms() + 2000.0;

	if (evd != DAT_HANDLE_NULL || c->ran)
		return;
	c->ran = true;
	c->started = pthread_create(&c->th, NULL, close_call_main, c) == 0;
	while (c->started && !__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) && dc_now_ms() < until)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
}

void dc_close_with_agent_call_at(struct dc_ctx *t, const char *file, int line,
				 DAT_IA_HANDLE ia, void (*fn)(DAT_IA_HANDLE ia, void *arg),
				 void *arg)
{
	static struct close_call c;
	DAT_OS_WAIT_PROXY_AGENT agent;
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	DAT_RETURN r;
	bool in_time;

	c = (struct close_call){ .ia = ia, .fn = fn, .arg = arg };
	agent.instance_data = &c;
	agent.proxy_agent_func = close_call_upcall;
	r = dat_cno_create(ia, agent, &cno);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_cno_create with an agent returned %s", dc_ret_text(r));
	r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	in_time = __atomic_load_n(&c.done, __ATOMIC_ACQUIRE) != 0;
	if (c.started)
		pthread_join(c.th, NULL);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: dat_ia_close(DAT_CLOSE_ABRUPT_FLAG) returned %s", dc_ret_text(r));
	if (!c.ran || !c.started)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the abrupt dat_ia_close made no agent upcall to call from");
	if (!in_time)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the call from the close's agent upcall did not return while the close ran");
}
