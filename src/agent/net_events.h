/* net_events.h — the egress proxy's decisions as the run's events.
 *
 * network "scoped" runs every sandboxed connection through zero's egress
 * proxy (net/egress/proxy.h), whose threads queue what they decide
 * (net/egress/queue.h). The loop drains that queue on its own thread, so
 * the events reach the sinks (stream-json, the session) in order with the
 * rest: each network event of a command comes after the call's
 * permission_decision and before its tool_result.
 */
#ifndef ZERO_AGENT_NET_EVENTS_H
#define ZERO_AGENT_NET_EVENTS_H

#include <jansson.h>

#include "net/egress/proxy.h"

struct zagent;

/* Emits every queued network event of a->net_events as ZAEV_NETWORK (and a
 * warning when some were dropped). No-op without a queue. */
void zagent_drain_network(const struct zagent *a);

/* The stream-json / session record of e: {host, port, protocol, action
 * (decisions: allow|deny) or status (requests: ok|error), reason when not
 * allowed or failed, bytesSent / bytesReceived (requests), id when
 * call_id}. Caller owns it. */
json_t *zagent_network_record(const zeg_event *e, const char *call_id);

#endif
