// SPDX-License-Identifier: MIT
/*
 * dat_rmr_bind end to end over a loopback connection (through libdat):
 * parameter / state / protection / privilege checks, the bind completion
 * on the request EVD (cookie, SUPPRESS), RDMA Write into the window, the
 * old rmr_context dying on rebind, unbind, and the flush on a
 * DISCONNECTED EP.
 */
#include "conn_fixture.h"

static DAT_RMR_COOKIE rck(uint64_t v)
{
	DAT_RMR_COOKIE c;

	c.as_64 = v;
	return c;
}

/* Next event on @evd must be the bind completion of @rmr with @cookie. */
static void bind_done(DAT_EVD_HANDLE evd, DAT_RMR_HANDLE rmr, uint64_t cookie,
		      DAT_DTO_COMPLETION_STATUS st)
{
	DAT_EVENT ev;

	CF_CHECK(cf_wait(evd, &ev) == DAT_RMR_BIND_COMPLETION_EVENT);
	CF_CHECK(ev.event_data.rmr_completion_event_data.rmr_handle == rmr);
	CF_CHECK(ev.event_data.rmr_completion_event_data.user_cookie.as_64 ==
		 cookie);
	CF_CHECK(ev.event_data.rmr_completion_event_data.status == st);
}

static DAT_RMR_TRIPLET rtrip(DAT_RMR_CONTEXT ctx, char *at, DAT_VLEN len)
{
	DAT_RMR_TRIPLET t;

	t.rmr_context = ctx;
	t.pad = 0;
	t.target_address = (DAT_VADDR)(uintptr_t)at;
	t.segment_length = len;
	return t;
}

