// SPDX-License-Identifier: MIT
/*
 * cno.c - Consumer Notification Objects: the dat_cno_* entry points and
 * the trigger path used by evd.c.
 *
 * A trigger that finds no thread blocked in dat_cno_wait stays pending
 * (one slot, the first EVD that fired) and is consumed by the next
 * dat_cno_wait, so a Consumer that checks its EVDs, then waits, never
 * misses a notification.  The OS Wait Proxy Agent is invoked once per
 * association: after the upcall it is no longer associated with the CNO
 * (dat_cno_create.3dat DESCRIPTION); dat_cno_modify_agent re-arms it.
 * Upcalls run after the IA lock is dropped (ref_ia_defer_agent).
 */
#include "ref.h"
#include "conn.h"

#include <errno.h>
#include <string.h>

#define CNO_HANDLE_SUB DAT_INVALID_HANDLE_CNO

static struct ref_cno *to_cno(struct ref_obj *obj)
{
	return ref_container_of(obj, struct ref_cno, obj);
}

static bool agent_valid(const DAT_OS_WAIT_PROXY_AGENT *agent)
{
	/* instance data without a function to pass it to makes no agent */
	return agent->proxy_agent_func || !agent->instance_data;
}

static void fire_agent(struct ref_cno *cno, DAT_EVD_HANDLE evd)
{
	if (!cno->agent.proxy_agent_func)
		return;
	ref_ia_defer_agent(cno->obj.ia, cno->agent, evd);
	cno->agent = DAT_OS_WAIT_PROXY_AGENT_NULL;
}

static struct ref_list *waiter_list(struct ref_cno *cno)
{
	return &cno->waiter_list;
}

static void deliver(struct ref_cno *cno, DAT_EVD_HANDLE evd)
{
	struct ref_list *pos, *tmp;

	ref_list_for_each_safe(pos, tmp, waiter_list(cno)) {
		struct ref_waiter *w = ref_container_of(pos, struct ref_waiter,
							link);

		ref_list_del(&w->link);
		w->fired = true;
		w->evd = evd;
		ref_waiter_wake(w);
	}
}

void ref_cno_trigger(struct ref_cno *cno, struct ref_evd *evd)
{
	bool local = true;

	if (local && !ref_list_empty(waiter_list(cno)))
		deliver(cno, (DAT_EVD_HANDLE)evd);
	else if (local && !cno->triggered)
		cno->triggered = evd;
	fire_agent(cno, (DAT_EVD_HANDLE)evd);
}

void ref_cno_release_waiters(struct ref_cno *cno)
{
	deliver(cno, DAT_HANDLE_NULL);
	fire_agent(cno, DAT_HANDLE_NULL);
}

void ref_cno_evd_gone(struct ref_cno *cno, struct ref_evd *evd, bool freed)
{
	cno->users--;
	if (cno->triggered == evd)
		cno->triggered = NULL;
	/*
	 * dat_cno_wait.3dat: all its EVDs freed -> waiters see NULL, the OS
	 * Wait Proxy Agent included, even with no thread blocked.
	 */
	if (freed && cno->users == 0)
		ref_cno_release_waiters(cno);
}

static void cno_destroy(struct ref_obj *obj)
{
	ref_obj_unregister(obj);
	ref_obj_free(to_cno(obj));
}

/* dat_cno_create.3dat. */
static DAT_RETURN cno_create(DAT_IA_HANDLE ia_handle,
			     DAT_OS_WAIT_PROXY_AGENT agent,
			     DAT_CNO_HANDLE *cno_handle)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	struct ref_cno *cno;
	DAT_RETURN rc;

	rc = ref_obj_acquire(ia_handle, DAT_HANDLE_TYPE_IA,
			     DAT_INVALID_HANDLE_IA, &obj);
	if (rc)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if (!agent_valid(&agent))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!cno_handle)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	else if (ia->count[DAT_HANDLE_TYPE_CNO] >= ref_profile.max_cnos)
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	if (rc)
		goto out;
	cno = ref_obj_alloc(sizeof(*cno));
	if (!cno) {
		rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	cno->agent = agent;
	ref_list_init(&cno->waiter_list);
	cno->obj.destroy = cno_destroy;
	ref_obj_register(&cno->obj, DAT_HANDLE_TYPE_CNO, ia);
	*cno_handle = (DAT_CNO_HANDLE)cno;
out:
	ref_obj_release(obj);
	return rc;
}

DAT_RETURN ref_cno_create(DAT_IA_HANDLE ia_handle,
			  DAT_OS_WAIT_PROXY_AGENT agent,
			  DAT_CNO_HANDLE *cno_handle)
{
	DAT_RETURN rc;

	rc = cno_create(ia_handle, agent, cno_handle);
	return rc;
}

