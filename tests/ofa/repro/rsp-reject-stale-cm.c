/* SPDX-License-Identifier: MIT */
/*
 * Finding rsp-reject-stale-cm (docs/certification/ofa-dapl-2.1.10/):
 * an RSP's EP gets a Connection Request, the request is rejected and the
 * EP freed. dat_cr_reject(3DAT) DESCRIPTION: the EP given to
 * an RSP returns to the Consumer, to use as it likes; dat_ep_free(3DAT)
 * DESCRIPTION: rejecting the request is how a Passive Connection Pending
 * EP is made free-able, and the free then succeeds.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_end a, e;
	DAT_EVD_HANDLE cr_evd;
	DAT_RSP_HANDLE rsp;
	DAT_CR_HANDLE cr;
	DAT_CONN_QUAL q;
	DAT_RETURN r;

	if ((r = repro_end(ia, &a)) != DAT_SUCCESS || (r = repro_end(ia, &e)) != DAT_SUCCESS ||
	    (r = repro_rsp(ia, &e, &q, &cr_evd, &rsp)) != DAT_SUCCESS ||
	    (r = repro_request(ia, &a, q, cr_evd, &cr)) != DAT_SUCCESS ||
	    (r = dat_cr_reject(cr, 0, NULL)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting and rejecting a request of an RSP failed: %s",
				 REPRO_RET(r));
	r = dat_ep_free(e.ep);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "the RSP's EP is freed after the reject");
	return repro_say(REPRO_SHOWS, "dat_ep_free of the RSP's EP after the reject returned %s",
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "rsp-reject-stale-cm", .body = body,
	   .if_crash = "dat_ep_free of an RSP's EP whose request was rejected killed the process")
