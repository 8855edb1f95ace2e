/* tui_spec.c — /plan and /spec in the interactive UI: the agent drafts a
 * plan before anything changes, the user accepts, edits or rejects it.
 *
 * The same spec mode as `zero exec --use-spec` (cli/exec_spec.h): the draft
 * turns run in plan mode (read-only tools) plus write_spec, which writes
 * <workspace>/.zero/specs/<session id>.md; the session's kind is "spec".
 *
 * The flow (tui_spec_flow.state):
 *   OFF       → /plan [prompt]: the mode the user was in is kept (back_mode)
 *               and plan mode set                                → DRAFTING
 *   DRAFTING  a turn drafts; when it ends well the plan is shown with a
 *               choice (a picker: accept / edit / reject)        → REVIEW
 *   REVIEW    accept: back_mode again, the spec sent as the next message
 *               (zexec_spec_build_message)                       → OFF
 *             edit: $VISUAL / $EDITOR on the file, then accept; without an
 *               editor the plan is put in the composer           → EDITING
 *             reject REASON: the reason to the model, which revises the
 *               plan in plan mode                                → DRAFTING
 *             reject (no reason): back_mode, nothing built       → OFF
 *             a message typed instead: feedback for a revision   → DRAFTING
 *   EDITING   Enter writes the composer's text to the file, then accept
 *   any       Shift+Tab, /new, /resume, /fork (another session)  → OFF
 */
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/fs.h"
#include "exec/proc.h"
#include "cli/tui_controller.h"
#include "ui/tui/term.h"
#include "ui/tui/width.h"

#define SPEC_SHOW_MAX (256u * 1024u)

static const char *editor_command(void) {
  const char *e = getenv("VISUAL");
  if (!e || !*e) e = getenv("EDITOR");
  return e && *e ? e : NULL;
}

/* The spec file relative to the workspace when inside it, for messages. */
static const char *spec_rel(const tui_controller *c) {
  const char *p = c->spec.sp.path;
  size_t n = strlen(c->rs.workspace);
  if (p && !strncmp(p, c->rs.workspace, n) && p[n] == '/') return p + n + 1;
  return p ? p : "";
}

/* Closes the choice's picker if it is open. */
static void close_choice(tui_controller *c) {
  const char *cmd = c->app.picker.cmd;
  if (c->app.picker.active && cmd && (!strcmp(cmd, "/plan") || !strcmp(cmd, "/spec")))
    tui_picker_close(&c->app.picker);
}

/* Leaves the flow: the mode it kept comes back. */
static void spec_end(tui_controller *c) {
  if (c->spec.state == TUI_SPEC_OFF) return;
  c->spec.state = TUI_SPEC_OFF;
  if (c->mode == ZPERM_PLAN) tui_mode_set(c, c->spec.back_mode);
  close_choice(c);
}

/* The plan as it is on disk, in a frame in the scrollback. */
static int show_spec(tui_controller *c, const char *title) {
  zbuf body = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (zfs_read_file(c->spec.sp.path, &body, SPEC_SHOW_MAX, &err) < 0) {
    tui_say(c, "✗ Cannot read the %s: %s", c->spec.word, err.msg);
    zbuf_release(&body);
    return -1;
  }
  tui_blank_line(c);
  tw_lines_pushf(&c->app.commit, "%s%s┌ %s%s %s(%s)%s", c->app.th.accent, c->app.th.bold, title,
                 c->app.th.reset, c->app.th.muted, spec_rel(c), c->app.th.reset);
  tw_lines md = {0};
  tui_md_render(body.data ? body.data : "", body.len, c->app.width > 8 ? c->app.width - 2 : 6,
                &c->app.th, &md);
  for (size_t i = 0; i < md.len; i++)
    tw_lines_pushf(&c->app.commit, "%s│%s %s", c->app.th.accent, c->app.th.reset, md.items[i]);
  tw_lines_pushf(&c->app.commit, "%s└%s", c->app.th.accent, c->app.th.reset);
  tw_lines_free(&md);
  zbuf_release(&body);
  return 0;
}

