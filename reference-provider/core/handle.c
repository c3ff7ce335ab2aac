// SPDX-License-Identifier: MIT
/*
 * handle.c - the handle allocator (slabs of slots that say whether their
 * object is live, and of which type), handle validation and IA pins, and
 * the handle-generic entry points (dat_set_consumer_context,
 * dat_get_consumer_context, dat_get_handle_type).
 *
 * Validation reads nothing at an address that is not a slot of one of our
 * slabs, and takes no global lock: NULL, freed, foreign and wrong-type
 * handles give DAT_INVALID_HANDLE with the subtype of the expected type.
 * Freed handle memory is kept (never given back to the system) with its
 * first word still pointing at the dispatch table, because libdat reads
 * that word before the provider sees the handle.
 */
#include "ref.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * In a sanitizer build a pooled block is poisoned while it waits in the
 * FIFO (all but the provider pointer libdat reads first), so a write or a
 * read through a stale pointer into a freed object is reported as ASan
 * reports one into memory given back to free().
 */
#if defined(__SANITIZE_ADDRESS__)	/* gcc */
#define REF_ASAN 1
#elif defined(__has_feature)		/* clang (the fuzzers) */
#if __has_feature(address_sanitizer)
#define REF_ASAN 1
#endif
#endif
#ifdef REF_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#define POOL_POISON(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define POOL_UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#define SLAB_SCANNED(p, n)	__lsan_register_root_region(p, n)
#define SLAB_UNSCANNED(p, n)	__lsan_unregister_root_region(p, n)
#else
#define POOL_POISON(p, n)	((void)(p), (void)(n))
#define POOL_UNPOISON(p, n)	((void)(p), (void)(n))
#define SLAB_SCANNED(p, n)	((void)(p), (void)(n))
#define SLAB_UNSCANNED(p, n)	((void)(p), (void)(n))
#endif

/* ---- slabs ------------------------------------------------------------------ */

/*
 * Every handle object lives in a slot of a slab: 64 KiB of memory,
 * 64 KiB-aligned, cut into slots of one power-of-two size (a 32-byte
 * header, then the object).  Slabs are never given back while the library
 * is loaded, so a slot stays readable whatever happens to its object, and
 * a map from 64 KiB granules to slot sizes, written under pool.lock and
 * read without any lock, says whether an address is ours before anything
 * at it is read.  That is how a handle is checked without a global lock:
 * the granule map, then the slot boundary, then the live state and type in
 * the slot's header.  A freed slot waits in its class's FIFO until
 * REF_QUARANTINE more slots of the class were freed, so a stale handle
 * does not alias a new object soon.
 */
#define REF_SLAB_SHIFT	16
#define REF_SLAB_SIZE	((size_t)1 << REF_SLAB_SHIFT)
#define REF_SLOT_SHIFT	6	/* class c: slots of 64 << c bytes */
#define REF_CLASSES	9	/* up to 16 KiB (the IA, the biggest: ~2.5) */
#define REF_QUARANTINE	32
#define REF_SLOT_LIVE	0x100u		/* hdr.state: live | its DAT_HANDLE_TYPE */

struct ref_hdr {
	uint32_t state;		/* 0 free, else REF_SLOT_LIVE | type (atomic) */
	uint32_t pins;		/* of an IA slot: ref_obj_acquire holders */
	struct ref_ia *ia;	/* the object's IA while live (atomic) */
	struct ref_hdr *next;	/* free FIFO link */
	uint64_t cls;
};

_Static_assert(sizeof(struct ref_hdr) == 32, "keeps objects 16-aligned");

/* Granule (address >> REF_SLAB_SHIFT, 48-bit addresses) -> slot size: 12/10/10 bits. */
#define MAP_L1	12
#define MAP_L2	10
#define MAP_L3	10
struct map_leaf { uint32_t slot_size[1u << MAP_L3]; };
struct map_mid { struct map_leaf *leaf[1u << MAP_L2]; };
static struct map_mid *granules[1u << MAP_L1];

