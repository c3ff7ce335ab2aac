/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_ia_query(3DAT); clauses in clauses/dat_ia_query.toml.
 */
#include "ia_common.h"

#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>

enum mkind { M_BYTES, M_ADDR, M_NAMED };

struct member {
	const char *name;
	size_t off, size;
	enum mkind kind;
	size_t count_off;	/* M_NAMED: offset of the DAT_COUNT with its length */
};

#define IAM(f) { #f, offsetof(DAT_IA_ATTR, f), sizeof(((DAT_IA_ATTR *)0)->f), M_BYTES, 0 }
#define PRM(f) { #f, offsetof(DAT_PROVIDER_ATTR, f), sizeof(((DAT_PROVIDER_ATTR *)0)->f), M_BYTES, 0 }

/* In mask-bit order: bit i selects member i (dat12-facts.md 4.3, 4.4). */
static const struct member ia_members[] = {
	IAM(adapter_name), IAM(vendor_name),
	IAM(hardware_version_major), IAM(hardware_version_minor),
	IAM(firmware_version_major), IAM(firmware_version_minor),
	{ "ia_address_ptr", offsetof(DAT_IA_ATTR, ia_address_ptr), sizeof(void *), M_ADDR, 0 },
	IAM(max_eps), IAM(max_dto_per_ep), IAM(max_rdma_read_per_ep_in),
	IAM(max_rdma_read_per_ep_out), IAM(max_evds), IAM(max_evd_qlen),
	IAM(max_iov_segments_per_dto), IAM(max_lmrs), IAM(max_lmr_block_size),
	IAM(max_lmr_virtual_address), IAM(max_pzs), IAM(max_message_size),
	IAM(max_rdma_size), IAM(max_rmrs), IAM(max_rmr_target_address),
	IAM(max_srqs), IAM(max_ep_per_srq), IAM(max_recv_per_srq),
	IAM(max_iov_segments_per_rdma_read), IAM(max_iov_segments_per_rdma_write),
	IAM(max_rdma_read_in), IAM(max_rdma_read_out),
	IAM(max_rdma_read_per_ep_in_guaranteed), IAM(max_rdma_read_per_ep_out_guaranteed),
	IAM(num_transport_attr),
	{ "transport_attr", offsetof(DAT_IA_ATTR, transport_attr), sizeof(void *), M_NAMED,
	  offsetof(DAT_IA_ATTR, num_transport_attr) },
	IAM(num_vendor_attr),
	{ "vendor_attr", offsetof(DAT_IA_ATTR, vendor_attr), sizeof(void *), M_NAMED,
	  offsetof(DAT_IA_ATTR, num_vendor_attr) },
};

static const struct member prov_members[] = {
	PRM(provider_name), PRM(provider_version_major), PRM(provider_version_minor),
	PRM(dapl_version_major), PRM(dapl_version_minor), PRM(lmr_mem_types_supported),
	PRM(iov_ownership_on_return), PRM(dat_qos_supported),
	PRM(completion_flags_supported), PRM(is_thread_safe), PRM(max_private_data_size),
	PRM(supports_multipath), PRM(ep_creator), PRM(pz_support),
	PRM(optimal_buffer_alignment), PRM(evd_stream_merging_supported),
	PRM(srq_supported), PRM(srq_watermarks_supported),
	PRM(srq_ep_pz_difference_supported), PRM(srq_info_supported),
	PRM(ep_recv_info_supported), PRM(lmr_sync_req), PRM(dto_async_return_guaranteed),
	PRM(rdma_write_for_rdma_read_req), PRM(num_provider_specific_attr),
	{ "provider_specific_attr", offsetof(DAT_PROVIDER_ATTR, provider_specific_attr),
	  sizeof(void *), M_NAMED, offsetof(DAT_PROVIDER_ATTR, num_provider_specific_attr) },
};

static size_t addr_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return sizeof(struct sockaddr);
	}
}

static bool named_equal(const DAT_NAMED_ATTR *a, const DAT_NAMED_ATTR *b, DAT_COUNT n)
{
	for (DAT_COUNT i = 0; i < n; i++) {
		if (!a[i].name || !b[i].name || !a[i].value || !b[i].value)
			return a[i].name == b[i].name && a[i].value == b[i].value;
		if (strcmp(a[i].name, b[i].name) || strcmp(a[i].value, b[i].value))
			return false;
	}
	return true;
}

/* Member m of `one` (asked for alone) equals member m of `all`. */
static bool member_equal(const struct member *m, const void *one, const void *all)
{
	const char *p = (const char *)one + m->off, *q = (const char *)all + m->off;

	switch (m->kind) {
	case M_BYTES:
		return memcmp(p, q, m->size) == 0;
	case M_ADDR: {
		const struct sockaddr *a = *(struct sockaddr *const *)p;
		const struct sockaddr *b = *(struct sockaddr *const *)q;

		if (!a || !b)
			return a == b;
		return a->sa_family == b->sa_family && !memcmp(a, b, addr_len(a));
	}
	case M_NAMED: {
		const DAT_NAMED_ATTR *a = *(DAT_NAMED_ATTR *const *)p;
		const DAT_NAMED_ATTR *b = *(DAT_NAMED_ATTR *const *)q;
		DAT_COUNT n = *(const DAT_COUNT *)((const char *)all + m->count_off);

		if (n <= 0)
			return true;
		if (!a || !b)
			return false;
		return named_equal(a, b, n);
	}
	}
	return false;
}

