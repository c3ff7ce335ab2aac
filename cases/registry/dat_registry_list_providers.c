/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_registry_list_providers(3DAT); clauses in
 * clauses/dat_registry_list_providers.toml.  The static registry is the
 * registry fixture's rich dat.conf (dc_registry.h: several entries of one
 * name, a name at the length limit, lines that must not be listed); the
 * cases read it too.
 */
#include "registry_common.h"

#include <sys/wait.h>
#include <unistd.h>

#define MAXP 64

struct listing {
	DAT_PROVIDER_INFO info[MAXP];
	DAT_PROVIDER_INFO *ptr[MAXP];
	DAT_COUNT n;
};

static DAT_RETURN list_all(struct listing *l, DAT_COUNT max, unsigned char poison)
{
	memset(l->info, poison, sizeof(l->info));
	for (int i = 0; i < MAXP; i++)
		l->ptr[i] = &l->info[i];
	l->n = -7;
	return dat_registry_list_providers(max, &l->n, l->ptr);
}

DC_CASE(dat_registry_list_providers, lists_static_registry,
	.summary = "every loadable entry of a rich dat.conf is listed once with its name, version and thread safety",
	.flags = DC_NO_IA)
{
	static struct conf_entry conf[MAXP];
	static struct listing l;
	int nconf, loadable = 0;

	dc_registry_rich();
	nconf = conf_read(conf, MAXP);
	DC_SETUP_ASSERT(nconf >= 0, "cannot read %s", conf_path());
	DC_ASSERT_SUCCESS(list_all(&l, MAXP, 0xa5));
	for (int i = 0; i < nconf; i++) {
		int hits = 0;

		if (!conf[i].loadable)
			continue;
		loadable++;
		for (DAT_COUNT j = 0; j < l.n; j++)
			if (!strcmp(l.info[j].ia_name, conf[i].name) &&
			    l.info[j].dapl_version_major == conf[i].major &&
			    l.info[j].dapl_version_minor == conf[i].minor &&
			    l.info[j].is_thread_safe == conf[i].thread_safe)
				hits++;
		DC_ASSERT(hits == 1, "dat.conf entry '%.40s' %s %s is listed %d times",
			  conf[i].name, conf[i].api, conf[i].ts, hits);
	}
	DC_SETUP_ASSERT(loadable == DC_REGFIX_LISTED, "the fixture has %d loadable entries, not %d",
			loadable, DC_REGFIX_LISTED);
	/* and nothing else: no nondefault, kernel, malformed or over-long entry */
	DC_ASSERT_EQ(l.n, loadable);
}

DC_CASE(dat_registry_list_providers, no_effect,
	.summary = "two lists are identical, listing initialises no Provider and registers nothing, entries still open",
	.flags = DC_NO_IA)
{
	static struct listing a, b;
	DAT_PROVIDER_INFO k = key_of("regfix-one", DAT_VERSION_MAJOR, DAT_VERSION_MINOR, DAT_FALSE);
	DAT_IA_HANDLE ia;

	dc_registry_rich();
	DC_ASSERT_SUCCESS(list_all(&a, MAXP, 0));
	DC_ASSERT_SUCCESS(list_all(&b, MAXP, 0));
	DC_ASSERT_EQ(a.n, b.n);
	DC_ASSERT(!memcmp(a.info, b.info, sizeof(a.info)), "two lists differ");
	DC_ASSERT(dc_regprov_count(t, "init ") == 0,
		  "listing called a Provider's init:\n%s", dc_regprov_log(t));
	DC_ASSERT(!registered(&k), "listing registered 'regfix-one'");
	/* and opening still works afterwards */
	DC_ASSERT_SUCCESS(open_key(&k, &ia));
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_registry_list_providers, listed_entry_opens,
	.summary = "every listed entry (three of one name among them) opens with exactly its key, through its own dat.conf line",
	.flags = DC_NO_IA)
{
	static struct listing l;
	DAT_IA_HANDLE ia;

	dc_registry_rich();
	DC_SETUP(list_all(&l, MAXP, 0));
	DC_SETUP_ASSERT(l.n == DC_REGFIX_LISTED, "%d entries listed, the fixture has %d",
			l.n, DC_REGFIX_LISTED);
	for (DAT_COUNT i = 0; i < l.n; i++) {
		DAT_RETURN r = open_key(&l.info[i], &ia);

		DC_ASSERT(r == DAT_SUCCESS, "listed entry '%.40s' u%u.%u thread safety %d: open gave %s",
			  l.info[i].ia_name, (unsigned int)l.info[i].dapl_version_major,
			  (unsigned int)l.info[i].dapl_version_minor,
			  (int)l.info[i].is_thread_safe, dc_ret_text(r));
		/* the registry loaded the entry's own line: init got exactly its key */
		DC_ASSERT(dc_regprov_count(t, log_key("init", &l.info[i])) == 1,
			  "opening '%.40s' did not initialise its own entry:\n%s",
			  l.info[i].ia_name, dc_regprov_log(t));
		DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	}
}

