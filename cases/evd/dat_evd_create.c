/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_evd_create; clauses in clauses/dat_evd_create.toml.  There is
 * no dat_evd_create(3DAT) page: the catalog names, per clause, the header
 * fact or the page it comes from.
 */
#include "evd_common.h"

DC_CASE(dat_evd_create, returns_handle,
	.summary = "dat_evd_create returns a new EVD handle of the IA")
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_HANDLE_TYPE ty;
	DAT_EVD_PARAM p;

	DC_ASSERT_SUCCESS(dat_evd_create(t->ia, 8, DAT_HANDLE_NULL,
					 DAT_EVD_SOFTWARE_FLAG, &evd));
	DC_ASSERT(evd != DAT_HANDLE_NULL, "dat_evd_create succeeded but returned DAT_HANDLE_NULL");
	/* collateral: dat_evd_create(3DAT) DESCRIPTION: what is handed back is an EVD */
	DC_ASSERT_SUCCESS(dat_get_handle_type(evd, &ty));
	DC_ASSERT_EQ(ty, DAT_HANDLE_TYPE_EVD);
	p = DC_EVD_PARAM(evd);
	DC_ASSERT_IA_HANDLE(p.ia_handle, t->ia);
}

/*
 * Up to the IA's limit and one past it (dat_ia_query(3DAT): max_evds, which
 * may count EVDs the Consumer did not create, such as the async EVD): every
 * create that says DAT_SUCCESS hands back a real EVD; where the Provider
 * stops is not judged here.
 */
DC_CASE(dat_evd_create, returns_handle_up_to_max_evds,
	.clauses = "dat_evd_create.returns_handle",
	.summary = "EVDs created up to max_evds and one more: each DAT_SUCCESS gives a live EVD handle")
{
	DAT_COUNT n = t->ia_attr.max_evds;
	DAT_COUNT i;

	DC_SETUP_ASSERT(n > 0 && n <= 65536, "max_evds %d: not tried here", n);
	for (i = 0; i <= n; i++) {
		DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
		DAT_HANDLE_TYPE ty;
		DAT_EVD_PARAM p;
		DAT_RETURN r = dat_evd_create(t->ia, 1, DAT_HANDLE_NULL,
					      DAT_EVD_SOFTWARE_FLAG, &evd);

		if (r != DAT_SUCCESS) {
			dc_note(t, "EVD %d of max_evds %d refused: %s", i + 1, n, dc_ret_text(r));
			break;
		}
		DC_ASSERT(evd != DAT_HANDLE_NULL, "EVD %d: DAT_SUCCESS with DAT_HANDLE_NULL", i + 1);
		/* collateral: dat_evd_create(3DAT) DESCRIPTION: DAT_SUCCESS hands back the handle of an EVD created */
		DC_ASSERT_SUCCESS(dat_get_handle_type(evd, &ty));
		DC_ASSERT_EQ(ty, DAT_HANDLE_TYPE_EVD);
		/* collateral: dat_evd_create(3DAT) DESCRIPTION: as above, a live EVD answers its query */
		DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_IA_HANDLE, &p));
	}
}

