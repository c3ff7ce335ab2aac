/* SPDX-License-Identifier: MIT */
/*
 * Finding ep-modify-values-unchecked (docs/certification/ofa-dapl-2.1.10/):
 * dat_ep_modify of an unconnected EP asking for a QoS the provider does not
 * support (a bit outside its dat_qos_supported), then for max_recv_dtos -1.
 * dat_ep_modify(3DAT) RETURN VALUES: DAT_INVALID_PARAMETER when a requested
 * parameter is invalid or not supported.
 */
#include "repro.h"

static enum repro_answer body(DAT_IA_HANDLE ia)
{
	const DAT_QOS all = DAT_QOS_HIGH_THROUGHPUT | DAT_QOS_LOW_LATENCY | DAT_QOS_ECONOMY |
			    DAT_QOS_PREMIUM;
	struct repro_end s;
	DAT_EP_PARAM param;
	DAT_PROVIDER_ATTR prov;
	DAT_EVD_HANDLE async;
	DAT_QOS missing;
	DAT_RETURN qos, count;
	DAT_RETURN r = repro_end_param(ia, &s, &param);

	if (r != DAT_SUCCESS ||
	    (r = dat_ia_query(ia, &async, 0, NULL, DAT_PROVIDER_FIELD_ALL, &prov)) != DAT_SUCCESS)
		return repro_say(REPRO_CANNOT, "making or querying the EP or the IA failed: %s",
				 REPRO_RET(r));
	/* the lowest QoS bit the provider does not support; none: nothing to try */
	missing = all & ~prov.dat_qos_supported;
	param.ep_attr.qos = missing & -missing;
	qos = missing ? dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_QOS, &param) :
		(DAT_RETURN)DAT_INVALID_PARAMETER;
	param.ep_attr.max_recv_dtos = -1;
	count = dat_ep_modify(s.ep, DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS, &param);
	if (qos == DAT_SUCCESS || count == DAT_SUCCESS)
		return repro_say(REPRO_SHOWS, "dat_ep_modify with qos 0x%x (dat_qos_supported 0x%x) "
				 "returned %s, with max_recv_dtos -1 %s", (unsigned int)param.ep_attr.qos,
				 (unsigned int)prov.dat_qos_supported, REPRO_RET(qos),
				 REPRO_RET(count));
	return repro_say(REPRO_ABSENT, "an unsupported QoS gave %s, max_recv_dtos -1 %s",
			 missing ? REPRO_RET(qos) : "(none to try)", REPRO_RET(count));
}

REPRO_MAIN(.finding = "ep-modify-values-unchecked", .body = body,
	   .if_crash = "dat_ep_modify with max_recv_dtos -1 killed the process")
