/* result.h — one line of results.jsonl, built from a worker's stream-json
 * output, and the ids a results file already holds (--resume-batch).
 *
 * A line: {"id", "exitCode", "status": "succeeded"|"failed", "sessionId",
 * "finalAnswer", "usage": {"promptTokens","completionTokens","totalTokens"}
 * (summed over the run's usage events), "durationMs", "error" (the last error
 * event's message, when there was one), "worktree": {"path", "branch"} (the
 * task's git worktree, when it was kept because the task changed it)}.
 * Each line is written with one write(2) on an O_APPEND descriptor, so a
 * batch killed half-way leaves whole lines behind and --resume-batch goes on
 * from them.
 */
#ifndef ZERO_BATCH_RESULT_H
#define ZERO_BATCH_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/strvec.h"

typedef struct zbatch_result {
  char *session_id; /* owned, NULL until run_start */
  char *final;      /* owned, NULL until a final event */
  char *error;      /* owned: the last error event's message, or NULL */
  char *worktree_path, *worktree_branch; /* owned: a kept worktree, or NULL */
  int64_t prompt_tokens, completion_tokens, total_tokens;
} zbatch_result;

/* Takes what matters from one stream-json line (other lines are ignored). */
void zbatch_result_feed(zbatch_result *r, const char *line, size_t len);

/* Appends the results.jsonl line of task id to fd (one write). Returns 0,
 * or -1 with err. */
int zbatch_result_write(int fd, const char *id, const zbatch_result *r, int exit_code,
                        int64_t duration_ms, zerr *err);

void zbatch_result_release(zbatch_result *r);

/* The ids in the results file at path into ids (a missing file: none).
 * A line that is not a result (a torn last line) is skipped. Returns -1
 * with err when the file exists but cannot be read. */
int zbatch_results_ids(const char *path, strvec *ids, zerr *err);

#endif
