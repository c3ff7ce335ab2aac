/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_provider_fini(3DAT); clauses in clauses/dat_provider_fini.toml.
 */
#include "registry_common.h"

#include <sys/wait.h>
#include <unistd.h>

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
	/* collateral: dat_provider_fini(3DAT) DESCRIPTION: the name fini removed opens no more */
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
	/* collateral: dat_provider_fini(3DAT) DESCRIPTION: fini has not run while an instance is open, so the registration is still there and in use */
	DC_ASSERT_RET(dat_registry_remove_provider(dc_ia_provider(t->ia), &real),
		      DAT_PROVIDER_IN_USE);
	/* collateral: dat_provider_fini(3DAT) DESCRIPTION: as above, the open instance still works */
	DC_ASSERT_SUCCESS(dat_pz_create(t->ia, &pz));
	/* collateral: dat_provider_fini(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_pz_free(pz));
}

/* The fixture's regfix-one entry, nonthreadsafe. */
static DAT_PROVIDER_INFO regfix_one(void)
{
	return key_of("regfix-one", DAT_VERSION_MAJOR, DAT_VERSION_MINOR, DAT_FALSE);
}

/*
 * In a child process: open regfix-one, close it, and exit normally, so the
 * fixture Provider's library leaves the process whichever way the registry
 * lets it (dlclose, or the exit).  The parent reads the Provider's log:
 * every "unload" must come when each init has had its fini.
 */
DC_CASE(dat_provider_fini, before_unload,
	.summary = "the fixture Provider is never unloaded with an init not yet undone by fini (open, close, exit)",
	.flags = DC_NO_IA)
{
	static const char conf[] =
		"regfix-one @API@ nonthreadsafe default @LIB@ ri.1.0 \"\" \"\"\n";
	DAT_PROVIDER_INFO k = regfix_one();
	const char *log, *p;
	int status = 0, live = 0, unloads = 0;
	pid_t pid;

	dc_registry_conf(conf);
	fflush(NULL);
	pid = fork();
	DC_SETUP_ASSERT(pid >= 0, "fork failed");
	if (pid == 0) {
		DAT_IA_HANDLE ia;

		if (open_key(&k, &ia) != DAT_SUCCESS)
			exit(10);
		if (dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS)
			exit(11);
		exit(0);	/* not _exit: the exit unloads what is still loaded */
	}
	DC_SETUP_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid failed");
	DC_SETUP_ASSERT(WIFEXITED(status), "the child died (status 0x%x)", status);
	DC_SETUP_ASSERT(WEXITSTATUS(status) != 10, "the child could not open regfix-one");
	DC_SETUP_ASSERT(WEXITSTATUS(status) != 11, "the child could not close regfix-one");
	log = dc_regprov_log(t);
	DC_SETUP_ASSERT(dc_regprov_count(t, "init ") == 1, "the open made %d inits:\n%s",
			dc_regprov_count(t, "init "), log);
	for (p = log; *p; p = strchrnul(p, '\n'), p += *p == '\n') {
		if (!strncmp(p, "init ", 5))
			live++;
		else if (!strncmp(p, "fini ", 5))
			live--;
		else if (!strncmp(p, "unload", 6)) {
			unloads++;
			DC_ASSERT(live == 0, "the Provider library was unloaded with %d init(s) "
				  "not followed by fini; the log:\n%s", live, log);
		}
	}
	DC_SETUP_ASSERT(unloads == 1, "the library left the process %d times:\n%s", unloads, log);
}

DC_CASE(dat_provider_fini, not_twice,
	.summary = "two instances open and closed, then a third: init, fini, init, fini, never two finis in a row",
	.flags = DC_NO_IA)
{
	static const char conf[] =
		"regfix-one @API@ nonthreadsafe default @LIB@ ri.1.0 \"\" \"\"\n";
	DAT_PROVIDER_INFO k = regfix_one();
	DAT_IA_HANDLE a, b, c;
	const char *log, *p;
	bool inited = false;

	dc_registry_conf(conf);
	DC_SETUP(open_key(&k, &a));
	DC_SETUP(open_key(&k, &b));
	DC_SETUP(dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG));
	DC_SETUP(dat_ia_close(b, DAT_CLOSE_ABRUPT_FLAG));
	DC_SETUP(open_key(&k, &c));
	DC_SETUP(dat_ia_close(c, DAT_CLOSE_ABRUPT_FLAG));
	log = dc_regprov_log(t);
	for (p = log; *p; p = strchrnul(p, '\n'), p += *p == '\n') {
		if (!strncmp(p, "init ", 5)) {
			inited = true;
		} else if (!strncmp(p, "fini ", 5)) {
			DC_ASSERT(inited, "fini called again without an init in between; the log:\n%s",
				  log);
			inited = false;
		}
	}
	DC_ASSERT(dc_regprov_count(t, "fini ") >= 1, "fini was never called:\n%s", log);
}

DC_CASE(dat_provider_fini, fini_waits_for_last_close,
	.clauses = "dat_provider_fini.only_after_all_closed",
	.summary = "the fixture Provider with two instances open: no fini at the first close, one at the last",
	.flags = DC_NO_IA)
{
	static const char conf[] =
		"regfix-one @API@ nonthreadsafe default @LIB@ ri.1.0 \"\" \"\"\n";
	DAT_PROVIDER_INFO k = regfix_one();
	DAT_IA_HANDLE a, b;

	dc_registry_conf(conf);
	DC_SETUP(open_key(&k, &a));
	DC_SETUP(open_key(&k, &b));
	DC_SETUP(dat_ia_close(a, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT(dc_regprov_count(t, "fini ") == 0,
		  "fini was called with an instance still open; the log:\n%s", dc_regprov_log(t));
	DC_SETUP(dat_ia_close(b, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT(dc_regprov_count(t, "fini ") <= 1, "the log:\n%s", dc_regprov_log(t));
}
