// SPDX-License-Identifier: MIT
/*
 * abi20.c - what is DAT 2.0's own in libdaplref2.so (built with REF_DAT2
 * against Debian's <dat2/...>, registered through libdat2): the 2.0
 * dispatch table, the three 1.2 entry points whose 2.0 signatures differ,
 * the 2.0-only entry points, and the attribute and event members only
 * 2.0 has.  What each 2.0-only function does, and why, is in
 * docs/reference-provider.md ("DAT 2.0").
 */
#include "provider_table.h"

#include <string.h>

/* ---- the 1.2 functions whose 2.0 signatures differ ----------------------- */

/*
 * Zero-based virtual addressing is optional (DAT_IA_ATTR zb_supported); this
 * provider offers plain virtual addresses only, and says so.
 */
static DAT_RETURN check_va_type(DAT_VA_TYPE va_type, DAT_RETURN_SUBTYPE arg)
{
	if (va_type == DAT_VA_TYPE_VA)
		return DAT_SUCCESS;
	if (va_type == DAT_VA_TYPE_ZB)
		return DAT_MODEL_NOT_SUPPORTED;
	return REF_ERR(DAT_INVALID_PARAMETER, arg);
}

static DAT_RETURN lmr_create2(DAT_IA_HANDLE ia, DAT_MEM_TYPE type,
			      DAT_REGION_DESCRIPTION region, DAT_VLEN length,
			      DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			      DAT_VA_TYPE va_type, DAT_LMR_HANDLE *lmr,
			      DAT_LMR_CONTEXT *lmr_context,
			      DAT_RMR_CONTEXT *rmr_context,
			      DAT_VLEN *registered_size,
			      DAT_VADDR *registered_address)
{
	DAT_RETURN rc = check_va_type(va_type, DAT_INVALID_ARG7);

	if (rc != DAT_SUCCESS)
		return rc;
	return ref_lmr_create(ia, type, region, length, pz, priv, lmr,
			      lmr_context, rmr_context, registered_size,
			      registered_address);
}

/*
 * 2.0 passes the LMR handle beside the triplet.  Core finds the LMR from the
 * triplet's lmr_context, so the two must name the same LMR; an unbind
 * (segment_length 0) names no memory and ignores the handle.
 */
static DAT_RETURN rmr_bind2(DAT_RMR_HANDLE rmr, DAT_LMR_HANDLE lmr_handle,
			    const DAT_LMR_TRIPLET *triplet,
			    DAT_MEM_PRIV_FLAGS priv, DAT_VA_TYPE va_type,
			    DAT_EP_HANDLE ep, DAT_RMR_COOKIE cookie,
			    DAT_COMPLETION_FLAGS flags,
			    DAT_RMR_CONTEXT *rmr_context)
{
	DAT_RETURN rc = check_va_type(va_type, DAT_INVALID_ARG5);
	struct ref_obj *obj;
	DAT_LMR_CONTEXT context;

	if (rc != DAT_SUCCESS)
		return rc;
	if (triplet && triplet->segment_length) {
		rc = ref_obj_acquire(lmr_handle, DAT_HANDLE_TYPE_LMR, 0, &obj);
		if (rc != DAT_SUCCESS)
			return rc;
		context = ref_container_of(obj, struct ref_lmr, obj)->lmr_context;
		ref_obj_release(obj);
		if (context != triplet->lmr_context)
			return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	}
	return ref_rmr_bind(rmr, triplet, priv, ep, cookie, flags,
			    rmr_context);
}

/* ---- the 2.0-only functions ------------------------------------------------ */

/*
 * Common Service Points and dat_ep_common_connect (which targets one) bind a
 * listener to an IP port instead of a connection qualifier; RMRs scoped to
 * one EP, Send with remote invalidation and RDMA Read into an RMR need
 * memory windows this provider does not have (its RMR scope is the PZ).
 * Each answers DAT_MODEL_NOT_SUPPORTED, which DAT_PROVIDER_ATTR announces
 * beforehand (rmr_scope_supported, ha_supported) for those it can.
 */
static DAT_RETURN csp_create(DAT_IA_HANDLE ia, DAT_COMM *comm,
			     DAT_IA_ADDRESS_PTR addr, DAT_EVD_HANDLE evd,
			     DAT_CSP_HANDLE *csp)
{
	(void)ia, (void)comm, (void)addr, (void)evd, (void)csp;
	return DAT_MODEL_NOT_SUPPORTED;
}

static DAT_RETURN csp_query(DAT_CSP_HANDLE csp, DAT_CSP_PARAM_MASK mask,
			    DAT_CSP_PARAM *param)
{
	(void)csp, (void)mask, (void)param;
	return DAT_MODEL_NOT_SUPPORTED;
}

static DAT_RETURN csp_free(DAT_CSP_HANDLE csp)
{
	(void)csp;
	return DAT_MODEL_NOT_SUPPORTED;
}

static DAT_RETURN ep_common_connect(DAT_EP_HANDLE ep, DAT_IA_ADDRESS_PTR addr,
				    DAT_TIMEOUT timeout, DAT_COUNT pdata_size,
				    const DAT_PVOID pdata)
{
	(void)ep, (void)addr, (void)timeout, (void)pdata_size, (void)pdata;
	return DAT_MODEL_NOT_SUPPORTED;
}

