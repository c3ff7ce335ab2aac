/* SPDX-License-Identifier: MIT */
/*
 * Finding local-iov-unchecked (docs/certification/ofa-dapl-2.1.10/): a
 * Receive, Send, RDMA Read and RDMA Write each posted with one faulty
 * local_iov segment: reaching past its LMR, in an LMR of another PZ, in an
 * LMR without the local privilege the transfer needs, or naming an
 * lmr_context no LMR has. dat_ep_post_recv(3DAT), dat_ep_post_send(3DAT),
 * dat_ep_post_rdma_read(3DAT), dat_ep_post_rdma_write(3DAT) RETURN VALUES:
 * DAT_INVALID_PARAMETER, DAT_PROTECTION_VIOLATION, DAT_PRIVILEGES_VIOLATION.
 * The Receive goes to an unconnected EP; each request to an EP of its own
 * connected pair, so that an earlier fault breaking a connection cannot
 * decide a later post.
 */
#include "repro.h"

enum op { RECV, SEND, READ, WRITE };
enum fault { PAST_LMR, OTHER_PZ, NO_PRIVILEGE, UNISSUED };

static const char *const op_name[] = { "Receive", "Send", "RDMA Read", "RDMA Write" };
static const char *const fault_name[] = { "past its LMR", "in an LMR of another PZ",
					  "in an LMR without the local privilege",
					  "with an lmr_context no LMR has" };
static const char *const fault_type[] = { "DAT_INVALID_PARAMETER", "DAT_PROTECTION_VIOLATION",
					  "DAT_PRIVILEGES_VIOLATION", "DAT_PRIVILEGES_VIOLATION" };
/* everything but the local privilege the transfer needs (a Receive: neither) */
static const DAT_MEM_PRIV_FLAGS lacking[] = {
	[RECV] = DAT_MEM_PRIV_REMOTE_READ_FLAG, [SEND] = DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
	[READ] = DAT_MEM_PRIV_LOCAL_READ_FLAG, [WRITE] = DAT_MEM_PRIV_LOCAL_WRITE_FLAG,
};

static char mem[4][8192];

/* The faulty segment for the EP's PZ, in mem[1..3] (mem[0] is the peer's). */
static DAT_RETURN faulty_iov(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, enum op op, enum fault f,
			     DAT_LMR_TRIPLET *iov)
{
	DAT_PZ_HANDLE other;
	DAT_RETURN r;

	switch (f) {
	case PAST_LMR:		/* 64 bytes, the last 32 past a 4 KiB LMR */
		r = repro_lmr_iov(ia, pz, mem[1], 4096, DAT_MEM_PRIV_ALL_FLAG, iov, NULL);
		iov->virtual_address += 4096 - 32;
		break;
	case OTHER_PZ:
		if ((r = dat_pz_create(ia, &other)) != DAT_SUCCESS)
			return r;
		r = repro_lmr_iov(ia, other, mem[2], 4096, DAT_MEM_PRIV_ALL_FLAG, iov, NULL);
		break;
	case NO_PRIVILEGE:
		r = repro_lmr_iov(ia, pz, mem[3], 4096, lacking[op], iov, NULL);
		break;
	default:		/* a context turned into one no LMR has */
		r = repro_lmr_iov(ia, pz, mem[1], 4096, DAT_MEM_PRIV_ALL_FLAG, iov, NULL);
		iov->lmr_context = ~iov->lmr_context ^ 0x5a5a0000u;
	}
	iov->segment_length = 64;
	return r;
}

/* The post's return; *setup names what failed before it, if anything did. */
static DAT_RETURN post(DAT_IA_HANDLE ia, enum op op, enum fault f, const char **setup)
{
	DAT_DTO_COOKIE cookie = { .as_64 = 1 };
	DAT_RMR_TRIPLET remote;
	DAT_LMR_TRIPLET iov, peer_iov;
	struct repro_pair pr;
	struct repro_end s;
	DAT_RETURN r;

	if (op == RECV) {
		*setup = "making the EP";
		if ((r = repro_end(ia, &s)) != DAT_SUCCESS ||
		    (r = faulty_iov(ia, s.pz, op, f, &iov)) != DAT_SUCCESS)
			return r;
		*setup = NULL;
		return dat_ep_post_recv(s.ep, 1, &iov, cookie, DAT_COMPLETION_DEFAULT_FLAG);
	}
	*setup = "connecting the IA to itself over an RSP";
	if ((r = repro_pair_rsp(ia, &pr, NULL)) != DAT_SUCCESS)
		return r;
	*setup = "making the LMRs";
	if ((r = repro_lmr_iov(ia, pr.b.pz, mem[0], 4096, DAT_MEM_PRIV_ALL_FLAG, &peer_iov,
			       &remote.rmr_context)) != DAT_SUCCESS ||
	    (r = faulty_iov(ia, pr.a.pz, op, f, &iov)) != DAT_SUCCESS)
		return r;
	*setup = NULL;
	remote.virtual_address = peer_iov.virtual_address;
	remote.segment_length = 64;
	if (op == SEND)
		return dat_ep_post_send(pr.a.ep, 1, &iov, cookie, DAT_COMPLETION_DEFAULT_FLAG);
	if (op == READ)
		return dat_ep_post_rdma_read(pr.a.ep, 1, &iov, cookie, &remote,
					     DAT_COMPLETION_DEFAULT_FLAG);
	return dat_ep_post_rdma_write(pr.a.ep, 1, &iov, cookie, &remote,
				      DAT_COMPLETION_DEFAULT_FLAG);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	char accepted[1024] = "", untried[256] = "";
	unsigned int n = 0, tried = 0;
	const char *setup;
	DAT_RETURN r;

	for (enum op op = RECV; op <= WRITE && !*untried; op++) {
		for (enum fault f = PAST_LMR; f <= UNISSUED; f++) {
			r = post(ia, op, f, &setup);
			if (setup && op == RECV)
				return repro_say(REPRO_CANNOT, "%s for a Receive: %s", setup,
						 REPRO_RET(r));
			if (setup) {	/* no connection: the Receives decide alone */
				snprintf(untried, sizeof(untried), " (requests not tried: %s "
					 "failed: %s)", setup, REPRO_RET(r));
				break;
			}
			tried++;
			if (r != DAT_SUCCESS)
				continue;
			snprintf(accepted + strlen(accepted), sizeof(accepted) - strlen(accepted),
				 "%s%s %s (the page: %s)", n++ ? "; " : "", op_name[op],
				 fault_name[f], fault_type[f]);
		}
	}
	if (n)
		return repro_say(REPRO_SHOWS, "%u of %u posts with a faulty local_iov segment "
				 "returned DAT_SUCCESS: %s%s", n, tried, accepted, untried);
	if (*untried)
		return repro_say(REPRO_CANNOT, "the 4 Receives were refused%s", untried);
	return repro_say(REPRO_ABSENT, "all 16 posts with a faulty local_iov segment were "
			 "refused");
}

REPRO_MAIN(.finding = "local-iov-unchecked", .body = body, .timeout_s = 60)
