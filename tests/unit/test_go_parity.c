/* test_go_parity.c — Go zero's headless contract (issue 18, part B): the
 * pure pieces, one table per point: Go's grants layouts converted, --auto
 * member, network approvals reused per capability. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/json.h"
#include "cli/exit_codes.h"
#include "config/keys.h"
#include "agent/compaction.h"
#include "perm/engine.h"
#include "provider/think.h"
#include "perm/grants.h"
#include "perm/grants_go.h"
#include "tools/patch.h"
#include "tools/tool.h"
#include "test_tools_util.h"

/* ---- sandbox-grants.json in Go zero's layouts ------------------------------ */

typedef struct go_row {
  const char *doc;
  bool is_go;
  size_t migrated, dropped;
  const char *first; /* "tool kind value action" of the first grant, or NULL */
} go_row;

static const go_row go_rows[] = {
    /* ours is not Go's */
    {"{\"version\":1,\"grants\":[]}", false, 0, 0, NULL},
    {"{\"schemaVersion\":4,\"grants\":{}}", false, 0, 0, NULL},
    /* v1: one tool-wide grant per tool */
    {"{\"schemaVersion\":1,\"grants\":{\"write_file\":{\"toolName\":\"write_file\","
     "\"decision\":\"allow\",\"approvedAt\":\"t\"}}}",
     true, 1, 0, "write_file tool - allow"},
    /* v2: a dir scope with maxAutonomy */
    {"{\"schemaVersion\":2,\"grants\":{\"edit_file\":[{\"toolName\":\"edit_file\",\"scope\":"
     "\"/w\",\"scopeKind\":\"dir\",\"decision\":\"DENY\",\"maxAutonomy\":\"high\","
     "\"approvedAt\":\"t\"}]}}",
     true, 1, 0, "edit_file path /w deny"},
    /* v3: a global prefix of Go's shell tool */
    {"{\"schemaVersion\":3,\"policyVersion\":2,\"grants\":{},\"commandPrefixes\":{\"bash\":[{"
     "\"toolName\":\"bash\",\"prefix\":[\"npm\",\"test\"],\"approvedAt\":\"t\"}]}}",
     true, 1, 0, "exec_command prefix npm test allow"},
    /* never widened: project prefix, host scope, session grant, tool-wide shell allow */
    {"{\"schemaVersion\":3,\"policyVersion\":2,\"grants\":{\"web_fetch\":[{\"toolName\":"
     "\"web_fetch\",\"scope\":\"a.com\",\"scopeKind\":\"host\",\"decision\":\"allow\"}],"
     "\"write_file\":[{\"toolName\":\"write_file\",\"decision\":\"allow\",\"session\":true}],"
     "\"bash\":[{\"toolName\":\"bash\",\"decision\":\"allow\"}]},\"commandPrefixes\":{\"bash\":"
     "[{\"toolName\":\"bash\",\"prefix\":[\"make\"],\"project\":\"/p\"}]}}",
     true, 0, 4, NULL},
    /* a tool-wide shell deny is kept (it only narrows) */
    {"{\"schemaVersion\":3,\"grants\":{\"bash\":[{\"toolName\":\"bash\",\"decision\":"
     "\"deny\"}]}}",
     true, 1, 0, "exec_command tool - deny"},
    /* malformed entries are dropped, not fatal */
    {"{\"schemaVersion\":3,\"grants\":{\"x\":[{\"decision\":\"maybe\"}, 7]},"
     "\"commandPrefixes\":{\"bash\":[{\"prefix\":[]}]}}",
     true, 0, 3, NULL},
};

