/* SPDX-License-Identifier: MIT */
/*
 * Finding rsp-accept-named-ep-refused (docs/certification/ofa-dapl-2.1.10/):
 * an RSP made with an EP on an SRQ; a request to it accepted with
 * dat_cr_accept naming that same EP. dat_cr_accept(3DAT) DESCRIPTION: the
 * local EP is given either explicitly or by the request (then ep_handle is
 * NULL); naming the very EP the request carries is the explicit form, and the
 * connection is established on it.
 */
#include "repro_srq.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_srq_kit k;
	struct repro_pair p;
	struct repro_end b;
	DAT_RETURN r;

	memset(&p, 0, sizeof(p));
	if ((r = repro_srq_kit(ia, &k)) != DAT_SUCCESS ||
	    (r = repro_srq_ep(ia, &k, &b.ep)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ EP failed: %s", REPRO_RET(r));
	b.pz = k.pz;
	b.dto = k.recv;
	b.conn = k.conn;
	if ((r = repro_pending_rsp(ia, &p, &b)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the request to the RSP did not arrive: %s",
				 REPRO_RET(r));
	r = dat_cr_accept(p.cr, b.ep, 0, NULL);
	printf("dat_cr_accept(cr of the RSP, the RSP's own EP): %s\n", REPRO_RET(r));
	fflush(stdout);
	if (DAT_GET_TYPE(r) == DAT_INVALID_HANDLE)
		return repro_say(REPRO_SHOWS, "accepting with the RSP's own EP named gave %s",
				 REPRO_RET(r));
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the accept gave %s", REPRO_RET(r));
	r = repro_expect(b.conn, DAT_CONNECTION_EVENT_ESTABLISHED);
	printf("the EP's connection event: %s\n", r == DAT_SUCCESS ? "ESTABLISHED" : REPRO_RET(r));
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the accepted connection was not established");
	return repro_say(REPRO_ABSENT, "the accept naming the RSP's EP established the connection");
}

REPRO_MAIN(.finding = "rsp-accept-named-ep-refused", .body = body)
