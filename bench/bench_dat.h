/* SPDX-License-Identifier: MIT */
/*
 * What the DAT benchmarks (datbench, growbench) share: dying on an error
 * with the call that failed, and taking the next event of an EVD, either
 * by dat_evd_wait or, for DTO completions of a polling consumer (-P), by
 * dequeuing in a loop. The includer defines BENCH_NAME (its name, for the
 * messages) before it includes this file.
 */
#ifndef DATCTS_BENCH_DAT_H
#define DATCTS_BENCH_DAT_H

#include <dat/udat.h>

#include <stdio.h>
#include <stdlib.h>

#define DIE(expr) do { \
	DAT_RETURN rc_ = (expr); \
	if (rc_ != DAT_SUCCESS) { \
		fprintf(stderr, BENCH_NAME ": %s: 0x%08x (line %d)\n", #expr, \
			(unsigned int)rc_, __LINE__); \
		exit(1); \
	} \
} while (0)

/* The next event of evd, which must be want; a DTO completion must be successful. */
static inline void bench_wait_event(DAT_EVD_HANDLE evd, DAT_EVENT *ev, DAT_EVENT_NUMBER want,
				    int busy_poll)
{
	DAT_COUNT nmore;

	if (busy_poll && want == DAT_DTO_COMPLETION_EVENT) {
		DAT_RETURN rc;

		while ((rc = dat_evd_dequeue(evd, ev)) != DAT_SUCCESS)
			if (DAT_GET_TYPE(rc) != DAT_QUEUE_EMPTY)
				DIE(rc);
	} else {
		DIE(dat_evd_wait(evd, DAT_TIMEOUT_INFINITE, 1, ev, &nmore));
	}
	if (ev->event_number != want) {
		fprintf(stderr, BENCH_NAME ": event 0x%x, want 0x%x\n",
			ev->event_number, want);
		exit(1);
	}
	if (want == DAT_DTO_COMPLETION_EVENT &&
	    ev->event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS) {
		fprintf(stderr, BENCH_NAME ": DTO status %d\n",
			ev->event_data.dto_completion_event_data.status);
		exit(1);
	}
}

#endif
