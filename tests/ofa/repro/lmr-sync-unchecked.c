/* SPDX-License-Identifier: MIT */
/*
 * Finding lmr-sync-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_lmr_sync_rdma_read and dat_lmr_sync_rdma_write given a segment that
 * runs past the end of its LMR, and a segment of a freed LMR.
 * dat_lmr_sync_rdma_read(3DAT) and dat_lmr_sync_rdma_write(3DAT) RETURN
 * VALUES: DAT_INVALID_PARAMETER, for example for a segment outside its LMR
 * or an invalid LMR.
 */
#include "repro.h"

#include <stdint.h>

static char accepted[256];

static void judge(const char *what, DAT_RETURN r)
{
	if (r == DAT_SUCCESS)
		snprintf(accepted + strlen(accepted), sizeof(accepted) - strlen(accepted), "%s%s",
			 accepted[0] ? ", " : "", what);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char buf[4096], gone_buf[4096];
	DAT_PZ_HANDLE pz;
	DAT_LMR_HANDLE lmr, gone;
	DAT_LMR_CONTEXT ctx, gone_ctx;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_TRIPLET past_end = { .virtual_address = (DAT_VADDR)(uintptr_t)(buf + 4096 - 16),
				     .segment_length = 64 };
	DAT_LMR_TRIPLET freed = { .virtual_address = (DAT_VADDR)(uintptr_t)gone_buf,
				  .segment_length = 64 };
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = repro_lmr(ia, pz, buf, sizeof(buf), DAT_MEM_PRIV_ALL_FLAG, &lmr, &ctx, &rctx)) !=
		    DAT_SUCCESS ||
	    (r = repro_lmr(ia, pz, gone_buf, sizeof(gone_buf), DAT_MEM_PRIV_ALL_FLAG, &gone,
			   &gone_ctx, &rctx)) != DAT_SUCCESS ||
	    (r = dat_lmr_free(gone)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the LMRs failed: %s", REPRO_RET(r));
	past_end.lmr_context = ctx;
	freed.lmr_context = gone_ctx;
	judge("read of a segment past the LMR's end", dat_lmr_sync_rdma_read(ia, &past_end, 1));
	judge("write of a segment past the LMR's end", dat_lmr_sync_rdma_write(ia, &past_end, 1));
	judge("read of a freed LMR's segment", dat_lmr_sync_rdma_read(ia, &freed, 1));
	judge("write of a freed LMR's segment", dat_lmr_sync_rdma_write(ia, &freed, 1));
	if (accepted[0])
		return repro_say(REPRO_SHOWS, "dat_lmr_sync_rdma_* returned DAT_SUCCESS for: %s",
				 accepted);
	return repro_say(REPRO_ABSENT, "no invalid segment was accepted");
}

REPRO_MAIN(.finding = "lmr-sync-unchecked", .body = body)
