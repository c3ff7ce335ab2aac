/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_cno_create(3DAT); clauses in clauses/dat_cno_create.toml.
 * Shared helpers (waiters, agent recorder): ../evd/evd_common.h.
 */
#include "../evd/evd_common.h"

DC_CASE(dat_cno_create, returns_handle,
	.summary = "dat_cno_create returns a CNO handle of the IA with the agent given")
{
	struct agent_rec *rec = agent_rec_new();
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	DAT_CNO_PARAM p;

	DC_ASSERT_SUCCESS(dat_cno_create(t->ia, agent_of(rec), &cno));
	DC_ASSERT(cno != DAT_HANDLE_NULL, "dat_cno_create succeeded but returned DAT_HANDLE_NULL");
	/* the CNO is shown by its query (dat_cno_query(3DAT)); whether
	 * dat_get_handle_type knows CNO handles is contested on its own page */
	p = DC_CNO_PARAM(cno);
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	DC_ASSERT_PTR_EQ(dc_cno_agent(&p).instance_data, rec);
	DC_ASSERT(dc_cno_agent(&p).proxy_agent_func == agent_fn_,
		  "dat_cno_query reports a different agent function");
}

DC_CASE(dat_cno_create, starts_unattached,
	.summary = "a new CNO has no notification pending and nothing using it")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE got = DC_UNWRITTEN_EVD;

	/* collateral: dat_cno_create(3DAT) DESCRIPTION: nothing feeds the new CNO, so a wait on it times out */
	DC_ASSERT_RET(dat_cno_wait(cno, 20000, &got), DAT_QUEUE_EMPTY);
	/* collateral: dat_cno_create(3DAT) DESCRIPTION: no EVD and no waiter holds the new CNO, so it frees */
	DC_ASSERT_SUCCESS(dat_cno_free(cno));
}

DC_CASE(dat_cno_create, agent_invoked,
	.summary = "the agent given at creation is called with its instance data and the EVD on a trigger")
{
	struct agent_rec *rec = agent_rec_new();
	DAT_CNO_HANDLE cno = dc_cno(t, agent_of(rec));
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);

	post(evd, TAG(1));
	DC_ASSERT(agent_calls_within(rec, 1, dc_wait_ms(t)),
		  "the OS Wait Proxy Agent was not called within %ld ms of the trigger",
		  dc_wait_ms(t));
	DC_ASSERT_PTR_EQ(rec->inst, rec);
	DC_ASSERT_PTR_EQ(rec->evd, evd);
}

DC_CASE(dat_cno_create, agent_one_shot,
	.summary = "the CNO drops its agent after the agent's first call")
{
	struct agent_rec *rec = agent_rec_new();
	DAT_CNO_HANDLE cno = dc_cno(t, agent_of(rec));
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w;
	DAT_CNO_PARAM p;

	post(evd, TAG(1));
	DC_SETUP_ASSERT(agent_calls_within(rec, 1, dc_wait_ms(t)),
			"set-up: the agent was not called for the first trigger");
	p = DC_CNO_PARAM(cno);
	DC_ASSERT(dc_cno_agent(&p).instance_data == NULL && dc_cno_agent(&p).proxy_agent_func == NULL,
		  "after the agent was called, dat_cno_query still reports agent {%p, %p}",
		  dc_cno_agent(&p).instance_data, (void *)dc_cno_agent(&p).proxy_agent_func);
	cno_drain(cno);
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(2));
	EXPECT_CNO_WOKEN(w, evd, "a second trigger");
	DC_ASSERT(!agent_calls_within(rec, 2, DC_QUIET_MS),
		  "the agent was called again for the second trigger");
}

DC_CASE(dat_cno_create, null_agent,
	.summary = "DAT_OS_WAIT_PROXY_AGENT_NULL gives a CNO without agent that still wakes waiters")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 8, DAT_EVD_SOFTWARE_FLAG, cno);
	DAT_CNO_PARAM p = DC_CNO_PARAM(cno);
	struct dc_waiter *w;

	DC_ASSERT(dc_cno_agent(&p).instance_data == NULL && dc_cno_agent(&p).proxy_agent_func == NULL,
		  "a CNO created without agent reports agent {%p, %p}",
		  dc_cno_agent(&p).instance_data, (void *)dc_cno_agent(&p).proxy_agent_func);
	w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);
	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a post");
}

