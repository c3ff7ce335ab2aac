// SPDX-License-Identifier: MIT
/*
 * handle.c - the process-wide table of live DAT objects, the handle
 * allocator, and the handle-generic entry points (dat_set_consumer_context,
 * dat_get_consumer_context, dat_get_handle_type).
 *
 * Validation never dereferences a handle that is not in the table: NULL,
 * freed, foreign and wrong-type handles give DAT_INVALID_HANDLE with the
 * subtype of the expected type.  Freed handle memory is kept (never given
 * back to malloc) with its first word still pointing at the dispatch table,
 * because libdat reads that word before the provider sees the handle.
 */
#include "ref.h"
#include "refmap.h"

#include <stdlib.h>
#include <string.h>

/*
 * In a sanitizer build a pooled block is poisoned while it waits in the
 * FIFO (all but the provider pointer libdat reads first), so a write or a
 * read through a stale pointer into a freed object is reported as ASan
 * reports one into memory given back to free().
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define POOL_UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POOL_POISON(p, n)	((void)(p), (void)(n))
#define POOL_UNPOISON(p, n)	((void)(p), (void)(n))
#endif

/* ---- allocator ------------------------------------------------------------ */

/*
 * Size classes of 64 bytes up to 8 KiB; bigger objects come from calloc
 * and go back to free (none of the provider's objects is that big).  A
 * freed block waits in a FIFO until REF_QUARANTINE more blocks of its
 * class were freed, so a stale handle does not alias a new object soon.
 */
#define REF_CLASS_SIZE	64
#define REF_CLASSES	128
#define REF_QUARANTINE	32
#define REF_HDR_MAGIC	0x52454648u	/* "REFH" */
#define REF_CLASS_BIG	0xffffu

struct ref_hdr {
	uint32_t cls;
	uint32_t magic;
	struct ref_hdr *next;	/* free FIFO link */
};

_Static_assert(sizeof(struct ref_hdr) == 16, "keeps objects 16-aligned");

static struct {
	pthread_mutex_t lock;
	struct ref_hdr *head[REF_CLASSES], *tail[REF_CLASSES];
	unsigned int nfree[REF_CLASSES];
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

void *ref_obj_alloc(size_t size)
{
	struct ref_hdr *h = NULL;
	size_t cls;

	if (!size)
		size = 1;
	cls = (size + REF_CLASS_SIZE - 1) / REF_CLASS_SIZE;
	if (cls >= REF_CLASSES) {
		h = calloc(1, sizeof(*h) + size);
		if (!h)
			return NULL;
		h->cls = REF_CLASS_BIG;
		h->magic = REF_HDR_MAGIC;
		return h + 1;
	}
	pthread_mutex_lock(&pool.lock);
	if (pool.nfree[cls] > (REF_QUARANTINE)) {
		h = pool.head[cls];
		pool.head[cls] = h->next;
		if (!pool.head[cls])
			pool.tail[cls] = NULL;
		pool.nfree[cls]--;
	}
	pthread_mutex_unlock(&pool.lock);
	if (h) {
		POOL_UNPOISON(h + 1, cls * REF_CLASS_SIZE);
		memset(h + 1, 0, cls * REF_CLASS_SIZE);
	} else {
		h = calloc(1, sizeof(*h) + cls * REF_CLASS_SIZE);
		if (!h)
			return NULL;
	}
	h->cls = (uint32_t)cls;
	h->magic = REF_HDR_MAGIC;
	h->next = NULL;
	return h + 1;
}

void ref_obj_free(void *obj)
{
	struct ref_hdr *h;
	size_t cls;

	if (!obj)
		return;
	h = (struct ref_hdr *)obj - 1;
	if (h->magic != REF_HDR_MAGIC)
		return;		/* not ours: leak rather than corrupt */
	if (h->cls == REF_CLASS_BIG) {
		h->magic = 0;
		free(h);
		return;
	}
	cls = h->cls;
	/* Keep the provider pointer (first word); clear the rest. */
	memset((char *)obj + sizeof(DAT_PROVIDER *), 0,
	       cls * REF_CLASS_SIZE - sizeof(DAT_PROVIDER *));
	POOL_POISON((char *)obj + sizeof(DAT_PROVIDER *),
		    cls * REF_CLASS_SIZE - sizeof(DAT_PROVIDER *));
	pthread_mutex_lock(&pool.lock);
	h->next = NULL;
	if (pool.tail[cls])
		pool.tail[cls]->next = h;
	else
		pool.head[cls] = h;
	pool.tail[cls] = h;
	pool.nfree[cls]++;
	pthread_mutex_unlock(&pool.lock);
}

/* ---- the live table ---------------------------------------------------------- */

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pins_cond = PTHREAD_COND_INITIALIZER;
static struct ref_map table;	/* key: object address; value: the object */

static struct ref_obj *table_find(DAT_HANDLE h)
{
	return h ? ref_map_get(&table, (uint64_t)(uintptr_t)h) : NULL;
}

bool ref_obj_register(struct ref_obj *obj, DAT_HANDLE_TYPE type,
		      struct ref_ia *ia)
{
	bool ok;

