/* SPDX-License-Identifier: MIT */
/*
 * Finding dto-error-as-local-ep (docs/certification/ofa-dapl-2.1.10/): on a
 * connected EP, a Send of 4 KiB (above any inline size, so the device must
 * use the key) from an LMR freed before the post; the peer has a Receive
 * waiting. dat_lmr_free(3DAT) DESCRIPTION: a DTO that uses the LMR after
 * its free has completed fails with a protection violation: a
 * DAT_PROTECTION_VIOLATION from the post, or a completion with
 * DAT_DTO_ERR_LOCAL_PROTECTION.
 */
#include "repro.h"

static char mine[4096], peers[4096];

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	const DAT_DTO_COOKIE cookie = { .as_64 = 9 };
	struct repro_pair pr;
	DAT_REGION_DESCRIPTION region = { .for_va = mine };
	DAT_LMR_HANDLE lmr;
	DAT_LMR_TRIPLET iov, peer_iov;
	DAT_RMR_CONTEXT rmr;
	DAT_VLEN reg_len;
	DAT_VADDR reg_addr;
	DAT_DTO_COMPLETION_STATUS st;
	DAT_EVENT ev;
	DAT_RETURN r = repro_pair_rsp(ia, &pr, NULL);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting the IA to itself over an RSP failed: %s",
				 REPRO_RET(r));
	if ((r = repro_lmr_iov(ia, pr.b.pz, peers, 4096, DAT_MEM_PRIV_ALL_FLAG, &peer_iov,
			       NULL)) != DAT_SUCCESS ||
	    (r = dat_ep_post_recv(pr.b.ep, 1, &peer_iov, cookie, DAT_COMPLETION_DEFAULT_FLAG)) !=
		    DAT_SUCCESS ||
	    (r = dat_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, region, 4096, pr.a.pz,
				DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr, &iov.lmr_context, &rmr,
				&reg_len, &reg_addr)) != DAT_SUCCESS ||
	    (r = dat_lmr_free(lmr)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the peer's Receive, or making and freeing the LMR "
				 "failed: %s", REPRO_RET(r));
	iov.virtual_address = (DAT_VADDR)(uintptr_t)mine;
	iov.segment_length = 4096;
	r = dat_ep_post_send(pr.a.ep, 1, &iov, cookie, DAT_COMPLETION_DEFAULT_FLAG);
	if (DAT_GET_TYPE(r) == DAT_PROTECTION_VIOLATION)
		return repro_say(REPRO_ABSENT, "the Send from the freed LMR is refused with %s",
				 REPRO_RET(r));
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the Send from the freed LMR returned %s", REPRO_RET(r));
	if (repro_event(pr.a.dto, 5000, &ev) != DAT_SUCCESS ||
	    ev.event_number != DAT_DTO_COMPLETION_EVENT)
		return repro_say(REPRO_CANNOT, "no DTO completion of the Send within 5 s");
	st = ev.event_data.dto_completion_event_data.status;
	if (st == DAT_DTO_ERR_LOCAL_PROTECTION)
		return repro_say(REPRO_ABSENT, "the Send from the freed LMR completed "
				 "DAT_DTO_ERR_LOCAL_PROTECTION");
	if (st == DAT_DTO_ERR_LOCAL_EP)
		return repro_say(REPRO_SHOWS, "a Send from a freed LMR completed DAT_DTO_ERR_LOCAL_EP"
				 " (%d), not DAT_DTO_ERR_LOCAL_PROTECTION (%d)", (int)st,
				 (int)DAT_DTO_ERR_LOCAL_PROTECTION);
	return repro_say(REPRO_CANNOT, "the Send from the freed LMR completed with status %d, "
			 "which this finding is not about", (int)st);
}

REPRO_MAIN(.finding = "dto-error-as-local-ep", .body = body)
