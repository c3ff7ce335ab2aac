/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_post_rdma_read(3DAT): clauses/dat_ep_post_rdma_read.toml.
 *
 * A connected pair in this process (rdma_pair): a reads from b's memory
 * (mb, remote privileges, a known pattern) into ma (CANARY).  A failed
 * Read must leave ma's bytes untouched; a successful one must fill exactly
 * what the IOV says.
 */
#include "ep_common.h"

static const DAT_RETURN remote_fault[] = { DAT_PROTECTION_VIOLATION, DAT_PRIVILEGES_VIOLATION };
static const DAT_DTO_COMPLETION_STATUS remote_fault_cqe[] = { DAT_DTO_ERR_REMOTE_ACCESS };

static DAT_RETURN read1(struct dc_pair *p, DAT_VLEN loff, DAT_VLEN len,
			const DAT_RMR_TRIPLET *rem, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(&p->ma, loff, len);

	return dat_ep_post_rdma_read(p->a.ep, 1, &iov, dc_cookie(cookie), rem,
				     DAT_COMPLETION_DEFAULT_FLAG);
}

/*
 * As many local segments as a Read takes here, up to 3 (dat_ia_query(3DAT)
 * Max IOV segments per RDMA Read, the EP's max_rdma_read_iov): with 2 the
 * placement order is judged over two, with 1 that the data fills the
 * segment from its start and no further; the parts that need 3 are
 * skipped, noted.
 */
DC_CASE(dat_ep_post_rdma_read, transfers_remote_data,
	.summary = "150 remote bytes fill up to 3 local segments of 100 (as many as a Read takes) in order: full, half, untouched")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov[3];
	DAT_RMR_TRIPLET rem;
	DAT_DTO_COMPLETION_EVENT_DATA d;
	DAT_VLEN len;
	int n;

	rdma_pair(&p);
	n = (int)dc_within_limit(dc_within_limit(3, t->ia_attr.max_iov_segments_per_rdma_read),
				 dc_ep_param(t, p.a.ep).ep_attr.max_rdma_read_iov);
	if (n < 3)
		dc_note(t, "a Read takes %d local segment(s) here: the placement is judged over %d", n, n);
	len = n > 1 ? 150 : 50;
	dc_fill(p.mb.buf + 2048, 150, 0x61);
	/* past the remote segment, bytes that are not the local canary: a Read
	 * of more than the triplet's length (the local segments' total, say)
	 * then shows in the local bytes it must leave alone (DESCRIPTION: the
	 * Read moves the remote buffer the triplet describes) */
	memset(p.mb.buf + 2048 + 150, CANARY ^ 0xff, 300);
	iov[0] = dc_iov(&p.ma, 0, 100);
	iov[1] = dc_iov(&p.ma, 200, 100);
	iov[2] = dc_iov(&p.ma, 400, 100);
	rem = dc_rmr_iov(&p.mb, 2048, len);
	DC_ASSERT_SUCCESS(dat_ep_post_rdma_read(p.a.ep, n, iov, dc_cookie(1), &rem,
						DAT_COMPLETION_DEFAULT_FLAG));
	d = DC_ASSERT_DTO(p.a.req_evd, 1, DAT_DTO_SUCCESS);
	if (n > 1) {
		DC_ASSERT(!memcmp(p.ma.buf, p.mb.buf + 2048, 100), "segment 1 is not remote bytes 0..99");
		DC_ASSERT(!memcmp(p.ma.buf + 200, p.mb.buf + 2148, 50),
			  "segment 2 does not start with remote bytes 100..149");
		DC_ASSERT_BYTES_ARE(p.ma.buf + 250, 50, CANARY, "the rest of segment 2");
	} else {
		DC_ASSERT(!memcmp(p.ma.buf, p.mb.buf + 2048, 50), "the segment does not start with remote bytes 0..49");
		DC_ASSERT_BYTES_ARE(p.ma.buf + 50, 50, CANARY, "the rest of the segment");
	}
	DC_ASSERT_BYTES_ARE(p.ma.buf + 400, 100, CANARY, "segment 3");
	DC_ASSERT_BYTES_ARE(p.ma.buf + 100, 100, CANARY, "the gap between segments 1 and 2");
	/* dat_ep_post_rdma_read(3DAT) DESCRIPTION speaks of the placement; no
	 * page defines transfered_length for an RDMA Read: noted, not judged */
	if (d.transfered_length != len)
		dc_note(t, "the completion reports transfered_length %llu for %llu bytes read",
			(unsigned long long)d.transfered_length, (unsigned long long)len);
	/* a 1-byte Read into a 1-byte segment */
	expect_rdma_one_byte(&p, true, 1000, 3000, 2);
	if (n < 3) {
		dc_note(t, "the empty middle segment needs 3 segments: that part skipped");
		return;
	}
	/* local segments of 10, 0 and 10 bytes take 15 remote bytes: the
	 * empty segment is a front one, the data goes on into segment 3 */
	dc_fill(p.mb.buf + 6000, 15, 0x65);
	iov3(iov, &p.ma, (const DAT_VLEN[]){ 5000, 5100, 5200 }, (const DAT_VLEN[]){ 10, 0, 10 });
	rem = dc_rmr_iov(&p.mb, 6000, 15);
	DC_ASSERT_SUCCESS(dat_ep_post_rdma_read(p.a.ep, 3, iov, dc_cookie(4), &rem,
						DAT_COMPLETION_DEFAULT_FLAG));
	DC_ASSERT_DTO(p.a.req_evd, 4, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(p.ma.buf + 5000, p.mb.buf + 6000, 10), "segment 1 is not remote bytes 0..9");
	DC_ASSERT(!memcmp(p.ma.buf + 5200, p.mb.buf + 6010, 5),
		  "segment 3 does not start with remote bytes 10..14 (the empty segment 2 stopped the Read?)");
	DC_ASSERT_BYTES_ARE(p.ma.buf + 5205, 5, CANARY, "the rest of segment 3");
	DC_ASSERT_BYTES_ARE(p.ma.buf + 5010, 190, CANARY, "the memory between segments 1 and 3");
}