DC_CASE(dat_ia_query, fills_requested,
	.summary = "every IA and Provider mask bit alone returns the value the ALL query gives")
{
	DAT_IA_ATTR all, one;
	DAT_PROVIDER_ATTR pall, pone;

	memset(&all, 0x5a, sizeof(all));
	memset(&pall, 0x5a, sizeof(pall));
	DC_SETUP(dat_ia_query(t->ia, NULL, DAT_IA_FIELD_ALL, &all, DAT_PROVIDER_FIELD_ALL, &pall));
	for (size_t i = 0; i < sizeof(ia_members) / sizeof(ia_members[0]); i++) {
		const struct member *m = &ia_members[i];
		DAT_IA_ATTR_MASK bit = (DAT_IA_ATTR_MASK)1 << i;

		memset(&one, 0xa5, sizeof(one));
		/* a named array needs its count alongside to be read */
		if (m->kind == M_NAMED)
			bit |= (DAT_IA_ATTR_MASK)1 << (i - 1);
		DC_ASSERT_SUCCESS(dat_ia_query(t->ia, NULL, bit, &one, DAT_PROVIDER_FIELD_NONE, NULL));
		DC_ASSERT(member_equal(m, &one, &all),
			  "IA attribute %s (mask 0x%llx) differs from the DAT_IA_FIELD_ALL value",
			  m->name, (unsigned long long)bit);
	}
	for (size_t i = 0; i < sizeof(prov_members) / sizeof(prov_members[0]); i++) {
		const struct member *m = &prov_members[i];
		DAT_PROVIDER_ATTR_MASK bit = (DAT_PROVIDER_ATTR_MASK)1 << i;

		memset(&pone, 0xa5, sizeof(pone));
		if (m->kind == M_NAMED)
			bit |= (DAT_PROVIDER_ATTR_MASK)1 << (i - 1);
		DC_ASSERT_SUCCESS(dat_ia_query(t->ia, NULL, DAT_IA_FIELD_NONE, NULL, bit, &pone));
		DC_ASSERT(member_equal(m, &pone, &pall),
			  "Provider attribute %s (mask 0x%llx) differs from the DAT_PROVIDER_FIELD_ALL value",
			  m->name, (unsigned long long)bit);
	}
}

