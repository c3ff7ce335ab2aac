/* SPDX-License-Identifier: MIT */
/*
 * ref.h - the reference provider's object model, shared by every file of
 * core/ and by the transports.
 *
 * Ownership (two people write the provider side by side):
 *   this file, ia.c pz.c lmr.c rmr.c evd.c cno.c handle.c provider.c
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
 * Waiters (evd_wait, cno_wait) sleep on condition variables tied to
 * ia->lock.  The transport's progress engine delivers into core with the
 * lock held.  One lock keeps the DAT invariants (counts, states,
 * watermarks) trivially consistent; the provider is not a scalability
 * target.
 */
#ifndef REF_H
#define REF_H

#include <dat/udat.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct ref_transport;
struct ref_ep;
struct ref_srq;
struct ref_psp;
struct ref_rsp;
struct ref_cr;

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

/* ---- handles ---------------------------------------------------------- */

/*
 * Every DAT handle the provider hands out points at a struct that starts
 * with struct ref_obj, whose first member is the DAT_PROVIDER pointer
 * libdat dispatches through (DAT_HANDLE_TO_PROVIDER).
 *
 * Handles are validated against a process-wide table of live objects
 * (handle.c) before anything is dereferenced, so NULL, freed, foreign or
 * wrong-type handles give DAT_INVALID_HANDLE and never a crash.
 */
struct ref_obj {
	DAT_PROVIDER *provider;		/* must stay first */
	DAT_HANDLE_TYPE type;
	struct ref_ia *ia;		/* owning IA; the IA itself for an IA */
	DAT_CONTEXT context;		/* dat_set/get_consumer_context */
	bool context_set;
	struct ref_list ia_link;	/* on ia->objects */
	/* Tears the object down for an abrupt dat_ia_close (lock held). */
	void (*destroy)(struct ref_obj *obj);
};

/*
 * Adds obj to the live table and to the tail of ia->objects; sets
 * provider/type/ia.  Abrupt close destroys objects newest first, so an
 * object never outlives one it was created from.
 */
void ref_obj_register(struct ref_obj *obj, DAT_HANDLE_TYPE type,
		      struct ref_ia *ia);
/* Removes obj from the live table and ia->objects (memory stays caller's). */
void ref_obj_unregister(struct ref_obj *obj);
/*
 * Looks a handle up without taking any IA lock.  Returns DAT_SUCCESS and
 * *out, or DAT_INVALID_HANDLE | subtype (subtype picked by the expected
 * type: DAT_INVALID_HANDLE_EP for REF expecting an EP, and so on).
 */
DAT_RETURN ref_obj_lookup(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			  struct ref_obj **out);
/* The DAT_INVALID_HANDLE_* subtype that names a handle of this type. */
DAT_RETURN_SUBTYPE ref_invalid_handle_subtype(DAT_HANDLE_TYPE type);

#define REF_ERR(type, subtype) \
	((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (subtype)))

/* ---- IA ----------------------------------------------------------------- */

struct ref_ia {
	struct ref_obj obj;
	pthread_mutex_t lock;
	char name[DAT_NAME_MAX_LENGTH];
	struct ref_transport *transport;
	struct sockaddr_storage address;	/* what ia_query reports */
	struct ref_evd *async_evd;
	bool async_evd_created_by_open;	/* freed by dat_ia_close */
	struct ref_list objects;	/* every child object, for close */
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR provider_attr;
	unsigned int next_lmr_context;	/* key generator for LMR/RMR */
	bool closing;
};

/* Posts an unaffiliated or affiliated asynchronous event to the IA's async EVD. */
void ref_ia_post_async(struct ref_ia *ia, DAT_EVENT_NUMBER number,
		       DAT_HANDLE object, DAT_COUNT reason);

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
	DAT_VLEN length;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_VADDR registered_address;
	DAT_VLEN registered_size;
	DAT_COUNT users;	/* RMRs bound into it, LMRs made from it */
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
};

