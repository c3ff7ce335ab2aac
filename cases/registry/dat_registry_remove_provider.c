/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_registry_remove_provider(3DAT); clauses in
 * clauses/dat_registry_remove_provider.toml.
 */
#include "registry_common.h"

DC_CASE(dat_registry_remove_provider, prevents_new_sessions,
	.summary = "after removal the name gives PROVIDER_NOT_FOUND and can be registered again",
	.flags = DC_NO_IA)
{
	DAT_PROVIDER_INFO k = key_1_2("datcts-stub-rm");
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	DC_SETUP(dat_registry_add_provider(stub(), &k));
	DC_SETUP(dat_ia_open("datcts-stub-rm", 8, &evd, &ia));
	DC_SETUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_SUCCESS(dat_registry_remove_provider(stub(), &k));
	evd = DAT_HANDLE_NULL;
	/* collateral: dat_registry_remove_provider(3DAT) DESCRIPTION: the removed name opens no new session */
	DC_ASSERT_RET(dat_ia_open("datcts-stub-rm", 8, &evd, &ia), DAT_PROVIDER_NOT_FOUND);
	DC_ASSERT_EQ(stub_opens, 1);
	DC_SETUP(dat_registry_add_provider(stub(), &k));
}

DC_CASE(dat_registry_remove_provider, in_use_refused,
	.summary = "removing the real Provider (IA open) or a stand-in with an IA open: PROVIDER_IN_USE, still opens")
{
	DAT_PROVIDER_INFO real = key_1_2(t->ia_name), k = key_1_2("datcts-stub-busy");
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL, s1 = DAT_HANDLE_NULL, s2 = DAT_HANDLE_NULL;

	DC_ASSERT_RET(dat_registry_remove_provider(dc_ia_provider(t->ia), &real),
		      DAT_PROVIDER_IN_USE);
	/* collateral: dat_registry_remove_provider(3DAT) DESCRIPTION: the refused removal leaves the registration, which still opens */
	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, 8, &evd, &ia2));
	DC_SETUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));

	DC_SETUP(dat_registry_add_provider(stub(), &k));
	evd = DAT_HANDLE_NULL;
	DC_SETUP(dat_ia_open("datcts-stub-busy", 8, &evd, &s1));
	DC_ASSERT_RET(dat_registry_remove_provider(stub(), &k), DAT_PROVIDER_IN_USE);
	evd = DAT_HANDLE_NULL;
	/* collateral: dat_registry_remove_provider(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_ia_open("datcts-stub-busy", 8, &evd, &s2));
	DC_SETUP(dat_ia_close(s1, DAT_CLOSE_ABRUPT_FLAG));
	DC_SETUP(dat_ia_close(s2, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_SUCCESS(dat_registry_remove_provider(stub(), &k));
}

DC_CASE(dat_registry_remove_provider, not_found,
	.summary = "an unregistered name, a second removal, NULL provider or info: DAT_INVALID_PARAMETER",
	.flags = DC_NO_IA)
{
	DAT_PROVIDER_INFO k = key_1_2("datcts-stub-twice"), never = key_1_2("datcts-never");

	DC_ASSERT_RET(dat_registry_remove_provider(stub(), &never), DAT_INVALID_PARAMETER);
	DC_SETUP(dat_registry_add_provider(stub(), &k));
	DC_ASSERT_RET(dat_registry_remove_provider(NULL, &k), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_registry_remove_provider(stub(), NULL), DAT_INVALID_PARAMETER);
	DC_ASSERT_SUCCESS(dat_registry_remove_provider(stub(), &k));
	DC_ASSERT_RET(dat_registry_remove_provider(stub(), &k), DAT_INVALID_PARAMETER);
}