static DAT_RETURN rmr_create_for_ep(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr)
{
	(void)pz, (void)rmr;
	return DAT_MODEL_NOT_SUPPORTED;
}

static DAT_RETURN post_send_with_invalidate(DAT_EP_HANDLE ep, DAT_COUNT nsegs,
					    DAT_LMR_TRIPLET *iov,
					    DAT_DTO_COOKIE cookie,
					    DAT_COMPLETION_FLAGS flags,
					    DAT_BOOLEAN invalidate,
					    DAT_RMR_CONTEXT rmr_context)
{
	(void)ep, (void)nsegs, (void)iov, (void)cookie, (void)flags;
	(void)invalidate, (void)rmr_context;
	return DAT_MODEL_NOT_SUPPORTED;
}

static DAT_RETURN post_rdma_read_to_rmr(DAT_EP_HANDLE ep,
					const DAT_RMR_TRIPLET *local,
					DAT_DTO_COOKIE cookie,
					const DAT_RMR_TRIPLET *remote,
					DAT_COMPLETION_FLAGS flags)
{
	(void)ep, (void)local, (void)cookie, (void)remote, (void)flags;
	return DAT_MODEL_NOT_SUPPORTED;
}

static DAT_RETURN cno_fd_create(DAT_IA_HANDLE ia, DAT_FD *fd,
				DAT_CNO_HANDLE *cno)
{
	(void)ia, (void)fd, (void)cno;
	return DAT_MODEL_NOT_SUPPORTED;
}

static DAT_RETURN cno_trigger(DAT_CNO_HANDLE cno, DAT_EVD_HANDLE *evd)
{
	(void)cno, (void)evd;
	return DAT_MODEL_NOT_SUPPORTED;
}

/* No high availability: ha_supported is DAT_FALSE. */
static DAT_RETURN ia_ha_related(DAT_IA_HANDLE ia, const DAT_NAME_PTR name,
				DAT_BOOLEAN *answer)
{
	(void)ia, (void)name, (void)answer;
	return DAT_MODEL_NOT_SUPPORTED;
}

/* No extension: extension_supported is DAT_EXTENSION_NONE. */
static DAT_RETURN extended_op(DAT_HANDLE handle, DAT_EXTENDED_OP op,
			      va_list args)
{
	(void)handle, (void)op, (void)args;
	return DAT_NOT_IMPLEMENTED;
}

DAT_PROVIDER ref_provider = {
	.device_name = "ref",
	.extension = NULL,
	REF_PROVIDER_SHARED_FUNCS,
	.cr_reject_func = ref_cr_reject_with_data,
	.lmr_create_func = lmr_create2,
	.rmr_bind_func = rmr_bind2,

	.csp_create_func = csp_create,
	.csp_query_func = csp_query,
	.csp_free_func = csp_free,
	.ep_common_connect_func = ep_common_connect,
	.rmr_create_for_ep_func = rmr_create_for_ep,
	.ep_post_send_with_invalidate_func = post_send_with_invalidate,
	.ep_post_rdma_read_to_rmr_func = post_rdma_read_to_rmr,
	.cno_fd_create_func = cno_fd_create,
	.cno_trigger_func = cno_trigger,
	.ia_ha_related_func = ia_ha_related,
	.handle_extendedop_func = extended_op,
};

/* ---- members only 2.0 has ------------------------------------------------- */

void ref_abi_fill_ia_attr(DAT_IA_ATTR *attr)
{
	attr->zb_supported = DAT_FALSE;
	attr->extension_supported = DAT_EXTENSION_NONE;
	attr->extension_version = 0;
}

void ref_abi_fill_provider_attr(DAT_PROVIDER_ATTR *attr)
{
	/* an RDMA Read's local buffers need no remote access rights */
	attr->rdma_read_lmr_rmr_context_exposure = DAT_FALSE;
	attr->rmr_scope_supported = DAT_RMR_SCOPE_PZ;
	attr->is_signal_safe = DAT_FALSE;
	attr->ha_supported = DAT_FALSE;
	attr->ha_loadbalancing = DAT_HA_LB_NONE;
}

void ref_abi_fill_cno_agent(DAT_CNO_PARAM *param,
			    const DAT_OS_WAIT_PROXY_AGENT *agent)
{
	param->proxy_type = DAT_PROXY_TYPE_AGENT;
	param->proxy.agent = *agent;
}

void ref_abi_fill_rmr_param(DAT_RMR_PARAM *param)
{
	param->rmr_scope = DAT_RMR_SCOPE_PZ;
	param->va_type = DAT_VA_TYPE_VA;
}

void ref_abi_fill_dto_event(DAT_EVENT *ev, int op)
{
	static const DAT_DTOS dtos[] = {
		[REF_WR_SEND] = DAT_DTO_SEND,
		[REF_WR_RECV] = DAT_DTO_RECEIVE,
		[REF_WR_RDMA_READ] = DAT_DTO_RDMA_READ,
		[REF_WR_RDMA_WRITE] = DAT_DTO_RDMA_WRITE,
	};

	if (op >= 0 && op < (int)(sizeof(dtos) / sizeof(dtos[0])))
		ev->event_data.dto_completion_event_data.operation = dtos[op];
}