DC_CASE(dat_cno_create, invalid_ia_handle,
	.summary = "a NULL or non-IA ia_handle gives DAT_INVALID_HANDLE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	DAT_RETURN r;

	r = dat_cno_create(DAT_HANDLE_NULL, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);
	note_ret(t, "dat_cno_create(ia DAT_HANDLE_NULL)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, IA);
	r = dat_cno_create((DAT_IA_HANDLE)pz, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);
	note_ret(t, "dat_cno_create(ia = a PZ handle)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, IA);
}

DC_CASE(dat_cno_create, invalid_agent,
	.summary = "an agent with instance data but no function gives DAT_INVALID_PARAMETER")
{
	static int x;
	DAT_OS_WAIT_PROXY_AGENT bad = { .instance_data = &x, .proxy_agent_func = NULL };
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	DAT_RETURN r;

	r = dat_cno_create(t->ia, bad, &cno);
	note_ret(t, "dat_cno_create({&x, NULL})", r);
	DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
}

struct creator {
	struct dc_gate *g;
	DAT_IA_HANDLE ia;
	DAT_CNO_HANDLE cno[100];
	int n;			/* created */
	DAT_RETURN bad;
};

static void *creator_main(void *arg)
{
	struct creator *c = arg;

	c->bad = DAT_SUCCESS;
	dc_gate_pass(c->g);
	for (int i = 0; i < 100; i++) {
		DAT_RETURN r = dat_cno_create(c->ia, DAT_OS_WAIT_PROXY_AGENT_NULL,
					      &c->cno[i]);

		/*
		 * dat_cno_create(3DAT) RETURN VALUES lists
		 * DAT_INSUFFICIENT_RESOURCES and the IA promises no CNO
		 * count: running out is an answer, not a failure.
		 */
		if (DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES)
			break;
		if (r != DAT_SUCCESS) {
			c->bad = r;
			break;
		}
		c->n++;
	}
	return NULL;
}

DC_CASE(dat_cno_create, mt_safe,
	.summary = "4 threads create up to 100 CNOs each at once: no error but running out, all distinct, all of the IA")
{
	enum { NT = 4 };
	static struct creator c[NT];
	struct dc_gate g;
	int made = 0;

	dc_gate_init(&g, NT);
	for (int i = 0; i < NT; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].g = &g;
		c[i].ia = t->ia;
	}
	dc_run_threads(NT, creator_main, c);
	for (int i = 0; i < NT; i++) {
		DC_ASSERT(c[i].bad == DAT_SUCCESS, "thread %d: dat_cno_create returned %s",
			  i, dc_ret_text(c[i].bad));
		made += c[i].n;
	}
	dc_note(t, "%d CNOs made by %d threads", made, NT);
	if (made < 2) {
		dc_cause_needs(t, "attribute", "room for 2 CNOs");
		dc_end_at(t, DC_UNSUPPORTED, __FILE__, __LINE__, false,
			  "the IA had room for %d CNO(s): no concurrent creation to judge", made);
	}
	for (int i = 0; i < NT; i++) {
		for (int k = 0; k < c[i].n; k++) {
			DAT_CNO_HANDLE h = c[i].cno[k];

			DC_ASSERT_IA_HANDLE(DC_CNO_PARAM(h).ia_handle, t->ia);
			for (int j = i; j < NT; j++)
				for (int m = (j == i ? k + 1 : 0); m < c[j].n; m++)
					DC_ASSERT(c[j].cno[m] != h,
						  "threads %d and %d got the same CNO handle %p",
						  i, j, h);
		}
	}
}

/*
 * dat_cno_create(3DAT) RETURN VALUES: an operation that fails for lack of
 * resources returns DAT_INSUFFICIENT_RESOURCES.  Out of memory (each
 * allocation of 40 creates in a row failing in turn): that, or a CNO that
 * works; once the CNOs made are freed the IA closes gracefully.
 */
static DAT_RETURN cno_make(struct dc_ctx *t, void *cno)
{
	return dat_cno_create(t->ia, DAT_OS_WAIT_PROXY_AGENT_NULL, cno);
}

static void cno_works(struct dc_ctx *t, void *cno, bool keep)
{
	DAT_CNO_PARAM p = DC_CNO_PARAM(*(DAT_CNO_HANDLE *)cno);

	/* collateral: dat_cno_create(3DAT) RETURN VALUES: DAT_SUCCESS made a CNO of the IA, which its query shows */
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	if (!keep)
		DC_CLEANUP(dat_cno_free(*(DAT_CNO_HANDLE *)cno));
}

DC_CASE(dat_cno_create, out_of_memory,
	.clauses = "dat_cno_create.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES or a working CNO, and no CNO left behind")
{
	DAT_CNO_HANDLE cno[DC_ALLOC_FAULT_OBJECTS];
	struct dc_alloc_call c = { "dat_cno_create", cno_make, cno_works, cno, NULL };

	int n = dc_alloc_sweep_n(t, &c, DC_ALLOC_FAULT_OBJECTS, cno);

	for (int i = 0; i < n; i++)
		DC_CLEANUP(dat_cno_free(cno[i]));
	DC_ASSERT_IA_CLOSES_GRACEFULLY();
}
