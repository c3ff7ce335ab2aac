// SPDX-License-Identifier: MIT
/*
 * abi.c - the DAT 1.2 implementation of the calls of dc_abi.h that differ
 * between the ABIs (the rest is in mem.c).  The DAT 2.0 build of the
 * cases (libdatcts2) replaces this file with abi20.c.
 */
#include "datcts.h"

#include <string.h>

DAT_RMR_TRIPLET dc_rmr_triplet(DAT_RMR_CONTEXT ctx, DAT_VADDR addr, DAT_VLEN len)
{
	DAT_RMR_TRIPLET r;

	memset(&r, 0, sizeof(r));
	r.rmr_context = ctx;
	r.target_address = addr;
	r.segment_length = len;
	return r;
}

DAT_VADDR dc_rmr_triplet_address(const DAT_RMR_TRIPLET *r)
{
	return r->target_address;
}

DAT_RETURN dc_dat_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE type,
			     DAT_REGION_DESCRIPTION region, DAT_VLEN len,
			     DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			     DAT_LMR_HANDLE *lmr, DAT_LMR_CONTEXT *lmr_context,
			     DAT_RMR_CONTEXT *rmr_context,
			     DAT_VLEN *registered_length,
			     DAT_VADDR *registered_address)
{
	return dat_lmr_create(ia, type, region, len, pz, priv, lmr, lmr_context,
			      rmr_context, registered_length, registered_address);
}

DAT_RETURN dc_dat_rmr_bind(DAT_RMR_HANDLE rmr, DAT_LMR_HANDLE lmr,
			   const DAT_LMR_TRIPLET *iov, DAT_MEM_PRIV_FLAGS priv,
			   DAT_EP_HANDLE ep, DAT_RMR_COOKIE cookie,
			   DAT_COMPLETION_FLAGS flags, DAT_RMR_CONTEXT *ctx)
{
	(void)lmr;	/* 1.2 finds the LMR through iov->lmr_context */
	return dat_rmr_bind(rmr, (DAT_LMR_TRIPLET *)iov, priv, ep, cookie, flags,
			    ctx);
}

DAT_OS_WAIT_PROXY_AGENT dc_cno_agent(const DAT_CNO_PARAM *p)
{
	return p->agent;
}

bool dc_ia_handle_names(DAT_IA_HANDLE reported, DAT_IA_HANDLE ia)
{
	return reported == ia;
}

DAT_IA_HANDLE dc_provider_ia_handle(DAT_IA_HANDLE ia)
{
	return ia;
}

DAT_PROVIDER *dc_ia_provider(DAT_IA_HANDLE ia)
{
	return DAT_HANDLE_TO_PROVIDER(ia);
}

DAT_RETURN dc_dat_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT private_data_size,
			    const void *private_data)
{
	(void)private_data_size;	/* 1.2's reject carries no private data */
	(void)private_data;
	return dat_cr_reject(cr);
}

static const DAT_EP_PARAM_MASK ep_field_masks[] = {
	DAT_EP_FIELD_IA_HANDLE, DAT_EP_FIELD_EP_STATE,
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
