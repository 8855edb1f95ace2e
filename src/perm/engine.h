/* engine.h — the permission engine (src/perm/, the one permission module):
 * for every tool call, allow, prompt or deny, from the mode, the call's
 * arguments, the sandbox and the grant store (perm/grants.h). The module's
 * other parts: perm/risk.c (the one risk model), perm/prompt.h (the one
 * prompt flow every face uses to answer a prompt), perm/grants.h (the one
 * grant store).
 *
 * Fixed order (docs/sandbox.md, "Permission engine"):
 *   1. tool denied (disabled for the run)              → deny
 *      --offline and a tool that reaches the network    → deny
 *   2. unsafe mode                                       → allow
 *   3. plan mode: read-only tools allowed, others        → deny
 *      (a network tool under network deny goes on to 6a)
 *   4. saved deny grant                                  → deny
 *   5. path scope: a write outside the write roots, via
 *      a symlink leading outside, or to a protected name → deny
 *  6a. a network tool (web_fetch) under sandbox.network
 *      deny, unless sandbox.enforceToolNetwork is false  → prompt
 *   6. shell analysis: destructive / network / too complex → prompt;
 *      interactive → deny (stdin is empty)
 *   7. escalation requests (sandbox_permissions)         → prompt
 *   8. saved allow grant                                 → allow
 *      (a require_escalated request: only this run's answer to exactly
 *      that; never a saved grant, never a network grant)
 *   9. read tools, and file tools inside the workspace   → allow (ask mode: prompt writes;
 *                                                          accept-edits: allow them)
 *      network tools the policy lets through             → allow (ask mode: prompt)
 *  10. shell commands while the OS sandbox is active     → allow (ask, accept-edits: prompt)
 *  11. otherwise                                         → prompt
 * A prompt is answered by the face's approver through perm/prompt.h; a face
 * without one (zero exec) turns it into a denial whose block says what would
 * allow the call.
 *
 * Escalation is part of the one call's decision: an allowed decision's
 * escalate_* flags travel with that call (zperm_escalation → ztool_invoke's
 * per-call context → the call's zspawn_cmd). Nothing about an escalation is
 * stored on the engine, the spawner or any other shared object, so a call
 * that fails before it spawns leaves nothing behind.
 */
#ifndef ZERO_PERM_ENGINE_H
#define ZERO_PERM_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>

#include <jansson.h>

#include "base/err.h"
#include "tools/tool.h"

/* accept-edits (Claude Code's acceptEdits): ask mode, except that file edits
 * inside the write roots are allowed (step 9); commands, network tools and
 * MCP tools still ask, and steps 1-8 (path scope, protected names, shell
 * analysis, grants) apply as in every mode. */
typedef enum zperm_mode {
  ZPERM_ASK,
  ZPERM_AUTO,
  ZPERM_UNSAFE,
  ZPERM_PLAN,
  ZPERM_ACCEPT_EDITS, /* the last: shell completion lists ZPERM_ASK..here */
} zperm_mode;
/* --auto: low (auto mode); member (Go zero's: write tools and the sandboxed
 * shell, never the network, never leaving the sandbox: those calls are
 * denied, not asked); medium (network commands get the network); high
 * (unsafe). Ordered: a comparison says "at least". */
typedef enum zautonomy { ZAUTO_LOW, ZAUTO_MEMBER, ZAUTO_MEDIUM, ZAUTO_HIGH } zautonomy;

typedef enum zperm_action { ZPERM_ALLOW, ZPERM_PROMPT, ZPERM_DENY } zperm_action;

struct zsb_policy;
struct zgrants;

