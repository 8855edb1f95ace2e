/* test_agent_judgement.c — the completion gate, the guardrails and the
 * execution profiles, as tables (agent/completion_gate.h,
 * agent/guardrails.h, config/exec_profile.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "agent/completion_gate.h"
#include "agent/guardrails.h"
#include "base/json.h"
#include "config/exec_profile.h"

static void gate_nudges_open_plan_twice_then_incomplete(void **state) {
  (void)state;
  json_t *plan = json_loads("[{\"step\":\"a\",\"status\":\"completed\"},"
                            "{\"step\":\"b\",\"status\":\"in progress\"},"
                            "{\"step\":\"c\",\"status\":\"todo\"},"
                            "{\"step\":\"d\",\"status\":\"blocked\"}]",
                            0, NULL);
  zgate_work w = {0};
  zgate_plan_work(plan, &w);
  assert_int_equal(w.open_plan_items, 2);
  assert_string_equal(w.first_open, "b");
  zgate g = {.enabled = true};
  zbuf out = ZBUF_INIT;
  for (int i = 0; i < ZGATE_MAX_CONTINUE; i++) {
    zbuf_reset(&out);
    assert_int_equal(zgate_judge(&g, &w, "obj", &out), ZGATE_CONTINUE);
    assert_non_null(strstr(out.data, "2 plan items are still open, next: \"b\""));
  }
  zbuf_reset(&out);
  assert_int_equal(zgate_judge(&g, &w, "obj", &out), ZGATE_INCOMPLETE);
  assert_non_null(strstr(out.data, "after 2 continuation nudges"));
  zbuf_release(&out);
  json_decref(plan);
}

static void gate_off_or_nothing_open_accepts(void **state) {
  (void)state;
  zgate_work open = {.running_sessions = 1};
  zgate off = {0};
  zbuf out = ZBUF_INIT;
  assert_int_equal(zgate_judge(&off, &open, NULL, &out), ZGATE_ACCEPT);
  zgate on = {.enabled = true};
  zgate_work none = {0};
  assert_int_equal(zgate_judge(&on, &none, NULL, &out), ZGATE_ACCEPT);
  assert_int_equal(out.len, 0);
  zbuf_release(&out);
}

static void gate_verifies_unchecked_edits_once(void **state) {
  (void)state;
  zgate_work none = {0};
  zbuf out = ZBUF_INIT;
  /* A command after the edit is the check: no nudge. */
  zgate checked = {.enabled = true, .verify = true};
  zgate_note_tool(&checked, "write_file", true, true);
  zgate_note_tool(&checked, "exec_command", true, false);
  assert_int_equal(zgate_judge(&checked, &none, "obj", &out), ZGATE_ACCEPT);
  /* An edit after the check needs one again: once, with the objective. */
  zgate_note_tool(&checked, "edit_file", true, true);
  assert_int_equal(zgate_judge(&checked, &none, "fix the parser", &out), ZGATE_VERIFY);
  assert_non_null(strstr(out.data, "Task objective: fix the parser; verify the result, e.g. "
                                   "run the tests."));
  assert_int_equal(zgate_judge(&checked, &none, "fix the parser", &out), ZGATE_ACCEPT);
  /* Without verify (no profile asked) edits are accepted. */
  zgate plain = {.enabled = true};
  zgate_note_tool(&plain, "write_file", true, true);
  assert_int_equal(zgate_judge(&plain, &none, "obj", &out), ZGATE_ACCEPT);
  zbuf_release(&out);
}

static void guard_same_failing_call_three_times(void **state) {
  (void)state;
  zguard g;
  zguard_init(&g);
  zbuf why = ZBUF_INIT;
  /* The same arguments in another key order and spacing are the same call. */
  assert_false(zguard_note_result(&g, "read_file", "{\"path\":\"x\",\"limit\":5}", false, &why));
  assert_false(zguard_note_result(&g, "list_directory", "{}", true, &why));
  assert_false(
      zguard_note_result(&g, "read_file", "{ \"limit\": 5, \"path\": \"x\" }", false, &why));
  assert_false(zguard_note_result(&g, "read_file", "{\"path\":\"y\"}", false, &why));
  assert_true(zguard_note_result(&g, "read_file", "{\"path\":\"x\",\"limit\":5}", false, &why));
  assert_non_null(strstr(why.data, "same read_file call (same arguments) failed 3 times"));
  zbuf_release(&why);
  zguard_release(&g);
}

static void guard_success_clears_the_call(void **state) {
  (void)state;
  zguard g;
  zguard_init(&g);
  zbuf why = ZBUF_INIT;
  for (int round = 0; round < 3; round++) {
    assert_false(zguard_note_result(&g, "exec_command", "{\"cmd\":\"make\"}", false, &why));
    assert_false(zguard_note_result(&g, "exec_command", "{\"cmd\":\"make\"}", false, &why));
    assert_false(zguard_note_result(&g, "exec_command", "{\"cmd\":\"make\"}", true, &why));
  }
  zbuf_release(&why);
  zguard_release(&g);
}

