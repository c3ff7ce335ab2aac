// SPDX-License-Identifier: MIT
/*
 * The unit tests link the provider's objects without its fault hook
 * (reference-provider/testhooks/alloc_fault.c wraps malloc in the shared
 * library only): no handle object allocation is made to fail here.
 */
#include <stdbool.h>

bool ref_obj_alloc_fails(void);

bool ref_obj_alloc_fails(void)
{
	return false;
}
