/* tui_turns.c — the TUI's turns: the worker thread that runs the agent (or
 * /compact), the mailbox that carries its events to the UI thread, and the
 * start, end and cancel of a turn. See tui_controller.h for the whole map.
 *
 * Threading design. The agent loop (zagent_run) is synchronous and can block
 * for minutes in a model stream or a tool, but the UI must keep reading keys
 * (Esc / Ctrl+C cancel, typing queues a message), animate the spinner and
 * follow resizes while it runs. Polling stdin from inside the sink callbacks
 * would not help while a tool runs or a provider waits for its first byte, so
 * each turn runs on one worker thread and the UI thread owns the terminal:
 *
 *   worker → UI  every agent event is deep-copied into a mutex-guarded queue
 *                and a byte is written to a wake pipe; the UI thread polls
 *                stdin, the wake pipe and the signal pipe, drains the queue
 *                and redraws once per batch.
 *   UI → worker  cancel is zcancel_request() — the self-pipe the provider and
 *                exec_command already poll, so it lands within milliseconds;
 *                a permission prompt blocks the worker on a condition
 *                variable until the UI answers (a cancel answers "deny").
 *
 * While a turn runs the worker alone touches the conversation, provider,
 * session and tool context; the UI thread touches them only between turns,
 * after pthread_join — the one join point — so they need no lock. Only the
 * event queue and the permission exchange are shared; the engine's grants
 * are read by the UI thread between turns only.
 * When idle the UI thread sleeps in poll() with no timeout (0% CPU).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/compaction.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "cli/exit_codes.h"
#include "cli/tui_controller.h"
#include "session/store.h"
#include "ui/tui/width.h"

/* --- the mailbox ---------------------------------------------------------- */

typedef enum qkind { Q_EVENT, Q_ASK, Q_QUESTION, Q_DONE } qkind;

typedef struct tui_msg {
  qkind kind;
  zagent_event *ev;               /* Q_EVENT: an owned copy */
  tui_pending_ask *ask;           /* Q_ASK */
  tui_pending_question *question; /* Q_QUESTION */
} qmsg;

double tui_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void post(tui_controller *c, qmsg *m) {
  pthread_mutex_lock(&c->mail.mu);
  zvec_push(&c->mail.q, m); // NOLINT(bugprone-sizeof-expression): a vector of pointers
  pthread_mutex_unlock(&c->mail.mu);
  ssize_t w = write(c->mail.wake[1], "x", 1);
  (void)w;
}

/* tui_approver's post: a permission request joins the event queue, so it
 * reaches the UI after the events the worker emitted before it. */
static void post_ask(void *ud, tui_pending_ask *ask) {
  qmsg *m = xcalloc(1, sizeof *m);
  m->kind = Q_ASK;
  m->ask = ask;
  post(ud, m);
}

/* tui_asker's post: an ask_user question joins the queue the same way. */
static void post_question(void *ud, tui_pending_question *q) {
  qmsg *m = xcalloc(1, sizeof *m);
  m->kind = Q_QUESTION;
  m->question = q;
  post(ud, m);
}

/* The UI sink, on the worker thread: copy and hand over. */
static void ui_emit(zsink *s, const zagent_event *ev) {
  tui_controller *c = (tui_controller *)s;
  if (ev->kind == ZAEV_USER_MESSAGE || ev->kind == ZAEV_RUN_START || ev->kind == ZAEV_RUN_END ||
      ev->kind == ZAEV_FINAL || ev->kind == ZAEV_PERMISSION_REQUEST)
    return;
  qmsg *m = xcalloc(1, sizeof *m);
  m->kind = Q_EVENT;
  m->ev = zagent_event_copy(ev);
  post(c, m);
}

static int ui_finish(zsink *s) { (void)s; return 0; }

static void ui_destroy(zsink *s) { (void)s; }

static void qmsg_free(qmsg *m) {
  zagent_event_free(m->ev);
  tui_pending_ask_free(m->ask);
  tui_pending_question_free(m->question);
  free(m);
}

