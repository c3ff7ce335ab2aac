/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-outstanding-kept-after-evd-free (docs/certification/
 * ofa-dapl-2.1.10/): an SRQ of depth 8 with 4 buffers, its EP connected; 2
 * messages arrive and their completions stay unreaped; the EP and then its
 * recv EVD are freed; the SRQ is resized to 2. dat_srq_resize(3DAT)
 * DESCRIPTION: the outstanding buffers are those on the SRQ, at its EPs, and
 * completed but unreaped on the recv EVDs of its EPs; dat_evd_free(3DAT) drops
 * the queued events, so only the 2 on the SRQ remain and 2 is no refusal.
 */
#include "repro_srq.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_srq_kit k;
	struct repro_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_SRQ_PARAM sp;
	DAT_RETURN r;
	int i;

	memset(&p, 0, sizeof(p));
	if ((r = repro_srq_kit(ia, &k)) != DAT_SUCCESS ||
	    (r = repro_srq_ep(ia, &k, &p.b.ep)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ EP failed: %s", REPRO_RET(r));
	p.b.pz = k.pz;
	p.b.dto = k.recv;
	p.b.conn = k.conn;
	if ((r = repro_pending(ia, &p, 0)) != DAT_SUCCESS || (r = repro_accept(&p, p.b.ep)) !=
								   DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting to the SRQ EP failed: %s", REPRO_RET(r));
	for (i = 0; i < 4 && r == DAT_SUCCESS; i++)
		if ((r = repro_buffer(ia, k.pz, 64, &iov)) == DAT_SUCCESS)
			r = dat_srq_post_recv(k.srq, 1, &iov, (DAT_DTO_COOKIE){ .as_64 = i });
	for (i = 0; i < 2 && r == DAT_SUCCESS; i++)
		if ((r = repro_buffer(ia, p.a.pz, 64, &iov)) == DAT_SUCCESS)
			r = dat_ep_post_send(p.a.ep, 1, &iov, (DAT_DTO_COOKIE){ .as_64 = 100 + i },
					     DAT_COMPLETION_DEFAULT_FLAG);
	for (i = 0; i < 2 && r == DAT_SUCCESS; i++)
		r = repro_expect(p.a.dto, DAT_DTO_COMPLETION_EVENT);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "posting 4 buffers and sending 2 messages failed: %s",
				 REPRO_RET(r));
	printf("4 buffers on the SRQ, 2 messages sent and completed, nothing reaped on the recv EVD\n");
	if ((r = dat_ep_free(p.b.ep)) != DAT_SUCCESS || (r = dat_evd_free(k.recv)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "freeing the EP and its recv EVD failed: %s",
				 REPRO_RET(r));
	printf("the SRQ EP and its recv EVD freed\n");
	r = dat_srq_resize(k.srq, 2);
	printf("dat_srq_resize(srq, 2): %s\n", REPRO_RET(r));
	if (dat_srq_query(k.srq, DAT_SRQ_FIELD_ALL, &sp) == DAT_SUCCESS)
		printf("dat_srq_query: outstanding_dto_count %d, available_dto_count %d\n",
		       (int)sp.outstanding_dto_count, (int)sp.available_dto_count);
	fflush(stdout);
	if (DAT_GET_TYPE(r) == DAT_INVALID_STATE)
		return repro_say(REPRO_SHOWS, "the resize to 2 was refused as DAT_INVALID_STATE: "
				 "the 2 buffers lost with the EVD still count as outstanding");
	if (r == DAT_SUCCESS)
		return repro_say(REPRO_ABSENT, "the resize to the 2 buffers left succeeded");
	return repro_say(REPRO_CANNOT, "the resize gave %s", REPRO_RET(r));
}

REPRO_MAIN(.finding = "srq-outstanding-kept-after-evd-free", .body = body)
