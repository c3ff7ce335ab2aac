/*
 * DAT 1.2 public headers (datcts implementation).
 * Function-pointer types for the uDAPL-only functions and the provider
 * dispatch table. The member order of struct dat_provider is the ABI
 * every 1.2 provider library is built against: never reorder it.
 */
#ifndef UDAT_REDIRECTION_H_
#define UDAT_REDIRECTION_H_

#include <dat/udat.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What libdat calls inside the provider: no version arguments, those are
 * resolved by the registry (OFA 1.2 form, 4 parameters).
 */
typedef DAT_RETURN (*DAT_IA_OPEN_FUNC)(const DAT_NAME_PTR, DAT_COUNT,
				       DAT_EVD_HANDLE *, DAT_IA_HANDLE *);
/* dat_ia_openv's own signature; not a table member. */
typedef DAT_RETURN (*DAT_IA_OPENV_FUNC)(const DAT_NAME_PTR, DAT_COUNT,
					DAT_EVD_HANDLE *, DAT_IA_HANDLE *,
					DAT_UINT32, DAT_UINT32, DAT_BOOLEAN);
typedef DAT_RETURN (*DAT_IA_QUERY_FUNC)(DAT_IA_HANDLE, DAT_EVD_HANDLE *,
					DAT_IA_ATTR_MASK, DAT_IA_ATTR *,
					DAT_PROVIDER_ATTR_MASK,
					DAT_PROVIDER_ATTR *);
typedef DAT_RETURN (*DAT_IA_CLOSE_FUNC)(DAT_IA_HANDLE, DAT_CLOSE_FLAGS);

typedef DAT_RETURN (*DAT_GET_HANDLE_TYPE_FUNC)(DAT_HANDLE, DAT_HANDLE_TYPE *);

typedef DAT_RETURN (*DAT_CNO_CREATE_FUNC)(DAT_IA_HANDLE,
					  DAT_OS_WAIT_PROXY_AGENT,
					  DAT_CNO_HANDLE *);
typedef DAT_RETURN (*DAT_CNO_MODIFY_AGENT_FUNC)(DAT_CNO_HANDLE,
						DAT_OS_WAIT_PROXY_AGENT);
typedef DAT_RETURN (*DAT_CNO_QUERY_FUNC)(DAT_CNO_HANDLE, DAT_CNO_PARAM_MASK,
					 DAT_CNO_PARAM *);
typedef DAT_RETURN (*DAT_CNO_FREE_FUNC)(DAT_CNO_HANDLE);
typedef DAT_RETURN (*DAT_CNO_WAIT_FUNC)(DAT_CNO_HANDLE, DAT_TIMEOUT,
					DAT_EVD_HANDLE *);

typedef DAT_RETURN (*DAT_EVD_CREATE_FUNC)(DAT_IA_HANDLE, DAT_COUNT,
					  DAT_CNO_HANDLE, DAT_EVD_FLAGS,
					  DAT_EVD_HANDLE *);
typedef DAT_RETURN (*DAT_EVD_QUERY_FUNC)(DAT_EVD_HANDLE, DAT_EVD_PARAM_MASK,
					 DAT_EVD_PARAM *);
typedef DAT_RETURN (*DAT_EVD_MODIFY_CNO_FUNC)(DAT_EVD_HANDLE, DAT_CNO_HANDLE);
typedef DAT_RETURN (*DAT_EVD_ENABLE_FUNC)(DAT_EVD_HANDLE);
typedef DAT_RETURN (*DAT_EVD_DISABLE_FUNC)(DAT_EVD_HANDLE);
typedef DAT_RETURN (*DAT_EVD_WAIT_FUNC)(DAT_EVD_HANDLE, DAT_TIMEOUT,
					DAT_COUNT, DAT_EVENT *, DAT_COUNT *);
typedef DAT_RETURN (*DAT_EVD_SET_UNWAITABLE_FUNC)(DAT_EVD_HANDLE);
typedef DAT_RETURN (*DAT_EVD_CLEAR_UNWAITABLE_FUNC)(DAT_EVD_HANDLE);

typedef DAT_RETURN (*DAT_LMR_CREATE_FUNC)(DAT_IA_HANDLE, DAT_MEM_TYPE,
					  DAT_REGION_DESCRIPTION, DAT_VLEN,
					  DAT_PZ_HANDLE, DAT_MEM_PRIV_FLAGS,
					  DAT_LMR_HANDLE *, DAT_LMR_CONTEXT *,
					  DAT_RMR_CONTEXT *, DAT_VLEN *,
					  DAT_VADDR *);

struct dat_provider {
	const char			*device_name;
	DAT_PVOID			extension;

	DAT_IA_OPEN_FUNC		ia_open_func;
	DAT_IA_QUERY_FUNC		ia_query_func;
	DAT_IA_CLOSE_FUNC		ia_close_func;

	DAT_SET_CONSUMER_CONTEXT_FUNC	set_consumer_context_func;
	DAT_GET_CONSUMER_CONTEXT_FUNC	get_consumer_context_func;
	DAT_GET_HANDLE_TYPE_FUNC	get_handle_type_func;

