/* SPDX-License-Identifier: MIT */
/*
 * dat_cr_query(3DAT): clauses/dat_cr_query.toml.
 */
#include "cm_common.h"

#include <netinet/in.h>

static DAT_CR_HANDLE request_pd(struct dc_ctx *t, struct dc_endpoint *a, DAT_PSP_FLAGS flags,
				DAT_COUNT pn, const void *pd)
{
	DAT_EVD_HANDLE evd;
	DAT_PSP_HANDLE psp;
	DAT_CONN_QUAL q = dc_psp_any(t, flags, &evd, &psp);

	dc_endpoint(t, a, NULL);
	DC_SETUP(dc_connect_to_self(t, a->ep, q, 0, pn, pd));
	return dc_await_cr(t, evd, NULL);
}

DC_CASE(dat_cr_query, remote_address_and_port,
	.summary = "the request reports the requester's IA address and EP port qualifier")
{
	struct dc_endpoint a;
	DAT_CR_HANDLE cr = request_pd(t, &a, DAT_PSP_CONSUMER_FLAG, 0, NULL);
	const struct sockaddr *me = (const struct sockaddr *)t->ia_attr.ia_address_ptr;
	DAT_CR_PARAM c;

	memset(&c, 0, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
	DC_ASSERT(c.remote_ia_address_ptr && me &&
		  c.remote_ia_address_ptr->sa_family == me->sa_family,
		  "remote_ia_address is missing or of another family than the requester's IA");
	if (me->sa_family == AF_INET)
		DC_ASSERT(((const struct sockaddr_in *)c.remote_ia_address_ptr)->sin_addr.s_addr ==
			  ((const struct sockaddr_in *)me)->sin_addr.s_addr,
			  "remote_ia_address is not the requester's IA address");
	if (me->sa_family == AF_INET6)
		DC_ASSERT(!memcmp(&((const struct sockaddr_in6 *)c.remote_ia_address_ptr)->sin6_addr,
				  &((const struct sockaddr_in6 *)me)->sin6_addr, sizeof(struct in6_addr)),
			  "remote_ia_address is not the requester's IA address");
	DC_ASSERT_EQ(c.remote_port_qual, dc_ep_param(t, a.ep).local_port_qual);
}

DC_CASE(dat_cr_query, private_data,
	.summary = "the request reports the requester's private data and size",
	.flags = DC_NO_DTOS)
{
	static const unsigned char pd[20] = "cr_query private 20";
	struct dc_endpoint a, a0;
	DAT_CR_HANDLE cr = request_pd(t, &a, DAT_PSP_CONSUMER_FLAG, sizeof(pd), pd);
	DAT_CR_PARAM c;

	DAT_COUNT sizes[2];
	int ns = cm_pdata_sizes(t, sizes);

	memset(&c, 0, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
	DC_ASSERT_GE(c.private_data_size, (DAT_COUNT)sizeof(pd));
	DC_ASSERT(c.private_data && !memcmp(c.private_data, pd, sizeof(pd)),
		  "private_data differs from what the requester sent");
	/* at the boundaries: 1 byte, and exactly the provider's
	 * max_private_data_size, which a connect may carry */
	for (int i = 0; i < ns; i++) {
		struct dc_endpoint ai;
		unsigned char *d = cm_pdata(t, sizes[i], 0x31u + (unsigned)i);

		cr = request_pd(t, &ai, DAT_PSP_CONSUMER_FLAG, sizes[i], d);
		free(d);
		memset(&c, 0, sizeof(c));
		DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c));
		DC_ASSERT(c.private_data_size >= sizes[i] && c.private_data &&
			  cm_pdata_differs(c.private_data, sizes[i], 0x31u + (unsigned)i) < 0,
			  "%d bytes of private data sent: size %d reported, %s", (int)sizes[i],
			  (int)c.private_data_size, c.private_data ? "bytes differ" : "private_data NULL");
	}
	cr = request_pd(t, &a0, DAT_PSP_CONSUMER_FLAG, 0, NULL);
	memset(&c, 0xA5, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_PRIVATE_DATA_SIZE, &c));
	if (c.private_data_size != 0)
		dc_note(t, "no private data sent, size reported %d", (int)c.private_data_size);
	DC_ASSERT(c.private_data_size >= 0, "negative private_data_size %d", (int)c.private_data_size);
}

