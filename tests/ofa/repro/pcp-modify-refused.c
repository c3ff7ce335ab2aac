/* SPDX-License-Identifier: MIT */
/*
 * Finding pcp-modify-refused (docs/certification/ofa-dapl-2.1.10/): an EP
 * reserved by an RSP whose Connection Request has arrived and is not yet
 * accepted (DAT_EP_STATE_PASSIVE_CONNECTION_PENDING), modified one parameter
 * at a time. dat_ep_modify(3DAT) DESCRIPTION lists Passive Connection
 * Pending among the states in which each of these twelve may change;
 * RETURN VALUES keep DAT_INVALID_STATE for a state that does not allow it.
 * The EVDs are changed to new ones of the same kind, the other parameters
 * are asked for with the values the EP has.
 */
#include "repro.h"

static const struct {
	DAT_EP_PARAM_MASK mask;
	const char *name;
} field[] = {
	{ DAT_EP_FIELD_RECV_EVD_HANDLE, "recv_evd_handle" },
	{ DAT_EP_FIELD_REQUEST_EVD_HANDLE, "request_evd_handle" },
	{ DAT_EP_FIELD_CONNECT_EVD_HANDLE, "connect_evd_handle" },
	{ DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE, "service_type" },
	{ DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE, "max_message_size" },
	{ DAT_EP_FIELD_EP_ATTR_QOS, "qos" },
	{ DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, "recv_completion_flags" },
	{ DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, "request_completion_flags" },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, "max_recv_dtos" },
	{ DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS, "max_request_dtos" },
	{ DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV, "max_recv_iov" },
	{ DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV, "max_request_iov" },
};
#define NFIELDS (sizeof(field) / sizeof(field[0]))

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	char refused[512] = "", other[512] = "";
	unsigned int n = 0;
	struct repro_pair pr;
	DAT_EP_STATE state;
	DAT_BOOLEAN idle;
	DAT_EP_PARAM param;
	DAT_RETURN r = repro_pending_rsp(ia, &pr, NULL);

	if (r != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "getting a Connection Request to an RSP failed: %s",
				 REPRO_RET(r));
	if ((r = dat_ep_get_status(pr.b.ep, &state, &idle, &idle)) != DAT_SUCCESS ||
	    state != DAT_EP_STATE_PASSIVE_CONNECTION_PENDING ||
	    (r = dat_ep_query(pr.b.ep, DAT_EP_FIELD_ALL, &param)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				&param.recv_evd_handle)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
				&param.request_evd_handle)) != DAT_SUCCESS ||
	    (r = dat_evd_create(ia, 8, DAT_HANDLE_NULL, DAT_EVD_CONNECTION_FLAG,
				&param.connect_evd_handle)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "the reserved EP is in state %d (PASSIVE_CONNECTION_"
				 "PENDING is %d), or querying it / making EVDs failed: %s",
				 (int)state, (int)DAT_EP_STATE_PASSIVE_CONNECTION_PENDING,
				 REPRO_RET(r));
	for (unsigned int i = 0; i < NFIELDS; i++) {
		r = dat_ep_modify(pr.b.ep, field[i].mask, &param);
		if (DAT_GET_TYPE(r) == DAT_INVALID_STATE) {
			n++;
			snprintf(refused + strlen(refused), sizeof(refused) - strlen(refused),
				 "%s%s", n > 1 ? ", " : "", field[i].name);
		} else if (r != DAT_SUCCESS) {
			snprintf(other + strlen(other), sizeof(other) - strlen(other), " %s: %s;",
				 field[i].name, REPRO_RET(r));
		}
	}
	if (n)
		return repro_say(REPRO_SHOWS, "in PASSIVE_CONNECTION_PENDING dat_ep_modify refused "
				 "%u of %u parameters the page allows there with DAT_INVALID_STATE: "
				 "%s", n, (unsigned int)NFIELDS, refused);
	return repro_say(REPRO_ABSENT, "in PASSIVE_CONNECTION_PENDING no parameter was refused "
			 "with DAT_INVALID_STATE%s%s", *other ? "; other errors:" : "", other);
}

REPRO_MAIN(.finding = "pcp-modify-refused", .body = body)
