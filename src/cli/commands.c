/* commands.c — the command table; see commands.h. */
#include "cli/commands.h"

#include <stdarg.h>
#include <string.h>

#include "base/common.h"
#include "cli/cli.h"
#include "cli/exec_args.h"

static const zopt_spec *const PROVIDERS_SUB_OPTS[] = {&zcli_provider_add_opts, NULL};
static const zopt_spec *const SANDBOX_SUB_OPTS[] = {&zcli_sandbox_grants_opts, NULL};

static const zcli_command COMMANDS[] = {
    {"exec", NULL, cmd_exec, ZCMD_LEADING_ADD_DIR, "[flags] \"prompt\"",
     "run one task headless (text, json, stream-json)", &zcli_exec_opts, NULL, NULL},
    {"sessions", NULL, cmd_sessions, 0, "[list|show|tree|lineage] [--json]",
     "saved sessions and their forks", &zcli_sessions_opts, &zcli_sessions_subs, NULL},
    {"search", "find", cmd_search, 0, "<words> [--json]", "search every saved session",
     &zcli_search_opts, NULL, NULL},
    {"context", NULL, cmd_context, 0, "[--json]", "what the next request holds, against the window",
     &zcli_context_opts, NULL, NULL},
    {"models", NULL, cmd_models, 0, "list [--json]",
     "the models zero knows: limits, reasoning, prices", &zcli_models_opts, &zcli_models_subs,
     NULL},
    {"providers", NULL, cmd_providers, 0, "list|add|use|remove|rename|detect",
     "provider profiles; detect finds local runtimes", &zcli_providers_opts, &zcli_providers_subs,
     PROVIDERS_SUB_OPTS},
    {"setup", NULL, cmd_setup, 0, "--provider P [flags]",
     "write a provider profile non-interactively", &zcli_provider_add_opts, NULL, NULL},
    {"doctor", NULL, cmd_doctor, 0, "[--connectivity] [--bundle]",
     "check config, provider, key, endpoint, sandbox", &zcli_doctor_opts, NULL, NULL},
    {"usage", NULL, cmd_usage, 0, "[--session ID] [--json]",
     "tokens and estimated cost per session/model/day", &zcli_usage_opts, NULL, NULL},
    {"mcp", NULL, cmd_mcp, 0, "list|add|remove|...", "MCP servers whose tools the agent may use",
     &zcli_mcp_opts, &zcli_mcp_subs, NULL},
    {"auth", NULL, cmd_auth, 0, "login|logout|status|refresh NAME",
     "OAuth logins to providers (device or browser flow)", &zcli_auth_opts, &zcli_auth_subs, NULL},
    {"serve", NULL, cmd_serve, 0, "--mcp", "serve zero's tools to an MCP client (stdio or HTTP)",
     &zcli_serve_opts, NULL, NULL},
    {"acp", NULL, cmd_acp, 0, "[--permission-mode MODE]",
     "be the agent of an ACP editor (Zed, ...) over stdio", &zcli_acp_opts, NULL, NULL},
    {"sandbox", NULL, cmd_sandbox, 0, "exec -- CMD",
     "run a command confined like the agent's commands", &zcli_sandbox_opts, &zcli_sandbox_subs,
     SANDBOX_SUB_OPTS},
    {"tools", NULL, cmd_tools, 0, "list|run", "the model's tools from the command line",
     &zcli_tools_opts, &zcli_tools_subs, NULL},
    /* the daemon (docs/daemon.md) */
    {"daemon", NULL, cmd_daemon, 0, "start|stop|status|run|attach",
     "a background zero running sessions on a pool of workers", &zcli_daemon_opts,
     &zcli_daemon_subs, NULL},
    /* schedules (docs/cron.md) */
    {"cron", NULL, cmd_cron, 0, "add|list|remove|run", "prompts run on a schedule by the daemon",
     &zcli_cron_opts, &zcli_cron_subs, NULL},
    /* batches (docs/batch.md) */
    {"batch", NULL, cmd_batch, 0, "TASKS.jsonl [--local|--slurm] [-j N] | status|collect DIR",
     "run a file of tasks as parallel zero exec runs, one results file", &zcli_batch_opts, NULL,
     NULL},
    /* subagents (docs/subagents.md) */
    {"agents", NULL, cmd_agents, 0, "list [--json]", "the specialists the task tool delegates to",
     &zcli_agents_opts, &zcli_agents_subs, NULL},
    {"worktrees", NULL, cmd_worktrees, 0, "list|remove|prune [--json]",
     "the git worktrees zero made for parallel runs", &zcli_worktrees_opts, &zcli_worktrees_subs,
     NULL},
    /* language servers (docs/lsp.md) */
    {"lsp", NULL, cmd_lsp, 0, "status [--check]", "language servers for diagnostics after edits",
     &zcli_lsp_opts, &zcli_lsp_subs, NULL},
    /* extensions (docs/extensions.md) */
    {"hooks", NULL, cmd_hooks, 0, "list|test EVENT [--payload FILE] [--json]",
     "hooks that run on agent events", &zcli_ext_opts, &zcli_hooks_subs, NULL},
    {"skills", NULL, cmd_skills, 0, "list [--json]", "skills the agent can load", &zcli_ext_opts,
     &zcli_skills_subs, NULL},
    {"plugins", NULL, cmd_plugins, 0, "list|enable|disable|install|remove [ID|SOURCE] [--json]",
     "plugins: tools, hooks, skills and commands bundled", &zcli_ext_opts, &zcli_plugins_subs,
     NULL},
    {"backends", NULL, cmd_backends, 0, "[doctor] [--json]",
     "MCP servers, hooks, plugins, skills and commands at a glance", &zcli_ext_opts,
     &zcli_backends_subs, NULL},
    {"completions", "completion", cmd_completions, 0, "bash|zsh|fish", "a shell completion script",
     NULL, &zcli_completions_subs, NULL},
    {"version", "--version -v", cmd_version, 0, "(--version)",
     "version, commit and linked libraries", &zcli_version_opts, NULL, NULL},
    {"config", NULL, cmd_config, 0, "[list|get KEY] [--json]",
     "the resolved configuration and where each setting came from", &zcli_config_opts,
     &zcli_config_subs, NULL},
    {"help", "--help -h", cmd_help, 0, "[command]", "this help, or a command's", NULL, NULL, NULL},
    {"__sandbox-inner", NULL, cmd_sandbox_inner, ZCMD_HIDDEN, "", "the sandbox's inner stage", NULL,
     NULL, NULL},
    {"__manpages", NULL, cmd_manpages, ZCMD_HIDDEN, "DIR", "write the manual pages into DIR", NULL,
     NULL, NULL},
    {"__complete", NULL, cmd_complete, ZCMD_HIDDEN, "WHAT",
     "values for shell completion (sessions, models, …)", NULL, NULL, NULL},
};

