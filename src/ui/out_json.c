/* out_json.c — `-o json`: one JSON object, written when the run ends, for
 * scripts that want the outcome rather than the stream:
 *   {"type":"result","schemaVersion":2,"runId","sessionId","status","exitCode",
 *    "text","provider","model","usage":{…},"toolCalls":[{id,name,status}],
 *    "warnings":[…],"error":{code,message}?}
 * See docs/stream-json.md. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "ui/output.h"

typedef struct json_sink {
  zsink base;
  FILE *out;
  json_t *result;
  json_t *tool_calls;
  json_t *warnings;
  zbuf text;      /* answer text of the last assistant turn */
  bool failed;
} json_sink;

static void js_emit(zsink *base, const zagent_event *ev) {
  json_sink *s = (json_sink *)base;
  json_t *r = s->result;
  switch (ev->kind) {
    case ZAEV_RUN_START:
      if (ev->run_start.session_id)
        json_object_set_new(r, "sessionId", json_string(ev->run_start.session_id));
      if (ev->run_start.cwd) json_object_set_new(r, "cwd", json_string(ev->run_start.cwd));
      if (ev->run_start.provider)
        json_object_set_new(r, "provider", json_string(ev->run_start.provider));
      if (ev->run_start.model) json_object_set_new(r, "model", json_string(ev->run_start.model));
      break;
    case ZAEV_TOOL_CALL: {
      json_t *c = json_pack("{s:s, s:s}", "id", ev->tool_call.id ? ev->tool_call.id : "", "name",
                            ev->tool_call.name ? ev->tool_call.name : "");
      json_array_append_new(s->tool_calls, c);
      break;
    }
    case ZAEV_TOOL_RESULT: {
      /* Attach the status to the matching call (the most recent with that id). */
      for (size_t i = json_array_size(s->tool_calls); i-- > 0;) {
        json_t *c = json_array_get(s->tool_calls, i);
        if (!strcmp(zjson_str_or(c, "id", ""), ev->tool_result.id ? ev->tool_result.id : "")) {
          json_object_set_new(c, "status", json_string(ev->tool_result.ok ? "ok" : "error"));
          break;
        }
      }
      break;
    }
    case ZAEV_USAGE: {
      json_t *u = json_object_get(r, "usage");
      json_object_set_new(u, "promptTokens",
                          json_integer(zjson_int_or(u, "promptTokens", 0) +
                                       ev->usage.tokens.prompt_tokens));
      json_object_set_new(u, "completionTokens",
                          json_integer(zjson_int_or(u, "completionTokens", 0) +
                                       ev->usage.tokens.completion_tokens));
      json_object_set_new(u, "totalTokens",
                          json_integer(zjson_int_or(u, "totalTokens", 0) +
                                       ev->usage.tokens.total_tokens));
      break;
    }
    case ZAEV_FINAL:
      json_object_set_new(r, "text", json_string(ev->final.text ? ev->final.text : ""));
      break;
    case ZAEV_WARNING:
      json_array_append_new(s->warnings,
                            json_string(ev->warning.message ? ev->warning.message : ""));
      break;
    case ZAEV_ERROR:
      json_object_set_new(r, "error",
                          json_pack("{s:s, s:s, s:b}", "code", ev->error.code ? ev->error.code : "",
                                    "message", ev->error.message ? ev->error.message : "",
                                    "recoverable", ev->error.recoverable));
      break;
    case ZAEV_RUN_END: {
      json_object_set_new(r, "status",
                          json_string(ev->run_end.status ? ev->run_end.status : "error"));
      json_object_set_new(r, "exitCode", json_integer(ev->run_end.exit_code));
      if (!json_object_get(r, "text")) json_object_set_new(r, "text", json_string(""));
      json_object_set(r, "toolCalls", s->tool_calls);
      json_object_set(r, "warnings", s->warnings);
      if (zjson_write_line(s->out, r) < 0) s->failed = true;
      break;
    }
    default:
      break;
  }
}

static int js_finish(zsink *base) {
  json_sink *s = (json_sink *)base;
  return s->failed ? -1 : 0;
}

static void js_destroy(zsink *base) {
  json_sink *s = (json_sink *)base;
  json_decref(s->result);
  json_decref(s->tool_calls);
  json_decref(s->warnings);
  zbuf_release(&s->text);
  free(s);
}

zsink *zout_json_new(FILE *out, const char *run_id) {
  json_sink *s =
      zsink_new(sizeof *s, (zsink){.emit = js_emit, .finish = js_finish, .destroy = js_destroy});
  s->out = out;
  s->result = json_pack("{s:s, s:i, s:s, s:{s:i, s:i, s:i}}", "type", "result", "schemaVersion",
                        2, "runId", run_id, "usage", "promptTokens", 0, "completionTokens", 0,
                        "totalTokens", 0);
  s->tool_calls = json_array();
  s->warnings = json_array();
  zbuf_init(&s->text);
  return &s->base;
}
