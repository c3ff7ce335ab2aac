/* SPDX-License-Identifier: MIT */
/*
 * Finding shared-virtual-unimplemented (docs/certification/ofa-dapl-2.1.10/):
 * dat_lmr_create with DAT_MEM_TYPE_SHARED_VIRTUAL over memory mapped shared,
 * named by a cookie. dat_ia_query(3DAT) DESCRIPTION (LMR memory types
 * supported): every Provider supports DAT_MEM_TYPE_SHARED_VIRTUAL;
 * dat_lmr_create(3DAT) PARAMETERS: the type registers shared memory that the
 * platform allocated as shared, named by the Consumer's cookie.
 */
#include "repro.h"

#include <sys/mman.h>

static DAT_RETURN shared_lmr(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, void *addr,
			     char (*cookie)[DAT_LMR_COOKIE_SIZE])
{
	DAT_REGION_DESCRIPTION region = {
		.for_shared_memory = { .virtual_address = addr, .shared_memory_id = cookie }
	};
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT ctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;

	return dat_lmr_create(ia, DAT_MEM_TYPE_SHARED_VIRTUAL, region, 4096, pz,
			      DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
			      DAT_VA_TYPE_VA, &lmr, &ctx, &rctx, &reg_len, &reg_addr);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char cookie[DAT_LMR_COOKIE_SIZE] = "datcts shared-virtual reproducer";
	static char private_cookie[DAT_LMR_COOKIE_SIZE] = "datcts private memory";
	static char private_buf[4096] __attribute__((aligned(4096)));
	void *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	DAT_PZ_HANDLE pz;
	DAT_RETURN r, rp;

	if (shared == MAP_FAILED || (r = dat_pz_create(ia, &pz)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "mmap or dat_pz_create failed");
	r = shared_lmr(ia, pz, shared, &cookie);
	/* The page's example of DAT_INVALID_STATE, shown for the report only. */
	rp = shared_lmr(ia, pz, private_buf, &private_cookie);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "the shared region was registered (private memory: "
				 "%s)", REPRO_RET(rp));
	return repro_say(REPRO_SHOWS, "dat_lmr_create(DAT_MEM_TYPE_SHARED_VIRTUAL) of a "
			 "MAP_SHARED region returned %s (of private memory: %s)", REPRO_RET(r),
			 REPRO_RET(rp));
}

REPRO_MAIN(.finding = "shared-virtual-unimplemented", .body = body)
