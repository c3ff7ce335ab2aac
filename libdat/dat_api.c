/*
 * Consumer entry points that belong to an object: reject what cannot be a
 * handle, then call the owning provider through the handle's first word
 * (DAT_HANDLE_TO_PROVIDER). Nothing else is checked here; the provider
 * owns the semantics.
 */
#include "dat_internal.h"

#include <stdint.h>

/*
 * A handle points at an object that starts with a DAT_PROVIDER pointer,
 * so it is non-NULL and pointer-aligned. This also keeps the special
 * values DAT_EVD_ASYNC_EXISTS/DAT_EVD_OUT_OF_SCOPE away from a deref.
 */
#define DAT_BAD_HANDLE(h) \
	((h) == NULL || ((uintptr_t)(h) % _Alignof(DAT_PROVIDER *)) != 0)

#define DISPATCH(h, subtype, func, ...)						\
	do {									\
		const DAT_PROVIDER *p_;						\
										\
		if (DAT_BAD_HANDLE(h))						\
			return DAT_ERROR(DAT_INVALID_HANDLE, subtype);		\
		p_ = DAT_HANDLE_TO_PROVIDER(h);					\
		if (!p_)							\
			return DAT_ERROR(DAT_INVALID_HANDLE, subtype);		\
		if (!p_->func)							\
			return DAT_ERROR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);	\
		return p_->func(__VA_ARGS__);					\
	} while (0)

/* IA handles are ours to know: only ones dat_ia_openv returned are valid. */
#define DISPATCH_IA(ia, func, ...)						\
	do {									\
		if (!dat_ia_is_open(ia))					\
			return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA); \
		DISPATCH(ia, DAT_INVALID_HANDLE_IA, func, __VA_ARGS__);		\
	} while (0)

/* ---- IA and generic handles ---- */

DAT_RETURN dat_ia_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *async_evd,
			DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			DAT_PROVIDER_ATTR_MASK prov_mask, DAT_PROVIDER_ATTR *prov_attr)
{
	DISPATCH_IA(ia, ia_query_func, ia, async_evd, ia_mask, ia_attr,
		    prov_mask, prov_attr);
}

DAT_RETURN dat_set_consumer_context(DAT_HANDLE h, DAT_CONTEXT context)
{
	DISPATCH(h, DAT_INVALID_HANDLE1, set_consumer_context_func, h, context);
}

DAT_RETURN dat_get_consumer_context(DAT_HANDLE h, DAT_CONTEXT *context)
{
	DISPATCH(h, DAT_INVALID_HANDLE1, get_consumer_context_func, h, context);
}

DAT_RETURN dat_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *type)
{
	DISPATCH(h, DAT_INVALID_HANDLE1, get_handle_type_func, h, type);
}

/* ---- CNO ---- */

DAT_RETURN dat_cno_create(DAT_IA_HANDLE ia, DAT_OS_WAIT_PROXY_AGENT agent,
			  DAT_CNO_HANDLE *cno)
{
	DISPATCH_IA(ia, cno_create_func, ia, agent, cno);
}

DAT_RETURN dat_cno_modify_agent(DAT_CNO_HANDLE cno, DAT_OS_WAIT_PROXY_AGENT agent)
{
	DISPATCH(cno, DAT_INVALID_HANDLE_CNO, cno_modify_agent_func, cno, agent);
}

DAT_RETURN dat_cno_query(DAT_CNO_HANDLE cno, DAT_CNO_PARAM_MASK mask,
			 DAT_CNO_PARAM *param)
{
	DISPATCH(cno, DAT_INVALID_HANDLE_CNO, cno_query_func, cno, mask, param);
}

DAT_RETURN dat_cno_free(DAT_CNO_HANDLE cno)
{
	DISPATCH(cno, DAT_INVALID_HANDLE_CNO, cno_free_func, cno);
}

DAT_RETURN dat_cno_wait(DAT_CNO_HANDLE cno, DAT_TIMEOUT timeout,
			DAT_EVD_HANDLE *evd)
{
	DISPATCH(cno, DAT_INVALID_HANDLE_CNO, cno_wait_func, cno, timeout, evd);
}

/* ---- CR ---- */

DAT_RETURN dat_cr_query(DAT_CR_HANDLE cr, DAT_CR_PARAM_MASK mask,
			DAT_CR_PARAM *param)
{
	DISPATCH(cr, DAT_INVALID_HANDLE_CR, cr_query_func, cr, mask, param);
}

DAT_RETURN dat_cr_accept(DAT_CR_HANDLE cr, DAT_EP_HANDLE ep,
			 DAT_COUNT pdata_size, const DAT_PVOID pdata)
{
	DISPATCH(cr, DAT_INVALID_HANDLE_CR, cr_accept_func, cr, ep, pdata_size,
		 pdata);
}

