/* SPDX-License-Identifier: MIT */
/*
 * dat_ep_post_rdma_write(3DAT): clauses/dat_ep_post_rdma_write.toml.
 *
 * A connected pair in this process (rdma_pair): a writes into b's memory
 * (mb, registered with remote privileges, filled with CANARY).  Every
 * failure case checks that b's bytes did not change: the remote memory is
 * verified byte by byte, not assumed.
 */
#include "ep_common.h"

static const DAT_RETURN remote_fault[] = { DAT_PROTECTION_VIOLATION, DAT_PRIVILEGES_VIOLATION };
static const DAT_DTO_COMPLETION_STATUS remote_fault_cqe[] = { DAT_DTO_ERR_REMOTE_ACCESS };

static DAT_RETURN write1(struct dc_pair *p, DAT_VLEN loff, DAT_VLEN len,
			 const DAT_RMR_TRIPLET *rem, uint64_t cookie)
{
	DAT_LMR_TRIPLET iov = dc_iov(&p->ma, loff, len);

	return dat_ep_post_rdma_write(p->a.ep, 1, &iov, dc_cookie(cookie), rem,
				      DAT_COMPLETION_DEFAULT_FLAG);
}

DC_CASE(dat_ep_post_rdma_write, transfers_local_data,
	.summary = "3 local segments land concatenated in the remote buffer, nothing beyond")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov[3];
	DAT_RMR_TRIPLET rem;
	DAT_COUNT n;

	rdma_pair(&p);
	n = dc_ep_param(t, p.a.ep).ep_attr.max_rdma_write_iov;
	DC_SETUP_ASSERT(n >= 1, "max_rdma_write_iov is %d", (int)n);
	dc_fill(p.ma.buf + 100, 7, 1);
	dc_fill(p.ma.buf + 10000, 4096, 2);
	dc_fill(p.ma.buf + 30000, 1, 3);
	iov[0] = dc_iov(&p.ma, 100, 7);
	iov[1] = dc_iov(&p.ma, 10000, 4096);
	iov[2] = dc_iov(&p.ma, 30000, 1);
	if (n < 3) {
		dc_note(t, "max_rdma_write_iov is %d: writing one segment per post", (int)n);
		for (int i = 0; i < 3; i++) {
			DAT_VLEN at = i == 0 ? 0 : i == 1 ? 7 : 4103;

			rem = dc_rmr_iov(&p.mb, 512 + at, iov[i].segment_length);
			DC_ASSERT_SUCCESS(dat_ep_post_rdma_write(p.a.ep, 1, &iov[i], dc_cookie(10 + (uint64_t)i),
								 &rem, DAT_COMPLETION_DEFAULT_FLAG));
			DC_ASSERT_DTO(p.a.req_evd, 10 + (uint64_t)i, DAT_DTO_SUCCESS);
		}
	} else {
		rem = dc_rmr_iov(&p.mb, 512, 4104);
		DC_ASSERT_SUCCESS(dat_ep_post_rdma_write(p.a.ep, 3, iov, dc_cookie(10), &rem,
							 DAT_COMPLETION_DEFAULT_FLAG));
		DC_ASSERT_DTO(p.a.req_evd, 10, DAT_DTO_SUCCESS);
	}
	DC_ASSERT(dc_check_fill(p.mb.buf + 512, 7, 1), "remote bytes 0..6 are not segment 1");
	DC_ASSERT(dc_check_fill(p.mb.buf + 519, 4096, 2), "remote bytes 7..4102 are not segment 2");
	DC_ASSERT(dc_check_fill(p.mb.buf + 4615, 1, 3), "remote byte 4103 is not segment 3");
	DC_ASSERT_BYTES_ARE(p.mb.buf, 512, CANARY, "remote memory before the target");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 4616, SUBJ_MEM - 4616, CANARY, "remote memory after the target");
	/* a 1-byte Write on its own */
	expect_rdma_one_byte(&p, false, 40000, 8000, 20);
	/* a segment of length 0 between two others holds no data: the
	 * gather goes on past it */
	if (n >= 3) {
		gather_past_empty(&p, iov);
		rem = dc_rmr_iov(&p.mb, 12000, 11);
		DC_ASSERT_SUCCESS(dat_ep_post_rdma_write(p.a.ep, 3, iov, dc_cookie(30), &rem,
							 DAT_COMPLETION_DEFAULT_FLAG));
		DC_ASSERT_DTO(p.a.req_evd, 30, DAT_DTO_SUCCESS);
		DC_ASSERT(gathered_past_empty(p.mb.buf + 12000),
			  "segments of 5, 0 and 6 bytes did not land as the 5 and the 6 bytes in order");
		DC_ASSERT_BYTES_ARE(p.mb.buf + 12011, 64, CANARY, "remote memory after the 11 bytes");
	}
}

