/* SPDX-License-Identifier: MIT */
/*
 * Finding unsignalled-flag-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * a Receive (on an unconnected EP) and a Send, RDMA Read and RDMA Write (on
 * a connected one) with DAT_COMPLETION_UNSIGNALLED_FLAG, the EPs' Recv and
 * Request Completion Flags not including it. dat_ep_post_recv(3DAT),
 * dat_ep_post_send(3DAT), dat_ep_post_rdma_read(3DAT),
 * dat_ep_post_rdma_write(3DAT) DESCRIPTION: the flag is valid only when the
 * EP's completion flags for that kind of DTO have it, otherwise the post
 * returns DAT_INVALID_PARAMETER.
 */
#include "repro.h"

static char mine[4096], peers[4096];

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const char *const name[] = { "Receive", "Send", "RDMA Read", "RDMA Write" };
	const DAT_COMPLETION_FLAGS unsig = DAT_COMPLETION_UNSIGNALLED_FLAG;
	const DAT_DTO_COOKIE cookie = { .as_64 = 1 };
	char accepted[256] = "", untried[256] = "";
	struct repro_pair pr;
	struct repro_end lone;
	DAT_RETURN setup;
	DAT_LMR_TRIPLET iov, peer_iov;
	DAT_RMR_TRIPLET remote;
	DAT_EP_PARAM param;
	DAT_RETURN r[4];
	unsigned int n = 0, tried = 1;

	/* the Receive on an unconnected EP, where it is as valid as anywhere */
	if ((r[0] = repro_end_param(ia, &lone, &param)) != DAT_SUCCESS ||
	    (r[0] = repro_lmr_iov(ia, lone.pz, mine, 4096, DAT_MEM_PRIV_ALL_FLAG, &iov, NULL)) !=
		    DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making or querying an EP or an LMR failed: %s",
				 REPRO_RET(r[0]));
	if ((param.ep_attr.recv_completion_flags | param.ep_attr.request_completion_flags) & unsig)
		return repro_say(REPRO_CANNOT, "the EP's completion flags already include the "
				 "unsignalled flag");
	iov.segment_length = 64;
	r[0] = dat_ep_post_recv(lone.ep, 1, &iov, cookie, unsig);

	/* the requests on a connected EP made the same way */
	if ((setup = repro_pair_rsp(ia, &pr, NULL)) != DAT_SUCCESS)
		snprintf(untried, sizeof(untried), " (requests not tried: connecting the IA to "
			 "itself over an RSP failed: %s)", REPRO_RET(setup));
	else if ((setup = repro_lmr_iov(ia, pr.a.pz, mine, 4096, DAT_MEM_PRIV_ALL_FLAG, &iov,
					NULL)) != DAT_SUCCESS ||
		 (setup = repro_lmr_iov(ia, pr.b.pz, peers, 4096, DAT_MEM_PRIV_ALL_FLAG,
					&peer_iov, &remote.rmr_context)) != DAT_SUCCESS ||
		 /* a Receive for the Send, so that the Send itself is in order */
		 (setup = dat_ep_post_recv(pr.b.ep, 1, &peer_iov, cookie,
					  DAT_COMPLETION_DEFAULT_FLAG)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the LMRs or the peer's Receive failed: %s",
				 REPRO_RET(setup));
	if (!*untried) {
		iov.segment_length = 64;
		remote.virtual_address = peer_iov.virtual_address;
		remote.segment_length = 64;
		r[1] = dat_ep_post_send(pr.a.ep, 1, &iov, cookie, unsig);
		r[2] = dat_ep_post_rdma_read(pr.a.ep, 1, &iov, cookie, &remote, unsig);
		r[3] = dat_ep_post_rdma_write(pr.a.ep, 1, &iov, cookie, &remote, unsig);
		tried = 4;
	}
	for (unsigned int i = 0; i < tried; i++)
		if (r[i] == DAT_SUCCESS)
			snprintf(accepted + strlen(accepted), sizeof(accepted) - strlen(accepted),
				 "%s%s", n++ ? ", " : "", name[i]);
	if (n)
		return repro_say(REPRO_SHOWS, "on EPs whose completion flags (recv 0x%x, request "
				 "0x%x) lack DAT_COMPLETION_UNSIGNALLED_FLAG, %u of %u posts with "
				 "it returned DAT_SUCCESS: %s%s",
				 (unsigned int)param.ep_attr.recv_completion_flags,
				 (unsigned int)param.ep_attr.request_completion_flags, n, tried,
				 accepted, untried);
	if (*untried)
		return repro_say(REPRO_CANNOT, "the Receive was refused%s", untried);
	return repro_say(REPRO_ABSENT, "all 4 posts with the unsignalled flag were refused");
}

REPRO_MAIN(.finding = "unsignalled-flag-unchecked", .body = body)
