/* test_agent_events.c — an agent event's deep copy (agent/events.h): what a
 * sink that hands events to another thread (the TUI) relies on. Every kind's
 * payload is copied with its strings and JSON values; the emitter's are
 * freed (and scribbled over) before the copy is read, so under ASan a copy
 * that still borrowed anything fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "agent/events.h"
#include "base/common.h"

/* The emitter's side: heap strings and JSON values the test owns and frees
 * right after the copy is made. */
typedef struct originals {
  char *strs[16];
  size_t nstrs;
  json_t *json[4];
  size_t njson;
} originals;

static const char *own_str(originals *o, const char *s) {
  assert_true(o->nstrs < sizeof o->strs / sizeof o->strs[0]);
  return o->strs[o->nstrs++] = xstrdup(s);
}

static const json_t *own_json(originals *o, json_t *j) {
  assert_true(o->njson < sizeof o->json / sizeof o->json[0]);
  return o->json[o->njson++] = j;
}

/* Copies ev, then destroys everything ev pointed at: the copy must not
 * notice. */
static zagent_event *copy_then_free_originals(const zagent_event *ev, originals *o) {
  zagent_event *c = zagent_event_copy(ev);
  for (size_t i = 0; i < o->nstrs; i++) {
    memset(o->strs[i], 'X', strlen(o->strs[i]));
    free(o->strs[i]);
  }
  for (size_t i = 0; i < o->njson; i++) {
    if (json_is_object(o->json[i])) json_object_clear(o->json[i]);
    if (json_is_array(o->json[i])) json_array_clear(o->json[i]);
    json_decref(o->json[i]);
  }
  return c;
}

static void run_start_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_RUN_START,
                     .run_start = {.session_id = own_str(&o, "zero_s1"),
                                   .cwd = own_str(&o, "/w"),
                                   .provider = own_str(&o, "openai"),
                                   .model = own_str(&o, "gpt-x"),
                                   .api_model = own_str(&o, "gpt-x-2")}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_int_equal(c->kind, ZAEV_RUN_START);
  assert_string_equal(c->run_start.session_id, "zero_s1");
  assert_string_equal(c->run_start.cwd, "/w");
  assert_string_equal(c->run_start.provider, "openai");
  assert_string_equal(c->run_start.model, "gpt-x");
  assert_string_equal(c->run_start.api_model, "gpt-x-2");
  zagent_event_free(c);
}

static void user_message_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_USER_MESSAGE,
                     .user_message = {.text = own_str(&o, "look here"),
                                      .len = 4,
                                      .meta = own_json(&o, json_pack("{s:[{s:s}]}", "images",
                                                                     "media_type", "image/png"))}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->user_message.text, "look");
  assert_int_equal(c->user_message.len, 4);
  const json_t *img = json_array_get(json_object_get(c->user_message.meta, "images"), 0);
  assert_string_equal(json_string_value(json_object_get(img, "media_type")), "image/png");
  zagent_event_free(c);
}

/* A streamed delta (len bytes, no NUL) ends up NUL-terminated; both delta
 * kinds share the payload. */
static void deltas_are_copied_nul_terminated(void **state) {
  (void)state;
  const zagent_event_kind kinds[] = {ZAEV_TEXT, ZAEV_REASONING};
  for (size_t k = 0; k < 2; k++) {
    originals o = {0};
    zagent_event ev = {.kind = kinds[k], .delta = {.text = own_str(&o, "abcdef"), .len = 3}};
    zagent_event *c = copy_then_free_originals(&ev, &o);
    assert_int_equal(c->kind, kinds[k]);
    assert_string_equal(c->delta.text, "abc");
    assert_int_equal(c->delta.len, 3);
    zagent_event_free(c);
  }
}

static void assistant_message_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_ASSISTANT_MESSAGE,
                     .assistant_message = {.text = own_str(&o, "the answer"),
                                           .len = 10,
                                           .reasoning = own_str(&o, "because"),
                                           .thinking = own_str(&o, "[{\"type\":\"thinking\"}]")}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->assistant_message.text, "the answer");
  assert_int_equal(c->assistant_message.len, 10);
  assert_string_equal(c->assistant_message.reasoning, "because");
  assert_string_equal(c->assistant_message.thinking, "[{\"type\":\"thinking\"}]");
  zagent_event_free(c);
}

