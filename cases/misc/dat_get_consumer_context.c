/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_get_consumer_context(3DAT); clauses in
 * clauses/dat_get_consumer_context.toml.
 */
#include "handles.h"

/*
 * returns_context, per kind: the set is set-up (its return is
 * dat_set_consumer_context's clause: a provider that refuses it leaves this
 * page's rule not judged on that kind, not failed), the get is the check.
 */
static void get_after_set(struct dc_ctx *t, enum kind k, DAT_HANDLE h)
{
	DAT_CONTEXT c, got;

	memset(&c, 0, sizeof(c));
	c.as_64 = 0xc0de000000000000ull | ((uint64_t)k << 8) | 0x22;
	DC_SETUP(dat_set_consumer_context(h, c));
	memset(&got, 0xee, sizeof(got));
	DC_ASSERT_SUCCESS(dat_get_consumer_context(h, &got));
	DC_ASSERT(got.as_64 == c.as_64, "context reads 0x%llx, set 0x%llx",
		  (unsigned long long)got.as_64, (unsigned long long)c.as_64);
}

PER_KIND_CASES(dat_get_consumer_context, reads_back, "dat_get_consumer_context.returns_context",
	       "the context set on the handle is the one read", get_after_set)

DC_CASE(dat_get_consumer_context, returns_latest,
	.clauses = "dat_get_consumer_context.returns_context",
	.summary = "the value read is the value last set, all 64 bits, on an RMR (where the IA has RMRs) and a CR")
{
	/* an IA may have no RMRs (dat_ia_query(3DAT) Max RMRs, no floor): that
	 * kind is skipped, noted, and the rule judged on the CR */
	bool rmrs = t->ia_attr.max_rmrs > 0;
	DAT_HANDLE hs[2] = { rmrs ? make_handle(K_RMR) : DAT_HANDLE_NULL, make_handle(K_CR) };

	if (!rmrs)
		dc_note(t, "the IA has no RMRs (max_rmrs 0): the RMR kind is skipped");
	for (int i = rmrs ? 0 : 1; i < 2; i++) {
		DAT_CONTEXT c, got;

		memset(&c, 0, sizeof(c));
		c.as_64 = 0x0123456789abcdefull + (uint64_t)i;
		DC_SETUP(dat_set_consumer_context(hs[i], c));
		memset(&got, 0, sizeof(got));
		DC_ASSERT_SUCCESS(dat_get_consumer_context(hs[i], &got));
		DC_ASSERT(got.as_64 == c.as_64, "read 0x%llx, set 0x%llx",
			  (unsigned long long)got.as_64, (unsigned long long)c.as_64);
	}
}

DC_CASE(dat_get_consumer_context, invalid_handle,
	.summary = "NULL gives DAT_INVALID_HANDLE")
{
	DAT_CONTEXT c;

	DC_ASSERT_INVALID_HANDLE(dat_get_consumer_context(DAT_HANDLE_NULL, &c), 1, ANY);
}

/* The same for a freed PZ: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_get_consumer_context, invalid_handle_freed,
	.clauses = "dat_get_consumer_context.invalid_handle",
	.summary = "a freed PZ gives DAT_INVALID_HANDLE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_CONTEXT c;

	DC_SETUP(dat_pz_free(pz));
	DC_ASSERT_INVALID_HANDLE(dat_get_consumer_context(pz, &c), 1, ANY);
}
