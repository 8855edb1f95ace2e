/* test_permissions.c — the permission engine: the full mode × side-effect
 * decision table, mode / autonomy parsing, and the effective-mode rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "perm/engine.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "perm/grants.h"
#include "sandbox/policy.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const zperm_mode modes[] = {ZPERM_ASK, ZPERM_AUTO, ZPERM_UNSAFE, ZPERM_PLAN,
                                   ZPERM_ACCEPT_EDITS};
static const zside_effect sides[] = {ZSIDE_NONE, ZSIDE_READ, ZSIDE_WRITE, ZSIDE_SHELL,
                                     ZSIDE_NETWORK};

/* expected[sandbox active][mode][side] for a tool whose read_only matches its
 * side effect, with no arguments (no path, no command). */
static const zperm_action expected[2][5][5] = {
    /* no sandbox:      none         read         write         shell         network */
    {[ZPERM_ASK] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_PROMPT, ZPERM_PROMPT, ZPERM_PROMPT},
     [ZPERM_AUTO] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_PROMPT, ZPERM_PROMPT},
     [ZPERM_UNSAFE] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW},
     [ZPERM_PLAN] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_DENY, ZPERM_DENY, ZPERM_DENY},
     [ZPERM_ACCEPT_EDITS] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_PROMPT, ZPERM_PROMPT}},
    /* sandbox active (a network tool runs in zero's own process, which the
     * sandbox does not confine: with no policy saying the network is
     * allowed, it asks) */
    {[ZPERM_ASK] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_PROMPT, ZPERM_PROMPT, ZPERM_PROMPT},
     [ZPERM_AUTO] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_PROMPT},
     [ZPERM_UNSAFE] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW},
     [ZPERM_PLAN] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_DENY, ZPERM_DENY, ZPERM_DENY},
     /* accept-edits: file edits go through, commands still ask */
     [ZPERM_ACCEPT_EDITS] = {ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_ALLOW, ZPERM_PROMPT, ZPERM_PROMPT}},
};

static ztool fake_tool(zside_effect side, bool read_only) {
  ztool t = {.name = "fake", .description = "", .parameters_json = "{}",
             .side_effect = side, .read_only = read_only};
  return t;
}

static zperm_decision decide(zperm_mode mode, bool sandbox, const ztool *t) {
  zperm_engine e = {.mode = mode, .sandbox_active = sandbox};
  return zperm_decide(&e, t, NULL);
}

static void test_decision_table_covers_every_mode_and_side_effect(void **state) {
  (void)state;
  for (int sb = 0; sb < 2; sb++)
    for (size_t m = 0; m < ZARRAY_LEN(modes); m++) {
      for (size_t s = 0; s < ZARRAY_LEN(sides); s++) {
        ztool t = fake_tool(sides[s], sides[s] == ZSIDE_NONE || sides[s] == ZSIDE_READ);
        zperm_decision d = decide(modes[m], sb, &t);
        if (d.action != expected[sb][modes[m]][sides[s]])
          fail_msg("sandbox %d, mode %s, side effect %s: got %s, want %s", sb,
                   zperm_mode_name(modes[m]), zside_effect_name(sides[s]),
                   zperm_action_name(d.action),
                   zperm_action_name(expected[sb][modes[m]][sides[s]]));
        /* Every decision explains itself and carries a code. */
        assert_true(strlen(d.reason) > 5);
        assert_non_null(d.code);
        if (d.action != ZPERM_ALLOW) assert_true(strlen(d.allow_hint) > 5);
      }
    }
}

/* Shell calls with arguments, in auto mode with the sandbox active. */
typedef struct shell_row {
  zautonomy autonomy;
  const char *args;
  zperm_action want;
  const char *code;
} shell_row;

static const shell_row shell_rows[] = {
    {ZAUTO_LOW, "{\"cmd\":\"make test\"}", ZPERM_ALLOW, "allowed"},
    {ZAUTO_LOW, "{\"cmd\":\"git commit -m \\\"rm -rf /\\\"\"}", ZPERM_ALLOW, "allowed"},
    {ZAUTO_LOW, "{\"cmd\":\"rm -rf build\"}", ZPERM_PROMPT, "destructive"},
    {ZAUTO_LOW, "{\"cmd\":\"sudo bash -c 'rm -rf /'\"}", ZPERM_PROMPT, "destructive"},
    {ZAUTO_LOW, "{\"cmd\":\"curl http://x\"}", ZPERM_PROMPT, "network"},
    {ZAUTO_MEDIUM, "{\"cmd\":\"curl http://x\"}", ZPERM_ALLOW, "allowed"},
    {ZAUTO_MEDIUM, "{\"cmd\":\"rm -rf x\"}", ZPERM_PROMPT, "destructive"},
    {ZAUTO_LOW, "{\"cmd\":\"vim x\"}", ZPERM_DENY, "interactive"},
    /* On a terminal the model drives it with write_stdin: a REPL is fine. */
    {ZAUTO_LOW, "{\"cmd\":\"python3 -q\",\"tty\":true}", ZPERM_ALLOW, "allowed"},
    {ZAUTO_LOW, "{\"cmd\":\"python3\",\"tty\":\"true\"}", ZPERM_ALLOW, "allowed"},
    {ZAUTO_LOW, "{\"cmd\":\"python3\",\"tty\":false}", ZPERM_DENY, "interactive"},
    {ZAUTO_LOW, "{\"cmd\":\"rm -rf x; python3\",\"tty\":true}", ZPERM_PROMPT, "destructive"},
    {ZAUTO_LOW, "{\"cmd\":\"eval $X\"}", ZPERM_PROMPT, "too_complex"},
    {ZAUTO_LOW, "{\"cmd\":\"ls\",\"sandbox_permissions\":\"require_escalated\"}", ZPERM_PROMPT,
     "escalation"},
    {ZAUTO_LOW, "{\"cmd\":\"ls\",\"sandbox_permissions\":\"with_additional_permissions\"}",
     ZPERM_PROMPT, "escalation"},
};

