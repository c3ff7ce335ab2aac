// SPDX-License-Identifier: MIT
/*
 * profile.c - the provider's profile (profile.h) and its conforming
 * variants.
 *
 * Usage: DATREF_VARIANT=<id> in the environment of the process that loads
 * the provider.  A variant is a different *legal* provider: each changes
 * only what the pages leave to the provider, reports it in dat_ia_query and
 * enforces it, and cites the text that allows the choice.  `datcts variants`
 * runs the suite on each: none may be judged NOT CONFORMANT
 * (docs/mutants.md, "Conforming variants").  Mutants (tests/mutants/hand) are the
 * opposite: illegal providers the suite must fail.
 */
#include "ref.h"
#include "conn.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef REF_MAX_EPS
#define REF_PROFILE_MAX_EPS REF_MAX_EPS
#else
#define REF_PROFILE_MAX_EPS REF_DEFAULT_MAX_EPS
#endif
#ifdef REF_MAX_SRQS
#define REF_PROFILE_MAX_SRQS REF_MAX_SRQS
#else
#define REF_PROFILE_MAX_SRQS REF_DEFAULT_MAX_SRQS
#endif

struct ref_profile ref_profile = {
	.max_eps = REF_PROFILE_MAX_EPS,
	.max_evds = REF_MAX_EVDS,
	.max_evd_qlen = REF_MAX_EVD_QLEN,
	.max_pzs = REF_MAX_PZS,
	.max_lmrs = REF_MAX_LMRS,
	.max_rmrs = REF_MAX_RMRS,
	.max_cnos = REF_MAX_CNOS,
	.max_srqs = REF_PROFILE_MAX_SRQS,
	.max_dto_per_ep = REF_MAX_DTOS,
	.max_recv_per_srq = REF_MAX_DTOS,
	.max_ep_per_srq = REF_MAX_EP_PER_SRQ,
	.max_iov = REF_MAX_IOV,
	.max_rdma_read = REF_MAX_RDMA_READ,
	.max_private_data = REF_MAX_PRIVATE_DATA,
	.optimal_buffer_alignment = 64,
	.srq_supported = DAT_TRUE,
	.srq_ep_pz_difference = DAT_TRUE,
	.srq_watermarks_supported = 1,
	.ep_recv_info_supported = 1,
	.ep_creator = DAT_PSP_CREATES_EP_IFASKED,
	.qos_supported = REF_QOS_ALL,
	.iov_ownership = DAT_IOV_CONSUMER,
	.provider_name = "datcts reference provider",
	.provider_version_major = 1,
	.provider_version_minor = 2,
	.lmr_sync_req = DAT_FALSE,
	.async_evd_min_qlen = 0,
	.evd_resize_granule = 1,
	.srq_depth_granule = 1,
	.variant = NULL,
};

struct ref_variant {
	const char *id;
	const char *kind;	/* limit, feature, value */
	const char *allowed_by;	/* page(3DAT) SECTION: what leaves the choice open */
	void (*apply)(struct ref_profile *p);
};

#define VARIANT(id_, ...)						\
	static void variant_##id_(struct ref_profile *p) { __VA_ARGS__; }