DC_CASE(dat_ep_post_rdma_read, completion_on_request_evd,
	.summary = "the RDMA Read completes on the request EVD with EP and cookie (0 accepted)")
{
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	rdma_pair(&p);
	dc_fill(p.mb.buf + 0, 256, 0x62);
	rem = dc_rmr_iov(&p.mb, 0, 256);
	DC_ASSERT_SUCCESS(read1(&p, 0, 256, &rem, 0));	/* the clause's own post */
	d = DC_ASSERT_DTO(p.a.req_evd, 0, DAT_DTO_SUCCESS);
	DC_ASSERT_PTR_EQ(d.ep_handle, p.a.ep);
	DC_ASSERT(dc_check_fill(p.ma.buf, 256, 0x62), "the read bytes are wrong");
	DC_ASSERT_NO_EVENT(p.a.recv_evd);
	/* and a cookie that is not 0 comes back as posted */
	DC_ASSERT_SUCCESS(read1(&p, 0, 256, &rem, 0x5eed0001));
	d = DC_ASSERT_DTO(p.a.req_evd, 0x5eed0001, DAT_DTO_SUCCESS);
	DC_ASSERT_PTR_EQ(d.ep_handle, p.a.ep);
}

DC_CASE(dat_ep_post_rdma_read, unsignalled_needs_ep_flag,
	.summary = "the unsignalled flag is refused unless the EP selects unsignalled Requests")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	iov = dc_iov(&p.ma, 0, 256);
	rem = dc_rmr_iov(&p.mb, 0, 256);
	DC_ASSERT_RET(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(1), &rem,
					    DAT_COMPLETION_UNSIGNALLED_FLAG),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_TRUE);
	DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
}

static DAT_RETURN read_flagged(struct dc_pair *p, uint64_t cookie, DAT_COMPLETION_FLAGS fl)
{
	DAT_LMR_TRIPLET iov = dc_iov(&p->ma, 1024, 256);
	DAT_RMR_TRIPLET rem = dc_rmr_iov(&p->mb, 0, 256);

	return dat_ep_post_rdma_read(p->a.ep, 1, &iov, dc_cookie(cookie), &rem, fl);
}

DC_CASE(dat_ep_post_rdma_read, valid_states,
	.summary = "an RDMA Read works when Connected and is flushed when Disconnected, whatever "
		   "its completion flags and however the EP was disconnected")
{
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;

	for (int way = 0; way < DISC_WAYS; way++) {
		dc_note(t, "DISCONNECTED by %s", disc_way_name(way));
		rdma_pair(&p);
		dc_fill(p.mb.buf + 0, 256, 0x63);
		rem = dc_rmr_iov(&p.mb, 0, 256);
		DC_ASSERT_SUCCESS(read1(&p, 0, 256, &rem, 1));
		DC_ASSERT_DTO(p.a.req_evd, 1, DAT_DTO_SUCCESS);
		DC_ASSERT(dc_check_fill(p.ma.buf, 256, 0x63), "the read bytes are wrong");
		disconnect_pair_by(&p, way);
		assert_flushed_each_flag(&p, read_flagged, 2);
		DC_ASSERT_BYTES_ARE(p.ma.buf + 1024, 256, CANARY, "the flushed Reads' local buffer");
		pair_down(t, &p);
	}
	assert_unsignalled_flushed(read_flagged, false, 20);
}

