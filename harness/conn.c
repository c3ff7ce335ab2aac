// SPDX-License-Identifier: MIT
/* conn.c - dc_conn.h: qualifiers, service points, self-connects, pairs. */
#include "dc_internal.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * A qualifier nobody listens on, and that the case's siblings (other
 * processes of the same run) are unlikely to take before it is used: a
 * provider's dat_psp_create_any may pick the lowest free one for everybody
 * (variant psp-any-from-40000), so a random one is tried first.  A provider
 * that refuses it for another reason than its being in use (a narrower
 * range) gets its own pick.
 */
/* The range dc_free_conn_qual probes in, and a seed that differs between
 * sibling case processes. */
#define PROBED_QUAL_LO 20000
#define PROBED_QUAL_SPAN 40000

static unsigned int qual_seed(void)
{
	return (unsigned int)getpid() ^ (unsigned int)time(NULL);
}

DAT_CONN_QUAL dc_free_conn_qual_at(struct dc_ctx *t, const char *file, int line)
{
	DAT_EVD_HANDLE evd = dc_evd_at(t, file, line, 4, DAT_EVD_CR_FLAG);
	unsigned int seed = qual_seed();
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = 0;
	DAT_RETURN r;

	for (int i = 0; i < 8; i++) {
		q = PROBED_QUAL_LO + (DAT_CONN_QUAL)(rand_r(&seed) % PROBED_QUAL_SPAN);
		r = dat_psp_create(t->ia, q, evd, DAT_PSP_CONSUMER_FLAG, &psp);
		if (r == DAT_SUCCESS && dat_psp_free(psp) == DAT_SUCCESS)
			return q;
		if (DAT_GET_TYPE(r) != DAT_CONN_QUAL_IN_USE)
			break;
	}
	q = 0;
	r = dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &psp);

	if (r == DAT_SUCCESS)
		r = dat_psp_free(psp);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: finding a free qualifier failed: %s", dc_ret_text(r));
	return q;
}

bool dc_qual_busy_retry(DAT_RETURN r, double *until_ms)
{
	double now = dc_now_ms();

	if (DAT_GET_TYPE(r) != DAT_CONN_QUAL_IN_USE)
		return false;
	if (!*until_ms)
		*until_ms = now + 5000;
	if (now >= *until_ms)
		return false;
	usleep(20000);
	return true;
}

bool dc_probed_qual_busy_at(struct dc_ctx *t, const char *file, int line,
			    DAT_RETURN r, double *until_ms)
{
	if (dc_qual_busy_retry(r, until_ms))
		return true;
	if (DAT_GET_TYPE(r) == DAT_CONN_QUAL_IN_USE)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the qualifier dc_free_conn_qual probed was still in use 5 s after "
			  "its PSP was freed (dat_psp_free(3DAT) does not say when it is released)");
	return false;
}

DAT_CONN_QUAL dc_unprobed_conn_qual(void)
{
	static unsigned int calls;	/* each call of a process a qualifier of its own */
	unsigned int seed = qual_seed();

	/* above dc_free_conn_qual's range and Linux's ephemeral ports (to
	 * 60999), where the sibling cases' Service Points are */
	_Static_assert(PROBED_QUAL_LO + PROBED_QUAL_SPAN <= 61000, "ranges overlap");
	return 61000 + (DAT_CONN_QUAL)(((unsigned int)rand_r(&seed) + calls++) % 4500);
}

DAT_CONN_QUAL dc_psp_any_at(struct dc_ctx *t, const char *file, int line,
			    DAT_PSP_FLAGS flags, DAT_EVD_HANDLE *cr_evd,
			    DAT_PSP_HANDLE *psp)
{
	DAT_CONN_QUAL q = 0;
	DAT_RETURN r;

	*cr_evd = dc_evd_at(t, file, line, 16, DAT_EVD_CR_FLAG);
	r = dat_psp_create_any(t->ia, &q, *cr_evd, flags, psp);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_psp_create_any returned %s", dc_ret_text(r));
	return q;
}

