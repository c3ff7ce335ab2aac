/* SPDX-License-Identifier: MIT */
/*
 * ia_common.h - set-up helpers for the IA cases (cases/ia).
 *
 * The IA cases open and close instances of their own (the harness's IA,
 * t->ia, is the one the fixtures use), so these helpers take the IA as an
 * argument.  Every helper is set-up: a miss ends the case UNRESOLVED.
 */
#ifndef IA_COMMON_H
#define IA_COMMON_H

#include "../lmr/mem_common.h"

#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define SETUP_AT(file, line, expr, what) dc_setup_call_at(t, file, line, (expr), what)

/* Opens another instance of the IA under test; *evd in/out as dat_ia_open. */
static inline DAT_IA_HANDLE ia_open_at(struct dc_ctx *t, const char *file, int line,
				       DAT_COUNT qlen, DAT_EVD_HANDLE *evd)
{
	DAT_EVD_HANDLE dummy = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	if (!t->ia_name || !*t->ia_name)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "no IA under test: set DATCTS_IA or pass --ia NAME");
	SETUP_AT(file, line, dat_ia_open((DAT_NAME_PTR)t->ia_name, qlen,
					 evd ? evd : &dummy, &ia), "dat_ia_open");
	return ia;
}
#define ia_open(qlen, evd) ia_open_at(t, __FILE__, __LINE__, (qlen), (evd))
#define ia_open_plain() ia_open_at(t, __FILE__, __LINE__, 16, NULL)

static inline DAT_PZ_HANDLE pz_on_at(struct dc_ctx *t, const char *file, int line,
				     DAT_IA_HANDLE ia)
{
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;

	SETUP_AT(file, line, dat_pz_create(ia, &pz), "dat_pz_create");
	return pz;
}
#define pz_on(ia) pz_on_at(t, __FILE__, __LINE__, (ia))

static inline DAT_EVD_HANDLE evd_on_at(struct dc_ctx *t, const char *file, int line,
				       DAT_IA_HANDLE ia, DAT_COUNT qlen,
				       DAT_EVD_FLAGS flags)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	SETUP_AT(file, line, dat_evd_create(ia, qlen, DAT_HANDLE_NULL, flags, &evd),
		 "dat_evd_create");
	return evd;
}
#define evd_on(ia, qlen, flags) evd_on_at(t, __FILE__, __LINE__, (ia), (qlen), (flags))

static inline DAT_COUNT evd_qlen_at(struct dc_ctx *t, const char *file, int line,
				    DAT_EVD_HANDLE evd)
{
	DAT_EVD_PARAM p;

	memset(&p, 0, sizeof(p));
	SETUP_AT(file, line, dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p), "dat_evd_query");
	return p.evd_qlen;
}
#define evd_qlen(evd) evd_qlen_at(t, __FILE__, __LINE__, (evd))

/* A registered buffer on any IA (freed with the case's allocations). */
static inline void lmr_on_at(struct dc_ctx *t, const char *file, int line,
			     DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, DAT_VLEN len,
			     DAT_MEM_PRIV_FLAGS priv, struct dc_lmr *m)
{
	void *buf = dc_case_buf_at(t, file, line, DAT_OPTIMAL_ALIGNMENT, (size_t)len);

	SETUP_AT(file, line, dc_lmr_register(ia, pz, buf, len, priv, m), "dat_lmr_create");
}
#define lmr_on(ia, pz, len, priv, m) lmr_on_at(t, __FILE__, __LINE__, (ia), (pz), (len), (priv), (m))

/* The objects of one side of a connection, on any IA. */
struct xend {
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, conn, cr;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
};

