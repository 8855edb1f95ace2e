/* test_exec_args.c — `zero exec` flag parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/common.h"
#include "cli/exec_args.h"

/* Parses a NULL-terminated word list into *a; returns the status. The caller
 * releases a either way. */
static int parse_words(zexec_args *a, zerr *err, bool (*is_session)(const char *),
                       const char **words) {
  int argc = 0;
  while (words[argc]) argc++;
  return zexec_args_parse(argc, (char **)words, a, is_session, err);
}

#define PARSE(a, err, sess, ...) parse_words((a), (err), (sess), (const char *[]){__VA_ARGS__, NULL})

static bool known_session(const char *id) { return !strcmp(id, "zero_20250101_1_1"); }

static void test_defaults(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "hello"), 0);
  assert_int_equal(a.output, ZOUT_TEXT);
  assert_int_equal(a.input, ZIN_TEXT);
  assert_string_equal(a.prompt.data, "hello");
  assert_null(a.model);
  assert_null(a.provider);
  assert_null(a.cwd);
  assert_null(a.prompt_file);
  assert_int_equal(a.max_turns, 0);
  assert_false(a.resume);
  assert_false(a.mode_given);
  assert_int_equal(a.mode, ZPERM_AUTO);
  assert_int_equal(a.autonomy, ZAUTO_LOW);
  assert_false(a.skip_permissions_unsafe);
  assert_int_equal(a.n_add_dirs, 0);
  assert_false(a.list_tools);
  assert_false(a.help);
  zexec_args_release(&a);
}

static void test_every_flag_with_separate_values(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  int rc = PARSE(&a, &err, NULL, "-o", "json", "-i", "stream-json", "-p", "fix", "-f",
                 "prompt.md", "-m", "gpt-x", "--provider", "ollama", "-C", "/src",
                 "--session-title", "My run", "--max-turns", "7", "--permission-mode", "plan",
                 "--auto", "medium", "--skip-permissions-unsafe", "--add-dir", "/a",
                 "--add-dir", "/b", "--list-tools", "-h", "--image", "shot.png",
                 "--image=diagram.jpg", "the", "bug");
  if (rc) fail_msg("%s", err.msg);
  assert_int_equal(a.output, ZOUT_JSON);
  assert_int_equal(a.input, ZIN_STREAM_JSON);
  assert_string_equal(a.prompt.data, "fix the bug");
  assert_string_equal(a.prompt_file, "prompt.md");
  assert_string_equal(a.model, "gpt-x");
  assert_string_equal(a.provider, "ollama");
  assert_string_equal(a.cwd, "/src");
  assert_string_equal(a.session_title, "My run");
  assert_int_equal(a.max_turns, 7);
  assert_true(a.mode_given);
  assert_int_equal(a.mode, ZPERM_PLAN);
  assert_int_equal(a.autonomy, ZAUTO_MEDIUM);
  assert_true(a.skip_permissions_unsafe);
  assert_int_equal(a.n_add_dirs, 2);
  assert_string_equal(a.add_dirs[0], "/a");
  assert_string_equal(a.add_dirs[1], "/b");
  assert_int_equal(a.n_images, 2);
  assert_string_equal(a.images[0], "shot.png");
  assert_string_equal(a.images[1], "diagram.jpg");
  assert_true(a.list_tools);
  assert_true(a.help);
  zexec_args_release(&a);
}

static void test_long_flags_with_equals(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  int rc = PARSE(&a, &err, NULL, "--output-format=stream-json", "--input-format=text",
                 "--prompt=p1", "--file=f.md", "--model=m1", "--provider=openai", "--cwd=/c",
                 "--session-title=t", "--max-turns=3", "--permission-mode=ask", "--auto=high",
                 "--add-dir=/x", "--help");
  if (rc) fail_msg("%s", err.msg);
  assert_int_equal(a.output, ZOUT_STREAM_JSON);
  assert_int_equal(a.input, ZIN_TEXT);
  assert_string_equal(a.prompt.data, "p1");
  assert_string_equal(a.prompt_file, "f.md");
  assert_string_equal(a.model, "m1");
  assert_string_equal(a.provider, "openai");
  assert_string_equal(a.cwd, "/c");
  assert_string_equal(a.session_title, "t");
  assert_int_equal(a.max_turns, 3);
  assert_int_equal(a.mode, ZPERM_ASK);
  assert_int_equal(a.autonomy, ZAUTO_HIGH);
  assert_int_equal(a.n_add_dirs, 1);
  assert_string_equal(a.add_dirs[0], "/x");
  assert_true(a.help);
  zexec_args_release(&a);

  /* Long names spelled out: --output-format, and the debug alias. */
  assert_int_equal(PARSE(&a, &err, NULL, "--output-format", "debug", "x"), 0);
  assert_int_equal(a.output, ZOUT_STREAM_JSON);
  zexec_args_release(&a);
  assert_int_equal(PARSE(&a, &err, NULL, "--model", "m2", "--cwd", "/d", "x"), 0);
  assert_string_equal(a.model, "m2");
  assert_string_equal(a.cwd, "/d");
  zexec_args_release(&a);
}