static void test_go_grants_layouts_convert_without_widening(void **state) {
  (void)state;
  for (size_t i = 0; i < ZARRAY_LEN(go_rows); i++) {
    const go_row *r = &go_rows[i];
    json_t *doc = json_loads(r->doc, 0, NULL);
    assert_non_null(doc);
    if (zgrants_go_is(doc) != r->is_go) fail_msg("row %zu: is_go", i);
    if (!r->is_go) {
      json_decref(doc);
      continue;
    }
    size_t migrated, dropped;
    json_t *ours = zgrants_go_convert(doc, &migrated, &dropped);
    if (migrated != r->migrated || dropped != r->dropped)
      fail_msg("row %zu: migrated %zu dropped %zu", i, migrated, dropped);
    assert_int_equal(json_integer_value(json_object_get(ours, "version")), 1);
    json_t *g = json_array_get(json_object_get(ours, "grants"), 0);
    if (r->first) {
      char got[256];
      snprintf(got, sizeof got, "%s %s %s %s", zjson_str_or(g, "tool", "?"),
               zjson_str_or(g, "kind", "?"), zjson_str_or(g, "value", "-"),
               zjson_str_or(g, "action", "?"));
      if (strcmp(got, r->first)) fail_msg("row %zu: got \"%s\", want \"%s\"", i, got, r->first);
    } else {
      assert_null(g);
    }
    json_decref(ours);
    json_decref(doc);
  }
}

/* ---- --auto member ------------------------------------------------------------ */

typedef struct member_row {
  zautonomy autonomy;
  const char *args;
  zperm_action want;
  const char *code;
} member_row;

static const member_row member_rows[] = {
    {ZAUTO_MEMBER, "{\"cmd\":\"make test\"}", ZPERM_ALLOW, "allowed"},
    {ZAUTO_MEMBER, "{\"cmd\":\"curl http://x\"}", ZPERM_DENY, "network"},
    {ZAUTO_MEMBER, "{\"cmd\":\"ls\",\"sandbox_permissions\":\"require_escalated\"}", ZPERM_DENY,
     "escalation"},
    {ZAUTO_MEMBER, "{\"cmd\":\"ls\",\"sandbox_permissions\":\"with_additional_permissions\"}",
     ZPERM_DENY, "escalation"},
    {ZAUTO_MEMBER, "{\"cmd\":\"rm -rf build\"}", ZPERM_PROMPT, "destructive"},
    /* low asks where member refuses */
    {ZAUTO_LOW, "{\"cmd\":\"curl http://x\"}", ZPERM_PROMPT, "network"},
    {ZAUTO_LOW, "{\"cmd\":\"ls\",\"sandbox_permissions\":\"require_escalated\"}", ZPERM_PROMPT,
     "escalation"},
};

static void test_auto_member_denies_network_and_leaving_the_sandbox(void **state) {
  (void)state;
  zautonomy a;
  assert_int_equal(zautonomy_parse("member", &a, NULL), 0);
  assert_int_equal(a, ZAUTO_MEMBER);
  assert_string_equal(zautonomy_name(ZAUTO_MEMBER), "member");
  const ztool *ex = ztool_find("exec_command");
  const ztool *wr = ztool_find("write_file");
  assert_non_null(ex);
  for (size_t i = 0; i < ZARRAY_LEN(member_rows); i++) {
    const member_row *r = &member_rows[i];
    json_t *args = json_loads(r->args, 0, NULL);
    zperm_engine e = {.mode = ZPERM_AUTO, .autonomy = r->autonomy, .sandbox_active = true};
    zperm_decision d = zperm_decide(&e, ex, args);
    json_decref(args);
    if (d.action != r->want || strcmp(d.code, r->code))
      fail_msg("row %zu %s: got %s/%s", i, r->args, zperm_action_name(d.action), d.code);
  }
  /* write tools run */
  json_t *args = json_loads("{\"path\":\"a.txt\",\"content\":\"x\"}", 0, NULL);
  zperm_engine e = {.mode = ZPERM_AUTO, .autonomy = ZAUTO_MEMBER, .sandbox_active = true};
  assert_int_equal(zperm_decide(&e, wr, args).action, ZPERM_ALLOW);
  json_decref(args);
}

/* ---- grants per capability ---------------------------------------------------- */