DC_CASE(dat_evd_create, holds_min_qlen,
	.summary = "the queue holds at least evd_min_qlen events and exactly what the query reports")
{
	DAT_EVD_HANDLE evd = dc_evd(t, 5, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_PARAM p = DC_EVD_PARAM(evd);
	DAT_EVENT ev = sw_event(TAG(0));
	DAT_RETURN r;

	DC_ASSERT_GE(p.evd_qlen, 5);
	DC_SETUP_ASSERT(p.evd_qlen <= (1 << 20),
			"the provider made a 5-entry EVD %d entries long; too many to fill",
			(int)p.evd_qlen);
	for (DAT_COUNT i = 0; i < p.evd_qlen; i++) {
		ev = sw_event(TAG(i));
		r = dat_evd_post_se(evd, &ev);
		DC_ASSERT(r == DAT_SUCCESS,
			  "post %d of the %d the EVD reports room for returned %s",
			  (int)i + 1, (int)p.evd_qlen, dc_ret_text(r));
	}
	ev = sw_event(TAG(p.evd_qlen));
	/* collateral: dat_evd_create(3DAT) DESCRIPTION: the queue holds at least evd_min_qlen events */
	DC_ASSERT_RET(dat_evd_post_se(evd, &ev), DAT_QUEUE_FULL);
}

DC_CASE(dat_evd_create, query_reports_creation,
	.summary = "dat_evd_query reports the flags (each kind alone and three combinations) and the "
		   "CNO given at creation")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);

	for (int i = 0; i < EVD_KINDS; i++) {
		if (evd_kind_skipped(t, i))
			continue;
		for (int with_cno = 0; with_cno < 2; with_cno++) {
			DAT_CNO_HANDLE want = with_cno ? cno : DAT_HANDLE_NULL;
			DAT_EVD_HANDLE evd = evd_of_kind(t, i, want);
			DAT_EVD_PARAM p = DC_EVD_PARAM(evd);

			DC_ASSERT(p.evd_flags == evd_kinds[i],
				  "EVD created with flags 0x%x reports 0x%x",
				  (unsigned int)evd_kinds[i], (unsigned int)p.evd_flags);
			DC_ASSERT(p.cno_handle == want,
				  "EVD of flags 0x%x created with CNO %p reports CNO %p",
				  (unsigned int)evd_kinds[i], want, p.cno_handle);
			/* one at a time: a provider with few EVDs runs them all */
			DC_CLEANUP(dat_evd_free(evd));
		}
	}
}

/*
 * Enabled and waitable from the start, whatever the EVD is made for and
 * whether it has a CNO: the query says so, and a dat_evd_wait on the empty
 * EVD times out instead of being refused (dat_evd_wait(3DAT) DESCRIPTION:
 * DAT_INVALID_STATE on an unwaitable EVD).
 */
DC_CASE(dat_evd_create, starts_enabled_waitable,
	.summary = "a new EVD of each kind (alone and combined), with and without a CNO, is enabled "
		   "and waitable, and a dat_evd_wait on it times out")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);

	for (int i = 0; i < EVD_KINDS; i++) {
		if (evd_kind_skipped(t, i))
			continue;
		for (int with_cno = 0; with_cno < 2; with_cno++) {
			DAT_EVD_HANDLE evd = evd_of_kind(t, i, with_cno ? cno : DAT_HANDLE_NULL);
			DAT_EVD_PARAM p = DC_EVD_PARAM(evd);
			DAT_COUNT nmore = -1;
			DAT_EVENT ev;

			dc_note(t, "flags 0x%x, %s", (unsigned int)evd_kinds[i],
				with_cno ? "with a CNO" : "no CNO");
			DC_ASSERT(EVD_ENABLED(p.evd_state), "new EVD state 0x%x is not enabled",
				  (unsigned int)p.evd_state);
			DC_ASSERT(EVD_WAITABLE(p.evd_state), "new EVD state 0x%x is not waitable",
				  (unsigned int)p.evd_state);
			/* collateral: dat_evd_clear_unwaitable(3DAT) DESCRIPTION: a waitable
			 * EVD takes dat_evd_wait, and a new one is waitable (the clause's source) */
			DC_ASSERT_RET(dat_evd_wait(evd, 0, 1, &ev, &nmore), DAT_TIMEOUT_EXPIRED);
			DC_CLEANUP(dat_evd_free(evd));
		}
	}
}

DC_CASE(dat_evd_create, cno_notified,
	.summary = "an EVD created with a CNO notifies it when an event arrives")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_HANDLE evd = dc_evd_with_cno(t, 4, DAT_EVD_SOFTWARE_FLAG, cno);
	struct dc_waiter *w = dc_cno_waiter(t, cno, DAT_TIMEOUT_INFINITE);

	DC_ASSERT_BLOCKS(w);
	post(evd, TAG(1));
	EXPECT_CNO_WOKEN(w, evd, "a post to the EVD created with the CNO");
	EXPECT_SW(evd, TAG(1));
}

