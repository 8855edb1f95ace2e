/* events.h — what the agent loop reports while it runs.
 *
 * The loop emits one zagent_event per step to every sink (output writer,
 * session recorder, TUI). An event is its kind plus that kind's payload, one
 * struct per kind in a tagged union: ev->kind says which member is live
 * (ZAEV_TOOL_CALL: ev->tool_call, ...). The payloads mirror stream-json
 * schema v2 (docs/stream-json.md). Strings and JSON values are borrowed for
 * the duration of the emit call; zagent_event_copy makes an owned copy.
 */
#ifndef ZERO_AGENT_EVENTS_H
#define ZERO_AGENT_EVENTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "provider/provider.h"

typedef enum zagent_event_kind {
  ZAEV_RUN_START,           /* .run_start */
  ZAEV_USER_MESSAGE,        /* .user_message (recorded, not shown by stream-json) */
  ZAEV_REASONING,           /* .delta */
  ZAEV_TEXT,                /* .delta */
  ZAEV_ASSISTANT_MESSAGE,   /* .assistant_message: the whole assistant turn (record) */
  ZAEV_TOOL_CALL,           /* .tool_call */
  ZAEV_PERMISSION_REQUEST,  /* .permission */
  ZAEV_PERMISSION_DECISION, /* .permission */
  ZAEV_TOOL_RESULT,         /* .tool_result */
  ZAEV_USAGE,               /* .usage */
  ZAEV_FINAL,               /* .final */
  ZAEV_WARNING,             /* .warning */
  ZAEV_ERROR,               /* .error */
  ZAEV_RUN_END,             /* .run_end */
  ZAEV_PROGRESS,            /* .progress */
  ZAEV_COMPACTION,          /* .compaction */
  ZAEV_CHECKPOINT,          /* .checkpoint */
  /* Sub-agents (subagent/task.c) */
  ZAEV_SUBAGENT_START, /* .subagent: a child run began */
  ZAEV_SUBAGENT_EVENT, /* .subagent: one event of the child's stream */
  ZAEV_SUBAGENT_END,   /* .subagent: the child ended */
  ZAEV_QUESTION,       /* .question: ask_user asks the user */
  ZAEV_HOOK,           /* .hook */
  ZAEV_TOOL_OUTPUT,    /* .tool_output: a running command's newest output (live only) */
  ZAEV_NETWORK,        /* .network: the egress proxy decided or finished a connection */
  ZAEV_MCP_SAMPLING,   /* .mcp_sampling: an MCP server's sampling request, answered or not */
} zagent_event_kind;

/* ZAEV_RUN_START: where and with what the run talks to the model. */
typedef struct zev_run_start {
  const char *session_id, *cwd, *provider, *model, *api_model;
} zev_run_start;

/* ZAEV_USER_MESSAGE: the prompt as sent (text, len bytes). meta: {images:
 * [{media_type, data}]} when images travel with it, else NULL. */
typedef struct zev_user_message {
  const char *text;
  size_t len;
  const json_t *meta;
} zev_user_message;

/* ZAEV_TEXT and ZAEV_REASONING: one streamed piece, len bytes (not
 * NUL-terminated; len may be 0). */
typedef struct zev_delta {
  const char *text;
  size_t len;
} zev_delta;

/* ZAEV_ASSISTANT_MESSAGE: the turn's answer (text, len bytes), its reasoning
 * (may be NULL) and thinking (JSON array of thinking blocks to replay,
 * zmsg.thinking, may be NULL). */
typedef struct zev_assistant_message {
  const char *text;
  size_t len;
  const char *reasoning;
  const char *thinking;
} zev_assistant_message;

/* ZAEV_TOOL_CALL: a call the model asked for. signature: Gemini's thought
 * signature, may be NULL. */
typedef struct zev_tool_call {
  const char *id, *name, *arguments, *side_effect, *signature;
} zev_tool_call;

