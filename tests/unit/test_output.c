/* test_output.c — the exec output writers (text, json, stream-json) and run
 * ids, written into memory streams and read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/common.h"
#include "base/json.h"
#include "ui/output.h"

#define RUN_ID "run_20250102030405_abcdef"

/* An in-memory FILE; text is valid after mem_text(). */
typedef struct mem {
  FILE *f;
  char *buf;
  size_t len;
} mem;

static void mem_open(mem *m) {
  m->buf = NULL;
  m->len = 0;
  m->f = open_memstream(&m->buf, &m->len);
  assert_non_null(m->f);
}

static const char *mem_text(mem *m) {
  fflush(m->f);
  return m->buf ? m->buf : "";
}

static void mem_close(mem *m) {
  fclose(m->f);
  free(m->buf);
}

static void emit(zsink *s, zagent_event ev) { s->emit(s, &ev); }

/* Splits the stream-json output into parsed lines, checking the envelope of
 * every one. New reference. */
static json_t *parse_lines(const char *text) {
  json_t *arr = json_array();
  const char *p = text;
  size_t lineno = 0;
  while (*p) {
    const char *nl = strchr(p, '\n');
    if (!nl) {
      fail_msg("line %zu is not newline-terminated: %s", lineno + 1, p);
      break; /* not reached: fail_msg ends the test */
    }
    lineno++;
    json_error_t je;
    json_t *o = json_loadb(p, (size_t)(nl - p), 0, &je);
    if (!json_is_object(o)) fail_msg("line %zu is not a JSON object: %.*s", lineno,
                                     (int)(nl - p), p);
    assert_int_equal(zjson_int_or(o, "schemaVersion", 0), 2);
    assert_true(json_is_integer(json_object_get(o, "schemaVersion")));
    assert_non_null(zjson_str(o, "type"));
    assert_string_equal(zjson_str_or(o, "runId", ""), RUN_ID);
    json_array_append_new(arr, o);
    p = nl + 1;
  }
  return arr;
}

static json_t *line_of_type(json_t *lines, const char *type, size_t nth) {
  size_t i;
  json_t *o;
  json_array_foreach(lines, i, o) {
    if (!strcmp(zjson_str_or(o, "type", ""), type) && nth-- == 0) return o;
  }
  fail_msg("no line of type %s", type);
  return NULL;
}

/* ---- stream-json ---------------------------------------------------------- */

