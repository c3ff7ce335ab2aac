// SPDX-License-Identifier: MIT
/*
 * Learning a gating attribute that dat_ia_query left unwritten, from the
 * call of the page the attribute speaks of (docs/writing-cases.md,
 * "Gating").  An unwritten attribute is a failure of dat_ia_query's own
 * clause (its case checks that); it must not also hide the feature, so a
 * case that requires it gates on what the provider does:
 *
 *   srq_supported                   dat_srq_create of a small SRQ
 *   srq_watermarks_supported        dat_srq_set_lw on that SRQ
 *   srq_info_supported              dat_srq_query: a count other than
 *                                   DAT_VALUE_UNKNOWN
 *   ep_recv_info_supported          dat_ep_recv_query: the same
 *   srq_ep_pz_difference_supported  dat_ep_create_with_srq in another PZ
 *
 * Success says "has it"; DAT_MODEL_NOT_SUPPORTED (the code these pages give
 * an absent feature) or DAT_NOT_IMPLEMENTED (the headers' code for a
 * function the provider does not implement: docs/results-format.md,
 * "DAT_NOT_IMPLEMENTED") says "lacks it"; any other answer teaches nothing
 * and the attribute stays unreported.  No call answers lmr_sync_req: a case
 * gated on it stays not demonstrated, and says so.
 *
 * Each lesson is recorded in the result ("learned": attribute, call,
 * answer, value), so a report shows how a case came to run or to be skipped.
 * The objects made here are freed before the case begins.
 */
#include "dc_internal.h"

#include <stdio.h>
#include <string.h>

enum { UNKNOWN = -1 };

struct scratch {
	DAT_PZ_HANDLE pz, pz2;
	DAT_SRQ_HANDLE srq;
	DAT_EVD_HANDLE evd[3];	/* recv, request, connection */
	DAT_EP_HANDLE ep;
	DAT_RETURN srq_ret;	/* dat_srq_create's answer; DAT_SUCCESS when srq made */
	bool srq_tried;
};

static bool absent(DAT_RETURN r)
{
	return DAT_GET_TYPE(r) == DAT_MODEL_NOT_SUPPORTED ||
	       DAT_GET_TYPE(r) == DAT_NOT_IMPLEMENTED;
}

static void record(struct dc_ctx *t, const char *attr, const char *call,
		   DAT_RETURN r, int value)
{
	struct dc_priv *p = t->priv;
	struct dc_learned *l;

	if (p->nlearned >= DC_MAX_LEARNED)
		return;
	l = &p->learned[p->nlearned++];
	l->attr = attr;
	snprintf(l->call, sizeof(l->call), "%s", call);
	l->ret = r;
	l->value = value;
	if (value != UNKNOWN)
		dc_attr_learn(t, attr, value);
	dc_note(t, "dat_ia_query did not write %s; %s answered %s: %s", attr, call,
		dc_ret_text(r),
		value == UNKNOWN ? "that teaches nothing, so it stays unreported" :
		value ? "the provider has it" : "the provider lacks it");
}

static int from_answer(DAT_RETURN r)
{
	if (r == DAT_SUCCESS)
		return 1;
	return absent(r) ? 0 : UNKNOWN;
}

static void make_srq(struct dc_ctx *t, struct scratch *s)
{
	DAT_SRQ_ATTR a = { .max_recv_dtos = 4, .max_recv_iov = 1, .low_watermark = 0 };

	if (s->srq_tried)
		return;
	s->srq_tried = true;
	s->srq_ret = dat_pz_create(t->ia, &s->pz);
	if (s->srq_ret == DAT_SUCCESS)
		s->srq_ret = dat_srq_create(t->ia, s->pz, &a, &s->srq);
}

