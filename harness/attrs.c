// SPDX-License-Identifier: MIT
/*
 * Gating: a case's .requires names provider (or IA) attributes, and the
 * harness compares them with what dat_ia_query reported.  See
 * docs/writing-cases.md, "Gating".
 */
#include "dc_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum attr_kind { A_BOOL, A_COUNT, A_U32, A_ENUM };

struct attr {
	const char *name;
	bool ia;		/* in DAT_IA_ATTR (spelled "ia.<name>") */
	size_t off;
	size_t size;
	enum attr_kind kind;
};

#define P(f, k) { #f, false, offsetof(DAT_PROVIDER_ATTR, f), \
		  sizeof(((DAT_PROVIDER_ATTR *)0)->f), k }
#define I(f, k) { #f, true, offsetof(DAT_IA_ATTR, f), \
		  sizeof(((DAT_IA_ATTR *)0)->f), k }

static const struct attr attrs[] = {
	P(provider_version_major, A_U32),
	P(provider_version_minor, A_U32),
	P(dapl_version_major, A_U32),
	P(dapl_version_minor, A_U32),
	P(lmr_mem_types_supported, A_ENUM),
	P(iov_ownership_on_return, A_ENUM),
	P(dat_qos_supported, A_ENUM),
	P(completion_flags_supported, A_ENUM),
	P(is_thread_safe, A_BOOL),
	P(max_private_data_size, A_COUNT),
	P(supports_multipath, A_BOOL),
	P(ep_creator, A_ENUM),
	P(pz_support, A_ENUM),
	P(optimal_buffer_alignment, A_U32),
	P(srq_supported, A_BOOL),
	P(srq_watermarks_supported, A_COUNT),
	P(srq_ep_pz_difference_supported, A_BOOL),
	P(srq_info_supported, A_COUNT),
	P(ep_recv_info_supported, A_COUNT),
	P(lmr_sync_req, A_BOOL),
	P(dto_async_return_guaranteed, A_BOOL),
	P(rdma_write_for_rdma_read_req, A_BOOL),
	P(num_provider_specific_attr, A_COUNT),
	I(max_eps, A_COUNT),
	I(max_dto_per_ep, A_COUNT),
	I(max_rdma_read_per_ep_in, A_COUNT),
	I(max_rdma_read_per_ep_out, A_COUNT),
	I(max_evds, A_COUNT),
	I(max_evd_qlen, A_COUNT),
	I(max_iov_segments_per_dto, A_COUNT),
	I(max_lmrs, A_COUNT),
	I(max_pzs, A_COUNT),
	I(max_rmrs, A_COUNT),
	I(max_srqs, A_COUNT),
	I(max_ep_per_srq, A_COUNT),
	I(max_recv_per_srq, A_COUNT),
	I(max_iov_segments_per_rdma_read, A_COUNT),
	I(max_iov_segments_per_rdma_write, A_COUNT),
	I(max_rdma_read_in, A_COUNT),
	I(max_rdma_read_out, A_COUNT),
	I(max_rdma_read_per_ep_in_guaranteed, A_BOOL),
	I(max_rdma_read_per_ep_out_guaranteed, A_BOOL),
};

static long long attr_value(const struct dc_ctx *t, const struct attr *a)
{
	const unsigned char *base = a->ia ? (const unsigned char *)&t->ia_attr :
					    (const unsigned char *)&t->prov_attr;

	if (a->size == sizeof(int32_t)) {
		int32_t v;

		memcpy(&v, base + a->off, sizeof(v));
		return a->kind == A_U32 ? (long long)(uint32_t)v : v;
	}
	if (a->size == sizeof(int64_t)) {
		int64_t v;

		memcpy(&v, base + a->off, sizeof(v));
		return v;
	}
	return 0;
}

#define N_ATTRS (sizeof(attrs) / sizeof(attrs[0]))
_Static_assert(N_ATTRS <= 64, "attr_unreported is a 64-bit mask");

/* What a field dat_ia_query did not write still holds. */
#define UNWRITTEN_BYTE 0xa5

void dc_attrs_find_unreported(struct dc_ctx *t)
{
	DAT_IA_ATTR *ia = malloc(sizeof(*ia));
	DAT_PROVIDER_ATTR *prov = malloc(sizeof(*prov));

	t->priv->attr_unreported = 0;
	if (ia && prov) {
		memset(ia, UNWRITTEN_BYTE, sizeof(*ia));
		memset(prov, UNWRITTEN_BYTE, sizeof(*prov));
		if (dat_ia_query(t->ia, NULL, DAT_IA_FIELD_ALL, ia, DAT_PROVIDER_FIELD_ALL,
				 prov) == DAT_SUCCESS) {
			for (size_t i = 0; i < N_ATTRS; i++) {
				const unsigned char *f = (const unsigned char *)
					(attrs[i].ia ? (void *)ia : (void *)prov) + attrs[i].off;
				size_t k = 0;

				while (k < attrs[i].size && f[k] == UNWRITTEN_BYTE)
					k++;
				if (k == attrs[i].size)
					t->priv->attr_unreported |= 1ull << i;
			}
		}
	}
	free(ia);
	free(prov);
}

static bool unreported(const struct dc_ctx *t, const struct attr *a)
{
	return t->priv->attr_unreported & (1ull << (a - attrs));
}

static const struct attr *find_attr(const char *name, size_t n)
{
	size_t i;
	bool ia = n > 3 && !memcmp(name, "ia.", 3);

	if (ia) {
		name += 3;
		n -= 3;
	}
	for (i = 0; i < N_ATTRS; i++)
		if (attrs[i].ia == ia && strlen(attrs[i].name) == n &&
		    !memcmp(attrs[i].name, name, n))
			return &attrs[i];
	return NULL;
}

