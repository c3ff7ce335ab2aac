/* SPDX-License-Identifier: MIT */
/*
 * Finding state-not-checked (docs/certification/ofa-dapl-2.1.10/): an EP in
 * DAT_EP_STATE_ACTIVE_CONNECTION_PENDING (its request has reached an RSP
 * that has not answered yet) asked by dat_ep_modify to change
 * max_rdma_read_in; another one, max_rdma_read_out. dat_ep_modify(3DAT)
 * DESCRIPTION: both may change only in Unconnected, Reserved, Passive
 * Connection Pending and Tentative Connection Pending; RETURN VALUES:
 * DAT_INVALID_STATE when the EP's state does not allow a requested
 * parameter to change.
 */
#include "repro.h"

/* The modify's return on a connecting EP of its own (a second modify of one EP is another
 * matter). */
static DAT_RETURN modify_connecting(DAT_IA_HANDLE ia, DAT_EP_PARAM_MASK mask, const char **failed)
{
	struct repro_pair pr;
	DAT_EP_STATE state;
	DAT_BOOLEAN idle;
	DAT_EP_PARAM param;
	DAT_RETURN r;

	*failed = "getting a Connection Request to an RSP";
	if ((r = repro_pending_rsp(ia, &pr, NULL)) != DAT_SUCCESS)
		return r;
	*failed = "checking the connecting EP's state (ACTIVE_CONNECTION_PENDING) or querying it";
	if ((r = dat_ep_get_status(pr.a.ep, &state, &idle, &idle)) != DAT_SUCCESS ||
	    (r = dat_ep_query(pr.a.ep, DAT_EP_FIELD_ALL, &param)) != DAT_SUCCESS ||
	    state != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
		return r;
	*failed = NULL;
	param.ep_attr.max_rdma_read_in += param.ep_attr.max_rdma_read_in ? -1 : 1;
	param.ep_attr.max_rdma_read_out += param.ep_attr.max_rdma_read_out ? -1 : 1;
	return dat_ep_modify(pr.a.ep, mask, &param);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	const char *failed;
	DAT_RETURN in, out;

	in = modify_connecting(ia, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, &failed);
	if (failed)
		return repro_say(REPRO_CANNOT, "%s failed: %s", failed, REPRO_RET(in));
	out = modify_connecting(ia, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, &failed);
	if (failed)
		return repro_say(REPRO_CANNOT, "%s failed: %s", failed, REPRO_RET(out));
	if (in == DAT_SUCCESS || out == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "in ACTIVE_CONNECTION_PENDING dat_ep_modify of "
				 "max_rdma_read_in returned %s, of max_rdma_read_out %s",
				 REPRO_RET(in), REPRO_RET(out));
	return repro_say(REPRO_ABSENT, "in ACTIVE_CONNECTION_PENDING both modifies were refused: "
			 "%s, %s", REPRO_RET(in), REPRO_RET(out));
}

REPRO_MAIN(.finding = "state-not-checked", .body = body)
