/* tui_session.c — the session around the TUI's turns: which session the
 * conversation is recorded in (new, resumed, forked, rewound), the /btw
 * side conversation, the model and provider, and the lines the controller
 * writes to the scrollback. See tui_controller.h for the whole map.
 *
 * Everything here runs on the UI thread with the worker idle (the commands
 * that call it wait for the running turn), except tui_say / tui_warn, which
 * only touch the view.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agent/compaction.h"
#include "agent/recorder.h"
#include "agent/task_state.h"
#include "base/common.h"
#include "base/json.h"
#include "cli/tui_controller.h"
#include "session/checkpoint.h"
#include "session/store.h"
#include "ui/tui/width.h"

/* --- lines for the scrollback -------------------------------------------- */

void tui_blank_line(tui_controller *c) { tw_lines_push(&c->app.commit, xstrdup("")); }

void tui_warn(void *ud, const char *msg) {
  tui_controller *c = ud;
  tui_app_printf(&c->app, c->app.th.warn, "⚠ %s", msg);
}

void tui_say(tui_controller *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tui_app_vprintf(&c->app, "", fmt, ap);
  va_end(ap);
}

/* --- which session ------------------------------------------------------ */

/* The session's token counts from its log (provider_usage events, as `zero
 * usage` reads them): /usage, the status line and the side panel continue a
 * resumed session where it was instead of starting from 0. */
static int add_usage(void *ud, const json_t *ev) {
  tui_app *a = ud;
  if (strcmp(zjson_str_or(ev, "type", ""), "provider_usage")) return 0;
  const json_t *p = json_object_get(ev, "payload");
  a->usage.prompt_sum += zjson_int_or(p, "promptTokens", 0);
  a->usage.cached_sum += zjson_int_or(p, "cachedInputTokens", 0);
  a->usage.completion_sum += zjson_int_or(p, "completionTokens", 0);
  a->usage.total_tokens += zjson_int_or(p, "totalTokens", 0);
  if (zjson_int_or(p, "promptTokens", 0)) a->usage.context_tokens = zjson_int_or(p, "promptTokens", 0);
  return 0;
}

void tui_session_attach(tui_controller *c) {
  c->app.usage.prompt_sum = c->app.usage.cached_sum = c->app.usage.completion_sum = c->app.usage.total_tokens = 0;
  c->app.usage.context_tokens = 0;
  if (c->rs.store.session)
    zsession_for_each_event(c->rs.store.root, c->rs.store.session->id, add_usage, &c->app, NULL,
                            NULL);
  if (c->recorder) c->recorder->destroy(c->recorder);
  c->recorder = c->rs.store.session ? zrecorder_new(c->rs.store.session, c->rec_diag) : NULL;
  free(c->app.status.session_id);
  c->app.status.session_id = c->rs.store.session ? xstrdup(c->rs.store.session->id) : NULL;
  tui_spec_session_changed(c);
}

/* Closes the current session (flushed, unlocked). The checkpointer and the
 * recorder point into it, so they go too (zrun_setup_tools makes a new
 * checkpointer for whatever session is current at the next turn). */
void tui_session_release(tui_controller *c) {
  if (c->recorder) c->recorder->destroy(c->recorder);
  c->recorder = NULL;
  if (c->rs.checkpoints) zcheckpointer_free(c->rs.checkpoints);
  c->rs.checkpoints = NULL;
  free(c->rs.checkpoints_for);
  c->rs.checkpoints_for = NULL;
  c->rs.compaction.compactor.session = NULL;
  if (c->rs.store.session) {
    zerr e = ZERR_INIT;
    zsession_flush(c->rs.store.session, &e);
    zsession_close(c->rs.store.session);
  }
  c->rs.store.session = NULL;
}

/* Resumes session id into c->conv (zrun_setup_session; the id of an
 * earlier resume is let go first). */
static int reopen_session(tui_controller *c, const char *id, zerr *err) {
  free(c->rs.store.resumed_id);
  c->rs.store.resumed_id = NULL;
  return zrun_setup_session(&c->rs, true, id, NULL, &c->conv, tui_warn, c, err);
}

void tui_session_new(tui_controller *c) {
  if (c->app.status.side_chat) {
    zconv_release(&c->side);
    c->side = (zconv)ZCONV_INIT;
    c->app.status.side_chat = false;
  }
  tui_session_release(c);
  ztask_release(&c->rs.store.task);
  ztask_init(&c->rs.store.task);
  zconv_release(&c->conv);
  c->conv = (zconv)ZCONV_INIT;
  json_decref(c->app.plan);
  c->app.plan = NULL;
  c->app.usage.context_tokens = 0;
  tui_session_attach(c);
}