DAT_RETURN dat_cr_reject(DAT_CR_HANDLE cr)
{
	DISPATCH(cr, DAT_INVALID_HANDLE_CR, cr_reject_func, cr);
}

DAT_RETURN dat_cr_handoff(DAT_CR_HANDLE cr, DAT_CONN_QUAL handoff)
{
	DISPATCH(cr, DAT_INVALID_HANDLE_CR, cr_handoff_func, cr, handoff);
}

/*
 * ---- EVD ----
 * The subtypes name an EVD by role (request, recv, ...); a function that
 * takes just "the EVD" reports DAT_INVALID_HANDLE1, its first handle.
 */

DAT_RETURN dat_evd_create(DAT_IA_HANDLE ia, DAT_COUNT qlen, DAT_CNO_HANDLE cno,
			  DAT_EVD_FLAGS flags, DAT_EVD_HANDLE *evd)
{
	DISPATCH_IA(ia, evd_create_func, ia, qlen, cno, flags, evd);
}

DAT_RETURN dat_evd_query(DAT_EVD_HANDLE evd, DAT_EVD_PARAM_MASK mask,
			 DAT_EVD_PARAM *param)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_query_func, evd, mask, param);
}

DAT_RETURN dat_evd_modify_cno(DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_modify_cno_func, evd, cno);
}

DAT_RETURN dat_evd_enable(DAT_EVD_HANDLE evd)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_enable_func, evd);
}

DAT_RETURN dat_evd_disable(DAT_EVD_HANDLE evd)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_disable_func, evd);
}

DAT_RETURN dat_evd_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT timeout,
			DAT_COUNT threshold, DAT_EVENT *event, DAT_COUNT *nmore)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_wait_func, evd, timeout,
		 threshold, event, nmore);
}

DAT_RETURN dat_evd_resize(DAT_EVD_HANDLE evd, DAT_COUNT qlen)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_resize_func, evd, qlen);
}

DAT_RETURN dat_evd_post_se(DAT_EVD_HANDLE evd, const DAT_EVENT *event)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_post_se_func, evd, event);
}

DAT_RETURN dat_evd_dequeue(DAT_EVD_HANDLE evd, DAT_EVENT *event)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_dequeue_func, evd, event);
}

DAT_RETURN dat_evd_free(DAT_EVD_HANDLE evd)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_free_func, evd);
}

DAT_RETURN dat_evd_set_unwaitable(DAT_EVD_HANDLE evd)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_set_unwaitable_func, evd);
}

DAT_RETURN dat_evd_clear_unwaitable(DAT_EVD_HANDLE evd)
{
	DISPATCH(evd, DAT_INVALID_HANDLE1, evd_clear_unwaitable_func, evd);
}

/* ---- EP ---- */

DAT_RETURN dat_ep_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
			 DAT_EVD_HANDLE recv_evd, DAT_EVD_HANDLE request_evd,
			 DAT_EVD_HANDLE connect_evd, const DAT_EP_ATTR *attr,
			 DAT_EP_HANDLE *ep)
{
	DISPATCH_IA(ia, ep_create_func, ia, pz, recv_evd, request_evd,
		    connect_evd, attr, ep);
}

DAT_RETURN dat_ep_create_with_srq(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
				  DAT_EVD_HANDLE recv_evd,
				  DAT_EVD_HANDLE request_evd,
				  DAT_EVD_HANDLE connect_evd, DAT_SRQ_HANDLE srq,
				  const DAT_EP_ATTR *attr, DAT_EP_HANDLE *ep)
{
	DISPATCH_IA(ia, ep_create_with_srq_func, ia, pz, recv_evd, request_evd,
		    connect_evd, srq, attr, ep);
}

DAT_RETURN dat_ep_query(DAT_EP_HANDLE ep, DAT_EP_PARAM_MASK mask,
			DAT_EP_PARAM *param)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_query_func, ep, mask, param);
}

DAT_RETURN dat_ep_modify(DAT_EP_HANDLE ep, DAT_EP_PARAM_MASK mask,
			 const DAT_EP_PARAM *param)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_modify_func, ep, mask, param);
}

DAT_RETURN dat_ep_connect(DAT_EP_HANDLE ep, DAT_IA_ADDRESS_PTR remote,
			  DAT_CONN_QUAL remote_qual, DAT_TIMEOUT timeout,
			  DAT_COUNT pdata_size, const DAT_PVOID pdata,
			  DAT_QOS qos, DAT_CONNECT_FLAGS flags)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_connect_func, ep, remote,
		 remote_qual, timeout, pdata_size, pdata, qos, flags);
}

DAT_RETURN dat_ep_dup_connect(DAT_EP_HANDLE ep, DAT_EP_HANDLE dup_ep,
			      DAT_TIMEOUT timeout, DAT_COUNT pdata_size,
			      const DAT_PVOID pdata, DAT_QOS qos)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_dup_connect_func, ep, dup_ep,
		 timeout, pdata_size, pdata, qos);
}