	DAT_CNO_CREATE_FUNC		cno_create_func;	/* udat only */
	DAT_CNO_MODIFY_AGENT_FUNC	cno_modify_agent_func;	/* udat only */
	DAT_CNO_QUERY_FUNC		cno_query_func;		/* udat only */
	DAT_CNO_FREE_FUNC		cno_free_func;		/* udat only */
	DAT_CNO_WAIT_FUNC		cno_wait_func;		/* udat only */

	DAT_CR_QUERY_FUNC		cr_query_func;
	DAT_CR_ACCEPT_FUNC		cr_accept_func;
	DAT_CR_REJECT_FUNC		cr_reject_func;
	DAT_CR_HANDOFF_FUNC		cr_handoff_func;

	DAT_EVD_CREATE_FUNC		evd_create_func;
	DAT_EVD_QUERY_FUNC		evd_query_func;
	DAT_EVD_MODIFY_CNO_FUNC		evd_modify_cno_func;	/* udat only */
	DAT_EVD_ENABLE_FUNC		evd_enable_func;	/* udat only */
	DAT_EVD_DISABLE_FUNC		evd_disable_func;	/* udat only */
	DAT_EVD_WAIT_FUNC		evd_wait_func;		/* udat only */
	DAT_EVD_RESIZE_FUNC		evd_resize_func;
	DAT_EVD_POST_SE_FUNC		evd_post_se_func;
	DAT_EVD_DEQUEUE_FUNC		evd_dequeue_func;
	DAT_EVD_FREE_FUNC		evd_free_func;

	DAT_EP_CREATE_FUNC		ep_create_func;
	DAT_EP_QUERY_FUNC		ep_query_func;
	DAT_EP_MODIFY_FUNC		ep_modify_func;
	DAT_EP_CONNECT_FUNC		ep_connect_func;
	DAT_EP_DUP_CONNECT_FUNC		ep_dup_connect_func;
	DAT_EP_DISCONNECT_FUNC		ep_disconnect_func;
	DAT_EP_POST_SEND_FUNC		ep_post_send_func;
	DAT_EP_POST_RECV_FUNC		ep_post_recv_func;
	DAT_EP_POST_RDMA_READ_FUNC	ep_post_rdma_read_func;
	DAT_EP_POST_RDMA_WRITE_FUNC	ep_post_rdma_write_func;
	DAT_EP_GET_STATUS_FUNC		ep_get_status_func;
	DAT_EP_FREE_FUNC		ep_free_func;

	DAT_LMR_CREATE_FUNC		lmr_create_func;
	DAT_LMR_QUERY_FUNC		lmr_query_func;
	DAT_LMR_FREE_FUNC		lmr_free_func;

	DAT_RMR_CREATE_FUNC		rmr_create_func;
	DAT_RMR_QUERY_FUNC		rmr_query_func;
	DAT_RMR_BIND_FUNC		rmr_bind_func;
	DAT_RMR_FREE_FUNC		rmr_free_func;

	DAT_PSP_CREATE_FUNC		psp_create_func;
	DAT_PSP_QUERY_FUNC		psp_query_func;
	DAT_PSP_FREE_FUNC		psp_free_func;

	DAT_RSP_CREATE_FUNC		rsp_create_func;
	DAT_RSP_QUERY_FUNC		rsp_query_func;
	DAT_RSP_FREE_FUNC		rsp_free_func;

	DAT_PZ_CREATE_FUNC		pz_create_func;
	DAT_PZ_QUERY_FUNC		pz_query_func;
	DAT_PZ_FREE_FUNC		pz_free_func;

	/* added by DAT 1.1: appended so 1.0 tables keep their layout */
	DAT_PSP_CREATE_ANY_FUNC		psp_create_any_func;
	DAT_EP_RESET_FUNC		ep_reset_func;
	DAT_EVD_SET_UNWAITABLE_FUNC	evd_set_unwaitable_func;	/* udat */
	DAT_EVD_CLEAR_UNWAITABLE_FUNC	evd_clear_unwaitable_func;	/* udat */

	/* added by DAT 1.2 */
	DAT_LMR_SYNC_RDMA_READ_FUNC	lmr_sync_rdma_read_func;
	DAT_LMR_SYNC_RDMA_WRITE_FUNC	lmr_sync_rdma_write_func;
	DAT_EP_CREATE_WITH_SRQ_FUNC	ep_create_with_srq_func;
	DAT_EP_RECV_QUERY_FUNC		ep_recv_query_func;
	DAT_EP_SET_WATERMARK_FUNC	ep_set_watermark_func;
	DAT_SRQ_CREATE_FUNC		srq_create_func;
	DAT_SRQ_FREE_FUNC		srq_free_func;
	DAT_SRQ_POST_RECV_FUNC		srq_post_recv_func;
	DAT_SRQ_QUERY_FUNC		srq_query_func;
	DAT_SRQ_RESIZE_FUNC		srq_resize_func;
	DAT_SRQ_SET_LW_FUNC		srq_set_lw_func;
};

#ifdef __cplusplus
}
#endif

#endif /* UDAT_REDIRECTION_H_ */