/*
 * Checks one local segment (a DAT_LMR_TRIPLET of a post) against the LMRs
 * of the IA: the lmr_context names an LMR of this IA, the segment lies
 * inside its registered range, the LMR's PZ is @pz, and it grants @need.
 * segment_length 0 always passes.  Returns DAT_SUCCESS, or
 * DAT_INVALID_PARAMETER (unknown context / outside the LMR),
 * DAT_PROTECTION_VIOLATION (other PZ) or DAT_PRIVILEGES_VIOLATION, each
 * with a fitting subtype.  On success *ptr is where the bytes live.
 */
DAT_RETURN ref_mem_check_local(struct ref_ia *ia, struct ref_pz *pz,
			       const DAT_LMR_TRIPLET *seg,
			       DAT_MEM_PRIV_FLAGS need, void **ptr);
/*
 * Checks a remote access arriving at this IA through @ep: the rmr_context
 * names an RMR bound on... (window rules per dat_rmr_bind) or an LMR
 * exported with remote privileges, [addr, addr+len) lies inside the
 * window, the window grants @need (DAT_MEM_PRIV_REMOTE_READ_FLAG or
 * DAT_MEM_PRIV_REMOTE_WRITE_FLAG) and the PZ matches the EP's.  Returns
 * DAT_DTO_SUCCESS with *ptr, or the DTO completion status the initiator
 * must see (DAT_DTO_ERR_REMOTE_ACCESS).  Never touches memory outside.
 */
DAT_DTO_COMPLETION_STATUS ref_mem_check_remote(struct ref_ia *ia,
					       struct ref_ep *ep,
					       DAT_RMR_CONTEXT ctx,
					       DAT_VADDR addr, DAT_VLEN len,
					       DAT_MEM_PRIV_FLAGS need,
					       void **ptr);

/* ---- EVD ---------------------------------------------------------------- */

struct ref_evd {
	struct ref_obj obj;
	DAT_EVD_FLAGS flags;
	DAT_COUNT qlen;
	DAT_EVENT *ring;
	DAT_COUNT head, count;
	bool enabled, waitable;
	bool overflowed;
	struct ref_cno *cno;
	DAT_COUNT users;	/* EPs, PSPs, RSPs, SRQs that name it */
	DAT_COUNT waiters;
	DAT_COUNT threshold;	/* of the current waiter */
	pthread_cond_t cond;
	bool is_async;
};

/*
 * Queues an event; called with ia->lock held.  Handles overflow (reported
 * on the async EVD), wakes waiters whose threshold is met and notifies the
 * CNO when the EVD is enabled.  Returns false on overflow (event dropped).
 */
bool ref_evd_post(struct ref_evd *evd, const DAT_EVENT *event);

/* Convenience for DTO completions. */
bool ref_evd_post_dto(struct ref_evd *evd, DAT_EP_HANDLE ep,
		      DAT_DTO_COOKIE cookie, DAT_DTO_COMPLETION_STATUS status,
		      DAT_VLEN length);

/* ---- CNO ---------------------------------------------------------------- */

struct ref_cno {
	struct ref_obj obj;
	DAT_OS_WAIT_PROXY_AGENT agent;
	DAT_COUNT users;	/* EVDs attached */
	struct ref_evd *triggered;	/* EVD that fired, for cno_wait */
	DAT_COUNT waiters;
	pthread_cond_t cond;
};

/* Called by ref_evd_post when an enabled EVD with a CNO gets an event. */
void ref_cno_trigger(struct ref_cno *cno, struct ref_evd *evd);

/* ---- time --------------------------------------------------------------- */

/* Absolute CLOCK_MONOTONIC deadline for a DAT_TIMEOUT (µs; INFINITE). */
struct timespec ref_deadline(DAT_TIMEOUT timeout);
/* pthread_cond_timedwait on CLOCK_MONOTONIC; returns ETIMEDOUT or 0. */
int ref_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock,
		  const struct timespec *deadline, bool infinite);
void ref_cond_init(pthread_cond_t *cond);

/* ---- mutants (proof that the suite can fail) ----------------------------- */

/*
 * True when the run-time mutant switch (environment DATREF_MUTANT, read
 * once) names @id.  Costs one pointer compare when no mutant is set.
 * Mutant ids and the clause each one breaks are listed in mutants.c.
 */
bool ref_mutant(const char *id);

/* ---- the dispatch table -------------------------------------------------- */

extern DAT_PROVIDER ref_provider;

#endif /* REF_H */
