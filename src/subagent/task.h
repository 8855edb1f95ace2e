/* task.h — the sub-agent tools of a run: task, task_output, task_stop (and
 * ask_user), offered to the agent loop as one tool source (agent/loop.h
 * ztool_source), the way MCP tools are.
 *
 * `task` starts a child zero run (subagent/child.h) for a specialist
 * (subagent/defs.h) and, unless `background` is set, waits for it while
 * forwarding its progress to the parent's sinks (subagent_start, one
 * subagent_event per child event except text deltas, subagent_end); the
 * tool result is the child's final answer alone, its usage and session id
 * in the result's meta. With `background: true` it returns a task id at
 * once; task_output polls (or waits for) the child and task_stop ends it.
 *
 * Depth: a run knows its own depth from ZERO_SUBAGENT_DEPTH (0 for a run a
 * user started); a `task` in a run at the limit (default 2) is refused.
 *
 * Life cycle: zsub_runtime_new after the run's session exists, hand
 * zsub_runtime_source to the agent, zsub_runtime_free at the end of the run:
 * it stops every background child that still runs (whole process groups)
 * and joins their reader threads.
 */
#ifndef ZERO_SUBAGENT_TASK_H
#define ZERO_SUBAGENT_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/loop.h"

typedef struct zsub_runtime_opts {
  const char *workspace;
  const char *const *add_dirs;
  size_t n_add_dirs;
  bool offline;
  const char *session_id; /* the parent's session: the children's parent */
  const char *provider;   /* the parent's profile and model: what "inherit" means */
  const char *model;
  const char *reasoning_effort;
  /* The sub-agent tools this run may use: NULL = all (a run started by a
   * user); a specialist's run gets those its allow-list names. */
  const char *const *allowed;
  bool restricted; /* allowed applies (even when empty) */
  /* ask_user's answer: the user's reply (caller frees), or NULL when no
   * user is available (headless). NULL = never a user. */
  char *(*ask)(void *ud, const char *question, const json_t *choices);
  void *ask_ud;
  int max_team_size; /* swarm.maxTeamSize: members running at once per team (0 = 4) */
  bool swarm;        /* swarm.enabled: the orchestrator's swarm tools are offered */
} zsub_runtime_opts;

typedef struct zsub_runtime zsub_runtime;

/* Copies what it needs from o. */
zsub_runtime *zsub_runtime_new(const zsub_runtime_opts *o);
/* The tool source to put in zagent.sources (points into r). */
const ztool_source *zsub_runtime_source(zsub_runtime *r);
/* The session the next children are children of (the TUI's /new, resume). */
void zsub_runtime_set_session(zsub_runtime *r, const char *session_id);
/* Stops every background child still running, reaps it, frees r. NULL ok. */
/* The run ends: every background task still running is stopped, and each
 * whose end was not reported yet (the model never polled it to its end)
 * reports it now through a (subagent_end on the sinks; the subagentStop hook
 * fires on it). Call before the sinks and the hooks go; r may be NULL. */
void zsub_runtime_end_tasks(zsub_runtime *r, zagent *a);

void zsub_runtime_free(zsub_runtime *r);

/* ---- for a user who watches the run (the TUI's /ps and /stop) ------------------ */

/* The run's background tasks, oldest first, then its started swarm
 * members: [{id, agent, description, status ("running", or how it ended),
 * toolCalls, step?, sessionId, team? (a member's)}]. Any thread. New
 * reference. */
json_t *zsub_runtime_tasks(zsub_runtime *r);
/* Stops background task (or swarm member) id for the user, from a thread other than the
 * worker's: its whole process group is stopped and its child reaped before
 * this returns. With a (the worker idle), the end — subagent_end, status
 * "stopped", with the child's usage — is reported through a now; with a
 * NULL (a turn runs: the worker owns the sinks) it is left for
 * zsub_runtime_report_stopped. Either way it is reported once, even when
 * the model polls the task meanwhile. 0 stopped, 1 it had ended already, -1
 * no such task. */
int zsub_runtime_stop_task(zsub_runtime *r, zagent *a, const char *id);
/* Reports through a the end of each task the user stopped whose end is not
 * reported yet. The worker must be idle. r may be NULL. */
void zsub_runtime_report_stopped(zsub_runtime *r, zagent *a);

/* This process's depth in a delegation chain (ZERO_SUBAGENT_DEPTH, 0 when
 * unset or malformed). */
int zsub_depth(void);
/* The deepest a child may be: ZERO_SUBAGENT_MAX_DEPTH when set (1..8),
 * else 2. */
int zsub_max_depth(void);

#endif
