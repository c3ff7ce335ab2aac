/* SPDX-License-Identifier: MIT */
/*
 * dat_psp_create_any(3DAT): clauses/dat_psp_create_any.toml.
 */
#include "cm_common.h"

#include <netinet/in.h>

DC_CASE(dat_psp_create_any, returns_qual_and_psp,
	.summary = "the call returns a qualifier and a PSP listening on it")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL;
	DAT_CONN_QUAL q = 0;
	DAT_PSP_PARAM pp;
	struct dc_endpoint e;
	DAT_EVENT ev;

	DC_ASSERT_SUCCESS(dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &psp));
	memset(&pp, 0, sizeof(pp));
	/* collateral: dat_psp_create_any(3DAT) DESCRIPTION: the PSP handed back listens on the qualifier handed back */
	DC_ASSERT_SUCCESS(dat_psp_query(psp, DAT_PSP_FIELD_CONN_QUAL, &pp));
	DC_ASSERT_EQ(pp.conn_qual, q);
	dc_endpoint(t, &e, NULL);
	DC_SETUP(dc_connect_to_self(t, e.ep, q, 0, 0, NULL));
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_ASSERT_EQ(ev.event_data.cr_arrival_event_data.conn_qual, q);
	DC_ASSERT_PTR_EQ(ev.event_data.cr_arrival_event_data.sp_handle.psp_handle, psp);
}

DC_CASE(dat_psp_create_any, qual_unused,
	.summary = "the chosen qualifiers are distinct and never one already in use")
{
	DAT_CONN_QUAL used = dc_free_conn_qual(t), got[16];
	/* one CR EVD for every PSP (an IA may have few EVDs, Max EVDs,
	 * dat_ia_query(3DAT)); no request arrives here */
	DAT_EVD_HANDLE evd = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_PSP_HANDLE psp;

	DC_SETUP(dat_psp_create(t->ia, used, evd, DAT_PSP_CONSUMER_FLAG, &psp));
	for (int i = 0; i < 16; i++) {
		DC_ASSERT_SUCCESS(dat_psp_create_any(t->ia, &got[i], evd, DAT_PSP_CONSUMER_FLAG,
						     &psp));
		DC_ASSERT(got[i] != used, "create_any returned %llu, which a PSP already holds",
			  (unsigned long long)used);
		for (int k = 0; k < i; k++)
			DC_ASSERT(got[k] != got[i], "qualifier %llu returned twice",
				  (unsigned long long)got[i]);
	}
	/* collateral: dat_psp_create_any(3DAT) DESCRIPTION: the qualifier chosen was unused, which the PSP now holds */
	DC_ASSERT_RET(dat_psp_create(t->ia, got[3], evd, DAT_PSP_CONSUMER_FLAG, &psp),
		      DAT_CONN_QUAL_IN_USE);
}

DC_CASE(dat_psp_create_any, nonprivileged,
	.summary = "on an IP IA the chosen qualifier is a non-privileged port")
{
	DAT_CONN_QUAL q;
	DAT_PSP_HANDLE psp;
	int fam = t->ia_attr.ia_address_ptr ? t->ia_attr.ia_address_ptr->sa_family : -1;

	DC_SETUP(dat_psp_create_any(t->ia, &q, dc_evd(t, 4, DAT_EVD_CR_FLAG), DAT_PSP_CONSUMER_FLAG,
				    &psp));
	if (fam != AF_INET && fam != AF_INET6) {
		dc_note(t, "IA address family %d: qualifiers are not IP ports, nothing to check", fam);
		return;
	}
	DC_ASSERT_GE(q, 1024);
}

DC_CASE(dat_psp_create_any, flag_unsatisfiable,
	.summary = "a flag the provider cannot honour (per ep_creator) is model-not-supported")
{
	static const DAT_PSP_FLAGS flags[] = { DAT_PSP_CONSUMER_FLAG, DAT_PSP_PROVIDER_FLAG };
	DAT_EP_CREATOR_FOR_PSP cr = t->prov_attr.ep_creator;

	for (int i = 0; i < 2; i++) {
		DAT_CONN_QUAL q;
		DAT_PSP_HANDLE psp;
		bool can = cr == DAT_PSP_CREATES_EP_IFASKED ||
			   (cr == DAT_PSP_CREATES_EP_NEVER && flags[i] == DAT_PSP_CONSUMER_FLAG) ||
			   (cr == DAT_PSP_CREATES_EP_ALWAYS && flags[i] == DAT_PSP_PROVIDER_FLAG);
		DAT_RETURN r = dat_psp_create_any(t->ia, &q, dc_evd(t, 4, DAT_EVD_CR_FLAG), flags[i],
						  &psp);

		if (can)
			DC_ASSERT_SUCCESS(r);
		else
			DC_ASSERT_RET(r, DAT_MODEL_NOT_SUPPORTED);
	}
}

