/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_registry_add_provider(3DAT); clauses in
 * clauses/dat_registry_add_provider.toml.  The registry is libdat; the
 * cases register the stand-in Provider of registry_common.h, or look at
 * the real Provider's own registration.
 */
#include "registry_common.h"

DC_CASE(dat_registry_add_provider, registration_provides_ia,
	.summary = "a table registered under a new name is reached by dat_ia_open of that name",
	.flags = DC_NO_IA)
{
	DAT_PROVIDER_INFO k = key_1_2("datcts-stub-a");
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	DC_ASSERT_SUCCESS(dat_registry_add_provider(stub(), &k));
	/* collateral: dat_registry_add_provider(3DAT) DESCRIPTION: the registration makes the IA available under its name */
	DC_ASSERT_SUCCESS(dat_ia_open("datcts-stub-a", 8, &evd, &ia));
	DC_ASSERT_EQ(stub_opens, 1);
	DC_ASSERT(!strcmp(stub_last_name, "datcts-stub-a"), "the table was opened as '%s'",
		  stub_last_name);
	DC_ASSERT_PTR_EQ(dc_ia_provider(ia), stub());
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_EQ(stub_closes, 1);
	DC_SETUP(dat_registry_remove_provider(stub(), &k));
}

DC_CASE(dat_registry_add_provider, multiple_registrations,
	.summary = "one table under two names: both open, each open reaching the table",
	.flags = DC_NO_IA)
{
	DAT_PROVIDER_INFO k1 = key_1_2("datcts-port-1"), k2 = key_1_2("datcts-port-2");
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia1 = DAT_HANDLE_NULL, ia2 = DAT_HANDLE_NULL;

	DC_ASSERT_SUCCESS(dat_registry_add_provider(stub(), &k1));
	DC_ASSERT_SUCCESS(dat_registry_add_provider(stub(), &k2));
	/* collateral: dat_registry_add_provider(3DAT) DESCRIPTION: each registration opens under its own name */
	DC_ASSERT_SUCCESS(dat_ia_open("datcts-port-1", 8, &evd, &ia1));
	DC_ASSERT(!strcmp(stub_last_name, "datcts-port-1"), "opened as '%s'", stub_last_name);
	evd = DAT_HANDLE_NULL;
	/* collateral: dat_registry_add_provider(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_ia_open("datcts-port-2", 8, &evd, &ia2));
	DC_ASSERT(!strcmp(stub_last_name, "datcts-port-2"), "opened as '%s'", stub_last_name);
	DC_ASSERT_EQ(stub_opens, 2);
	DC_CLEANUP(dat_ia_close(ia1, DAT_CLOSE_ABRUPT_FLAG));
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_registry_add_provider, duplicate_refused,
	.summary = "registering the real Provider's key again, or the stand-in twice: PROVIDER_ALREADY_REGISTERED")
{
	DAT_PROVIDER_INFO real = key_1_2(t->ia_name), k = key_1_2("datcts-stub-dup");
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;

	DC_ASSERT_RET(dat_registry_add_provider(dc_ia_provider(t->ia), &real),
		      DAT_PROVIDER_ALREADY_REGISTERED);
	DC_ASSERT_RET(dat_registry_add_provider(stub(), &real), DAT_PROVIDER_ALREADY_REGISTERED);
	/* the real registration still works */
	/* collateral: dat_registry_add_provider(3DAT) DESCRIPTION: the refused duplicate leaves the registered IA reachable */
	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &evd, &ia2));
	DC_ASSERT(dc_ia_provider(ia2) != stub(), "the IA name now reaches the stand-in");
	DC_SETUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));

	DC_SETUP(dat_registry_add_provider(stub(), &k));
	DC_ASSERT_RET(dat_registry_add_provider(stub(), &k), DAT_PROVIDER_ALREADY_REGISTERED);
	evd = DAT_HANDLE_NULL;
	/* collateral: dat_registry_add_provider(3DAT) DESCRIPTION: a name refused as a duplicate is the first one's, which still opens */
	DC_ASSERT_SUCCESS(dat_ia_open("datcts-stub-dup", 8, &evd, &ia2));
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_registry_add_provider, info_matches_consumer,
	.summary = "the IA opened through the header macro is registered under exactly that key")
{
	DAT_PROVIDER_INFO k = key_1_2(t->ia_name);

	/* the harness opened t->ia with dat_ia_open, i.e. this key */
	DC_ASSERT(registered(&k), "no registration under '%s' u%d.%d thread safety %d",
		  t->ia_name, DAT_VERSION_MAJOR, DAT_VERSION_MINOR, DAT_THREADSAFE);
	/* exactly that key: the same name with the other thread safety is free */
	k.is_thread_safe = DAT_THREADSAFE ? DAT_FALSE : DAT_TRUE;
	DC_ASSERT(!registered(&k), "the registry takes '%s' with thread safety %d for the "
		  "registration with %d", t->ia_name, (int)k.is_thread_safe, DAT_THREADSAFE);
}

