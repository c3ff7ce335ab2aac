/* SPDX-License-Identifier: MIT */
/*
 * Finding prov-attr-unfilled (docs/certification/ofa-dapl-2.1.10/):
 * dat_ia_query with DAT_PROVIDER_FIELD_ALL, twice, into attribute structures
 * pre-set to two different patterns: a member that differs between the two
 * answers was never written. dat_ia_query(3DAT) DESCRIPTION: the Provider
 * fills the Consumer's structures with the attributes the masks request.
 */
#include "repro.h"

#include <stddef.h>

#define MEMBER(m) { #m, offsetof(DAT_PROVIDER_ATTR, m), sizeof(((DAT_PROVIDER_ATTR *)0)->m) }

/* The scalar Provider attributes of DAT 1.2 (the 2.0-only ones are not judged). */
static const struct {
	const char *name;
	size_t off, size;
} members[] = {
	MEMBER(provider_version_major), MEMBER(provider_version_minor),
	MEMBER(dapl_version_major), MEMBER(dapl_version_minor), MEMBER(lmr_mem_types_supported),
	MEMBER(iov_ownership_on_return), MEMBER(dat_qos_supported),
	MEMBER(completion_flags_supported), MEMBER(is_thread_safe), MEMBER(max_private_data_size),
	MEMBER(supports_multipath), MEMBER(ep_creator), MEMBER(pz_support),
	MEMBER(optimal_buffer_alignment), MEMBER(evd_stream_merging_supported),
	MEMBER(srq_supported), MEMBER(srq_watermarks_supported),
	MEMBER(srq_ep_pz_difference_supported), MEMBER(srq_info_supported),
	MEMBER(ep_recv_info_supported), MEMBER(lmr_sync_req), MEMBER(dto_async_return_guaranteed),
	MEMBER(rdma_write_for_rdma_read_req), MEMBER(num_provider_specific_attr),
};

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	static DAT_PROVIDER_ATTR a, b;
	char unwritten[512] = "";
	DAT_EVD_HANDLE async;
	DAT_RETURN r;

	memset(&a, 0x5a, sizeof(a));
	memset(&b, 0xa5, sizeof(b));
	if ((r = dat_ia_query(ia, &async, 0, NULL, DAT_PROVIDER_FIELD_ALL, &a)) != DAT_SUCCESS ||
	    (r = dat_ia_query(ia, &async, 0, NULL, DAT_PROVIDER_FIELD_ALL, &b)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "dat_ia_query returned %s", REPRO_RET(r));
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
		if (memcmp((char *)&a + members[i].off, (char *)&b + members[i].off,
			   members[i].size))
			snprintf(unwritten + strlen(unwritten), sizeof(unwritten) - strlen(unwritten),
				 "%s%s", unwritten[0] ? ", " : "", members[i].name);
	if (unwritten[0])
		return repro_say(REPRO_SHOWS, "dat_ia_query(DAT_PROVIDER_FIELD_ALL) left the "
				 "Consumer's memory as it was in: %s", unwritten);
	return repro_say(REPRO_ABSENT, "every Provider attribute was written");
}

REPRO_MAIN(.finding = "prov-attr-unfilled", .body = body)