DC_CASE(dat_ep_post_rdma_write, completion_on_request_evd,
	.summary = "the RDMA Write completes on the request EVD with EP and cookie")
{
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;
	DAT_DTO_COMPLETION_EVENT_DATA d;

	rdma_pair(&p);
	rem = dc_rmr_iov(&p.mb, 0, 256);
	DC_ASSERT_SUCCESS(write1(&p, 0, 256, &rem, 0x1234567890ull));	/* the clause's own post */
	d = DC_ASSERT_DTO(p.a.req_evd, 0x1234567890ull, DAT_DTO_SUCCESS);
	DC_ASSERT_PTR_EQ(d.ep_handle, p.a.ep);
	DC_ASSERT_NO_EVENT(p.a.recv_evd);
	DC_ASSERT_NO_EVENT(p.b.recv_evd);
}

DC_CASE(dat_ep_post_rdma_write, unsignalled_needs_ep_flag,
	.summary = "the unsignalled flag is refused unless the EP selects unsignalled Requests")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	dc_fill(p.ma.buf + 0, 256, 1);
	iov = dc_iov(&p.ma, 0, 256);
	rem = dc_rmr_iov(&p.mb, 0, 256);
	DC_ASSERT_RET(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(1), &rem,
					     DAT_COMPLETION_UNSIGNALLED_FLAG),
		      DAT_INVALID_PARAMETER);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	ASSERT_REQUEST_IDLE(p.a.ep, DAT_TRUE);
	DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "remote memory");
}

static DAT_RETURN write_flagged(struct dc_pair *p, uint64_t cookie, DAT_COMPLETION_FLAGS fl)
{
	DAT_LMR_TRIPLET iov = dc_iov(&p->ma, 0, 256);
	DAT_RMR_TRIPLET rem = dc_rmr_iov(&p->mb, 1024, 256);

	return dat_ep_post_rdma_write(p->a.ep, 1, &iov, dc_cookie(cookie), &rem, fl);
}

DC_CASE(dat_ep_post_rdma_write, valid_states,
	.summary = "an RDMA Write works when Connected and is flushed when Disconnected, whatever "
		   "its completion flags and however the EP was disconnected")
{
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;

	for (int way = 0; way < DISC_WAYS; way++) {
		dc_note(t, "DISCONNECTED by %s", disc_way_name(way));
		rdma_pair(&p);
		dc_fill(p.ma.buf + 0, 256, 7);
		rem = dc_rmr_iov(&p.mb, 0, 256);
		DC_ASSERT_SUCCESS(write1(&p, 0, 256, &rem, 1));
		DC_ASSERT_DTO(p.a.req_evd, 1, DAT_DTO_SUCCESS);
		DC_ASSERT(dc_check_fill(p.mb.buf, 256, 7), "the data did not arrive");
		disconnect_pair_by(&p, way);
		dc_fill(p.ma.buf + 0, 256, 8);
		assert_flushed_each_flag(&p, write_flagged, 2);
		DC_ASSERT_BYTES_ARE(p.mb.buf + 1024, 256, CANARY, "the flushed Writes' target");
		pair_down(t, &p);
	}
	assert_unsignalled_flushed(write_flagged, false, 20);
}

static void write_refused_in_state(struct dc_ctx *t, struct subject *s, const void *arg)
{
	DAT_LMR_TRIPLET iov = dc_iov(&s->mem, 0, 64);
	DAT_RMR_TRIPLET rem = dc_rmr_iov(&s->mem, 4096, 64);

	(void)arg;
	adopt(s);
	ASSERT_POST_REFUSED(s, dat_ep_post_rdma_write(s->ep, 1, &iov, dc_cookie(61), &rem,
						      DAT_COMPLETION_DEFAULT_FLAG));
	ASSERT_STATE_KEPT(s);
	/* the set-up's own Send may complete here; only the refused post's
	 * completion is the clause's (dat_ep_post_rdma_write(3DAT) RETURN VALUES) */
	DC_ASSERT_NO_COMPLETION_OF(s->e.req_evd, 61);
}