/* The choice, as a picker whose rows run "/plan accept|edit|reject". */
static void open_choice(tui_controller *c) {
  c->spec.state = TUI_SPEC_REVIEW;
  c->spec.asked_reason = false;
  zbuf accept = ZBUF_INIT, edit = ZBUF_INIT, title = ZBUF_INIT, cmd = ZBUF_INIT;
  zbuf_addf(&accept, "Accept — build it now (back to %s mode)", zperm_mode_name(c->spec.back_mode));
  const char *ed = editor_command();
  if (ed) zbuf_addf(&edit, "Edit — open it in %s, then build it", ed);
  else zbuf_addstr(&edit, "Edit — edit it here in the composer, then build it");
  const char *labels[] = {accept.data, edit.data,
                          "Reject — say why: the model revises it (no reason: leave plan mode)"};
  const char *values[] = {"accept", "edit", "reject"};
  zbuf_addf(&title, "The %s is ready (Esc: decide later with /%s)", c->spec.word, c->spec.word);
  zbuf_addf(&cmd, "/%s", c->spec.word);
  tui_app_picker(&c->app, cmd.data, title.data, labels, values, 3);
  zbuf_release(&cmd);
  zbuf_release(&accept);
  zbuf_release(&edit);
  zbuf_release(&title);
}

/* accept: the mode kept, and the spec as the next message. */
static void spec_accept(tui_controller *c) {
  zerr err = ZERR_INIT;
  char *msg = zexec_spec_build_message(&c->spec.sp, &err);
  if (!msg) {
    tui_say(c, "✗ Cannot read the %s: %s", c->spec.word, err.msg);
    return;
  }
  spec_end(c);
  zbuf shown = ZBUF_INIT;
  zbuf_addf(&shown, "Accepted the %s (%s): build it in %s mode.", c->spec.word, spec_rel(c),
            zperm_mode_name(c->mode));
  tui_turn_start_as(c, msg, shown.data);
  zbuf_release(&shown);
  free(msg);
}

/* The terminal is lent to the editor: the live region goes, cooked mode,
 * then raw mode and a full redraw. */
static int run_editor(tui_controller *c, const char *ed, zerr *err) {
  tui_screen_erase_live(&c->app.scr);
  if (c->app.scr.out.len) (void)tui_term_write(c->app.scr.out.data, c->app.scr.out.len);
  zbuf_reset(&c->app.scr.out);
  tui_term_leave();
  /* As git runs core.editor: the value is shell text ("code --wait"), the
   * file an argument of its own, never spliced into that text. */
  zbuf script = ZBUF_INIT;
  zbuf_addf(&script, "%s \"$@\"", ed);
  char *argv[] = {"/bin/sh", "-c", script.data, (char *)ed, c->spec.sp.path, NULL};
  int rc = zexec_run_foreground(argv, err);
  zbuf_release(&script);
  if (tui_term_resume() < 0) c->quit = true; /* the terminal is gone */
  tui_screen_invalidate(&c->app.scr);
  return rc;
}

static void spec_edit(tui_controller *c) {
  const char *ed = editor_command();
  if (!ed) {
    zbuf body = ZBUF_INIT;
    zerr err = ZERR_INIT;
    if (zfs_read_file(c->spec.sp.path, &body, SPEC_SHOW_MAX, &err) < 0) {
      tui_say(c, "✗ Cannot read the %s: %s", c->spec.word, err.msg);
    } else {
      zbuf_rtrim(&body);
      tui_composer_set(&c->app.comp, body.data ? body.data : "");
      c->spec.state = TUI_SPEC_EDITING;
      tui_say(c,
              "Edit the %s in the composer (Shift+Enter: a new line); Enter builds it. /%s "
              "brings the choice back. ($VISUAL or $EDITOR opens your editor instead.)",
              c->spec.word, c->spec.word);
    }
    zbuf_release(&body);
    return;
  }
  zerr err = ZERR_INIT;
  int rc = run_editor(c, ed, &err);
  zbuf body = ZBUF_INIT;
  zerr rerr = ZERR_INIT;
  if (rc < 0) {
    tui_say(c, "✗ %s. Set $VISUAL or $EDITOR to an editor that exists; /%s brings the choice back.",
            err.msg, c->spec.word);
  } else if (rc != 0) {
    tui_say(c, "The editor exited with %d, so the %s was not built; /%s brings the choice back.",
            rc, c->spec.word, c->spec.word);
  } else if (zfs_read_file(c->spec.sp.path, &body, SPEC_SHOW_MAX, &rerr) < 0) {
    tui_say(c, "✗ Cannot read the %s: %s", c->spec.word, rerr.msg);
  } else if (!body.len || strspn(body.data, " \t\r\n") == body.len) {
    tui_say(c, "The %s is empty now; nothing to build. /%s brings the choice back.", c->spec.word,
            c->spec.word);
  } else {
    zbuf t = ZBUF_INIT;
    zbuf_addf(&t, "The edited %s", c->spec.word);
    show_spec(c, t.data);
    zbuf_release(&t);
    spec_accept(c);
  }
  zbuf_release(&body);
}

