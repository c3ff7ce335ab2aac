/* SPDX-License-Identifier: MIT */
/*
 * regprov.c - libdatcts-regprov.so, the registry fixture's Provider
 * (harness/dc_registry.h).  The registry cases list it in dat.conf files
 * of their own, under several IA names, and watch what the registry does
 * with it: every dat_provider_init and dat_provider_fini call, and the
 * library's unloading, is appended to the file named by
 * $DATCTS_REGPROV_LOG, one line each:
 *
 *     init <ia name> <major>.<minor> <thread safety 0|1> <instance data>
 *     fini <ia name> <major>.<minor> <thread safety 0|1>
 *     unload
 *
 * Init registers the IA name it is given (dat_provider_init(3DAT)), fini
 * removes it (dat_provider_fini(3DAT)), one dispatch table per
 * registration whose device_name is the IA name.  Its IAs do nothing but
 * open, close and answer a query with the registration's API version and
 * thread safety (libdat2 queries every IA it opens, and closes it through
 * the key it rebuilds from device_name and that answer).
 * Built once per DAT API, next to the case binaries it serves.
 */
#include "datcts.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct regprov_reg {
	DAT_PROVIDER table;		/* first: an IA's first word points here */
	DAT_PROVIDER_INFO info;
	bool used;
};

struct regprov_ia {
	DAT_PROVIDER *provider;		/* first word, as every DAT handle */
};

#define REGPROV_MAX 16
static struct regprov_reg regs[REGPROV_MAX];

/*
 * dat_ia_open reaches a registration through its table's ia_open_func
 * alone, with the IA name: entries of one name (other thread safety or
 * minor version) need one open function each to be told apart.
 */
static DAT_RETURN regprov_open(struct regprov_reg *g, DAT_COUNT qlen,
			       DAT_EVD_HANDLE *evd, DAT_IA_HANDLE *ia);
#define REGPROV_OPEN(i)								\
	static DAT_RETURN regprov_open_##i(const DAT_NAME_PTR name, DAT_COUNT qlen, \
					   DAT_EVD_HANDLE *evd, DAT_IA_HANDLE *ia) \
	{									\
		(void)name;							\
		return regprov_open(&regs[i], qlen, evd, ia);			\
	}
REGPROV_OPEN(0) REGPROV_OPEN(1) REGPROV_OPEN(2) REGPROV_OPEN(3)
REGPROV_OPEN(4) REGPROV_OPEN(5) REGPROV_OPEN(6) REGPROV_OPEN(7)
REGPROV_OPEN(8) REGPROV_OPEN(9) REGPROV_OPEN(10) REGPROV_OPEN(11)
REGPROV_OPEN(12) REGPROV_OPEN(13) REGPROV_OPEN(14) REGPROV_OPEN(15)
static const DAT_IA_OPEN_FUNC regprov_opens[REGPROV_MAX] = {
	regprov_open_0, regprov_open_1, regprov_open_2, regprov_open_3,
	regprov_open_4, regprov_open_5, regprov_open_6, regprov_open_7,
	regprov_open_8, regprov_open_9, regprov_open_10, regprov_open_11,
	regprov_open_12, regprov_open_13, regprov_open_14, regprov_open_15,
};
static DAT_RETURN regprov_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags);
static DAT_RETURN regprov_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *evd,
				DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
				DAT_PROVIDER_ATTR_MASK prov_mask, DAT_PROVIDER_ATTR *prov_attr);

static bool same_key(const DAT_PROVIDER_INFO *a, const DAT_PROVIDER_INFO *b)
{
	return !strncmp(a->ia_name, b->ia_name, DAT_NAME_MAX_LENGTH) &&
	       a->dapl_version_major == b->dapl_version_major &&
	       a->dapl_version_minor == b->dapl_version_minor &&
	       a->is_thread_safe == b->is_thread_safe;
}

/* The registration of @info: found, or a free slot set up for it. */
static struct regprov_reg *reg_of(const DAT_PROVIDER_INFO *info, bool make)
{
	struct regprov_reg *free_slot = NULL;

