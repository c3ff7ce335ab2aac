/* SPDX-License-Identifier: MIT */
/*
 * Finding second-modify-crash (docs/certification/ofa-dapl-2.1.10/): two
 * dat_ep_modify calls of an unconnected EP, each asking for the
 * max_recv_dtos it already has. dat_ep_modify(3DAT) DESCRIPTION: the
 * parameter may change in Unconnected, and nothing limits how often, so both
 * calls succeed and the EP answers dat_ep_query afterwards.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	struct repro_end s;
	DAT_EP_PARAM param, after;
	DAT_RETURN r = repro_end_param(ia, &s, &param);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making or querying the EP failed: %s", REPRO_RET(r));
	for (int i = 1; i <= 2; i++) {
		r = dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &param);
		printf("modify %d of max_recv_dtos (%d): %s\n", i, param.ep_attr.max_recv_dtos,
		       REPRO_RET(r));
		fflush(stdout);
		if (r != DAT_SUCCESS)
			return repro_say(i == 1 ? REPRO_CANNOT : REPRO_SHOWS,
					 "modify %d of the unconnected EP returned %s", i, REPRO_RET(r));
	}
	if ((r = dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &after)) != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "after two modifies dat_ep_query returned %s",
				 REPRO_RET(r));
	return repro_say(REPRO_ABSENT, "two modifies of max_recv_dtos succeeded, the EP answers");
}

REPRO_MAIN(.finding = "second-modify-crash", .body = body,
	   .if_crash = "the second dat_ep_modify of an unconnected EP killed the process (the line "
		       "before says which call)")