int main(void)
{
	struct cf_side a, b;
	DAT_RMR_HANDLE rmr, rmr_other;
	DAT_PZ_HANDLE pz_other;
	DAT_LMR_HANDLE ro_lmr;
	DAT_LMR_CONTEXT ro_ctx;
	DAT_RMR_CONTEXT ctx1 = 0, ctx2 = 0, junk;
	DAT_LMR_TRIPLET win, seg;
	DAT_RMR_TRIPLET rt;
	DAT_RMR_PARAM rp;
	DAT_REGION_DESCRIPTION rd;
	DAT_EVENT ev;
	DAT_EP_STATE st;
	uint64_t ck;

	if (cf_open(&a) || cf_open(&b))
		return 2;
	a.ep = cf_ep(&a, NULL);
	b.ep = cf_ep(&b, NULL);
	CF_OK(dat_rmr_create(b.pz, &rmr));
	win = cf_seg(&b, 100, 200);

	/* not connected yet: invalid state, nothing bound */
	CF_RC(dat_rmr_bind(rmr, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(1), 0, &junk), DAT_INVALID_STATE);
	CF_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &rp));
	CF_CHECK(rp.rmr_context == 0 && rp.pz_handle == b.pz);
	CF_CHECK(cf_empty(b.req));
	if (cf_connect(&a, &b))
		goto out;

	/* parameters */
	CF_RC(dat_rmr_bind(rmr, NULL, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(1), 0, &junk), DAT_INVALID_PARAMETER);
	CF_RC(dat_rmr_bind(rmr, &win, (DAT_MEM_PRIV_FLAGS)0x4, b.ep, rck(1), 0,
			   &junk), DAT_INVALID_PARAMETER);
	CF_RC(dat_rmr_bind(rmr, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(1), DAT_COMPLETION_SOLICITED_WAIT_FLAG, &junk),
	      DAT_INVALID_PARAMETER);
	CF_RC(dat_rmr_bind(rmr, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(1), DAT_COMPLETION_UNSIGNALLED_FLAG, &junk),
	      DAT_INVALID_PARAMETER);	/* EP not configured for it */
	seg = cf_seg(&b, CF_BUF - 10, 11);	/* one byte past the LMR */
	CF_RC(dat_rmr_bind(rmr, &seg, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(1), 0, &junk), DAT_INVALID_PARAMETER);
	seg = win;
	seg.lmr_context ^= 0x10101;
	CF_RC(dat_rmr_bind(rmr, &seg, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(1), 0, &junk), DAT_INVALID_PARAMETER);
	CF_RC(dat_rmr_bind(rmr, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.lmr,
			   rck(1), 0, &junk), DAT_INVALID_HANDLE);
	CF_RC(dat_rmr_bind(b.ep, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(1), 0, &junk), DAT_INVALID_HANDLE);
	/* protection: an RMR of another PZ */
	CF_OK(dat_pz_create(b.ia, &pz_other));
	CF_OK(dat_rmr_create(pz_other, &rmr_other));
	CF_RC(dat_rmr_bind(rmr_other, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG,
			   b.ep, rck(1), 0, &junk), DAT_PROTECTION_VIOLATION);
	/* privileges: remote write needs local write on the LMR */
	rd.for_va = b.buf;
	CF_OK(dat_lmr_create(b.ia, DAT_MEM_TYPE_VIRTUAL, rd, 4096, b.pz,
			     DAT_MEM_PRIV_LOCAL_READ_FLAG, &ro_lmr, &ro_ctx,
			     NULL, NULL, NULL));
	seg = win;
	seg.lmr_context = ro_ctx;
	CF_RC(dat_rmr_bind(rmr, &seg, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(1), 0, &junk), DAT_PRIVILEGES_VIOLATION);
	CF_OK(dat_rmr_bind(rmr, &seg, DAT_MEM_PRIV_REMOTE_READ_FLAG, b.ep,
			   rck(2), DAT_COMPLETION_SUPPRESS_FLAG, &junk));
	CF_CHECK(cf_empty(b.req));	/* nothing failed posted an event */

	/* a real bind: completion with the cookie, window usable */
	CF_OK(dat_rmr_bind(rmr, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(77), DAT_COMPLETION_DEFAULT_FLAG, &ctx1));
	CF_CHECK(ctx1 != 0 && ctx1 != junk);
	bind_done(b.req, rmr, 77, DAT_DTO_SUCCESS);	/* SUPPRESSed one: none */
	CF_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_ALL, &rp));
	CF_CHECK(rp.rmr_context == ctx1);
	CF_CHECK(rp.lmr_triplet.segment_length == 200 &&
		 rp.lmr_triplet.virtual_address == win.virtual_address);
	CF_CHECK(rp.mem_priv == DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	/* the LMR under a bound window is in use */
	CF_RC(dat_lmr_free(b.lmr), DAT_INVALID_STATE);
	/* ro_lmr is no longer bound (rebinding moved the window) */
	CF_OK(dat_lmr_free(ro_lmr));

	memset(a.buf, 'q', 200);
	seg = cf_seg(&a, 0, 200);
	rt = rtrip(ctx1, b.buf + 100, 200);
	CF_OK(dat_ep_post_rdma_write(a.ep, 1, &seg, cf_cookie(10), &rt, 0));
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_SUCCESS && ck == 10);
	CF_CHECK(b.buf[100] == 'q' && b.buf[299] == 'q' && b.buf[99] == 0 &&
		 b.buf[300] == 0);

	/* rebind: a new context; unbind with length 0 */
	CF_OK(dat_rmr_bind(rmr, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(78), 0, &ctx2));
	CF_CHECK(ctx2 != 0 && ctx2 != ctx1);
	bind_done(b.req, rmr, 78, DAT_DTO_SUCCESS);
	seg = cf_seg(&b, 0, 0);
	CF_OK(dat_rmr_bind(rmr, &seg, 0, b.ep, rck(79), 0, &junk));
	bind_done(b.req, rmr, 79, DAT_DTO_SUCCESS);
	CF_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_RMR_CONTEXT, &rp));
	CF_CHECK(rp.rmr_context == 0);

	/* the retired context fails remotely and breaks the connection */
	seg = cf_seg(&a, 0, 16);
	rt = rtrip(ctx1, b.buf + 100, 16);
	CF_OK(dat_ep_post_rdma_write(a.ep, 1, &seg, cf_cookie(11), &rt, 0));
	CF_CHECK(cf_dto(a.req, &ck, NULL) == DAT_DTO_ERR_REMOTE_ACCESS &&
		 ck == 11);
	CF_CHECK(cf_wait(a.conn, &ev) == DAT_CONNECTION_EVENT_BROKEN);
	CF_CHECK(cf_wait(b.conn, &ev) == DAT_CONNECTION_EVENT_BROKEN);

	/* DISCONNECTED: accepted, flushed at once, binding unchanged */
	CF_OK(dat_ep_get_status(b.ep, &st, NULL, NULL));
	CF_CHECK(st == DAT_EP_STATE_DISCONNECTED);
	CF_OK(dat_rmr_bind(rmr, &win, DAT_MEM_PRIV_REMOTE_WRITE_FLAG, b.ep,
			   rck(80), DAT_COMPLETION_SUPPRESS_FLAG, &junk));
	bind_done(b.req, rmr, 80, DAT_RMR_BIND_FAILURE);
	CF_OK(dat_rmr_query(rmr, DAT_RMR_FIELD_RMR_CONTEXT, &rp));
	CF_CHECK(rp.rmr_context == 0);

	CF_OK(dat_rmr_free(rmr));
	CF_RC(dat_rmr_free(rmr), DAT_INVALID_HANDLE);
	CF_OK(dat_rmr_free(rmr_other));
	CF_OK(dat_pz_free(pz_other));
out:
	cf_close(&a);
	cf_close(&b);
	return cf_done("provider.rmr_bind");
}
