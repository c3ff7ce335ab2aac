/* SPDX-License-Identifier: MIT */
/*
 * Finding pz-change-not-applied (docs/certification/ofa-dapl-2.1.10/): an
 * unconnected EP with a Receive posted in an LMR of its PZ is moved to
 * another PZ by dat_ep_modify, then connected, and the peer sends into that
 * Receive. dat_ep_modify(3DAT) DESCRIPTION, "Protection Zone": posted
 * Receives that do not match the new PZ fail with a protection violation;
 * dat_ep_create(3DAT) DESCRIPTION: an EP reaches only memory of LMRs that
 * match its PZ. Whatever the failure's exact status, the Receive must not
 * succeed. First, the same cause seen from dat_pz_free(3DAT) DESCRIPTION: an
 * EP moved out of a PZ that nothing else uses leaves that PZ unused, so it
 * can be freed.
 */
#include "repro.h"

static char mine[4096], peers[4096];

/*
 * An EP with nothing posted moved out of PZ "from": "from" is then unused.
 * Says SHOWS and returns 1 when it cannot be freed; silent otherwise (a
 * set-up that fails leaves the judgement to the Receive below).
 */
static int old_pz_held(DAT_IA_HANDLE ia)
{
	struct repro_end e;
	DAT_EP_PARAM param;
	DAT_RETURN r;

	if (repro_end(ia, &e) != DAT_SUCCESS || dat_pz_create(ia, &param.pz_handle) != DAT_SUCCESS ||
	    dat_ep_modify(e.ep, DAT_EP_FIELD_PZ_HANDLE, &param) != DAT_SUCCESS ||
	    (r = dat_pz_free(e.pz)) == DAT_SUCCESS)
		return 0;
	repro_say(REPRO_SHOWS, "the PZ an EP was moved out of (nothing else in it) cannot be "
		  "freed: dat_pz_free returned %s", REPRO_RET(r));
	return 1;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	const DAT_DTO_COOKIE cookie = { .as_64 = 7 };
	struct repro_pair pr;
	struct repro_end b;
	DAT_LMR_TRIPLET iov, peer_iov;
	DAT_EP_PARAM param;
	DAT_EVENT ev;
	DAT_RETURN r;

	if (old_pz_held(ia))
		return REPRO_SHOWS;
	memset(peers, '.', sizeof(peers));
	memset(mine, 'S', sizeof(mine));
	if ((r = repro_end(ia, &b)) != DAT_SUCCESS ||
	    (r = repro_lmr_iov(ia, b.pz, peers, 4096, DAT_MEM_PRIV_ALL_FLAG, &peer_iov, NULL)) !=
		    DAT_SUCCESS ||
	    (r = dat_ep_post_recv(b.ep, 1, &peer_iov, cookie, DAT_COMPLETION_DEFAULT_FLAG)) !=
		    DAT_SUCCESS ||
	    (r = dat_pz_create(ia, &param.pz_handle)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the EP, its LMR and Receive or a second PZ "
				 "failed: %s", REPRO_RET(r));
	if ((r = dat_ep_modify(b.ep, DAT_EP_FIELD_PZ_HANDLE, &param)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "changing the PZ of the unconnected EP returned %s",
				 REPRO_RET(r));
	if ((r = repro_pair_rsp(ia, &pr, &b)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting the IA to itself over an RSP failed: %s",
				 REPRO_RET(r));
	if ((r = repro_lmr_iov(ia, pr.a.pz, mine, 4096, DAT_MEM_PRIV_ALL_FLAG, &iov, NULL)) !=
		    DAT_SUCCESS ||
	    (iov.segment_length = 64,
	     r = dat_ep_post_send(pr.a.ep, 1, &iov, cookie, DAT_COMPLETION_DEFAULT_FLAG)) !=
		    DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the peer's Send failed: %s", REPRO_RET(r));
	if (repro_event(pr.b.dto, 5000, &ev) != DAT_SUCCESS) {
		/* the page has the Receive fail; a Receive that never completes, on a connection
		 * that carries nothing, is the same change not applied (rdma_cm: the QP is lost) */
		if (repro_event(pr.a.dto, 1000, &ev) != DAT_SUCCESS)
			return repro_say(REPRO_SHOWS, "a Receive in an LMR of the EP's old PZ neither "
					 "completed nor failed within 5 s after dat_ep_modify had "
					 "changed the PZ, nor did the peer's Send");
		return repro_say(REPRO_SHOWS, "a Receive in an LMR of the EP's old PZ neither "
				 "completed nor failed within 5 s after dat_ep_modify had changed "
				 "the PZ (the peer's Send: event 0x%x)", (unsigned int)ev.event_number);
	}
	if (ev.event_number == DAT_DTO_COMPLETION_EVENT &&
	    ev.event_data.dto_completion_event_data.status == DAT_DTO_SUCCESS)
		return repro_say(REPRO_SHOWS, "a Receive in an LMR of the EP's old PZ completed "
				 "DAT_DTO_SUCCESS after dat_ep_modify had changed the PZ (%s)",
				 peers[0] == 'S' ? "the peer's bytes landed in it" :
				 "its buffer is unchanged");
	return repro_say(REPRO_ABSENT, "the Receive in the old PZ's LMR did not succeed (event "
			 "0x%x, status %d)", (unsigned int)ev.event_number,
			 ev.event_number == DAT_DTO_COMPLETION_EVENT ?
			 (int)ev.event_data.dto_completion_event_data.status : -1);
}

REPRO_MAIN(.finding = "pz-change-not-applied", .body = body)
