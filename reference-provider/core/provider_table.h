/* SPDX-License-Identifier: MIT */
/*
 * provider_table.h - the members of the dispatch table that are the same
 * function in DAT 1.2 and DAT 2.0.  abi12.c and abi20.c add the members
 * whose signatures differ (lmr_create, rmr_bind, cr_reject) and, for 2.0,
 * the appended 2.0-only members.
 */
#ifndef REF_PROVIDER_TABLE_H
#define REF_PROVIDER_TABLE_H

#include "ref.h"
#include "conn.h"

#define REF_PROVIDER_SHARED_FUNCS \
	.ia_open_func = ref_ia_open, \
	.ia_query_func = ref_ia_query, \
	.ia_close_func = ref_ia_close, \
	.set_consumer_context_func = ref_set_consumer_context, \
	.get_consumer_context_func = ref_get_consumer_context, \
	.get_handle_type_func = ref_get_handle_type, \
	.cno_create_func = ref_cno_create, \
	.cno_modify_agent_func = ref_cno_modify_agent, \
	.cno_query_func = ref_cno_query, \
	.cno_free_func = ref_cno_free, \
	.cno_wait_func = ref_cno_wait, \
	.cr_query_func = ref_cr_query, \
	.cr_accept_func = ref_cr_accept, \
	.cr_handoff_func = ref_cr_handoff, \
	.evd_create_func = ref_evd_create, \
	.evd_query_func = ref_evd_query, \
	.evd_modify_cno_func = ref_evd_modify_cno, \
	.evd_enable_func = ref_evd_enable, \
	.evd_disable_func = ref_evd_disable, \
	.evd_wait_func = ref_evd_wait, \
	.evd_resize_func = ref_evd_resize, \
	.evd_post_se_func = ref_evd_post_se, \
	.evd_dequeue_func = ref_evd_dequeue, \
	.evd_free_func = ref_evd_free, \
	.ep_create_func = ref_ep_create, \
	.ep_query_func = ref_ep_query, \
	.ep_modify_func = ref_ep_modify, \
	.ep_connect_func = ref_ep_connect, \
	.ep_dup_connect_func = ref_ep_dup_connect, \
	.ep_disconnect_func = ref_ep_disconnect, \
	.ep_post_send_func = ref_ep_post_send, \
	.ep_post_recv_func = ref_ep_post_recv, \
	.ep_post_rdma_read_func = ref_ep_post_rdma_read, \
	.ep_post_rdma_write_func = ref_ep_post_rdma_write, \
	.ep_get_status_func = ref_ep_get_status, \
	.ep_free_func = ref_ep_free, \
	.lmr_query_func = ref_lmr_query, \
	.lmr_free_func = ref_lmr_free, \
	.rmr_create_func = ref_rmr_create, \
	.rmr_query_func = ref_rmr_query, \
	.rmr_free_func = ref_rmr_free, \
	.psp_create_func = ref_psp_create, \
	.psp_query_func = ref_psp_query, \
	.psp_free_func = ref_psp_free, \
	.rsp_create_func = ref_rsp_create, \
	.rsp_query_func = ref_rsp_query, \
	.rsp_free_func = ref_rsp_free, \
	.pz_create_func = ref_pz_create, \
	.pz_query_func = ref_pz_query, \
	.pz_free_func = ref_pz_free, \
	.psp_create_any_func = ref_psp_create_any, \
	.ep_reset_func = ref_ep_reset, \
	.evd_set_unwaitable_func = ref_evd_set_unwaitable, \
	.evd_clear_unwaitable_func = ref_evd_clear_unwaitable, \
	.lmr_sync_rdma_read_func = ref_lmr_sync_rdma_read, \
	.lmr_sync_rdma_write_func = ref_lmr_sync_rdma_write, \
	.ep_create_with_srq_func = ref_ep_create_with_srq, \
	.ep_recv_query_func = ref_ep_recv_query, \
	.ep_set_watermark_func = ref_ep_set_watermark, \
	.srq_create_func = ref_srq_create, \
	.srq_free_func = ref_srq_free, \
	.srq_post_recv_func = ref_srq_post_recv, \
	.srq_query_func = ref_srq_query, \
	.srq_resize_func = ref_srq_resize, \
	.srq_set_lw_func = ref_srq_set_lw

#endif
