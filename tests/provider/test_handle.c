// SPDX-License-Identifier: MIT
/*
 * Handle validation and the slab allocator: NULL, foreign, freed,
 * misaligned and wrong-type handles are rejected with the subtype of the
 * expected type; freed handle memory keeps pointing at the dispatch table;
 * pins drain.
 * Uses a hand-made IA (no transport).
 */
#include "tp.h"
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

static struct ref_ia *fake_ia(void)
{
	struct ref_ia *ia = ref_obj_alloc(sizeof(*ia));

	ia->obj.provider = &ref_provider;
	pthread_mutex_init(&ia->lock, NULL);
	ref_cond_init(&ia->sleepers_cond);
	ref_list_init(&ia->objects);
	ref_list_init(&ia->deferred);
	ref_obj_register(&ia->obj, DAT_HANDLE_TYPE_IA, ia);
	return ia;
}

static void test_alloc(void)
{
	void *a, *b;
	int i;

	a = ref_obj_alloc(100);
	CHECK(a != NULL);
	*(DAT_PROVIDER **)a = &ref_provider;
	memset((char *)a + sizeof(void *), 0xab, 100 - sizeof(void *));
	ref_obj_free(a);
	/* first word survives the free; libdat may read it */
	CHECK(*(DAT_PROVIDER **)a == &ref_provider);
#if defined(__SANITIZE_ADDRESS__)
	/* the rest is poisoned while the block waits in the pool */
	CHECK(__asan_address_is_poisoned((char *)a + sizeof(void *)));
	CHECK(!__asan_address_is_poisoned(a));
#endif
	/* quarantine: not handed out again right away; cleared when it is */
	for (i = 0; i < 8; i++) {
		b = ref_obj_alloc(100);
		CHECK(b != a);
		ref_obj_free(b);
	}
	for (i = 0; i < 64 && b != a; i++) {
		b = ref_obj_alloc(100);
		if (b != a)
			ref_obj_free(b);
	}
	CHECK(b == a);
	CHECK(((unsigned char *)a)[sizeof(void *)] == 0);
	ref_obj_free(a);
	/* beyond the biggest size class (16 KiB with its header): refused, not served elsewhere */
	CHECK(ref_obj_alloc(16384) == NULL);
	a = ref_obj_alloc(8000);
	CHECK(a != NULL);
	ref_obj_free(a);
}