static void tool_call_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = own_str(&o, "call_1"),
                                   .name = own_str(&o, "read_file"),
                                   .arguments = own_str(&o, "{\"path\":\"a\"}"),
                                   .side_effect = own_str(&o, "read"),
                                   .signature = own_str(&o, "sig")}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->tool_call.id, "call_1");
  assert_string_equal(c->tool_call.name, "read_file");
  assert_string_equal(c->tool_call.arguments, "{\"path\":\"a\"}");
  assert_string_equal(c->tool_call.side_effect, "read");
  assert_string_equal(c->tool_call.signature, "sig");
  zagent_event_free(c);
}

/* A request and a decision share the payload; every string and all three
 * JSON values are the copy's own. */
static void permission_events_are_copied(void **state) {
  (void)state;
  const zagent_event_kind kinds[] = {ZAEV_PERMISSION_REQUEST, ZAEV_PERMISSION_DECISION};
  for (size_t k = 0; k < 2; k++) {
    originals o = {0};
    zagent_event ev = {.kind = kinds[k],
                       .permission = {.id = own_str(&o, "c4"),
                                      .name = own_str(&o, "write_file"),
                                      .side_effect = own_str(&o, "write"),
                                      .action = own_str(&o, "deny"),
                                      .reason = own_str(&o, "risky"),
                                      .mode = own_str(&o, "ask"),
                                      .code = own_str(&o, "user_denied"),
                                      .permission = own_str(&o, "prompt"),
                                      .autonomy = own_str(&o, "low"),
                                      .decision_reason = own_str(&o, "rule_x"),
                                      .risk = own_json(&o, json_pack("{s:s}", "level", "high")),
                                      .block =
                                          own_json(&o, json_pack("{s:s}", "code", "user_denied")),
                                      .grant = own_json(&o, json_pack("{s:s}", "source", "user")),
                                      .grant_matched = true}};
    zagent_event *c = copy_then_free_originals(&ev, &o);
    const zev_permission *p = &c->permission;
    assert_int_equal(c->kind, kinds[k]);
    assert_string_equal(p->id, "c4");
    assert_string_equal(p->name, "write_file");
    assert_string_equal(p->side_effect, "write");
    assert_string_equal(p->action, "deny");
    assert_string_equal(p->reason, "risky");
    assert_string_equal(p->mode, "ask");
    assert_string_equal(p->code, "user_denied");
    assert_string_equal(p->permission, "prompt");
    assert_string_equal(p->autonomy, "low");
    assert_string_equal(p->decision_reason, "rule_x");
    assert_string_equal(json_string_value(json_object_get(p->risk, "level")), "high");
    assert_string_equal(json_string_value(json_object_get(p->block, "code")), "user_denied");
    assert_string_equal(json_string_value(json_object_get(p->grant, "source")), "user");
    assert_true(p->grant_matched);
    zagent_event_free(c);
  }
}

static void tool_result_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_TOOL_RESULT,
                     .tool_result = {.id = own_str(&o, "call_1"),
                                     .name = own_str(&o, "exec_command"),
                                     .ok = true,
                                     .output = own_str(&o, "abcdef"),
                                     .output_len = 3,
                                     .truncated = true,
                                     .meta = own_json(&o, json_pack("{s:i}", "exit_code", 3)),
                                     .changed_files = own_json(&o, json_pack("[s]", "a.c"))}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  const zev_tool_result *r = &c->tool_result;
  assert_string_equal(r->id, "call_1");
  assert_string_equal(r->name, "exec_command");
  assert_true(r->ok);
  assert_string_equal(r->output, "abc");
  assert_int_equal(r->output_len, 3);
  assert_true(r->truncated);
  assert_int_equal(json_integer_value(json_object_get(r->meta, "exit_code")), 3);
  assert_string_equal(json_string_value(json_array_get(r->changed_files, 0)), "a.c");
  zagent_event_free(c);
}

static void usage_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_USAGE,
                     .usage = {.tokens = {100, 20, 120, 4, 2}, .model = own_str(&o, "gpt-x")}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_int_equal(c->usage.tokens.prompt_tokens, 100);
  assert_int_equal(c->usage.tokens.completion_tokens, 20);
  assert_int_equal(c->usage.tokens.total_tokens, 120);
  assert_int_equal(c->usage.tokens.cached_tokens, 4);
  assert_int_equal(c->usage.tokens.reasoning_tokens, 2);
  assert_string_equal(c->usage.model, "gpt-x");
  zagent_event_free(c);
}

