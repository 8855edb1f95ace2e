/* out_stream_json.c — `-o stream-json`, schema version 2: one JSON object a
 * line, each carrying schemaVersion, type and runId; flushed per line so a
 * consumer sees every event as it happens. See docs/stream-json.md. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "ui/output.h"

typedef struct sj_sink {
  zsink base;
  FILE *out;
  char run_id[40];
  char *session_id; /* from run_start: permission events carry it, as in Go zero */
  bool failed;
} sj_sink;

static json_t *envelope(sj_sink *s, const char *type) {
  return json_pack("{s:i, s:s, s:s}", "schemaVersion", 2, "type", type, "runId", s->run_id);
}

/* An envelope carrying a record's members as they are (hooks, egress,
 * MCP sampling: their writers own the schema); a record that is not an
 * object adds nothing. */
static json_t *envelope_record(sj_sink *s, const char *type, const json_t *record) {
  json_t *o = envelope(s, type);
  if (json_is_object(record)) json_object_update(o, (json_t *)record);
  return o;
}

static void set_str(json_t *o, const char *key, const char *v) {
  if (v && v[0]) json_object_set_new(o, key, json_string(v));
}

/* Whole numbers as integers (3, not 3.0). */
static json_t *number(double v) {
  if (v == (double)(json_int_t)v && v > -9e15 && v < 9e15) return json_integer((json_int_t)v);
  return json_real(v);
}

static void set_strn(json_t *o, const char *key, const char *v, size_t n) {
  json_object_set_new(o, key, json_stringn(v ? v : "", v ? n : 0));
}

/* The model's argument text as JSON when it parses, else the raw string;
 * absent when empty (Go zero's rule). */
static void set_args(json_t *o, const char *args) {
  if (!args) return;
  const char *p = args;
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
  if (!*p) return;
  json_t *v = json_loads(args, JSON_DECODE_ANY, NULL);
  json_object_set_new(o, "args", v ? v : json_string(args));
}

static void write_line(sj_sink *s, json_t *o) {
  if (zjson_write_line(s->out, o) < 0) s->failed = true;
  json_decref(o);
}

/* subagent_start / subagent_event / subagent_end (docs/subagents.md). */
static json_t *subagent_line(sj_sink *s, const zagent_event *ev) {
  static const char *const type[] = {"subagent_start", "subagent_event", "subagent_end"};
  json_t *o = envelope(s, type[ev->kind - ZAEV_SUBAGENT_START]);
  json_t *fields = zagent_subagent_json(ev);
  json_object_update(o, fields);
  json_decref(fields);
  return o;
}

