/* SPDX-License-Identifier: MIT */
/*
 * Finding lmr-privileges-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_lmr_create with a privilege bit that no flag defines. dat_lmr_create(3DAT)
 * PARAMETERS: mem_privileges is made of the defined privilege flags; RETURN
 * VALUES: DAT_INVALID_PARAMETER for an invalid parameter. 0x04 is defined by
 * neither the DAT 1.2 nor the DAT 2.0 headers and lies below the range 2.0
 * keeps for extension privileges (DAT_MEM_PRIV_EXTENSION_BASE, 0x40).
 */
#include "repro.h"

#define UNDEFINED_PRIVILEGE 0x04

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char buf[4096];
	DAT_PZ_HANDLE pz;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT ctx;
	DAT_RMR_CONTEXT rctx;
	DAT_RETURN r = dat_pz_create(ia, &pz);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_pz_create returned %s", REPRO_RET(r));
	r = repro_lmr(ia, pz, buf, sizeof(buf),
		      (DAT_MEM_PRIV_FLAGS)(DAT_MEM_PRIV_LOCAL_READ_FLAG | UNDEFINED_PRIVILEGE), &lmr,
		      &ctx, &rctx);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_lmr_create with privileges 0x%x (0x%x defines "
				 "nothing) returned DAT_SUCCESS", DAT_MEM_PRIV_LOCAL_READ_FLAG |
				 UNDEFINED_PRIVILEGE, UNDEFINED_PRIVILEGE);
	return repro_say(REPRO_ABSENT, "the undefined privilege 0x%x was refused with %s",
			 UNDEFINED_PRIVILEGE, REPRO_RET(r));
}

REPRO_MAIN(.finding = "lmr-privileges-unchecked", .body = body)
