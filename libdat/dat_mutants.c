/*
 * Mutants of the registry: run-time switches that break one rule of the
 * registry's man pages on purpose, so the suite can prove that the case
 * checking that rule fails.  The same mechanism as the reference
 * provider's (reference-provider/core/mutants.c, docs/mutants.md), with
 * its own variable: DATLIB_MUTANT=<id>[,<id>...] in the environment of a
 * process that loads libdat.so.1.  Read once (first dat_mutant() call);
 * an id not in the table is reported once on stderr and ignored.  Unset,
 * dat_mutant() is a pthread_once check and one pointer compare.
 *
 * Table format, one entry per mutant (as the provider's):
 *     { "<id>", "<clause id>[ <clause id>...]", "<what it breaks>" },
 * optionally .quick = true (the CI subset) or .survives = "why".
 * The code tests the id where libdat enforces the rule:
 *     if (dat_mutant("remove-ignores-in-use")) ...
 *
 * The table is read by `datcts mutate` through the accessor
 * datlib_test_mutant() (version node DATCTS_TEST, outside the DAT ABI),
 * printed as JSON by <build>/bin/datref-mutants --registry; tests/mutants
 * checks that every id tested in libdat/ is in the table and the other
 * way round.
 */
#include "dat_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dat_mutant_def {
	const char *id;
	const char *clauses;
	const char *what;
	bool quick;		/* in the CI subset */
	const char *survives;	/* known reason no case kills it, or NULL */
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct dat_mutant_def dat_mutants[] = {
	/* dat_registry_add_provider (dat_registry.c) */
	{ "registry-open-static-only",
	  "dat_registry_add_provider.registration_provides_ia",
	  "dat_ia_open finds only names that have a dat.conf entry, not direct registrations" },
	{ "registry-add-one-name-per-provider",
	  "dat_registry_add_provider.multiple_registrations",
	  "a provider table registered under one name is refused under a second" },
	{ "registry-add-duplicate-accepted",
	  "dat_registry_add_provider.duplicate_refused",
	  "a key registered already is registered again" },
	{ "registry-key-ignores-thread-safety",
	  "dat_registry_add_provider.info_matches_consumer",
	  "the registry matches a key without its thread safety" },
	{ "registry-add-long-name-truncated",
	  "dat_registry_add_provider.invalid_parameter",
	  "an IA name with no NUL within DAT_NAME_MAX_LENGTH is registered, cut short" },
	{ "registry-full-wrong-code",
	  "dat_registry_add_provider.registry_full",
	  "a registration past the registry's limit fails with DAT_INTERNAL_ERROR" },
	/* dat_registry_list_providers */
	{ "list-drops-same-name",
	  "dat_registry_list_providers.lists_static_registry",
	  "of several dat.conf entries with one IA name only the first is listed" },
	{ "list-loads-providers",
	  "dat_registry_list_providers.no_effect",
	  "listing loads every listed provider and runs its init" },
	{ "open-first-entry-of-name",
	  "dat_registry_list_providers.listed_entry_opens",
	  "dat_ia_open loads the first dat.conf entry of the name, whatever its version and thread safety" },
	{ "list-count-one-short",
	  "dat_registry_list_providers.success_count",
	  "number_entries is one less than the entries written",
	  .quick = true },
	{ "list-too-small-count-zero",
	  "dat_registry_list_providers.failure_reports_count",
	  "a list too small gets number_entries 0 instead of the registry's size" },
	{ "list-too-small-truncates",
	  "dat_registry_list_providers.list_too_small",
	  "a list too small is filled with what fits and the call succeeds" },
	{ "list-missing-registry-empty",
	  "dat_registry_list_providers.registry_missing",
	  "a missing dat.conf lists as an empty registry" },
	{ "list-long-name-unterminated",
	  "dat_registry_list_providers.name_terminated",
	  "an IA name of the maximum length is listed without its NUL" },
	/* dat_registry_remove_provider */
	{ "remove-keeps-registration",
	  "dat_registry_remove_provider.prevents_new_sessions",
	  "dat_registry_remove_provider succeeds but the name still opens" },
	{ "remove-ignores-in-use",
	  "dat_registry_remove_provider.in_use_refused",
	  "a registration with an IA open is removed",
	  .quick = true },
	{ "remove-unknown-succeeds",
	  "dat_registry_remove_provider.not_found",
	  "removing a key that is not registered succeeds" },
	/* dat_strerror (dat_strerror.c) */
	{ "strerror-minor-is-major",
	  "dat_strerror.converts_type_and_subtype",
	  "the subtype's message is the type's message" },
	{ "strerror-success-refused",
	  "dat_strerror.success_code",
	  "DAT_SUCCESS is refused as an undefined code",
	  .quick = true },
	{ "strerror-undefined-accepted",
	  "dat_strerror.undefined_code",
	  "a code of no defined type or subtype converts to a generic message" },
	/* the registry's calls of dat_provider_init / dat_provider_fini */
	{ "registry-init-skipped-on-first-open",
	  "dat_provider_init.called_before_first_open",
	  "the first dat_ia_open of a dat.conf entry loads the library but calls no init" },
	{ "registry-init-once-per-process",
	  "dat_provider_init.called_again_after_fini",
	  "after fini the registry never calls init for the entry again" },
	{ "registry-fini-at-every-close",
	  "dat_provider_fini.only_after_all_closed",
	  "fini runs at every close, with other instances still open" },
	{ "registry-unloads-without-fini",
	  "dat_provider_fini.before_unload",
	  "the last close unloads the provider library without calling fini" },
	{ "registry-fini-twice",
	  "dat_provider_fini.not_twice",
	  "the last close calls fini twice" },
	/* dat_ia_open's lookup, dat_ia_close, the IA-handle checks (dat_api.c) */
	{ "open-name-prefix-match",
	  "dat_ia_open.names_from_registry",
	  "dat_ia_open finds a registered name by a prefix of it" },
	{ "open-unknown-name-wrong-code",
	  "dat_ia_open.provider_not_found",
	  "an unregistered name is refused with DAT_INVALID_PARAMETER" },
	{ "ia-handle-invalid-is-parameter",
	  "dat_ia_query.invalid_handle dat_ia_close.invalid_handle "
	  "dat_pz_create.invalid_handle dat_cno_create.invalid_ia_handle "
	  "dat_evd_create.invalid_ia_handle dat_ep_create.invalid_ia_handle "
	  "dat_srq_create.invalid_ia_handle dat_psp_create.invalid_ia_handle "
	  "dat_psp_create_any.invalid_ia_handle dat_rsp_create.invalid_ia_handle "
	  "dat_lmr_sync_rdma_read.invalid_handle "
	  "dat_lmr_sync_rdma_write.invalid_handle",
	  "an IA handle that is not open is refused with DAT_INVALID_PARAMETER",
	  .quick = true },
	{ "ia-close-skips-provider",
	  "dat_ia_close.destroys_instance",
	  "dat_ia_close succeeds without closing the instance, whose handle keeps working" },
	{ NULL, NULL, NULL },	/* terminator */
};
#pragma GCC diagnostic pop

