// SPDX-License-Identifier: MIT
/*
 * ia.c - the Interface Adapter: dat_ia_open (provider side), dat_ia_query,
 * dat_ia_close, the IA lock with its deferred work, and asynchronous
 * events.
 */
#include "ref.h"
#include "conn.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>


/* ---- lock and deferred work --------------------------------------------------- */

enum ref_deferred_kind {
	REF_DEFER_AGENT,	/* OS Wait Proxy Agent upcall */
	REF_DEFER_ASYNC,	/* event for an async EVD of another IA */
};

struct ref_deferred {
	struct ref_list link;
	enum ref_deferred_kind kind;
	DAT_OS_WAIT_PROXY_AGENT agent;
	DAT_EVD_HANDLE evd;
	DAT_EVENT event;
};

void ref_ia_lock(struct ref_ia *ia)
{
	pthread_mutex_lock(&ia->lock);
}

bool ref_ia_trylock(struct ref_ia *ia)
{
	return pthread_mutex_trylock(&ia->lock) == 0;
}

static void run_deferred(struct ref_deferred *d)
{
	struct ref_obj *obj;

	switch (d->kind) {
	case REF_DEFER_AGENT:
		d->agent.proxy_agent_func(d->agent.instance_data, d->evd);
		break;
	case REF_DEFER_ASYNC:
		if (ref_obj_acquire(d->evd, DAT_HANDLE_TYPE_EVD,
				    DAT_INVALID_HANDLE_EVD_ASYNC, &obj))
			break;	/* the EVD is gone: nowhere to deliver */
		ref_evd_post(ref_container_of(obj, struct ref_evd, obj),
			     &d->event);
		ref_obj_release(obj);
		break;
	}
}

void ref_ia_unlock(struct ref_ia *ia)
{
	struct ref_list local, *pos, *tmp;

	if (ref_list_empty(&ia->deferred)) {
		pthread_mutex_unlock(&ia->lock);
		return;
	}
	/* Take the whole list; run it without the lock. */
	local.next = ia->deferred.next;
	local.prev = ia->deferred.prev;
	local.next->prev = &local;
	local.prev->next = &local;
	ref_list_init(&ia->deferred);
	pthread_mutex_unlock(&ia->lock);

	ref_list_for_each_safe(pos, tmp, &local) {
		struct ref_deferred *d =
			ref_container_of(pos, struct ref_deferred, link);

		run_deferred(d);
		free(d);
	}
}

static void defer(struct ref_ia *ia, struct ref_deferred *d)
{
	ref_list_add_tail(&ia->deferred, &d->link);
}

void ref_ia_defer_agent(struct ref_ia *ia, DAT_OS_WAIT_PROXY_AGENT agent,
			DAT_EVD_HANDLE evd)
{
	struct ref_deferred *d;

	if (!agent.proxy_agent_func)
		return;
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	d->kind = REF_DEFER_AGENT;
	d->agent = agent;
	d->evd = evd;
	defer(ia, d);
}

/* ---- asynchronous events ------------------------------------------------------ */

void ref_ia_post_async(struct ref_ia *ia, DAT_EVENT_NUMBER number,
		       DAT_HANDLE object, DAT_COUNT reason)
{
	DAT_EVENT ev;
	struct ref_deferred *d;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = number;
	ev.event_data.asynch_error_event_data.dat_handle = object;
	ev.event_data.asynch_error_event_data.reason = reason;
	if (ia->async_evd) {
		ref_evd_post(ia->async_evd, &ev);
		return;
	}
	if (!ia->async_evd_ext)
		return;		/* DAT_EVD_ASYNC_EXISTS: out of our scope */
	/* Another IA's EVD: never hold two IA locks; deliver after unlock. */
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	d->kind = REF_DEFER_ASYNC;
	d->evd = ia->async_evd_ext;
	d->event = ev;
	defer(ia, d);
}

/* ---- attributes ------------------------------------------------------------------ */

static DAT_COUNT clamp_count(long long v)
{
	return v > INT_MAX ? INT_MAX : (DAT_COUNT)v;
}