static void test_network_approval_covers_equivalent_commands(void **state) {
  (void)state;
  const ztool *ex = ztool_find("exec_command");
  zgrants g = {0};
  zperm_engine e = {.mode = ZPERM_AUTO, .sandbox_active = true, .grants = &g};
  static const struct {
    const char *args;
    zperm_action before, after;
  } rows[] = {
      {"{\"cmd\":\"curl https://a.example\"}", ZPERM_PROMPT, ZPERM_ALLOW},
      {"{\"cmd\":\"git fetch origin\"}", ZPERM_PROMPT, ZPERM_ALLOW},
      {"{\"cmd\":\"ls\",\"sandbox_permissions\":\"with_additional_permissions\"}", ZPERM_PROMPT,
       ZPERM_ALLOW},
      /* never: leaving the sandbox, or a destructive command */
      {"{\"cmd\":\"ls\",\"sandbox_permissions\":\"require_escalated\"}", ZPERM_PROMPT,
       ZPERM_PROMPT},
      {"{\"cmd\":\"rm -rf build\"}", ZPERM_PROMPT, ZPERM_PROMPT},
  };
  for (int phase = 0; phase < 2; phase++) {
    if (phase == 1) /* what the prompt flow remembers for a network approval */
      zgrants_add(&g, "exec_command", ZGRANT_CAPABILITY, "network", true, ZGRANT_SESSION);
    for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
      json_t *args = json_loads(rows[i].args, 0, NULL);
      zperm_decision d = zperm_decide(&e, ex, args);
      json_decref(args);
      zperm_action want = phase ? rows[i].after : rows[i].before;
      if (d.action != want)
        fail_msg("phase %d %s: got %s (%s)", phase, rows[i].args, zperm_action_name(d.action),
                 d.code);
      if (phase && want == ZPERM_ALLOW) assert_true(d.escalate_network);
    }
  }
  /* another tool's capability is not this one's; the value is checked */
  assert_null(zgrants_match_capability(&g, "write_stdin", "network"));
  char why[200];
  assert_true(zgrant_too_broad(ZGRANT_CAPABILITY, "everything", true, why, sizeof why));
  assert_false(zgrant_too_broad(ZGRANT_CAPABILITY, "network", true, why, sizeof why));
  zgrants_release(&g);
}

/* ---- update_plan in Go zero's item shape ---------------------------------------- */

typedef struct plan_row {
  const char *args;
  int rc;
  const char *stored; /* "step/status[/notes]" of item 0, or an output fragment on failure */
} plan_row;

static const plan_row plan_rows[] = {
    {"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}", 0, "a/pending"},
    {"{\"plan\":[{\"content\":\"Read code\",\"status\":\"in_progress\"}]}", 0,
     "Read code/in_progress"},
    {"{\"plan\":[{\"content\":\"b\",\"status\":\"done\"}]}", 0, "b/completed"},
    {"{\"plan\":[{\"content\":\"c\",\"status\":\"completed\",\"notes\":\"ran make\"}]}", 0,
     "c/completed/ran make"},
    {"{\"plan\":[{\"id\":\"1\",\"content\":\"d\"}]}", 0, "d/pending"}, /* status defaults */
    {"{\"plan\":[{\"status\":\"done\"}]}", -1, "plan[0].step\" (or \"content\")"},
    {"{\"plan\":[{\"content\":\"\"}]}", -1, "plan[0].content"},
    {"{\"plan\":[{\"content\":\"e\",\"status\":\"failed\"}]}", -1, "status"},
    {"{\"plan\":[{\"content\":\"x\",\"status\":\"in_progress\"},{\"step\":\"y\","
     "\"status\":\"in_progress\"}]}",
     -1, "only one step may be in_progress"},
};