static void test_stream_json_full_run(void **state) {
  (void)state;
  mem m;
  mem_open(&m);
  zsink *s = zout_stream_json_new(m.f, RUN_ID);
  emit(s, (zagent_event){.kind = ZAEV_RUN_START,
                         .run_start = {.session_id = "zero_s1",
                                       .cwd = "/w",
                                       .provider = "openai",
                                       .model = "gpt-x",
                                       .api_model = "gpt-x-2"}});
  emit(s, (zagent_event){.kind = ZAEV_USER_MESSAGE, .user_message = {.text = "hi", .len = 2}});
  emit(s, (zagent_event){.kind = ZAEV_REASONING, .delta = {.text = "hmm", .len = 3}});
  emit(s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "Hel", .len = 3}});
  emit(s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "", .len = 0}});
  emit(s, (zagent_event){.kind = ZAEV_ASSISTANT_MESSAGE,
                         .assistant_message = {.text = "Hel", .len = 3}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_CALL,
                         .tool_call = {.id = "c1",
                                       .name = "read_file",
                                       .arguments = "{\"path\":\"a.txt\"}",
                                       .side_effect = "read"}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_CALL,
                         .tool_call = {.id = "c2",
                                       .name = "read_file",
                                       .arguments = "{\"path\": ",
                                       .side_effect = "read"}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_CALL,
                         .tool_call = {.id = "c3",
                                       .name = "list_directory",
                                       .arguments = " \n",
                                       .side_effect = "read"}});
  emit(s, (zagent_event){.kind = ZAEV_PERMISSION_REQUEST,
                         .permission = {.id = "c4",
                                        .name = "write_file",
                                        .side_effect = "write",
                                        .action = "prompt",
                                        .reason = "needs ok",
                                        .mode = "ask"}});
  emit(s, (zagent_event){.kind = ZAEV_PERMISSION_DECISION,
                         .permission = {.id = "c4",
                                        .name = "write_file",
                                        .side_effect = "write",
                                        .action = "deny",
                                        .reason = "no approver",
                                        .mode = "ask"}});
  emit(s, (zagent_event){.kind = ZAEV_PERMISSION_DECISION,
                         .permission = {.id = "c1",
                                        .name = "read_file",
                                        .side_effect = "read",
                                        .action = "allow",
                                        .reason = "read-only",
                                        .mode = "ask"}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c1",
                                         .name = "read_file",
                                         .ok = true,
                                         .output = "1\tx\n",
                                         .output_len = 4}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c2",
                                         .name = "read_file",
                                         .ok = false,
                                         .output = "invalid arguments",
                                         .output_len = 17}});
  emit(s, (zagent_event){.kind = ZAEV_USAGE,
                         .usage = {.tokens = {100, 20, 120, 0, 0}, .model = "gpt-x"}});
  emit(s,
       (zagent_event){.kind = ZAEV_USAGE, .usage = {.tokens = {5, 6, 11, 3, 2}, .model = "gpt-x"}});
  emit(s, (zagent_event){.kind = ZAEV_WARNING, .warning = {.message = "retrying"}});
  emit(s, (zagent_event){
              .kind = ZAEV_ERROR,
              .error = {.code = "provider_error", .message = "HTTP 500", .recoverable = true}});
  emit(s, (zagent_event){.kind = ZAEV_FINAL, .final = {.text = "Hel"}});
  emit(s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "error", .exit_code = 3}});
  assert_int_equal(s->finish(s), 0);

  json_t *lines = parse_lines(mem_text(&m));
  static const char *want[] = {"run_start", "reasoning", "text", "tool_call", "tool_call",
                               "tool_call", "permission_request", "permission_decision",
                               "permission_decision", "tool_result", "tool_result", "usage",
                               "usage", "warning", "error", "final", "run_end"};
  assert_int_equal(json_array_size(lines), ZARRAY_LEN(want));
  for (size_t i = 0; i < ZARRAY_LEN(want); i++)
    assert_string_equal(zjson_str_or(json_array_get(lines, i), "type", ""), want[i]);

  json_t *o = line_of_type(lines, "run_start", 0);
  assert_string_equal(zjson_str_or(o, "sessionId", ""), "zero_s1");
  assert_string_equal(zjson_str_or(o, "cwd", ""), "/w");
  assert_string_equal(zjson_str_or(o, "provider", ""), "openai");
  assert_string_equal(zjson_str_or(o, "model", ""), "gpt-x");
  assert_string_equal(zjson_str_or(o, "apiModel", ""), "gpt-x-2");

  assert_string_equal(zjson_str_or(line_of_type(lines, "reasoning", 0), "delta", ""), "hmm");
  assert_string_equal(zjson_str_or(line_of_type(lines, "text", 0), "delta", ""), "Hel");

  /* args: an object when it parses, the raw string when not, absent when blank. */
  o = line_of_type(lines, "tool_call", 0);
  assert_string_equal(zjson_str_or(o, "id", ""), "c1");
  assert_string_equal(zjson_str_or(o, "sideEffect", ""), "read");
  json_t *args = json_object_get(o, "args");
  assert_true(json_is_object(args));
  assert_string_equal(zjson_str_or(args, "path", ""), "a.txt");
  o = line_of_type(lines, "tool_call", 1);
  assert_true(json_is_string(json_object_get(o, "args")));
  assert_string_equal(zjson_str(o, "args"), "{\"path\": ");
  o = line_of_type(lines, "tool_call", 2);
  assert_null(json_object_get(o, "args"));

  o = line_of_type(lines, "permission_request", 0);
  assert_string_equal(zjson_str_or(o, "action", ""), "prompt");
  assert_false(zjson_bool_or(o, "permissionGranted", true));
  o = line_of_type(lines, "permission_decision", 0);
  assert_string_equal(zjson_str_or(o, "action", ""), "deny");
  assert_false(zjson_bool_or(o, "permissionGranted", true));
  assert_string_equal(zjson_str_or(o, "permissionMode", ""), "ask");
  assert_string_equal(zjson_str_or(o, "sideEffect", ""), "write");
  assert_string_equal(zjson_str_or(o, "reason", ""), "no approver");
  assert_string_equal(zjson_str_or(o, "name", ""), "write_file");
  o = line_of_type(lines, "permission_decision", 1);
  assert_true(zjson_bool_or(o, "permissionGranted", false));

  o = line_of_type(lines, "tool_result", 0);
  assert_string_equal(zjson_str_or(o, "status", ""), "ok");
  assert_string_equal(zjson_str_or(o, "output", ""), "1\tx\n");
  assert_false(zjson_bool_or(o, "truncated", true));
  o = line_of_type(lines, "tool_result", 1);
  assert_string_equal(zjson_str_or(o, "status", ""), "error");

  o = line_of_type(lines, "usage", 0);
  assert_int_equal(zjson_int_or(o, "promptTokens", -1), 100);
  assert_int_equal(zjson_int_or(o, "completionTokens", -1), 20);
  assert_int_equal(zjson_int_or(o, "totalTokens", -1), 120);
  assert_null(json_object_get(o, "cachedInputTokens"));
  assert_null(json_object_get(o, "reasoningTokens"));
  o = line_of_type(lines, "usage", 1);
  assert_int_equal(zjson_int_or(o, "cachedInputTokens", -1), 3);
  assert_int_equal(zjson_int_or(o, "reasoningTokens", -1), 2);

  assert_string_equal(zjson_str_or(line_of_type(lines, "warning", 0), "message", ""),
                      "retrying");
  o = line_of_type(lines, "error", 0);
  assert_string_equal(zjson_str_or(o, "code", ""), "provider_error");
  assert_string_equal(zjson_str_or(o, "message", ""), "HTTP 500");
  assert_true(zjson_bool_or(o, "recoverable", false));
  assert_string_equal(zjson_str_or(line_of_type(lines, "final", 0), "text", ""), "Hel");

  o = json_array_get(lines, json_array_size(lines) - 1);
  assert_string_equal(zjson_str_or(o, "type", ""), "run_end");
  assert_string_equal(zjson_str_or(o, "status", ""), "error");
  assert_int_equal(zjson_int_or(o, "exitCode", -1), 3);

  json_decref(lines);
  s->destroy(s);
  mem_close(&m);
}

