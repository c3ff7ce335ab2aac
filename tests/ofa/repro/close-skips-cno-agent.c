/* SPDX-License-Identifier: MIT */
/*
 * Finding close-skips-cno-agent (docs/certification/ofa-dapl-2.1.10/): an
 * abrupt dat_ia_close of an IA with a CNO that has an OS Wait Proxy Agent
 * and an EVD, and no thread waiting. dat_ia_close(3DAT) DESCRIPTION: the
 * abrupt close unblocks all waiters of every CNO, the OS Wait Proxy Agents
 * among them, with DAT_HANDLE_NULL as the EVD.
 */
#include "repro.h"

static volatile sig_atomic_t agent_calls, agent_null;

static void agent(DAT_PVOID instance, DAT_EVD_HANDLE evd)
{
	(void)instance;
	agent_null = evd == DAT_HANDLE_NULL;
	agent_calls++;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_OS_WAIT_PROXY_AGENT proxy = { .instance_data = NULL, .proxy_agent_func = agent };
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE evd;
	DAT_RETURN r;

	if ((r = repro_cno_evd(ia, proxy, &cno, &evd)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the CNO and its EVD failed: %s",
				 REPRO_RET(r));
	if ((r = dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the abrupt close returned %s", REPRO_RET(r));
	/* The agent may be called from another thread: give it 2 s. */
	for (int i = 0; i < 200 && !agent_calls; i++)
		repro_sleep_ms(10);
	if (!agent_calls)
		return repro_say(REPRO_SHOWS, "the abrupt close never called the CNO's OS Wait "
				 "Proxy Agent");
	return repro_say(REPRO_ABSENT, "the abrupt close called the agent (EVD %s)",
			 agent_null ? "DAT_HANDLE_NULL" : "not DAT_HANDLE_NULL");
}

REPRO_MAIN(.finding = "close-skips-cno-agent", .body = body)
