/* completion_gate.h — whether a final answer ends the run.
 *
 * Go zero's headless policy: in `zero exec` a run is complete only when the
 * model answers without pending work (open update_plan items, a command
 * session still running). Otherwise the loop sends a bounded continuation
 * nudge (at most ZGATE_MAX_CONTINUE); once those are spent and work is still
 * open the run ends incomplete (exit 4) instead of claiming success. A run
 * whose profile asks for it (`verify`, the built-in `thorough`) gets one
 * acceptance-verification nudge carrying the task objective before a final
 * answer after edits is accepted — unless a command already ran after the
 * last edit. The TUI and --no-completion-gate leave the gate off.
 *
 * Life cycle: zero-initialise a zgate, set enabled / verify, feed every tool
 * result to zgate_note_tool and every final answer to zgate_judge. No
 * allocation; nothing to release.
 */
#ifndef ZERO_AGENT_COMPLETION_GATE_H
#define ZERO_AGENT_COMPLETION_GATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

#define ZGATE_MAX_CONTINUE 2

typedef enum zgate_action {
  ZGATE_ACCEPT,     /* the run is complete */
  ZGATE_CONTINUE,   /* send the nudge, run another turn */
  ZGATE_VERIFY,     /* send the acceptance-verification nudge, run another turn */
  ZGATE_INCOMPLETE, /* nudges spent, work still open: the run ends incomplete */
} zgate_action;

typedef struct zgate {
  bool enabled;        /* zero exec without --no-completion-gate */
  bool verify;         /* the profile asks for the verification nudge */
  int continue_nudges; /* continuation nudges sent so far */
  bool verify_sent;
  bool edited;             /* a tool changed files in this run */
  bool checked_since_edit; /* a command succeeded after the last change */
} zgate;

/* The work a final answer leaves behind. */
typedef struct zgate_work {
  size_t open_plan_items;  /* pending or in_progress */
  const char *first_open;  /* the first open step (borrowed), or NULL */
  size_t running_sessions; /* exec_command sessions not yet reported finished */
} zgate_work;

/* Counts the open items (pending / in_progress after normalisation) of an
 * update_plan plan [{step, status}] into w. plan may be NULL. */
void zgate_plan_work(const json_t *plan, zgate_work *w);

/* Remembers what a finished tool call means for the gate: a call that
 * changed files is an edit; a successful exec_command / write_stdin after
 * it is a check. */
void zgate_note_tool(zgate *g, const char *name, bool ok, bool changed_files);

/* Judges a final answer. CONTINUE and VERIFY append the message to send to
 * nudge (objective: the task objective, may be NULL); INCOMPLETE appends the
 * reason the run stops. A disabled gate always accepts. */
zgate_action zgate_judge(zgate *g, const zgate_work *w, const char *objective, zbuf *nudge);

#endif
