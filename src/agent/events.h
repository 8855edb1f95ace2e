/* events.h — what the agent loop reports while it runs.
 *
 * The loop emits one zagent_event per step to every sink (output writer,
 * session recorder). Field use per kind mirrors stream-json schema v2
 * (docs/stream-json.md): only the fields listed for a kind are meaningful.
 * Strings are borrowed for the duration of the call.
 */
#ifndef ZERO_AGENT_EVENTS_H
#define ZERO_AGENT_EVENTS_H

#include <jansson.h>
#include <stdbool.h>

#include "provider/provider.h"

typedef enum zagent_event_kind {
  ZAEV_RUN_START,           /* session_id, cwd, provider, model, api_model */
  ZAEV_USER_MESSAGE,        /* text (recorded, not shown by stream-json) */
  ZAEV_REASONING,           /* text / len */
  ZAEV_TEXT,                /* text / len */
  ZAEV_ASSISTANT_MESSAGE,   /* text, reasoning: the whole assistant turn (record) */
  ZAEV_TOOL_CALL,           /* id, name, arguments, side_effect */
  ZAEV_PERMISSION_REQUEST,  /* id, name, side_effect, action, reason, mode */
  ZAEV_PERMISSION_DECISION, /* id, name, side_effect, action (allow|deny), reason, mode,
                             * code (the engine's decision code), block (denials),
                             * grant (when a grant decided or the user's answer made one);
                             * both permission kinds also: permission, autonomy,
                             * decision_reason, risk, grant_matched */
  ZAEV_TOOL_RESULT,         /* id, name, ok, text (output), truncated, meta, changed_files */
  ZAEV_USAGE,               /* usage, model */
  ZAEV_FINAL,               /* text */
  ZAEV_WARNING,             /* text; code and meta when machine-readable (e.g.
                             * "sandbox_degraded" with {backend, enforcement, network}) */
  ZAEV_ERROR,               /* code, text, recoverable */
  ZAEV_RUN_END,             /* status, exit_code */
  ZAEV_PROGRESS,            /* id, name (the running tool call), progress, total (< 0:
                               unknown), text (message, may be NULL) */
  ZAEV_COMPACTION,          /* name (method), reason, tokens_before, tokens_after */
  ZAEV_CHECKPOINT,          /* sequence (the session event's), name (the tool), files (JSON
                             * array of the paths saved): a snapshot taken just before a
                             * tool changed files (the session already holds the record) */
  /* Sub-agents (subagent/task.c), each carrying the child's session_id and
   * the parent's call id: */
  ZAEV_SUBAGENT_START,      /* id, name (the definition), session_id, text (description) */
  ZAEV_SUBAGENT_EVENT,      /* id, name, session_id, meta (the child's stream-json event) */
  ZAEV_SUBAGENT_END,        /* id, name, session_id, status, exit_code, usage, text (error) */
  ZAEV_QUESTION,            /* id (the ask_user call), text (the question), meta (choices
                             * array or NULL): the model asks the user */
} zagent_event_kind;

typedef struct zagent_event {
  zagent_event_kind kind;
  const char *text;
  size_t len;
  const char *reasoning;
  const char *thinking;  /* ASSISTANT_MESSAGE: JSON array of thinking blocks to
                          * replay (zmsg.thinking), may be NULL */
  const char *signature; /* TOOL_CALL: thought signature (Gemini), may be NULL */
  const char *session_id;
  const char *cwd;
  const char *provider;
  const char *model;
  const char *api_model;
  const char *id;
  const char *name;
  const char *arguments;
  const char *side_effect;
  const char *action;
  const char *reason;
  const char *mode;
  const char *code;
  const char *status;
  bool ok;
  bool truncated;
  bool recoverable;
  int exit_code;
  const json_t *meta;
  /* Permission decisions. block: the structured denial handed to the model,
   * {code, reason, recoverable, allow} (zperm_block_json); NULL unless denied.
   * grant: {tool, kind, value?, action, scope, source: "saved"|"user"} when a
   * saved grant decided the call or the user's answer created one. */
  const json_t *block;
  const json_t *grant;
  /* Permission events, as Go zero reports them: permission (the tool's
   * default action, as --list-tools shows it), autonomy (low|medium|high),
   * decision_reason (the engine's rule, the decision code), risk ({level,
   * categories, reason}, zperm_risk_json), grant_matched (a saved grant
   * decided). */
  const char *permission;
  const char *autonomy;
  const char *decision_reason;
  const json_t *risk;
  bool grant_matched;
  /* ZAEV_TOOL_RESULT: the files the call changed (JSON array of paths), NULL
   * when none. ZAEV_CHECKPOINT: files, sequence. */
  const json_t *changed_files;
  const json_t *files;
  int64_t sequence;
  zusage usage;
  double progress, total;
  int64_t tokens_before, tokens_after; /* ZAEV_COMPACTION: estimated request tokens */
} zagent_event;

/* A copy of an event that outlives the emit call (a sink that hands events
 * to another thread, as the TUI does): ev points into strings and JSON
 * values the copy owns. */
typedef struct zagent_event_copy {
  zagent_event ev;
  char *strs[21];
  json_t *json[6];
} zagent_event_copy;

/* Copies ev deeply: every string and JSON value. A streamed delta's text
 * (len bytes, not NUL-terminated) becomes a NUL-terminated string and len
 * its strlen; a text with len 0 is copied up to its NUL. Free with
 * zagent_event_copy_free. */
zagent_event_copy *zagent_event_copy_new(const zagent_event *ev);
void zagent_event_copy_free(zagent_event_copy *c);

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

#endif
