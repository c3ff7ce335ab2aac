/* SPDX-License-Identifier: MIT */
/*
 * registry_common.h - helpers for the registry cases (cases/registry).
 *
 * - a stand-in Provider: a dispatch table of this process whose ia_open
 *   hands out small objects starting with the table pointer (the handle
 *   rule of dat12-facts.md 3.1) and counts its calls;
 * - the dat.conf line of the IA under test (library, instance data),
 *   read the way dat.conf(5) lays it out, so a case can load the Provider
 *   library itself and call its dat_provider_init / dat_provider_fini;
 * - keys: DAT_PROVIDER_INFO values.
 * Cases that judge the registry on dat.conf files of their own use the
 * registry fixture of the harness (dc_registry.h): dc_registry_rich().
 */
#ifndef REGISTRY_COMMON_H
#define REGISTRY_COMMON_H

#include "datcts.h"


#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline DAT_PROVIDER_INFO key_of(const char *name, DAT_UINT32 major, DAT_UINT32 minor,
				       DAT_BOOLEAN ts)
{
	DAT_PROVIDER_INFO k;

	memset(&k, 0, sizeof(k));
	memcpy(k.ia_name, name, strnlen(name, sizeof(k.ia_name) - 1));
	k.dapl_version_major = major;
	k.dapl_version_minor = minor;
	k.is_thread_safe = ts;
	return k;
}

/* The key dat_ia_open (the header macro) looks up for `name`. */
static inline DAT_PROVIDER_INFO key_1_2(const char *name)
{
	return key_of(name, DAT_VERSION_MAJOR, DAT_VERSION_MINOR, DAT_THREADSAFE);
}

/* ---- the stand-in Provider -------------------------------------------------- */

struct stub_ia {
	DAT_PROVIDER *provider;		/* first word, as every DAT handle */
	char name[DAT_NAME_MAX_LENGTH];
};

static int stub_opens, stub_closes;
static char stub_last_name[DAT_NAME_MAX_LENGTH];
static DAT_PROVIDER stub_provider;

static DAT_RETURN stub_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			    DAT_EVD_HANDLE *evd, DAT_IA_HANDLE *ia)
{
	struct stub_ia *s = calloc(1, sizeof(*s));

	(void)qlen;
	if (!s)
		return DAT_INSUFFICIENT_RESOURCES | DAT_CLASS_ERROR;
	s->provider = &stub_provider;
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(stub_last_name, sizeof(stub_last_name), "%s", name);
	if (evd && *evd == DAT_HANDLE_NULL)
		*evd = DAT_EVD_OUT_OF_SCOPE;
	*ia = s;
	stub_opens++;
	return DAT_SUCCESS;
}

static DAT_RETURN stub_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags)
{
	(void)flags;
	free(ia);
	stub_closes++;
	return DAT_SUCCESS;
}

/* Nothing to report; libdat2's dat_ia_open queries every IA it opens. */
static DAT_RETURN stub_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *evd,
			     DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
			     DAT_PROVIDER_ATTR_MASK prov_mask, DAT_PROVIDER_ATTR *prov_attr)
{
	(void)ia, (void)ia_mask, (void)prov_mask;
	if (evd)
		*evd = DAT_HANDLE_NULL;
	if (ia_attr)
		memset(ia_attr, 0, sizeof(*ia_attr));
	if (prov_attr)
		memset(prov_attr, 0, sizeof(*prov_attr));
	return DAT_SUCCESS;
}

static inline DAT_PROVIDER *stub(void)
{
	stub_provider.device_name = "datcts-stub";
	stub_provider.ia_open_func = stub_open;
	stub_provider.ia_close_func = stub_close;
	stub_provider.ia_query_func = stub_query;
	return &stub_provider;
}

/* ---- dat.conf --------------------------------------------------------------- */

struct conf_entry {
	/* every field as long as the parser's, so nothing is cut */
	char name[1024], api[1024], ts[1024], dflt[1024];
	char lib[1024], version[1024], instance[1024], platform[1024];
	DAT_UINT32 major, minor;
	DAT_BOOLEAN thread_safe;
	bool loadable;			/* u API, default, fields sound */
};

static inline const char *conf_path(void)
{
	const char *p = getenv("DAT_OVERRIDE");

	return p && *p ? p : "/etc/dat.conf";
}

/* Splits one line into fields (blanks separate, quotes group, \" \\ inside). */
static inline int conf_fields(const char *line, char f[][1024], int max)
{
	int n = 0;
	const char *p = line;

	for (;;) {
		size_t len = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n' || *p == '#')
			return n;
		if (n == max)
			return max + 1;
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				if (len < 1023)
					f[n][len++] = *p;
			}
			if (*p != '"')
				return -1;
			p++;
		} else {
			while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '#') {
				if (len < 1023)
					f[n][len++] = *p;
				p++;
			}
		}
		f[n][len] = '\0';
		n++;
	}
}