DC_CASE(dat_evd_create, async_evd_by_ia_open,
	.summary = "dat_ia_open makes an async EVD without CNO and with room for async_evd_min_qlen")
{
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE aevd = DAT_HANDLE_NULL, q = DAT_HANDLE_NULL;
	DAT_IA_ATTR ia_attr;
	DAT_PROVIDER_ATTR pattr;
	DAT_EVD_PARAM p;

	/* collateral: dat_evd_create(3DAT) DESCRIPTION: the async EVD is the one dat_ia_open makes */
	DC_ASSERT_SUCCESS(dat_ia_open((const DAT_NAME_PTR)t->ia_name, 37, &aevd, &ia2));
	DC_ASSERT(aevd != DAT_HANDLE_NULL && aevd != DAT_EVD_ASYNC_EXISTS &&
		  aevd != DAT_EVD_OUT_OF_SCOPE,
		  "dat_ia_open returned async EVD %p, not a new EVD", aevd);
	p = DC_EVD_PARAM(aevd);
	DC_ASSERT_GE(p.evd_qlen, 37);
	DC_ASSERT(p.cno_handle == DAT_HANDLE_NULL,
		  "the async EVD made by dat_ia_open has CNO %p", p.cno_handle);
	DC_ASSERT(p.evd_flags & DAT_EVD_ASYNC_FLAG,
		  "the async EVD's flags 0x%x lack DAT_EVD_ASYNC_FLAG",
		  (unsigned int)p.evd_flags);
	DC_ASSERT_IA_HANDLE(p.ia_handle, ia2);
	/* collateral: dat_evd_create(3DAT) DESCRIPTION: as above, reported by the IA */
	DC_ASSERT_SUCCESS(dat_ia_query(ia2, &q, 0, &ia_attr, 0, &pattr));
	DC_ASSERT_PTR_EQ(q, aevd);
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_evd_create, async_evd_modifiable,
	.summary = "the IA's async EVD can be resized and given a CNO")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_PARAM p = dc_evd_param(t, t->async_evd);
	DAT_COUNT want = p.evd_qlen + 48;
	DAT_RETURN r;

	/* dat_evd_resize(3DAT) RETURN VALUES: beyond the IA's limit is an invalid parameter */
	DC_NEED_REPORTED_LIMIT("max_evd_qlen", t->ia_attr.max_evd_qlen, want);
	r = dat_evd_resize(t->async_evd, want);
	/* dat_evd_resize(3DAT) RETURN VALUES: running out is its answer for any EVD */
	DC_SETUP_ASSERT(DAT_GET_TYPE(r) != DAT_INSUFFICIENT_RESOURCES,
			"set-up: dat_evd_resize ran out of resources growing the async EVD to %d",
			(int)want);
	/* collateral: dat_evd_create(3DAT) DESCRIPTION: the async EVD may be resized */
	DC_ASSERT_SUCCESS(r);
	p = DC_EVD_PARAM(t->async_evd);
	DC_ASSERT_GE(p.evd_qlen, want);
	/* collateral: dat_evd_create(3DAT) DESCRIPTION: and given a CNO */
	DC_ASSERT_SUCCESS(dat_evd_modify_cno(t->async_evd, cno));
	p = DC_EVD_PARAM(t->async_evd);
	DC_ASSERT_PTR_EQ(p.cno_handle, cno);
	/* collateral: dat_evd_create(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_evd_modify_cno(t->async_evd, DAT_HANDLE_NULL));
	p = DC_EVD_PARAM(t->async_evd);
	DC_ASSERT(p.cno_handle == DAT_HANDLE_NULL,
		  "after modify_cno(NULL) the async EVD reports CNO %p", p.cno_handle);
}

/*
 * Clause, at the boundary: a connected EP whose 2-entry request EVD holds q
 * (its evd_qlen) gets exactly q Send completions, none dequeued before all
 * are there: the EVD holds every one (dat_evd_resize(3DAT) PARAMETERS: the
 * queue holds the length it is given; dat_evd_query reports it), they are
 * dequeued in posting order, and nothing was lost, so no overflow is
 * reported on the async EVD (watched for DC_QUIET_MS).
 */
