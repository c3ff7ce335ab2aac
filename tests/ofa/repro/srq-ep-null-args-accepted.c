/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-ep-null-args-accepted (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_create_with_srq with NULL ep_attributes, and with a NULL PZ, the
 * other arguments valid. dat_ep_create_with_srq(3DAT) PARAMETERS and
 * DESCRIPTION: ep_attributes cannot be NULL (DAT_INVALID_PARAMETER); the PZ
 * is a handle of a Protection Zone, so DAT_HANDLE_NULL is an invalid handle
 * (RETURN VALUES: DAT_INVALID_HANDLE).
 */
#include "repro_srq.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_srq_kit k;
	DAT_EP_HANDLE ep;
	DAT_RETURN r, r_attr, r_pz;

	if ((r = repro_srq_kit(ia, &k)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ and EVDs failed: %s", REPRO_RET(r));
	r_attr = dat_ep_create_with_srq(ia, k.pz, k.recv, k.req, k.conn, k.srq, NULL, &ep);
	printf("dat_ep_create_with_srq(ep_attributes NULL): %s\n", REPRO_RET(r_attr));
	r_pz = dat_ep_create_with_srq(ia, DAT_HANDLE_NULL, k.recv, k.req, k.conn, k.srq, &k.attr,
				      &ep);
	printf("dat_ep_create_with_srq(pz_handle NULL): %s\n", REPRO_RET(r_pz));
	fflush(stdout);
	if (r_attr == DAT_SUCCESS || r_pz == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "an EP was made with %s%s%s",
				 r_attr == DAT_SUCCESS ? "NULL ep_attributes" : "",
				 r_attr == DAT_SUCCESS && r_pz == DAT_SUCCESS ? " and with " : "",
				 r_pz == DAT_SUCCESS ? "a NULL PZ" : "");
	return repro_say(REPRO_ABSENT, "NULL ep_attributes and a NULL PZ were both refused");
}

REPRO_MAIN(.finding = "srq-ep-null-args-accepted", .body = body)