static json_t *one_tool_result(const char *text, size_t len, bool truncated) {
  mem m;
  mem_open(&m);
  zsink *s = zout_stream_json_new(m.f, RUN_ID);
  emit(s, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c",
                                         .name = "exec_command",
                                         .ok = true,
                                         .output = text,
                                         .output_len = len,
                                         .truncated = truncated}});
  assert_int_equal(s->finish(s), 0);
  json_t *lines = parse_lines(mem_text(&m));
  assert_int_equal(json_array_size(lines), 1);
  json_t *o = json_incref(json_array_get(lines, 0));
  json_decref(lines);
  s->destroy(s);
  mem_close(&m);
  return o;
}

/* Go zero's schema v2 fields: checkpoint events, tool_result changedFiles
 * (only when files changed) and truncated (always), the permission fields
 * (sessionId from run_start, permission, autonomy, decisionReason, risk
 * always an object, grantMatched only when true). */
static void test_stream_json_go_zero_fields(void **state) {
  (void)state;
  mem m;
  mem_open(&m);
  zsink *s = zout_stream_json_new(m.f, RUN_ID);
  emit(s,
       (zagent_event){.kind = ZAEV_RUN_START, .run_start = {.session_id = "zero_s9", .cwd = "/w"}});
  json_t *risk = json_pack("{s:s, s:[s], s:s}", "level", "medium", "categories", "write",
                           "reason", "medium risk: write");
  json_t *grant = json_pack("{s:s, s:s, s:s, s:s, s:s}", "tool", "write_file", "kind", "tool",
                            "action", "allow", "scope", "always", "source", "saved");
  emit(s, (zagent_event){.kind = ZAEV_PERMISSION_DECISION,
                         .permission = {.id = "c1",
                                        .name = "write_file",
                                        .side_effect = "write",
                                        .action = "allow",
                                        .reason = "grant",
                                        .mode = "auto",
                                        .code = "allowed",
                                        .permission = "allow",
                                        .autonomy = "medium",
                                        .decision_reason = "allowed",
                                        .risk = risk,
                                        .grant_matched = true,
                                        .grant = grant}});
  emit(s, (zagent_event){.kind = ZAEV_PERMISSION_REQUEST,
                         .permission = {.id = "c2",
                                        .name = "exec_command",
                                        .side_effect = "shell",
                                        .action = "prompt",
                                        .reason = "ask",
                                        .mode = "ask"}});
  json_t *files = json_pack("[s]", "/w/a.txt");
  emit(s, (zagent_event){.kind = ZAEV_CHECKPOINT,
                         .checkpoint = {.sequence = 7, .tool = "write_file", .files = files}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c1",
                                         .name = "write_file",
                                         .ok = true,
                                         .output = "wrote",
                                         .output_len = 5,
                                         .changed_files = files}});
  json_t *none = json_array();
  emit(s, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c3",
                                         .name = "read_file",
                                         .ok = true,
                                         .output = "x",
                                         .output_len = 1,
                                         .changed_files = none}});
  json_decref(none);
  json_decref(files);
  json_decref(risk);
  json_decref(grant);
  assert_int_equal(s->finish(s), 0);

  json_t *lines = parse_lines(mem_text(&m));
  json_t *o = line_of_type(lines, "permission_decision", 0);
  assert_string_equal(zjson_str_or(o, "sessionId", ""), "zero_s9");
  assert_string_equal(zjson_str_or(o, "permission", ""), "allow");
  assert_string_equal(zjson_str_or(o, "autonomy", ""), "medium");
  assert_string_equal(zjson_str_or(o, "decisionReason", ""), "allowed");
  assert_true(json_is_true(json_object_get(o, "permissionGranted")));
  assert_true(json_is_true(json_object_get(o, "grantMatched")));
  assert_string_equal(zjson_str_or(json_object_get(o, "risk"), "level", ""), "medium");
  assert_string_equal(zjson_str_or(json_object_get(o, "grant"), "source", ""), "saved");
  assert_string_equal(zjson_str_or(o, "code", ""), "allowed"); /* kept */

  o = line_of_type(lines, "permission_request", 0);
  assert_true(json_is_false(json_object_get(o, "permissionGranted")));
  assert_null(json_object_get(o, "grantMatched"));
  json_t *r = json_object_get(o, "risk"); /* a producer without risk: still an object */
  assert_true(json_is_object(r));
  assert_string_equal(zjson_str_or(r, "level", ""), "low");
  assert_true(json_is_array(json_object_get(r, "categories")));

  o = line_of_type(lines, "checkpoint", 0);
  json_t *cp = json_object_get(o, "checkpoint");
  assert_int_equal(zjson_int_or(cp, "sequence", 0), 7);
  assert_string_equal(zjson_str_or(cp, "tool", ""), "write_file");
  assert_int_equal(json_array_size(json_object_get(cp, "files")), 1);
  assert_string_equal(json_string_value(json_array_get(json_object_get(cp, "files"), 0)),
                      "/w/a.txt");

  o = line_of_type(lines, "tool_result", 0);
  assert_true(json_is_false(json_object_get(o, "truncated")));
  json_t *ch = json_object_get(o, "changedFiles");
  assert_int_equal(json_array_size(ch), 1);
  assert_string_equal(json_string_value(json_array_get(ch, 0)), "/w/a.txt");
  o = line_of_type(lines, "tool_result", 1);
  assert_null(json_object_get(o, "changedFiles"));
  assert_true(json_is_false(json_object_get(o, "truncated")));

  json_decref(lines);
  s->destroy(s);
  mem_close(&m);
}