static void exactly_full_request_evd(struct dc_ctx *t)
{
	struct dc_conn_opts small = { .evd_qlen = 2 };
	struct dc_pair p;
	struct dc_endpoint *a = &p.a, *b = &p.b;
	const DAT_MEM_PRIV_FLAGS rw = DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG;
	DAT_COUNT q, nmore = 0, held = 0;
	DAT_EVENT ev;
	DAT_RETURN r;
	uint64_t want = 100;

	memset(&p, 0, sizeof(p));
	dc_endpoint(t, a, &small);
	dc_connect_local(t, a, b, NULL);
	q = dc_evd_param(t, a->req_evd).evd_qlen;
	DC_SETUP_ASSERT(q >= 2 && q <= 8,
			"set-up: the provider made the 2-entry request EVD %d entries long", (int)q);
	dc_note(t, "request EVD holds %d; sending exactly %d", (int)q, (int)q);
	dc_drain(t, t->async_evd);
	dc_lmr(t, b->pz, 4096, rw, &p.mb);
	dc_lmr(t, a->pz, 4096, rw, &p.ma);
	for (int i = 0; i < q; i++)
		dc_post_recv(t, b->ep, &p.mb, (DAT_VLEN)i * 64, 64, (uint64_t)i);
	for (int i = 0; i < q; i++)
		dc_post_send(t, a->ep, &p.ma, (DAT_VLEN)i * 64, 64, 100 + (uint64_t)i);
	for (int i = 0; i < q; i++)
		dc_await_dto(t, b->recv_evd, (uint64_t)i);
	/* wait (bounded) until q completions are queued, taking none but the
	 * first; then take the rest: what counts is how many were held */
	memset(&ev, 0, sizeof(ev));
	r = dat_evd_wait(a->req_evd, (DAT_TIMEOUT)DC_WAIT_MS * 1000u, q, &ev, &nmore);
	if (r != DAT_SUCCESS)
		dc_note(t, "dat_evd_wait(threshold %d) returned %s, nmore %d", (int)q,
			dc_ret_text(r), (int)nmore);
	else
		held++;
	while (held < q + 1) {
		if (r == DAT_SUCCESS) {
			DC_ASSERT(ev.event_number == DAT_DTO_COMPLETION_EVENT &&
				  ev.event_data.dto_completion_event_data.user_cookie.as_64 == want,
				  "completion %d of %d: expected the Send of cookie %llu, got event 0x%x "
				  "cookie %llu", (int)(want - 100) + 1, (int)q, (unsigned long long)want,
				  (unsigned)ev.event_number,
				  (unsigned long long)ev.event_data.dto_completion_event_data.user_cookie.as_64);
			want++;
		}
		memset(&ev, 0, sizeof(ev));
		r = dat_evd_dequeue(a->req_evd, &ev);
		if (r != DAT_SUCCESS)
			break;
		held++;
	}
	DC_ASSERT(held == q, "the request EVD of evd_qlen %d held %d of the %d completions "
		  "that filled it exactly", (int)q, (int)held, (int)q);
	memset(&ev, 0, sizeof(ev));
	r = dat_evd_wait(t->async_evd, (DAT_TIMEOUT)DC_QUIET_MS * 1000u, 1, &ev, &nmore);
	DC_ASSERT(r != DAT_SUCCESS || ev.event_number != DAT_ASYNC_ERROR_EVD_OVERFLOW,
		  "an EVD filled exactly to its evd_qlen reported an overflow");
	/* its EVDs back before the q + 1 part makes its own (few EVDs: no floor) */
	dc_pair_down(t, &p);
}

DC_CASE(dat_evd_create, overflow_reported_on_async_evd,
	.summary = "a request EVD filled exactly to its length loses nothing and reports no overflow; "
		   "one completion more reports DAT_ASYNC_ERROR_EVD_OVERFLOW on the async EVD")
{
	struct dc_endpoint a, b;
	DAT_EVENT ev;
	const DAT_ASYNCH_ERROR_EVENT_DATA *ae = &ev.event_data.asynch_error_event_data;

	exactly_full_request_evd(t);
	overflow_request_evd(&a, &b);
	DC_ASSERT_EVENT(t->async_evd, DAT_ASYNC_ERROR_EVD_OVERFLOW, &ev);
	DC_ASSERT_PTR_EQ(ae->dat_handle, a.req_evd);
	DC_ASSERT_EQ(ae->reason, DAT_EVD_OVERFLOW_ERROR);
}

