/* SPDX-License-Identifier: MIT */
/*
 * ref.h - the reference provider's object model, shared by every file of
 * core/ and by the transports.
 *
 * Ownership (two people write the provider side by side):
 *   this file, ia.c pz.c lmr.c rmr.c evd.c cno.c handle.c provider.c
 *   time.c
 *       - handles, IA, PZ, LMR, RMR (incl. bind), EVD, CNO, the dispatch
 *         table and dat_provider_init/fini;
 *   conn.h, ep.c srq.c psp.c rsp.c cr.c dto.c and transport/
 *       - endpoints, SRQ, connection management, data transfer.
 * Cross-object calls go through the functions declared here and in conn.h;
 * nobody reaches into another object's file-private state.
 *
 * Locking: one mutex per IA (ia->lock) protects every object of that IA
 * and all of their lists and counters.  Public entry points take it; the
 * internal ref_* helpers below expect it held unless they say otherwise.
 * Waiters (evd_wait, cno_wait) sleep with the lock released (see struct
 * ref_waiter).  The transport's progress engine delivers into core with the
 * lock held.  One lock keeps the DAT invariants (counts, states,
 * watermarks) trivially consistent; the provider is not a scalability
 * target.
 *
 * Two rules everybody follows:
 *  - release ia->lock with ref_ia_unlock(), never with a bare
 *    pthread_mutex_unlock(): work that must run without the lock (OS Wait
 *    Proxy Agent upcalls, asynchronous events for an async EVD that
 *    belongs to another IA) is queued while the lock is held and run by
 *    ref_ia_unlock();
 *  - allocate every object that is handed out as a DAT handle with
 *    ref_obj_alloc() and release it with ref_obj_free() after
 *    ref_obj_unregister(): libdat dereferences a handle (its first word
 *    is the DAT_PROVIDER pointer) before the provider can validate it, so
 *    the memory of a freed handle must stay readable and keep pointing at
 *    the dispatch table.  ref_obj_free() keeps it in a quarantine and
 *    never returns it to malloc.
 */
#ifndef REF_H
#define REF_H

#include "dat_abi.h"
#include "profile.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

struct ref_transport;
struct ref_ep;
struct ref_srq;
struct ref_psp;
struct ref_rsp;
struct ref_cr;
struct ref_provider_rec;

/* ---- intrusive doubly linked list ------------------------------------ */

struct ref_list {
	struct ref_list *next, *prev;
};

#define REF_LIST_INIT(name) { &(name), &(name) }
#define ref_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline void ref_list_init(struct ref_list *l)
{
	l->next = l->prev = l;
}

static inline bool ref_list_empty(const struct ref_list *l)
{
	return l->next == l;
}

static inline void ref_list_add_tail(struct ref_list *l, struct ref_list *n)
{
	n->prev = l->prev;
	n->next = l;
	l->prev->next = n;
	l->prev = n;
}

static inline void ref_list_del(struct ref_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define ref_list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)
#define ref_list_for_each_safe(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
	     (pos) = (tmp), (tmp) = (pos)->next)

/* ---- limits owned by core (advertised in dat_ia_query, enforced) --------- */

#define REF_MAX_EVDS		4096	/* per IA, incl. the async EVD */
#define REF_MAX_EVD_QLEN	65536
#define REF_MIN_ASYNC_QLEN	16	/* async EVD made by dat_ia_open */
#define REF_MAX_PZS		4096
#define REF_MAX_LMRS		65536
#define REF_MAX_RMRS		65536
#define REF_MAX_CNOS		4096
/*
 * EPs and SRQs are conn's objects; conn.h may define REF_MAX_EPS and
 * REF_MAX_SRQS (and enforce them with ia->count[]); these are the
 * fallbacks core advertises otherwise.
 */
#define REF_DEFAULT_MAX_EPS	4096
#define REF_DEFAULT_MAX_SRQS	4096

/* ---- handles ---------------------------------------------------------- */

/*
 * Every DAT handle the provider hands out points at a struct that starts
 * with struct ref_obj, whose first member is the DAT_PROVIDER pointer
 * libdat dispatches through (DAT_HANDLE_TO_PROVIDER).
 *
 * Handles are validated (handle.c: is the address a slot of one of the
 * provider's slabs, and is its object live and of the type?) before
 * anything is dereferenced, so NULL, freed, foreign or wrong-type handles
 * give DAT_INVALID_HANDLE and never a crash.
 */
