/* test_ext.c — the extension loaders (ext/): hooks.json in Go zero's and
 * Claude Code's shapes, every field and malformed case; custom command
 * names, substitution and clashes; skills; plugin manifests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "ext/commands.h"
#include "ext/ext.h"
#include "ext/hooks.h"
#include "ext/plugins.h"
#include "ext/skills.h"

static char *tmpdir(void) {
  char tmpl[] = "/tmp/zero-ext-XXXXXX";
  char *d = mkdtemp(tmpl);
  assert_non_null(d);
  return xstrdup(d);
}

static void put(const char *dir, const char *rel, const char *text) {
  char *p = zpath_join(dir, rel);
  char *slash = strrchr(p, '/');
  *slash = 0;
  zerr err = ZERR_INIT;
  assert_int_equal(zfs_mkdir_p(p, 0755, &err), 0);
  *slash = '/';
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  free(p);
}

static void rmtree(char *d) {
  assert_int_equal(zfs_remove_tree(d), 0);
  free(d);
}

static void event_names_and_aliases(void **state) {
  (void)state;
  assert_string_equal(zhook_event_canonical("PreToolUse"), "beforeTool");
  assert_string_equal(zhook_event_canonical("afterTool"), "afterTool");
  assert_string_equal(zhook_event_canonical("SubagentStop"), "subagentStop");
  assert_null(zhook_event_canonical("beforeLunch"));
  assert_true(zhook_event_gating("beforeTool"));
  assert_false(zhook_event_gating("afterTool"));
}

static void go_zero_hooks_every_field(void **state) {
  (void)state;
  char *d = tmpdir();
  put(d, "hooks.json",
      "{\"enabled\": true, \"hooks\": ["
      "{\"id\": \"g\", \"event\": \"beforeTool\", \"command\": \"/bin/guard\", "
      "\"args\": [\"-x\", \"y\"], \"timeoutMs\": 1500, \"matcher\": \"write_file|edit_file\"},"
      "{\"event\": \"stop\", \"command\": \"echo done | tee log\"},"
      "{\"id\": \"off\", \"event\": \"stop\", \"command\": \"x\", \"enabled\": false}]}");
  char *path = zpath_join(d, "hooks.json");
  zhooks hs = ZHOOKS_INIT;
  assert_int_equal(zhooks_load_file(&hs, path, true), 2);
  assert_int_equal(hs.problems.nr, 0);
  assert_string_equal(hs.v[0].id, "g");
  assert_string_equal(hs.v[0].argv[0], "/bin/guard");
  assert_string_equal(hs.v[0].argv[2], "y");
  assert_int_equal(hs.v[0].timeout_ms, 1500);
  assert_true(hs.v[0].project);
  assert_true(zhook_matches(&hs.v[0], "edit_file"));
  assert_false(zhook_matches(&hs.v[0], "read_file"));
  assert_string_equal(hs.v[1].id, "stop#2");
  assert_string_equal(hs.v[1].argv[0], "/bin/sh"); /* shell syntax, no args */
  assert_int_equal(hs.v[1].timeout_ms, ZHOOK_DEFAULT_TIMEOUT_MS);
  assert_true(zhook_matches(&hs.v[1], "anything"));
  zhooks_release(&hs);
  free(path);
  rmtree(d);
}

static void claude_code_shape(void **state) {
  (void)state;
  json_t *j = json_loads("{\"PostToolUse\": [{\"matcher\": \"Write\", \"hooks\": [{\"type\": "
                         "\"command\", \"command\": \"fmt\", \"timeout\": 7}]}]}", 0, NULL);
  zhooks hs = ZHOOKS_INIT;
  assert_int_equal(zhooks_load_json(&hs, j, "x.json", false), 1);
  assert_string_equal(hs.v[0].event, "afterTool");
  assert_string_equal(hs.v[0].matcher, "Write");
  assert_int_equal(hs.v[0].timeout_ms, 7000);
  zhooks_release(&hs);
  json_decref(j);
}