static inline void xend_make_at(struct dc_ctx *t, const char *file, int line,
				DAT_IA_HANDLE ia, struct xend *e)
{
	DAT_EP_ATTR attr;

	memset(e, 0, sizeof(*e));
	e->ia = ia;
	e->pz = pz_on_at(t, file, line, ia);
	e->dto = evd_on_at(t, file, line, ia, 64, DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG);
	e->conn = evd_on_at(t, file, line, ia, 8, DAT_EVD_CONNECTION_FLAG);
	dc_ep_attr_default(t, &attr);
	SETUP_AT(file, line, dat_ep_create(ia, e->pz, e->dto, e->dto, e->conn, &attr, &e->ep),
		 "dat_ep_create");
}
#define xend_make(ia, e) xend_make_at(t, __FILE__, __LINE__, (ia), (e))

static inline void await_on_at(struct dc_ctx *t, const char *file, int line,
			       DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER n, DAT_EVENT *ev)
{
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, evd, n, ev);
}

/* Passive half: a PSP on any free qualifier of b's IA (on b's CR EVD when it
 * listened before). */
static inline void xlisten_at(struct dc_ctx *t, const char *file, int line,
			      struct xend *b)
{
	if (!b->cr)
		b->cr = evd_on_at(t, file, line, b->ia, 8, DAT_EVD_CR_FLAG);
	SETUP_AT(file, line, dat_psp_create_any(b->ia, &b->qual, b->cr,
						DAT_PSP_CONSUMER_FLAG, &b->psp),
		 "dat_psp_create_any");
}
#define xlisten(b) xlisten_at(t, __FILE__, __LINE__, (b))

static inline DAT_IA_ADDRESS_PTR ia_address_at(struct dc_ctx *t, const char *file,
					       int line, DAT_IA_HANDLE ia)
{
	DAT_IA_ATTR a;

	memset(&a, 0, sizeof(a));
	SETUP_AT(file, line, dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &a,
					  DAT_PROVIDER_FIELD_NONE, NULL),
		 "dat_ia_query(DAT_IA_FIELD_IA_ADDRESS_PTR)");
	if (!a.ia_address_ptr)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "set-up: IA has no address");
	return a.ia_address_ptr;
}

/*
 * a (made with xend_make) connects to b (made, listening); b accepts with
 * @pdata_len bytes of @pdata (0, NULL: none); both ESTABLISHED.
 */
static inline void xconnect_pdata_at(struct dc_ctx *t, const char *file, int line,
				     struct xend *a, struct xend *b,
				     DAT_COUNT pdata_len, const void *pdata)
{
	DAT_EVENT ev;

	if (!b->psp)
		xlisten_at(t, file, line, b);
	SETUP_AT(file, line,
		 dat_ep_connect(a->ep, ia_address_at(t, file, line, b->ia), b->qual,
				(DAT_TIMEOUT)dc_remaining_ms(t) * 1000u, 0, NULL,
				DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG),
		 "dat_ep_connect");
	await_on_at(t, file, line, b->cr, DAT_CONNECTION_REQUEST_EVENT, &ev);
	SETUP_AT(file, line, dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
					   b->ep, pdata_len, (DAT_PVOID)pdata), "dat_cr_accept");
	await_on_at(t, file, line, b->conn, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	await_on_at(t, file, line, a->conn, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}
#define xconnect(a, b) xconnect_pdata_at(t, __FILE__, __LINE__, (a), (b), 0, NULL)
#define xconnect_pdata(a, b, len, pd) \
	xconnect_pdata_at(t, __FILE__, __LINE__, (a), (b), (len), (pd))

/* Number of entries in a /proc directory (file descriptors, threads). */
static inline int proc_count(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dp);
	return n;
}

/*
 * Threads of this process once the ones that ended have left: a joined
 * thread can stay in /proc/self/task for a moment after pthread_join
 * returned (the kernel reaps it after waking the joiner; long enough to see
 * under emulation).  Polls up to 500 ms for the count to drop to @want and
 * returns the lowest count seen; a leaked thread never leaves.
 */
static inline int settled_thread_count(int want)
{
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	int low = proc_count("/proc/self/task");

	for (int i = 0; i < 100 && low > want; i++) {
		int n;

		nanosleep(&tick, NULL);
		n = proc_count("/proc/self/task");
		if (n >= 0 && n < low)
			low = n;
	}
	return low;
}

#endif /* IA_COMMON_H */
