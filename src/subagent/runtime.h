/* runtime.h — inside src/subagent/ only: the run's sub-agent runtime
 * (task.h) as task.c and swarm.c share it — the background children, the
 * request a task or a swarm member is started from, and the helpers that
 * start, report and stop them. Nothing outside the module includes it. */
#ifndef ZERO_SUBAGENT_RUNTIME_H
#define ZERO_SUBAGENT_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>

#include "agent/loop.h"
#include "agent/tool_table.h"
#include "subagent/child.h"
#include "subagent/defs.h"
#include "subagent/relay.h"
#include "subagent/task.h"
#include "subagent/worktree.h"

#define MAX_BACKGROUND 16 /* background tasks a run keeps */

struct zsub_swarm;

/* A background task: the child, read by its own thread into outcome. */
typedef struct bg_task {
  char id[48];
  char *agent;
  char *description;
  char *call_id;                   /* the task call that started it: its events carry this id */
  char worktree[ZWT_NAME_MAX + 1]; /* its worktree's name, or "" */
  zsub_child child;
  zsub_outcome outcome; /* guarded by mu */
  pthread_t reader;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done;       /* output ended and the leader was reaped */
  bool stop_asked; /* task_stop or the run's end */
  bool idle_killed;
  bool end_reported; /* subagent_end emitted (exactly once) */
  bool joined;       /* the reader thread was joined */
  int idle_ms;
  zsub_relay_ctx relay; /* how its prompts reach the parent's user (off the worker) */
} bg_task;

struct zsub_runtime {
  ztool_source source;
  char *self_exe;
  char *workspace;
  char **add_dirs;
  size_t n_add_dirs;
  bool offline;
  char *session_id, *provider, *model, *reasoning_effort;
  char **allowed;
  bool restricted;
  int depth, max_depth, idle_ms;
  /* bg[0..nbg): the worker thread adds and removes (under bg_mu); another
   * thread (the TUI's /ps, /stop) reads them under bg_mu only. */
  pthread_mutex_t bg_mu;
  bg_task *bg[MAX_BACKGROUND];
  size_t nbg;
  int bg_started; /* background ids are bg-1, bg-2, … in a run */
  char *(*ask)(void *ud, const char *question, const json_t *choices);
  void *ask_ud;
  /* The task tools (TABLE): their schemas are made on the first request
   * and kept, so the specialists are read from disk once a run, not a turn. */
  ztool_table tools;
  struct zsub_swarm *swarm; /* the teams this run spawned (swarm.c), or NULL */
  ztool_def defs[12];       /* the task tools, then the swarm's (r->table's rows) */
  ztool_table_spec table;
  int max_team_size;        /* members running at once per team (swarm.maxTeamSize) */
  bool swarm_enabled;       /* swarm.enabled: this run may lead a team */
  pthread_mutex_t relay_mu; /* one child's prompt before the parent's user at a time */
};

/* What one task call asks for, checked. */
typedef struct task_req {
  const char *description, *prompt, *agent, *resume;
  bool background;
  char worktree[ZWT_NAME_MAX + 1]; /* the child's worktree name, or "" */
  zsub_defs defs;
  const zsub_def *def;
  char child_id[64];
  const char *const *env; /* extra NAME=VALUE for the child (a swarm member's), or NULL */
} task_req;

/* ---- task.c's helpers ---------------------------------------------------------- */

/* Checks one task's arguments (description, prompt, agent, isolation,
 * resume) against the definitions and the depth limit; q->defs is loaded
 * (release it with zsub_defs_release whatever the result). -1 with res
 * failed. */
int zsub_task_parse(const zsub_runtime *r, const json_t *args, task_req *q, ztool_result *res);
/* Starts q's child in the background with a reader thread and emits
 * subagent_start (call_id's). NULL with res failed. The caller keeps the
 * task and frees it with zsub_bg_free after zsub_bg_stop. */
bg_task *zsub_bg_launch(zsub_runtime *r, zagent *a, const char *call_id, const task_req *q,
                        ztool_result *res);
/* Waits (t->mu held) until t is done or wait_ms passed. */
void zsub_bg_wait_locked(bg_task *t, int64_t wait_ms);
/* t's report (t->mu held): progress while it runs; once done, the final
 * answer, its worktree's branch and diff stat, and the one subagent_end. */
void zsub_bg_report_locked(const zsub_runtime *r, zagent *a, bg_task *t, ztool_result *res);
/* The status word of a finished t (t->mu held): success, crashed, … */
const char *zsub_bg_status_locked(const bg_task *t);
/* Asks t's reader to stop the child's group and joins it. */
void zsub_bg_stop(bg_task *t);
void zsub_bg_free(bg_task *t);

/* ---- swarm.c --------------------------------------------------------------------- */

/* The swarm tools' rows of the runtime's tool table. */
extern const ztool_def zsub_swarm_defs[];
extern const size_t zsub_swarm_ndefs;
/* Whether name is a swarm tool, and whether this run offers it. */
bool zsub_swarm_tool(const char *name);
bool zsub_swarm_offered(const zsub_runtime *r, const char *name);
void zsub_swarm_invoke(zsub_runtime *r, zagent *a, const ztool_call *call, const json_t *args,
                       ztool_result *res);
/* The started members of r's teams, for a user who watches the run: the
 * i-th member that has a run (0, 1, … until NULL), with its team's and its
 * own name (valid while r->bg_mu is held). r->bg_mu held: the worker changes
 * the teams and a member's run only under it. */
bg_task *zsub_swarm_task_at_locked(const zsub_runtime *r, size_t i, const char **team_name,
                                   const char **member_name);
/* Stops every member still running and frees the teams. NULL ok. */
void zsub_swarm_free(struct zsub_swarm *s);

#endif
