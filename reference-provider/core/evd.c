// SPDX-License-Identifier: MIT
/*
 * evd.c - Event Dispatchers: a software ring per EVD, the notification
 * rules (threshold waiters, CNO triggering, enable/disable, waitable),
 * overflow reporting, and the dat_evd_* entry points.
 *
 * There is no dat_evd_create page; creation follows the udat.h facts and
 * the dat_evd_query / dat_evd_resize pages (see docs/reference-provider.md).
 */
#include "ref.h"
#include "conn.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define REF_EVD_VALID_FLAGS (DAT_EVD_SOFTWARE_FLAG | DAT_EVD_CR_FLAG | \
			     DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG | \
			     DAT_EVD_RMR_BIND_FLAG | DAT_EVD_ASYNC_FLAG)

#define EVD_HANDLE_SUB DAT_INVALID_HANDLE1	/* evd_handle is argument 1 */

static struct ref_evd *to_evd(struct ref_obj *obj)
{
	return ref_container_of(obj, struct ref_evd, obj);
}

/* ---- the ring --------------------------------------------------------------- */

static DAT_COUNT slot_of(const struct ref_evd *evd, DAT_COUNT i)
{
	return (evd->head + i) % evd->qlen;
}

/* Removes the oldest event into *ev (count > 0); tag reaped. */
static void ring_pop(struct ref_evd *evd, DAT_EVENT *ev)
{
	DAT_COUNT s = evd->head;
	void *tag;

	tag = evd->tags[s];
	*ev = evd->ring[s];
	evd->tags[s] = NULL;
	evd->head = (evd->head + 1) % evd->qlen;
	evd->count--;
	if (evd->count < evd->qlen)
		evd->overflowed = false;	/* episode over */
	if (tag)
		ref_srq_event_reaped(tag, true);
}

/* Drops every queued event (EVD going away); tags not reaped. */
static void ring_discard(struct ref_evd *evd)
{
	while (evd->count > 0) {
		DAT_COUNT s = evd->head;
		void *tag = evd->tags[s];

		evd->tags[s] = NULL;
		evd->head = (evd->head + 1) % evd->qlen;
		evd->count--;
		if (tag)
			ref_srq_event_reaped(tag, false);
	}
}

static bool ring_alloc(DAT_COUNT qlen, DAT_EVENT **ring, void ***tags)
{
	*ring = calloc((size_t)qlen, sizeof(**ring));
	*tags = calloc((size_t)qlen, sizeof(**tags));
	if (*ring && *tags)
		return true;
	free(*ring);
	free(*tags);
	return false;
}

/* ---- posting ---------------------------------------------------------------- */

bool ref_evd_post_ex(struct ref_evd *evd, const DAT_EVENT *event, void *tag,
		     bool notify)
{
	struct ref_ia *ia = evd->obj.ia;
	DAT_COUNT s;

	if (evd->count >= evd->qlen) {
		/*
		 * Overflow: the event is lost; report it once per episode on
		 * the IA's async EVD (unless that is the one overflowing).
		 */
		if (!evd->overflowed) {
			evd->overflowed = true;
			if (evd != ia->async_evd)
				ref_ia_post_async(ia,
						  DAT_ASYNC_ERROR_EVD_OVERFLOW,
						  (DAT_HANDLE)evd,
						  DAT_EVD_OVERFLOW_ERROR);
		}
		return false;
	}
	s = slot_of(evd, evd->count);
	evd->ring[s] = *event;
	evd->ring[s].evd_handle = (DAT_EVD_HANDLE)evd;
	evd->tags[s] = tag;
	evd->count++;
	if (!notify)
		return true;
	if (evd->waiter) {
		/* "Waited" state: the direct waiter owns it, no CNO */
		if (evd->count >= evd->threshold)
			ref_waiter_wake(evd->waiter);
		return true;
	}
	if (evd->enabled &&
	    evd->cno)
		ref_cno_trigger(evd->cno, evd);
	return true;
}

bool ref_evd_post(struct ref_evd *evd, const DAT_EVENT *event)
{
	return ref_evd_post_ex(evd, event, NULL, true);
}

