/* SPDX-License-Identifier: MIT */
/*
 * Finding negative-segments-internal-error (docs/certification/ofa-dapl-2.1.10/): each
 * post of a connected pair's EP, and a Receive, with num_segments -1 and one valid
 * triplet. The pages' PARAMETERS make num_segments the number of triplets in local_iov,
 * so -1 is no count at all; RETURN VALUES give DAT_INVALID_PARAMETER for an invalid
 * parameter (DAT_LENGTH_ERROR is taken too): DAT_INTERNAL_ERROR (libdaplofa on RoCE) and
 * DAT_SUCCESS (on soft-iWARP, where the verbs post takes the count) are not refusals.
 * Two parts (repro_parts): the posts of a connected pair, and a Receive alone on an
 * unconnected EP of a fresh IA, for an IA that cannot connect a pair (ucm on RoCE).
 */
#include "repro.h"

/* What the pages allow for an invalid num_segments. */
static int refused(DAT_RETURN r)
{
	return DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER || DAT_GET_TYPE(r) == DAT_LENGTH_ERROR;
}

/* The Receive alone, on an unconnected EP: dat_ep_post_recv(3DAT) takes Receives before the
 * connection. In a process that has tried no connection: on ucm (RoCE), after a failed
 * connect, the verbs post made other things of the count (DAT_INVALID_PARAMETER on a new EP,
 * a crash on the EP whose connect failed). */
static enum repro_answer unconnected_recv(DAT_IA_HANDLE ia)
{
	struct repro_end e;
	DAT_LMR_TRIPLET iov;
	DAT_RETURN r;

	if ((r = repro_end(ia, &e)) != DAT_SUCCESS ||
	    (r = repro_buffer(ia, e.pz, 256, &iov)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making an unconnected EP failed: %s", REPRO_RET(r));
	r = dat_ep_post_recv(e.ep, -1, &iov, (DAT_DTO_COOKIE){ .as_64 = 1 },
			     DAT_COMPLETION_DEFAULT_FLAG);
	if (!refused(r))
		return repro_say(REPRO_SHOWS, "on an unconnected EP dat_ep_post_recv with "
				 "num_segments -1 returned %s", REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "on an unconnected EP the Receive with num_segments -1 "
			 "was refused: %s", REPRO_RET(r));
}

static enum repro_answer connected_posts(DAT_IA_HANDLE ia)
{
	struct repro_pair p = { 0 };
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rmr;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_HANDLE lmr;
	void *buf = calloc(1, 4096);
	DAT_RETURN r[4];
	/* the requests first: on soft-iWARP the Receive kills the process in the
	 * device library (the certification run's CRASH), so it goes last */
	static const char *const what[4] = { "dat_ep_post_send", "dat_ep_post_rdma_write",
					     "dat_ep_post_rdma_read", "dat_ep_post_recv" };
	int bad = 0, n;

	if (!buf)
		return repro_say(REPRO_CANNOT, "no memory");
	if ((r[0] = repro_pair(ia, &p)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting a pair failed: %s", REPRO_RET(r[0]));
	if ((r[0] = repro_lmr(ia, p.a.pz, buf, 4096, DAT_MEM_PRIV_ALL_FLAG, &lmr,
			      &iov.lmr_context, &rctx)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_lmr_create returned %s", REPRO_RET(r[0]));
	iov.virtual_address = (DAT_VADDR)(uintptr_t)buf;
	iov.segment_length = 256;
	rmr.rmr_context = rctx;
	rmr.virtual_address = (DAT_VADDR)(uintptr_t)buf + 1024;
	rmr.segment_length = 256;
	for (n = 0; n < 4 && !bad; n++) {
		DAT_DTO_COOKIE c = { .as_64 = (DAT_UINT64)n + 1 };

		switch (n) {
		case 0:
			r[n] = dat_ep_post_send(p.a.ep, -1, &iov, c, DAT_COMPLETION_DEFAULT_FLAG);
			break;
		case 1:
			r[n] = dat_ep_post_rdma_write(p.a.ep, -1, &iov, c, &rmr,
						      DAT_COMPLETION_DEFAULT_FLAG);
			break;
		case 2:
			r[n] = dat_ep_post_rdma_read(p.a.ep, -1, &iov, c, &rmr,
						     DAT_COMPLETION_DEFAULT_FLAG);
			break;
		default:
			r[n] = dat_ep_post_recv(p.a.ep, -1, &iov, c, DAT_COMPLETION_DEFAULT_FLAG);
		}
		printf("num_segments -1: %s -> %s\n", what[n], REPRO_RET(r[n]));
		fflush(stdout);
		bad = !refused(r[n]);
	}
	if (bad)
		return repro_say(REPRO_SHOWS, "%s with num_segments -1 returned %s, which is "
				 "neither DAT_INVALID_PARAMETER nor DAT_LENGTH_ERROR", what[n - 1],
				 REPRO_RET(r[n - 1]));
	return repro_say(REPRO_ABSENT, "each post with num_segments -1 was refused");
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const struct repro_part parts[] = {
		{ "connected", connected_posts },
		{ "unconnected", unconnected_recv },
	};

	return repro_parts(ia, parts, 2);
}

REPRO_MAIN(.finding = "negative-segments-internal-error", .body = body, .timeout_s = 60)