#define WRITE_REFUSED(st)							\
	STATE_CASE(dat_ep_post_rdma_write, invalid_state_##st, st,		\
		   write_refused_in_state, NULL,				\
		   "dat_ep_post_rdma_write.invalid_state",			\
		   "an RDMA Write is refused in " #st)
WRITE_REFUSED(unconnected)
WRITE_REFUSED(reserved)
WRITE_REFUSED(passive_connection_pending)
WRITE_REFUSED(active_connection_pending)
WRITE_REFUSED(disconnect_pending)

DC_CASE(dat_ep_post_rdma_write, invalid_state_unconnected_after_reset,
	.clauses = "dat_ep_post_rdma_write.invalid_state",
	.summary = "an RDMA Write is refused in UNCONNECTED reached by a reset out of DISCONNECTED")
{
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	unconnected_by_reset(&p);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	DC_ASSERT_RET(write1(&p, 0, 64, &rem, 61), DAT_INVALID_STATE);
	ASSERT_STATE(p.a.ep, DAT_EP_STATE_UNCONNECTED);
	DC_ASSERT_NO_COMPLETION_OF(p.a.req_evd, 61);
	DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "remote memory");
}

DC_CASE(dat_ep_post_rdma_write, iov_outside_lmr,
	.summary = "a local segment reaching outside its LMR is an invalid parameter")
{
	struct dc_pair p;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	DC_ASSERT_RET(write1(&p, dc_off_past_end(&p.ma, 64), 64, &rem, 1), DAT_INVALID_PARAMETER);
	iov = dc_iov_longest(&p.ma);	/* 2^64 - 1 bytes: also past max_rdma_size */
	DC_ASSERT_RET_ANY(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(2), &rem,
						DAT_COMPLETION_DEFAULT_FLAG),
			  DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "remote memory");
}

DC_CASE(dat_ep_post_rdma_write, invalid_num_segments,
	.summary = "a negative local segment count is an invalid parameter")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };
	struct dc_pair p;

	rdma_pair(&p);
	expect_rdma_iov_refused(&p, false, -1, true, bad);
}

DC_CASE(dat_ep_post_rdma_write, null_local_iov,
	.summary = "local segments announced with no I/O vector should be an invalid parameter")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER };
	struct dc_pair p;

	rdma_pair(&p);
	expect_rdma_iov_refused(&p, false, 1, false, bad);
}

DC_CASE(dat_ep_post_rdma_write, invalid_flags,
	.summary = "completion flag bits no DAT_COMPLETION_* flag has should be an invalid parameter; "
		   "nothing is transferred")
{
	expect_rdma_undefined_flags_refused(false);
}

DC_CASE(dat_ep_post_rdma_write, remote_buffer_too_small,
	.summary = "one byte more local data than the remote segment holds is a length error; "
		   "exactly its size lands whole")
{
	static const DAT_RETURN sync[] = { DAT_LENGTH_ERROR };
	static const DAT_DTO_COMPLETION_STATUS async[] = {
		DAT_DTO_ERR_LOCAL_LENGTH, DAT_DTO_ERR_REMOTE_ACCESS,
	};
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	rem = dc_rmr_iov(&p.mb, 0, 100);
	/* at the boundary: local data of exactly the remote segment's size
	 * fits it (RETURN VALUES: the length error is for a receiving buffer
	 * smaller than the data), so all of it is written (DESCRIPTION) */
	dc_fill(p.ma.buf + 0, 100, 8);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(write1(&p, 0, 100, &rem, 1));
	DC_ASSERT_DTO(p.a.req_evd, 1, DAT_DTO_SUCCESS);
	DC_ASSERT(dc_check_fill(p.mb.buf, 100, 8), "the Write of exactly the remote segment's size "
		  "did not land whole");
	DC_ASSERT_BYTES_ARE(p.mb.buf + 100, SUBJ_MEM - 100, CANARY,
			    "remote memory beyond the 100-byte segment");
	memset(p.mb.buf, CANARY, 100);
	/* one byte more: the length error, at once or as the completion */
	dc_fill(p.ma.buf + 0, 101, 9);
	if (REFUSED_OR_FAILED(write1(&p, 0, 101, &rem, 2), sync, &p.a, 2, async))
		DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "remote memory");
	else
		DC_ASSERT_BYTES_ARE(p.mb.buf + 100, SUBJ_MEM - 100, CANARY,
				 "remote memory beyond the 100-byte segment");
}

