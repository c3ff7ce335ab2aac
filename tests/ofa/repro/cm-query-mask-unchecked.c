/* SPDX-License-Identifier: MIT */
/*
 * Finding cm-query-mask-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_psp_query, dat_rsp_query and dat_cr_query with a mask bit that names
 * no parameter (the lowest bit above the page's ..._FIELD_ALL). Their
 * RETURN VALUES: DAT_INVALID_PARAMETER for an invalid mask.
 */
#include "repro.h"

/* The lowest bit the mask's ..._FIELD_ALL leaves out. */
#define UNUSED_BIT(all) (((DAT_UINT64)(all) + 1) & ~(DAT_UINT64)(all))

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_end a, e;
	DAT_EVD_HANDLE cr_evd, rsp_evd;
	DAT_PSP_HANDLE psp;
	DAT_RSP_HANDLE rsp;
	DAT_CR_HANDLE cr;
	DAT_CONN_QUAL q, rq;
	DAT_PSP_PARAM pp;
	DAT_RSP_PARAM rp;
	DAT_CR_PARAM cp;
	DAT_RETURN r, rets[3];
	static const char *const call[] = { "dat_psp_query", "dat_rsp_query", "dat_cr_query" };
	char accepted[256] = "";

	if ((r = repro_end(ia, &a)) != DAT_SUCCESS || (r = repro_end(ia, &e)) != DAT_SUCCESS ||
	    (r = repro_psp(ia, &q, &cr_evd, &psp)) != DAT_SUCCESS ||
	    (r = repro_rsp(ia, &e, &rq, &rsp_evd, &rsp)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making a PSP and an RSP failed: %s", REPRO_RET(r));
	rets[0] = dat_psp_query(psp, UNUSED_BIT(DAT_PSP_FIELD_ALL), &pp);
	rets[1] = dat_rsp_query(rsp, UNUSED_BIT(DAT_RSP_FIELD_ALL), &rp);
	/* the CR needs a connection request, which some IAs cannot make (ucm on
	 * RoCE): the PSP and RSP queries are judged without it */
	r = repro_request(ia, &a, q, cr_evd, &cr);
	rets[2] = r == DAT_SUCCESS ? dat_cr_query(cr, UNUSED_BIT(DAT_CR_FIELD_ALL), &cp) :
				     DAT_INVALID_PARAMETER;
	if (r != DAT_SUCCESS)
		printf("no Connection Request (%s): dat_cr_query not tried\n", REPRO_RET(r));
	for (int i = 0; i < 3; i++)
		if (DAT_GET_TYPE(rets[i]) != DAT_INVALID_PARAMETER)
			snprintf(accepted + strlen(accepted), sizeof(accepted) - strlen(accepted),
				 "%s%s: %s", *accepted ? ", " : "", call[i], REPRO_RET(rets[i]));
	if (!*accepted && r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the PSP and RSP queries refuse the mask; the CR "
				 "query could not be tried");
	if (!*accepted)
		return repro_say(REPRO_ABSENT, "a mask bit above ..._FIELD_ALL is refused by all "
				 "three queries");
	return repro_say(REPRO_SHOWS, "a mask bit above ..._FIELD_ALL (PSP 0x%llx, RSP 0x%llx, "
			 "CR 0x%llx) is not refused with DAT_INVALID_PARAMETER: %s",
			 (unsigned long long)UNUSED_BIT(DAT_PSP_FIELD_ALL),
			 (unsigned long long)UNUSED_BIT(DAT_RSP_FIELD_ALL),
			 (unsigned long long)UNUSED_BIT(DAT_CR_FIELD_ALL), accepted);
}

REPRO_MAIN(.finding = "cm-query-mask-unchecked", .body = body,
	   .if_crash = "a query with a mask bit above ..._FIELD_ALL killed the process")