DC_CASE(dat_registry_list_providers, success_count,
	.summary = "number_entries is the number of entries written; the rest of the list is untouched",
	.flags = DC_NO_IA)
{
	static struct listing l;
	static DAT_PROVIDER_INFO poison;

	dc_registry_rich();
	memset(&poison, 0xa5, sizeof(poison));
	DC_ASSERT_SUCCESS(list_all(&l, MAXP, 0xa5));
	DC_ASSERT(l.n == DC_REGFIX_LISTED, "number_entries is %d for the fixture's %d entries",
		  l.n, DC_REGFIX_LISTED);
	for (DAT_COUNT i = 0; i < l.n; i++)
		DC_ASSERT(memcmp(&l.info[i], &poison, sizeof(poison)) != 0,
			  "entry %d of %d was not written", i, l.n);
	for (DAT_COUNT i = l.n; i < MAXP; i++)
		DC_ASSERT(!memcmp(&l.info[i], &poison, sizeof(poison)),
			  "entry %d beyond number_entries %d was written", i, l.n);
}

DC_CASE(dat_registry_list_providers, list_too_small,
	.clauses = "dat_registry_list_providers.list_too_small dat_registry_list_providers.failure_reports_count",
	.summary = "too small (count-1, 0), NULL entries or a NULL list: INVALID_PARAMETER with number_entries = the count",
	.flags = DC_NO_IA)
{
	static struct listing l;
	/* each call's return is list_too_small's, the number_entries it
	 * leaves failure_reports_count's: the calls first, then each
	 * clause's checks of all of them */
	struct {
		const char *expr;
		DAT_RETURN r;
		DAT_COUNT n;
	} call[4];
	int k = 0;
	DAT_COUNT n, got;

	dc_registry_rich();
	DC_SETUP(list_all(&l, MAXP, 0));
	n = l.n;
	DC_SETUP_ASSERT(n >= 1, "the static registry is empty; nothing can be too small");
	call[k].expr = "list_all(&l, n - 1, 0)";
	call[k].r = list_all(&l, n - 1, 0);
	call[k++].n = l.n;
	if (n > 1) {
		call[k].expr = "list_all(&l, 0, 0)";
		call[k].r = list_all(&l, 0, 0);
		call[k++].n = l.n;
	}
	/* room announced, but the entries point to NULL */
	memset(l.ptr, 0, sizeof(l.ptr));
	got = -7;
	call[k].expr = "dat_registry_list_providers(MAXP, &got, l.ptr)";
	call[k].r = dat_registry_list_providers(MAXP, &got, l.ptr);
	call[k++].n = got;
	got = -7;
	call[k].expr = "dat_registry_list_providers(MAXP, &got, NULL)";
	call[k].r = dat_registry_list_providers(MAXP, &got, NULL);
	call[k++].n = got;

	DC_FOR_CLAUSE("dat_registry_list_providers.list_too_small");
	for (int i = 0; i < k; i++)
		dc_assert_ret_at(t, __FILE__, __LINE__, call[i].expr, call[i].r, DC_FAIL,
				 1, (const DAT_RETURN[]){ DAT_INVALID_PARAMETER }, DC_ANY_SUBTYPE);
	DC_FOR_CLAUSE("dat_registry_list_providers.failure_reports_count");
	for (int i = 0; i < k; i++)
		DC_ASSERT(call[i].n == n, "%s left number_entries %d; a successful call reports %d",
			  call[i].expr, call[i].n, n);
}

/*
 * A fresh process (forked before this one touched the registry) whose
 * DAT_OVERRIDE names a missing file.  Child exit codes: 0 the call said
 * DAT_INTERNAL_ERROR, 1 it said something else, 2 it listed the run's
 * registry (loaded before the fork: cannot check).
 */
DC_CASE(dat_registry_list_providers, registry_missing,
	.summary = "with DAT_OVERRIDE naming a missing file the call gives DAT_INTERNAL_ERROR",
	.flags = DC_NO_IA)
{
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	DC_SETUP_ASSERT(pid >= 0, "fork failed");
	if (pid == 0) {
		DAT_PROVIDER_INFO info, *ptr = &info;
		DAT_COUNT n = 0;
		DAT_RETURN r;

		setenv("DAT_OVERRIDE", "/nonexistent/datcts/dat.conf", 1);
		r = dat_registry_list_providers(1, &n, &ptr);
		if (DAT_GET_TYPE(r) == DAT_INTERNAL_ERROR)
			_exit(0);
		if (r == DAT_SUCCESS && n > 0)
			_exit(2);
		fprintf(stderr, "dat_registry_list_providers returned 0x%08x\n", (unsigned int)r);
		_exit(1);
	}
	DC_SETUP_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid failed");
	DC_SETUP_ASSERT(WIFEXITED(status), "the child died");
	DC_SETUP_ASSERT(WEXITSTATUS(status) != 2,
			"the registry was already loaded before the fork; cannot check");
	DC_ASSERT(WEXITSTATUS(status) == 0,
		  "with a missing dat.conf the call did not return DAT_INTERNAL_ERROR (see stderr)");
}

DC_CASE(dat_registry_list_providers, name_terminated,
	.summary = "every listed ia_name, one of the maximum length among them, is NUL-terminated within DAT_NAME_MAX_LENGTH",
	.flags = DC_NO_IA)
{
	static struct listing l;
	int max_seen = 0;

	dc_registry_rich();
	DC_ASSERT_SUCCESS(list_all(&l, MAXP, 0xa5));
	for (DAT_COUNT i = 0; i < l.n; i++) {
		DC_ASSERT(memchr(l.info[i].ia_name, '\0', DAT_NAME_MAX_LENGTH),
			  "entry %d's ia_name is not NUL-terminated", i);
		max_seen += !strcmp(l.info[i].ia_name, dc_regfix_max_name());
	}
	DC_ASSERT(max_seen == 1, "the %d-character name is listed %d times",
		  DC_REGFIX_NAME_MAX, max_seen);
}
