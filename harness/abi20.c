// SPDX-License-Identifier: MIT
/*
 * abi20.c - the DAT 2.0 implementation of dc_abi.h (Debian's <dat2/udat.h>),
 * built into libdatcts2 in place of abi.c; the differences it carries are
 * those of dat12-facts.md section 5.
 */
#include "datcts.h"

#include <string.h>

DAT_RMR_TRIPLET dc_rmr_triplet(DAT_RMR_CONTEXT ctx, DAT_VADDR addr, DAT_VLEN len)
{
	DAT_RMR_TRIPLET r;

	memset(&r, 0, sizeof(r));
	r.rmr_context = ctx;
	r.virtual_address = addr;
	r.segment_length = len;
	return r;
}

DAT_VADDR dc_rmr_triplet_address(const DAT_RMR_TRIPLET *r)
{
	return r->virtual_address;
}

DAT_RETURN dc_dat_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE type,
			     DAT_REGION_DESCRIPTION region, DAT_VLEN len,
			     DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			     DAT_LMR_HANDLE *lmr, DAT_LMR_CONTEXT *lmr_context,
			     DAT_RMR_CONTEXT *rmr_context,
			     DAT_VLEN *registered_length,
			     DAT_VADDR *registered_address)
{
	return dat_lmr_create(ia, type, region, len, pz, priv, DAT_VA_TYPE_VA,
			      lmr, lmr_context, rmr_context, registered_length,
			      registered_address);
}

DAT_RETURN dc_dat_rmr_bind(DAT_RMR_HANDLE rmr, DAT_LMR_HANDLE lmr,
			   const DAT_LMR_TRIPLET *iov, DAT_MEM_PRIV_FLAGS priv,
			   DAT_EP_HANDLE ep, DAT_RMR_COOKIE cookie,
			   DAT_COMPLETION_FLAGS flags, DAT_RMR_CONTEXT *ctx)
{
	return dat_rmr_bind(rmr, lmr, (DAT_LMR_TRIPLET *)iov, priv,
			    DAT_VA_TYPE_VA, ep, cookie, flags, ctx);
}

DAT_OS_WAIT_PROXY_AGENT dc_cno_agent(const DAT_CNO_PARAM *p)
{
	return p->proxy.agent;
}

/* Exported by libdat2 (OFA dat/common/dat_api.c), not declared in its headers. */
extern DAT_RETURN dats_get_ia_handle(DAT_IA_HANDLE handle, DAT_IA_HANDLE *ia_handle_p);

bool dc_ia_handle_names(DAT_IA_HANDLE reported, DAT_IA_HANDLE ia)
{
	DAT_IA_HANDLE provider_ia = DAT_HANDLE_NULL;

	if (reported == ia)
		return true;
	return dats_get_ia_handle(ia, &provider_ia) == DAT_SUCCESS &&
	       provider_ia != DAT_HANDLE_NULL && reported == provider_ia;
}

DAT_IA_HANDLE dc_provider_ia_handle(DAT_IA_HANDLE ia)
{
	DAT_IA_HANDLE provider_ia = DAT_HANDLE_NULL;

	if (dats_get_ia_handle(ia, &provider_ia) != DAT_SUCCESS)
		return DAT_HANDLE_NULL;
	return provider_ia;
}

DAT_PROVIDER *dc_ia_provider(DAT_IA_HANDLE ia)
{
	DAT_IA_HANDLE provider_ia = DAT_HANDLE_NULL;

	if (dats_get_ia_handle(ia, &provider_ia) != DAT_SUCCESS || !provider_ia)
		return NULL;
	return DAT_HANDLE_TO_PROVIDER(provider_ia);
}

DAT_RETURN dc_dat_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT private_data_size,
			    const void *private_data)
{
	return dat_cr_reject(cr, private_data_size, (DAT_PVOID)private_data);
}

/* abi.c's list, plus the member 2.0 adds after ep_state (comm) */
static const DAT_EP_PARAM_MASK ep_field_masks[] = {
	DAT_EP_FIELD_IA_HANDLE, DAT_EP_FIELD_EP_STATE, DAT_EP_FIELD_COMM,
	DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR, DAT_EP_FIELD_LOCAL_PORT_QUAL,
	DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR, DAT_EP_FIELD_REMOTE_PORT_QUAL,
	DAT_EP_FIELD_PZ_HANDLE, DAT_EP_FIELD_RECV_EVD_HANDLE,
	DAT_EP_FIELD_REQUEST_EVD_HANDLE, DAT_EP_FIELD_CONNECT_EVD_HANDLE,
	DAT_EP_FIELD_SRQ_HANDLE,
	DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE,
	DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, DAT_EP_FIELD_EP_ATTR_QOS,
	DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
	DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
	DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS,
	DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV,
	DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN,
	DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT,
	DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR,
	DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR,
	DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR,
	DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR,
};

int dc_ep_field_masks(const DAT_EP_PARAM_MASK **masks)
{
	*masks = ep_field_masks;
	return (int)(sizeof(ep_field_masks) / sizeof(ep_field_masks[0]));
}