bool ref_evd_post_dto(struct ref_evd *evd, DAT_EP_HANDLE ep,
		      DAT_DTO_COOKIE cookie, DAT_DTO_COMPLETION_STATUS status,
		      DAT_VLEN length)
{
	DAT_EVENT ev;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = DAT_DTO_COMPLETION_EVENT;
	ev.event_data.dto_completion_event_data.ep_handle = ep;
	ev.event_data.dto_completion_event_data.user_cookie = cookie;
	ev.event_data.dto_completion_event_data.status = status;
	ev.event_data.dto_completion_event_data.transfered_length = length;
	return ref_evd_post(evd, &ev);
}

void ref_evd_abort_waiter(struct ref_evd *evd)
{
	if (evd->waiter) {
		evd->aborting = true;
		ref_waiter_wake(evd->waiter);
	}
}

/* ---- create / destroy -------------------------------------------------------- */

static void evd_release(struct ref_evd *evd)
{
	ring_discard(evd);
	ref_obj_unregister(&evd->obj);
	free(evd->ring);
	free(evd->tags);
	ref_obj_free(evd);
}

/* dat_ia_close: lock held, ia->closing set, waiters already gone. */
static void evd_destroy(struct ref_obj *obj)
{
	struct ref_evd *evd = to_evd(obj);

	if (obj->ia->async_evd == evd)
		obj->ia->async_evd = NULL;
	evd_release(evd);
}

DAT_RETURN ref_evd_create_locked(struct ref_ia *ia, DAT_COUNT qlen,
				 struct ref_cno *cno, DAT_EVD_FLAGS flags,
				 struct ref_evd **out)
{
	struct ref_evd *evd;

	if (ia->count[DAT_HANDLE_TYPE_EVD] >= ref_profile.max_evds)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEVD);
	evd = ref_obj_alloc(sizeof(*evd));
	if (!evd)
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	if (!ring_alloc(qlen, &evd->ring, &evd->tags)) {
		ref_obj_free(evd);
		return REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	evd->flags = flags;
	evd->qlen = qlen;
	evd->enabled = true;
	evd->waitable = true;
	evd->is_async = (flags & DAT_EVD_ASYNC_FLAG) != 0;
	evd->obj.destroy = evd_destroy;
	evd->obj.provider = ia->obj.provider;
	ref_obj_register(&evd->obj, DAT_HANDLE_TYPE_EVD, ia);
	if (cno) {
		evd->cno = cno;
		cno->users++;
	}
	*out = evd;
	return DAT_SUCCESS;
}

/* Looks a CNO handle up for an EVD of @ia (same IA, lock held). */
static DAT_RETURN cno_of_ia(struct ref_ia *ia, DAT_CNO_HANDLE h,
			    struct ref_cno **out)
{
	struct ref_obj *obj;
	DAT_RETURN rc;

	*out = NULL;
	if (!h)
		return DAT_SUCCESS;
	rc = ref_obj_lookup(h, DAT_HANDLE_TYPE_CNO, &obj);
	if (rc)
		return rc;
	if (obj->ia != ia)	/* a CNO gathers EVDs of one IA only */
		return REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	*out = ref_container_of(obj, struct ref_cno, obj);
	return DAT_SUCCESS;
}

/*
 * dat_evd_create (udat.h; no page): qlen 1..max_evd_qlen, flags a
 * non-empty subset of the DAT_EVD_*_FLAG bits, optional CNO of the same
 * IA.  The queue holds exactly qlen events; the EVD starts enabled and
 * waitable.
 */
DAT_RETURN ref_evd_create(DAT_IA_HANDLE ia_handle, DAT_COUNT qlen,
			  DAT_CNO_HANDLE cno_handle, DAT_EVD_FLAGS flags,
			  DAT_EVD_HANDLE *evd_handle)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_cno *cno;
	struct ref_evd *evd;
	DAT_RETURN rc;

	rc = ref_obj_acquire(ia_handle, DAT_HANDLE_TYPE_IA,
			     DAT_INVALID_HANDLE_IA, &obj);
	if (rc)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	rc = cno_of_ia(ia, cno_handle, &cno);
	if (rc)
		goto out;
	if (qlen <= 0 || qlen > ref_profile.max_evd_qlen)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!flags || (flags & ~REF_EVD_VALID_FLAGS))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	else if (!ref_profile_flags_merge(flags))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	else if (!evd_handle)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (rc)
		goto out;
	rc = ref_evd_create_locked(ia, qlen, cno, flags, &evd);
	if (!rc)
		*evd_handle = (DAT_EVD_HANDLE)evd;
out:
	ref_obj_release(obj);
	return rc;
}