static void test_table(void)
{
	struct ref_ia *ia = fake_ia();
	struct ref_pz *pz = ref_obj_alloc(sizeof(*pz));
	struct ref_obj *o;
	DAT_HANDLE_TYPE type;
	DAT_CONTEXT ctx, got;
	int local;

	ref_ia_lock(ia);
	ref_obj_register(&pz->obj, DAT_HANDLE_TYPE_PZ, ia);
	ref_ia_unlock(ia);
	CHECK(ia->count[DAT_HANDLE_TYPE_PZ] == 1);
	CHECK(pz->obj.provider == &ref_provider);
	CHECK(pz->obj.ia == ia);

	CHECK_OK(ref_obj_lookup(pz, DAT_HANDLE_TYPE_PZ, &o));
	CHECK(o == &pz->obj);
	CHECK_RC_SUB(ref_obj_lookup(pz, DAT_HANDLE_TYPE_EP, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	CHECK_RC_SUB(ref_obj_lookup(NULL, DAT_HANDLE_TYPE_LMR, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	CHECK_RC_SUB(ref_obj_lookup(&local, DAT_HANDLE_TYPE_PZ, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	CHECK_RC_SUB(ref_obj_lookup_sub(pz, DAT_HANDLE_TYPE_EVD,
					DAT_INVALID_HANDLE_EVD_RECV, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_RECV);
	CHECK_OK(ref_obj_lookup(ia, REF_HANDLE_TYPE_ANY, &o));
	/* inside a live object, or in the slab but not at a slot: not ours */
	CHECK_RC_SUB(ref_obj_lookup((char *)pz + 16, DAT_HANDLE_TYPE_PZ, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	CHECK_RC_SUB(ref_obj_lookup((char *)pz - 8, DAT_HANDLE_TYPE_PZ, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	CHECK(!ref_obj_live((char *)ia + 64));

	/* acquire pins the IA and takes its lock */
	CHECK_OK(ref_obj_acquire(pz, DAT_HANDLE_TYPE_PZ, 0, &o));
	CHECK(ref_ia_pins(ia) == 1);
	CHECK(pthread_mutex_trylock(&ia->lock) != 0);
	ref_obj_release(o);
	CHECK(ref_ia_pins(ia) == 0);
	CHECK_RC_SUB(ref_obj_acquire(pz, DAT_HANDLE_TYPE_CNO, 0, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO);
	CHECK(ref_ia_pins(ia) == 0);

	/* the handle-generic entry points */
	CHECK_OK(ref_get_handle_type(pz, &type));
	CHECK(type == DAT_HANDLE_TYPE_PZ);
	CHECK_OK(ref_get_handle_type(ia, &type));
	CHECK(type == DAT_HANDLE_TYPE_IA);
	CHECK_RC(ref_get_handle_type(pz, NULL), DAT_INVALID_PARAMETER);
	CHECK_OK(ref_get_consumer_context(pz, &got));
	CHECK(got.as_ptr == NULL);
	ctx.as_64 = 0x1234;
	CHECK_OK(ref_set_consumer_context(pz, ctx));
	CHECK_OK(ref_get_consumer_context(pz, &got));
	CHECK(got.as_64 == 0x1234);
	ctx.as_ptr = NULL;
	CHECK_OK(ref_set_consumer_context(pz, ctx));
	CHECK_OK(ref_get_consumer_context(pz, &got));
	CHECK(got.as_ptr == NULL);
	CHECK_RC(ref_get_consumer_context(pz, NULL), DAT_INVALID_PARAMETER);
	CHECK_RC_SUB(ref_set_consumer_context(&local, ctx),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	CHECK_RC_SUB(ref_get_handle_type(NULL, &type),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);

	/* freed handle */
	ref_ia_lock(ia);
	ref_obj_unregister(&pz->obj);
	ref_ia_unlock(ia);
	ref_obj_free(pz);
	CHECK(ia->count[DAT_HANDLE_TYPE_PZ] == 0);
	CHECK(ref_list_empty(&ia->objects));
	CHECK_RC_SUB(ref_obj_lookup(pz, DAT_HANDLE_TYPE_PZ, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	CHECK_RC_SUB(ref_get_handle_type(pz, &type), DAT_INVALID_HANDLE,
		     DAT_INVALID_HANDLE1);
	CHECK_RC(ref_pz_query(pz, DAT_PZ_FIELD_ALL, NULL), DAT_INVALID_HANDLE);
	CHECK_RC(ref_pz_free(pz), DAT_INVALID_HANDLE);
	/* a freed handle still dispatches through a valid table */
	CHECK(*(DAT_PROVIDER **)pz == &ref_provider);

	/*
	 * The IA itself, closed as dat_ia_close does: acquired (one pin),
	 * unregistered, unlocked; then nothing can be acquired, and the
	 * closer's own pin drains.
	 */
	CHECK_OK(ref_obj_acquire(ia, DAT_HANDLE_TYPE_IA, 0, &o));
	ref_obj_unregister(&ia->obj);
	ref_ia_unlock(ia);
	CHECK(!ref_obj_live(ia));
	CHECK_RC_SUB(ref_obj_acquire(ia, DAT_HANDLE_TYPE_IA, 0, &o),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	CHECK(ref_ia_pins(ia) == 1);
	ref_ia_drain_pins(ia);
	CHECK(ref_ia_pins(ia) == 0);
	pthread_cond_destroy(&ia->sleepers_cond);
	pthread_mutex_destroy(&ia->lock);
	ref_obj_free(ia);
}

static void test_many(void)
{
	enum { N = 5000 };
	struct ref_ia *ia = fake_ia();
	static struct ref_cno *cno[N];
	struct ref_obj *o;
	int i;

	ref_ia_lock(ia);
	for (i = 0; i < N; i++) {
		cno[i] = ref_obj_alloc(sizeof(*cno[i]));
		ref_obj_register(&cno[i]->obj, DAT_HANDLE_TYPE_CNO, ia);
	}
	for (i = 0; i < N; i += 2)
		ref_obj_unregister(&cno[i]->obj);
	ref_ia_unlock(ia);
	for (i = 0; i < N; i++) {
		DAT_RETURN rc = ref_obj_lookup(cno[i], DAT_HANDLE_TYPE_CNO, &o);

		CHECK((i % 2) ? rc == DAT_SUCCESS : rc != DAT_SUCCESS);
	}
	ref_ia_lock(ia);
	for (i = 1; i < N; i += 2)
		ref_obj_unregister(&cno[i]->obj);
	ref_ia_unlock(ia);
	for (i = 0; i < N; i++)
		ref_obj_free(cno[i]);
	CHECK(ia->count[DAT_HANDLE_TYPE_CNO] == 0);
	ref_obj_unregister(&ia->obj);
	pthread_cond_destroy(&ia->sleepers_cond);
	pthread_mutex_destroy(&ia->lock);
	ref_obj_free(ia);
}

int main(void)
{
	test_alloc();
	test_table();
	test_many();
	return tp_done("provider.handle");
}
