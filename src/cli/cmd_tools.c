/* cmd_tools.c — `zero tools list|run`: the model's tools from the command
 * line, through the same permission engine and output processing (argument
 * checking, redaction, budgets, spill files) a model call gets. For scripts,
 * debugging and benchmarks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/http.h"
#include "config/config.h"
#include "perm/engine.h"
#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "perm/prompt.h"
#include "cli/run_setup.h"
#include "tools/tool.h"

enum { T_HELP = 1, T_JSON, T_MODE, T_AUTO, T_SKIP, T_CWD, T_ADD_DIR };

static const zopt TOOLS_OPTS[] = {
    {T_MODE, "permission-mode", 0, ZOPT_VALUE, 0, "ask|accept-edits|auto|unsafe|plan",
     "as for zero exec (default ask: calls that need approval are\ndenied)",
     "MODE (as for zero exec)"},
    // clang-format off
    {T_AUTO, "auto", 0, ZOPT_VALUE, 0, "low|member|medium|high", "autonomy, as for zero exec", NULL},
    // clang-format on
    {T_SKIP, "skip-permissions-unsafe", 0, ZOPT_FLAG, 0, NULL, "allow every call", NULL},
    {T_JSON, "json", 0, ZOPT_FLAG, 0, NULL,
     "print a JSON object (tool, ok, output, truncated, meta,\npermission)", "Options"},
    {T_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR",
     "workspace directory (default: the current directory)", NULL},
    {T_ADD_DIR, "add-dir", 0, ZOPT_VALUE, ZOPT_REPEAT, "DIR",
     "another directory the write tools may change (repeatable)", NULL},
    {T_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_tools_opts = {.command = "tools", .opts = TOOLS_OPTS,
                                   .n_opts = ZARRAY_LEN(TOOLS_OPTS),
                                   .unknown = "unknown option"};

static void tools_usage(FILE *out) {
  zcli_subcommand_usage(out, "zero tools", &zcli_tools_subs);
  fputs("\n"
        "Runs the model's tools directly. ARGS is the JSON argument object (or raw text for\n"
        "apply_patch); \"-\" reads it from stdin. The result goes to stdout; the exit code is\n"
        "0 when the tool succeeded, 1 when it failed or was denied, 2 for usage errors.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_tools_opts);
  fputs("\n"
        "Examples:\n"
        "  zero tools run read_file '{\"path\":\"README.md\"}'\n"
        "  zero tools run grep '{\"pattern\":\"TODO\",\"output_mode\":\"count\"}' --json\n"
        "  zero tools run apply_patch - --permission-mode auto < change.patch\n",
        out);
}

typedef struct tools_args {
  bool json, help;
  bool mode_given, autonomy_given, skip_unsafe;
  zperm_mode mode;
  zautonomy autonomy;
  const char *cwd;
  ZVEC(const char *) add_dirs;
  ZVEC(const char *) positional;
} tools_args;

/* A usage error of zero tools (printf message, then the short usage; exit 2). */
#define usage_error(...) zcli_usage_errorf("tools", __VA_ARGS__)

static int parse(int argc, char **argv, tools_args *a) {
  zopt_parser op;
  zopt_hit hit;
  zerr err = ZERR_INIT;
  int rc;
  zopt_init(&op, &zcli_tools_opts, argc, argv);
  while ((rc = zopt_next(&op, &hit, &err)) > 0) {
    switch (hit.id) {
      case T_JSON: a->json = true; break;
      case T_SKIP: a->skip_unsafe = true; break;
      case T_MODE:
        if (zperm_mode_parse(hit.value, &a->mode, &err) < 0) return usage_error("%s", err.msg);
        a->mode_given = true;
        break;
      case T_AUTO:
        if (zautonomy_parse(hit.value, &a->autonomy, &err) < 0) return usage_error("%s", err.msg);
        a->autonomy_given = true;
        break;
      case T_ADD_DIR: zvec_push(&a->add_dirs, hit.value); break;
      case T_CWD: a->cwd = hit.value; break;
      case T_HELP: a->help = true; break;
      default: zvec_push(&a->positional, hit.value);
    }
  }
  return rc < 0 ? usage_error("%s", err.msg) : 0;
}