#define ENTRY(id_, name_, kind_, allowed_)				\
	{ name_, kind_, allowed_, variant_##id_ }

/* ---- small but legal limits (dat_ia_query(3DAT) DESCRIPTION) ---- */
VARIANT(few_eps, p->max_eps = 8)
VARIANT(few_evds, p->max_evds = 12)
VARIANT(short_evd_queues, p->max_evd_qlen = 64)
VARIANT(few_pzs, p->max_pzs = 4)
VARIANT(few_lmrs, p->max_lmrs = 16)
VARIANT(few_rmrs, p->max_rmrs = 4)
VARIANT(lmrs_used_elsewhere, p->max_lmrs = 64; p->lmrs_taken_elsewhere = 1)
VARIANT(rmrs_used_elsewhere, p->max_rmrs = 64; p->rmrs_taken_elsewhere = 1)
VARIANT(few_cnos, p->max_cnos = 4)
VARIANT(few_srqs, p->max_srqs = 2)
VARIANT(short_dto_queues, p->max_dto_per_ep = 16; p->max_recv_per_srq = 16)
VARIANT(few_eps_per_srq, p->max_ep_per_srq = 2)
VARIANT(one_iov_segment, p->max_iov = 1)
VARIANT(two_iov_segments, p->max_iov = 2)
VARIANT(one_rdma_read, p->max_rdma_read = 1)
VARIANT(fewer_rdma_reads_in, p->max_rdma_read_in = 2)
VARIANT(minimal_private_data, p->max_private_data = 64)
/* ---- optional features absent ---- */
VARIANT(no_rmr, p->max_rmrs = 0)
VARIANT(no_srq, p->srq_supported = DAT_FALSE; p->max_srqs = 0;
	p->srq_ep_pz_difference = DAT_FALSE;
	p->max_ep_per_srq = 0; p->max_recv_per_srq = 0;
	p->srq_watermarks_supported = 0)
VARIANT(no_srq_watermarks, p->srq_watermarks_supported = 0)
VARIANT(srq_ep_same_pz, p->srq_ep_pz_difference = DAT_FALSE)
VARIANT(no_ep_recv_info, p->ep_recv_info_supported = 0)
VARIANT(psp_never_creates_ep, p->ep_creator = DAT_PSP_CREATES_EP_NEVER)
VARIANT(best_effort_qos_only, p->qos_supported = DAT_QOS_BEST_EFFORT)
/* ---- values ---- */
VARIANT(iov_provider_nomod, p->iov_ownership = DAT_IOV_PROVIDER_NOMOD)
VARIANT(iov_provider_mod, p->iov_ownership = DAT_IOV_PROVIDER_MOD)
VARIANT(other_name_and_version,
	p->provider_name = "Other Vendor uDAPL"; p->provider_version_major = 7;
	p->provider_version_minor = 31)
VARIANT(alignment_256, p->optimal_buffer_alignment = 256)
VARIANT(lmr_sync_required, p->lmr_sync_req = DAT_TRUE)
VARIANT(alignment_8, p->optimal_buffer_alignment = 8)
VARIANT(alignment_128, p->optimal_buffer_alignment = 128)
VARIANT(one_rdma_read_segment, p->max_rdma_read_iov = 1)
VARIANT(one_rdma_write_segment, p->max_rdma_write_iov = 1)
VARIANT(large_async_evd, p->async_evd_min_qlen = 256)
VARIANT(evd_resize_rounds_up, p->evd_resize_granule = 16)
VARIANT(evd_resize_keeps_queued, p->evd_resize_below_queued_ok = DAT_TRUE)
VARIANT(srq_depth_rounds_up, p->srq_depth_granule = 16)
VARIANT(srq_shrinks_part_way, p->srq_shrink_part_way = DAT_TRUE)
VARIANT(lmr_whole_pages, p->lmr_page_registration = DAT_TRUE)
VARIANT(psp_any_from_40000, p->any_qual_lo = 40000)
/* ---- timing: events and completions later, within any stated bound ---- */
VARIANT(slow_transport, p->transport_delay_us = 3000)
VARIANT(slow_connection_manager, p->connect_delay_ms = 60)
/* ---- events the pages allow beside the ones they require ---- */
VARIANT(async_on_broken, p->async_on_broken = DAT_TRUE)
/* ---- capabilities given in part ---- */
VARIANT(partial_merge_matrix, p->merge_no_dto_conn = DAT_TRUE)
/* ---- fields written only where the pages define them ---- */
VARIANT(query_masked_only, p->query_masked_only = DAT_TRUE)
VARIANT(dto_length_where_defined, p->dto_length_where_defined = DAT_TRUE)
/* ---- error precedence: two listed errors at once, answered the other way ---- */
VARIANT(evd_resize_state_first, p->evd_resize_state_first = DAT_TRUE)
VARIANT(null_evd_needs_no_dtos, p->null_evd_needs_no_dtos = DAT_TRUE)

static const struct ref_variant variants[] = {
	ENTRY(few_eps, "few-eps", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max EPs: the IA's own maximum, no floor given; dat_ep_create(3DAT) RETURN VALUES: DAT_INSUFFICIENT_RESOURCES beyond it"),
	ENTRY(few_evds, "few-evds", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max EVDs: the IA's own maximum, no floor given"),
	ENTRY(short_evd_queues, "short-evd-queues", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max EVD queue size: the IA's own maximum; dat_evd_resize(3DAT) RETURN VALUES: a longer queue is refused"),
	ENTRY(few_pzs, "few-pzs", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max PZs: the IA's own maximum; dat_pz_create(3DAT) RETURN VALUES: DAT_INSUFFICIENT_RESOURCES beyond it"),
	ENTRY(few_lmrs, "few-lmrs", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max LMRs: the IA's own maximum; dat_lmr_create(3DAT) RETURN VALUES: DAT_INSUFFICIENT_RESOURCES beyond it"),
	ENTRY(few_rmrs, "few-rmrs", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max RMRs: the IA's own maximum"),
	ENTRY(lmrs_used_elsewhere, "lmrs-used-elsewhere", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max LMRs: counted among all Providers and applications of the IA, so fewer may be left for one Consumer (was the mutant lmr-create-limit-off-by-one)"),
	ENTRY(rmrs_used_elsewhere, "rmrs-used-elsewhere", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max RMRs: counted among all Providers and applications of the IA, so fewer may be left for one Consumer (was the mutant rmr-create-limit-off-by-one)"),
	ENTRY(few_cnos, "few-cnos", "limit",
	      "dat_cno_create(3DAT) RETURN VALUES: DAT_INSUFFICIENT_RESOURCES; no CNO count is promised"),
	ENTRY(few_srqs, "few-srqs", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max SRQs: the IA's own maximum; dat_srq_create(3DAT) RETURN VALUES: DAT_INSUFFICIENT_RESOURCES beyond it"),
	ENTRY(short_dto_queues, "short-dto-queues", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max DTOs per EP and Max receives per SRQ: the IA's own maxima"),
	ENTRY(few_eps_per_srq, "few-eps-per-srq", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max EPs per SRQ: the IA's own maximum; dat_ep_create_with_srq(3DAT) RETURN VALUES: DAT_INSUFFICIENT_RESOURCES beyond it"),
	ENTRY(one_iov_segment, "one-iov-segment", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max IOV segments per DTO (and per RDMA Read/Write): implicit in the transport's objects"),
	ENTRY(two_iov_segments, "two-iov-segments", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max IOV segments per DTO: implicit in the transport's objects; dat_ep_post_send(3DAT), dat_ep_post_recv(3DAT) RETURN VALUES: more segments than the EP allows is DAT_INVALID_PARAMETER"),
	ENTRY(one_rdma_read, "one-rdma-read", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max incoming/outgoing RDMA Reads per EP: the IA's own maxima"),
	ENTRY(fewer_rdma_reads_in, "fewer-rdma-reads-in", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max incoming and Max outgoing RDMA Reads per EP: two maxima of the IA's own, not one; here 2 in, the default out (issue 54: asymmetric values, so that a check of one against the other shows)"),
	ENTRY(minimal_private_data, "minimal-private-data", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max private data size: at least 64 bytes, so 64 is legal; dat_ep_connect(3DAT), dat_cr_accept(3DAT) RETURN VALUES: more is DAT_INVALID_PARAMETER"),
	ENTRY(no_rmr, "no-rmr", "feature",
	      "dat_ia_query(3DAT) DESCRIPTION, Max RMRs (no floor); dat_rmr_create(3DAT) RETURN VALUES: DAT_INSUFFICIENT_RESOURCES"),
	ENTRY(no_srq, "no-srq", "feature",
	      "dat_ia_query(3DAT) DESCRIPTION, SRQ supported; dat_srq_create(3DAT), dat_ep_create_with_srq(3DAT) RETURN VALUES: DAT_MODEL_NOT_SUPPORTED"),
	ENTRY(no_srq_watermarks, "no-srq-watermarks", "feature",
	      "dat_ia_query(3DAT) DESCRIPTION, SRQ watermarks supported; dat_srq_set_lw(3DAT), dat_ep_set_watermark(3DAT) RETURN VALUES: DAT_MODEL_NOT_SUPPORTED"),
	ENTRY(srq_ep_same_pz, "srq-ep-same-pz", "feature",
	      "dat_ia_query(3DAT) DESCRIPTION, SRQ EP PZ difference supported; dat_srq_create(3DAT) USAGE, dat_ep_create_with_srq(3DAT) DESCRIPTION: a provider may require the EPs of an SRQ to use the SRQ's PZ (as verbs does), and refuses another PZ as an invalid parameter"),
	ENTRY(no_ep_recv_info, "no-ep-recv-info", "feature",
	      "dat_ia_query(3DAT) DESCRIPTION, EP receive info supported; dat_ep_recv_query(3DAT) RETURN VALUES: DAT_MODEL_NOT_SUPPORTED"),
	ENTRY(psp_never_creates_ep, "psp-never-creates-ep", "feature",
	      "dat_ia_query(3DAT) DESCRIPTION, EP creator for PSP; dat_psp_create(3DAT) DESCRIPTION: a request the provider cannot satisfy fails with DAT_MODEL_NOT_SUPPORTED"),
	ENTRY(best_effort_qos_only, "best-effort-qos-only", "feature",
	      "dat_ia_query(3DAT) DESCRIPTION, QOS supported: the union the provider supports; dat_ep_create(3DAT) RETURN VALUES: DAT_MODEL_NOT_SUPPORTED"),
	ENTRY(iov_provider_nomod, "iov-provider-nomod", "value",
	      "dat_ia_query(3DAT) DESCRIPTION, IOV ownership: DAT_IOV_PROVIDER_NOMOD is one of the three values"),
	ENTRY(iov_provider_mod, "iov-provider-mod", "value",
	      "dat_ia_query(3DAT) DESCRIPTION, IOV ownership: DAT_IOV_PROVIDER_MOD is one of the three values"),
	ENTRY(other_name_and_version, "other-name-and-version", "value",
	      "dat_ia_query(3DAT) DESCRIPTION, Provider name and version: the provider's own"),
	ENTRY(alignment_256, "alignment-256", "value",
	      "dat_ia_query(3DAT) DESCRIPTION, Optimal Buffer Alignment: at most 256 and a divisor of DAT_OPTIMAL_ALIGNMENT"),
	ENTRY(lmr_sync_required, "lmr-sync-required", "value",
	      "dat_ia_query(3DAT) DESCRIPTION, LMR sync required; dat_lmr_sync_rdma_read(3DAT), dat_lmr_sync_rdma_write(3DAT) DESCRIPTION"),
	ENTRY(alignment_8, "alignment-8", "value",
	      "dat_ia_query(3DAT) DESCRIPTION, Optimal Buffer Alignment: any divisor of DAT_OPTIMAL_ALIGNMENT"),
	ENTRY(alignment_128, "alignment-128", "value",
	      "dat_ia_query(3DAT) DESCRIPTION, Optimal Buffer Alignment: any divisor of DAT_OPTIMAL_ALIGNMENT"),
	ENTRY(one_rdma_read_segment, "one-rdma-read-segment", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max IOV segments per RDMA Read; dat_ep_post_rdma_read(3DAT) RETURN VALUES: more segments than allowed is DAT_INVALID_PARAMETER"),
	ENTRY(one_rdma_write_segment, "one-rdma-write-segment", "limit",
	      "dat_ia_query(3DAT) DESCRIPTION, Max IOV segments per RDMA Write; dat_ep_post_rdma_write(3DAT) RETURN VALUES: more segments than allowed is DAT_INVALID_PARAMETER"),
	ENTRY(large_async_evd, "large-async-evd", "value",
	      "dat_ia_open(3DAT) DESCRIPTION: the async EVD holds at least async_evd_min_qlen, and may hold more"),
	ENTRY(evd_resize_rounds_up, "evd-resize-rounds-up", "value",
	      "dat_evd_resize(3DAT) PARAMETERS: evd_min_qlen is what the queue must hold at least; dat_evd_query(3DAT) reports the length it has"),
	ENTRY(evd_resize_keeps_queued, "evd-resize-keeps-queued", "value",
	      "dat_evd_resize(3DAT) DESCRIPTION: below the queued count the call can (not must) return DAT_INVALID_STATE; here it succeeds holding every queued event"),
	ENTRY(srq_depth_rounds_up, "srq-depth-rounds-up", "value",
	      "dat_srq_create(3DAT) DESCRIPTION: the SRQ holds at least max_recv_dtos, and may hold more; dat_srq_query(3DAT) reports the depth it has"),
	ENTRY(srq_shrinks_part_way, "srq-shrinks-part-way", "value",
	      "dat_srq_resize(3DAT) USAGE: a shrink may stop between the request and the current size"),
	ENTRY(lmr_whole_pages, "lmr-whole-pages", "value",
	      "dat_lmr_create(3DAT) PARAMETERS and DESCRIPTION: registered_address and registered_size are what the provider actually registered; dat_lmr_query(3DAT) reports the same"),
	ENTRY(psp_any_from_40000, "psp-any-from-40000", "value",
	      "dat_psp_create_any(3DAT) DESCRIPTION: any unused Connection Qualifier; here the lowest free one from 40000 up"),
	ENTRY(slow_transport, "slow-transport", "timing",
	      "dat_evd_wait(3DAT), dat_evd_dequeue(3DAT), dat_ep_connect(3DAT) DESCRIPTION: completions and connection events arrive asynchronously, with no bound on when; here every arrival is taken up 3 ms late"),
	ENTRY(slow_connection_manager, "slow-connection-manager", "timing",
	      "dat_ep_connect(3DAT), dat_ep_dup_connect(3DAT) DESCRIPTION: the connection is established asynchronously and no time is promised for it (only the Consumer's timeout bounds it); here each dat_ep_connect and dat_ep_dup_connect takes 60 ms longer"),
	ENTRY(async_on_broken, "async-on-broken", "event",
	      "dat_ia_open(3DAT) DESCRIPTION: every asynchronous notification of the IA goes to its async EVD, and no page lists which there are or forbids one; dat_ep_set_watermark(3DAT) DESCRIPTION: a broken connection is the connection broken event on the EP's connect EVD, which still comes; here a broken connection is also reported as DAT_ASYNC_ERROR_EP_BROKEN (reason DAT_EP_OTHER_ERROR) for the EP, as providers on verbs do for a QP error"),
	ENTRY(partial_merge_matrix, "partial-merge-matrix", "feature",
	      "dat_ia_query(3DAT) DESCRIPTION, EVD stream merging support: each entry says whether two streams may feed one EVD; merging all is a should, not a shall, and the Consumer should check the matrix before asking for a merged EVD; here, as OFA's dapl reports by default (rows in DAT_EVD_FLAGS bit order), the DTO and connection streams share no EVD and the async stream shares one with no other stream, and dat_evd_create refuses those combinations with DAT_INVALID_PARAMETER"),
	ENTRY(query_masked_only, "query-masked-only", "value",
	      "dat_ep_query(3DAT), dat_evd_query(3DAT), dat_srq_query(3DAT), dat_lmr_query(3DAT) PARAMETERS: the mask says which fields the Consumer asks for; the provider may fill more, here it fills only those (1.2 build)"),
	ENTRY(dto_length_where_defined, "dto-length-where-defined", "value",
	      "dat_ep_post_recv(3DAT), dat_srq_post_recv(3DAT) DESCRIPTION: transfered_length is what a Receive took, and is not defined when the status is not DAT_DTO_SUCCESS; dat_ep_post_send(3DAT), dat_ep_post_rdma_write(3DAT), dat_ep_post_rdma_read(3DAT) define no transfered_length; here every completion but a successful Receive's carries a meaningless one"),
	ENTRY(evd_resize_state_first, "evd-resize-state-first", "precedence",
	      "dat_evd_resize(3DAT) RETURN VALUES: DAT_INVALID_PARAMETER and DAT_INVALID_STATE both apply to a length below 1 and below the queued count; the page does not order them"),
	ENTRY(null_evd_needs_no_dtos, "null-evd-needs-no-dtos", "precedence",
	      "dat_ep_create(3DAT) RETURN VALUES: DAT_INVALID_PARAMETER for a combination of parameters; a NULL DTO EVD with a non-empty DTO queue is one"),
	{ NULL, NULL, NULL, NULL },
};

/* A connection set-up that takes longer (slow-connection-manager). */
void ref_profile_connect_delay(void)
{
	if (ref_profile.connect_delay_ms)
		usleep(ref_profile.connect_delay_ms * 1000u);
}

/* ---- the stream merging matrix ---- */

DAT_BOOLEAN ref_profile_merge(int i, int j)
{
	enum { SW, CR, DTO, CONN, BIND, ASYNC };

	if (!ref_profile.merge_no_dto_conn || i == j)
		return DAT_TRUE;
	if (i == ASYNC || j == ASYNC)
		return DAT_FALSE;
	if ((i == DTO && j == CONN) || (i == CONN && j == DTO))
		return DAT_FALSE;
	return DAT_TRUE;
}

bool ref_profile_flags_merge(DAT_EVD_FLAGS flags)
{
	static const DAT_EVD_FLAGS bit[6] = {
		DAT_EVD_SOFTWARE_FLAG, DAT_EVD_CR_FLAG, DAT_EVD_DTO_FLAG,
		DAT_EVD_CONNECTION_FLAG, DAT_EVD_RMR_BIND_FLAG, DAT_EVD_ASYNC_FLAG,
	};

	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++)
			if ((flags & bit[i]) && (flags & bit[j]) && !ref_profile_merge(i, j))
				return false;
	return true;
}

/* ---- queries that write only the masked fields ---- */

struct masked_field {
	DAT_UINT64 bit;
	size_t off, size;
};

#define MF(T, bit_, f) { (DAT_UINT64)(bit_), offsetof(T, f), sizeof(((T *)0)->f) }

#ifndef REF_DAT2
static const struct masked_field ep_fields[] = {
	MF(DAT_EP_PARAM, DAT_EP_FIELD_IA_HANDLE, ia_handle),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_STATE, ep_state),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR, local_ia_address_ptr),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_LOCAL_PORT_QUAL, local_port_qual),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR, remote_ia_address_ptr),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_REMOTE_PORT_QUAL, remote_port_qual),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_PZ_HANDLE, pz_handle),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_RECV_EVD_HANDLE, recv_evd_handle),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_REQUEST_EVD_HANDLE, request_evd_handle),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_CONNECT_EVD_HANDLE, connect_evd_handle),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_SRQ_HANDLE, srq_handle),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, ep_attr.service_type),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, ep_attr.max_message_size),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE, ep_attr.max_rdma_size),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_QOS, ep_attr.qos),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, ep_attr.recv_completion_flags),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
	   ep_attr.request_completion_flags),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, ep_attr.max_recv_dtos),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, ep_attr.max_request_dtos),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, ep_attr.max_recv_iov),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, ep_attr.max_request_iov),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN, ep_attr.max_rdma_read_in),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT, ep_attr.max_rdma_read_out),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW, ep_attr.srq_soft_hw),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV, ep_attr.max_rdma_read_iov),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, ep_attr.max_rdma_write_iov),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR,
	   ep_attr.ep_transport_specific_count),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR, ep_attr.ep_transport_specific),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR, ep_attr.ep_provider_specific_count),
	MF(DAT_EP_PARAM, DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR, ep_attr.ep_provider_specific),
	{ 0, 0, 0 },
};

