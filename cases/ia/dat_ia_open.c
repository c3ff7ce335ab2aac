/* SPDX-License-Identifier: MIT */
/*
 * Cases for dat_ia_open(3DAT); clauses in clauses/dat_ia_open.toml.
 * Most cases open instances of their own (DC_NO_IA, or a second instance
 * next to the harness's t->ia).
 */
#include "ia_common.h"


DC_CASE(dat_ia_open, opens_instance,
	.summary = "opening the IA under test gives a live IA handle",
	.flags = DC_NO_IA)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_HANDLE_TYPE type = DAT_HANDLE_TYPE_CR;
	DAT_IA_ATTR a;

	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &evd, &ia));
	DC_ASSERT(ia != DAT_HANDLE_NULL, "dat_ia_open succeeded but returned a NULL handle");
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: what is handed back is an IA */
	DC_ASSERT_SUCCESS(dat_get_handle_type(ia, &type));
	DC_ASSERT_EQ(type, DAT_HANDLE_TYPE_IA);
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: the handle names a live instance, which answers its query */
	DC_ASSERT_SUCCESS(dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &a,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_open, multiple_instances,
	.summary = "a second instance opens while the first is open, and survives its close")
{
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz1, pz2;

	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &evd, &ia2));
	DC_ASSERT(ia2 != t->ia, "the second open returned the first instance's handle %p", ia2);
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: each open is an instance of its own, each making objects */
	DC_ASSERT_SUCCESS(dat_pz_create(ia2, &pz2));
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_pz_create(t->ia, &pz1));
	/* closing the second leaves the first working */
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: closing one instance leaves the other */
	DC_ASSERT_SUCCESS(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: as above, the other still works */
	DC_ASSERT_SUCCESS(dat_pz_free(pz1));
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: as above */
	DC_ASSERT_SUCCESS(dat_pz_create(t->ia, &pz1));
}

DC_CASE(dat_ia_open, null_async_evd_creates,
	.summary = "a NULL async EVD makes the open create one, reported by dat_ia_query",
	.flags = DC_NO_IA)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL, q = DAT_HANDLE_NULL;
	DAT_HANDLE_TYPE type = DAT_HANDLE_TYPE_CR;
	DAT_IA_HANDLE ia;
	DAT_EVD_PARAM p;

	ia = ia_open(16, &evd);
	DC_ASSERT(evd != DAT_HANDLE_NULL && evd != DAT_EVD_ASYNC_EXISTS &&
		  evd != DAT_EVD_OUT_OF_SCOPE,
		  "async_evd_handle came back as %p, not a new EVD", evd);
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: what the open hands back is an EVD */
	DC_ASSERT_SUCCESS(dat_get_handle_type(evd, &type));
	DC_ASSERT_EQ(type, DAT_HANDLE_TYPE_EVD);
	memset(&p, 0, sizeof(p));
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: the EVD made is the instance's async EVD, as its query shows */
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_ALL, &p));
	DC_ASSERT(p.evd_flags & DAT_EVD_ASYNC_FLAG,
		  "the created EVD has flags 0x%x, without DAT_EVD_ASYNC_FLAG",
		  (unsigned int)p.evd_flags);
	DC_ASSERT_IA_HANDLE(p.ia_handle, ia);
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: the instance reports it as its async EVD */
	DC_ASSERT_SUCCESS(dat_ia_query(ia, &q, DAT_IA_FIELD_NONE, NULL,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_ASSERT_PTR_EQ(q, evd);
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_open, async_evd_qlen_at_least_min,
	.summary = "the created async EVD holds at least async_evd_min_qlen events",
	.flags = DC_NO_IA)
{
	static const DAT_COUNT want[] = { 1, 16, 100, 1000 };
	DAT_COUNT max_qlen = 0;		/* from the first IA: 0, none reported */

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
		DAT_IA_HANDLE ia;
		DAT_EVD_PARAM p;

		/* dat_ia_query(3DAT) Max EVD queue size: a length the IA does not
		 * have is not asked for (it judges nothing this clause says) */
		if (max_qlen > 0 && want[i] > max_qlen) {
			dc_note(t, "async_evd_min_qlen %d skipped: max_evd_qlen is %d", want[i], max_qlen);
			continue;
		}
		ia = ia_open(want[i], &evd);
		if (i == 0) {
			DAT_IA_ATTR a;

			memset(&a, 0, sizeof(a));
			if (dat_ia_query(ia, NULL, DAT_IA_FIELD_ALL, &a, DAT_PROVIDER_FIELD_NONE,
					 NULL) == DAT_SUCCESS)
				max_qlen = a.max_evd_qlen;
		}
		memset(&p, 0, sizeof(p));
		/* collateral: dat_ia_open(3DAT) DESCRIPTION: the EVD's real size shows through its query */
		DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
		DC_ASSERT(p.evd_qlen >= want[i],
			  "async_evd_min_qlen %d gave an async EVD of %d entries",
			  want[i], p.evd_qlen);
		DC_SETUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	}
}

