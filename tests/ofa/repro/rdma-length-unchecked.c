/* SPDX-License-Identifier: MIT */
/*
 * Finding rdma-length-unchecked (docs/certification/ofa-dapl-2.1.10/): on a
 * connected EP, an RDMA Read of a 200-byte remote segment into a 100-byte
 * local_iov, and an RDMA Write of 200 local bytes to a 100-byte remote
 * segment (inside a larger LMR). dat_ep_post_rdma_read(3DAT) and
 * dat_ep_post_rdma_write(3DAT) RETURN VALUES: DAT_LENGTH_ERROR when the
 * local (Read) or remote (Write) buffer is too small for the data; the
 * DESCRIPTIONs have the whole remote buffer read, resp. the data written
 * into the remote buffer the triplet describes. A failed completion
 * instead of the synchronous error also counts as the provider noticing.
 */
#include "repro.h"

static char mine[4096], peers[4096];

/* Whether the request posted with return r completed DAT_DTO_SUCCESS; *why: cannot tell. */
static int succeeded(DAT_RETURN r, DAT_EVD_HANDLE evd, const char **why)
{
	DAT_EVENT ev;

	*why = NULL;
	if (r != DAT_SUCCESS)
		return 0;
	if (repro_event(evd, 5000, &ev) != DAT_SUCCESS)
		*why = "no completion within 5 s";
	else if (ev.event_number != DAT_DTO_COMPLETION_EVENT)
		*why = "an event that is no DTO completion";
	return !*why && ev.event_data.dto_completion_event_data.status == DAT_DTO_SUCCESS;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	const DAT_DTO_COOKIE cookie = { .as_64 = 1 };
	struct repro_pair pr;
	DAT_RETURN r = repro_pair_rsp(ia, &pr, NULL);
	const char *failed;
	DAT_LMR_TRIPLET iov, peer_iov;
	DAT_RMR_TRIPLET remote;
	char shows[512] = "";
	int read_ok, write_ok;

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting the IA to itself over an RSP failed: %s",
				 REPRO_RET(r));
	if ((r = repro_lmr_iov(ia, pr.a.pz, mine, 4096, DAT_MEM_PRIV_ALL_FLAG, &iov, NULL)) !=
		    DAT_SUCCESS ||
	    (r = repro_lmr_iov(ia, pr.b.pz, peers, 4096, DAT_MEM_PRIV_ALL_FLAG, &peer_iov,
			       &remote.rmr_context)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the LMRs failed: %s", REPRO_RET(r));
	remote.virtual_address = peer_iov.virtual_address;

	/* Read 200 remote bytes into 100 local ones */
	memset(peers, 'R', sizeof(peers));
	iov.segment_length = 100;
	remote.segment_length = 200;
	read_ok = succeeded(dat_ep_post_rdma_read(pr.a.ep, 1, &iov, cookie, &remote,
						  DAT_COMPLETION_DEFAULT_FLAG), pr.a.dto, &failed);
	if (failed)
		return repro_say(REPRO_CANNOT, "RDMA Read: %s", failed);

	/* Write 200 local bytes to a 100-byte remote segment */
	memset(mine, 'W', sizeof(mine));
	memset(peers, '.', sizeof(peers));
	iov.segment_length = 200;
	remote.segment_length = 100;
	write_ok = succeeded(dat_ep_post_rdma_write(pr.a.ep, 1, &iov, cookie, &remote,
						    DAT_COMPLETION_DEFAULT_FLAG), pr.a.dto, &failed);
	if (failed)
		return repro_say(REPRO_CANNOT, "RDMA Write: %s", failed);
	if (read_ok)
		snprintf(shows, sizeof(shows), "an RDMA Read of a 200-byte remote segment into a "
			 "100-byte local_iov completed DAT_DTO_SUCCESS; ");
	if (write_ok)
		snprintf(shows + strlen(shows), sizeof(shows) - strlen(shows), "an RDMA Write of "
			 "200 bytes to a 100-byte remote segment completed DAT_DTO_SUCCESS, "
			 "%s the bytes past the segment", peers[150] == 'W' ? "overwriting" :
			 "not overwriting");
	if (*shows)
		return repro_say(REPRO_SHOWS, "%s", shows);
	return repro_say(REPRO_ABSENT, "both length mismatches were refused or failed");
}

REPRO_MAIN(.finding = "rdma-length-unchecked", .body = body)
