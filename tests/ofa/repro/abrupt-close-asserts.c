/* SPDX-License-Identifier: MIT */
/*
 * Finding abrupt-close-asserts (docs/certification/ofa-dapl-2.1.10/):
 * an abrupt dat_ia_close of an IA whose RSP has received a connection request
 * (its EP Passive Connection Pending). dat_ia_close(3DAT) DESCRIPTION: the
 * abrupt close destroys every object of the IA, EPs and Service Points
 * included, whatever their state; USAGE: it completes successfully under all
 * conditions.
 */
#include "repro.h"

#define QUAL 62011

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_EVD_HANDLE conn, active_conn, cr_evd;
	DAT_EP_HANDLE ep, active;
	DAT_RSP_HANDLE rsp;
	DAT_EVENT event;
	DAT_COUNT nmore;
	DAT_EP_STATE state;
	DAT_BOOLEAN idle;
	DAT_RETURN r;

	if (!self || (r = repro_ep(ia, &ep, &conn)) != DAT_SUCCESS ||
	    (r = repro_ep(ia, &active, &active_conn)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr_evd)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the EPs failed");
	if ((r = dat_rsp_create(ia, QUAL, ep, cr_evd, &rsp)) != DAT_SUCCESS ||
	    (r = dat_ep_connect(active, self, QUAL, 2000000, 0, NULL, DAT_QOS_BEST_EFFORT,
				DAT_CONNECT_DEFAULT_FLAG)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_rsp_create or dat_ep_connect returned %s",
				 REPRO_RET(r));
	r = dat_evd_wait(cr_evd, 5000000, 1, &event, &nmore);
	if (r != DAT_SUCCESS || event.event_number != DAT_CONNECTION_REQUEST_EVENT)
		return repro_say(REPRO_CANNOT, "no connection request reached the RSP: %s",
				 REPRO_RET(r));
	dat_ep_get_status(ep, &state, &idle, &idle);
	printf("the RSP's EP is in state %d (DAT_EP_STATE_PASSIVE_CONNECTION_PENDING is %d); "
	       "closing the IA abruptly\n", (int)state, (int)DAT_EP_STATE_PASSIVE_CONNECTION_PENDING);
	fflush(stdout);
	r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "the abrupt close returned %s", REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "the abrupt close succeeded");
}

REPRO_MAIN(.finding = "abrupt-close-asserts", .body = body,
	   .if_crash = "the abrupt close of an IA whose RSP holds a connection request killed "
		       "the process")