#define DAT_MUTANT_MAX_ACTIVE 16

static pthread_once_t mutant_once = PTHREAD_ONCE_INIT;
static const char *active[DAT_MUTANT_MAX_ACTIVE];
static size_t nactive;
static const char **active_p;	/* NULL while no mutant is set */
static char *env_copy;

static const struct dat_mutant_def *find_def(const char *id)
{
	const struct dat_mutant_def *d;

	for (d = dat_mutants; d->id; d++)
		if (!strcmp(d->id, id))
			return d;
	return NULL;
}

static void mutant_init(void)
{
	const char *env = getenv("DATLIB_MUTANT");
	char *save = NULL, *tok;

	if (!env || !*env)
		return;
	env_copy = strdup(env);
	if (!env_copy)
		return;
	for (tok = strtok_r(env_copy, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (!find_def(tok))
			fprintf(stderr, LIBDAT_PREFIX "DATLIB_MUTANT: unknown mutant \"%s\" ignored\n",
				tok);
		else if (nactive < DAT_MUTANT_MAX_ACTIVE)
			active[nactive++] = tok;
	}
	if (nactive)
		active_p = active;
}

bool dat_mutant(const char *id)
{
	size_t i;

	pthread_once(&mutant_once, mutant_init);
	if (!active_p)
		return false;
	for (i = 0; i < nactive; i++)
		if (!strcmp(active[i], id))
			return true;
	return false;
}

/*
 * Entry @i of the table (0, or -1 past the end), for datref-mutants; the
 * same signature as the provider's daplref_test_mutant().
 */
int datlib_test_mutant(int i, const char **id, const char **clauses,
		       const char **what, int *quick, const char **survives)
{
	const struct dat_mutant_def *d;

	if (i < 0 || (size_t)i >= sizeof(dat_mutants) / sizeof(dat_mutants[0]))
		return -1;
	d = &dat_mutants[i];
	if (!d->id)
		return -1;
	if (id)
		*id = d->id;
	if (clauses)
		*clauses = d->clauses;
	if (what)
		*what = d->what;
	if (quick)
		*quick = d->quick;
	if (survives)
		*survives = d->survives;
	return 0;
}

/* The value in effect ("none" when unset), for datcts mutate's check. */
const char *datlib_test_mutant_active(void)
{
	const char *env;

	pthread_once(&mutant_once, mutant_init);
	if (!active_p)
		return "none";
	env = getenv("DATLIB_MUTANT");
	return env ? env : "none";
}