DC_CASE(dat_ia_query, async_evd_reported,
	.summary = "the query reports the async EVD the open created, and one that was passed in")
{
	DAT_EVD_HANDLE q = DAT_HANDLE_NULL, evd = t->async_evd;
	DAT_IA_HANDLE ia2;

	DC_ASSERT_SUCCESS(dat_ia_query(t->ia, &q, DAT_IA_FIELD_NONE, NULL,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_ASSERT_PTR_EQ(q, t->async_evd);
	ia2 = ia_open(16, &evd);
	q = DAT_HANDLE_NULL;
	DC_ASSERT_SUCCESS(dat_ia_query(ia2, &q, DAT_IA_FIELD_NONE, NULL,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_ASSERT_PTR_EQ(q, t->async_evd);
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_query, ia_attrs_common,
	.summary = "two instances of the IA report the same IA attributes")
{
	DAT_IA_HANDLE ia2 = ia_open_plain();
	DAT_IA_ATTR a;

	memset(&a, 0, sizeof(a));
	DC_SETUP(dat_ia_query(ia2, NULL, DAT_IA_FIELD_ALL, &a, DAT_PROVIDER_FIELD_NONE, NULL));
	for (size_t i = 0; i < sizeof(ia_members) / sizeof(ia_members[0]); i++)
		DC_ASSERT(member_equal(&ia_members[i], &a, &t->ia_attr),
			  "IA attribute %s differs between two instances", ia_members[i].name);
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_query, adapter_name_is_ia_name,
	.summary = "adapter_name is the name the IA was opened with")
{
	DC_ASSERT(memchr(t->ia_attr.adapter_name, '\0', sizeof(t->ia_attr.adapter_name)),
		  "adapter_name is not NUL-terminated");
	DC_ASSERT(!strcmp(t->ia_attr.adapter_name, t->ia_name),
		  "adapter_name is '%s', the IA was opened as '%s'",
		  t->ia_attr.adapter_name, t->ia_name);
}

DC_CASE(dat_ia_query, ia_address,
	.summary = "ia_address_ptr is a real address")
{
	const struct sockaddr *sa = t->ia_attr.ia_address_ptr;

	DC_ASSERT(sa != NULL, "ia_address_ptr is NULL");
	DC_ASSERT(sa->sa_family != AF_UNSPEC, "ia_address_ptr has family AF_UNSPEC");
}

DC_CASE(dat_ia_query, max_dto_per_ep_usable,
	.summary = "an EP with max_dto_per_ep DTOs in each direction can be created")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	DAT_COUNT n = t->ia_attr.max_dto_per_ep;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_EP_ATTR a;
	DAT_EP_PARAM p;

	DC_ASSERT_GT(n, 0);
	dc_ep_attr_default(t, &a);
	a.max_recv_dtos = n;
	a.max_request_dtos = n;
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: an EP with max_dto_per_ep in each direction is supported */
	DC_ASSERT_SUCCESS(dat_ep_create(t->ia, dc_pz(t), evd, evd, cevd, &a, &ep));
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: as above, and it has them */
	DC_ASSERT_SUCCESS(dat_ep_query(ep, DAT_EP_FIELD_ALL, &p));
	DC_ASSERT_GE(p.ep_attr.max_recv_dtos, n);
	DC_ASSERT_GE(p.ep_attr.max_request_dtos, n);
}

DC_CASE(dat_ia_query, max_evd_qlen_usable,
	.summary = "an EVD of max_evd_qlen entries can be created")
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_COUNT n = t->ia_attr.max_evd_qlen;
	DAT_EVD_PARAM p;

	DC_ASSERT_GT(n, 0);
	DC_SETUP_ASSERT(n <= (1 << 22), "max_evd_qlen %d too large to try here", n);
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: an EVD of max_evd_qlen is supported */
	DC_ASSERT_SUCCESS(dat_evd_create(t->ia, n, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG, &evd));
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: as above, and it has that length */
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
	DC_ASSERT_GE(p.evd_qlen, n);
}

DC_CASE(dat_ia_query, max_iov_usable,
	.summary = "an EP with max_iov_segments_per_dto segments takes a receive with that many")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 16, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 4, DAT_EVD_CONNECTION_FLAG);
	DAT_COUNT n = t->ia_attr.max_iov_segments_per_dto;
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_LMR_TRIPLET *iov;
	struct dc_lmr m;
	DAT_EP_ATTR a;

	DC_ASSERT_GT(n, 0);
	DC_SETUP_ASSERT(n <= 4096, "max_iov_segments_per_dto %d too large to try here", n);
	dc_ep_attr_default(t, &a);
	a.max_recv_iov = n;
	a.max_request_iov = n;
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: a DTO of max_iov_segments_per_dto segments is supported */
	DC_ASSERT_SUCCESS(dat_ep_create(t->ia, pz, evd, evd, cevd, &a, &ep));
	dc_lmr(t, pz, (DAT_VLEN)n * 16, DC_PRIV_LOCAL, &m);
	iov = calloc((size_t)(unsigned int)n, sizeof(*iov));	/* n > 0 asserted above */
	DC_SETUP_ASSERT(iov, "out of memory");
	for (DAT_COUNT i = 0; i < n; i++)
		iov[i] = dc_iov(&m, (DAT_VLEN)i * 16, 16);
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: as above, posted */
	DC_ASSERT_SUCCESS(dat_ep_post_recv(ep, n, iov, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
	free(iov);
}

DC_CASE(dat_ia_query, max_pzs_usable,
	.summary = "max_pzs PZs can exist at once")
{
	DAT_COUNT n = t->ia_attr.max_pzs;
	DAT_PZ_HANDLE pz;

	DC_ASSERT_GT(n, 0);
	DC_SETUP_ASSERT(n <= 65536, "max_pzs %d too large to try here", n);
	for (DAT_COUNT i = 0; i < n; i++) {
		DAT_RETURN r = dat_pz_create(t->ia, &pz);

		DC_ASSERT(r == DAT_SUCCESS, "PZ %d of max_pzs %d: dat_pz_create returned %s",
			  i + 1, n, dc_ret_text(r));
	}
}

DC_CASE(dat_ia_query, max_lmr_virtual_address,
	.summary = "a registered buffer lies below max_lmr_virtual_address and within max_lmr_block_size")
{
	struct dc_lmr m;
	DAT_VADDR last;

	dc_lmr(t, dc_pz(t), BUF, DC_PRIV_LOCAL, &m);
	last = (DAT_VADDR)(uintptr_t)m.buf + BUF - 1;
	DC_ASSERT(last <= t->ia_attr.max_lmr_virtual_address,
		  "buffer end 0x%llx above max_lmr_virtual_address 0x%llx",
		  (unsigned long long)last,
		  (unsigned long long)t->ia_attr.max_lmr_virtual_address);
	DC_ASSERT(t->ia_attr.max_lmr_block_size >= BUF,
		  "max_lmr_block_size %llu below a one-page buffer",
		  (unsigned long long)t->ia_attr.max_lmr_block_size);
}

/*
 * The IA's maxima (dat_ia_query(3DAT) DESCRIPTION) bound what the IA
 * supports, so none is below what this Consumer is shown to hold or do:
 * the pair's EVDs and LMRs, an RDMA Write that completed, a message that
 * arrived, an RMR that was
 * created and the target addresses of its binding.
 */
DC_CASE(dat_ia_query, limits_cover_use,
	.summary = "max_evds, max_lmrs, max_rdma_size, max_message_size, max_rmrs and max_rmr_target_address are not below what the IA was just seen to do")
{
	enum { N = 8192, M = 1024 };
	const DAT_IA_ATTR *a = &t->ia_attr;
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	DAT_DTO_COMPLETION_STATUS st;
	struct dc_pair p;
	DAT_VADDR last;
	DAT_RETURN r;

	dc_pair_up(t, &p, N, NULL);
	/* held: the pair's EVDs and its two LMRs */
	DC_ASSERT(a->max_evds >= 2, "max_evds %d while the IA holds the pair's EVDs", a->max_evds);
	DC_ASSERT(a->max_lmrs >= 2, "max_lmrs %d while the IA holds two LMRs", a->max_lmrs);
	st = dc_rdma_write(t, &p.a, &p.ma, 0, N, dc_rmr_iov(&p.mb, 0, N), 1);
	DC_SETUP_ASSERT(st == DAT_DTO_SUCCESS, "an RDMA Write of %d bytes completed with status %d",
			N, (int)st);
	DC_ASSERT(a->max_rdma_size >= N, "max_rdma_size %llu below an RDMA Write of %d bytes that completed",
		  (unsigned long long)a->max_rdma_size, N);
	dc_post_recv(t, p.b.ep, &p.mb, 0, M, 3);
	dc_send_sync(t, &p.a, &p.ma, 0, M, 4);
	dc_await_recv(t, &p.b, 3);
	DC_ASSERT(a->max_message_size >= M, "max_message_size %llu below a message of %d bytes "
		  "that arrived", (unsigned long long)a->max_message_size, M);
	r = dat_rmr_create(p.a.pz, &rmr);
	if (r != DAT_SUCCESS) {
		dc_note(t, "dat_rmr_create returned %s: no RMR to compare", dc_ret_text(r));
		return;
	}
	DC_ASSERT(a->max_rmrs >= 1, "max_rmrs %d while dat_rmr_create succeeded", a->max_rmrs);
	dc_bind_rmr(t, rmr, &p.ma, 0, N, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &p.a, 2);
	last = (DAT_VADDR)(uintptr_t)p.ma.buf + N - 1;
	DC_ASSERT(last <= a->max_rmr_target_address,
		  "a bound RMR's last target byte 0x%llx above max_rmr_target_address 0x%llx",
		  (unsigned long long)last, (unsigned long long)a->max_rmr_target_address);
	DC_CLEANUP(dat_rmr_free(rmr));
}

static void check_named(struct dc_ctx *t, const char *what, DAT_COUNT n,
			const DAT_NAMED_ATTR *a)
{
	DC_ASSERT(n >= 0, "%s count is %d", what, n);
	if (n == 0)
		return;
	DC_ASSERT(a != NULL, "%s: %d entries announced, NULL array", what, n);
	for (DAT_COUNT i = 0; i < n; i++)
		DC_ASSERT(a[i].name && a[i].value && strlen(a[i].name) < 4096 &&
			  strlen(a[i].value) < 65536,
			  "%s[%d] has a NULL name or value", what, i);
}

DC_CASE(dat_ia_query, named_attrs_well_formed,
	.summary = "transport, vendor and Provider-specific attributes are well-formed name/value arrays")
{
	check_named(t, "transport_attr", t->ia_attr.num_transport_attr, t->ia_attr.transport_attr);
	check_named(t, "vendor_attr", t->ia_attr.num_vendor_attr, t->ia_attr.vendor_attr);
	check_named(t, "provider_specific_attr", t->prov_attr.num_provider_specific_attr,
		    t->prov_attr.provider_specific_attr);
}

DC_CASE(dat_ia_query, dapl_version,
	.summary = "dapl_version is the API the IA was opened through (1.2; 2.0 in the 2.0 build)")
{
	DC_ASSERT_EQ(t->prov_attr.dapl_version_major, DAT_VERSION_MAJOR);
	DC_ASSERT_EQ(t->prov_attr.dapl_version_minor, DAT_VERSION_MINOR);
}

/* A MAP_SHARED region and a cookie, for DAT_MEM_TYPE_SHARED_VIRTUAL. */
#include <sys/mman.h>

DC_CASE(dat_ia_query, mem_types_all_supported,
	.summary = "LMRs of type VIRTUAL, LMR and SHARED_VIRTUAL can all be created")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_REGION_DESCRIPTION rd;
	DAT_LMR_HANDLE l2, l3;
	DAT_LMR_CONTEXT c;
	DAT_RMR_CONTEXT rc;
	DAT_VLEN sz;
	DAT_VADDR va;
	struct dc_lmr m;
	char cookie[DAT_LMR_COOKIE_SIZE];
	void *shm;

	dc_lmr(t, pz, BUF, DC_PRIV_LOCAL, &m);	/* VIRTUAL */
	memset(&rd, 0, sizeof(rd));
	rd.for_lmr_handle = m.lmr;
	DC_ASSERT_SUCCESS(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_LMR, rd, BUF, pz, DC_PRIV_LOCAL,
					 &l2, &c, &rc, &sz, &va));
	shm = mmap(NULL, BUF, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	DC_SETUP_ASSERT(shm != MAP_FAILED, "mmap(MAP_SHARED) failed");
	memset(cookie, 'k', sizeof(cookie));
	memset(&rd, 0, sizeof(rd));
	rd.for_shared_memory.virtual_address = shm;
	rd.for_shared_memory.shared_memory_id = &cookie;
	DC_ASSERT_SUCCESS(dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_SHARED_VIRTUAL, rd, BUF, pz,
					 DC_PRIV_LOCAL, &l3, &c, &rc, &sz, &va));
}