/* An EP (on the SRQ when there is one) for the EP Recv query. */
static DAT_RETURN make_ep(struct dc_ctx *t, struct scratch *s, DAT_PZ_HANDLE pz,
			  DAT_SRQ_HANDLE srq, DAT_EP_HANDLE *ep)
{
	static const DAT_EVD_FLAGS flags[3] = { DAT_EVD_DTO_FLAG, DAT_EVD_DTO_FLAG,
						DAT_EVD_CONNECTION_FLAG };
	DAT_EP_ATTR attr;
	DAT_RETURN r = DAT_SUCCESS;

	for (int i = 0; i < 3 && r == DAT_SUCCESS; i++)
		if (!s->evd[i])
			r = dat_evd_create(t->ia, 8, DAT_HANDLE_NULL, flags[i], &s->evd[i]);
	if (r != DAT_SUCCESS)
		return r;
	dc_ep_attr_default(t, &attr);
	if (srq)
		return dat_ep_create_with_srq(t->ia, pz, s->evd[0], s->evd[1], s->evd[2],
					      srq, &attr, ep);
	return dat_ep_create(t->ia, pz, s->evd[0], s->evd[1], s->evd[2], &attr, ep);
}

static void learn_srq_supported(struct dc_ctx *t, struct scratch *s)
{
	make_srq(t, s);
	record(t, "srq_supported", "dat_srq_create", s->srq_ret, from_answer(s->srq_ret));
}

static bool have_srq(struct dc_ctx *t, struct scratch *s, const char *attr)
{
	make_srq(t, s);
	if (s->srq_ret == DAT_SUCCESS)
		return true;
	/* no SRQ: its capabilities are moot, and the case's srq_supported
	 * requirement (learned or reported) decides */
	record(t, attr, "dat_srq_create", s->srq_ret, absent(s->srq_ret) ? 0 : UNKNOWN);
	return false;
}

static void learn_srq_watermarks(struct dc_ctx *t, struct scratch *s)
{
	DAT_RETURN r;

	if (!have_srq(t, s, "srq_watermarks_supported"))
		return;
	/* 0: the SRQ holds no buffer, and none is fewer than 0, so no
	 * low-watermark event can come of the lesson (dat_srq_set_lw(3DAT)) */
	r = dat_srq_set_lw(s->srq, 0);
	record(t, "srq_watermarks_supported", "dat_srq_set_lw", r, from_answer(r));
}

static bool counts_known(DAT_COUNT a, DAT_COUNT b)
{
	return a != DAT_VALUE_UNKNOWN || b != DAT_VALUE_UNKNOWN;
}

static void learn_srq_info(struct dc_ctx *t, struct scratch *s)
{
	DAT_SRQ_PARAM p;
	DAT_RETURN r;

	if (!have_srq(t, s, "srq_info_supported"))
		return;
	memset(&p, 0, sizeof(p));
	r = dat_srq_query(s->srq, DAT_SRQ_FIELD_ALL, &p);
	record(t, "srq_info_supported", "dat_srq_query", r,
	       r == DAT_SUCCESS ? counts_known(p.available_dto_count,
					       p.outstanding_dto_count) :
	       absent(r) ? 0 : UNKNOWN);
}

static void learn_ep_recv_info(struct dc_ctx *t, struct scratch *s)
{
	DAT_COUNT n = DAT_VALUE_UNKNOWN, span = DAT_VALUE_UNKNOWN;
	DAT_RETURN r;

	make_srq(t, s);
	if (!s->pz && dat_pz_create(t->ia, &s->pz) != DAT_SUCCESS)
		return;
	r = make_ep(t, s, s->pz, s->srq_ret == DAT_SUCCESS ? s->srq : DAT_HANDLE_NULL,
		    &s->ep);
	if (r != DAT_SUCCESS) {
		record(t, "ep_recv_info_supported", s->srq ? "dat_ep_create_with_srq" :
		       "dat_ep_create", r, UNKNOWN);
		return;
	}
	r = dat_ep_recv_query(s->ep, &n, &span);
	record(t, "ep_recv_info_supported", "dat_ep_recv_query", r,
	       r == DAT_SUCCESS ? counts_known(n, span) : absent(r) ? 0 : UNKNOWN);
}

