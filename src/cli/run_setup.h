/* run_setup.h — the assembly every agent run shares, whatever its face
 * (`zero exec` headless, `zero` interactive), so both get the same sandbox,
 * permission engine, MCP servers, checkpoints and compaction:
 *
 *   workspace → sandbox → provider → session → system prompt → tools →
 *   MCP → compaction → agent
 *
 * Each step fills part of a zrun_setup and, on failure, leaves err set with a
 * kind the CLI maps to an exit code:
 *   ZE_USAGE    bad --cwd / --add-dir, malformed config, unknown --resume id,
 *               a side session given to --resume
 *   ZE_CONFIG   config resolves but is unusable (no provider, no key, sandbox
 *               settings that cannot be enforced)
 *   ZE_PROVIDER libcurl missing, provider kind unknown, MCP start-up failed
 *   ZE_INTERNAL no cwd, session directory not creatable
 * Steps run in the order above (a later one uses what earlier ones made).
 * Release everything with zrun_setup_release, whatever step failed.
 */
#ifndef ZERO_CLI_RUN_SETUP_H
#define ZERO_CLI_RUN_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "agent/compaction.h"
#include "agent/loop.h"
#include "perm/engine.h"
#include "agent/task_state.h"
#include "base/err.h"
#include "config/config.h"
#include "ext/ext.h"
#include "lsp/agent.h"
#include "mcp/mcp.h"
#include "provider/message.h"
#include "provider/provider.h"
#include "perm/grants.h"
#include "perm/net_ask.h"
#include "net/egress/queue.h"
#include "sandbox/sandbox.h"
#include "session/checkpoint.h"
#include "session/store.h"
#include "subagent/task.h"
#include "tools/tool.h"

/* What the face chooses before the steps run (zero exec's flags; the TUI
 * leaves them zero). */
typedef struct zrun_opts {
  bool offline;                /* --offline: no network for commands */
  const char *const *allow_domains; /* --allow-domain (borrowed): sandbox.allowedDomains */
  size_t n_allow_domains;           /* for this run (network "scoped") */
  const char *init_session_id; /* --init-session-id: the new session's id (NULL = generated) */
  const char *const *disabled_tools; /* --disabled-tools (NULL-terminated), borrowed */
  const char *const *extra_allowed;  /* --agent: zperm_engine.extra_allowed, borrowed */
  const char *reasoning_effort;      /* -r: checked against the registry, over config */
  const char *parent_session;        /* --parent-session: a new session is its child */
  const char *schedule;              /* --schedule: a new session is a run of this cron schedule */
  bool trust_workspace; /* --trust-workspace: trust (and save trust for) the workspace's
                         * hooks, commands and plugins */
  /* --worktree: the launch directory, whose saved trust stands for the
   * workspace (a fresh worktree of it) when both hold the same files. */
  const char *trust_root;
  const json_t *extra_mcp_servers; /* MCP servers the face adds for this run (ACP session/new's
                                    * mcpServers), as zmcp_start_opts.extra_servers; borrowed */
  /* --worktree: the folders a commit in the worktree writes (its git dir,
   * objects, the zero/ refs and logs; subagent/worktree.h zwt_git_paths),
   * writable for commands, and its gitdir file kept read-only. Borrowed. */
  const char *const *git_write;
  const char *git_readonly;
  bool trust_once; /* the TUI's "trust for this session": trusted for this run, never saved */
} zrun_opts;

/* The sandbox step: what confines every child of the run. */
typedef struct zrun_sandbox {
  zsb_policy policy;
  zsb_spawner spawner;
  bool have_spawner;
  zgrants grants; /* saved permission grants */
  /* network "scoped": the questions about hosts on neither list, answered
   * by the run's face (perm/net_ask.h); set up with the spawner. */
  zperm_net_asker net_asker;
  bool have_net_asker;
  zsb_egress_guard web_guard; /* the same lists and question for web_fetch */
  zeg_queue net_events;       /* the proxy's decisions, for the agent (net/egress/queue.h) */
} zrun_sandbox;

/* The provider step: the resolved configuration and the model client. */
typedef struct zrun_model {
  zconfig cfg;
  zresolved_provider rp;
  zprov_opts popts; /* strings borrowed from rp */
  zprovider *provider;
  char *model_warning; /* unknown model on an official endpoint, or NULL */
} zrun_model;