static void test_short_flags_take_no_equals(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  /* "-m=x" is not "-m x": it is an unknown flag. */
  assert_int_equal(PARSE(&a, &err, NULL, "-m=x"), -1);
  assert_int_equal(err.kind, ZE_USAGE);
  zexec_args_release(&a);
  /* The one exception, as in Go zero: "-p=TEXT" is the prompt. */
  err = (zerr)ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "-p=hello world", "-p=", "x"), 0);
  assert_string_equal(a.prompt.data, "hello world  x");
  zexec_args_release(&a);
  /* A flag that merely starts like a known one is not it. */
  err = (zerr)ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "--models", "x"), -1);
  assert_non_null(strstr(err.msg, "\"--models\""));
  zexec_args_release(&a);
}

static void test_init_session_id_and_plan(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "--init-session-id", "ci-42", "--plan", "go"), 0);
  assert_string_equal(a.init_session_id, "ci-42");
  assert_true(a.mode_given);
  assert_int_equal(a.mode, ZPERM_PLAN);
  zexec_args_release(&a);
  assert_int_equal(PARSE(&a, &err, NULL, "--init-session-id=ci-43", "go"), 0);
  assert_string_equal(a.init_session_id, "ci-43");
  zexec_args_release(&a);
  /* A new session's id cannot name an existing one to continue. */
  err = (zerr)ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, known_session, "--init-session-id", "x", "--resume"), -1);
  assert_int_equal(err.kind, ZE_USAGE);
  assert_non_null(strstr(err.msg, "cannot be combined with --resume or --fork"));
  zexec_args_release(&a);
  err = (zerr)ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "--fork", "zero_1", "--init-session-id", "x", "go"), -1);
  zexec_args_release(&a);
}

static void test_go_flags_without_effect_here(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  /* A Go zero CI script's flags: accepted, nothing to do here. */
  assert_int_equal(PARSE(&a, &err, NULL, "--no-notify", "--no-completion-gate", "--profile",
                         "ci", "--profile=x", "fix", "it"),
                   0);
  assert_string_equal(a.prompt.data, "fix it");
  zexec_args_release(&a);
  assert_int_equal(PARSE(&a, &err, NULL, "--profile"), -1);
  assert_non_null(strstr(err.msg, "--profile needs a value"));
  zexec_args_release(&a);
}

static void test_double_dash_ends_flags(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  int rc = PARSE(&a, &err, NULL, "-p", "explain", "--", "-o", "json", "--bogus");
  if (rc) fail_msg("%s", err.msg);
  assert_string_equal(a.prompt.data, "explain -o json --bogus");
  /* The -o after -- is prompt text, not an output format. */
  assert_int_equal(a.output, ZOUT_TEXT);
  zexec_args_release(&a);

  /* A lone "-" is no flag: it reads the prompt from standard input. */
  assert_int_equal(PARSE(&a, &err, NULL, "-", "x"), 0);
  assert_true(a.prompt_stdin);
  assert_string_equal(a.prompt.data, "x");
  zexec_args_release(&a);
  /* after "--" it is a word like any other */
  assert_int_equal(PARSE(&a, &err, NULL, "--", "-", "x"), 0);
  assert_false(a.prompt_stdin);
  assert_string_equal(a.prompt.data, "- x");
  zexec_args_release(&a);
}

