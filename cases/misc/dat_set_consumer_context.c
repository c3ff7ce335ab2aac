/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_set_consumer_context(3DAT); clauses in
 * clauses/dat_set_consumer_context.toml.  Each kind of handle the page
 * lists gets its own case (handles.h).
 */
#include "handles.h"

static DAT_CONTEXT ctx64(uint64_t v)
{
	DAT_CONTEXT c;

	memset(&c, 0, sizeof(c));
	c.as_64 = v;
	return c;
}

#define ASSERT_CTX(h, want)						\
	do {								\
		DAT_CONTEXT got_;					\
		memset(&got_, 0xee, sizeof(got_));			\
		/* collateral: dat_set_consumer_context(3DAT) DESCRIPTION: the context set is what the get reads back */ \
		DC_ASSERT_SUCCESS(dat_get_consumer_context((h), &got_)); \
		DC_ASSERT(got_.as_64 == (uint64_t)(want),		\
			  "context reads 0x%llx, expected 0x%llx",	\
			  (unsigned long long)got_.as_64,		\
			  (unsigned long long)(uint64_t)(want));	\
	} while (0)

static void set_then_get(struct dc_ctx *t, enum kind k, DAT_HANDLE h)
{
	uint64_t v = 0x5eed000000000000ull | ((uint64_t)k << 8) | 0x11;

	DC_ASSERT_SUCCESS(dat_set_consumer_context(h, ctx64(v)));
	ASSERT_CTX(h, v);
}

PER_KIND_CASES(dat_set_consumer_context, associates, "dat_set_consumer_context.associates",
	       "a context set on the handle reads back", set_then_get)

DC_CASE(dat_set_consumer_context, one_per_handle,
	.summary = "two PZs and an EVD keep their own contexts")
{
	DAT_PZ_HANDLE p1 = dc_pz(t), p2 = dc_pz(t);
	DAT_EVD_HANDLE e = dc_evd(t, 4, DAT_EVD_SOFTWARE_FLAG);

	DC_ASSERT_SUCCESS(dat_set_consumer_context(p1, ctx64(1)));
	DC_ASSERT_SUCCESS(dat_set_consumer_context(p2, ctx64(2)));
	DC_ASSERT_SUCCESS(dat_set_consumer_context(e, ctx64(3)));
	ASSERT_CTX(p1, 1);
	ASSERT_CTX(p2, 2);
	ASSERT_CTX(e, 3);
}

DC_CASE(dat_set_consumer_context, replaces,
	.summary = "a second set replaces the first")
{
	DAT_PZ_HANDLE pz = dc_pz(t);

	DC_ASSERT_SUCCESS(dat_set_consumer_context(pz, ctx64(0xaaaa)));
	DC_ASSERT_SUCCESS(dat_set_consumer_context(pz, ctx64(0xbbbb)));
	ASSERT_CTX(pz, 0xbbbb);
}

DC_CASE(dat_set_consumer_context, null_disassociates,
	.summary = "setting NULL leaves a NULL context")
{
	DAT_EP_HANDLE ep = make_handle(K_EP);
	DAT_CONTEXT null_ctx, got;

	memset(&null_ctx, 0, sizeof(null_ctx));
	null_ctx.as_ptr = NULL;
	DC_ASSERT_SUCCESS(dat_set_consumer_context(ep, ctx64(0xfeed)));
	DC_ASSERT_SUCCESS(dat_set_consumer_context(ep, null_ctx));
	memset(&got, 0xee, sizeof(got));
	/* collateral: dat_set_consumer_context(3DAT) DESCRIPTION: the association, or its removal, is what the get reads */
	DC_ASSERT_SUCCESS(dat_get_consumer_context(ep, &got));
	DC_ASSERT(got.as_ptr == NULL && got.as_64 == 0,
		  "after a NULL set the context reads 0x%llx", (unsigned long long)got.as_64);
}

DC_CASE(dat_set_consumer_context, opaque_no_check,
	.summary = "any 64-bit value is accepted and returned bit for bit")
{
	static const uint64_t vals[] = {
		~(uint64_t)0, 1, 0x8000000000000000ull, 0xdeadbeefcafef00dull, 3, 0,
	};
	DAT_LMR_HANDLE lmr = make_handle(K_LMR);

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		DC_ASSERT_SUCCESS(dat_set_consumer_context(lmr, ctx64(vals[i])));
		ASSERT_CTX(lmr, vals[i]);
	}
}

DC_CASE(dat_set_consumer_context, invalid_handle,
	.summary = "NULL gives DAT_INVALID_HANDLE")
{
	DC_ASSERT_INVALID_HANDLE(dat_set_consumer_context(DAT_HANDLE_NULL, ctx64(1)), 1, ANY);
}

/* The same for a freed PZ: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_set_consumer_context, invalid_handle_freed,
	.clauses = "dat_set_consumer_context.invalid_handle",
	.summary = "a freed PZ gives DAT_INVALID_HANDLE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);

	DC_SETUP(dat_pz_free(pz));
	DC_ASSERT_INVALID_HANDLE(dat_set_consumer_context(pz, ctx64(1)), 1, ANY);
}