void dc_rsp_any_at(struct dc_ctx *t, const char *file, int line, DAT_IA_HANDLE ia,
		   DAT_EP_HANDLE ep, DAT_EVD_HANDLE cr_evd,
		   DAT_CONN_QUAL *qual, DAT_RSP_HANDLE *rsp)
{
	DAT_RETURN r = DAT_SUCCESS;

	/* the qualifier is free when create_any hands it out; another
	 * process may take it before the RSP does: try again */
	for (int tries = 0; tries < 8; tries++) {
		DAT_PSP_HANDLE psp;

		r = dat_psp_create_any(ia, qual, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp);
		if (r != DAT_SUCCESS)
			break;
		r = dat_psp_free(psp);
		if (r != DAT_SUCCESS)
			break;
		r = dat_rsp_create(ia, *qual, ep, cr_evd, rsp);
		if (!dc_ret_is(r, DAT_CONN_QUAL_IN_USE, DC_ANY_SUBTYPE))
			break;
	}
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: reserving an EP on a free qualifier failed: %s",
			  dc_ret_text(r));
}

/*
 * dat_ep_connect to the IA's own address, given as a Consumer that holds a
 * struct sockaddr_in (or _in6) gives it: a heap block of exactly that size,
 * its own for the length of the call.  A provider that reads past the
 * address of its family reads past the block, which the sanitizer builds
 * report (the provider's own ia_address_ptr would hide it).
 */
