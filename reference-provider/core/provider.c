// SPDX-License-Identifier: MIT
/*
 * provider.c - the dispatch table and the two symbols libdat looks up:
 * dat_provider_init and dat_provider_fini (dat_provider_init.3dat,
 * dat_provider_fini.3dat).
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

DAT_PROVIDER ref_provider = {
	.device_name = "ref",
	.extension = NULL,

	.ia_open_func = ref_ia_open,
	.ia_query_func = ref_ia_query,
	.ia_close_func = ref_ia_close,

	.set_consumer_context_func = ref_set_consumer_context,
	.get_consumer_context_func = ref_get_consumer_context,
	.get_handle_type_func = ref_get_handle_type,

	.cno_create_func = ref_cno_create,
	.cno_modify_agent_func = ref_cno_modify_agent,
	.cno_query_func = ref_cno_query,
	.cno_free_func = ref_cno_free,
	.cno_wait_func = ref_cno_wait,

	.cr_query_func = ref_cr_query,
	.cr_accept_func = ref_cr_accept,
	.cr_reject_func = ref_cr_reject,
	.cr_handoff_func = ref_cr_handoff,

	.evd_create_func = ref_evd_create,
	.evd_query_func = ref_evd_query,
	.evd_modify_cno_func = ref_evd_modify_cno,
	.evd_enable_func = ref_evd_enable,
	.evd_disable_func = ref_evd_disable,
	.evd_wait_func = ref_evd_wait,
	.evd_resize_func = ref_evd_resize,
	.evd_post_se_func = ref_evd_post_se,
	.evd_dequeue_func = ref_evd_dequeue,
	.evd_free_func = ref_evd_free,

	.ep_create_func = ref_ep_create,
	.ep_query_func = ref_ep_query,
	.ep_modify_func = ref_ep_modify,
	.ep_connect_func = ref_ep_connect,
	.ep_dup_connect_func = ref_ep_dup_connect,
	.ep_disconnect_func = ref_ep_disconnect,
	.ep_post_send_func = ref_ep_post_send,
	.ep_post_recv_func = ref_ep_post_recv,
	.ep_post_rdma_read_func = ref_ep_post_rdma_read,
	.ep_post_rdma_write_func = ref_ep_post_rdma_write,
	.ep_get_status_func = ref_ep_get_status,
	.ep_free_func = ref_ep_free,

	.lmr_create_func = ref_lmr_create,
	.lmr_query_func = ref_lmr_query,
	.lmr_free_func = ref_lmr_free,

	.rmr_create_func = ref_rmr_create,
	.rmr_query_func = ref_rmr_query,
	.rmr_bind_func = ref_rmr_bind,
	.rmr_free_func = ref_rmr_free,

	.psp_create_func = ref_psp_create,
	.psp_query_func = ref_psp_query,
	.psp_free_func = ref_psp_free,

	.rsp_create_func = ref_rsp_create,
	.rsp_query_func = ref_rsp_query,
	.rsp_free_func = ref_rsp_free,

	.pz_create_func = ref_pz_create,
	.pz_query_func = ref_pz_query,
	.pz_free_func = ref_pz_free,

	.psp_create_any_func = ref_psp_create_any,
	.ep_reset_func = ref_ep_reset,
	.evd_set_unwaitable_func = ref_evd_set_unwaitable,
	.evd_clear_unwaitable_func = ref_evd_clear_unwaitable,

	.lmr_sync_rdma_read_func = ref_lmr_sync_rdma_read,
	.lmr_sync_rdma_write_func = ref_lmr_sync_rdma_write,
	.ep_create_with_srq_func = ref_ep_create_with_srq,
	.ep_recv_query_func = ref_ep_recv_query,
	.ep_set_watermark_func = ref_ep_set_watermark,
	.srq_create_func = ref_srq_create,
	.srq_free_func = ref_srq_free,
	.srq_post_recv_func = ref_srq_post_recv,
	.srq_query_func = ref_srq_query,
	.srq_resize_func = ref_srq_resize,
	.srq_set_lw_func = ref_srq_set_lw,
};

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
	if ((r && r->active) ||
	    (r && ref_mutant("provider-init-ignores-reinit"))) {
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
		if (ref_mutant("provider-init-registers-other-name"))
			snprintf(r->name, sizeof(r->name), "%.*s_",
				 (int)sizeof(r->name) - 2, info->ia_name);
		r->prov = ref_provider;
		r->prov.device_name = r->name;
		r->next = recs;
		recs = r;
	}
	/* IAs keep their own copy of the instance data */
	free(r->instance);
	r->instance = copy;
	r->info = *info;
	if (ref_mutant("provider-init-registers-other-name"))
		snprintf(r->info.ia_name, sizeof(r->info.ia_name), "%s", r->name);
	rc = dat_registry_add_provider(&r->prov, &r->info);
	r->active = rc == DAT_SUCCESS;
	pthread_mutex_unlock(&recs_lock);
	if (rc == DAT_SUCCESS && strcmp(info->ia_name, "ref-sock") &&
	    ref_mutant("provider-init-registers-extra-name")) {
		/* also the name of "the" default configuration */
		DAT_PROVIDER_INFO extra = *info;

		snprintf(extra.ia_name, sizeof(extra.ia_name), "ref-sock");
		dat_provider_init(&extra, instance_data);
	}
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
	if (r && r->active && !ref_mutant("provider-fini-keeps-registration")) {
		dat_registry_remove_provider(&r->prov, &r->info);
		r->active = false;
	}
	pthread_mutex_unlock(&recs_lock);
}