struct ref_obj {
	DAT_PROVIDER *provider;		/* must stay first */
	DAT_HANDLE_TYPE type;
	struct ref_ia *ia;		/* owning IA; the IA itself for an IA */
	DAT_CONTEXT context;		/* dat_set/get_consumer_context */
	bool context_set;
	struct ref_list ia_link;	/* on ia->objects (not for the IA) */
	/*
	 * Tears the object down for dat_ia_close (lock held, newest object
	 * first).  ia->closing is set: other objects may already be gone,
	 * so destroy() must not touch them (no users-- on the PZ, EVD, ...).
	 * It unregisters and frees the object.
	 */
	void (*destroy)(struct ref_obj *obj);
};

/* Matches any handle type in ref_obj_lookup / ref_obj_acquire. */
#define REF_HANDLE_TYPE_ANY	((DAT_HANDLE_TYPE)-1)
#define REF_HANDLE_TYPES	11	/* DAT_HANDLE_TYPE_CR .. _SRQ */

/*
 * Zeroed memory for a handle object of @size bytes (NULL on ENOMEM), and
 * its release.  See the rule at the top of this file.
 */
void *ref_obj_alloc(size_t size);
void ref_obj_free(void *obj);
/* The allocation fault hook's say on one object (testhooks/alloc_fault.c). */
bool ref_obj_alloc_fails(void);

/*
 * Makes obj live (its handle valid) and adds it to the tail of
 * ia->objects; sets provider/type/ia and counts it in ia->count[type].
 * Abrupt close destroys objects newest first.  For the IA itself pass
 * ia == obj's IA; it is made live only.  obj is from ref_obj_alloc: its
 * slot is ours, so registering takes nothing and cannot fail.
 */
void ref_obj_register(struct ref_obj *obj, DAT_HANDLE_TYPE type,
		      struct ref_ia *ia);
/* Makes obj dead (its handle invalid), off ia->objects (memory stays caller's). */
void ref_obj_unregister(struct ref_obj *obj);
/* True while obj is registered (no IA lock needed). */
bool ref_obj_live(const void *obj);
/*
 * Looks a handle up without taking any IA lock.  Returns DAT_SUCCESS and
 * *out, or DAT_INVALID_HANDLE | subtype (subtype picked by the expected
 * type: DAT_INVALID_HANDLE_EP for REF expecting an EP, and so on).  The
 * caller must then make sure the object cannot go away (hold its IA's
 * lock and re-check, or use ref_obj_acquire).
 */
DAT_RETURN ref_obj_lookup(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			  struct ref_obj **out);
/* Same with the subtype chosen by the caller (argument position etc.). */
DAT_RETURN ref_obj_lookup_sub(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			      DAT_RETURN_SUBTYPE subtype,
			      struct ref_obj **out);
/*
 * The safe way into an object for a public entry point: looks the handle
 * up, pins its IA (so a concurrent dat_ia_close waits for us), takes
 * ia->lock and re-checks the handle is still live.  On DAT_SUCCESS the
 * lock is held and *out is valid until ref_obj_release(*out).  On error
 * nothing is held.  @subtype 0 means ref_invalid_handle_subtype(type).
 */
DAT_RETURN ref_obj_acquire(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			   DAT_RETURN_SUBTYPE subtype, struct ref_obj **out);
/* No object of any IA is registered (the library may let go of its memory). */
bool ref_handles_idle(void);
/* ref_ia_unlock(obj->ia) and unpin; pass the object ref_obj_acquire gave. */
void ref_obj_release(struct ref_obj *obj);
/* Same, by IA (for callers that only kept the IA pointer). */
void ref_ia_release(struct ref_ia *ia);
/*
 * ref_obj_acquire of an IA handle that never waits, for a caller that
 * holds another IA's lock: 0 = locked and pinned (ref_ia_release), 1 = its
 * lock is taken by someone else, -1 = no such live IA.
 */
