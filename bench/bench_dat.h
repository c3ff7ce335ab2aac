/* SPDX-License-Identifier: MIT */
/*
 * What the DAT benchmarks (datbench, growbench) share: dying on an error
 * with the call that failed, and taking the next event of an EVD, either
 * by dat_evd_wait or, for DTO completions of a polling consumer (-P), by
 * dequeuing in a loop; connecting two EPs of two IAs. The includer defines BENCH_NAME (its name, for the
 * messages) before it includes this file.
 */
#ifndef DATCTS_BENCH_DAT_H
#define DATCTS_BENCH_DAT_H

#ifdef DATCTS_DAT2
#include <dat2/udat.h>	/* instrbench2: the DAT 2.0 build */
#else
#include <dat/udat.h>
#endif

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

/* An IA's EVDs: two for DTOs (@qlen each), connection (@qlen), CR (64). */
static inline void bench_make_evds(DAT_IA_HANDLE ia, DAT_COUNT qlen, DAT_EVD_HANDLE *req,
				   DAT_EVD_HANDLE *recv, DAT_EVD_HANDLE *conn,
				   DAT_EVD_HANDLE *cr)
{
	DIE(dat_evd_create(ia, qlen, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, req));
	DIE(dat_evd_create(ia, qlen, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, recv));
	DIE(dat_evd_create(ia, qlen, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, conn));
	DIE(dat_evd_create(ia, 64, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, cr));
}

/*
 * Connects @a (of the first IA) to @b (of the second, which listens on @q
 * at @addr, its Connection Requests on @cr_evd): both ESTABLISHED events
 * taken from @a_conn_evd and @b_conn_evd.
 */
static inline void bench_connect(DAT_EP_HANDLE a, DAT_EP_HANDLE b, DAT_IA_ADDRESS_PTR addr,
				 DAT_CONN_QUAL q, DAT_EVD_HANDLE cr_evd,
				 DAT_EVD_HANDLE a_conn_evd, DAT_EVD_HANDLE b_conn_evd)
{
	DAT_EVENT ev;

	DIE(dat_ep_connect(a, addr, q, DAT_TIMEOUT_INFINITE, 0, NULL,
			   DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	bench_wait_event(cr_evd, &ev, DAT_CONNECTION_REQUEST_EVENT, 0);
	DIE(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b,
			  0, NULL));
	bench_wait_event(b_conn_evd, &ev, DAT_CONNECTION_EVENT_ESTABLISHED, 0);
	bench_wait_event(a_conn_evd, &ev, DAT_CONNECTION_EVENT_ESTABLISHED, 0);
}

#endif