static void test_stream_json_tool_output_capped_on_utf8_boundary(void **state) {
  (void)state;
  /* 10239 ASCII bytes then "€" (3 bytes) straddling the 10 KiB cap, then more. */
  size_t cap = ZOUT_TOOL_OUTPUT_SHOWN;
  assert_int_equal(cap, 10240);
  size_t len = cap + 100;
  char *text = xmalloc(len + 1);
  memset(text, 'a', len);
  memcpy(text + cap - 1, "\xe2\x82\xac", 3);
  text[len] = '\0';

  json_t *o = one_tool_result(text, len, false);
  const char *out = zjson_str(o, "output");
  assert_non_null(out); /* an invalid UTF-8 cut would make the string vanish */
  size_t out_len = json_string_length(json_object_get(o, "output"));
  const char *marker = "\n[truncated]";
  assert_int_equal(out_len, cap - 1 + strlen(marker));
  assert_memory_equal(out, text, cap - 1);
  assert_string_equal(out + cap - 1, marker);
  assert_true(zjson_bool_or(o, "truncated", false));
  json_decref(o);

  /* Exactly at the cap: shown whole, not truncated. */
  memset(text, 'b', cap);
  o = one_tool_result(text, cap, false);
  assert_int_equal(json_string_length(json_object_get(o, "output")), cap);
  assert_false(zjson_bool_or(o, "truncated", true));
  assert_null(strstr(zjson_str(o, "output"), "[truncated]"));
  json_decref(o);

  /* A result the tool already cut is reported as truncated, text untouched. */
  o = one_tool_result("short", 5, true);
  assert_string_equal(zjson_str(o, "output"), "short");
  assert_true(zjson_bool_or(o, "truncated", false));
  json_decref(o);
  free(text);
}

