/* judge.c — see judge.h. */
#include "agent/judge.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "agent/loop.h"
#include "agent/trace.h"
#include "exec/proc.h"

void zjudge_init(zjudge *j, zagent *a) {
  memset(j, 0, sizeof *j);
  j->agent = a;
  j->gate.enabled = a->completion_gate;
  j->gate.verify = a->verify_edits;
  zguard_init(&j->guard);
  j->guard.max_consecutive = a->max_consecutive_failures;
  zbuf_init(&j->why);
}

void zjudge_release(zjudge *j) {
  zguard_release(&j->guard);
  zbuf_release(&j->why);
}

void zjudge_tool(zjudge *j, const ztool_call *call, bool ok, bool changed_files) {
  zgate_note_tool(&j->gate, call->name, ok, changed_files);
  ztrace_note_tool(j->agent->trace, ok, changed_files);
  if (!j->halted && zguard_note_result(&j->guard, call->name, call->arguments, ok, &j->why))
    j->halted = true;
}

void zjudge_turn(zjudge *j, const zmsg *m) {
  if (!j->halted && zguard_note_turn(&j->guard, m, &j->why)) j->halted = true;
}

/* A nudge is a user message the loop sends: recorded like one (meta.nudge
 * names it, so the task state does not take it for the user's request) and
 * shown to scripts as a warning with a code. */
static void emit_nudge(const zagent *a, const char *code, const char *text) {
  json_t *meta = json_pack("{s:s}", "nudge", code);
  zagent_event um = {.kind = ZAEV_USER_MESSAGE,
                     .user_message = {.text = text, .len = strlen(text), .meta = meta}};
  zagent_emit(a, &um);
  json_decref(meta);
  zagent_event w = {.kind = ZAEV_WARNING, .warning = {.message = text, .code = code}};
  zagent_emit(a, &w);
}

zgate_action zjudge_final(zjudge *j, zconv *conv) {
  zagent *a = j->agent;
  zgate_work work = {0};
  if (j->gate.enabled) {
    zgate_plan_work(a->tools ? a->tools->plan : NULL, &work);
    work.running_sessions = zexec_table_count(zexec_table_default());
  }
  cleanup_zbuf zbuf nudge = ZBUF_INIT;
  zgate_action act = zgate_judge(&j->gate, &work, a->objective, &nudge);
  /* A last diagnostics check over the touched files (lsp/lsp.h) before an
   * answer after edits is accepted. */
  char *broken = act == ZGATE_ACCEPT && j->gate.edited && a->checks && a->checks->before_final
                     ? a->checks->before_final(a->checks->ud)
                     : NULL;
  if (broken) {
    zconv_add_user(conv, broken);
    emit_nudge(a, "diagnostics_nudge", broken);
    free(broken);
    return ZGATE_CONTINUE;
  }
  if (act == ZGATE_CONTINUE || act == ZGATE_VERIFY) {
    zconv_add_user(conv, nudge.data);
    emit_nudge(a, act == ZGATE_CONTINUE ? "completion_nudge" : "verification_nudge", nudge.data);
    ztrace_count(a->trace, act == ZGATE_CONTINUE ? ZTC_COMPLETION_NUDGES : ZTC_ACCEPTANCE_CHECKS,
                 1);
  } else if (act == ZGATE_INCOMPLETE) {
    zbuf_reset(&j->why);
    zbuf_add(&j->why, nudge.data, nudge.len);
  }
  return act;
}
