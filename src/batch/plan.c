/* plan.c — which tasks get a worktree (rule in plan.h). */
#include "batch/plan.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "subagent/worktree.h"

static const char *task_dir(const zbatch_task *t) { return t->cwd ? t->cwd : "."; }

/* repos[i]: task i's repository (NULL: none, or the task does not run or
 * refused a worktree). Tasks with one directory share one git lookup. */
static char **find_repos(const zbatch_task *tasks, const bool *skip, size_t n) {
  char **repos = xcalloc(n ? n : 1, sizeof *repos);
  bool *looked = xcalloc(n ? n : 1, sizeof *looked);
  for (size_t i = 0; i < n; i++) {
    if ((skip && skip[i]) || tasks[i].worktree == 0) continue;
    looked[i] = true;
    size_t j = 0;
    while (j < i && !(looked[j] && !strcmp(task_dir(&tasks[j]), task_dir(&tasks[i])))) j++;
    if (j < i) {
      repos[i] = repos[j] ? xstrdup(repos[j]) : NULL;
      continue;
    }
    /* A repository without a commit cannot branch: no worktree offered. */
    if (zwt_in_repo(task_dir(&tasks[i]))) repos[i] = zwt_repo_of(task_dir(&tasks[i]));
  }
  free(looked);
  return repos;
}

void zbatch_plan_worktrees(zbatch_task *tasks, const bool *skip, size_t n) {
  char **repos = find_repos(tasks, skip, n);
  for (size_t i = 0; i < n; i++) {
    if (skip && skip[i]) {
      if (tasks[i].worktree < 0) tasks[i].worktree = 0;
      continue;
    }
    if (tasks[i].worktree >= 0) continue;
    bool shared = false;
    for (size_t j = 0; j < n && !shared && repos[i]; j++)
      shared = j != i && repos[j] && !strcmp(repos[i], repos[j]);
    tasks[i].worktree = shared;
  }
  for (size_t i = 0; i < n; i++) free(repos[i]);
  free(repos);
}
