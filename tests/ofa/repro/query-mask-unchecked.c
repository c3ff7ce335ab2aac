/* SPDX-License-Identifier: MIT */
/*
 * Finding query-mask-unchecked (docs/certification/ofa-dapl-2.1.10/): the
 * query calls given a mask whose only bit names no field (the lowest bit
 * above DAT_*_FIELD_ALL). dat_cno_query(3DAT), dat_evd_query(3DAT),
 * dat_lmr_query(3DAT), dat_pz_query(3DAT) RETURN VALUES: DAT_INVALID_PARAMETER
 * for an invalid mask; dat_ia_query(3DAT) RETURN VALUES: the same for an
 * invalid parameter, here the Provider attribute mask.
 */
#include "repro.h"

/* The lowest bit above every bit of the mask that selects all fields. */
static DAT_UINT64 bit_above(DAT_UINT64 all)
{
	DAT_UINT64 bit = 1;

	while (bit <= all)
		bit <<= 1;
	return bit;
}

static char accepted[256];

static void judge(const char *call, DAT_UINT64 mask, DAT_RETURN r)
{
	if (r != DAT_SUCCESS)
		return;
	snprintf(accepted + strlen(accepted), sizeof(accepted) - strlen(accepted), "%s%s(0x%llx)",
		 accepted[0] ? ", " : "", call, (unsigned long long)mask);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char buf[4096];
	DAT_PZ_HANDLE pz;
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE evd, async;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_CNO_PARAM cno_param;
	DAT_EVD_PARAM evd_param;
	DAT_LMR_PARAM lmr_param;
	DAT_PZ_PARAM pz_param;
	DAT_PROVIDER_ATTR prov_attr;
	DAT_UINT64 m;
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd)) !=
		    DAT_SUCCESS ||
	    (r = repro_lmr(ia, pz, buf, sizeof(buf), DAT_MEM_PRIV_LOCAL_READ_FLAG, &lmr, &lctx,
			   &rctx)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the objects to query failed: %s",
				 REPRO_RET(r));
	m = bit_above(DAT_CNO_FIELD_ALL);
	judge("dat_cno_query", m, dat_cno_query(cno, (DAT_CNO_PARAM_MASK)m, &cno_param));
	m = bit_above(DAT_EVD_FIELD_ALL);
	judge("dat_evd_query", m, dat_evd_query(evd, (DAT_EVD_PARAM_MASK)m, &evd_param));
	m = bit_above(DAT_LMR_FIELD_ALL);
	judge("dat_lmr_query", m, dat_lmr_query(lmr, (DAT_LMR_PARAM_MASK)m, &lmr_param));
	m = bit_above(DAT_PZ_FIELD_ALL);
	judge("dat_pz_query", m, dat_pz_query(pz, (DAT_PZ_PARAM_MASK)m, &pz_param));
	m = bit_above(DAT_PROVIDER_FIELD_ALL);
	judge("dat_ia_query provider mask", m, dat_ia_query(ia, &async, 0, NULL, m, &prov_attr));
	if (accepted[0])
		return repro_say(REPRO_SHOWS, "masks naming no field returned DAT_SUCCESS: %s",
				 accepted);
	return repro_say(REPRO_ABSENT, "no mask naming no field was accepted");
}

REPRO_MAIN(.finding = "query-mask-unchecked", .body = body)
