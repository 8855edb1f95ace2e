/* completion_gate.c — see completion_gate.h. */
#include "agent/completion_gate.h"

#include <string.h>

#include "agent/task_state.h"
#include "base/json.h"

void zgate_plan_work(const json_t *plan, zgate_work *w) {
  size_t i;
  const json_t *item;
  json_array_foreach(plan, i, item) {
    const char *status = ztask_normalize_status(zjson_str(item, "status"));
    if (strcmp(status, "pending") != 0 && strcmp(status, "in_progress") != 0) continue;
    if (!w->open_plan_items) w->first_open = zjson_str(item, "step");
    w->open_plan_items++;
  }
}

void zgate_note_tool(zgate *g, const char *name, bool ok, bool changed_files) {
  if (ok && changed_files) {
    g->edited = true;
    g->checked_since_edit = false;
    return;
  }
  if (ok && g->edited && name && (!strcmp(name, "exec_command") || !strcmp(name, "write_stdin")))
    g->checked_since_edit = true;
}

/* What is still open, in words, for the nudge and the incomplete reason. */
static void describe_open_work(const zgate_work *w, zbuf *out) {
  if (w->open_plan_items) {
    zbuf_addf(out, "%zu plan item%s still open", w->open_plan_items,
              w->open_plan_items == 1 ? " is" : "s are");
    if (w->first_open) zbuf_addf(out, ", next: \"%s\"", w->first_open);
  }
  if (w->running_sessions)
    zbuf_addf(out, "%s%zu command session%s still running", w->open_plan_items ? "; " : "",
              w->running_sessions, w->running_sessions == 1 ? " is" : "s are");
}

static void continue_nudge(const zgate_work *w, zbuf *out) {
  zbuf_addstr(out, "You stopped without calling a tool, but the task is not finished (");
  describe_open_work(w, out);
  zbuf_addstr(out, "). Do not stop here: take the next concrete action with a tool now.");
  if (w->running_sessions)
    zbuf_addstr(out, " Wait for a running session with write_stdin, or stop it by sending "
                     "\"\\u0003\".");
  zbuf_addstr(out, " If you are genuinely finished, first mark the plan complete with "
                   "update_plan, then give your final summary.");
}

/* The objective is quoted as the task state keeps it (at most
 * ZTASK_OBJECTIVE_MAX bytes), so the model re-reads what was asked. */
static void verification_nudge(const char *objective, zbuf *out) {
  zbuf_addstr(out, "Before this task can be marked complete, verify your work against the task's "
                   "stated success criterion: not the shape of your output, and not that "
                   "pre-existing tests pass. Re-read the task, then run a concrete check that "
                   "exercises the requirement (run the tests or the program, or probe the thing "
                   "you changed). If the check passes, reply PASS and cite the evidence; if it "
                   "does not, or you cannot run one, say so plainly and keep working.");
  if (objective && objective[0])
    zbuf_addf(out, "\n\nTask objective: %s; verify the result, e.g. run the tests.", objective);
}

zgate_action zgate_judge(zgate *g, const zgate_work *w, const char *objective, zbuf *nudge) {
  if (!g->enabled) return ZGATE_ACCEPT;
  if (w->open_plan_items || w->running_sessions) {
    if (g->continue_nudges < ZGATE_MAX_CONTINUE) {
      g->continue_nudges++;
      continue_nudge(w, nudge);
      return ZGATE_CONTINUE;
    }
    zbuf_addf(nudge, "the model stopped with work still open after %d continuation nudges (",
              ZGATE_MAX_CONTINUE);
    describe_open_work(w, nudge);
    zbuf_addstr(nudge, "); continue with zero exec --resume, or pass --no-completion-gate to "
                       "accept such answers");
    return ZGATE_INCOMPLETE;
  }
  if (g->verify && g->edited && !g->checked_since_edit && !g->verify_sent) {
    g->verify_sent = true;
    verification_nudge(objective, nudge);
    return ZGATE_VERIFY;
  }
  return ZGATE_ACCEPT;
}