static void fill_ia_attr(struct ref_ia *ia)
{
	DAT_IA_ATTR *a = &ia->ia_attr;

	memset(a, 0, sizeof(*a));
	snprintf(a->adapter_name, sizeof(a->adapter_name), "%s", ia->name);
	snprintf(a->vendor_name, sizeof(a->vendor_name), "datcts");
	a->hardware_version_major = 0;
	a->hardware_version_minor = 0;
	a->firmware_version_major = 0;
	a->firmware_version_minor = 0;
	a->ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ia->address;
	a->max_eps = ref_profile.max_eps;
	a->max_dto_per_ep = ref_profile.max_dto_per_ep;
	a->max_rdma_read_per_ep_in = ref_profile_max_rdma_read_in();
	a->max_rdma_read_per_ep_out = ref_profile.max_rdma_read;
	a->max_evds = ref_profile.max_evds;
	a->max_evd_qlen = ref_profile.max_evd_qlen;
	a->max_iov_segments_per_dto = ref_profile.max_iov;
	a->max_lmrs = ref_profile.max_lmrs;
	/* any mapped range can be registered: the address space bounds it */
	a->max_lmr_block_size = REF_SEG_LENGTH_MAX;
	a->max_lmr_virtual_address = (DAT_VADDR)UINTPTR_MAX;
	a->max_pzs = ref_profile.max_pzs;
	a->max_message_size = REF_MAX_MESSAGE_SIZE;
	a->max_rdma_size = REF_MAX_RDMA_SIZE;
	a->max_rmrs = ref_profile.max_rmrs;
	a->max_rmr_target_address = (DAT_VADDR)UINTPTR_MAX;
	a->max_srqs = ref_profile.max_srqs;
	a->max_ep_per_srq = ref_profile.max_ep_per_srq;
	a->max_recv_per_srq = ref_profile.max_recv_per_srq;
	a->max_iov_segments_per_rdma_read = ref_profile.max_rdma_read_iov > 0 ?
					    ref_profile.max_rdma_read_iov : ref_profile.max_iov;
	a->max_iov_segments_per_rdma_write = ref_profile.max_rdma_write_iov > 0 ?
					     ref_profile.max_rdma_write_iov : ref_profile.max_iov;
	/* IA-wide: every EP may have its per-EP maximum outstanding */
	a->max_rdma_read_in =
		clamp_count((long long)ref_profile_max_rdma_read_in() * ref_profile.max_eps);
	a->max_rdma_read_out =
		clamp_count((long long)ref_profile.max_rdma_read * ref_profile.max_eps);
	a->max_rdma_read_per_ep_in_guaranteed = DAT_TRUE;
	a->max_rdma_read_per_ep_out_guaranteed = DAT_TRUE;
	ia->transport_attr[0].name = "datcts.transport";
	ia->transport_attr[0].value = ia->transport_kind;
	ia->transport_attr[1].name = "datcts.instance";
	ia->transport_attr[1].value = ia->transport_arg;
	a->num_transport_attr = 2;
	a->transport_attr = ia->transport_attr;
	a->num_vendor_attr = 0;
	a->vendor_attr = NULL;
	ref_abi_fill_ia_attr(a);
}

