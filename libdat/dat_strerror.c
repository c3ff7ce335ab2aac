/*
 * DAT_RETURN -> names. The one table of code names in datcts; everything
 * else (the harness included) reaches it through dat_strerror().
 *
 * Each message is "NAME (description)": the first blank-delimited word is
 * always the symbolic name, so callers may cut there.
 */
#include "dat_internal.h"

#include <stddef.h>

struct code_name {
	DAT_UINT32	code;
	const char	*msg;
};

#define N(name, text) { name, #name " (" text ")" }

static const struct code_name types[] = {
	N(DAT_SUCCESS, "operation succeeded"),
	N(DAT_ABORT, "aborted: IA closed or EVD destroyed"),
	N(DAT_CONN_QUAL_IN_USE, "connection qualifier already in use"),
	N(DAT_INSUFFICIENT_RESOURCES, "out of resources"),
	N(DAT_INTERNAL_ERROR, "internal error in the DAT implementation"),
	N(DAT_INVALID_HANDLE, "bad handle"),
	N(DAT_INVALID_PARAMETER, "bad argument"),
	N(DAT_INVALID_STATE, "object not in a state that allows this"),
	N(DAT_LENGTH_ERROR, "length out of range"),
	N(DAT_MODEL_NOT_SUPPORTED, "optional feature not supported"),
	N(DAT_PROVIDER_NOT_FOUND, "no such provider in the registry"),
	N(DAT_PRIVILEGES_VIOLATION, "memory privileges do not allow this"),
	N(DAT_PROTECTION_VIOLATION, "protection zone mismatch"),
	N(DAT_QUEUE_EMPTY, "no event queued"),
	N(DAT_QUEUE_FULL, "queue full"),
	N(DAT_TIMEOUT_EXPIRED, "timed out"),
	N(DAT_PROVIDER_ALREADY_REGISTERED, "provider already registered"),
	N(DAT_PROVIDER_IN_USE, "provider has open instances"),
	N(DAT_INVALID_ADDRESS, "bad address"),
	N(DAT_INTERRUPTED_CALL, "wait interrupted"),
	N(DAT_CONN_QUAL_UNAVAILABLE, "no connection qualifier available"),
	N(DAT_NOT_IMPLEMENTED, "not implemented by the provider"),
	/*
	 * Other headers' values of the same code, after DAT_GET_TYPE():
	 * OFA 2.0 0x3FFF0000, and OFA 1.2 0xFFFF0000 (class bits included).
	 */
	{ 0x3FFF0000u, "DAT_NOT_IMPLEMENTED (not implemented by the provider)" },
};