/* One replayed call's card, as it was shown when it ran: the call and its
 * result go through the view's own event handling (diffs, excerpts, Ctrl+O). */
static void replay_call(tui_controller *c, const ztool_call *call) {
  zagent_event ev = {.kind = ZAEV_TOOL_CALL,
                     .tool_call = {.id = call->id,
                                   .name = call->name,
                                   .arguments = call->arguments}};
  tui_app_event(&c->app, &ev);
}

static void replay_result(tui_controller *c, const zmsg *m) {
  zagent_event ev = {.kind = ZAEV_TOOL_RESULT,
                     .tool_result = {.id = m->tool_call_id,
                                     .name = m->tool_name,
                                     .ok = !m->is_error,
                                     .output = m->content,
                                     .output_len = m->content ? strlen(m->content) : 0}};
  tui_app_event(&c->app, &ev);
}

void tui_session_show_tail(tui_controller *c) {
  /* The whole resumed conversation, as it looked: messages, answers and
   * tool cards (collapsed: Ctrl+O shows the last card in full). Cards have
   * no time: the log does not say how long a call took. */
  c->app.replaying = true;
  for (size_t i = 0; i < c->conv.len; i++) {
    zmsg *m = &c->conv.items[i];
    if (m->role == ZROLE_USER && m->content) tui_app_print_user(&c->app, m->content);
    else if (m->role == ZROLE_ASSISTANT) {
      if (m->content && *m->content) {
        tw_lines_push(&c->app.commit, xstrdup(""));
        tui_md_render(m->content, strlen(m->content), c->app.width, &c->app.th, &c->app.commit);
      }
      for (size_t k = 0; k < m->ncalls; k++) replay_call(c, &m->calls[k]);
    } else if (m->role == ZROLE_TOOL) {
      replay_result(c, m);
    }
  }
  /* a call the log holds no result for */
  tui_app_turn_end(&c->app, NULL);
  c->app.replaying = false;
}

void tui_session_resume(tui_controller *c, const char *arg) {
  zerr err = ZERR_INIT;
  json_t *all = zsession_list(c->rs.store.root, NULL, &err);
  if (!all) {
    tui_say(c, "✗ Cannot list sessions: %s", err.msg);
    return;
  }
  /* Sessions of this workspace, newest first; arg: a number, an id or words. */
  json_t *mine = json_array();
  size_t i;
  json_t *s;
  json_array_foreach(all, i, s) {
    const char *cwd = zjson_str(s, "cwd");
    if (cwd && !strcmp(cwd, c->rs.workspace)) json_array_append(mine, s);
  }
  const char *pick = NULL;
  if (arg && *arg) {
    char *end;
    long n = strtol(arg, &end, 10);
    if (!*end && n >= 1 && (size_t)n <= json_array_size(mine)) pick = zjson_str(json_array_get(mine, (size_t)n - 1), "sessionId");
    json_array_foreach(all, i, s) if (!pick && !strcmp(zjson_str_or(s, "sessionId", ""), arg)) pick = zjson_str(s, "sessionId");
    if (!pick) {
      /* search titles: the best fuzzy match */
      int best = -1;
      json_array_foreach(mine, i, s) {
        int sc = tui_fuzzy(arg, strlen(arg), zjson_str_or(s, "title", ""));
        if (sc > best) best = sc, pick = zjson_str(s, "sessionId");
      }
    }
  }
  if (!pick) {
    if (arg && *arg) tui_say(c, "No session matches \"%s\".", arg);
    if (!json_array_size(mine)) tui_say(c, "No sessions in this workspace yet.");
    else {
      /* The picker: title, time and id; search by typing. */
      size_t n = json_array_size(mine) < 200 ? json_array_size(mine) : 200;
      char **labels = xcalloc(n, sizeof *labels);
      const char **values = xcalloc(n, sizeof *values);
      for (i = 0; i < n; i++) {
        s = json_array_get(mine, i);
        zbuf l = ZBUF_INIT;
        zbuf_addf(&l, "%2zu. ", i + 1);
        tw_addcol(&l, zjson_str_or(s, "title", "(untitled)"), 40);
        zbuf_addf(&l, "  %.16s  %s", zjson_str_or(s, "updatedAt", ""), zjson_str_or(s, "sessionId", ""));
        labels[i] = zbuf_detach(&l, NULL);
        values[i] = zjson_str_or(s, "sessionId", "");
      }
      tui_app_picker(&c->app, "/resume", "Resume a session", (const char *const *)labels, values, n);
      for (i = 0; i < n; i++) free(labels[i]);
      free(labels);
      free(values);
    }
    json_decref(mine);
    json_decref(all);
    return;
  }
  char *id = xstrdup(pick);
  json_decref(mine);
  json_decref(all);
  tui_session_new(c);
  if (reopen_session(c, id, &err) < 0) {
    tui_say(c, "✗ Cannot resume %s: %s", id, err.msg);
  } else {
    tui_session_attach(c);
    tui_say(c, "Resumed session %s (%zu messages).", id, c->conv.len);
    tui_session_show_tail(c);
  }
  free(id);
}