static void test_shell_analysis_and_escalations(void **state) {
  (void)state;
  const ztool *ex = ztool_find("exec_command");
  assert_non_null(ex);
  for (size_t i = 0; i < ZARRAY_LEN(shell_rows); i++) {
    json_t *args = json_loads(shell_rows[i].args, 0, NULL);
    assert_non_null(args);
    zperm_engine e = {.mode = ZPERM_AUTO, .autonomy = shell_rows[i].autonomy,
                      .sandbox_active = true};
    zperm_decision d = zperm_decide(&e, ex, args);
    if (d.action != shell_rows[i].want || strcmp(d.code, shell_rows[i].code))
      fail_msg("%s: got %s/%s (%s), want %s/%s", shell_rows[i].args, zperm_action_name(d.action),
               d.code, d.reason, zperm_action_name(shell_rows[i].want), shell_rows[i].code);
    json_decref(args);
  }
}

/* A command sent under another name (Go zero's aliases, which exec_command
 * accepts) is analysed like one sent as cmd: an alias cannot slip a
 * destructive command past the checks. */
static void test_command_aliases_are_analysed(void **state) {
  (void)state;
  const ztool *ex = ztool_find("exec_command");
  const char *forms[] = {"{\"cmd\":\"rm -rf build\"}", "{\"command\":\"rm -rf build\"}",
                         "{\"script\":\"rm -rf build\"}", "{\"shell\":\"rm -rf build\"}",
                         "{\"cmd\":\"\",\"script\":\"rm -rf build\"}"};
  for (size_t i = 0; i < ZARRAY_LEN(forms); i++) {
    json_t *args = json_loads(forms[i], 0, NULL);
    zperm_engine e = {.mode = ZPERM_AUTO, .sandbox_active = true};
    zperm_decision d = zperm_decide(&e, ex, args);
    if (d.action != ZPERM_PROMPT || strcmp(d.code, "destructive"))
      fail_msg("%s: got %s/%s", forms[i], zperm_action_name(d.action), d.code);
    int kind = 0;
    char value[256];
    assert_true(zperm_suggest_grant(&e, ex, args, &kind, value, sizeof value));
    json_decref(args);
  }
}

/* The escalation of an allowed decision is that call's own: it is read off
 * the decision (zperm_escalation), never left on the engine. */
static void test_grants_order_and_escalation_of_the_call(void **state) {
  (void)state;
  const ztool *ex = ztool_find("exec_command");
  zgrants g = {0};
  zgrants_add(&g, "exec_command", ZGRANT_PREFIX, "curl", true, ZGRANT_SESSION);
  zgrants_add(&g, "exec_command", ZGRANT_PREFIX, "git push", false, ZGRANT_SESSION);
  zperm_engine e = {.mode = ZPERM_AUTO, .sandbox_active = true, .grants = &g};
  json_t *a1 = json_loads("{\"cmd\":\"curl http://x\"}", 0, NULL);
  json_t *a2 = json_loads("{\"cmd\":\"ls && git push origin\"}", 0, NULL);
  json_t *a3 = json_loads("{\"cmd\":\"curl x && wget y\"}", 0, NULL);
  /* An allow grant answers the network prompt; approval carries the network. */
  zperm_decision d = zperm_decide(&e, ex, a1);
  assert_int_equal(d.action, ZPERM_ALLOW);
  assert_true(d.grant_matched);
  assert_true(d.escalate_network);
  ztool_escalation esc = zperm_escalation(&d);
  assert_true(esc.network);
  assert_false(esc.unsandboxed);
  /* A deny grant wins, even for one command of many. */
  d = zperm_decide(&e, ex, a2);
  assert_int_equal(d.action, ZPERM_DENY);
  assert_string_equal(d.code, "grant_denied");
  /* An allow prefix must cover every command. */
  d = zperm_decide(&e, ex, a3);
  assert_int_equal(d.action, ZPERM_PROMPT);
  json_decref(a1);
  json_decref(a2);
  json_decref(a3);
  zgrants_release(&g);
}

/* A saved ("always") grant for a command does not let it leave the sandbox:
 * require_escalated needs this run's answer; the network escalation may be
 * answered by a saved grant. */
static void test_saved_grant_does_not_answer_running_unsandboxed(void **state) {
  (void)state;
  const ztool *ex = ztool_find("exec_command");
  zgrants g = {0};
  zgrants_add(&g, "exec_command", ZGRANT_PREFIX, "npm test", true, ZGRANT_ALWAYS);
  zperm_engine e = {.mode = ZPERM_AUTO, .sandbox_active = true, .grants = &g};
  json_t *unsb = json_pack("{s:s, s:s}", "cmd", "npm test", "sandbox_permissions",
                           "require_escalated");
  json_t *net = json_pack("{s:s, s:s}", "cmd", "npm test", "sandbox_permissions",
                          "with_additional_permissions");
  json_t *plain = json_pack("{s:s}", "cmd", "npm test");
  zperm_decision d = zperm_decide(&e, ex, unsb);
  assert_int_equal(d.action, ZPERM_PROMPT);
  assert_string_equal(d.code, "escalation");
  assert_true(d.escalate_unsandboxed);
  d = zperm_decide(&e, ex, net);
  assert_int_equal(d.action, ZPERM_ALLOW);
  assert_true(d.escalate_network);
  d = zperm_decide(&e, ex, plain);
  assert_int_equal(d.action, ZPERM_ALLOW);
  /* a session grant given for the command in the sandbox, or with the
   * network, does not answer it either */
  zgrants_add(&g, "exec_command", ZGRANT_PREFIX, "npm test", true, ZGRANT_SESSION);
  d = zperm_decide(&e, ex, unsb);
  assert_int_equal(d.action, ZPERM_PROMPT);
  /* the user's answer in this run to running it unsandboxed does */
  zerr err = ZERR_INIT;
  assert_int_equal(zgrants_remember(&g, "exec_command", ZGRANT_PREFIX, "npm test", true,
                                    ZGRANT_SESSION, true, &err), 0);
  d = zperm_decide(&e, ex, unsb);
  assert_int_equal(d.action, ZPERM_ALLOW);
  assert_true(d.escalate_unsandboxed);
  ztool_escalation esc = zperm_escalation(&d);
  assert_true(esc.unsandboxed);
  json_decref(unsb);
  json_decref(net);
  json_decref(plain);
  zgrants_release(&g);
}

/* The risk object of permission events: Go zero's {level, categories,
 * reason}, from the side effect, the shell analyzer and the decision. */
