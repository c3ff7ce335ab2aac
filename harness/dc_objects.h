/* SPDX-License-Identifier: MIT */
/*
 * dc_objects.h - more objects, their parameters, handles that name no
 * object, and the invalid-handle assertion.  Included by datcts.h.
 *
 * Queries come in two spellings: dc_<obj>_param(t, h) is set-up (a failed
 * query ends the case UNRESOLVED), DC_<OBJ>_PARAM(h) is part of the clause
 * (FAIL).
 */
#ifndef DC_OBJECTS_H
#define DC_OBJECTS_H

/* Text of a DAT code, for messages ("DAT_INVALID_STATE (subtype ...)"). */
const char *dc_ret_text(DAT_RETURN r);

/* A DTO cookie carrying v. */
DAT_DTO_COOKIE dc_cookie(uint64_t v);

/* ---- objects the basic fixtures do not make ------------------------------ */

/* dat_cno_create on the case's IA. */
DAT_CNO_HANDLE dc_cno_at(struct dc_ctx *t, const char *file, int line,
			 DAT_OS_WAIT_PROXY_AGENT agent);
#define dc_cno(t, agent) dc_cno_at((t), __FILE__, __LINE__, (agent))
#define dc_plain_cno(t) dc_cno(t, DAT_OS_WAIT_PROXY_AGENT_NULL)

/* dat_evd_create with a CNO (dc_evd gives none). */
DAT_EVD_HANDLE dc_evd_with_cno_at(struct dc_ctx *t, const char *file, int line,
				  DAT_COUNT qlen, DAT_EVD_FLAGS flags,
				  DAT_CNO_HANDLE cno);
#define dc_evd_with_cno(t, qlen, flags, cno)				\
	dc_evd_with_cno_at((t), __FILE__, __LINE__, (qlen), (flags), (cno))

/* Set-up: dat_evd_modify_cno(evd, cno): evd (made without a CNO) feeds cno. */
void dc_evd_set_cno_at(struct dc_ctx *t, const char *file, int line,
		       DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno);
#define dc_evd_set_cno(t, evd, cno) dc_evd_set_cno_at((t), __FILE__, __LINE__, (evd), (cno))

/* Set-up: a new CNO (no agent) made for evd and attached to it by
 * dat_evd_modify_cno; returns the CNO. */
DAT_CNO_HANDLE dc_evd_new_cno_at(struct dc_ctx *t, const char *file, int line,
				 DAT_EVD_HANDLE evd);
#define dc_evd_new_cno(t, evd) dc_evd_new_cno_at((t), __FILE__, __LINE__, (evd))

/*
 * Whether one EVD may carry every stream of `flags` by the IA's EVD stream
 * merging matrix (dat_ia_query(3DAT) DESCRIPTION).  The page does not name
 * the rows; they are read in the order of the DAT_EVD_FLAGS bits (software,
 * CR, DTO, connection, RMR bind, async), the order OFA's dapl fills and
 * enforces.
 */
bool dc_streams_merge(struct dc_ctx *t, DAT_EVD_FLAGS flags);
/* The same as a need: a case that needs an EVD carrying `flags` on an IA
 * whose matrix forbids it ends UNSUPPORTED (not demonstrated, kind
 * "attribute"): the Consumer should check the matrix first (same page). */
void dc_need_streams_merge_at(struct dc_ctx *t, const char *file, int line,
			      DAT_EVD_FLAGS flags);
#define DC_NEED_STREAMS_MERGE(flags) dc_need_streams_merge_at(t, __FILE__, __LINE__, (flags))

/* dat_rmr_create in pz. */
DAT_RMR_HANDLE dc_rmr_at(struct dc_ctx *t, const char *file, int line,
			 DAT_PZ_HANDLE pz);
#define dc_rmr(t, pz) dc_rmr_at((t), __FILE__, __LINE__, (pz))

/* ---- parameters ------------------------------------------------------------ */

DAT_EP_PARAM dc_ep_param_at(struct dc_ctx *t, const char *file, int line,
			    DAT_EP_HANDLE ep, enum dc_state on_miss);
#define dc_ep_param(t, ep) dc_ep_param_at((t), __FILE__, __LINE__, (ep), DC_UNRESOLVED)
#define DC_EP_PARAM(ep) dc_ep_param_at(t, __FILE__, __LINE__, (ep), DC_FAIL)

DAT_EVD_PARAM dc_evd_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_EVD_HANDLE evd, enum dc_state on_miss);
#define dc_evd_param(t, evd) dc_evd_param_at((t), __FILE__, __LINE__, (evd), DC_UNRESOLVED)
#define DC_EVD_PARAM(evd) dc_evd_param_at(t, __FILE__, __LINE__, (evd), DC_FAIL)