	obj->provider = ia->obj.provider;
	obj->type = type;
	obj->ia = ia;
	ref_list_init(&obj->ia_link);
	pthread_mutex_lock(&table_lock);
	ok = ref_map_put(&table, (uint64_t)(uintptr_t)obj, obj);
	pthread_mutex_unlock(&table_lock);
	if (!ok)
		return false;
	if (&ia->obj != obj) {
		ref_list_add_tail(&ia->objects, &obj->ia_link);
		if ((unsigned int)type < REF_HANDLE_TYPES)
			ia->count[type]++;
	}
	return true;
}

void ref_obj_unregister(struct ref_obj *obj)
{
	struct ref_ia *ia = obj->ia;

	pthread_mutex_lock(&table_lock);
	ref_map_del(&table, (uint64_t)(uintptr_t)obj);
	if (ia && &ia->obj == obj)
		__atomic_store_n(&ia->dead, true, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&table_lock);
	if (ia && &ia->obj != obj) {
		ref_list_del(&obj->ia_link);
		if ((unsigned int)obj->type < REF_HANDLE_TYPES)
			ia->count[obj->type]--;
	}
}

bool ref_obj_live(const void *obj)
{
	bool live;

	pthread_mutex_lock(&table_lock);
	live = table_find((DAT_HANDLE)obj) != NULL;
	pthread_mutex_unlock(&table_lock);
	return live;
}

DAT_RETURN_SUBTYPE ref_invalid_handle_subtype(DAT_HANDLE_TYPE type)
{
	switch (type) {
	case DAT_HANDLE_TYPE_CR:	return DAT_INVALID_HANDLE_CR;
	case DAT_HANDLE_TYPE_EP:	return DAT_INVALID_HANDLE_EP;
	case DAT_HANDLE_TYPE_IA:	return DAT_INVALID_HANDLE_IA;
	case DAT_HANDLE_TYPE_LMR:	return DAT_INVALID_HANDLE_LMR;
	case DAT_HANDLE_TYPE_PSP:	return DAT_INVALID_HANDLE_PSP;
	case DAT_HANDLE_TYPE_PZ:	return DAT_INVALID_HANDLE_PZ;
	case DAT_HANDLE_TYPE_RMR:	return DAT_INVALID_HANDLE_RMR;
	case DAT_HANDLE_TYPE_RSP:	return DAT_INVALID_HANDLE_RSP;
	case DAT_HANDLE_TYPE_CNO:	return DAT_INVALID_HANDLE_CNO;
	case DAT_HANDLE_TYPE_SRQ:	return DAT_INVALID_HANDLE_SRQ;
	case DAT_HANDLE_TYPE_EVD:	/* no type-wide subtype, see ref.h */
	default:			return DAT_INVALID_HANDLE1;
	}
}

/* The error for a handle that names no object of @type. */
static DAT_RETURN bad_handle(DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE subtype)
{
	(void)type;	/* the subtype says which kind was refused */
	return REF_ERR(DAT_INVALID_HANDLE, subtype);
}

static bool type_ok(const struct ref_obj *obj, DAT_HANDLE_TYPE type)
{
	return type == REF_HANDLE_TYPE_ANY || obj->type == type;
}

DAT_RETURN ref_obj_lookup_sub(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			      DAT_RETURN_SUBTYPE subtype,
			      struct ref_obj **out)
{
	struct ref_obj *obj;

