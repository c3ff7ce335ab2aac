/* SPDX-License-Identifier: MIT */
/*
 * Finding srq-handle-type-unknown (docs/certification/ofa-dapl-2.1.10/): the
 * handle of a new SRQ given to dat_get_handle_type. dat_srq_create(3DAT)
 * DESCRIPTION: the call hands back the handle of the SRQ it made;
 * dat_get_handle_type(3DAT): a valid handle's type is returned, for an SRQ
 * DAT_HANDLE_TYPE_SRQ.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	DAT_SRQ_ATTR a = { .max_recv_dtos = 8, .max_recv_iov = 1,
			   .low_watermark = DAT_SRQ_LW_DEFAULT };
	DAT_HANDLE_TYPE type = (DAT_HANDLE_TYPE)-1;
	DAT_PZ_HANDLE pz;
	DAT_SRQ_HANDLE srq;
	DAT_SRQ_PARAM p;
	DAT_RETURN r;

	if ((r = dat_pz_create(ia, &pz)) != DAT_SUCCESS ||
	    (r = dat_srq_create(ia, pz, &a, &srq)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making the SRQ failed: %s", REPRO_RET(r));
	r = dat_srq_query(srq, DAT_SRQ_FIELD_ALL, &p);
	printf("dat_srq_query(srq): %s (the handle is a working SRQ)\n", REPRO_RET(r));
	r = dat_get_handle_type(srq, &type);
	printf("dat_get_handle_type(srq): %s, type %d (DAT_HANDLE_TYPE_SRQ is %d)\n",
	       REPRO_RET(r), (int)type, (int)DAT_HANDLE_TYPE_SRQ);
	fflush(stdout);
	if (r == DAT_SUCCESS && type == DAT_HANDLE_TYPE_SRQ)
		return repro_say(REPRO_ABSENT, "the SRQ handle has type DAT_HANDLE_TYPE_SRQ");
	return repro_say(REPRO_SHOWS, "dat_get_handle_type of a new SRQ returned %s",
			 REPRO_RET(r));
}

REPRO_MAIN(.finding = "srq-handle-type-unknown", .body = body)
