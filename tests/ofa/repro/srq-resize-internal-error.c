/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-resize-internal-error (docs/certification/ofa-dapl-2.1.10/): three
 * resizes of an SRQ on a device that cannot change an SRQ's depth (soft-iWARP): a
 * growth 4 -> 8, a shrink 16 -> 8 with 3 buffers posted, a shrink 16 -> 2 below
 * those 3. dat_srq_resize(3DAT) RETURN VALUES list DAT_SUCCESS, DAT_INVALID_HANDLE,
 * DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES and DAT_INVALID_STATE; its USAGE
 * lets a shrink leave the size as it is and still succeed, and its DESCRIPTION makes
 * a shrink below the outstanding buffers DAT_INVALID_STATE. DAT_INTERNAL_ERROR is
 * none of them.
 */
#include "repro_srq.h"

static char buf[3 * 64];

/* An SRQ of depth `from` with `posts` buffers on it, resized to `to`: the answer. */
static DAT_RETURN resized(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, DAT_COUNT from, DAT_COUNT to,
			  int posts, DAT_RETURN *answer)
{
	DAT_SRQ_HANDLE srq;
	DAT_RETURN r = repro_srq_posted(ia, pz, from, posts, buf, &srq);

	if (r != DAT_SUCCESS)
		return r;
	*answer = dat_srq_resize(srq, to);
	printf("dat_srq_resize(depth %d -> %d) with %d posted: %s\n", from, to, posts,
	       REPRO_RET(*answer));
	fflush(stdout);
	return DAT_SUCCESS;
}

static int listed(DAT_RETURN r)
{
	switch (DAT_GET_TYPE(r)) {
	case DAT_SUCCESS:
	case DAT_INVALID_HANDLE:
	case DAT_INVALID_PARAMETER:
	case DAT_INSUFFICIENT_RESOURCES:
	case DAT_INVALID_STATE:
		return 1;
	default:
		return 0;
	}
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const struct { DAT_COUNT from, to; int posts; } step[] = {
		{ 4, 8, 0 }, { 16, 8, 3 }, { 16, 2, 3 },
	};
	DAT_RETURN answer[3];
	DAT_PZ_HANDLE pz;
	DAT_RETURN r;
	int bad = -1;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_pz_create returned %s", REPRO_RET(r));
	for (int i = 0; i < 3; i++) {
		if ((r = resized(ia, pz, step[i].from, step[i].to, step[i].posts, &answer[i])) !=
		    DAT_SUCCESS)
			return repro_say(REPRO_CANNOT, "the SRQ of depth %d or its buffers: %s",
					 step[i].from, REPRO_RET(r));
		if (bad < 0 && !listed(answer[i]))
			bad = i;
	}
	if (bad >= 0)
		return repro_say(REPRO_SHOWS, "dat_srq_resize(%d -> %d) answered %s, which is "
				 "not among its RETURN VALUES", step[bad].from, step[bad].to,
				 REPRO_RET(answer[bad]));
	return repro_say(REPRO_ABSENT, "every resize answered a listed value");
}

REPRO_MAIN(.finding = "srq-resize-internal-error", .body = body)
