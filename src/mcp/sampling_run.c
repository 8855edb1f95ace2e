/* sampling_run.c — a server's sampling/createMessage request in a run, from
 * the request to the answer (docs/mcp.md, "Sampling"):
 *
 *   1. only while one of zero's calls to that server runs (the agent whose
 *      model would answer, and whose session records it, is known then);
 *   2. the per-server rate limit (mcp/sampling.h zmcp_rate);
 *   3. the request read (mcp/sampling.h), maxTokens capped;
 *   4. the permission module decides (zperm_decide_call, mcp_sampling) and
 *      its one prompt flow asks the user (the TUI shows the messages);
 *      headless, nobody can: refused with the reason and what would allow it;
 *   5. one completion from the run's own provider and model — the server's
 *      modelPreferences are hints only, never a reason to use another — with
 *      its messages and system prompt and no tools;
 *   6. an "mcp_sampling" event for the session and stream-json, whatever
 *      the outcome.
 * Refusals go back as JSON-RPC errors: -1 (the spec's "User rejected
 * sampling request") for the user's or the run's no, -32602 for a request
 * zero cannot take, -32603 when the model request failed.
 */
#include <stdio.h>
#include <string.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/redact.h"
#include "base/time.h"
#include "mcp/jsonrpc.h"
#include "mcp/mcp.h"
#include "mcp/sampling.h"

/* Stands in for a tool in the prompt: what the TUI shows and rates. */
static const ztool SAMPLING_TOOL = {
    .name = "mcp_sampling",
    .description = "an MCP server asks the model for a completion",
    .parameters_json = "{}",
    .side_effect = ZSIDE_NETWORK,
};

static json_t *refuse(zmcp_refusal *why, json_t *rec, int code, const char *status,
                      const char *msg) {
  why->code = code;
  snprintf(why->message, sizeof why->message, "%s", msg);
  json_object_set_new(rec, "status", json_string(status));
  json_object_set_new(rec, "reason", json_string(msg));
  return NULL;
}

/* Step 2: the server's window, kept per client slot of the manager. */
static bool within_rate(zmcp_manager *m, const char *server) {
  for (size_t i = 0; i < m->n; i++)
    if (!strcmp(m->clients[i]->cfg->name, server))
      return zmcp_rate_take(&m->sampling_rates[i], ztime_mono_ms());
  return false;
}

/* Step 4: true when the request may run; otherwise msg says why. */
static bool approved(const zmcp_manager *m, zagent *a, const char *server,
                     const zmcp_sampling_req *rq, char *msg, size_t cap) {
  zperm_engine eng = zmcp_engine_for(m, a);
  zperm_call pc = {.tool = &SAMPLING_TOOL, .mcp_server = server, .mcp_sampling = true};
  zperm_decision d = zperm_decide_call(&eng, &pc);
  if (d.action == ZPERM_PROMPT) {
    zbuf preview = ZBUF_INIT;
    zmcp_sampling_preview(rq, &preview);
    json_t *shown = json_pack("{s:s, s:i, s:s}", "server", server, "maxTokens", rq->max_tokens,
                              "messages", preview.data ? preview.data : "");
    cleanup_free char *args = json_dumps(shown, JSON_COMPACT | JSON_PRESERVE_ORDER);
    ztool_call call = {.id = "mcp_sampling", .name = "mcp_sampling", .arguments = args};
    /* Asked every time: no grant answers a sampling request. */
    zapproval_request req = {.tool = &SAMPLING_TOOL,
                             .call = &call,
                             .code = d.code,
                             .reason = d.reason,
                             .can_remember = false};
    zperm_face face = zagent_face(a);
    json_decref(zperm_prompt_resolve(&face, NULL, &req, &d));
    json_decref(shown);
    zbuf_release(&preview);
  }
  if (d.action == ZPERM_ALLOW) return true;
  if (!d.code || strcmp(d.code, "user_denied") != 0)
    snprintf(msg, cap, "%s", d.reason); /* headless: why, and what would allow it */
  else if (!strcmp(d.reason, "denied by the user"))
    snprintf(msg, cap, "the user declined the sampling request");
  else /* the user's note */
    snprintf(msg, cap, "the user declined the sampling request: %s", d.reason);
  return false;
}

typedef struct collected {
  zbuf text;
  char finish[32];
  zusage usage;
  bool have_usage;
} collected;