/* --- /fork and /rewind --------------------------------------------------- */

/* /fork: the current session is copied (zsession_fork, like zero sessions
 * fork and zero exec --fork) and the conversation continues in the copy;
 * the original is left as it was. */
void tui_session_fork(tui_controller *c) {
  if (!c->rs.store.session) {
    tui_say(c, "Nothing to fork yet: the session is created with your first message.");
    return;
  }
  char *parent = xstrdup(c->rs.store.session->id);
  zerr err = ZERR_INIT;
  tui_session_release(c);
  zconv_release(&c->conv);
  c->conv = (zconv)ZCONV_INIT;
  if (zrun_setup_fork(&c->rs, parent, &c->conv, tui_warn, c, &err) < 0) {
    tui_say(c, "✗ Cannot fork %s: %s", parent, err.msg);
    /* stay in the original */
    zconv_release(&c->conv);
    c->conv = (zconv)ZCONV_INIT;
    if (c->rs.store.session) zsession_close(c->rs.store.session);
    c->rs.store.session = NULL;
    zerr e2 = ZERR_INIT;
    if (reopen_session(c, parent, &e2) < 0)
      tui_say(c, "✗ Cannot reopen %s either: %s. /resume picks a session.", parent, e2.msg);
  } else {
    tui_say(c,
            "Forked %s into %s (%zu messages). You are in the fork now; the original is "
            "unchanged (zero --resume %s).",
            parent, c->rs.store.session->id, c->conv.len, parent);
  }
  tui_session_attach(c);
  free(parent);
}

/* The user messages of the session: [{seq, text}] (new reference). */
typedef struct user_msgs {
  json_t *list;
} user_msgs;

static size_t idx_of(const json_t *arr, const json_t *item) {
  for (size_t i = 0; i < json_array_size(arr); i++)
    if (json_array_get(arr, i) == item) return i;
  return 0;
}

static int collect_user(void *ud, const json_t *ev) {
  user_msgs *u = ud;
  const json_t *p = json_object_get(ev, "payload");
  if (!strcmp(zjson_str_or(ev, "type", ""), "message") && !strcmp(zjson_str_or(p, "role", ""), "user"))
    json_array_append_new(u->list, json_pack("{s:I, s:s}", "seq", zjson_int_or(ev, "sequence", 0),
                                             "text", zjson_str_or(p, "content", "")));
  return 0;
}

/* A message as the user typed it: without the files @mentions attached. */
static char *typed_text(const char *content) {
  const char *cut = strstr(content, "\n\n[File @");
  return cut ? xstrndup(content, (size_t)(cut - content)) : xstrdup(content);
}

static void rewind_plan_lines(tui_controller *c, const json_t *plan) {
  size_t i;
  json_t *r;
  size_t nrestore = 0;
  json_array_foreach(json_object_get(plan, "restore"), i, r) {
    const char *action = zjson_str_or(r, "action", "");
    if (!strcmp(action, "unchanged")) continue;
    tui_say(c, "  %s %s", !strcmp(action, "delete") ? "✗ delete " : "↺ restore", zjson_str_or(r, "path", ""));
    nrestore++;
  }
  json_array_foreach(json_object_get(plan, "notRestorable"), i, r) {
    if (zjson_str(r, "path"))
      tui_say(c, "  ⚠ not restorable: %s (%s)", zjson_str(r, "path"), zjson_str_or(r, "reason", ""));
    else
      tui_say(c, "  ⚠ not restorable: event %lld ran `%s`; %s", (long long)zjson_int_or(r, "sequence", 0),
          zjson_str_or(r, "command", ""), zjson_str_or(r, "reason", ""));
  }
  if (!nrestore) tui_say(c, "  (no files change)");
}