static void read_refused_in_state(struct dc_ctx *t, struct subject *s, const void *arg)
{
	DAT_LMR_TRIPLET iov = dc_iov(&s->mem, 0, 64);
	DAT_RMR_TRIPLET rem = dc_rmr_iov(&s->mem, 4096, 64);

	(void)arg;
	adopt(s);
	ASSERT_POST_REFUSED(s, dat_ep_post_rdma_read(s->ep, 1, &iov, dc_cookie(71), &rem,
						     DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_STATE_KEPT(s);
	/* the set-up's own Send may complete here; only the refused post's
	 * completion is the clause's (dat_ep_post_rdma_read(3DAT) RETURN VALUES) */
	DC_ASSERT_NO_COMPLETION_OF(s->e.req_evd, 71);
}

#define READ_REFUSED(st)							\
	STATE_CASE(dat_ep_post_rdma_read, invalid_state_##st, st,		\
		   read_refused_in_state, NULL,					\
		   "dat_ep_post_rdma_read.invalid_state",			\
		   "an RDMA Read is refused in " #st)
READ_REFUSED(unconnected)
READ_REFUSED(reserved)
READ_REFUSED(passive_connection_pending)
READ_REFUSED(active_connection_pending)
READ_REFUSED(disconnect_pending)

DC_CASE(dat_ep_post_rdma_read, invalid_state_unconnected_after_reset,
	.clauses = "dat_ep_post_rdma_read.invalid_state",
	.summary = "an RDMA Read is refused in UNCONNECTED reached by a reset out of DISCONNECTED")
{
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	unconnected_by_reset(&p);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	DC_ASSERT_RET(read1(&p, 0, 64, &rem, 71), DAT_INVALID_STATE);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_NO_COMPLETION_OF(p.a.req_evd, 71);
	DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
}

/*
 * An EP reset out of DISCONNECTED is Unconnected like a new one
 * (dat_ep_reset(3DAT)): connected again, it reads like one, with no Read of
 * the old connection left counted against max_rdma_read_out (1 here).
 */
DC_CASE(dat_ep_post_rdma_read, completion_after_reset,
	.clauses = "dat_ep_post_rdma_read.completion_on_request_evd",
	.summary = "an EP with max_rdma_read_out 1, reset and connected again: two Reads in turn complete on the request EVD")
{
	struct dc_pair p;
	struct dc_endpoint b2;
	struct dc_lmr mb2;
	DAT_RMR_TRIPLET rem;

	pair_up_one_read_out(t, &p);
	memset(p.ma.buf, CANARY, SUBJ_MEM);
	unconnected_by_reset(&p);
	memset(&b2, 0, sizeof(b2));
	dc_connect_local(t, &p.a, &b2, NULL);
	dc_lmr(t, b2.pz, 4096, DAT_MEM_PRIV_ALL_FLAG, &mb2);
	for (uint64_t i = 0; i < 2; i++) {
		dc_fill(mb2.buf + i * 1024, 256, 0x70 + (int)i);
		rem = dc_rmr_iov(&mb2, i * 1024, 256);
		DC_ASSERT_SUCCESS(read1(&p, i * 1024, 256, &rem, 81 + i));
		DC_ASSERT_DTO(p.a.req_evd, 81 + i, DAT_DTO_SUCCESS);
		DC_ASSERT(dc_check_fill(p.ma.buf + i * 1024, 256, 0x70 + (int)i),
			  "Read %d on the new connection fetched wrong bytes", (int)i + 1);
	}
}

DC_CASE(dat_ep_post_rdma_read, iov_outside_lmr,
	.summary = "a local segment reaching outside its LMR is an invalid parameter")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	DC_ASSERT_RET(read1(&p, dc_off_past_end(&p.ma, 64), 64, &rem, 1), DAT_INVALID_PARAMETER);
	/* 2^64 - 1 bytes: room enough for the 64 remote ones (RETURN VALUES
	 * DAT_LENGTH_ERROR is for a local buffer too small), but outside the LMR */
	iov = dc_iov_longest(&p.ma);
	DC_ASSERT_RET(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(2), &rem,
					    DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
}

DC_CASE(dat_ep_post_rdma_read, invalid_num_segments,
	.summary = "a negative local segment count is an invalid parameter")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };
	struct dc_pair p;

	rdma_pair(&p);
	expect_rdma_iov_refused(&p, true, -1, true, bad);
}

DC_CASE(dat_ep_post_rdma_read, null_local_iov,
	.summary = "local segments announced with no I/O vector should be an invalid parameter")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER };
	struct dc_pair p;

	rdma_pair(&p);
	expect_rdma_iov_refused(&p, true, 1, false, bad);
}