DC_CASE(dat_registry_add_provider, invalid_parameter,
	.summary = "a NULL provider or provider_info gives DAT_INVALID_PARAMETER and registers nothing",
	.flags = DC_NO_IA)
{
	DAT_PROVIDER_INFO k = key_1_2("datcts-stub-bad"), unterminated = k, cut = k;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	DC_ASSERT_RET(dat_registry_add_provider(NULL, &k), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_registry_add_provider(stub(), NULL), DAT_INVALID_PARAMETER);
	/* collateral: dat_registry_add_provider(3DAT) RETURN VALUES: the refused registration made no IA name */
	DC_ASSERT_RET(dat_ia_open("datcts-stub-bad", 8, &evd, &ia), DAT_PROVIDER_NOT_FOUND);
	/* an ia_name with no NUL within DAT_NAME_MAX_LENGTH is no IA name */
	memset(unterminated.ia_name, 'u', sizeof(unterminated.ia_name));
	DC_ASSERT_RET(dat_registry_add_provider(stub(), &unterminated), DAT_INVALID_PARAMETER);
	memset(cut.ia_name, 'u', sizeof(cut.ia_name) - 1);
	cut.ia_name[sizeof(cut.ia_name) - 1] = '\0';
	DC_ASSERT(!registered(&cut), "the unterminated name was registered, cut short");
	DC_ASSERT_EQ(stub_opens, 0);
}

/*
 * Fills the dynamic registry with stand-in registrations until it refuses
 * one, up to REGISTRY_FULL_CAP.  A registry with room for all of them has
 * no limit this case can reach; it still checks that the registrations it
 * accepted are kept.
 */
#define REGISTRY_FULL_CAP 4096

DC_CASE(dat_registry_add_provider, registry_full,
	.summary = "registrations until the registry refuses one: DAT_INSUFFICIENT_RESOURCES, the others intact, room again after a removal",
	.flags = DC_NO_IA)
{
	static DAT_PROVIDER_INFO keys[REGISTRY_FULL_CAP + 1];
	DAT_RETURN r = DAT_SUCCESS;
	int n;

	for (n = 0; n < REGISTRY_FULL_CAP; n++) {
		char name[32];

		snprintf(name, sizeof(name), "datcts-full-%d", n);
		keys[n] = key_1_2(name);
		r = dat_registry_add_provider(stub(), &keys[n]);
		if (r != DAT_SUCCESS)
			break;
	}
	if (n == REGISTRY_FULL_CAP)
		dc_note(t, "the registry took %d registrations without refusing one", n);
	else
		DC_ASSERT(DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES,
			  "registration %d (the registry's limit) returned %s, not "
			  "DAT_INSUFFICIENT_RESOURCES", n + 1, dc_ret_text(r));
	DC_SETUP_ASSERT(n > 2, "the registry refused its third registration (%s)",
			dc_ret_text(r));
	/* the registrations it holds are kept (probed with room for one)... */
	DC_SETUP(dat_registry_remove_provider(stub(), &keys[0]));
	DC_ASSERT(registered(&keys[1]), "the second registration is gone");
	DC_ASSERT(registered(&keys[n - 1]), "registration %d is gone", n);
	/* ...and full means full: the removal made room for one more */
	if (n < REGISTRY_FULL_CAP)
		DC_ASSERT_SUCCESS(dat_registry_add_provider(stub(), &keys[n]));
	if (n < REGISTRY_FULL_CAP)
		DC_SETUP(dat_registry_remove_provider(stub(), &keys[n]));
	for (int i = 1; i < n; i++)
		DC_SETUP(dat_registry_remove_provider(stub(), &keys[i]));
}