static int list(const tools_args *a, zperm_mode mode) {
  size_t n;
  const ztool *const *tools = ztool_all(&n);
  json_t *arr = a->json ? json_array() : NULL;
  for (size_t i = 0; i < n; i++) {
    const ztool *t = tools[i];
    zperm_engine eng = {.mode = mode};
    zperm_decision d = zperm_decide(&eng, t, NULL);
    if (arr) {
      json_t *params = json_loads(t->parameters_json, 0, NULL);
      json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:b, s:s, s:o}", "name", t->name,
                                           "description", t->description, "side_effect",
                                           zside_effect_name(t->side_effect), "read_only",
                                           t->read_only, "permission", zperm_action_name(d.action),
                                           "parameters", params ? params : json_object()));
    } else {
      /* The first sentence: up to ". " or a newline. */
      const char *end = strstr(t->description, ". ");
      const char *nl = strchr(t->description, '\n');
      if (!end || (nl && nl < end)) end = nl ? nl - 1 : NULL;
      int len = end ? (int)(end - t->description) + 1 : (int)strlen(t->description);
      printf("%-15s %-8s %-7s %.*s\n", t->name, zside_effect_name(t->side_effect),
             zperm_action_name(d.action), len, t->description);
    }
  }
  if (arr) {
    char *s = zjson_dumps(arr);
    printf("%s\n", s);
    free(s);
    json_decref(arr);
  }
  return ZEXIT_SUCCESS;
}

static char *read_stdin(void) {
  zbuf b = ZBUF_INIT;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) zbuf_add(&b, buf, n);
  return zbuf_detach(&b, NULL);
}

/* network.caBundle for web_fetch: a run loads it with the provider step,
 * which `zero tools run` has not. A config that does not load is the
 * provider setup's to report; here it only means no bundle. */
static void apply_ca_bundle(const char *workspace) {
  zconfig cfg;
  zerr err = ZERR_INIT;
  if (zconfig_load(&cfg, workspace, NULL, &err) < 0) {
    fprintf(stderr, "[zero] WARNING: %s; network.caBundle is not applied\n", err.msg);
    return;
  }
  zhttp_set_ca_bundle(cfg.ca_bundle);
  zconfig_release(&cfg);
}

