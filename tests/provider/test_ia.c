// SPDX-License-Identifier: MIT
/*
 * IA: attributes, the three async EVD modes of dat_ia_open, graceful
 * close refused with objects left (and nothing changes), abrupt close
 * with objects and blocked waiters, cross-IA async event delivery.
 */
#include "tp.h"

#include <netinet/in.h>
#include <pthread.h>
#include <string.h>

static DAT_EVENT se(void)
{
	return tp_se(NULL);
}

static void test_query(void)
{
	DAT_EVD_HANDLE async, q;
	struct ref_ia *ia = tp_open(&async);
	DAT_IA_ATTR a;
	DAT_PROVIDER_ATTR p;
	DAT_EVD_PARAM ep;

	CHECK(async != DAT_HANDLE_NULL);
	CHECK_OK(ref_ia_query(ia, &q, DAT_IA_FIELD_ALL, &a,
			      DAT_PROVIDER_FIELD_ALL, &p));
	CHECK(q == async);
	CHECK(!strcmp(a.adapter_name, TP_IA_NAME));
	CHECK(a.ia_address_ptr && a.ia_address_ptr->sa_family == AF_INET);
	CHECK(a.max_evd_qlen == REF_MAX_EVD_QLEN);
	CHECK(a.max_evds == REF_MAX_EVDS);
	CHECK(a.max_pzs == REF_MAX_PZS);
	CHECK(a.max_lmrs == REF_MAX_LMRS && a.max_rmrs == REF_MAX_RMRS);
	CHECK(a.max_iov_segments_per_dto > 0 && a.max_eps > 0);
	CHECK(a.max_srqs > 0 && a.max_recv_per_srq > 0);
	CHECK(a.num_transport_attr == 2 && a.transport_attr);
	CHECK(!strcmp(a.transport_attr[0].value, "sock"));
	CHECK(p.dapl_version_major == 1 && p.dapl_version_minor == 2);
	CHECK(p.is_thread_safe == DAT_FALSE);
	CHECK(p.srq_supported == DAT_TRUE);
	CHECK(p.srq_watermarks_supported && p.srq_info_supported &&
	      p.ep_recv_info_supported);
	CHECK(p.max_private_data_size >= 64);
	CHECK(p.optimal_buffer_alignment &&
	      DAT_OPTIMAL_ALIGNMENT % p.optimal_buffer_alignment == 0);
	CHECK(p.evd_stream_merging_supported[2][5] == DAT_TRUE);
	CHECK(p.lmr_mem_types_supported == 3);
	CHECK(p.completion_flags_supported == 0x1f);
	CHECK(p.lmr_sync_req == DAT_FALSE);
	/* datcts.mutant, datcts.conn_qual_range and datcts.variant
	 * (docs/reference-provider.md) */
	CHECK(p.num_provider_specific_attr == 3);
	CHECK(!strcmp(p.provider_specific_attr[1].name, "datcts.conn_qual_range") &&
	      !strcmp(p.provider_specific_attr[1].value, "1-65535"));
	CHECK(!strcmp(p.provider_specific_attr[2].name, "datcts.variant") &&
	      !strcmp(p.provider_specific_attr[2].value, ""));
	/* the async EVD made by open: at least the requested qlen, no CNO */
	CHECK_OK(ref_evd_query(async, DAT_EVD_FIELD_ALL, &ep));
	CHECK(ep.evd_qlen >= 8 && ep.cno_handle == DAT_HANDLE_NULL);
	CHECK(ep.evd_flags & DAT_EVD_ASYNC_FLAG);
	/* masks and pointers */
	CHECK_OK(ref_ia_query(ia, NULL, 0, NULL, 0, NULL));
	CHECK_RC_SUB(ref_ia_query(ia, NULL, DAT_IA_FIELD_ALL + 1, &a, 0, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	CHECK_RC_SUB(ref_ia_query(ia, NULL, DAT_IA_FIELD_IA_MAX_EPS, NULL, 0,
				  NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	CHECK_RC_SUB(ref_ia_query(ia, NULL, 0, NULL, UINT64_C(1) << 40, &p),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	CHECK_RC_SUB(ref_ia_query(ia, NULL, 0, NULL, 1, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	CHECK_RC_SUB(ref_ia_query(async, NULL, 0, NULL, 0, NULL),
		     DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	CHECK_RC_SUB(ref_ia_close(ia, (DAT_CLOSE_FLAGS)7),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	CHECK_OK(ref_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	CHECK_RC(ref_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG), DAT_INVALID_HANDLE);
	CHECK_RC(ref_evd_query(async, DAT_EVD_FIELD_ALL, &ep),
		 DAT_INVALID_HANDLE);
}

static void test_async_modes(void)
{
	DAT_EVD_HANDLE async1, h, q, plain;
	struct ref_ia *ia1 = tp_open(&async1);
	DAT_IA_HANDLE ia2;
	DAT_EVENT ev;

	/* DAT_EVD_ASYNC_EXISTS: nothing created, query says out of scope */
	h = DAT_EVD_ASYNC_EXISTS;
	CHECK_OK(ref_ia_open((DAT_NAME_PTR)TP_IA_NAME, 8, &h, &ia2));
	CHECK(h == DAT_EVD_ASYNC_EXISTS);
	CHECK_OK(ref_ia_query(ia2, &q, 0, NULL, 0, NULL));
	CHECK(q == DAT_EVD_OUT_OF_SCOPE);
	CHECK_OK(ref_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));

	/* not an async EVD / not an EVD: DAT_INVALID_HANDLE, handle kept */
	CHECK_OK(ref_evd_create(ia1, 4, NULL, DAT_EVD_SOFTWARE_FLAG, &plain));
	h = plain;
	CHECK_RC(ref_ia_open((DAT_NAME_PTR)TP_IA_NAME, 8, &h, &ia2),
		 DAT_INVALID_HANDLE);
	CHECK(h == plain);
	h = (DAT_EVD_HANDLE)&ev;
	CHECK_RC(ref_ia_open((DAT_NAME_PTR)TP_IA_NAME, 8, &h, &ia2),
		 DAT_INVALID_HANDLE);
	CHECK(h == (DAT_EVD_HANDLE)&ev);
	CHECK_RC(ref_ia_open((DAT_NAME_PTR)"no-such-ia", 8, &h, &ia2),
		 DAT_PROVIDER_NOT_FOUND);
	h = NULL;
	CHECK_RC_SUB(ref_ia_open((DAT_NAME_PTR)TP_IA_NAME, -1, &h, &ia2),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	CHECK_RC_SUB(ref_ia_open((DAT_NAME_PTR)TP_IA_NAME, 8, NULL, &ia2),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	CHECK_RC_SUB(ref_ia_open((DAT_NAME_PTR)TP_IA_NAME, 8, &h, NULL),
		     DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);

	/* another IA's async EVD: used, not destroyed by our close */
	h = async1;
	CHECK_OK(ref_ia_open((DAT_NAME_PTR)TP_IA_NAME, 8, &h, &ia2));
	CHECK(h == async1);
	CHECK_OK(ref_ia_query(ia2, &q, 0, NULL, 0, NULL));
	CHECK(q == async1);
	/* an overflow in IA2 lands on IA1's EVD (delivered after unlock) */
	{
		DAT_EVD_HANDLE small;
		DAT_EVENT e = se();

		CHECK_OK(ref_evd_create(ia2, 1, NULL, DAT_EVD_SOFTWARE_FLAG,
					&small));
		ref_ia_lock(ia2);
		CHECK(ref_evd_post(small, &e));
		CHECK(!ref_evd_post(small, &e));
		ref_ia_unlock(ia2);
		CHECK_OK(ref_evd_dequeue(async1, &ev));
		CHECK(ev.event_number == DAT_ASYNC_ERROR_EVD_OVERFLOW);
		CHECK(ev.event_data.asynch_error_event_data.dat_handle ==
		      small);
		CHECK_OK(ref_evd_free(small));
	}
	CHECK_OK(ref_ia_close(ia2, DAT_CLOSE_GRACEFUL_FLAG));
	CHECK_OK(ref_evd_query(async1, DAT_EVD_FIELD_ALL,
			       &(DAT_EVD_PARAM){0}));
	CHECK_OK(ref_evd_free(plain));
	CHECK_OK(ref_ia_close(ia1, DAT_CLOSE_GRACEFUL_FLAG));
}

struct wa {
	DAT_EVD_HANDLE evd;
	DAT_RETURN rc;
};

static void *evd_waiter(void *p)
{
	struct wa *a = p;
	DAT_EVENT ev;
	DAT_COUNT n;

	a->rc = ref_evd_wait(a->evd, DAT_TIMEOUT_INFINITE, 1, &ev, &n);
	return NULL;
}

static void test_close(void)
{
	static char buf[256];
	DAT_EVD_HANDLE async, evd;
	struct ref_ia *ia = tp_open(&async);
	DAT_PZ_HANDLE pz;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lc;
	DAT_RMR_HANDLE rmr;
	DAT_CNO_HANDLE cno;
	DAT_REGION_DESCRIPTION rd;
	DAT_PZ_PARAM pp;
	DAT_EVENT e = se();
	struct wa a;
	pthread_t t;
	int i, n;

	/* graceful with a PZ left: refused, nothing changes */
	CHECK_OK(ref_pz_create(ia, &pz));
	CHECK_RC_SUB(ref_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		     DAT_INVALID_STATE, DAT_INVALID_STATE_IA_IN_USE);
	CHECK_OK(ref_pz_query(pz, DAT_PZ_FIELD_ALL, &pp));
	CHECK_OK(ref_evd_query(async, DAT_EVD_FIELD_ALL, &(DAT_EVD_PARAM){0}));

	/* abrupt with a tree of objects and a blocked waiter */
	rd.for_va = buf;
	CHECK_OK(ref_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno));
	CHECK_OK(ref_evd_create(ia, 4, cno, DAT_EVD_SOFTWARE_FLAG, &evd));
	CHECK_OK(ref_evd_post_se(evd, &e));
	CHECK_OK(ref_evd_dequeue(evd, &e));
	CHECK_OK(ref_lmr_create(ia, DAT_MEM_TYPE_VIRTUAL, rd, sizeof(buf), pz,
				DAT_MEM_PRIV_ALL_FLAG, &lmr, &lc, NULL, NULL,
				NULL));
	CHECK_OK(ref_rmr_create(pz, &rmr));
	a.evd = evd;
	pthread_create(&t, NULL, evd_waiter, &a);
	for (i = 0; i < 5000; i++) {
		ref_ia_lock(ia);
		n = ((struct ref_evd *)evd)->waiters;
		ref_ia_unlock(ia);
		if (n)
			break;
		tp_sleep_ms(1);
	}
	CHECK_OK(ref_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	pthread_join(t, NULL);
	CHECK_RC(a.rc, DAT_ABORT);
	CHECK_RC(ref_pz_query(pz, DAT_PZ_FIELD_ALL, &pp), DAT_INVALID_HANDLE);
	CHECK_RC(ref_lmr_free(lmr), DAT_INVALID_HANDLE);
	CHECK_RC(ref_rmr_free(rmr), DAT_INVALID_HANDLE);
	CHECK_RC(ref_cno_free(cno), DAT_INVALID_HANDLE);
	CHECK_RC(ref_evd_free(evd), DAT_INVALID_HANDLE);
	CHECK_RC(ref_evd_free(async), DAT_INVALID_HANDLE);
	CHECK_RC(ref_ia_query(ia, NULL, 0, NULL, 0, NULL), DAT_INVALID_HANDLE);
}

int main(void)
{
	test_query();
	test_async_modes();
	test_close();
	return tp_done("provider.ia");
}