static void scribble_iov(DAT_LMR_TRIPLET *iov)
{
	memset(iov, 0xEE, sizeof(*iov));
}

DC_CASE(dat_ia_query, iov_ownership_valid,
	.summary = "iov_ownership_on_return is one of the three values")
{
	DAT_IOV_OWNERSHIP o = t->prov_attr.iov_ownership_on_return;

	DC_ASSERT(o == DAT_IOV_CONSUMER || o == DAT_IOV_PROVIDER_NOMOD ||
		  o == DAT_IOV_PROVIDER_MOD, "iov_ownership_on_return is %d", (int)o);
}

DC_CASE(dat_ia_query, iov_ownership_honoured,
	.summary = "consumer-owned IOVs can be overwritten after the post; NOMOD IOVs are left as they were")
{
	DAT_IOV_OWNERSHIP o = t->prov_attr.iov_ownership_on_return;
	struct dc_pair p;
	struct dc_lmr src, dst;
	DAT_LMR_TRIPLET iov, saved;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	dc_pair_up(t, &p, 0, NULL);
	dc_lmr(t, p.a.pz, BUF, DC_PRIV_LOCAL, &src);
	dc_lmr(t, p.b.pz, BUF, DC_PRIV_LOCAL, &dst);
	dc_fill(src.buf, 512, 3);
	dc_post_recv(t, p.b.ep, &dst, 0, 512, 1);
	iov = dc_iov(&src, 0, 512);
	saved = iov;
	DC_SETUP(dat_ep_post_send(p.a.ep, 1, &iov, dc_cookie(2), DAT_COMPLETION_DEFAULT_FLAG));
	if (o == DAT_IOV_CONSUMER)
		scribble_iov(&iov);
	d = DC_ASSERT_DTO_EVENT(p.a.req_evd);
	DC_ASSERT_DTO_STATUS(d.status, DAT_DTO_SUCCESS);
	d = dc_await_recv(t, &p.b, 1);
	DC_ASSERT_EQ(d.transfered_length, 512);
	DC_ASSERT(!memcmp(dst.buf, src.buf, 512), "the received bytes differ from the sent ones");
	if (o == DAT_IOV_PROVIDER_NOMOD)
		DC_ASSERT(!memcmp(&iov, &saved, sizeof(iov)),
			  "iov_ownership DAT_IOV_PROVIDER_NOMOD, but the IOV was modified");
}