	pthread_mutex_lock(&table_lock);
	obj = table_find(handle);
	if (obj && !type_ok(obj, type))
		obj = NULL;
	pthread_mutex_unlock(&table_lock);
	if (!obj)
		return bad_handle(type, subtype);
	*out = obj;
	return DAT_SUCCESS;
}

DAT_RETURN ref_obj_lookup(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			  struct ref_obj **out)
{
	return ref_obj_lookup_sub(handle, type,
				  ref_invalid_handle_subtype(type), out);
}

DAT_RETURN ref_obj_acquire(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			   DAT_RETURN_SUBTYPE subtype, struct ref_obj **out)
{
	struct ref_obj *obj;
	struct ref_ia *ia;

	if (!subtype)
		subtype = ref_invalid_handle_subtype(type);
	pthread_mutex_lock(&table_lock);
	obj = table_find(handle);
	if (!obj || !type_ok(obj, type) ||
	    obj->ia->dead) {
		pthread_mutex_unlock(&table_lock);
		return bad_handle(type, subtype);
	}
	ia = obj->ia;
	__atomic_add_fetch(&ia->pins, 1, __ATOMIC_SEQ_CST);
	if (ref_ia_trylock(ia)) {
		/* locked while still found: nothing can have freed it */
		pthread_mutex_unlock(&table_lock);
		*out = obj;
		return DAT_SUCCESS;
	}
	pthread_mutex_unlock(&table_lock);

	ref_ia_lock(ia);
	/* It may have been freed (and its memory reused) while we waited. */
	pthread_mutex_lock(&table_lock);
	obj = table_find(handle);
	if (!obj || !type_ok(obj, type) || obj->ia != ia ||
	    ia->dead)
		obj = NULL;
	pthread_mutex_unlock(&table_lock);
	if (!obj) {
		ref_ia_release(ia);
		return bad_handle(type, subtype);
	}
	*out = obj;
	return DAT_SUCCESS;
}

/* ref_obj_acquire of an IA handle without waiting for its lock (ref.h). */
int ref_ia_try_acquire(DAT_IA_HANDLE handle, struct ref_ia **out)
{
	struct ref_obj *obj;
	struct ref_ia *ia;
	int r = -1;

	pthread_mutex_lock(&table_lock);
	obj = table_find(handle);
	if (obj && type_ok(obj, DAT_HANDLE_TYPE_IA) && !obj->ia->dead) {
		ia = obj->ia;
		r = 1;
		if (ref_ia_trylock(ia)) {
			__atomic_add_fetch(&ia->pins, 1, __ATOMIC_SEQ_CST);
			*out = ia;
			r = 0;
		}
	}
	pthread_mutex_unlock(&table_lock);
	return r;
}

/*
 * Unpinning takes no lock on the data path.  Only ref_ia_drain_pins waits
 * for pins: the closing thread, holding one pin itself, waits under
 * table_lock until that is the last.  So whoever leaves exactly one pin
 * behind wakes it (under table_lock: after the drainer is asleep, never
 * lost), without touching the IA again - once the pins are down to the
 * closer's own, the IA may be gone.
 */
void ref_ia_release(struct ref_ia *ia)
{
	ref_ia_unlock(ia);
	if (__atomic_sub_fetch(&ia->pins, 1, __ATOMIC_SEQ_CST) == 1) {
		pthread_mutex_lock(&table_lock);
		pthread_cond_broadcast(&pins_cond);
		pthread_mutex_unlock(&table_lock);
	}
}

void ref_obj_release(struct ref_obj *obj)
{
	ref_ia_release(obj->ia);
}

/*
 * dat_ia_close: the IA is unregistered (dead), its lock released; wait
 * until only the closing thread's own pin is left, then drop that too.
 */
void ref_ia_drain_pins(struct ref_ia *ia)
{
	pthread_mutex_lock(&table_lock);
	while (__atomic_load_n(&ia->pins, __ATOMIC_SEQ_CST) > 1)
		pthread_cond_wait(&pins_cond, &table_lock);
	__atomic_store_n(&ia->pins, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&table_lock);
}

/* ---- dat_set_consumer_context / dat_get_consumer_context ------------------- */

/*
 * dat_set_consumer_context.3dat: any handle type; the context is opaque
 * and never checked (so DAT_INVALID_PARAMETER cannot happen here); NULL
 * disassociates.
 */
DAT_RETURN ref_set_consumer_context(DAT_HANDLE h, DAT_CONTEXT context)
{
	struct ref_obj *obj;
	DAT_RETURN rc;

	rc = ref_obj_acquire(h, REF_HANDLE_TYPE_ANY, DAT_INVALID_HANDLE1, &obj);
	if (rc)
		return rc;
	obj->context = context;
	obj->context_set = context.as_ptr != NULL;
	ref_obj_release(obj);
	return DAT_SUCCESS;
}

/*
 * dat_get_consumer_context.3dat: returns what was set last (a NULL
 * context when none was set).  A NULL result pointer is an invalid
 * second argument.
 */
DAT_RETURN ref_get_consumer_context(DAT_HANDLE h, DAT_CONTEXT *context)
{
	struct ref_obj *obj;
	DAT_RETURN rc;

	rc = ref_obj_acquire(h, REF_HANDLE_TYPE_ANY, DAT_INVALID_HANDLE1, &obj);
	if (rc)
		return rc;
	if (!context) {
		ref_obj_release(obj);
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	*context = obj->context;
	ref_obj_release(obj);
	return DAT_SUCCESS;
}

/* dat_get_handle_type.3dat. */
DAT_RETURN ref_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *type)
{
	struct ref_obj *obj;
	DAT_RETURN rc;

	rc = ref_obj_acquire(h, REF_HANDLE_TYPE_ANY, DAT_INVALID_HANDLE1, &obj);
	if (rc)
		return rc;
	if (!type) {
		ref_obj_release(obj);
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	*type = obj->type;
	ref_obj_release(obj);
	return DAT_SUCCESS;
}

bool ref_handles_idle(void)
{
	return table.used == 0;
}

/*
 * When the registry unloads the library (libdat2 dlcloses its providers at
 * exit), no stale handle can reach this code any more: the quarantine has
 * done its job and goes back to malloc, with the live table.  Not while
 * objects live: a process may exit with IAs open and their threads running.
 */
__attribute__((destructor)) static void handles_release(void)
{
	if (!ref_handles_idle())
		return;
	ref_map_fini(&table);
	for (size_t cls = 0; cls < REF_CLASSES; cls++) {
		while (pool.head[cls]) {
			struct ref_hdr *h = pool.head[cls];

			pool.head[cls] = h->next;
			POOL_UNPOISON(h + 1, cls * REF_CLASS_SIZE);
			free(h);
		}
		pool.tail[cls] = NULL;
		pool.nfree[cls] = 0;
	}
}