static void fill_provider_attr(struct ref_ia *ia)
{
	DAT_PROVIDER_ATTR *p = &ia->provider_attr;
	DAT_BOOLEAN merge[6][6];
	int i, j;

	memset(p, 0, sizeof(*p));
	snprintf(p->provider_name, sizeof(p->provider_name), "%s",
		 ref_profile.provider_name);
	p->provider_version_major = ref_profile.provider_version_major;
	p->provider_version_minor = ref_profile.provider_version_minor;
	/* the DAT version of the ABI this library was built for */
	p->dapl_version_major = DAT_VERSION_MAJOR;
	p->dapl_version_minor = DAT_VERSION_MINOR;
	/* DAT_MEM_TYPE values are not bits: the "union" of 0, 1, 2 is 3 */
	p->lmr_mem_types_supported = (DAT_MEM_TYPE)(DAT_MEM_TYPE_VIRTUAL |
						    DAT_MEM_TYPE_LMR |
						    DAT_MEM_TYPE_SHARED_VIRTUAL);
	p->iov_ownership_on_return = ref_profile.iov_ownership;
	p->dat_qos_supported = (DAT_QOS)ia->qos_supported;
	p->completion_flags_supported =
		(DAT_COMPLETION_FLAGS)(DAT_COMPLETION_SUPPRESS_FLAG |
				       DAT_COMPLETION_SOLICITED_WAIT_FLAG |
				       DAT_COMPLETION_UNSIGNALLED_FLAG |
				       DAT_COMPLETION_BARRIER_FENCE_FLAG |
				       DAT_COMPLETION_EVD_THRESHOLD_FLAG);
	/* must match the registry key (dat.conf "nonthreadsafe") */
	p->is_thread_safe = DAT_FALSE;
	p->max_private_data_size = ref_profile.max_private_data;
	p->supports_multipath = DAT_FALSE;
	p->ep_creator = ref_profile.ep_creator;
	p->pz_support = DAT_PZ_UNIQUE;
	p->optimal_buffer_alignment = ref_profile.optimal_buffer_alignment;
	for (i = 0; i < 6; i++)
		for (j = 0; j < 6; j++)
			merge[i][j] = ref_profile_merge(i, j);
	memcpy((void *)p->evd_stream_merging_supported, merge, sizeof(merge));
	p->srq_supported = ref_profile.srq_supported;
	p->srq_watermarks_supported = ref_profile.srq_watermarks_supported;
	p->srq_ep_pz_difference_supported = ref_profile.srq_ep_pz_difference;
	p->srq_info_supported = ref_profile.srq_supported ? 1 : 0;
	p->ep_recv_info_supported = ref_profile.ep_recv_info_supported;
	p->lmr_sync_req = ref_profile.lmr_sync_req;
	p->dto_async_return_guaranteed = DAT_FALSE;
	p->rdma_write_for_rdma_read_req = DAT_FALSE;
	ia->provider_specific_attr[0].name = "datcts.mutant";
	ia->provider_specific_attr[0].value = "none";
	/* the qualifiers a Service Point may use: TCP / RDMA CM ports */
	ia->provider_specific_attr[1].name = "datcts.conn_qual_range";
	ia->provider_specific_attr[1].value = "1-65535";
	/* a conforming variant (profile.c) says which, for the reports */
	ia->provider_specific_attr[2].name = "datcts.variant";
	ia->provider_specific_attr[2].value = ref_profile.variant ? ref_profile.variant : "";
	p->num_provider_specific_attr = 3;
	p->provider_specific_attr = ia->provider_specific_attr;
	ref_abi_fill_provider_attr(p);
}

/* ---- dat_ia_open --------------------------------------------------------------- */

static void ia_free(struct ref_ia *ia)
{
	struct ref_list *pos, *tmp;

	ref_list_for_each_safe(pos, tmp, &ia->deferred)
		free(ref_container_of(pos, struct ref_deferred, link));
	ref_ctx_fini(ia);
	ref_ep_streams_fini(ia);
	ref_waiter_cache_fini(ia);
	pthread_cond_destroy(&ia->sleepers_cond);
	pthread_mutex_destroy(&ia->lock);
	free((void *)ia->instance_data);
	ref_obj_free(ia);
}

/* Drops the IA's use of a Consumer-supplied async EVD (another IA's). */
static void unuse_ext_evd(DAT_EVD_HANDLE h)
{
	struct ref_obj *obj;

	if (ref_obj_acquire(h, DAT_HANDLE_TYPE_EVD,
			    DAT_INVALID_HANDLE_EVD_ASYNC, &obj))
		return;
	ref_container_of(obj, struct ref_evd, obj)->users--;
	ref_obj_release(obj);
}

/*
 * dat_ia_open.3dat, provider half (libdat did the name and version
 * lookup).  async_evd_handle is INOUT: NULL asks for a new async EVD of
 * at least async_qlen entries; DAT_EVD_ASYNC_EXISTS creates none (queries
 * then report DAT_EVD_OUT_OF_SCOPE); anything else must be a live EVD of
 * this provider created with DAT_EVD_ASYNC_FLAG, else DAT_INVALID_HANDLE
 * and *async_evd_handle is left as it was.
 */
