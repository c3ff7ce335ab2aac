/* SPDX-License-Identifier: MIT */
/*
 * srq_hold.h - staging messages mid-arrival at an EP through the reference
 * provider's test hooks (daplref_test_*, docs/reference-provider.md "Test
 * hooks"; implemented in reference-provider/core/dto.c).
 *
 * Several clauses are about buffers an EP has taken from the SRQ but not
 * yet completed.  On a real transport that state lasts microseconds; the
 * reference provider can freeze it:
 *   daplref_test_hold_arrivals(ep, TRUE)  arriving Sends are kept whole,
 *                                         no buffer taken yet;
 *   daplref_test_wait_held(ep, n, us)     until n Sends are held;
 *   daplref_test_arrive_partial(ep, msn)  the first fragment of held Send
 *                                         msn "arrives": a buffer is taken,
 *                                         nothing completes;
 *   daplref_test_release(ep)              delivery resumes, held Sends
 *                                         complete in MSN order.
 * MSNs number the Sends of the current connection from 0.
 *
 * A provider without these hooks makes the cases that need them
 * UNSUPPORTED (dc_provider_hook): the state cannot be staged there.
 */
#ifndef SRQ_HOLD_H
#define SRQ_HOLD_H

#include "srq_common.h"

typedef DAT_RETURN (*hold_fn)(DAT_EP_HANDLE, DAT_BOOLEAN);
typedef DAT_RETURN (*release_fn)(DAT_EP_HANDLE);
typedef DAT_RETURN (*partial_fn)(DAT_EP_HANDLE, DAT_COUNT);
typedef DAT_RETURN (*wait_fn)(DAT_EP_HANDLE, DAT_COUNT, DAT_TIMEOUT);

/* The .needs of every case that stages arrivals with these hooks. */
#define SRQ_HOLD_NEEDS							\
	"hook:daplref_test_hold_arrivals hook:daplref_test_release "	\
	"hook:daplref_test_arrive_partial hook:daplref_test_wait_held"

struct srq_hold {
	DAT_EP_HANDLE ep;
	hold_fn hold;
	release_fn release;
	partial_fn partial;
	wait_fn wait;
	DAT_COUNT msn_base;	/* MSN of the first Send after hold_begin */
	DAT_COUNT next_partial;	/* next MSN hold_await gives a buffer */
};

/*
 * Starts holding arrivals on ep.  msn_base is the number of Sends the
 * connection carried before (0 for a fresh connection).
 */
static inline void hold_begin_ep_at(struct dc_ctx *t, const char *file,
				    int line, struct srq_hold *h,
				    DAT_EP_HANDLE ep, DAT_COUNT msn_base)
{
	DAT_RETURN r;

	memset(h, 0, sizeof(*h));
	h->hold = (hold_fn)dc_provider_hook_at(t, file, line,
					       "daplref_test_hold_arrivals");
	h->release = (release_fn)dc_provider_hook_at(t, file, line,
						     "daplref_test_release");
	h->partial = (partial_fn)dc_provider_hook_at(t, file, line,
						     "daplref_test_arrive_partial");
	h->wait = (wait_fn)dc_provider_hook_at(t, file, line,
					       "daplref_test_wait_held");
	h->ep = ep;
	h->msn_base = h->next_partial = msn_base;
	r = h->hold(ep, DAT_TRUE);
	if (DAT_GET_TYPE(r) == DAT_MODEL_NOT_SUPPORTED)
		dc_cause_needs(t, "hook", "daplref_test_hold_arrivals");
	if (DAT_GET_TYPE(r) == DAT_MODEL_NOT_SUPPORTED)
		dc_end_at(t, DC_UNSUPPORTED, file, line, false,
			  "the provider's hold hook does not work on this IA "
			  "(daplref_test_hold_arrivals: %s)", dc_ret_text(r));
	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: daplref_test_hold_arrivals: %s", dc_ret_text(r));
}
#define hold_begin(h, l) hold_begin_ep_at(t, __FILE__, __LINE__, (h), (l)->rx.ep, 0)
#define hold_begin_after(h, l, sent) \
	hold_begin_ep_at(t, __FILE__, __LINE__, (h), (l)->rx.ep, (sent))

