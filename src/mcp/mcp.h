/* mcp.h — MCP in the agent: the configured servers of a run, their tools as
 * a tool source for the agent loop (agent/loop.h ztool_source), and the
 * approval rules for them.
 *
 * Names: a server's tool T appears to the model as mcp_<server>_<T>, every
 * byte outside [A-Za-z0-9_-] replaced by '_', cut to 64 bytes.
 * Results: text content as is; images, audio and blobs as a one-line
 * description (type, size); embedded text resources with their URI;
 * resource links as their URI; structuredContent when there is no content;
 * isError makes an error result. The output is capped like a built-in tool's
 * (ZTOOL_OUTPUT_CAP) with a notice; redaction happens in the output writers,
 * as for every tool.
 * Approval (docs/mcp.md), decided by the permission module (src/perm/):
 * unsafe mode allows; plan mode denies; a grant in
 * $XDG_CONFIG_HOME/zero/mcp-permissions.json for the server (all its tools)
 * or the tool allows; otherwise the call needs approval: the interactive
 * approver is asked, and headless runs deny with the command that grants it.
 * Deferral: when more than ZMCP_DEFER_THRESHOLD MCP tools are configured
 * (ZERO_MCP_DEFER_THRESHOLD overrides), only a tool_search tool is sent; the
 * tools it finds are added to later requests, so the request stays small and
 * the prompt prefix stable.
 * Progress: notifications/progress of a running tool call become
 * ZAEV_PROGRESS events of that call (stream-json "progress").
 * Resources and prompts: mcp_list_resources, mcp_read_resource,
 * mcp_list_prompts and mcp_get_prompt are offered when a server has them.
 * Sampling: a server's sampling/createMessage during one of the run's calls
 * to it is answered by the run's provider once the user approves
 * (mcp/sampling_run.c).
 */
#ifndef ZERO_MCP_MCP_H
#define ZERO_MCP_MCP_H

#include <jansson.h>
#include <stdbool.h>

#include "agent/loop.h"
#include "perm/engine.h"
#include "perm/grants.h"
#include "mcp/client.h"
#include "mcp/config.h"

#define ZMCP_DEFER_THRESHOLD 40

typedef struct zmcp_manager {
  zmcp_config cfg;
  zmcp_client **clients;   /* enabled servers, started */
  size_t n;
  struct zgrants *grants;  /* the run's grant store (MCP grants included); borrowed, or
                            * &own_grants */
  struct zgrants own_grants;
  size_t output_cap;
  size_t defer_threshold;
  json_t *activated;       /* deferred mode: names tool_search loaded (object used as a set) */
  /* The tool call running now, for its progress events (NULL between calls). */
  zagent *running_agent;
  const char *running_id, *running_name;
  const char *running_server;       /* the server that call went to (sampling is answered for it) */
  struct zmcp_rate *sampling_rates; /* one per client: the sampling limit (mcp/sampling.h) */
  ztool_source source;     /* hand &source to zagent.sources */
} zmcp_manager;

typedef void (*zmcp_warn_fn)(void *ud, const char *msg);

/* What the servers of a run are started with. */
typedef struct zmcp_start_opts {
  const char *workspace;          /* absolute; config lookup, first root, default cwd */
  const char *const *roots;       /* the other roots (--add-dir), absolute; may be NULL */
  size_t n_roots;
  struct zspawner *spawner;       /* confines stdio servers (the run's sandbox); NULL = none */
  zperm_mode mode;                /* zmcp_list_tools: the mode its permission column is for; a
                                   * run's calls are decided in the running agent's mode */
  struct zgrants *grants;         /* the run's grant store; NULL = load the saved MCP grants */
  zmcp_warn_fn warn;              /* may be NULL */
  void *warn_ud;
  /* More servers, started as configured ones (enabled plugins': ext/ext.h
   * zext.mcp_servers): {name: {"server": SERVER, "origin": file, "dir":
   * folder (the default cwd)}}; a malformed one or a name the config has is
   * reported through warn and left out. May be NULL. */
  const json_t *extra_servers;
} zmcp_start_opts;

/* Loads the config for o->workspace, starts every enabled server in
 * parallel (through o->spawner) and lists their tools. roots/list answers
 * the workspace and o->roots. A server that fails is reported through warn
 * (its stderr included) and left out; the run continues. Fails only for a
 * malformed config. */
int zmcp_manager_start(zmcp_manager *m, const zmcp_start_opts *o, zerr *err);
/* New roots after the workspace (the TUI's /add-dir): every server is told
 * (notifications/roots/list_changed) and answers roots/list with them. */
void zmcp_manager_set_roots(zmcp_manager *m, const char *const *roots, size_t n);
/* Shuts every server down (in parallel) and frees everything. */
void zmcp_manager_stop(zmcp_manager *m);

/* For `zero exec --list-tools`: starts the configured servers as
 * zmcp_manager_start does (same spawner, so as confined as in a run), lists
 * every tool the model could be given ({name, description, side_effect,
 * permission, parameters, server, deferred}), and stops them. Servers that
 * fail are reported through warn. Returns a new array, or NULL with err for a
 * malformed config. */
json_t *zmcp_list_tools(const zmcp_start_opts *o, zerr *err);

/* The model-facing name for a server's tool. Caller frees. */
char *zmcp_tool_name(const char *server, const char *tool);

/* Renders a CallToolResult as tool output; returns true when it is an error. */
bool zmcp_render_result(const json_t *result, zbuf *out);

/* The engine an MCP call (or a server's sampling request) is decided with:
 * the run's (its grant store holds the MCP grants too), in the running
 * agent's mode (the TUI's Shift+Tab reaches MCP calls too); without an
 * engine, ask mode and the grants the manager loaded. */
zperm_engine zmcp_engine_for(const zmcp_manager *m, const zagent *a);

/* The manager's answer to a server's sampling/createMessage (a
 * zmcp_sample_fn, ud = the manager): the steps of mcp/sampling_run.c. */
json_t *zmcp_manager_sample(void *ud, const char *server, const json_t *params, zmcp_refusal *why);

/* Approvals: the permission module decides (perm/engine.h zperm_decide_call
 * with mcp_server), the grant store keeps mcp-permissions.json
 * (perm/grants.h zgrants_mcp_*), the prompt flow asks (perm/prompt.h). */

#endif
