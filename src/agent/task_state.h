/* task_state.h — what a run is trying to do and how far it got.
 *
 * The objective (the session's first prompt), the latest request, the plan
 * (from update_plan, statuses normalised), tool successes and failures and
 * the files changed. Tracked by a sink that watches the agent's events, saved
 * in the session metadata (key "taskState") and in every compaction event,
 * and written verbatim into the preserved-state block of a compaction summary
 * so that compaction never forgets the task.
 */
#ifndef ZERO_AGENT_TASK_STATE_H
#define ZERO_AGENT_TASK_STATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/events.h"
#include "base/buf.h"
#include "base/err.h"

#define ZTASK_OBJECTIVE_MAX 512 /* bytes, cut on a UTF-8 boundary */
#define ZTASK_FILES_MAX 50      /* changed files kept (most recent) */
#define ZTASK_FAILURES_MAX 5    /* recent failures kept */

typedef struct ztask_state {
  char *objective;          /* first prompt of the session; NULL until known */
  char *latest_request;     /* this run's prompt when it differs; may be NULL */
  json_t *plan;             /* [{step, status}] with canonical statuses */
  int64_t tool_ok;
  int64_t tool_failed;
  json_t *changed_files;    /* [path], unique, oldest first */
  json_t *failures;         /* [{tool, message}], newest last */
} ztask_state;

void ztask_init(ztask_state *t);
void ztask_release(ztask_state *t);

/* Canonical plan status for the words models use: "completed" (done,
 * complete, finished, ok, ✓), "in_progress" (wip, doing, active, started,
 * in progress, in-progress, ongoing), "blocked" (stuck, waiting), "cancelled"
 * (canceled, skipped, dropped), and "pending" for anything else (todo,
 * not started, …). Case and separators are ignored. */
const char *ztask_normalize_status(const char *word);

/* Sets the objective when none is set (cut to ZTASK_OBJECTIVE_MAX), else
 * records text as the latest request. */
void ztask_note_prompt(ztask_state *t, const char *text);
/* Replaces the plan with a normalised copy of plan ([{step, status}]). */
void ztask_set_plan(ztask_state *t, const json_t *plan);
/* Counts a tool result; a successful write tool's meta.path joins the
 * changed files; a failure is remembered (first 200 bytes). */
void ztask_note_tool(ztask_state *t, const char *tool, bool ok, const json_t *meta,
                     const char *output);

/* {objective, latestRequest?, plan, toolCalls:{ok, failed}, changedFiles,
 * recentFailures}. New reference. */
json_t *ztask_to_json(const ztask_state *t);
/* Loads a saved state (missing fields stay empty). */
void ztask_from_json(ztask_state *t, const json_t *j);

/* The preserved-state block of a compaction summary, appended to out:
 * objective, latest request, plan, recent file edits, tool tallies, project
 * instructions (paths) and loaded skills (names); either array may be NULL. */
void ztask_preserved_block(const ztask_state *t, const json_t *instructions,
                           const json_t *skills, zbuf *out);

/* Rebuilds t (which must be freshly initialised) from a session's log, as
 * the runs that wrote it would have: user messages (objective, latest
 * request), tool results (tallies, failures), update_plan calls that
 * succeeded (the plan) and checkpoints (the files changed by write tools).
 * Used after a rewind cut the log, so the saved state does not keep files
 * and steps that no longer happened. */
int ztask_replay(ztask_state *t, const char *root, const char *id, zerr *err);

/* A sink that keeps t up to date from the agent's events. `plan` is the
 * array update_plan writes (ztool_ctx.plan), read after each successful
 * update_plan call. Both borrowed; the sink does not own them. */
zsink *ztask_sink_new(ztask_state *t, const json_t *plan);

#endif
