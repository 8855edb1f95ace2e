/* cmd_ext.c — `zero hooks`, `zero skills`, `zero plugins` and
 * `zero backends` (which lists the custom slash commands too): the extensions (ext/ext.h) from the
 * command line.
 *
 * Listing never starts a server or runs a hook; `zero hooks test` runs the
 * matching hooks once, confined exactly as in a run (the same sandbox
 * assembly), and shows what they returned. Exit codes: 0, 1 when `backends
 * doctor` finds something broken or a tested hook blocked/failed, 2 for
 * usage errors (docs/extensions.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/run_setup.h"
#include "ext/ext.h"
#include "ext/hook_run.h"
#include "ext/plugin_install.h"
#include "mcp/config.h"

enum { E_JSON = 1, E_PAYLOAD, E_CWD, E_TRUST, E_HELP };

static const zopt EXT_OPTS[] = {
    {E_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "this help", NULL},
    {E_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "machine-readable output", NULL},
    {E_PAYLOAD, "payload", 0, ZOPT_VALUE, 0, "FILE", "hooks test: the event's payload (JSON)",
     NULL},
    {E_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR", "the workspace (default: the current directory)",
     NULL},
    {E_TRUST, "trust-workspace", 0, ZOPT_FLAG, 0, NULL,
     "trust this workspace's hooks, commands and plugins", NULL},
};

const zopt_spec zcli_ext_opts = {.command = "extensions",
                                 .opts = EXT_OPTS,
                                 .n_opts = ZARRAY_LEN(EXT_OPTS),
                                 .unknown = "unknown option"};

typedef struct ext_args {
  bool json, trust, help;
  const char *payload, *cwd;
  const char *words[4];
  size_t nwords;
} ext_args;

/* The usage of every extension command (one page for the four). */
static void ext_usage(FILE *out) {
  fputs("Usage: zero hooks list|test EVENT [--payload FILE]\n"
        "       zero skills list\n"
        "       zero plugins list|enable ID|disable ID|install DIR|GIT-URL|remove ID\n"
        "       zero backends [doctor]\n\n"
        "Hooks, skills, custom slash commands and plugins (docs/extensions.md).\n\n",
        out);
  zopt_print_flags(out, &zcli_ext_opts);
}

static int parse(const char *cmd, int argc, char **argv, ext_args *a) {
  memset(a, 0, sizeof *a);
  zopt_parser op;
  zopt_hit hit;
  zerr err = ZERR_INIT;
  int rc;
  zopt_init(&op, &zcli_ext_opts, argc, argv);
  while ((rc = zopt_next(&op, &hit, &err)) > 0) {
    switch (hit.id) {
      case E_JSON: a->json = true; break;
      case E_PAYLOAD: a->payload = hit.value; break;
      case E_CWD: a->cwd = hit.value; break;
      case E_TRUST: a->trust = true; break;
      case E_HELP: a->help = true; break;
      case ZOPT_ARG:
        if (a->nwords == ZARRAY_LEN(a->words)) {
          fprintf(stderr, "zero %s: too many arguments\n", cmd);
          return -1;
        }
        a->words[a->nwords++] = hit.value;
        break;
      default: break;
    }
  }
  if (rc < 0) {
    zcli_usage_error(cmd, err.msg);
    return -1;
  }
  if (a->help) {
    ext_usage(stdout);
    return 1;
  }
  return 0;
}

/* The workspace and sandbox of a run, then its extensions. */
static int setup(zrun_setup *rs, const ext_args *a, const char *cmd) {
  zerr err = ZERR_INIT;
  rs->opts.trust_workspace = a->trust;
  if (zrun_setup_workspace(rs, a->cwd, NULL, 0, &err) < 0 || zrun_setup_sandbox(rs, &err) < 0) {
    fprintf(stderr, "zero %s: %s\n", cmd, err.msg);
    return zexit_for_error_or(err.kind, ZEXIT_USAGE);
  }
  zrun_setup_extensions(rs);
  rs->ext.spawner = &rs->sandbox.spawner.base;
  return 0;
}

/* What a subcommand does in the run's workspace, sandbox and extensions;
 * arg is the word after the subcommand's name, or NULL. */
typedef int (*ext_step)(zrun_setup *rs, const ext_args *a, const char *arg);