static void test_stream_json_reports_lost_output(void **state) {
  (void)state;
  FILE *full = fopen("/dev/full", "w");
  if (!full) skip();
  zsink *s = zout_stream_json_new(full, RUN_ID);
  emit(s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "x", .len = 1}});
  assert_int_equal(s->finish(s), -1);
  s->destroy(s);
  fclose(full);
}

/* ---- json ----------------------------------------------------------------- */

static void test_json_writes_one_object_at_run_end(void **state) {
  (void)state;
  mem m;
  mem_open(&m);
  zsink *s = zout_json_new(m.f, RUN_ID);
  emit(s, (zagent_event){.kind = ZAEV_RUN_START,
                         .run_start = {.session_id = "zero_s1",
                                       .cwd = "/w",
                                       .provider = "openai",
                                       .model = "gpt-x"}});
  emit(s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "Hi", .len = 2}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_CALL,
                         .tool_call = {.id = "c1", .name = "read_file", .arguments = "{}"}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_CALL,
                         .tool_call = {.id = "c2", .name = "write_file", .arguments = "{}"}});
  emit(s, (zagent_event){
              .kind = ZAEV_TOOL_RESULT,
              .tool_result = {.id = "c2", .ok = false, .output = "denied", .output_len = 6}});
  emit(s, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                         .tool_result = {.id = "c1", .ok = true, .output = "ok", .output_len = 2}});
  emit(s, (zagent_event){.kind = ZAEV_USAGE, .usage = {.tokens = {10, 2, 12, 0, 0}}});
  emit(s, (zagent_event){.kind = ZAEV_USAGE, .usage = {.tokens = {30, 4, 34, 0, 0}}});
  emit(s, (zagent_event){.kind = ZAEV_WARNING, .warning = {.message = "careful"}});
  emit(s, (zagent_event){.kind = ZAEV_FINAL, .final = {.text = "the answer"}});
  /* Nothing is written before the run ends. */
  assert_string_equal(mem_text(&m), "");
  emit(s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "success", .exit_code = 0}});
  assert_int_equal(s->finish(s), 0);

  const char *text = mem_text(&m);
  const char *nl = strchr(text, '\n');
  assert_non_null(nl);
  assert_string_equal(nl + 1, ""); /* exactly one line */
  json_t *o = json_loads(text, 0, NULL);
  assert_true(json_is_object(o));
  assert_string_equal(zjson_str_or(o, "type", ""), "result");
  assert_int_equal(zjson_int_or(o, "schemaVersion", 0), 2);
  assert_string_equal(zjson_str_or(o, "runId", ""), RUN_ID);
  assert_string_equal(zjson_str_or(o, "sessionId", ""), "zero_s1");
  assert_string_equal(zjson_str_or(o, "provider", ""), "openai");
  assert_string_equal(zjson_str_or(o, "model", ""), "gpt-x");
  assert_string_equal(zjson_str_or(o, "status", ""), "success");
  assert_int_equal(zjson_int_or(o, "exitCode", -1), 0);
  assert_string_equal(zjson_str_or(o, "text", ""), "the answer");
  json_t *u = json_object_get(o, "usage");
  assert_int_equal(zjson_int_or(u, "promptTokens", -1), 40);
  assert_int_equal(zjson_int_or(u, "completionTokens", -1), 6);
  assert_int_equal(zjson_int_or(u, "totalTokens", -1), 46);
  json_t *calls = json_object_get(o, "toolCalls");
  assert_int_equal(json_array_size(calls), 2);
  assert_string_equal(zjson_str_or(json_array_get(calls, 0), "id", ""), "c1");
  assert_string_equal(zjson_str_or(json_array_get(calls, 0), "name", ""), "read_file");
  assert_string_equal(zjson_str_or(json_array_get(calls, 0), "status", ""), "ok");
  assert_string_equal(zjson_str_or(json_array_get(calls, 1), "id", ""), "c2");
  assert_string_equal(zjson_str_or(json_array_get(calls, 1), "status", ""), "error");
  json_t *w = json_object_get(o, "warnings");
  assert_int_equal(json_array_size(w), 1);
  assert_string_equal(json_string_value(json_array_get(w, 0)), "careful");
  assert_null(json_object_get(o, "error"));
  json_decref(o);
  s->destroy(s);
  mem_close(&m);
}