/* Set-up: n Sends (counted from hold_begin) are held whole at the EP. */
static inline void hold_await_whole_at(struct dc_ctx *t, const char *file,
				       int line, struct srq_hold *h, DAT_COUNT n)
{
	long ms = dc_remaining_ms(t);
	DAT_RETURN r = h->wait(h->ep, n, (DAT_TIMEOUT)(ms > 0 ? ms : 1) * 1000u);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: waiting for %d held Sends: %s", (int)n, dc_ret_text(r));
}
#define hold_await_whole(h, n) hold_await_whole_at(t, __FILE__, __LINE__, (h), (n))

/*
 * Set-up: Send msn (absolute) starts arriving: the EP takes a buffer for
 * it, nothing completes.  Returns the hook's result (the caller decides).
 */
static inline DAT_RETURN hold_partial(struct srq_hold *h, DAT_COUNT msn)
{
	return h->partial(h->ep, msn);
}

/*
 * Set-up: the first n Sends after hold_begin are mid-arrival, each holding
 * a buffer taken from the SRQ, none completed.
 */
static inline void hold_await_at(struct dc_ctx *t, const char *file, int line,
				 struct srq_hold *h, DAT_COUNT n)
{
	hold_await_whole_at(t, file, line, h, n);	/* held, with or without buffer */
	while (h->next_partial < h->msn_base + n) {
		DAT_RETURN r = h->partial(h->ep, h->next_partial);

		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: daplref_test_arrive_partial(%d): %s",
				  (int)h->next_partial, dc_ret_text(r));
		h->next_partial++;
	}
}
#define hold_await(h, n) hold_await_at(t, __FILE__, __LINE__, (h), (n))

/* Set-up: delivery resumes; held Sends complete in MSN order. */
static inline void hold_release_at(struct dc_ctx *t, const char *file, int line,
				   struct srq_hold *h)
{
	DAT_RETURN r = h->release(h->ep);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: daplref_test_release: %s", dc_ret_text(r));
}
#define hold_release(h) hold_release_at(t, __FILE__, __LINE__, (h))

/*
 * Set-up (issue 54: accounting with completions in error): one buffer of the
 * SRQ (posted before) ends in error at rx and its completion is left on the
 * recv EVD, not reaped.  Failed (flushed false): a message longer than the
 * buffer it takes (link_await_failed).  Flushed: a buffer rx took for a
 * message still arriving when it leaves the connection, queued on its recv
 * EVD at the move to Disconnected (dat_srq_post_recv(3DAT) DESCRIPTION),
 * staged with the hooks above (the case's .needs: SRQ_HOLD_NEEDS).
 */
static inline void link_one_in_error_at(struct dc_ctx *t, const char *file, int line,
					struct srq_link *l, bool flushed)
{
	struct srq_hold h;

	if (!flushed) {
		link_send_flags_at(t, file, line, l, 0, SLOT + 64, DAT_COMPLETION_DEFAULT_FLAG);
		link_await_failed_at(t, file, line, l);
		return;
	}
	hold_begin_ep_at(t, file, line, &h, l->rx.ep, 0);
	link_send_flags_at(t, file, line, l, 0, 64, DAT_COMPLETION_DEFAULT_FLAG);
	hold_await_at(t, file, line, &h, 1);	/* one buffer taken, message incomplete */
	dc_setup_at(t, file, line, "dat_ep_disconnect(rx, DAT_CLOSE_ABRUPT_FLAG)",
		    dat_ep_disconnect(l->rx.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, l->rx.conn_evd,
			   DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
}
#define link_one_in_error(l, flushed) \
	link_one_in_error_at(t, __FILE__, __LINE__, (l), (flushed))

/* Set-up: dequeues the completion link_one_in_error left, which must be the
 * error (or flush) it staged. */
static inline void link_reap_in_error_at(struct dc_ctx *t, const char *file, int line,
					 struct srq_link *l, bool flushed)
{
	DAT_EVENT ev;
	DAT_DTO_COMPLETION_STATUS st;

	dc_expect_event_at(t, file, line, DC_UNRESOLVED, l->rx.recv_evd,
			   DAT_DTO_COMPLETION_EVENT, &ev);
	st = ev.event_data.dto_completion_event_data.status;
	if (flushed ? st != DAT_DTO_ERR_FLUSHED : st == DAT_DTO_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the buffer taken completed with %s, expected %s",
			  dc_dto_status_name(st), flushed ? "a flush" : "an error");
}
#define link_reap_in_error(l, flushed) \
	link_reap_in_error_at(t, __FILE__, __LINE__, (l), (flushed))

#endif /* SRQ_HOLD_H */