static void test_update_plan_takes_go_items(void **state) {
  tfx *f = *state;
  for (size_t i = 0; i < ZARRAY_LEN(plan_rows); i++) {
    const plan_row *r = &plan_rows[i];
    int rc = tfx_run(f, "update_plan", "%s", r->args);
    if (rc != r->rc) fail_msg("row %zu: rc %d: %s", i, rc, f->res.output.data);
    if (rc < 0) {
      if (!strstr(f->res.output.data, r->stored))
        fail_msg("row %zu: \"%s\" lacks \"%s\"", i, f->res.output.data, r->stored);
      continue;
    }
    const json_t *item = json_array_get(f->ctx.plan, 0);
    char got[200];
    snprintf(got, sizeof got, "%s/%s%s%s", zjson_str_or(item, "step", "?"),
             zjson_str_or(item, "status", "?"), zjson_str(item, "notes") ? "/" : "",
             zjson_str_or(item, "notes", ""));
    if (strcmp(got, r->stored)) fail_msg("row %zu: stored %s, want %s", i, got, r->stored);
  }
}

/* ---- apply_patch: markers padded with spaces --------------------------------------- */

typedef struct patch_row {
  const char *patch;
  size_t files;
  const char *first_path;
} patch_row;

static const patch_row patch_rows[] = {
    {"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n", 1, "a.txt"},
    {"*** Begin Patch\n*** Add File: a.txt\n+x\n *** End Patch\n", 1, "a.txt"},
    {"*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch \n", 1, "a.txt"},
    {" *** Begin Patch \n  *** Update File: x\n@@\n-a\n+b\n *** End Patch\n", 1, "x"},
    {"*** Begin Patch\n*** Update File: x\n-a\n+b\n  *** Delete File: y \n*** End Patch\n", 2, "x"},
    {"*** Begin Patch\n*** Update File: x\n   *** Move to: z\n-a\n+b\n *** End of File\n"
     "*** End Patch\n",
     1, "x"},
    /* a context line is still a context line */
    {"*** Begin Patch\n*** Update File: x\n context ***\n-a\n+b\n*** End Patch\n", 1, "x"},
};

static void test_apply_patch_tolerates_padded_markers(void **state) {
  (void)state;
  for (size_t i = 0; i < ZARRAY_LEN(patch_rows); i++) {
    zpatch p = ZPATCH_INIT;
    zbuf err = ZBUF_INIT;
    int rc = zpatch_parse(patch_rows[i].patch, strlen(patch_rows[i].patch), &p, &err);
    if (rc != 0) fail_msg("row %zu: %s", i, err.data);
    if (p.files.len != patch_rows[i].files) fail_msg("row %zu: %zu files", i, p.files.len);
    assert_string_equal(p.files.items[0].path, patch_rows[i].first_path);
    if (i == 5) {
      assert_string_equal(p.files.items[0].move_to, "z");
      assert_true(p.files.items[0].hunks.items[0].eof);
    }
    if (i == 6) assert_int_equal(p.files.items[0].hunks.items[0].old_lines.len, 2);
    zpatch_release(&p);
    zbuf_release(&err);
  }
}

/* ---- error codes and exit codes -------------------------------------------------- */

