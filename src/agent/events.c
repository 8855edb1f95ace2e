/* events.c — see events.h. */
#include "agent/events.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

/* What to do with each owned field of a payload: copy it or free it. A
 * length-counted text passes its length; a plain string passes NULL. */
typedef struct field_ops {
  void (*str)(const char **s, size_t *len);
  void (*json)(const json_t **j);
} field_ops;

/* The one list of each kind's strings and JSON values: the copy and the free
 * both walk it, so a field added to a payload is added here once. */
static void each_owned_field(zagent_event *ev, const field_ops *op) {
  switch (ev->kind) {
    case ZAEV_RUN_START: {
      zev_run_start *p = &ev->run_start;
      const char **strs[] = {&p->session_id, &p->cwd, &p->provider, &p->model, &p->api_model};
      for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) op->str(strs[i], NULL);
      break;
    }
    case ZAEV_USER_MESSAGE:
      op->str(&ev->user_message.text, &ev->user_message.len);
      op->json(&ev->user_message.meta);
      break;
    case ZAEV_TEXT:
    case ZAEV_REASONING: op->str(&ev->delta.text, &ev->delta.len); break;
    case ZAEV_ASSISTANT_MESSAGE:
      op->str(&ev->assistant_message.text, &ev->assistant_message.len);
      op->str(&ev->assistant_message.reasoning, NULL);
      op->str(&ev->assistant_message.thinking, NULL);
      break;
    case ZAEV_TOOL_CALL: {
      zev_tool_call *p = &ev->tool_call;
      const char **strs[] = {&p->id, &p->name, &p->arguments, &p->side_effect, &p->signature};
      for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) op->str(strs[i], NULL);
      break;
    }
    case ZAEV_PERMISSION_REQUEST:
    case ZAEV_PERMISSION_DECISION: {
      zev_permission *p = &ev->permission;
      const char **strs[] = {&p->id,       &p->name,           &p->side_effect, &p->action,
                             &p->reason,   &p->mode,           &p->code,        &p->permission,
                             &p->autonomy, &p->decision_reason};
      for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) op->str(strs[i], NULL);
      op->json(&p->risk);
      op->json(&p->block);
      op->json(&p->grant);
      break;
    }
    case ZAEV_TOOL_RESULT:
      op->str(&ev->tool_result.id, NULL);
      op->str(&ev->tool_result.name, NULL);
      op->str(&ev->tool_result.output, &ev->tool_result.output_len);
      op->json(&ev->tool_result.meta);
      op->json(&ev->tool_result.changed_files);
      break;
    case ZAEV_USAGE: op->str(&ev->usage.model, NULL); break;
    case ZAEV_FINAL: op->str(&ev->final.text, NULL); break;
    case ZAEV_WARNING:
      op->str(&ev->warning.message, NULL);
      op->str(&ev->warning.code, NULL);
      op->json(&ev->warning.meta);
      break;
    case ZAEV_ERROR:
      op->str(&ev->error.code, NULL);
      op->str(&ev->error.message, NULL);
      break;
    case ZAEV_RUN_END: op->str(&ev->run_end.status, NULL); break;
    case ZAEV_PROGRESS:
      op->str(&ev->progress.id, NULL);
      op->str(&ev->progress.name, NULL);
      op->str(&ev->progress.message, NULL);
      break;
    case ZAEV_COMPACTION:
      op->str(&ev->compaction.method, NULL);
      op->str(&ev->compaction.reason, NULL);
      break;
    case ZAEV_CHECKPOINT:
      op->str(&ev->checkpoint.tool, NULL);
      op->json(&ev->checkpoint.files);
      break;
    case ZAEV_SUBAGENT_START:
    case ZAEV_SUBAGENT_EVENT:
    case ZAEV_SUBAGENT_END: {
      zev_subagent *p = &ev->subagent;
      const char **strs[] = {&p->call_id, &p->agent,  &p->child_session_id,
                             &p->description, &p->status, &p->message};
      for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) op->str(strs[i], NULL);
      op->json(&p->event);
      break;
    }
    case ZAEV_QUESTION:
      op->str(&ev->question.id, NULL);
      op->str(&ev->question.question, NULL);
      op->json(&ev->question.choices);
      break;
    case ZAEV_HOOK: op->json(&ev->hook.record); break;
    case ZAEV_TOOL_OUTPUT:
      op->str(&ev->tool_output.id, NULL);
      op->str(&ev->tool_output.name, NULL);
      op->str(&ev->tool_output.text, &ev->tool_output.len);
      break;
    case ZAEV_NETWORK:
      op->str(&ev->network.type, NULL);
      op->json(&ev->network.record);
      break;
    case ZAEV_MCP_SAMPLING: op->json(&ev->mcp_sampling.record); break;
  }
}

static void copy_str(const char **s, size_t *len) {
  if (!*s) {
    if (len) *len = 0;
    return;
  }
  char *copy = len && *len ? xstrndup(*s, *len) : xstrdup(*s);
  if (len) *len = strlen(copy);
  *s = copy;
}

static void copy_json(const json_t **j) {
  if (*j) *j = json_deep_copy(*j);
}

/* The payload's pointers are const views for sinks; a copy owns what they
 * point at, so its free drops the qualifier (through uintptr_t: not a cast
 * that hides a mistake elsewhere). */
static void free_str(const char **s, size_t *len) {
  (void)len;
  free((void *)(uintptr_t)*s);
}

static void free_json(const json_t **j) { json_decref((json_t *)(uintptr_t)*j); }

void *zsink_new(size_t size, zsink methods) {
  assert(size >= sizeof(zsink));
  zsink *s = xcalloc(1, size);
  *s = methods;
  return s;
}

void zsink_free(zsink *s) { free(s); }

zagent_event *zagent_event_copy(const zagent_event *ev) {
  zagent_event *c = xmalloc(sizeof *c);
  *c = *ev;
  each_owned_field(c, &(field_ops){copy_str, copy_json});
  return c;
}

void zagent_event_free(zagent_event *ev) {
  if (!ev) return;
  each_owned_field(ev, &(field_ops){free_str, free_json});
  free(ev);
}

static void set_opt_str(json_t *o, const char *key, const char *v) {
  if (v) json_object_set_new(o, key, json_string(v));
}

json_t *zagent_subagent_json(const zagent_event *ev) {
  const zev_subagent *sa = &ev->subagent;
  json_t *o = json_object();
  set_opt_str(o, "id", sa->call_id);
  set_opt_str(o, "agent", sa->agent);
  set_opt_str(o, "childSessionId", sa->child_session_id);
  if (ev->kind == ZAEV_SUBAGENT_START) set_opt_str(o, "description", sa->description);
  if (ev->kind == ZAEV_SUBAGENT_EVENT && sa->event)
    json_object_set(o, "event", (json_t *)sa->event);
  if (ev->kind == ZAEV_SUBAGENT_END) {
    set_opt_str(o, "status", sa->status);
    json_object_set_new(o, "exitCode", json_integer(sa->exit_code));
    json_object_set_new(o, "usage",
                        json_pack("{s:I, s:I, s:I}", "promptTokens",
                                  (json_int_t)sa->usage.prompt_tokens, "completionTokens",
                                  (json_int_t)sa->usage.completion_tokens, "totalTokens",
                                  (json_int_t)sa->usage.total_tokens));
    set_opt_str(o, "message", sa->message);
  }
  return o;
}
