// SPDX-License-Identifier: MIT
/*
 * Trivial cases for `datcts bench-overhead`: what a case costs besides its
 * own checks (process, IA open and query, teardown, result, relay).
 */
#include "datcts.h"

DC_CASE(bench, single,
	.summary = "opens the IA and passes")
{
}

DC_TWO_NODE_CASE(bench, two_node,
	.summary = "two halves: readiness handshake and one message");

DC_PASSIVE(bench, two_node)
{
	dc_announce(t, NULL, 0);
	dc_peer_wait(t, "done", NULL, 0);
}

DC_ACTIVE(bench, two_node)
{
	dc_peer_send(t, "done", "%s", "");
}

DC_TWO_NODE_CASE(bench, two_node_connect,
	.summary = "two halves that connect an EP pair and exchange one message");

DC_PASSIVE(bench, two_node_connect)
{
	struct dc_endpoint e = { 0 };

	dc_connect_passive(t, &e, NULL);
	dc_peer_wait(t, "done", NULL, 0);
}

DC_ACTIVE(bench, two_node_connect)
{
	struct dc_endpoint e = { 0 };

	dc_connect_active(t, &e, NULL);
	dc_peer_send(t, "done", "%s", "");
}