static int run(const tools_args *a, zperm_mode mode) {
  if (a->positional.len < 2)
    return usage_error("%s", "run needs a tool name and its arguments, e.g. "
                             "zero tools run read_file '{\"path\":\"README.md\"}'");
  const char *name = a->positional.items[0];
  const ztool *t = ztool_find(name);
  if (!t) return usage_error("unknown tool \"%s\"; zero tools list shows them", name);
  cleanup_free char *stdin_text = NULL;
  const char *args = a->positional.items[1];
  if (!strcmp(args, "-")) {
    stdin_text = read_stdin();
    args = stdin_text;
  }

  /* The same assembly as a model's call: the workspace, the sandbox that
   * confines commands, the permission engine and the output processing. */
  zrun_setup rs = ZRUN_SETUP_INIT;
  zerr err = ZERR_INIT;
  if (zrun_setup_workspace(&rs, a->cwd, (const char *const *)a->add_dirs.items, a->add_dirs.len,
                           &err) < 0 ||
      zrun_setup_sandbox(&rs, &err) < 0) {
    fprintf(stderr, "zero tools: %s\n", err.msg);
    zrun_setup_release(&rs);
    return zexit_for_error_or(err.kind, ZEXIT_PROVIDER);
  }
  apply_ca_bundle(rs.workspace);
  zrun_setup_tools(&rs, mode, a->autonomy);
  /* One call is the whole "session": nothing can have been read before it,
   * so write_file's read-before-overwrite check does not apply here. */
  rs.tools.files = NULL;
  zcancel_install();

  ztool_result res = ZTOOL_RESULT_INIT;
  json_t *parsed = ztool_call_args(t, args); /* judged as the tool will run it */
  zperm_decision d = zperm_decide(&rs.perm, t, json_is_object(parsed) ? parsed : NULL);
  json_decref(parsed);
  if (d.action == ZPERM_PROMPT) {
    /* No one to ask: the one prompt flow's headless answer, a denial that
     * says what would allow the call. */
    d.allow_hint = "rerun with --permission-mode auto (file changes) or "
                   "--skip-permissions-unsafe";
    zperm_face face = {.name = "zero tools"};
    zperm_prompt_resolve(&face, NULL, NULL, &d);
  }
  if (d.action == ZPERM_DENY) ztool_fail(&res, "permission denied for %s: %s", name, d.reason);
  else ztool_invoke_escalated(&rs.tools, name, args, zperm_escalation(&d), &res);

  if (a->json) {
    json_t *o = json_pack("{s:s, s:b, s:s%, s:b, s:{s:s, s:s}}", "tool", name, "ok",
                          !res.is_error, "output", res.output.data, res.output.len, "truncated",
                          res.truncated, "permission", "action", zperm_action_name(d.action),
                          "reason", d.reason);
    if (o && res.meta) json_object_set(o, "meta", res.meta);
    char *s = o ? zjson_dumps(o) : xstrdup("{}");
    printf("%s\n", s);
    free(s);
    json_decref(o);
  } else {
    fwrite(res.output.data, 1, res.output.len, res.is_error ? stderr : stdout);
    if (res.output.len && res.output.data[res.output.len - 1] != '\n')
      fputc('\n', res.is_error ? stderr : stdout);
  }
  int rc = res.is_error ? 1 : 0;
  ztool_result_release(&res);
  zrun_setup_release(&rs);
  return rc;
}

/* What a subcommand does with its parsed words and the effective mode. */
typedef int (*tools_step)(const tools_args *a, zperm_mode mode);

/* Parses the words after a subcommand's name, then runs step (or prints the
 * help it asked for); returns the exit code. */
static int with_args(int argc, char **argv, tools_step step) {
  tools_args a;
  memset(&a, 0, sizeof a);
  a.mode = ZPERM_ASK;
  a.autonomy = ZAUTO_LOW;
  int rc = parse(argc, argv, &a);
  if (rc == 0 && a.help) {
    tools_usage(stdout); /* "zero tools run --help" */
  } else if (rc == 0) {
    /* Without a mode flag: ask (documented), not exec's auto: nobody can
     * approve here, so a call that needs approval is denied. */
    bool any_mode = a.mode_given || a.autonomy_given || a.skip_unsafe;
    zperm_mode mode = any_mode
                          ? zperm_effective_mode(a.mode_given, a.mode, a.autonomy, a.skip_unsafe)
                          : ZPERM_ASK;
    rc = step(&a, mode);
  }
  zvec_free(&a.add_dirs);
  zvec_free(&a.positional);
  return rc;
}

static int list_cmd(void *ctx, int argc, char **argv) { return with_args(argc, argv, list); }

static int run_cmd(void *ctx, int argc, char **argv) { return with_args(argc, argv, run); }

/* The usage lines (tools_usage) and completion come from this table. */
static const zcli_subcommand TOOLS_SUBS[] = {
    {"list", NULL, list_cmd, "list [--json] [MODE]"},
    {"run", NULL, run_cmd, "run NAME ARGS [--json] [MODE] [-C DIR] [--add-dir DIR]..."},
};

const zcli_subcommands zcli_tools_subs = {TOOLS_SUBS, ZARRAY_LEN(TOOLS_SUBS)};

static const zcli_dispatch_spec TOOLS_DISPATCH = {.subs = &zcli_tools_subs,
                                                  .usage = tools_usage,
                                                  .command = "tools",
                                                  .unknown = "unknown subcommand"};

int cmd_tools(int argc, char **argv) { return zcli_dispatch(&TOOLS_DISPATCH, NULL, argc, argv); }
