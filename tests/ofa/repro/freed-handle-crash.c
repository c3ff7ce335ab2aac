/* SPDX-License-Identifier: MIT */
/*
 * Finding freed-handle-crash (docs/certification/ofa-dapl-2.1.10/): a PZ
 * handle given to dat_pz_query after dat_pz_free. dat_pz_free(3DAT)
 * DESCRIPTION: once the PZ is destroyed, an operation given its handle fails
 * (the page leaves a second dat_pz_free open, so that is not the call used);
 * dat_pz_query(3DAT) RETURN VALUES: DAT_INVALID_HANDLE.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_PZ_HANDLE pz;
	DAT_PZ_PARAM param;
	DAT_RETURN r = dat_pz_create(ia, &pz);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_pz_create returned %s", REPRO_RET(r));
	if ((r = dat_pz_free(pz)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_pz_free returned %s", REPRO_RET(r));
	r = dat_pz_query(pz, DAT_PZ_FIELD_ALL, &param);
	if (DAT_GET_TYPE(r) == DAT_INVALID_HANDLE)
		return repro_say(REPRO_ABSENT, "dat_pz_query of the freed PZ is refused with %s",
				 REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "dat_pz_query of a freed PZ returned %s, not "
			 "DAT_INVALID_HANDLE", REPRO_RET(r));
}

REPRO_MAIN(.finding = "freed-handle-crash", .body = body,
	   .if_crash = "dat_pz_query of a freed PZ killed the process")