DAT_CNO_PARAM dc_cno_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_CNO_HANDLE cno, enum dc_state on_miss);
#define dc_cno_param(t, cno) dc_cno_param_at((t), __FILE__, __LINE__, (cno), DC_UNRESOLVED)
#define DC_CNO_PARAM(cno) dc_cno_param_at(t, __FILE__, __LINE__, (cno), DC_FAIL)

DAT_SRQ_PARAM dc_srq_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_SRQ_HANDLE srq, enum dc_state on_miss);
#define dc_srq_param(t, srq) dc_srq_param_at((t), __FILE__, __LINE__, (srq), DC_UNRESOLVED)
#define DC_SRQ_PARAM(srq) dc_srq_param_at(t, __FILE__, __LINE__, (srq), DC_FAIL)

DAT_LMR_PARAM dc_lmr_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_LMR_HANDLE lmr);
#define dc_lmr_param(t, lmr) dc_lmr_param_at((t), __FILE__, __LINE__, (lmr))

DAT_RMR_PARAM dc_rmr_param_at(struct dc_ctx *t, const char *file, int line,
			      DAT_RMR_HANDLE rmr);
#define dc_rmr_param(t, rmr) dc_rmr_param_at((t), __FILE__, __LINE__, (rmr))

/* ---- handles that name no object of the kind a call wants ----------------- */

/* A live handle of another type (a PZ): pass it where another kind is due. */
#define dc_wrong_handle(t) ((DAT_HANDLE)dc_pz(t))

/* The handle of an object made and freed again. */
DAT_EP_HANDLE dc_freed_ep_at(struct dc_ctx *t, const char *file, int line);
#define dc_freed_ep(t) dc_freed_ep_at((t), __FILE__, __LINE__)
DAT_EVD_HANDLE dc_freed_evd_at(struct dc_ctx *t, const char *file, int line,
			       DAT_EVD_FLAGS flags);
#define dc_freed_evd(t, flags) dc_freed_evd_at((t), __FILE__, __LINE__, (flags))
DAT_PZ_HANDLE dc_freed_pz_at(struct dc_ctx *t, const char *file, int line);
#define dc_freed_pz(t) dc_freed_pz_at((t), __FILE__, __LINE__)

/*
 * The invalid-handle rule (docs/writing-cases.md, "Invalid handles").
 * The pages require the type DAT_INVALID_HANDLE and name no subtype; the
 * headers' subtypes of that type name the handle at fault, by object kind
 * or by argument position.  So the subtype is optional, but one that is
 * given must name the rejected argument: DAT_NO_SUBTYPE, the subtype of
 * the argument's kind, or DAT_INVALID_HANDLE<arg> for its position.
 */
enum dc_handle_kind {
	DC_HANDLE_ANY,		/* a DAT_HANDLE argument: any kind's subtype */
	DC_HANDLE_IA,
	DC_HANDLE_EP,
	DC_HANDLE_LMR,
	DC_HANDLE_RMR,
	DC_HANDLE_PZ,
	DC_HANDLE_PSP,
	DC_HANDLE_RSP,
	DC_HANDLE_CR,
	DC_HANDLE_CNO,
	DC_HANDLE_SRQ,
	DC_HANDLE_EVD,		/* an EVD of no particular role: any EVD_* */
	DC_HANDLE_EVD_CR,
	DC_HANDLE_EVD_REQUEST,
	DC_HANDLE_EVD_RECV,
	DC_HANDLE_EVD_CONN,
	DC_HANDLE_EVD_ASYNC,
};

/* True when r is DAT_INVALID_HANDLE with a subtype the rule allows. */
bool dc_invalid_handle_ok(DAT_RETURN r, int arg, enum dc_handle_kind kind);
void dc_assert_invalid_handle_at(struct dc_ctx *t, const char *file, int line,
				 const char *expr, DAT_RETURN got, int arg,
				 enum dc_handle_kind kind);
/* Clause: ret rejects argument `arg` (1-based) of kind DC_HANDLE_<kind>. */
#define DC_ASSERT_INVALID_HANDLE(ret, arg, kind)			\
	dc_assert_invalid_handle_at(t, __FILE__, __LINE__, #ret, (ret),	\
				    (arg), DC_HANDLE_##kind)

/*
 * Set-up: closes ia abruptly with a CNO of ia whose OS Wait Proxy Agent
 * calls fn(ia, arg) from the first upcall without an EVD, the one an abrupt
 * dat_ia_close may make while it tears the IA down.  A provider need not
 * make that upcall: the case then ends UNRESOLVED.  fn must not end the
 * case: it runs inside dat_ia_close; it records, the case judges afterwards.
 */
void dc_close_with_agent_call_at(struct dc_ctx *t, const char *file, int line,
				 DAT_IA_HANDLE ia, void (*fn)(DAT_IA_HANDLE ia, void *arg),
				 void *arg);
#define dc_close_with_agent_call(t, ia, fn, arg)			\
	dc_close_with_agent_call_at((t), __FILE__, __LINE__, (ia), (fn), (arg))

#endif /* DC_OBJECTS_H */