/* The end of every worker job: the session's log and metadata reach the disk
 * (a failure there is not the job's: the next flush retries), then the UI
 * thread is told the worker is idle again. */
static void *finish_job(tui_controller *c) {
  zerr e2 = ZERR_INIT;
  if (c->rs.store.session) zsession_flush(c->rs.store.session, &e2);
  qmsg *m = xcalloc(1, sizeof *m);
  m->kind = Q_DONE;
  post(c, m);
  return NULL;
}

static void *worker_main(void *ud) {
  tui_controller *c = ud;
  if (c->worker.job == TUI_JOB_COMPACT) {
    c->worker.compact_rc = zcompact_now(&c->rs.compaction.compactor, &c->conv, c->system_prompt,
                                        NULL, &c->worker.compact_summarized, &c->worker.err);
    c->worker.status = zcancel_requested() ? ZRUN_INTERRUPTED : ZRUN_SUCCESS;
    return finish_job(c);
  }
  c->worker.status = zagent_run(&c->worker.agent, c->turn_conv, &c->worker.err);
  if (c->worker.status == ZRUN_ERROR || c->worker.status == ZRUN_INCOMPLETE ||
      c->worker.status == ZRUN_HALTED) {
    const char *code =
        c->worker.status == ZRUN_ERROR
            ? zexit_error_code(zexit_for_error_or(c->worker.err.kind, ZEXIT_PROVIDER), ZORIGIN_RUN)
        : c->worker.status == ZRUN_HALTED ? zexit_error_code(ZEXIT_INTERNAL, ZORIGIN_GUARDRAIL)
                                          : zexit_error_code(ZEXIT_INCOMPLETE, ZORIGIN_RUN);
    zagent_event ev = {.kind = ZAEV_ERROR,
                       .error = {.code = code, .message = c->worker.err.msg, .recoverable = true}};
    zagent_emit(&c->worker.agent, &ev);
  }
  return finish_job(c);
}

/* --- turns --------------------------------------------------------------- */

/* Files named with @path are attached to the message the model sees. */
static void add_mentions(tui_controller *c, const char *text, zbuf *out) {
  zbuf_addstr(out, text);
  const char *p = text;
  size_t attached = 0;
  while ((p = strchr(p, '@')) && attached < 8) {
    if (p > text && p[-1] != ' ' && p[-1] != '\n') {
      p++;
      continue;
    }
    const char *e = p + 1;
    while (*e && *e != ' ' && *e != '\n') e++;
    char *rel = xstrndup(p + 1, (size_t)(e - p - 1));
    char *full = zpath_join(c->rs.workspace, rel);
    zbuf body = ZBUF_INIT;
    if (*rel && zfs_read_file(full, &body, 256u * 1024u, NULL) == 0 && !memchr(body.data, 0, body.len)) {
      zbuf_addf(out, "\n\n[File @%s]\n```\n%s%s```", rel, body.data,
                body.len && body.data[body.len - 1] == '\n' ? "" : "\n");
      attached++;
    }
    zbuf_release(&body);
    free(full);
    free(rel);
    p = e;
  }
}

void tui_clear_images(tui_controller *c) {
  for (size_t i = 0; i < c->images.len; i++) {
    free(c->images.items[i].media_type);
    free(c->images.items[i].data);
  }
  c->images.len = 0;
  for (size_t i = 0; i < c->app.attachments.len; i++) free(c->app.attachments.items[i]);
  c->app.attachments.len = 0;
}

/* The system prompt for mode and the output style, built again only when
 * the mode changed or the model / provider / style did (they drop it). */
static void ensure_system_prompt(tui_controller *c, zperm_mode mode) {
  if (c->system_prompt && c->prompt_mode == mode) return;
  free(c->system_prompt);
  char *style = tui_style_section(c); /* /style: "" for the default */
  zbuf p = ZBUF_INIT;
  zbuf_addf(&p, "%s%s", zrun_setup_system_prompt(&c->rs, mode), style);
  free(style);
  c->system_prompt = zbuf_detach(&p, NULL);
  c->prompt_mode = mode;
}