/*
 * The deferred path of the same rule: a request that cannot go out when it
 * is posted.  b gets a Send with no Receive posted, so (in order) it cannot
 * answer the RDMA Read that follows; the RDMA Write after that is fenced
 * behind the Read, so it waits in the provider when its post returns.  Then
 * the Consumer reuses the Write's IOV list (consumer ownership) for another,
 * valid, region, and releases b with a Receive: the Write must still carry
 * the bytes it was posted with.
 */
DC_CASE(dat_ia_query, iov_ownership_honoured_queued,
	.clauses = "dat_ia_query.iov_ownership_honoured",
	.summary = "a consumer-owned IOV of a request queued behind others (a fenced RDMA Write behind an unanswered RDMA Read) is reused after the post: the Write carries the posted bytes")
{
	enum { LEN = 512, SRC = 0, DECOY = 4096, RDST = 8192, STALL = 12288,
	       TARGET = 0, RSRC = 16384, RECV = 32768, MEM = 65536 };
	DAT_IOV_OWNERSHIP o = t->prov_attr.iov_ownership_on_return;
	DAT_COMPLETION_FLAGS fence =
		(t->prov_attr.completion_flags_supported & DAT_COMPLETION_BARRIER_FENCE_FLAG) ?
		DAT_COMPLETION_BARRIER_FENCE_FLAG : DAT_COMPLETION_DEFAULT_FLAG;
	struct dc_pair p;
	DAT_LMR_TRIPLET stall, rd, wr, saved;
	DAT_RMR_TRIPLET rsrc, target;

	if (fence == DAT_COMPLETION_DEFAULT_FLAG)
		dc_note(t, "no DAT_COMPLETION_BARRIER_FENCE_FLAG: the Write is only ordered behind the Read");
	dc_pair_up(t, &p, MEM, NULL);
	dc_fill(p.ma.buf + SRC, LEN, 11);
	dc_fill(p.ma.buf + DECOY, LEN, 12);
	dc_fill(p.ma.buf + STALL, 64, 13);
	dc_fill(p.mb.buf + RSRC, LEN, 14);
	memset(p.mb.buf + TARGET, 0, LEN);
	stall = dc_iov(&p.ma, STALL, 64);
	DC_SETUP(dat_ep_post_send(p.a.ep, 1, &stall, dc_cookie(1), DAT_COMPLETION_DEFAULT_FLAG));
	rd = dc_iov(&p.ma, RDST, LEN);
	rsrc = dc_rmr_iov(&p.mb, RSRC, LEN);
	DC_SETUP(dat_ep_post_rdma_read(p.a.ep, 1, &rd, dc_cookie(2), &rsrc,
				       DAT_COMPLETION_DEFAULT_FLAG));
	wr = dc_iov(&p.ma, SRC, LEN);
	saved = wr;
	target = dc_rmr_iov(&p.mb, TARGET, LEN);
	DC_SETUP(dat_ep_post_rdma_write(p.a.ep, 1, &wr, dc_cookie(3), &target, fence));
	if (o == DAT_IOV_CONSUMER)
		wr = dc_iov(&p.ma, DECOY, LEN);		/* the list is the Consumer's again */
	dc_post_recv(t, p.b.ep, &p.mb, RECV, 64, 4);
	/* the stall is set-up: a transport without receiver-not-ready retry
	 * (iWARP) breaks the connection on a Send that finds no Receive */
	DC_SETUP_DTO(p.a.req_evd, 1, DAT_DTO_SUCCESS);
	DC_SETUP_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	DC_ASSERT_DTO(p.a.req_evd, 3, DAT_DTO_SUCCESS);
	dc_await_recv(t, &p.b, 4);
	DC_ASSERT(dc_check_fill(p.mb.buf + TARGET, LEN, 11),
		  "the queued RDMA Write delivered other bytes than those it was posted with%s",
		  dc_check_fill(p.mb.buf + TARGET, LEN, 12) ?
		  " (the region the IOV list named after the post)" : "");
	if (o == DAT_IOV_PROVIDER_NOMOD)
		DC_ASSERT(!memcmp(&wr, &saved, sizeof(wr)),
			  "iov_ownership DAT_IOV_PROVIDER_NOMOD, but the queued request's IOV was modified");
}

