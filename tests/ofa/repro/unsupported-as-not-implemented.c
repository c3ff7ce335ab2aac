/* SPDX-License-Identifier: MIT */
/*
 * Finding unsupported-as-not-implemented (docs/certification/ofa-dapl-2.1.10/): the three
 * optional calls of the SRQ pages on an SRQ and an EP made on it: dat_srq_set_lw(srq, 0),
 * dat_ep_set_watermark(ep, 4, 8) and dat_ep_recv_query(ep, &n, &span). Each page lets a
 * Provider lack the feature, and gives the code that says so: DAT_MODEL_NOT_SUPPORTED
 * (dat_srq_set_lw(3DAT), dat_ep_set_watermark(3DAT), dat_ep_recv_query(3DAT) RETURN VALUES).
 * DAT_NOT_IMPLEMENTED is among none of them.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_SRQ_ATTR a = { .max_recv_dtos = 4, .max_recv_iov = 1, .low_watermark = 0 };
	DAT_COUNT n = 0, span = 0;
	struct repro_end e;
	DAT_SRQ_HANDLE srq;
	DAT_EP_ATTR attr;
	DAT_EP_PARAM p;
	DAT_RETURN r[3];
	int ni = 0;

	if ((r[0] = repro_end_param(ia, &e, &p)) != DAT_SUCCESS ||
	    (r[0] = dat_srq_create(ia, e.pz, &a, &srq)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making an EP or an SRQ failed: %s", REPRO_RET(r[0]));
	attr = p.ep_attr;
	dat_ep_free(e.ep);
	if ((r[0] = dat_ep_create_with_srq(ia, e.pz, e.dto, e.dto, e.conn, srq, &attr, &e.ep)) !=
	    DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ep_create_with_srq returned %s", REPRO_RET(r[0]));
	r[0] = dat_srq_set_lw(srq, 0);
	r[1] = dat_ep_set_watermark(e.ep, 4, 8);
	r[2] = dat_ep_recv_query(e.ep, &n, &span);
	printf("dat_srq_set_lw(srq, 0) -> %s\n", REPRO_RET(r[0]));
	printf("dat_ep_set_watermark(ep, 4, 8) -> %s\n", REPRO_RET(r[1]));
	printf("dat_ep_recv_query(ep, &n, &span) -> %s\n", REPRO_RET(r[2]));
	for (int i = 0; i < 3; i++)
		ni += DAT_GET_TYPE(r[i]) == DAT_NOT_IMPLEMENTED;
	if (ni)
		return repro_say(REPRO_SHOWS, "%d of the three optional calls answered "
				 "DAT_NOT_IMPLEMENTED, not DAT_MODEL_NOT_SUPPORTED", ni);
	return repro_say(REPRO_ABSENT, "no optional call answered DAT_NOT_IMPLEMENTED");
}

REPRO_MAIN(.finding = "unsupported-as-not-implemented", .body = body, .timeout_s = 60)