static void test_error_codes_are_go_zeros(void **state) {
  (void)state;
  static const struct {
    int exit_code;
    zexit_origin origin;
    const char *code, *status;
  } rows[] = {
      {ZEXIT_USAGE, ZORIGIN_RUN, "usage_error", "error"},
      {ZEXIT_USAGE, ZORIGIN_SANDBOX, "usage_error", "error"}, /* a malformed sandbox config */
      {ZEXIT_PROVIDER, ZORIGIN_RUN, "provider_error", "error"},
      {ZEXIT_INCOMPLETE, ZORIGIN_RUN, "max_turns", "incomplete"},
      {ZEXIT_INTERRUPTED, ZORIGIN_MCP, "interrupted", "interrupted"},
      {ZEXIT_PROVIDER, ZORIGIN_SANDBOX, "sandbox_error", "error"},
      {ZEXIT_INTERNAL, ZORIGIN_SANDBOX, "sandbox_error", "error"},
      {ZEXIT_PROVIDER, ZORIGIN_MCP, "mcp_error", "error"},
      {ZEXIT_INTERNAL, ZORIGIN_GUARDRAIL, "guardrail_halt", "error"},
      {ZEXIT_INTERNAL, ZORIGIN_RUN, "internal_error", "error"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    assert_string_equal(zexit_error_code(rows[i].exit_code, rows[i].origin), rows[i].code);
    assert_string_equal(zexit_status_name(rows[i].exit_code), rows[i].status);
  }
  assert_int_equal(ZEXIT_INCOMPLETE, 4);
  assert_int_equal(ZEXIT_INTERRUPTED, 130);
  assert_int_equal(zexit_for_error(ZE_CANCELLED), 130);
}

/* ---- think tags and summarizers ------------------------------------------------- */

typedef struct think_out {
  zbuf text, reasoning;
} think_out;

static int think_rec(void *ud, const zprov_event *ev) {
  think_out *o = ud;
  if (ev->kind == ZPEV_TEXT) zbuf_add(&o->text, ev->text, ev->len);
  if (ev->kind == ZPEV_REASONING) zbuf_add(&o->reasoning, ev->text, ev->len);
  return 0;
}

static void test_think_tags_any_case_any_split(void **state) {
  (void)state;
  static const struct {
    const char *in, *text, *reasoning;
  } rows[] = {
      {"<think>plan</think>\nanswer", "answer", "plan"},
      {"<THINK>plan</THINK>answer", "answer", "plan"},
      {"<Think>a</think>b", "b", "a"},
      {"x <thinker> y", "x <thinker> y", ""},
      {"1 < 2 <tHiNk>r</ThInK>ok", "1 < 2 ok", "r"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    size_t n = strlen(rows[i].in);
    for (size_t k = 0; k <= n; k++) { /* every split point */
      think_out o = {ZBUF_INIT, ZBUF_INIT};
      zthink_filter f;
      zthink_init(&f, think_rec, &o);
      zprov_event ev = {.kind = ZPEV_TEXT, .text = rows[i].in, .len = k};
      zthink_on_event(&f, &ev);
      ev.text = rows[i].in + k;
      ev.len = n - k;
      zthink_on_event(&f, &ev);
      zthink_flush(&f);
      zthink_release(&f);
      if (strcmp(o.text.len ? o.text.data : "", rows[i].text) ||
          strcmp(o.reasoning.len ? o.reasoning.data : "", rows[i].reasoning))
        fail_msg("row %zu split %zu: text \"%s\" reasoning \"%s\"", i, k,
                 o.text.len ? o.text.data : "", o.reasoning.len ? o.reasoning.data : "");
      zbuf_release(&o.text);
      zbuf_release(&o.reasoning);
    }
  }
  static const struct {
    const char *model;
    bool on;
  } families[] = {
      {"deepseek-r1:14b", true}, {"DeepSeek-R1-Distill-Qwen-7B", true}, {"qwen/QwQ-32B", true},
      {"Qwen3-Coder-30B", true}, {"openai/gpt-oss-120b", true},         {"zai-org/GLM-4.6", true},
      {"MiniMax-M2", true},      {"moonshotai/Kimi-K2-Thinking", true}, {"magistral-small", true},
      {"gpt-4.1", false},        {"claude-sonnet-4-5", false},          {"llama3.3", false},
  };
  for (size_t i = 0; i < ZARRAY_LEN(families); i++)
    if (zthink_model_default(families[i].model) != families[i].on)
      fail_msg("%s: think tags %d", families[i].model, families[i].on);
}

static void test_cheap_summarizer_per_provider(void **state) {
  (void)state;
  static const struct {
    const char *kind, *base_url, *main_model, *want;
  } rows[] = {
      {"openai", NULL, "gpt-5", "gpt-4.1-mini"},
      {"anthropic", NULL, "claude-sonnet-4-5", "claude-haiku-4-5"},
      {"anthropic", "https://api.anthropic.com/v1", "claude-opus-4-1", "claude-haiku-4-5"},
      {"gemini", NULL, "gemini-2.5-pro", "gemini-2.5-flash-lite"},
      {"gemini", "https://generativelanguage.googleapis.com/v1beta", "gemini-2.5-pro",
       "gemini-2.5-flash-lite"},
      {"gemini", NULL, "gemini-2.5-flash-lite", NULL}, /* already the cheap one */
      {"gemini", "http://127.0.0.1:9/v1beta", "gemini-2.5-pro",
       NULL}, /* a proxy: unknown catalog */
      {"openai", "http://localhost:11434/v1", "qwen3", NULL},
  };
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    const char *m = zcompact_pick_model(NULL, rows[i].kind, rows[i].base_url, rows[i].main_model);
    if ((m == NULL) != (rows[i].want == NULL) || (m && strcmp(m, rows[i].want)))
      fail_msg("row %zu: got %s", i, m ? m : "(main)");
  }
}

/* ---- unknown config keys ------------------------------------------------------- */

static void collect_msg(void *ud, const char *msg) {
  zbuf *b = ud;
  zbuf_addf(b, "%s\n", msg);
}

static void test_unknown_config_keys_with_did_you_mean(void **state) {
  (void)state;
  static const struct {
    const char *doc;
    size_t count;
    const char *says; /* a fragment of the report, or "" */
  } rows[] = {
      {"{\"activeProvider\":\"a\",\"maxTurns\":3,\"providers\":[{\"name\":\"a\","
       "\"model\":\"m\"}],\"sandbox\":{\"network\":\"deny\"}}",
       0, ""},
      {"{\"modle\":1}", 1, "unknown key \"modle\" (did you mean \"models\"?)"},
      {"{\"maxTurn\":1}", 1, "(did you mean \"maxTurns\"?)"},
      {"{\"providers\":[{\"name\":\"a\"},{\"modle\":\"x\"}]}", 1,
       "\"providers[1].modle\" (did you mean \"model\"?)"},
      {"{\"preferences\":{\"compactionModle\":\"main\"}}", 1,
       "\"preferences.compactionModle\" (did you mean \"compactionModel\"?)"},
      {"{\"sandbox\":{\"netwrok\":\"allow\"}}", 1, "(did you mean \"network\"?)"},
      {"{\"models\":{\"my-ft\":{\"contextWindw\":9}}}", 1,
       "\"models.my-ft.contextWindw\" (did you mean \"contextWindow\"?)"},
      {"{\"mcp\":{\"servers\":{\"s\":{\"comand\":\"x\",\"env\":{\"ANY\":\"1\"}}}}}", 1,
       "(did you mean \"command\"?)"},
      {"{\"somethingElse\":true}", 1, "(zero does not read it)"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(rows); i++) {
    json_t *doc = json_loads(rows[i].doc, 0, NULL);
    assert_non_null(doc);
    zbuf b = ZBUF_INIT;
    size_t n = zconfig_unknown_keys(doc, "cfg.json", collect_msg, &b);
    if (n != rows[i].count || (rows[i].says[0] && !strstr(b.data, rows[i].says)))
      fail_msg("row %zu: %zu: %s", i, n, b.len ? b.data : "(none)");
    zbuf_release(&b);
    json_decref(doc);
  }
  static const char *const names[] = {"fork", "side", "regular", NULL};
  assert_string_equal(zconfig_nearest_key("forks", names), "fork");
  assert_null(zconfig_nearest_key("banana", names));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_go_grants_layouts_convert_without_widening),
      cmocka_unit_test(test_auto_member_denies_network_and_leaving_the_sandbox),
      cmocka_unit_test(test_network_approval_covers_equivalent_commands),
      TFX_TEST(test_update_plan_takes_go_items),
      cmocka_unit_test(test_apply_patch_tolerates_padded_markers),
      cmocka_unit_test(test_error_codes_are_go_zeros),
      cmocka_unit_test(test_think_tags_any_case_any_split),
      cmocka_unit_test(test_cheap_summarizer_per_provider),
      cmocka_unit_test(test_unknown_config_keys_with_did_you_mean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
