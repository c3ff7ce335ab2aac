/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_lmr_query(3DAT); clauses in clauses/dat_lmr_query.toml.
 */
#include "mem_common.h"

static void check_lmr_field(struct dc_ctx *t, const DAT_LMR_PARAM *q, DAT_LMR_PARAM_MASK bit,
			const struct dc_lmr *m, DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv)
{
	switch (bit) {
	case DAT_LMR_FIELD_IA_HANDLE:
		DC_ASSERT_IA_HANDLE(q->ia_handle, t->ia);
		break;
	case DAT_LMR_FIELD_MEM_TYPE:
		DC_ASSERT_EQ(q->mem_type, DAT_MEM_TYPE_VIRTUAL);
		break;
	case DAT_LMR_FIELD_REGION_DESC:
		DC_ASSERT_PTR_EQ(q->region_desc.for_va, m->buf);
		break;
	case DAT_LMR_FIELD_LENGTH:
		DC_ASSERT_EQ(q->length, m->len);
		break;
	case DAT_LMR_FIELD_PZ_HANDLE:
		DC_ASSERT_PTR_EQ(q->pz_handle, pz);
		break;
	case DAT_LMR_FIELD_MEM_PRIV:
		DC_ASSERT_EQ(q->mem_priv, priv);
		break;
	case DAT_LMR_FIELD_LMR_CONTEXT:
		DC_ASSERT_EQ(q->lmr_context, m->lmr_context);
		break;
	case DAT_LMR_FIELD_RMR_CONTEXT:
		DC_ASSERT_EQ(q->rmr_context, m->rmr_context);
		break;
	case DAT_LMR_FIELD_REGISTERED_SIZE:
		DC_ASSERT(q->registered_size == m->registered_length,
			  "registered_size %llu, create returned %llu",
			  (unsigned long long)q->registered_size,
			  (unsigned long long)m->registered_length);
		break;
	case DAT_LMR_FIELD_REGISTERED_ADDRESS:
		DC_ASSERT(q->registered_address == m->registered_address,
			  "registered_address 0x%llx, create returned 0x%llx",
			  (unsigned long long)q->registered_address,
			  (unsigned long long)m->registered_address);
		break;
	default:
		break;
	}
}

DC_CASE(dat_lmr_query, fills_requested,
	.summary = "every LMR mask bit alone, and ALL, give the values of the creation")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	struct dc_lmr m;
	DAT_LMR_PARAM q;

	dc_lmr(t, pz, BUF, DAT_MEM_PRIV_ALL_FLAG, &m);
	for (unsigned int bit = 1; bit <= DAT_LMR_FIELD_REGISTERED_ADDRESS; bit <<= 1) {
		memset(&q, 0xa5, sizeof(q));
		DC_ASSERT_SUCCESS(dat_lmr_query(m.lmr, (DAT_LMR_PARAM_MASK)bit, &q));
		check_lmr_field(t, &q, (DAT_LMR_PARAM_MASK)bit, &m, pz, DAT_MEM_PRIV_ALL_FLAG);
	}
	memset(&q, 0xa5, sizeof(q));
	DC_ASSERT_SUCCESS(dat_lmr_query(m.lmr, DAT_LMR_FIELD_ALL, &q));
	for (unsigned int bit = 1; bit <= DAT_LMR_FIELD_REGISTERED_ADDRESS; bit <<= 1)
		check_lmr_field(t, &q, (DAT_LMR_PARAM_MASK)bit, &m, pz, DAT_MEM_PRIV_ALL_FLAG);
}

DC_CASE(dat_lmr_query, invalid_mask,
	.summary = "mask bits no LMR parameter has give DAT_INVALID_PARAMETER")
{
	struct dc_lmr m;
	struct dc_snap s;
	DAT_LMR_PARAM q;

	dc_lmr(t, dc_pz(t), BUF, DC_PRIV_LOCAL, &m);
	dc_snapshot(t, DC_OBJ_LMR, m.lmr, &s);
	DC_ASSERT_RET(dat_lmr_query(m.lmr, (DAT_LMR_PARAM_MASK)dc_mask_bit_above(DAT_LMR_FIELD_ALL), &q), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_lmr_query(m.lmr, (DAT_LMR_PARAM_MASK)0x80000000u, &q),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_UNCHANGED(&s);
}

DC_CASE(dat_lmr_query, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE/LMR")
{
	DAT_LMR_PARAM q;

	DC_ASSERT_INVALID_HANDLE(dat_lmr_query(DAT_HANDLE_NULL, DAT_LMR_FIELD_ALL, &q), 1, LMR);
	DC_ASSERT_INVALID_HANDLE(dat_lmr_query((DAT_LMR_HANDLE)dc_pz(t), DAT_LMR_FIELD_ALL, &q), 1, LMR);
}

/* The same for a freed LMR: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_lmr_query, invalid_handle_freed,
	.clauses = "dat_lmr_query.invalid_handle",
	.summary = "a freed LMR gives DAT_INVALID_HANDLE/LMR")
{
	struct dc_lmr m;
	DAT_LMR_PARAM q;

	dc_lmr(t, dc_pz(t), BUF, DC_PRIV_LOCAL, &m);
	DC_SETUP(dat_lmr_free(m.lmr));
	DC_ASSERT_INVALID_HANDLE(dat_lmr_query(m.lmr, DAT_LMR_FIELD_ALL, &q), 1, LMR);
}
