/* SPDX-License-Identifier: MIT */
/*
 * srq_hold.h - holding arriving messages at an EP, through the reference
 * provider's test hooks (daplref_test_*, docs/reference-provider.md).
 *
 * Several clauses are about buffers an EP has taken from the SRQ but not
 * yet completed.  On a real transport that state lasts microseconds; the
 * reference provider can freeze it.  A provider without the hooks makes
 * these cases UNSUPPORTED (dc_provider_hook), which is the honest answer:
 * the state cannot be staged there.
 *
 * PLACEHOLDER until the hook interface is documented.
 */
#ifndef SRQ_HOLD_H
#define SRQ_HOLD_H

#include "srq_common.h"

struct srq_hold {
	struct dc_ctx *t;
	DAT_EP_HANDLE ep;
};

static inline void hold_begin_at(struct dc_ctx *t, const char *file, int line,
				 struct srq_hold *h, struct srq_link *l)
{
	(void)dc_provider_hook_at(t, file, line, "daplref_test_hold_arrivals");
	h->t = t;
	h->ep = l->rx.ep;
}
#define hold_begin(h, l) hold_begin_at(t, __FILE__, __LINE__, (h), (l))
#define hold_await(h, n) ((void)(h), (void)(n))
#define hold_release(h) ((void)(h))

#endif /* SRQ_HOLD_H */
