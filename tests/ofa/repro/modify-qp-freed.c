/* SPDX-License-Identifier: MIT */
/*
 * Finding modify-qp-freed (docs/certification/ofa-dapl-2.1.10/): one
 * dat_ep_modify of an unconnected EP's max_recv_dtos to a smaller value,
 * then a Receive posted to it. dat_ep_modify(3DAT) DESCRIPTION: the
 * parameter may change in Unconnected and the Provider changes the masked
 * parameters only; dat_ep_post_recv(3DAT) DESCRIPTION: a Receive may be
 * posted in any state. So the Receive is taken, as before the modify.
 */
#include "repro.h"

static char mem[4096];

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	const DAT_DTO_COOKIE cookie = { .as_64 = 1 };
	struct repro_end s;
	DAT_LMR_TRIPLET iov;
	DAT_EP_PARAM param;
	DAT_RETURN r = repro_end_param(ia, &s, &param);

	if (r != DAT_SUCCESS ||
	    (r = repro_lmr_iov(ia, s.pz, mem, sizeof(mem), DAT_MEM_PRIV_ALL_FLAG, &iov, NULL)) !=
		    DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making or querying the EP or its LMR failed: %s",
				 REPRO_RET(r));
	if (param.ep_attr.max_recv_dtos < 2)
		return repro_say(REPRO_CANNOT, "max_recv_dtos is %d, no smaller value to ask for",
				 param.ep_attr.max_recv_dtos);
	param.ep_attr.max_recv_dtos--;
	if ((r = dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &param)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ep_modify of max_recv_dtos returned %s",
				 REPRO_RET(r));
	r = dat_ep_post_recv(s.ep, 1, &iov, cookie, DAT_COMPLETION_DEFAULT_FLAG);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "after dat_ep_modify of max_recv_dtos, a Receive on the "
				 "unconnected EP returned %s", REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "after dat_ep_modify of max_recv_dtos the Receive was taken");
}

REPRO_MAIN(.finding = "modify-qp-freed", .body = body,
	   .if_crash = "a Receive posted after dat_ep_modify of max_recv_dtos killed the process")