/* Reads every entry of dat.conf; returns the count (-1: unreadable). */
static inline int conf_read(struct conf_entry *out, int max)
{
	char line[4096], f[9][1024];
	FILE *fp = fopen(conf_path(), "r");
	int n = 0;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp) && n < max) {
		struct conf_entry *e = &out[n];
		unsigned int ma, mi;
		char api_kind;

		if (conf_fields(line, f, 8) != 8)
			continue;
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", f[0]);
		snprintf(e->api, sizeof(e->api), "%s", f[1]);
		snprintf(e->ts, sizeof(e->ts), "%s", f[2]);
		snprintf(e->dflt, sizeof(e->dflt), "%s", f[3]);
		snprintf(e->lib, sizeof(e->lib), "%s", f[4]);
		snprintf(e->version, sizeof(e->version), "%s", f[5]);
		snprintf(e->instance, sizeof(e->instance), "%s", f[6]);
		snprintf(e->platform, sizeof(e->platform), "%s", f[7]);
		if (sscanf(e->api, "%c%u.%u", &api_kind, &ma, &mi) != 3)
			continue;
		e->major = ma;
		e->minor = mi;
		e->thread_safe = !strcmp(e->ts, "threadsafe") ? DAT_TRUE : DAT_FALSE;
		/* DAT_NAME_MAX_LENGTH counts the NUL: a longer name cannot be listed */
		e->loadable = api_kind == 'u' && !strcmp(e->dflt, "default") &&
			      (!strcmp(e->ts, "threadsafe") || !strcmp(e->ts, "nonthreadsafe")) &&
			      strlen(e->name) < DAT_NAME_MAX_LENGTH;
		n++;
	}
	fclose(fp);
	return n;
}

/* Set-up: the loadable dat.conf entry of the IA under test. */
static inline struct conf_entry conf_of_ia_at(struct dc_ctx *t, const char *file, int line)
{
	static struct conf_entry all[64];
	int n = conf_read(all, 64);

	if (!t->ia_name || !*t->ia_name)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "no IA under test (DATCTS_IA)");
	if (n < 0)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "cannot read %s", conf_path());
	for (int i = 0; i < n; i++)
		if (all[i].loadable && !strcmp(all[i].name, t->ia_name) &&
		    all[i].major == DAT_VERSION_MAJOR && all[i].minor == DAT_VERSION_MINOR &&
		    all[i].thread_safe == DAT_THREADSAFE)
			return all[i];
	dc_end_at(t, DC_UNRESOLVED, file, line, false, "no u%d.%d entry for '%s' in %s",
		  DAT_VERSION_MAJOR, DAT_VERSION_MINOR, t->ia_name, conf_path());
}
#define conf_of_ia() conf_of_ia_at(t, __FILE__, __LINE__)

/* The Provider library of the IA under test, loaded by the Consumer. */
struct prov_lib {
	struct conf_entry conf;
	DAT_PROVIDER_INIT_FUNC init;
	DAT_PROVIDER_FINI_FUNC fini;
};

static inline struct prov_lib prov_lib_at(struct dc_ctx *t, const char *file, int line)
{
	struct prov_lib pl;
	void *dl;

	memset(&pl, 0, sizeof(pl));
	pl.conf = conf_of_ia_at(t, file, line);
	dl = dlopen(pl.conf.lib, RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "dlopen(%s): %s",
			  pl.conf.lib, dlerror());
	pl.init = (DAT_PROVIDER_INIT_FUNC)(uintptr_t)dlsym(dl, DAT_PROVIDER_INIT_FUNC_STR);
	pl.fini = (DAT_PROVIDER_FINI_FUNC)(uintptr_t)dlsym(dl, DAT_PROVIDER_FINI_FUNC_STR);
	if (!pl.init)
		dc_end_at(t, DC_UNRESOLVED, file, line, false, "%s has no %s", pl.conf.lib,
			  DAT_PROVIDER_INIT_FUNC_STR);
	return pl;
}
#define prov_lib() prov_lib_at(t, __FILE__, __LINE__)

/* Is `key` registered?  Probed by registering the stand-in under it. */
static inline bool registered_at(struct dc_ctx *t, const char *file, int line,
				 const DAT_PROVIDER_INFO *key)
{
	DAT_RETURN r = dat_registry_add_provider(stub(), key);

	if (r == DAT_SUCCESS) {
		r = dat_registry_remove_provider(stub(), key);
		if (r != DAT_SUCCESS)
			dc_end_at(t, DC_UNRESOLVED, file, line, false,
				  "set-up: removing the probe registration returned %s", dc_ret_text(r));
		return false;
	}
	if (DAT_GET_TYPE(r) == DAT_PROVIDER_ALREADY_REGISTERED)
		return true;
	dc_end_at(t, DC_UNRESOLVED, file, line, false,
		  "set-up: probing the registry with dat_registry_add_provider returned %s", dc_ret_text(r));
}
#define registered(key) registered_at(t, __FILE__, __LINE__, (key))

/* Opens the fixture's entry @name with exactly that key; 0 or the error. */
static inline DAT_RETURN open_key(const DAT_PROVIDER_INFO *k, DAT_IA_HANDLE *ia)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	*ia = DAT_HANDLE_NULL;
	return dat_ia_openv((DAT_NAME_PTR)k->ia_name, 8, &evd, ia, k->dapl_version_major,
			    k->dapl_version_minor, k->is_thread_safe);
}

/* "init NAME M.m TS" / "fini NAME M.m TS": the fixture Provider's log line of @k. */
static inline const char *log_key(const char *what, const DAT_PROVIDER_INFO *k)
{
	static char line[DAT_NAME_MAX_LENGTH + 64];

	snprintf(line, sizeof(line), "%s %s %u.%u %d", what, k->ia_name,
		 (unsigned int)k->dapl_version_major, (unsigned int)k->dapl_version_minor,
		 (int)k->is_thread_safe);
	return line;
}

#endif /* REGISTRY_COMMON_H */
