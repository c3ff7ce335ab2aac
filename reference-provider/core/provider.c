// SPDX-License-Identifier: MIT
/*
 * provider.c - the two symbols the registry looks up: dat_provider_init
 * and dat_provider_fini (dat_provider_init.3dat, dat_provider_fini.3dat).
 * The dispatch table they register is the ABI's own (abi12.c, abi20.c).
 *
 * Several dat.conf lines may name this library, each with its own IA name
 * and instance data.  Every IA name gets its own provider record: a copy
 * of the dispatch table whose device_name is that IA name (libdat finds
 * the registry entry again through device_name on dat_ia_close).  Records
 * are never freed: a stale handle's first word keeps pointing at a valid
 * table after dat_provider_fini.
 */
#include "ref.h"
#include "conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_EXPORT __attribute__((visibility("default")))

/* ---- instance data ------------------------------------------------------------- */

int ref_instance_parse(const char *s, struct ref_instance *out,
		       const char **why)
{
	const char *colon, *arg;
	size_t klen;
	const char *dummy;

	if (!why)
		why = &dummy;
	memset(out, 0, sizeof(*out));
	if (!s || !*s) {
		out->kind = REF_TRANSPORT_SOCK;
		strcpy(out->arg, "127.0.0.1");
		return 0;
	}
	colon = strchr(s, ':');
	if (!colon) {
		*why = "expected <transport>:<argument>, e.g. sock:127.0.0.1";
		return -1;
	}
	klen = (size_t)(colon - s);
	arg = colon + 1;
	if (strlen(arg) >= sizeof(out->arg)) {
		*why = "argument too long";
		return -1;
	}
	if (strchr(arg, ' ') || strchr(arg, '\t')) {
		*why = "blank in argument";
		return -1;
	}
	if (klen == 4 && !strncmp(s, "sock", 4)) {
		out->kind = REF_TRANSPORT_SOCK;
		strcpy(out->arg, *arg ? arg : "127.0.0.1");
		return 0;
	}
	if (klen == 5 && !strncmp(s, "verbs", 5)) {
		if (!*arg) {
			*why = "verbs needs a device name (verbs:<device>)";
			return -1;
		}
		out->kind = REF_TRANSPORT_VERBS;
		strcpy(out->arg, arg);
		return 0;
	}
	*why = "unknown transport (sock or verbs)";
	return -1;
}

/* ---- provider records ----------------------------------------------------------- */

struct ref_provider_rec {
	DAT_PROVIDER prov;
	char name[DAT_NAME_MAX_LENGTH];
	char *instance;
	DAT_PROVIDER_INFO info;
	bool active;			/* registered with the dynamic registry */
	struct ref_provider_rec *next;
};

static pthread_mutex_t recs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ref_provider_rec *recs;

static struct ref_provider_rec *rec_find(const char *name)
{
	struct ref_provider_rec *r;

	for (r = recs; r; r = r->next)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

DAT_PROVIDER *ref_provider_find(const char *name, const char **instance_data)
{
	struct ref_provider_rec *r;
	DAT_PROVIDER *p = NULL;

	pthread_mutex_lock(&recs_lock);
	r = rec_find(name);
	if (r && r->active) {
		p = &r->prov;
		if (instance_data)
			*instance_data = r->instance;
	}
	pthread_mutex_unlock(&recs_lock);
	return p;
}

/*
 * dat_provider_init.3dat: registers exactly provider_info->ia_name.
 * Malformed instance data is reported on stderr and nothing is
 * registered (dat_ia_open then finds no provider).
 */
REF_EXPORT void dat_provider_init(const DAT_PROVIDER_INFO *info,
				  const char *instance_data)
{
	struct ref_provider_rec *r;
	struct ref_instance inst;
	const char *why = "";
	char *copy;
	DAT_RETURN rc;

	if (!info || !memchr(info->ia_name, '\0', sizeof(info->ia_name)) ||
	    !info->ia_name[0])
		return;
	if (ref_instance_parse(instance_data, &inst, &why)) {
		fprintf(stderr,
			"libdaplref: %s: bad instance data \"%s\": %s; not registered\n",
			info->ia_name, instance_data, why);
		return;
	}
	copy = strdup(instance_data ? instance_data : "");
	if (!copy)
		return;

	pthread_mutex_lock(&recs_lock);
	r = rec_find(info->ia_name);
	if ((r && r->active)) {
		pthread_mutex_unlock(&recs_lock);
		free(copy);
		return;		/* already registered: nothing to do */
	}
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r) {
			pthread_mutex_unlock(&recs_lock);
			free(copy);
			return;
		}
		snprintf(r->name, sizeof(r->name), "%s", info->ia_name);
		r->prov = ref_provider;
		r->prov.device_name = r->name;
		r->next = recs;
		recs = r;
	}
	/* IAs keep their own copy of the instance data */
	free(r->instance);
	r->instance = copy;
	r->info = *info;
	rc = dat_registry_add_provider(&r->prov, &r->info);
	r->active = rc == DAT_SUCCESS;
	pthread_mutex_unlock(&recs_lock);
	if (rc != DAT_SUCCESS)
		fprintf(stderr,
			"libdaplref: %s: dat_registry_add_provider failed (0x%08x)\n",
			info->ia_name, (unsigned int)rc);
}

/* dat_provider_fini.3dat: unregisters the IA name again. */
REF_EXPORT void dat_provider_fini(const DAT_PROVIDER_INFO *info)
{
	struct ref_provider_rec *r;

	if (!info || !memchr(info->ia_name, '\0', sizeof(info->ia_name)))
		return;
	pthread_mutex_lock(&recs_lock);
	r = rec_find(info->ia_name);
	if (r && r->active) {
		dat_registry_remove_provider(&r->prov, &r->info);
		r->active = false;
	}
	pthread_mutex_unlock(&recs_lock);
}

/*
 * Records outlive dat_provider_fini for stale handles' sake; once the
 * registry unloads the library with no object left, no handle can reach
 * them any more.
 */
__attribute__((destructor)) static void recs_release(void)
{
	if (!ref_handles_idle())
		return;
	while (recs) {
		struct ref_provider_rec *r = recs;

		recs = r->next;
		free(r->instance);
		free(r);
	}
}