static void check_risk(const ztool *t, const char *args_json, const zperm_decision *d,
                       const char *level, const char *reason) {
  zperm_engine e = {.mode = ZPERM_AUTO, .sandbox_active = true};
  json_t *args = args_json ? json_loads(args_json, 0, NULL) : NULL;
  json_t *r = zperm_risk_json(&e, t, args, d);
  assert_true(json_is_object(r));
  assert_string_equal(zjson_str_or(r, "level", ""), level);
  assert_string_equal(zjson_str_or(r, "reason", ""), reason);
  assert_true(json_is_array(json_object_get(r, "categories")));
  json_decref(r);
  json_decref(args);
}

static void test_risk_object(void **state) {
  (void)state;
  const ztool *ex = ztool_find("exec_command");
  const ztool *rd = ztool_find("read_file");
  const ztool *wr = ztool_find("write_file");
  const ztool *plan = ztool_find("update_plan");
  check_risk(rd, "{\"path\":\"a.txt\"}", NULL, "low", "low risk: read");
  check_risk(wr, "{\"path\":\"a.txt\",\"content\":\"x\"}", NULL, "medium",
             "medium risk: write");
  check_risk(wr, "{\"path\":\"/etc/x\"}", NULL, "medium", "medium risk: absolute_path, write");
  check_risk(wr, "{\"path\":\"../x\"}", NULL, "critical", "critical risk: path_escape, write");
  check_risk(ex, "{\"cmd\":\"ls -l\"}", NULL, "high", "high risk: shell");
  check_risk(ex, "{\"cmd\":\"rm -rf build\"}", NULL, "critical",
             "critical risk: destructive, shell");
  check_risk(ex, "{\"command\":\"curl https://example.com\"}", NULL, "critical",
             "critical risk: network, shell");
  check_risk(plan, "{}", NULL, "low", "low");
  /* no arguments (unknown) and no tool still give an object */
  check_risk(ex, NULL, NULL, "high", "high risk: shell");
  check_risk(NULL, NULL, NULL, "low", "low");
  /* what the engine found about the path is part of it */
  zperm_decision d;
  memset(&d, 0, sizeof d);
  d.code = "outside_write_roots";
  check_risk(wr, "{\"path\":\"x\"}", &d, "critical", "critical risk: out_of_workspace, write");
  d.code = "symlink_escape";
  check_risk(wr, "{\"path\":\"x\"}", &d, "critical",
             "critical risk: symlink_traversal, write");
}

static void test_disabled_tool_is_denied_first(void **state) {
  (void)state;
  const char *const off[] = {"read_file", NULL};
  zperm_engine e = {.mode = ZPERM_UNSAFE, .disabled_tools = off};
  zperm_decision d = zperm_decide(&e, ztool_find("read_file"), NULL);
  assert_int_equal(d.action, ZPERM_DENY);
  assert_string_equal(d.code, "tool_denied");
  json_t *b = zperm_block_json(&d);
  assert_string_equal(json_string_value(json_object_get(b, "code")), "tool_denied");
  assert_true(json_is_true(json_object_get(b, "recoverable")));
  json_decref(b);
}

