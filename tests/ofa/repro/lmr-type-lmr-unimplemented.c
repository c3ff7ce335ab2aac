/* SPDX-License-Identifier: MIT */
/*
 * Finding lmr-type-lmr-unimplemented (docs/certification/ofa-dapl-2.1.10/):
 * dat_lmr_create with DAT_MEM_TYPE_LMR over an existing LMR.
 * dat_ia_query(3DAT) DESCRIPTION (LMR memory types supported): every Provider
 * supports DAT_MEM_TYPE_LMR; dat_lmr_create(3DAT) PARAMETERS: that type
 * registers the memory of the LMR given as the region.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char buf[4096];
	DAT_PZ_HANDLE pz;
	DAT_LMR_HANDLE lmr, over;
	DAT_LMR_CONTEXT ctx;
	DAT_RMR_CONTEXT rctx;
	DAT_REGION_DESCRIPTION region;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;
	DAT_PROVIDER_ATTR attr;
	DAT_EVD_HANDLE async;
	DAT_RETURN r;

	if ((r = dat_ia_query(ia, &async, 0, NULL, DAT_PROVIDER_FIELD_LMR_MEM_TYPE_SUPPORTED,
			      &attr)) != DAT_SUCCESS ||
	    (r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = repro_lmr(ia, pz, buf, sizeof(buf), DAT_MEM_PRIV_LOCAL_READ_FLAG |
			   DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &lmr, &ctx, &rctx)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the query, PZ or first LMR failed: %s",
				 REPRO_RET(r));
	region.for_lmr_handle = lmr;
	r = dat_lmr_create(ia, DAT_MEM_TYPE_LMR, region, sizeof(buf), pz,
			   DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
			   DAT_VA_TYPE_VA, &over, &ctx, &rctx, &reg_len, &reg_addr);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "an LMR of type DAT_MEM_TYPE_LMR was created");
	return repro_say(REPRO_SHOWS, "dat_lmr_create(DAT_MEM_TYPE_LMR) over a live LMR returned "
			 "%s; lmr_mem_types_supported (0x%x) %s the type", REPRO_RET(r),
			 (unsigned int)attr.lmr_mem_types_supported,
			 attr.lmr_mem_types_supported & DAT_MEM_TYPE_LMR ? "advertises" :
			 "does not advertise");
}

REPRO_MAIN(.finding = "lmr-type-lmr-unimplemented", .body = body)