int ref_ia_try_acquire(DAT_IA_HANDLE handle, struct ref_ia **out);
/*
 * dat_ia_close only: after the IA was unregistered and its lock released,
 * waits until the closing thread holds the last pin, and drops it.
 */
void ref_ia_drain_pins(struct ref_ia *ia);
/* How many ref_obj_acquire holders pin @ia now. */
unsigned int ref_ia_pins(const struct ref_ia *ia);
/*
 * The DAT_INVALID_HANDLE_* subtype that names a handle of this type.
 * EVD handles have no type-wide subtype (the EVD ones name a role):
 * DAT_INVALID_HANDLE1 is returned; pass the role explicitly instead.
 */
DAT_RETURN_SUBTYPE ref_invalid_handle_subtype(DAT_HANDLE_TYPE type);

#define REF_ERR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (subtype)))

/* ---- waiting (time.c) ------------------------------------------------------ */

/*
 * One blocked thread (dat_evd_wait, dat_cno_wait).  The sleeper blocks in
 * ppoll() on an eventfd so that a signal handler interrupts it (the pages'
 * DAT_INTERRUPTED_CALL); if no eventfd can be had it falls back to a
 * CLOCK_MONOTONIC condition variable.  ref_waiter_wake() is called with
 * ia->lock held; the flag it sets stays until the sleeper looks at it, so
 * no wake-up is lost.
 */
#define REF_WAITER_FD_CACHE	4	/* concurrent waits that reuse an eventfd */

struct ref_waiter {
	struct ref_list link;
	int fd;			/* eventfd, from the IA's cache (time.c) */
	bool woken;
	bool written;		/* the eventfd holds a count to read */
	bool spinning;		/* busy-polls under ia->lock between looks
				 * at @woken: a wake need not write the fd */
	pthread_cond_t cond;
	bool fired;			/* CNO waiters: a trigger was delivered */
	DAT_EVD_HANDLE evd;		/* CNO waiters: the EVD that fired */
};

/* Both with ia->lock held: the eventfd comes from / goes back to the IA. */
void ref_waiter_init(struct ref_waiter *w, struct ref_ia *ia);
void ref_waiter_fini(struct ref_waiter *w, struct ref_ia *ia);
/* Closes the IA's cached eventfds (IA teardown). */
void ref_waiter_cache_fini(struct ref_ia *ia);
void ref_waiter_wake(struct ref_waiter *w);
/*
 * Sleeps until woken, the deadline passes or a signal handler runs.
 * Called with ia->lock held, returns with it held.  0 = woken (or
 * spurious), ETIMEDOUT, EINTR.
 */
int ref_waiter_sleep(struct ref_waiter *w, struct ref_ia *ia,
		     const struct timespec *deadline, bool infinite);
/*
 * The waiter whose own thread is running transport progress inside its
 * wait (ref_conn_wait); waking it needs no eventfd round trip.
 */
extern __thread struct ref_waiter *ref_waiter_running;

/* ---- IA ----------------------------------------------------------------- */

struct ref_ia {
	struct ref_obj obj;
	pthread_mutex_t lock;
	char name[DAT_NAME_MAX_LENGTH];
	const char *instance_data;	/* the dat.conf field, may be "" */
	struct ref_transport *transport;
	struct sockaddr_storage address;	/* what ia_query reports */
	/*
	 * The async EVD made by dat_ia_open (an object of this IA), or NULL
	 * when the Consumer passed one in (async_evd_ext: it belongs to
	 * another IA of this provider) or DAT_EVD_ASYNC_EXISTS.
	 */
	struct ref_evd *async_evd;
	bool async_evd_created_by_open;	/* freed by dat_ia_close */
	/* An async EVD that belongs to another IA (passed to dat_ia_open). */
	DAT_EVD_HANDLE async_evd_ext;
	bool async_evd_exists;		/* opened with DAT_EVD_ASYNC_EXISTS */
	struct ref_list objects;	/* every child object, for close */
	DAT_COUNT count[REF_HANDLE_TYPES];	/* live objects per type */
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR provider_attr;
	/* private data the transport carries (core's limit or less) */
	DAT_COUNT max_pdata;
	bool closing;
	/* eventfds of finished waits, reused by the next ones (time.c) */
	int waiter_fds[REF_WAITER_FD_CACHE];
	int nwaiter_fds;