static void test_path_scope_outside_symlink_protected(void **state) {
  (void)state;
  char root[] = "/tmp/zero-perm-XXXXXX";
  assert_non_null(mkdtemp(root));
  char ws[128], out[128], link[160];
  snprintf(ws, sizeof ws, "%s/ws", root);
  snprintf(out, sizeof out, "%s/out", root);
  mkdir(ws, 0700);
  mkdir(out, 0700);
  snprintf(link, sizeof link, "%s/link", ws);
  assert_int_equal(symlink(out, link), 0);
  ztool_ctx ctx = {.workspace = ws};
  /* zero's own config dir inside the workspace (a workspace of $HOME) */
  char xdg[160];
  snprintf(xdg, sizeof xdg, "%s/cfg", ws);
  setenv("XDG_CONFIG_HOME", xdg, 1);
  zsb_policy p;
  zsb_policy_opts o = {.workspace = ws, .skip_config = true};
  assert_int_equal(zsb_policy_build(&p, &o, NULL), 0);
  zperm_engine e = {.mode = ZPERM_AUTO, .tools = &ctx, .policy = &p, .sandbox_active = true};
  const ztool *w = ztool_find("write_file");
  static const struct {
    const char *args;
    zperm_action want;
    const char *code;
  } rows[] = {
      {"{\"path\":\"a.txt\",\"content\":\"x\"}", ZPERM_ALLOW, "allowed"},
      {"{\"path\":\"../out/a.txt\",\"content\":\"x\"}", ZPERM_DENY, "outside_write_roots"},
      {"{\"path\":\"/etc/passwd\",\"content\":\"x\"}", ZPERM_DENY, "outside_write_roots"},
      {"{\"path\":\"link/a.txt\",\"content\":\"x\"}", ZPERM_DENY, "symlink_escape"},
      {"{\"path\":\".zero/config.json\",\"content\":\"x\"}", ZPERM_DENY, "protected_path"},
      {"{\"path\":\".agents/x\",\"content\":\"x\"}", ZPERM_DENY, "protected_path"},
      {"{\"path\":\".git/config\",\"content\":\"x\"}", ZPERM_DENY, "protected_path"},
      {"{\"path\":\".git/hooks/pre-commit\",\"content\":\"x\"}", ZPERM_DENY, "protected_path"},
      {"{\"path\":\"src/.git-notes\",\"content\":\"x\"}", ZPERM_ALLOW, "allowed"},
      {"{\"path\":\".git/commondir\",\"content\":\"../forged\"}", ZPERM_DENY, "protected_path"},
      {"{\"path\":\"~/.ssh/authorized_keys\",\"content\":\"x\"}", ZPERM_DENY, "outside_write_roots"},
      {"{\"path\":\"cfg/zero/config.json\",\"content\":\"x\"}", ZPERM_DENY, "protected_path"},
      {"{\"path\":\"cfg/zero/sandbox-grants.json\",\"content\":\"x\"}", ZPERM_DENY,
       "protected_path"},
      {"{\"path\":\"cfg/other.json\",\"content\":\"x\"}", ZPERM_ALLOW, "allowed"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    json_t *args = json_loads(rows[i].args, 0, NULL);
    zperm_decision d = zperm_decide(&e, w, args);
    if (d.action != rows[i].want || strcmp(d.code, rows[i].code))
      fail_msg("%s: got %s/%s (%s)", rows[i].args, zperm_action_name(d.action), d.code, d.reason);
    json_decref(args);
  }
  /* apply_patch names its files inside the patch: each one (and each "Move
   * to" destination) is checked like write_file's path. */
  const ztool *ap = ztool_find("apply_patch");
  static const struct {
    const char *patch;
    zperm_action want;
    const char *code;
  } prow[] = {
      {"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n", ZPERM_ALLOW, "allowed"},
      {"*** Begin Patch\n*** Add File: a.txt\n+x\n*** Add File: .git/hooks/pre-commit\n"
       "+#!/bin/sh\n*** End Patch\n", ZPERM_DENY, "protected_path"},
      {"*** Begin Patch\n*** Add File: .zero/config.json\n+{}\n*** End Patch\n", ZPERM_DENY,
       "protected_path"},
      {"*** Begin Patch\n*** Update File: a.txt\n*** Move to: .agents/a.txt\n@@\n-x\n+y\n"
       "*** End Patch\n", ZPERM_DENY, "protected_path"},
      {"*** Begin Patch\n*** Delete File: .git/config\n*** End Patch\n", ZPERM_DENY,
       "protected_path"},
      {"--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n", ZPERM_DENY,
       "protected_path"},
      {"*** Begin Patch\n*** Add File: ../out/x\n+x\n*** End Patch\n", ZPERM_DENY,
       "outside_write_roots"},
      {"*** Begin Patch\n*** Add File: link/x\n+x\n*** End Patch\n", ZPERM_DENY,
       "symlink_escape"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(prow); i++) {
    json_t *args = json_pack("{s:s}", "input", prow[i].patch);
    zperm_decision d = zperm_decide(&e, ap, args);
    if (d.action != prow[i].want || strcmp(d.code, prow[i].code))
      fail_msg("apply_patch %s: got %s/%s (%s)", prow[i].patch, zperm_action_name(d.action),
               d.code, d.reason);
    json_decref(args);
  }
  zsb_policy_release(&p);
  unsetenv("XDG_CONFIG_HOME");
  assert_int_equal(zfs_remove_tree(root), 0);
}

/* A workspace of $HOME: the hidden credentials are not writable by file
 * tools either (a sandboxed command cannot write them). */
static void test_home_workspace_keeps_credentials_and_zero_config(void **state) {
  (void)state;
  char root[] = "/tmp/zero-perm-home-XXXXXX";
  assert_non_null(mkdtemp(root));
  const char *home = getenv("HOME");
  char *old_home = home ? strdup(home) : NULL;
  setenv("HOME", root, 1);
  unsetenv("XDG_CONFIG_HOME");
  ztool_ctx ctx = {.workspace = root};
  zsb_policy p;
  zsb_policy_opts o = {.workspace = root, .skip_config = true};
  assert_int_equal(zsb_policy_build(&p, &o, NULL), 0);
  zperm_engine e = {.mode = ZPERM_AUTO, .tools = &ctx, .policy = &p, .sandbox_active = true};
  const ztool *w = ztool_find("write_file");
  static const struct {
    const char *path;
    zperm_action want;
  } rows[] = {
      {".ssh/authorized_keys", ZPERM_DENY}, {".npmrc", ZPERM_DENY},
      {".config/zero/config.json", ZPERM_DENY}, {".config/gh/hosts.yml", ZPERM_DENY},
      {"notes.txt", ZPERM_ALLOW}, {".config/other.json", ZPERM_ALLOW},
  };
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    json_t *args = json_pack("{s:s, s:s}", "path", rows[i].path, "content", "x");
    zperm_decision d = zperm_decide(&e, w, args);
    if (d.action != rows[i].want)
      fail_msg("%s: got %s/%s (%s)", rows[i].path, zperm_action_name(d.action), d.code, d.reason);
    json_decref(args);
  }
  zsb_policy_release(&p);
  if (old_home) setenv("HOME", old_home, 1);
  free(old_home);
  assert_int_equal(zfs_remove_tree(root), 0);
}

static void test_plan_mode_follows_read_only_not_side_effect(void **state) {
  (void)state;
  /* Plan mode trusts the read_only flag, not the side effect. */
  ztool none_rw = fake_tool(ZSIDE_NONE, false);
  assert_int_equal(decide(ZPERM_PLAN, true, &none_rw).action, ZPERM_DENY);
  assert_false(zperm_tool_visible(ZPERM_PLAN, &none_rw));
  ztool write_ro = fake_tool(ZSIDE_WRITE, true);
  assert_int_equal(decide(ZPERM_PLAN, true, &write_ro).action, ZPERM_ALLOW);
  assert_true(zperm_tool_visible(ZPERM_PLAN, &write_ro));
  zperm_decision d = decide(ZPERM_PLAN, true, &none_rw);
  assert_non_null(strstr(d.reason, "plan mode"));
  assert_non_null(strstr(d.allow_hint, "--permission-mode auto"));
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
    if (zperm_tool_visible(ZPERM_PLAN, all[i])) {
      /* under a policy that allows the network (network tools otherwise ask) */
      zsb_policy open = {.network = true, .enforce_tool_network = true};
      zperm_engine e = {.mode = ZPERM_PLAN, .sandbox_active = true, .policy = &open};
      assert_int_equal(zperm_decide(&e, all[i], NULL).action, ZPERM_ALLOW);
    }
  }
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
      {"ask", ZPERM_ASK},
      {"auto", ZPERM_AUTO},
      {"member", ZPERM_AUTO},
      {"member-auto", ZPERM_AUTO},
      {"unsafe", ZPERM_UNSAFE},
      {"full-auto", ZPERM_UNSAFE},
      {"full_auto", ZPERM_UNSAFE},
      {"high", ZPERM_UNSAFE},
      {"plan", ZPERM_PLAN},
      {"accept-edits", ZPERM_ACCEPT_EDITS},
      {"acceptEdits", ZPERM_ACCEPT_EDITS},
      {"accept_edits", ZPERM_ACCEPT_EDITS},
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
    assert_non_null(strstr(err.msg, "ask, accept-edits, auto, unsafe or plan"));
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

/* What a "session" / "always" answer remembers (zperm_suggest_grant). */
typedef struct suggest_row {
  const char *args;
  bool ok;
  const char *value;
} suggest_row;

static void test_suggested_grants_are_narrow(void **state) {
  (void)state;
  static const suggest_row rows[] = {
      {"{\"cmd\":\"git push origin main\"}", true, "git push origin main"},
      {"{\"cmd\":\"git push origin main\",\"prefix_rule\":[\"git\",\"push\"]}", true,
       "git push"},
      /* a prefix_rule that does not cover the command is ignored */
      {"{\"cmd\":\"npm install\",\"prefix_rule\":[\"git\",\"push\"]}", true, "npm install"},
      /* a prefix_rule must be whole words */
      {"{\"cmd\":\"gitk --all\",\"prefix_rule\":[\"git\"]}", true, "gitk --all"},
      {"{\"cmd\":\"make && make test\"}", true, "make"},
      /* `git` alone would allow any git command (aliases, hooks, -c): once only */
      {"{\"cmd\":\"git status; git diff HEAD\"}", false, ""},
      {"{\"cmd\":\"git diff; git diff HEAD\"}", true, "git diff"},
      {"{\"cmd\":\"bash -c 'make'\",\"prefix_rule\":[\"bash\"]}", false, ""},
      {"{\"cmd\":\"make && git push\",\"prefix_rule\":[\"git\",\"push\"]}", false, ""},
      {"{\"cmd\":\"cat a | grep b\"}", false, ""},
      {"{}", false, ""},
  };
  ztool sh = fake_tool(ZSIDE_SHELL, false);
  zperm_engine e = {.mode = ZPERM_ASK};
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    json_t *args = json_loads(rows[i].args, 0, NULL);
    assert_non_null(args);
    int kind = -1;
    char value[256];
    bool ok = zperm_suggest_grant(&e, &sh, args, &kind, value, sizeof value);
    json_decref(args);
    if (ok != rows[i].ok || strcmp(value, rows[i].value))
      fail_msg("%s: got %d \"%s\", want %d \"%s\"", rows[i].args, ok, value, rows[i].ok,
               rows[i].value);
    assert_int_equal(kind, ZGRANT_PREFIX);
  }
  /* file tools: the resolved target; other tools: the tool itself */
  char dir[] = "/tmp/zero-perm-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *ws = realpath(dir, NULL);
  ztool_ctx ctx = {.workspace = ws};
  zperm_engine fe = {.mode = ZPERM_ASK, .tools = &ctx};
  ztool wr = fake_tool(ZSIDE_WRITE, false);
  json_t *args = json_pack("{s:s}", "path", "sub/../out.txt");
  int kind = -1;
  char value[256];
  assert_true(zperm_suggest_grant(&fe, &wr, args, &kind, value, sizeof value));
  json_decref(args);
  assert_int_equal(kind, ZGRANT_PATH);
  char want[300];
  snprintf(want, sizeof want, "%s/out.txt", ws);
  assert_string_equal(value, want);
  ztool rd = fake_tool(ZSIDE_NETWORK, false);
  rd.side_effect = ZSIDE_NONE;
  assert_true(zperm_suggest_grant(&fe, &rd, NULL, &kind, value, sizeof value));
  assert_int_equal(kind, ZGRANT_TOOL);
  assert_string_equal(value, "");
  rmdir(dir);
  free(ws);
}

