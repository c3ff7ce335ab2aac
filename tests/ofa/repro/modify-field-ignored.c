/* SPDX-License-Identifier: MIT */
/*
 * Finding modify-field-ignored (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_modify of max_rdma_size, max_rdma_read_in and max_rdma_read_out,
 * each alone on an unconnected EP of its own and each to another value
 * within the IA's limits, then dat_ep_query. dat_ep_modify(3DAT) DESCRIPTION: the Provider modifies
 * the parameters the mask requests, and these three may change in
 * Unconnected; RETURN VALUES: DAT_INVALID_PARAMETER for a parameter that is
 * not supported or cannot be modified. So a DAT_SUCCESS must leave the new
 * value in place.
 */
#include "repro.h"

static unsigned long value(const DAT_EP_ATTR *a, unsigned int i)
{
	return i == 0 ? a->max_rdma_size :
	       i == 1 ? (unsigned long)a->max_rdma_read_in : (unsigned long)a->max_rdma_read_out;
}

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static const struct {
		DAT_EP_PARAM_MASK mask;
		const char *name;
	} field[] = {
		{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, "max_rdma_size" },
		{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, "max_rdma_read_in" },
		{ DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, "max_rdma_read_out" },
	};
	char ignored[512] = "";
	unsigned int n = 0;
	struct repro_end s;
	DAT_EP_PARAM before, want, after;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR ia_attr;
	DAT_RETURN r = repro_end_param(ia, &s, &before);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making or querying the EP failed: %s", REPRO_RET(r));
	/* a smaller value, or 1 for a read limit at 0 if the IA allows it */
	want = before;
	want.ep_attr.max_rdma_size /= 2;
	want.ep_attr.max_rdma_read_in += before.ep_attr.max_rdma_read_in ? -1 : 1;
	want.ep_attr.max_rdma_read_out += before.ep_attr.max_rdma_read_out ? -1 : 1;
	if ((r = dat_ia_query(ia, &async, DAT_IA_FIELD_ALL, &ia_attr, 0, NULL)) != DAT_SUCCESS ||
	    !want.ep_attr.max_rdma_size ||
	    want.ep_attr.max_rdma_read_in > ia_attr.max_rdma_read_per_ep_in ||
	    want.ep_attr.max_rdma_read_out > ia_attr.max_rdma_read_per_ep_out)
		return repro_say(REPRO_CANNOT, "the EP's RDMA limits (%u, %d, %d) leave no other "
				 "value to ask for within the IA's (%s)",
				 (unsigned int)before.ep_attr.max_rdma_size,
				 before.ep_attr.max_rdma_read_in, before.ep_attr.max_rdma_read_out,
				 REPRO_RET(r));
	for (unsigned int i = 0; i < 3; i++) {
		/* an EP of its own for each: a second modify of one EP is another matter */
		if ((r = repro_end(ia, &s)) != DAT_SUCCESS)
			return repro_say(REPRO_CANNOT, "making an EP failed: %s", REPRO_RET(r));
		if ((r = dat_ep_modify(s.ep, field[i].mask, &want)) != DAT_SUCCESS)
			continue;	/* a refusal is the page's other answer */
		if ((r = dat_ep_query(s.ep, DAT_EP_FIELD_ALL, &after)) != DAT_SUCCESS)
			return repro_say(REPRO_CANNOT, "dat_ep_query after the modify returned %s",
					 REPRO_RET(r));
		if (value(&after.ep_attr, i) == value(&before.ep_attr, i))
			snprintf(ignored + strlen(ignored), sizeof(ignored) - strlen(ignored),
				 "%s%s asked %lu, still %lu", n++ ? "; " : "", field[i].name,
				 value(&want.ep_attr, i), value(&after.ep_attr, i));
	}
	if (n)
		return repro_say(REPRO_SHOWS, "dat_ep_modify returned DAT_SUCCESS on an unconnected "
				 "EP and left %u of 3 values unchanged: %s", n, ignored);
	return repro_say(REPRO_ABSENT, "each of the three modifies was applied or refused");
}

REPRO_MAIN(.finding = "modify-field-ignored", .body = body)
