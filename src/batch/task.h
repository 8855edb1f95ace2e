/* task.h — the tasks file of `zero batch` (docs/batch.md): JSON Lines, one
 * task a line:
 *
 *   {"id": "fix-1", "prompt": "…", "cwd": "services/api", "model": "…",
 *    "permissionMode": "auto-edit"}
 *
 *   id              required, unique in the file: 1–128 characters from
 *                   [A-Za-z0-9._-] (it names the task in results.jsonl)
 *   prompt          required, non-empty
 *   cwd             the task's directory (relative to the batch's current
 *                   directory); "repository" is accepted as its synonym,
 *                   one of the two at most
 *   model           optional: `zero exec --model`
 *   permissionMode  optional: `zero exec --permission-mode` (the worker
 *                   judges the value, as `zero exec` does for a user)
 *   worktree        optional boolean: true runs the task in a git worktree
 *                   of its own (`zero exec --worktree`), false in its
 *                   directory itself; left out, batch/plan.h decides (a
 *                   worktree when the task shares its repository)
 * Blank lines and lines starting with '#' are skipped. A bad line is one
 * error naming its line number; it does not stop the other lines.
 */
#ifndef ZERO_BATCH_TASK_H
#define ZERO_BATCH_TASK_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/strvec.h"

#define ZBATCH_ID_MAX 128
#define ZBATCH_LINE_MAX (1u << 20) /* a task line over 1 MiB is refused */

typedef struct zbatch_task {
  char *id;     /* owned */
  char *prompt; /* owned */
  char *cwd;    /* owned, or NULL: the batch's directory */
  char *model;  /* owned, or NULL */
  char *mode;   /* owned, or NULL */
  int worktree; /* 1 true, 0 false, -1 not given (zbatch_plan_worktrees decides) */
  int line;     /* 1-based line in the tasks file */
} zbatch_task;

/* The tasks of a file, in file order, and the problems of its bad lines. */
typedef struct zbatch_tasks {
  zbatch_task *v;
  size_t n, cap;
  strvec problems; /* "FILE:LINE: reason", one per bad line */
} zbatch_tasks;

/* Parses one line (len bytes, no newline) numbered lineno into t. Returns
 * 0, or -1 with err (ZE_INVALID) saying what is wrong with the line. */
int zbatch_task_parse(const char *line, size_t len, int lineno, zbatch_task *t, zerr *err);

void zbatch_task_release(zbatch_task *t);

/* Reads every line of path into ts (zero-initialised by the caller): good
 * tasks into v, bad lines (malformed, over the cap, a duplicate id) into
 * problems. Returns -1 with err only when the file cannot be read. */
int zbatch_tasks_load(const char *path, zbatch_tasks *ts, zerr *err);

void zbatch_tasks_release(zbatch_tasks *ts);

/* Appends n tasks to out as JSON Lines (id, prompt, cwd, model,
 * permissionMode), line i for task i: the tasks file a cluster job reads by
 * index. A cwd is made absolute against base (the submitter's directory);
 * with base NULL it is kept as given (absent: the job's own directory). */
void zbatch_tasks_jsonl(const zbatch_task *v, size_t n, const char *base, zbuf *out);

#endif