/* The compactor follows the current provider, model and session. */
static void prepare_compactor(tui_controller *c) {
  if (!c->rs.compaction.compactor.window) zrun_setup_compaction(&c->rs, NULL);
  else /* /model or /provider may have changed the window */
    c->rs.compaction.compactor.window =
        zcompact_context_window(&c->rs.compaction.settings, &c->rs.model.cfg, c->rs.model.rp.model);
  c->app.usage.context_window = c->rs.compaction.compactor.window;
  c->rs.compaction.compactor.main = c->rs.model.provider;
  c->rs.compaction.compactor.main_model = c->rs.model.rp.model;
  c->rs.compaction.compactor.session = c->rs.store.session;
  c->rs.compaction.compactor.task = &c->rs.store.task;
  c->rs.compaction.compactor.instructions = c->rs.prompt.instruction_sources;
}

void tui_turn_start(tui_controller *c, const char *text) { tui_turn_start_as(c, text, text); }

void tui_turn_start_as(tui_controller *c, const char *text, const char *shown) {
  bool side = c->app.status.side_chat;
  if (side) {
    tui_blank_line(c);
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s↳ btw:%s ", c->app.th.accent, c->app.th.reset);
    zbuf_addstr(&l, c->app.th.user);
    tw_sanitize(&l, text, strlen(text));
    zbuf_addstr(&l, c->app.th.reset);
    tw_wrap(&c->app.commit, l.data, l.len, c->app.width, "", "  ");
    zbuf_release(&l);
  } else {
    tui_app_print_user(&c->app, shown);
  }
  zerr err = ZERR_INIT;
  if (!side && !c->rs.store.session) {
    char title[81];
    zrun_title_from_prompt(text, strlen(text), title);
    if (zrun_setup_session(&c->rs, false, NULL, title, &c->conv, tui_warn, c, &err) < 0) {
      tui_app_printf(&c->app, c->app.th.err, "✗ Cannot create the session: %s", err.msg);
      return;
    }
    tui_session_attach(c);
  }
  /* A side question runs read-only (plan mode): it must not change what the
   * main conversation is about. */
  zperm_mode mode = side ? ZPERM_PLAN : c->mode;
  ensure_system_prompt(c, mode);
  c->turn_conv = side ? &c->side : &c->conv;
  zbuf full = ZBUF_INIT;
  add_mentions(c, text, &full);
  if (!side) tui_loop_decorate(c, &full);
  if (!side && !tui_ext_submit(c, &full)) { /* session hooks, as zero exec */
    zbuf_release(&full);
    return;
  }
  zmsg *um_msg = zconv_add_user(c->turn_conv, full.data);
  /* /image attachments travel with this message (and are recorded with it,
   * so a resumed session sends them again). */
  json_t *um_meta = NULL;
  if (c->images.len) {
    json_t *arr = json_array();
    for (size_t i = 0; i < c->images.len; i++) {
      zmsg_add_image(um_msg, c->images.items[i].media_type, c->images.items[i].data);
      json_array_append_new(arr, json_pack("{s:s, s:s}", "media_type", c->images.items[i].media_type,
                                           "data", c->images.items[i].data));
    }
    um_meta = json_pack("{s:o}", "images", arr);
    tui_clear_images(c);
  }
  zagent_event um = {.kind = ZAEV_USER_MESSAGE,
                     .user_message = {.text = full.data, .len = full.len, .meta = um_meta}};
  if (c->recorder && !side) c->recorder->emit(c->recorder, &um);
  json_decref(um_meta);
  zbuf_release(&full);

  c->worker.sinks[0] = &c->sink;
  c->worker.sinks[1] = c->recorder;
  /* The same assembly as zero exec (cli/run_setup.h): sandboxed commands,
   * the permission engine, checkpoints into the current session, MCP tools,
   * compaction following the current provider and session. */
  zrun_setup_tools(&c->rs, mode, ZAUTO_LOW);
  prepare_compactor(c);
  zagent_release(&c->worker.agent);
  c->worker.agent = (zagent){0};
  /* the task tools; ask_user (the model's, a sub-agent's) asks inline */
  zsub_runtime_opts ask = {.ask = tui_asker_ask, .ask_ud = &c->asker};
  zrun_setup_subagents(&c->rs, NULL, false, &ask);
  zrun_setup_agent(&c->rs, &c->worker.agent);
  c->worker.agent.system_prompt = c->system_prompt;
  c->worker.agent.sinks = c->worker.sinks;
  c->worker.agent.nsinks = c->recorder && !side ? 2 : 1;
  c->worker.agent.approve = tui_approver_approve;
  c->worker.agent.approve_ud = &c->approver;
  /* A side question neither compacts nor writes checkpoints of the main
   * session's history. */
  if (side) c->worker.agent.compactor = NULL;
  tui_spec_prepare_turn(c, &c->worker.agent);
  zerr_clear(&c->worker.err);
  zcancel_reset();
  c->worker.job = TUI_JOB_TURN;
  tui_app_turn_start(&c->app, tui_now());
  if (pthread_create(&c->worker.thread, NULL, worker_main, c) != 0) {
    tui_app_turn_end(&c->app, "✗ Cannot start the agent thread; try again.");
    return;
  }
  c->worker.running = true;
}

