/* ext.h — a run's extensions: hooks, skills, custom slash commands and
 * plugins (docs/extensions.md), assembled once per run by cli/run_setup.c.
 *
 * Life cycle:
 *   1. zext_load(x, workspace, trusted): reads every root (user, workspace,
 *      enabled plugins) — except the custom slash commands, which most runs
 *      never use: zext_commands reads them on first use (a prompt or a menu
 *      that starts with "/", a listing). Project hooks, commands and plugins
 *      load only when
 *      the workspace is trusted (ext/trust.h); otherwise x->untrusted lists
 *      their files. Problems (malformed files, unknown events, a tampered
 *      plugin executable) are in x->problems, never fatal.
 *   2. the run sets the spawner (zext_set_spawner: the run's sandbox), x->session_id,
 *      and hands zext_gate(x) / zext_source(x) to the agent.
 *   3. events fire through zext_fire (the loop's gate for tool events, the
 *      faces for sessionStart / userPromptSubmit / sessionEnd, the subagent
 *      code for subagentStop).
 *   4. zext_release.
 */
#ifndef ZERO_EXT_EXT_H
#define ZERO_EXT_EXT_H

#include <jansson.h>
#include <stdbool.h>

#include "agent/loop.h"
#include "base/strvec.h"
#include "ext/commands.h"
#include "ext/hook_runner.h"
#include "ext/hooks.h"
#include "ext/plugins.h"
#include "ext/skills.h"

#define ZEXT_MAX_STOP_CONTINUES 3 /* a stop hook may continue a run this many times */

typedef struct zext {
  char *workspace;
  struct zspawner *spawner; /* borrowed; NULL = hooks run unconfined (unsafe mode) */
  const char *session_id;   /* borrowed; may be NULL */
  const zagent *agent;      /* the run's agent, for hook records of events fired outside
                             * its gate (compaction); borrowed, may be NULL */
  zhooks hooks;             /* the hooks that run */
  zskills skills;
  zcmds commands; /* read through zext_commands (loaded on first use) */
  bool commands_loaded;
  zplugins plugins;
  bool trusted;             /* the workspace's own hooks/commands/plugins are trusted */
  strvec untrusted;         /* workspace files not loaded for want of trust */
  strvec problems;          /* what did not load, and why */
  int stop_continues;       /* continuations granted to stop hooks this run */
  zagent_gate gate;         /* the loop's seam (zext_gate) */
  ztool_source source;      /* skill + plugin tools (zext_source) */
  json_t *schemas;          /* the source's schemas, made once a run (owned) */
  json_t *mcp_servers;      /* enabled plugins' MCP servers, as zmcp_start_opts.
                             * extra_servers takes them ("<id>_<name>"); owned */
  zhook_runner runner;      /* the run's one sandbox for hooks and plugin tools */
  bool runner_on;           /* runner was started (it may have broken since) */
} zext;

/* Loads everything for workspace (see the life cycle). trusted: the caller
 * has established trust (saved, or --trust-workspace); project files are
 * loaded only then. */
void zext_load(zext *x, const char *workspace, bool trusted);
void zext_release(zext *x);

/* The verdict of the hooks of one event. */
typedef struct zext_verdict {
  bool block;        /* a gating event: stop what it guards */
  char *reason;      /* why (owned), or NULL */
  char *context;     /* userPromptSubmit / sessionStart: text for the model (owned) */
  bool continue_run; /* stop: a hook asked the agent to go on (reason says why) */
  int ran;           /* hooks run */
} zext_verdict;

void zext_verdict_release(zext_verdict *v);

/* Runs the hooks of `event` that match `tool` (NULL for events without a
 * tool), one after another, each with {event, sessionId, cwd, ...payload}
 * on stdin. Every run is emitted to a's sinks (a may be NULL) as a hook
 * record. On a gating event the first block (or failure: fail closed) stops
 * the rest. payload is borrowed (may be NULL). The subagent code calls it
 * with "subagentStop" when a child run ends. Returns the number of hooks run. */
int zext_fire(zext *x, const zagent *a, const char *event, const char *tool,
              const json_t *payload, zext_verdict *v);

/* Sets the spawner hooks and plugin tools are confined by (NULL: unsafe
 * mode, unconfined) and, when the run has any, starts their runner in it
 * (ext/hook_runner.h; a runner of an earlier spawner is stopped first, so a
 * changed policy is never missed). The sandbox builds in the background. */
void zext_set_spawner(zext *x, struct zspawner *spawner);

/* Runs h (a hook, or a plugin tool dressed as one) confined: in the runner
 * when it is usable, else in a sandbox of its own. */
void zext_run_confined(zext *x, const zhook *h, const char *stdin_json, zhook_outcome *out);

/* The compactor's observer (zcompactor.observe, ud = the zext): fires
 * beforeCompact / afterCompact with the compactor's payload. */
void zext_compaction_observe(void *ud, const char *event, const json_t *payload);

/* The prompt text for the skills index ("" when there are none); owned. */
char *zext_skills_prompt(const zext *x);

/* The custom slash commands (user, trusted project, enabled plugins'),
 * read on the first call; their problems join x->problems then. Thread
 * rule: call it first on the thread that loaded x, before any other thread
 * may read the commands (the TUI and exec read them on their main thread;
 * serve loads them before it starts serving). */
const zcmds *zext_commands(zext *x);

/* A headless "/name args" prompt: when prompt names a custom command, *out
 * gets the expanded prompt (owned) and 1 is returned; 0 when it names none
 * (a built-in or plain text); -1 with err when it names an untrusted or
 * unknown-but-slash command that cannot run. Reads the commands only for a
 * prompt that starts with "/". */
int zext_expand_command(zext *x, const char *prompt, char **out, zerr *err);

/* {hooks, skills, commands, plugins, problems, trusted, untrusted}: the
 * report of `zero backends` (nothing started). New reference. */
json_t *zext_report_json(zext *x);

/* Emits a hook record through a's sinks (stream-json "hook", session
 * "hook"). */
void zext_emit_record(const zagent *a, const json_t *record);

#endif
