// SPDX-License-Identifier: MIT
/*
 * fz_api.c - the API-sequence fuzzer (libFuzzer target): each input is
 * an IA's life.  dat_ia_open, then calls decoded from the input bytes over
 * a pool of handles (fz_core.c), then dat_ia_close; every call's result is
 * checked against the catalog's return types and the invalid-handle rule,
 * every call has a watchdog, and after the close nothing of the IA may be
 * left: descriptors, threads, memory (docs/fuzzing.md).
 *
 * The provider under test is the IA named by $DATCTS_IA in the dat.conf
 * of $DAT_OVERRIDE, reached through the registry (libdat, or libdat2 in
 * the DAT 2.0 build), as the case binaries reach it.
 */
#include "fz.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZ_ASAN 1
#include <sanitizer/allocator_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#endif

void fz_log_init(void);
void fz_log_reset(void);
void fz_watchdog_start(void);
void fz_on_crash(void);

#define CALL FZ_CALL

static const char *ia_name;
static struct sockaddr_storage ia_addr;	/* the IA's own address: loopback connects */
static uint8_t pdata[65536];		/* private data, input bytes */

/* The Consumer memory of this input's LMRs, freed after dat_ia_close. */
#define FZ_BUFS 256
static void *bufs[FZ_BUFS];
static int nbufs;

/* ---- argument helpers ----------------------------------------------------------- */

#define H(...) FZ_H(__VA_ARGS__)

static DAT_COUNT pdata_size(struct fz_in *in)
{
	DAT_COUNT n = fz_count(in);

	for (int i = 0; i < 16; i++)
		pdata[i] = fz_u8(in);
	return n;
}

/*
 * Segment descriptors over the pool's LMRs: in range, at the edges, or not.
 * The array always holds the count it claims (a Consumer that lies about
 * its own array is not the provider's fault), so counts stop at
 * FZ_IOV_MAX, past every provider's max_*_iov; a negative count, where the
 * parameter is signed, comes with one entry.
 */
struct iovs {
	DAT_LMR_TRIPLET *v;
	DAT_COUNT n;
	char text[96];
};

#define FZ_IOV_MAX 4096

static struct iovs make_iovs(struct fz_in *in, bool signed_count)
{
	struct iovs s = { .n = fz_count(in) };
	int have, described;

	if (s.n > FZ_IOV_MAX)
		s.n = FZ_IOV_MAX;
	if (s.n < 0 && !signed_count)
		s.n = 0;
	have = s.n < 0 ? 1 : s.n;
	described = have < 4 ? have : 4;
	s.v = calloc((size_t)(have ? have : 1), sizeof(*s.v));
	for (int i = 0; i < have; i++) {
		const struct fz_slot *m = &fz_pool[FZ_LMR][i < described ? fz_below(in, FZ_SLOTS) : 0];
		DAT_LMR_CONTEXT ctx = m->lmr_ctx;
		uint64_t off = 0, len = m->len;
		uint8_t how = i < described ? fz_u8(in) : 0;

		if (how >= 128) {
			off = (uint64_t)fz_count(in);
			len = (uint64_t)fz_count(in);
		}
		if (how >= 240)
			ctx = fz_u32(in);
		s.v[i] = dc_lmr_triplet(ctx, (DAT_VADDR)(uintptr_t)m->buf + off, len);
	}
	snprintf(s.text, sizeof(s.text), "iov /* %d segment(s) over the lmrs */", have);
	return s;
}

static DAT_RMR_TRIPLET make_rmr_iov(struct fz_in *in)
{
	const struct fz_slot *m = &fz_pool[FZ_LMR][fz_below(in, FZ_SLOTS)];
	DAT_RMR_CONTEXT ctx = m->rmr_ctx;
	uint64_t off = 0, len = m->len;
	uint8_t how = fz_u8(in);

	if (how >= 128) {
		off = (uint64_t)fz_count(in);
		len = (uint64_t)fz_count(in);
	}
	if (how >= 200)
		ctx = fz_pool[FZ_RMR][fz_below(in, FZ_SLOTS)].rmr_ctx;
	if (how >= 240)
		ctx = fz_u32(in);
	return dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)m->buf + off, len);
}

static DAT_DTO_COOKIE cookie(struct fz_in *in)
{
	return dc_cookie(fz_u8(in));
}

static DAT_COMPLETION_FLAGS completion_flags(struct fz_in *in)
{
	uint8_t v = fz_u8(in);

	return (DAT_COMPLETION_FLAGS)(v < 200 ? v & 0x1f : v);
}

static void harvest(const DAT_EVENT *ev)
{
	if (ev->event_number == DAT_CONNECTION_REQUEST_EVENT) {
		for (int i = 0; i < FZ_SLOTS; i++)
			if (fz_pool[FZ_CR][i].state != FZ_LIVE) {
				fz_created(FZ_CR, i, ev->event_data.cr_arrival_event_data.cr_handle);
				fz_log("/* %s = event.event_data.cr_arrival_event_data.cr_handle; */",
				       fz_slot_name(FZ_CR, i));
				return;
			}
	}
}

static void fill_ep_attr(struct fz_in *in, DAT_EP_ATTR *a)
{
	memset(a, 0, sizeof(*a));
	a->service_type = fz_u8(in) < 240 ? DAT_SERVICE_TYPE_RC : (DAT_SERVICE_TYPE)fz_u32(in);
	a->max_message_size = (DAT_VLEN)fz_count(in);
	a->max_rdma_size = (DAT_VLEN)fz_count(in);
	a->qos = (DAT_QOS)(fz_u8(in) & 0x1f);
	a->recv_completion_flags = completion_flags(in);
	a->request_completion_flags = completion_flags(in);
	a->max_recv_dtos = fz_count(in);
	a->max_request_dtos = fz_count(in);
	a->max_recv_iov = fz_count(in);
	a->max_request_iov = fz_count(in);
	a->max_rdma_read_in = fz_count(in);
	a->max_rdma_read_out = fz_count(in);
	fz_log("/* ep_attr = { .max_message_size = %llu, .max_rdma_size = %llu, "
	       ".max_recv_dtos = %d, .max_request_dtos = %d, .max_recv_iov = %d, "
	       ".max_request_iov = %d, .max_rdma_read_in = %d, .max_rdma_read_out = %d, "
	       ".recv_completion_flags = 0x%x, .request_completion_flags = 0x%x } */",
	       (unsigned long long)a->max_message_size, (unsigned long long)a->max_rdma_size,
	       a->max_recv_dtos, a->max_request_dtos, a->max_recv_iov, a->max_request_iov,
	       a->max_rdma_read_in, a->max_rdma_read_out,
	       (unsigned int)a->recv_completion_flags, (unsigned int)a->request_completion_flags);
}

static const char *attr_arg(bool null)
{
	return null ? "NULL" : "&ep_attr";
}

/* ---- the calls ---------------------------------------------------------------------- */

static void op_pz_create(struct fz_in *in)
{
	struct fz_arg ia = fz_ia_arg(in);
	int i = fz_slot(in);
	DAT_PZ_HANDLE h = DAT_HANDLE_NULL;
	DAT_RETURN r;

	CALL(r, "dat_pz_create", 0, dat_pz_create(ia.h, &h), H({ 1, DC_HANDLE_IA }),
	     "dat_pz_create(%s, &%s)", ia.text, fz_slot_name(FZ_PZ, i));
	if (r == DAT_SUCCESS)
		fz_created(FZ_PZ, i, h);
}

