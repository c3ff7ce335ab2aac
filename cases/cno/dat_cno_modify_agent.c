/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_cno_modify_agent(3DAT); clauses in
 * clauses/dat_cno_modify_agent.toml.
 */
#include "../evd/evd_common.h"

DC_CASE(dat_cno_modify_agent, sets_agent,
	.summary = "an installed agent is reported and called for the next trigger")
{
	struct agent_rec *rb = agent_rec_new();
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_CNO_PARAM p;

	DC_ASSERT_SUCCESS(dat_cno_modify_agent(cno, agent_of(rb)));
	p = DC_CNO_PARAM(cno);
	DC_ASSERT_PTR_EQ(dc_cno_agent(&p).instance_data, rb);
	DC_ASSERT(dc_cno_agent(&p).proxy_agent_func == agent_fn_,
		  "dat_cno_query reports a different agent function");
	post(evd, TAG(1));
	DC_ASSERT(agent_calls_within(rb, 1, dc_wait_ms(t)),
		  "the installed agent was not called within %ld ms of a trigger",
		  dc_wait_ms(t));
	DC_ASSERT_PTR_EQ(rb->inst, rb);
	DC_ASSERT_PTR_EQ(rb->evd, evd);
}

DC_CASE(dat_cno_modify_agent, replaces_agent,
	.summary = "after changing agent A to B a trigger calls B, not A")
{
	struct agent_rec *ra = agent_rec_new(), *rb = agent_rec_new();
	DAT_CNO_HANDLE cno = dc_cno(t, agent_of(ra));
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);

	DC_ASSERT_SUCCESS(dat_cno_modify_agent(cno, agent_of(rb)));
	post(evd, TAG(1));
	DC_ASSERT(agent_calls_within(rb, 1, dc_wait_ms(t)),
		  "the new agent was not called within %ld ms of a trigger", dc_wait_ms(t));
	DC_ASSERT(!agent_calls_within(ra, 1, DC_QUIET_MS),
		  "the replaced agent was called");
}

DC_CASE(dat_cno_modify_agent, in_addition_to_local,
	.summary = "one trigger both calls the agent and wakes a dat_cno_wait waiter")
{
	struct agent_rec *rb = agent_rec_new();
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w;

	DC_ASSERT_SUCCESS(dat_cno_modify_agent(cno, agent_of(rb)));	/* the clause's own call */
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a trigger with an agent installed");
	DC_ASSERT(agent_calls_within(rb, 1, dc_wait_ms(t)),
		  "the agent was not called for the trigger that woke the waiter");
	DC_ASSERT_PTR_EQ(rb->evd, evd);
}

DC_CASE(dat_cno_modify_agent, null_disassociates,
	.summary = "DAT_OS_WAIT_PROXY_AGENT_NULL removes the agent: reported NULL, not called")
{
	struct agent_rec *ra = agent_rec_new();
	DAT_CNO_HANDLE cno = dc_cno(t, agent_of(ra));
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w;
	DAT_CNO_PARAM p;

	DC_ASSERT_SUCCESS(dat_cno_modify_agent(cno, DAT_OS_WAIT_PROXY_AGENT_NULL));
	p = DC_CNO_PARAM(cno);
	DC_ASSERT(dc_cno_agent(&p).instance_data == NULL && dc_cno_agent(&p).proxy_agent_func == NULL,
		  "after removing the agent dat_cno_query reports {%p, %p}",
		  dc_cno_agent(&p).instance_data, (void *)dc_cno_agent(&p).proxy_agent_func);
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a trigger without agent");
	DC_ASSERT(!agent_calls_within(ra, 1, DC_QUIET_MS),
		  "the removed agent was called");
}

DC_CASE(dat_cno_modify_agent, invalid_handle,
	.summary = "NULL or an EVD handle gives DAT_INVALID_HANDLE")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_RETURN r;

	r = dat_cno_modify_agent(DAT_HANDLE_NULL, DAT_OS_WAIT_PROXY_AGENT_NULL);
	note_ret(t, "dat_cno_modify_agent(DAT_HANDLE_NULL)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CNO);
	r = dat_cno_modify_agent((DAT_CNO_HANDLE)evd, DAT_OS_WAIT_PROXY_AGENT_NULL);
	note_ret(t, "dat_cno_modify_agent(an EVD handle)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CNO);
}

DC_CASE(dat_cno_modify_agent, invalid_agent,
	.summary = "an agent with instance data but no function gives DAT_INVALID_PARAMETER; the old agent stays")
{
	static int x;
	struct agent_rec *ra = agent_rec_new();
	DAT_OS_WAIT_PROXY_AGENT bad = { .instance_data = &x, .proxy_agent_func = NULL };
	DAT_CNO_HANDLE cno = dc_cno(t, agent_of(ra));
	DAT_CNO_PARAM p;
	DAT_RETURN r;

	r = dat_cno_modify_agent(cno, bad);
	note_ret(t, "dat_cno_modify_agent({&x, NULL})", r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	p = DC_CNO_PARAM(cno);
	DC_ASSERT(dc_cno_agent(&p).instance_data == ra && dc_cno_agent(&p).proxy_agent_func == agent_fn_,
		  "after the refused change dat_cno_query reports {%p, %p}",
		  dc_cno_agent(&p).instance_data, (void *)dc_cno_agent(&p).proxy_agent_func);
}
