/* SPDX-License-Identifier: MIT */
/*
 * Finding accept-refused-cr-unusable (docs/certification/ofa-dapl-2.1.10/):
 * a Connection Request of the IA to itself is accepted with a negative
 * private_data_size, which is refused; the same request is then accepted
 * as it should be. dat_cr_accept(3DAT) RETURN VALUES: the refusal is
 * DAT_INVALID_PARAMETER, and a call that fails changes nothing, so the
 * request is still there to be accepted (or rejected).
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static char pd[64];
	struct repro_pair p;
	DAT_RETURN r;

	if ((r = repro_pending_for(ia, &p)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting a Connection Request failed: %s",
				 REPRO_RET(r));
	r = dat_cr_accept(p.cr, p.b.ep, -1, pd);
	if (DAT_GET_TYPE(r) != DAT_INVALID_PARAMETER)
		return repro_say(REPRO_CANNOT, "the refused accept answered %s (finding "
				 "accept-private-data-size-negative)", REPRO_RET(r));
	r = dat_cr_accept(p.cr, p.b.ep, 0, NULL);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "after a refused accept, accepting the same request "
				 "returned %s", REPRO_RET(r));
	if ((r = repro_expect(p.b.conn, DAT_CONNECTION_EVENT_ESTABLISHED)) != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "after a refused accept, the accept of the same "
				 "request did not establish: %s", REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "after the refused accept the request was accepted and "
			 "connected");
}

REPRO_MAIN(.finding = "accept-refused-cr-unusable", .body = body,
	   .if_crash = "accepting a request after a refused accept of it killed the process")