static void spec_reject(tui_controller *c, const char *reason) {
  if (!*reason) {
    spec_end(c);
    tui_say(c, "Rejected the %s; nothing was built. Back in %s mode (the draft stays in %s).",
            c->spec.word, zperm_mode_name(c->mode), spec_rel(c));
    return;
  }
  zbuf msg = ZBUF_INIT;
  zbuf_addf(&msg,
            "The user rejected the %s in %s: %s\n\nRevise it with this in mind, still without "
            "changing anything, and write the whole revised %s again with write_spec.",
            c->spec.word, spec_rel(c), reason, c->spec.word);
  zbuf shown = ZBUF_INIT;
  zbuf_addf(&shown, "Rejected the %s: %s", c->spec.word, reason);
  c->spec.state = TUI_SPEC_DRAFTING;
  tui_turn_start_as(c, msg.data, shown.data);
  zbuf_release(&msg);
  zbuf_release(&shown);
}

/* The first word of arg when it is one of the review's choices. */
static bool is_choice(const char *arg, const char *word, const char **rest) {
  size_t n = strlen(word);
  if (strncmp(arg, word, n) || (arg[n] && arg[n] != ' ')) return false;
  *rest = arg + n;
  while (**rest == ' ') (*rest)++;
  return true;
}

static void spec_review_command(tui_controller *c, const char *arg) {
  const char *rest = "";
  if (!*arg) open_choice(c);
  else if (is_choice(arg, "accept", &rest)) spec_accept(c);
  else if (is_choice(arg, "edit", &rest)) spec_edit(c);
  else if (is_choice(arg, "reject", &rest)) {
    if (*rest || c->spec.asked_reason) {
      c->spec.asked_reason = false;
      spec_reject(c, rest);
    } else {
      /* chosen in the picker: the reason is typed after it */
      c->spec.asked_reason = true;
      zbuf line = ZBUF_INIT;
      zbuf_addf(&line, "/%s reject ", c->spec.word);
      tui_composer_set(&c->app.comp, line.data);
      zbuf_release(&line);
      tui_say(c,
              "Say why after /%s reject and press Enter: the model revises the %s. Enter with "
              "no reason leaves plan mode without building anything.",
              c->spec.word, c->spec.word);
    }
  } else {
    /* anything else is what to change: a revision */
    c->spec.state = TUI_SPEC_DRAFTING;
    tui_turn_start(c, arg);
  }
}

void tui_spec_command(tui_controller *c, const char *word, const char *arg) {
  if (c->spec.state == TUI_SPEC_REVIEW || c->spec.state == TUI_SPEC_EDITING) {
    if (c->spec.state == TUI_SPEC_EDITING) c->spec.state = TUI_SPEC_REVIEW;
    spec_review_command(c, arg);
    return;
  }
  if (c->spec.state == TUI_SPEC_OFF) {
    c->spec.word = !strcmp(word, "spec") ? "spec" : "plan";
    /* plain plan mode (Shift+Tab) cannot build: the build then asks */
    c->spec.back_mode = c->mode == ZPERM_PLAN ? ZPERM_ASK : c->mode;
    c->spec.state = TUI_SPEC_DRAFTING;
    c->spec.asked_reason = false;
    tui_mode_set(c, ZPERM_PLAN);
    tui_say(c,
            "Plan mode: the agent reads (read-only tools) and drafts a %s; you accept, edit or "
            "reject it before anything changes. Shift+Tab leaves it.%s",
            c->spec.word, *arg ? "" : " Say what to plan.");
  } else if (!*arg) {
    if (c->app.plan) {
      c->app.plan_changed = true;
      tui_app_turn_end(&c->app, NULL);
    } else {
      tui_say(c, "Drafting a %s: say what to plan (Shift+Tab leaves plan mode).", c->spec.word);
    }
  }
  if (*arg) tui_turn_start(c, arg);
}