DC_CASE(dat_psp_create_any, provider_ep_null_handles,
	.summary = "the Provider EP of a request has no PZ or EVDs and is TENTATIVE",
	.requires = "ep_creator!=0")
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, DAT_PSP_PROVIDER_FLAG, &evd, &psp);
	struct dc_endpoint e;
	DAT_CR_PARAM c;
	DAT_EP_PARAM p;

	dc_endpoint(t, &e, NULL);
	DC_SETUP(dc_connect_to_self(t, e.ep, q, 0, 0, NULL));
	memset(&c, 0, sizeof(c));
	DC_SETUP(dat_cr_query(dc_await_cr(t, evd, NULL), DAT_CR_FIELD_ALL, &c));
	DC_ASSERT(c.local_ep_handle != DAT_HANDLE_NULL, "the request carries no EP");
	p = DC_EP_PARAM(c.local_ep_handle);
	DC_ASSERT_PTR_EQ(p.pz_handle, DAT_HANDLE_NULL);
	DC_ASSERT_PTR_EQ(p.recv_evd_handle, DAT_HANDLE_NULL);
	DC_ASSERT_PTR_EQ(p.request_evd_handle, DAT_HANDLE_NULL);
	DC_ASSERT_PTR_EQ(p.connect_evd_handle, DAT_HANDLE_NULL);
	DC_ASSERT_EQ(p.ep_state, DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING);
}

DC_CASE(dat_psp_create_any, invalid_ia_handle,
	.summary = "an ia_handle that is not an open IA is an invalid handle")
{
	DAT_CONN_QUAL q;
	DAT_PSP_HANDLE psp;

	DC_ASSERT_INVALID_HANDLE(dat_psp_create_any((DAT_IA_HANDLE)dc_pz(t), &q, dc_evd(t, 4, DAT_EVD_CR_FLAG),
					 DAT_PSP_CONSUMER_FLAG, &psp), 1, IA);
}

DC_CASE(dat_psp_create_any, invalid_evd_handle,
	.summary = "a freed EVD is an invalid handle")
{
	DAT_CONN_QUAL q;
	DAT_PSP_HANDLE psp;

	DC_ASSERT_INVALID_HANDLE(dat_psp_create_any(t->ia, &q, dc_freed_evd(t, DAT_EVD_CR_FLAG), DAT_PSP_CONSUMER_FLAG,
					 &psp), 3, EVD_CR);
}

DC_CASE(dat_psp_create_any, invalid_flags,
	.summary = "psp_flags other than consumer/provider are invalid")
{
	DAT_CONN_QUAL q;
	DAT_PSP_HANDLE psp;

	DC_ASSERT_RET(dat_psp_create_any(t->ia, &q, dc_evd(t, 4, DAT_EVD_CR_FLAG), (DAT_PSP_FLAGS)0x2,
					 &psp),
		      DAT_INVALID_PARAMETER);
}

DC_CASE(dat_psp_create_any, null_conn_qual,
	.summary = "a NULL conn_qual output is an invalid parameter")
{
	DAT_PSP_HANDLE psp;

	DC_ASSERT_RET(dat_psp_create_any(t->ia, NULL, dc_evd(t, 4, DAT_EVD_CR_FLAG),
					 DAT_PSP_CONSUMER_FLAG, &psp),
		      DAT_INVALID_PARAMETER);
}

/*
 * Using up a transport's whole qualifier space is not portable (tens of
 * thousands of listeners), so the provider narrows the space dat_psp_create_any
 * draws from with its test hook (docs/reference-provider.md, "Test hooks");
 * UNSUPPORTED where it has none.  A space of four qualifiers, some maybe held
 * by other processes: every free one is handed out, then the call refuses.
 */