static void test_json_error_run_has_error_and_empty_text(void **state) {
  (void)state;
  mem m;
  mem_open(&m);
  zsink *s = zout_json_new(m.f, RUN_ID);
  emit(s, (zagent_event){.kind = ZAEV_ERROR,
                         .error = {.code = "incomplete",
                                   .message = "maxTurns (3) reached",
                                   .recoverable = true}});
  emit(s,
       (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "incomplete", .exit_code = 4}});
  assert_int_equal(s->finish(s), 0);
  json_t *o = json_loads(mem_text(&m), 0, NULL);
  assert_true(json_is_object(o));
  assert_string_equal(zjson_str_or(o, "status", ""), "incomplete");
  assert_int_equal(zjson_int_or(o, "exitCode", -1), 4);
  assert_string_equal(zjson_str_or(o, "text", "absent"), "");
  json_t *e = json_object_get(o, "error");
  assert_string_equal(zjson_str_or(e, "code", ""), "incomplete");
  assert_string_equal(zjson_str_or(e, "message", ""), "maxTurns (3) reached");
  assert_true(zjson_bool_or(e, "recoverable", false));
  assert_int_equal(json_array_size(json_object_get(o, "toolCalls")), 0);
  assert_int_equal(zjson_int_or(json_object_get(o, "usage"), "totalTokens", -1), 0);
  json_decref(o);
  s->destroy(s);
  mem_close(&m);
}

static void test_json_reports_lost_output(void **state) {
  (void)state;
  FILE *full = fopen("/dev/full", "w");
  if (!full) skip();
  zsink *s = zout_json_new(full, RUN_ID);
  emit(s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "success"}});
  assert_int_equal(s->finish(s), -1);
  s->destroy(s);
  fclose(full);
}

/* ---- text ----------------------------------------------------------------- */

typedef struct text_fx {
  mem out, diag;
  zsink *s;
} text_fx;

