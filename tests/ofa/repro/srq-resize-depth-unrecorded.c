/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-resize-depth-unrecorded (docs/certification/ofa-dapl-2.1.10/):
 * an SRQ of depth 4 resized to 8, then queried; and one of depth 16 with 3
 * buffers resized to 8. dat_srq_resize(3DAT) DESCRIPTION: a successful resize
 * gives the SRQ the new depth (never less than asked), and dat_srq_query(3DAT)
 * reports the SRQ's max_recv_dtos.
 */
#include "repro_srq.h"

static char buf[3 * 64];

static DAT_RETURN resize(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, DAT_COUNT from, DAT_COUNT to,
			 int posts, DAT_COUNT *now)
{
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	DAT_RETURN r;

	if ((r = repro_srq_posted(ia, pz, from, posts, buf, &srq)) != DAT_SUCCESS)
		return r;
	r = dat_srq_resize(srq, to);
	printf("dat_srq_resize(depth %d -> %d) with %d posted: %s\n", from, to, posts,
	       REPRO_RET(r));
	if (r != DAT_SUCCESS)
		return r;
	if ((r = dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p)) != DAT_SUCCESS)
		return r;
	*now = p.max_recv_dtos;
	printf("dat_srq_query: max_recv_dtos %d\n", *now);
	fflush(stdout);
	return DAT_SUCCESS;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_PZ_HANDLE pz;
	DAT_COUNT grown = 0, shrunk = 0;
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = resize(ia, pz, 4, 8, 0, &grown)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the SRQ or its resize to 8 failed: %s",
				 REPRO_RET(r));
	/* the shrink is a quality clause (shrink_precision): printed, not judged */
	if ((r = resize(ia, pz, 16, 8, 3, &shrunk)) != DAT_SUCCESS)
		printf("the shrink 16 -> 8 did not complete: %s\n", REPRO_RET(r));
	if (grown < 8)
		return repro_say(REPRO_SHOWS, "resize 4 -> 8 returned DAT_SUCCESS but the SRQ "
				 "reports max_recv_dtos %d", grown);
	return repro_say(REPRO_ABSENT, "resize 4 -> 8 gave max_recv_dtos %d", grown);
}

REPRO_MAIN(.finding = "srq-resize-depth-unrecorded", .body = body)