/* --offline: package installs are not network; network commands and
 * escalations are denied (never prompted), whatever the autonomy. */
static void test_offline_denies_network_and_escalations(void **state) {
  (void)state;
  ztool sh = fake_tool(ZSIDE_SHELL, false);
  static const struct { const char *args; zperm_action want; const char *code; } rows[] = {
      {"{\"cmd\":\"npm install\"}", ZPERM_ALLOW, "allowed"},
      {"{\"cmd\":\"pip install -r requirements.txt\"}", ZPERM_ALLOW, "allowed"},
      {"{\"cmd\":\"curl https://example.com\"}", ZPERM_DENY, "offline"},
      {"{\"cmd\":\"git push\"}", ZPERM_DENY, "offline"},
      {"{\"cmd\":\"make\",\"sandbox_permissions\":\"with_additional_permissions\"}", ZPERM_DENY,
       "offline"},
      {"{\"cmd\":\"make\",\"sandbox_permissions\":\"require_escalated\"}", ZPERM_DENY, "offline"},
      {"{\"cmd\":\"make\",\"sandbox_permissions\":\"use_default\"}", ZPERM_ALLOW, "allowed"},
  };
  for (int autonomy = ZAUTO_LOW; autonomy <= ZAUTO_MEDIUM; autonomy++)
    for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
      zperm_engine e = {.mode = ZPERM_AUTO, .autonomy = (zautonomy)autonomy,
                        .sandbox_active = true, .offline = true};
      json_t *args = json_loads(rows[i].args, 0, NULL);
      zperm_decision d = zperm_decide(&e, &sh, args);
      json_decref(args);
      if (d.action != rows[i].want || strcmp(d.code, rows[i].code))
        fail_msg("%s (autonomy %d): got %s/%s, want %s/%s", rows[i].args, autonomy,
                 zperm_action_name(d.action), d.code, zperm_action_name(rows[i].want),
                 rows[i].code);
      if (d.action == ZPERM_DENY) assert_non_null(strstr(d.allow_hint, "--offline"));
    }
  /* without --offline the same install asks for the network */
  zperm_engine on = {.mode = ZPERM_AUTO, .sandbox_active = true};
  json_t *args = json_loads("{\"cmd\":\"npm install\"}", 0, NULL);
  assert_int_equal(zperm_decide(&on, &sh, args).action, ZPERM_PROMPT);
  json_decref(args);
}

/* A specialist's allow-list narrows the extra (MCP) tools: exact names and
 * '*' prefixes; built-in tools are left to --disabled-tools. */