DC_CASE(dat_ia_query, qos_valid,
	.summary = "dat_qos_supported only has QOS bits")
{
	unsigned int all = DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY | DAT_QOS_ECONOMY |
			   DAT_QOS_PREMIUM;

	DC_ASSERT(((unsigned int)t->prov_attr.dat_qos_supported & ~all) == 0,
		  "dat_qos_supported 0x%x has unknown bits", (unsigned int)t->prov_attr.dat_qos_supported);
}

DC_CASE(dat_ia_query, completion_flags_valid,
	.summary = "completion_flags_supported only has completion flag bits")
{
	unsigned int all = DAT_COMPLETION_SUPPRESS_FLAG | DAT_COMPLETION_SOLICITED_WAIT_FLAG |
			   DAT_COMPLETION_UNSIGNALLED_FLAG | DAT_COMPLETION_BARRIER_FENCE_FLAG |
			   DAT_COMPLETION_EVD_THRESHOLD_FLAG;

	DC_ASSERT(((unsigned int)t->prov_attr.completion_flags_supported & ~all) == 0,
		  "completion_flags_supported 0x%x has unknown bits",
		  (unsigned int)t->prov_attr.completion_flags_supported);
}

DC_CASE(dat_ia_query, thread_safety_boolean,
	.summary = "is_thread_safe is DAT_TRUE or DAT_FALSE")
{
	DC_ASSERT(t->prov_attr.is_thread_safe == DAT_TRUE ||
		  t->prov_attr.is_thread_safe == DAT_FALSE,
		  "is_thread_safe is %d", (int)t->prov_attr.is_thread_safe);
}

DC_CASE(dat_ia_query, private_data_at_least_64,
	.summary = "max_private_data_size is at least 64")
{
	DC_ASSERT_GE(t->prov_attr.max_private_data_size, 64);
}

DC_CASE(dat_ia_query, ep_creator_valid,
	.summary = "ep_creator is NEVER, ALWAYS or IFASKED")
{
	DAT_EP_CREATOR_FOR_PSP c = t->prov_attr.ep_creator;

	DC_ASSERT(c == DAT_PSP_CREATES_EP_NEVER || c == DAT_PSP_CREATES_EP_ALWAYS ||
		  c == DAT_PSP_CREATES_EP_IFASKED, "ep_creator is %d", (int)c);
}