/* /rewind          a picker over your messages
 * /rewind SEQ      the plan for going back to before message SEQ (the
 *                  files that change), and a confirmation picker
 * /rewind apply SEQ  does it: files restored, the log cut, the message put
 *                  back into the composer to edit and send again */
void tui_session_rewind(tui_controller *c, const char *arg) {
  if (!c->rs.store.session) {
    tui_say(c, "Nothing to rewind: this session has no messages yet.");
    return;
  }
  if (!strcmp(arg, "cancel")) {
    tui_say(c, "Rewind cancelled; nothing changed.");
    return;
  }
  bool apply = !strncmp(arg, "apply ", 6);
  const char *num = apply ? arg + 6 : arg;
  zerr err = ZERR_INIT;
  char *id = xstrdup(c->rs.store.session->id);
  zerr fe = ZERR_INIT;
  zsession_flush(c->rs.store.session, &fe);
  user_msgs u = {.list = json_array()};
  if (zsession_for_each_event(c->rs.store.root, id, collect_user, &u, NULL, &err) < 0) {
    tui_say(c, "✗ Cannot read the session: %s", err.msg);
    goto out;
  }
  if (!*num) {
    size_t n = json_array_size(u.list);
    if (!n) {
      tui_say(c, "No messages to go back to.");
      goto out;
    }
    char **labels = xcalloc(n, sizeof *labels), **values = xcalloc(n, sizeof *values);
    for (size_t i = 0; i < n; i++) {
      /* newest first */
      const json_t *m = json_array_get(u.list, n - 1 - i);
      char *t = typed_text(zjson_str_or(m, "text", ""));
      for (char *q = t; *q; q++)
        if (*q == '\n') *q = ' ';
      zbuf l = ZBUF_INIT;
      zbuf_addf(&l, "%2zu. ", n - i);
      tw_sanitize(&l, t, strlen(t));
      labels[i] = zbuf_detach(&l, NULL);
      zbuf v = ZBUF_INIT;
      zbuf_addf(&v, "%lld", (long long)zjson_int_or(m, "seq", 0));
      values[i] = zbuf_detach(&v, NULL);
      free(t);
    }
    tui_say(c, "Pick the message to go back to: it and everything after it are removed, and the "
           "files the tools changed since are restored.");
    tui_app_picker(&c->app, "/rewind", "Rewind to before…", (const char *const *)labels,
                   (const char *const *)values, n);
    for (size_t i = 0; i < n; i++) free(labels[i]), free(values[i]);
    free(labels);
    free(values);
    goto out;
  }
  char *end;
  long long seq = strtoll(num, &end, 10);
  const json_t *msg = NULL;
  size_t idx;
  json_t *m;
  json_array_foreach(u.list, idx, m) if (*num && !*end && zjson_int_or(m, "seq", -1) == seq) msg = m;
  if (!msg) {
    tui_say(c, "✗ %s is not one of your messages in this session; /rewind without an argument "
           "lists them.", num);
    goto out;
  }
  /* zsession_rewind takes the session lock: let go of it around the call. */
  tui_session_release(c);
  json_t *plan = NULL;
  int rc = zsession_rewind(c->rs.store.root, id, seq - 1, !apply, &plan, &err);
  if (rc < 0) tui_say(c, "✗ Cannot rewind: %s", err.msg);
  else if (!apply) {
    tui_say(c, "Rewind to before your message #%zu (removes %lld events):", idx_of(u.list, msg) + 1,
        (long long)zjson_int_or(plan, "removedEvents", 0));
    rewind_plan_lines(c, plan);
    const char *labels[2] = {"Rewind: restore these files and drop the later conversation",
                             "Cancel"};
    zbuf v = ZBUF_INIT;
    zbuf_addf(&v, "apply %lld", seq);
    const char *values[2] = {v.data, "cancel"};
    tui_app_picker(&c->app, "/rewind", "Rewind?", labels, values, 2);
    zbuf_release(&v);
  }
  json_decref(plan);
  /* back into the (possibly cut) session */
  zconv_release(&c->conv);
  c->conv = (zconv)ZCONV_INIT;
  zerr e2 = ZERR_INIT;
  if (reopen_session(c, id, &e2) < 0) {
    tui_say(c, "✗ Cannot reopen the session %s: %s. /resume picks a session.", id, e2.msg);
    if (c->rs.store.session) zsession_close(c->rs.store.session);
    c->rs.store.session = NULL;
  } else if (apply && rc == 0) {
    /* The task state is rebuilt from what is left of the log. */
    ztask_release(&c->rs.store.task);
    ztask_init(&c->rs.store.task);
    if (ztask_replay(&c->rs.store.task, c->rs.store.root, id, &e2) < 0 ||
        zsession_set_meta(c->rs.store.session, "taskState", ztask_to_json(&c->rs.store.task), &e2) <
            0)
      tui_say(c, "⚠ The session's task state was not updated: %s", e2.msg);
    json_decref(c->app.plan);
    c->app.plan = NULL;
    char *t = typed_text(zjson_str_or(msg, "text", ""));
    tui_composer_set(&c->app.comp, t);
    free(t);
    tui_say(c, "↺ Rewound: %zu messages remain; the files are as they were before that message. "
           "It is back in the composer: edit it and press Enter, or clear it (Ctrl+U).",
        c->conv.len);
  }
  tui_session_attach(c);
out:
  json_decref(u.list);
  free(id);
}