DC_CASE(dat_ep_post_rdma_write, exceeds_max_rdma_size,
	.summary = "an RDMA Write longer than max_rdma_size is a length error and moves nothing; the limit dat_ep_modify set is the one used")
{
	static const DAT_RETURN sync[] = { DAT_LENGTH_ERROR, DAT_INVALID_PARAMETER };
	static const DAT_DTO_COMPLETION_STATUS async[] = { DAT_DTO_ERR_LOCAL_LENGTH };
	struct dc_pair p;
	DAT_RMR_TRIPLET rem;

	rdma_pair_at(t, __FILE__, __LINE__, &p, 4096);
	DC_SETUP_ASSERT(dc_ep_param(t, p.a.ep).ep_attr.max_rdma_size == 4096,
			"set-up: the EP did not take max_rdma_size 4096");
	dc_fill(p.ma.buf + 0, 4097, 10);
	/* exactly max_rdma_size is within the limit (dat_ep_modify(3DAT)
	 * Maximum RDMA Size): written whole */
	rem = dc_rmr_iov(&p.mb, 0, 4096);
	DC_ASSERT_SUCCESS_UNLESS_SHORT(write1(&p, 0, 4096, &rem, 2));
	DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
	DC_ASSERT(!memcmp(p.ma.buf, p.mb.buf, 4096), "the max_rdma_size Write landed wrong bytes");
	memset(p.mb.buf, CANARY, SUBJ_MEM);
	/* one byte more is never performed */
	rem = dc_rmr_iov(&p.mb, 0, 8192);
	REFUSED_OR_FAILED(write1(&p, 0, 4097, &rem, 1), sync, &p.a, 1, async);
	DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "remote memory");
	/* the pair of this part goes before the next part makes its own (few EVDs) */
	pair_down(t, &p);
	modified_rdma_size_used(t, false);
}

DC_CASE(dat_ep_post_rdma_write, exceeds_max_rdma_write_iov,
	.summary = "more local segments than max_rdma_write_iov is an invalid parameter")
{
	static const DAT_RETURN bad[] = { DAT_INVALID_PARAMETER, DAT_LENGTH_ERROR };
	struct dc_pair p;
	DAT_LMR_TRIPLET iov[IOV_TRY];
	DAT_RMR_TRIPLET rem;
	DAT_COUNT n;

	/* the EP's limit below the IA's, then at it: a provider checking
	 * the IA's limit instead of the EP's, or refusing the IA's own, shows */
	for (int below = 1; below >= 0; below--) {
		iov_pair(&p, SMALL_READ, below);	/* the Read limit 1, below the Write limit */
		n = dc_ep_param(t, p.a.ep).ep_attr.max_rdma_write_iov + 1;
		DC_SETUP_ASSERT(n <= IOV_TRY, "max_rdma_write_iov %d too large for this case", (int)n - 1);
		for (DAT_COUNT i = 0; i < n; i++)
			iov[i] = dc_iov(&p.ma, (DAT_VLEN)i * 16, 16);
		rem = dc_rmr_iov(&p.mb, 0, (DAT_VLEN)n * 16);
		dc_assert_ret_at(t, __FILE__, __LINE__, "dat_ep_post_rdma_write(max_rdma_write_iov + 1 segments)",
				 dat_ep_post_rdma_write(p.a.ep, n, iov, dc_cookie(1), &rem,
							DAT_COMPLETION_DEFAULT_FLAG),
				 DC_FAIL, 2, bad, DC_ANY_SUBTYPE);
		DC_ASSERT_NO_EVENT(p.a.req_evd);
		DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "remote memory");
		/* exactly max_rdma_write_iov segments is within the limit: gathered in order */
		dc_fill(p.ma.buf, (size_t)(n - 1) * 16, 0x67);
		rem = dc_rmr_iov(&p.mb, 0, (DAT_VLEN)(n - 1) * 16);
		DC_ASSERT_SUCCESS_UNLESS_SHORT(dat_ep_post_rdma_write(p.a.ep, n - 1, iov, dc_cookie(2), &rem,
								      DAT_COMPLETION_DEFAULT_FLAG));
		DC_ASSERT_DTO(p.a.req_evd, 2, DAT_DTO_SUCCESS);
		DC_ASSERT(!memcmp(p.ma.buf, p.mb.buf, (size_t)(n - 1) * 16),
			  "the max_rdma_write_iov Write gathered wrong bytes");
		pair_down(t, &p);
	}
}

