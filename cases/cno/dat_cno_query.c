/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_cno_query(3DAT); clauses in clauses/dat_cno_query.toml.
 */
#include "../evd/evd_common.h"

DC_CASE(dat_cno_query, returns_requested,
	.summary = "DAT_CNO_FIELD_ALL and each single field report the IA and the agent")
{
	struct agent_rec *ra = agent_rec_new();
	DAT_CNO_HANDLE cno = dc_cno(t, agent_of(ra));
	DAT_CNO_PARAM p;

	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	DC_ASSERT_PTR_EQ(dc_cno_agent(&p).instance_data, ra);
	DC_ASSERT(dc_cno_agent(&p).proxy_agent_func == agent_fn_, "wrong agent function reported");
	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_cno_query(cno, DAT_CNO_FIELD_IA_HANDLE, &p));
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_cno_query(cno, DC_CNO_FIELD_AGENT, &p));
	DC_ASSERT_PTR_EQ(dc_cno_agent(&p).instance_data, ra);
	DC_ASSERT(dc_cno_agent(&p).proxy_agent_func == agent_fn_, "wrong agent function reported");
}

DC_CASE(dat_cno_query, null_agent_reported,
	.summary = "a CNO without agent reports DAT_OS_WAIT_PROXY_AGENT_NULL")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_CNO_PARAM p;

	memset(&p, 0xa5, sizeof(p));
	DC_ASSERT_SUCCESS(dat_cno_query(cno, DAT_CNO_FIELD_ALL, &p));
	DC_ASSERT(dc_cno_agent(&p).instance_data == NULL && dc_cno_agent(&p).proxy_agent_func == NULL,
		  "a CNO without agent reports agent {%p, %p}",
		  dc_cno_agent(&p).instance_data, (void *)dc_cno_agent(&p).proxy_agent_func);
}

DC_CASE(dat_cno_query, invalid_mask,
	.summary = "mask bits outside DAT_CNO_FIELD_ALL give DAT_INVALID_PARAMETER")
{
	const DAT_CNO_PARAM_MASK bad[] = {
		(DAT_CNO_PARAM_MASK)dc_mask_bit_above(DAT_CNO_FIELD_ALL), (DAT_CNO_PARAM_MASK)0x80000000u,
	};
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	struct dc_snap s;
	DAT_CNO_PARAM p;
	DAT_RETURN r;

	dc_snapshot(t, DC_OBJ_CNO, cno, &s);
	for (unsigned int i = 0; i < 2; i++) {
		char what[64];

		r = dat_cno_query(cno, bad[i], &p);
		snprintf(what, sizeof(what), "dat_cno_query(mask 0x%x)", (unsigned int)bad[i]);
		note_ret(t, what, r);
		DC_ASSERT(dc_ret_is(r, DAT_INVALID_PARAMETER, DC_ANY_SUBTYPE),
			  "%s returned %s, expected DAT_INVALID_PARAMETER", what, dc_ret_text(r));
	}
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_cno_query, invalid_handle,
	.summary = "NULL or an EVD handle gives DAT_INVALID_HANDLE")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);
	DAT_CNO_PARAM p;
	DAT_RETURN r;

	r = dat_cno_query(DAT_HANDLE_NULL, DAT_CNO_FIELD_ALL, &p);
	note_ret(t, "dat_cno_query(DAT_HANDLE_NULL)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CNO);
	r = dat_cno_query((DAT_CNO_HANDLE)evd, DAT_CNO_FIELD_ALL, &p);
	note_ret(t, "dat_cno_query(an EVD handle)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, CNO);
}