/*
 * The largest queue the IA supports (dat_ia_query(3DAT): max_evd_qlen) is a
 * minimum the open can meet: it creates the EVD or runs short of resources,
 * it does not call the request invalid.
 */
DC_CASE(dat_ia_open, async_evd_qlen_at_max,
	.clauses = "dat_ia_open.async_evd_qlen_at_least_min",
	.summary = "async_evd_min_qlen equal to max_evd_qlen gives an async EVD at least that long (or DAT_INSUFFICIENT_RESOURCES)")
{
	DAT_COUNT n = t->ia_attr.max_evd_qlen;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_EVD_PARAM p;
	DAT_RETURN r;

	DC_SETUP_ASSERT(n > 0, "max_evd_qlen %d: no queue length to ask for", n);
	DC_SETUP_ASSERT(n <= (1 << 22), "max_evd_qlen %d too large to try here", n);
	r = dat_ia_open((DAT_NAME_PTR)t->ia_name, n, &evd, &ia);
	if (DAT_GET_TYPE(r) == DAT_INSUFFICIENT_RESOURCES) {
		dc_note(t, "an async EVD of max_evd_qlen %d entries ran short of resources", n);
		return;
	}
	DC_ASSERT_SUCCESS(r);
	memset(&p, 0, sizeof(p));
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: the async EVD made holds at least async_evd_min_qlen events */
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_EVD_QLEN, &p));
	DC_ASSERT(p.evd_qlen >= n, "async_evd_min_qlen %d gave an async EVD of %d entries",
		  n, p.evd_qlen);
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_open, async_evd_no_cno,
	.summary = "the created async EVD has no CNO")
{
	DAT_EVD_PARAM p;

	memset(&p, 0, sizeof(p));
	p.cno_handle = (DAT_CNO_HANDLE)&p;	/* must be overwritten */
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: the EVD made has no CNO, which its query shows */
	DC_ASSERT_SUCCESS(dat_evd_query(t->async_evd, DAT_EVD_FIELD_CNO, &p));
	DC_ASSERT(p.cno_handle == DAT_HANDLE_NULL,
		  "the async EVD made by dat_ia_open reports CNO %p", p.cno_handle);
}

DC_CASE(dat_ia_open, async_evd_modifiable,
	.summary = "the created async EVD accepts a CNO and a resize")
{
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EVD_PARAM p;
	DAT_COUNT before;
	DAT_RETURN r;

	memset(&p, 0, sizeof(p));
	DC_SETUP(dat_evd_query(t->async_evd, DAT_EVD_FIELD_ALL, &p));
	before = p.evd_qlen;
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: a CNO may later be attached to the async EVD */
	DC_ASSERT_SUCCESS(dat_evd_modify_cno(t->async_evd, cno));
	/* dat_evd_resize(3DAT) RETURN VALUES: beyond the IA's limit is an invalid parameter */
	DC_NEED_REPORTED_LIMIT("max_evd_qlen", t->ia_attr.max_evd_qlen, before + 32);
	r = dat_evd_resize(t->async_evd, before + 32);
	/* dat_evd_resize(3DAT) RETURN VALUES: running out is its answer for any EVD */
	DC_SETUP_ASSERT(DAT_GET_TYPE(r) != DAT_INSUFFICIENT_RESOURCES,
			"set-up: dat_evd_resize ran out of resources growing the async EVD to %d",
			(int)(before + 32));
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: the async EVD may later be resized */
	DC_ASSERT_SUCCESS(r);
	memset(&p, 0, sizeof(p));
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: as above, shown by its query */
	DC_ASSERT_SUCCESS(dat_evd_query(t->async_evd, DAT_EVD_FIELD_ALL, &p));
	DC_ASSERT_PTR_EQ(p.cno_handle, cno);
	DC_ASSERT_GE(p.evd_qlen, before + 32);
	DC_ASSERT(p.evd_flags & DAT_EVD_ASYNC_FLAG, "the async EVD lost DAT_EVD_ASYNC_FLAG");
}

