/* runner.h — the local back end of `zero batch`: the tasks run as `zero exec
 * --output-format stream-json` workers (daemon/worker.h: own process group,
 * sandbox markers removed so each sets up its own sandbox), at most jobs at a
 * time, on one poll loop (daemon/evloop.h). Each finished task appends its
 * line to the results file (batch/result.h) at once; a progress line goes to
 * stderr after each start and end.
 *
 * A task's failure is a result, not retried: rerunning it is the user's call
 * (remove its line and --resume-batch). A task whose worker cannot start
 * (its cwd is missing) is failed with exit code 127 and the reason.
 */
#ifndef ZERO_BATCH_RUNNER_H
#define ZERO_BATCH_RUNNER_H

#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "batch/task.h"

typedef struct zbatch_opts {
  int jobs;               /* parallel workers, >= 1 */
  const char *worker_exe; /* zero itself, or $ZERO_BATCH_WORKER_EXE in tests */
  int results_fd;         /* O_APPEND descriptor of results.jsonl */
  FILE *progress;         /* stderr, or NULL for none */
  bool progress_tty;      /* rewrite one line (\r) instead of printing lines */
} zbatch_opts;

typedef struct zbatch_counts {
  int total, succeeded, failed;
  bool write_failed; /* a result could not be written (err says why) */
} zbatch_counts;

/* Runs every task of tasks (skip[i] true: not run), filling counts.
 * Returns 0, or -1 with err when the loop itself failed or a result could
 * not be written (the running tasks are then finished first). */
int zbatch_run(const zbatch_task *tasks, const bool *skip, size_t n, const zbatch_opts *o,
               zbatch_counts *counts, zerr *err);

#endif
