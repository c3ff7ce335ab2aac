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

struct ref_profile {
	/* limits: reported in DAT_IA_ATTR / DAT_PROVIDER_ATTR and enforced */
	DAT_COUNT max_eps;
	DAT_COUNT max_evds;
	DAT_COUNT max_evd_qlen;
	DAT_COUNT max_pzs;
	DAT_COUNT max_lmrs;
	DAT_COUNT max_rmrs;		/* 0: no RMRs at all */
	DAT_COUNT max_cnos;
	DAT_COUNT max_srqs;
	DAT_COUNT max_dto_per_ep;
	DAT_COUNT max_recv_per_srq;
	DAT_COUNT max_ep_per_srq;
	DAT_COUNT max_iov;		/* per DTO, RDMA Read, RDMA Write, SRQ recv */
	DAT_COUNT max_rdma_read;	/* per EP, in and out */
	DAT_COUNT max_private_data;
	DAT_COUNT optimal_buffer_alignment;
	/* optional features */
	DAT_BOOLEAN srq_supported;
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
	const char *variant;		/* NULL: the reference provider itself */
};

/* Resolved before any entry point runs (a constructor in profile.c). */
extern struct ref_profile ref_profile;

/* For datref-variants: entry @i of the variant table; -1 past the end. */
int daplref_test_variant(int i, const char **id, const char **allowed_by,
			 const char **kind);

#endif
