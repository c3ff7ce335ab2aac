/* SPDX-License-Identifier: MIT */
/*
 * rmr_common.h - the usual RMR picture: a connected pair; "a" owns the
 * memory (an LMR in a's PZ) and binds an RMR of a's PZ over it through
 * a's EP; "b" is the remote peer that RDMAs into the window with the
 * context, from a buffer of its own.
 */
#ifndef RMR_COMMON_H
#define RMR_COMMON_H

#include "../lmr/mem_common.h"

#include <pthread.h>
#include <sched.h>

struct win {
	struct pair p;
	struct dc_lmr m;	/* a's memory, the window's LMR */
	struct dc_lmr peer;	/* b's buffer for RDMA */
	DAT_RMR_HANDLE rmr;
};

static inline void win_setup_at(struct dc_ctx *t, const char *file, int line,
				struct win *w, DAT_MEM_PRIV_FLAGS lmr_priv,
				const struct dc_conn_opts *o)
{
	memset(w, 0, sizeof(*w));
	pair_connect_at(t, file, line, &w->p, o);
	dc_lmr_at(t, file, line, w->p.a.pz, BUF, lmr_priv, &w->m);
	dc_lmr_at(t, file, line, w->p.b.pz, BUF, PRIV_LOCAL, &w->peer);
	w->rmr = rmr_new_at(t, file, line, w->p.a.pz);
}
#define win_setup(w, priv, o) win_setup_at(t, __FILE__, __LINE__, (w), (priv), (o))

/* The peer RDMA-Writes peer[0, len) to a's memory at `off` with `ctx`. */
#define peer_write(w, ctx, off, len, cookie)				\
	rdma_write(&(w)->p.b, &(w)->peer, 0, (len),			\
		   rmr_triplet((ctx), (w)->m.buf + (off), (len)), (cookie))
/* The peer RDMA-Reads a's memory at `off` into peer[0, len). */
#define peer_read(w, ctx, off, len, cookie)				\
	rdma_read(&(w)->p.b, &(w)->peer, 0, (len),			\
		  rmr_triplet((ctx), (w)->m.buf + (off), (len)), (cookie))

static inline DAT_RMR_PARAM rmr_param_at(struct dc_ctx *t, const char *file, int line,
					 DAT_RMR_HANDLE rmr)
{
	DAT_RMR_PARAM p;
	DAT_RETURN r;

	memset(&p, 0, sizeof(p));
	r = dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &p);
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_rmr_query(DAT_RMR_FIELD_ALL) returned %s", ret_s(r));
	return p;
}
#define rmr_param(rmr) rmr_param_at(t, __FILE__, __LINE__, (rmr))

#endif /* RMR_COMMON_H */