/* Sets the run up for command cmd, then step; returns the exit code. */
static int in_setup(const ext_args *a, const char *cmd, ext_step step, int argc, char **argv) {
  zrun_setup rs = ZRUN_SETUP_INIT;
  int rc = setup(&rs, a, cmd);
  if (rc == 0) rc = step(&rs, a, argc > 0 ? argv[0] : NULL);
  zrun_setup_release(&rs);
  return rc;
}

/* How an extension command reads its words: flags anywhere; the first word
 * names a row of t, whose run gets the parsed ext_args as ctx and the words
 * after it; no word runs `none`; an unknown word is a usage error naming t's
 * choices. */
static int ext_dispatch(const char *cmd, const zcli_subcommands *t,
                        int (*none)(void *ctx, int argc, char **argv), int argc, char **argv) {
  ext_args a;
  int pr = parse(cmd, argc, argv, &a);
  if (pr != 0) return pr < 0 ? ZEXIT_USAGE : 0;
  zcli_dispatch_spec d = {.subs = t,
                          .usage = ext_usage,
                          .command = cmd,
                          .tail = ZCLI_TAIL_NONE,
                          .unknown = "unknown subcommand",
                          .implicit = none,
                          .name_choices = true};
  return zcli_dispatch(&d, &a, (int)a.nwords, (char **)a.words);
}

static void print_json(json_t *o) {
  char *s = zjson_dumps(o);
  printf("%s\n", s);
  free(s);
  json_decref(o);
}

static void print_problems(const zext *x) {
  for (size_t i = 0; i < x->problems.nr; i++) fprintf(stderr, "problem: %s\n", x->problems.v[i]);
  if (x->untrusted.nr)
    fprintf(stderr,
            "untrusted: %zu workspace file(s) not loaded; trust them with "
            "--trust-workspace\n",
            x->untrusted.nr);
}

/* ---- zero hooks ---------------------------------------------------------- */

/* Runs hook h once on payload (or {}) with the event and cwd set, appends
 * its outcome to runs and, without --json, prints it. Returns 1 when it
 * failed or blocked, else 0. */
static int hook_test_one(zrun_setup *rs, const zhook *h, const json_t *payload, bool json,
                         json_t *runs) {
  json_t *in = payload ? json_deep_copy(payload) : json_object();
  json_object_set_new(in, "event", json_string(h->event));
  json_object_set_new(in, "cwd", json_string(rs->workspace));
  char *text = json_dumps(in, JSON_COMPACT);
  json_decref(in);
  zhook_outcome o;
  zhook_run(h, rs->ext.spawner, rs->workspace, text, &o);
  free(text);
  int rc = o.failed || o.block ? 1 : 0;
  json_t *r = json_pack("{s:s, s:i, s:I, s:b, s:b, s:b, s:s}", "hookId", h->id, "exitCode",
                        o.exit_code, "durationMs", (json_int_t)o.duration_ms, "timedOut",
                        o.timed_out, "failed", o.failed, "block", o.block, "output", o.output);
  if (o.reason) json_object_set_new(r, "reason", json_string(o.reason));
  if (o.answer) json_object_set(r, "answer", o.answer);
  if (!json)
    printf("%s: exit %d, %lld ms, %s%s%s\n%s", h->id, o.exit_code, (long long)o.duration_ms,
           o.failed  ? "failed"
           : o.block ? "block"
                     : "allow",
           o.reason ? ": " : "", o.reason ? o.reason : "", o.output);
  json_array_append_new(runs, r);
  zhook_outcome_release(&o);
  return rc;
}

static int hooks_test(zrun_setup *rs, const ext_args *a, const char *event) {
  if (!zhook_event_canonical(event)) {
    fprintf(stderr, "zero hooks test: name an event (e.g. beforeTool); unknown: %s\n",
            event ? event : "(none)");
    return ZEXIT_USAGE;
  }
  json_t *payload = NULL;
  if (a->payload) {
    zerr err = ZERR_INIT;
    if (!(payload = zjson_load_file(a->payload, &err))) {
      fprintf(stderr, "zero hooks test: %s\n", err.msg);
      return ZEXIT_USAGE;
    }
  }
  const char *tool = zjson_str(payload, "toolName");
  if (!tool) tool = zjson_str(payload, "tool_name");
  zcancel_install();
  json_t *runs = json_array();
  int rc = 0;
  for (size_t i = 0; i < rs->ext.hooks.n; i++) {
    const zhook *h = &rs->ext.hooks.v[i];
    if (strcmp(h->event, zhook_event_canonical(event)) || !zhook_matches(h, tool)) continue;
    if (hook_test_one(rs, h, payload, a->json, runs)) rc = 1;
  }
  if (a->json)
    print_json(json_pack("{s:s, s:o}", "event", zhook_event_canonical(event), "runs", runs));
  else {
    if (!json_array_size(runs)) printf("no hook matches %s\n", event);
    json_decref(runs);
  }
  json_decref(payload);
  return rc;
}