static void compact_done(tui_controller *c) {
  zcompactor *k = &c->rs.compaction.compactor;
  zbuf l = ZBUF_INIT;
  if (c->worker.status == ZRUN_INTERRUPTED)
    zbuf_addstr(&l, "⊘ Compaction cancelled; the conversation is unchanged.");
  else if (c->worker.compact_rc < 0)
    zbuf_addf(&l, "✗ Cannot compact: %s", c->worker.err.msg);
  else
    zbuf_addf(&l, "✓ Compacted: ~%lld → ~%lld tokens (%zu message%s summarized; your last "
              "exchange is kept as it was). %zu messages in the conversation now.",
              (long long)k->last_before, (long long)k->last_after, c->worker.compact_summarized,
              c->worker.compact_summarized == 1 ? "" : "s", c->conv.len);
  tui_app_turn_end(&c->app, NULL);
  tui_blank_line(c);
  tui_app_print(&c->app, c->worker.compact_rc < 0 || c->worker.status == ZRUN_INTERRUPTED ? c->app.th.warn : "",
                l.data);
  zbuf_release(&l);
}

static void turn_done(tui_controller *c) {
  pthread_join(c->worker.thread, NULL);
  c->worker.running = false;
  /* "Cancelling…" and "Mode changes from the next turn" are over */
  free(c->app.status.notice);
  c->app.status.notice = NULL;
  const char *line = NULL;
  if (c->worker.job == TUI_JOB_COMPACT) compact_done(c);
  else {
    if (c->worker.status == ZRUN_INTERRUPTED) line = "⊘ Cancelled. The conversation is kept; type to continue.";
    else if (c->worker.status == ZRUN_SUCCESS && !c->app.turn.shown)
      line = "The model sent an empty answer (no text, no tool call). Ask again, or try another "
             "model with /model.";
    tui_app_turn_end(&c->app, line);
    tui_spec_turn_done(c);
  }
  fflush(c->rec_diag);
  if (c->rec_diag_len) {
    tui_app_print(&c->app, c->app.th.warn, c->rec_diag_buf);
    rewind(c->rec_diag);
    c->rec_diag_len = 0;
    c->rec_diag_buf[0] = 0;
  }
  zcancel_reset();
  tui_ps_turn_done(c);   /* the ends of tasks /stop ended during the turn */
  tui_loop_turn_done(c); /* the next run waits for the queued messages too */
  if (!c->quit) tui_turn_start_queued(c);
}

void tui_turn_start_queued(tui_controller *c) {
  if (!c->app.queue.len) return;
  char *next = c->app.queue.items[0];
  memmove(c->app.queue.items, c->app.queue.items + 1, (c->app.queue.len - 1) * sizeof(char *));
  c->app.queue.len--;
  tui_turn_start(c, next);
  free(next);
}