static void sj_emit(zsink *base, const zagent_event *ev) {
  sj_sink *s = (sj_sink *)base;
  json_t *o = NULL;
  switch (ev->kind) {
    case ZAEV_RUN_START:
      o = envelope(s, "run_start");
      set_str(o, "sessionId", ev->run_start.session_id);
      if (ev->run_start.session_id && !s->session_id)
        s->session_id = xstrdup(ev->run_start.session_id);
      set_str(o, "cwd", ev->run_start.cwd);
      set_str(o, "provider", ev->run_start.provider);
      set_str(o, "model", ev->run_start.model);
      set_str(o, "apiModel", ev->run_start.api_model);
      break;
    case ZAEV_TEXT:
    case ZAEV_REASONING:
      if (!ev->delta.len) return;
      o = envelope(s, ev->kind == ZAEV_TEXT ? "text" : "reasoning");
      set_strn(o, "delta", ev->delta.text, ev->delta.len);
      break;
    case ZAEV_TOOL_CALL:
      o = envelope(s, "tool_call");
      set_str(o, "id", ev->tool_call.id);
      set_str(o, "name", ev->tool_call.name);
      set_args(o, ev->tool_call.arguments);
      set_str(o, "sideEffect", ev->tool_call.side_effect);
      break;
    case ZAEV_PERMISSION_REQUEST:
    case ZAEV_PERMISSION_DECISION: {
      const zev_permission *pm = &ev->permission;
      o = envelope(s, ev->kind == ZAEV_PERMISSION_REQUEST ? "permission_request"
                                                          : "permission_decision");
      set_str(o, "sessionId", s->session_id);
      set_str(o, "id", pm->id);
      set_str(o, "name", pm->name);
      set_str(o, "action", pm->action);
      set_str(o, "permission", pm->permission);
      json_object_set_new(o, "permissionGranted",
                          json_boolean(pm->action && !strcmp(pm->action, "allow")));
      set_str(o, "permissionMode", pm->mode);
      set_str(o, "autonomy", pm->autonomy);
      set_str(o, "sideEffect", pm->side_effect);
      set_str(o, "reason", pm->reason);
      set_str(o, "decisionReason", pm->decision_reason ? pm->decision_reason : pm->code);
      /* always an object (Go zero): {level, categories, reason} */
      if (json_is_object(pm->risk)) json_object_set(o, "risk", (json_t *)pm->risk);
      else
        json_object_set_new(o, "risk", json_pack("{s:s, s:[], s:s}", "level", "low",
                                                 "categories", "reason", "low"));
      if (pm->grant_matched) json_object_set_new(o, "grantMatched", json_true());
      if (ev->kind == ZAEV_PERMISSION_DECISION) {
        set_str(o, "code", pm->code);
        if (pm->block) json_object_set(o, "block", (json_t *)pm->block);
        if (pm->grant) json_object_set(o, "grant", (json_t *)pm->grant);
      }
      break;
    }
    case ZAEV_CHECKPOINT: {
      o = envelope(s, "checkpoint");
      json_t *cp = json_object();
      json_object_set_new(cp, "sequence", json_integer(ev->checkpoint.sequence));
      json_object_set_new(cp, "tool", json_string(ev->checkpoint.tool ? ev->checkpoint.tool : ""));
      json_object_set_new(cp, "files",
                          json_is_array(ev->checkpoint.files)
                              ? json_copy((json_t *)ev->checkpoint.files)
                              : json_array());
      json_object_set_new(o, "checkpoint", cp);
      break;
    }
    case ZAEV_TOOL_RESULT: {
      const zev_tool_result *tr = &ev->tool_result;
      o = envelope(s, "tool_result");
      set_str(o, "id", tr->id);
      set_str(o, "name", tr->name);
      json_object_set_new(o, "status", json_string(tr->ok ? "ok" : "error"));
      size_t n = tr->output_len;
      bool cut = n > ZOUT_TOOL_OUTPUT_SHOWN;
      if (cut) n = zutf8_boundary(tr->output, ZOUT_TOOL_OUTPUT_SHOWN);
      zbuf shown = ZBUF_INIT;
      zbuf_add(&shown, tr->output ? tr->output : "", n);
      if (cut) zbuf_addstr(&shown, "\n[truncated]");
      set_strn(o, "output", shown.data, shown.len);
      zbuf_release(&shown);
      json_object_set_new(o, "truncated", json_boolean(cut || tr->truncated));
      if (json_array_size(tr->changed_files))
        json_object_set_new(o, "changedFiles", json_copy((json_t *)tr->changed_files));
      /* a call the permission engine refused: the same block the model got */
      json_t *blk = tr->meta ? json_object_get(tr->meta, "block") : NULL;
      if (json_is_object(blk)) json_object_set(o, "block", blk);
      break;
    }
    case ZAEV_USAGE:
      o = envelope(s, "usage");
      json_object_set_new(o, "promptTokens", json_integer(ev->usage.tokens.prompt_tokens));
      json_object_set_new(o, "completionTokens", json_integer(ev->usage.tokens.completion_tokens));
      json_object_set_new(o, "totalTokens", json_integer(ev->usage.tokens.total_tokens));
      if (ev->usage.tokens.cached_tokens)
        json_object_set_new(o, "cachedInputTokens", json_integer(ev->usage.tokens.cached_tokens));
      if (ev->usage.tokens.reasoning_tokens)
        json_object_set_new(o, "reasoningTokens", json_integer(ev->usage.tokens.reasoning_tokens));
      break;
    case ZAEV_FINAL:
      o = envelope(s, "final");
      json_object_set_new(o, "text", json_string(ev->final.text ? ev->final.text : ""));
      break;
    case ZAEV_COMPACTION:
      o = envelope(s, "compaction");
      set_str(o, "method", ev->compaction.method);
      set_str(o, "reason", ev->compaction.reason);
      json_object_set_new(o, "tokensBefore", json_integer(ev->compaction.tokens_before));
      json_object_set_new(o, "tokensAfter", json_integer(ev->compaction.tokens_after));
      break;
    case ZAEV_HOOK: o = envelope_record(s, "hook", ev->hook.record); break;
    case ZAEV_NETWORK: o = envelope_record(s, ev->network.type, ev->network.record); break;
    case ZAEV_MCP_SAMPLING: o = envelope_record(s, "mcp_sampling", ev->mcp_sampling.record); break;
    case ZAEV_WARNING:
      o = envelope(s, "warning");
      set_str(o, "message", ev->warning.message);
      set_str(o, "code", ev->warning.code);
      break;
    case ZAEV_ERROR:
      o = envelope(s, "error");
      set_str(o, "code", ev->error.code);
      set_str(o, "message", ev->error.message);
      json_object_set_new(o, "recoverable", json_boolean(ev->error.recoverable));
      break;
    case ZAEV_PROGRESS:
      o = envelope(s, "progress");
      set_str(o, "id", ev->progress.id);
      set_str(o, "name", ev->progress.name);
      json_object_set_new(o, "progress", number(ev->progress.progress));
      if (ev->progress.total >= 0) json_object_set_new(o, "total", number(ev->progress.total));
      if (ev->progress.message) set_str(o, "message", ev->progress.message);
      break;
    case ZAEV_SUBAGENT_START:
    case ZAEV_SUBAGENT_EVENT:
    case ZAEV_SUBAGENT_END: o = subagent_line(s, ev); break;
    case ZAEV_QUESTION:
      o = envelope(s, "question");
      set_str(o, "id", ev->question.id);
      set_str(o, "question", ev->question.question);
      json_object_set_new(o, "choices", ev->question.choices
                                            ? json_copy((json_t *)ev->question.choices)
                                            : json_array());
      break;
    case ZAEV_RUN_END:
      o = envelope(s, "run_end");
      set_str(o, "status", ev->run_end.status);
      json_object_set_new(o, "exitCode", json_integer(ev->run_end.exit_code));
      break;
    default:
      return; /* user / assistant message records are for the session only */
  }
  write_line(s, o);
}

static int sj_finish(zsink *base) {
  sj_sink *s = (sj_sink *)base;
  if (fflush(s->out) != 0) s->failed = true;
  return s->failed ? -1 : 0;
}

static void sj_destroy(zsink *base) {
  free(((sj_sink *)base)->session_id);
  free(base);
}

zsink *zout_stream_json_new(FILE *out, const char *run_id) {
  sj_sink *s =
      zsink_new(sizeof *s, (zsink){.emit = sj_emit, .finish = sj_finish, .destroy = sj_destroy});
  s->out = out;
  snprintf(s->run_id, sizeof s->run_id, "%s", run_id);
  return &s->base;
}
