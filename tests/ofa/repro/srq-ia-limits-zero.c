/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-ia-limits-zero (docs/certification/ofa-dapl-2.1.10/): the IA's
 * max_ep_per_srq (dat_ia_query), then EPs made on one SRQ until one past it.
 * dat_ia_query(3DAT) DESCRIPTION: the IA attributes are the IA's limits, here
 * the most EPs one SRQ serves; dat_ep_create_with_srq(3DAT) RETURN VALUES: a
 * create past a limit fails with DAT_INSUFFICIENT_RESOURCES.
 */
#include "repro_srq.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_srq_kit k;
	DAT_EP_HANDLE ep;
	DAT_COUNT max, i;
	DAT_RETURN r;

	if ((r = repro_srq_kit(ia, &k)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ and EVDs failed: %s", REPRO_RET(r));
	max = k.ia_attr.max_ep_per_srq;
	printf("IA max_srqs %d, max_ep_per_srq %d, max_recv_per_srq %d\n",
	       (int)k.ia_attr.max_srqs, (int)max, (int)k.ia_attr.max_recv_per_srq);
	if (max < 0 || max > 1024)
		return repro_say(REPRO_CANNOT, "max_ep_per_srq %d: more EPs than this makes",
				 (int)max);
	for (i = 0; i < max; i++)
		if ((r = repro_srq_ep(ia, &k, &ep)) != DAT_SUCCESS)
			break;
	if (i == max)
		r = repro_srq_ep(ia, &k, &ep);
	printf("EP %d on the SRQ (max_ep_per_srq %d): %s\n", (int)i + 1, (int)max, REPRO_RET(r));
	fflush(stdout);
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "EP %d was made on an SRQ of an IA that reports "
				 "max_ep_per_srq %d", (int)i + 1, (int)max);
	if (DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES)
		return repro_say(REPRO_ABSENT, "the EP past max_ep_per_srq was refused");
	return repro_say(REPRO_CANNOT, "EP %d failed with %s", (int)i + 1, REPRO_RET(r));
}

REPRO_MAIN(.finding = "srq-ia-limits-zero", .body = body)