DC_CASE(dat_ia_open, passed_async_evd_used,
	.summary = "an async EVD passed in is used as is and the min qlen is ignored")
{
	DAT_EVD_HANDLE evd = t->async_evd, q = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	struct dc_snap s;

	dc_snapshot(t, DC_OBJ_EVD, t->async_evd, &s);
	/* -1 would be refused for a queue the Provider creates */
	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, -1, &evd, &ia2));
	DC_ASSERT_PTR_EQ(evd, t->async_evd);
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: the instance uses the EVD given, which its query reports */
	DC_ASSERT_SUCCESS(dat_ia_query(ia2, &q, DAT_IA_FIELD_NONE, NULL,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_ASSERT_PTR_EQ(q, t->async_evd);
	DC_ASSERT_UNCHANGED(&s);
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

/* An open that said DAT_SUCCESS opened a working instance. */
static void opened_ia_works(struct dc_ctx *t, DAT_IA_HANDLE ia2)
{
	DAT_IA_ATTR a;

	/* collateral: dat_ia_open(3DAT) RETURN VALUES: DAT_SUCCESS is an open instance behind the handle */
	DC_ASSERT(ia2 != DAT_HANDLE_NULL, "DAT_SUCCESS without an IA handle");
	/* collateral: dat_ia_open(3DAT) RETURN VALUES: as above, the instance answers its query */
	DC_ASSERT_SUCCESS(dat_ia_query(ia2, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &a,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	/* collateral: dat_ia_open(3DAT) RETURN VALUES: as above, and closes */
	DC_ASSERT_SUCCESS(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

/*
 * Opens a second instance with *evd as its async EVD.  An open that did not
 * check it (allowed) must have opened a working instance, which is closed;
 * a refusal is DAT_INVALID_HANDLE, the type both clauses allow (the only
 * other code async_evd_check_optional has).
 */
static DAT_RETURN open_with_async_evd(struct dc_ctx *t, DAT_EVD_HANDLE *evd)
{
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_RETURN r = dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, evd, &ia2);

	if (r == DAT_SUCCESS) {
		dc_note(t, "the Provider did not check the async EVD (allowed)");
		opened_ia_works(t, ia2);
		return r;
	}
	DC_ASSERT_RET(r, DAT_INVALID_HANDLE);
	return r;
}

DC_CASE(dat_ia_open, invalid_async_evd,
	.clauses = "dat_ia_open.invalid_async_evd dat_ia_open.async_evd_check_optional",
	.summary = "a DTO EVD passed as async EVD: refused with INVALID_HANDLE/EVD_ASYNC and left as passed, or (unchecked) accepted")
{
	DAT_EVD_HANDLE dto = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE evd = dto;
	struct dc_snap s;
	DAT_RETURN r;

	dc_snapshot(t, DC_OBJ_EVD, dto, &s);
	r = open_with_async_evd(t, &evd);
	if (r == DAT_SUCCESS)
		return;
	/* the rest is what invalid_async_evd says of a refusal */
	DC_FOR_CLAUSE("dat_ia_open.async_evd_check_optional");
	DC_FOR_CLAUSE("dat_ia_open.invalid_async_evd");
	DC_ASSERT_INVALID_HANDLE(r, 3, EVD_ASYNC);
	DC_ASSERT_PTR_EQ(evd, dto);
	DC_ASSERT_UNCHANGED(&s);
}

/*
 * A live handle of another type (the case's PZ) as the async EVD: the page
 * lets the Provider skip the check, but what it then returns must be an
 * open instance; a check that finds the handle invalid says
 * DAT_INVALID_HANDLE and leaves *async_evd_handle as passed.
 */
DC_CASE(dat_ia_open, non_evd_async_handle,
	.clauses = "dat_ia_open.async_evd_check_optional dat_ia_open.invalid_async_evd",
	.summary = "a PZ handle passed as async EVD: DAT_INVALID_HANDLE (naming the async EVD) with the handle left as passed, or a working IA")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE evd = (DAT_EVD_HANDLE)pz;
	DAT_RETURN r = open_with_async_evd(t, &evd);

	if (r == DAT_SUCCESS)
		return;
	/* a refusal is what invalid_async_evd says of one; its subtype may
	 * name no handle or the async EVD, never another argument */
	DC_FOR_CLAUSE("dat_ia_open.invalid_async_evd");
	DC_ASSERT_INVALID_HANDLE(r, 3, EVD_ASYNC);
	DC_ASSERT_PTR_EQ(evd, (DAT_EVD_HANDLE)pz);
}

/*
 * Overflow of a connection EVD of the second instance: more connection
 * events than it holds.  Each EP connects to a qualifier nobody listens on
 * (a PSP was created on it and freed), which ends in a rejection or an
 * unreachable event.
 */
DC_CASE(dat_ia_open, async_events_to_passed_evd,
	.summary = "an EVD overflow of an instance opened with a passed async EVD is reported there")
{
	DAT_EVD_HANDLE evd = t->async_evd, conn, cr;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL qual = 0;
	DAT_PZ_HANDLE pz;
	DAT_EP_ATTR attr;
	DAT_EVENT ev;
	DAT_COUNT q;
	DAT_RETURN r;

	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &evd, &ia2));
	pz = pz_on(ia2);
	conn = evd_on(ia2, 1, DAT_EVD_CONNECTION_FLAG);
	q = evd_qlen(conn);
	DC_SETUP_ASSERT(q >= 1 && q <= 64, "connection EVD of qlen 1 holds %d events", q);
	cr = evd_on(ia2, 4, DAT_EVD_CR_FLAG);
	DC_SETUP(dat_psp_create_any(ia2, &qual, cr, DAT_PSP_CONSUMER_FLAG, &psp));
	DC_SETUP(dat_psp_free(psp));
	dc_ep_attr_default(t, &attr);
	for (DAT_COUNT i = 0; i <= q; i++) {
		DAT_EVD_HANDLE dto = evd_on(ia2, 4, DAT_EVD_DTO_FLAG);
		DAT_EP_HANDLE ep;

		DC_SETUP(dat_ep_create(ia2, pz, dto, dto, conn, &attr, &ep));
		DC_SETUP(dat_ep_connect(ep, ia_address_at(t, __FILE__, __LINE__, ia2), qual,
					(DAT_TIMEOUT)dc_remaining_ms(t) * 1000u, 0, NULL,
					DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG));
	}
	/* q + 1 connection events are coming to a queue of q: one is lost */
	r = dc_wait_event(t, t->async_evd, -1, &ev);
	DC_ASSERT_SUCCESS(r);
	DC_ASSERT(ev.event_number == DAT_ASYNC_ERROR_EVD_OVERFLOW,
		  "the shared async EVD got %s, expected DAT_ASYNC_ERROR_EVD_OVERFLOW",
		  dc_event_name(ev.event_number));
	/* which handle the event names is dat_evd_create.overflow_reported_on_async_evd's */
}

DC_CASE(dat_ia_open, async_evd_exists_accepted,
	.clauses = "dat_ia_open.async_evd_exists_accepted dat_ia_open.out_of_scope_reported",
	.summary = "DAT_EVD_ASYNC_EXISTS opens without an async EVD; OUT_OF_SCOPE may be reported",
	.flags = DC_NO_IA)
{
	DAT_EVD_HANDLE evd = DAT_EVD_ASYNC_EXISTS, q = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &evd, &ia));
	DC_ASSERT(evd == DAT_EVD_ASYNC_EXISTS || evd == DAT_EVD_OUT_OF_SCOPE,
		  "async_evd_handle came back as %p, expected DAT_EVD_ASYNC_EXISTS or DAT_EVD_OUT_OF_SCOPE",
		  evd);
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: the open makes no async EVD, which the instance's query shows */
	DC_ASSERT_SUCCESS(dat_ia_query(ia, &q, DAT_IA_FIELD_NONE, NULL,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_ASSERT(q == DAT_EVD_OUT_OF_SCOPE || q == DAT_EVD_ASYNC_EXISTS,
		  "dat_ia_query reports async EVD %p, expected DAT_EVD_OUT_OF_SCOPE", q);
	/* nothing of the Consumer's exists: a graceful close must work */
	/* collateral: dat_ia_open(3DAT) DESCRIPTION: no EVD was made, so a graceful close (refused while objects remain) works */
	DC_ASSERT_SUCCESS(dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

DC_CASE(dat_ia_open, names_from_registry,
	.summary = "with a rich dat.conf every listed name opens, and names not listed (a prefix of one, nondefault, kernel) do not",
	.flags = DC_NO_IA)
{
	static const char *const unlisted[] = {
		"regfix-on",		/* a prefix of a listed name (open meanwhile) */
		"regfix-one-",		/* a listed name with more after it */
		"regfix-nondefault",	/* in dat.conf, but nondefault */
		"regfix-kernel",	/* in dat.conf, but a kernel entry */
	};
	DAT_PROVIDER_INFO info[16], *list[16];
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL, held = DAT_HANDLE_NULL;
	DAT_COUNT n = 0;

	dc_registry_rich();
	for (int i = 0; i < 16; i++)
		list[i] = &info[i];
	DC_SETUP(dat_registry_list_providers(16, &n, list));
	for (DAT_COUNT i = 0; i < n; i++) {
		evd = DAT_HANDLE_NULL;
		DC_ASSERT_SUCCESS(dat_ia_openv(info[i].ia_name, 8, &evd, &ia,
					       info[i].dapl_version_major,
					       info[i].dapl_version_minor,
					       info[i].is_thread_safe));
		if (!held && !strcmp(info[i].ia_name, "regfix-one"))
			held = ia;	/* keep one registration of regfix-one alive */
		else
			DC_SETUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	}
	DC_SETUP_ASSERT(held, "the fixture's regfix-one is not listed");
	for (size_t i = 0; i < sizeof(unlisted) / sizeof(unlisted[0]); i++)
		for (int ts = 0; ts < 2; ts++) {
			evd = DAT_HANDLE_NULL;
			DC_ASSERT_RET(dat_ia_openv((DAT_NAME_PTR)unlisted[i], 8, &evd, &ia,
						   DAT_VERSION_MAJOR, DAT_VERSION_MINOR,
						   ts ? DAT_TRUE : DAT_FALSE),
				      DAT_PROVIDER_NOT_FOUND);
		}
	DC_CLEANUP(dat_ia_close(held, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_open, ro_aware_prefix,
	.summary = "RO_AWARE_<ia> opens the same IA, or is not found (registry without the extension)",
	.flags = DC_NO_IA)
{
	char name[DAT_NAME_MAX_LENGTH];
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_IA_ATTR a;
	DAT_RETURN r;

	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	snprintf(name, sizeof(name), "RO_AWARE_%s", t->ia_name);
	r = dat_ia_open(name, 16, &evd, &ia);
	if (DAT_GET_TYPE(r) == DAT_PROVIDER_NOT_FOUND) {
		dc_note(t, "the registry does not strip RO_AWARE_ (allowed: Solaris extension)");
		return;
	}
	DC_ASSERT_SUCCESS(r);
	DC_SETUP(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADAPTER_NAME, &a,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_ASSERT(!strcmp(a.adapter_name, t->ia_name) || !strcmp(a.adapter_name, name),
		  "RO_AWARE_ open gave adapter '%s'", a.adapter_name);
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_open, provider_not_found,
	.summary = "an unregistered name, or another major version, gives DAT_PROVIDER_NOT_FOUND",
	.flags = DC_NO_IA)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	DC_ASSERT_RET(dat_ia_open("datcts-no-such-ia", 16, &evd, &ia), DAT_PROVIDER_NOT_FOUND);
	DC_ASSERT_RET(dat_ia_openv((DAT_NAME_PTR)t->ia_name, 16, &evd, &ia,
				   DAT_VERSION_MAJOR + 7, DAT_VERSION_MINOR, DAT_THREADSAFE),
		      DAT_PROVIDER_NOT_FOUND);
	/* the real name still opens: nothing was broken by the misses */
	DC_SETUP(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &evd, &ia));
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_open, invalid_parameter,
	.summary = "NULL or over-long names and a negative min qlen give DAT_INVALID_PARAMETER",
	.flags = DC_NO_IA)
{
	char longname[DAT_NAME_MAX_LENGTH + 8];
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;

	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	DC_ASSERT_RET(dat_ia_open(NULL, 16, &evd, &ia), DAT_INVALID_PARAMETER);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	DC_ASSERT_RET(dat_ia_open(longname, 16, &evd, &ia), DAT_INVALID_PARAMETER);
	evd = DAT_HANDLE_NULL;
	DC_ASSERT_RET(dat_ia_open((DAT_NAME_PTR)t->ia_name, -5, &evd, &ia),
		      DAT_INVALID_PARAMETER);
	evd = DAT_HANDLE_NULL;
	DC_ASSERT_RET(dat_ia_open((DAT_NAME_PTR)t->ia_name, -1, &evd, &ia),
		      DAT_INVALID_PARAMETER);
	/* async_evd_handle must point at a handle (PARAMETERS) */
	DC_ASSERT_RET(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, NULL, &ia),
		      DAT_INVALID_PARAMETER);
}

DC_CASE(dat_ia_open, objects_owned_by_ia,
	.summary = "PZ, EVD, CNO, LMR and EP created on the IA report it as their IA")
{
	DAT_PZ_HANDLE pz = dc_pz(t);
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_DTO_FLAG);
	DAT_EVD_HANDLE cevd = dc_evd(t, 8, DAT_EVD_CONNECTION_FLAG);
	DAT_CNO_HANDLE cno = dc_plain_cno(t);
	DAT_EP_HANDLE ep = dc_ep(t, pz, evd, evd, cevd, NULL);
	struct dc_lmr m;
	DAT_PZ_PARAM pp;
	DAT_EVD_PARAM ep_;
	DAT_CNO_PARAM cp;
	DAT_LMR_PARAM lp;
	DAT_EP_PARAM e;

	dc_lmr(t, pz, BUF, DC_PRIV_LOCAL, &m);
	/* collateral: dat_ia_open(3DAT) USAGE: objects made through the IA name it as their owner */
	DC_ASSERT_SUCCESS(dat_pz_query(pz, DAT_PZ_FIELD_IA_HANDLE, &pp));
	DC_ASSERT_IA_HANDLE(pp.ia_handle, t->ia);
	/* collateral: dat_ia_open(3DAT) USAGE: as above */
	DC_ASSERT_SUCCESS(dat_evd_query(evd, DAT_EVD_FIELD_IA_HANDLE, &ep_));
	DC_ASSERT_IA_HANDLE(ep_.ia_handle, t->ia);
	/* collateral: dat_ia_open(3DAT) USAGE: as above */
	DC_ASSERT_SUCCESS(dat_cno_query(cno, DAT_CNO_FIELD_IA_HANDLE, &cp));
	DC_ASSERT_IA_HANDLE(cp.ia_handle, t->ia);
	/* collateral: dat_ia_open(3DAT) USAGE: as above */
	DC_ASSERT_SUCCESS(dat_lmr_query(m.lmr, DAT_LMR_FIELD_IA_HANDLE, &lp));
	DC_ASSERT_IA_HANDLE(lp.ia_handle, t->ia);
	/* collateral: dat_ia_open(3DAT) USAGE: as above */
	DC_ASSERT_SUCCESS(dat_ep_query(ep, DAT_EP_FIELD_IA_HANDLE, &e));
	DC_ASSERT_IA_HANDLE(e.ia_handle, t->ia);
}

DC_CASE(dat_ia_open, unique_handle,
	.summary = "two opens give two handles, and each owns its own objects")
{
	DAT_IA_HANDLE ia2 = ia_open_plain();
	DAT_PZ_HANDLE p1 = dc_pz(t), p2 = pz_on(ia2);
	DAT_PZ_PARAM q;

	DC_ASSERT(ia2 != t->ia, "both opens returned handle %p", ia2);
	/* collateral: dat_ia_open(3DAT) USAGE: each handle is the instance's own, so its objects name it */
	DC_ASSERT_SUCCESS(dat_pz_query(p1, DAT_PZ_FIELD_ALL, &q));
	DC_ASSERT_IA_HANDLE(q.ia_handle, t->ia);
	/* collateral: dat_ia_open(3DAT) USAGE: as above */
	DC_ASSERT_SUCCESS(dat_pz_query(p2, DAT_PZ_FIELD_ALL, &q));
	DC_ASSERT_IA_HANDLE(q.ia_handle, ia2);
	DC_CLEANUP(dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG));
}

/*
 * A second open with no descriptor left to the process: the Provider cannot
 * get what an instance needs (its sockets, event descriptors, the device),
 * so RETURN VALUES asks for DAT_INSUFFICIENT_RESOURCES; the instance already
 * open is not disturbed, and nothing of the refused open blocks a later one.
 * An open that needs no new descriptor may succeed: it had what it needed.
 */
DC_CASE(dat_ia_open, insufficient_resources,
	.summary = "with no descriptor left an open fails with DAT_INSUFFICIENT_RESOURCES; the open IA keeps working")
{
	struct xend a, b;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	DAT_RETURN r;

	dc_exhaust_fds(t);
	r = dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &evd, &ia);
	dc_exhaust_end(t);
	if (r == DAT_SUCCESS) {
		dc_note(t, "the open needed no new descriptor and succeeded");
		opened_ia_works(t, ia);
	} else {
		DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
	}
	/* the instance open before still works: a connection with a message */
	xend_make(t->ia, &a);
	xend_make(t->ia, &b);
	xconnect(&a, &b);
	/* and the refusal left nothing in the way of the next open */
	evd = DAT_HANDLE_NULL;
	DC_ASSERT_SUCCESS(dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &evd, &ia));
	DC_CLEANUP(dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
}

/*
 * The same refusal for an open given a Consumer-made async EVD: the
 * refused open keeps nothing of it.  A case of its own, so that a provider
 * that cannot make that EVD (dat_evd_create's own clauses judge it) does not
 * stop the plain refusal above from being judged.
 */
DC_CASE(dat_ia_open, insufficient_resources_passed_evd,
	.clauses = "dat_ia_open.insufficient_resources",
	.summary = "with no descriptor left an open given an async EVD fails with DAT_INSUFFICIENT_RESOURCES and leaves the EVD as it was")
{
	DAT_EVD_HANDLE mine = evd_on(t->ia, 8, DAT_EVD_ASYNC_FLAG);
	DAT_EVD_HANDLE passed = mine;
	DAT_IA_HANDLE ia2 = DAT_HANDLE_NULL;
	DAT_RETURN r2;

	dc_exhaust_fds(t);
	r2 = dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &passed, &ia2);
	dc_exhaust_end(t);
	if (r2 == DAT_SUCCESS) {
		dc_note(t, "the open with a passed async EVD needed no new descriptor");
		opened_ia_works(t, ia2);
	} else {
		DC_ASSERT_RET(r2, DAT_INSUFFICIENT_RESOURCES);
		DC_ASSERT_PTR_EQ(passed, mine);
	}
	/* the refused open left no use of the passed EVD behind: it frees
	 * (dat_evd_free(3DAT): refused only while streams feed it) */
	/* collateral: dat_ia_open(3DAT) RETURN VALUES: a refused open keeps nothing of what it was given, so the passed EVD frees */
	DC_ASSERT_SUCCESS(dat_evd_free(mine));
}

