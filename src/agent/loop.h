/* loop.h — the agent loop: request → stream → tool calls → results → next
 * request, until the model answers without tools or maxTurns is reached.
 *
 * The loop never knows which provider or which UI it talks to: it streams
 * through the zprovider vtable and reports through zsink events.
 */
#ifndef ZERO_AGENT_LOOP_H
#define ZERO_AGENT_LOOP_H

#include "agent/events.h"
#include "agent/permissions.h"
#include "base/err.h"
#include "provider/provider.h"
#include "tools/tool.h"

typedef enum zrun_status {
  ZRUN_SUCCESS,     /* the model answered without asking for tools */
  ZRUN_ERROR,       /* provider or internal failure (err set) */
  ZRUN_INCOMPLETE,  /* maxTurns reached while the model still wanted tools */
  ZRUN_INTERRUPTED, /* SIGINT / SIGTERM */
} zrun_status;

struct zagent;

/* A source of tools beside the built-in registry (MCP servers). The loop
 * adds schemas() to every request and hands a call whose name the registry
 * does not know but has() claims to invoke(), which decides permission
 * itself (emitting permission events through zagent_emit, asking
 * a->approve when set) and fills res. */
typedef struct ztool_source {
  json_t *(*schemas)(void *ud);                  /* new reference: [{name, description, parameters}] */
  bool (*has)(void *ud, const char *name);
  const char *(*side_effect)(void *ud, const char *name); /* for events; NULL = "unknown" */
  void (*invoke)(void *ud, struct zagent *a, const ztool_call *call, ztool_result *res);
  void *ud;
} ztool_source;
struct zcompactor;

/* ---- the approver seam ------------------------------------------------------
 * When the permission engine answers "prompt", the loop (and the MCP manager)
 * asks zagent.approve. The TUI implements it by showing the request and
 * offering: allow once / allow for this session / always allow, and deny
 * (with the same three scopes and an optional note for the model).
 *
 * Contract:
 *  - Called on the loop's thread, synchronously, once per prompted call; the
 *    request and everything it points to are borrowed for the call only.
 *  - Return .action ZPERM_ALLOW or ZPERM_DENY (anything else is a denial).
 *  - .scope ZGRANT_ONCE decides this call only. ZGRANT_SESSION also adds a
 *    grant for the rest of the run; ZGRANT_ALWAYS also saves it to
 *    ~/.config/zero/sandbox-grants.json (zgrants_save; a save failure is a
 *    warning, the answer still holds). The grant remembered is the one in the
 *    request (grant_kind / grant_value): a command prefix, a path, or the
 *    tool. When can_remember is false no grant is narrow enough, and the
 *    loop treats SESSION / ALWAYS as ONCE — the TUI should offer only once.
 *  - .note (owned by the approver, valid until its next call) is passed to
 *    the model with a denial ("denied by the user" when NULL).
 *  - An approved escalation (escalate_network / escalate_unsandboxed) applies
 *    to the approved command only, or — through the grant — to every later
 *    call the grant covers.
 *  - approve == NULL means headless (zero exec): every prompt becomes a
 *    denial whose reason and block name what would allow it.
 * Every answer is reported as a permission_decision event (stream-json and
 * the session) with a "grant" object when the answer created one. */
typedef struct zapproval_request {
  const ztool *tool;          /* for MCP: a stand-in with name and description */
  const ztool_call *call;     /* id, name, raw arguments */
  const char *code;           /* the engine's reason code: "network", "destructive",
                               * "too_complex", "escalation", "needs_approval", … */
  const char *reason;         /* one line for the user */
  bool escalate_network;      /* allowing runs the command with the network */
  bool escalate_unsandboxed;  /* allowing runs the command outside the sandbox */
  bool can_remember;          /* a session / always answer can make a grant */
  int grant_kind;             /* zgrant_kind: ZGRANT_PREFIX, ZGRANT_PATH or ZGRANT_TOOL */
  const char *grant_tool;     /* tool name the grant would be for */
  const char *grant_value;    /* "git push" / "/src/app/out.txt"; "" for a tool grant */
} zapproval_request;

typedef struct zapproval {
  zperm_action action;        /* ZPERM_ALLOW or ZPERM_DENY */
  int scope;                  /* zgrant_scope: ZGRANT_ONCE (0), ZGRANT_SESSION, ZGRANT_ALWAYS */
  const char *note;           /* optional words for the model */
} zapproval;

typedef struct zagent {
  zprovider *provider;
  const char *system_prompt;
  ztool_ctx *tools;
  zperm_mode mode;
  const zperm_engine *perm; /* the permission engine; NULL = mode alone, no sandbox */
  int max_turns;        /* model requests allowed in this run */
  zsink **sinks;
  size_t nsinks;
  const char *model;    /* for usage events */
  /* Answers a permission prompt (the TUI asks the user); see "the approver
   * seam" above. NULL: headless, so a prompt is denied with a reason naming
   * what would allow it. */
  zapproval (*approve)(void *ud, const zapproval_request *req);
  void *approve_ud;
  const ztool_source *sources; /* extra tool sources (MCP); may be NULL */
  size_t nsources;
  /* Keeps requests inside the context window (agent/compaction.h); NULL =
   * no compaction. Borrowed. */
  struct zcompactor *compactor;
  /* Results of the run. */
  const char *final_text; /* last assistant text, borrowed from the conversation
                           * (valid while it is unchanged); NULL if none */
  int turns;            /* model requests made */
  zusage usage;         /* summed over the run */
  /* Files the running built-in call has changed so far (paths the
   * checkpointer saved), reported as the result's changedFiles. Internal. */
  json_t *changed_files;
} zagent;

/* Emits ev to every sink. */
void zagent_emit(const zagent *a, const zagent_event *ev);

/* 0 when every sink can go on; -1 with err from the first whose check fails
 * (zsink.check: the session could not be recorded). The loop calls it before
 * each request and each tool call; a face calls it before reporting success. */
int zagent_check_sinks(const zagent *a, zerr *err);

/* Applies an approver's answer: remembers the grant a session / always answer
 * asks for in grants (may be NULL: nothing is remembered) and saves it for
 * always (a save failure is emitted as a warning). Returns the grant as JSON
 * for the decision event ({tool, kind, value?, action, scope, source:"user"},
 * new reference), or NULL for a once answer. */
json_t *zagent_remember_answer(const zagent *a, struct zgrants *grants,
                               const zapproval_request *req, const zapproval *ans);

/* The checkpointer's notify hook (zcheckpointer_set_notify, ud = the
 * zagent): emits a ZAEV_CHECKPOINT and remembers the path for the running
 * call's tool_result changedFiles. */
void zagent_checkpoint_taken(void *agent, int64_t sequence, const char *tool,
                             const char *abs_path);

/* Runs until done. conv must already end with the new user message; the loop
 * appends assistant messages and tool results to it. */
zrun_status zagent_run(zagent *a, zconv *conv, zerr *err);
void zagent_release(zagent *a);

#endif
