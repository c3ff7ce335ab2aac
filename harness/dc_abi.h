/* SPDX-License-Identifier: MIT */
/*
 * dc_abi.h - the DAT calls whose parameter lists or types differ between
 * DAT 1.2 and DAT 2.0 (dat12-facts.md section 5), behind signatures that
 * are the same in both.  Cases make these calls only through this file, so
 * a DAT 2.0 build of the cases needs a second abi.c and nothing else:
 *
 *   triplets     DAT_LMR_TRIPLET / DAT_RMR_TRIPLET change layout and
 *                member names (target_address becomes virtual_address)
 *   LMR create   2.0 adds a DAT_VA_TYPE after the privileges
 *   RMR bind     2.0 adds the LMR handle and a DAT_VA_TYPE
 *   CR reject    2.0 adds private data
 *   EP masks     2.0 adds DAT_EP_FIELD_COMM and renumbers the others
 *
 * Included by datcts.h.
 */
#ifndef DC_ABI_H
#define DC_ABI_H

struct dc_lmr;

/*
 * True when an unsigned attribute is below its type's maximum, so that one
 * more is representable: the widths of the length attributes differ between
 * the ABIs (DAT 2.0 narrows several to DAT_SEG_LENGTH).
 */
#define DC_BELOW_TYPE_MAX(x) ((__typeof__(x))((x) + 1) > (x))

/*
 * Mask values that name no field, from the ABI's ..._FIELD_ALL (2.0
 * renumbers and adds fields, so a fixed number is valid in one ABI and not
 * the other): the first bit above all of them, and the lowest bit that no
 * field uses (a gap in a bit-per-field mask such as DAT_EP_FIELD_ALL).
 */
static inline uint64_t dc_mask_bit_above(uint64_t all)
{
	uint64_t bit = 1;

	while (bit && bit <= all)
		bit <<= 1;
	return bit;
}

static inline uint64_t dc_mask_unused_bit(uint64_t all)
{
	return ~all & (all + 1);
}

/* Segment descriptors from their parts. */
DAT_LMR_TRIPLET dc_lmr_triplet(DAT_LMR_CONTEXT ctx, DAT_VADDR addr, DAT_VLEN len);
DAT_RMR_TRIPLET dc_rmr_triplet(DAT_RMR_CONTEXT ctx, DAT_VADDR addr, DAT_VLEN len);
/* The parts back (the RMR member's name differs between the ABIs). */
DAT_VADDR dc_rmr_triplet_address(const DAT_RMR_TRIPLET *r);

/* Segment descriptors over a dc_lmr (offsets are into m->buf). */
DAT_LMR_TRIPLET dc_iov(const struct dc_lmr *m, DAT_VLEN off, DAT_VLEN len);
/*
 * Segments just outside the LMR's memory: what the provider registered
 * (registered_address and registered_size may cover more than was asked,
 * dat_lmr_create(3DAT)).  _past_end: len bytes whose last one is 1 past the
 * end (_off_past_end: its offset from m->buf); _before_start: starting
 * `before` bytes before the start.
 */
DAT_VLEN dc_off_past_end(const struct dc_lmr *m, DAT_VLEN len);
DAT_LMR_TRIPLET dc_iov_past_end(const struct dc_lmr *m, DAT_VLEN len);
DAT_LMR_TRIPLET dc_iov_before_start(const struct dc_lmr *m, DAT_VLEN before, DAT_VLEN len);
/* A segment from the start of m that is as long as a DAT_VLEN can say (2^64 - 1):
 * it reaches past any LMR, and its end overflows the address space. */
DAT_LMR_TRIPLET dc_iov_longest(const struct dc_lmr *m);
DAT_RMR_TRIPLET dc_rmr_iov(const struct dc_lmr *m, DAT_VLEN off, DAT_VLEN len);

/*
 * dat_lmr_create with the DAT 1.2 parameter list; the 2.0 build passes
 * DAT_VA_TYPE_VA.  Returns what the provider returned.
 */