/*
 * Out of memory (the allocation fault hook): each allocation of an open
 * failing in turn, dat_ia_open gives DAT_INSUFFICIENT_RESOURCES
 * (dat_ia_open(3DAT) RETURN VALUES) or an IA that works: its query answers
 * with the async EVD the open gave, two of its EPs connect, and where it
 * registers memory (it may refuse an LMR for lack of resources:
 * dat_lmr_create(3DAT) RETURN VALUES) an RDMA Write between its LMRs
 * carries the bytes.  20 opens in a row, each kept open (the tables a
 * Provider grows with its instances grow under failures too); an IA opened
 * while an allocation failed is checked and closed at once.
 */
enum { OOM_OPENS = 20 };

struct oom_ia {
	DAT_IA_HANDLE ia[OOM_OPENS];
	DAT_EVD_HANDLE async;
	int n;
};

static DAT_RETURN oom_ia_make(struct dc_ctx *t, void *arg)
{
	struct oom_ia *o = arg;

	o->async = DAT_HANDLE_NULL;
	o->ia[o->n] = DAT_HANDLE_NULL;
	return dat_ia_open((DAT_NAME_PTR)t->ia_name, 16, &o->async, &o->ia[o->n]);
}

/* With t->ia the IA under check: an RDMA Write from one of its LMRs to another. */
static void oom_ia_carries(struct dc_ctx *t)
{
	unsigned char *buf = dc_case_buf(t, DAT_OPTIMAL_ALIGNMENT, 2 * 64);
	struct dc_endpoint a = { 0 }, b = { 0 };
	struct dc_lmr ma, mb;
	DAT_RETURN r;

	dc_connect_local(t, &a, &b, NULL);
	r = dc_lmr_register(t->ia, a.pz, buf, 64, DAT_MEM_PRIV_ALL_FLAG, &ma);
	if (r == DAT_SUCCESS)
		r = dc_lmr_register(t->ia, b.pz, buf + 64, 64, DAT_MEM_PRIV_ALL_FLAG, &mb);
	if (r != DAT_SUCCESS) {
		DC_ASSERT_RET(r, DAT_INSUFFICIENT_RESOURCES);
		dc_note(t, "an IA opened while an allocation failed refused an LMR: %s",
			dc_ret_text(r));
		return;
	}
	dc_fill(buf, 64, 7);
	/* collateral: dat_ia_open(3DAT) RETURN VALUES: DAT_SUCCESS opened an IA that works, whose memory RDMA reaches */
	rdma_write_carried(&a, &ma, 0, 64, dc_rmr_iov(&mb, 0, 64), 1);
	DC_ASSERT(!memcmp(buf, buf + 64, 64), "an RDMA Write between the IA's LMRs did not carry its bytes");
}

