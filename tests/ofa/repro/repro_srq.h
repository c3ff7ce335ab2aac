/* SPDX-License-Identifier: MIT */
/*
 * What the SRQ findings' reproducers share: the objects an EP on an SRQ is
 * made of, and EP attributes as the suite's cases give them
 * (dc_ep_attr_default, harness/fixtures.c), within the IA's limits.
 */
#ifndef DATCTS_REPRO_SRQ_H
#define DATCTS_REPRO_SRQ_H

#include "repro.h"

struct repro_srq_kit {
	DAT_PZ_HANDLE pz;
	DAT_SRQ_HANDLE srq;
	DAT_EVD_HANDLE recv, req, conn;
	DAT_EP_ATTR attr;
	DAT_IA_ATTR ia_attr;
};

static inline DAT_COUNT repro_within(DAT_COUNT want, DAT_COUNT limit)
{
	return limit > 0 && limit < want ? limit : want;
}

/* A PZ, an SRQ of depth 8 in it, two DTO EVDs, a connection EVD and the attributes. */
static inline DAT_RETURN repro_srq_kit(DAT_IA_HANDLE ia, struct repro_srq_kit *k)
{
	DAT_SRQ_ATTR sa = { .max_recv_dtos = 8, .max_recv_iov = 1,
			    .low_watermark = DAT_SRQ_LW_DEFAULT };
	const DAT_IA_ATTR *i = &k->ia_attr;
	DAT_EP_ATTR *a = &k->attr;
	DAT_EVD_HANDLE async;
	DAT_RETURN r;

	if ((r = dat_ia_query(ia, &async, DAT_IA_FIELD_ALL, &k->ia_attr, 0, NULL)) != DAT_SUCCESS ||
	    (r = dat_pz_create(ia, &k->pz)) != DAT_SUCCESS ||
	    (r = dat_srq_create(ia, k->pz, &sa, &k->srq)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &k->recv)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &k->req)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 16, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &k->conn)) !=
		    DAT_SUCCESS)
		return r;
	memset(a, 0, sizeof(*a));
	a->service_type = DAT_SERVICE_TYPE_RC;
	a->max_message_size = i->max_message_size && i->max_message_size < 65536 ?
		i->max_message_size : 65536;
	a->max_rdma_size = i->max_rdma_size && i->max_rdma_size < a->max_message_size ?
		i->max_rdma_size : a->max_message_size;
	a->qos = DAT_QOS_BEST_EFFORT;
	a->recv_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->request_completion_flags = DAT_COMPLETION_DEFAULT_FLAG;
	a->max_recv_dtos = a->max_request_dtos = repro_within(16, i->max_dto_per_ep);
	a->max_recv_iov = a->max_request_iov = repro_within(4, i->max_iov_segments_per_dto);
	a->max_rdma_read_in = repro_within(4, i->max_rdma_read_per_ep_in);
	a->max_rdma_read_out = repro_within(4, i->max_rdma_read_per_ep_out);
	a->srq_soft_hw = DAT_HW_DEFAULT;
	a->max_rdma_read_iov = repro_within(1, i->max_iov_segments_per_rdma_read);
	a->max_rdma_write_iov = repro_within(1, i->max_iov_segments_per_rdma_write);
	return DAT_SUCCESS;
}

/* An SRQ of depth `depth` in pz with `posts` Receives of 64 bytes of buf (64 * posts bytes)
 * on it, cookies 0, 1, ... */
static inline DAT_RETURN repro_srq_posted(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, DAT_COUNT depth,
					  int posts, char *buf, DAT_SRQ_HANDLE *srq)
{
	DAT_SRQ_ATTR a = { .max_recv_dtos = depth, .max_recv_iov = 1,
			   .low_watermark = DAT_SRQ_LW_DEFAULT };
	DAT_LMR_TRIPLET iov;
	DAT_RMR_CONTEXT rctx;
	DAT_RETURN r;

	if ((r = dat_srq_create(ia, pz, &a, srq)) != DAT_SUCCESS)
		return r;
	for (int i = 0; i < posts; i++) {
		if ((r = repro_lmr_iov(ia, pz, buf + 64 * i, 64, DAT_MEM_PRIV_ALL_FLAG, &iov,
				       &rctx)) != DAT_SUCCESS ||
		    (r = dat_srq_post_recv(*srq, 1, &iov, (DAT_DTO_COOKIE){ .as_64 = i })) !=
			    DAT_SUCCESS)
			return r;
	}
	return DAT_SUCCESS;
}

/* An EP on the kit's SRQ with the kit's attributes. */
static inline DAT_RETURN repro_srq_ep(DAT_IA_HANDLE ia, struct repro_srq_kit *k, DAT_EP_HANDLE *ep)
{
	*ep = DAT_HANDLE_NULL;
	return dat_ep_create_with_srq(ia, k->pz, k->recv, k->req, k->conn, k->srq, &k->attr, ep);
}

#endif
