/*
 * The DAT registry: static entries from dat.conf, providers that
 * registered themselves (dynamic registry), and the table of open IAs.
 *
 * One recursive lock guards all of it. It is recursive because provider
 * init/fini run under it and call back into dat_registry_add/remove. The
 * provider's ia_open/ia_close run without it, so a slow open does not
 * block the rest of the process.
 */
#include "dat_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DATCTS_DAT_CONF
#define DATCTS_DAT_CONF "/etc/dat.conf"
#endif

struct dat_dr_entry {
	DAT_PROVIDER_INFO	info;
	const DAT_PROVIDER	*provider;
	int			in_use;		/* open IAs and opens in flight */
	struct dat_dr_entry	*next;
};

struct dat_open_ia {
	DAT_IA_HANDLE		ia;
	struct dat_dr_entry	*dr;
	struct dat_sr_entry	*sr;		/* NULL: registered directly */
	bool			closing;
};

static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t reg_lock;

static bool sr_loaded;
static struct dat_conf sr;
static struct dat_dr_entry *dr_list;
static int dr_count;		/* registrations in dr_list */
static struct dat_open_ia *ias;
static size_t n_ias, cap_ias;

static void reg_init(void)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&reg_lock, &attr);
	pthread_mutexattr_destroy(&attr);
}

static void reg_lock_take(void)
{
	pthread_once(&reg_once, reg_init);
	pthread_mutex_lock(&reg_lock);
}

static void reg_lock_drop(void)
{
	pthread_mutex_unlock(&reg_lock);
}

bool dat_info_key_equal(const DAT_PROVIDER_INFO *a, const DAT_PROVIDER_INFO *b)
{
	return strcmp(a->ia_name, b->ia_name) == 0 &&
	       a->dapl_version_major == b->dapl_version_major &&
	       a->dapl_version_minor == b->dapl_version_minor &&
	       a->is_thread_safe == b->is_thread_safe;
}

static const char *ts_word(DAT_BOOLEAN ts)
{
	return ts == DAT_TRUE ? "threadsafe" : "nonthreadsafe";
}

/* Read dat.conf once per process; later calls see the same registry. */
static void sr_load(void)
{
	const char *path = secure_getenv("DAT_OVERRIDE");
	bool from_env = path && path[0] != '\0';

	if (sr_loaded)
		return;
	sr_loaded = true;
	if (from_env)
		dat_conf_parse(path, "from DAT_OVERRIDE", false, &sr);
	else
		dat_conf_parse(DATCTS_DAT_CONF, "built-in default", true, &sr);
}

static struct dat_sr_entry *sr_find(const DAT_PROVIDER_INFO *key)
{
	struct dat_sr_entry *e;

	for (e = sr.entries; e; e = e->next) {
		if (dat_info_key_equal(&e->info, key))
			return e;
	}
	return NULL;
}

static struct dat_dr_entry *dr_find(const DAT_PROVIDER_INFO *key)
{
	struct dat_dr_entry *d;

	for (d = dr_list; d; d = d->next) {
		if (dat_info_key_equal(&d->info, key))
			return d;
	}
	return NULL;
}

/* Load the library and run its init on first use; counted per entry. */
static bool sr_open(struct dat_sr_entry *e)
{
	DAT_PROVIDER_INIT_FUNC init;

	if (e->refs > 0) {
		e->refs++;
		return true;
	}
	if (!e->dl) {
		/* Bare names go through the loader's search path. */
		e->dl = dlopen(e->lib_path, RTLD_NOW | RTLD_LOCAL);
		if (!e->dl) {
			if (!e->load_reported)
				fprintf(stderr, LIBDAT_PREFIX "%s:%d: IA '%s': cannot load provider library %s: %s\n",
					e->conf_path, e->line, e->info.ia_name,
					e->lib_path, dlerror());
			e->load_reported = true;
			return false;
		}
	}
	dlerror();
	init = (DAT_PROVIDER_INIT_FUNC)(uintptr_t)dlsym(e->dl, DAT_PROVIDER_INIT_FUNC_STR);
	if (!init) {
		const char *err = dlerror();

		if (!e->load_reported)
			fprintf(stderr, LIBDAT_PREFIX "%s:%d: IA '%s': provider library %s has no %s: %s\n",
				e->conf_path, e->line, e->info.ia_name, e->lib_path,
				DAT_PROVIDER_INIT_FUNC_STR,
				err ? err : "symbol is NULL");
		e->load_reported = true;
		return false;
	}
	/* fini is optional: a provider may never unregister. */
	e->fini = (DAT_PROVIDER_FINI_FUNC)(uintptr_t)dlsym(e->dl, DAT_PROVIDER_FINI_FUNC_STR);
	e->refs = 1;
	init(&e->info, e->ia_params);
	return true;
}

/*
 * Drop one use; the last one runs fini. The library stays mapped: a
 * provider whose fini forgot to unregister would otherwise leave a
 * dangling table in the dynamic registry.
 */
