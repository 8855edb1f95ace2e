/* loop.h — the agent loop: request → stream → tool calls → results → next
 * request, until the model answers without tools or maxTurns is reached.
 *
 * The loop never knows which provider or which UI it talks to: it streams
 * through the zprovider vtable and reports through zsink events.
 */
#ifndef ZERO_AGENT_LOOP_H
#define ZERO_AGENT_LOOP_H

#include "agent/events.h"
#include "perm/engine.h"
#include "perm/prompt.h"
#include "base/err.h"
#include "provider/provider.h"
#include "tools/tool.h"

typedef enum zrun_status {
  ZRUN_SUCCESS,     /* the model answered without asking for tools */
  ZRUN_ERROR,       /* provider or internal failure (err set) */
  ZRUN_INCOMPLETE,  /* maxTurns reached while the model still wanted tools */
  ZRUN_INTERRUPTED, /* SIGINT / SIGTERM */
  ZRUN_HALTED,      /* a guardrail stopped a looping run (err says why); agent/guardrails.h */
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
  /* Optional: the stand-in the permission engine decides the call as (the
   * built-in path's decision, events and prompt flow; the call's arguments
   * are not judged), or NULL to let invoke decide itself (MCP). */
  const ztool *(*perm_tool)(void *ud, const char *name);
} ztool_source;
struct zcompactor;

/* The extensions' seam (ext/ext.h, hooks): called around each tool call the
 * permission engine allowed, and when the model gives a final answer. NULL
 * members are skipped. */
typedef struct zagent_gate {
  /* false blocks the call: res is filled with the reason the model sees. */
  bool (*before_tool)(void *ud, struct zagent *a, const ztool_call *call, ztool_result *res);
  void (*after_tool)(void *ud, struct zagent *a, const ztool_call *call, const ztool_result *res);
  /* A final answer: a message to continue the run with (caller frees), or
   * NULL to end it. The gate bounds how often it continues. */
  char *(*on_stop)(void *ud, struct zagent *a);
  /* Every call of one assistant message has run (or been refused): the
   * message is conv->items[idx], its results follow it. */
  void (*after_batch)(void *ud, struct zagent *a, const zconv *conv, size_t idx);
  /* Sees every event zagent_emit sends (permission prompts, sub-agent ends:
   * the hooks' notification and subagentStop); may emit events itself. */
  void (*observe)(void *ud, const struct zagent *a, const zagent_event *ev);
  void *ud;
} zagent_gate;
/* Checks of what edits did (lsp/lsp.h: language-server diagnostics).
 * after_edit: a built-in call changed files (absolute paths); it may append
 * to res->output before the result is reported. before_final: a final
 * answer the completion gate accepted; a message to continue the run with
 * (caller frees; the checker bounds how often), or NULL. NULL members are
 * skipped. */
typedef struct zagent_checks {
  void (*after_edit)(void *ud, const json_t *files, ztool_result *res);
  char *(*before_final)(void *ud);
  void *ud;
} zagent_checks;
struct ztrace;
struct zeg_queue;
struct zjudge;

/* The approver seam (zapproval_request, zapproval) and the prompt flow are
 * the permission module's: perm/prompt.h. */

typedef struct zagent {
  zprovider *provider;
  const char *system_prompt;
  ztool_ctx *tools;
  zperm_mode mode;          /* without an engine only; with one, the engine's mode rules */
  const zperm_engine *perm; /* the permission engine; NULL = mode alone, no sandbox */
  int max_turns;        /* model requests allowed in this run */
  zsink **sinks;
  size_t nsinks;
  const char *model;    /* for usage events */
  /* Answers a permission prompt (the TUI asks the user); see "the approver
   * seam" in perm/prompt.h. NULL: headless, so a prompt is denied with a
   * reason naming what would allow it. */
  zapproval (*approve)(void *ud, const zapproval_request *req);
  void *approve_ud;
  const ztool_source *sources; /* extra tool sources (MCP); may be NULL */
  size_t nsources;
  /* Keeps requests inside the context window (agent/compaction.h); NULL =
   * no compaction. Borrowed. */
  struct zcompactor *compactor;
  /* Judgement (agent/judge.h). completion_gate: zero exec's completion gate
   * (agent/completion_gate.h); verify_edits: its verification nudge after
   * edits (the profile's "verify"); objective: the task objective that nudge
   * quotes (borrowed, may be NULL); max_consecutive_failures: 0 = the
   * guardrail's default. trace: --trace (agent/trace.h), NULL = off. */
  bool completion_gate;
  bool verify_edits;
  const char *objective;
  int max_consecutive_failures;
  struct ztrace *trace;
  const zagent_gate *gate; /* hooks (ext/ext.h); NULL = none. Borrowed. */
  const zagent_checks *checks; /* after edits (lsp/lsp.h); NULL = none. Borrowed. */
  /* The egress proxy's decisions (network "scoped"), queued by its threads
   * and emitted by the loop (agent/net_events.h); NULL = none. Borrowed. */
  struct zeg_queue *net_events;
  /* Results of the run. */
  const char *final_text; /* last assistant text, borrowed from the conversation
                           * (valid while it is unchanged); NULL if none */
  int turns;            /* model requests made */
  zusage usage;         /* summed over the run */
  /* Files the running built-in call has changed so far (paths the
   * checkpointer saved), reported as the result's changedFiles. Internal. */
  json_t *changed_files;
  struct zjudge *judge; /* the running zagent_run's judge. Internal. */
} zagent;

/* Emits ev to every sink. */
void zagent_emit(const zagent *a, const zagent_event *ev);

/* The agent's face for the prompt flow (perm/prompt.h): its approver (or
 * none: headless, named "zero exec"), warnings emitted as ZAEV_WARNING. */
zperm_face zagent_face(const zagent *a);

/* The permission mode the run decides with: its engine's (the one place a
 * face sets it, cli/run_setup.h zrun_setup_tools), or a->mode without an
 * engine. Tool sources (MCP) read it here too. */
zperm_mode zagent_mode(const zagent *a);

/* 0 when every sink can go on; -1 with err from the first whose check fails
 * (zsink.check: the session could not be recorded). The loop calls it before
 * each request and each tool call; a face calls it before reporting success. */
int zagent_check_sinks(const zagent *a, zerr *err);

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