DC_CASE(dat_ep_post_rdma_write, lmr_pz_mismatch,
	.summary = "a local segment of an LMR in another PZ is a protection violation")
{
	struct dc_pair p;
	struct dc_lmr other;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	dc_lmr(t, dc_pz(t), 4096, DC_PRIV_LOCAL, &other);
	iov = dc_iov(&other, 0, 64);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	DC_ASSERT_RET(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(1), &rem,
					     DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PROTECTION_VIOLATION);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "remote memory");
}

DC_CASE(dat_ep_post_rdma_write, lmr_no_local_read,
	.summary = "a local segment without local read privilege (each privilege set without it), "
		   "or naming no LMR, is a privileges violation")
{
	DAT_MEM_PRIV_FLAGS sets[16];
	int n = priv_sets_without(DAT_MEM_PRIV_LOCAL_READ_FLAG, sets);
	struct dc_pair p;
	struct dc_lmr wo, unknown;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	rem = dc_rmr_iov(&p.mb, 0, 64);
	for (int i = 0; i < n; i++) {	/* one bit at a time */
		if (!try_priv_lmr(t, p.a.pz, sets[i], &wo))
			continue;
		iov = dc_iov(&wo, 0, 64);
		DC_ASSERT_RET(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(10 + (uint64_t)i), &rem,
						     DAT_COMPLETION_DEFAULT_FLAG),
			      DAT_PRIVILEGES_VIOLATION);
	}
	dc_lmr(t, p.a.pz, 4096, DC_PRIV_LOCAL, &unknown);
	iov = dc_iov(&unknown, 0, 64);
	iov.lmr_context = dc_unissued_lmr_context(&unknown);
	DC_ASSERT_RET(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(2), &rem,
					     DAT_COMPLETION_DEFAULT_FLAG),
		      DAT_PRIVILEGES_VIOLATION);
	DC_ASSERT_NO_EVENT(p.a.req_evd);
	DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "remote memory");
}

DC_CASE(dat_ep_post_rdma_write, rmr_pz_mismatch,
	.summary = "writing through an rmr_context outside the remote EP's PZ fails and touches "
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
	 * (PARAMETERS, completion_flags): a Write that fails is reported */
	for (int i = 0; i < 2; i++) {
		dc_note(t, "completion_flags 0x%x", (unsigned)fl[i]);
		rdma_pair(&p);
		fpz = dc_pz(t);
		dc_lmr(t, fpz, 4096, DAT_MEM_PRIV_ALL_FLAG, &foreign);	/* not b's PZ */
		memset(foreign.buf, CANARY, 4096);
		dc_fill(p.ma.buf + 0, 64, 11);
		rem = dc_rmr_iov(&foreign, 0, 64);
		iov = dc_iov(&p.ma, 0, 64);
		REFUSED_OR_FAILED(dat_ep_post_rdma_write(p.a.ep, 1, &iov, dc_cookie(1), &rem, fl[i]),
				  remote_fault, &p.a, 1, remote_fault_cqe);
		DC_ASSERT_BYTES_ARE(foreign.buf, 4096, CANARY, "the foreign-PZ memory");
		DC_CLEANUP(dat_lmr_free(foreign.lmr));
		DC_CLEANUP(dat_pz_free(fpz));
		pair_down(t, &p);
	}
}

