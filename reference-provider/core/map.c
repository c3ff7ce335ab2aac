// SPDX-License-Identifier: MIT
/*
 * map.c - open-addressing hash map (linear probing, tombstones) from a
 * non-zero 64-bit key to a pointer.  See refmap.h.
 */
#include "refmap.h"

#include <stdlib.h>

static uint64_t mix(uint64_t k)
{
	/* splitmix64 finaliser: spreads aligned pointers and counters */
	k ^= k >> 30;
	k *= UINT64_C(0xbf58476d1ce4e5b9);
	k ^= k >> 27;
	k *= UINT64_C(0x94d049bb133111eb);
	k ^= k >> 31;
	return k;
}

void ref_map_init(struct ref_map *m)
{
	m->slot = NULL;
	m->cap = m->used = m->filled = 0;
}

void ref_map_fini(struct ref_map *m)
{
	free(m->slot);
	ref_map_init(m);
}

static struct ref_map_slot *find(const struct ref_map *m, uint64_t key)
{
	size_t mask, i;

	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	for (i = mix(key) & mask;; i = (i + 1) & mask) {
		struct ref_map_slot *s = &m->slot[i];

		if (s->key == key && !s->tomb)
			return s;
		if (!s->key && !s->tomb)
			return NULL;
	}
}

static bool rehash(struct ref_map *m, size_t cap)
{
	struct ref_map_slot *old = m->slot, *slot;
	size_t oldcap = m->cap, i, j;

	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return false;
	for (i = 0; i < oldcap; i++) {
		if (!old[i].key || old[i].tomb)
			continue;
		for (j = mix(old[i].key) & (cap - 1); slot[j].key;
		     j = (j + 1) & (cap - 1))
			;
		slot[j] = old[i];
	}
	free(old);
	m->slot = slot;
	m->cap = cap;
	m->filled = m->used;
	return true;
}

bool ref_map_put(struct ref_map *m, uint64_t key, void *val)
{
	struct ref_map_slot *s;
	size_t mask, i;

	if (!key)
		return false;
	s = find(m, key);
	if (s) {
		s->val = val;
		return true;
	}
	/* keep the load (incl. tombstones) at most 1/2 */
	if ((m->filled + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap : 16;

		/* same size when only tombstones filled it: cleans them */
		while ((m->used + 1) * 2 > cap)
			cap *= 2;
		if (!rehash(m, cap))
			return false;
	}
	mask = m->cap - 1;
	for (i = mix(key) & mask; m->slot[i].key && !m->slot[i].tomb;
	     i = (i + 1) & mask)
		;
	if (!m->slot[i].key)
		m->filled++;
	m->slot[i].key = key;
	m->slot[i].val = val;
	m->slot[i].tomb = false;
	m->used++;
	return true;
}

void *ref_map_get(const struct ref_map *m, uint64_t key)
{
	struct ref_map_slot *s = key ? find(m, key) : NULL;

	return s ? s->val : NULL;
}

void *ref_map_del(struct ref_map *m, uint64_t key)
{
	struct ref_map_slot *s = key ? find(m, key) : NULL;
	void *val;

	if (!s)
		return NULL;
	val = s->val;
	s->tomb = true;
	s->val = NULL;
	m->used--;
	return val;
}
