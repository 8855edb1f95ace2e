/* recorder.c — session recorder sink; see recorder.h. */
#include "agent/recorder.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/json.h"

typedef struct recorder {
  zsink base;
  zsession *session;
  FILE *diag;
  bool failed;
  char why[512]; /* the first failure, for check */
} recorder;

/* Remembers the first failure (the run stops at the loop's next check) and
 * says it once on diag. */
static void fail(recorder *r, const char *what) {
  if (r->failed) return;
  r->failed = true;
  snprintf(r->why, sizeof r->why,
           "could not record the session (%s), so the run stops here: free disk space or fix "
           "the permissions of %s, then continue with zero exec --resume %s",
           what, r->session->dir, r->session->id);
  if (r->diag) fprintf(r->diag, "[zero] ERROR: %s\n", r->why);
}

static void record(recorder *r, const char *type, json_t *payload) {
  zerr err = ZERR_INIT;
  if (!r->failed && zsession_append(r->session, type, payload, &err) < 0) fail(r, err.msg);
  json_decref(payload);
}

static void sync_to_disk(recorder *r) {
  zerr err = ZERR_INIT;
  if (!r->failed && zsession_sync(r->session, &err) < 0) fail(r, err.msg);
}

static void rec_emit(zsink *base, const zagent_event *ev) {
  recorder *r = (recorder *)base;
  json_t *p;
  switch (ev->kind) {
    case ZAEV_USER_MESSAGE:
      p = json_pack("{s:s, s:s%}", "role", "user", "content",
                    ev->user_message.text ? ev->user_message.text : "", ev->user_message.len);
      /* Images attached to the message (the TUI's /image): meta.images
       * [{media_type, data}], so a resumed conversation sends them again. */
      if (ev->user_message.meta && json_is_array(json_object_get(ev->user_message.meta, "images")))
        json_object_set(p, "images", json_object_get(ev->user_message.meta, "images"));
      /* A completion-gate nudge (agent/judge.c) says so: it is not a prompt. */
      if (json_is_string(json_object_get(ev->user_message.meta, "nudge")))
        json_object_set(p, "nudge", json_object_get(ev->user_message.meta, "nudge"));
      record(r, "message", p);
      /* The prompt is on disk before it is sent: a run never goes on with
       * a user message the session lost. */
      sync_to_disk(r);
      break;
    case ZAEV_ASSISTANT_MESSAGE: {
      p = json_pack("{s:s}", "role", "assistant");
      if (ev->assistant_message.reasoning)
        json_object_set_new(p, "reasoning", json_string(ev->assistant_message.reasoning));
      /* Thinking blocks (Anthropic) with their signatures, so --resume can
       * send them back: the API rejects a tool_use turn without them. */
      json_t *th = ev->assistant_message.thinking
                       ? json_loads(ev->assistant_message.thinking, 0, NULL)
                       : NULL;
      if (json_is_array(th)) json_object_set_new(p, "thinking", th);
      else json_decref(th);
      /* The content, possibly a long answer, is streamed to the log rather
       * than copied into the JSON tree. */
      zerr err = ZERR_INIT;
      if (!r->failed &&
          zsession_append_text(r->session, "message", p, "content",
                               ev->assistant_message.text ? ev->assistant_message.text : "",
                               ev->assistant_message.text ? ev->assistant_message.len : 0,
                               &err) < 0)
        fail(r, err.msg);
      json_decref(p);
      /* A model turn is complete: make it survive a power failure before any
       * tool acts on it. */
      sync_to_disk(r);
      break;
    }
    case ZAEV_TOOL_CALL:
      p = json_pack("{s:s, s:s, s:s}", "id", ev->tool_call.id ? ev->tool_call.id : "", "name",
                    ev->tool_call.name ? ev->tool_call.name : "", "arguments",
                    ev->tool_call.arguments ? ev->tool_call.arguments : "");
      /* Gemini's thought signature travels back with the call on --resume. */
      if (ev->tool_call.signature && *ev->tool_call.signature)
        json_object_set_new(p, "thoughtSignature", json_string(ev->tool_call.signature));
      record(r, "tool_call", p);
      break;
    case ZAEV_PERMISSION_REQUEST:
    case ZAEV_PERMISSION_DECISION: {
      const zev_permission *pm = &ev->permission;
      p = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "toolCallId", pm->id ? pm->id : "", "name",
                    pm->name ? pm->name : "", "action", pm->action ? pm->action : "",
                    "permissionMode", pm->mode ? pm->mode : "", "sideEffect",
                    pm->side_effect ? pm->side_effect : "", "reason", pm->reason ? pm->reason : "");
      /* Denials keep their block and grants their origin, so a session shows
       * why a call was refused and what was allowed on whose word. */
      if (ev->kind == ZAEV_PERMISSION_DECISION && pm->code && pm->code[0])
        json_object_set_new(p, "code", json_string(pm->code));
      if (ev->kind == ZAEV_PERMISSION_DECISION && pm->block)
        json_object_set(p, "block", (json_t *)pm->block);
      if (ev->kind == ZAEV_PERMISSION_DECISION && pm->grant)
        json_object_set(p, "grant", (json_t *)pm->grant);
      record(r, ev->kind == ZAEV_PERMISSION_REQUEST ? "permission_request" : "permission_decision",
             p);
      break;
    }
    case ZAEV_WARNING:
      /* Only machine-readable warnings (a code) are session events: a
       * sandbox degradation is part of what a run was allowed to do. */
      if (ev->warning.code && ev->warning.code[0]) {
        p = json_pack("{s:s, s:s}", "code", ev->warning.code, "message",
                      ev->warning.message ? ev->warning.message : "");
        if (ev->warning.meta) json_object_set(p, "meta", (json_t *)ev->warning.meta);
        record(r, "warning", p);
      }
      break;
    case ZAEV_HOOK:
      if (json_is_object(ev->hook.record)) record(r, "hook", json_copy((json_t *)ev->hook.record));
      break;
    case ZAEV_NETWORK:
      if (json_is_object(ev->network.record))
        record(r, ev->network.type, json_copy((json_t *)ev->network.record));
      break;
    case ZAEV_MCP_SAMPLING:
      if (json_is_object(ev->mcp_sampling.record))
        record(r, "mcp_sampling", json_copy((json_t *)ev->mcp_sampling.record));
      break;
    case ZAEV_SUBAGENT_START:
    case ZAEV_SUBAGENT_END:
      /* The delegation's start and end (the child's own steps are in its
       * session), so the parent's session says which child did what. */
      record(r, ev->kind == ZAEV_SUBAGENT_START ? "subagent_start" : "subagent_end",
             zagent_subagent_json(ev));
      break;
    case ZAEV_TOOL_RESULT: {
      const zev_tool_result *tr = &ev->tool_result;
      p = json_pack("{s:s, s:s, s:s, s:s%}", "toolCallId", tr->id ? tr->id : "", "name",
                    tr->name ? tr->name : "", "status", tr->ok ? "ok" : "error", "output",
                    tr->output ? tr->output : "", tr->output_len);
      if (tr->truncated) json_object_set_new(p, "truncated", json_true());
      if (tr->meta) json_object_set(p, "meta", (json_t *)tr->meta);
      record(r, "tool_result", p);
      break;
    }
    case ZAEV_USAGE:
      p = json_pack("{s:I, s:I, s:I}", "promptTokens", (json_int_t)ev->usage.tokens.prompt_tokens,
                    "completionTokens", (json_int_t)ev->usage.tokens.completion_tokens,
                    "totalTokens", (json_int_t)ev->usage.tokens.total_tokens);
      if (ev->usage.tokens.cached_tokens)
        json_object_set_new(p, "cachedInputTokens", json_integer(ev->usage.tokens.cached_tokens));
      if (ev->usage.tokens.reasoning_tokens)
        json_object_set_new(p, "reasoningTokens", json_integer(ev->usage.tokens.reasoning_tokens));
      if (ev->usage.model) json_object_set_new(p, "model", json_string(ev->usage.model));
      record(r, "provider_usage", p);
      break;
    case ZAEV_ERROR:
      record(r, "error",
             json_pack("{s:s, s:s}", "code", ev->error.code ? ev->error.code : "", "message",
                       ev->error.message ? ev->error.message : ""));
      sync_to_disk(r);
      break;
    default:
      break;
  }
}

static int rec_finish(zsink *base) { return ((recorder *)base)->failed ? -1 : 0; }

static int rec_check(zsink *base, zerr *err) {
  recorder *r = (recorder *)base;
  return r->failed ? zerr_set(err, ZE_IO, "%s", r->why) : 0;
}
zsink *zrecorder_new(zsession *session, FILE *diag) {
  recorder *r = zsink_new(sizeof *r, (zsink){.emit = rec_emit,
                                             .finish = rec_finish,
                                             .destroy = zsink_free,
                                             .check = rec_check});
  r->session = session;
  r->diag = diag;
  return &r->base;
}