DC_CASE(dat_psp_create_any, conn_qual_unavailable,
	.summary = "with every qualifier of the space taken the call is DAT_CONN_QUAL_UNAVAILABLE; freeing one makes room",
	.needs = "hook:daplref_test_conn_qual_space")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 16, DAT_EVD_CR_FLAG);
	/* a space nobody else probes (dc_free_conn_qual's range is probed by
	 * sibling cases, whose create-and-free would race the check below) */
	DAT_CONN_QUAL lo = dc_unprobed_conn_qual(), q = 0, got[4];
	DAT_PSP_HANDLE psp[4], p = DAT_HANDLE_NULL;
	DAT_RETURN r;
	int n = 0;

	narrow_qual_space(lo, lo + 3);
	while ((r = dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &p)) == DAT_SUCCESS) {
		/* four PSPs took the space of four: none is free any more */
		DC_ASSERT(n < 4, "a fifth PSP (qualifier %llu) in a space of four qualifiers",
			  (unsigned long long)q);
		DC_SETUP_ASSERT(q >= lo && q <= lo + 3,
				"the hook's space [%llu, %llu] gave qualifier %llu (PSP %d)",
				(unsigned long long)lo, (unsigned long long)lo + 3,
				(unsigned long long)q, n + 1);
		got[n] = q;
		psp[n++] = p;
	}
	DC_ASSERT_RET(r, DAT_CONN_QUAL_UNAVAILABLE);
	/* the boundary: every qualifier of the space, both ends included, was
	 * handed out or is taken by someone else; one a Service Point can
	 * still be made on was free */
	for (DAT_CONN_QUAL x = lo; x <= lo + 3; x++) {
		bool handed = false;
		DAT_PSP_HANDLE free_one;

		for (int i = 0; i < n; i++)
			handed |= got[i] == x;
		if (handed)
			continue;
		r = dat_psp_create(t->ia, x, evd, DAT_PSP_CONSUMER_FLAG, &free_one);
		DC_ASSERT(r != DAT_SUCCESS,
			  "DAT_CONN_QUAL_UNAVAILABLE while qualifier %llu of the space was free",
			  (unsigned long long)x);
	}
	DC_SETUP_ASSERT(n > 0, "no qualifier of the space was free");
	/* the refusal took nothing: the freed qualifier is the one handed out */
	DC_SETUP(dat_psp_free(psp[0]));
	DC_ASSERT_SUCCESS(dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &p));
	DC_ASSERT_EQ(q, got[0]);
}

/*
 * The same rules while the provider draws from a narrowed space: the
 * qualifier handed back is the one the PSP holds, so dat_psp_create on it
 * finds it in use, and a connect to it reaches the PSP.
 */
DC_CASE(dat_psp_create_any, qual_unused_narrowed,
	.clauses = "dat_psp_create_any.qual_unused dat_psp_create_any.returns_qual_and_psp",
	.summary = "with the qualifier space narrowed, the qualifier handed back is held by the PSP and reaches it",
	.needs = "hook:daplref_test_conn_qual_space")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_CONN_QUAL lo = dc_unprobed_conn_qual(), q = 0;
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL, other;
	struct dc_endpoint e;
	DAT_EVENT ev;

	narrow_qual_space(lo, lo + 3);
	DC_SETUP(dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &psp));
	DC_FOR_CLAUSE("dat_psp_create_any.qual_unused");
	/* collateral: dat_psp_create_any(3DAT) DESCRIPTION: the qualifier handed out is the new PSP's, so another PSP on it is refused */
	DC_ASSERT_RET(dat_psp_create(t->ia, q, dc_evd(t, 4, DAT_EVD_CR_FLAG),
				     DAT_PSP_CONSUMER_FLAG, &other),
		      DAT_CONN_QUAL_IN_USE);
	DC_FOR_CLAUSE("dat_psp_create_any.returns_qual_and_psp");
	dc_endpoint(t, &e, NULL);
	DC_SETUP(dc_connect_to_self(t, e.ep, q, 0, 0, NULL));
	DC_ASSERT_EVENT(evd, DAT_CONNECTION_REQUEST_EVENT, &ev);
	DC_ASSERT_PTR_EQ(ev.event_data.cr_arrival_event_data.sp_handle.psp_handle, psp);
}

/*
 * A qualifier of the narrowed space held elsewhere (a PSP of a second
 * instance) is not available, the next one is: the call hands that one
 * out; DAT_CONN_QUAL_UNAVAILABLE only if it is taken too.
 */