DC_CASE(dat_ia_query, optimal_alignment,
	.summary = "optimal_buffer_alignment divides 256")
{
	DAT_UINT32 a = t->prov_attr.optimal_buffer_alignment;

	DC_ASSERT(a > 0 && a <= DAT_OPTIMAL_ALIGNMENT && DAT_OPTIMAL_ALIGNMENT % a == 0,
		  "optimal_buffer_alignment is %u", (unsigned int)a);
}

DC_CASE(dat_ia_query, stream_merging_matrix,
	.summary = "the stream merging matrix is boolean and symmetric")
{
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++) {
			DAT_BOOLEAN v = t->prov_attr.evd_stream_merging_supported[i][j];

			DC_ASSERT(v == DAT_TRUE || v == DAT_FALSE,
				  "evd_stream_merging_supported[%d][%d] is %d", i, j, (int)v);
			DC_ASSERT(v == t->prov_attr.evd_stream_merging_supported[j][i],
				  "evd_stream_merging_supported[%d][%d] != [%d][%d]", i, j, j, i);
		}
}

/*
 * dat_ia_query(3DAT) DESCRIPTION, EVD stream merging support: streams whose
 * entry is 1 can feed one EVD.  The page names no rows; they are read in
 * DAT_EVD_FLAGS bit order (dc_streams_merge).  Of the pairs a connection
 * makes, each the matrix allows is judged: DTO with connection (one EVD as
 * an EP's receive, request and connect EVD) and CR with connection (one EVD
 * as a PSP's CR EVD and the accepting EP's connect EVD).  A matrix that
 * allows neither leaves the clause to other pairs (not demonstrated).
 */
static void merged_dto_conn(struct dc_ctx *t)
{
	DAT_EVD_HANDLE evd;
	struct dc_endpoint a, b;
	struct dc_lmr m, mb;
	DAT_EP_ATTR attr;
	DAT_EVENT ev;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = 0;
	DAT_EVD_HANDLE cr = dc_evd(t, 4, DAT_EVD_CR_FLAG);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	evd = dc_evd(t, 32, DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG);
	dc_ep_attr_default(t, &attr);
	a.pz = dc_pz(t);
	a.recv_evd = a.req_evd = a.conn_evd = evd;
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: streams the matrix marks 1 can feed one EVD */
	DC_ASSERT_SUCCESS(dat_ep_create(t->ia, a.pz, evd, evd, evd, &attr, &a.ep));
	dc_endpoint(t, &b, NULL);
	DC_SETUP(dat_psp_create_any(t->ia, &q, cr, DAT_PSP_CONSUMER_FLAG, &psp));
	DC_SETUP(dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, q,
				(DAT_TIMEOUT)dc_remaining_ms(t) * 1000u, 0, NULL,
				DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	dc_await_event(t, cr, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_SETUP(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b.ep, 0, NULL));
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	dc_lmr(t, a.pz, BUF, DC_PRIV_LOCAL, &m);
	dc_lmr(t, b.pz, BUF, DC_PRIV_LOCAL, &mb);
	dc_post_recv(t, b.ep, &mb, 0, 64, 11);
	dc_post_send(t, a.ep, &m, 64, 64, 12);
	DC_ASSERT_EVENT(evd, DAT_DTO_COMPLETION_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.dto_completion_event_data.user_cookie.as_64, 12);
}

static void merged_cr_conn(struct dc_ctx *t)
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG | DAT_EVD_CONNECTION_FLAG);
	struct dc_endpoint a, b;
	DAT_EVENT ev;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = 0;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dc_endpoint(t, &a, NULL);
	b.pz = dc_pz(t);
	b.recv_evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	b.req_evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	b.conn_evd = evd;
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: streams the matrix marks 1 can feed one EVD */
	DC_ASSERT_SUCCESS(dat_ep_create(t->ia, b.pz, b.recv_evd, b.req_evd, evd, NULL, &b.ep));
	/* collateral: dat_ia_query(3DAT) DESCRIPTION: as above, the same EVD as a PSP's CR EVD */
	DC_ASSERT_SUCCESS(dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &psp));
	DC_SETUP(dat_ep_connect(a.ep, t->ia_attr.ia_address_ptr, q,
				(DAT_TIMEOUT)dc_remaining_ms(t) * 1000u, 0, NULL,
				DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_SETUP(dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b.ep, 0, NULL));
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
}

DC_CASE(dat_ia_query, stream_merging_honoured,
	.summary = "each of DTO+connection and CR+connection the matrix allows: one EVD serves both streams of a connection")
{
	bool dto_conn = dc_streams_merge(t, DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG);
	bool cr_conn = dc_streams_merge(t, DAT_EVD_CR_FLAG | DAT_EVD_CONNECTION_FLAG);

	if (!dto_conn && !cr_conn)
		DC_NEED_STREAMS_MERGE(DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG);
	if (dto_conn)
		merged_dto_conn(t);
	else
		dc_note(t, "the matrix does not let DTO and connection streams share an EVD: that pair skipped");
	if (cr_conn)
		merged_cr_conn(t);
	else
		dc_note(t, "the matrix does not let CR and connection streams share an EVD: that pair skipped");
}