DAT_RETURN dc_connect_own_address(struct dc_ctx *t, DAT_EP_HANDLE ep,
				  DAT_CONN_QUAL qual, DAT_TIMEOUT timeout_us,
				  DAT_COUNT pd_size, const void *pd)
{
	const struct sockaddr *own = (const struct sockaddr *)t->ia_attr.ia_address_ptr;
	/* another family's size is the provider's to know: its own pointer then */
	size_t len = !own ? 0 : own->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
			       own->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : 0;
	void *addr = len ? malloc(len) : NULL;
	DAT_RETURN r;

	if (addr)
		memcpy(addr, own, len);
	r = dat_ep_connect(ep, addr ? (DAT_IA_ADDRESS_PTR)addr : t->ia_attr.ia_address_ptr,
			   qual, timeout_us, pd_size, (DAT_PVOID)pd,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	free(addr);
	return r;
}

DAT_RETURN dc_connect_to_self(struct dc_ctx *t, DAT_EP_HANDLE ep,
			      DAT_CONN_QUAL qual, DAT_TIMEOUT timeout_us,
			      DAT_COUNT pd_size, const void *pd)
{
	return dc_connect_own_address(t, ep, qual,
				      timeout_us ? timeout_us : dc_case_timeout_us(t),
				      pd_size, pd);
}

/* A connection event on @evd within 2 s, or 0. */
static DAT_EVENT_NUMBER conn_event_within_2s(DAT_EVD_HANDLE evd)
{
	DAT_EVENT ev;
	DAT_COUNT n;

	if (dat_evd_wait(evd, 2000000, 1, &ev, &n) != DAT_SUCCESS)
		return 0;
	return ev.event_number;
}

/*
 * How long a connection to this IA's own address takes to come up, in ms
 * (from dat_ep_connect to both ends' ESTABLISHED), or -1 where it cannot be
 * made.  Raw calls: nothing here may end the case, and all is freed again.
 */
static double measure_connect_ms(struct dc_ctx *t)
{
	DAT_EVD_HANDLE dto = NULL, conn_a = NULL, conn_b = NULL, cr_evd = NULL;
	DAT_PZ_HANDLE pz = NULL;
	DAT_EP_HANDLE a = NULL, b = NULL;
	DAT_PSP_HANDLE psp = NULL;
	DAT_CONN_QUAL q;
	DAT_EVENT ev;
	DAT_COUNT n;
	double t0, ms = -1;
	bool connecting = false;

	if (dat_pz_create(t->ia, &pz) != DAT_SUCCESS ||
	    dat_evd_create(t->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &dto) != DAT_SUCCESS ||
	    dat_evd_create(t->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &conn_a) != DAT_SUCCESS ||
	    dat_evd_create(t->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &conn_b) != DAT_SUCCESS ||
	    dat_evd_create(t->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd) != DAT_SUCCESS ||
	    dat_ep_create(t->ia, pz, dto, dto, conn_a, NULL, &a) != DAT_SUCCESS ||
	    dat_ep_create(t->ia, pz, dto, dto, conn_b, NULL, &b) != DAT_SUCCESS ||
	    dat_psp_create_any(t->ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp) != DAT_SUCCESS)
		goto out;
	t0 = dc_now_ms();
	if (dc_connect_to_self(t, a, q, 2000000, 0, NULL) != DAT_SUCCESS)
		goto out;
	connecting = true;
	if (dat_evd_wait(cr_evd, 2000000, 1, &ev, &n) != DAT_SUCCESS ||
	    ev.event_number != DAT_CONNECTION_REQUEST_EVENT ||
	    dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b, 0, NULL) != DAT_SUCCESS)
		goto out;
	if (conn_event_within_2s(conn_a) == DAT_CONNECTION_EVENT_ESTABLISHED &&
	    conn_event_within_2s(conn_b) == DAT_CONNECTION_EVENT_ESTABLISHED)
		ms = dc_now_ms() - t0;
out:
	if (connecting && dat_ep_disconnect(a, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS) {
		(void)conn_event_within_2s(conn_a);
		(void)conn_event_within_2s(conn_b);
	}
	if (psp)
		(void)dat_psp_free(psp);
	if (b)
		(void)dat_ep_free(b);
	if (a)
		(void)dat_ep_free(a);
	if (cr_evd)
		(void)dat_evd_free(cr_evd);
	if (conn_b)
		(void)dat_evd_free(conn_b);
	if (conn_a)
		(void)dat_evd_free(conn_a);
	if (dto)
		(void)dat_evd_free(dto);
	if (pz)
		(void)dat_pz_free(pz);
	return ms;
}

DAT_TIMEOUT dc_unanswered_timeout_us(struct dc_ctx *t)
{
	struct dc_priv *p = t->priv;
	double ms;

	if (p->unanswered_timeout_us)
		return p->unanswered_timeout_us;
	ms = measure_connect_ms(t);
	if (ms < 0) {
		p->unanswered_timeout_us = 200000;
		dc_note(t, "a connection of this process could not be brought up to time it: "
			"unanswered requests get 200 ms");
	} else {
		p->unanswered_timeout_us = ms * 10 > 50 ? (DAT_TIMEOUT)(ms * 10000) : 50000;
		dc_note(t, "a connection came up in %.1f ms here: unanswered requests get %u ms",
			ms, (unsigned)(p->unanswered_timeout_us / 1000));
	}
	return p->unanswered_timeout_us;
}

void dc_connect_short_for_real_at(struct dc_ctx *t, const char *file, int line, DAT_RETURN r)
{
	struct dc_endpoint e;
	DAT_RETURN valid;

	if (DAT_GET_TYPE(r) != DAT_INSUFFICIENT_RESOURCES)
		return;
	dc_endpoint_at(t, file, line, &e, NULL);
	valid = dc_connect_to_self(t, e.ep, dc_free_conn_qual(t), 0, 0, NULL);
	if (DAT_GET_TYPE(valid) != DAT_INSUFFICIENT_RESOURCES)
		return;
	dc_cause_call(t, "setup", "dat_ep_connect", &valid);
	dc_end_at(t, DC_UNRESOLVED, file, line, false,
		  "the call answered %s, and so does a valid dat_ep_connect from a fresh EP: the "
		  "provider connects nothing here, so the refusal says nothing of the clause",
		  dc_ret_text(r));
}

void dc_pair_up_at(struct dc_ctx *t, const char *file, int line,
		   struct dc_pair *p, DAT_VLEN mem_len, const struct dc_conn_opts *o)
{
	/* a zeroed struct is the defaults, as NULL is; a one-way pair's a
	 * receives nothing and its b sends nothing */
	struct dc_conn_opts oa = o ? *o : (struct dc_conn_opts){ 0 }, ob = oa;
	bool one_way = oa.few_evds & DC_PAIR_ONE_WAY;

	if (one_way) {
		oa.few_evds |= DC_IDLE_RECV;
		ob.few_evds |= DC_IDLE_REQUEST;
	}
	memset(p, 0, sizeof(*p));
	if (mem_len || one_way) {
		dc_endpoint_at(t, file, line, &p->a, &oa);
		dc_endpoint_at(t, file, line, &p->b, &ob);
	}
	if (mem_len) {
		dc_lmr_at(t, file, line, p->a.pz, mem_len, DAT_MEM_PRIV_ALL_FLAG, &p->ma);
		dc_lmr_at(t, file, line, p->b.pz, mem_len, DAT_MEM_PRIV_ALL_FLAG, &p->mb);
	}
	dc_connect_local_at(t, file, line, &p->a, &p->b, &ob);
}

void dc_conn_qual_range_at(struct dc_ctx *t, const char *file, int line,
			   DAT_CONN_QUAL *lo, DAT_CONN_QUAL *hi)
{
	const char *v = dc_provider_attr_at(t, file, line, "datcts.conn_qual_range");
	unsigned long long a, b;
	int n = 0;

	if (sscanf(v, "%llu-%llu%n", &a, &b, &n) != 2 || v[n] || a > b)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "provider attribute datcts.conn_qual_range is \"%s\", not LOW-HIGH", v);
	*lo = (DAT_CONN_QUAL)a;
	*hi = (DAT_CONN_QUAL)b;
}