static void test_extra_allow_list_names_tools_and_prefixes(void **state) {
  (void)state;
  const char *const allowed[] = {"read_file", "mcp_p_probe", "mcp_gh_*", NULL};
  zperm_engine e = {.mode = ZPERM_UNSAFE, .extra_allowed = allowed};
  assert_true(zperm_tool_enabled(&e, "mcp_p_probe"));
  assert_false(zperm_tool_enabled(&e, "mcp_p_probe2"));
  assert_false(zperm_tool_enabled(&e, "mcp_b_big"));
  assert_true(zperm_tool_enabled(&e, "mcp_gh_get_issue"));
  assert_false(zperm_tool_enabled(&e, "mcp_ghx_get_issue"));
  assert_false(zperm_tool_enabled(&e, "mcp_list_resources"));
  assert_true(zperm_tool_enabled(&e, "exec_command")); /* built in: not this list's */
  assert_true(zperm_tool_enabled(&e, "swarm_send"));   /* a member's: not this list's */
  zperm_engine all = {.mode = ZPERM_UNSAFE};
  assert_true(zperm_tool_enabled(&all, "mcp_b_big"));
}

/* --disabled-tools: step 1, before everything, even unsafe mode. */
static void test_disabled_tools_filter_and_visibility(void **state) {
  (void)state;
  zerr err = ZERR_INIT;
  char **off = zperm_tool_filter("read_file", NULL, &err);
  assert_non_null(off);
  zperm_engine e = {.mode = ZPERM_UNSAFE, .disabled_tools = (const char *const *)off};
  assert_true(zperm_tool_enabled(&e, "read_file"));
  assert_false(zperm_tool_enabled(&e, "exec_command"));
  assert_true(zperm_tool_enabled(NULL, "exec_command"));
  zperm_decision d = zperm_decide(&e, ztool_find("exec_command"), NULL);
  assert_int_equal(d.action, ZPERM_DENY);
  assert_string_equal(d.code, "tool_denied");
  zperm_tool_list_free(off);
  assert_null(zperm_tool_filter(NULL, NULL, &err));
  assert_null(zperm_tool_filter("read_file,nope", NULL, &err));
  assert_int_equal(err.kind, ZE_USAGE);
}

/* Hole 3: a tool that reaches the network itself (web_fetch: side effect
 * network, a tool property) is refused by --offline in every mode, asks under
 * sandbox.network deny unless a grant or sandbox.enforceToolNetwork false
 * says otherwise, and never claims the OS sandbox confines it. */
static void test_network_tools_follow_the_network_policy(void **state) {
  (void)state;
  const ztool *wf = ztool_find("web_fetch");
  assert_non_null(wf);
  assert_int_equal(wf->side_effect, ZSIDE_NETWORK);
  json_t *args = json_pack("{s:s}", "url", "http://127.0.0.1:1/");
  zsb_policy deny = {.network = false, .enforce_tool_network = true};
  /* --offline: denied in every mode, unsafe and plan included */
  for (size_t m = 0; m < ZARRAY_LEN(modes); m++) {
    zperm_engine e = {.mode = modes[m], .sandbox_active = true, .policy = &deny, .offline = true};
    zperm_decision d = zperm_decide(&e, wf, args);
    assert_int_equal(d.action, ZPERM_DENY);
    assert_string_equal(d.code, "offline");
  }
  /* network deny: auto and plan ask, with a true reason */
  zperm_mode asking[] = {ZPERM_AUTO, ZPERM_PLAN, ZPERM_ASK};
  for (size_t m = 0; m < ZARRAY_LEN(asking); m++) {
    zperm_engine e = {.mode = asking[m], .sandbox_active = true, .policy = &deny};
    zperm_decision d = zperm_decide(&e, wf, args);
    assert_int_equal(d.action, ZPERM_PROMPT);
    assert_string_equal(d.code, "network");
    assert_null(strstr(d.reason, "runs in the OS sandbox"));
    assert_non_null(strstr(d.reason, "does not confine"));
    assert_non_null(strstr(d.allow_hint, "enforceToolNetwork"));
  }
  /* a grant of the tool answers it */
  zgrants g = {0};
  zgrants_add(&g, "web_fetch", ZGRANT_TOOL, NULL, true, ZGRANT_ALWAYS);
  zperm_engine eg = {.mode = ZPERM_AUTO, .sandbox_active = true, .policy = &deny, .grants = &g};
  zperm_decision d = zperm_decide(&eg, wf, args);
  assert_int_equal(d.action, ZPERM_ALLOW);
  assert_true(d.grant_matched);
  zgrants_release(&g);
  /* enforceToolNetwork false, or the network allowed: allowed in auto, and
   * the reason says why (never the OS sandbox) */
  zsb_policy exempt = {.network = false, .enforce_tool_network = false};
  zsb_policy open = {.network = true, .enforce_tool_network = true};
  const zsb_policy *lets[] = {&exempt, &open};
  for (size_t i = 0; i < ZARRAY_LEN(lets); i++) {
    zperm_engine e = {.mode = ZPERM_AUTO, .sandbox_active = true, .policy = lets[i]};
    d = zperm_decide(&e, wf, args);
    assert_int_equal(d.action, ZPERM_ALLOW);
    assert_null(strstr(d.reason, "OS sandbox"));
    assert_non_null(strstr(d.reason, "zero's own process"));
  }
  json_decref(args);
}