DC_CASE(dat_ep_post_rdma_read, invalid_flags,
	.summary = "completion flag bits no DAT_COMPLETION_* flag has should be an invalid parameter; "
		   "nothing is transferred")
{
	expect_rdma_undefined_flags_refused(true);
}

DC_CASE(dat_ep_post_rdma_read, local_buffer_too_small,
	.summary = "a local buffer one byte smaller than the remote segment is a length error; "
		   "one of exactly its size is read whole")
{
	static const DAT_RETURN sync[] = { DAT_LENGTH_ERROR };
	static const DAT_DTO_COMPLETION_STATUS async[] = { DAT_DTO_ERR_LOCAL_LENGTH };
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	dc_fill(p.mb.buf + 0, 200, 0x64);
	rem = dc_rmr_iov(&p.mb, 0, 200);
	/* at the boundary: a local buffer of exactly the remote segment's
	 * size is not too small (RETURN VALUES: the length error is for a
	 * local buffer smaller than the remote data), so all of it is read
	 * (DESCRIPTION) */
	DC_ASSERT_SUCCESS_UNLESS_SHORT(read1(&p, 0, 200, &rem, 1));
	DC_ASSERT_DTO(p.a.req_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(p.ma.buf, p.mb.buf, 200), "the Read into a buffer of exactly the remote size "
		  "did not fetch the remote bytes");
	DC_ASSERT_BYTES_ARE(p.ma.buf + 200, SUBJ_MEM - 200, CANARY,
			    "local memory beyond the 200-byte buffer");
	memset(p.ma.buf, CANARY, 200);
	/* one byte short: the length error, at once or as the completion */
	if (REFUSED_OR_FAILED(read1(&p, 0, 199, &rem, 2), sync, &p.a, 2, async))
		DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
	else
		DC_ASSERT_BYTES_ARE(p.ma.buf + 199, SUBJ_MEM - 199, CANARY,
				 "local memory beyond the 199-byte buffer");
}

DC_CASE(dat_ep_post_rdma_read, exceeds_max_rdma_size,
	.summary = "an RDMA Read longer than max_rdma_size is a length error and reads nothing; the limit dat_ep_modify set is the one used")
{
	static const DAT_RETURN sync[] = { DAT_LENGTH_ERROR, DAT_INVALID_PARAMETER };
	static const DAT_DTO_COMPLETION_STATUS async[] = { DAT_DTO_ERR_LOCAL_LENGTH };
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;

	rdma_pair_at(t, __FILE__, __LINE__, &p, 4096);
	DC_SETUP_ASSERT(dc_ep_param(t, p.a.ep).ep_attr.max_rdma_size == 4096,
			"set-up: the EP did not take max_rdma_size 4096");
	dc_fill(p.mb.buf + 0, 4097, 0x65);
	/* exactly max_rdma_size is within the limit (dat_ep_modify(3DAT)
	 * Maximum RDMA Size): read whole */
	rem = dc_rmr_iov(&p.mb, 0, 4096);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(read1(&p, 0, 4096, &rem, 2));
	DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(p.ma.buf, p.mb.buf, 4096), "the max_rdma_size Read fetched wrong bytes");
	memset(p.ma.buf, CANARY, SUBJ_MEM);
	/* one byte more is never performed */
	rem = dc_rmr_iov(&p.mb, 0, 4097);
	REFUSED_OR_FAILED(read1(&p, 0, 4097, &rem, 1), sync, &p.a, 1, async);
	DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
	/* the pair of this part goes before the next part makes its own (few EVDs) */
	pair_down(t, &p);
	modified_rdma_size_used(t, true);
}