static void malformed_hooks_are_problems_not_fatal(void **state) {
  (void)state;
  char *d = tmpdir();
  put(d, "bad.json", "{\"hooks\": [");
  put(d, "mixed.json",
      "{\"hooks\": [{\"event\": \"nope\", \"command\": \"x\"}, {\"event\": \"stop\"}, 3, "
      "{\"event\": \"stop\", \"command\": \"x\", \"type\": \"prompt\"}, "
      "{\"event\": \"stop\", \"command\": \"ok\"}]}");
  zhooks hs = ZHOOKS_INIT;
  char *bad = zpath_join(d, "bad.json"), *mixed = zpath_join(d, "mixed.json");
  char *missing = zpath_join(d, "missing.json");
  assert_int_equal(zhooks_load_file(&hs, bad, false), 0);
  assert_int_equal(zhooks_load_file(&hs, missing, false), 0);
  assert_int_equal(zhooks_load_file(&hs, mixed, false), 1);
  assert_int_equal(hs.problems.nr, 5);
  assert_non_null(strstr(hs.problems.v[0], "bad.json"));
  assert_non_null(strstr(hs.problems.v[1], "unknown event \"nope\""));
  assert_non_null(strstr(hs.problems.v[2], "no \"command\""));
  assert_non_null(strstr(hs.problems.v[3], "not an object"));
  assert_non_null(strstr(hs.problems.v[4], "only \"command\" hooks"));
  zhooks_release(&hs);
  free(bad);
  free(mixed);
  free(missing);
  rmtree(d);
}

static bool builtin_help(const char *name) { return !strcmp(name, "help"); }

static void commands_namespaces_substitution_and_clashes(void **state) {
  (void)state;
  char *d = tmpdir();
  put(d, "git/pr.md", "---\ndescription: Open a PR\nargument-hint: B\n---\nPR $1 ($ARGUMENTS) $3.\n");
  put(d, "help.md", "mine\n");
  put(d, "broken.md", "---\nname: [x\n---\n");
  zcmds cs = {0};
  strvec problems = STRVEC_INIT;
  zcmds_load_root(&cs, d, false, builtin_help, &problems);
  assert_int_equal(cs.n, 1);
  assert_string_equal(cs.v[0].name, "git:pr");
  assert_string_equal(cs.v[0].argument_hint, "B");
  assert_int_equal(problems.nr, 2);
  zerr err = ZERR_INIT;
  char *p = zcmd_expand(&cs.v[0], " a b", &err);
  assert_string_equal(p, "PR a (a b) .\n");
  free(p);
  zcmds_release(&cs);
  strvec_clear(&problems);
  rmtree(d);
}

static void skills_load_and_report_bad_files(void **state) {
  (void)state;
  char *d = tmpdir();
  put(d, "a/SKILL.md", "---\nname: a\ndescription: does a\nallowed-tools: Read, Grep\n---\nBody A\n");
  put(d, "b/SKILL.md", "---\nname: b\n---\nno description\n");
  put(d, "c/SKILL.md", "---\nname: a\ndescription: dup\n---\n");
  zskills ss = {0};
  strvec problems = STRVEC_INIT;
  zskills_load_root(&ss, d, &problems);
  assert_int_equal(ss.n, 1);
  assert_int_equal(json_array_size(ss.v[0].allowed_tools), 2);
  assert_int_equal(problems.nr, 2);
  zerr err = ZERR_INIT;
  char *body = zskill_body(&ss.v[0], &err);
  assert_non_null(strstr(body, "Body A"));
  free(body);
  zskills_release(&ss);
  strvec_clear(&problems);
  rmtree(d);
}