/* The session step: where the conversation is recorded and its task state. */
typedef struct zrun_store {
  char *root; /* zsession_root() */
  zsession *session;
  char *resumed_id; /* id of the resumed session, or NULL */
  ztask_state task;
  bool task_ready;
  json_t *seen_files; /* stamps loaded with a resumed/forked session, until seeded */
} zrun_store;

/* The system prompt step. */
typedef struct zrun_prompt {
  char *system_prompt;
  json_t *instruction_sources; /* instruction files included, in order */
} zrun_prompt;

/* The compaction step. */
typedef struct zrun_compaction {
  zcompact_settings settings;
  zprovider *cheap_provider; /* the summarizer when cheaper than the run's model, or NULL */
  zcompactor compactor;
} zrun_compaction;

/* One agent run's assembly: a part per step, in the order the steps run. */
typedef struct zrun_setup {
  zrun_opts opts; /* set by the caller before the steps */
  /* workspace */
  char *workspace; /* real path of the workspace (the cwd after -C) */
  char **add_dirs; /* real paths, n_add_dirs of them, NULL-terminated */
  size_t n_add_dirs;
  zrun_sandbox sandbox;
  zrun_model model;
  zrun_store store;
  zrun_prompt prompt;
  /* tools */
  json_t *plan;             /* update_plan's plan */
  ztool_ctx tools;
  zperm_engine perm;        /* perm.mode: the run's permission mode, the one copy the
                             * agent and the MCP manager read (zagent_mode) */
  zcheckpointer *checkpoints;
  char *checkpoints_for;    /* id of the session the checkpointer writes to */
  struct zagent *agent;     /* told of every checkpoint (zrun_setup_agent), or NULL */
  struct ztool_files *files; /* what the model has read this run (tools/tracker.h) */
  zmcp_manager mcp;
  /* extensions (ext/ext.h): hooks, skills, commands, plugins */
  zext ext;
  bool have_ext;
  ztool_source agent_sources[4]; /* MCP, the extensions', the sub-agents' and the language
                                  * servers' tools, as zrun_setup_agent hands them to the agent */
  zrun_compaction compaction;
  /* sub-agents (subagent/task.h): the task tools, or NULL */
  struct zsub_runtime *subagents;
  /* language servers (lsp/lsp.h), made by zrun_setup_tools: NULL when off */
  struct zlsp *lsp;
  bool lsp_loaded;
  zlsp_agent lsp_agent; /* the diagnostics tool and the after-edit checks */
} zrun_setup;

#define ZRUN_SETUP_INIT \
  { .workspace = NULL }

/* Enters cwd (when non-NULL) and records the real workspace path and the
 * real paths of the extra writable directories. */
int zrun_setup_workspace(zrun_setup *s, const char *cwd, const char *const *add_dirs, size_t n,
                         zerr *err);
/* zrun_setup_workspace for dir, without entering it and without extra
 * directories: for a face that serves several workspaces from one process
 * at once (`zero acp`), where the process's directory belongs to no run.
 * Nothing a run does depends on it: tools resolve against the workspace,
 * commands, MCP and language servers get it as their directory. */
int zrun_setup_workspace_at(zrun_setup *s, const char *dir, zerr *err);
/* Declares every credential the configuration of workspace names to
 * base/secrets.h, before any child starts or any output is written: the
 * provider profiles' key variables, keys and headers (config layers that do
 * not load are skipped: their errors are the provider setup's to report),
 * every preset's key variable, the MCP servers' credential env entries and
 * headers, and their stored OAuth tokens. zrun_setup_sandbox calls it;
 * commands without a run (zero sandbox exec, zero mcp …) call it
 * themselves. */
void zrun_collect_secrets(const char *workspace);
/* The sandbox policy (workspace, --add-dir, config), the spawner that confines
 * every child of the run, and the saved grants. */
int zrun_setup_sandbox(zrun_setup *s, zerr *err);
/* Makes dir (relative to the workspace) writable for the tools from now on,
 * like --add-dir: the sandbox policy is rebuilt with it. *added: its real
 * path (borrowed). The caller makes sure no turn is running. */
int zrun_setup_add_dir(zrun_setup *s, const char *dir, const char **added, zerr *err);
/* Loads the config layers for the workspace and creates the provider. */
int zrun_setup_provider(zrun_setup *s, const zconfig_flags *flags, zerr *err);

/* zmodel_probe_fn for zconfig_resolve_provider_probe: GET {base}/models of a
 * local server (short timeouts), the first id of {"data":[{"id":…}]} or NULL.
 * zrun_setup_provider uses it, so OPENAI_BASE_URL at a local server is
 * enough. */
