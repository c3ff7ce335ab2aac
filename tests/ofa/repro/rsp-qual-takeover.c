/* SPDX-License-Identifier: MIT */
/*
 * Finding rsp-qual-takeover (docs/certification/ofa-dapl-2.1.10/):
 * dat_rsp_create on the qualifier of a live RSP of the same IA.
 * dat_rsp_create(3DAT) RETURN VALUES: DAT_CONN_QUAL_IN_USE when the
 * qualifier is in use.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_end e1, e2;
	DAT_EVD_HANDLE evd1, evd2;
	DAT_RSP_HANDLE rsp1, rsp2;
	DAT_RSP_PARAM p1;
	DAT_CONN_QUAL q;
	DAT_RETURN r;

	if ((r = repro_end(ia, &e1)) != DAT_SUCCESS || (r = repro_end(ia, &e2)) != DAT_SUCCESS ||
	    (r = repro_rsp(ia, &e1, &q, &evd1, &rsp1)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &evd2)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the first RSP failed: %s", REPRO_RET(r));
	r = dat_rsp_create(ia, q, e2.ep, evd2, &rsp2);
	if (DAT_GET_TYPE(r) == DAT_CONN_QUAL_IN_USE)
		return repro_say(REPRO_ABSENT, "a second RSP on the qualifier is refused with %s",
				 REPRO_RET(r));
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_rsp_create on a live RSP's qualifier returned %s, "
				 "not DAT_CONN_QUAL_IN_USE", REPRO_RET(r));
	/* what became of the first RSP: OFA hands out the same object, rewritten */
	r = dat_rsp_query(rsp1, DAT_RSP_FIELD_ALL, &p1);
	return repro_say(REPRO_SHOWS, "dat_rsp_create on a live RSP's qualifier returned "
			 "DAT_SUCCESS (handle %s the first's; the first RSP %s)",
			 rsp2 == rsp1 ? "equal to" : "other than",
			 r != DAT_SUCCESS ? "no longer answers its query" :
			 p1.ep_handle == e2.ep ? "now names the second EP" : "still names its EP");
}

REPRO_MAIN(.finding = "rsp-qual-takeover", .body = body,
	   .if_crash = "dat_rsp_create on a live RSP's qualifier killed the process")