/* ZAEV_PERMISSION_REQUEST (action "prompt") and ZAEV_PERMISSION_DECISION
 * (action allow|deny), as Go zero reports them. code: the engine's decision
 * code. permission: the tool's default action (as --list-tools shows it);
 * autonomy: low|medium|high; decision_reason: the engine's rule; risk:
 * {level, categories, reason} (zperm_risk_json); grant_matched: a saved
 * grant decided. Decisions only: block, the structured denial handed to the
 * model, {code, reason, recoverable, allow} (zperm_block_json), NULL unless
 * denied; grant, {tool, kind, value?, action, scope, source: "saved"|"user"}
 * when a saved grant decided or the user's answer made one. */
typedef struct zev_permission {
  const char *id, *name, *side_effect, *action, *reason, *mode, *code;
  const char *permission, *autonomy, *decision_reason;
  const json_t *risk, *block, *grant;
  bool grant_matched;
} zev_permission;

/* ZAEV_TOOL_RESULT: a finished call. output: output_len bytes; truncated:
 * the tool cut it; meta: the tool's structured result (exit_code, block,
 * image, ...), may be NULL; changed_files: JSON array of the paths the call
 * changed, NULL when none. */
typedef struct zev_tool_result {
  const char *id, *name;
  bool ok;
  const char *output;
  size_t output_len;
  bool truncated;
  const json_t *meta;
  const json_t *changed_files;
} zev_tool_result;

/* ZAEV_USAGE: one request's token counts and the model that spent them. */
typedef struct zev_usage {
  zusage tokens;
  const char *model;
} zev_usage;

/* ZAEV_FINAL: the run's answer. */
typedef struct zev_final {
  const char *text;
} zev_final;

/* ZAEV_WARNING: code and meta when machine-readable (e.g.
 * "sandbox_degraded" with {backend, enforcement, network}), else NULL. */
typedef struct zev_warning {
  const char *message, *code;
  const json_t *meta;
} zev_warning;

/* ZAEV_ERROR: why the run failed; recoverable: a retry may succeed. */
typedef struct zev_error {
  const char *code, *message;
  bool recoverable;
} zev_error;

/* ZAEV_RUN_END: the run's status name and exit code. */
typedef struct zev_run_end {
  const char *status;
  int exit_code;
} zev_run_end;

/* ZAEV_PROGRESS: the running tool call (id, name) reports progress of total
 * (< 0: unknown); message may be NULL. */
typedef struct zev_progress {
  const char *id, *name;
  double progress, total;
  const char *message;
} zev_progress;

/* ZAEV_COMPACTION: the conversation was compacted before a request (method,
 * reason); estimated request tokens before and after. */
typedef struct zev_compaction {
  const char *method, *reason;
  int64_t tokens_before, tokens_after;
} zev_compaction;

/* ZAEV_CHECKPOINT: a snapshot taken just before a tool changed files (the
 * session already holds the record): sequence is the session event's, tool
 * the tool's name, files a JSON array of the paths saved. */
typedef struct zev_checkpoint {
  int64_t sequence;
  const char *tool;
  const json_t *files;
} zev_checkpoint;

/* ZAEV_SUBAGENT_START / _EVENT / _END: a sub-agent started by the task call
 * call_id, running definition agent in session child_session_id. START:
 * description. EVENT: event, the child's stream-json event. END: status
 * (success, error, crashed, timeout, malformed, stopped), exit_code, usage
 * (the child's tokens), message (why it failed, or NULL). */
typedef struct zev_subagent {
  const char *call_id, *agent, *child_session_id;
  const char *description;
  const json_t *event;
  const char *status, *message;
  int exit_code;
  zusage usage;
} zev_subagent;

/* ZAEV_QUESTION: the ask_user call id asks question; choices: a JSON array
 * of strings, or NULL. */
typedef struct zev_question {
  const char *id, *question;
  const json_t *choices;
} zev_question;
/* ZAEV_HOOK: one hook run (ext/ext.h zext_emit_record), recorded in the
 * session and emitted in stream-json as it is: {event, hookId, exitCode,
 * durationMs, decision, timedOut, reason?, tool?}. */
typedef struct zev_hook {
  const json_t *record;
} zev_hook;

