/* net_events.c — the proxy's queue drained into events; see net_events.h. */
#include "agent/net_events.h"

#include <stdio.h>
#include <string.h>

#include "agent/loop.h"
#include "net/egress/queue.h"

json_t *zagent_network_record(const zeg_event *e, const char *call_id) {
  bool request = !strcmp(e->kind, "network_request");
  json_t *o = json_object();
  if (call_id && *call_id) json_object_set_new(o, "id", json_string(call_id));
  json_object_set_new(o, "host", json_string(e->host && *e->host ? e->host : "?"));
  json_object_set_new(o, "port", json_integer(e->port));
  json_object_set_new(o, "protocol", json_string(e->proto ? e->proto : ""));
  if (request)
    json_object_set_new(o, "status", json_string(e->allowed && !*e->reason ? "ok" : "error"));
  else json_object_set_new(o, "action", json_string(e->allowed ? "allow" : "deny"));
  if (e->reason && *e->reason) json_object_set_new(o, "reason", json_string(e->reason));
  if (request) {
    json_object_set_new(o, "bytesSent", json_integer((json_int_t)e->bytes_up));
    json_object_set_new(o, "bytesReceived", json_integer((json_int_t)e->bytes_down));
  }
  return o;
}

static void emit_one(void *ud, const zeg_event *e, const char *call_id) {
  const zagent *a = ud;
  json_t *rec = zagent_network_record(e, call_id);
  zagent_event ev = {.kind = ZAEV_NETWORK,
                     .network = {.type = !strcmp(e->kind, "network_request") ? "network_request"
                                                                             : "network_decision",
                                 .record = rec}};
  zagent_emit(a, &ev);
  json_decref(rec);
}

void zagent_drain_network(const zagent *a) {
  if (!a->net_events) return;
  size_t dropped = zeg_queue_drain(a->net_events, emit_one, (void *)a);
  if (!dropped) return;
  char msg[160];
  snprintf(msg, sizeof msg,
           "%zu network events of the egress proxy were not reported (more than %d waited at "
           "once)",
           dropped, ZEG_QUEUE_MAX);
  zagent_event w = {.kind = ZAEV_WARNING,
                    .warning = {.message = msg, .code = "network_events_dropped"}};
  zagent_emit(a, &w);
}