/*
 * The same clause for a receive EVD fed by an SRQ: an EP on an SRQ with
 * 2-entry EVDs (holding q), the SRQ stocked with q + 2 buffers, gets q + 1
 * messages and reaps none: the completion that finds the queue full is an
 * overflow reported on the async EVD, naming the receive EVD.  What the EP,
 * its connection and the SRQ are after an overflow the clause does not say,
 * so the rest is clean-up: the queued completions reaped, one message more,
 * the EP and the SRQ freed - what a provider must get right with the lost
 * completion's buffer (the sanitizer configuration sees it).
 */
DC_CASE(dat_evd_create, overflow_reported_for_srq_recv_evd,
	.summary = "an SRQ EP's 2-entry receive EVD given one completion more than it holds "
		   "reports DAT_ASYNC_ERROR_EVD_OVERFLOW naming that EVD on the async EVD",
	.requires = "srq_supported")
{
	const DAT_MEM_PRIV_FLAGS rw = DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG;
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_SRQ_HANDLE srq = dc_srq(t, pz, 16, 1, DAT_SRQ_LW_DEFAULT);
	struct dc_conn_opts small = { .evd_qlen = 2, .srq = srq, .pz = pz };
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	const DAT_ASYNCH_ERROR_EVENT_DATA *ae;
	DAT_EVENT ev;
	DAT_COUNT q;
	DAT_LMR_TRIPLET iov;

	memset(&a, 0, sizeof(a));
	dc_endpoint(t, &b, &small);		/* b: the receiver, on the SRQ */
	dc_connect_local(t, &a, &b, NULL);
	q = dc_evd_param(t, b.recv_evd).evd_qlen;
	DC_SETUP_ASSERT(q >= 2 && q <= 8,
			"set-up: the provider made the 2-entry receive EVD %d entries long", (int)q);
	dc_note(t, "receive EVD holds %d; %d messages arrive", (int)q, (int)q + 1);
	dc_lmr(t, pz, 4096, rw, &mb);
	dc_lmr(t, a.pz, 4096, rw, &ma);
	for (int i = 0; i < q + 2; i++)
		dc_srq_post_recv(t, srq, &mb, (DAT_VLEN)i * 64, 64, (uint64_t)i);
	dc_drain(t, t->async_evd);
	for (int i = 0; i <= q; i++)
		dc_post_send(t, a.ep, &ma, (DAT_VLEN)i * 64, 64, 100 + (uint64_t)i);
	for (int i = 0; i <= q; i++)
		dc_await_dto(t, a.req_evd, 100 + (uint64_t)i);
	DC_ASSERT_EVENT(t->async_evd, DAT_ASYNC_ERROR_EVD_OVERFLOW, &ev);
	ae = &ev.event_data.asynch_error_event_data;
	DC_ASSERT_PTR_EQ(ae->dat_handle, b.recv_evd);
	DC_ASSERT_EQ(ae->reason, DAT_EVD_OVERFLOW_ERROR);

	/* clean-up, none of it judged: reap, one message more, free */
	dc_drain(t, b.recv_evd);
	iov = dc_iov(&ma, 0, 64);
	if (dat_ep_post_send(a.ep, 1, &iov, dc_cookie(200), DAT_COMPLETION_DEFAULT_FLAG) ==
	    DAT_SUCCESS)
		(void)dc_wait_event(t, b.recv_evd, -1, &ev);
	dc_drain(t, b.recv_evd);
	DC_CLEANUP(dat_ep_free(b.ep));
	DC_CLEANUP(dat_srq_free(srq));
}

DC_CASE(dat_evd_create, invalid_ia_handle,
	.summary = "a NULL or non-IA ia_handle gives DAT_INVALID_HANDLE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_RETURN r;

	r = dat_evd_create(DAT_HANDLE_NULL, 4, DAT_HANDLE_NULL,
			   DAT_EVD_SOFTWARE_FLAG, &evd);
	note_ret(t, "dat_evd_create(ia DAT_HANDLE_NULL)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, IA);
	r = dat_evd_create((DAT_IA_HANDLE)pz, 4, DAT_HANDLE_NULL,
			   DAT_EVD_SOFTWARE_FLAG, &evd);
	note_ret(t, "dat_evd_create(ia = a PZ handle)", r);
	DC_ASSERT_INVALID_HANDLE(r, 1, IA);
}

DC_CASE(dat_evd_create, invalid_cno_handle,
	.summary = "a PZ handle passed as the CNO gives DAT_INVALID_HANDLE")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_RETURN r;

	r = dat_evd_create(t->ia, 4, (DAT_CNO_HANDLE)pz, DAT_EVD_SOFTWARE_FLAG,
			   &evd);
	note_ret(t, "dat_evd_create(cno = a PZ handle)", r);
	DC_ASSERT_INVALID_HANDLE(r, 3, CNO);
}