/* What a run decides with. Everything but mode may be NULL / false. */
typedef struct zperm_engine {
  zperm_mode mode;
  zautonomy autonomy;                /* medium: network commands run with the network */
  const ztool_ctx *tools;            /* workspace and --add-dir roots for the path scope */
  const struct zsb_policy *policy;   /* the sandbox policy (protected names, deny lists) */
  bool sandbox_active;               /* commands really run confined (zsb_active) */
  struct zgrants *grants;            /* saved + session grants */
  bool offline;                      /* --offline: package installs are not network (they run
                                      * from caches); network commands and escalations are
                                      * denied, never prompted */
  const char *const *disabled_tools; /* NULL-terminated */
  /* A specialist's allow-list, for the MCP tools (names "mcp_server_tool"
   * and the MCP meta tools "mcp_list_resources"…; an entry ending in '*' is
   * a prefix, "mcp_server_*": a whole server): only these of them are offered
   * and may run. NULL: every one (NULL-terminated). */
  const char *const *extra_allowed;
  /* Non-NULL: the mode another thread may change while the run goes on
   * (ACP session/set_mode during a prompt), a zperm_mode; it overrides mode.
   * Each decision reads it once (zperm_engine_mode), so one call is decided
   * under one mode and the next call under the new one. */
  const atomic_int *live_mode;
} zperm_engine;

/* The mode e decides with now: *live_mode when set, else mode. */
zperm_mode zperm_engine_mode(const zperm_engine *e);

typedef struct zperm_decision {
  zperm_action action;
  const char *code;        /* "allowed", "tool_denied", "plan_mode", "grant_denied",
                            * "outside_write_roots", "symlink_escape", "protected_path",
                            * "destructive", "network", "interactive", "too_complex",
                            * "escalation", "needs_approval", "sandbox_unavailable",
                            * "offline", "user_denied" */
  char reason[512];        /* why */
  const char *allow_hint;  /* what would allow it ("" when allowed) */
  bool recoverable;        /* the model can do something else / the user can approve */
  bool grant_matched;
  bool escalate_network;   /* approving runs the command with the network */
  bool escalate_unsandboxed; /* approving runs the command outside the sandbox */
  /* grant_matched: the grant that decided, copied (the grant list may change). */
  struct {
    const char *tool;      /* static name of the tool ("" for MCP) */
    const char *kind;      /* "tool", "path", "prefix" */
    const char *scope;     /* "once", "session", "always" */
    char value[256];       /* prefix or path; "" for kind tool */
  } grant;
} zperm_decision;

/* Parses "ask|accept-edits|auto|unsafe|plan" (and Go zero's aliases:
 * full-auto, member, high; Claude Code's acceptEdits). -1 with a usage error listing the choices.
 */
int zperm_mode_parse(const char *s, zperm_mode *out, zerr *err);
int zautonomy_parse(const char *s, zautonomy *out, zerr *err);
const char *zperm_mode_name(zperm_mode m);
const char *zautonomy_name(zautonomy a);
const char *zperm_action_name(zperm_action a);

/* Effective mode from flags: --skip-permissions-unsafe always means unsafe;
 * otherwise an explicit --permission-mode wins over --auto, and --auto high
 * means unsafe. */
zperm_mode zperm_effective_mode(bool mode_given, zperm_mode mode, zautonomy autonomy,
                                bool skip_unsafe);

/* What is decided: a built-in tool's call, or a call of an MCP server's
 * tool (hook and plugin commands are the next origins to come here). */
typedef struct zperm_call {
  const ztool *tool;      /* the built-in tool; for MCP a stand-in with the model-facing
                           * name (side effect read for a read-only tool, else network) */
  const json_t *args;     /* the parsed argument object; NULL = unknown (--list-tools) */
  const char *mcp_server; /* non-NULL: an MCP tool of this server, */
  const char *mcp_tool;   /*   named so by the server */
  bool mcp_sampling;      /* with mcp_server: the server asks the run's model for a
                           * completion (sampling/createMessage); tool is a stand-in */
} zperm_call;