static void oom_ia_works(struct dc_ctx *t, void *arg, bool keep)
{
	struct oom_ia *o = arg;
	DAT_IA_HANDLE saved = t->ia;
	DAT_IA_ATTR ia_attr;
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_EVD_PARAM aq;

	/* collateral: dat_ia_open(3DAT) RETURN VALUES: DAT_SUCCESS opened an IA, which its query answers with the async EVD the open gave */
	DC_ASSERT_SUCCESS(dat_ia_query(o->ia[o->n], &evd, DAT_IA_FIELD_ALL, &ia_attr,
				       DAT_PROVIDER_FIELD_NONE, NULL));
	DC_ASSERT(evd != DAT_HANDLE_NULL && evd == o->async,
		  "the IA's query names async EVD %p, the open gave %p", evd, o->async);
	/* collateral: dat_ia_open(3DAT) PARAMETERS: the async EVD the Provider made for a DAT_HANDLE_NULL async_evd_handle is an EVD of this IA */
	aq = DC_EVD_PARAM(o->async);
	DC_ASSERT(aq.evd_flags & DAT_EVD_ASYNC_FLAG,
		  "the async EVD the open gave does not have DAT_EVD_ASYNC_FLAG");
	DC_ASSERT_IA_HANDLE(aq.ia_handle, o->ia[o->n]);
	if (keep) {
		o->n++;
		return;
	}
	t->ia = o->ia[o->n];
	oom_ia_carries(t);
	t->ia = saved;
	DC_CLEANUP(dat_ia_close(o->ia[o->n], DAT_CLOSE_ABRUPT_FLAG));
}