static int hooks_list(zrun_setup *rs, const ext_args *a, const char *arg) {
  (void)arg;
  if (a->json) {
    json_t *r = zext_report_json(&rs->ext);
    print_json(json_pack("{s:O, s:O, s:O}", "hooks", json_object_get(r, "hooks"), "problems",
                         json_object_get(r, "problems"), "untrusted",
                         json_object_get(r, "untrusted")));
    json_decref(r);
    return 0;
  }
  for (size_t i = 0; i < rs->ext.hooks.n; i++) {
    const zhook *h = &rs->ext.hooks.v[i];
    printf("%-18s %-24s %s%s%s (%s)\n", h->event, h->id, h->argv[0], h->matcher ? " matcher=" : "",
           h->matcher ? h->matcher : "", h->source);
  }
  if (!rs->ext.hooks.n) printf("no hooks\n");
  print_problems(&rs->ext);
  return 0;
}

static int hooks_list_cmd(void *ctx, int argc, char **argv) {
  return in_setup(ctx, "hooks", hooks_list, argc, argv);
}

static int hooks_test_cmd(void *ctx, int argc, char **argv) {
  return in_setup(ctx, "hooks", hooks_test, argc, argv);
}

/* ---- zero skills ------------------------------------------------------------- */

/* The report's `key` part ("skills", "plugins"): as JSON with the problems,
 * or one line per item (print_row), "no <key>" and the problems. */
static int list_items(zrun_setup *rs, const ext_args *a, const char *key,
                      void (*print_row)(const json_t *item)) {
  json_t *r = zext_report_json(&rs->ext);
  json_t *items = json_object_get(r, key);
  if (a->json) {
    print_json(json_pack("{s:O, s:O}", key, items, "problems", json_object_get(r, "problems")));
  } else {
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it) print_row(it);
    if (!json_array_size(items)) printf("no %s\n", key);
    print_problems(&rs->ext);
  }
  json_decref(r);
  return 0;
}

static void skill_row(const json_t *it) {
  printf("%-20s %s\n", zjson_str(it, "name"), zjson_str_or(it, "description", ""));
}

static int skills_list(zrun_setup *rs, const ext_args *a, const char *arg) {
  (void)arg;
  return list_items(rs, a, "skills", skill_row);
}

static int skills_list_cmd(void *ctx, int argc, char **argv) {
  return in_setup(ctx, "skills", skills_list, argc, argv);
}

/* ---- zero plugins ---------------------------------------------------------- */

/* The plugin named id, or NULL after saying there is none. */
static const zplugin *find_plugin(const zrun_setup *rs, const char *id) {
  const zplugin *p = zplugins_find(&rs->ext.plugins, id);
  if (!p)
    fprintf(stderr, "zero plugins: no plugin \"%s\" (zero plugins list shows them)\n",
            id ? id : "");
  return p;
}

static int plugins_toggle(zrun_setup *rs, const char *id, bool enable) {
  const zplugin *p = find_plugin(rs, id);
  if (!p) return ZEXIT_USAGE;
  zerr err = ZERR_INIT;
  if (zplugin_set_enabled(p, enable, &err) < 0) {
    fprintf(stderr, "zero plugins: %s\n", err.msg);
    return ZEXIT_INTERNAL;
  }
  printf("%s plugin %s (%s)\n", enable ? "enabled" : "disabled", p->id, p->dir);
  return 0;
}

static int plugins_enable(zrun_setup *rs, const ext_args *a, const char *id) {
  (void)a;
  return plugins_toggle(rs, id, true);
}

static int plugins_disable(zrun_setup *rs, const ext_args *a, const char *id) {
  (void)a;
  return plugins_toggle(rs, id, false);
}

