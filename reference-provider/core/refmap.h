/* SPDX-License-Identifier: MIT */
/*
 * refmap.h - a small open-addressing hash map from a non-zero 64-bit key
 * to a pointer.  Used by handle.c (live handles, keyed by address) and
 * lmr.c (LMR/RMR contexts).  Not locked: the user serialises.
 */
#ifndef REF_MAP_H
#define REF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ref_map_slot {
	uint64_t key;		/* 0: empty */
	void *val;
	bool tomb;		/* deleted: keep probing past it */
};

struct ref_map {
	struct ref_map_slot *slot;
	size_t cap;		/* power of two, or 0 */
	size_t used;		/* live keys */
	size_t filled;		/* live keys + tombstones */
};

void ref_map_init(struct ref_map *m);
void ref_map_fini(struct ref_map *m);
/* Inserts or replaces; false when the table cannot grow (ENOMEM). */
bool ref_map_put(struct ref_map *m, uint64_t key, void *val);
/* The value, or NULL. */
void *ref_map_get(const struct ref_map *m, uint64_t key);
/* Removes key; returns its value or NULL. */
void *ref_map_del(struct ref_map *m, uint64_t key);

#endif /* REF_MAP_H */