static void fmt_value(struct dc_str *s, const struct attr *a, long long v)
{
	if (a->kind == A_BOOL && (v == DAT_TRUE || v == DAT_FALSE))
		dc_str_puts(s, v ? "DAT_TRUE" : "DAT_FALSE");
	else if (a->kind == A_ENUM)
		dc_str_printf(s, "0x%llx", v);
	else
		dc_str_printf(s, "%lld", v);
}

static int parse_value(const char *p, size_t n, long long *out)
{
	char buf[64];
	char *end;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (!strcmp(buf, "DAT_TRUE") || !strcmp(buf, "true")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(buf, "DAT_FALSE") || !strcmp(buf, "false")) {
		*out = 0;
		return 0;
	}
	*out = strtoll(buf, &end, 0);
	return *end ? -1 : 0;
}

struct req_state {
	const struct dc_ctx *t;
	struct dc_str *why;
	int result;		/* 1 met, 0 not met, -1 malformed, DC_REQ_UNREPORTED */
};

static void check_one(const char *w, size_t n, void *arg)
{
	static const char *const ops[] = { "!=", ">=", "<=", "=", ">", "<", "&" };
	struct req_state *rs = arg;
	const struct attr *a;
	const char *op = NULL;
	size_t name_len = n, i;
	bool negate = false, ok;
	long long want = 0, v;

	if (rs->result != 1)
		return;
	if (*w == '!') {
		negate = true;
		w++;
		n--;
		name_len = n;
	}
	for (i = 0; i < n && !op; i++) {
		size_t k;

		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			if (!strncmp(w + i, ops[k], strlen(ops[k]))) {
				op = ops[k];
				name_len = i;
				break;
			}
	}
	a = find_attr(w, name_len);
	if (!a || (op && negate) ||
	    (op && parse_value(w + name_len + strlen(op),
			       n - name_len - strlen(op), &want))) {
		rs->why->len = 0;
		dc_str_printf(rs->why, "case bug: malformed requirement '%.*s'%s",
			      (int)(n + negate), w - negate,
			      a ? "" : " (unknown attribute)");
		rs->result = -1;
		return;
	}
	if (unreported(rs->t, a)) {
		rs->result = DC_REQ_UNREPORTED;
		rs->why->len = 0;
		dc_str_printf(rs->why, "dat_ia_query did not write the %s attribute %s%s, so "
			      "whether the case applies (%.*s) is not known",
			      a->ia ? "IA" : "provider", a->ia ? "ia." : "", a->name,
			      (int)(n + negate), w - negate);
		return;
	}
	v = attr_value(rs->t, a);
	if (!op)
		ok = negate ? v == 0 : v != 0;
	else if (!strcmp(op, "="))
		ok = v == want;
	else if (!strcmp(op, "!="))
		ok = v != want;
	else if (!strcmp(op, ">="))
		ok = v >= want;
	else if (!strcmp(op, "<="))
		ok = v <= want;
	else if (!strcmp(op, ">"))
		ok = v > want;
	else if (!strcmp(op, "<"))
		ok = v < want;
	else
		ok = (v & want) == want;
	if (ok)
		return;
	rs->result = 0;
	rs->why->len = 0;
	dc_str_printf(rs->why, "%s attribute %s%s is ", a->ia ? "IA" : "provider",
		      a->ia ? "ia." : "", a->name);
	fmt_value(rs->why, a, v);
	dc_str_printf(rs->why, " (case requires %.*s)", (int)(n + negate),
		      w - negate);
}

int dc_requirements_met(const struct dc_ctx *t, const char *requires,
			struct dc_str *why)
{
	struct req_state rs = { .t = t, .why = why, .result = 1 };

	dc_each_word(requires, check_one, &rs);
	return rs.result;
}

bool dc_attr_reported(const struct dc_ctx *t, const char *name)
{
	const struct attr *a = find_attr(name, strlen(name));

	return a && !unreported(t, a);
}

void dc_attr_learn(struct dc_ctx *t, const char *name, long long value)
{
	const struct attr *a = find_attr(name, strlen(name));
	unsigned char *base;

	if (!a)
		return;
	base = a->ia ? (unsigned char *)&t->ia_attr : (unsigned char *)&t->prov_attr;
	if (a->size == sizeof(int32_t)) {
		int32_t v = (int32_t)value;

		memcpy(base + a->off, &v, sizeof(v));
	} else if (a->size == sizeof(int64_t)) {
		int64_t v = value;

		memcpy(base + a->off, &v, sizeof(v));
	}
	t->priv->attr_unreported &= ~(1ull << (a - attrs));
}

/*
 * Pages whose RETURN VALUES list DAT_MODEL_NOT_SUPPORTED (checked against
 * the illumos 1.2 pages).  Only these may turn that code into UNSUPPORTED.
 */
static const char *const model_ns_pages[] = {
	"dat_ep_connect",
	"dat_ep_create",
	"dat_ep_create_with_srq",
	"dat_ep_dup_connect",
	"dat_ep_recv_query",
	"dat_ep_set_watermark",
	"dat_lmr_create",
	"dat_psp_create",
	"dat_psp_create_any",
	"dat_rmr_bind",
	"dat_srq_create",
	"dat_srq_set_lw",
};

bool dc_page_documents_model_not_supported(const char *page)
{
	size_t i;

	for (i = 0; i < sizeof(model_ns_pages) / sizeof(model_ns_pages[0]); i++)
		if (!strcmp(model_ns_pages[i], page))
			return true;
	return false;
}
