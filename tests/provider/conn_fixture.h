/* SPDX-License-Identifier: MIT */
/*
 * conn_fixture.h - loopback fixture for the conn unit tests
 * (test_conn_*.c, test_sock_*.c): two IAs of the reference provider
 * opened through libdat (DAT_OVERRIDE=<build>/dat.conf), each with a PZ,
 * a registered buffer and EVDs, and helpers to connect an EP pair.
 */
#ifndef CONN_FIXTURE_H
#define CONN_FIXTURE_H

#include <dat/udat.h>

#include <dlfcn.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cf_failures;

#define CF_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		cf_failures++; \
	} \
} while (0)

#define CF_OK(expr) do { \
	DAT_RETURN rc_ = (expr); \
	if (rc_ != DAT_SUCCESS) { \
		fprintf(stderr, "%s:%d: %s returned 0x%08x, want success\n", \
			__FILE__, __LINE__, #expr, (unsigned int)rc_); \
		cf_failures++; \
	} \
} while (0)

#define CF_RC(expr, type) do { \
	DAT_RETURN rc_ = (expr); \
	if (DAT_GET_TYPE(rc_) != (DAT_UINT32)(type) || \
	    !(rc_ & DAT_CLASS_ERROR)) { \
		fprintf(stderr, "%s:%d: %s returned 0x%08x, want type 0x%08x\n",\
			__FILE__, __LINE__, #expr, (unsigned int)rc_, \
			(unsigned int)(type)); \
		cf_failures++; \
	} \
} while (0)

#define CF_BUF 65536
#define CF_WAIT 5000000		/* µs: generous, never a sleep */

struct cf_side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async, req, recv, conn, cr;
	DAT_PZ_HANDLE pz;
	char *buf;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VADDR addr;
	DAT_EP_HANDLE ep;
	struct sockaddr_storage ia_addr;
};

static inline int cf_open(struct cf_side *s)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_VLEN size;
	DAT_IA_ATTR ia_attr;
	DAT_RETURN rc;

	memset(s, 0, sizeof(*s));
	rc = dat_ia_open("ref-sock", 64, &s->async, &s->ia);
	if (rc != DAT_SUCCESS) {
		fprintf(stderr, "dat_ia_open: 0x%08x\n", (unsigned int)rc);
		return -1;
	}
	CF_OK(dat_ia_query(s->ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &ia_attr,
			   0, NULL));
	memcpy(&s->ia_addr, ia_attr.ia_address_ptr,
	       ia_attr.ia_address_ptr->sa_family == AF_INET6 ?
	       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	CF_OK(dat_pz_create(s->ia, &s->pz));
	s->buf = aligned_alloc(4096, CF_BUF);
	memset(s->buf, 0, CF_BUF);
	rd.for_va = s->buf;
	CF_OK(dat_lmr_create(s->ia, DAT_MEM_TYPE_VIRTUAL, rd, CF_BUF, s->pz,
			     DAT_MEM_PRIV_ALL_FLAG, &s->lmr, &s->lctx,
			     &s->rctx, &size, &s->addr));
	CF_OK(dat_evd_create(s->ia, 256, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG |
			     DAT_EVD_RMR_BIND_FLAG, &s->req));
	CF_OK(dat_evd_create(s->ia, 256, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
			     &s->recv));
	CF_OK(dat_evd_create(s->ia, 16, DAT_HANDLE_NULL,
			     DAT_EVD_CONNECTION_FLAG, &s->conn));
	CF_OK(dat_evd_create(s->ia, 16, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG,
			     &s->cr));
	return 0;
}

static inline void cf_close(struct cf_side *s)
{
	DAT_RETURN rc;

	if (s->ep)
		dat_ep_free(s->ep);
	rc = dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG);
	if (rc != DAT_SUCCESS) {
		fprintf(stderr, "dat_ia_close: 0x%08x\n", (unsigned int)rc);
		cf_failures++;
	}
	free(s->buf);
}

static inline DAT_LMR_TRIPLET cf_seg(struct cf_side *s, size_t off,
				     size_t len)
{
	DAT_LMR_TRIPLET t;

	t.lmr_context = s->lctx;
	t.pad = 0;
	t.virtual_address = (DAT_VADDR)(uintptr_t)(s->buf + off);
	t.segment_length = len;
	return t;
}

static inline DAT_DTO_COOKIE cf_cookie(uint64_t v)
{
	DAT_DTO_COOKIE c;

	c.as_64 = v;
	return c;
}

/* Waits for one event; returns its number (0 on timeout / error). */
static inline DAT_EVENT_NUMBER cf_wait(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	DAT_COUNT nmore;
	DAT_EVENT e;
	DAT_RETURN rc;

	/* a signal handler ran (libFuzzer's SIGALRM in fuzz/sock): wait again */
	do
		rc = dat_evd_wait(evd, CF_WAIT, 1, ev ? ev : &e, &nmore);
	while (DAT_GET_TYPE(rc) == DAT_INTERRUPTED_CALL);
	if (rc != DAT_SUCCESS) {
		fprintf(stderr, "dat_evd_wait: 0x%08x\n", (unsigned int)rc);
		return 0;
	}
	return (ev ? ev : &e)->event_number;
}