/* Hole 6: grants that allow far more than their words say are refused. */
static void test_too_broad_grants_are_refused(void **state) {
  (void)state;
  char why[400];
  static const char *const broad[] = {
      "sh", "bash -c", "zsh", "env", "sudo", "doas", "nice", "timeout 5", "xargs",
      "find", "find . -delete", "git", "git -c core.pager=x", "python3", "python3.11 -m",
      "/usr/bin/env", "node", "perl", "ruby", "FOO=1 bash", "stdbuf --output L", "  ",
  };
  for (size_t i = 0; i < ZARRAY_LEN(broad); i++) {
    why[0] = '\0';
    if (!zgrant_too_broad(ZGRANT_PREFIX, broad[i], true, why, sizeof why))
      fail_msg("prefix \"%s\" was accepted", broad[i]);
    assert_true(why[0] != '\0');
  }
  static const char *const narrow[] = {"git status", "npm test", "make", "ls -la",
                                       "cargo build", "gitk"};
  for (size_t i = 0; i < ZARRAY_LEN(narrow); i++)
    if (zgrant_too_broad(ZGRANT_PREFIX, narrow[i], true, why, sizeof why))
      fail_msg("prefix \"%s\" was refused: %s", narrow[i], why);
  /* a deny grant on a runner is fine; an empty path is never a grant */
  assert_false(zgrant_too_broad(ZGRANT_PREFIX, "bash", false, why, sizeof why));
  assert_true(zgrant_too_broad(ZGRANT_PATH, "", true, why, sizeof why));
  assert_true(zgrant_too_broad(ZGRANT_PATH, "", false, why, sizeof why));
  /* the engine never suggests one: only "once" is offered */
  zperm_engine e = {.mode = ZPERM_AUTO, .sandbox_active = true};
  json_t *args = json_pack("{s:s}", "cmd", "python3 -c 'print(1)'");
  int kind;
  char value[256];
  assert_false(zperm_suggest_grant(&e, ztool_find("exec_command"), args, &kind, value,
                                   sizeof value));
  json_decref(args);
  /* a saved one in the file is ignored with a warning, the rest is kept */
  char dir[] = "/tmp/zero-grants-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/g.json", dir);
  FILE *f = fopen(path, "w");
  fputs("{\"version\":1,\"grants\":[{\"tool\":\"exec_command\",\"kind\":\"prefix\","
        "\"value\":\"bash\",\"action\":\"allow\"},{\"tool\":\"exec_command\",\"kind\":"
        "\"prefix\",\"value\":\"npm test\",\"action\":\"allow\"}]}", f);
  fclose(f);
  zgrants g;
  zerr err = ZERR_INIT;
  assert_int_equal(zgrants_load(&g, path, "/nonexistent/mcp.json", &err), 0);
  assert_int_equal(g.n, 1);
  assert_string_equal(g.v[0].value, "npm test");
  assert_int_equal(g.v[0].file_index, 2); /* `grants list` numbers as revoke counts */
  assert_non_null(g.ignored);
  assert_non_null(strstr(g.ignored[0], "runs other commands"));
  /* and the file API refuses to add one */
  assert_int_equal(zgrants_file_add(path, "exec_command", ZGRANT_PREFIX, "xargs", true, &err), -1);
  assert_int_equal(err.kind, ZE_USAGE);
  assert_int_equal(zgrants_file_add(path, "read_file", ZGRANT_PATH, "", true, &err), -1);
  zgrants_release(&g);
  unlink(path);
  char lock[140];
  snprintf(lock, sizeof lock, "%s.lock", path);
  unlink(lock);
  rmdir(dir);
}

/* A scratch workspace (with src/ and an --add-dir beside it) for the
 * accept-edits and apply_patch grant tests; root is removed by rm_tree. */
typedef struct scratch {
  char root[40], ws[64], src[80], other[64];
  const char *add[1];
  ztool_ctx ctx;
  zsb_policy policy;
} scratch;

static void scratch_make(scratch *x) {
  snprintf(x->root, sizeof x->root, "/tmp/zero-perm-ae-XXXXXX");
  assert_non_null(mkdtemp(x->root));
  snprintf(x->ws, sizeof x->ws, "%s/ws", x->root);
  snprintf(x->src, sizeof x->src, "%s/ws/src", x->root);
  snprintf(x->other, sizeof x->other, "%s/other", x->root);
  mkdir(x->ws, 0700);
  mkdir(x->src, 0700);
  mkdir(x->other, 0700);
  x->add[0] = x->other;
  x->ctx = (ztool_ctx){.workspace = x->ws, .add_dirs = x->add, .n_add_dirs = 1};
  zsb_policy_opts o = {.workspace = x->ws,
                       .add_dirs = x->add,
                       .n_add_dirs = 1,
                       .skip_config = true};
  assert_int_equal(zsb_policy_build(&x->policy, &o, NULL), 0);
}

static void scratch_free(scratch *x) {
  zsb_policy_release(&x->policy);
  assert_int_equal(zfs_remove_tree(x->root), 0);
}

static zperm_decision decide_json(const zperm_engine *e, const char *tool, const char *args) {
  json_t *a = json_loads(args, 0, NULL);
  assert_non_null(a);
  zperm_decision d = zperm_decide(e, ztool_find(tool), a);
  json_decref(a);
  return d;
}

/* accept-edits: edits inside the write roots run unasked; a write outside
 * them or to a protected name is still refused, and every command, harmless
 * or not, still asks. */