static int collect(void *ud, const zprov_event *ev) {
  collected *c = ud;
  if (ev->kind == ZPEV_TEXT) zbuf_add(&c->text, ev->text, ev->len);
  if (ev->kind == ZPEV_DONE && ev->finish_reason)
    snprintf(c->finish, sizeof c->finish, "%s", ev->finish_reason);
  if (ev->kind == ZPEV_USAGE) {
    c->usage = ev->usage;
    c->have_usage = true;
  }
  return zcancel_requested() ? 1 : 0;
}

/* Step 5: the completion, recorded in rec. */
static json_t *complete(zagent *a, const zmcp_sampling_req *rq, json_t *rec, zmcp_refusal *why) {
  collected col = {.text = ZBUF_INIT};
  zprov_request req = {.system = rq->system,
                       .conv = &rq->conv,
                       .tools = NULL,
                       .max_output_tokens = rq->max_tokens};
  zerr err = ZERR_INIT;
  json_t *result = NULL;
  if (zprovider_stream(a->provider, &req, collect, &col, &err) < 0) {
    cleanup_free char *said = zredact_str(err.msg);
    char msg[560];
    snprintf(msg, sizeof msg, "%s: %s",
             err.kind == ZE_CANCELLED ? "the user interrupted the sampling request"
                                      : "the model request failed",
             said);
    refuse(why, rec, err.kind == ZE_CANCELLED ? ZMCP_SAMPLING_REJECTED : ZRPC_INTERNAL_ERROR,
           "failed", msg);
  } else {
    const char *text = col.text.data ? col.text.data : "";
    result = zmcp_sampling_result(text, a->model, col.finish[0] ? col.finish : NULL);
    json_object_set_new(rec, "status", json_string("answered"));
    json_object_set(rec, "model", json_object_get(result, "model"));
    json_object_set(rec, "stopReason", json_object_get(result, "stopReason"));
    json_object_set_new(rec, "text", json_string(text));
    if (col.have_usage)
      json_object_set_new(rec, "usage",
                          json_pack("{s:I, s:I}", "promptTokens",
                                    (json_int_t)col.usage.prompt_tokens, "completionTokens",
                                    (json_int_t)col.usage.completion_tokens));
  }
  zbuf_release(&col.text);
  return result;
}

static void note_request(json_t *rec, const zmcp_sampling_req *rq) {
  json_object_set_new(rec, "messages", json_integer((json_int_t)rq->conv.len));
  json_object_set_new(rec, "maxTokens", json_integer(rq->max_tokens));
  if (rq->asked_tokens != rq->max_tokens)
    json_object_set_new(rec, "requestedMaxTokens", json_integer(rq->asked_tokens));
  if (json_array_size(rq->hints)) json_object_set(rec, "modelHints", rq->hints);
}

json_t *zmcp_manager_sample(void *ud, const char *server, const json_t *params, zmcp_refusal *why) {
  zmcp_manager *m = ud;
  zagent *a = m->running_agent;
  json_t *rec = json_pack("{s:s}", "server", server);
  json_t *result = NULL;
  if (!a || !a->provider || !m->running_server || strcmp(m->running_server, server) != 0) {
    /* Nobody to record it or to ask: not outside one of zero's calls. */
    refuse(why, rec, ZMCP_SAMPLING_REJECTED, "refused",
           "zero answers sampling requests only while one of its calls to this server runs");
    json_decref(rec);
    return NULL;
  }
  if (m->running_id) json_object_set_new(rec, "toolCallId", json_string(m->running_id));
  zmcp_sampling_req rq;
  zerr err = ZERR_INIT;
  char msg[600];
  if (!within_rate(m, server)) {
    snprintf(msg, sizeof msg,
             "too many sampling requests: zero answers at most %d a minute per server",
             ZMCP_SAMPLING_PER_MINUTE);
    refuse(why, rec, ZMCP_SAMPLING_REJECTED, "refused", msg);
  } else if (zmcp_sampling_parse(params, &rq, &err) < 0) {
    refuse(why, rec, ZRPC_INVALID_PARAMS, "refused", err.msg);
  } else {
    note_request(rec, &rq);
    if (approved(m, a, server, &rq, msg, sizeof msg)) result = complete(a, &rq, rec, why);
    else refuse(why, rec, ZMCP_SAMPLING_REJECTED, "refused", msg);
    zmcp_sampling_req_release(&rq);
  }
  zagent_event ev = {.kind = ZAEV_MCP_SAMPLING, .mcp_sampling = {.record = rec}};
  zagent_emit(a, &ev);
  json_decref(rec);
  return result;
}