/*
 * dat_evd_free.3dat: refused (DAT_INVALID_STATE, EVD_IN_USE) while an EP,
 * SP, SRQ or IA still names the EVD as one of its event streams; queued
 * events are lost.  A thread blocked in dat_evd_wait is released with
 * DAT_ABORT (dat_evd_wait.3dat) before the EVD goes away.  Losing its
 * last EVD this way unblocks the CNO's waiters (dat_cno_wait.3dat).
 */
DAT_RETURN ref_evd_free(DAT_EVD_HANDLE evd_handle)
{
	struct ref_obj *obj;
	struct ref_evd *evd;
	struct ref_ia *ia;
	DAT_RETURN rc;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	evd = to_evd(obj);
	ia = obj->ia;
	if (evd->users > 0) {
		ref_ia_release(ia);
		return REF_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
	}
	if (evd->waiter) {
		ref_evd_abort_waiter(evd);
		while (evd->waiters > 0)
			ref_cond_wait(&ia->sleepers_cond, &ia->lock, NULL, true);
		evd->aborting = false;
		/* the lock was dropped: re-validate */
		if (!ref_obj_live(evd)) {
			ref_ia_release(ia);
			return REF_ERR(DAT_INVALID_HANDLE, EVD_HANDLE_SUB);
		}
		if (evd->users > 0) {
			ref_ia_release(ia);
			return REF_ERR(DAT_INVALID_STATE,
				       DAT_INVALID_STATE_EVD_IN_USE);
		}
	}
	if (evd->cno)
		ref_cno_evd_gone(evd->cno, evd, true);
	evd->cno = NULL;
	if (ia->async_evd == evd)
		ia->async_evd = NULL;
	evd_release(evd);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

/* ---- query / modify ---------------------------------------------------------- */

/*
 * The notification sub-state reported by dat_evd_query: "solicited" when
 * an EP delivers receives here with DAT_COMPLETION_SOLICITED_WAIT_FLAG,
 * "threshold" with DAT_COMPLETION_EVD_THRESHOLD_FLAG, else "notify".
 * Also tells dat_evd_wait whether a threshold above 1 is allowed.
 */
enum evd_config { CFG_NOTIFY, CFG_SOLICITED, CFG_THRESHOLD, CFG_UNSIGNALLED };

static enum evd_config evd_config(struct ref_evd *evd, bool for_wait)
{
	struct ref_list *pos;
	enum evd_config cfg = CFG_NOTIFY;

	ref_list_for_each(pos, &evd->obj.ia->objects) {
		struct ref_obj *o = ref_container_of(pos, struct ref_obj,
						     ia_link);
		struct ref_ep *ep;
		DAT_COMPLETION_FLAGS rf, qf;

		if (o->type != DAT_HANDLE_TYPE_EP)
			continue;
		ep = ref_container_of(o, struct ref_ep, obj);
		rf = ep->attr.recv_completion_flags;
		qf = ep->attr.request_completion_flags;
		if (ep->recv_evd == evd) {
			if (rf & DAT_COMPLETION_SOLICITED_WAIT_FLAG)
				return CFG_SOLICITED;
			if (rf & DAT_COMPLETION_UNSIGNALLED_FLAG)
				cfg = for_wait ? CFG_UNSIGNALLED : cfg;
			else if (rf & DAT_COMPLETION_EVD_THRESHOLD_FLAG &&
				 cfg == CFG_NOTIFY)
				cfg = CFG_THRESHOLD;
		}
		if (ep->request_evd == evd) {
			if (qf & DAT_COMPLETION_UNSIGNALLED_FLAG)
				cfg = for_wait ? CFG_UNSIGNALLED : cfg;
			else if (qf & DAT_COMPLETION_EVD_THRESHOLD_FLAG &&
				 cfg == CFG_NOTIFY)
				cfg = CFG_THRESHOLD;
		}
	}
	return cfg;
}

static DAT_EVD_STATE evd_state(struct ref_evd *evd)
{
	unsigned int st = 0;

	{
		st |= evd->enabled ? DAT_EVD_STATE_ENABLED :
				     DAT_EVD_STATE_DISABLED;
		st |= evd->waitable ? DAT_EVD_STATE_WAITABLE :
				      DAT_EVD_STATE_UNWAITABLE;
	}
	switch (evd_config(evd, false)) {
	case CFG_SOLICITED:
		st |= DAT_EVD_STATE_CONFIG_SOLICITED;
		break;
	case CFG_THRESHOLD:
		st |= DAT_EVD_STATE_CONFIG_THRESHOLD;
		break;
	default:
		st |= DAT_EVD_STATE_CONFIG_NOTIFY;
		break;
	}
	return (DAT_EVD_STATE)st;
}

/* dat_evd_query.3dat: the whole DAT_EVD_PARAM is filled. */
DAT_RETURN ref_evd_query(DAT_EVD_HANDLE evd_handle, DAT_EVD_PARAM_MASK mask,
			 DAT_EVD_PARAM *param)
{
	DAT_EVD_PARAM full, *out = NULL;
	struct ref_obj *obj;
	struct ref_evd *evd;
	DAT_RETURN rc;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	evd = to_evd(obj);
	if (((unsigned int)mask & ~(unsigned int)DAT_EVD_FIELD_ALL))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!param)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!rc && ref_query_masked()) {
		out = param;
		param = &full;
	}
	if (!rc) {
		memset(param, 0, sizeof(*param));
		param->ia_handle = (DAT_IA_HANDLE)obj->ia;
		param->evd_qlen = evd->qlen;
		param->evd_state = evd_state(evd);
		param->cno_handle = (DAT_CNO_HANDLE)evd->cno;
		param->evd_flags = evd->flags;
		if (out)
			ref_profile_masked_copy(REF_Q_EVD, out, param, mask);
	}
	ref_obj_release(obj);
	return rc;
}

