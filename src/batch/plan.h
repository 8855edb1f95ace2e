/* plan.h — which tasks of a batch get a git worktree of their own.
 *
 * Two tasks that work in one repository at once would edit the same
 * checkout; a worktree each (subagent/worktree.h, made and ended by the
 * task's own `zero exec --worktree`) keeps them apart, and each task's
 * changes end up on a branch of their own. The rule, per task:
 *
 *   "worktree": true    a worktree (exec fails the task, naming the reason,
 *                       when its directory is not in a repository with a
 *                       commit)
 *   "worktree": false   its directory itself, shared or not
 *   left out            a worktree when another task of the batch that
 *                       runs (not skipped, not false) is in the same
 *                       repository (a folder of it or a linked worktree of
 *                       it) and the repository has a commit; else its
 *                       directory
 *
 * The rule does not depend on -j: with -j 1 tasks do not race, but each
 * still leaves its changes on its own branch rather than on top of the
 * previous task's.
 */
#ifndef ZERO_BATCH_PLAN_H
#define ZERO_BATCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "batch/task.h"

/* Resolves every task's worktree field left out (-1) to 0 or 1 by the rule
 * above; skip[i] true (may be NULL): task i does not run (it is resolved to
 * 0 and does not count as sharing). Runs git once per distinct directory. */
void zbatch_plan_worktrees(zbatch_task *tasks, const bool *skip, size_t n);

#endif
