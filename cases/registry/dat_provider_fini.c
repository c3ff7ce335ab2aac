/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_provider_fini(3DAT); clauses in clauses/dat_provider_fini.toml.
 */
#include "registry_common.h"

DC_CASE(dat_provider_fini, unregisters_name,
	.summary = "after fini (explicit, and libdat's at the last close) the name is no longer registered",
	.flags = DC_NO_IA)
{
	static DAT_PROVIDER_INFO k;
	struct prov_lib pl = prov_lib();
	DAT_PROVIDER_INFO real = key_1_2(t->ia_name);
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	DC_SETUP_ASSERT(pl.fini, "%s has no %s", pl.conf.lib, DAT_PROVIDER_FINI_FUNC_STR);
	k = key_1_2("datcts-fini-ia");
	pl.init(&k, pl.conf.instance);
	DC_SETUP_ASSERT(registered(&k), "init did not register datcts-fini-ia");
	pl.fini(&k);
	DC_ASSERT_RET(dat_ia_open("datcts-fini-ia", 8, &evd, &ia), DAT_PROVIDER_NOT_FOUND);
	DC_ASSERT(!registered(&k), "datcts-fini-ia is still registered after fini");
	/* the registry's own init/fini pair around an open and a close */
	evd = DAT_HANDLE_NULL;
	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &evd, &ia));
	DC_SETUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT(!registered(&real), "'%s' is still registered after its last close", t->ia_name);
}

DC_CASE(dat_provider_fini, only_after_all_closed,
	.summary = "with two instances open, closing one keeps the registration in use and the other working")
{
	DAT_PROVIDER_INFO real = key_1_2(t->ia_name);
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz;

	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &evd, &ia2));
	DC_SETUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_RET(dat_registry_remove_provider(dc_ia_provider(t->ia), &real),
		      DAT_PROVIDER_IN_USE);
	DC_ASSERT_SUCCESS(dat_pz_create(t->ia, &pz));
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
}