/*
 * dat_evd_modify_cno.3dat: DAT_HANDLE_NULL detaches; the new CNO must
 * belong to the EVD's IA (dat_cno_wait.3dat: a CNO gathers EVDs of one IA).
 */
DAT_RETURN ref_evd_modify_cno(DAT_EVD_HANDLE evd_handle,
			      DAT_CNO_HANDLE cno_handle)
{
	struct ref_obj *obj;
	struct ref_evd *evd;
	struct ref_cno *cno;
	DAT_RETURN rc;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	evd = to_evd(obj);
	rc = cno_of_ia(obj->ia, cno_handle, &cno);
	if (!rc && cno != evd->cno) {
		if (evd->cno)
			ref_cno_evd_gone(evd->cno, evd, false);
		evd->cno = cno;
		if (cno)
			cno->users++;
	}
	ref_obj_release(obj);
	return rc;
}

/*
 * dat_evd_enable.3dat / dat_evd_disable.3dat: only CNO notification is
 * affected; events keep queueing and direct waiters keep working.
 * Already in that state: no-op.
 */
static DAT_RETURN set_enabled(DAT_EVD_HANDLE evd_handle, bool on)
{
	struct ref_obj *obj;
	struct ref_evd *evd;
	DAT_RETURN rc;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		goto out;
	evd = to_evd(obj);
	evd->enabled = on;
	ref_obj_release(obj);
out:
	return rc;
}

DAT_RETURN ref_evd_enable(DAT_EVD_HANDLE evd_handle)
{
	return set_enabled(evd_handle, true);
}

DAT_RETURN ref_evd_disable(DAT_EVD_HANDLE evd_handle)
{
	return set_enabled(evd_handle, false);
}

/*
 * dat_evd_set_unwaitable.3dat: later dat_evd_wait calls and a thread
 * already blocked return DAT_INVALID_STATE (even if clear_unwaitable comes
 * before it runs again); CNO and dequeue unaffected.
 * dat_evd_clear_unwaitable.3dat: waiting allowed again.
 */
static DAT_RETURN set_waitable(DAT_EVD_HANDLE evd_handle, bool on)
{
	struct ref_obj *obj;
	struct ref_evd *evd;
	DAT_RETURN rc;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		goto out;
	evd = to_evd(obj);
	evd->waitable = on;
	if (!on && evd->waiter) {
		evd->waiter_released = true;
		ref_waiter_wake(evd->waiter);
	}
	ref_obj_release(obj);
out:
	return rc;
}

DAT_RETURN ref_evd_set_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	return set_waitable(evd_handle, false);
}

DAT_RETURN ref_evd_clear_unwaitable(DAT_EVD_HANDLE evd_handle)
{
	return set_waitable(evd_handle, true);
}

/*
 * dat_evd_resize.3dat: qlen 1..max_evd_qlen; fewer slots than queued
 * events is DAT_INVALID_STATE and changes nothing; otherwise every
 * queued event (and its tag) is kept in order.
 */
