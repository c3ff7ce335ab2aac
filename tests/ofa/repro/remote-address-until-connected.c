/* SPDX-License-Identifier: MIT */
/*
 * Finding remote-address-until-connected (docs/certification/ofa-dapl-2.1.10/):
 * the IA connects to itself; while the request waits at an RSP, the
 * requesting EP (ACTIVE_CONNECTION_PENDING) and the RSP's EP (PASSIVE_
 * CONNECTION_PENDING) are asked for remote_ia_address. dat_ep_query(3DAT)
 * DESCRIPTION: remote_ia_address is valid in both states. Its value is the
 * peer's address: the one dat_ep_connect was given for the active EP (the
 * IA's own), the requester's (as dat_cr_query reports it) for the passive.
 */
#include "repro.h"

#include <netinet/in.h>

static int same_address(const struct sockaddr *x, const struct sockaddr *y)
{
	if (!x || !y || x->sa_family != y->sa_family)
		return 0;
	if (x->sa_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	if (x->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
			       &((const struct sockaddr_in6 *)y)->sin6_addr, sizeof(struct in6_addr));
	return 0;
}

static const char *show(const struct sockaddr *a)
{
	static char buf[2][64];
	static unsigned int i;
	char *s = buf[i++ % 2];
	const unsigned char *b;

	if (!a)
		return "NULL";
	if (a->sa_family != AF_INET) {
		snprintf(s, 64, "family %u", (unsigned int)a->sa_family);
		return s;
	}
	b = (const unsigned char *)&((const struct sockaddr_in *)a)->sin_addr;
	snprintf(s, 64, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	return s;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_pair pr;
	DAT_RETURN r = repro_pending_rsp(ia, &pr, NULL);
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_EP_PARAM active, passive;
	DAT_CR_PARAM cr;
	char shows[256] = "";

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting a Connection Request to an RSP failed: %s",
				 REPRO_RET(r));
	if ((r = dat_cr_query(pr.cr, DAT_CR_FIELD_ALL, &cr)) != DAT_SUCCESS ||
	    (r = dat_ep_query(pr.a.ep, DAT_EP_FIELD_ALL, &active)) != DAT_SUCCESS ||
	    (r = dat_ep_query(pr.b.ep, DAT_EP_FIELD_ALL, &passive)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_cr_query or dat_ep_query failed: %s",
				 REPRO_RET(r));
	if (active.ep_state != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING ||
	    passive.ep_state != DAT_EP_STATE_PASSIVE_CONNECTION_PENDING)
		return repro_say(REPRO_CANNOT, "the EPs are in states %d and %d, not ACTIVE_ and "
				 "PASSIVE_CONNECTION_PENDING", (int)active.ep_state,
				 (int)passive.ep_state);
	if (!same_address(active.remote_ia_address_ptr, self))
		snprintf(shows, sizeof(shows), "the connecting EP reports %s, not the address it "
			 "connected to (%s); ", show(active.remote_ia_address_ptr), show(self));
	if (!same_address(passive.remote_ia_address_ptr, cr.remote_ia_address_ptr))
		snprintf(shows + strlen(shows), sizeof(shows) - strlen(shows), "the RSP's EP "
			 "reports %s, not the requester's address (%s)",
			 show(passive.remote_ia_address_ptr), show(cr.remote_ia_address_ptr));
	if (*shows)
		return repro_say(REPRO_SHOWS, "remote_ia_address before the accept: %s", shows);
	return repro_say(REPRO_ABSENT, "both EPs report the peer's address before the accept");
}

REPRO_MAIN(.finding = "remote-address-until-connected", .body = body)
