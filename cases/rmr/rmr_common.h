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
	struct dc_pair p;
	struct dc_lmr m;	/* a's memory, the window's LMR */
	struct dc_lmr peer;	/* b's buffer for RDMA */
	DAT_RMR_HANDLE rmr;
};

static inline void win_setup_at(struct dc_ctx *t, const char *file, int line,
				struct win *w, DAT_MEM_PRIV_FLAGS lmr_priv,
				const struct dc_conn_opts *o)
{
	memset(w, 0, sizeof(*w));
	dc_pair_up_at(t, file, line, &w->p, 0, o);
	dc_lmr_at(t, file, line, w->p.a.pz, BUF, lmr_priv, &w->m);
	dc_lmr_at(t, file, line, w->p.b.pz, BUF, DC_PRIV_LOCAL, &w->peer);
	w->rmr = dc_rmr_at(t, file, line, w->p.a.pz);
}
#define win_setup(w, priv, o) win_setup_at(t, __FILE__, __LINE__, (w), (priv), (o))

/* Clean-up between the parts of a case that sets up one window after
 * another (few RMRs, EVDs or EPs: no floor): win_down frees all win_setup
 * made; win_down_keep_pz all but the PZs, for windows made in a PZ the
 * case gave (dc_conn_opts.pz) and uses again. */
static inline void win_mem_down(struct dc_ctx *t, struct win *w)
{
	if (w->rmr)
		DC_CLEANUP(dat_rmr_free(w->rmr));
	if (w->m.lmr)
		DC_CLEANUP(dat_lmr_free(w->m.lmr));
	if (w->peer.lmr)
		DC_CLEANUP(dat_lmr_free(w->peer.lmr));
}

static inline void win_down(struct dc_ctx *t, struct win *w)
{
	win_mem_down(t, w);
	dc_pair_down(t, &w->p);
}

static inline void win_down_keep_pz(struct dc_ctx *t, struct win *w)
{
	win_mem_down(t, w);
	dc_pair_ends_down(t, &w->p);
}

/* The peer RDMA-Writes peer[0, len) to a's memory at `off` with `ctx`. */
#define peer_write(w, ctx, off, len, cookie)				\
	dc_rdma_write(t, &(w)->p.b, &(w)->peer, 0, (len),			\
		   dc_rmr_triplet((ctx), (DAT_VADDR)(uintptr_t)((w)->m.buf + (off)), (len)), (cookie))
/* The peer RDMA-Reads a's memory at `off` into peer[0, len). */
#define peer_read(w, ctx, off, len, cookie)				\
	dc_rdma_read(t, &(w)->p.b, &(w)->peer, 0, (len),			\
		  dc_rmr_triplet((ctx), (DAT_VADDR)(uintptr_t)((w)->m.buf + (off)), (len)), (cookie))

#endif /* RMR_COMMON_H */