static struct {
	pthread_mutex_t lock;
	struct ref_hdr *head[REF_CLASSES], *tail[REF_CLASSES];	/* freed */
	unsigned int nfree[REF_CLASSES];
	struct ref_hdr *fresh[REF_CLASSES];	/* never used yet */
	struct owned {
		void *mem;
		bool slab;	/* mapped, REF_SLAB_SIZE */
	} *owned;			/* slabs and map nodes, for the destructor */
	size_t nowned, cap;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t slot_size(size_t cls)
{
	return (size_t)1 << (REF_SLOT_SHIFT + cls);
}

/*
 * Inlined into the data path's handle check (ref_obj_acquire): a call
 * there costs as much as the check.
 */
#define HOT static inline __attribute__((always_inline))

/* The header of the slot whose object @h is, or NULL: @h is not ours. */
HOT struct ref_hdr *hdr_of(const void *h)
{
	uintptr_t addr = (uintptr_t)h;
	uintptr_t g = addr >> REF_SLAB_SHIFT;
	const struct map_mid *mid;
	const struct map_leaf *leaf;
	uint32_t slot;

	if (g >> (MAP_L1 + MAP_L2 + MAP_L3))
		return NULL;
	mid = __atomic_load_n(&granules[g >> (MAP_L2 + MAP_L3)],
			      __ATOMIC_ACQUIRE);
	if (!mid)
		return NULL;
	leaf = __atomic_load_n(&mid->leaf[(g >> MAP_L3) & ((1u << MAP_L2) - 1)],
			       __ATOMIC_ACQUIRE);
	if (!leaf)
		return NULL;
	slot = __atomic_load_n(&leaf->slot_size[g & ((1u << MAP_L3) - 1)],
			       __ATOMIC_ACQUIRE);
	/* slots are aligned to their size: the object is 32 bytes into one */
	if (!slot || (addr & (slot - 1)) != sizeof(struct ref_hdr))
		return NULL;
	return (struct ref_hdr *)(addr - sizeof(struct ref_hdr));
}

/*
 * Zeroed memory that stays until the library is unloaded (handles_release):
 * @size bytes from malloc, or with @slab a slab of its own mapping,
 * REF_SLAB_SIZE-aligned.  Slabs are mapped, not taken from malloc, so that
 * they leave malloc's arenas as they were: a consumer that measures its
 * heap across cycles (dat_ia_close.no_memory_growth) sees malloc's use, and
 * 64 KiB-aligned blocks cut out of the heap moved it by a few bytes a cycle.
 * pool.lock held.
 */
static void *owned_alloc(size_t size, bool slab)
{
	void *mem;

	if (pool.nowned == pool.cap) {
		size_t cap = pool.cap ? 2 * pool.cap : 16;
		struct owned *grow = realloc(pool.owned, cap * sizeof(*grow));

		if (!grow)
			return NULL;
		pool.owned = grow;
		pool.cap = cap;
	}
	if (slab) {
		/* twice the size, then the unaligned ends unmapped */
		char *map = mmap(NULL, 2 * REF_SLAB_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t head;

		if (map == MAP_FAILED)
			return NULL;
		head = -(uintptr_t)map & (REF_SLAB_SIZE - 1);
		if (head)
			munmap(map, head);
		munmap(map + head + REF_SLAB_SIZE, REF_SLAB_SIZE - head);
		mem = map + head;
		/* LeakSanitizer looks for pointers in malloc's blocks, not in mappings */
		SLAB_SCANNED(mem, REF_SLAB_SIZE);
	} else {
		mem = calloc(1, size);
		if (!mem)
			return NULL;
	}
	pool.owned[pool.nowned++] = (struct owned){ mem, slab };
	return mem;
}

/* Enters the slab at @base, of slots of @slot bytes, in the map.  pool.lock held. */
static bool map_slab(void *base, size_t slot)
{
	uintptr_t g = (uintptr_t)base >> REF_SLAB_SHIFT;
	struct map_mid **midp = &granules[g >> (MAP_L2 + MAP_L3)];
	struct map_leaf **leafp;

	if (g >> (MAP_L1 + MAP_L2 + MAP_L3))
		return false;
	if (!*midp) {
		struct map_mid *mid = owned_alloc(sizeof(*mid), false);

		if (!mid)
			return false;
		__atomic_store_n(midp, mid, __ATOMIC_RELEASE);
	}
	leafp = &(*midp)->leaf[(g >> MAP_L3) & ((1u << MAP_L2) - 1)];
	if (!*leafp) {
		struct map_leaf *leaf = owned_alloc(sizeof(*leaf), false);

		if (!leaf)
			return false;
		__atomic_store_n(leafp, leaf, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&(*leafp)->slot_size[g & ((1u << MAP_L3) - 1)],
			 (uint32_t)slot, __ATOMIC_RELEASE);
	return true;
}

/* A new slab of class @cls, its slots on the class's fresh list.  pool.lock held. */
static bool slab_grow(size_t cls)
{
	size_t slot = slot_size(cls);
	char *mem = owned_alloc(REF_SLAB_SIZE, true);

	if (!mem || !map_slab(mem, slot))
		return false;
	for (size_t off = REF_SLAB_SIZE; off > 0;) {
		struct ref_hdr *h = (struct ref_hdr *)(mem + (off -= slot));

		h->cls = cls;
		h->next = pool.fresh[cls];
		pool.fresh[cls] = h;
		/* as a freed slot: only the provider pointer readable */
		POOL_POISON((char *)(h + 1) + sizeof(DAT_PROVIDER *),
			    slot - sizeof(*h) - sizeof(DAT_PROVIDER *));
	}
	return true;
}

/*
 * A freed slot is handed out again once REF_QUARANTINE more of its class
 * were freed after it; until then a fresh slot is taken (a new slab when
 * none is left).  pool.lock held.
 */
static struct ref_hdr *slot_take(size_t cls)
{
	struct ref_hdr *h;

	if (pool.nfree[cls] > (REF_QUARANTINE)) {
		h = pool.head[cls];
		pool.head[cls] = h->next;
		if (!pool.head[cls])
			pool.tail[cls] = NULL;
		pool.nfree[cls]--;
		return h;
	}
	if (!pool.fresh[cls] && !slab_grow(cls))
		return NULL;
	h = pool.fresh[cls];
	pool.fresh[cls] = h->next;
	return h;
}

void *ref_obj_alloc(size_t size)
{
	struct ref_hdr *h;
	size_t cls = 0;

	while (cls < REF_CLASSES && slot_size(cls) < sizeof(*h) + size)
		cls++;
	if (cls == REF_CLASSES || ref_obj_alloc_fails())
		return NULL;	/* too big for any class, or out of memory */
	pthread_mutex_lock(&pool.lock);
	h = slot_take(cls);
	pthread_mutex_unlock(&pool.lock);
	if (!h)
		return NULL;
	POOL_UNPOISON(h + 1, slot_size(cls) - sizeof(*h));
	memset(h + 1, 0, slot_size(cls) - sizeof(*h));
	return h + 1;
}

void ref_obj_free(void *obj)
{
	struct ref_hdr *h;
	size_t cls;

	if (!obj)
		return;
	h = hdr_of(obj);
	if (!h)
		return;		/* not ours: leak rather than corrupt */
	cls = h->cls;
	/*
	 * The provider pointer (first word) stays: libdat reads it.  Under
	 * AddressSanitizer the rest is poisoned until the slot is taken again
	 * (and cleared then).
	 */
	POOL_POISON((char *)obj + sizeof(DAT_PROVIDER *),
		    slot_size(cls) - sizeof(*h) - sizeof(DAT_PROVIDER *));
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

/* ---- live objects -------------------------------------------------------------- */

static unsigned long live_objects;	/* atomic */
static pthread_mutex_t pins_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pins_cond = PTHREAD_COND_INITIALIZER;

static uint32_t live_state(DAT_HANDLE_TYPE type)
{
	return REF_SLOT_LIVE | ((uint32_t)type & 0xffu);
}

static struct ref_hdr *ia_hdr(const struct ref_ia *ia)
{
	return (struct ref_hdr *)ia - 1;
}

/* Unregistered: dat_ia_close has begun to tear the IA down. */
HOT bool ia_dead(const struct ref_hdr *ih)
{
	return __atomic_load_n(&ih->state, __ATOMIC_SEQ_CST) !=
	       live_state(DAT_HANDLE_TYPE_IA);
}

void ref_obj_register(struct ref_obj *obj, DAT_HANDLE_TYPE type,
		      struct ref_ia *ia)
{
	struct ref_hdr *h = hdr_of(obj);

	obj->provider = ia->obj.provider;
	obj->type = type;
	obj->ia = ia;
	ref_list_init(&obj->ia_link);
	__atomic_store_n(&h->ia, ia, __ATOMIC_RELAXED);
	__atomic_store_n(&h->state, live_state(type), __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&live_objects, 1, __ATOMIC_RELAXED);
	if (&ia->obj != obj) {
		ref_list_add_tail(&ia->objects, &obj->ia_link);
		if ((unsigned int)type < REF_HANDLE_TYPES)
			ia->count[type]++;
	}
}

void ref_obj_unregister(struct ref_obj *obj)
{
	struct ref_ia *ia = obj->ia;
	struct ref_hdr *h = hdr_of(obj);

	if (h && __atomic_exchange_n(&h->state, 0, __ATOMIC_SEQ_CST))
		__atomic_sub_fetch(&live_objects, 1, __ATOMIC_RELAXED);
	if (ia && &ia->obj != obj) {
		ref_list_del(&obj->ia_link);
		if ((unsigned int)obj->type < REF_HANDLE_TYPES)
			ia->count[obj->type]--;
	}
}

/*
 * The slot of the live object of @type (or any type) that @handle names,
 * its state in *@state; NULL when there is none.
 */
HOT struct ref_hdr *live_hdr(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			     uint32_t *statep)
{
	struct ref_hdr *h = hdr_of(handle);
	uint32_t state;

	if (!h)
		return NULL;
	state = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
	if (!(state & REF_SLOT_LIVE))
		return NULL;
	if (type != REF_HANDLE_TYPE_ANY && state != live_state(type))
		return NULL;
	*statep = state;
	return h;
}

bool ref_obj_live(const void *obj)
{
	uint32_t state;

	return live_hdr((DAT_HANDLE)obj, REF_HANDLE_TYPE_ANY, &state) != NULL;
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

/* The error for a handle that names no object of @type (subtype 0: the type's). */
static DAT_RETURN bad_handle(DAT_HANDLE_TYPE type, DAT_RETURN_SUBTYPE subtype)
{
	if (!subtype)
		subtype = ref_invalid_handle_subtype(type);
	return REF_ERR(DAT_INVALID_HANDLE, subtype);
}

DAT_RETURN ref_obj_lookup_sub(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			      DAT_RETURN_SUBTYPE subtype,
			      struct ref_obj **out)
{
	uint32_t state;

	if (!live_hdr(handle, type, &state))
		return bad_handle(type, subtype);
	*out = handle;
	return DAT_SUCCESS;
}

DAT_RETURN ref_obj_lookup(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			  struct ref_obj **out)
{
	return ref_obj_lookup_sub(handle, type,
				  ref_invalid_handle_subtype(type), out);
}

/*
 * Unpinning takes no lock.  Only ref_ia_drain_pins waits for pins: the
 * closing thread, holding one pin itself, waits under pins_lock until that
 * is the last.  So whoever leaves exactly one pin behind wakes it (under
 * pins_lock: after the drainer is asleep, never lost), without touching
 * the IA again - once the pins are down to the closer's own, the IA may be
 * gone (its slot's header stays readable: slabs are never given back).
 */
static void unpin(struct ref_hdr *ih)
{
	if (__atomic_sub_fetch(&ih->pins, 1, __ATOMIC_SEQ_CST) == 1) {
		pthread_mutex_lock(&pins_lock);
		pthread_cond_broadcast(&pins_cond);
		pthread_mutex_unlock(&pins_lock);
	}
}

/*
 * Pins the IA of the live object @h (of @state): once pinned, the IA is
 * not freed until unpin (dat_ia_close drains the pins after it marks the
 * IA dead).  A pin taken after the IA died, or after the object's slot
 * changed hands, is given back: NULL.
 */
HOT struct ref_ia *pin_ia(struct ref_hdr *h, uint32_t state)
{
	struct ref_ia *ia = __atomic_load_n(&h->ia, __ATOMIC_ACQUIRE);
	struct ref_hdr *ih;

	if (!ia)
		return NULL;
	ih = ia_hdr(ia);
	__atomic_add_fetch(&ih->pins, 1, __ATOMIC_SEQ_CST);
	if (ia_dead(ih) ||
	    __atomic_load_n(&h->state, __ATOMIC_SEQ_CST) != state ||
	    __atomic_load_n(&h->ia, __ATOMIC_SEQ_CST) != ia) {
		unpin(ih);
		return NULL;
	}
	return ia;
}

DAT_RETURN ref_obj_acquire(DAT_HANDLE handle, DAT_HANDLE_TYPE type,
			   DAT_RETURN_SUBTYPE subtype, struct ref_obj **out)
{
	uint32_t state;
	struct ref_hdr *h = live_hdr(handle, type, &state);
	struct ref_ia *ia;

	if (!h)
		return bad_handle(type, subtype);
	ia = pin_ia(h, state);
	if (!ia)
		return bad_handle(type, subtype);
	ref_ia_lock(ia);
	/* Freed (its slot perhaps reused) or its IA closed while we waited? */
	if (ia_dead(ia_hdr(ia)) ||
	    __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != state ||
	    __atomic_load_n(&h->ia, __ATOMIC_ACQUIRE) != ia) {
		ref_ia_release(ia);
		return bad_handle(type, subtype);
	}
	*out = handle;
	return DAT_SUCCESS;
}

/* ref_obj_acquire of an IA handle without waiting for its lock (ref.h). */
int ref_ia_try_acquire(DAT_IA_HANDLE handle, struct ref_ia **out)
{
	uint32_t state;
	struct ref_hdr *h = live_hdr(handle, DAT_HANDLE_TYPE_IA, &state);
	struct ref_ia *ia;

	if (!h)
		return -1;
	ia = pin_ia(h, state);
	if (!ia)
		return -1;
	if (!ref_ia_trylock(ia)) {
		unpin(ia_hdr(ia));
		return 1;
	}
	if (ia_dead(ia_hdr(ia))) {
		ref_ia_release(ia);
		return -1;
	}
	*out = ia;
	return 0;
}

void ref_ia_release(struct ref_ia *ia)
{
	ref_ia_unlock(ia);
	unpin(ia_hdr(ia));
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
	struct ref_hdr *ih = ia_hdr(ia);

	pthread_mutex_lock(&pins_lock);
	while (__atomic_load_n(&ih->pins, __ATOMIC_SEQ_CST) > 1)
		pthread_cond_wait(&pins_cond, &pins_lock);
	__atomic_store_n(&ih->pins, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&pins_lock);
}

unsigned int ref_ia_pins(const struct ref_ia *ia)
{
	return __atomic_load_n(&ia_hdr(ia)->pins, __ATOMIC_SEQ_CST);
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
	return __atomic_load_n(&live_objects, __ATOMIC_RELAXED) == 0;
}

/*
 * When the registry unloads the library (libdat2 dlcloses its providers at
 * exit), no stale handle can reach this code any more: the slabs and the
 * granule map are given back (nothing runs in this copy of the library
 * after its destructor).  Not while objects live: a process may exit with
 * IAs open and their threads running.
 */
__attribute__((destructor)) static void handles_release(void)
{
	if (!ref_handles_idle())
		return;
	while (pool.nowned > 0) {
		struct owned *o = &pool.owned[--pool.nowned];

		if (o->slab) {
			SLAB_UNSCANNED(o->mem, REF_SLAB_SIZE);
			munmap(o->mem, REF_SLAB_SIZE);
		} else {
			free(o->mem);
		}
	}
	free(pool.owned);
}