void tui_turn_cancel(tui_controller *c) {
  if (!c->worker.running) return;
  zcancel_request();
  tui_approver_cancel(&c->approver);
  tui_asker_cancel(&c->asker);
  if (c->question_open) tui_question_close(c);
  c->app.prompt.active = false;
  free(c->app.status.notice);
  c->app.status.notice = xstrdup("Cancelling…");
}

void tui_turns_drain(tui_controller *c) {
  char b[256];
  while (read(c->mail.wake[0], b, sizeof b) > 0) {
  }
  for (;;) {
    pthread_mutex_lock(&c->mail.mu);
    qmsg *m = NULL;
    if (c->mail.q.len) {
      m = c->mail.q.items[0];
      /* a vector of pointers: each element is one */
      memmove(c->mail.q.items, c->mail.q.items + 1,
              (c->mail.q.len - 1) * sizeof *c->mail.q.items); // NOLINT(bugprone-sizeof-expression)
      c->mail.q.len--;
    }
    pthread_mutex_unlock(&c->mail.mu);
    if (!m) break;
    c->app.now = tui_now();
    if (m->kind == Q_EVENT) tui_app_event(&c->app, m->ev);
    else if (m->kind == Q_ASK) {
      tui_ask q = tui_pending_ask_view(m->ask, c->rs.workspace, c->rs.sandbox.grants.path);
      tui_app_ask(&c->app, &q);
    } else if (m->kind == Q_QUESTION) tui_question_open(c, m->question);
    else turn_done(c);
    qmsg_free(m);
  }
}

/* /compact: the compactor now, on the worker (it asks a model). */
void tui_compact_start(tui_controller *c) {
  if (c->conv.len < 2) {
    tui_say(c, "Nothing to compact yet.");
    return;
  }
  ensure_system_prompt(c, c->mode);
  zrun_setup_tools(&c->rs, c->mode, ZAUTO_LOW);
  prepare_compactor(c);
  zerr_clear(&c->worker.err);
  zcancel_reset();
  c->worker.job = TUI_JOB_COMPACT;
  c->worker.compact_rc = 0;
  tui_app_turn_start(&c->app, tui_now());
  tui_say(c, "Compacting: the conversation before your last message is summarized…");
  if (pthread_create(&c->worker.thread, NULL, worker_main, c) != 0) {
    tui_app_turn_end(&c->app, "✗ Cannot start the compaction thread; try again.");
    return;
  }
  c->worker.running = true;
}

/* --- set-up and leaving --------------------------------------------------- */

int tui_turns_init(tui_controller *c) {
  c->sink = (zsink){.emit = ui_emit, .finish = ui_finish, .destroy = ui_destroy};
  pthread_mutex_init(&c->mail.mu, NULL);
  tui_approver_init(&c->approver, post_ask, c);
  tui_asker_init(&c->asker, post_question, c);
  strvec_init(&c->question_choices);
  c->mail.wake[0] = c->mail.wake[1] = -1;
  return pipe2(c->mail.wake, O_CLOEXEC | O_NONBLOCK);
}

void tui_turns_release(tui_controller *c) {
  /* the view's copies of the attachment labels go with tui_app_release */
  for (size_t i = 0; i < c->images.len; i++) {
    free(c->images.items[i].media_type);
    free(c->images.items[i].data);
  }
  zvec_free(&c->images);
  for (size_t i = 0; i < c->mail.q.len; i++) qmsg_free(c->mail.q.items[i]);
  zvec_free(&c->mail.q);
  if (c->mail.wake[0] >= 0) close(c->mail.wake[0]);
  if (c->mail.wake[1] >= 0) close(c->mail.wake[1]);
  pthread_mutex_destroy(&c->mail.mu);
  tui_approver_release(&c->approver);
  tui_asker_release(&c->asker);
  strvec_clear(&c->question_choices);
}

void tui_turns_stop(tui_controller *c) {
  if (!c->worker.running) return;
  tui_turn_cancel(c);
  pthread_join(c->worker.thread, NULL);
  c->worker.running = false;
  tui_turns_drain(c);
}