DC_CASE(dat_ia_open, out_of_memory,
	.clauses = "dat_ia_open.insufficient_resources",
	.needs = DC_ALLOC_FAULT_NEEDS,
	.summary = "each allocation of 20 opens failing in turn: DAT_INSUFFICIENT_RESOURCES or an IA that answers, connects and carries RDMA")
{
	struct oom_ia o = { .n = 0 };
	struct dc_alloc_call c = { "dat_ia_open", oom_ia_make, oom_ia_works, &o, NULL };

	for (int i = 0; i < OOM_OPENS; i++)
		if (dc_alloc_sweep(t, &c) < 0)
			break;
	for (int i = 0; i < o.n; i++)
		DC_CLEANUP(dat_ia_close(o.ia[i], DAT_CLOSE_GRACEFUL_FLAG));
}

/*
 * dat_ia_open(3DAT) ATTRIBUTES: MT-Level Safe.  Four threads open
 * instances of the IA under test at the same time, each querying (Safe,
 * dat_ia_query(3DAT) ATTRIBUTES) what it opened, beside Safe calls on an
 * EVD of the case's IA; rounds for 0.7 s (at least 2), each instance closed (Unsafe) only
 * after every thread is joined.
 */
static DAT_RETURN ia_crowd_open(struct dc_crowd_worker *w, int i, DAT_HANDLE *out)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;

	(void)i;
	return dat_ia_open((DAT_NAME_PTR)w->user, 16, &evd, (DAT_IA_HANDLE *)out);
}