void tui_spec_prepare_turn(tui_controller *c, zagent *agent) {
  c->spec.draft_turn = false;
  if (c->spec.state == TUI_SPEC_REVIEW || c->spec.state == TUI_SPEC_EDITING) {
    /* a message instead of a choice: what to change, so a revision */
    c->spec.state = TUI_SPEC_DRAFTING;
    close_choice(c);
  }
  if (c->spec.state != TUI_SPEC_DRAFTING || c->app.status.side_chat || !c->rs.store.session) return;
  zerr err = ZERR_INIT;
  if (!c->spec.sp.path) {
    if (zexec_spec_begin(&c->spec.sp, &c->rs, &err) < 0)
      tui_warn(c, err.msg); /* the kind is a label: the draft goes on */
    free(c->spec.session_id);
    c->spec.session_id = xstrdup(c->rs.store.session->id);
  }
  c->spec.sp.written = false; /* this turn's answer is the spec unless it calls write_spec */
  size_t n = 0;
  for (size_t i = 0; i < agent->nsources && n + 1 < ZARRAY_LEN(c->spec.sources); i++)
    c->spec.sources[n++] = agent->sources[i];
  c->spec.sources[n++] = c->spec.sp.source;
  agent->sources = c->spec.sources;
  agent->nsources = n;
  agent->completion_gate = false; /* a draft leaves its plan open on purpose */
  agent->system_prompt = zexec_spec_draft_prompt(&c->spec.sp, agent->system_prompt);
  c->spec.draft_turn = true;
}

void tui_spec_turn_done(tui_controller *c) {
  if (!c->spec.draft_turn) return;
  c->spec.draft_turn = false;
  if (c->spec.state != TUI_SPEC_DRAFTING || c->worker.status != ZRUN_SUCCESS) return;
  zerr err = ZERR_INIT;
  if (zexec_spec_drafted(&c->spec.sp, c->worker.agent.final_text, c->rs.store.session->id, &err) <
      0) {
    tui_say(c, "The model wrote no %s yet (no write_spec call and no answer); say what to plan.",
            c->spec.word);
    return;
  }
  zbuf t = ZBUF_INIT;
  zbuf_addf(&t, "The %s", c->spec.word);
  if (show_spec(c, t.data) == 0) open_choice(c);
  zbuf_release(&t);
}

bool tui_spec_take_submit(tui_controller *c, const char *text) {
  if (c->spec.state != TUI_SPEC_EDITING) return false;
  zerr err = ZERR_INIT;
  size_t n = strlen(text);
  zbuf body = ZBUF_INIT;
  zbuf_add(&body, text, n);
  zbuf_addch(&body, '\n');
  if (zfs_write_atomic(c->spec.sp.path, body.data, body.len, 0644, &err) < 0) {
    tui_say(c, "✗ Cannot save the edited %s: %s", c->spec.word, err.msg);
    tui_composer_set(&c->app.comp, text); /* not lost */
  } else {
    zbuf t = ZBUF_INIT;
    zbuf_addf(&t, "The edited %s", c->spec.word);
    show_spec(c, t.data);
    zbuf_release(&t);
    c->spec.state = TUI_SPEC_REVIEW;
    spec_accept(c);
  }
  zbuf_release(&body);
  return true;
}

void tui_spec_mode_changed(tui_controller *c) {
  if (c->spec.state == TUI_SPEC_OFF || c->mode == ZPERM_PLAN) return;
  /* the user left plan mode: the flow ends without building, and the mode
   * they chose stays */
  spec_end(c);
  if (c->spec.sp.path)
    tui_say(c, "Left plan mode; the %s was not built (the draft stays in %s).", c->spec.word,
            spec_rel(c));
  else tui_say(c, "Left plan mode; no %s was drafted.", c->spec.word);
}

void tui_spec_session_changed(tui_controller *c) {
  const char *id = c->rs.store.session ? c->rs.store.session->id : NULL;
  if (!c->spec.sp.path) return;
  if (id && c->spec.session_id && !strcmp(id, c->spec.session_id)) return;
  spec_end(c);
  zexec_spec_release(&c->spec.sp);
  free(c->spec.session_id);
  c->spec.session_id = NULL;
}

void tui_spec_release(tui_controller *c) {
  zexec_spec_release(&c->spec.sp);
  free(c->spec.session_id);
  c->spec.session_id = NULL;
}