char *zrun_probe_local_model(const char *base_url, void *ud);
/* Replaces the provider by one for another model of the same profile (the
 * TUI's /model). On failure the old provider stays. */
int zrun_setup_switch_model(zrun_setup *s, const char *model, zerr *err);
/* Replaces config-derived provider state by the profile `name` (the TUI's
 * /provider). On failure nothing changes. */
int zrun_setup_switch_provider(zrun_setup *s, const char *name, zerr *err);
/* Resumes (resume: resume_id, or NULL for the latest session of this
 * workspace) into conv, or creates a new session titled `title`. A resumed
 * session is locked first (one writer), a side session is refused, and the
 * saved task state is restored. */
int zrun_setup_session(zrun_setup *s, bool resume, const char *resume_id, const char *title,
                       zconv *conv, void (*warn)(void *ud, const char *msg), void *warn_ud,
                       zerr *err);
/* Forks session `fork_id` and loads the fork's conversation into conv. */
int zrun_setup_fork(zrun_setup *s, const char *fork_id, zconv *conv,
                    void (*warn)(void *ud, const char *msg), void *warn_ud, zerr *err);
/* Builds the system prompt for this workspace, provider and mode into
 * s->system_prompt (replacing an earlier one) and returns it (borrowed). */
const char *zrun_setup_system_prompt(zrun_setup *s, zperm_mode mode);
/* The tool context (sandbox spawner unless unsafe, checkpoints before every
 * file change, the language servers' write hook) and the permission engine
 * for `mode`. Call again whenever the
 * mode or the session changes (the TUI does, per turn): the checkpointer
 * follows the current session. */
void zrun_setup_tools(zrun_setup *s, zperm_mode mode, zautonomy autonomy);
/* Starts the configured MCP servers in parallel (through the sandbox
 * spawner); a server that fails is reported through warn and skipped. */
int zrun_setup_mcp(zrun_setup *s, void (*warn)(void *ud, const char *msg), void *warn_ud,
                   zerr *err);
/* For commands that start MCP servers outside an agent run (`zero mcp
 * tools|call`, `zero exec --list-tools`): the workspace and sandbox steps,
 * then o filled to start the servers as confined as a run in `mode` would
 * (the run's spawner unless the mode is unsafe; roots = --add-dir). o
 * borrows from s. */
int zrun_setup_mcp_outside_run(zrun_setup *s, const char *cwd, const char *const *add_dirs,
                               size_t n, zperm_mode mode, zmcp_start_opts *o, zerr *err);
/* Loads the extensions of the workspace (hooks, skills, custom commands,
 * plugins): the workspace's own hooks, commands and plugins only when it is
 * trusted (saved trust, s->opts.trust_workspace, which saves it, or
 * s->opts.trust_once, which does not). Problems and
 * untrusted files are in s->ext (the face reports them). Call after the
 * sandbox step and before the system prompt (it lists the skills). */
void zrun_setup_extensions(zrun_setup *s);
/* The compactor (a cheaper summarizer when one is chosen); notices go to
 * diag (may be NULL). */
void zrun_setup_compaction(zrun_setup *s, FILE *diag);
/* Fills the agent from the setup: provider, system prompt, tools, engine,
 * compactor, MCP tool source, maxTurns. Sinks and the approver are the
 * face's to set. */
void zrun_setup_agent(zrun_setup *s, zagent *agent);
/* The sub-agent tools (task, task_output, task_stop) for this run, after
 * the session step: children inherit the workspace, roots, --offline,
 * provider and model, and are recorded as children of this session. With
 * restricted set only the tools named in allowed (a specialist's
 * allow-list) are offered; ask (may be NULL) supplies ask_user's answers
 * (its ask / ask_ud fields). Called again (the TUI, per turn) it keeps the
 * running background tasks and follows the current session. Call before
 * zrun_setup_agent. */
void zrun_setup_subagents(zrun_setup *s, const char *const *allowed, bool restricted,
                          const zsub_runtime_opts *ask);
/* Saves the task state into the session's metadata (end of a run). */
void zrun_setup_save_task(zrun_setup *s);

/* A one-line session title from the first 80 bytes of a prompt (newlines
 * and tabs become spaces). out must hold 81 bytes. */
void zrun_title_from_prompt(const char *prompt, size_t len, char out[81]);
void zrun_setup_release(zrun_setup *s);

#endif
