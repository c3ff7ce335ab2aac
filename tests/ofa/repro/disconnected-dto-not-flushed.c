/* SPDX-License-Identifier: MIT */
/*
 * Finding disconnected-dto-not-flushed (docs/certification/ofa-dapl-2.1.10/):
 * a Receive, Send, RDMA Read and RDMA Write posted to an EP in
 * DAT_EP_STATE_DISCONNECTED (after an abrupt dat_ep_disconnect).
 * dat_ep_post_recv(3DAT) DESCRIPTION: a Receive may be posted in any state,
 * and one posted successfully to a Disconnected EP is flushed at once to the
 * recv EVD; dat_ep_post_send(3DAT), dat_ep_post_rdma_read(3DAT) and
 * dat_ep_post_rdma_write(3DAT) DESCRIPTION: the operation is valid in
 * Connected and Disconnected, and a successful post in Disconnected is
 * flushed at once to the request EVD.
 */
#include "repro.h"

static char mine[4096], peers[4096];

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const char *const name[] = { "Receive", "Send", "RDMA Read", "RDMA Write" };
	struct repro_pair pr;
	DAT_LMR_TRIPLET iov, peer_iov;
	DAT_RMR_TRIPLET remote;
	DAT_EP_STATE state;
	DAT_BOOLEAN idle;
	DAT_EVENT ev;
	char shows[512] = "", other[256] = "";
	DAT_RETURN r = repro_pair_rsp(ia, &pr, NULL);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting the IA to itself over an RSP failed: %s",
				 REPRO_RET(r));
	if ((r = repro_lmr_iov(ia, pr.a.pz, mine, 4096, DAT_MEM_PRIV_ALL_FLAG, &iov, NULL)) !=
		    DAT_SUCCESS ||
	    (r = repro_lmr_iov(ia, pr.b.pz, peers, 4096, DAT_MEM_PRIV_ALL_FLAG, &peer_iov,
			       &remote.rmr_context)) != DAT_SUCCESS ||
	    (r = dat_ep_disconnect(pr.a.ep, DAT_CLOSE_ABRUPT_FLAG)) != DAT_SUCCESS ||
	    (r = repro_event(pr.a.conn, 5000, &ev)) != DAT_SUCCESS ||
	    (r = dat_ep_get_status(pr.a.ep, &state, &idle, &idle)) != DAT_SUCCESS ||
	    state != DAT_EP_STATE_DISCONNECTED)
		return repro_say(REPRO_CANNOT, "making the LMRs or disconnecting failed (%s), or the "
				 "EP is not DISCONNECTED", REPRO_RET(r));
	iov.segment_length = 64;
	remote.virtual_address = peer_iov.virtual_address;
	remote.segment_length = 64;
	for (unsigned int i = 0; i < 4; i++) {
		DAT_DTO_COOKIE cookie = { .as_64 = 100 + i };

		r = i == 0 ? dat_ep_post_recv(pr.a.ep, 1, &iov, cookie, DAT_COMPLETION_DEFAULT_FLAG) :
		    i == 1 ? dat_ep_post_send(pr.a.ep, 1, &iov, cookie, DAT_COMPLETION_DEFAULT_FLAG) :
		    i == 2 ? dat_ep_post_rdma_read(pr.a.ep, 1, &iov, cookie, &remote,
						   DAT_COMPLETION_DEFAULT_FLAG) :
			     dat_ep_post_rdma_write(pr.a.ep, 1, &iov, cookie, &remote,
						    DAT_COMPLETION_DEFAULT_FLAG);
		if (r != DAT_SUCCESS)
			snprintf(shows + strlen(shows), sizeof(shows) - strlen(shows),
				 "%s returned %s; ", name[i], REPRO_RET(r));
		else if (repro_event(pr.a.dto, 3000, &ev) != DAT_SUCCESS)
			snprintf(shows + strlen(shows), sizeof(shows) - strlen(shows),
				 "%s returned DAT_SUCCESS and was never completed (3 s); ", name[i]);
		else if (ev.event_number != DAT_DTO_COMPLETION_EVENT)
			snprintf(other + strlen(other), sizeof(other) - strlen(other),
				 " %s: event 0x%x;", name[i], (unsigned int)ev.event_number);
	}
	if (*shows)
		return repro_say(REPRO_SHOWS, "on a DISCONNECTED EP: %s", shows);
	if (*other)
		return repro_say(REPRO_CANNOT, "every post completed, but not as a DTO completion "
				 "event (another finding):%s", other);
	return repro_say(REPRO_ABSENT, "on a DISCONNECTED EP all four posts returned DAT_SUCCESS "
			 "and were completed");
}

REPRO_MAIN(.finding = "disconnected-dto-not-flushed", .body = body, .timeout_s = 40)
