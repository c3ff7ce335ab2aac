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
 * UNSUPPORTED (dc_provider_hook): the state cannot be frozen there.
 *
 * One state can be caught without them: a buffer taken for a message still
 * arriving, checked while it is (link_take_mid_arrival, link_still_arriving)
 * or once rx has left the connection and the buffer completed flushed
 * (link_one_in_error).  The cases that need only that one stage it with the
 * hooks where they work, and otherwise by watching a long message arrive
 * (link_catch_mid_arrival).
 */
#ifndef SRQ_HOLD_H
#define SRQ_HOLD_H

#include <sched.h>
#include <time.h>

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
 * True when the hooks above work on rx's IA: the reference provider on
 * sock (on verbs the device places arrivals itself, and the hook says
 * DAT_MODEL_NOT_SUPPORTED).  Turning holding off is what a fresh EP has.
 */
static inline bool hold_hooks_work(const struct srq_link *l)
{
	hold_fn hold = (hold_fn)dc_provider_hook_find("daplref_test_hold_arrivals");

	return hold && hold(l->rx.ep, DAT_FALSE) == DAT_SUCCESS;
}

/*
 * Set-up: n buffers on the SRQ, cookies 0 .. n - 1, for a case that then
 * catches one mid-arrival (link_one_in_error(l, true), link_take_mid_arrival).
 * With the hooks they are n slots of l->rbuf.  Without them buffer 0 is a
 * long one (link_long_len bytes, l->long_rbuf, zeroed), posted first so
 * that the first message rx takes a buffer for lands in it (an SRQ that
 * hands its buffers out in another order leaves the watch with nothing to
 * see: UNRESOLVED, below); the link must be made with link_opts.long_msgs.
 * The helpers below follow the choice made here (l->long_rbuf.lmr set:
 * watching).
 */
static inline void post_slots_catchable_at(struct dc_ctx *t, const char *file, int line,
					   struct srq_link *l, unsigned n)
{
	DAT_VLEN len = link_long_len(t);

	if (hold_hooks_work(l)) {
		post_slots_at(t, file, line, l->srq, &l->rbuf, 0, n);
		return;
	}
	dc_lmr_at(t, file, line, l->pz, len, DC_PRIV_LOCAL, &l->long_rbuf);
	memset(l->long_rbuf.buf, 0, (size_t)len);
	dc_srq_post_recv_at(t, file, line, l->srq, &l->long_rbuf, 0, len, 0);
	post_slots_at(t, file, line, l->srq, &l->rbuf, 1, n - 1);
}
#define post_slots_catchable(l, n) post_slots_catchable_at(t, __FILE__, __LINE__, (l), (n))

/* The long buffer's last byte is written: its message arrived whole. */
static inline bool link_long_arrived(const struct srq_link *l)
{
	return __atomic_load_n(&l->long_rbuf.buf[l->long_rbuf.len - 1], __ATOMIC_ACQUIRE);
}

/*
 * Set-up without the hooks: tx sends a message as long as l->long_rbuf and
 * rx is caught taking that buffer for it: the buffer's first byte is
 * written and its last one not yet.  Reading a posted buffer changes
 * nothing for the provider.  A provider that places a message only whole,
 * out of order, or faster than the watch can see leaves the state
 * unstaged; the case then says so (UNRESOLVED), never a failure.
 */
static inline void link_catch_mid_arrival_at(struct dc_ctx *t, const char *file, int line,
					     struct srq_link *l)
{
	const unsigned char *first = l->long_rbuf.buf;
	long budget = dc_remaining_ms(t) - 2000;
	struct timespec start, now;

	link_send_long_at(t, file, line, l, l->long_rbuf.len);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (unsigned long spin = 1;; spin++) {
		bool begun = __atomic_load_n(first, __ATOMIC_ACQUIRE) != 0;

		if (link_long_arrived(l))
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: the %llu-byte message was placed whole before it "
				  "was seen under way, so no buffer could be caught mid-arrival",
				  (unsigned long long)l->long_rbuf.len);
		if (begun)
			return;
		if (spin % 1024)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000 > (budget > 1000 ? budget : 1000))
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: nothing of the %llu-byte message reached the "
				  "buffer the SRQ got first", (unsigned long long)l->long_rbuf.len);
		sched_yield();
	}
}

/*
 * Set-up: messages caught mid-arrival at rx, each holding a buffer taken
 * from the SRQ (those of cookies 0 .. n - 1, posted by
 * post_slots_catchable), none completed; returns n.  With the hooks two
 * are frozen there (h holds them until link_release_held); without them
 * one is caught by watching, and a check made while it arrives is
 * confirmed afterwards with link_still_arriving.
 */
