/* SPDX-License-Identifier: MIT */
/*
 * handles.h - one live handle of each DAT object kind the misc pages list
 * (IA, EP, EVD, CR, RSP, PSP, PZ, LMR, RMR, CNO), made on the case's IA.
 */
#ifndef HANDLES_H
#define HANDLES_H

#include "../lmr/mem_common.h"

enum kind { K_IA, K_EP, K_EVD, K_CR, K_RSP, K_PSP, K_PZ, K_LMR, K_RMR, K_CNO };

static const DAT_HANDLE_TYPE kind_type[] = {
	[K_IA] = DAT_HANDLE_TYPE_IA, [K_EP] = DAT_HANDLE_TYPE_EP,
	[K_EVD] = DAT_HANDLE_TYPE_EVD, [K_CR] = DAT_HANDLE_TYPE_CR,
	[K_RSP] = DAT_HANDLE_TYPE_RSP, [K_PSP] = DAT_HANDLE_TYPE_PSP,
	[K_PZ] = DAT_HANDLE_TYPE_PZ, [K_LMR] = DAT_HANDLE_TYPE_LMR,
	[K_RMR] = DAT_HANDLE_TYPE_RMR, [K_CNO] = DAT_HANDLE_TYPE_CNO,
};

/* A Connection Request waiting on a PSP (nobody accepts it). */
static inline DAT_CR_HANDLE pending_cr_at(struct dc_ctx *t, const char *file, int line)
{
	struct dc_endpoint a, b;
	DAT_EVENT ev;
	DAT_RETURN r;

	dc_endpoint_at(t, file, line, &b, NULL);
	b.cr_evd = dc_evd_at(t, file, line, 4, DAT_EVD_CR_FLAG);
	r = dat_psp_create_any(t->ia, &b.conn_qual, b.cr_evd, DAT_PSP_CONSUMER_FLAG, &b.psp);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_psp_create_any returned %s", dc_ret_text(r));
	dc_endpoint_at(t, file, line, &a, NULL);
	r = dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, b.conn_qual,
			   (DAT_TIMEOUT)dc_remaining_ms(t) * 1000u, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_ep_connect returned %s", dc_ret_text(r));
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, b.cr_evd,
			   DAT_CONNECTION_REQUEST_EVENT, &ev);
	return ev.event_data.cr_arrival_event_data.cr_handle;
}

static inline DAT_HANDLE make_handle_at(struct dc_ctx *t, const char *file, int line,
					enum kind k)
{
	DAT_PZ_HANDLE pz;
	DAT_RETURN r = DAT_SUCCESS;
	DAT_HANDLE h = DAT_HANDLE_NULL;
	struct dc_endpoint e;
	static struct dc_lmr m;

	switch (k) {
	case K_IA:
		return t->ia;
	case K_EP:
		dc_endpoint_at(t, file, line, &e, NULL);
		return e.ep;
	case K_EVD:
		return dc_evd_at(t, file, line, 4, DAT_EVD_SOFTWARE_FLAG);
	case K_CR:
		return pending_cr_at(t, file, line);
	case K_RSP:
		dc_endpoint_at(t, file, line, &e, NULL);
		r = dat_rsp_create(t->ia, dc_free_conn_qual_at(t, file, line), e.ep,
				   dc_evd_at(t, file, line, 4, DAT_EVD_CR_FLAG), &h);
		break;
	case K_PSP: {
		DAT_CONN_QUAL q = 0;

		r = dat_psp_create_any(t->ia, &q, dc_evd_at(t, file, line, 4, DAT_EVD_CR_FLAG),
				       DAT_PSP_CONSUMER_FLAG, &h);
		break;
	}
	case K_PZ:
		return dc_pz_at(t, file, line);
	case K_LMR:
		dc_lmr_at(t, file, line, dc_pz_at(t, file, line), BUF, DC_PRIV_LOCAL, &m);
		return m.lmr;
	case K_RMR:
		pz = dc_pz_at(t, file, line);
		return dc_rmr_at(t, file, line, pz);
	case K_CNO:
		return dc_cno_at(t, file, line, DAT_OS_WAIT_PROXY_AGENT_NULL);
	}
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: creating the handle returned %s", dc_ret_text(r));
	return h;
}
#define make_handle(k) make_handle_at(t, __FILE__, __LINE__, (k))

/* Registers `fn` once per kind as case `page.<stem>_<kind>`. */
#define PER_KIND_CASES(page, stem, clauses_, what, fn)			\
	PER_KIND_CASE(page, stem##_ia, clauses_, what " (IA)", fn, K_IA)	\
	PER_KIND_CASE(page, stem##_ep, clauses_, what " (EP)", fn, K_EP)	\
	PER_KIND_CASE(page, stem##_evd, clauses_, what " (EVD)", fn, K_EVD) \
	PER_KIND_CASE(page, stem##_cr, clauses_, what " (CR)", fn, K_CR)	\
	PER_KIND_CASE(page, stem##_rsp, clauses_, what " (RSP)", fn, K_RSP) \
	PER_KIND_CASE(page, stem##_psp, clauses_, what " (PSP)", fn, K_PSP) \
	PER_KIND_CASE(page, stem##_pz, clauses_, what " (PZ)", fn, K_PZ)	\
	PER_KIND_CASE(page, stem##_lmr, clauses_, what " (LMR)", fn, K_LMR) \
	PER_KIND_CASE(page, stem##_rmr, clauses_, what " (RMR)", fn, K_RMR) \
	PER_KIND_CASE(page, stem##_cno, clauses_, what " (CNO)", fn, K_CNO)

#define PER_KIND_CASE(page, name, clauses_, what, fn, k)		\
	DC_CASE(page, name, .clauses = clauses_, .summary = what)	\
	{								\
		fn(t, k, make_handle(k));				\
	}

#endif /* HANDLES_H */
