/* cli.h — the commands. Each cmd_* takes the arguments after its name and
 * returns the process exit code; only this layer decides exit codes. */
#ifndef ZERO_CLI_CLI_H
#define ZERO_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/opts.h"
#include "cli/exit_codes.h"

int cmd_exec(int argc, char **argv);
int cmd_sessions(int argc, char **argv);
int cmd_sandbox(int argc, char **argv);
/* Hidden stages of the sandbox (src/sandbox/sandbox.h). */
int cmd_sandbox_inner(int argc, char **argv);
int cmd_search(int argc, char **argv); /* also `zero find` */
int cmd_tools(int argc, char **argv);
int cmd_context(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_mcp(int argc, char **argv);
int cmd_auth(int argc, char **argv);
/* The device flow's code and where to enter it, on stdout (the wait on
 * stderr): `zero auth login --device` and `zero mcp login --device`. d is a
 * const zoauth_device_code * (oauth/oauth.h). */
struct zoauth_device_code;
void zcli_show_device_code(void *ud, const struct zoauth_device_code *d);
int cmd_serve(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_providers(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
/* Extensions (cmd_ext.c): hooks, skills, plugins, backends (which lists the
 * custom commands too). */
int cmd_hooks(int argc, char **argv);
int cmd_skills(int argc, char **argv);
int cmd_plugins(int argc, char **argv);
int cmd_backends(int argc, char **argv);
/* The `zero backends` report for workspace (nothing started, no hook run);
 * *broken is increased by what is configured but broken. `zero doctor`
 * includes its summary. New reference. */
struct json_t;
struct json_t *zcli_backends_report(const char *workspace, size_t *broken);
int cmd_usage(int argc, char **argv);
/* `zero batch …` (cmd_batch.c, src/batch/). */
int cmd_batch(int argc, char **argv);
extern const zopt_spec zcli_batch_opts;

/* `zero daemon …` (cmd_daemon.c, src/daemon/). */
int cmd_daemon(int argc, char **argv);
extern const zopt_spec zcli_daemon_opts;
/* `zero cron …` (cmd_cron.c, src/cron/). */
int cmd_cron(int argc, char **argv);
extern const zopt_spec zcli_cron_opts;
/* subagents (src/subagent/) */
int cmd_agents(int argc, char **argv);
int cmd_worktrees(int argc, char **argv);
/* language servers (src/lsp/) */
int cmd_lsp(int argc, char **argv);
/* `zero config [list|get KEY] [--json]` (cmd_config.c). */
int cmd_config(int argc, char **argv);
/* The unknown keys of cfg's user and project files, as "did you mean"
 * messages (config/keys.h), for `zero config` and `zero doctor`. New
 * reference (array of strings). */
struct zconfig;
struct json_t;
struct json_t *zcli_config_unknown_keys(const struct zconfig *cfg);
/* Calls warn with each of those messages ("<file>:<line>: unknown key …"):
 * zero exec and the UI say them when a run starts. */
void zcli_config_warn_unknown(const struct zconfig *cfg, void (*warn)(void *ud, const char *msg),
                              void *ud);
/* `zero` with no command (or only flags): the interactive UI (cmd_tui.c). */
int cmd_tui(int argc, char **argv);
/* `zero completions bash|zsh|fish` (cli/completion.c). */
int cmd_completions(int argc, char **argv);
/* `zero __complete WHAT`: dynamic values for shell completion (sessions,
 * models, providers, presets, permission-modes; cli/complete_values.c). */
int cmd_complete(int argc, char **argv);
/* `zero __manpages DIR`: the manual pages from the command and option tables
 * (cli/manpage.c); the build runs it. */
int cmd_manpages(int argc, char **argv);
/* `zero acp`: the Agent Client Protocol on stdio (cmd_acp.c, src/acp/). */
int cmd_acp(int argc, char **argv);
extern const zopt_spec zcli_acp_opts;

/* `zero providers add` and `zero setup` (which makes the profile active);
 * `help` prints that command's --help. */
int zcli_providers_add(int argc, char **argv, bool make_active, void (*help)(FILE *out));

/* Each command's flags (the table its parser, --help and shell completion
 * read); exec's is zcli_exec_opts in cli/exec_args.h. */
extern const zopt_spec zcli_config_opts;
extern const zopt_spec zcli_context_opts;
extern const zopt_spec zcli_ext_opts;
extern const zopt_spec zcli_doctor_opts;
extern const zopt_spec zcli_mcp_opts;
extern const zopt_spec zcli_auth_opts;
extern const zopt_spec zcli_models_opts;
extern const zopt_spec zcli_provider_add_opts;
extern const zopt_spec zcli_providers_opts;
extern const zopt_spec zcli_sandbox_opts;
extern const zopt_spec zcli_search_opts;
extern const zopt_spec zcli_serve_opts;
extern const zopt_spec zcli_sessions_opts;
extern const zopt_spec zcli_tools_opts;
extern const zopt_spec zcli_tui_opts;
extern const zopt_spec zcli_usage_opts;
extern const zopt_spec zcli_agents_opts;
extern const zopt_spec zcli_worktrees_opts;
extern const zopt_spec zcli_lsp_opts;
extern const zopt_spec zcli_version_opts;
extern const zopt_spec zcli_sandbox_grants_opts;

#endif