	for (int i = 0; i < REGPROV_MAX; i++) {
		if (regs[i].used && same_key(&regs[i].info, info))
			return &regs[i];
		if (!regs[i].used && !free_slot)
			free_slot = &regs[i];
	}
	if (!make || !free_slot)
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->info = *info;
	free_slot->info.ia_name[DAT_NAME_MAX_LENGTH - 1] = '\0';
	free_slot->table.device_name = free_slot->info.ia_name;
	free_slot->table.ia_open_func = regprov_opens[free_slot - regs];
	free_slot->table.ia_close_func = regprov_close;
	free_slot->table.ia_query_func = regprov_query;
	free_slot->used = true;
	return free_slot;
}

/* One line per event, written with one write(2) so lines never mix. */
static void regprov_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void regprov_log(const char *fmt, ...)
{
	const char *path = getenv("DATCTS_REGPROV_LOG");
	char line[1024];
	va_list ap;
	int fd, n;

	if (!path || !*path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) < 0)
		(void)0;	/* the case sees the line missing */
	close(fd);
}

static DAT_RETURN regprov_open(struct regprov_reg *g, DAT_COUNT qlen,
				DAT_EVD_HANDLE *evd, DAT_IA_HANDLE *ia)
{
	struct regprov_ia *r;

	(void)qlen;
	if (!g->used)
		return DAT_CLASS_ERROR | DAT_PROVIDER_NOT_FOUND;
	r = calloc(1, sizeof(*r));
	if (!r)
		return DAT_CLASS_ERROR | DAT_INSUFFICIENT_RESOURCES;
	r->provider = &g->table;
	if (evd && *evd == DAT_HANDLE_NULL)
		*evd = DAT_EVD_OUT_OF_SCOPE;
	*ia = r;
	return DAT_SUCCESS;
}

static DAT_RETURN regprov_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags)
{
	(void)flags;
	free(ia);
	return DAT_SUCCESS;
}

static DAT_RETURN regprov_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *evd,
				DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
				DAT_PROVIDER_ATTR_MASK prov_mask, DAT_PROVIDER_ATTR *prov_attr)
{
	const struct regprov_reg *g = (const struct regprov_reg *)
		((struct regprov_ia *)ia)->provider;

	(void)ia_mask, (void)prov_mask;
	if (evd)
		*evd = DAT_HANDLE_NULL;
	if (ia_attr)
		memset(ia_attr, 0, sizeof(*ia_attr));
	if (prov_attr) {
		memset(prov_attr, 0, sizeof(*prov_attr));
		prov_attr->dapl_version_major = g->info.dapl_version_major;
		prov_attr->dapl_version_minor = g->info.dapl_version_minor;
		prov_attr->is_thread_safe = g->info.is_thread_safe;
	}
	return DAT_SUCCESS;
}

__attribute__((visibility("default")))
void DAT_PROVIDER_INIT_FUNC_NAME(const DAT_PROVIDER_INFO *info, const char *instance_data)
{
	struct regprov_reg *g = reg_of(info, true);

	regprov_log("init %s %u.%u %d %s", info->ia_name,
		    (unsigned int)info->dapl_version_major,
		    (unsigned int)info->dapl_version_minor, (int)info->is_thread_safe,
		    instance_data ? instance_data : "");
	if (g)
		(void)dat_registry_add_provider(&g->table, &g->info);
}

__attribute__((visibility("default")))
void DAT_PROVIDER_FINI_FUNC_NAME(const DAT_PROVIDER_INFO *info)
{
	regprov_log("fini %s %u.%u %d", info->ia_name,
		    (unsigned int)info->dapl_version_major,
		    (unsigned int)info->dapl_version_minor, (int)info->is_thread_safe);
	struct regprov_reg *g = reg_of(info, false);

	if (g && dat_registry_remove_provider(&g->table, &g->info) == DAT_SUCCESS)
		g->used = false;
}

/* Runs when the library leaves the process: dlclose, or the exit. */
__attribute__((destructor)) static void regprov_unload(void)
{
	regprov_log("unload");
}
