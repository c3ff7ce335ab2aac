/* SPDX-License-Identifier: MIT */
/*
 * transport.c - picks the transport named by the dat.conf instance data
 * and ties its life to the IA (ref_conn_ia_open / ref_conn_ia_close).
 *
 * Instance data syntax: "<transport>:<params>", e.g. "sock:127.0.0.1" or
 * "sock:[::1]".  An empty string means "sock:127.0.0.1".
 */
#include "transport.h"

#include <string.h>

static const struct ref_transport_ops *const transports[] = {
	&ref_sock_ops,
};

const struct ref_transport_ops *ref_transport_lookup(const char *instance,
						     const char **params)
{
	size_t n;

	if (!instance || !*instance) {
		*params = "";
		return &ref_sock_ops;
	}
	n = strcspn(instance, ":");
	for (size_t i = 0; i < sizeof(transports) / sizeof(transports[0]);
	     i++) {
		const char *name = transports[i]->name;

		if (strlen(name) == n && strncmp(instance, name, n) == 0) {
			*params = instance[n] == ':' ? instance + n + 1 : "";
			return transports[i];
		}
	}
	return NULL;
}

DAT_RETURN ref_conn_ia_open(struct ref_ia *ia, const char *instance_data)
{
	const struct ref_transport_ops *ops;
	const char *params = "";

	ops = ref_transport_lookup(instance_data, &params);
	if (!ops)
		return REF_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	return ops->open(ia, params, &ia->transport);
}

void ref_conn_ia_close(struct ref_ia *ia)
{
	if (ia->transport) {
		ia->transport->ops->close(ia->transport);
		ia->transport = NULL;
	}
}
