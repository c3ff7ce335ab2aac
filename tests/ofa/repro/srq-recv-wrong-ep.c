/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-recv-wrong-ep (docs/certification/ofa-dapl-2.1.10/): a connected pair of
 * one IA whose passive EP b takes its Receives from an SRQ; one buffer is posted to the
 * SRQ and a sends one 64-byte message. dat_srq_post_recv(3DAT) DESCRIPTION and
 * dat_srq_create(3DAT) USAGE: the completion is reported as for a Receive posted to b,
 * so its ep_handle is b, the EP whose connection the message came over.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_SRQ_ATTR sa = { .max_recv_dtos = 16, .max_recv_iov = 4,
			    .low_watermark = DAT_SRQ_LW_DEFAULT };
	DAT_EP_ATTR ea = {
		.service_type = DAT_SERVICE_TYPE_RC, .max_message_size = 65536,
		.max_rdma_size = 65536, .qos = DAT_QOS_BEST_EFFORT,
		.recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG,
		.request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG,
		.max_recv_dtos = 16, .max_request_dtos = 16, .max_recv_iov = 4,
		.max_request_iov = 4, .max_rdma_read_in = 4, .max_rdma_read_out = 4,
		.srq_soft_hw = DAT_HW_DEFAULT, .max_rdma_read_iov = 1, .max_rdma_write_iov = 1,
	};
	struct repro_pair p = { 0 };
	struct repro_end *b = &p.b;
	DAT_SRQ_HANDLE srq;
	DAT_LMR_TRIPLET riov, siov;
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN r;

	if ((r = repro_pending(ia, &p, 0)) != DAT_SUCCESS ||
	    (r = dat_pz_create(ia, &b->pz)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &b->dto)) !=
		    DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &b->conn)) !=
		    DAT_SUCCESS ||
	    (r = dat_srq_create(ia, b->pz, &sa, &srq)) != DAT_SUCCESS ||
	    (r = dat_ep_create_with_srq(ia, b->pz, b->dto, b->dto, b->conn, srq, &ea,
					&b->ep)) != DAT_SUCCESS ||
	    (r = repro_accept(&p, b->ep)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "connecting a to an EP on an SRQ failed: %s",
				 REPRO_RET(r));
	if ((r = repro_buffer(ia, b->pz, 256, &riov)) != DAT_SUCCESS ||
	    (r = dat_srq_post_recv(srq, 1, &riov, (DAT_DTO_COOKIE){ .as_64 = 5 })) !=
		    DAT_SUCCESS ||
	    (r = repro_buffer(ia, p.a.pz, 64, &siov)) != DAT_SUCCESS ||
	    (r = dat_ep_post_send(p.a.ep, 1, &siov, (DAT_DTO_COOKIE){ .as_64 = 7 },
				  DAT_COMPLETION_DEFAULT_FLAG)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "posting the Receive or the Send failed: %s",
				 REPRO_RET(r));
	if ((r = repro_event(b->dto, 10000, &ev)) != DAT_SUCCESS ||
	    ev.event_number != DAT_DTO_COMPLETION_EVENT)
		return repro_say(REPRO_CANNOT, "no Receive completion on b's EVD: %s",
				 r != DAT_SUCCESS ? REPRO_RET(r) : REPRO_EVENT(ev.event_number));
	d = &ev.event_data.dto_completion_event_data;
	printf("Receive completion: status %d, cookie %llu, length %llu, ep_handle %p\n",
	       (int)d->status, (unsigned long long)d->user_cookie.as_64,
	       (unsigned long long)d->transfered_length, (void *)d->ep_handle);
	printf("b (the receiving EP) %p, the SRQ %p, a (the sender) %p\n", (void *)b->ep,
	       (void *)srq, (void *)p.a.ep);
	if (d->ep_handle != b->ep)
		return repro_say(REPRO_SHOWS, "the Receive completion of an SRQ buffer names %s, "
				 "not the EP b that received the message",
				 d->ep_handle == (DAT_EP_HANDLE)srq ? "the SRQ" : "another handle");
	return repro_say(REPRO_ABSENT, "the Receive completion names b");
}

REPRO_MAIN(.finding = "srq-recv-wrong-ep", .body = body, .timeout_s = 40)
