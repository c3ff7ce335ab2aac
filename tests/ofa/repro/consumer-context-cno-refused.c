/* SPDX-License-Identifier: MIT */
/*
 * Finding consumer-context-cno-refused (docs/certification/ofa-dapl-2.1.10/):
 * a Consumer context is set on a live CNO and read back.
 * dat_set_consumer_context(3DAT) and dat_get_consumer_context(3DAT)
 * DESCRIPTION list DAT_CNO_HANDLE among the handles they take.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_CONTEXT set = { .as_64 = 0x5ca1ab1eULL }, got = { .as_64 = 0 };
	DAT_CNO_HANDLE cno;
	DAT_RETURN r = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_cno_create returned %s", REPRO_RET(r));
	r = dat_set_consumer_context(cno, set);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_set_consumer_context on a live CNO returned %s",
				 REPRO_RET(r));
	r = dat_get_consumer_context(cno, &got);
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_get_consumer_context on a live CNO returned %s",
				 REPRO_RET(r));
	if (got.as_64 != set.as_64)
		return repro_say(REPRO_SHOWS, "the CNO's context reads back as 0x%llx, 0x%llx was set",
				 (unsigned long long)got.as_64, (unsigned long long)set.as_64);
	return repro_say(REPRO_ABSENT, "the CNO keeps the context set on it");
}

REPRO_MAIN(.finding = "consumer-context-cno-refused", .body = body,
	   .if_crash = "setting or getting a CNO's context killed the process")
