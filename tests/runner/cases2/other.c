// SPDX-License-Identifier: MIT
/* A second area, so the runner's discovery and --area filter are tested. */
#include "datcts.h"

DC_CASE(other_page, pass,
	.clauses = "other_page.pass",
	.summary = "passes in another area")
{
	DC_ASSERT_NE(t->ia, DAT_HANDLE_NULL);
}

DC_CASE(other_page, also_pass,
	.summary = "passes too")
{
}