const zcli_command *zcli_commands(size_t *n) {
  *n = ZARRAY_LEN(COMMANDS);
  return COMMANDS;
}

/* Whether `word` is one of the space-separated words of list. */
static bool in_words(const char *list, const char *word) {
  if (!list) return false; /* most rows have no alias: zero --version scans them all */
  size_t n = strlen(word);
  for (const char *p = list; p && *p;) {
    size_t len = strcspn(p, " ");
    if (len == n && !strncmp(p, word, n)) return true;
    p += len;
    p += strspn(p, " ");
  }
  return false;
}

const zcli_command *zcli_command_find(const char *word) {
  for (size_t i = 0; i < ZARRAY_LEN(COMMANDS); i++)
    if (!strcmp(COMMANDS[i].name, word) || in_words(COMMANDS[i].aliases, word)) return &COMMANDS[i];
  return NULL;
}

const zcli_command *zcli_command_suggest(const char *word) {
  zopt_nearest near = ZOPT_NEAREST_INIT;
  for (size_t i = 0; i < ZARRAY_LEN(COMMANDS); i++)
    if (!(COMMANDS[i].setup & ZCMD_HIDDEN)) zopt_nearest_offer(&near, word, COMMANDS[i].name, i);
  return near.index == ZOPT_NO_MATCH ? NULL : &COMMANDS[near.index];
}

/* ---- subcommand tables ------------------------------------------------------ */

bool zcli_help_word(const char *word) {
  return !strcmp(word, "-h") || !strcmp(word, "--help") || !strcmp(word, "help");
}

const zcli_subcommand *zcli_subcommand_find(const zcli_subcommands *t, const char *word) {
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->v[i].name, word) || in_words(t->v[i].aliases, word)) return &t->v[i];
  return NULL;
}

void zcli_subcommand_usage(FILE *out, const char *command, const zcli_subcommands *t) {
  bool first = true;
  for (size_t i = 0; i < t->n; i++) {
    if (!t->v[i].synopsis) continue;
    fprintf(out, "%s%s %s\n", first ? "Usage: " : "       ", command, t->v[i].synopsis);
    first = false;
  }
}