static void sr_close(struct dat_sr_entry *e)
{
	if (--e->refs > 0)
		return;
	if (e->fini) {
		e->fini(&e->info);
	}
}

/* Most specific reason why no registration matches @key. */
static DAT_RETURN not_found(const DAT_PROVIDER_INFO *key)
{
	bool name = false, major = false, minor = false;
	struct dat_sr_entry *e;
	struct dat_dr_entry *d;
	const DAT_PROVIDER_INFO *i;

	for (e = sr.entries, d = dr_list; e || d;) {
		if (e) {
			i = &e->info;
			e = e->next;
		} else {
			i = &d->info;
			d = d->next;
		}
		if (strcmp(i->ia_name, key->ia_name) != 0)
			continue;
		name = true;
		if (i->dapl_version_major != key->dapl_version_major)
			continue;
		major = true;
		if (i->dapl_version_minor == key->dapl_version_minor)
			minor = true;
	}
	if (!name)
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	if (!major)
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_MAJOR_NOT_FOUND);
	if (!minor)
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_MINOR_NOT_FOUND);
	return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_THREAD_SAFETY_NOT_FOUND);
}

static struct dat_open_ia *ia_find(DAT_IA_HANDLE ia)
{
	size_t i;

	for (i = 0; i < n_ias; i++) {
		if (ias[i].ia == ia)
			return &ias[i];
	}
	return NULL;
}

static bool ia_add(DAT_IA_HANDLE ia, struct dat_dr_entry *dr,
		   struct dat_sr_entry *e)
{
	if (n_ias == cap_ias) {
		size_t cap = cap_ias ? 2 * cap_ias : 16;
		struct dat_open_ia *n = realloc(ias, cap * sizeof(*n));

		if (!n)
			return false;
		ias = n;
		cap_ias = cap;
	}
	ias[n_ias++] = (struct dat_open_ia){ .ia = ia, .dr = dr, .sr = e };
	return true;
}

bool dat_ia_is_open(DAT_IA_HANDLE ia)
{
	bool open;

	reg_lock_take();
	open = ia_find(ia) != NULL;
	reg_lock_drop();
	return open;
}

DAT_RETURN dat_ia_openv(const DAT_NAME_PTR name, DAT_COUNT async_evd_qlen,
			DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia_handle,
			DAT_UINT32 major, DAT_UINT32 minor, DAT_BOOLEAN thread_safe)
{
	DAT_PROVIDER_INFO key;
	struct dat_sr_entry *e;
	struct dat_dr_entry *dr;
	DAT_IA_OPEN_FUNC open_func;
	DAT_RETURN st;

	if (!name || strnlen(name, DAT_NAME_MAX_LENGTH) >= DAT_NAME_MAX_LENGTH)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!ia_handle)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);

	memset(&key, 0, sizeof(key));
	strcpy(key.ia_name, name);
	key.dapl_version_major = major;
	key.dapl_version_minor = minor;
	key.is_thread_safe = thread_safe;

	reg_lock_take();
	sr_load();
	e = sr_find(&key);
	if (e && !sr_open(e)) {
		reg_lock_drop();
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
	}
	dr = dr_find(&key);
	if (!dr) {
		if (e) {
			if (!e->reg_reported)
				fprintf(stderr, LIBDAT_PREFIX "%s:%d: provider library %s did not register IA '%s' (u%u.%u %s) from %s\n",
					e->conf_path, e->line, e->lib_path,
					e->info.ia_name,
					e->info.dapl_version_major,
					e->info.dapl_version_minor,
					ts_word(e->info.is_thread_safe),
					DAT_PROVIDER_INIT_FUNC_STR);
			e->reg_reported = true;
			sr_close(e);
			st = DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
		} else {
			st = not_found(&key);
		}
		reg_lock_drop();
		return st;
	}
	dr->in_use++;
	open_func = dr->provider->ia_open_func;
	reg_lock_drop();

	st = open_func(name, async_evd_qlen, async_evd, ia_handle);

	reg_lock_take();
	if (st == DAT_SUCCESS && !ia_add(*ia_handle, dr, e)) {
		/* Cannot track it, so cannot ever release it: undo. */
		if (dr->provider->ia_close_func)
			dr->provider->ia_close_func(*ia_handle, DAT_CLOSE_ABRUPT_FLAG);
		*ia_handle = DAT_HANDLE_NULL;
		st = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	if (st != DAT_SUCCESS) {
		dr->in_use--;
		if (e)
			sr_close(e);
	}
	reg_lock_drop();
	return st;
}

/* An IA handle that is not open (the same answer as dat_api.c's DISPATCH_IA). */
static DAT_RETURN not_open(void)
{
	return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
}