DAT_RETURN dat_ep_disconnect(DAT_EP_HANDLE ep, DAT_CLOSE_FLAGS flags)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_disconnect_func, ep, flags);
}

DAT_RETURN dat_ep_post_send(DAT_EP_HANDLE ep, DAT_COUNT nseg,
			    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    DAT_COMPLETION_FLAGS flags)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_post_send_func, ep, nseg, iov,
		 cookie, flags);
}

DAT_RETURN dat_ep_post_recv(DAT_EP_HANDLE ep, DAT_COUNT nseg,
			    DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
			    DAT_COMPLETION_FLAGS flags)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_post_recv_func, ep, nseg, iov,
		 cookie, flags);
}

DAT_RETURN dat_ep_post_rdma_read(DAT_EP_HANDLE ep, DAT_COUNT nseg,
				 DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				 const DAT_RMR_TRIPLET *remote,
				 DAT_COMPLETION_FLAGS flags)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_post_rdma_read_func, ep, nseg,
		 iov, cookie, remote, flags);
}

DAT_RETURN dat_ep_post_rdma_write(DAT_EP_HANDLE ep, DAT_COUNT nseg,
				  DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie,
				  const DAT_RMR_TRIPLET *remote,
				  DAT_COMPLETION_FLAGS flags)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_post_rdma_write_func, ep, nseg,
		 iov, cookie, remote, flags);
}

DAT_RETURN dat_ep_get_status(DAT_EP_HANDLE ep, DAT_EP_STATE *state,
			     DAT_BOOLEAN *recv_idle, DAT_BOOLEAN *request_idle)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_get_status_func, ep, state,
		 recv_idle, request_idle);
}

DAT_RETURN dat_ep_free(DAT_EP_HANDLE ep)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_free_func, ep);
}

DAT_RETURN dat_ep_reset(DAT_EP_HANDLE ep)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_reset_func, ep);
}

DAT_RETURN dat_ep_recv_query(DAT_EP_HANDLE ep, DAT_COUNT *nbufs,
			     DAT_COUNT *span)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_recv_query_func, ep, nbufs, span);
}

DAT_RETURN dat_ep_set_watermark(DAT_EP_HANDLE ep, DAT_COUNT soft_hw,
				DAT_COUNT hard_hw)
{
	DISPATCH(ep, DAT_INVALID_HANDLE_EP, ep_set_watermark_func, ep, soft_hw,
		 hard_hw);
}

/* ---- LMR ---- */

DAT_RETURN dat_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE type,
			  DAT_REGION_DESCRIPTION region, DAT_VLEN length,
			  DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			  DAT_LMR_HANDLE *lmr, DAT_LMR_CONTEXT *lmr_ctx,
			  DAT_RMR_CONTEXT *rmr_ctx, DAT_VLEN *reg_len,
			  DAT_VADDR *reg_addr)
{
	DISPATCH_IA(ia, lmr_create_func, ia, type, region, length, pz, priv,
		    lmr, lmr_ctx, rmr_ctx, reg_len, reg_addr);
}

DAT_RETURN dat_lmr_query(DAT_LMR_HANDLE lmr, DAT_LMR_PARAM_MASK mask,
			 DAT_LMR_PARAM *param)
{
	DISPATCH(lmr, DAT_INVALID_HANDLE_LMR, lmr_query_func, lmr, mask, param);
}

DAT_RETURN dat_lmr_free(DAT_LMR_HANDLE lmr)
{
	DISPATCH(lmr, DAT_INVALID_HANDLE_LMR, lmr_free_func, lmr);
}

/* Dispatched on every platform (illumos skips the provider on x86). */
DAT_RETURN dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia,
				  const DAT_LMR_TRIPLET *segments, DAT_VLEN n)
{
	DISPATCH_IA(ia, lmr_sync_rdma_read_func, ia, segments, n);
}

DAT_RETURN dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia,
				   const DAT_LMR_TRIPLET *segments, DAT_VLEN n)
{
	DISPATCH_IA(ia, lmr_sync_rdma_write_func, ia, segments, n);
}

/* ---- RMR ---- */

DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr)
{
	DISPATCH(pz, DAT_INVALID_HANDLE_PZ, rmr_create_func, pz, rmr);
}

DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr, DAT_RMR_PARAM_MASK mask,
			 DAT_RMR_PARAM *param)
{
	DISPATCH(rmr, DAT_INVALID_HANDLE_RMR, rmr_query_func, rmr, mask, param);
}