static const struct masked_field evd_fields[] = {
	MF(DAT_EVD_PARAM, DAT_EVD_FIELD_IA_HANDLE, ia_handle),
	MF(DAT_EVD_PARAM, DAT_EVD_FIELD_EVD_QLEN, evd_qlen),
	MF(DAT_EVD_PARAM, DAT_EVD_FIELD_EVD_STATE, evd_state),
	MF(DAT_EVD_PARAM, DAT_EVD_FIELD_CNO, cno_handle),
	MF(DAT_EVD_PARAM, DAT_EVD_FIELD_EVD_FLAGS, evd_flags),
	{ 0, 0, 0 },
};

static const struct masked_field srq_fields[] = {
	MF(DAT_SRQ_PARAM, DAT_SRQ_FIELD_IA_HANDLE, ia_handle),
	MF(DAT_SRQ_PARAM, DAT_SRQ_FIELD_SRQ_STATE, srq_state),
	MF(DAT_SRQ_PARAM, DAT_SRQ_FIELD_PZ_HANDLE, pz_handle),
	MF(DAT_SRQ_PARAM, DAT_SRQ_FIELD_MAX_RECV_DTO, max_recv_dtos),
	MF(DAT_SRQ_PARAM, DAT_SRQ_FIELD_MAX_RECV_IOV, max_recv_iov),
	MF(DAT_SRQ_PARAM, DAT_SRQ_FIELD_LOW_WATERMARK, low_watermark),
	MF(DAT_SRQ_PARAM, DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT, available_dto_count),
	MF(DAT_SRQ_PARAM, DAT_SRQ_FIELD_OUTSTANDING_DTO_COUNT, outstanding_dto_count),
	{ 0, 0, 0 },
};