DAT_RETURN ref_ia_open(const DAT_NAME_PTR name, DAT_COUNT async_qlen,
		       DAT_EVD_HANDLE *async_evd_handle, DAT_IA_HANDLE *ia_handle)
{
	DAT_PROVIDER *prov;
	const char *instance = NULL, *why;
	DAT_EVD_HANDLE in;
	struct ref_instance inst;
	struct ref_ia *ia;
	struct ref_obj *obj;
	struct ref_evd *evd;
	DAT_RETURN rc;

	if (!name)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!async_evd_handle)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!ia_handle)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	prov = ref_provider_find(name, &instance);
	if (!prov && !strncmp(name, "RO_AWARE_", 9))
		prov = ref_provider_find(name + 9, &instance);
	if (!prov)
		return REF_ERR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);

	in = *async_evd_handle;
	if (in && in != DAT_EVD_ASYNC_EXISTS) {
		rc = ref_obj_acquire(in, DAT_HANDLE_TYPE_EVD,
				     DAT_INVALID_HANDLE_EVD_ASYNC, &obj);
		if (rc)
			return rc;
		evd = ref_container_of(obj, struct ref_evd, obj);
		if (!(evd->flags & DAT_EVD_ASYNC_FLAG)) {
			ref_obj_release(obj);
			return REF_ERR(DAT_INVALID_HANDLE,
				       DAT_INVALID_HANDLE_EVD_ASYNC);
		}
		evd->users++;
		ref_obj_release(obj);
	} else if (!in && (async_qlen < 0 || async_qlen > ref_profile.max_evd_qlen)) {
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}

	rc = REF_ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	ia = ref_obj_alloc(sizeof(*ia));
	if (!ia)
		goto fail_ext;
	ia->obj.provider = prov;
	/* profile: where dat_psp_create_any looks first (0: the transport's pick) */
	ia->any_qual_lo = ref_profile.any_qual_lo;
	ia->any_qual_hi = ref_profile.any_qual_lo ? 65535 : 0;
	pthread_mutex_init(&ia->lock, NULL);
	ref_cond_init(&ia->sleepers_cond);
	ref_list_init(&ia->objects);
	ref_list_init(&ia->deferred);
	snprintf(ia->name, sizeof(ia->name), "%s", prov->device_name);
	ia->instance_data = strdup(instance ? instance : "");
	ref_ctx_init(ia);
	if (!ia->instance_data) {
		ia_free(ia);
		goto fail_ext;
	}
	if (ref_instance_parse(ia->instance_data, &inst, &why) == 0) {
		snprintf(ia->transport_kind, sizeof(ia->transport_kind), "%s",
			 inst.kind == REF_TRANSPORT_VERBS ? "verbs" : "sock");
		snprintf(ia->transport_arg, sizeof(ia->transport_arg), "%s",
			 inst.arg);
	}

	rc = ref_conn_ia_open(ia, ia->instance_data);
	if (rc) {
		ia_free(ia);
		goto fail_ext;
	}
	fill_ia_attr(ia);
	ia->qos_supported = ref_profile.qos_supported;
	fill_provider_attr(ia);
	ref_conn_ia_attrs(ia);
	ref_obj_register(&ia->obj, DAT_HANDLE_TYPE_IA, ia);

	if (!in) {
		DAT_COUNT qlen = async_qlen < REF_MIN_ASYNC_QLEN ?
				 REF_MIN_ASYNC_QLEN : async_qlen;

		if (qlen < ref_profile.async_evd_min_qlen)
			qlen = ref_profile.async_evd_min_qlen;
		struct ref_cno *cno = NULL;


		ref_ia_lock(ia);
		rc = ref_evd_create_locked(ia, qlen, cno, DAT_EVD_ASYNC_FLAG,
					   &evd);
		if (!rc) {
			evd->users++;	/* the IA uses it */
			ia->async_evd = evd;
			ia->async_evd_created_by_open = true;
		}
		ref_ia_unlock(ia);
		if (rc) {
			ref_obj_unregister(&ia->obj);
			goto fail_transport;
		}
		*async_evd_handle = (DAT_EVD_HANDLE)evd;
	} else if (in == DAT_EVD_ASYNC_EXISTS) {
		ia->async_evd_exists = true;
	} else {
		ia->async_evd_ext = in;
	}
	*ia_handle = (DAT_IA_HANDLE)ia;
	return DAT_SUCCESS;

fail_transport:
	ref_conn_ia_close(ia);
	ia_free(ia);
fail_ext:
	if (in && in != DAT_EVD_ASYNC_EXISTS)
		unuse_ext_evd(in);
	return rc;
}

/* ---- dat_ia_query ---------------------------------------------------------------- */

/*
 * dat_ia_query.3dat: unknown mask bits are an invalid mask; a NULL
 * attribute pointer is accepted when its mask is empty, and a NULL
 * async_evd_handle pointer means "not asked".  Whole structures are
 * filled (the page allows returning more than asked).
 */