DC_CASE(dat_ep_post_rdma_read, exceeds_max_rdma_read_iov,
	.summary = "more local segments than max_rdma_read_iov is an invalid parameter")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };
	struct dc_pair p;
	DAT_LMR_TRIPLET iov[IOV_TRY];
	DAT_RMR_TRIPLET rem;
	DAT_COUNT n;

	/* the EP's limit below the IA's, then at it: a provider checking
	 * the IA's limit instead of the EP's, or refusing the IA's own, shows */
	for (int below = 1; below >= 0; below--) {
		iov_pair(&p, SMALL_WRITE, below);	/* the Write limit 1, below the Read limit */
		n = dc_ep_param(t, p.a.ep).ep_attr.max_rdma_read_iov + 1;
		DC_SETUP_ASSERT(n <= IOV_TRY, "max_rdma_read_iov %d too large for this case", (int)n - 1);
		for (DAT_COUNT i = 0; i < n; i++)
			iov[i] = dc_iov(&p.ma, (DAT_VLEN)i * 16, 16);
		rem = dc_rmr_iov(&p.mb, 0, (DAT_VLEN)n * 16);
		dc_assert_ret_at(t, __FILE__, __LINE__, "dat_ep_post_rdma_read(max_rdma_read_iov + 1 segments)",
				 dat_ep_post_rdma_read(p.a.ep, n, iov, dc_cookie(1), &rem,
						       DAT_COMPLETION_DEFAULT_FLAG),
				 DC_FAIL, 2, bad, DC_ANY_SUBTYPE);
		DC_ASSERT_NO_EVENT(p.a.req_evd);
		DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
		/* exactly max_rdma_read_iov segments is within the limit: scattered in order */
		dc_fill(p.mb.buf, (size_t)(n - 1) * 16, 0x66);
		rem = dc_rmr_iov(&p.mb, 0, (DAT_VLEN)(n - 1) * 16);
		DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_post_rdma_read(p.a.ep, n - 1, iov, dc_cookie(2), &rem,
								     DAT_COMPLETION_DEFAULT_FLAG));
		DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
		DC_ASSERT(!memcmp(p.ma.buf, p.mb.buf, (size_t)(n - 1) * 16),
			  "the max_rdma_read_iov Read scattered wrong bytes");
		pair_down(t, &p);
	}
}

DC_CASE(dat_ep_post_rdma_read, lmr_pz_mismatch,
	.summary = "a local segment of an LMR in another PZ is a protection violation")
{
	struct dc_pair p;
	struct dc_lmr other;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &other);
	memset(other.buf, CANARY, 4096);
	iov = dc_iov(&other, 0, 64);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	DC_ASSERT_RET(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(1), &rem,
					    DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PROTECTION_VIOLATION);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	DC_ASSERT_BYTES_ARE(other.buf, 4096, CANARY, "the other PZ's memory");
}

DC_CASE(dat_ep_post_rdma_read, lmr_no_local_write,
	.summary = "a local segment without local write privilege (each privilege set without it), "
		   "or naming no LMR, is a privileges violation")
{
	struct dc_pair p;
	struct dc_lmr ro, unknown;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	DAT_MEM_PRIV_FLAGS sets[16];
	int n = priv_sets_without(DAT_MEM_PRIV_LOCAL_WRITE_FLAG, sets);

	rdma_pair(&p);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	for (int i = 0; i < n; i++) {	/* one bit at a time */
		if (!try_priv_lmr(t, p.a.pz, sets[i], &ro))
			continue;
		memset(ro.buf, CANARY, 4096);
		iov = dc_iov(&ro, 0, 64);
		DC_ASSERT_RET(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(10 + (uint64_t)i), &rem,
						    DAT_COMPLETION_DEFAULT_FLAG),
			      DAT_PRIVILEGES_VIOLATION);
		DC_ASSERT_BYTES_ARE(ro.buf, 4096, CANARY, "the LMR without local write");
	}
	dc_lmr(t, p.a.pz, 4096, DC_PRIV_LOCAL, &unknown);
	iov = dc_iov(&unknown, 0, 64);
	iov.lmr_context = dc_unissued_lmr_context(&unknown);
	DC_ASSERT_RET(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(2), &rem,
					    DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PRIVILEGES_VIOLATION);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
}

