/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_provider_init(3DAT); clauses in clauses/dat_provider_init.toml.
 * Init is observed from the Consumer side: through dat_ia_open after the
 * registry called it, and by loading the Provider library named in
 * dat.conf and calling init directly, as the page allows.
 */
#include "registry_common.h"

DC_CASE(dat_provider_init, called_before_first_open,
	.summary = "the IA's key is not registered before the first open, and the open finds it registered",
	.flags = DC_NO_IA)
{
	DAT_PROVIDER_INFO k;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	k = key_1_2(t->ia_name);
	DC_SETUP_ASSERT(!registered(&k), "'%s' is registered before any open", t->ia_name);
	/* collateral: dat_provider_init(3DAT) DESCRIPTION: init registered the name, so the first open finds it */
	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &evd, &ia));
	DC_ASSERT(registered(&k), "after the open '%s' is not registered", t->ia_name);
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_provider_init, explicit_load,
	.clauses = "dat_provider_init.explicit_load dat_provider_init.registers_given_name",
	.summary = "the Consumer loads the library and calls init for a new name: that name opens and is registered",
	.flags = DC_NO_IA)
{
	static DAT_PROVIDER_INFO k;
	struct prov_lib pl = prov_lib();
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_IA_ATTR a;

	k = key_1_2("datcts-explicit-ia");
	DC_SETUP_ASSERT(!registered(&k), "datcts-explicit-ia registered before init");
	pl.init(&k, pl.conf.instance);
	DC_FOR_CLAUSE("dat_provider_init.registers_given_name");
	DC_ASSERT(registered(&k), "init did not register the name it was given");
	/* which name the instance calls itself is dat_ia_query.adapter_name_is_ia_name's */
	DC_FOR_CLAUSE("dat_provider_init.explicit_load");
	/* collateral: dat_provider_init(3DAT) DESCRIPTION: as the registry would, so the name opens */
	DC_ASSERT_SUCCESS(dat_ia_open("datcts-explicit-ia", 8, &evd, &ia));
	/* collateral: dat_provider_init(3DAT) DESCRIPTION: as above, the instance answers */
	DC_ASSERT_SUCCESS(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADAPTER_NAME, &a,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	if (pl.fini)
		pl.fini(&k);
}

/*
 * Init is per IA name (DESCRIPTION: before the first open of a given
 * name): the library serving the IA under test, already initialised for
 * that name by the registry, is initialised again for a second name; both
 * names then open.
 */
DC_CASE(dat_provider_init, earlier_names_kept,
	.summary = "an explicit init for a second name leaves the name the library already serves opening",
	.flags = DC_NO_IA)
{
	static DAT_PROVIDER_INFO k;
	struct prov_lib pl;
	DAT_EVD_HANDLE e1 = DAT_HANDLE_NULL, e2 = DAT_HANDLE_NULL, e3 = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia1 = DAT_HANDLE_NULL, ia2 = DAT_HANDLE_NULL, ia3 = DAT_HANDLE_NULL;

	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	/* the registry inits the library for the IA's own name */
	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &e1, &ia1));
	pl = prov_lib();
	k = key_1_2("datcts-second-ia");
	DC_SETUP_ASSERT(!registered(&k), "datcts-second-ia registered before init");
	pl.init(&k, pl.conf.instance);
	/* collateral: dat_provider_init(3DAT) DESCRIPTION: the library initialised for the new name serves it */
	DC_ASSERT_SUCCESS(dat_ia_open("datcts-second-ia", 8, &e2, &ia2));
	/* the first name is still registered, and still opens */
	/* collateral: dat_provider_init(3DAT) DESCRIPTION: init for a new name leaves the names served before usable */
	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &e3, &ia3));
	DC_CLEANUP(dat_ia_close(ia3, DAT_CLOSE_ABRUPT_FLAG));
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
	DC_CLEANUP(dat_ia_close(ia1, DAT_CLOSE_ABRUPT_FLAG));
	if (pl.fini)
		pl.fini(&k);
}

DC_CASE(dat_provider_init, no_other_names,
	.summary = "an explicit init for a new name leaves the dat.conf name of the IA unregistered",
	.flags = DC_NO_IA)
{
	static DAT_PROVIDER_INFO k, conf_key;
	struct prov_lib pl = prov_lib();

	k = key_1_2("datcts-only-this-name");
	conf_key = key_of(pl.conf.name, pl.conf.major, pl.conf.minor, pl.conf.thread_safe);
	DC_SETUP_ASSERT(!registered(&conf_key), "'%s' registered before init", pl.conf.name);
	pl.init(&k, pl.conf.instance);
	DC_SETUP_ASSERT(registered(&k), "init did not register the name it was given");
	DC_ASSERT(!registered(&conf_key), "init for '%s' also registered '%s'", k.ia_name,
		  pl.conf.name);
	if (pl.fini)
		pl.fini(&k);
}

DC_CASE(dat_provider_init, attrs_match_registration,
	.summary = "API version and thread safety of the IA equal its registration key; device_name is the IA name")
{
	const DAT_PROVIDER *p = dc_ia_provider(t->ia);

	DC_ASSERT_EQ(t->prov_attr.dapl_version_major, DAT_VERSION_MAJOR);
	DC_ASSERT_EQ(t->prov_attr.dapl_version_minor, DAT_VERSION_MINOR);
	DC_ASSERT_EQ(t->prov_attr.is_thread_safe, DAT_THREADSAFE);
	DC_ASSERT(p && p->device_name && !strcmp(p->device_name, t->ia_name),
		  "the dispatch table's device_name is '%s', the IA is '%s'",
		  p && p->device_name ? p->device_name : "(null)", t->ia_name);
}

DC_CASE(dat_provider_init, called_again_after_fini,
	.summary = "open, close, open again: three cycles succeed (init runs again after fini)",
	.flags = DC_NO_IA)
{
	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	for (int i = 0; i < 3; i++) {
		DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
		DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
		DAT_RETURN r = dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &evd, &ia);

		DC_ASSERT(r == DAT_SUCCESS, "open %d returned %s", i + 1, dc_ret_text(r));
		DC_SETUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	}
}