static void final_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_FINAL, .final = {.text = own_str(&o, "done")}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->final.text, "done");
  zagent_event_free(c);
}

static void warning_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_WARNING,
                     .warning = {.message = own_str(&o, "sandbox degraded"),
                                 .code = own_str(&o, "sandbox_degraded"),
                                 .meta = own_json(&o, json_pack("{s:s}", "backend", "none"))}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->warning.message, "sandbox degraded");
  assert_string_equal(c->warning.code, "sandbox_degraded");
  assert_string_equal(json_string_value(json_object_get(c->warning.meta, "backend")), "none");
  zagent_event_free(c);
}

static void error_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_ERROR,
                     .error = {.code = own_str(&o, "provider_error"),
                               .message = own_str(&o, "provider down"),
                               .recoverable = true}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->error.code, "provider_error");
  assert_string_equal(c->error.message, "provider down");
  assert_true(c->error.recoverable);
  zagent_event_free(c);
}

static void run_end_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_RUN_END,
                     .run_end = {.status = own_str(&o, "incomplete"), .exit_code = 4}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->run_end.status, "incomplete");
  assert_int_equal(c->run_end.exit_code, 4);
  zagent_event_free(c);
}

static void progress_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_PROGRESS,
                     .progress = {.id = own_str(&o, "c1"),
                                  .name = own_str(&o, "mcp__x__y"),
                                  .progress = 2,
                                  .total = -1,
                                  .message = own_str(&o, "halfway")}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->progress.id, "c1");
  assert_string_equal(c->progress.name, "mcp__x__y");
  assert_true(c->progress.progress == 2 && c->progress.total < 0);
  assert_string_equal(c->progress.message, "halfway");
  zagent_event_free(c);
}

static void compaction_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_COMPACTION,
                     .compaction = {.method = own_str(&o, "summary"),
                                    .reason = own_str(&o, "threshold"),
                                    .tokens_before = 9000,
                                    .tokens_after = 1200}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_string_equal(c->compaction.method, "summary");
  assert_string_equal(c->compaction.reason, "threshold");
  assert_int_equal(c->compaction.tokens_before, 9000);
  assert_int_equal(c->compaction.tokens_after, 1200);
  zagent_event_free(c);
}

static void checkpoint_is_copied(void **state) {
  (void)state;
  originals o = {0};
  zagent_event ev = {.kind = ZAEV_CHECKPOINT,
                     .checkpoint = {.sequence = 7,
                                    .tool = own_str(&o, "write_file"),
                                    .files = own_json(&o, json_pack("[s]", "/w/a.c"))}};
  zagent_event *c = copy_then_free_originals(&ev, &o);
  assert_int_equal(c->checkpoint.sequence, 7);
  assert_string_equal(c->checkpoint.tool, "write_file");
  assert_string_equal(json_string_value(json_array_get(c->checkpoint.files, 0)), "/w/a.c");
  zagent_event_free(c);
}

/* Every kind with an empty payload (NULL strings and JSON) copies and frees
 * cleanly; a length-counted text left NULL keeps length 0. */
static void empty_payloads_of_every_kind(void **state) {
  (void)state;
  for (int k = ZAEV_RUN_START; k <= ZAEV_CHECKPOINT; k++) {
    zagent_event ev = {.kind = (zagent_event_kind)k};
    zagent_event *c = zagent_event_copy(&ev);
    assert_int_equal(c->kind, k);
    assert_null(c->delta.text);
    zagent_event_free(c);
  }
  zagent_event_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(run_start_is_copied),
      cmocka_unit_test(user_message_is_copied),
      cmocka_unit_test(deltas_are_copied_nul_terminated),
      cmocka_unit_test(assistant_message_is_copied),
      cmocka_unit_test(tool_call_is_copied),
      cmocka_unit_test(permission_events_are_copied),
      cmocka_unit_test(tool_result_is_copied),
      cmocka_unit_test(usage_is_copied),
      cmocka_unit_test(final_is_copied),
      cmocka_unit_test(warning_is_copied),
      cmocka_unit_test(error_is_copied),
      cmocka_unit_test(run_end_is_copied),
      cmocka_unit_test(progress_is_copied),
      cmocka_unit_test(compaction_is_copied),
      cmocka_unit_test(checkpoint_is_copied),
      cmocka_unit_test(empty_payloads_of_every_kind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
