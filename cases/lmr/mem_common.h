/* SPDX-License-Identifier: MIT */
/*
 * mem_common.h - what the memory cases (cases/lmr, cases/rmr, cases/pz and
 * the memory clauses of cases/ia and cases/misc) share beyond the harness.
 *
 * The usual picture: a connected pair in this process (dc_pair_up), "a"
 * the initiator of RDMA, "b" the target whose memory is exposed.  The
 * RDMA, bind and buffer helpers are the harness's (dc_mem.h).
 */
#ifndef MEM_COMMON_H
#define MEM_COMMON_H

#include "datcts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF		4096u

/* Set-up: dat_cno_create on any IA, without an agent. */
static inline DAT_CNO_HANDLE cno_on_at(struct dc_ctx *t, const char *file, int line,
				       DAT_IA_HANDLE ia)
{
	DAT_CNO_HANDLE cno = DAT_HANDLE_NULL;
	DAT_RETURN r = dat_cno_create(ia, DAT_OS_WAIT_PROXY_AGENT_NULL, &cno);

	if (r != DAT_SUCCESS)
		dc_end_at(t, DC_UNRESOLVED, file, line, false,
			  "set-up dat_cno_create returned %s", dc_ret_text(r));
	return cno;
}
#define cno_on(ia) cno_on_at(t, __FILE__, __LINE__, (ia))

/*
 * dat_lmr_create(DAT_MEM_TYPE_LMR) over `from`, in `pz` with `priv`; `out`
 * gets the new LMR (and orig's buffer, when given).  Returns the call's code.
 */
static inline DAT_RETURN lmr_of_lmr(struct dc_ctx *t, DAT_LMR_HANDLE from, DAT_VLEN len,
				    DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv, struct dc_lmr *out,
				    const struct dc_lmr *orig)
{
	DAT_REGION_DESCRIPTION rd;

	memset(out, 0, sizeof(*out));
	memset(&rd, 0, sizeof(rd));
	rd.for_lmr_handle = from;
	if (orig) {
		out->buf = orig->buf;
		out->len = orig->len;
	}
	return dc_dat_lmr_create(t->ia, DAT_MEM_TYPE_LMR, rd, len, pz, priv, &out->lmr,
				     &out->lmr_context, &out->rmr_context,
				     &out->registered_length, &out->registered_address);
}

/*
 * Clause: an RDMA Write of m[off, off+len) from e into dst is taken and
 * completes with DAT_DTO_SUCCESS (dc_rdma_write makes the post set-up; here
 * the memory under test is m, so its refusal is the clause's).
 */
static inline void rdma_write_carried_at(struct dc_ctx *t, const char *file, int line,
					 const struct dc_endpoint *e, const struct dc_lmr *m,
					 DAT_VLEN off, DAT_VLEN len, DAT_RMR_TRIPLET dst,
					 uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(m, off, len);
	DAT_RETURN r = dat_ep_post_rdma_write(e->ep, 1, &iov, dc_cookie(cookie), &dst,
					      DAT_COMPLETION_DEFAULT_FLAG);
	DAT_EVENT ev;

	dc_assert_ret_at(t, file, line, "dat_ep_post_rdma_write", r, DC_FAIL, 1,
			 (const DAT_RETURN[]){ DAT_SUCCESS }, DC_ANY_SUBTYPE);
	dc_expect_event_at(t, file, line, DC_FAIL, e->req_evd, DAT_DTO_COMPLETION_EVENT, &ev);
	if (ev.event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS)
		dc_end_at(t, DC_FAIL, file, line, false, "the RDMA Write completed with %s",
			  dc_dto_status_name(ev.event_data.dto_completion_event_data.status));
}
#define rdma_write_carried(e, m, off, len, dst, cookie)			\
	rdma_write_carried_at(t, __FILE__, __LINE__, (e), (m), (off), (len), (dst), (cookie))

#endif /* MEM_COMMON_H */