	/* LMR / RMR contexts (lmr.c) */
	uint64_t ctx_key[4];		/* per-IA secret of the permutation */
	uint32_t ctx_next;		/* contexts issued so far */
	void *ctx_map;			/* context -> LMR / RMR */

	/*
	 * EVD -> the DTO completion streams of this IA's EPs on it, counted
	 * per kind (ep.c): the EVD sharing rules checked at dat_ep_create
	 * and dat_ep_modify look there instead of at every EP.  streams_walk:
	 * the index could not grow (ENOMEM), the check walks the EPs.
	 */
	void *streams;
	bool streams_walk;

	/* sleepers and deferred work (ia.c, time.c) */
	DAT_COUNT sleepers;		/* threads in evd_wait / cno_wait */
	pthread_cond_t sleepers_cond;	/* signalled when one leaves */
	struct ref_list deferred;	/* run by ref_ia_unlock */
	DAT_NAMED_ATTR transport_attr[2];
	DAT_NAMED_ATTR provider_specific_attr[3];
	/* provider test hooks (docs/reference-provider.md "Test hooks") */
	DAT_CONN_QUAL any_qual_lo, any_qual_hi;	/* dat_psp_create_any draws here (0: anywhere) */
	DAT_QOS qos_supported;		/* dat_qos_supported (narrowed by daplref_test_qos_supported) */
	struct sockaddr_storage vanished;	/* a remote host that is gone */
	bool vanished_set;
	char transport_kind[16];
	char transport_arg[DAT_NAME_MAX_LENGTH];
};

/* Takes / releases ia->lock (see the rule at the top of this file). */
void ref_ia_lock(struct ref_ia *ia);
bool ref_ia_trylock(struct ref_ia *ia);	/* true: taken */
void ref_ia_unlock(struct ref_ia *ia);

/*
 * Posts an unaffiliated (object = the IA handle) or affiliated
 * asynchronous event to the IA's async EVD; lock held.  Dropped when the
 * IA has no async EVD in scope or it is full.
 */
void ref_ia_post_async(struct ref_ia *ia, DAT_EVENT_NUMBER number,
		       DAT_HANDLE object, DAT_COUNT reason);

/* Queues an OS Wait Proxy Agent upcall to run after the lock is dropped. */
void ref_ia_defer_agent(struct ref_ia *ia, DAT_OS_WAIT_PROXY_AGENT agent,
			DAT_EVD_HANDLE evd);

/* ---- PZ ----------------------------------------------------------------- */

struct ref_pz {
	struct ref_obj obj;
	DAT_COUNT users;	/* LMRs, RMRs, EPs, SRQs: free while >0 is in use */
};

/* ---- LMR / RMR and memory access checks --------------------------------- */

struct ref_lmr {
	struct ref_obj obj;
	struct ref_pz *pz;
	DAT_MEM_TYPE mem_type;
	DAT_REGION_DESCRIPTION region;
	char shared_id[DAT_LMR_COOKIE_SIZE];	/* SHARED_VIRTUAL cookie */
	DAT_VLEN length;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;	/* 0 without remote privileges */
	DAT_VADDR registered_address;
	DAT_VLEN registered_size;
	DAT_COUNT users;	/* RMRs bound into it */
	void *tp_mem;		/* transport registration (verbs: ibv_mr) */
};

struct ref_rmr {
	struct ref_obj obj;
	struct ref_pz *pz;
	bool bound;
	struct ref_lmr *lmr;		/* the LMR the window lies in */
	DAT_LMR_TRIPLET triplet;	/* the bound window */
	DAT_MEM_PRIV_FLAGS priv;
	DAT_RMR_CONTEXT rmr_context;
	struct ref_ep *ep;		/* EP the bind was posted on */
	void *tp_mem;			/* transport registration of the window */
};