static void text_open(text_fx *t) {
  mem_open(&t->out);
  mem_open(&t->diag);
  t->s = zout_text_new(t->out.f, t->diag.f);
}

static void text_close(text_fx *t) {
  t->s->destroy(t->s);
  mem_close(&t->out);
  mem_close(&t->diag);
}

static void test_text_streams_answer_and_tool_activity(void **state) {
  (void)state;
  text_fx t;
  text_open(&t);
  emit(t.s, (zagent_event){.kind = ZAEV_RUN_START, .run_start = {.session_id = "zero_s1"}});
  emit(t.s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "Looking", .len = 7}});
  emit(t.s, (zagent_event){.kind = ZAEV_TOOL_CALL,
                           .tool_call = {.id = "c1", .name = "read_file", .arguments = "{}"}});
  emit(t.s, (zagent_event){
                .kind = ZAEV_PERMISSION_DECISION,
                .permission = {.name = "read_file", .action = "allow", .reason = "read-only"}});
  emit(t.s, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                           .tool_result = {.id = "c1",
                                           .ok = true,
                                           .output = "  line one\n\n  line two  ",
                                           .output_len = 24}});
  emit(t.s,
       (zagent_event){.kind = ZAEV_TOOL_CALL, .tool_call = {.id = "c2", .name = "write_file"}});
  emit(t.s, (zagent_event){
                .kind = ZAEV_PERMISSION_DECISION,
                .permission = {.name = "write_file", .action = "deny", .reason = "plan mode"}});
  emit(t.s, (zagent_event){.kind = ZAEV_TOOL_RESULT,
                           .tool_result = {.id = "c2",
                                           .ok = false,
                                           .output = "permission denied",
                                           .output_len = 17}});
  emit(t.s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "Done", .len = 4}});
  emit(t.s, (zagent_event){.kind = ZAEV_FINAL, .final = {.text = "LookingDone"}});
  emit(t.s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "success"}});
  assert_int_equal(t.s->finish(t.s), 0);

  /* The streamed text is the answer; FINAL is not printed again; the line
   * cut before the tool line and the newline at the end are added. */
  assert_string_equal(mem_text(&t.out), "Looking\nDone\n");
  assert_string_equal(mem_text(&t.diag),
                      "[tool] read_file\n"
                      "[result] line one line two\n"
                      "[tool] write_file\n"
                      "[permission] write_file deny: plan mode\n"
                      "[result] (error) permission denied\n");
  text_close(&t);
}

static void test_text_prints_final_only_when_nothing_streamed(void **state) {
  (void)state;
  text_fx t;
  text_open(&t);
  emit(t.s, (zagent_event){.kind = ZAEV_FINAL, .final = {.text = "only final"}});
  emit(t.s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "success"}});
  assert_string_equal(mem_text(&t.out), "only final\n");
  assert_string_equal(mem_text(&t.diag), "");
  text_close(&t);

  /* A final that already ends in a newline gets no second one. */
  text_open(&t);
  emit(t.s, (zagent_event){.kind = ZAEV_FINAL, .final = {.text = "with newline\n"}});
  emit(t.s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "success"}});
  assert_string_equal(mem_text(&t.out), "with newline\n");
  text_close(&t);

  /* Streamed text ending in a newline: nothing is added. */
  text_open(&t);
  emit(t.s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "streamed\n", .len = 9}});
  emit(t.s, (zagent_event){.kind = ZAEV_FINAL, .final = {.text = "streamed\n"}});
  emit(t.s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "success"}});
  assert_string_equal(mem_text(&t.out), "streamed\n");
  text_close(&t);
}

