// SPDX-License-Identifier: MIT
/*
 * libdaplref2.so through Debian's libdat2, as a DAT 2.0 consumer sees it:
 * what is 2.0's own in core/abi20.c (the attributes only 2.0 has, the
 * va_type and LMR-handle arguments, dat_cr_reject's private data reaching
 * the active side, and the 2.0-only functions this provider declines).
 * docs/reference-provider.md, "DAT 2.0", says why each answer is what it is.
 */
#include <netinet/in.h>
#include <dat2/udat.h>
#include <dat2/dat_registry.h>

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)
#define OK(call) do { \
	DAT_RETURN r_ = (call); \
	if (r_ != DAT_SUCCESS) { \
		fprintf(stderr, "%s:%d: %s = 0x%08x\n", __FILE__, __LINE__, #call, (unsigned int)r_); \
		failures++; \
	} \
} while (0)
#define TYPE(call) DAT_GET_TYPE(call)

#define QUAL 23011

struct side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async, conn, dto, cr;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
};

static void open_side(struct side *s)
{
	memset(s, 0, sizeof(*s));
	s->async = DAT_HANDLE_NULL;
	OK(dat_ia_open("ref-sock", 8, &s->async, &s->ia));
	OK(dat_pz_create(s->ia, &s->pz));
	OK(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG, &s->conn));
	OK(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG,
			  &s->dto));
	OK(dat_evd_create(s->ia, 8, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &s->cr));
	OK(dat_ep_create(s->ia, s->pz, s->dto, s->dto, s->conn, NULL, &s->ep));
}

static void close_side(struct side *s)
{
	OK(dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG));
}

static void test_attributes(struct side *s)
{
	DAT_IA_ATTR ia;
	DAT_PROVIDER_ATTR pr;

	OK(dat_ia_query(s->ia, NULL, DAT_IA_ALL, &ia, DAT_PROVIDER_FIELD_ALL, &pr));
	CHECK(ia.extension_supported == DAT_EXTENSION_NONE);
	CHECK(ia.zb_supported == DAT_FALSE);
	CHECK(pr.dapl_version_major == 2 && pr.dapl_version_minor == 0);
	CHECK(pr.rmr_scope_supported == DAT_RMR_SCOPE_PZ);
	CHECK(pr.ha_supported == DAT_FALSE && pr.ha_loadbalancing == DAT_HA_LB_NONE);
	CHECK(ia.max_message_size > 0 && ia.max_lmr_block_size > 0);
}

/* va_type: VA works, ZB is the optional model this IA says it lacks. */
static void test_memory(struct side *s)
{
	static char buf[4096];
	DAT_REGION_DESCRIPTION region = { .for_va = buf };
	DAT_LMR_HANDLE lmr, other;
	DAT_LMR_CONTEXT ctx, other_ctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN size;
	DAT_VADDR addr;
	DAT_RMR_HANDLE rmr;
	DAT_RMR_PARAM rp;
	DAT_LMR_TRIPLET t;
	DAT_RMR_COOKIE cookie = { .as_64 = 1 };

	CHECK(TYPE(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, region, sizeof(buf), s->pz,
				  DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_ZB, &lmr, &ctx, &rctx,
				  &size, &addr)) == DAT_MODEL_NOT_SUPPORTED);
	OK(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, region, sizeof(buf), s->pz,
			  DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &lmr, &ctx, &rctx, &size, &addr));
	OK(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, region, 1024, s->pz,
			  DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA, &other, &other_ctx, &rctx,
			  &size, &addr));
	OK(dat_rmr_create(s->pz, &rmr));
	OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &rp));
	CHECK(rp.rmr_scope == DAT_RMR_SCOPE_PZ && rp.va_type == DAT_VA_TYPE_VA);
	t.virtual_address = (DAT_VADDR)(uintptr_t)buf;
	t.segment_length = 512;
	t.lmr_context = ctx;
	/* the LMR handle must be the one the triplet's context names */
	CHECK(DAT_GET_TYPE(dat_rmr_bind(rmr, other, &t, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
					s->ep, cookie, DAT_COMPLETION_DEFAULT_FLAG, &rctx)) ==
	      DAT_INVALID_PARAMETER);
	CHECK(TYPE(dat_rmr_bind(rmr, lmr, &t, DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_ZB, s->ep,
				cookie, DAT_COMPLETION_DEFAULT_FLAG, &rctx)) ==
	      DAT_MODEL_NOT_SUPPORTED);
	OK(dat_rmr_free(rmr));
	OK(dat_lmr_free(other));
	OK(dat_lmr_free(lmr));
}