DC_CASE(dat_psp_create_any, qual_held_elsewhere_skipped,
	.clauses = "dat_psp_create_any.conn_qual_unavailable",
	.summary = "in a space of two whose first qualifier another instance holds, the call hands out the second",
	.needs = "hook:daplref_test_conn_qual_space")
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, cr2, evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_CONN_QUAL lo = dc_unprobed_conn_qual(), q = 0;
	DAT_PSP_HANDLE held, psp = DAT_HANDLE_NULL, probe;
	DAT_RETURN r;

	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &async, &ia2));
	DC_SETUP(dat_evd_create(ia2, 4, DAT_HANDLE_NULL, DAT_EVD_CR_FLAG, &cr2));
	DC_SETUP(dat_psp_create(ia2, lo, cr2, DAT_PSP_CONSUMER_FLAG, &held));
	narrow_qual_space(lo, lo + 1);
	r = dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &psp);
	if (DAT_GET_TYPE(r) == DAT_CONN_QUAL_UNAVAILABLE) {
		DC_ASSERT(dat_psp_create(t->ia, lo + 1, evd, DAT_PSP_CONSUMER_FLAG, &probe) != DAT_SUCCESS,
			  "DAT_CONN_QUAL_UNAVAILABLE while qualifier %llu of the space was free",
			  (unsigned long long)lo + 1);
		DC_UNRESOLVED("qualifier %llu is taken elsewhere too", (unsigned long long)lo + 1);
	}
	DC_ASSERT_SUCCESS(r);
	DC_ASSERT_EQ(q, lo + 1);
	DC_CLEANUP(dat_psp_free(psp));
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

/*
 * With no descriptor left to the process (dc_exhaust_fds) the Provider may
 * be unable to listen at all: the call then fails for resources and leaves
 * no PSP.  A call that needed no descriptor succeeds with a PSP that holds
 * the qualifier it handed back.  In the narrowed space, so every qualifier
 * tried is the Provider's own choice from it.
 */
DC_CASE(dat_psp_create_any, insufficient_resources_narrowed,
	.clauses = "dat_psp_create_any.insufficient_resources",
	.summary = "with no descriptor left: DAT_INSUFFICIENT_RESOURCES, or a PSP that holds the qualifier handed back",
	.needs = "hook:daplref_test_conn_qual_space")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG), evd2 = dc_evd(t, 4, DAT_EVD_CR_FLAG);
	DAT_CONN_QUAL lo = dc_unprobed_conn_qual(), q = 0;
	DAT_PSP_HANDLE psp = DAT_HANDLE_NULL, other;
	DAT_RETURN r;

	narrow_qual_space(lo, lo + 3);
	dc_exhaust_fds(t);
	r = dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &psp);
	dc_exhaust_end(t);
	if (r == DAT_SUCCESS) {
		dc_note(t, "the PSP needed no new descriptor");
		/* collateral: dat_psp_create_any(3DAT) DESCRIPTION: the qualifier handed back is the PSP's */
		DC_ASSERT_RET(dat_psp_create(t->ia, q, evd2, DAT_PSP_CONSUMER_FLAG, &other),
			      DAT_CONN_QUAL_IN_USE);
		return;
	}
	DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	/* the refusal left nothing: the space's qualifiers are free again for the call */
	DC_ASSERT_SUCCESS(dat_psp_create_any(t->ia, &q, evd, DAT_PSP_CONSUMER_FLAG, &psp));
}

/*
 * Out of memory (the allocation fault hook): each allocation of 40 creates
 * in a row failing in turn, dat_psp_create_any gives
 * DAT_INSUFFICIENT_RESOURCES (dat_psp_create_any(3DAT) RETURN VALUES) or a
 * PSP on the qualifier it reports; once the PSPs made are freed the IA
 * closes gracefully (no refused create left a PSP).
 */
static DAT_RETURN oom_any_make(struct dc_ctx *t, void *arg)
{
	struct cm_oom_sps *o = arg;

	o->q[o->n] = 0;
	return dat_psp_create_any(t->ia, &o->q[o->n], o->evd, DAT_PSP_CONSUMER_FLAG, &o->sp[o->n]);
}

DC_CASE(dat_psp_create_any, out_of_memory,
	.clauses = "dat_psp_create_any.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of 40 creates failing in turn: DAT_INSUFFICIENT_RESOURCES or a working PSP, and no PSP left behind")
{
	struct cm_oom_sps o = { .evd = dc_evd(t, 8, DAT_EVD_CR_FLAG) };
	struct dc_alloc_call c = { "dat_psp_create_any", oom_any_make, cm_oom_psp_works, &o, NULL };

	for (int i = 0; i < DC_ALLOC_FAULT_OBJECTS; i++)
		if (dc_alloc_sweep(t, &c) < 0)
			break;
	cm_oom_psps_gone(t, &o);
}
