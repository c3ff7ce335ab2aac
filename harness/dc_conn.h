/* SPDX-License-Identifier: MIT */
/*
 * dc_conn.h - connection fixtures beyond dc_connect_*: free qualifiers,
 * service points on any qualifier, connecting to this IA's own address,
 * and a connected pair with memory.  Included by datcts.h.
 */
#ifndef DC_CONN_H
#define DC_CONN_H

/* A qualifier nobody listens on (a PSP made on "any" and freed again). */
DAT_CONN_QUAL dc_free_conn_qual_at(struct dc_ctx *t, const char *file, int line);
#define dc_free_conn_qual(t) dc_free_conn_qual_at((t), __FILE__, __LINE__)

/*
 * A qualifier this process never listened on, not probed (no Service Point
 * is created and freed on it, so nothing a provider keeps after a free can
 * answer there); another process may listen on it, rarely: a case that
 * needs nobody listening checks what it got, as set-up.
 */
DAT_CONN_QUAL dc_unprobed_conn_qual(void);

/*
 * Whether a create that returned r should be tried again: r is
 * DAT_CONN_QUAL_IN_USE and less than 5 s passed since the first IN_USE
 * (*until_ms, 0 before it); sleeps 20 ms before saying so.
 */
bool dc_qual_busy_retry(DAT_RETURN r, double *until_ms);

/*
 * A Service Point made on a qualifier dc_free_conn_qual just probed (a PSP
 * created and freed on it): dat_psp_free(3DAT) does not say when a freed
 * qualifier is free again (dat_psp_free.qual_reusable is contested), so a
 * DAT_CONN_QUAL_IN_USE answer is the probe's, not the clause's. The create
 * (@call, evaluated again each time) is retried while it says so, for up
 * to 5 s; if it still does, the case ends UNRESOLVED. A refused create takes
 * nothing, so retrying cannot hold the qualifier itself. Not for a create the
 * clause expects to be refused, nor for the reuse clause itself.
 */
bool dc_probed_qual_busy_at(struct dc_ctx *t, const char *file, int line,
			    DAT_RETURN r, double *until_ms);
#define DC_ON_PROBED_QUAL(r, call)					\
	do {								\
		double until_ = 0;					\
		while (dc_probed_qual_busy_at(t, __FILE__, __LINE__,	\
					      (r) = (call), &until_))	\
			;						\
	} while (0)

/*
 * The connection qualifiers the IA's transport can use, as the provider
 * publishes them in its provider-specific attribute "datcts.conn_qual_range"
 * ("LOW-HIGH", decimal).  No such attribute: UNSUPPORTED (the pages leave
 * the range to the transport); a malformed one: UNRESOLVED.
 */
void dc_conn_qual_range_at(struct dc_ctx *t, const char *file, int line,
			   DAT_CONN_QUAL *lo, DAT_CONN_QUAL *hi);
#define dc_conn_qual_range(t, lo, hi) dc_conn_qual_range_at((t), __FILE__, __LINE__, (lo), (hi))

/* A PSP with `flags` on any free qualifier and a new CR EVD; returns the qualifier. */
DAT_CONN_QUAL dc_psp_any_at(struct dc_ctx *t, const char *file, int line,
			    DAT_PSP_FLAGS flags, DAT_EVD_HANDLE *cr_evd,
			    DAT_PSP_HANDLE *psp);
#define dc_psp_any(t, flags, cr_evd, psp)				\
	dc_psp_any_at((t), __FILE__, __LINE__, (flags), (cr_evd), (psp))

/* An RSP of ia reserving ep on a free qualifier (a race for it is retried);
 * dc_rsp_any: on the case's IA. */
void dc_rsp_any_at(struct dc_ctx *t, const char *file, int line, DAT_IA_HANDLE ia,
		   DAT_EP_HANDLE ep, DAT_EVD_HANDLE cr_evd,
		   DAT_CONN_QUAL *qual, DAT_RSP_HANDLE *rsp);
#define dc_rsp_any(t, ep, cr_evd, qual, rsp)				\
	dc_rsp_any_at((t), __FILE__, __LINE__, (t)->ia, (ep), (cr_evd), (qual), (rsp))
