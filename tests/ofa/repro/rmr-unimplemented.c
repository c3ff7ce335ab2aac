/* SPDX-License-Identifier: MIT */
/*
 * Finding rmr-unimplemented (docs/certification/ofa-dapl-2.1.10/): the first
 * dat_rmr_create of a fresh IA that reports max_rmrs > 0. dat_rmr_create(3DAT)
 * DESCRIPTION: the call creates an RMR for the PZ; RETURN VALUES:
 * DAT_INSUFFICIENT_RESOURCES only when resources run short, which an IA that
 * offers RMRs and holds none cannot claim. An IA that reports max_rmrs 0 may
 * refuse, and is not judged.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_IA_ATTR attr;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_RMR_HANDLE rmr;
	DAT_RETURN r;

	if ((r = dat_ia_query(ia, &async, DAT_IA_FIELD_IA_MAX_RMRS, &attr, 0, NULL)) != DAT_SUCCESS ||
	    (r = dat_pz_create(ia, &pz)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ia_query or dat_pz_create failed: %s",
				 REPRO_RET(r));
	if (attr.max_rmrs <= 0)
		return repro_say(REPRO_ABSENT, "the IA reports max_rmrs %d: it offers no RMR",
				 (int)attr.max_rmrs);
	r = dat_rmr_create(pz, &rmr);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "the first RMR was created (max_rmrs %d)",
				 (int)attr.max_rmrs);
	return repro_say(REPRO_SHOWS, "the first dat_rmr_create of an IA reporting max_rmrs %d "
			 "returned %s", (int)attr.max_rmrs, REPRO_RET(r));
}

REPRO_MAIN(.finding = "rmr-unimplemented", .body = body)