static int plugins_install(const char *source) {
  if (!source) {
    fprintf(stderr, "zero plugins install: name a folder or a git URL\n");
    return ZEXIT_USAGE;
  }
  char *dir = NULL, *id = NULL;
  zerr err = ZERR_INIT;
  /* git clone runs outside the sandbox (exec/capture.h): the keys the
   * configuration declares (apiKeyEnv under any name, MCP servers' env) must
   * be known before it starts, or only the names that look secret are
   * scrubbed from its environment. */
  char cwd[4096];
  zrun_collect_secrets(getcwd(cwd, sizeof cwd) ? cwd : ".");
  if (zplugin_install(source, &dir, &id, &err) < 0) {
    fprintf(stderr, "zero plugins install: %s\n", err.msg);
    return zexit_for_error_or(err.kind, ZEXIT_USAGE);
  }
  printf("installed plugin %s at %s\nIt contributes nothing until enabled: review it, then run "
         "zero plugins enable %s\n",
         id, dir, id);
  free(dir);
  free(id);
  return 0;
}

static int plugins_remove(zrun_setup *rs, const ext_args *a, const char *id) {
  (void)a;
  const zplugin *p = find_plugin(rs, id);
  if (!p) return ZEXIT_USAGE;
  zerr err = ZERR_INIT;
  if (zplugin_remove(p, &err) < 0) {
    fprintf(stderr, "zero plugins remove: %s\n", err.msg);
    return zexit_for_error_or(err.kind, ZEXIT_USAGE);
  }
  printf("removed plugin %s (%s)\n", p->id, p->dir);
  return 0;
}

static void plugin_row(const json_t *it) {
  printf("%-16s %-8s %-9s %s\n", zjson_str(it, "id"), zjson_str(it, "version"),
         zjson_bool_or(it, "enabled", false) ? "enabled" : "disabled", zjson_str(it, "dir"));
}

static int plugins_list(zrun_setup *rs, const ext_args *a, const char *arg) {
  (void)arg;
  return list_items(rs, a, "plugins", plugin_row);
}

static int plugins_list_cmd(void *ctx, int argc, char **argv) {
  return in_setup(ctx, "plugins", plugins_list, argc, argv);
}

static int plugins_enable_cmd(void *ctx, int argc, char **argv) {
  return in_setup(ctx, "plugins", plugins_enable, argc, argv);
}

static int plugins_disable_cmd(void *ctx, int argc, char **argv) {
  return in_setup(ctx, "plugins", plugins_disable, argc, argv);
}

static int plugins_remove_cmd(void *ctx, int argc, char **argv) {
  return in_setup(ctx, "plugins", plugins_remove, argc, argv);
}

/* install needs no workspace: it only copies or clones. */
static int plugins_install_cmd(void *ctx, int argc, char **argv) {
  (void)ctx;
  return plugins_install(argc > 0 ? argv[0] : NULL);
}

/* ---- zero backends ------------------------------------------------------------ */

/* The MCP servers: found, valid, enabled; broken counted. Nothing starts. */
static json_t *mcp_report(const char *workspace, size_t *broken) {
  json_t *arr = json_array();
  zmcp_config cfg;
  zerr err = ZERR_INIT;
  if (zmcp_config_load(&cfg, workspace, &err) < 0) {
    (*broken)++;
    json_array_append_new(arr, json_pack("{s:s, s:b, s:s}", "name", "(config)", "valid", false,
                                         "problem", err.msg));
    return arr;
  }
  for (size_t i = 0; i < cfg.n; i++) {
    const zmcp_server_cfg *s = &cfg.servers[i];
    const char *problem = NULL;
    if (s->type == ZMCP_STDIO && (!s->argv || !s->argv[0] || !*s->argv[0])) problem = "no command";
    else if (s->type != ZMCP_STDIO && (!s->url || !*s->url)) problem = "no url";
    if (problem && !s->disabled) (*broken)++;
    json_t *o = json_pack("{s:s, s:s, s:b, s:b, s:s}", "name", s->name, "type",
                          s->type == ZMCP_STDIO  ? "stdio"
                          : s->type == ZMCP_HTTP ? "http"
                                                 : "sse",
                          "valid", problem == NULL, "enabled", !s->disabled, "source",
                          s->origin ? s->origin : "");
    if (problem) json_object_set_new(o, "problem", json_string(problem));
    json_array_append_new(arr, o);
  }
  zmcp_config_release(&cfg);
  return arr;
}

json_t *zcli_backends_report(const char *workspace, size_t *broken) {
  zext x;
  zext_load(&x, workspace, false);
  json_t *r = zext_report_json(&x);
  *broken += x.problems.nr;
  for (size_t i = 0; i < x.plugins.n; i++)
    for (size_t j = 0; x.plugins.v[i].enabled && j < x.plugins.v[i].ntools; j++)
      if (x.plugins.v[i].tools[j].refused) (*broken)++;
  zext_release(&x);
  json_object_set_new(r, "mcpServers", mcp_report(workspace, broken));
  json_object_set_new(r, "broken", json_integer((json_int_t)*broken));
  return r;
}

