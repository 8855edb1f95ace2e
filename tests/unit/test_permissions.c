/* test_permissions.c — the permission engine: the full mode × side-effect
 * decision table, mode / autonomy parsing, and the effective-mode rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "agent/permissions.h"
#include "base/common.h"

static const zperm_mode modes[] = {ZPERM_ASK, ZPERM_AUTO, ZPERM_UNSAFE, ZPERM_PLAN};
static const zside_effect sides[] = {ZSIDE_NONE, ZSIDE_READ, ZSIDE_WRITE, ZSIDE_SHELL,
                                     ZSIDE_NETWORK};

/* expected[mode][side] for a tool whose read_only matches its side effect
 * (none/read are read-only, as every built-in tool is). */
static const zperm_action expected[4][5] = {
    /*              none         read         write         shell       network */
    [ZPERM_ASK] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_PROMPT, ZPERM_DENY, ZPERM_DENY},
    [ZPERM_AUTO] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_DENY, ZPERM_DENY},
    [ZPERM_UNSAFE] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW},
    [ZPERM_PLAN] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_DENY, ZPERM_DENY, ZPERM_DENY},
};

static ztool fake_tool(zside_effect side, bool read_only) {
  ztool t = {.name = "fake", .description = "", .parameters_json = "{}",
             .side_effect = side, .read_only = read_only};
  return t;
}

static void test_decision_table_covers_every_mode_and_side_effect(void **state) {
  (void)state;
  for (size_t m = 0; m < ZARRAY_LEN(modes); m++) {
    for (size_t s = 0; s < ZARRAY_LEN(sides); s++) {
      ztool t = fake_tool(sides[s], sides[s] == ZSIDE_NONE || sides[s] == ZSIDE_READ);
      zperm_decision d = zperm_decide(modes[m], &t);
      if (d.action != expected[modes[m]][sides[s]])
        fail_msg("mode %s, side effect %s: got %s, want %s", zperm_mode_name(modes[m]),
                 zside_effect_name(sides[s]), zperm_action_name(d.action),
                 zperm_action_name(expected[modes[m]][sides[s]]));
      /* Every decision explains itself. */
      assert_non_null(d.reason);
      assert_true(strlen(d.reason) > 5);
    }
  }
}

static void test_denials_say_what_would_allow_the_call(void **state) {
  (void)state;
  ztool shell = fake_tool(ZSIDE_SHELL, false);
  zperm_decision d = zperm_decide(ZPERM_AUTO, &shell);
  assert_non_null(strstr(d.reason, "--auto high"));
  assert_non_null(strstr(d.reason, "--skip-permissions-unsafe"));

  ztool net = fake_tool(ZSIDE_NETWORK, false);
  d = zperm_decide(ZPERM_ASK, &net);
  assert_int_equal(d.action, ZPERM_DENY);
  assert_non_null(strstr(d.reason, "--auto high"));

  ztool write = fake_tool(ZSIDE_WRITE, false);
  d = zperm_decide(ZPERM_PLAN, &write);
  assert_non_null(strstr(d.reason, "plan mode"));
  assert_non_null(strstr(d.reason, "--permission-mode auto"));
}

static void test_plan_mode_follows_read_only_not_side_effect(void **state) {
  (void)state;
  /* A side-effect-free tool that is not marked read-only is still denied in
   * plan mode, and a "write" tool marked read-only is allowed: plan mode
   * trusts the read_only flag. */
  ztool none_rw = fake_tool(ZSIDE_NONE, false);
  assert_int_equal(zperm_decide(ZPERM_PLAN, &none_rw).action, ZPERM_DENY);
  assert_false(zperm_tool_visible(ZPERM_PLAN, &none_rw));
  ztool write_ro = fake_tool(ZSIDE_WRITE, true);
  assert_int_equal(zperm_decide(ZPERM_PLAN, &write_ro).action, ZPERM_ALLOW);
  assert_true(zperm_tool_visible(ZPERM_PLAN, &write_ro));
}

static void test_visibility_hides_only_non_read_only_tools_in_plan_mode(void **state) {
  (void)state;
  size_t n = 0;
  const ztool *const *all = ztool_all(&n);
  assert_true(n >= 5);
  size_t hidden = 0;
  for (size_t i = 0; i < n; i++) {
    for (size_t m = 0; m < ZARRAY_LEN(modes); m++) {
      bool vis = zperm_tool_visible(modes[m], all[i]);
      bool want = modes[m] != ZPERM_PLAN || all[i]->read_only;
      if (vis != want)
        fail_msg("%s in %s mode: visible=%d", all[i]->name, zperm_mode_name(modes[m]), vis);
    }
    if (!zperm_tool_visible(ZPERM_PLAN, all[i])) hidden++;
    /* A visible tool in plan mode is also allowed there. */
    if (zperm_tool_visible(ZPERM_PLAN, all[i]))
      assert_int_equal(zperm_decide(ZPERM_PLAN, all[i]).action, ZPERM_ALLOW);
  }
  /* write_file, edit_file and exec_command at least. */
  assert_true(hidden >= 3);
  assert_false(zperm_tool_visible(ZPERM_PLAN, ztool_find("write_file")));
  assert_false(zperm_tool_visible(ZPERM_PLAN, ztool_find("exec_command")));
  assert_true(zperm_tool_visible(ZPERM_PLAN, ztool_find("read_file")));
}