DAT_RETURN ref_ia_query(DAT_IA_HANDLE ia_handle, DAT_EVD_HANDLE *async_evd,
			DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			DAT_PROVIDER_ATTR_MASK pr_mask,
			DAT_PROVIDER_ATTR *pr_attr)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	DAT_RETURN rc;

	rc = ref_obj_acquire(ia_handle, DAT_HANDLE_TYPE_IA,
			     DAT_INVALID_HANDLE_IA, &obj);
	if (rc)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if ((ia_mask & ~DAT_IA_FIELD_ALL))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	else if (ia_mask && !ia_attr)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	else if ((pr_mask & ~DAT_PROVIDER_FIELD_ALL))
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	else if (pr_mask && !pr_attr)
		rc = REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (rc) {
		ref_obj_release(obj);
		return rc;
	}
	if (async_evd) {
		if (ia->async_evd)
			*async_evd = (DAT_EVD_HANDLE)ia->async_evd;
		else if (ia->async_evd_ext && ref_obj_live(ia->async_evd_ext))
			*async_evd = ia->async_evd_ext;
		else if (ia->async_evd_exists)
			*async_evd = DAT_EVD_OUT_OF_SCOPE;
		else
			*async_evd = DAT_HANDLE_NULL;
	}
	if (ia_attr)
		*ia_attr = ia->ia_attr;
	if (pr_attr)
		memcpy(pr_attr, &ia->provider_attr, sizeof(*pr_attr));
	ref_obj_release(obj);
	return DAT_SUCCESS;
}

/* ---- dat_ia_close ---------------------------------------------------------------- */

/* Objects a graceful close does not require the Consumer to have freed. */
static bool provider_owned(struct ref_ia *ia, struct ref_obj *obj)
{
	if (ia->async_evd_created_by_open && obj == &ia->async_evd->obj)
		return true;
	return obj->type == DAT_HANDLE_TYPE_CR;
}

/*
 * dat_ia_close.3dat.  Graceful: refused with DAT_INVALID_STATE (nothing
 * changes) while any Consumer-created object is left; the async EVD made
 * by dat_ia_open and pending Connection Requests do not count.  Abrupt:
 * unblocks every EVD waiter (DAT_ABORT) and CNO waiter and agent (NULL
 * EVD), destroys every object newest first, then the transport.  Both
 * destroy the async EVD made by open and leave a Consumer-supplied one.
 */
DAT_RETURN ref_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS flags)
{
	struct ref_list *pos;
	struct ref_obj *obj;
	struct ref_ia *ia;
	bool keep_ia = false;
	DAT_RETURN rc;

	rc = ref_obj_acquire(ia_handle, DAT_HANDLE_TYPE_IA,
			     DAT_INVALID_HANDLE_IA, &obj);
	if (rc)
		return rc;
	ia = ref_container_of(obj, struct ref_ia, obj);
	if (flags != DAT_CLOSE_ABRUPT_FLAG && flags != DAT_CLOSE_GRACEFUL_FLAG) {
		ref_obj_release(obj);
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	if (ia->closing) {
		/* another thread is closing it (dat_ia_close is MT-unsafe) */
		ref_obj_release(obj);
		return REF_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	}
	if (flags == DAT_CLOSE_GRACEFUL_FLAG) {
		ref_list_for_each(pos, &ia->objects) {
			struct ref_obj *o =
				ref_container_of(pos, struct ref_obj, ia_link);

			if (!provider_owned(ia, o)) {
				ref_obj_release(obj);
				return REF_ERR(DAT_INVALID_STATE,
					       DAT_INVALID_STATE_IA_IN_USE);
			}
		}
	}

	ia->closing = true;
	/* Unblock everybody sleeping on an object of this IA. */
	ref_list_for_each(pos, &ia->objects) {
		struct ref_obj *o = ref_container_of(pos, struct ref_obj,
						     ia_link);

		if (o->type == DAT_HANDLE_TYPE_EVD)
			ref_evd_abort_waiter(ref_container_of(o, struct ref_evd,
							      obj));
		else if (o->type == DAT_HANDLE_TYPE_CNO)
			ref_cno_release_waiters(ref_container_of(o,
							struct ref_cno, obj));
	}
	while (ia->sleepers > 0)
		ref_cond_wait(&ia->sleepers_cond, &ia->lock, NULL, true);

	/* Newest first: nothing outlives what it was made from. */
	while (!ref_list_empty(&ia->objects)) {
		struct ref_obj *o = ref_container_of(ia->objects.prev,
						     struct ref_obj, ia_link);

		if (o->destroy)
			o->destroy(o);
		else
			ref_obj_unregister(o);	/* leak rather than loop */
	}
	ia->async_evd = NULL;
	ref_obj_unregister(&ia->obj);	/* no new ref_obj_acquire from now */
	ref_ia_unlock(ia);		/* runs the agents' last upcalls */

	ref_conn_ia_close(ia);
	if (ia->async_evd_ext) {
		unuse_ext_evd(ia->async_evd_ext);
	}
	ref_ia_drain_pins(ia);
	if (!keep_ia)
		ia_free(ia);
	return DAT_SUCCESS;
}