static void learn_pz_difference(struct dc_ctx *t, struct scratch *s)
{
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_RETURN r;
	int v;

	if (!have_srq(t, s, "srq_ep_pz_difference_supported"))
		return;
	r = dat_pz_create(t->ia, &s->pz2);
	if (r == DAT_SUCCESS)
		r = make_ep(t, s, s->pz2, s->srq, &ep);
	/* dat_ep_create_with_srq(3DAT) PARAMETERS: a provider without the
	 * capability refuses the other PZ as an invalid parameter */
	v = r == DAT_SUCCESS ? 1 :
	    (absent(r) || DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER) ? 0 : UNKNOWN;
	record(t, "srq_ep_pz_difference_supported", "dat_ep_create_with_srq", r, v);
	if (ep)
		dat_ep_free(ep);
}

static const struct lesson {
	const char *attr;
	void (*learn)(struct dc_ctx *t, struct scratch *s);
} lessons[] = {
	{ "srq_supported", learn_srq_supported },
	{ "srq_watermarks_supported", learn_srq_watermarks },
	{ "srq_info_supported", learn_srq_info },
	{ "ep_recv_info_supported", learn_ep_recv_info },
	{ "srq_ep_pz_difference_supported", learn_pz_difference },
};

static void free_scratch(struct scratch *s)
{
	if (s->ep)
		dat_ep_free(s->ep);
	if (s->srq)
		dat_srq_free(s->srq);
	for (int i = 0; i < 3; i++)
		if (s->evd[i])
			dat_evd_free(s->evd[i]);
	if (s->pz2)
		dat_pz_free(s->pz2);
	if (s->pz)
		dat_pz_free(s->pz);
}

struct wanted {
	const char *names[8];
	int n;
};

static void want_word(const char *w, size_t n, void *arg)
{
	struct wanted *wd = arg;

	if (*w == '!') {
		w++;
		n--;
	}
	for (size_t i = 0; i < sizeof(lessons) / sizeof(lessons[0]); i++) {
		size_t k = strlen(lessons[i].attr);

		if (n >= k && !memcmp(w, lessons[i].attr, k) &&
		    (n == k || strchr("!<>=&", w[k])) && wd->n < 8)
			wd->names[wd->n++] = lessons[i].attr;
	}
}

void dc_learn_unreported(struct dc_ctx *t, const char *requires)
{
	struct wanted wd = { .n = 0 };
	struct scratch s = { 0 };

	if (!requires)
		return;
	dc_each_word(requires, want_word, &wd);
	for (size_t i = 0; i < sizeof(lessons) / sizeof(lessons[0]); i++) {
		bool wanted = false;

		for (int k = 0; k < wd.n; k++)
			wanted |= wd.names[k] == lessons[i].attr;
		if (wanted && !dc_attr_reported(t, lessons[i].attr))
			lessons[i].learn(t, &s);
	}
	free_scratch(&s);
}

/* Not learned: the lesson would come from the very call the clause ties to
 * the attribute, and a check against its own answer cannot fail. */
void dc_need_reported_at(struct dc_ctx *t, const char *file, int line, const char *attr)
{
	if (dc_attr_reported(t, attr))
		return;
	dc_cause_needs(t, "unreported", attr);
	dc_end_at(t, DC_UNSUPPORTED, file, line, false,
		  "dat_ia_query did not write the provider attribute %s, which the clause ties "
		  "the call's answer to, so the clause cannot be judged", attr);
}

void dc_json_learned(struct dc_str *s, const struct dc_priv *p)
{
	dc_str_puts(s, "[");
	for (int i = 0; i < p->nlearned; i++) {
		const struct dc_learned *l = &p->learned[i];
		bool first = true;

		dc_str_puts(s, i ? ",{" : "{");
		dc_json_key(s, &first, "attribute");
		dc_json_str(s, l->attr);
		dc_json_key(s, &first, "call");
		dc_json_str(s, l->call);
		dc_json_key(s, &first, "return");
		dc_json_return(s, l->ret);
		dc_json_key(s, &first, "value");
		if (l->value < 0)
			dc_str_puts(s, "null");
		else
			dc_str_printf(s, "%d", l->value);
		dc_str_puts(s, "}");
	}
	dc_str_puts(s, "]");
}