void zcli_subcommand_words(const zcli_subcommands *t, zbuf *out) {
  for (size_t i = 0; i < t->n; i++) {
    zbuf_addf(out, "%s%s", out->len ? " " : "", t->v[i].name);
    if (t->v[i].aliases) zbuf_addf(out, " %s", t->v[i].aliases);
  }
}

const zcli_subcommand *zcli_subcommand_suggest(const zcli_subcommands *t, const char *word) {
  zopt_nearest near = ZOPT_NEAREST_INIT;
  for (size_t i = 0; i < t->n; i++) zopt_nearest_offer(&near, word, t->v[i].name, i);
  return near.index == ZOPT_NO_MATCH ? NULL : &t->v[near.index];
}

static int dispatch_error(const zcli_dispatch_spec *d, const char *msg) {
  if (d->usage_error) return d->usage_error(msg);
  switch (d->tail) {
    case ZCLI_TAIL_USAGE:
      fprintf(stderr, "zero %s: %s\n\n", d->command, msg);
      d->usage(stderr);
      return ZEXIT_USAGE;
    case ZCLI_TAIL_NONE: fprintf(stderr, "zero %s: %s\n", d->command, msg); return ZEXIT_USAGE;
    case ZCLI_TAIL_SHORT_USAGE:
    default: return zcli_usage_error(d->command, msg);
  }
}

/* The message for an unknown subcommand `word` in d's words (into m). */
static void unknown_message(const zcli_dispatch_spec *d, const char *word, zbuf *m) {
  if (d->name_choices) {
    zbuf_addf(m, "%s %s (", d->unknown, word);
    for (size_t i = 0; i < d->subs->n; i++) zbuf_addf(m, "%s%s", i ? ", " : "", d->subs->v[i].name);
    zbuf_addstr(m, ")");
    return;
  }
  const zcli_subcommand *near = zcli_subcommand_suggest(d->subs, word);
  zbuf_addf(m, "%s \"%s\"", d->unknown, word);
  if (near) zbuf_addf(m, "; did you mean %s?", near->name);
}

const zcli_subcommand *zcli_dispatch_find(const zcli_dispatch_spec *d, int argc, char **argv,
                                          int *rc) {
  if (argc < 1) {
    if (d->missing) {
      *rc = dispatch_error(d, d->missing);
    } else {
      d->usage(stderr);
      *rc = ZEXIT_USAGE;
    }
    return NULL;
  }
  if (zcli_help_word(argv[0])) {
    d->usage(stdout);
    *rc = ZEXIT_SUCCESS;
    return NULL;
  }
  const zcli_subcommand *sub = zcli_subcommand_find(d->subs, argv[0]);
  if (sub) return sub;
  zbuf m = ZBUF_INIT;
  unknown_message(d, argv[0], &m);
  *rc = dispatch_error(d, m.data);
  zbuf_release(&m);
  return NULL;
}

int zcli_dispatch(const zcli_dispatch_spec *d, void *ctx, int argc, char **argv) {
  bool no_name = argc < 1 || (argv[0][0] == '-' && argv[0][1] && !zcli_help_word(argv[0]));
  if (d->implicit && no_name) return d->implicit(ctx, argc, argv);
  int rc;
  const zcli_subcommand *sub = zcli_dispatch_find(d, argc, argv, &rc);
  return sub ? sub->run(ctx, argc - 1, argv + 1) : rc;
}

/* ---- usage errors ------------------------------------------------------------ */

int zcli_usage_error(const char *command, const char *msg) {
  fprintf(stderr, "zero %s: %s\n", command, msg);
  zcli_short_usage(stderr, command);
  return ZEXIT_USAGE;
}

int zcli_usage_errorf(const char *command, const char *fmt, ...) {
  zbuf m = ZBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(&m, fmt, ap);
  va_end(ap);
  int rc = zcli_usage_error(command, m.data ? m.data : "");
  zbuf_release(&m);
  return rc;
}

void zcli_short_usage(FILE *out, const char *command) {
  /* "providers add" is the providers command's subcommand: its row. */
  char name[32];
  size_t n = strcspn(command, " ");
  if (n >= sizeof name) n = sizeof name - 1;
  memcpy(name, command, n);
  name[n] = '\0';
  const zcli_command *c = zcli_command_find(name);
  if (!c || !strcmp(name, "zero")) {
    fputs("Usage: zero [flags] [\"first prompt\"]  (zero --help lists every flag)\n", out);
    return;
  }
  fprintf(out, "Usage: zero %s %s  (zero %s --help lists every flag)\n", c->name, c->synopsis,
          c->name);
}