static void test_resume_forms(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;

  /* A following word that is a session is its id. */
  assert_int_equal(PARSE(&a, &err, known_session, "--resume", "zero_20250101_1_1", "go on"), 0);
  assert_true(a.resume);
  assert_string_equal(a.resume_id, "zero_20250101_1_1");
  assert_string_equal(a.prompt.data, "go on");
  zexec_args_release(&a);

  /* Otherwise it is still the id (Go zero's rule): free text after --resume
   * is a usage error, never a prompt silently sent to the latest session. */
  assert_int_equal(PARSE(&a, &err, known_session, "--resume", "continue"), -1);
  assert_int_equal(err.kind, ZE_USAGE);
  assert_non_null(strstr(err.msg, "--resume continue: no such session"));
  assert_non_null(strstr(err.msg, "--resume-latest"));
  zexec_args_release(&a);
  assert_int_equal(PARSE(&a, &err, known_session, "--resume", "fix the bug"), -1);
  assert_non_null(strstr(err.msg, "no such session"));
  zexec_args_release(&a);

  /* Without a callback the id is taken as given (the session store says
   * later whether it exists). */
  assert_int_equal(PARSE(&a, &err, NULL, "--resume", "zero_20250101_1_1", "go"), 0);
  assert_string_equal(a.resume_id, "zero_20250101_1_1");
  assert_string_equal(a.prompt.data, "go");
  zexec_args_release(&a);

  /* A flag after --resume leaves it without an id: the latest session. */
  assert_int_equal(PARSE(&a, &err, known_session, "--resume", "-m", "x", "go"), 0);
  assert_true(a.resume);
  assert_null(a.resume_id);
  assert_string_equal(a.prompt.data, "go");
  zexec_args_release(&a);

  /* --resume=<id> is taken as given; --resume last takes nothing. */
  assert_int_equal(PARSE(&a, &err, NULL, "--resume=abc", "more"), 0);
  assert_string_equal(a.resume_id, "abc");
  assert_string_equal(a.prompt.data, "more");
  zexec_args_release(&a);
  assert_int_equal(PARSE(&a, &err, known_session, "x", "--resume"), 0);
  assert_true(a.resume);
  assert_null(a.resume_id);
  zexec_args_release(&a);
  /* Regression: "--resume=" with nothing after it means the latest session. */
  assert_int_equal(PARSE(&a, &err, known_session, "--resume=", "go"), 0);
  assert_true(a.resume);
  assert_null(a.resume_id);
  zexec_args_release(&a);
}

static void test_invalid_max_turns(void **state) {
  (void)state;
  static const char *bad[] = {"0", "-3", "abc", "5x", "", "10001", "99999999999999999999"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    zexec_args a;
    zerr err = ZERR_INIT;
    if (PARSE(&a, &err, NULL, "--max-turns", bad[i], "p") != -1)
      fail_msg("--max-turns \"%s\" accepted", bad[i]);
    assert_int_equal(err.kind, ZE_USAGE);
    assert_non_null(strstr(err.msg, "--max-turns"));
    assert_non_null(strstr(err.msg, "1 to 10000"));
    zexec_args_release(&a);
  }
  zexec_args a;
  zerr err = ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "--max-turns", "10000", "p"), 0);
  assert_int_equal(a.max_turns, 10000);
  zexec_args_release(&a);
}

static void test_reasoning_effort_levels(void **state) {
  (void)state;
  static const char *good[] = {"minimal", "low", "medium", "high"};
  for (size_t i = 0; i < ZARRAY_LEN(good); i++) {
    zexec_args a;
    zerr err = ZERR_INIT;
    assert_int_equal(PARSE(&a, &err, NULL, "-r", good[i], "p"), 0);
    assert_string_equal(a.reasoning_effort, good[i]);
    zexec_args_release(&a);
  }
  zexec_args a;
  zerr err = ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "--reasoning-effort=low", "p"), 0);
  assert_string_equal(a.reasoning_effort, "low");
  zexec_args_release(&a);
  /* The vendors' levels beyond the four GPT-5 ones (checked per model later). */
  static const char *vendor[] = {"none", "xhigh", "max"};
  for (size_t i = 0; i < ZARRAY_LEN(vendor); i++) {
    assert_int_equal(PARSE(&a, &err, NULL, "-r", vendor[i], "p"), 0);
    assert_string_equal(a.reasoning_effort, vendor[i]);
    zexec_args_release(&a);
  }
  static const char *bad[] = {"ultra", "HIGH", "", "x-high"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) {
    zerr e2 = ZERR_INIT;
    if (PARSE(&a, &e2, NULL, "--reasoning-effort", bad[i], "p") != -1)
      fail_msg("--reasoning-effort \"%s\" accepted", bad[i]);
    assert_int_equal(e2.kind, ZE_USAGE);
    assert_non_null(strstr(e2.msg, "none, minimal, low, medium, high, xhigh, max"));
    zexec_args_release(&a);
  }
}