DAT_RETURN dat_rmr_bind(DAT_RMR_HANDLE rmr, const DAT_LMR_TRIPLET *triplet,
			DAT_MEM_PRIV_FLAGS priv, DAT_EP_HANDLE ep,
			DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags,
			DAT_RMR_CONTEXT *ctx)
{
	DISPATCH(rmr, DAT_INVALID_HANDLE_RMR, rmr_bind_func, rmr, triplet, priv,
		 ep, cookie, flags, ctx);
}

DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr)
{
	DISPATCH(rmr, DAT_INVALID_HANDLE_RMR, rmr_free_func, rmr);
}

/* ---- PSP ---- */

DAT_RETURN dat_psp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL qual,
			  DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
			  DAT_PSP_HANDLE *psp)
{
	DISPATCH_IA(ia, psp_create_func, ia, qual, evd, flags, psp);
}

DAT_RETURN dat_psp_create_any(DAT_IA_HANDLE ia, DAT_CONN_QUAL *qual,
			      DAT_EVD_HANDLE evd, DAT_PSP_FLAGS flags,
			      DAT_PSP_HANDLE *psp)
{
	DISPATCH_IA(ia, psp_create_any_func, ia, qual, evd, flags, psp);
}

DAT_RETURN dat_psp_query(DAT_PSP_HANDLE psp, DAT_PSP_PARAM_MASK mask,
			 DAT_PSP_PARAM *param)
{
	DISPATCH(psp, DAT_INVALID_HANDLE_PSP, psp_query_func, psp, mask, param);
}

DAT_RETURN dat_psp_free(DAT_PSP_HANDLE psp)
{
	DISPATCH(psp, DAT_INVALID_HANDLE_PSP, psp_free_func, psp);
}

/* ---- RSP ---- */

DAT_RETURN dat_rsp_create(DAT_IA_HANDLE ia, DAT_CONN_QUAL qual,
			  DAT_EP_HANDLE ep, DAT_EVD_HANDLE evd,
			  DAT_RSP_HANDLE *rsp)
{
	DISPATCH_IA(ia, rsp_create_func, ia, qual, ep, evd, rsp);
}

DAT_RETURN dat_rsp_query(DAT_RSP_HANDLE rsp, DAT_RSP_PARAM_MASK mask,
			 DAT_RSP_PARAM *param)
{
	DISPATCH(rsp, DAT_INVALID_HANDLE_RSP, rsp_query_func, rsp, mask, param);
}

DAT_RETURN dat_rsp_free(DAT_RSP_HANDLE rsp)
{
	DISPATCH(rsp, DAT_INVALID_HANDLE_RSP, rsp_free_func, rsp);
}

/* ---- PZ ---- */

DAT_RETURN dat_pz_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE *pz)
{
	DISPATCH_IA(ia, pz_create_func, ia, pz);
}

DAT_RETURN dat_pz_query(DAT_PZ_HANDLE pz, DAT_PZ_PARAM_MASK mask,
			DAT_PZ_PARAM *param)
{
	DISPATCH(pz, DAT_INVALID_HANDLE_PZ, pz_query_func, pz, mask, param);
}

DAT_RETURN dat_pz_free(DAT_PZ_HANDLE pz)
{
	DISPATCH(pz, DAT_INVALID_HANDLE_PZ, pz_free_func, pz);
}

/* ---- SRQ (dispatched through the IA, not the out-parameter) ---- */

DAT_RETURN dat_srq_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
			  DAT_SRQ_ATTR *attr, DAT_SRQ_HANDLE *srq)
{
	DISPATCH_IA(ia, srq_create_func, ia, pz, attr, srq);
}

DAT_RETURN dat_srq_free(DAT_SRQ_HANDLE srq)
{
	DISPATCH(srq, DAT_INVALID_HANDLE_SRQ, srq_free_func, srq);
}

DAT_RETURN dat_srq_post_recv(DAT_SRQ_HANDLE srq, DAT_COUNT nseg,
			     DAT_LMR_TRIPLET *iov, DAT_DTO_COOKIE cookie)
{
	DISPATCH(srq, DAT_INVALID_HANDLE_SRQ, srq_post_recv_func, srq, nseg,
		 iov, cookie);
}

DAT_RETURN dat_srq_query(DAT_SRQ_HANDLE srq, DAT_SRQ_PARAM_MASK mask,
			 DAT_SRQ_PARAM *param)
{
	DISPATCH(srq, DAT_INVALID_HANDLE_SRQ, srq_query_func, srq, mask, param);
}

DAT_RETURN dat_srq_resize(DAT_SRQ_HANDLE srq, DAT_COUNT max_recv_dto)
{
	DISPATCH(srq, DAT_INVALID_HANDLE_SRQ, srq_resize_func, srq, max_recv_dto);
}

DAT_RETURN dat_srq_set_lw(DAT_SRQ_HANDLE srq, DAT_COUNT low_watermark)
{
	DISPATCH(srq, DAT_INVALID_HANDLE_SRQ, srq_set_lw_func, srq, low_watermark);
}
