/* SPDX-License-Identifier: MIT */
/*
 * Finding cr-port-qual-zero (docs/certification/ofa-dapl-2.1.10/):
 * an EP of the IA connects to a PSP of the same IA; the Connection
 * Request's remote_port_qual is compared with the requesting EP's
 * local_port_qual. dat_ep_connect(3DAT) DESCRIPTION: the port qualifier
 * the EP is bound to is passed to the remote side and given in its
 * Connection Request; dat_cr_query(3DAT) reports it as remote_port_qual.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair p;
	DAT_CR_PARAM cp;
	DAT_EP_PARAM ep;
	DAT_RETURN r;

	if ((r = repro_pending(ia, &p, 0)) != DAT_SUCCESS ||
	    (r = dat_cr_query(p.cr, DAT_CR_FIELD_ALL, &cp)) != DAT_SUCCESS ||
	    (r = dat_ep_query(p.a.ep, DAT_EP_FIELD_LOCAL_PORT_QUAL, &ep)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting and querying a Connection Request failed: "
				 "%s", REPRO_RET(r));
	if (cp.remote_port_qual == ep.local_port_qual)
		return repro_say(REPRO_ABSENT, "the request's remote_port_qual is the requesting "
				 "EP's local_port_qual (%llu)",
				 (unsigned long long)ep.local_port_qual);
	return repro_say(REPRO_SHOWS, "the Connection Request reports remote_port_qual %llu, the "
			 "requesting EP reports local_port_qual %llu",
			 (unsigned long long)cp.remote_port_qual,
			 (unsigned long long)ep.local_port_qual);
}

REPRO_MAIN(.finding = "cr-port-qual-zero", .body = body,
	   .if_crash = "connecting or querying the request killed the process")
