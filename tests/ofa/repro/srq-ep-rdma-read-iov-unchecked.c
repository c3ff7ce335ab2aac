/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-ep-rdma-read-iov-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_create_with_srq with max_rdma_read_iov one above the IA's
 * max_iov_segments_per_rdma_read. dat_ep_create_with_srq(3DAT) RETURN VALUES:
 * a requested maximum RDMA Read IOV beyond the IA's capability is the page's
 * own example of DAT_INVALID_PARAMETER.
 */
#include "repro_srq.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_srq_kit k;
	DAT_EP_HANDLE ep;
	DAT_RETURN r;

	if ((r = repro_srq_kit(ia, &k)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ and EVDs failed: %s", REPRO_RET(r));
	k.attr.max_rdma_read_iov = k.ia_attr.max_iov_segments_per_rdma_read + 1;
	r = repro_srq_ep(ia, &k, &ep);
	printf("IA max_iov_segments_per_rdma_read %d; dat_ep_create_with_srq(max_rdma_read_iov "
	       "%d): %s\n", (int)k.ia_attr.max_iov_segments_per_rdma_read,
	       (int)k.attr.max_rdma_read_iov, REPRO_RET(r));
	fflush(stdout);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "the excess RDMA Read IOV was refused");
	return repro_say(REPRO_SHOWS, "max_rdma_read_iov above the IA's capability gave %s",
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "srq-ep-rdma-read-iov-unchecked", .body = body)
