/* SPDX-License-Identifier: MIT */
/*
 * profile.h - the choices the man pages leave to a provider, as this
 * provider makes them: its limits, its optional features, the values it
 * reports.  dat_ia_query reports them and the entry points enforce them from
 * here, so a conforming variant (DATREF_VARIANT=<id>, profile.c) is a
 * different legal provider with the same code: one provider with settings.
 */
#ifndef REF_PROFILE_H
#define REF_PROFILE_H

#include "dat_abi.h"

#include <stdbool.h>

struct ref_profile {
	/* limits: reported in DAT_IA_ATTR / DAT_PROVIDER_ATTR and enforced */
	DAT_COUNT max_eps;
	DAT_COUNT max_evds;
	DAT_COUNT max_evd_qlen;
	DAT_COUNT max_pzs;
	DAT_COUNT max_lmrs;
	DAT_COUNT max_rmrs;		/* 0: no RMRs at all */
	/* Max LMRs and Max RMRs count "among all Providers and applications"
	 * (dat_ia_query(3DAT)): so many are in use elsewhere */
	DAT_COUNT lmrs_taken_elsewhere;
	DAT_COUNT rmrs_taken_elsewhere;
	DAT_COUNT max_cnos;
	DAT_COUNT max_srqs;
	DAT_COUNT max_dto_per_ep;
	DAT_COUNT max_recv_per_srq;
	DAT_COUNT max_ep_per_srq;
	DAT_COUNT max_iov;		/* per DTO, RDMA Read, RDMA Write, SRQ recv */
	DAT_COUNT max_rdma_read_iov;	/* 0: max_iov */
	DAT_COUNT max_rdma_write_iov;	/* 0: max_iov */
	DAT_COUNT max_rdma_read;	/* per EP, out (and in unless below) */
	DAT_COUNT max_rdma_read_in;	/* per EP, in; 0: max_rdma_read */
	DAT_COUNT max_private_data;
	DAT_COUNT optimal_buffer_alignment;
	/* optional features */
	DAT_BOOLEAN srq_supported;
	DAT_BOOLEAN srq_ep_pz_difference; /* an SRQ's EPs may use another PZ */
	DAT_COUNT srq_watermarks_supported;
	DAT_COUNT ep_recv_info_supported;
	DAT_EP_CREATOR_FOR_PSP ep_creator;
	DAT_QOS qos_supported;
	/* values */
	DAT_IOV_OWNERSHIP iov_ownership;
	const char *provider_name;
	DAT_UINT32 provider_version_major;
	DAT_UINT32 provider_version_minor;
	DAT_BOOLEAN lmr_sync_req;
	DAT_COUNT async_evd_min_qlen;	/* the async EVD open makes: at least this */
	DAT_COUNT evd_resize_granule;	/* a resized EVD's length: a multiple of it */
	DAT_BOOLEAN evd_resize_below_queued_ok; /* grows to what is queued instead */
	DAT_COUNT srq_depth_granule;	/* a new SRQ's depth: a multiple of it */
	DAT_BOOLEAN srq_shrink_part_way; /* a shrink goes half way (USAGE allows) */
	DAT_BOOLEAN lmr_page_registration; /* registers whole 4 KiB pages */
	DAT_CONN_QUAL any_qual_lo;	/* dat_psp_create_any: from here up; 0: the transport's */
	unsigned int transport_delay_us; /* what arrives is taken up this much later */
	unsigned int connect_delay_ms;	/* a connection set-up takes this much longer */
	DAT_BOOLEAN async_on_broken;	/* a broken connection is also an async EP event */
	DAT_BOOLEAN merge_no_dto_conn;	/* DTO and connection streams share no EVD,
					 * the async stream none with another */
	DAT_BOOLEAN query_masked_only;	/* the *_query calls write only masked fields */
	DAT_BOOLEAN dto_length_where_defined; /* transfered_length only for received
					 * successful completions */
	/* which listed error answers a call that meets two */
	DAT_BOOLEAN evd_resize_state_first; /* below the queued count before qlen < 1 */
	DAT_BOOLEAN null_evd_needs_no_dtos; /* NULL DTO EVD with a DTO queue: invalid */
	const char *variant;		/* NULL: the reference provider itself */
};

/* Resolved before any entry point runs (a constructor in profile.c). */
extern struct ref_profile ref_profile;

/* The EVD stream merging matrix (dat_ia_query(3DAT) "EVD stream merging
 * support"), rows and columns in the order of the DAT_EVD_FLAGS bits:
 * software, CR, DTO, connection, RMR bind, async. */
DAT_BOOLEAN ref_profile_merge(int i, int j);
/* Whether one EVD may carry every stream of flags, by that matrix. */
bool ref_profile_flags_merge(DAT_EVD_FLAGS flags);

/* query_masked_only: copy from a full answer `full` into the Consumer's
 * `out` only the fields whose bit is in mask. */
enum ref_query_kind { REF_Q_EP, REF_Q_EVD, REF_Q_SRQ, REF_Q_LMR };
void ref_profile_masked_copy(enum ref_query_kind k, void *out, const void *full,
			     DAT_UINT64 mask);
/* slow-connection-manager: dat_ep_connect and dat_ep_dup_connect sleep this
 * long before they take the lock. */
void ref_profile_connect_delay(void);

/* Whether the *_query calls answer through ref_profile_masked_copy (the
 * 1.2 build only: the 2.0 build's parameter structures differ). */
static inline bool ref_query_masked(void)
{
#ifdef REF_DAT2
	return false;
#else
	return ref_profile.query_masked_only;
#endif
}


/* For datref-variants: entry @i of the variant table; -1 past the end. */
int daplref_test_variant(int i, const char **id, const char **allowed_by,
			 const char **kind);

/* The per-EP maximum of incoming RDMA Reads (max_rdma_read unless the
 * profile gives one of its own). */
static inline DAT_COUNT ref_profile_max_rdma_read_in(void)
{
	return ref_profile.max_rdma_read_in > 0 ? ref_profile.max_rdma_read_in
					       : ref_profile.max_rdma_read;
}

#endif
