/* trace.h — `zero exec --trace FILE`: an NDJSON trace of one run, in Go
 * zero's trace format (one JSON object per line, each with a "type"):
 *
 *   {"type":"trace","name":"run","session_id","run_id","profile",
 *    "started_at","completed_at","wall_ms","attributed_ms","coverage"}
 *   {"type":"span","name":"generation"|"tool_execution"|"compaction",
 *    "start","end","duration_ms","exclusive_ms"}          one per occurrence
 *   {"type":"counter","name":…,"value":N}                  sorted by name
 *   {"type":"prefix_hash","turn","system_prompt","tools","schema",
 *    "complete_prefix","stable"}                           one per request
 *   {"type":"task_state","revision","status","plan_pending",
 *    "plan_in_progress","plan_completed","plan_failed","tools_succeeded",
 *    "tools_failed","changed_file_count","completion_decision"}  per turn
 *
 * Hashes are hex SHA-256: system_prompt of the system prompt, tools of the
 * tool names and descriptions in request order, schema of their parameter
 * schemas, complete_prefix of the three; "stable" says whether the prefix is
 * the previous request's (a prompt-cache hit is possible). The trace holds
 * no prompt, output, path or argument text. The lines are written when the
 * run ends (ztrace_finish); the file is opened at the start so a bad path is
 * a usage error before any request.
 *
 * Life cycle: ztrace_open, the ztrace_* stamps from the loop (every one
 * accepts NULL: tracing off costs nothing), ztrace_finish, ztrace_free.
 * Not thread-safe: the loop stamps from its own thread only.
 */
#ifndef ZERO_AGENT_TRACE_H
#define ZERO_AGENT_TRACE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

typedef struct ztrace ztrace;

typedef enum ztrace_counter {
  ZTC_MODEL_REQUESTS,
  ZTC_TOOL_CALLS,
  ZTC_COMPACTION_COUNT,
  ZTC_COMPLETION_NUDGES,
  ZTC_ACCEPTANCE_CHECKS,
  ZTC_MODEL_SWITCHES,
  ZTC_INPUT_TOKENS,
  ZTC_CACHED_INPUT_TOKENS,
  ZTC_OUTPUT_TOKENS,
  ZTC_PREFIX_STABLE,
  ZTC_PREFIX_DRIFT,
  ZTC_COUNT_,
} ztrace_counter;

/* Opens path for writing ("-" = stderr). NULL with a ZE_USAGE error naming
 * the path when it cannot be created. */
ztrace *ztrace_open(const char *path, zerr *err);
/* The run's identity for the summary line (copied; any may be NULL). */
void ztrace_set_run(ztrace *t, const char *session_id, const char *run_id, const char *profile);

/* A span: ztrace_begin returns its start (monotonic ns), ztrace_end records
 * name from then to now. */
int64_t ztrace_begin(const ztrace *t);
void ztrace_end(ztrace *t, const char *name, int64_t began);
void ztrace_count(ztrace *t, ztrace_counter c, int64_t n);

/* The fingerprint of one request's prefix (system prompt + tools). */
void ztrace_prefix(ztrace *t, int turn, const char *system, const json_t *tools);
/* Counts a finished tool call for the task-state lines. */
void ztrace_note_tool(ztrace *t, bool ok, bool changed_files);
/* The task state after a turn: plan (update_plan's [{step,status}], may be
 * NULL), status ("running", "complete", "incomplete", "halted", …) and the
 * completion gate's decision ("" when the turn asked for tools). */
void ztrace_task_state(ztrace *t, int revision, const json_t *plan, const char *status,
                       const char *decision);

/* Writes every line and closes the file. 0, or -1 with err when the trace
 * could not be written. */
int ztrace_finish(ztrace *t, zerr *err);
void ztrace_free(ztrace *t);

#endif