/* Nothing queued on @evd right now. */
static inline bool cf_empty(DAT_EVD_HANDLE evd)
{
	DAT_EVENT e;

	return DAT_GET_TYPE(dat_evd_dequeue(evd, &e)) == DAT_QUEUE_EMPTY;
}

/* Next DTO completion on @evd: status, and cookie/length out. */
static inline DAT_DTO_COMPLETION_STATUS cf_dto(DAT_EVD_HANDLE evd,
					       uint64_t *cookie,
					       DAT_VLEN *len)
{
	DAT_EVENT ev;

	if (cf_wait(evd, &ev) != DAT_DTO_COMPLETION_EVENT) {
		fprintf(stderr, "cf_dto: event 0x%x\n", ev.event_number);
		return (DAT_DTO_COMPLETION_STATUS)-1;
	}
	if (cookie)
		*cookie = ev.event_data.dto_completion_event_data.user_cookie.as_64;
	if (len)
		*len = ev.event_data.dto_completion_event_data.transfered_length;
	return ev.event_data.dto_completion_event_data.status;
}

static inline void cf_ep_attr_default(DAT_EP_ATTR *a)
{
	memset(a, 0, sizeof(*a));
	a->service_type = DAT_SERVICE_TYPE_RC;
	a->max_message_size = 65536;
	a->max_rdma_size = 65536;
	a->max_recv_dtos = 16;
	a->max_request_dtos = 16;
	a->max_recv_iov = 4;
	a->max_request_iov = 4;
	a->max_rdma_read_iov = 4;
	a->max_rdma_write_iov = 4;
	a->max_rdma_read_in = 4;
	a->max_rdma_read_out = 4;
	a->srq_soft_hw = DAT_HW_DEFAULT;
}

static inline DAT_EP_HANDLE cf_ep(struct cf_side *s, DAT_SRQ_HANDLE srq)
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_EP_ATTR a;

	if (srq) {
		memset(&a, 0, sizeof(a));
		a.service_type = DAT_SERVICE_TYPE_RC;
		a.max_message_size = 65536;
		a.max_rdma_size = 65536;
		a.max_recv_dtos = 16;
		a.max_request_dtos = 16;
		a.max_request_iov = 4;
		a.max_rdma_read_iov = 4;
		a.max_rdma_write_iov = 4;
		a.max_rdma_read_in = 4;
		a.max_rdma_read_out = 4;
		a.srq_soft_hw = DAT_HW_DEFAULT;
		CF_OK(dat_ep_create_with_srq(s->ia, s->pz, s->recv, s->req,
					     s->conn, srq, &a, &ep));
	} else {
		CF_OK(dat_ep_create(s->ia, s->pz, s->recv, s->req, s->conn,
				    NULL, &ep));
	}
	return ep;
}

/*
 * Connects a->ep (active) to b->ep (passive, accepted through a PSP on
 * b->cr).  Private data: "hello" one way, "world" back.
 */
static inline int cf_connect(struct cf_side *a, struct cf_side *b)
{
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual;
	DAT_EVENT ev;
	DAT_CR_PARAM crp;
	DAT_CR_HANDLE cr;

	CF_OK(dat_psp_create_any(b->ia, &qual, b->cr, DAT_PSP_CONSUMER_FLAG,
				 &psp));
	CF_OK(dat_ep_connect(a->ep, (DAT_IA_ADDRESS_PTR)&b->ia_addr, qual,
			     CF_WAIT, 6, "hello", DAT_QOS_BEST_EFFORT,
			     DAT_CONNECT_DEFAULT_FLAG));
	if (cf_wait(b->cr, &ev) != DAT_CONNECTION_REQUEST_EVENT)
		return -1;
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	CF_OK(dat_cr_query(cr, DAT_CR_FIELD_ALL, &crp));
	CF_CHECK(crp.private_data_size == 6 &&
		 memcmp(crp.private_data, "hello", 6) == 0);
	CF_OK(dat_cr_accept(cr, b->ep, 6, "world"));
	if (cf_wait(a->conn, &ev) != DAT_CONNECTION_EVENT_ESTABLISHED)
		return -1;
	CF_CHECK(ev.event_data.connect_event_data.private_data_size == 6 &&
		 memcmp(ev.event_data.connect_event_data.private_data,
			"world", 6) == 0);
	if (cf_wait(b->conn, &ev) != DAT_CONNECTION_EVENT_ESTABLISHED)
		return -1;
	CF_OK(dat_psp_free(psp));
	return 0;
}

/* The provider's test hooks (dlsym in the loaded libdaplref). */
static inline void *cf_hook(const char *name)
{
	void *h = dlopen(DAPLREF_PATH, RTLD_NOW | RTLD_NOLOAD);
	void *f = h ? dlsym(h, name) : NULL;

	if (!f)
		fprintf(stderr, "hook %s not found\n", name);
	return f;
}

static inline int cf_done(const char *name)
{
	if (cf_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, cf_failures);
	else
		printf("%s: ok\n", name);
	return cf_failures ? 1 : 0;
}

#endif /* CONN_FIXTURE_H */