DAT_RETURN ref_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT qlen)
{
	struct ref_obj *obj;
	struct ref_evd *evd;
	DAT_EVENT *ring;
	void **tags;
	DAT_COUNT i, n;
	DAT_RETURN rc;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	evd = to_evd(obj);
	if (ref_profile.evd_resize_state_first && qlen < evd->count &&
		 !ref_profile.evd_resize_below_queued_ok)
		rc = REF_ERR(DAT_INVALID_STATE, 0);	/* profile: state first */
	else if (qlen <= 0 || qlen > ref_profile.max_evd_qlen)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!rc && ref_profile.evd_resize_granule > 1) {
		/* profile: lengths in whole granules, within the maximum */
		DAT_COUNT g = ref_profile.evd_resize_granule;
		DAT_COUNT up = (qlen + g - 1) / g * g;

		qlen = up <= ref_profile.max_evd_qlen ? up : ref_profile.max_evd_qlen;
	}
	if (!rc && qlen < evd->count && ref_profile.evd_resize_below_queued_ok)
		qlen = evd->count;	/* profile: holds what is queued */
	if (rc)
		;
	else if (qlen < evd->count)
		rc = REF_ERR(DAT_INVALID_STATE, 0);
	else if (!ring_alloc(qlen, &ring, &tags))
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	if (rc) {
		ref_obj_release(obj);
		return rc;
	}
	n = evd->count;
	for (i = 0; i < n; i++) {
		ring[i] = evd->ring[slot_of(evd, i)];
		tags[i] = evd->tags[slot_of(evd, i)];
	}
	free(evd->ring);
	free(evd->tags);
	evd->ring = ring;
	evd->tags = tags;
	evd->head = 0;
	evd->count = n;
	evd->qlen = qlen;
	if (evd->count < evd->qlen)
		evd->overflowed = false;
	ref_obj_release(obj);
	return DAT_SUCCESS;
}

/* ---- consuming ---------------------------------------------------------------- */

/*
 * dat_evd_post_se.3dat: a DAT_SOFTWARE_EVENT into an EVD created with
 * DAT_EVD_SOFTWARE_FLAG; a full queue is DAT_QUEUE_FULL and, unlike an
 * overflow, is not reported on the async EVD.
 */
DAT_RETURN ref_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event)
{
	struct ref_obj *obj;
	struct ref_evd *evd;
	DAT_RETURN rc;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	evd = to_evd(obj);
	if (!(evd->flags & DAT_EVD_SOFTWARE_FLAG))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	else if (!event || event->event_number != DAT_SOFTWARE_EVENT)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (evd->count >= evd->qlen) {
		rc = REF_ERR(DAT_QUEUE_FULL, 0);
	} else ref_evd_post(evd, event);
	ref_obj_release(obj);
	return rc;
}

/*
 * dat_evd_dequeue.3dat: the oldest event; DAT_QUEUE_EMPTY when none;
 * DAT_INVALID_STATE while a thread is blocked in dat_evd_wait on it.
 */
static DAT_RETURN evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	struct ref_obj *obj;
	struct ref_evd *evd;
	DAT_RETURN rc;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	evd = to_evd(obj);
	/* busy polling: what the transport already has counts as arrived */
	if (event && evd->count == 0 && evd->waiters == 0)
		ref_conn_poll(obj->ia);
	if (!event)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (evd->waiters > 0)
		rc = REF_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER);
	else if (evd->count == 0) {
		rc = REF_ERR(DAT_QUEUE_EMPTY, 0);
	} else {
		ring_pop(evd, event);
	}
	ref_obj_release(obj);
	return rc;
}

DAT_RETURN ref_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	DAT_RETURN rc;

	rc = evd_dequeue(evd_handle, event);
	return rc;
}

/* nmore after a successful wait. */
static DAT_COUNT evd_nmore(const struct ref_evd *evd)
{
	return evd->count;
}

/* A waiter released by dat_ia_close or dat_evd_free: DAT_ABORT. */
static DAT_RETURN abort_code(const struct ref_evd *evd, const struct ref_ia *ia)
{
	(void)evd;	/* the EVD and its IA: what a provider may look at */
	(void)ia;
	return REF_ERR(DAT_ABORT, 0);
}