DC_CASE(dat_ep_post_rdma_write, rmr_no_remote_write,
	.summary = "writing through an rmr_context without remote write privilege fails and touches "
		   "nothing, for each privilege set without it and for a window bound without it")
{
	DAT_MEM_PRIV_FLAGS sets[16];
	int n = priv_sets_without(DAT_MEM_PRIV_REMOTE_WRITE_FLAG, sets);
	struct dc_pair p;
	struct dc_lmr ro;
	DAT_RMR_TRIPLET rem;
	DAT_RMR_CONTEXT ctx;

	/* one bit at a time: every set of the four privileges that lacks
	 * remote write (a fresh pair each: a remote fault may end the connection) */
	for (int i = 0; i < n; i++) {
		rdma_pair(&p);
		if (try_priv_lmr(t, p.b.pz, sets[i], &ro)) {
			memset(ro.buf, CANARY, 4096);
			dc_fill(p.ma.buf + 0, 64, 12);
			rem = dc_rmr_iov(&ro, 0, 64);
			REFUSED_OR_FAILED(write1(&p, 0, 64, &rem, 1), remote_fault, &p.a, 1,
					  remote_fault_cqe);
			DC_ASSERT_BYTES_ARE(ro.buf, 4096, CANARY,
					    "the remote memory without remote write");
			DC_CLEANUP(dat_lmr_free(ro.lmr));
		}
		pair_down(t, &p);
	}
	/* the privilege given by a bind: a window over memory that has remote
	 * write, bound with remote read only (an IA without RMRs is legal,
	 * dat_ia_query(3DAT) Max RMRs: then the LMR sets above are the case) */
	if (t->ia_attr.max_rmrs < 1) {
		dc_note(t, "max_rmrs is %d: no window to bind", (int)t->ia_attr.max_rmrs);
		return;
	}
	dc_note(t, "an RMR bound with DAT_MEM_PRIV_REMOTE_READ_FLAG only");
	rdma_pair(&p);
	ctx = bind_window(&p, 1024, 256, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	dc_fill(p.ma.buf + 0, 64, 13);
	rem = dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)(p.mb.buf + 1024), 64);
	REFUSED_OR_FAILED(write1(&p, 0, 64, &rem, 2), remote_fault, &p.a, 2,
			  remote_fault_cqe);
	DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "the remote LMR (window and around it)");
}

DC_CASE(dat_ep_post_rdma_write, outside_bound_rmr,
	.summary = "writing past the end of a bound RMR fails and leaves the remote memory untouched")
{
	struct dc_pair p;
	DAT_RMR_CONTEXT ctx;
	DAT_RMR_TRIPLET rem;

	rdma_pair(&p);
	ctx = bind_window(&p, 1024, 256, DAT_MEM_PRIV_REMOTE_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG);
	dc_fill(p.ma.buf + 0, 16, 13);
	/* 16 bytes whose last byte is the first one past the window. */
	rem = dc_rmr_triplet(ctx, (DAT_VADDR)(uintptr_t)(p.mb.buf + 1024 + 256 - 15), 16);
	REFUSED_OR_FAILED(write1(&p, 0, 16, &rem, 1), remote_fault, &p.a, 1,
			  remote_fault_cqe);
	DC_ASSERT_BYTES_ARE(p.mb.buf, SUBJ_MEM, CANARY, "the remote LMR (window and around it)");
}

DC_CASE(dat_ep_post_rdma_write, invalid_handle,
	.summary = "a handle of another type is an invalid handle")
{
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	dc_lmr(t, dc_pz(t), 4096, DAT_MEM_PRIV_ALL_FLAG, &m);
	iov = dc_iov(&m, 0, 64);
	rem = dc_rmr_iov(&m, 1024, 64);
	DC_ASSERT_INVALID_HANDLE(dat_ep_post_rdma_write((DAT_EP_HANDLE)dc_wrong_handle(t), 1, &iov, dc_cookie(1), &rem,
					     DAT_COMPLETION_DEFAULT_FLAG), 1, EP);
}

/* The same for a freed EP: a case of its own, so that a call that does not
 * survive the handle of a destroyed object (a registry that dispatches
 * through the handle) leaves the checks above judged. */
DC_CASE(dat_ep_post_rdma_write, invalid_handle_freed,
	.clauses = "dat_ep_post_rdma_write.invalid_handle",
	.summary = "a freed EP is an invalid handle")
{
	struct dc_lmr m;
	DAT_LMR_TRIPLET iov;
	DAT_RMR_TRIPLET rem;

	dc_lmr(t, dc_pz(t), 4096, DAT_MEM_PRIV_ALL_FLAG, &m);
	iov = dc_iov(&m, 0, 64);
	rem = dc_rmr_iov(&m, 1024, 64);
	DC_ASSERT_INVALID_HANDLE(dat_ep_post_rdma_write(dc_freed_ep(t), 1, &iov, dc_cookie(1), &rem,
					     DAT_COMPLETION_DEFAULT_FLAG), 1, EP);
}
