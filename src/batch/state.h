/* state.h — the state directory of a batch that runs on a cluster
 * scheduler (`zero batch --slurm --state-dir DIR`, `--k8s`): a folder on a
 * filesystem every node shares, where the submitting zero leaves the tasks
 * and each job leaves its result and session.
 *
 *   DIR/tasks.jsonl        the batch's good tasks, one a line, in file order;
 *                          line N is array index N; cwd made absolute
 *   DIR/batch.json         {"backend", "jobId", "tasks", "submittedAt"}
 *   DIR/job.sh             (Slurm) the array's batch script
 *   DIR/results/N.jsonl    task N's results.jsonl line, written by its job
 *   DIR/logs/N.out, N.err  (Slurm) the job's output
 *   DIR/data/              the jobs' XDG_DATA_HOME: their sessions are in
 *                          DIR/data/zero/sessions
 *   DIR/results.jsonl      `zero batch collect DIR`: every result, in task order
 *
 * The directory is made 0700 (prompts and sessions are the user's).
 */
#ifndef ZERO_BATCH_STATE_H
#define ZERO_BATCH_STATE_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"
#include "batch/task.h"

/* Creates dir (and results/, logs/, data/) and writes tasks.jsonl from
 * tasks; a relative task cwd is resolved against base (the submitter's
 * directory). Refuses a dir that already holds tasks.jsonl (ZE_USAGE: a
 * state directory holds one batch). */
int zbatch_state_prepare(const char *dir, const zbatch_task *tasks, size_t n, const char *base,
                         zerr *err);

/* Task index of the tasks file path (a tasks.jsonl of good tasks, as
 * zbatch_tasks_jsonl writes: a Kubernetes ConfigMap's) into *t.
 * ZE_NOT_FOUND past the end. */
int zbatch_tasks_file_task(const char *path, long index, zbatch_task *t, zerr *err);

/* Task index of dir's tasks.jsonl into *t. ZE_NOT_FOUND past the end. */
int zbatch_state_task(const char *dir, long index, zbatch_task *t, zerr *err);

/* Every task of dir's tasks.jsonl, in index order, read once, into ts
 * (zero-initialised by the caller; zbatch_tasks_release). -1 with err when
 * the file cannot be read or a line of it is damaged (indices would shift). */
int zbatch_state_tasks(const char *dir, zbatch_tasks *ts, zerr *err);

/* DIR/results/N.jsonl; caller frees. */
char *zbatch_state_result_path(const char *dir, long index);

/* Task index's result line (a new object), or NULL when it has none yet. */
json_t *zbatch_state_result(const char *dir, long index);

/* batch.json: written once at submission, read by status/collect. */
int zbatch_state_save_info(const char *dir, json_t *info, zerr *err);
json_t *zbatch_state_load_info(const char *dir, zerr *err);

#endif