/* dat_cr_reject's private data arrives with the active side's PEER_REJECTED. */
static void test_reject_with_data(struct side *a, struct side *b)
{
	static const char why[] = "not today";
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	DAT_PSP_HANDLE psp;
	DAT_EVENT ev;
	DAT_COUNT n;

	OK(dat_psp_create(b->ia, QUAL, b->cr, DAT_PSP_CONSUMER_FLAG, &psp));
	OK(dat_ep_connect(a->ep, (DAT_IA_ADDRESS_PTR)&to, QUAL, DAT_TIMEOUT_INFINITE, 0, NULL,
			  DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	OK(dat_evd_wait(b->cr, 5000000, 1, &ev, &n));
	CHECK(ev.event_number == DAT_CONNECTION_REQUEST_EVENT);
	CHECK(TYPE(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle, -1, NULL)) ==
	      DAT_INVALID_PARAMETER);
	CHECK(TYPE(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle, 4, NULL)) ==
	      DAT_INVALID_PARAMETER);
	OK(dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle, sizeof(why),
			 (DAT_PVOID)why));
	OK(dat_evd_wait(a->conn, 5000000, 1, &ev, &n));
	CHECK(ev.event_number == DAT_CONNECTION_EVENT_PEER_REJECTED);
	CHECK(ev.event_data.connect_event_data.private_data_size == sizeof(why));
	CHECK(ev.event_data.connect_event_data.private_data &&
	      !memcmp(ev.event_data.connect_event_data.private_data, why, sizeof(why)));
	OK(dat_psp_free(psp));
}

/*
 * What this provider declines, it declines before touching anything.
 * libdat2 2.1.10 exports none of the 2.0-only functions (only
 * dat_extension_op), so a consumer reaches them through the dispatch
 * table of a provider handle; the IA-handle ones need the provider's own
 * IA handle, which libdat2 hides behind an index (dat_ep_query gives it).
 */
static void test_declined(struct side *s)
{
	DAT_PROVIDER *p = DAT_HANDLE_TO_PROVIDER(s->ep);
	DAT_EP_PARAM ep;
	DAT_CSP_HANDLE csp;
	DAT_COMM comm = { 0 };
	DAT_RMR_HANDLE rmr;
	DAT_FD fd;
	DAT_CNO_HANDLE cno;
	DAT_EVD_HANDLE evd;
	DAT_BOOLEAN answer;
	DAT_DTO_COOKIE cookie = { .as_64 = 0 };

	OK(dat_ep_query(s->ep, DAT_EP_FIELD_IA_HANDLE, &ep));
	CHECK(TYPE(p->csp_create_func(ep.ia_handle, &comm, NULL, s->cr, &csp)) ==
	      DAT_MODEL_NOT_SUPPORTED);
	CHECK(TYPE(p->ep_common_connect_func(s->ep, NULL, 0, 0, NULL)) ==
	      DAT_MODEL_NOT_SUPPORTED);
	CHECK(TYPE(p->rmr_create_for_ep_func(s->pz, &rmr)) == DAT_MODEL_NOT_SUPPORTED);
	CHECK(TYPE(p->ep_post_send_with_invalidate_func(s->ep, 0, NULL, cookie,
							DAT_COMPLETION_DEFAULT_FLAG,
							DAT_TRUE, 0)) ==
	      DAT_MODEL_NOT_SUPPORTED);
	CHECK(TYPE(p->ep_post_rdma_read_to_rmr_func(s->ep, NULL, cookie, NULL,
						    DAT_COMPLETION_DEFAULT_FLAG)) ==
	      DAT_MODEL_NOT_SUPPORTED);
	CHECK(TYPE(p->cno_fd_create_func(ep.ia_handle, &fd, &cno)) == DAT_MODEL_NOT_SUPPORTED);
	OK(dat_cno_create(s->ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	CHECK(TYPE(p->cno_trigger_func(cno, &evd)) == DAT_MODEL_NOT_SUPPORTED);
	OK(dat_cno_free(cno));
	CHECK(TYPE(p->ia_ha_related_func(ep.ia_handle, "ref-sock", &answer)) ==
	      DAT_MODEL_NOT_SUPPORTED);
	/* no extension: extension_supported says so, the op agrees */
	CHECK(TYPE(dat_extension_op(s->ep, 0)) == DAT_NOT_IMPLEMENTED);
}

int main(void)
{
	struct side a, b;

	open_side(&a);
	open_side(&b);
	if (failures)
		return 1;
	test_attributes(&a);
	test_memory(&a);
	test_reject_with_data(&a, &b);
	test_declined(&b);
	close_side(&a);
	close_side(&b);
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("libdaplref2 DAT 2.0 checks passed\n");
	return 0;
}