bool dc_same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	if (!a || !b || a->sa_family != b->sa_family)
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

void dc_endpoint_down(struct dc_ctx *t, struct dc_endpoint *e)
{
	if (e->ep)
		DC_CLEANUP(dat_ep_free(e->ep));
	if (e->psp)
		DC_CLEANUP(dat_psp_free(e->psp));
	/* the case's shared EVDs (few_evds) outlive each endpoint */
	if (e->cr_evd && e->cr_evd != t->priv->shared_cr_evd)
		DC_CLEANUP(dat_evd_free(e->cr_evd));
	if (e->conn_evd)
		DC_CLEANUP(dat_evd_free(e->conn_evd));
	if (e->req_evd && e->req_evd != t->priv->idle_dto_evd)
		DC_CLEANUP(dat_evd_free(e->req_evd));
	if (e->recv_evd && e->recv_evd != e->req_evd && e->recv_evd != t->priv->idle_dto_evd)
		DC_CLEANUP(dat_evd_free(e->recv_evd));
	memset(e, 0, sizeof(*e));
}

void dc_pair_ends_down(struct dc_ctx *t, struct dc_pair *p)
{
	if (p->ma.lmr)
		DC_CLEANUP(dat_lmr_free(p->ma.lmr));
	if (p->mb.lmr)
		DC_CLEANUP(dat_lmr_free(p->mb.lmr));
	dc_endpoint_down(t, &p->a);
	dc_endpoint_down(t, &p->b);
}

void dc_pair_down(struct dc_ctx *t, struct dc_pair *p)
{
	DAT_PZ_HANDLE pza = p->a.pz, pzb = p->b.pz;

	dc_pair_ends_down(t, p);
	if (pza)
		DC_CLEANUP(dat_pz_free(pza));
	if (pzb && pzb != pza)
		DC_CLEANUP(dat_pz_free(pzb));
}