static inline unsigned link_take_mid_arrival_at(struct dc_ctx *t, const char *file, int line,
						struct srq_link *l, struct srq_hold *h)
{
	if (l->long_rbuf.lmr) {		/* post_slots_catchable chose watching */
		memset(h, 0, sizeof(*h));
		link_catch_mid_arrival_at(t, file, line, l);
		return 1;
	}
	hold_begin_ep_at(t, file, line, h, l->rx.ep, 0);
	link_send_flags_at(t, file, line, l, 0, 64, DAT_COMPLETION_DEFAULT_FLAG);
	link_send_flags_at(t, file, line, l, 1, 64, DAT_COMPLETION_DEFAULT_FLAG);
	hold_await_at(t, file, line, h, 2);
	return 2;
}
#define link_take_mid_arrival(l, h) link_take_mid_arrival_at(t, __FILE__, __LINE__, (l), (h))

/*
 * Set-up, right after a check made while a watched message was arriving:
 * it must still be arriving (placed in order, its last byte unwritten),
 * else the check may have seen it completed instead of held.
 */
static inline void link_still_arriving_at(struct dc_ctx *t, const char *file, int line,
					  struct srq_link *l)
{
	if (l->long_rbuf.lmr && link_long_arrived(l))
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up: the %llu-byte message completed while the check ran, so "
			  "the check did not see its buffer held mid-arrival",
			  (unsigned long long)l->long_rbuf.len);
}
#define link_still_arriving(l) link_still_arriving_at(t, __FILE__, __LINE__, (l))

/* Set-up: what link_take_mid_arrival holds goes on (the hooks release it;
 * a watched message arrives by itself). */
static inline void link_release_held_at(struct dc_ctx *t, const char *file, int line,
					struct srq_hold *h)
{
	if (h->release)
		hold_release_at(t, file, line, h);
}
#define link_release_held(h) link_release_held_at(t, __FILE__, __LINE__, (h))

/*
 * Set-up, after rx left the connection with a watched message under way:
 * the message must not have arrived whole (placed in order, its last byte
 * unwritten means it never completed), else the state was not staged.
 */
static inline bool link_confirm_caught_at(struct dc_ctx *t, const char *file, int line,
					  struct srq_link *l, bool may_retry)
{
	if (!l->long_rbuf.lmr || !link_long_arrived(l))
		return true;
	if (may_retry) {
		dc_note(t, "the %llu-byte message arrived whole before rx left the connection; "
			"tried again on a new link", (unsigned long long)l->long_rbuf.len);
		return false;
	}
	dc_end_at(t, DC_UNRESOLVED, file, line, false,
		  "set-up: the %llu-byte message arrived whole before rx left the "
		  "connection, so its buffer was not caught mid-arrival",
		  (unsigned long long)l->long_rbuf.len);
	return false;
}
#define link_confirm_caught(l) (void)link_confirm_caught_at(t, __FILE__, __LINE__, (l), false)

/* How many links a local case may make to catch a message under way. */
#define CATCH_TRIES	3

/*
 * Set-up (issue 54: accounting with completions in error): one buffer of the
 * SRQ (posted before) ends in error at rx and its completion is left on the
 * recv EVD, not reaped.  Failed (flushed false): a message longer than the
 * buffer it takes (link_await_failed).  Flushed: a buffer rx took for a
 * message still arriving when it leaves the connection, queued on its recv
 * EVD at the move to Disconnected (dat_srq_post_recv(3DAT) DESCRIPTION),
 * staged with the hooks above, or without them by watching (the SRQ's
 * buffers posted by post_slots_catchable, the link made with long_msgs).
 */
static inline bool link_one_in_error_at(struct dc_ctx *t, const char *file, int line,
					struct srq_link *l, bool flushed, bool may_retry)
{
	struct srq_hold h;

	if (!flushed) {
		link_send_flags_at(t, file, line, l, 0, SLOT + 64, DAT_COMPLETION_DEFAULT_FLAG);
		link_await_failed_at(t, file, line, l);
		return true;
	}
	if (l->long_rbuf.lmr) {		/* post_slots_catchable chose watching */
		link_catch_mid_arrival_at(t, file, line, l);
	} else {
		hold_begin_ep_at(t, file, line, &h, l->rx.ep, 0);
		link_send_flags_at(t, file, line, l, 0, 64, DAT_COMPLETION_DEFAULT_FLAG);
		hold_await_at(t, file, line, &h, 1);	/* one buffer taken, message incomplete */
	}
	dc_setup_at(t, file, line, "dat_ep_disconnect(rx, DAT_CLOSE_ABRUPT_FLAG)",
		    dat_ep_disconnect(l->rx.ep, DAT_CLOSE_ABRUPT_FLAG));
	dc_expect_event_at(t, file, line, DC_UNRESOLVED, l->rx.conn_evd,
			   DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	return link_confirm_caught_at(t, file, line, l, may_retry);
}
#define link_one_in_error(l, flushed) \
	(void)link_one_in_error_at(t, __FILE__, __LINE__, (l), (flushed), false)
/* The same, false when a watched message outran the disconnect (a local
 * case may make a new link and try again, tries < CATCH_TRIES; a two-node
 * one has one link). */
#define link_one_in_error_try(l, flushed, tries) \
	link_one_in_error_at(t, __FILE__, __LINE__, (l), (flushed), \
			     (tries) < CATCH_TRIES && !(l)->remote)

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
