/* SPDX-License-Identifier: MIT */
/*
 * Finding refused-connect-as-broken (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_connect to the IA's own address on a qualifier nobody listens on.
 * dat_ep_connect(3DAT) DESCRIPTION: a remote Consumer not listening on the
 * qualifier ends the request in DAT_CONNECTION_EVENT_NON_PEER_REJECTED.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	/* above the ephemeral ports, apart for reproducers run side by side */
	DAT_CONN_QUAL q = 61000 + (getpid() * 13) % 4000;
	struct repro_end a;
	DAT_EVENT ev;
	DAT_RETURN r = repro_end(ia, &a);

	if (r != DAT_SUCCESS || !self)
		return repro_say(REPRO_CANNOT, "making the EP or reading the IA address failed: %s",
				 REPRO_RET(r));
	r = dat_ep_connect(a.ep, self, q, 10000000, 0, NULL, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_DEFAULT_FLAG);
	if (r != DAT_SUCCESS || (r = repro_event(a.conn, 10000, &ev)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the connect to qualifier %llu or its event failed: "
				 "%s", (unsigned long long)q, REPRO_RET(r));
	return repro_judge_event(ev.event_number, DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
				 DAT_CONNECTION_EVENT_BROKEN,
				 "the request to a qualifier nobody listens on");
}

REPRO_MAIN(.finding = "refused-connect-as-broken", .body = body,
	   .if_crash = "the connect to a qualifier nobody listens on killed the process")
