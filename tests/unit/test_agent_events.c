/* test_agent_events.c — an agent event's deep copy (agent/events.h): what a
 * sink that hands events to another thread (the TUI) relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "agent/events.h"
#include "base/common.h"

/* Every string and JSON value of the copy outlives the emitter's, which are
 * freed before the copy is read; a streamed delta (len bytes, no NUL) ends
 * up NUL-terminated. */
static void copy_outlives_the_emitted_event(void **state) {
  (void)state;
  char *delta = xstrdup("abcdef");
  char *id = xstrdup("call_1"), *name = xstrdup("exec_command"), *why = xstrdup("risky");
  char *perm = xstrdup("prompt"), *sig = xstrdup("sig");
  json_t *meta = json_pack("{s:i}", "exit_code", 3);
  json_t *risk = json_pack("{s:s}", "level", "high");
  json_t *files = json_pack("[s]", "a.c");
  zagent_event ev = {.kind = ZAEV_TOOL_RESULT, .text = delta, .len = 3, .id = id, .name = name,
                     .reason = why, .permission = perm, .signature = sig, .meta = meta,
                     .risk = risk, .changed_files = files, .ok = true, .sequence = 7};
  zagent_event_copy *c = zagent_event_copy_new(&ev);
  free(delta);
  free(id);
  free(name);
  free(why);
  free(perm);
  free(sig);
  json_object_set_new(meta, "exit_code", json_integer(0));
  json_decref(meta);
  json_decref(risk);
  json_decref(files);

  assert_int_equal(c->ev.kind, ZAEV_TOOL_RESULT);
  assert_string_equal(c->ev.text, "abc");
  assert_int_equal(c->ev.len, 3);
  assert_string_equal(c->ev.id, "call_1");
  assert_string_equal(c->ev.name, "exec_command");
  assert_string_equal(c->ev.reason, "risky");
  assert_string_equal(c->ev.permission, "prompt");
  assert_string_equal(c->ev.signature, "sig");
  assert_int_equal(json_integer_value(json_object_get(c->ev.meta, "exit_code")), 3);
  assert_string_equal(json_string_value(json_object_get(c->ev.risk, "level")), "high");
  assert_string_equal(json_string_value(json_array_get(c->ev.changed_files, 0)), "a.c");
  assert_true(c->ev.ok);
  assert_int_equal(c->ev.sequence, 7);
  assert_null(c->ev.session_id);
  assert_null(c->ev.block);
  zagent_event_copy_free(c);
}

/* A text with len 0 (errors, warnings) is copied up to its NUL. */
static void copy_of_a_plain_text_event(void **state) {
  (void)state;
  zagent_event ev = {.kind = ZAEV_ERROR, .text = "provider down", .code = "provider_error"};
  zagent_event_copy *c = zagent_event_copy_new(&ev);
  assert_string_equal(c->ev.text, "provider down");
  assert_int_equal(c->ev.len, strlen("provider down"));
  assert_ptr_not_equal(c->ev.text, ev.text);
  assert_string_equal(c->ev.code, "provider_error");
  zagent_event_copy_free(c);
  zagent_event_copy_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copy_outlives_the_emitted_event),
      cmocka_unit_test(copy_of_a_plain_text_event),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