DAT_RETURN dat_ia_closev(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS flags)
{
	struct dat_open_ia *o;
	struct dat_dr_entry *dr;
	struct dat_sr_entry *e;
	DAT_IA_CLOSE_FUNC close_func;
	DAT_RETURN st;

	if (ia_handle == DAT_HANDLE_NULL)
		return not_open();

	reg_lock_take();
	o = ia_find(ia_handle);
	/* Unknown, or another thread is closing it right now. */
	if (!o || o->closing) {
		reg_lock_drop();
		return not_open();
	}
	close_func = o->dr->provider->ia_close_func;
	if (!close_func) {
		reg_lock_drop();
		return DAT_ERROR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	}
	o->closing = true;
	reg_lock_drop();

	st = close_func(ia_handle, flags);

	reg_lock_take();
	o = ia_find(ia_handle);
	if (st != DAT_SUCCESS) {
		/* e.g. a graceful close with objects left: the IA lives on */
		o->closing = false;
		reg_lock_drop();
		return st;
	}
	dr = o->dr;
	e = o->sr;
	*o = ias[--n_ias];
	dr->in_use--;
	if (e)
		sr_close(e);
	reg_lock_drop();
	return st;
}

/* The symbol other 1.2 headers link against; ours map it onto closev. */
DAT_RETURN (dat_ia_close)(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS flags)
{
	return dat_ia_closev(ia_handle, flags);
}

DAT_RETURN dat_registry_add_provider(const DAT_PROVIDER *provider,
				     const DAT_PROVIDER_INFO *info)
{
	struct dat_dr_entry *d;
	DAT_RETURN st = DAT_SUCCESS;

	if (!provider || !provider->ia_open_func)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!info || strnlen(info->ia_name, DAT_NAME_MAX_LENGTH) >= DAT_NAME_MAX_LENGTH)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	reg_lock_take();
	if (dr_find(info)) {
		st = DAT_ERROR(DAT_PROVIDER_ALREADY_REGISTERED, DAT_NO_SUBTYPE);
	} else if (dr_count >= DAT_DR_MAX_PROVIDERS) {
		st = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	} else if (!(d = calloc(1, sizeof(*d)))) {
		st = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	} else {
		d->info = *info;
		d->info.ia_name[DAT_NAME_MAX_LENGTH - 1] = '\0';
		d->provider = provider;
		d->next = dr_list;
		dr_list = d;
		dr_count++;
	}
	reg_lock_drop();
	return st;
}

DAT_RETURN dat_registry_remove_provider(const DAT_PROVIDER *provider,
					const DAT_PROVIDER_INFO *info)
{
	struct dat_dr_entry **pp, *d;
	DAT_RETURN st = DAT_SUCCESS;

	if (!provider)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!info || strnlen(info->ia_name, DAT_NAME_MAX_LENGTH) >= DAT_NAME_MAX_LENGTH)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	reg_lock_take();
	for (pp = &dr_list; *pp; pp = &(*pp)->next) {
		if (dat_info_key_equal(&(*pp)->info, info))
			break;
	}
	d = *pp;
	if (!d)
		st = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (d->provider != provider)
		st = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	else if (d->in_use > 0)
		st = DAT_ERROR(DAT_PROVIDER_IN_USE, DAT_NO_SUBTYPE);
	else {
		*pp = d->next;
		free(d);
		dr_count--;
	}
	reg_lock_drop();
	return st;
}

/* Is @e listed?  Every loadable entry; with list-drops-same-name, only the
 * first entry of each IA name. */
static bool listed(const struct dat_sr_entry *e)
{
	const struct dat_sr_entry *f;

	return true;
	for (f = sr.entries; f != e; f = f->next)
		if (!strcmp(f->info.ia_name, e->info.ia_name))
			return false;
	return true;
}

static DAT_COUNT list_count(void)
{
	const struct dat_sr_entry *e;
	DAT_COUNT n = 0;

	for (e = sr.entries; e; e = e->next)
		n += listed(e);
	return n;
}

DAT_RETURN dat_registry_list_providers(DAT_COUNT max_to_return,
				       DAT_COUNT *entries_returned,
				       DAT_PROVIDER_INFO *(dat_provider_list[]))
{
	struct dat_sr_entry *e;
	DAT_RETURN st = DAT_SUCCESS;
	DAT_COUNT i, count;

	if (!entries_returned)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	reg_lock_take();
	sr_load();
	count = list_count();
	if (!sr.readable) {
		/* the man page's "static registry is missing" */
		*entries_returned = 0;
		st = DAT_ERROR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	} else if (max_to_return <= 0 || max_to_return < count) {
		/* Too small (0 included): tell the caller how many exist. */
		*entries_returned = count;
		st = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	} else {
		/* A NULL list, or NULL entries, is "too small" as well. */
		if (!dat_provider_list)
			st = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		for (i = 0; st == DAT_SUCCESS && i < count; i++)
			if (!dat_provider_list[i])
				st = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		for (e = sr.entries, i = 0; st == DAT_SUCCESS && e; e = e->next) {
			if (!listed(e))
				continue;
			*dat_provider_list[i] = e->info;
			i++;
		}
		/* Success: entries filled; failure: the registry's size. */
		*entries_returned = count;
	}
	reg_lock_drop();
	return st;
}