/*
 * Checks one local segment (a DAT_LMR_TRIPLET of a post) against the LMRs
 * of the IA, in this order (dat_ep_post_send/recv/rdma_read/rdma_write,
 * dat_srq_post_recv RETURN VALUES):
 *   segment_length 0                 -> DAT_SUCCESS, *ptr NULL
 *   lmr_context names no LMR of this IA
 *      - it named one that was freed -> DAT_PROTECTION_VIOLATION
 *        (dat_lmr_free: later DTOs report a protection violation)
 *      - never issued                -> DAT_PRIVILEGES_VIOLATION
 *        (post pages: an invalid LMR is a privileges violation)
 *   outside the registered range     -> DAT_INVALID_PARAMETER|ARG3
 *   LMR's PZ is not @pz              -> DAT_PROTECTION_VIOLATION
 *   LMR lacks a bit of @need         -> DAT_PRIVILEGES_VIOLATION
 * (@need is DAT_MEM_PRIV_LOCAL_READ_FLAG or _LOCAL_WRITE_FLAG; the
 * subtypes are DAT_PROTECTION_READ/_WRITE, DAT_PRIVILEGES_READ/_WRITE
 * by @need).  On success *ptr is where the bytes live.  Bounds are
 * computed without overflow.
 */
DAT_RETURN ref_mem_check_local(struct ref_ia *ia, struct ref_pz *pz,
			       const DAT_LMR_TRIPLET *seg,
			       DAT_MEM_PRIV_FLAGS need, void **ptr,
			       void **tp_mem);
/*
 * Checks a remote access arriving at this IA through @ep: the rmr_context
 * names the current binding of an RMR of this IA (dat_rmr_bind: a rebind
 * or unbind retires the old context) or the rmr_context of an LMR created
 * with a remote privilege, [addr, addr+len) lies inside the bound window
 * (RMR) or the registered range (LMR), the window grants @need
 * (DAT_MEM_PRIV_REMOTE_READ_FLAG or DAT_MEM_PRIV_REMOTE_WRITE_FLAG) and
 * its PZ is the EP's.  len 0 always passes.  Returns DAT_DTO_SUCCESS with
 * *ptr, or DAT_DTO_ERR_REMOTE_ACCESS.  Never touches memory.
 */
DAT_DTO_COMPLETION_STATUS ref_mem_check_remote(struct ref_ia *ia,
					       struct ref_ep *ep,
					       DAT_RMR_CONTEXT ctx,
					       DAT_VADDR addr, DAT_VLEN len,
					       DAT_MEM_PRIV_FLAGS need,
					       void **ptr);
/* Same check as ref_mem_check_remote, but against an explicit PZ. */
DAT_DTO_COMPLETION_STATUS ref_mem_check_remote_pz(struct ref_ia *ia,
						  struct ref_pz *pz,
						  DAT_RMR_CONTEXT ctx,
						  DAT_VADDR addr, DAT_VLEN len,
						  DAT_MEM_PRIV_FLAGS need,
						  void **ptr);

/*
 * Memory registration with the IA's transport (transport.c).  A hardware
 * transport (verbs) registers [addr, addr+len) of @pz with @priv and
 * returns its handle in *@mem and the remote key in *@rkey: on such a
 * transport the rmr_context of an LMR or RMR binding IS that key (peers
 * put it in their work requests).  A software transport needs none:
 * DAT_SUCCESS with *@mem = NULL.  Lock held.
 */
DAT_RETURN ref_conn_mem_reg(struct ref_ia *ia, struct ref_pz *pz,
			    DAT_VADDR addr, DAT_VLEN len,
			    DAT_MEM_PRIV_FLAGS priv, void **mem,
			    uint32_t *rkey);
void ref_conn_mem_dereg(struct ref_ia *ia, void *mem);
/* The transport's device limits into ia->ia_attr / provider_attr (ia.c). */
void ref_conn_ia_attrs(struct ref_ia *ia);
/* A DAT SRQ is being freed: the transport drops its resources (srq.c). */
void ref_conn_srq_free(struct ref_ia *ia, struct ref_srq *srq);
/* The SRQ's available_dto_count as the provider can know it now (srq.c). */
DAT_COUNT ref_conn_srq_available(struct ref_ia *ia, const struct ref_srq *srq);

/* ---- EVD ---------------------------------------------------------------- */

