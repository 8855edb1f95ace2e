/* tui_ps.c — /ps and /stop: what runs in the background of the TUI's run —
 * the background sub-agents and swarm members (subagent/task.h) and the
 * commands the exec process table keeps (exec/proc.h: exec_command past its
 * yield, the write_stdin sessions) — and stopping one, or all, of them.
 *
 * Both run on the UI thread, also while a turn runs. A task is stopped
 * through the sub-agent runtime (its whole process group; the child
 * reaped); its end is recorded once: now through the UI sink and the
 * recorder when the worker is idle, else when the turn ends, since the
 * worker owns the sinks meanwhile. A command is removed from the table
 * (stopped, reaped) when idle; while a turn runs, the worker may be
 * waiting for it, so its group is killed and the worker sees the exit.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/time.h"
#include "cli/tui_controller.h"
#include "exec/proc.h"
#include "subagent/task.h"

/* An agent that reports through the UI sink and the recorder (the worker
 * idle), with the hooks' observer (subagentStop). sinks: room for 2. */
static zagent reporter(tui_controller *c, zsink **sinks) {
  sinks[0] = &c->sink;
  sinks[1] = c->recorder;
  return (zagent){.sinks = sinks, .nsinks = c->recorder ? 2 : 1, .gate = c->worker.agent.gate};
}

/* --- /ps ------------------------------------------------------------------- */

static size_t list_tasks(tui_controller *c) {
  json_t *tasks = c->rs.subagents ? zsub_runtime_tasks(c->rs.subagents) : json_array();
  size_t i;
  json_t *t;
  json_array_foreach(tasks, i, t) {
    if (!i) tui_say(c, "Background tasks:");
    int calls = (int)zjson_int_or(t, "toolCalls", 0);
    const char *step = zjson_str(t, "step"), *team = zjson_str(t, "team");
    tui_say(c, "  %-6s %-8s %s · %s%s%s · %d tool call%s%s%s", zjson_str_or(t, "id", ""),
            zjson_str_or(t, "status", ""), zjson_str_or(t, "agent", ""),
            zjson_str_or(t, "description", ""), team ? " of swarm team " : "", team ? team : "",
            calls, calls == 1 ? "" : "s", step ? ", now " : "", step ? step : "");
  }
  size_t n = json_array_size(tasks);
  json_decref(tasks);
  return n;
}

static size_t list_commands(tui_controller *c) {
  zexec_proc_info *v;
  size_t n = zexec_table_list(zexec_table_default(), &v), shown = 0;
  int64_t now = ztime_mono_ms();
  for (size_t i = 0; i < n; i++) {
    if (!v[i].running) continue; /* ended: its output waits for the model, nothing runs */
    if (!shown++) tui_say(c, "Commands:");
    tui_say(c, "  %-6d running  %llds · pid %d · %s", v[i].id,
            (long long)((now - v[i].started_ms) / 1000), (int)v[i].pid, v[i].label);
  }
  zexec_proc_infos_free(v, n);
  return shown;
}

void tui_ps_list(tui_controller *c, const char *arg) {
  (void)arg;
  size_t n = list_tasks(c) + list_commands(c);
  if (!n) tui_say(c, "Nothing runs in the background.");
  else tui_say(c, "Stop one with /stop ID, or everything with /stop all.");
}

/* --- /stop ----------------------------------------------------------------- */

/* Stops task id; says what happened. false when there is no such task. */
static bool stop_task(tui_controller *c, const char *id) {
  if (!c->rs.subagents) return false;
  zsink *sinks[2];
  zagent rep = reporter(c, sinks);
  int rc = zsub_runtime_stop_task(c->rs.subagents, c->worker.running ? NULL : &rep, id);
  if (rc < 0) return false;
  if (rc == 0) tui_say(c, "⊘ Stopped task %s and every process it started.", id);
  else tui_say(c, "Task %s had already ended.", id);
  return true;
}

/* Stops command session id; false when the table holds none. */
static bool stop_command(tui_controller *c, int id) {
  zexec_table *t = zexec_table_default();
  if (c->worker.running) { /* the worker may wait for it: kill, it sees the exit */
    if (zexec_table_kill(t, id) < 0) return false;
  } else {
    zexec_proc *p = zexec_table_get(t, id);
    if (!p) return false;
    zexec_table_remove(t, p);
  }
  tui_say(c, "⊘ Stopped command %d and its process group.", id);
  return true;
}

static void stop_all(tui_controller *c) {
  size_t n = 0;
  json_t *tasks = c->rs.subagents ? zsub_runtime_tasks(c->rs.subagents) : json_array();
  size_t i;
  json_t *t;
  json_array_foreach(tasks, i, t) {
    if (!strcmp(zjson_str_or(t, "status", ""), "running"))
      n += stop_task(c, zjson_str_or(t, "id", ""));
  }
  json_decref(tasks);
  zexec_proc_info *v;
  size_t np = zexec_table_list(zexec_table_default(), &v);
  for (size_t k = 0; k < np; k++)
    if (v[k].running) n += stop_command(c, v[k].id);
  zexec_proc_infos_free(v, np);
  if (!n) tui_say(c, "Nothing runs in the background.");
}

/* Stops what id names: "bg-N" a task, a number a command. */
static void stop_one(tui_controller *c, const char *id) {
  char *end;
  long n = strtol(id, &end, 10);
  bool number = end != id && !*end && n > 0 && n < 1L << 30;
  bool found = number ? stop_command(c, (int)n) : stop_task(c, id);
  if (!found) tui_say(c, "✗ Nothing named \"%s\" runs in the background; /ps lists what does.", id);
}

void tui_ps_stop(tui_controller *c, const char *arg) {
  if (!*arg) {
    tui_say(c, "Usage: /stop ID (a task or command /ps lists) or /stop all.");
    return;
  }
  /* A task waiting for the user's answer could not end while this waits for
   * it: questions and approvals are refused meanwhile (one on the screen is
   * withdrawn). */
  tui_exchange_refuse(&c->asker.ex, true);
  tui_exchange_refuse(&c->approver.ex, true);
  if (!strcmp(arg, "all")) stop_all(c);
  else stop_one(c, arg);
  tui_exchange_refuse(&c->approver.ex, false);
  tui_exchange_refuse(&c->asker.ex, false);
  if (c->question_open && !tui_asker_awaits(&c->asker, c->question_seq)) {
    tui_question_close(c);
    tui_say(c, "(The open question was withdrawn.)");
  }
  if (c->app.prompt.active && !c->app.prompt.trust && !tui_exchange_waiting(&c->approver.ex))
    c->app.prompt.active = false; /* denied while the task stopped */
}

void tui_ps_turn_done(tui_controller *c) {
  zsink *sinks[2];
  zagent rep = reporter(c, sinks);
  zsub_runtime_report_stopped(c->rs.subagents, &rep);
}