/*
 * dat_evd_wait.3dat.  Checks: event/nmore pointers, 1 <= threshold <=
 * qlen (DAT_INVALID_PARAMETER); unwaitable, another waiter, threshold > 1
 * on an EVD fed by a Consumer-notification stream (DAT_INVALID_STATE).
 * Returns at once when threshold events are queued.  Otherwise blocks
 * until a notification event makes the count reach the threshold, the
 * timeout passes (then: success if the count reached the threshold by
 * then, else DAT_TIMEOUT_EXPIRED with nmore), a signal handler runs
 * (DAT_INTERRUPTED_CALL with nmore), the EVD is set unwaitable
 * (DAT_INVALID_STATE) or freed / its IA closed (DAT_ABORT).
 */
DAT_RETURN ref_evd_wait(DAT_EVD_HANDLE evd_handle, DAT_TIMEOUT timeout,
			DAT_COUNT threshold, DAT_EVENT *event, DAT_COUNT *nmore)
{
	struct ref_obj *obj;
	struct ref_evd *evd;
	struct ref_ia *ia;
	struct ref_waiter w;
	struct timespec deadline;
	bool infinite = timeout == DAT_TIMEOUT_INFINITE;
	enum evd_config cfg;
	bool lost_wakeup = false;
	DAT_RETURN rc;
	int r;

	rc = ref_obj_acquire(evd_handle, DAT_HANDLE_TYPE_EVD, EVD_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	evd = to_evd(obj);
	ia = obj->ia;
	if (!event)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	else if (!nmore)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	else if (threshold <= 0 || threshold > evd->qlen)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	else if (!evd->waitable)
		rc = REF_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_UNWAITABLE);
	else if (evd->waiters > 0)
		rc = REF_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_WAITER);
	else if (threshold > 1 &&
		 (cfg = evd_config(evd, true)) != CFG_NOTIFY &&
		 cfg != CFG_THRESHOLD)
		rc = REF_ERR(DAT_INVALID_STATE,
			     cfg == CFG_SOLICITED ?
			     DAT_INVALID_STATE_EVD_CONFIG_SOLICITED :
			     DAT_INVALID_STATE_EVD_CONFIG_NOTIFY);
	if (rc)
		goto out;
	/*
	 * What the transport already has counts as arrived, as for dequeue.
	 * A consumer that waits for each completion in turn thus reaps them
	 * itself, and the progress thread is not woken per completion.
	 */
	ref_conn_poll_wait(ia, evd->count >= threshold);
	if (evd->count >= threshold) {
		ring_pop(evd, event);
		*nmore = evd_nmore(evd);
		goto out;
	}
	if (timeout == 0) {
		*nmore = evd->count;
		rc = REF_ERR(DAT_TIMEOUT_EXPIRED, 0);
		goto out;
	}

	deadline = ref_deadline(timeout);
	ref_waiter_init(&w, ia);
	evd->waiter = &w;
	evd->waiter_released = false;
	evd->waiters = 1;
	evd->threshold = threshold;
	ia->sleepers++;
	for (;;) {
		if (evd->aborting || ia->closing) {
			rc = abort_code(evd, ia);
			break;
		}
		if ((!evd->waitable || evd->waiter_released) && !lost_wakeup) {
			rc = REF_ERR(DAT_INVALID_STATE,
				     DAT_INVALID_STATE_EVD_UNWAITABLE);
			break;
		}
		lost_wakeup = false;
		if (evd->count >= threshold) {
			ring_pop(evd, event);
			*nmore = evd_nmore(evd);
			break;
		}
		r = ref_conn_wait(&w, ia, &deadline, infinite);
		if (r == ETIMEDOUT) {
			if (!evd->aborting && !ia->closing && evd->waitable &&
			    evd->count >= threshold) {
				ring_pop(evd, event);
				*nmore = evd_nmore(evd);
			} else if (evd->aborting || ia->closing) {
				rc = abort_code(evd, ia);
			} else {
				*nmore = evd->count;
				rc = REF_ERR(DAT_TIMEOUT_EXPIRED, 0);
			}
			break;
		}
		if (r == EINTR) {
			*nmore = evd->count;
			rc = REF_ERR(DAT_INTERRUPTED_CALL, 0);
			break;
		}
	}
	evd->waiter = NULL;
	evd->waiters = 0;
	evd->threshold = 0;
	ia->sleepers--;
	pthread_cond_broadcast(&ia->sleepers_cond);
	ref_waiter_fini(&w, ia);
out:
	ref_ia_release(ia);
	return rc;
}
