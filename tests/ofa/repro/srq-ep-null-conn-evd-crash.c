/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-ep-null-conn-evd-crash (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_create_with_srq with connect_evd_handle DAT_HANDLE_NULL, first with
 * default completion flags, then as the failing case did: one EVD as recv and
 * request EVD, threshold Receive flags. dat_ep_create_with_srq(3DAT)
 * PARAMETERS: a NULL connect EVD means no interest in connection events for
 * now; either call returns (the second may be refused: USAGE keeps default
 * streams off a threshold SRQ Receive stream's EVD), neither kills the
 * process.
 */
#include "repro_srq.h"

static DAT_RETURN create(DAT_IA_HANDLE ia, struct repro_srq_kit *k, const char *what,
			 DAT_EVD_HANDLE recv, DAT_EVD_HANDLE req)
{
	DAT_EP_HANDLE ep;
	DAT_RETURN r;

	printf("calling dat_ep_create_with_srq(%s, connect EVD NULL)\n", what);
	fflush(stdout);
	r = dat_ep_create_with_srq(ia, k->pz, recv, req, DAT_HANDLE_NULL, k->srq, &k->attr, &ep);
	printf("  returned %s\n", REPRO_RET(r));
	fflush(stdout);
	return r;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_srq_kit k;
	DAT_RETURN r;

	if ((r = repro_srq_kit(ia, &k)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ and EVDs failed: %s", REPRO_RET(r));
	create(ia, &k, "default flags, two DTO EVDs", k.recv, k.req);
	k.attr.recv_completion_flags = DAT_COMPLETION_EVD_THRESHOLD_FLAG;
	create(ia, &k, "threshold Receive flags, one EVD for recv and request", k.recv, k.recv);
	return repro_say(REPRO_ABSENT, "both creates with a NULL connect EVD returned");
}

REPRO_MAIN(.finding = "srq-ep-null-conn-evd-crash", .body = body,
	   .if_crash = "dat_ep_create_with_srq with a NULL connect EVD killed the process (the "
		       "last 'calling' line says which call)")