static void plugin_manifests(void **state) {
  (void)state;
  char *d = tmpdir();
  put(d, "ok/plugin.json",
      "{\"schemaVersion\": 1, \"id\": \"ok\", \"version\": \"1\", \"tools\": [{\"name\": "
      "\"t\", \"command\": \"/bin/cat\"}, {\"name\": \"bg\", \"command\": \"/bin/cat\", "
      "\"background\": true}], \"skills\": [\"sk\"]}");
  put(d, "future/plugin.json", "{\"schemaVersion\": 2, \"id\": \"f\"}");
  put(d, "noid/plugin.json", "{\"schemaVersion\": 1}");
  zplugins ps = {0};
  strvec problems = STRVEC_INIT;
  zplugins_load_root(&ps, d, false, NULL, &problems);
  assert_int_equal(ps.n, 1);
  assert_string_equal(ps.v[0].tools[0].name, "plugin_ok_t");
  assert_false(ps.v[0].enabled);
  assert_null(ps.v[0].tools[0].refused);
  assert_non_null(strstr(ps.v[0].tools[1].refused, "background"));
  assert_int_equal(ps.v[0].skill_roots.nr, 1);
  assert_int_equal(problems.nr, 2);
  zplugins_release(&ps);
  strvec_clear(&problems);
  rmtree(d);
}

/* The tool source's schemas are made once a run: the second request gets
 * the same array, not a re-packed copy. */
static void source_schemas_are_made_once(void **state) {
  (void)state;
  char *d = tmpdir();
  put(d, "cfg/zero/skills/s/SKILL.md", "---\nname: s\ndescription: does s\n---\nBody\n");
  put(d, "ws/.keep", "");
  char *cfg = zpath_join(d, "cfg"), *ws = zpath_join(d, "ws");
  setenv("XDG_CONFIG_HOME", cfg, 1);
  zext x;
  zext_load(&x, ws, false);
  json_t *a = x.source.schemas(x.source.ud);
  json_t *b = x.source.schemas(x.source.ud);
  assert_ptr_equal(a, b);
  assert_int_equal(json_array_size(a), 1); /* the skill tool */
  json_decref(a);
  json_decref(b);
  zext_release(&x);
  unsetenv("XDG_CONFIG_HOME");
  free(cfg);
  free(ws);
  rmtree(d);
}

/* A run reads the custom commands only when something asks for them (a
 * "/" prompt, a menu, a listing): loading the extensions leaves them
 * unread, and a prompt without "/" never reads them. */
static void commands_are_read_on_first_use(void **state) {
  (void)state;
  char *d = tmpdir();
  put(d, "cfg/zero/commands/hi.md", "---\ndescription: say hi\n---\nSay hi to $ARGUMENTS\n");
  put(d, "cfg/zero/commands/bad.md", "---\ndescription: [unclosed\n");
  put(d, "ws/.keep", "");
  char *cfg = zpath_join(d, "cfg"), *ws = zpath_join(d, "ws");
  setenv("XDG_CONFIG_HOME", cfg, 1);
  zext x;
  zext_load(&x, ws, false);
  assert_false(x.commands_loaded);
  assert_int_equal(x.commands.n, 0);
  size_t problems_at_load = x.problems.nr;
  char *out = NULL;
  zerr err = ZERR_INIT;
  assert_int_equal(zext_expand_command(&x, "fix the bug", &out, &err), 0);
  assert_false(x.commands_loaded);
  assert_int_equal(zext_expand_command(&x, "/hi Ada", &out, &err), 1);
  assert_true(x.commands_loaded);
  assert_non_null(strstr(out, "Say hi to Ada"));
  free(out);
  assert_int_equal(zext_commands(&x)->n, 1);
  assert_true(x.problems.nr > problems_at_load); /* bad.md's problem joined them */
  zext_release(&x);
  unsetenv("XDG_CONFIG_HOME");
  free(cfg);
  free(ws);
  rmtree(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(event_names_and_aliases),
      cmocka_unit_test(go_zero_hooks_every_field),
      cmocka_unit_test(claude_code_shape),
      cmocka_unit_test(malformed_hooks_are_problems_not_fatal),
      cmocka_unit_test(commands_namespaces_substitution_and_clashes),
      cmocka_unit_test(skills_load_and_report_bad_files),
      cmocka_unit_test(plugin_manifests),
      cmocka_unit_test(source_schemas_are_made_once),
      cmocka_unit_test(commands_are_read_on_first_use),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