static void guard_consecutive_failures(void **state) {
  (void)state;
  zguard g;
  zguard_init(&g);
  g.max_consecutive = 4;
  zbuf why = ZBUF_INIT;
  char args[32];
  for (int i = 0; i < 3; i++) {
    snprintf(args, sizeof args, "{\"n\":%d}", i);
    assert_false(zguard_note_result(&g, "t", args, false, &why));
  }
  assert_true(zguard_note_result(&g, "t", "{\"n\":9}", false, &why));
  assert_non_null(strstr(why.data, "4 tool calls in a row failed"));
  zbuf_release(&why);
  zguard_release(&g);
}

static void guard_identical_turns(void **state) {
  (void)state;
  zguard g;
  zguard_init(&g);
  zbuf why = ZBUF_INIT;
  ztool_call call = {.id = "c1", .name = "grep", .arguments = "{\"pattern\":\"x\"}"};
  ztool_call other_id = {.id = "c2", .name = "grep", .arguments = "{\"pattern\":\"x\"}"};
  zmsg m = {.role = ZROLE_ASSISTANT, .content = "Looking.", .calls = &call, .ncalls = 1};
  zmsg m2 = {.role = ZROLE_ASSISTANT, .content = "Looking.", .calls = &other_id, .ncalls = 1};
  zmsg different = {.role = ZROLE_ASSISTANT, .content = "Again.", .calls = &call, .ncalls = 1};
  assert_false(zguard_note_turn(&g, &m, &why));
  assert_false(zguard_note_turn(&g, &m2, &why)); /* call ids do not count */
  assert_false(zguard_note_turn(&g, &different, &why));
  assert_false(zguard_note_turn(&g, &m, &why));
  assert_false(zguard_note_turn(&g, &m, &why));
  assert_true(zguard_note_turn(&g, &m, &why));
  assert_non_null(strstr(why.data, "3 times in a row"));
  zbuf_release(&why);
  zguard_release(&g);
}

static void profiles_builtin_config_and_project_rules(void **state) {
  (void)state;
  zconfig cfg = {0};
  zerr err = ZERR_INIT;
  json_t *user = json_loads("{\"maxAutonomy\":\"medium\",\"profiles\":{\"fast\":{\"maxTurns\":"
                            "12,\"disabledTools\":[\"web_fetch\",\"grep\"]},\"ci\":{\"autonomy\":"
                            "\"high\",\"verify\":true}}}",
                            0, NULL);
  assert_int_equal(zconfig_apply_exec_keys(&cfg, user, "user.json", false, &err), 0);
  zexec_profile p;
  assert_int_equal(zexec_profile_resolve(&cfg, "fast", &p, &err), 0);
  assert_int_equal(p.max_turns, 12);              /* the config's over the built-in */
  assert_string_equal(p.reasoning_effort, "low"); /* the built-in's, kept */
  assert_string_equal(p.disabled_tools, "web_fetch,grep");
  zexec_profile_release(&p);
  assert_int_equal(zexec_profile_resolve(&cfg, "thorough", &p, &err), 0);
  assert_true(p.verify);
  zexec_profile_release(&p);
  assert_int_equal(zexec_profile_resolve(&cfg, "nope", &p, &err), -1);
  assert_non_null(strstr(err.msg, "known: balanced fast thorough ci"));
  /* A project can lower maxAutonomy, not raise it, and sets no autonomy. */
  json_t *higher = json_loads("{\"maxAutonomy\":\"high\"}", 0, NULL);
  assert_int_equal(zconfig_apply_exec_keys(&cfg, higher, "p.json", true, &err), 0);
  assert_string_equal(cfg.max_autonomy, "medium");
  json_t *lower = json_loads("{\"maxAutonomy\":\"low\"}", 0, NULL);
  assert_int_equal(zconfig_apply_exec_keys(&cfg, lower, "p.json", true, &err), 0);
  assert_string_equal(cfg.max_autonomy, "low");
  json_t *raise = json_loads("{\"profiles\":{\"ci\":{\"autonomy\":\"high\"}}}", 0, NULL);
  assert_int_equal(zconfig_apply_exec_keys(&cfg, raise, "p.json", true, &err), -1);
  assert_non_null(strstr(err.msg, "p.json: profiles.ci.autonomy cannot be set in a project"));
  json_t *bad = json_loads("{\"profiles\":{\"x\":{\"maxTurns\":\"ten\"}}}", 0, NULL);
  assert_int_equal(zconfig_apply_exec_keys(&cfg, bad, "u.json", false, &err), -1);
  assert_non_null(strstr(err.msg, "profiles.x.maxTurns has the wrong type"));
  json_decref(user);
  json_decref(higher);
  json_decref(lower);
  json_decref(raise);
  json_decref(bad);
  json_decref(cfg.profiles);
  free(cfg.max_autonomy);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(gate_nudges_open_plan_twice_then_incomplete),
      cmocka_unit_test(gate_off_or_nothing_open_accepts),
      cmocka_unit_test(gate_verifies_unchecked_edits_once),
      cmocka_unit_test(guard_same_failing_call_three_times),
      cmocka_unit_test(guard_success_clears_the_call),
      cmocka_unit_test(guard_consecutive_failures),
      cmocka_unit_test(guard_identical_turns),
      cmocka_unit_test(profiles_builtin_config_and_project_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
