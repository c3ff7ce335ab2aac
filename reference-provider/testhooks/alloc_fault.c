/*
 * Allocation fault injection (test hook, docs/reference-provider.md "Test
 * hooks"): the nth allocation the calling thread makes inside the provider
 * returns NULL, as it does on a machine out of memory.
 *
 * The provider's objects are linked with -Wl,--wrap=malloc,calloc,realloc,
 * strdup (reference-provider/CMakeLists.txt), so every allocation of core/
 * and transport/ comes here and core/ keeps its own calls untouched (the
 * generated mutants' ids hash core/'s tokens, docs/mutants.md).  Allocations
 * of other libraries (libc's own, libdat's, the harness's) are not counted.
 * Unarmed, a wrapper costs one thread-local read.
 */
#include "dat_abi.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define ALLOC_FAULT_EXPORT __attribute__((visibility("default")))

void *__real_malloc(size_t n);
void *__real_calloc(size_t nmemb, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t nmemb, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

/* Per thread: allocations left before the failing one (0: disarmed), and
 * whether the armed failure happened. */
static __thread DAT_COUNT fail_countdown;
static __thread DAT_BOOLEAN fail_fired;

static int alloc_fails(void)
{
	if (fail_countdown <= 0 || --fail_countdown > 0)
		return 0;
	fail_fired = DAT_TRUE;
	errno = ENOMEM;
	return 1;
}

/*
 * Handle objects come from the provider's slabs (core/handle.c), mostly
 * without a malloc of their own: each still counts as one allocation here,
 * as it did when every object came from calloc.
 */
bool ref_obj_alloc_fails(void)
{
	return alloc_fails();
}

void *__wrap_malloc(size_t n)
{
	return alloc_fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t nmemb, size_t n)
{
	return alloc_fails() ? NULL : __real_calloc(nmemb, n);
}

/* A failed realloc leaves the block as it was (C11 7.22.3.5). */
void *__wrap_realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return alloc_fails() ? NULL : __real_strdup(s);
}

ALLOC_FAULT_EXPORT DAT_RETURN daplref_test_fail_alloc(DAT_COUNT nth);
ALLOC_FAULT_EXPORT DAT_RETURN daplref_test_fail_alloc(DAT_COUNT nth)
{
	if (nth < 0)
		return DAT_INVALID_PARAMETER;
	fail_countdown = nth;
	fail_fired = DAT_FALSE;
	return DAT_SUCCESS;
}

ALLOC_FAULT_EXPORT DAT_RETURN daplref_test_alloc_fired(DAT_BOOLEAN *fired);
ALLOC_FAULT_EXPORT DAT_RETURN daplref_test_alloc_fired(DAT_BOOLEAN *fired)
{
	if (!fired)
		return DAT_INVALID_PARAMETER;
	*fired = fail_fired;
	return DAT_SUCCESS;
}