DC_CASE(dat_ep_post_rdma_read, rmr_pz_mismatch,
	.summary = "reading through an rmr_context outside the remote EP's PZ fails and reads "
		   "nothing; with the suppress flag too, its failed completion is still reported")
{
	static const DAT_COMPLETION_FLAGS fl[] = {
		DAT_COMPLETION_DEFAULT_FLAG, DAT_COMPLETION_SUPPRESS_FLAG,
	};
	struct dc_pair p;
	struct dc_lmr foreign;
	DAT_PZ_HANDLE fpz;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	/* the suppress flag hides only a successful completion
	 * (PARAMETERS, completion_flags): a Read that fails is reported */
	for (int i = 0; i < 2; i++) {
		dc_note(t, "completion_flags 0x%x", (unsigned)fl[i]);
		rdma_pair(&p);
		fpz = dc_pz(t);
		dc_lmr(t, fpz, 4096, DAT_MEM_PRIV_ALL_FLAG, &foreign);
		dc_fill(foreign.buf + 0, 64, 0x66);
		rem = dc_rmr_iov(&foreign, 0, 64);
		iov = dc_iov(&p.ma, 0, 64);
		REFUSED_OR_FAILED(dat_ep_post_rdma_read(p.a.ep, 1, &iov, dc_cookie(1), &rem, fl[i]),
				  remote_fault, &p.a, 1, remote_fault_cqe);
		DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
		DC_CLEANUP(dat_lmr_free(foreign.lmr));
		DC_CLEANUP(dat_pz_free(fpz));
		pair_down(t, &p);
	}
}

DC_CASE(dat_ep_post_rdma_read, rmr_no_remote_read,
	.summary = "reading through an rmr_context without remote read privilege fails and reads "
		   "nothing, for each privilege set without it and for a window bound without it")
{
	DAT_MEM_PRIV_FLAGS sets[16];
	int n = priv_sets_without(DAT_MEM_PRIV_REMOTE_READ_FLAG, sets);
	struct dc_pair p;
	struct dc_lmr wo;
	DAT_RMR_TRIPLET rem;
	DAT_RMR_CONTEXT ctx;

	/* one bit at a time: every set of the four privileges that lacks
	 * remote read (a fresh pair each: a remote fault may end the connection) */
	for (int i = 0; i < n; i++) {
		rdma_pair(&p);
		if (try_priv_lmr(t, p.b.pz, sets[i], &wo)) {
			dc_fill(wo.buf + 0, 64, 0x67);
			rem = dc_rmr_iov(&wo, 0, 64);
			REFUSED_OR_FAILED(read1(&p, 0, 64, &rem, 1), remote_fault, &p.a, 1,
					  remote_fault_cqe);
			DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
			DC_CLEANUP(dat_lmr_free(wo.lmr));
		}
		pair_down(t, &p);
	}
	/* the privilege given by a bind: a window over memory that has remote
	 * read, bound with remote write only (an IA without RMRs is legal,
	 * dat_ia_query(3DAT) Max RMRs: then the LMR sets above are the case) */
	if (t->ia_attr.max_rmrs < 1) {
		dc_note(t, "max_rmrs is %d: no window to bind", (int)t->ia_attr.max_rmrs);
		return;
	}
	dc_note(t, "an RMR bound with DAT_MEM_PRIV_REMOTE_WRITE_FLAG only");
	rdma_pair(&p);
	dc_fill(p.mb.buf + 0, 4096, 0x68);
	ctx = bind_window(&p, 1024, 256, DAT_MEM_PRIV_REMOTE_WRITE_FLAG);
	rem = dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)(p.mb.buf + 1024), 64);
	REFUSED_OR_FAILED(read1(&p, 0, 64, &rem, 2), remote_fault, &p.a, 2,
			  remote_fault_cqe);
	DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
}

DC_CASE(dat_ep_post_rdma_read, outside_bound_rmr,
	.summary = "reading past the end of a bound RMR fails and reads nothing")
{
	struct dc_pair p;
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	dc_fill(p.mb.buf + 0, 4096, 0x68);
	ctx = bind_window(&p, 1024, 256, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	rem = dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)(p.mb.buf + 1024 + 256 - 15), 16);
	REFUSED_OR_FAILED(read1(&p, 0, 16, &rem, 1), remote_fault, &p.a, 1,
			  remote_fault_cqe);
	DC_ASSERT_BYTES_ARE(p.ma.buf, SUBJ_MEM, CANARY, "local memory");
}