struct ref_evd {
	struct ref_obj obj;
	DAT_EVD_FLAGS flags;
	DAT_COUNT qlen;
	DAT_EVENT *ring;
	void **tags;			/* ref_evd_post_ex tag per slot */
	DAT_COUNT head, count;
	bool enabled, waitable;
	bool waiter_released;		/* set_unwaitable woke the waiter: a
					 * clear_unwaitable does not undo it */
	bool overflowed;		/* overflow reported, not yet drained */
	struct ref_cno *cno;
	DAT_COUNT users;	/* EPs, PSPs, RSPs, SRQs, IAs that name it */
	DAT_COUNT waiters;	/* 0 or 1: dat_evd_wait is exclusive */
	DAT_COUNT threshold;	/* of the current waiter */
	struct ref_waiter *waiter;
	bool aborting;		/* dat_evd_free / dat_ia_close: DAT_ABORT */
	bool is_async;		/* DAT_EVD_ASYNC_FLAG */
};

/*
 * Queues an event; called with ia->lock held.  The event's evd_handle is
 * set to this EVD.  Handles overflow (the event is dropped and
 * DAT_ASYNC_ERROR_EVD_OVERFLOW goes to the async EVD once per overflow
 * episode), wakes a waiter whose threshold is met and triggers the CNO
 * when the EVD is enabled and nobody waits on it directly.  Returns false
 * on overflow (event dropped).
 */
bool ref_evd_post(struct ref_evd *evd, const DAT_EVENT *event);
/*
 * Same as ref_evd_post (false on overflow: event dropped, tag NOT kept),
 * plus:
 *  - @tag (may be NULL) is remembered with the queued event.  When a
 *    tagged event leaves the EVD, evd.c calls (conn.h)
 *        void ref_srq_event_reaped(void *tag, bool reaped);
 *    reaped=true when dat_evd_dequeue/dat_evd_wait hands it to the
 *    Consumer, reaped=false when it is discarded (dat_evd_free with events
 *    queued, dat_ia_close destroying the EVD - then ia->closing is set).
 *    dat_evd_resize keeps tags with their events.
 *  - @notify false: the event is queued but is not a notification - it
 *    does not wake a dat_evd_wait waiter nor trigger the CNO by itself
 *    (DAT_COMPLETION_UNSIGNALLED_FLAG posts, receives of an EP whose recv
 *    completion flags are SOLICITED_WAIT matched by a non-solicited Send).
 *    A waiter that wakes for another reason, times out or enters later
 *    sees it.
 * ref_evd_post(evd, ev) == ref_evd_post_ex(evd, ev, NULL, true).
 */
bool ref_evd_post_ex(struct ref_evd *evd, const DAT_EVENT *event, void *tag,
		     bool notify);

/* Convenience for DTO completions (notification). */
bool ref_evd_post_dto(struct ref_evd *evd, DAT_EP_HANDLE ep,
		      DAT_DTO_COOKIE cookie, DAT_DTO_COMPLETION_STATUS status,
		      DAT_VLEN length);

/* ---- CNO ---------------------------------------------------------------- */

struct ref_cno {
	struct ref_obj obj;
	DAT_OS_WAIT_PROXY_AGENT agent;
	DAT_COUNT users;	/* EVDs attached */
	struct ref_evd *triggered;	/* pending trigger, for cno_wait */
	DAT_COUNT waiters;
	struct ref_list waiter_list;	/* struct ref_waiter */
};

/* Called by ref_evd_post when an enabled EVD with a CNO gets an event. */
void ref_cno_trigger(struct ref_cno *cno, struct ref_evd *evd);
/*
 * Unblocks every waiter (and the agent) with a NULL EVD: the CNO lost its
 * last EVD through dat_evd_free, or the IA is being closed.
 */
void ref_cno_release_waiters(struct ref_cno *cno);

/* ---- time --------------------------------------------------------------- */

/* Absolute CLOCK_MONOTONIC deadline for a DAT_TIMEOUT (µs; INFINITE). */
struct timespec ref_deadline(DAT_TIMEOUT timeout);
/* True when the CLOCK_MONOTONIC deadline has passed. */
bool ref_deadline_passed(const struct timespec *deadline);
/* pthread_cond_timedwait on CLOCK_MONOTONIC; returns ETIMEDOUT or 0. */
int ref_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock,
		  const struct timespec *deadline, bool infinite);
void ref_cond_init(pthread_cond_t *cond);