static void test_text_incomplete_interrupted_and_errors(void **state) {
  (void)state;
  text_fx t;
  text_open(&t);
  emit(t.s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "partial", .len = 7}});
  emit(t.s, (zagent_event){.kind = ZAEV_WARNING, .warning = {.message = "slow provider"}});
  emit(t.s, (zagent_event){.kind = ZAEV_ERROR,
                           .error = {.code = "incomplete", .message = "maxTurns (2) reached"}});
  emit(t.s,
       (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "incomplete", .exit_code = 4}});
  assert_string_equal(mem_text(&t.out), "partial\n");
  assert_string_equal(mem_text(&t.diag),
                      "[zero] WARNING: slow provider\n"
                      "Run incomplete (not reported as success): maxTurns (2) reached\n");
  text_close(&t);

  text_open(&t);
  emit(t.s, (zagent_event){.kind = ZAEV_ERROR,
                           .error = {.code = "interrupted", .message = "cancelled"}});
  emit(t.s, (zagent_event){.kind = ZAEV_ERROR,
                           .error = {.code = "provider_error", .message = "HTTP 401"}});
  emit(t.s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "error"}});
  assert_string_equal(mem_text(&t.out), "");
  assert_string_equal(mem_text(&t.diag), "Interrupted.\n[zero] HTTP 401\n");
  text_close(&t);
}

static void test_text_result_summary_is_capped(void **state) {
  (void)state;
  text_fx t;
  text_open(&t);
  char long_text[600];
  memset(long_text, 'z', sizeof long_text);
  emit(t.s, (zagent_event){
                .kind = ZAEV_TOOL_RESULT,
                .tool_result = {.ok = true, .output = long_text, .output_len = sizeof long_text}});
  const char *d = mem_text(&t.diag);
  assert_int_equal(strlen(d), strlen("[result] ") + 200 + 3 + 1);
  assert_non_null(strstr(d, "zzz...\n"));
  text_close(&t);
}

static void test_text_reports_lost_output(void **state) {
  (void)state;
  FILE *full = fopen("/dev/full", "w");
  if (!full) skip();
  mem diag;
  mem_open(&diag);
  zsink *s = zout_text_new(full, diag.f);
  emit(s, (zagent_event){.kind = ZAEV_TEXT, .delta = {.text = "answer", .len = 6}});
  emit(s, (zagent_event){.kind = ZAEV_RUN_END, .run_end = {.status = "success"}});
  assert_int_equal(s->finish(s), -1);
  s->destroy(s);
  fclose(full);
  mem_close(&diag);
}

/* ---- run ids -------------------------------------------------------------- */

static void test_run_id_format(void **state) {
  (void)state;
  regex_t re;
  assert_int_equal(regcomp(&re, "^run_[0-9]{14}_[0-9a-f]{6}$", REG_EXTENDED | REG_NOSUB), 0);
  char a[40], b[40];
  time_t before = time(NULL);
  zout_new_run_id(a);
  zout_new_run_id(b);
  time_t after = time(NULL);
  assert_int_equal(regexec(&re, a, 0, NULL, 0), 0);
  assert_int_equal(regexec(&re, b, 0, NULL, 0), 0);
  regfree(&re);
  /* The random parts differ (1 in 16M chance of a false failure). */
  assert_string_not_equal(a, b);
  /* The timestamp is now, in UTC. */
  struct tm tm = {0};
  assert_non_null(strptime(a + 4, "%Y%m%d%H%M%S", &tm));
  time_t t = timegm(&tm);
  assert_true(t >= before - 1 && t <= after + 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stream_json_full_run),
      cmocka_unit_test(test_stream_json_go_zero_fields),
      cmocka_unit_test(test_stream_json_tool_output_capped_on_utf8_boundary),
      cmocka_unit_test(test_stream_json_reports_lost_output),
      cmocka_unit_test(test_json_writes_one_object_at_run_end),
      cmocka_unit_test(test_json_error_run_has_error_and_empty_text),
      cmocka_unit_test(test_json_reports_lost_output),
      cmocka_unit_test(test_text_streams_answer_and_tool_activity),
      cmocka_unit_test(test_text_prints_final_only_when_nothing_streamed),
      cmocka_unit_test(test_text_incomplete_interrupted_and_errors),
      cmocka_unit_test(test_text_result_summary_is_capped),
      cmocka_unit_test(test_text_reports_lost_output),
      cmocka_unit_test(test_run_id_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