/* ZAEV_TOOL_OUTPUT: the running call id (tool name) has printed so far;
 * text (len bytes) is the newest part of its output, at most
 * ZTOOL_LIVE_TAIL bytes, redacted, starting on a line; elapsed_ms: how long
 * the command has run. For displays only: it is not recorded, and the
 * result (ZAEV_TOOL_RESULT) carries the output the model sees. */
typedef struct zev_tool_output {
  const char *id, *name;
  const char *text;
  size_t len;
  int64_t elapsed_ms;
} zev_tool_output;

/* ZAEV_NETWORK: one record of the egress proxy of network "scoped"
 * (net/egress/queue.h), emitted on the loop's thread: type is
 * "network_decision" or "network_request", record its fields as stream-json
 * and the session show them ({host, port, protocol, action|status, reason?,
 * bytesSent?, bytesReceived?, id?}; docs/stream-json.md). */
typedef struct zev_network {
  const char *type;
  const json_t *record;
} zev_network;

/* ZAEV_MCP_SAMPLING: one sampling/createMessage request of an MCP server
 * (mcp/sampling_run.c), recorded in the session and emitted in stream-json
 * as "mcp_sampling" with record's fields: {server, toolCallId?, status
 * (answered|refused|failed), reason?, messages, maxTokens, requestedMaxTokens?,
 * modelHints?, model?, stopReason?, text?, usage?} (docs/mcp.md). */
typedef struct zev_mcp_sampling {
  const json_t *record;
} zev_mcp_sampling;

typedef struct zagent_event {
  zagent_event_kind kind;
  union { /* the member kind names; the others are not meaningful */
    zev_run_start run_start;
    zev_user_message user_message;
    zev_delta delta;
    zev_assistant_message assistant_message;
    zev_tool_call tool_call;
    zev_permission permission;
    zev_tool_result tool_result;
    zev_usage usage;
    zev_final final;
    zev_warning warning;
    zev_error error;
    zev_run_end run_end;
    zev_progress progress;
    zev_compaction compaction;
    zev_checkpoint checkpoint;
    zev_subagent subagent;
    zev_question question;
    zev_hook hook;
    zev_tool_output tool_output;
    zev_network network;
    zev_mcp_sampling mcp_sampling;
  };
} zagent_event;

/* A copy of ev that outlives the emit call (a sink that hands events to
 * another thread, as the TUI does): every string and JSON value of its kind's
 * payload is copied deeply and owned by the copy. A length-counted text (a
 * delta, a message, a tool's output) becomes NUL-terminated and its length
 * its strlen; a length of 0 copies up to the NUL. Free with
 * zagent_event_free. */
zagent_event *zagent_event_copy(const zagent_event *ev);

/* Frees a copy made by zagent_event_copy and everything it owns; NULL is a
 * no-op. Never pass an emitted (borrowed) event. */
void zagent_event_free(zagent_event *ev);

/* The fields of a ZAEV_SUBAGENT_START / _EVENT / _END event as one JSON
 * object (toolCallId is "id"): agent, childSessionId, and description
 * (start), event (event), status, exitCode, usage, message (end). What the
 * stream-json line carries and the parent's session records. */
json_t *zagent_subagent_json(const zagent_event *ev);

typedef struct zsink zsink;
struct zsink {
  /* Handles one event. Sinks never fail the run: write errors are remembered
   * and reported by finish (for stdout: exit 1 when output was lost). */
  void (*emit)(zsink *s, const zagent_event *ev);
  /* Flushes; returns 0 or -1 when output could not be written. */
  int (*finish)(zsink *s);
  void (*destroy)(zsink *s);
  /* Optional (NULL = never): -1 with err once the sink lost an event the run
   * must not go on without (the session recorder on a full disk); the loop
   * then stops before sending or running anything more. */
  int (*check)(zsink *s, zerr *err);
};

/* A new sink object of size bytes whose first member is its zsink: zeroed,
 * then the zsink set to methods. For a sink's constructor:
 *   text_sink *s = zsink_new(sizeof *s, (zsink){.emit = …, .finish = …, .destroy = …});
 * Never NULL (aborts when out of memory, like xcalloc). */
void *zsink_new(size_t size, zsink methods);
/* The destroy method of a sink that owns nothing beyond its own object. */
void zsink_free(zsink *s);

#endif