DC_CASE(dat_ia_query, stream_merging_all,
	.summary = "every pair of event streams may be merged")
{
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++)
			DC_ASSERT(t->prov_attr.evd_stream_merging_supported[i][j] == DAT_TRUE,
				  "evd_stream_merging_supported[%d][%d] is DAT_FALSE", i, j);
}

DC_CASE(dat_ia_query, invalid_handle,
	.summary = "NULL and a PZ handle give DAT_INVALID_HANDLE/IA")
{
	DAT_IA_ATTR a;

	DC_ASSERT_INVALID_HANDLE(dat_ia_query(DAT_HANDLE_NULL, NULL, DAT_IA_FIELD_ALL, &a,
				       DAT_PROVIDER_FIELD_NONE, NULL), 1, IA);
	DC_ASSERT_INVALID_HANDLE(dat_ia_query((DAT_IA_HANDLE)dc_pz(t), NULL, DAT_IA_FIELD_ALL, &a,
				       DAT_PROVIDER_FIELD_NONE, NULL), 1, IA);
}

/* The same for a closed IA: a case of its own, so that a call that does
 * not survive the handle of a destroyed IA leaves the checks above
 * judged. */
DC_CASE(dat_ia_query, invalid_handle_freed,
	.clauses = "dat_ia_query.invalid_handle",
	.summary = "a closed IA gives DAT_INVALID_HANDLE/IA")
{
	DAT_IA_HANDLE ia2 = ia_open_plain();
	DAT_IA_ATTR a;

	DC_SETUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
	DC_ASSERT_INVALID_HANDLE(dat_ia_query(ia2, NULL, DAT_IA_FIELD_ALL, &a,
				       DAT_PROVIDER_FIELD_NONE, NULL), 1, IA);
}

DC_CASE(dat_ia_query, invalid_parameter,
	.summary = "unknown mask bits and a NULL attribute pointer with a mask give DAT_INVALID_PARAMETER")
{
	DAT_IA_ATTR a;
	DAT_PROVIDER_ATTR p;

	DC_ASSERT_RET(dat_ia_query(t->ia, NULL, DAT_IA_FIELD_ALL + 1, &a,
				   DAT_PROVIDER_FIELD_NONE, NULL), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_ia_query(t->ia, NULL, (DAT_IA_ATTR_MASK)1 << 40, &a,
				   DAT_PROVIDER_FIELD_NONE, NULL), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_ia_query(t->ia, NULL, DAT_IA_FIELD_NONE, NULL,
				   DAT_PROVIDER_FIELD_ALL + 1, &p), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_ia_query(t->ia, NULL, DAT_IA_FIELD_ALL, NULL,
				   DAT_PROVIDER_FIELD_NONE, NULL), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_ia_query(t->ia, NULL, DAT_IA_FIELD_NONE, NULL,
				   DAT_PROVIDER_FIELD_ALL, NULL), DAT_INVALID_PARAMETER);
}

/* ---- a query from inside an abrupt dat_ia_close ---------------------------- */

struct close_query {
	DAT_RETURN r;
	DAT_EVD_HANDLE aevd;
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR pr_attr;
};

static void query_closing(DAT_IA_HANDLE ia, void *arg)
{
	struct close_query *q = arg;

	memset(&q->ia_attr, 0xA5, sizeof(q->ia_attr));
	memset(&q->pr_attr, 0xA5, sizeof(q->pr_attr));
	q->r = dat_ia_query(ia, &q->aevd, DAT_IA_FIELD_ALL, &q->ia_attr, DAT_PROVIDER_FIELD_ALL,
			    &q->pr_attr);
}

DC_CASE(dat_ia_query, closing_ia,
	.summary = "dat_ia_query from the agent upcall of an abrupt dat_ia_close: DAT_INVALID_HANDLE, or DAT_SUCCESS with the attributes filled")
{
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL;
	struct close_query q = { .r = DAT_SUCCESS };

	DC_SETUP(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 8, &aevd, &ia2));
	dc_close_with_agent_call(t, ia2, query_closing, &q);
	dc_note(t, "dat_ia_query during the close: %s", dc_ret_text(q.r));
	DC_ASSERT(q.r == DAT_SUCCESS || DAT_GET_TYPE(q.r) == DAT_INVALID_HANDLE,
		  "dat_ia_query on the IA being closed returned %s, expected DAT_INVALID_HANDLE "
		  "(or DAT_SUCCESS with the attributes)", dc_ret_text(q.r));
	if (q.r == DAT_SUCCESS)
		DC_ASSERT(q.pr_attr.dapl_version_major == DAT_VERSION_MAJOR &&
			  q.ia_attr.max_eps != (DAT_COUNT)0xA5A5A5A5,
			  "dat_ia_query returned DAT_SUCCESS without filling the attributes in");
}