/* ---- provider records (provider.c) ---------------------------------------- */

/* What dat_provider_init got for one IA name (one dat.conf line). */
enum ref_transport_kind {
	REF_TRANSPORT_SOCK,
	REF_TRANSPORT_VERBS,
};

struct ref_instance {
	enum ref_transport_kind kind;
	char arg[DAT_NAME_MAX_LENGTH];	/* bind address / device, may be "" */
};

/*
 * Parses dat.conf instance data: "sock:<bind address>" (address may be
 * empty: 127.0.0.1), "verbs:<device>" (device required); NULL or "" means
 * "sock:127.0.0.1".  Returns 0, or -1 with a reason in *why.
 */
int ref_instance_parse(const char *s, struct ref_instance *out,
		       const char **why);

/*
 * Looks up the provider record registered for @name (dat_provider_init)
 * and returns its DAT_PROVIDER and instance data, or NULL.  The record
 * lives until the process exits.
 */
DAT_PROVIDER *ref_provider_find(const char *name, const char **instance_data);

/* ---- the dispatch-table functions of core (provider.c fills the table) --- */

DAT_RETURN ref_ia_open(const DAT_NAME_PTR name, DAT_COUNT async_qlen,
		       DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia);
DAT_RETURN ref_ia_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *async_evd,
			DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			DAT_PROVIDER_ATTR_MASK pr_mask,
			DAT_PROVIDER_ATTR *pr_attr);
DAT_RETURN ref_ia_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags);
DAT_RETURN ref_set_consumer_context(DAT_HANDLE h, DAT_CONTEXT context);
DAT_RETURN ref_get_consumer_context(DAT_HANDLE h, DAT_CONTEXT *context);
DAT_RETURN ref_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *type);

DAT_RETURN ref_cno_create(DAT_IA_HANDLE ia, DAT_OS_WAIT_PROXY_AGENT agent,
			  DAT_CNO_HANDLE *cno);
DAT_RETURN ref_cno_modify_agent(DAT_CNO_HANDLE cno,
				DAT_OS_WAIT_PROXY_AGENT agent);
DAT_RETURN ref_cno_query(DAT_CNO_HANDLE cno, DAT_CNO_PARAM_MASK mask,
			 DAT_CNO_PARAM *param);
DAT_RETURN ref_cno_free(DAT_CNO_HANDLE cno);
DAT_RETURN ref_cno_wait(DAT_CNO_HANDLE cno, DAT_TIMEOUT timeout,
			DAT_EVD_HANDLE *evd);

DAT_RETURN ref_evd_create(DAT_IA_HANDLE ia, DAT_COUNT qlen, DAT_CNO_HANDLE cno,
			  DAT_EVD_FLAGS flags, DAT_EVD_HANDLE *evd);
DAT_RETURN ref_evd_query(DAT_EVD_HANDLE evd, DAT_EVD_PARAM_MASK mask,
			 DAT_EVD_PARAM *param);
DAT_RETURN ref_evd_modify_cno(DAT_EVD_HANDLE evd, DAT_CNO_HANDLE cno);
DAT_RETURN ref_evd_enable(DAT_EVD_HANDLE evd);
DAT_RETURN ref_evd_disable(DAT_EVD_HANDLE evd);
DAT_RETURN ref_evd_wait(DAT_EVD_HANDLE evd, DAT_TIMEOUT timeout,
			DAT_COUNT threshold, DAT_EVENT *event,
			DAT_COUNT *nmore);
DAT_RETURN ref_evd_resize(DAT_EVD_HANDLE evd, DAT_COUNT qlen);
DAT_RETURN ref_evd_post_se(DAT_EVD_HANDLE evd, const DAT_EVENT *event);
DAT_RETURN ref_evd_dequeue(DAT_EVD_HANDLE evd, DAT_EVENT *event);
DAT_RETURN ref_evd_free(DAT_EVD_HANDLE evd);
DAT_RETURN ref_evd_set_unwaitable(DAT_EVD_HANDLE evd);
DAT_RETURN ref_evd_clear_unwaitable(DAT_EVD_HANDLE evd);

