/* SPDX-License-Identifier: MIT */
/*
 * Finding post-errno-lost (docs/certification/ofa-dapl-2.1.10/): a Receive
 * (on an unconnected EP) and a Send (on a connected one) with one segment
 * more than the EP's max_recv_iov, resp. max_request_iov, posted with errno
 * left at EADDRINUSE, as an earlier failed call of the process could leave
 * it. dat_ep_post_recv(3DAT) and dat_ep_post_send(3DAT) RETURN VALUES list
 * the types the call may return; a connection qualifier in use is none of
 * them. Whether the posts are refused at all is the device's and is left
 * open (a post the device takes is fine): what shows the defect is the
 * refusal coming back as the errno the caller left behind.
 */
#include "repro.h"

#include <errno.h>

#define SEGMENTS_MAX 64

static char mem[SEGMENTS_MAX * 8];

/* Post with one segment more than max, errno planted; the return. */
static DAT_RETURN post(DAT_IA_HANDLE ia, const struct repro_end *s, DAT_COUNT max, int send)
{
	DAT_LMR_TRIPLET iov[SEGMENTS_MAX];
	DAT_DTO_COOKIE cookie = { .as_64 = 1 };
	DAT_RETURN r = repro_lmr_iov(ia, s->pz, mem, sizeof(mem), DAT_MEM_PRIV_ALL_FLAG, &iov[0],
				     NULL);

	if (r != DAT_SUCCESS)
		return r;
	for (DAT_COUNT i = 0; i <= max; i++) {
		iov[i] = iov[0];
		iov[i].virtual_address += (DAT_VADDR)i * 8;
		iov[i].segment_length = 8;
	}
	errno = EADDRINUSE;
	if (send)
		return dat_ep_post_send(s->ep, max + 1, iov, cookie, DAT_COMPLETION_DEFAULT_FLAG);
	return dat_ep_post_recv(s->ep, max + 1, iov, cookie, DAT_COMPLETION_DEFAULT_FLAG);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair pr;
	struct repro_end lone;
	DAT_EP_PARAM param;
	DAT_RETURN recv, send = DAT_SUCCESS;
	char send_said[256];
	DAT_RETURN r;

	if ((r = repro_end_param(ia, &lone, &param)) != DAT_SUCCESS ||
	    param.ep_attr.max_recv_iov >= SEGMENTS_MAX || param.ep_attr.max_request_iov >= SEGMENTS_MAX)
		return repro_say(REPRO_CANNOT, "making or querying an EP failed (%s), or its IOV "
				 "limits are beyond %d", REPRO_RET(r), SEGMENTS_MAX - 1);
	recv = post(ia, &lone, param.ep_attr.max_recv_iov, 0);
	/* the Send on a connected EP made the same way; the Receive decides alone without */
	if ((r = repro_pair_rsp(ia, &pr, NULL)) != DAT_SUCCESS) {
		snprintf(send_said, sizeof(send_said), "the Send was not tried (connecting the IA "
			 "to itself over an RSP failed: %s)", REPRO_RET(r));
	} else {
		send = post(ia, &pr.a, param.ep_attr.max_request_iov, 1);
		snprintf(send_said, sizeof(send_said), "a Send of %d segments %s",
			 param.ep_attr.max_request_iov + 1, REPRO_RET(send));
	}
	if (DAT_GET_TYPE(recv) == DAT_CONN_QUAL_IN_USE || DAT_GET_TYPE(send) == DAT_CONN_QUAL_IN_USE)
		return repro_say(REPRO_SHOWS, "with errno left at EADDRINUSE, a Receive of %d "
				 "segments returned %s; %s", param.ep_attr.max_recv_iov + 1,
				 REPRO_RET(recv), send_said);
	return repro_say(r != DAT_SUCCESS ? REPRO_CANNOT : REPRO_ABSENT, "with errno left at "
			 "EADDRINUSE, the Receive returned %s; %s", REPRO_RET(recv), send_said);
}

REPRO_MAIN(.finding = "post-errno-lost", .body = body)