static void op_pz_query(struct fz_in *in)
{
	struct fz_arg pz = fz_handle(in, FZ_PZ);
	DAT_PZ_PARAM_MASK mask = fz_u32(in);
	DAT_PZ_PARAM p;
	DAT_RETURN r;

	CALL(r, "dat_pz_query", 0, dat_pz_query(pz.h, mask, &p), H({ 1, DC_HANDLE_PZ }),
	     "dat_pz_query(%s, 0x%x, &pz_param)", pz.text, (unsigned int)mask);
}

static void op_pz_free(struct fz_in *in)
{
	struct fz_arg pz = fz_handle(in, FZ_PZ);
	DAT_RETURN r;

	CALL(r, "dat_pz_free", 0, dat_pz_free(pz.h), H({ 1, DC_HANDLE_PZ }),
	     "dat_pz_free(%s)", pz.text);
	if (r == DAT_SUCCESS)
		fz_freed(pz.h);
}

static void op_evd_create(struct fz_in *in)
{
	static const DAT_EVD_FLAGS usual[] = {
		DAT_EVD_DTO_FLAG, DAT_EVD_CR_FLAG, DAT_EVD_CONNECTION_FLAG,
		DAT_EVD_SOFTWARE_FLAG, DAT_EVD_RMR_BIND_FLAG,
		DAT_EVD_DTO_FLAG | DAT_EVD_RMR_BIND_FLAG, DAT_EVD_DEFAULT_FLAG,
		DAT_EVD_ASYNC_FLAG,
	};
	struct fz_arg ia = fz_ia_arg(in);
	DAT_COUNT qlen = fz_count(in);
	struct fz_arg cno = fz_u8(in) < 64 ? fz_handle(in, FZ_CNO) :
			    (struct fz_arg){ DAT_HANDLE_NULL, "DAT_HANDLE_NULL" };
	uint8_t fsel = fz_u8(in);
	DAT_EVD_FLAGS flags = fsel < 200 ? usual[fsel % 8] : (DAT_EVD_FLAGS)fz_u32(in);
	int i = fz_slot(in);
	DAT_EVD_HANDLE h = DAT_HANDLE_NULL;
	DAT_RETURN r;

	CALL(r, "dat_evd_create", 0, dat_evd_create(ia.h, qlen, cno.h, flags, &h),
	     H({ 1, DC_HANDLE_IA }, { 3, DC_HANDLE_CNO }),
	     "dat_evd_create(%s, %d, %s, 0x%x, &%s)", ia.text, qlen, cno.text,
	     (unsigned int)flags, fz_slot_name(FZ_EVD, i));
	if (r == DAT_SUCCESS)
		fz_created(FZ_EVD, i, h);
}