static DAT_RETURN ia_crowd_query(struct dc_crowd_worker *w, DAT_HANDLE h)
{
	DAT_EVD_HANDLE evd = DAT_HANDLE_NULL;
	DAT_IA_ATTR a;

	(void)w;
	return dat_ia_query(h, &evd, DAT_IA_FIELD_IA_ADDRESS_PTR, &a,
			    DAT_PROVIDER_FIELD_NONE, NULL);
}

DC_CASE(dat_ia_open, mt_safe_concurrent,
	.summary = "4 threads open up to 12 instances each at once, rounds for 0.7 s: no error but running out, all handles distinct, each a live instance that closes")
{
	static struct dc_crowd c = {
		.what = "dat_ia_open", .per_worker = 12, .round_ms = 300,
		.create = ia_crowd_open,
		/* dat_ia_open(3DAT) RETURN VALUES: DAT_SUCCESS opened an
		 * instance, which answers its (Safe) query at once */
		.probe = ia_crowd_query, .probe_what = "dat_ia_query",
	};

	DC_SETUP_ASSERT(t->ia_name && *t->ia_name, "no IA under test (DATCTS_IA)");
	dc_crowd_init(&c, 4, 0);
	for (int i = 0; i < c.nw; i++)
		c.w[i].user = (void *)t->ia_name;
	while (dc_crowd_again(&c, 2, 40, 700)) {
		dc_crowd_round(&c);
		DC_ASSERT_CROWD(&c);
		DC_CROWD_EACH(&c, w, k) {
			DAT_IA_HANDLE ia = w->made[k];
			DAT_IA_ATTR a;

			DC_ASSERT(ia != t->ia, "an open gave the case's own instance %p", ia);
			/* collateral: dat_ia_open(3DAT) ATTRIBUTES: MT-Level Safe, so an instance opened beside other threads' opens is a live instance, which answers its query */
			DC_ASSERT_SUCCESS(dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_ADDRESS_PTR, &a,
						       DAT_PROVIDER_FIELD_NONE, NULL));
		}
		DC_CROWD_EACH(&c, w, k)
			/* collateral: dat_ia_open(3DAT) RETURN VALUES: as above, and closes */
			DC_ASSERT_SUCCESS(dat_ia_close(w->made[k], DAT_CLOSE_ABRUPT_FLAG));
	}
	dc_crowd_fini(t, &c);
}
