/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-ep-modify-srq-accepted (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_modify of an unconnected EP made on an SRQ, asking with
 * DAT_EP_FIELD_SRQ_HANDLE for another SRQ, then for none.
 * dat_ep_create_with_srq(3DAT) DESCRIPTION: the SRQ cannot be replaced or
 * taken from the EP; only freeing the EP ends the association. So both
 * modifies fail and the EP still reports its SRQ. After a first modify that
 * succeeds nothing more is called (a second dat_ep_modify of an EP is
 * second-modify-crash's defect).
 */
#include "repro_srq.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_SRQ_ATTR sa = { .max_recv_dtos = 8, .max_recv_iov = 1,
			    .low_watermark = DAT_SRQ_LW_DEFAULT };
	struct repro_srq_kit k;
	DAT_SRQ_HANDLE other;
	DAT_EP_HANDLE ep;
	DAT_EP_PARAM p;
	DAT_RETURN r, r_other, r_none;

	if ((r = repro_srq_kit(ia, &k)) != DAT_SUCCESS ||
	    (r = dat_srq_create(ia, k.pz, &sa, &other)) != DAT_SUCCESS ||
	    (r = repro_srq_ep(ia, &k, &ep)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQs and the EP failed: %s",
				 REPRO_RET(r));
	memset(&p, 0, sizeof(p));
	p.srq_handle = other;
	r_other = dat_ep_modify(ep, DAT_EP_FIELD_SRQ_HANDLE, &p);
	printf("dat_ep_modify(DAT_EP_FIELD_SRQ_HANDLE, another SRQ): %s\n", REPRO_RET(r_other));
	fflush(stdout);
	/* no second modify after a success: that is second-modify-crash's ground */
	if (r_other == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_ep_modify gave the EP another SRQ: DAT_SUCCESS");
	p.srq_handle = DAT_HANDLE_NULL;
	r_none = dat_ep_modify(ep, DAT_EP_FIELD_SRQ_HANDLE, &p);
	printf("dat_ep_modify(DAT_EP_FIELD_SRQ_HANDLE, DAT_HANDLE_NULL): %s\n", REPRO_RET(r_none));
	r = dat_ep_query(ep, DAT_EP_FIELD_SRQ_HANDLE, &p);
	printf("dat_ep_query: %s, srq_handle %s\n", REPRO_RET(r),
	       p.srq_handle == k.srq ? "the EP's own SRQ" :
	       p.srq_handle == other ? "the other SRQ" : "neither SRQ");
	fflush(stdout);
	if (r_none == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_ep_modify took the EP's SRQ away: DAT_SUCCESS");
	return repro_say(REPRO_ABSENT, "both modifies of the EP's SRQ were refused");
}

REPRO_MAIN(.finding = "srq-ep-modify-srq-accepted", .body = body)