DC_CASE(dat_evd_create, invalid_qlen,
	.summary = "evd_min_qlen 0 or -1 gives DAT_INVALID_PARAMETER; 1 itself is accepted and holds an event")
{
	static const DAT_COUNT bad[] = { 0, -1 };
	DAT_EVD_HANDLE evd;
	DAT_EVENT ev = sw_event(TAG(1));
	DAT_RETURN r;

	for (unsigned int i = 0; i < 2; i++) {
		evd = DAT_HANDLE_NULL;
		r = dat_evd_create(t->ia, bad[i], DAT_HANDLE_NULL,
				   DAT_EVD_SOFTWARE_FLAG, &evd);
		note_ret(t, bad[i] ? "dat_evd_create(qlen -1)" : "dat_evd_create(qlen 0)", r);
		DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	}
	/* the boundary: only a length below one is invalid, so one is a
	 * queue of one event (dat_evd_resize(3DAT) PARAMETERS) */
	evd = DAT_HANDLE_NULL;
	r = dat_evd_create(t->ia, 1, DAT_HANDLE_NULL, DAT_EVD_SOFTWARE_FLAG, &evd);
	DC_ASSERT(r == DAT_SUCCESS, "dat_evd_create(qlen 1) returned %s", dc_ret_text(r));
	DC_ASSERT_GE(DC_EVD_PARAM(evd).evd_qlen, 1);
	/* collateral: dat_evd_resize(3DAT) PARAMETERS: a queue of one holds one event */
	DC_ASSERT_SUCCESS(dat_evd_post_se(evd, &ev));
	EXPECT_SW(evd, TAG(1));
}

DC_CASE(dat_evd_create, qlen_above_max,
	.summary = "evd_min_qlen above max_evd_qlen is refused; max_evd_qlen itself is accepted")
{
	DAT_COUNT max = t->ia_attr.max_evd_qlen;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_RETURN r;

	DC_SETUP_ASSERT(max > 0 && max < 0x7fffffff,
			"max_evd_qlen %d leaves no larger DAT_COUNT to try", (int)max);
	r = dat_evd_create(t->ia, max + 1, DAT_HANDLE_NULL,
			   DAT_EVD_SOFTWARE_FLAG, &evd);
	note_ret(t, "dat_evd_create(max_evd_qlen + 1)", r);
	DC_ASSERT_RET_ANY(r, DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES);
	if (max <= (1 << 20)) {
		r = dat_evd_create(t->ia, max, DAT_HANDLE_NULL,
				   DAT_EVD_SOFTWARE_FLAG, &evd);
		DC_ASSERT(r == DAT_SUCCESS,
			  "dat_evd_create(max_evd_qlen = %d) returned %s",
			  (int)max, dc_ret_text(r));
	} else {
		dc_note(t, "max_evd_qlen %d: creating one that long was skipped (memory)",
			(int)max);
	}
}

DC_CASE(dat_evd_create, invalid_flags,
	.summary = "undefined evd_flags bits give DAT_INVALID_PARAMETER")
{
	static const DAT_EVD_FLAGS bad[] = { (DAT_EVD_FLAGS)0x2, (DAT_EVD_FLAGS)0x200 };
	DAT_EVD_HANDLE evd;
	DAT_RETURN r;

	for (unsigned int i = 0; i < 2; i++) {
		char what[64];

		evd = DAT_HANDLE_NULL;
		r = dat_evd_create(t->ia, 4, DAT_HANDLE_NULL, bad[i], &evd);
		snprintf(what, sizeof(what), "dat_evd_create(flags 0x%x)",
			 (unsigned int)bad[i]);
		note_ret(t, what, r);
		DC_ASSERT_RET(r, DAT_INVALID_PARAMETER);
	}
}