#define dc_rsp_any_on(t, ia, ep, cr_evd, qual, rsp)			\
	dc_rsp_any_at((t), __FILE__, __LINE__, (ia), (ep), (cr_evd), (qual), (rsp))

/*
 * dat_ep_connect of ep to qualifier qual of the case's own IA address,
 * with private data; timeout_us 0: one that outlives the case.  The address
 * is a copy of exactly its family's size (dc_connect_own_address).
 */
DAT_RETURN dc_connect_to_self(struct dc_ctx *t, DAT_EP_HANDLE ep,
			      DAT_CONN_QUAL qual, DAT_TIMEOUT timeout_us,
			      DAT_COUNT pd_size, const void *pd);
/* The same with timeout_us as given (0 is DAT_TIMEOUT 0). */
DAT_RETURN dc_connect_own_address(struct dc_ctx *t, DAT_EP_HANDLE ep,
				  DAT_CONN_QUAL qual, DAT_TIMEOUT timeout_us,
				  DAT_COUNT pd_size, const void *pd);

/*
 * The timeout to give a connection request the case leaves unanswered, so
 * that it ends TIMED_OUT: long enough for the request to reach the listener
 * on this provider, and no longer.  Measured once per case: a connection
 * brought up in this process (its own PZ, EVDs and EPs, all freed again)
 * takes ms; the timeout is ten times that, at least 50 ms.  Where that
 * connection cannot be made (the IA has no room left, or connects nothing)
 * it is 200 ms; noted either way.
 */
DAT_TIMEOUT dc_unanswered_timeout_us(struct dc_ctx *t);

/*
 * A dat_ep_connect (or dat_ep_dup_connect) that the clause wants refused for
 * one reason answered @r.  DAT_INSUFFICIENT_RESOURCES is what
 * dat_ep_connect(3DAT) RETURN VALUES give for want of resources, so where
 * two reasons apply the provider may give either: that answer says nothing
 * of the clause unless a valid connect from a fresh EP gets through.  So on
 * that code alone this makes one (no private data, to a qualifier nobody
 * serves); refused the same way, the case ends UNRESOLVED (the provider
 * connects nothing here); otherwise it returns and the case's check judges @r.
 */
void dc_connect_short_for_real_at(struct dc_ctx *t, const char *file, int line, DAT_RETURN r);
#define DC_CONNECT_SHORT_FOR_REAL(r) dc_connect_short_for_real_at(t, __FILE__, __LINE__, (r))

/*
 * Same IP host: the same family and, for AF_INET / AF_INET6, the same address
 * (the port of an IA address carries no meaning); false for other families
 * and for NULL.
 */
bool dc_same_host(const struct sockaddr *a, const struct sockaddr *b);

/* A connected pair in this process, each side with a buffer of its own. */
struct dc_pair {
	struct dc_endpoint a, b;	/* a: active, b: passive */
	struct dc_lmr ma, mb;		/* mem_len bytes, every privilege, in a.pz / b.pz */
};
/* dc_connect_local, and (mem_len > 0) the two buffers, made before connecting. */
void dc_pair_up_at(struct dc_ctx *t, const char *file, int line,
		   struct dc_pair *p, DAT_VLEN mem_len, const struct dc_conn_opts *o);
#define dc_pair_up(t, p, mem_len, o)					\
	dc_pair_up_at((t), __FILE__, __LINE__, (p), (mem_len), (o))

/*
 * Clean-up between the parts of a case that builds one endpoint or pair
 * after another, so a provider with few EPs, EVDs, LMRs or PZs
 * (dat_ia_query(3DAT) maxima, no floor) still runs them all.  Failures are
 * clean-up failures (DC_CLEANUP), never the clause's.
 * dc_endpoint_down: e's EP, PSP and EVDs (not its PZ); e is zeroed.
 * dc_pair_down: p's LMRs, both endpoints and their PZs; dc_pair_ends_down
 * the same but the PZs (a PZ the case gave in dc_conn_opts and uses again).
 */
void dc_endpoint_down(struct dc_ctx *t, struct dc_endpoint *e);
void dc_pair_down(struct dc_ctx *t, struct dc_pair *p);
void dc_pair_ends_down(struct dc_ctx *t, struct dc_pair *p);

#endif /* DC_CONN_H */