/* Calls of one handle argument and nothing else (or a mask and a struct out). */
#define OP_FREE(name, kind, hkind)						\
	static void op_##name(struct fz_in *in)					\
	{									\
		struct fz_arg a = fz_handle(in, kind);				\
		DAT_RETURN r;							\
										\
		CALL(r, "dat_" #name, 0, dat_##name(a.h), H({ 1, hkind }),	\
		     "dat_" #name "(%s)", a.text);				\
		if (r == DAT_SUCCESS)						\
			fz_freed(a.h);						\
	}
#define OP_ONE(name, kind, hkind)						\
	static void op_##name(struct fz_in *in)					\
	{									\
		struct fz_arg a = fz_handle(in, kind);				\
		DAT_RETURN r;							\
										\
		CALL(r, "dat_" #name, 0, dat_##name(a.h), H({ 1, hkind }),	\
		     "dat_" #name "(%s)", a.text);				\
	}
#define OP_QUERY(name, kind, hkind, ptype)					\
	static void op_##name(struct fz_in *in)					\
	{									\
		struct fz_arg a = fz_handle(in, kind);				\
		uint32_t mask = fz_u32(in);					\
		bool null = fz_null(in, "dat_" #name);					\
		ptype p;							\
		DAT_RETURN r;							\
										\
		CALL(r, "dat_" #name, 0, dat_##name(a.h, mask, null ? NULL : &p), \
		     H({ 1, hkind }), "dat_" #name "(%s, 0x%x, %s)", a.text,	\
		     (unsigned int)mask, null ? "NULL" : "&param");		\
	}

OP_QUERY(evd_query, FZ_EVD, DC_HANDLE_EVD, DAT_EVD_PARAM)
OP_QUERY(cno_query, FZ_CNO, DC_HANDLE_CNO, DAT_CNO_PARAM)
OP_QUERY(ep_query, FZ_EP, DC_HANDLE_EP, DAT_EP_PARAM)
OP_QUERY(lmr_query, FZ_LMR, DC_HANDLE_LMR, DAT_LMR_PARAM)
OP_QUERY(rmr_query, FZ_RMR, DC_HANDLE_RMR, DAT_RMR_PARAM)
OP_QUERY(psp_query, FZ_PSP, DC_HANDLE_PSP, DAT_PSP_PARAM)
OP_QUERY(rsp_query, FZ_RSP, DC_HANDLE_RSP, DAT_RSP_PARAM)
OP_QUERY(srq_query, FZ_SRQ, DC_HANDLE_SRQ, DAT_SRQ_PARAM)
OP_QUERY(cr_query, FZ_CR, DC_HANDLE_CR, DAT_CR_PARAM)
OP_FREE(evd_free, FZ_EVD, DC_HANDLE_EVD)
OP_FREE(cno_free, FZ_CNO, DC_HANDLE_CNO)
OP_FREE(ep_free, FZ_EP, DC_HANDLE_EP)
OP_FREE(lmr_free, FZ_LMR, DC_HANDLE_LMR)
OP_FREE(rmr_free, FZ_RMR, DC_HANDLE_RMR)
OP_FREE(psp_free, FZ_PSP, DC_HANDLE_PSP)
OP_FREE(rsp_free, FZ_RSP, DC_HANDLE_RSP)
OP_FREE(srq_free, FZ_SRQ, DC_HANDLE_SRQ)
OP_ONE(evd_enable, FZ_EVD, DC_HANDLE_EVD)
OP_ONE(evd_disable, FZ_EVD, DC_HANDLE_EVD)
OP_ONE(evd_set_unwaitable, FZ_EVD, DC_HANDLE_EVD)
OP_ONE(evd_clear_unwaitable, FZ_EVD, DC_HANDLE_EVD)
OP_ONE(ep_reset, FZ_EP, DC_HANDLE_EP)

static void op_cr_reject(struct fz_in *in)
{
	struct fz_arg a = fz_handle(in, FZ_CR);
	DAT_RETURN r;

	CALL(r, "dat_cr_reject", 0, dc_dat_cr_reject(a.h, 0, NULL), H({ 1, DC_HANDLE_CR }),
	     "dat_cr_reject(%s)", a.text);
	if (r == DAT_SUCCESS)
		fz_freed(a.h);
}

static void op_evd_modify_cno(struct fz_in *in)
{
	struct fz_arg evd = fz_handle(in, FZ_EVD);
	struct fz_arg cno = fz_handle(in, FZ_CNO);
	DAT_RETURN r;

	CALL(r, "dat_evd_modify_cno", 0, dat_evd_modify_cno(evd.h, cno.h),
	     H({ 1, DC_HANDLE_EVD }, { 2, DC_HANDLE_CNO }),
	     "dat_evd_modify_cno(%s, %s)", evd.text, cno.text);
}

static void op_evd_resize(struct fz_in *in)
{
	struct fz_arg evd = fz_handle(in, FZ_EVD);
	DAT_COUNT n = fz_count(in);
	DAT_RETURN r;

	CALL(r, "dat_evd_resize", 0, dat_evd_resize(evd.h, n), H({ 1, DC_HANDLE_EVD }),
	     "dat_evd_resize(%s, %d)", evd.text, n);
}

static void op_evd_post_se(struct fz_in *in)
{
	struct fz_arg evd = fz_handle(in, FZ_EVD);
	DAT_EVENT ev;
	bool null = fz_null(in, "dat_evd_post_se");
	DAT_RETURN r;

	memset(&ev, 0, sizeof(ev));
	ev.event_number = fz_u8(in) < 200 ? DAT_SOFTWARE_EVENT : (DAT_EVENT_NUMBER)fz_u32(in);
	ev.evd_handle = evd.h;
	ev.event_data.software_event_data.pointer = (DAT_PVOID)(uintptr_t)fz_u64(in);
	CALL(r, "dat_evd_post_se", 0, dat_evd_post_se(evd.h, null ? NULL : &ev),
	     H({ 1, DC_HANDLE_EVD }),
	     "dat_evd_post_se(%s, %s)\t/* event_number 0x%x */", evd.text,
	     null ? "NULL" : "&event", (unsigned int)ev.event_number);
}

static void op_evd_dequeue(struct fz_in *in)
{
	struct fz_arg evd = fz_handle(in, FZ_EVD);
	bool null = fz_null(in, "dat_evd_dequeue");
	DAT_EVENT ev;
	DAT_RETURN r;

	CALL(r, "dat_evd_dequeue", 0, dat_evd_dequeue(evd.h, null ? NULL : &ev),
	     H({ 1, DC_HANDLE_EVD }), "dat_evd_dequeue(%s, %s)", evd.text,
	     null ? "NULL" : "&event");
	if (r == DAT_SUCCESS && !null)
		harvest(&ev);
}

static void op_evd_wait(struct fz_in *in)
{
	struct fz_arg evd = fz_handle(in, FZ_EVD);
	DAT_TIMEOUT tmo = fz_timeout(in);
	DAT_COUNT threshold = fz_count(in);
	bool null_ev = fz_null(in, "dat_evd_wait"), null_n = fz_null(in, "dat_evd_wait");
	DAT_EVENT ev;
	DAT_COUNT nmore;
	DAT_RETURN r;

	CALL(r, "dat_evd_wait", tmo,
	     dat_evd_wait(evd.h, tmo, threshold, null_ev ? NULL : &ev, null_n ? NULL : &nmore),
	     H({ 1, DC_HANDLE_EVD }), "dat_evd_wait(%s, %u, %d, %s, %s)", evd.text,
	     (unsigned int)tmo, threshold, null_ev ? "NULL" : "&event",
	     null_n ? "NULL" : "&nmore");
	if (r == DAT_SUCCESS && !null_ev)
		harvest(&ev);
}

static void agent_func(DAT_PVOID instance, DAT_EVD_HANDLE evd)
{
	(void)instance;
	(void)evd;
}

static DAT_OS_WAIT_PROXY_AGENT agent(struct fz_in *in, const char **text)
{
	DAT_OS_WAIT_PROXY_AGENT a = DAT_OS_WAIT_PROXY_AGENT_NULL;

	*text = "DAT_OS_WAIT_PROXY_AGENT_NULL";
	if (fz_u8(in) >= 128) {
		a.instance_data = pdata;
		a.proxy_agent_func = agent_func;
		*text = "agent /* a function that returns */";
	}
	return a;
}

static void op_cno_create(struct fz_in *in)
{
	struct fz_arg ia = fz_ia_arg(in);
	const char *at;
	DAT_OS_WAIT_PROXY_AGENT a = agent(in, &at);
	int i = fz_slot(in);
	DAT_CNO_HANDLE h = DAT_HANDLE_NULL;
	DAT_RETURN r;

	CALL(r, "dat_cno_create", 0, dat_cno_create(ia.h, a, &h), H({ 1, DC_HANDLE_IA }),
	     "dat_cno_create(%s, %s, &%s)", ia.text, at, fz_slot_name(FZ_CNO, i));
	if (r == DAT_SUCCESS)
		fz_created(FZ_CNO, i, h);
}

static void op_cno_modify_agent(struct fz_in *in)
{
	struct fz_arg cno = fz_handle(in, FZ_CNO);
	const char *at;
	DAT_OS_WAIT_PROXY_AGENT a = agent(in, &at);
	DAT_RETURN r;

	CALL(r, "dat_cno_modify_agent", 0, dat_cno_modify_agent(cno.h, a),
	     H({ 1, DC_HANDLE_CNO }), "dat_cno_modify_agent(%s, %s)", cno.text, at);
}

static void op_cno_wait(struct fz_in *in)
{
	struct fz_arg cno = fz_handle(in, FZ_CNO);
	DAT_TIMEOUT tmo = fz_timeout(in);
	bool null = fz_null(in, "dat_cno_wait");
	DAT_EVD_HANDLE evd;
	DAT_RETURN r;

	CALL(r, "dat_cno_wait", tmo, dat_cno_wait(cno.h, tmo, null ? NULL : &evd),
	     H({ 1, DC_HANDLE_CNO }), "dat_cno_wait(%s, %u, %s)", cno.text,
	     (unsigned int)tmo, null ? "NULL" : "&evd");
}

static void op_ep_create(struct fz_in *in)
{
	bool with_srq = fz_u8(in) >= 192;
	struct fz_arg ia = fz_ia_arg(in);
	struct fz_arg pz = fz_handle(in, FZ_PZ);
	struct fz_arg recv = fz_handle(in, FZ_EVD);
	struct fz_arg req = fz_handle(in, FZ_EVD);
	struct fz_arg conn = fz_handle(in, FZ_EVD);
	struct fz_arg srq = with_srq ? fz_handle(in, FZ_SRQ) : (struct fz_arg){ 0 };
	bool null_attr = fz_u8(in) < 96;
	int i = fz_slot(in);
	DAT_EP_ATTR attr;
	DAT_EP_HANDLE h = DAT_HANDLE_NULL;
	DAT_RETURN r;

	if (!null_attr)
		fill_ep_attr(in, &attr);
	if (with_srq)
		CALL(r, "dat_ep_create_with_srq", 0,
		     dat_ep_create_with_srq(ia.h, pz.h, recv.h, req.h, conn.h, srq.h,
					    null_attr ? NULL : &attr, &h),
		     H({ 1, DC_HANDLE_IA }, { 2, DC_HANDLE_PZ }, { 3, DC_HANDLE_EVD_RECV },
		       { 4, DC_HANDLE_EVD_REQUEST }, { 5, DC_HANDLE_EVD_CONN },
		       { 6, DC_HANDLE_SRQ }),
		     "dat_ep_create_with_srq(%s, %s, %s, %s, %s, %s, %s, &%s)", ia.text,
		     pz.text, recv.text, req.text, conn.text, srq.text, attr_arg(null_attr),
		     fz_slot_name(FZ_EP, i));
	else
		CALL(r, "dat_ep_create", 0,
		     dat_ep_create(ia.h, pz.h, recv.h, req.h, conn.h,
				   null_attr ? NULL : &attr, &h),
		     H({ 1, DC_HANDLE_IA }, { 2, DC_HANDLE_PZ }, { 3, DC_HANDLE_EVD_RECV },
		       { 4, DC_HANDLE_EVD_REQUEST }, { 5, DC_HANDLE_EVD_CONN }),
		     "dat_ep_create(%s, %s, %s, %s, %s, %s, &%s)", ia.text, pz.text,
		     recv.text, req.text, conn.text, attr_arg(null_attr), fz_slot_name(FZ_EP, i));
	if (r == DAT_SUCCESS)
		fz_created(FZ_EP, i, h);
}

static void op_ep_modify(struct fz_in *in)
{
	struct fz_arg ep = fz_handle(in, FZ_EP);
	const DAT_EP_PARAM_MASK *masks;
	int nmasks = dc_ep_field_masks(&masks);
	DAT_EP_PARAM_MASK mask = 0;
	DAT_EP_PARAM p;
	DAT_RETURN r;

	/* Start from what the EP says of itself, when it says anything. */
	memset(&p, 0, sizeof(p));
	if (fz_pool[FZ_EP][0].state == FZ_LIVE)
		(void)dat_ep_query(fz_pool[FZ_EP][0].h, DAT_EP_FIELD_ALL, &p);
	for (int k = fz_below(in, 4); k >= 0; k--)
		mask |= masks[fz_below(in, (unsigned int)nmasks)];
	if (fz_u8(in) > 240)
		mask = fz_u32(in);
	p.pz_handle = fz_handle(in, FZ_PZ).h;
	p.recv_evd_handle = fz_handle(in, FZ_EVD).h;
	p.request_evd_handle = fz_handle(in, FZ_EVD).h;
	p.connect_evd_handle = fz_handle(in, FZ_EVD).h;
	p.ep_attr.max_recv_dtos = fz_count(in);
	p.ep_attr.max_request_dtos = fz_count(in);
	p.ep_attr.max_recv_iov = fz_count(in);
	p.ep_attr.max_message_size = (DAT_VLEN)fz_count(in);
	p.ep_attr.recv_completion_flags = completion_flags(in);
	fz_log("/* ep_param: dat_ep_query(ep0, DAT_EP_FIELD_ALL) with fields from the input */");
	CALL(r, "dat_ep_modify", 0, dat_ep_modify(ep.h, mask, &p), H({ 1, DC_HANDLE_EP }),
	     "dat_ep_modify(%s, 0x%llx, &ep_param)", ep.text, (unsigned long long)mask);
}

static void op_ep_connect(struct fz_in *in)
{
	struct fz_arg ep = fz_handle(in, FZ_EP);
	uint8_t asel = fz_u8(in);
	uint8_t qsel = fz_u8(in);
	const struct fz_slot *sp = &fz_pool[qsel & 1 ? FZ_RSP : FZ_PSP][fz_below(in, FZ_SLOTS)];
	DAT_CONN_QUAL qual = qsel < 200 ? sp->qual : (DAT_CONN_QUAL)fz_u64(in);
	DAT_TIMEOUT tmo = fz_timeout(in);
	DAT_COUNT n = pdata_size(in);
	DAT_QOS qos = (DAT_QOS)(fz_u8(in) & 0x1f);
	DAT_CONNECT_FLAGS flags = (DAT_CONNECT_FLAGS)(fz_u8(in) & 0x3);
	DAT_RETURN r;

	CALL(r, "dat_ep_connect", tmo,
	     dat_ep_connect(ep.h, asel < 224 ? (DAT_IA_ADDRESS_PTR)&ia_addr : NULL, qual,
			    tmo, n, pdata, qos, flags),
	     H({ 1, DC_HANDLE_EP }),
	     "dat_ep_connect(%s, %s, %llu, %u, %d, pdata, 0x%x, 0x%x)", ep.text,
	     asel < 224 ? "&ia_address" : "NULL", (unsigned long long)qual,
	     (unsigned int)tmo, n, (unsigned int)qos, (unsigned int)flags);
}

static void op_ep_dup_connect(struct fz_in *in)
{
	struct fz_arg ep = fz_handle(in, FZ_EP);
	struct fz_arg dup = fz_handle(in, FZ_EP);
	DAT_TIMEOUT tmo = fz_timeout(in);
	DAT_COUNT n = pdata_size(in);
	DAT_QOS qos = (DAT_QOS)(fz_u8(in) & 0x1f);
	DAT_RETURN r;

	CALL(r, "dat_ep_dup_connect", tmo, dat_ep_dup_connect(ep.h, dup.h, tmo, n, pdata, qos),
	     H({ 1, DC_HANDLE_EP }, { 2, DC_HANDLE_EP }),
	     "dat_ep_dup_connect(%s, %s, %u, %d, pdata, 0x%x)", ep.text, dup.text,
	     (unsigned int)tmo, n, (unsigned int)qos);
}

static void op_ep_disconnect(struct fz_in *in)
{
	struct fz_arg ep = fz_handle(in, FZ_EP);
	DAT_CLOSE_FLAGS f = fz_u8(in) < 240 ? (DAT_CLOSE_FLAGS)(fz_u8(in) & 1) :
			    (DAT_CLOSE_FLAGS)fz_u32(in);
	DAT_RETURN r;

	CALL(r, "dat_ep_disconnect", 0, dat_ep_disconnect(ep.h, f), H({ 1, DC_HANDLE_EP }),
	     "dat_ep_disconnect(%s, 0x%x)", ep.text, (unsigned int)f);
}

enum post { POST_SEND, POST_RECV, POST_READ, POST_WRITE };

static void op_post(struct fz_in *in, enum post kind)
{
	static const char *const pages[] = { "dat_ep_post_send", "dat_ep_post_recv",
					     "dat_ep_post_rdma_read", "dat_ep_post_rdma_write" };
	struct fz_arg ep = fz_handle(in, FZ_EP);
	struct iovs v = make_iovs(in, true);
	DAT_DTO_COOKIE ck = cookie(in);
	DAT_COMPLETION_FLAGS f = completion_flags(in);
	DAT_RMR_TRIPLET rv = make_rmr_iov(in);
	bool null_iov = fz_null(in, pages[kind]);
	DAT_LMR_TRIPLET *iov = null_iov ? NULL : v.v;
	DAT_RETURN r;

	switch (kind) {
	case POST_SEND:
		CALL(r, pages[kind], 0, dat_ep_post_send(ep.h, v.n, iov, ck, f),
		     H({ 1, DC_HANDLE_EP }), "%s(%s, %d, %s, cookie, 0x%x)", pages[kind],
		     ep.text, v.n, null_iov ? "NULL" : v.text, (unsigned int)f);
		break;
	case POST_RECV:
		CALL(r, pages[kind], 0, dat_ep_post_recv(ep.h, v.n, iov, ck, f),
		     H({ 1, DC_HANDLE_EP }), "%s(%s, %d, %s, cookie, 0x%x)", pages[kind],
		     ep.text, v.n, null_iov ? "NULL" : v.text, (unsigned int)f);
		break;
	case POST_READ:
		CALL(r, pages[kind], 0, dat_ep_post_rdma_read(ep.h, v.n, iov, ck, &rv, f),
		     H({ 1, DC_HANDLE_EP }), "%s(%s, %d, %s, cookie, &rmr_iov, 0x%x)",
		     pages[kind], ep.text, v.n, null_iov ? "NULL" : v.text, (unsigned int)f);
		break;
	case POST_WRITE:
		CALL(r, pages[kind], 0, dat_ep_post_rdma_write(ep.h, v.n, iov, ck, &rv, f),
		     H({ 1, DC_HANDLE_EP }), "%s(%s, %d, %s, cookie, &rmr_iov, 0x%x)",
		     pages[kind], ep.text, v.n, null_iov ? "NULL" : v.text, (unsigned int)f);
		break;
	}
	free(v.v);
}

static void op_ep_post_send(struct fz_in *in) { op_post(in, POST_SEND); }
static void op_ep_post_recv(struct fz_in *in) { op_post(in, POST_RECV); }
static void op_ep_post_rdma_read(struct fz_in *in) { op_post(in, POST_READ); }
static void op_ep_post_rdma_write(struct fz_in *in) { op_post(in, POST_WRITE); }

static void op_ep_get_status(struct fz_in *in)
{
	struct fz_arg ep = fz_handle(in, FZ_EP);
	uint8_t nulls = fz_nulls(in, "dat_ep_get_status");
	DAT_EP_STATE st;
	DAT_BOOLEAN ri, qi;
	DAT_RETURN r;

	CALL(r, "dat_ep_get_status", 0,
	     dat_ep_get_status(ep.h, nulls & 1 ? NULL : &st, nulls & 2 ? NULL : &ri,
			       nulls & 4 ? NULL : &qi),
	     H({ 1, DC_HANDLE_EP }), "dat_ep_get_status(%s, %s, %s, %s)", ep.text,
	     nulls & 1 ? "NULL" : "&state", nulls & 2 ? "NULL" : "&recv_idle",
	     nulls & 4 ? "NULL" : "&request_idle");
}

static void op_ep_recv_query(struct fz_in *in)
{
	struct fz_arg ep = fz_handle(in, FZ_EP);
	uint8_t nulls = fz_nulls(in, "dat_ep_recv_query");
	DAT_COUNT a, b;
	DAT_RETURN r;

	CALL(r, "dat_ep_recv_query", 0,
	     dat_ep_recv_query(ep.h, nulls & 1 ? NULL : &a, nulls & 2 ? NULL : &b),
	     H({ 1, DC_HANDLE_EP }), "dat_ep_recv_query(%s, %s, %s)", ep.text,
	     nulls & 1 ? "NULL" : "&nbufs", nulls & 2 ? "NULL" : "&span");
}

static void op_ep_set_watermark(struct fz_in *in)
{
	struct fz_arg ep = fz_handle(in, FZ_EP);
	DAT_COUNT soft = fz_count(in), hard = fz_count(in);
	DAT_RETURN r;

	CALL(r, "dat_ep_set_watermark", 0, dat_ep_set_watermark(ep.h, soft, hard),
	     H({ 1, DC_HANDLE_EP }), "dat_ep_set_watermark(%s, %d, %d)", ep.text, soft, hard);
}

static void op_lmr_create(struct fz_in *in)
{
	struct fz_arg ia = fz_ia_arg(in);
	struct fz_arg pz = fz_handle(in, FZ_PZ);
	int i = fz_slot(in);
	struct fz_slot *s = &fz_pool[FZ_LMR][i];
	uint8_t tsel = fz_u8(in);
	DAT_MEM_TYPE type = tsel < 220 ? DAT_MEM_TYPE_VIRTUAL :
			    tsel < 240 ? DAT_MEM_TYPE_LMR : (DAT_MEM_TYPE)fz_u32(in);
	size_t size = 1 + fz_u32(in) % FZ_BUF_MAX;
	uint8_t *buf = calloc(1, size);
	uint64_t off = 0, len = size;
	DAT_MEM_PRIV_FLAGS priv = (DAT_MEM_PRIV_FLAGS)(fz_u8(in) < 220 ? DAT_MEM_PRIV_ALL_FLAG :
						       fz_u32(in));
	struct fz_arg other = type == DAT_MEM_TYPE_LMR ? fz_handle(in, FZ_LMR) : (struct fz_arg){ 0 };
	/* With DAT_MEM_TYPE_LMR the region is a handle too. */
	const struct fz_harg hv[] = { { 1, DC_HANDLE_IA }, { 5, DC_HANDLE_PZ },
				      { 3, DC_HANDLE_LMR } };
	DAT_REGION_DESCRIPTION region;
	DAT_LMR_HANDLE h = DAT_HANDLE_NULL;
	DAT_LMR_CONTEXT lctx = 0;
	DAT_RMR_CONTEXT rctx = 0;
	DAT_VLEN rlen;
	DAT_VADDR raddr;
	DAT_RETURN r;

	if (!buf)
		return;
	if (nbufs == FZ_BUFS) {
		free(buf);
		return;
	}
	if (fz_u8(in) >= 160) {
		/* Inside the buffer or empty: never memory that is not ours. */
		off = fz_u32(in) % size;
		len = fz_u8(in) < 128 ? 0 : fz_u32(in) % (size - off + 1);
	}
	memset(&region, 0, sizeof(region));
	if (type == DAT_MEM_TYPE_LMR)
		region.for_lmr_handle = other.h;
	else
		region.for_va = buf + off;
	CALL(r, "dat_lmr_create", 0,
	     dc_dat_lmr_create(ia.h, type, region, len, pz.h, priv, &h, &lctx, &rctx,
			       &rlen, &raddr),
	     FZ_HV(hv, type == DAT_MEM_TYPE_LMR ? 3 : 2),
	     "dat_lmr_create(%s, 0x%x, %s, %llu, %s, 0x%x, &%s, &lmr_ctx, &rmr_ctx, &len, &addr)",
	     ia.text, (unsigned int)type,
	     type == DAT_MEM_TYPE_LMR ? other.text : "(region){ .for_va = buf + off }",
	     (unsigned long long)len, pz.text, (unsigned int)priv, fz_slot_name(FZ_LMR, i));
	if (r != DAT_SUCCESS) {
		free(buf);
		return;
	}
	/* Consumer memory stays until the IA is closed: a DTO may still use it. */
	bufs[nbufs++] = buf;
	fz_created(FZ_LMR, i, h);
	s->buf = buf;
	s->len = len;
	s->lmr_ctx = lctx;
	s->rmr_ctx = rctx;
}

static void op_lmr_sync(struct fz_in *in)
{
	bool write = fz_u8(in) & 1;
	struct fz_arg ia = fz_ia_arg(in);
	struct iovs v = make_iovs(in, false);	/* num_segments is a DAT_VLEN */
	DAT_RETURN r;

	if (write)
		CALL(r, "dat_lmr_sync_rdma_write", 0,
		     dat_lmr_sync_rdma_write(ia.h, v.v, (DAT_VLEN)v.n), H({ 1, DC_HANDLE_IA }),
		     "dat_lmr_sync_rdma_write(%s, %s, %d)", ia.text, v.text, v.n);
	else
		CALL(r, "dat_lmr_sync_rdma_read", 0,
		     dat_lmr_sync_rdma_read(ia.h, v.v, (DAT_VLEN)v.n), H({ 1, DC_HANDLE_IA }),
		     "dat_lmr_sync_rdma_read(%s, %s, %d)", ia.text, v.text, v.n);
	free(v.v);
}

static void op_rmr_create(struct fz_in *in)
{
	struct fz_arg pz = fz_handle(in, FZ_PZ);
	int i = fz_slot(in);
	DAT_RMR_HANDLE h = DAT_HANDLE_NULL;
	DAT_RETURN r;

	CALL(r, "dat_rmr_create", 0, dat_rmr_create(pz.h, &h), H({ 1, DC_HANDLE_PZ }),
	     "dat_rmr_create(%s, &%s)", pz.text, fz_slot_name(FZ_RMR, i));
	if (r == DAT_SUCCESS) {
		fz_created(FZ_RMR, i, h);
		fz_pool[FZ_RMR][i].rmr_ctx = 0;
	}
}

static void op_rmr_bind(struct fz_in *in)
{
	struct fz_arg rmr = fz_handle(in, FZ_RMR);
	struct fz_arg lmr = fz_handle(in, FZ_LMR);
	struct fz_arg ep = fz_handle(in, FZ_EP);
	struct iovs v = make_iovs(in, true);
	DAT_MEM_PRIV_FLAGS priv = (DAT_MEM_PRIV_FLAGS)(fz_u8(in) < 220 ? DAT_MEM_PRIV_ALL_FLAG :
						       fz_u32(in));
	DAT_RMR_COOKIE ck = { .as_64 = fz_u8(in) };
	DAT_COMPLETION_FLAGS f = completion_flags(in);
	bool null_iov = v.n < 1 || fz_null(in, "dat_rmr_bind");
	DAT_RMR_CONTEXT ctx = 0;
	DAT_RETURN r;

	CALL(r, "dat_rmr_bind", 0,
	     dc_dat_rmr_bind(rmr.h, lmr.h, null_iov ? NULL : v.v, priv, ep.h, ck, f, &ctx),
	     H({ 1, DC_HANDLE_RMR }, { 2, DC_HANDLE_LMR }, { 3, DC_HANDLE_LMR },
	       { 4, DC_HANDLE_EP }, { 5, DC_HANDLE_EP }),
	     "dat_rmr_bind(%s, %s, 0x%x, %s, cookie, 0x%x, &rmr_ctx)\t/* 2.0: lmr %s */",
	     rmr.text, null_iov ? "NULL" : "&iov[0]", (unsigned int)priv, ep.text,
	     (unsigned int)f, lmr.text);
	if (r == DAT_SUCCESS)
		for (int i = 0; i < FZ_SLOTS; i++)
			if (fz_pool[FZ_RMR][i].state == FZ_LIVE && fz_pool[FZ_RMR][i].h == rmr.h)
				fz_pool[FZ_RMR][i].rmr_ctx = ctx;
	free(v.v);
}

static void op_psp_create(struct fz_in *in)
{
	bool any = fz_u8(in) < 192;
	struct fz_arg ia = fz_ia_arg(in);
	struct fz_arg evd = fz_handle(in, FZ_EVD);
	DAT_PSP_FLAGS f = fz_u8(in) < 240 ? (DAT_PSP_FLAGS)(fz_u8(in) & 1) : (DAT_PSP_FLAGS)fz_u32(in);
	DAT_CONN_QUAL qual = any ? 0 : (DAT_CONN_QUAL)(fz_u8(in) < 200 ? 40000 + fz_u8(in) : fz_u64(in));
	bool null_q = any && fz_null(in, "dat_psp_create_any");
	int i = fz_slot(in);
	DAT_PSP_HANDLE h = DAT_HANDLE_NULL;
	DAT_RETURN r;

	if (any)
		CALL(r, "dat_psp_create_any", 0,
		     dat_psp_create_any(ia.h, null_q ? NULL : &qual, evd.h, f, &h),
		     H({ 1, DC_HANDLE_IA }, { 3, DC_HANDLE_EVD_CR }),
		     "dat_psp_create_any(%s, %s, %s, 0x%x, &%s)", ia.text,
		     null_q ? "NULL" : "&qual", evd.text, (unsigned int)f, fz_slot_name(FZ_PSP, i));
	else
		CALL(r, "dat_psp_create", 0, dat_psp_create(ia.h, qual, evd.h, f, &h),
		     H({ 1, DC_HANDLE_IA }, { 3, DC_HANDLE_EVD_CR }),
		     "dat_psp_create(%s, %llu, %s, 0x%x, &%s)", ia.text,
		     (unsigned long long)qual, evd.text, (unsigned int)f, fz_slot_name(FZ_PSP, i));
	if (r == DAT_SUCCESS) {
		fz_created(FZ_PSP, i, h);
		fz_pool[FZ_PSP][i].qual = qual;
	}
}

static void op_rsp_create(struct fz_in *in)
{
	struct fz_arg ia = fz_ia_arg(in);
	DAT_CONN_QUAL qual = (DAT_CONN_QUAL)(fz_u8(in) < 200 ? 41000 + fz_u8(in) : fz_u64(in));
	struct fz_arg ep = fz_handle(in, FZ_EP);
	struct fz_arg evd = fz_handle(in, FZ_EVD);
	int i = fz_slot(in);
	DAT_RSP_HANDLE h = DAT_HANDLE_NULL;
	DAT_RETURN r;

	CALL(r, "dat_rsp_create", 0, dat_rsp_create(ia.h, qual, ep.h, evd.h, &h),
	     H({ 1, DC_HANDLE_IA }, { 3, DC_HANDLE_EP }, { 4, DC_HANDLE_EVD_CR }),
	     "dat_rsp_create(%s, %llu, %s, %s, &%s)", ia.text, (unsigned long long)qual,
	     ep.text, evd.text, fz_slot_name(FZ_RSP, i));
	if (r == DAT_SUCCESS) {
		fz_created(FZ_RSP, i, h);
		fz_pool[FZ_RSP][i].qual = qual;
	}
}

static void op_srq_create(struct fz_in *in)
{
	struct fz_arg ia = fz_ia_arg(in);
	struct fz_arg pz = fz_handle(in, FZ_PZ);
	DAT_SRQ_ATTR a = { .max_recv_dtos = fz_count(in), .max_recv_iov = fz_count(in),
			   .low_watermark = fz_count(in) };
	bool null_attr = fz_null(in, "dat_srq_create");
	int i = fz_slot(in);
	DAT_SRQ_HANDLE h = DAT_HANDLE_NULL;
	DAT_RETURN r;

	CALL(r, "dat_srq_create", 0, dat_srq_create(ia.h, pz.h, null_attr ? NULL : &a, &h),
	     H({ 1, DC_HANDLE_IA }, { 2, DC_HANDLE_PZ }),
	     "dat_srq_create(%s, %s, %s, &%s)\t/* attr { %d, %d, %d } */", ia.text, pz.text,
	     null_attr ? "NULL" : "&srq_attr", fz_slot_name(FZ_SRQ, i), a.max_recv_dtos,
	     a.max_recv_iov, a.low_watermark);
	if (r == DAT_SUCCESS)
		fz_created(FZ_SRQ, i, h);
}

static void op_srq_post_recv(struct fz_in *in)
{
	struct fz_arg srq = fz_handle(in, FZ_SRQ);
	struct iovs v = make_iovs(in, true);
	DAT_DTO_COOKIE ck = cookie(in);
	DAT_RETURN r;

	CALL(r, "dat_srq_post_recv", 0, dat_srq_post_recv(srq.h, v.n, v.v, ck),
	     H({ 1, DC_HANDLE_SRQ }), "dat_srq_post_recv(%s, %d, %s, cookie)", srq.text,
	     v.n, v.text);
	free(v.v);
}

static void op_srq_resize(struct fz_in *in)
{
	struct fz_arg srq = fz_handle(in, FZ_SRQ);
	DAT_COUNT n = fz_count(in);
	DAT_RETURN r;

	CALL(r, "dat_srq_resize", 0, dat_srq_resize(srq.h, n), H({ 1, DC_HANDLE_SRQ }),
	     "dat_srq_resize(%s, %d)", srq.text, n);
}

static void op_srq_set_lw(struct fz_in *in)
{
	struct fz_arg srq = fz_handle(in, FZ_SRQ);
	DAT_COUNT n = fz_count(in);
	DAT_RETURN r;

	CALL(r, "dat_srq_set_lw", 0, dat_srq_set_lw(srq.h, n), H({ 1, DC_HANDLE_SRQ }),
	     "dat_srq_set_lw(%s, %d)", srq.text, n);
}

static void op_cr_accept(struct fz_in *in)
{
	struct fz_arg cr = fz_handle(in, FZ_CR);
	struct fz_arg ep = fz_u8(in) < 224 ? fz_handle(in, FZ_EP) :
			   (struct fz_arg){ DAT_HANDLE_NULL, "DAT_HANDLE_NULL" };
	DAT_COUNT n = pdata_size(in);
	DAT_RETURN r;

	CALL(r, "dat_cr_accept", 0, dat_cr_accept(cr.h, ep.h, n, pdata),
	     H({ 1, DC_HANDLE_CR }, { 2, DC_HANDLE_EP }),
	     "dat_cr_accept(%s, %s, %d, pdata)", cr.text, ep.text, n);
	if (r == DAT_SUCCESS)
		fz_freed(cr.h);
}

static void op_cr_handoff(struct fz_in *in)
{
	struct fz_arg cr = fz_handle(in, FZ_CR);
	DAT_CONN_QUAL q = fz_u8(in) < 200 ? fz_pool[FZ_PSP][fz_below(in, FZ_SLOTS)].qual :
			  (DAT_CONN_QUAL)fz_u64(in);
	DAT_RETURN r;

	CALL(r, "dat_cr_handoff", 0, dat_cr_handoff(cr.h, q), H({ 1, DC_HANDLE_CR }),
	     "dat_cr_handoff(%s, %llu)", cr.text, (unsigned long long)q);
	if (r == DAT_SUCCESS)
		fz_freed(cr.h);
}

static enum fz_kind any_kind(struct fz_in *in)
{
	return (enum fz_kind)fz_below(in, FZ_KINDS);
}

static void op_consumer_context(struct fz_in *in)
{
	bool set = fz_u8(in) & 1;
	struct fz_arg h = fz_u8(in) < 16 ? fz_ia_arg(in) : fz_handle(in, any_kind(in));
	DAT_CONTEXT ctx = { .as_64 = fz_u64(in) };
	bool null = fz_null(in, set ? "dat_set_consumer_context" : "dat_get_consumer_context");
	DAT_RETURN r;

	if (set)
		CALL(r, "dat_set_consumer_context", 0, dat_set_consumer_context(h.h, ctx),
		     H({ 1, DC_HANDLE_ANY }), "dat_set_consumer_context(%s, (DAT_CONTEXT){ .as_64 = 0x%llx })",
		     h.text, (unsigned long long)ctx.as_64);
	else
		CALL(r, "dat_get_consumer_context", 0,
		     dat_get_consumer_context(h.h, null ? NULL : &ctx), H({ 1, DC_HANDLE_ANY }),
		     "dat_get_consumer_context(%s, %s)", h.text, null ? "NULL" : "&context");
}

static void op_get_handle_type(struct fz_in *in)
{
	struct fz_arg h = fz_u8(in) < 16 ? fz_ia_arg(in) : fz_handle(in, any_kind(in));
	bool null = fz_null(in, "dat_get_handle_type");
	DAT_HANDLE_TYPE t;
	DAT_RETURN r;

	CALL(r, "dat_get_handle_type", 0, dat_get_handle_type(h.h, null ? NULL : &t),
	     H({ 1, DC_HANDLE_ANY }), "dat_get_handle_type(%s, %s)", h.text,
	     null ? "NULL" : "&type");
}

static void op_ia_query(struct fz_in *in)
{
	struct fz_arg ia = fz_ia_arg(in);
	DAT_IA_ATTR_MASK im = fz_u32(in);
	DAT_PROVIDER_ATTR_MASK pm = fz_u32(in);
	uint8_t nulls = fz_nulls(in, "dat_ia_query");
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR prov_attr;
	DAT_RETURN r;

	CALL(r, "dat_ia_query", 0,
	     dat_ia_query(ia.h, nulls & 1 ? NULL : &async, im, nulls & 2 ? NULL : &ia_attr,
			  pm, nulls & 4 ? NULL : &prov_attr),
	     H({ 1, DC_HANDLE_IA }), "dat_ia_query(%s, %s, 0x%x, %s, 0x%x, %s)", ia.text,
	     nulls & 1 ? "NULL" : "&async_evd", (unsigned int)im,
	     nulls & 2 ? "NULL" : "&ia_attr", (unsigned int)pm,
	     nulls & 4 ? "NULL" : "&provider_attr");
}

static void op_strerror(struct fz_in *in)
{
	DAT_RETURN code = (DAT_RETURN)fz_u32(in);
	uint8_t nulls = fz_registry_admits(FZ_H_STRERROR_NULL) ?
			fz_nulls(in, "dat_strerror") : 0;
	const char *maj = NULL, *min = NULL;
	DAT_RETURN r;

	CALL(r, "dat_strerror", 0,
	     dat_strerror(code, nulls & 1 ? NULL : &maj, nulls & 2 ? NULL : &min), FZ_H0,
	     "dat_strerror(0x%08x, %s, %s)", (unsigned int)code,
	     nulls & 1 ? "NULL" : "&major", nulls & 2 ? "NULL" : "&minor");
	/* The messages are strings: reading them must be safe. */
	if (r == DAT_SUCCESS && ((maj && strlen(maj) > 4096) || (min && strlen(min) > 4096)))
		fz_finding("dat_strerror(0x%08x) gave a message over 4096 bytes", (unsigned int)code);
}

/* ---- the driver ------------------------------------------------------------------------ */

typedef void (*fz_op)(struct fz_in *in);

static const fz_op ops[] = {
	op_pz_create, op_pz_query, op_pz_free,
	op_evd_create, op_evd_query, op_evd_free, op_evd_modify_cno, op_evd_enable,
	op_evd_disable, op_evd_wait, op_evd_set_unwaitable, op_evd_clear_unwaitable,
	op_evd_resize, op_evd_post_se, op_evd_dequeue,
	op_cno_create, op_cno_modify_agent, op_cno_query, op_cno_free, op_cno_wait,
	op_ep_create, op_ep_query, op_ep_modify, op_ep_connect, op_ep_dup_connect,
	op_ep_disconnect, op_ep_post_send, op_ep_post_recv, op_ep_post_rdma_read,
	op_ep_post_rdma_write, op_ep_get_status, op_ep_free, op_ep_reset,
	op_ep_recv_query, op_ep_set_watermark,
	op_lmr_create, op_lmr_query, op_lmr_free, op_lmr_sync,
	op_rmr_create, op_rmr_query, op_rmr_bind, op_rmr_free,
	op_psp_create, op_psp_query, op_psp_free,
	op_rsp_create, op_rsp_query, op_rsp_free,
	op_srq_create, op_srq_free, op_srq_post_recv, op_srq_query, op_srq_resize,
	op_srq_set_lw,
	op_cr_query, op_cr_accept, op_cr_reject, op_cr_handoff,
	op_consumer_context, op_get_handle_type, op_ia_query, op_strerror,
};

#define FZ_MAX_OPS 64

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* /proc/self/fd: opendir's own descriptor */
}

static size_t heap_bytes(void)
{
#ifdef FZ_ASAN
	return __sanitizer_get_current_allocated_bytes();
#else
	return 0;
#endif
}

/*
 * What an IA may keep after it is closed: nothing of its own.  The slack
 * is the provider's process-wide caches (e.g. the reference provider's
 * handle quarantine, bounded per object size class); a leak of the IA's
 * objects or buffers grows past it within a few inputs.
 */
#define FZ_RETAIN_SLACK	(4u << 20)

static void open_ia(DAT_COUNT qlen, DAT_EVD_HANDLE *async)
{
	DAT_IA_ATTR attr;
	DAT_RETURN r;

	*async = DAT_HANDLE_NULL;
	fz_call_begin("dat_ia_open", 0, "dat_ia_open(\"%s\", %d, &async_evd, &ia)", ia_name, qlen);
	r = dat_ia_open((DAT_NAME_PTR)ia_name, qlen, async, &fz_ia);
	fz_call_end("dat_ia_open", r, FZ_H0);
	if (r != DAT_SUCCESS) {
		fz_ia = DAT_HANDLE_NULL;
		return;
	}
	memset(&ia_addr, 0, sizeof(ia_addr));
	if (dat_ia_query(fz_ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &attr, 0, NULL) ==
	    DAT_SUCCESS && attr.ia_address_ptr)
		memcpy(&ia_addr, attr.ia_address_ptr,
		       attr.ia_address_ptr->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
}

static void close_ia(bool graceful)
{
	DAT_RETURN r;

	if (graceful) {
		FZ_CALL(r, "dat_ia_close", 0, dat_ia_close(fz_ia, DAT_CLOSE_GRACEFUL_FLAG),
			H({ 1, DC_HANDLE_IA }), "dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG)");
		if (r == DAT_SUCCESS)
			return;
	}
	FZ_CALL(r, "dat_ia_close", 0, dat_ia_close(fz_ia, DAT_CLOSE_ABRUPT_FLAG),
		H({ 1, DC_HANDLE_IA }), "dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG)");
	if (r != DAT_SUCCESS)
		fz_finding("dat_ia_close(DAT_CLOSE_ABRUPT_FLAG) returned %s: the IA is not closed",
			   dc_ret_text(r));
}

/*
 * Keeps the provider's library loaded for the whole run: libFuzzer keeps
 * the coverage counters of every library it saw, and the registries
 * unload a provider (libdat with its last IA; libdat2 even loads it twice
 * at its first dat_ia_open).  $DATCTS_FUZZ_PROVIDER (set by `datcts fuzz`
 * from the dat.conf entry) is loaded before any registry call; without it
 * the library is found through the first IA's objects.
 */
static void pin_provider(void)
{
	const char *lib = getenv("DATCTS_FUZZ_PROVIDER");
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	Dl_info info;

	if (lib && *lib && !dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE))
		fprintf(stderr, "datcts fuzz: cannot load %s: %s\n", lib, dlerror());

	open_ia(8, &async);
	if (!fz_ia) {
		fprintf(stderr, "datcts fuzz: dat_ia_open(\"%s\") failed (DAT_OVERRIDE=%s)\n",
			ia_name, getenv("DAT_OVERRIDE") ? getenv("DAT_OVERRIDE") : "unset");
		exit(2);
	}
	if (dat_pz_create(fz_ia, &pz) == DAT_SUCCESS) {
		if (dladdr(*(void **)pz, &info) && info.dli_fname &&
		    !dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
			fprintf(stderr, "datcts fuzz: cannot pin %s: %s\n", info.dli_fname, dlerror());
		dat_pz_free(pz);
	}
	close_ia(false);
	fz_log_reset();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ia_name = getenv("DATCTS_IA");
	if (!ia_name || !*ia_name) {
		fprintf(stderr, "datcts fuzz: no IA under test: set DATCTS_IA (and DAT_OVERRIDE)\n");
		exit(2);
	}
	fz_log_init();
#ifdef FZ_ASAN
	/* A sanitizer report (a crash in the provider) ends with the sequence. */
	__sanitizer_set_death_callback(fz_on_crash);
#endif
	fz_watchdog_start();
	pin_provider();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	DAT_COUNT qlen = 1 + fz_u8(&in) % 64;
	bool graceful = fz_u8(&in) & 1;
	DAT_EVD_HANDLE async;
	int fds, threads;
	size_t heap;

	fz_log_reset();
	memset(fz_pool, 0, sizeof(fz_pool));
	fds = count_dir("/proc/self/fd");
	threads = count_dir("/proc/self/task") + 1;
	heap = heap_bytes();
	open_ia(qlen, &async);
	if (!fz_ia)
		return 0;
	for (int n = 0; n < FZ_MAX_OPS && in.n; n++)
		ops[fz_below(&in, sizeof(ops) / sizeof(ops[0]))](&in);
	close_ia(graceful);
	for (int i = 0; i < nbufs; i++)
		free(bufs[i]);
	nbufs = 0;
	if (count_dir("/proc/self/fd") != fds)
		fz_finding("after dat_ia_close the process has %d file descriptors, %d before "
			   "dat_ia_open", count_dir("/proc/self/fd"), fds);
	/* Threads end asynchronously after a join-less exit: allow them a moment. */
	for (int tries = 0; count_dir("/proc/self/task") + 1 != threads; tries++) {
		struct timespec ms = { 0, 1000000 };

		if (tries == 2000)
			fz_finding("after dat_ia_close the process has %d threads, %d before "
				   "dat_ia_open", count_dir("/proc/self/task") + 1, threads);
		nanosleep(&ms, NULL);
	}
	if (heap_bytes() > heap + FZ_RETAIN_SLACK)
		fz_finding("after dat_ia_close %zu bytes more are allocated than before "
			   "dat_ia_open", heap_bytes() - heap);
	return 0;
}