DC_CASE(dat_cr_query, local_ep,
	.summary = "local_ep_handle: NULL for a consumer PSP, the Provider EP, the RSP's EP",
	.flags = DC_NO_DTOS)
{
	struct dc_endpoint a, a2, a3, e;
	DAT_CR_PARAM c;
	DAT_EVD_HANDLE evd = dc_evd(t, 8, DAT_EVD_CR_FLAG);
	DAT_RSP_HANDLE rsp;
	DAT_CONN_QUAL q;

	memset(&c, 0xA5, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(request_pd(t, &a, DAT_PSP_CONSUMER_FLAG, 0, NULL),
				       DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
	DC_ASSERT_PTR_EQ(c.local_ep_handle, DAT_HANDLE_NULL);
	if (t->prov_attr.ep_creator != DAT_PSP_CREATES_EP_NEVER) {
		DAT_HANDLE_TYPE ty = (DAT_HANDLE_TYPE)-1;

		memset(&c, 0, sizeof(c));
		DC_ASSERT_SUCCESS(dat_cr_query(request_pd(t, &a2, DAT_PSP_PROVIDER_FLAG, 0, NULL),
					       DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
		/* collateral: dat_cr_query(3DAT) DESCRIPTION: the local EP reported is an Endpoint */
		DC_ASSERT_SUCCESS(dat_get_handle_type(c.local_ep_handle, &ty));
		DC_ASSERT_EQ(ty, DAT_HANDLE_TYPE_EP);
	}
	dc_endpoint(t, &e, NULL);
	dc_rsp_any(t, e.ep, evd, &q, &rsp);
	dc_endpoint(t, &a3, NULL);
	DC_SETUP(dc_connect_to_self(t, a3.ep, q, 0, 0, NULL));
	memset(&c, 0, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(dc_await_cr(t, evd, NULL), DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
	DC_ASSERT_PTR_EQ(c.local_ep_handle, e.ep);
}

DC_CASE(dat_cr_query, returns_masked_params,
	.summary = "each single mask bit fills its member in a poisoned DAT_CR_PARAM")
{
	static const unsigned char pd[8] = "masked!";
	struct dc_endpoint a;
	DAT_CR_HANDLE cr = request_pd(t, &a, DAT_PSP_CONSUMER_FLAG, sizeof(pd), pd);
	DAT_CR_PARAM all, c, poison;

	memset(&all, 0, sizeof(all));
	memset(&poison, 0xA5, sizeof(poison));
	DC_SETUP(dat_cr_query(cr, DAT_CR_FIELD_ALL, &all));
	memset(&c, 0xA5, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR, &c));
	/* a member left poisoned is reported, not dereferenced */
	DC_ASSERT(c.remote_ia_address_ptr &&
		  c.remote_ia_address_ptr != poison.remote_ia_address_ptr &&
		  c.remote_ia_address_ptr->sa_family ==
		  all.remote_ia_address_ptr->sa_family, "remote_ia_address_ptr not filled");
	memset(&c, 0xA5, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_REMOTE_PORT_QUAL, &c));
	DC_ASSERT_EQ(c.remote_port_qual, all.remote_port_qual);
	memset(&c, 0xA5, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_PRIVATE_DATA_SIZE, &c));
	DC_ASSERT_EQ(c.private_data_size, all.private_data_size);
	memset(&c, 0xA5, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_PRIVATE_DATA, &c));
	DC_ASSERT(c.private_data && c.private_data != poison.private_data &&
		  !memcmp(c.private_data, pd, sizeof(pd)),
		  "private_data not filled");
	memset(&c, 0xA5, sizeof(c));
	DC_ASSERT_SUCCESS(dat_cr_query(cr, DAT_CR_FIELD_LOCAL_EP_HANDLE, &c));
	DC_ASSERT_PTR_EQ(c.local_ep_handle, all.local_ep_handle);
}

DC_CASE(dat_cr_query, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	DAT_CR_PARAM c;

	DC_ASSERT_INVALID_HANDLE(dat_cr_query((DAT_CR_HANDLE)dc_pz(t), DAT_CR_FIELD_ALL, &c), 1, CR);
}

/* The same for a rejected CR, which dat_cr_reject(3DAT) DESCRIPTION
 * destroys: a case of its own, so that a call that does not survive the
 * handle of a destroyed object (a registry that dispatches through the
 * handle) leaves the checks above judged. */
DC_CASE(dat_cr_query, invalid_handle_freed,
	.clauses = "dat_cr_query.invalid_handle",
	.summary = "a rejected CR is an invalid handle")
{
	struct dc_endpoint a;
	DAT_CR_HANDLE cr = request_pd(t, &a, DAT_PSP_CONSUMER_FLAG, 0, NULL);
	DAT_CR_PARAM c;

	DC_SETUP(dc_dat_cr_reject(cr, 0, NULL));
	DC_ASSERT_INVALID_HANDLE(dat_cr_query(cr, DAT_CR_FIELD_ALL, &c), 1, CR);
}

DC_CASE(dat_cr_query, invalid_mask,
	.summary = "mask bits that name no CR parameter are invalid; the request still works")
{
	struct dc_endpoint a, b;
	DAT_CR_HANDLE cr = request_pd(t, &a, DAT_PSP_CONSUMER_FLAG, 0, NULL);
	DAT_CR_PARAM c;

	DC_ASSERT_RET(dat_cr_query(cr, (DAT_CR_PARAM_MASK)0x20, &c), DAT_INVALID_PARAMETER);
	DC_ASSERT_RET(dat_cr_query(cr, (DAT_CR_PARAM_MASK)0x80000000u, &c), DAT_INVALID_PARAMETER);
	dc_endpoint(t, &b, NULL);
	DC_SETUP(dat_cr_accept(cr, b.ep, 0, NULL));
	DC_ASSERT_CONN_EVENT(b.conn_evd, DAT_CONNECTION_EVENT_ESTABLISHED, b.ep);
}
