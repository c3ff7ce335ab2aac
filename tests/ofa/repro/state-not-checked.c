/* SPDX-License-Identifier: MIT */
/*
 * Finding state-not-checked (docs/certification/ofa-dapl-2.1.10/): an EP in
 * DAT_EP_STATE_ACTIVE_CONNECTION_PENDING (its request has reached an RSP
 * that has not answered yet), and one in DAT_EP_STATE_CONNECTED, each asked
 * by dat_ep_modify to change max_rdma_read_in; two more such EPs,
 * max_rdma_read_out. dat_ep_modify(3DAT) DESCRIPTION: both may change only in
 * Unconnected, Reserved, Passive Connection Pending and Tentative Connection
 * Pending; RETURN VALUES: DAT_INVALID_STATE when the EP's state does not
 * allow a requested parameter to change. A modify counts only when the EP is
 * in the state before and after the call: on soft-iWARP the modify of a
 * connecting EP returns only when its connect times out, and a connected EP
 * is often Disconnected after it (so a connected EP is tried up to five
 * times). Each state and field is a part of its own (repro_parts): on
 * soft-iWARP a process that has made several such EPs sometimes dies later.
 */
#include "repro.h"

/* The two forbidden states tried, each on a new EP (modify_in), up to tries times. */
static const struct {
	const char *name;
	DAT_EP_STATE state;
	int tries;
} states[] = {
	{ "ACTIVE_CONNECTION_PENDING", DAT_EP_STATE_ACTIVE_CONNECTION_PENDING, 1 },
	{ "CONNECTED", DAT_EP_STATE_CONNECTED, 5 },
};

static const struct {
	const char *name;
	DAT_EP_PARAM_MASK mask;
} fields[] = {
	{ "max_rdma_read_in", DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN },
	{ "max_rdma_read_out", DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT },
};

/*
 * The modify's return on a new EP in states[s] (a second modify of one EP is another matter);
 * *after: the EP's state once the call returned. *failed names the set-up step that failed.
 */
static DAT_RETURN modify_in(DAT_IA_HANDLE ia, int s, DAT_EP_PARAM_MASK mask, DAT_EP_STATE *after,
			    const char **failed)
{
	struct repro_pair pr;
	DAT_EP_STATE state;
	DAT_BOOLEAN idle;
	DAT_EP_PARAM param;
	DAT_RETURN r;

	*failed = s ? "connecting a pair" : "getting a Connection Request to an RSP";
	if ((r = s ? repro_pair(ia, &pr) : repro_pending_rsp(ia, &pr, NULL)) != DAT_SUCCESS)
		return r;
	*failed = "checking the EP's state or querying it";
	if ((r = dat_ep_get_status(pr.a.ep, &state, &idle, &idle)) != DAT_SUCCESS ||
	    (r = dat_ep_query(pr.a.ep, DAT_EP_FIELD_ALL, &param)) != DAT_SUCCESS ||
	    state != states[s].state)
		return r;
	*failed = NULL;
	param.ep_attr.max_rdma_read_in += param.ep_attr.max_rdma_read_in ? -1 : 1;
	param.ep_attr.max_rdma_read_out += param.ep_attr.max_rdma_read_out ? -1 : 1;
	r = dat_ep_modify(pr.a.ep, mask, &param);
	if (dat_ep_get_status(pr.a.ep, after, &idle, &idle) != DAT_SUCCESS)
		*after = DAT_EP_STATE_UNCONNECTED;
	return r;
}

/* One modify of fields[f] in states[s] judged: 1 accepted, 0 refused, -1 not judged. */
static int judge(DAT_IA_HANDLE ia, int s, int f)
{
	const char *failed;
	DAT_EP_STATE after = DAT_EP_STATE_UNCONNECTED;
	DAT_RETURN r = DAT_SUCCESS;

	for (int t = 0; t < states[s].tries && after != states[s].state; t++) {
		r = modify_in(ia, s, fields[f].mask, &after, &failed);
		if (failed) {
			printf("in %s: %s failed: %s\n", states[s].name, failed, REPRO_RET(r));
			return -1;
		}
		printf("in %s dat_ep_modify of %s returned %s", states[s].name, fields[f].name,
		       REPRO_RET(r));
		if (after != states[s].state)
			printf(" (the EP left that state meanwhile: state %d after the call)",
			       (int)after);
		putchar('\n');
		fflush(stdout);
	}
	return after != states[s].state ? -1 : r == DAT_SUCCESS;
}

static enum repro_answer part(DAT_IA_HANDLE ia, int s, int f)
{
	switch (judge(ia, s, f)) {
	case 1:
		return repro_say(REPRO_SHOWS, "in %s dat_ep_modify of %s returned DAT_SUCCESS",
				 states[s].name, fields[f].name);
	case 0:
		return repro_say(REPRO_ABSENT, "in %s dat_ep_modify of %s was refused",
				 states[s].name, fields[f].name);
	default:
		return repro_say(REPRO_CANNOT, "no modify of %s in %s could be judged (above)",
				 fields[f].name, states[s].name);
	}
}

static enum repro_answer connecting_in(DAT_IA_HANDLE ia)
{
	return part(ia, 0, 0);
}

static enum repro_answer connecting_out(DAT_IA_HANDLE ia)
{
	return part(ia, 0, 1);
}

static enum repro_answer connected_in(DAT_IA_HANDLE ia)
{
	return part(ia, 1, 0);
}

static enum repro_answer connected_out(DAT_IA_HANDLE ia)
{
	return part(ia, 1, 1);
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const struct repro_part parts[] = {
		{ "connecting-in", connecting_in },
		{ "connecting-out", connecting_out },
		{ "connected-in", connected_in },
		{ "connected-out", connected_out },
	};

	return repro_parts(ia, parts, 4);
}

REPRO_MAIN(.finding = "state-not-checked", .body = body, .timeout_s = 120)