DC_CASE(dat_ep_post_rdma_read, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	dc_lmr(t, dc_pz(t), 4096, DAT_MEM_PRIV_ALL_FLAG, &m);
	iov = dc_iov(&m, 0, 64);
	rem = dc_rmr_iov(&m, 1024, 64);
	DC_ASSERT_INVALID_HANDLE(dat_ep_post_rdma_read((DAT_EP_HANDLE)dc_wrong_handle(t), 1, &iov, dc_cookie(1), &rem,
					    DAT_COMPLETION_DEFAULT_FLAG), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_post_rdma_read, invalid_handle_freed,
	.clauses = "dat_ep_post_rdma_read.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	dc_lmr(t, dc_pz(t), 4096, DAT_MEM_PRIV_ALL_FLAG, &m);
	iov = dc_iov(&m, 0, 64);
	rem = dc_rmr_iov(&m, 1024, 64);
	DC_ASSERT_INVALID_HANDLE(dat_ep_post_rdma_read(dc_freed_ep(t), 1, &iov, dc_cookie(1), &rem,
					    DAT_COMPLETION_DEFAULT_FLAG), 1, EP);
}

DC_CASE(dat_ep_post_rdma_read, exceeds_remote_rdma_read_in,
	.summary = "more Reads in flight than the peer takes: all succeed or the connection breaks cleanly")
{
	DAT_EP_ATTR aa, ab;
	struct dc_conn_opts oa = { 0 }, ob = { 0 };
	struct dc_endpoint a, b;
	struct dc_lmr ma, mb;
	struct dto_log l = { 0 };
	int first_fail = -1;

	dc_ep_attr_default(t, &aa);
	dc_ep_attr_default(t, &ab);
	aa.max_rdma_read_out = t->ia_attr.max_rdma_read_per_ep_out >= 8 ? 8 :
			       t->ia_attr.max_rdma_read_per_ep_out;
	ab.max_rdma_read_in = 1;
	oa.attr = &aa;
	ob.attr = &ab;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dc_endpoint(t, &a, &oa);
	dc_endpoint(t, &b, &ob);
	dc_lmr(t, a.pz, 8 * 256, DC_PRIV_LOCAL, &ma);
	dc_lmr(t, b.pz, 8 * 256, DAT_MEM_PRIV_ALL_FLAG, &mb);
	memset(ma.buf, CANARY, 8 * 256);
	dc_fill(mb.buf + 0, 8 * 256, 0x4D);
	dc_connect_local(t, &a, &b, NULL);
	for (int i = 0; i < 8; i++) {
		DAT_LMR_TRIPLET iov = dc_iov(&ma, (DAT_VLEN)i * 256, 256);
		DAT_RMR_TRIPLET rem = dc_rmr_iov(&mb, (DAT_VLEN)i * 256, 256);
		DAT_RETURN r = dat_ep_post_rdma_read(a.ep, 1, &iov, dc_cookie(100 + (uint64_t)i), &rem,
						     DAT_COMPLETION_DEFAULT_FLAG);

		if (r != DAT_SUCCESS) {	/* refused locally: the rest of the case is moot */
			dc_note(t, "Read %d refused at post: %s", i, dc_ret_text(r));
			dto_log_collect(&l, a.req_evd, i);
			return;
		}
	}
	dto_log_collect(&l, a.req_evd, 8);
	for (int i = 0; i < 8; i++) {
		DC_ASSERT_EQ(l.d[i].user_cookie.as_64, 100 + (uint64_t)i);
		if (l.d[i].status == DAT_DTO_SUCCESS) {
			DC_ASSERT(first_fail < 0, "Read %d succeeded after Read %d failed", i, first_fail);
			DC_ASSERT(!memcmp(ma.buf + i * 256, mb.buf + i * 256, 256),
				  "Read %d succeeded with wrong bytes", i);
		} else if (first_fail < 0) {
			first_fail = i;
		}
	}
	dc_note(t, first_fail < 0 ? "all 8 Reads succeeded" : "the connection broke at Read %d",
		first_fail);
}

/*
 * Peer faults: RDMA Reads (and a Write) outstanding toward a peer that is
 * killed (SIGKILL, dc_peer_die).  A Send goes first: the peer posts no
 * Receive, so nothing behind it can complete before the death.  The Reads'
 * local buffers sit in a guarded LMR: a failed Read may leave its own
 * segment in any state, but no byte outside it.
 */
#define RD_DEATH_MEM (64u * 1024u)
#define RD_DEATH_SEG (16u * 1024u)

DC_TWO_NODE_CASE(dat_ep_post_rdma_read, peer_killed_mid_read,
		 .clauses = "dat_ep_post_rdma_read.completion_on_request_evd "
			    "dat_ep_post_rdma_read.transfers_remote_data "
			    "dat_ep_post_rdma_write.completion_on_request_evd "
			    "dat_ep_create.connection_events_on_connect_evd "
			    "dat_ep_disconnect.failure_order_per_direction",
		 .summary = "the peer is killed with RDMA Reads outstanding: the connection ends, each "
			    "request completes once, in order, none successfully after a failure, and "
			    "no local byte outside the Reads' segments changes");
DC_PASSIVE(dat_ep_post_rdma_read, peer_killed_mid_read)
{
	die_with_window(RD_DEATH_MEM);
}
DC_ACTIVE(dat_ep_post_rdma_read, peer_killed_mid_read)
{
	struct dc_endpoint e;
	struct dc_lmr m;
	const struct outstanding req[] = {
		{ 1, true },	/* Send: cannot complete, no Receive at the peer */
		{ 2, false },	/* RDMA Read of remote [0, SEG) into local [0, SEG) */
		{ 3, false },	/* RDMA Write of local [SEG, 2 SEG) */
		{ 4, false },	/* RDMA Read of remote [2 SEG, 3 SEG) into local [2 SEG, 3 SEG) */
	};
	DAT_RMR_TRIPLET win, src;
	DAT_LMR_TRIPLET iov;
	DAT_VADDR base;
	struct dto_log log;
	unsigned char *before;

	memset(&e, 0, sizeof(e));
	dc_connect_active(t, &e, NULL);
	dc_lmr_guarded(t, e.pz, RD_DEATH_MEM, DC_PRIV_LOCAL, &m);
	dc_fill(m.buf, RD_DEATH_MEM, 0x22);
	before = dc_case_buf(t, 64, RD_DEATH_MEM);
	memcpy(before, m.buf, RD_DEATH_MEM);
	win = peer_window(RD_DEATH_MEM);
	base = dc_rmr_triplet_address(&win);
	DC_SETUP(post_send1(e.ep, &m, 0, 64, 1));
	iov = dc_iov(&m, 0, RD_DEATH_SEG);
	src = dc_rmr_triplet(win.rmr_context, base, RD_DEATH_SEG);
	DC_SETUP(dat_ep_post_rdma_read(e.ep, 1, &iov, dc_cookie(2), &src, DAT_COMPLETION_DEFAULT_FLAG));
	iov = dc_iov(&m, RD_DEATH_SEG, RD_DEATH_SEG);
	src = dc_rmr_triplet(win.rmr_context, base + RD_DEATH_SEG, RD_DEATH_SEG);
	DC_SETUP(dat_ep_post_rdma_write(e.ep, 1, &iov, dc_cookie(3), &src, DAT_COMPLETION_DEFAULT_FLAG));
	iov = dc_iov(&m, 2 * RD_DEATH_SEG, RD_DEATH_SEG);
	src = dc_rmr_triplet(win.rmr_context, base + 2 * RD_DEATH_SEG, RD_DEATH_SEG);
	DC_SETUP(dat_ep_post_rdma_read(e.ep, 1, &iov, dc_cookie(4), &src, DAT_COMPLETION_DEFAULT_FLAG));
	dc_peer_send(t, "die", "now");
	dc_peer_wait_gone(t);
	DC_FOR_CLAUSE("dat_ep_create.connection_events_on_connect_evd");
	ASSERT_CONN_ENDED_BY_DEATH(&e);
	DC_FOR_CLAUSE("dat_ep_post_rdma_read.completion_on_request_evd");
	ASSERT_EACH_REQUEST_COMPLETED(&e, req, 4, &log);
	DC_FOR_CLAUSE("dat_ep_disconnect.failure_order_per_direction");
	ASSERT_FAILURE_ORDER(&log, req, 4);
	/* outside the Reads' segments: the Write's source, the last segment */
	DC_FOR_CLAUSE("dat_ep_post_rdma_read.transfers_remote_data");
	DC_ASSERT(!memcmp(m.buf + RD_DEATH_SEG, before + RD_DEATH_SEG, RD_DEATH_SEG),
		  "local bytes [%u, %u) changed: no Read targets them",
		  RD_DEATH_SEG, 2 * RD_DEATH_SEG);
	DC_ASSERT(!memcmp(m.buf + 3 * RD_DEATH_SEG, before + 3 * RD_DEATH_SEG, RD_DEATH_SEG),
		  "local bytes [%u, %u) changed: no Read targets them",
		  3 * RD_DEATH_SEG, 4 * RD_DEATH_SEG);
	DC_ASSERT_GUARDS(&m);
}