/* dat_cno_modify_agent.3dat: NULL agent disassociates. */
DAT_RETURN ref_cno_modify_agent(DAT_CNO_HANDLE cno_handle,
				DAT_OS_WAIT_PROXY_AGENT agent)
{
	struct ref_obj *obj;
	DAT_RETURN rc;

	rc = ref_obj_acquire(cno_handle, DAT_HANDLE_TYPE_CNO, CNO_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	if (!agent_valid(&agent))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else {
		to_cno(obj)->agent = agent;
	}
	ref_obj_release(obj);
	return rc;
}

/* dat_cno_query.3dat: the whole DAT_CNO_PARAM is filled. */
DAT_RETURN ref_cno_query(DAT_CNO_HANDLE cno_handle, DAT_CNO_PARAM_MASK mask,
			 DAT_CNO_PARAM *param)
{
	struct ref_obj *obj;
	DAT_RETURN rc;

	rc = ref_obj_acquire(cno_handle, DAT_HANDLE_TYPE_CNO, CNO_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	if (((unsigned int)mask & ~(unsigned int)REF_CNO_FIELD_VALID))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!param)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!rc) {
		param->ia_handle = (DAT_IA_HANDLE)obj->ia;
		ref_abi_fill_cno_agent(param, &to_cno(obj)->agent);
	}
	ref_obj_release(obj);
	return rc;
}

/*
 * dat_cno_free.3dat: refused (DAT_INVALID_STATE, CNO_IN_USE) while an EVD
 * is attached or a thread is blocked on it.
 */
DAT_RETURN ref_cno_free(DAT_CNO_HANDLE cno_handle)
{
	struct ref_obj *obj;
	struct ref_cno *cno;
	struct ref_ia *ia;
	DAT_RETURN rc;

	rc = ref_obj_acquire(cno_handle, DAT_HANDLE_TYPE_CNO, CNO_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	cno = to_cno(obj);
	ia = obj->ia;
	if (cno->users > 0 ||
	    cno->waiters > 0) {
		ref_ia_release(ia);
		return REF_ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE);
	}
	ref_obj_unregister(obj);
	ref_obj_free(cno);
	ref_ia_release(ia);
	return DAT_SUCCESS;
}

/*
 * dat_cno_wait.3dat: returns the EVD that fired (a hint) with
 * DAT_SUCCESS; DAT_SUCCESS with a NULL EVD when the CNO lost all its EVDs
 * to dat_evd_free or the IA is closed; DAT_QUEUE_EMPTY and a NULL EVD on
 * timeout; DAT_INTERRUPTED_CALL (NULL EVD) when a signal handler ran.
 */
DAT_RETURN ref_cno_wait(DAT_CNO_HANDLE cno_handle, DAT_TIMEOUT timeout,
			DAT_EVD_HANDLE *evd_handle)
{
	struct ref_obj *obj;
	struct ref_cno *cno;
	struct ref_ia *ia;
	struct ref_waiter w;
	struct timespec deadline;
	bool infinite = timeout == DAT_TIMEOUT_INFINITE;
	DAT_RETURN rc;
	int r;

	rc = ref_obj_acquire(cno_handle, DAT_HANDLE_TYPE_CNO, CNO_HANDLE_SUB,
			     &obj);
	if (rc)
		return rc;
	cno = to_cno(obj);
	ia = obj->ia;
	if (!evd_handle) {
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out;
	}
	if (cno->triggered) {
		*evd_handle = (DAT_EVD_HANDLE)cno->triggered;
		cno->triggered = NULL;
		goto out;
	}
	*evd_handle = DAT_HANDLE_NULL;
	if (ia->closing) {
		goto out;
	}
	if (timeout == 0) {
		rc = REF_ERR(DAT_QUEUE_EMPTY, 0);
		goto out;
	}
	deadline = ref_deadline(timeout);
	ref_waiter_init(&w, ia);
	ref_list_add_tail(waiter_list(cno), &w.link);
	cno->waiters++;
	ia->sleepers++;
	for (;;) {
		r = ref_conn_wait(&w, ia, &deadline, infinite);
		if (w.fired) {
			*evd_handle = w.evd;
			break;
		}
		if (r == ETIMEDOUT) {
			rc = REF_ERR(DAT_QUEUE_EMPTY, 0);
			break;
		}
		if (r == EINTR) {
			rc = REF_ERR(DAT_INTERRUPTED_CALL, 0);
			break;
		}
	}
	ref_list_del(&w.link);
	cno->waiters--;
	ia->sleepers--;
	pthread_cond_broadcast(&ia->sleepers_cond);
	ref_waiter_fini(&w, ia);
out:
	ref_ia_release(ia);
	return rc;
}