static const struct masked_field lmr_fields[] = {
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_IA_HANDLE, ia_handle),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_MEM_TYPE, mem_type),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_REGION_DESC, region_desc),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_LENGTH, length),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_PZ_HANDLE, pz_handle),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_MEM_PRIV, mem_priv),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_LMR_CONTEXT, lmr_context),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_RMR_CONTEXT, rmr_context),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_REGISTERED_SIZE, registered_size),
	MF(DAT_LMR_PARAM, DAT_LMR_FIELD_REGISTERED_ADDRESS, registered_address),
	{ 0, 0, 0 },
};

static const struct masked_field *const masked[] = {
	[REF_Q_EP] = ep_fields,
	[REF_Q_EVD] = evd_fields,
	[REF_Q_SRQ] = srq_fields,
	[REF_Q_LMR] = lmr_fields,
};
#endif

void ref_profile_masked_copy(enum ref_query_kind k, void *out, const void *full,
			     DAT_UINT64 mask)
{
#ifndef REF_DAT2
	for (const struct masked_field *f = masked[k]; f->bit; f++)
		if (mask & f->bit)
			memcpy((char *)out + f->off, (const char *)full + f->off, f->size);
#else
	/* never called: ref_query_masked() is false in the 2.0 build */
	(void)k; (void)out; (void)full; (void)mask;
#endif
}

/* Before any entry point can run, so readers need no once-check. */
__attribute__((constructor)) static void profile_init(void)
{
	const char *env = getenv("DATREF_VARIANT");
	const struct ref_variant *v;

	if (!env || !*env)
		return;
	for (v = variants; v->id; v++) {
		if (!strcmp(v->id, env)) {
			v->apply(&ref_profile);
			ref_profile.variant = v->id;
			return;
		}
	}
	fprintf(stderr, "libdaplref: DATREF_VARIANT: unknown variant \"%s\" ignored\n", env);
}

__attribute__((visibility("default")))
int daplref_test_variant(int i, const char **id, const char **allowed_by,
			 const char **kind)
{
	if (i < 0 || (size_t)i >= sizeof(variants) / sizeof(variants[0]) - 1)
		return -1;
	if (id)
		*id = variants[i].id;
	if (allowed_by)
		*allowed_by = variants[i].allowed_by;
	if (kind)
		*kind = variants[i].kind;
	return 0;
}