/* --- the /btw side conversation ------------------------------------------ */

/* /btw: fork the conversation in memory; nothing reaches the session. */
static void conv_copy(zconv *dst, const zconv *src) {
  for (size_t i = 0; i < src->len; i++) {
    const zmsg *m = &src->items[i];
    if (m->role == ZROLE_USER) zconv_add_user(dst, m->content ? m->content : "");
    else if (m->role == ZROLE_TOOL)
      zconv_add_tool_result(dst, m->tool_call_id, m->tool_name, m->content ? m->content : "",
                            m->is_error);
    else {
      zmsg *n = zconv_add_assistant(dst, m->content ? m->content : "", m->reasoning);
      for (size_t k = 0; k < m->ncalls; k++)
        zmsg_add_call(n, m->calls[k].id, m->calls[k].name, m->calls[k].arguments);
    }
  }
}

void tui_side_enter(tui_controller *c) {
  if (c->app.status.side_chat) return;
  conv_copy(&c->side, &c->conv);
  c->app.status.side_chat = true;
}

void tui_side_leave(tui_controller *c) {
  zconv_release(&c->side);
  c->side = (zconv)ZCONV_INIT;
  c->app.status.side_chat = false;
  tui_blank_line(c);
  tui_app_print(&c->app, c->app.th.muted, "↩ Back to the main conversation (the side conversation was not saved).");
}

/* --- the permission mode ------------------------------------------------- */

void tui_mode_set(tui_controller *c, zperm_mode mode) { c->mode = mode; }

void tui_mode_cycle(tui_controller *c) {
  static const zperm_mode next[] = {[ZPERM_ASK] = ZPERM_ACCEPT_EDITS,
                                    [ZPERM_ACCEPT_EDITS] = ZPERM_AUTO,
                                    [ZPERM_AUTO] = ZPERM_PLAN,
                                    [ZPERM_PLAN] = ZPERM_ASK,
                                    [ZPERM_UNSAFE] = ZPERM_ASK};
  tui_mode_set(c, next[c->mode]);
  tui_spec_mode_changed(c);
  free(c->app.status.notice);
  c->app.status.notice = c->worker.running ? xstrdup("Mode changes from the next turn") : NULL;
}

/* --- model and provider -------------------------------------------------- */

/* The current model and its context window, for the status line and the
 * side panel. */
void tui_show_model(tui_controller *c) {
  free(c->app.status.model);
  c->app.status.model = xstrdup(c->rs.model.rp.model);
  c->app.usage.context_window =
      zcompact_context_window(&c->rs.compaction.settings, &c->rs.model.cfg, c->rs.model.rp.model);
}

/* After a model or provider switch: the header shows it, and the system
 * prompt (it names the model) is built again for the next turn. */
static int switched(tui_controller *c) {
  tui_show_model(c);
  free(c->system_prompt);
  c->system_prompt = NULL;
  return 0;
}

int tui_switch_model(tui_controller *c, const char *model, zerr *err) {
  return zrun_setup_switch_model(&c->rs, model, err) < 0 ? -1 : switched(c);
}

int tui_switch_provider(tui_controller *c, const char *name, zerr *err) {
  return zrun_setup_switch_provider(&c->rs, name, err) < 0 ? -1 : switched(c);
}
