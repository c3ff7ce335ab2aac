// SPDX-License-Identifier: MIT
/*
 * A tiny DAT 1.2 provider for the runner's own tests: ia_open, ia_query
 * (srq_supported = DAT_FALSE), ia_close and a minimal EVD.  Everything else
 * is left NULL, so libdat answers DAT_NOT_IMPLEMENTED (which the tests use
 * to make a fixture fail).  Also exports four test hooks.
 */
#include <dat/udat.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERR(type, sub) ((DAT_RETURN)(DAT_CLASS_ERROR | (type) | (sub)))

struct fake_ia {
	const DAT_PROVIDER *prov;	/* first word: libdat dispatches on it */
	struct sockaddr_in addr;
	DAT_EVD_HANDLE async_evd;
	bool own_async;
};

struct fake_evd {
	const DAT_PROVIDER *prov;
	struct fake_ia *ia;
	DAT_COUNT qlen;
	DAT_EVD_FLAGS flags;
};

static DAT_PROVIDER fake_provider;
static DAT_PROVIDER_INFO fake_info;
static bool crash_on_close;	/* datcts_fake_crash_on_close() */
static bool hang_in_evd_create;	/* datcts_fake_hang_in_evd_create() */

static DAT_RETURN fake_evd_new(struct fake_ia *ia, DAT_COUNT qlen,
			       DAT_EVD_FLAGS flags, DAT_EVD_HANDLE *out)
{
	struct fake_evd *e = calloc(1, sizeof(*e));

	if (!e)
		return ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	e->prov = &fake_provider;
	e->ia = ia;
	e->qlen = qlen;
	e->flags = flags;
	*out = e;
	return DAT_SUCCESS;
}

static DAT_RETURN fake_ia_open(const DAT_NAME_PTR name, DAT_COUNT qlen,
			       DAT_EVD_HANDLE *async_evd, DAT_IA_HANDLE *ia_out)
{
	struct fake_ia *ia;

	(void)name;
	if (!async_evd)
		return ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ia = calloc(1, sizeof(*ia));
	if (!ia)
		return ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	ia->prov = &fake_provider;
	ia->addr.sin_family = AF_INET;
	ia->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (*async_evd == DAT_HANDLE_NULL) {
		DAT_RETURN r = fake_evd_new(ia, qlen, DAT_EVD_ASYNC_FLAG,
					    &ia->async_evd);

		if (r) {
			free(ia);
			return r;
		}
		ia->own_async = true;
		*async_evd = ia->async_evd;
	} else {
		ia->async_evd = *async_evd;
	}
	*ia_out = ia;
	return DAT_SUCCESS;
}

static DAT_RETURN fake_ia_close(DAT_IA_HANDLE h, DAT_CLOSE_FLAGS flags)
{
	struct fake_ia *ia = h;

	(void)flags;
	if (crash_on_close)
		raise(SIGSEGV);
	if (ia->own_async)
		free(ia->async_evd);
	free(ia);
	return DAT_SUCCESS;
}

static DAT_RETURN fake_ia_query(DAT_IA_HANDLE h, DAT_EVD_HANDLE *async_evd,
				DAT_IA_ATTR_MASK ia_mask, DAT_IA_ATTR *ia_attr,
				DAT_PROVIDER_ATTR_MASK pmask,
				DAT_PROVIDER_ATTR *pa)
{
	struct fake_ia *ia = h;

	if (async_evd)
		*async_evd = ia->async_evd;
	if (ia_mask && ia_attr) {
		memset(ia_attr, 0, sizeof(*ia_attr));
		strcpy(ia_attr->adapter_name, "fake0");
		strcpy(ia_attr->vendor_name, "datcts");
		ia_attr->ia_address_ptr = (DAT_IA_ADDRESS_PTR)&ia->addr;
		ia_attr->max_evds = 64;
		ia_attr->max_evd_qlen = 1024;
	}
	if (pmask && pa) {
		/* left as the Consumer had it, as some providers do */
		DAT_BOOLEAN lmr_sync_req = pa->lmr_sync_req;

		memset(pa, 0, sizeof(*pa));
		pa->lmr_sync_req = lmr_sync_req;
		strcpy(pa->provider_name, "datcts-fake");
		pa->provider_version_major = 0;
		pa->provider_version_minor = 1;
		pa->dapl_version_major = fake_info.dapl_version_major;
		pa->dapl_version_minor = fake_info.dapl_version_minor;
		pa->is_thread_safe = fake_info.is_thread_safe;
		pa->optimal_buffer_alignment = 64;
		pa->srq_supported = DAT_FALSE;
		pa->srq_watermarks_supported = 0;
	}
	return DAT_SUCCESS;
}

static DAT_RETURN fake_evd_create(DAT_IA_HANDLE ia, DAT_COUNT qlen,
				  DAT_CNO_HANDLE cno, DAT_EVD_FLAGS flags,
				  DAT_EVD_HANDLE *out)
{
	(void)cno;
	while (hang_in_evd_create)
		pause();
	if (!out)
		return ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	return fake_evd_new(ia, qlen, flags, out);
}

static DAT_RETURN fake_evd_query(DAT_EVD_HANDLE h, DAT_EVD_PARAM_MASK mask,
				 DAT_EVD_PARAM *p)
{
	struct fake_evd *e = h;

	(void)mask;
	memset(p, 0, sizeof(*p));
	p->ia_handle = e->ia;
	p->evd_qlen = e->qlen;
	p->evd_state = DAT_EVD_STATE_ENABLED;
	p->evd_flags = e->flags;
	return DAT_SUCCESS;
}

static DAT_RETURN fake_evd_dequeue(DAT_EVD_HANDLE h, DAT_EVENT *ev)
{
	(void)h;
	(void)ev;
	return ERR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
}

static DAT_RETURN fake_evd_free(DAT_EVD_HANDLE h)
{
	free(h);
	return DAT_SUCCESS;
}

/* Test hooks, found by the harness with dc_provider_hook(). */
int datcts_fake_hook_present(void);
void datcts_fake_evd_bump_qlen(DAT_EVD_HANDLE h);
void datcts_fake_crash_on_close(void);
void datcts_fake_hang_in_evd_create(void);

int datcts_fake_hook_present(void)
{
	return 42;
}

void datcts_fake_evd_bump_qlen(DAT_EVD_HANDLE h)
{
	((struct fake_evd *)h)->qlen++;
}

/* The next dat_ia_close dies of SIGSEGV: a provider crashing in a case's teardown. */
void datcts_fake_crash_on_close(void)
{
	crash_on_close = true;
}

/* Every later dat_evd_create waits for ever: a provider hanging in a call. */
void datcts_fake_hang_in_evd_create(void)
{
	hang_in_evd_create = true;
}

void dat_provider_init(const DAT_PROVIDER_INFO *info, const char *instance_data)
{
	(void)instance_data;
	fake_info = *info;
	fake_provider.device_name = fake_info.ia_name;
	fake_provider.ia_open_func = fake_ia_open;
	fake_provider.ia_query_func = fake_ia_query;
	fake_provider.ia_close_func = fake_ia_close;
	fake_provider.evd_create_func = fake_evd_create;
	fake_provider.evd_query_func = fake_evd_query;
	fake_provider.evd_dequeue_func = fake_evd_dequeue;
	fake_provider.evd_free_func = fake_evd_free;
	dat_registry_add_provider(&fake_provider, &fake_info);
}

void dat_provider_fini(const DAT_PROVIDER_INFO *info)
{
	dat_registry_remove_provider(&fake_provider, info);
}
