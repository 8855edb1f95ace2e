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
      p = json_pack("{s:s, s:s%}", "role", "user", "content", ev->text ? ev->text : "", ev->len);
      /* Images attached to the message (the TUI's /image): meta.images
       * [{media_type, data}], so a resumed conversation sends them again. */
      if (ev->meta && json_is_array(json_object_get(ev->meta, "images")))
        json_object_set(p, "images", json_object_get(ev->meta, "images"));
      record(r, "message", p);
      /* The prompt is on disk before it is sent: a run never goes on with
       * a user message the session lost. */
      sync_to_disk(r);
      break;
    case ZAEV_ASSISTANT_MESSAGE: {
      p = json_pack("{s:s}", "role", "assistant");
      if (ev->reasoning) json_object_set_new(p, "reasoning", json_string(ev->reasoning));
      /* Thinking blocks (Anthropic) with their signatures, so --resume can
       * send them back: the API rejects a tool_use turn without them. */
      json_t *th = ev->thinking ? json_loads(ev->thinking, 0, NULL) : NULL;
      if (json_is_array(th)) json_object_set_new(p, "thinking", th);
      else json_decref(th);
      /* The content, possibly a long answer, is streamed to the log rather
       * than copied into the JSON tree. */
      zerr err = ZERR_INIT;
      if (!r->failed && zsession_append_text(r->session, "message", p, "content",
                                             ev->text ? ev->text : "", ev->text ? ev->len : 0,
                                             &err) < 0)
        fail(r, err.msg);
      json_decref(p);
      /* A model turn is complete: make it survive a power failure before any
       * tool acts on it. */
      sync_to_disk(r);
      break;
    }
    case ZAEV_TOOL_CALL:
      p = json_pack("{s:s, s:s, s:s}", "id", ev->id ? ev->id : "", "name",
                    ev->name ? ev->name : "", "arguments", ev->arguments ? ev->arguments : "");
      /* Gemini's thought signature travels back with the call on --resume. */
      if (ev->signature && *ev->signature)
        json_object_set_new(p, "thoughtSignature", json_string(ev->signature));
      record(r, "tool_call", p);
      break;
    case ZAEV_PERMISSION_REQUEST:
    case ZAEV_PERMISSION_DECISION:
      p = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "toolCallId", ev->id ? ev->id : "",
                    "name", ev->name ? ev->name : "", "action", ev->action ? ev->action : "",
                    "permissionMode", ev->mode ? ev->mode : "", "sideEffect",
                    ev->side_effect ? ev->side_effect : "", "reason", ev->reason ? ev->reason : "");
      /* Denials keep their block and grants their origin, so a session shows
       * why a call was refused and what was allowed on whose word. */
      if (ev->kind == ZAEV_PERMISSION_DECISION && ev->code && ev->code[0])
        json_object_set_new(p, "code", json_string(ev->code));
      if (ev->kind == ZAEV_PERMISSION_DECISION && ev->block)
        json_object_set(p, "block", (json_t *)ev->block);
      if (ev->kind == ZAEV_PERMISSION_DECISION && ev->grant)
        json_object_set(p, "grant", (json_t *)ev->grant);
      record(r, ev->kind == ZAEV_PERMISSION_REQUEST ? "permission_request" : "permission_decision",
             p);
      break;
    case ZAEV_WARNING:
      /* Only machine-readable warnings (a code) are session events: a
       * sandbox degradation is part of what a run was allowed to do. */
      if (ev->code && ev->code[0]) {
        p = json_pack("{s:s, s:s}", "code", ev->code, "message", ev->text ? ev->text : "");
        if (ev->meta) json_object_set(p, "meta", (json_t *)ev->meta);
        record(r, "warning", p);
      }
      break;
    case ZAEV_HOOK:
      if (json_is_object(ev->meta)) record(r, "hook", json_copy((json_t *)ev->meta));
      break;
    case ZAEV_TOOL_RESULT:
      p = json_pack("{s:s, s:s, s:s, s:s%}", "toolCallId", ev->id ? ev->id : "", "name",
                    ev->name ? ev->name : "", "status", ev->ok ? "ok" : "error", "output",
                    ev->text ? ev->text : "", ev->len);
      if (ev->truncated) json_object_set_new(p, "truncated", json_true());
      if (ev->meta) json_object_set(p, "meta", (json_t *)ev->meta);
      record(r, "tool_result", p);
      break;
    case ZAEV_USAGE:
      p = json_pack("{s:I, s:I, s:I}", "promptTokens", (json_int_t)ev->usage.prompt_tokens,
                    "completionTokens", (json_int_t)ev->usage.completion_tokens, "totalTokens",
                    (json_int_t)ev->usage.total_tokens);
      if (ev->usage.cached_tokens)
        json_object_set_new(p, "cachedInputTokens", json_integer(ev->usage.cached_tokens));
      if (ev->usage.reasoning_tokens)
        json_object_set_new(p, "reasoningTokens", json_integer(ev->usage.reasoning_tokens));
      if (ev->model) json_object_set_new(p, "model", json_string(ev->model));
      record(r, "provider_usage", p);
      break;
    case ZAEV_ERROR:
      record(r, "error", json_pack("{s:s, s:s}", "code", ev->code ? ev->code : "", "message",
                                   ev->text ? ev->text : ""));
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
static void rec_destroy(zsink *base) { free(base); }

zsink *zrecorder_new(zsession *session, FILE *diag) {
  recorder *r = xcalloc(1, sizeof *r);
  r->base.emit = rec_emit;
  r->base.finish = rec_finish;
  r->base.destroy = rec_destroy;
  r->base.check = rec_check;
  r->session = session;
  r->diag = diag;
  return &r->base;
}
