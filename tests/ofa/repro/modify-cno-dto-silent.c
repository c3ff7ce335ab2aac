/* SPDX-License-Identifier: MIT */
/*
 * Finding modify-cno-dto-silent (docs/certification/ofa-dapl-2.1.10/): a connected pair of
 * one IA whose passive EP b takes its Receives from an SRQ (default receive completion
 * flags); a CNO is attached to b's receive EVD with dat_evd_modify_cno, as the failing cases
 * do. One buffer is posted to the SRQ, a sends one message: dat_srq_post_recv(3DAT) USAGE
 * and dat_ep_create_with_srq(3DAT) USAGE make every SRQ Receive completion signalled, so
 * it triggers the CNO and dat_cno_wait returns. For comparison, the same with a plain
 * Receive on a (its EVD's CNO attached the same way), b sending: when that one is silent
 * too, the defect is the late-attached CNO of any DTO EVD, not the SRQ.
 */
#include "repro.h"

static DAT_RETURN cno_on(DAT_IA_HANDLE ia, DAT_EVD_HANDLE evd, DAT_CNO_HANDLE *cno)
{
	DAT_RETURN r = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, cno);

	return r != DAT_SUCCESS ? r : dat_evd_modify_cno(evd, *cno);
}

static DAT_RETURN send_one(DAT_IA_HANDLE ia, const struct repro_end *e)
{
	DAT_LMR_TRIPLET iov;
	DAT_RETURN r = repro_buffer(ia, e->pz, 64, &iov);

	return r != DAT_SUCCESS ? r : dat_ep_post_send(e->ep, 1, &iov,
		(DAT_DTO_COOKIE){ .as_64 = 7 }, DAT_COMPLETION_DEFAULT_FLAG);
}

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
	DAT_CNO_HANDLE bcno, acno;
	DAT_EVD_HANDLE which = DAT_HANDLE_NULL, which_a = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET riov;
	DAT_EVENT ev;
	DAT_RETURN r, srq_r, plain_r, ev_r;

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
	if ((r = cno_on(ia, b->dto, &bcno)) != DAT_SUCCESS ||
	    (r = repro_buffer(ia, b->pz, 256, &riov)) != DAT_SUCCESS ||
	    (r = dat_srq_post_recv(srq, 1, &riov, (DAT_DTO_COOKIE){ .as_64 = 5 })) !=
		    DAT_SUCCESS || (r = send_one(ia, &p.a)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "CNO, Receive or Send failed: %s", REPRO_RET(r));
	srq_r = dat_cno_wait(bcno, 5000000, &which);
	ev_r = repro_event(b->dto, 5000, &ev);
	printf("SRQ Receive on b: dat_cno_wait -> %s (evd %s); b's EVD then gave %s%s\n",
	       REPRO_RET(srq_r), which == b->dto ? "b's" : "not b's", REPRO_RET(ev_r),
	       ev_r == DAT_SUCCESS && ev.event_number == DAT_DTO_COMPLETION_EVENT ?
	       " (the Receive completion)" : "");
	if (ev_r != DAT_SUCCESS || ev.event_number != DAT_DTO_COMPLETION_EVENT)
		return repro_say(REPRO_CANNOT, "the SRQ Receive did not complete");
	/* for comparison: a plain Receive on a, its EVD emptied first */
	while (dat_evd_dequeue(p.a.dto, &ev) == DAT_SUCCESS)
		;
	if ((r = cno_on(ia, p.a.dto, &acno)) != DAT_SUCCESS ||
	    (r = repro_post_recvs(ia, &p.a, 1, 9)) != DAT_SUCCESS ||
	    (r = send_one(ia, b)) != DAT_SUCCESS)
		plain_r = r;
	else
		plain_r = dat_cno_wait(acno, 5000000, &which_a);
	printf("plain Receive on a (comparison): dat_cno_wait -> %s\n", REPRO_RET(plain_r));
	if (srq_r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "the Receive completion of an SRQ buffer did not "
				 "trigger the CNO attached to its EVD (dat_cno_wait %s)", REPRO_RET(srq_r));
	return repro_say(REPRO_ABSENT, "the SRQ Receive completion triggered the CNO");
}

REPRO_MAIN(.finding = "modify-cno-dto-silent", .body = body, .timeout_s = 60)
