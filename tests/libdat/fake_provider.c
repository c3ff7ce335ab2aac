/*
 * A minimal DAT provider for libdat's tests. Every object it hands out
 * begins with its DAT_PROVIDER pointer, as the dispatch ABI requires.
 * The dat.conf instance data steers it:
 *   "noregister"    init does not register (libdat must say so)
 *   "graceful-busy" a graceful ia_close fails with DAT_INVALID_STATE
 */
#include "fake_provider.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IAS 8

enum fake_kind { FAKE_IA = 1, FAKE_PZ };

struct fake_obj {
	const DAT_PROVIDER	*provider;	/* must stay first */
	enum fake_kind		kind;
	DAT_CONTEXT		context;
};

__attribute__((visibility("default"))) struct fakeprov_stats fakeprov_stats;

static struct {
	DAT_PROVIDER		table;
	DAT_PROVIDER_INFO	info;
	char			name[DAT_NAME_MAX_LENGTH];
	char			instance[256];
	bool			used;
} slots[MAX_IAS];

static int slot_of(const DAT_PROVIDER *p)
{
	int i;

	for (i = 0; i < MAX_IAS; i++) {
		if (&slots[i].table == p)
			return i;
	}
	return -1;
}

static DAT_RETURN fake_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			       DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia)
{
	struct fake_obj *o;
	int i;

	(void)qlen;
	(void)async_evd;
	for (i = 0; i < MAX_IAS; i++) {
		if (slots[i].used && strcmp(slots[i].name, name) == 0)
			break;
	}
	if (i == MAX_IAS)
		return DAT_CLASS_ERROR | DAT_PROVIDER_NOT_FOUND;
	o = calloc(1, sizeof(*o));
	if (!o)
		return DAT_CLASS_ERROR | DAT_INSUFFICIENT_RESOURCES;
	o->provider = &slots[i].table;
	o->kind = FAKE_IA;
	*ia = o;
	fakeprov_stats.open_calls++;
	fakeprov_stats.open_ias++;
	return DAT_SUCCESS;
}

static DAT_RETURN fake_ia_query(DAT_IA_HANDLE ia, DAT_EVD_HANDLE *async_evd,
				DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
				DAT_PROVIDER_ATTR_MASK pa_mask,
				DAT_PROVIDER_ATTR *pa)
{
	struct fake_obj *o = ia;
	int s = slot_of(o->provider);

	(void)ia_mask;
	(void)pa_mask;
	if (async_evd)
		*async_evd = DAT_HANDLE_NULL;
	if (ia_attr) {
		memset(ia_attr, 0, sizeof(*ia_attr));
		strcpy(ia_attr->adapter_name, "fake adapter");
		strcpy(ia_attr->vendor_name, "datcts");
		ia_attr->max_eps = 7;
	}
	if (pa) {
		memset(pa, 0, sizeof(*pa));
		strcpy(pa->provider_name, "fakeprov");
		pa->provider_version_major = 0;
		pa->provider_version_minor = 1;
		pa->dapl_version_major = slots[s].info.dapl_version_major;
		pa->dapl_version_minor = slots[s].info.dapl_version_minor;
		pa->is_thread_safe = slots[s].info.is_thread_safe;
	}
	return DAT_SUCCESS;
}

static DAT_RETURN fake_ia_close(DAT_IA_HANDLE ia, DAT_CLOSE_FLAGS flags)
{
	struct fake_obj *o = ia;
	int s = slot_of(o->provider);

	fakeprov_stats.last_close_flags = flags;
	if (flags == DAT_CLOSE_GRACEFUL_FLAG &&
	    strcmp(slots[s].instance, "graceful-busy") == 0)
		return DAT_CLASS_ERROR | DAT_INVALID_STATE |
		       DAT_INVALID_STATE_IA_IN_USE;
	free(o);
	fakeprov_stats.close_calls++;
	fakeprov_stats.open_ias--;
	return DAT_SUCCESS;
}

static DAT_RETURN fake_pz_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE *pz)
{
	struct fake_obj *o = calloc(1, sizeof(*o));

	if (!o)
		return DAT_CLASS_ERROR | DAT_INSUFFICIENT_RESOURCES;
	o->provider = ((struct fake_obj *)ia)->provider;
	o->kind = FAKE_PZ;
	*pz = o;
	return DAT_SUCCESS;
}

static DAT_RETURN fake_pz_free(DAT_PZ_HANDLE pz)
{
	free(pz);
	return DAT_SUCCESS;
}

static DAT_RETURN fake_get_handle_type(DAT_HANDLE h, DAT_HANDLE_TYPE *type)
{
	*type = ((struct fake_obj *)h)->kind == FAKE_IA ? DAT_HANDLE_TYPE_IA :
							  DAT_HANDLE_TYPE_PZ;
	return DAT_SUCCESS;
}

static DAT_RETURN fake_set_context(DAT_HANDLE h, DAT_CONTEXT c)
{
	((struct fake_obj *)h)->context = c;
	return DAT_SUCCESS;
}

static DAT_RETURN fake_get_context(DAT_HANDLE h, DAT_CONTEXT *c)
{
	*c = ((struct fake_obj *)h)->context;
	return DAT_SUCCESS;
}

__attribute__((visibility("default")))
void dat_provider_init(const DAT_PROVIDER_INFO *info, const char *instance)
{
	int i;

	fakeprov_stats.init_calls++;
	strncpy(fakeprov_stats.last_instance_data, instance ? instance : "",
		sizeof(fakeprov_stats.last_instance_data) - 1);
	for (i = 0; i < MAX_IAS && slots[i].used; i++)
		;
	if (i == MAX_IAS)
		return;
	memset(&slots[i], 0, sizeof(slots[i]));
	slots[i].used = true;
	slots[i].info = *info;
	strcpy(slots[i].name, info->ia_name);
	strncpy(slots[i].instance, instance ? instance : "",
		sizeof(slots[i].instance) - 1);
	slots[i].table.device_name = slots[i].name;
	slots[i].table.ia_open_func = fake_ia_open;
	slots[i].table.ia_query_func = fake_ia_query;
	slots[i].table.ia_close_func = fake_ia_close;
	slots[i].table.pz_create_func = fake_pz_create;
	slots[i].table.pz_free_func = fake_pz_free;
	slots[i].table.get_handle_type_func = fake_get_handle_type;
	slots[i].table.set_consumer_context_func = fake_set_context;
	slots[i].table.get_consumer_context_func = fake_get_context;
	if (strcmp(slots[i].instance, "noregister") == 0)
		return;
	fakeprov_stats.last_add_status =
		dat_registry_add_provider(&slots[i].table, info);
}

__attribute__((visibility("default")))
void dat_provider_fini(const DAT_PROVIDER_INFO *info)
{
	int i;

	fakeprov_stats.fini_calls++;
	for (i = 0; i < MAX_IAS; i++) {
		if (slots[i].used && strcmp(slots[i].name, info->ia_name) == 0)
			break;
	}
	if (i == MAX_IAS)
		return;
	fakeprov_stats.last_remove_status =
		dat_registry_remove_provider(&slots[i].table, info);
	slots[i].used = false;
}
