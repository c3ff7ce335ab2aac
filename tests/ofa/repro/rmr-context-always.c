/* SPDX-License-Identifier: MIT */
/*
 * Finding rmr-context-always (docs/certification/ofa-dapl-2.1.10/):
 * dat_lmr_create with local privileges only. dat_lmr_create(3DAT)
 * DESCRIPTION: when mem_privileges asks for neither remote read nor remote
 * write, no rmr_context is generated and the one returned is NULL (0).
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char buf[4096];
	DAT_PZ_HANDLE pz;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT ctx;
	DAT_RMR_CONTEXT rctx = 0xdeadbeef;
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = repro_lmr(ia, pz, buf, sizeof(buf), DAT_MEM_PRIV_LOCAL_READ_FLAG |
			   DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &lmr, &ctx, &rctx)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the LMR failed: %s", REPRO_RET(r));
	if (rctx != 0)
		return repro_say(REPRO_SHOWS, "an LMR with local privileges only returned "
				 "rmr_context 0x%x, not 0", (unsigned int)rctx);
	return repro_say(REPRO_ABSENT, "an LMR with local privileges only returned rmr_context 0");
}

REPRO_MAIN(.finding = "rmr-context-always", .body = body)