static void backends_text(const json_t *r) {
  static const char *const parts[] = {"mcpServers", "hooks", "plugins", "skills", "commands"};
  for (size_t p = 0; p < ZARRAY_LEN(parts); p++) {
    const json_t *items = json_object_get(r, parts[p]);
    printf("%s: %zu\n", parts[p], json_array_size(items));
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it) {
      const char *name = zjson_str(it, "name");
      if (!name) name = zjson_str(it, "id");
      const char *problem = zjson_str(it, "problem");
      printf("  %s%s%s\n", name ? name : "?", problem ? ": " : "", problem ? problem : "");
    }
  }
  printf("trusted: %s\n", zjson_bool_or(r, "trusted", false) ? "yes" : "no");
  size_t i;
  json_t *it;
  json_array_foreach(json_object_get(r, "problems"), i, it)
      printf("problem: %s\n", json_string_value(it));
}

/* The report of every backend; with doctor, exit 1 when one is broken. */
static int backends(const ext_args *a, bool doctor) {
  char *ws = a->cwd ? realpath(a->cwd, NULL) : getcwd(NULL, 0);
  if (!ws) {
    fprintf(stderr, "zero backends: %s is not a directory\n", a->cwd ? a->cwd : ".");
    return ZEXIT_USAGE;
  }
  size_t broken = 0;
  json_t *r = zcli_backends_report(ws, &broken);
  free(ws);
  if (a->json) print_json(r);
  else {
    backends_text(r);
    json_decref(r);
  }
  return doctor && broken ? 1 : 0;
}

static int backends_cmd(void *ctx, int argc, char **argv) {
  (void)argc;
  (void)argv;
  return backends(ctx, false);
}

static int backends_doctor_cmd(void *ctx, int argc, char **argv) {
  (void)argc;
  (void)argv;
  return backends(ctx, true);
}

/* The extension commands' words: their dispatch, completion and the manual. */
static const zcli_subcommand HOOKS_SUBS[] = {
    {"list", NULL, hooks_list_cmd, "list [--json]"},
    {"test", NULL, hooks_test_cmd, "test EVENT [--payload FILE] [--json]"},
};
static const zcli_subcommand SKILLS_SUBS[] = {{"list", NULL, skills_list_cmd, "list [--json]"}};
static const zcli_subcommand PLUGINS_SUBS[] = {
    {"list", NULL, plugins_list_cmd, "list [--json]"},
    {"enable", NULL, plugins_enable_cmd, "enable ID"},
    {"disable", NULL, plugins_disable_cmd, "disable ID"},
    {"install", NULL, plugins_install_cmd, "install DIR|GIT-URL"},
    {"remove", NULL, plugins_remove_cmd, "remove ID"},
};
static const zcli_subcommand BACKENDS_SUBS[] = {
    {"doctor", NULL, backends_doctor_cmd, "doctor [--json]"}};

const zcli_subcommands zcli_hooks_subs = {HOOKS_SUBS, ZARRAY_LEN(HOOKS_SUBS)};
const zcli_subcommands zcli_skills_subs = {SKILLS_SUBS, ZARRAY_LEN(SKILLS_SUBS)};
const zcli_subcommands zcli_plugins_subs = {PLUGINS_SUBS, ZARRAY_LEN(PLUGINS_SUBS)};
const zcli_subcommands zcli_backends_subs = {BACKENDS_SUBS, ZARRAY_LEN(BACKENDS_SUBS)};

/* No word lists (backends: the report without doctor's exit code). */
int cmd_hooks(int argc, char **argv) {
  return ext_dispatch("hooks", &zcli_hooks_subs, hooks_list_cmd, argc, argv);
}

int cmd_skills(int argc, char **argv) {
  return ext_dispatch("skills", &zcli_skills_subs, skills_list_cmd, argc, argv);
}

int cmd_plugins(int argc, char **argv) {
  return ext_dispatch("plugins", &zcli_plugins_subs, plugins_list_cmd, argc, argv);
}

int cmd_backends(int argc, char **argv) {
  return ext_dispatch("backends", &zcli_backends_subs, backends_cmd, argc, argv);
}
