/* SPDX-License-Identifier: MIT */
/*
 * Finding cr-handoff-not-implemented (docs/certification/ofa-dapl-2.1.10/):
 * dat_cr_handoff of a Connection Request to another PSP of the same IA.
 * dat_cr_handoff(3DAT) DESCRIPTION: the request is handed to the Service
 * Point of the given qualifier; RETURN VALUES list no DAT_NOT_IMPLEMENTED.
 * First a handle that is no CR (a PZ's), which needs no connection: its
 * answer is DAT_INVALID_HANDLE, never DAT_NOT_IMPLEMENTED.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_EVD_HANDLE conn, cr_evd, other_evd;
	DAT_PSP_HANDLE psp, other;
	DAT_CONN_QUAL q, other_q;
	DAT_EP_HANDLE ep;
	DAT_EVENT ev;
	DAT_COUNT more;
	DAT_PZ_HANDLE pz;
	DAT_RETURN r = dat_pz_create(ia, &pz), by_pz = DAT_INVALID_HANDLE;

	if (r == DAT_SUCCESS)
		by_pz = dat_cr_handoff((DAT_CR_HANDLE)pz, 1);
	printf("dat_cr_handoff of a PZ's handle: %s\n", REPRO_RET(by_pz));
	r = repro_ep(ia, &ep, &conn);
	if (r != DAT_SUCCESS || !self ||
	    (r = dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 4, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &other_evd)) !=
		    DAT_SUCCESS ||
	    (r = dat_psp_create_any(ia, &q, cr_evd, DAT_PSP_CONSUMER_FLAG, &psp)) != DAT_SUCCESS ||
	    (r = dat_psp_create_any(ia, &other_q, other_evd, DAT_PSP_CONSUMER_FLAG, &other)) !=
		    DAT_SUCCESS ||
	    (r = dat_ep_connect(ep, self, q, 10000000, 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG)) != DAT_SUCCESS ||
	    (r = dat_evd_wait(cr_evd, 10000000, 1, &ev, &more)) != DAT_SUCCESS ||
	    ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
		/* no request to hand off (ucm on RoCE cannot connect): the PZ's answer alone */
		if (DAT_GET_TYPE(by_pz) == DAT_NOT_IMPLEMENTED)
			return repro_say(REPRO_SHOWS, "no Connection Request could be had (%s); "
					 "dat_cr_handoff of a PZ's handle returned %s",
					 REPRO_RET(r), REPRO_RET(by_pz));
		return repro_say(REPRO_CANNOT, "getting a Connection Request failed: %s",
				 REPRO_RET(r));
	}
	r = dat_cr_handoff(ev.event_data.cr_arrival_event_data.cr_handle, other_q);
	if (r == DAT_SUCCESS && DAT_GET_TYPE(by_pz) != DAT_NOT_IMPLEMENTED)
		return repro_say(REPRO_ABSENT, "the request was handed off");
	return repro_say(REPRO_SHOWS, "dat_cr_handoff of a live request to a PSP of the same IA "
			 "returned %s; of a PZ's handle %s", REPRO_RET(r), REPRO_RET(by_pz));
}

REPRO_MAIN(.finding = "cr-handoff-not-implemented", .body = body,
	   .if_crash = "dat_cr_handoff killed the process")
