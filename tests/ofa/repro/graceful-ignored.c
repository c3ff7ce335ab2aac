/* SPDX-License-Identifier: MIT */
/*
 * Finding graceful-ignored (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_disconnect(3DAT) DESCRIPTION: a graceful disconnect first lets the
 * outstanding and in-progress request DTOs try to complete successfully, the
 * EP meanwhile in DAT_EP_STATE_DISCONNECT_PENDING. Two ways to have request
 * DTOs outstanding at the call, each a part (repro_parts):
 *   send:  a Send waits for the peer's Receive, posted after the call
 *          (InfiniBand and RoCE: the Send is retried until the Receive comes;
 *          iWARP has no such retry, so there the part cannot hold the Send);
 *   reads: RDMA Reads of up to 4 MiB each (the EP's max_rdma_size), which take
 *          a while to complete (any device).
 * A request flushed although the connection was sound shows the defect.
 */
#include "repro.h"

#define READS 8
#define READ_MAX ((DAT_VLEN)4 << 20)

static enum repro_answer send_part(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_EP_STATE state;
	DAT_DTO_COMPLETION_EVENT_DATA *dto;
	DAT_EVENT ev;
	DAT_RETURN r;

	if ((r = repro_graceful_with_send(ia, &p, &state)) != DAT_SUCCESS ||
	    (r = repro_post_recvs(ia, &p.b, 1, 1)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting, the Send, the graceful disconnect or the "
				 "peer's Receive failed: %s", REPRO_RET(r));
	if ((r = repro_event(p.a.dto, 5000, &ev)) != DAT_SUCCESS ||
	    ev.event_number != DAT_DTO_COMPLETION_EVENT)
		return repro_say(REPRO_CANNOT, "the Send gave no DTO completion within 5 s (%s)",
				 r != DAT_SUCCESS ? REPRO_RET(r) : REPRO_EVENT(ev.event_number));
	dto = &ev.event_data.dto_completion_event_data;
	if (dto->status == DAT_DTO_SUCCESS)
		return repro_say(REPRO_ABSENT, "the Send completed successfully after the graceful "
				 "disconnect");
	if (dto->status != DAT_DTO_ERR_FLUSHED)
		return repro_say(REPRO_CANNOT, "the Send completed with status %d, not a flush",
				 (int)dto->status);
	return repro_say(REPRO_SHOWS, "the graceful disconnect flushed the Send waiting for the "
			 "peer's Receive (DAT_DTO_ERR_FLUSHED; the EP was in state %d right after the "
			 "call, DISCONNECT_PENDING is %d)", (int)state,
			 (int)DAT_EP_STATE_DISCONNECT_PENDING);
}

static enum repro_answer reads_part(DAT_IA_HANDLE ia)
{
	char *mine = calloc(READS, READ_MAX), *peers = calloc(1, READ_MAX);
	DAT_VLEN len = READ_MAX;
	DAT_EP_PARAM param;
	struct repro_pair p;
	DAT_LMR_TRIPLET iov, peer_iov;
	DAT_RMR_TRIPLET remote;
	DAT_EP_STATE state;
	DAT_BOOLEAN recv_idle, request_idle;
	DAT_EVENT ev;
	DAT_RETURN r;
	int ok = 0, flushed = 0;

	if (!mine || !peers)
		return repro_say(REPRO_CANNOT, "no memory for the %d MiB of buffers",
				 (int)((READS + 1) * (READ_MAX >> 20)));
	if ((r = repro_pair(ia, &p)) != DAT_SUCCESS ||
	    (r = dat_ep_query(p.a.ep, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, &param)) != DAT_SUCCESS ||
	    (r = repro_lmr_iov(ia, p.a.pz, mine, READS * READ_MAX, DAT_MEM_PRIV_ALL_FLAG, &iov,
			       NULL)) != DAT_SUCCESS ||
	    (r = repro_lmr_iov(ia, p.b.pz, peers, READ_MAX, DAT_MEM_PRIV_ALL_FLAG, &peer_iov,
			       &remote.rmr_context)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting or registering the buffers failed: %s",
				 REPRO_RET(r));
	/* as long as the EP allows (each Read is one RDMA transfer) */
	if (param.ep_attr.max_rdma_size && param.ep_attr.max_rdma_size < len)
		len = param.ep_attr.max_rdma_size;
	remote.virtual_address = peer_iov.virtual_address;
	remote.segment_length = len;
	iov.segment_length = len;
	for (int i = 0; i < READS; i++) {
		iov.virtual_address = (DAT_VADDR)(uintptr_t)(mine + (size_t)i * READ_MAX);
		if ((r = dat_ep_post_rdma_read(p.a.ep, 1, &iov, (DAT_DTO_COOKIE){ .as_64 = 100 + i },
					       &remote, DAT_COMPLETION_DEFAULT_FLAG)) != DAT_SUCCESS)
			return repro_say(REPRO_CANNOT, "RDMA Read %d was refused: %s", i, REPRO_RET(r));
	}
	if ((r = dat_ep_disconnect(p.a.ep, DAT_CLOSE_GRACEFUL_FLAG)) != DAT_SUCCESS ||
	    (r = dat_ep_get_status(p.a.ep, &state, &recv_idle, &request_idle)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the graceful disconnect or the status after it "
				 "failed: %s", REPRO_RET(r));
	for (int i = 0; i < READS; i++) {
		DAT_DTO_COMPLETION_EVENT_DATA *dto = &ev.event_data.dto_completion_event_data;

		if ((r = repro_event(p.a.dto, 10000, &ev)) != DAT_SUCCESS ||
		    ev.event_number != DAT_DTO_COMPLETION_EVENT)
			return repro_say(REPRO_CANNOT, "%d of the %d Reads gave no completion within "
					 "10 s (%s)", READS - i, READS,
					 r != DAT_SUCCESS ? REPRO_RET(r) : REPRO_EVENT(ev.event_number));
		if (dto->status == DAT_DTO_SUCCESS)
			ok++;
		else if (dto->status == DAT_DTO_ERR_FLUSHED)
			flushed++;
		else
			return repro_say(REPRO_CANNOT, "Read cookie %llu completed with status %d, "
					 "neither success nor a flush",
					 (unsigned long long)dto->user_cookie.as_64, (int)dto->status);
	}
	if (!flushed)
		return repro_say(REPRO_ABSENT, "all %d Reads of %llu bytes posted before the "
				 "graceful disconnect completed successfully", READS,
				 (unsigned long long)len);
	return repro_say(REPRO_SHOWS, "the graceful disconnect flushed %d of %d RDMA Reads of %llu "
			 "bytes posted before it (%d completed; the EP was in state %d right after the "
			 "call, DISCONNECT_PENDING is %d)", flushed, READS, (unsigned long long)len, ok,
			 (int)state, (int)DAT_EP_STATE_DISCONNECT_PENDING);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const struct repro_part parts[] = {
		{ "send", send_part },
		{ "reads", reads_part },
	};

	return repro_parts(ia, parts, 2);
}

REPRO_MAIN(.finding = "graceful-ignored", .body = body, .timeout_s = 50,
	   .if_crash = "the graceful disconnect killed the process")