static const struct code_name subtypes[] = {
	N(DAT_NO_SUBTYPE, "no detail"),
	N(DAT_SUB_INTERRUPTED, "interrupted"),
	N(DAT_RESOURCE_MEMORY, "memory"),
	N(DAT_RESOURCE_DEVICE, "device resource"),
	N(DAT_RESOURCE_TEP, "transport endpoint"),
	N(DAT_RESOURCE_TEVD, "transport event queue"),
	N(DAT_RESOURCE_PROTECTION_DOMAIN, "protection domain"),
	N(DAT_RESOURCE_MEMORY_REGION, "memory region"),
	N(DAT_RESOURCE_ERROR_HANDLER, "error handler"),
	N(DAT_RESOURCE_CREDITS, "credits"),
	N(DAT_RESOURCE_SRQ, "shared receive queue"),
	N(DAT_INVALID_HANDLE_IA, "IA handle"),
	N(DAT_INVALID_HANDLE_EP, "EP handle"),
	N(DAT_INVALID_HANDLE_LMR, "LMR handle"),
	N(DAT_INVALID_HANDLE_RMR, "RMR handle"),
	N(DAT_INVALID_HANDLE_PZ, "PZ handle"),
	N(DAT_INVALID_HANDLE_PSP, "PSP handle"),
	N(DAT_INVALID_HANDLE_RSP, "RSP handle"),
	N(DAT_INVALID_HANDLE_CR, "CR handle"),
	N(DAT_INVALID_HANDLE_CNO, "CNO handle"),
	N(DAT_INVALID_HANDLE_EVD_CR, "connection-request EVD handle"),
	N(DAT_INVALID_HANDLE_EVD_REQUEST, "request EVD handle"),
	N(DAT_INVALID_HANDLE_EVD_RECV, "receive EVD handle"),
	N(DAT_INVALID_HANDLE_EVD_CONN, "connection EVD handle"),
	N(DAT_INVALID_HANDLE_EVD_ASYNC, "async EVD handle"),
	N(DAT_INVALID_HANDLE_SRQ, "SRQ handle"),
	N(DAT_INVALID_HANDLE1, "handle argument 1"),
	N(DAT_INVALID_HANDLE2, "handle argument 2"),
	N(DAT_INVALID_HANDLE3, "handle argument 3"),
	N(DAT_INVALID_HANDLE4, "handle argument 4"),
	N(DAT_INVALID_HANDLE5, "handle argument 5"),
	N(DAT_INVALID_HANDLE6, "handle argument 6"),
	N(DAT_INVALID_HANDLE7, "handle argument 7"),
	N(DAT_INVALID_HANDLE8, "handle argument 8"),
	N(DAT_INVALID_HANDLE9, "handle argument 9"),
	N(DAT_INVALID_HANDLE10, "handle argument 10"),
	N(DAT_INVALID_ARG1, "argument 1"),
	N(DAT_INVALID_ARG2, "argument 2"),
	N(DAT_INVALID_ARG3, "argument 3"),
	N(DAT_INVALID_ARG4, "argument 4"),
	N(DAT_INVALID_ARG5, "argument 5"),
	N(DAT_INVALID_ARG6, "argument 6"),
	N(DAT_INVALID_ARG7, "argument 7"),
	N(DAT_INVALID_ARG8, "argument 8"),
	N(DAT_INVALID_ARG9, "argument 9"),
	N(DAT_INVALID_ARG10, "argument 10"),
	N(DAT_INVALID_STATE_EP_UNCONNECTED, "EP unconnected"),
	N(DAT_INVALID_STATE_EP_ACTCONNPENDING, "EP active connect pending"),
	N(DAT_INVALID_STATE_EP_PASSCONNPENDING, "EP passive connect pending"),
	N(DAT_INVALID_STATE_EP_TENTCONNPENDING, "EP tentative connect pending"),
	N(DAT_INVALID_STATE_EP_CONNECTED, "EP connected"),
	N(DAT_INVALID_STATE_EP_DISCONNECTED, "EP disconnected"),
	N(DAT_INVALID_STATE_EP_RESERVED, "EP reserved"),
	N(DAT_INVALID_STATE_EP_COMPLPENDING, "EP completion pending"),
	N(DAT_INVALID_STATE_EP_DISCPENDING, "EP disconnect pending"),
	N(DAT_INVALID_STATE_EP_PROVIDERCONTROL, "EP under provider control"),
	N(DAT_INVALID_STATE_EP_NOTREADY, "EP not ready"),
	N(DAT_INVALID_STATE_EP_RECV_WATERMARK, "EP receive watermark"),
	N(DAT_INVALID_STATE_EP_PZ, "EP protection zone"),
	N(DAT_INVALID_STATE_EP_EVD_REQUEST, "EP request EVD"),
	N(DAT_INVALID_STATE_EP_EVD_RECV, "EP receive EVD"),
	N(DAT_INVALID_STATE_EP_EVD_CONNECT, "EP connection EVD"),
	N(DAT_INVALID_STATE_EP_UNCONFIGURED, "EP unconfigured"),
	N(DAT_INVALID_STATE_EP_UNCONFRESERVED, "EP unconfigured, reserved"),
	N(DAT_INVALID_STATE_EP_UNCONFPASSIVE, "EP unconfigured, passive"),
	N(DAT_INVALID_STATE_EP_UNCONFTENTATIVE, "EP unconfigured, tentative"),
	N(DAT_INVALID_STATE_CNO_IN_USE, "CNO in use"),
	N(DAT_INVALID_STATE_CNO_DEAD, "CNO dead"),
	N(DAT_INVALID_STATE_EVD_OPEN, "EVD open"),
	N(DAT_INVALID_STATE_EVD_ENABLED, "EVD enabled"),
	N(DAT_INVALID_STATE_EVD_DISABLED, "EVD disabled"),
	N(DAT_INVALID_STATE_EVD_WAITABLE, "EVD waitable"),
	N(DAT_INVALID_STATE_EVD_UNWAITABLE, "EVD unwaitable"),
	N(DAT_INVALID_STATE_EVD_IN_USE, "EVD in use"),
	N(DAT_INVALID_STATE_EVD_CONFIG_NOTIFY, "EVD configured for notify"),
	N(DAT_INVALID_STATE_EVD_CONFIG_SOLICITED, "EVD configured for solicited"),
	N(DAT_INVALID_STATE_EVD_CONFIG_THRESHOLD, "EVD configured for threshold"),
	N(DAT_INVALID_STATE_EVD_WAITER, "EVD already has a waiter"),
	N(DAT_INVALID_STATE_EVD_ASYNC, "EVD is an async EVD"),
	N(DAT_INVALID_STATE_IA_IN_USE, "IA in use"),
	N(DAT_INVALID_STATE_LMR_IN_USE, "LMR in use"),
	N(DAT_INVALID_STATE_LMR_FREE, "LMR freed"),
	N(DAT_INVALID_STATE_PZ_IN_USE, "PZ in use"),
	N(DAT_INVALID_STATE_PZ_FREE, "PZ freed"),
	N(DAT_INVALID_STATE_SRQ_OPERATIONAL, "SRQ operational"),
	N(DAT_INVALID_STATE_SRQ_ERROR, "SRQ in error"),
	N(DAT_INVALID_STATE_SRQ_IN_USE, "SRQ in use"),
	N(DAT_PRIVILEGES_READ, "no read privilege"),
	N(DAT_PRIVILEGES_WRITE, "no write privilege"),
	N(DAT_PRIVILEGES_RDMA_READ, "no RDMA read privilege"),
	N(DAT_PRIVILEGES_RDMA_WRITE, "no RDMA write privilege"),
	N(DAT_PROTECTION_READ, "read protection"),
	N(DAT_PROTECTION_WRITE, "write protection"),
	N(DAT_PROTECTION_RDMA_READ, "RDMA read protection"),
	N(DAT_PROTECTION_RDMA_WRITE, "RDMA write protection"),
	N(DAT_INVALID_ADDRESS_UNSUPPORTED, "address family not supported"),
	N(DAT_INVALID_ADDRESS_UNREACHABLE, "address unreachable"),
	N(DAT_INVALID_ADDRESS_MALFORMED, "address malformed"),
	N(DAT_NAME_NOT_REGISTERED, "IA name not registered"),
	N(DAT_MAJOR_NOT_FOUND, "no provider with this major version"),
	N(DAT_MINOR_NOT_FOUND, "no provider with this minor version"),
	N(DAT_THREAD_SAFETY_NOT_FOUND, "no provider with this thread safety"),
};

#undef N

static const char *lookup(const struct code_name *t, size_t n, DAT_UINT32 code)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].code == code)
			return t[i].msg;
	}
	return NULL;
}

DAT_RETURN dat_strerror(DAT_RETURN value, const char **major_message,
			const char **minor_message)
{
	const char *major, *minor;

	major = lookup(types, sizeof(types) / sizeof(types[0]),
		       DAT_GET_TYPE(value));
	minor = lookup(subtypes, sizeof(subtypes) / sizeof(subtypes[0]),
		       DAT_GET_SUBTYPE(value));
	if (!major || !minor)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (major_message)
		*major_message = major;
	if (minor_message)
		*minor_message = minor;
	return DAT_SUCCESS;
}