static void test_unknown_flag_and_missing_value(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "--frobnicate", "p"), -1);
  assert_int_equal(err.kind, ZE_USAGE);
  assert_string_equal(err.msg, "unknown exec flag \"--frobnicate\" (see zero exec --help)");
  zexec_args_release(&a);

  err = (zerr)ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "p", "-m"), -1);
  assert_int_equal(err.kind, ZE_USAGE);
  assert_string_equal(err.msg, "flag -m needs a value");
  zexec_args_release(&a);

  static const char *bad_values[][2] = {
      {"-o", "xml"}, {"-i", "json"}, {"--permission-mode", "yolo"}, {"--auto", "max"}};
  for (size_t i = 0; i < ZARRAY_LEN(bad_values); i++) {
    err = (zerr)ZERR_INIT;
    if (PARSE(&a, &err, NULL, bad_values[i][0], bad_values[i][1]) != -1)
      fail_msg("%s %s accepted", bad_values[i][0], bad_values[i][1]);
    assert_int_equal(err.kind, ZE_USAGE);
    char quoted[32];
    snprintf(quoted, sizeof quoted, "\"%s\"", bad_values[i][1]);
    assert_non_null(strstr(err.msg, quoted));
    zexec_args_release(&a);
  }
}

static void test_output_format_is_known_even_when_a_later_flag_fails(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  /* The bad flag comes first; -o json after it is still honoured. */
  assert_int_equal(PARSE(&a, &err, NULL, "--bogus", "-o", "json"), -1);
  assert_int_equal(a.output, ZOUT_JSON);
  zexec_args_release(&a);

  err = (zerr)ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "--max-turns", "0", "--output-format=stream-json"), -1);
  assert_non_null(strstr(err.msg, "--max-turns"));
  assert_int_equal(a.output, ZOUT_STREAM_JSON);
  zexec_args_release(&a);

  /* An invalid format in the pre-pass leaves the default. */
  err = (zerr)ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "--bogus", "-o", "yaml"), -1);
  assert_int_equal(a.output, ZOUT_TEXT);
  zexec_args_release(&a);
}

static bool off_has(const zexec_args *a, const char *name) {
  for (char **t = a->tools_off; t && *t; t++)
    if (!strcmp(*t, name)) return true;
  return false;
}

static void test_offline_and_tool_lists(void **state) {
  (void)state;
  zexec_args a;
  zerr err = ZERR_INIT;
  assert_int_equal(PARSE(&a, &err, NULL, "hi"), 0);
  assert_false(a.offline);
  assert_null(a.tools_off);
  zexec_args_release(&a);

  assert_int_equal(PARSE(&a, &err, NULL, "--offline", "--disabled-tools", "exec_command, write_file",
                         "--disabled-tools=edit_file", "hi"), 0);
  assert_true(a.offline);
  assert_true(off_has(&a, "exec_command"));
  assert_true(off_has(&a, "write_file"));
  assert_true(off_has(&a, "edit_file"));
  assert_false(off_has(&a, "read_file"));
  assert_string_equal(a.prompt.data, "hi");
  zexec_args_release(&a);

  /* an enabled list turns every other built-in tool off; disabled still applies */
  assert_int_equal(PARSE(&a, &err, NULL, "--enabled-tools", "read_file list_directory,exec_command",
                         "--disabled-tools", "exec_command", "hi"), 0);
  assert_false(off_has(&a, "read_file"));
  assert_false(off_has(&a, "list_directory"));
  assert_true(off_has(&a, "exec_command"));
  assert_true(off_has(&a, "write_file"));
  assert_true(off_has(&a, "update_plan"));
  zexec_args_release(&a);

  /* a typo is an error, never a silently ignored restriction */
  zerr e2 = ZERR_INIT;
  assert_int_equal(PARSE(&a, &e2, NULL, "--disabled-tools", "exec_comand", "hi"), -1);
  assert_int_equal(e2.kind, ZE_USAGE);
  assert_non_null(strstr(e2.msg, "exec_comand"));
  assert_non_null(strstr(e2.msg, "exec_command"));
  zexec_args_release(&a);
  zerr e3 = ZERR_INIT;
  assert_int_equal(PARSE(&a, &e3, NULL, "--enabled-tools"), -1);
  zexec_args_release(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_offline_and_tool_lists),
      cmocka_unit_test(test_every_flag_with_separate_values),
      cmocka_unit_test(test_long_flags_with_equals),
      cmocka_unit_test(test_short_flags_take_no_equals),
      cmocka_unit_test(test_double_dash_ends_flags),
      cmocka_unit_test(test_init_session_id_and_plan),
      cmocka_unit_test(test_go_flags_without_effect_here),
      cmocka_unit_test(test_resume_forms),
      cmocka_unit_test(test_invalid_max_turns),
      cmocka_unit_test(test_reasoning_effort_levels),
      cmocka_unit_test(test_unknown_flag_and_missing_value),
      cmocka_unit_test(test_output_format_is_known_even_when_a_later_flag_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