/* The one decision function. Built-in tools follow the order above. MCP
 * tools: disabled → deny; unsafe → allow; plan → deny (they may change
 * things); an MCP grant of the tool or its server → allow; otherwise
 * prompt (the headless hint names `zero mcp grant`). An MCP server's
 * sampling request spends the user's model on the server's words: unsafe →
 * allow; in every other mode (plan too: it changes nothing) the user is
 * asked each time — no grant answers it. */
zperm_decision zperm_decide_call(const zperm_engine *e, const zperm_call *c);

/* zperm_decide_call for a built-in tool's call. */
zperm_decision zperm_decide(const zperm_engine *e, const ztool *tool, const json_t *args);

/* The structured block handed to the model and stream-json for a denial:
 * {code, reason, recoverable, allow}. New reference. */
json_t *zperm_block_json(const zperm_decision *d);

/* {tool, kind, value?, action, scope, source} for session records and
 * stream-json: the grant d matched (source "saved"), NULL when none. */
json_t *zperm_grant_json(const zperm_decision *d);

/* How risky the call is, as Go zero's permission events carry it: {level
 * (low|medium|high|critical), categories (sorted: read, write, shell,
 * network, destructive, interactive, unparseable_command, absolute_path,
 * path_escape, out_of_workspace, symlink_traversal, protected_path), reason
 * ("<level> risk: <categories>")}. From the tool's side effect, the shell
 * analyzer's verdict on the command, the path argument and d's code (d may
 * be NULL). Informational only: decisions never read it. New reference. */
json_t *zperm_risk_json(const zperm_engine *e, const ztool *tool, const json_t *args,
                        const zperm_decision *d);

/* A call as a prompt shows it, for zperm_risk_line. */
typedef struct zperm_risk_subject {
  const char *tool, *arguments; /* name and raw argument text */
  zside_effect side;
  const char *code;             /* the engine's reason code, or NULL */
  bool escalate_network, escalate_unsandboxed;
} zperm_risk_subject;

/* The prompt's risk line, "<low|medium|high> — <why>": the shell analyzer's
 * verdict on a command (or what a file change or other tool does), then
 * where it runs (sandboxed or not, with or without the network). Caller
 * frees. (perm/risk.c, with zperm_risk_json.) */
char *zperm_risk_line(const zperm_risk_subject *s);

/* What a "session" or "always" answer to a prompt for this call should
 * remember: shell tools a command prefix (the model's prefix_rule when it
 * covers every command of the line; else the single command line; else the
 * words every command line starts with), file tools the resolved target
 * path, other tools the tool itself. false when no grant would be narrow
 * enough (e.g. `a | b` with nothing in common): only "once" can be offered.
 * value (cap bytes) gets "" for kind tool. */
bool zperm_suggest_grant(const zperm_engine *e, const ztool *tool, const json_t *args,
                         int *kind /* zgrant_kind */, char *value, size_t cap);

/* What an allowed decision lets its one call do beyond the run's sandbox
 * (nothing for a prompt or a denial): hand it to ztool_invoke_escalated for
 * that call only. */
ztool_escalation zperm_escalation(const zperm_decision *d);
/* The run's disabled built-in tools from --enabled-tools / --disabled-tools
 * (each a comma- or space-separated list; NULL or "" = not given; repeated
 * flags arrive joined by commas): with an enabled list every built-in tool
 * not on it is disabled, and the disabled list is added. A name that is not
 * a built-in tool is a usage error listing the tools (MCP tools are turned
 * off per server in the MCP config). Returns a NULL-terminated list (caller
 * frees with zperm_tool_list_free; NULL when nothing is disabled), or sets
 * err and returns NULL. */
char **zperm_tool_filter(const char *enabled, const char *disabled, zerr *err);
void zperm_tool_list_free(char **list);
/* false when the engine disables the tool for this run (step 1), or it is
 * an MCP tool outside e->extra_allowed. */
bool zperm_tool_enabled(const zperm_engine *e, const char *name);

/* true when the tool should be offered to the model at all in this mode. */
bool zperm_tool_visible(zperm_mode mode, const ztool *tool);

#endif