DAT_RETURN ref_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE type,
			  DAT_REGION_DESCRIPTION region, DAT_VLEN length,
			  DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			  DAT_LMR_HANDLE *lmr, DAT_LMR_CONTEXT *lmr_context,
			  DAT_RMR_CONTEXT *rmr_context,
			  DAT_VLEN *registered_size,
			  DAT_VADDR *registered_address);
DAT_RETURN ref_lmr_query(DAT_LMR_HANDLE lmr, DAT_LMR_PARAM_MASK mask,
			 DAT_LMR_PARAM *param);
DAT_RETURN ref_lmr_free(DAT_LMR_HANDLE lmr);
DAT_RETURN ref_lmr_sync_rdma_read(DAT_IA_HANDLE ia,
				  const DAT_LMR_TRIPLET *segs, DAT_VLEN nsegs);
DAT_RETURN ref_lmr_sync_rdma_write(DAT_IA_HANDLE ia,
				   const DAT_LMR_TRIPLET *segs, DAT_VLEN nsegs);

DAT_RETURN ref_rmr_create(DAT_PZ_HANDLE pz, DAT_RMR_HANDLE *rmr);
DAT_RETURN ref_rmr_query(DAT_RMR_HANDLE rmr, DAT_RMR_PARAM_MASK mask,
			 DAT_RMR_PARAM *param);
DAT_RETURN ref_rmr_bind(DAT_RMR_HANDLE rmr, const DAT_LMR_TRIPLET *triplet,
			DAT_MEM_PRIV_FLAGS priv, DAT_EP_HANDLE ep,
			DAT_RMR_COOKIE cookie, DAT_COMPLETION_FLAGS flags,
			DAT_RMR_CONTEXT *rmr_context);
DAT_RETURN ref_rmr_free(DAT_RMR_HANDLE rmr);

DAT_RETURN ref_pz_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE *pz);
DAT_RETURN ref_pz_query(DAT_PZ_HANDLE pz, DAT_PZ_PARAM_MASK mask,
			DAT_PZ_PARAM *param);
DAT_RETURN ref_pz_free(DAT_PZ_HANDLE pz);

/* ---- internals shared between core files ---------------------------------- */

/* lmr.c: context generator and map (lock held). */
enum ref_ctx_kind {
	REF_CTX_LMR = 0,	/* lmr_context of an LMR */
	REF_CTX_LMR_RMR = 1,	/* rmr_context of an LMR */
	REF_CTX_RMR = 2,	/* rmr_context of an RMR binding */
};
void ref_ctx_init(struct ref_ia *ia);
void ref_ctx_fini(struct ref_ia *ia);
/* A new context of @kind mapped to @obj (0 if the map cannot grow). */
uint32_t ref_ctx_new(struct ref_ia *ia, enum ref_ctx_kind kind, void *obj);
/* Maps an issued context of @kind to @obj (again). */
bool ref_ctx_put(struct ref_ia *ia, uint32_t ctx, enum ref_ctx_kind kind,
		 void *obj);
/* A new context of @kind that maps to nothing (a flushed bind). */
uint32_t ref_ctx_new_dead(struct ref_ia *ia, enum ref_ctx_kind kind);
void ref_ctx_remove(struct ref_ia *ia, uint32_t ctx);
/* Object mapped to ctx if it is of @kind, else NULL. */
void *ref_ctx_find(struct ref_ia *ia, uint32_t ctx, enum ref_ctx_kind kind);
/* True if ctx was issued by this IA as @kind (whether or not still live). */
bool ref_ctx_issued(struct ref_ia *ia, uint32_t ctx, enum ref_ctx_kind kind);

/* evd.c: an EVD of @ia with nothing attached (the async EVD of open). */
DAT_RETURN ref_evd_create_locked(struct ref_ia *ia, DAT_COUNT qlen,
				 struct ref_cno *cno, DAT_EVD_FLAGS flags,
				 struct ref_evd **out);
/* evd.c: wakes the waiter with DAT_ABORT (lock held). */
void ref_evd_abort_waiter(struct ref_evd *evd);
/* cno.c: cno of an EVD goes away from under the CNO (lock held). */
void ref_cno_evd_gone(struct ref_cno *cno, struct ref_evd *evd, bool freed);

#endif /* REF_H */