static void test_accept_edits_allows_edits_only(void **state) {
  (void)state;
  scratch x;
  scratch_make(&x);
  zperm_engine e = {.mode = ZPERM_ACCEPT_EDITS,
                    .tools = &x.ctx,
                    .policy = &x.policy,
                    .sandbox_active = true};
  static const struct {
    const char *tool, *args;
    zperm_action want;
    const char *code;
  } rows[] = {
      {"write_file", "{\"path\":\"src/a.c\",\"content\":\"x\"}", ZPERM_ALLOW, "allowed"},
      {"edit_file", "{\"path\":\"a.c\",\"old_string\":\"a\",\"new_string\":\"b\"}", ZPERM_ALLOW,
       "allowed"},
      {"apply_patch",
       "{\"input\":\"*** Begin Patch\\n*** Add File: n.txt\\n+x\\n*** End "
       "Patch\\n\"}",
       ZPERM_ALLOW, "allowed"},
      {"write_file", "{\"path\":\"../other/b.txt\",\"content\":\"x\"}", ZPERM_ALLOW,
       "allowed"}, /* the --add-dir is a write root too */
      {"write_file", "{\"path\":\"/etc/passwd\",\"content\":\"x\"}", ZPERM_DENY,
       "outside_write_roots"},
      {"write_file", "{\"path\":\"../b.txt\",\"content\":\"x\"}", ZPERM_DENY,
       "outside_write_roots"},
      {"apply_patch",
       "{\"input\":\"*** Begin Patch\\n*** Add File: ok.txt\\n+x\\n*** Add "
       "File: ../../escape.txt\\n+x\\n*** End Patch\\n\"}",
       ZPERM_DENY, "outside_write_roots"},
      {"write_file", "{\"path\":\".git/hooks/pre-commit\",\"content\":\"x\"}", ZPERM_DENY,
       "protected_path"},
      {"exec_command", "{\"cmd\":\"echo hi\"}", ZPERM_PROMPT, "needs_approval"},
      {"exec_command", "{\"cmd\":\"ls -la\"}", ZPERM_PROMPT, "needs_approval"},
      {"exec_command", "{\"cmd\":\"rm -rf src\"}", ZPERM_PROMPT, "destructive"},
      {"read_file", "{\"path\":\"src/a.c\"}", ZPERM_ALLOW, "allowed"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    zperm_decision d = decide_json(&e, rows[i].tool, rows[i].args);
    if (d.action != rows[i].want || strcmp(d.code, rows[i].code))
      fail_msg("%s %s: got %s/%s (%s)", rows[i].tool, rows[i].args, zperm_action_name(d.action),
               d.code, d.reason);
  }
  /* an MCP tool is not a file edit: it asks as in ask mode */
  ztool stand_in = {.name = "mcp_fs_write", .side_effect = ZSIDE_NETWORK};
  zperm_call mc = {.tool = &stand_in, .mcp_server = "fs", .mcp_tool = "write"};
  assert_int_equal(zperm_decide_call(&e, &mc).action, ZPERM_PROMPT);
  /* and ask mode, for contrast, asks for the same edit */
  e.mode = ZPERM_ASK;
  assert_int_equal(decide_json(&e, "write_file", "{\"path\":\"src/a.c\",\"content\":\"x\"}").action,
                   ZPERM_PROMPT);
  scratch_free(&x);
}

/* apply_patch has no path argument: the grant a prompt offers is derived
 * from the patch's files (the file, or the deepest directory holding them
 * all), never wider than a write root; and a session path grant then answers
 * a patch whose every file it covers. */
static void test_apply_patch_grant_scope_from_its_files(void **state) {
  (void)state;
  scratch x;
  scratch_make(&x);
  zperm_engine e = {.mode = ZPERM_ASK,
                    .tools = &x.ctx,
                    .policy = &x.policy,
                    .sandbox_active = true};
  const ztool *ap = ztool_find("apply_patch");
  char want_src_file[128], want_ws[80];
  snprintf(want_src_file, sizeof want_src_file, "%s/a.c", x.src);
  snprintf(want_ws, sizeof want_ws, "%s", x.ws);
  static const char *const one = "*** Begin Patch\n*** Add File: src/a.c\n+x\n*** End Patch\n";
  static const char *const two = "*** Begin Patch\n*** Add File: src/a.c\n+x\n*** Add File: "
                                 "src/deep/b.c\n+y\n*** End Patch\n";
  static const char *const spread = "*** Begin Patch\n*** Add File: src/a.c\n+x\n*** Add File: "
                                    "README\n+y\n*** End Patch\n";
  static const char *const sibling = "*** Begin Patch\n*** Add File: src/a.c\n+x\n*** Add File: "
                                     "srcx/b.c\n+y\n*** End Patch\n";
  static const char *const roots = "*** Begin Patch\n*** Add File: src/a.c\n+x\n*** Add File: "
                                   "../other/b.c\n+y\n*** End Patch\n";
  struct {
    const char *patch;
    bool ok;
    const char *value;
  } rows[] = {
      {one, true, want_src_file}, {two, true, x.src},   {spread, true, want_ws},
      {sibling, true, want_ws},   {roots, false, NULL},
  };
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    json_t *args = json_pack("{s:s}", "input", rows[i].patch);
    int kind = -1;
    char value[256];
    bool ok = zperm_suggest_grant(&e, ap, args, &kind, value, sizeof value);
    json_decref(args);
    if (ok != rows[i].ok) fail_msg("row %zu: suggested %d (%s)", i, ok, ok ? value : "");
    if (!ok) continue;
    assert_int_equal(kind, ZGRANT_PATH);
    if (strcmp(value, rows[i].value)) fail_msg("row %zu: %s, want %s", i, value, rows[i].value);
  }
  /* the session grant of src/ answers a patch inside it, not one reaching out */
  zgrants g = {0};
  zgrants_add(&g, "apply_patch", ZGRANT_PATH, x.src, true, ZGRANT_SESSION);
  e.grants = &g;
  json_t *in = json_pack("{s:s}", "input", two);
  json_t *out = json_pack("{s:s}", "input", spread);
  zperm_decision d = zperm_decide(&e, ap, in);
  assert_int_equal(d.action, ZPERM_ALLOW);
  assert_true(d.grant_matched);
  d = zperm_decide(&e, ap, out);
  assert_int_equal(d.action, ZPERM_PROMPT);
  json_decref(in);
  json_decref(out);
  zgrants_release(&g);
  scratch_free(&x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decision_table_covers_every_mode_and_side_effect),
      cmocka_unit_test(test_suggested_grants_are_narrow),
      cmocka_unit_test(test_extra_allow_list_names_tools_and_prefixes),
      cmocka_unit_test(test_command_aliases_are_analysed),
      cmocka_unit_test(test_offline_denies_network_and_escalations),
      cmocka_unit_test(test_network_tools_follow_the_network_policy),
      cmocka_unit_test(test_too_broad_grants_are_refused),
      cmocka_unit_test(test_disabled_tools_filter_and_visibility),
      cmocka_unit_test(test_shell_analysis_and_escalations),
      cmocka_unit_test(test_grants_order_and_escalation_of_the_call),
      cmocka_unit_test(test_disabled_tool_is_denied_first),
      cmocka_unit_test(test_risk_object),
      cmocka_unit_test(test_saved_grant_does_not_answer_running_unsandboxed),
      cmocka_unit_test(test_path_scope_outside_symlink_protected),
      cmocka_unit_test(test_home_workspace_keeps_credentials_and_zero_config),
      cmocka_unit_test(test_plan_mode_follows_read_only_not_side_effect),
      cmocka_unit_test(test_visibility_hides_only_non_read_only_tools_in_plan_mode),
      cmocka_unit_test(test_mode_parse_accepts_names_and_aliases),
      cmocka_unit_test(test_mode_parse_rejects_unknown_with_usage_error),
      cmocka_unit_test(test_mode_names_round_trip),
      cmocka_unit_test(test_autonomy_parse),
      cmocka_unit_test(test_effective_mode_rules),
      cmocka_unit_test(test_accept_edits_allows_edits_only),
      cmocka_unit_test(test_apply_patch_grant_scope_from_its_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