static void test_mode_parse_accepts_names_and_aliases(void **state) {
  (void)state;
  static const struct {
    const char *in;
    zperm_mode want;
  } cases[] = {
      {"ask", ZPERM_ASK},          {"auto", ZPERM_AUTO},          {"member", ZPERM_AUTO},
      {"member-auto", ZPERM_AUTO}, {"unsafe", ZPERM_UNSAFE},      {"full-auto", ZPERM_UNSAFE},
      {"full_auto", ZPERM_UNSAFE}, {"high", ZPERM_UNSAFE},        {"plan", ZPERM_PLAN},
  };
  for (size_t i = 0; i < ZARRAY_LEN(cases); i++) {
    zperm_mode m = (zperm_mode)-1;
    zerr err = ZERR_INIT;
    if (zperm_mode_parse(cases[i].in, &m, &err) != 0) fail_msg("%s: %s", cases[i].in, err.msg);
    assert_int_equal(m, cases[i].want);
    assert_int_equal(err.kind, ZE_OK);
  }
}

static void test_mode_parse_rejects_unknown_with_usage_error(void **state) {
  (void)state;
  static const char *bad[] = {"", "yolo", "auto ", "planning", "readonly"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    zperm_mode m = ZPERM_PLAN;
    zerr err = ZERR_INIT;
    assert_int_equal(zperm_mode_parse(bad[i], &m, &err), -1);
    assert_int_equal(err.kind, ZE_USAGE);
    assert_int_equal(m, ZPERM_PLAN); /* untouched */
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", bad[i]);
    assert_non_null(strstr(err.msg, quoted));
    assert_non_null(strstr(err.msg, "ask, auto, unsafe or plan"));
  }
}

static void test_mode_names_round_trip(void **state) {
  (void)state;
  for (size_t i = 0; i < ZARRAY_LEN(modes); i++) {
    zperm_mode m;
    assert_int_equal(zperm_mode_parse(zperm_mode_name(modes[i]), &m, NULL), 0);
    assert_int_equal(m, modes[i]);
  }
  assert_string_equal(zperm_action_name(ZPERM_ALLOW), "allow");
  assert_string_equal(zperm_action_name(ZPERM_PROMPT), "prompt");
  assert_string_equal(zperm_action_name(ZPERM_DENY), "deny");
}

static void test_autonomy_parse(void **state) {
  (void)state;
  zautonomy a = ZAUTO_LOW;
  assert_int_equal(zautonomy_parse("medium", &a, NULL), 0);
  assert_int_equal(a, ZAUTO_MEDIUM);
  assert_int_equal(zautonomy_parse("high", &a, NULL), 0);
  assert_int_equal(a, ZAUTO_HIGH);
  assert_int_equal(zautonomy_parse("low", &a, NULL), 0);
  assert_int_equal(a, ZAUTO_LOW);
  for (zautonomy x = ZAUTO_LOW; x <= ZAUTO_HIGH; x++) {
    zautonomy y;
    assert_int_equal(zautonomy_parse(zautonomy_name(x), &y, NULL), 0);
    assert_int_equal(y, x);
  }

  zerr err = ZERR_INIT;
  a = ZAUTO_MEDIUM;
  assert_int_equal(zautonomy_parse("max", &a, &err), -1);
  assert_int_equal(err.kind, ZE_USAGE);
  assert_int_equal(a, ZAUTO_MEDIUM);
  assert_non_null(strstr(err.msg, "\"max\""));
  assert_non_null(strstr(err.msg, "low, medium, or high"));
}

static void test_effective_mode_rules(void **state) {
  (void)state;
  /* --skip-permissions-unsafe wins over everything, even an explicit mode. */
  assert_int_equal(zperm_effective_mode(true, ZPERM_PLAN, ZAUTO_LOW, true), ZPERM_UNSAFE);
  assert_int_equal(zperm_effective_mode(false, ZPERM_AUTO, ZAUTO_LOW, true), ZPERM_UNSAFE);
  /* An explicit --permission-mode beats --auto high. */
  assert_int_equal(zperm_effective_mode(true, ZPERM_PLAN, ZAUTO_HIGH, false), ZPERM_PLAN);
  assert_int_equal(zperm_effective_mode(true, ZPERM_ASK, ZAUTO_HIGH, false), ZPERM_ASK);
  /* Without a mode: --auto high is unsafe, lower levels are auto. */
  assert_int_equal(zperm_effective_mode(false, ZPERM_ASK, ZAUTO_HIGH, false), ZPERM_UNSAFE);
  assert_int_equal(zperm_effective_mode(false, ZPERM_ASK, ZAUTO_MEDIUM, false), ZPERM_AUTO);
  assert_int_equal(zperm_effective_mode(false, ZPERM_PLAN, ZAUTO_LOW, false), ZPERM_AUTO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decision_table_covers_every_mode_and_side_effect),
      cmocka_unit_test(test_denials_say_what_would_allow_the_call),
      cmocka_unit_test(test_plan_mode_follows_read_only_not_side_effect),
      cmocka_unit_test(test_visibility_hides_only_non_read_only_tools_in_plan_mode),
      cmocka_unit_test(test_mode_parse_accepts_names_and_aliases),
      cmocka_unit_test(test_mode_parse_rejects_unknown_with_usage_error),
      cmocka_unit_test(test_mode_names_round_trip),
      cmocka_unit_test(test_autonomy_parse),
      cmocka_unit_test(test_effective_mode_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
