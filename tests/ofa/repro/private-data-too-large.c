/* SPDX-License-Identifier: MIT */
/*
 * Finding private-data-too-large (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_connect with one byte more private data than the IA's
 * max_private_data_size. dat_evd_wait(3DAT) and dat_evd_dequeue(3DAT)
 * DESCRIPTION: more private data than that attribute allows makes
 * dat_ep_connect return DAT_INVALID_PARAMETER. Nobody listens on the
 * qualifier: the call must refuse before anything goes out.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static unsigned char pdata[4096];
	DAT_IA_ADDRESS_PTR self = repro_ia_address(ia);
	DAT_PROVIDER_ATTR prov;
	DAT_EVD_HANDLE conn, async;
	DAT_EP_HANDLE ep;
	DAT_COUNT size;
	DAT_RETURN r = repro_ep(ia, &ep, &conn);

	if (r == DAT_SUCCESS)
		r = dat_ia_query(ia, &async, 0, NULL, DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE, &prov);
	if (r != DAT_SUCCESS || !self)
		return repro_say(REPRO_CANNOT, "making the EP or querying the IA failed: %s",
				 REPRO_RET(r));
	size = prov.max_private_data_size + 1;
	if (size <= 0 || (size_t)size > sizeof(pdata))
		return repro_say(REPRO_CANNOT, "max_private_data_size %d is out of this reproducer's "
				 "range", (int)prov.max_private_data_size);
	r = dat_ep_connect(ep, self, 61998, 2000000, size, pdata, DAT_QOS_BEST_EFFORT,
			   DAT_CONNECT_DEFAULT_FLAG);
	if (DAT_GET_TYPE(r) == DAT_INVALID_PARAMETER)
		return repro_say(REPRO_ABSENT, "%d bytes (max_private_data_size %d + 1) are refused "
				 "with %s", (int)size, (int)prov.max_private_data_size, REPRO_RET(r));
	/* another refusal may have a cause of its own (a connect that cannot work at all) */
	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ep_connect with %d bytes returned %s",
				 (int)size, REPRO_RET(r));
	return repro_say(REPRO_SHOWS, "dat_ep_connect with %d bytes of private data "
			 "(max_private_data_size %d + 1) returned DAT_SUCCESS, not "
			 "DAT_INVALID_PARAMETER", (int)size, (int)prov.max_private_data_size);
}

REPRO_MAIN(.finding = "private-data-too-large", .body = body,
	   .if_crash = "dat_ep_connect with more private data than max_private_data_size killed "
		       "the process")