DAT_RETURN dc_dat_lmr_create(DAT_IA_HANDLE ia, DAT_MEM_TYPE type,
			     DAT_REGION_DESCRIPTION region, DAT_VLEN len,
			     DAT_PZ_HANDLE pz, DAT_MEM_PRIV_FLAGS priv,
			     DAT_LMR_HANDLE *lmr, DAT_LMR_CONTEXT *lmr_context,
			     DAT_RMR_CONTEXT *rmr_context,
			     DAT_VLEN *registered_length,
			     DAT_VADDR *registered_address);

/*
 * Registers len bytes of Consumer memory at addr (DAT_MEM_TYPE_VIRTUAL)
 * and fills *out (buf, len and what dat_lmr_create returned).
 */
DAT_RETURN dc_lmr_register(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz, void *addr,
			   DAT_VLEN len, DAT_MEM_PRIV_FLAGS priv,
			   struct dc_lmr *out);

/*
 * dat_rmr_bind of the window iov of LMR lmr.  DAT 1.2 does not take the
 * LMR handle (it is found through iov's context); 2.0 does, so every
 * caller names it.  DAT_HANDLE_NULL is passed on as is.
 */
DAT_RETURN dc_dat_rmr_bind(DAT_RMR_HANDLE rmr, DAT_LMR_HANDLE lmr,
			   const DAT_LMR_TRIPLET *iov, DAT_MEM_PRIV_FLAGS priv,
			   DAT_EP_HANDLE ep, DAT_RMR_COOKIE cookie,
			   DAT_COMPLETION_FLAGS flags, DAT_RMR_CONTEXT *ctx);

/*
 * The CNO's wait-proxy agent in DAT_CNO_PARAM, and the dat_cno_query mask
 * that asks for it: agent / DAT_CNO_FIELD_AGENT in 1.2; in 2.0 the union
 * member proxy.agent / DAT_CNO_FIELD_PROXY (2.0 adds other proxy types).
 */
#ifdef DATCTS_DAT2
#define DC_CNO_PARAM_AGENT proxy.agent
#define DC_CNO_FIELD_AGENT DAT_CNO_FIELD_PROXY
#else
#define DC_CNO_PARAM_AGENT agent
#define DC_CNO_FIELD_AGENT DAT_CNO_FIELD_AGENT
#endif
DAT_OS_WAIT_PROXY_AGENT dc_cno_agent(const DAT_CNO_PARAM *p);

/*
 * Whether an ia_handle a query reported names IA ia.  DAT 1.2: it is ia.
 * DAT 2.0: libdat2 gives consumers registry handles (small integers) and
 * hands the provider's own IA handle to the provider, which reports that
 * one; both name the IA (libdat2 maps one to the other: dats_get_ia_handle).
 */
bool dc_ia_handle_names(DAT_IA_HANDLE reported, DAT_IA_HANDLE ia);
#define DC_ASSERT_IA_HANDLE(reported, ia)					\
	DC_ASSERT(dc_ia_handle_names((reported), (ia)),			\
		  "expected %s to name IA %s, got %p and %p", #reported, #ia,	\
		  (const void *)(reported), (const void *)(ia))

/*
 * The provider table behind a consumer's IA handle: in 1.2 the handle's
 * first word; in 2.0 that of the provider's own IA handle, which libdat2
 * keeps for the consumer's registry handle.
 */
DAT_PROVIDER *dc_ia_provider(DAT_IA_HANDLE ia);

/*
 * The IA handle the provider itself knows for a consumer's IA handle (what a
 * provider test hook taking an IA wants): in 1.2 the same; in 2.0 the one
 * libdat2 keeps for the registry handle.  DAT_HANDLE_NULL if none.
 */
DAT_IA_HANDLE dc_provider_ia_handle(DAT_IA_HANDLE ia);

/*
 * dat_cr_reject in its 2.0 form: 2.0 adds the private data sent back to the
 * requester (dat12-facts.md section 5); the 1.2 call has no such parameter
 * and sends none.  Callers that only need the request gone pass 0, NULL.
 */
DAT_RETURN dc_dat_cr_reject(DAT_CR_HANDLE cr, DAT_COUNT private_data_size,
			    const void *private_data);

/*
 * Every single-field mask of DAT_EP_PARAM, in member order (2.0 has one
 * more, DAT_EP_FIELD_COMM).  Returns the count; *masks points at them.
 */
int dc_ep_field_masks(const DAT_EP_PARAM_MASK **masks);

#endif /* DC_ABI_H */
