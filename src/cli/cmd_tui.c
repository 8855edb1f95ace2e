/* cmd_tui.c — `zero` with no command: the interactive terminal UI.
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
#include <stdarg.h>
#include <stdint.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/compaction.h"
#include "agent/loop.h"
#include "agent/task_state.h"
#include "config/models.h"
#include "config/presets.h"
#include "agent/recorder.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "cli/cli.h"
#include "cli/tui_args.h"
#include "cli/run_setup.h"
#include "sandbox/grants.h"
#include "cli/tui_setup.h"
#include "net/curl_loader.h"
#include "net/http.h"
#include "session/checkpoint.h"
#include "session/store.h"
#include "tools/image.h"
#include "tools/tool.h"
#include "ui/tui/app.h"
#include "ui/tui/diff.h"
#include "ui/tui/term.h"

/* --- messages from the worker -------------------------------------------- */

typedef enum qkind { Q_EVENT, Q_ASK, Q_DONE } qkind;

typedef struct qmsg {
  qkind kind;
  zagent_event ev;   /* Q_EVENT: strings owned by the message */
  char *strs[16];
  json_t *meta;
  /* Q_ASK */
  char *tool, *args, *reason, *code, *grant_value;
  char *mcp_grants_file;  /* an MCP tool: where its always grant goes; else NULL */
  zside_effect side;
  bool escalate_network, escalate_unsandboxed, can_remember;
  int grant_kind;
} qmsg;

typedef struct ctl {
  zsink sink;            /* first: the UI sink handed to the agent */
  tui_app app;
  tui_keys keys;
  tui_args args;
  zrun_setup rs;
  zconv conv;
  zconv side;            /* the /btw fork: a copy of conv, never recorded */
  zconv *turn_conv;      /* the conversation the running turn extends */
  char *system_prompt;
  zperm_mode prompt_mode;
  json_t *plan;
  ztool_ctx tctx;
  zsink *recorder;
  FILE *rec_diag;
  char *rec_diag_buf;
  size_t rec_diag_len;
  zagent agent;
  zerr err;
  zrun_status status;
  /* What the worker runs: a turn, or /compact. */
  enum { JOB_TURN, JOB_COMPACT } job;
  int compact_rc;
  size_t compact_summarized;
  /* Images for the next message (/image): media type and base64. */
  ZVEC(zimage) images;
  pthread_t worker;
  bool running;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  ZVEC(qmsg *) q;        /* guarded by mu */
  int wake[2];
  bool perm_waiting, perm_answered; /* guarded by mu */
  zperm_action perm_action;
  int perm_scope;        /* zgrant_scope of the answer */
  char *perm_note;
  bool quit;
  bool terminated;       /* SIGTERM / SIGHUP */
} ctl;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void post(ctl *c, qmsg *m) {
  pthread_mutex_lock(&c->mu);
  zvec_push(&c->q, m);
  pthread_mutex_unlock(&c->mu);
  ssize_t w = write(c->wake[1], "x", 1);
  (void)w;
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

/* The UI sink, on the worker thread: copy and hand over. */
static void ui_emit(zsink *s, const zagent_event *ev) {
  ctl *c = (ctl *)s;
  if (ev->kind == ZAEV_USER_MESSAGE || ev->kind == ZAEV_RUN_START || ev->kind == ZAEV_RUN_END ||
      ev->kind == ZAEV_FINAL || ev->kind == ZAEV_PERMISSION_REQUEST)
    return;
  qmsg *m = xcalloc(1, sizeof *m);
  m->kind = Q_EVENT;
  m->ev = *ev;
  int n = 0;
#define COPY(f) m->ev.f = m->strs[n++] = dup_or_null(ev->f)
  COPY(reasoning); COPY(id); COPY(name); COPY(arguments); COPY(side_effect); COPY(action);
  COPY(reason); COPY(mode); COPY(code); COPY(model);
#undef COPY
  /* len counts the bytes of streamed deltas; other events (errors, warnings)
   * may leave it 0 and carry a NUL-terminated text. */
  m->ev.text = m->strs[n++] = !ev->text ? NULL
                              : ev->len  ? xstrndup(ev->text, ev->len)
                                         : xstrdup(ev->text);
  m->ev.len = m->ev.text ? strlen(m->ev.text) : 0;
  m->ev.session_id = m->ev.cwd = m->ev.provider = m->ev.api_model = m->ev.status = NULL;
  m->meta = ev->meta ? json_deep_copy(ev->meta) : NULL;
  m->ev.meta = m->meta;
  post(c, m);
}

static int ui_finish(zsink *s) { (void)s; return 0; }
static void ui_destroy(zsink *s) { (void)s; }

static void qmsg_free(qmsg *m) {
  for (size_t i = 0; i < 16; i++) free(m->strs[i]);
  json_decref(m->meta);
  free(m->tool);
  free(m->args);
  free(m->reason);
  free(m->code);
  free(m->grant_value);
  free(m->mcp_grants_file);
  free(m);
}

/* The approver (agent/loop.h zagent.approve), called on the worker thread:
 * posts the prompt to the UI thread and waits for the answer. "Allow for this
 * session" and "always allow" pass the scope on; the engine remembers the
 * grant the request names (the command prefix, the path or the tool) and
 * saves an always grant to the grants file. */
static zapproval approve(void *ud, const zapproval_request *req) {
  ctl *c = ud;
  const ztool_call *call = req->call;
  pthread_mutex_lock(&c->mu);
  c->perm_waiting = true;
  c->perm_answered = false;
  pthread_mutex_unlock(&c->mu);

  qmsg *m = xcalloc(1, sizeof *m);
  m->kind = Q_ASK;
  m->tool = xstrdup(call->name);
  m->args = xstrdup(call->arguments ? call->arguments : "");
  m->reason = xstrdup(req->reason ? req->reason : "");
  m->code = dup_or_null(req->code);
  m->side = req->tool->side_effect;
  m->escalate_network = req->escalate_network;
  m->escalate_unsandboxed = req->escalate_unsandboxed;
  m->can_remember = req->can_remember && req->grant_tool;
  m->grant_kind = req->grant_kind;
  m->grant_value = xstrdup(req->grant_value ? req->grant_value : "");
  /* Not a built-in: an MCP tool, whose grants live in mcp-permissions.json. */
  if (!ztool_find(call->name)) m->mcp_grants_file = zmcp_grants_path();
  post(c, m);

  pthread_mutex_lock(&c->mu);
  while (!c->perm_answered && !zcancel_requested()) pthread_cond_wait(&c->cv, &c->mu);
  zapproval ans = {.action = c->perm_answered ? c->perm_action : ZPERM_DENY,
                   .note = c->perm_note};
  if (ans.action == ZPERM_ALLOW && c->perm_answered && req->can_remember) ans.scope = c->perm_scope;
  c->perm_waiting = false;
  pthread_mutex_unlock(&c->mu);
  return ans;
}

/* The end of every worker job: the session's log and metadata reach the disk
 * (a failure there is not the job's: the next flush retries), then the UI
 * thread is told the worker is idle again. */
static void *finish_job(ctl *c) {
  zerr e2 = ZERR_INIT;
  if (c->rs.session) zsession_flush(c->rs.session, &e2);
  qmsg *m = xcalloc(1, sizeof *m);
  m->kind = Q_DONE;
  post(c, m);
  return NULL;
}

static void *worker_main(void *ud) {
  ctl *c = ud;
  if (c->job == JOB_COMPACT) {
    c->compact_rc = zcompact_now(&c->rs.compactor, &c->conv, c->system_prompt, NULL,
                                 &c->compact_summarized, &c->err);
    c->status = zcancel_requested() ? ZRUN_INTERRUPTED : ZRUN_SUCCESS;
    return finish_job(c);
  }
  c->status = zagent_run(&c->agent, c->turn_conv, &c->err);
  if (c->status == ZRUN_ERROR || c->status == ZRUN_INCOMPLETE) {
    zagent_event ev = {.kind = ZAEV_ERROR,
                       .code = c->status == ZRUN_ERROR ? "provider_error" : "incomplete",
                       .text = c->err.msg, .recoverable = true};
    zagent_emit(&c->agent, &ev);
  }
  return finish_job(c);
}

/* --- output -------------------------------------------------------------- */

static void flush_out(ctl *c) {
  zbuf *o = &c->app.scr.out;
  if (o->len) {
    if (tui_term_write(o->data, o->len) < 0) c->quit = true; /* the terminal is gone */
    zbuf_reset(o);
  }
  tui_term_set_live(c->app.scr.cursor_row);
}

static void render(ctl *c) {
  c->app.now = now_s();
  tui_app_render(&c->app);
  flush_out(c);
}

/* --- turns --------------------------------------------------------------- */

static void blank_line(ctl *c) { tw_lines_push(&c->app.commit, xstrdup("")); }

static void warn_cb(void *ud, const char *msg) {
  ctl *c = ud;
  zbuf l = ZBUF_INIT;
  zbuf_addf(&l, "⚠ %s", msg);
  tui_app_print(&c->app, c->app.th.warn, l.data);
  zbuf_release(&l);
}

/* The session's token counts from its log (provider_usage events, as `zero
 * usage` reads them): /usage, the status line and the side panel continue a
 * resumed session where it was instead of starting from 0. */
static int add_usage(void *ud, const json_t *ev) {
  tui_app *a = ud;
  if (strcmp(zjson_str_or(ev, "type", ""), "provider_usage")) return 0;
  const json_t *p = json_object_get(ev, "payload");
  a->prompt_sum += zjson_int_or(p, "promptTokens", 0);
  a->cached_sum += zjson_int_or(p, "cachedInputTokens", 0);
  a->completion_sum += zjson_int_or(p, "completionTokens", 0);
  a->total_tokens += zjson_int_or(p, "totalTokens", 0);
  if (zjson_int_or(p, "promptTokens", 0)) a->context_tokens = zjson_int_or(p, "promptTokens", 0);
  return 0;
}

static void attach_session(ctl *c) {
  c->app.prompt_sum = c->app.cached_sum = c->app.completion_sum = c->app.total_tokens = 0;
  c->app.context_tokens = 0;
  if (c->rs.session)
    zsession_for_each_event(c->rs.session_root, c->rs.session->id, add_usage, &c->app, NULL, NULL);
  if (c->recorder) c->recorder->destroy(c->recorder);
  c->recorder = c->rs.session ? zrecorder_new(c->rs.session, c->rec_diag) : NULL;
  free(c->app.session_id);
  c->app.session_id = c->rs.session ? xstrdup(c->rs.session->id) : NULL;
}

/* Files named with @path are attached to the message the model sees. */
static void add_mentions(ctl *c, const char *text, zbuf *out) {
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

static void clear_images(ctl *c) {
  for (size_t i = 0; i < c->images.len; i++) {
    free(c->images.items[i].media_type);
    free(c->images.items[i].data);
  }
  c->images.len = 0;
  for (size_t i = 0; i < c->app.attachments.len; i++) free(c->app.attachments.items[i]);
  c->app.attachments.len = 0;
}

/* The compactor follows the current provider, model and session. */
static void prepare_compactor(ctl *c) {
  if (!c->rs.compactor.window) zrun_setup_compaction(&c->rs, NULL);
  else /* /model or /provider may have changed the window */
    c->rs.compactor.window = zcompact_context_window(&c->rs.compact_settings, &c->rs.cfg, c->rs.rp.model);
  c->app.context_window = c->rs.compactor.window;
  c->rs.compactor.main = c->rs.provider;
  c->rs.compactor.main_model = c->rs.rp.model;
  c->rs.compactor.session = c->rs.session;
  c->rs.compactor.task = &c->rs.task;
  c->rs.compactor.instructions = c->rs.instruction_sources;
}

static void start_turn(ctl *c, const char *text) {
  bool side = c->app.side_chat;
  if (side) {
    blank_line(c);
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s↳ btw:%s ", c->app.th.accent, c->app.th.reset);
    zbuf_addstr(&l, c->app.th.user);
    tw_sanitize(&l, text, strlen(text));
    zbuf_addstr(&l, c->app.th.reset);
    tw_wrap(&c->app.commit, l.data, l.len, c->app.width, "", "  ");
    zbuf_release(&l);
  } else {
    tui_app_print_user(&c->app, text);
  }
  zerr err = ZERR_INIT;
  if (!side && !c->rs.session) {
    char title[81];
    zrun_title_from_prompt(text, strlen(text), title);
    if (zrun_setup_session(&c->rs, false, NULL, title, &c->conv, warn_cb, c, &err) < 0) {
      zbuf l = ZBUF_INIT;
      zbuf_addf(&l, "✗ Cannot create the session: %s", err.msg);
      tui_app_print(&c->app, c->app.th.err, l.data);
      zbuf_release(&l);
      return;
    }
    attach_session(c);
  }
  /* A side question runs read-only (plan mode): it must not change what the
   * main conversation is about. */
  zperm_mode mode = side ? ZPERM_PLAN : c->app.mode;
  if (!c->system_prompt || c->prompt_mode != mode) {
    free(c->system_prompt);
    c->system_prompt = xstrdup(zrun_setup_system_prompt(&c->rs, mode));
    c->prompt_mode = mode;
  }
  c->turn_conv = side ? &c->side : &c->conv;
  zbuf full = ZBUF_INIT;
  add_mentions(c, text, &full);
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
    clear_images(c);
  }
  zagent_event um = {.kind = ZAEV_USER_MESSAGE, .text = full.data, .len = full.len, .meta = um_meta};
  if (c->recorder && !side) c->recorder->emit(c->recorder, &um);
  json_decref(um_meta);
  zbuf_release(&full);

  static zsink *sinks[2];
  sinks[0] = &c->sink;
  sinks[1] = c->recorder;
  /* The same assembly as zero exec (cli/run_setup.h): sandboxed commands,
   * the permission engine, checkpoints into the current session, MCP tools,
   * compaction following the current provider and session. */
  zrun_setup_tools(&c->rs, mode, ZAUTO_LOW);
  prepare_compactor(c);
  zagent_release(&c->agent);
  c->agent = (zagent){0};
  zrun_setup_agent(&c->rs, &c->agent);
  c->agent.system_prompt = c->system_prompt;
  c->agent.sinks = sinks;
  c->agent.nsinks = c->recorder && !side ? 2 : 1;
  c->agent.approve = approve;
  c->agent.approve_ud = c;
  /* A side question neither compacts nor writes checkpoints of the main
   * session's history. */
  if (side) c->agent.compactor = NULL;
  zerr_clear(&c->err);
  zcancel_reset();
  c->job = JOB_TURN;
  tui_app_turn_start(&c->app, now_s());
  if (pthread_create(&c->worker, NULL, worker_main, c) != 0) {
    tui_app_turn_end(&c->app, "✗ Cannot start the agent thread; try again.");
    return;
  }
  c->running = true;
}

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

static void leave_side(ctl *c) {
  zconv_release(&c->side);
  c->side = (zconv)ZCONV_INIT;
  c->app.side_chat = false;
  blank_line(c);
  tui_app_print(&c->app, c->app.th.muted, "↩ Back to the main conversation (the side conversation was not saved).");
}

static void compact_done(ctl *c) {
  zcompactor *k = &c->rs.compactor;
  zbuf l = ZBUF_INIT;
  if (c->status == ZRUN_INTERRUPTED)
    zbuf_addstr(&l, "⊘ Compaction cancelled; the conversation is unchanged.");
  else if (c->compact_rc < 0)
    zbuf_addf(&l, "✗ Cannot compact: %s", c->err.msg);
  else
    zbuf_addf(&l, "✓ Compacted: ~%lld → ~%lld tokens (%zu message%s summarized; your last "
              "exchange is kept as it was). %zu messages in the conversation now.",
              (long long)k->last_before, (long long)k->last_after, c->compact_summarized,
              c->compact_summarized == 1 ? "" : "s", c->conv.len);
  tui_app_turn_end(&c->app, NULL);
  blank_line(c);
  tui_app_print(&c->app, c->compact_rc < 0 || c->status == ZRUN_INTERRUPTED ? c->app.th.warn : "",
                l.data);
  zbuf_release(&l);
}

static void turn_done(ctl *c) {
  pthread_join(c->worker, NULL);
  c->running = false;
  /* "Cancelling…" and "Mode changes from the next turn" are over */
  free(c->app.notice);
  c->app.notice = NULL;
  const char *line = NULL;
  if (c->job == JOB_COMPACT) compact_done(c);
  else {
    if (c->status == ZRUN_INTERRUPTED) line = "⊘ Cancelled. The conversation is kept; type to continue.";
    else if (c->status == ZRUN_SUCCESS && !c->app.turn_shown)
      line = "The model sent an empty answer (no text, no tool call). Ask again, or try another "
             "model with /model.";
    tui_app_turn_end(&c->app, line);
  }
  fflush(c->rec_diag);
  if (c->rec_diag_len) {
    tui_app_print(&c->app, c->app.th.warn, c->rec_diag_buf);
    rewind(c->rec_diag);
    c->rec_diag_len = 0;
    c->rec_diag_buf[0] = 0;
  }
  zcancel_reset();
  if (c->app.queue.len && !c->quit) {
    char *next = c->app.queue.items[0];
    memmove(c->app.queue.items, c->app.queue.items + 1, (c->app.queue.len - 1) * sizeof(char *));
    c->app.queue.len--;
    start_turn(c, next);
    free(next);
  }
}

static void cancel_turn(ctl *c) {
  if (!c->running) return;
  zcancel_request();
  pthread_mutex_lock(&c->mu);
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
  c->app.perm_active = false;
  free(c->app.notice);
  c->app.notice = xstrdup("Cancelling…");
}

static void drain(ctl *c) {
  char b[256];
  while (read(c->wake[0], b, sizeof b) > 0) {
  }
  for (;;) {
    pthread_mutex_lock(&c->mu);
    qmsg *m = NULL;
    if (c->q.len) {
      m = c->q.items[0];
      memmove(c->q.items, c->q.items + 1, (c->q.len - 1) * sizeof *c->q.items);
      c->q.len--;
    }
    pthread_mutex_unlock(&c->mu);
    if (!m) break;
    c->app.now = now_s();
    if (m->kind == Q_EVENT) tui_app_event(&c->app, &m->ev);
    else if (m->kind == Q_ASK) {
      tui_ask q = {.tool = m->tool, .arguments = m->args, .reason = m->reason,
                   .workspace = c->rs.workspace, .side = m->side, .code = m->code,
                   .escalate_network = m->escalate_network,
                   .escalate_unsandboxed = m->escalate_unsandboxed,
                   .can_remember = m->can_remember, .grant_kind = m->grant_kind,
                   .grant_value = m->grant_value,
                   .grants_file = m->mcp_grants_file ? m->mcp_grants_file : c->rs.grants.path,
                   .mcp_grant = m->mcp_grants_file != NULL};
      tui_app_ask(&c->app, &q);
    }
    else turn_done(c);
    qmsg_free(m);
  }
}

/* --- slash commands ------------------------------------------------------ */

static void say(ctl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(ctl *c, const char *fmt, ...) {
  zbuf b = ZBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(&b, fmt, ap);
  va_end(ap);
  tui_app_print(&c->app, "", b.data);
  zbuf_release(&b);
}

static void cmd_help_text(ctl *c) {
  say(c, "Commands:");
  for (size_t i = 0; i < tui_ncommands; i++)
    say(c, "  %-13s %-13s %s", tui_commands[i].name, tui_commands[i].args, tui_commands[i].help);
  say(c, "Keys: Enter send · Shift+Enter / Alt+Enter / \\ newline · Esc or Ctrl+C cancel a turn\n"
         "      Ctrl+C twice exit · Shift+Tab mode (ask → auto → plan) · Ctrl+B side panel\n"
         "      Ctrl+O expand the last output · Ctrl+L redraw · Ctrl+Z suspend · Up/Down history\n"
         "      Ctrl+A/E/K/U/W/Y edit · Alt+B/F words · Tab completes /commands and @files");
}

/* Closes the current session (flushed, unlocked). The checkpointer and the
 * recorder point into it, so they go too (zrun_setup_tools makes a new
 * checkpointer for whatever session is current at the next turn). */
static void release_session(ctl *c) {
  if (c->recorder) c->recorder->destroy(c->recorder);
  c->recorder = NULL;
  if (c->rs.checkpoints) zcheckpointer_free(c->rs.checkpoints);
  c->rs.checkpoints = NULL;
  free(c->rs.checkpoints_for);
  c->rs.checkpoints_for = NULL;
  c->rs.compactor.session = NULL;
  if (c->rs.session) {
    zerr e = ZERR_INIT;
    zsession_flush(c->rs.session, &e);
    zsession_close(c->rs.session);
  }
  c->rs.session = NULL;
}

/* Resumes session id into c->conv (zrun_setup_session; the id of an
 * earlier resume is let go first). */
static int reopen_session(ctl *c, const char *id, zerr *err) {
  free(c->rs.resumed_id);
  c->rs.resumed_id = NULL;
  return zrun_setup_session(&c->rs, true, id, NULL, &c->conv, warn_cb, c, err);
}

static void new_session(ctl *c) {
  if (c->app.side_chat) {
    zconv_release(&c->side);
    c->side = (zconv)ZCONV_INIT;
    c->app.side_chat = false;
  }
  release_session(c);
  ztask_release(&c->rs.task);
  ztask_init(&c->rs.task);
  zconv_release(&c->conv);
  c->conv = (zconv)ZCONV_INIT;
  json_decref(c->plan);
  c->plan = json_array();
  json_decref(c->app.plan);
  c->app.plan = NULL;
  c->app.context_tokens = 0;
  attach_session(c);
}

static void show_tail(ctl *c) {
  /* The last exchange of a resumed conversation, for orientation. */
  size_t from = c->conv.len > 4 ? c->conv.len - 4 : 0;
  for (size_t i = from; i < c->conv.len; i++) {
    zmsg *m = &c->conv.items[i];
    if (m->role == ZROLE_USER && m->content) tui_app_print_user(&c->app, m->content);
    else if (m->role == ZROLE_ASSISTANT && m->content && *m->content) {
      tw_lines_push(&c->app.commit, xstrdup(""));
      tui_md_render(m->content, strlen(m->content), c->app.width, &c->app.th, &c->app.commit);
    }
  }
}

static void cmd_resume(ctl *c, const char *arg) {
  zerr err = ZERR_INIT;
  json_t *all = zsession_list(c->rs.session_root, NULL, &err);
  if (!all) {
    say(c, "✗ Cannot list sessions: %s", err.msg);
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
    if (arg && *arg) say(c, "No session matches \"%s\".", arg);
    if (!json_array_size(mine)) say(c, "No sessions in this workspace yet.");
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
  new_session(c);
  if (reopen_session(c, id, &err) < 0) {
    say(c, "✗ Cannot resume %s: %s", id, err.msg);
  } else {
    attach_session(c);
    say(c, "Resumed session %s (%zu messages).", id, c->conv.len);
    show_tail(c);
  }
  free(id);
}

/* The grants the engine holds: saved ("always", from the grants file) and
 * this run's ("session"). The worker adds grants while a turn runs, so the
 * list is read between turns only. */
static void slash_grants(ctl *c) {
  if (c->running) {
    say(c, "Grants are listed when the running turn ends.");
    return;
  }
  size_t shown = 0;
  for (size_t i = 0; i < c->rs.grants.n; i++) {
    const zgrant *g = &c->rs.grants.v[i];
    if (g->scope == ZGRANT_ONCE) continue;
    say(c, "  %s %-7s %-16s %s%s%s", g->allow ? "✓ allow" : "✗ deny ", zgrant_scope_name(g->scope),
        g->tool, zgrant_kind_name(g->kind), g->value ? " " : "", g->value ? g->value : "");
    shown++;
  }
  if (!shown)
    say(c, "No grants yet (a prompt's \"allow for this session\" or \"always allow\" adds one).");
  if (c->rs.grants.path)
    say(c, "Saved grants: %s (zero sandbox grants lists and removes them).", c->rs.grants.path);
}

static void slash_tools(ctl *c) {
  size_t n;
  const ztool *const *tools = ztool_all(&n);
  say(c, "Tools in %s mode (name, side effect, what the permission engine does):",
      zperm_mode_name(c->app.mode));
  /* The engine for this mode; the worker owns it while a turn runs. */
  if (!c->running) zrun_setup_tools(&c->rs, c->app.mode, ZAUTO_LOW);
  for (size_t i = 0; i < n; i++) {
    if (!zperm_tool_visible(c->app.mode, tools[i])) continue;
    zperm_decision d = zperm_decide(&c->rs.perm, tools[i], NULL);
    /* one row each: the first sentence of the description, cut to the width */
    const char *desc = tools[i]->description ? tools[i]->description : "";
    const char *stop = strstr(desc, ". ");
    size_t dl = stop ? (size_t)(stop - desc) : strcspn(desc, "\n");
    if (dl && desc[dl - 1] == '.') dl--;
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "  %-15s %-7s %-6s %s%.*s%s", tools[i]->name,
              zside_effect_name(tools[i]->side_effect), zperm_action_name(d.action), c->app.th.muted,
              (int)dl, desc, c->app.th.reset);
    tw_lines_push(&c->app.commit, tw_truncate(l.data, c->app.width - 1));
    zbuf_release(&l);
  }
  if (c->rs.mcp.n) say(c, "MCP servers add their tools too (zero mcp list shows them).");
}

/* The first snapshot of every file the tools changed this session:
 * path -> {existed, sha256?, tooLarge?} (session_checkpoint events). */
static int collect_snapshots(void *ud, const json_t *ev) {
  json_t *first = ud;
  if (strcmp(zjson_str_or(ev, "type", ""), "session_checkpoint")) return 0;
  size_t i;
  json_t *f;
  json_array_foreach(json_object_get(json_object_get(ev, "payload"), "files"), i, f) {
    const char *path = zjson_str(f, "path");
    if (path && !json_object_get(first, path)) json_object_set(first, path, f);
  }
  return 0;
}

/* Runs a git command in the workspace; its output (stdout and stderr) in
 * out. Returns the exit status, -1 when it cannot run. */
static int git_in(ctl *c, const char *args, zbuf *out) {
  zbuf cmd = ZBUF_INIT;
  zbuf_addstr(&cmd, "git -C '");
  for (const char *p = c->rs.workspace; *p; p++) {
    if (*p == '\'') zbuf_addstr(&cmd, "'\\''");
    else zbuf_addch(&cmd, *p);
  }
  zbuf_addf(&cmd, "' %s 2>&1 </dev/null", args);
  FILE *f = popen(cmd.data, "r");
  zbuf_release(&cmd);
  if (!f) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    if (out->len < 64 * 1024) zbuf_add(out, buf, n);
  int rc = pclose(f);
  zbuf_rtrim(out);
  return rc;
}

/* /diff: what the tools changed in this session — every file a tool wrote,
 * against its content before the first change (the session's checkpoints),
 * as a diff — and, in a git repository, the uncommitted changes git sees
 * (those include what shell commands changed, which checkpoints cannot). */
static void cmd_diff(ctl *c) {
  size_t shown = 0;
  if (c->rs.session) {
    zerr err = ZERR_INIT;
    /* while a turn runs the worker owns the session (its events are whole
     * lines in the file either way) */
    if (!c->running) zsession_flush(c->rs.session, &err);
    json_t *first = json_object();
    zsession_for_each_event(c->rs.session_root, c->rs.session->id, collect_snapshots, first, NULL,
                            &err);
    char *blobs = zpath_join(c->rs.session->dir, "checkpoints/blobs");
    const char *path;
    json_t *f;
    json_object_foreach(first, path, f) {
      zbuf before = ZBUF_INIT, now = ZBUF_INIT;
      bool existed = json_is_true(json_object_get(f, "existed"));
      const char *sha = zjson_str(f, "sha256");
      bool known = !existed || sha;
      if (existed && sha) {
        char *bp = zpath_join(blobs, sha);
        known = zfs_read_file(bp, &before, 5u << 20, NULL) == 0;
        free(bp);
      }
      bool exists_now = zfs_read_file(path, &now, 5u << 20, NULL) == 0;
      char *rel = zpath_relative(c->rs.workspace, path);
      const char *shown_path = rel ? rel : path;
      if (!known) {
        say(c, "~ %s (changed; too large to diff)", shown_path);
        shown++;
      } else if (existed != exists_now || before.len != now.len ||
                 memcmp(before.data ? before.data : "", now.data ? now.data : "", now.len)) {
        tw_lines d = {0};
        size_t add = 0, del = 0;
        tui_diff_render(before.data ? before.data : "", now.data ? now.data : "", 1,
                        c->app.width, &c->app.th, 40, &d, &add, &del);
        blank_line(c);
        zbuf h = ZBUF_INIT;
        zbuf_addf(&h, "%s%s %s%s %s+%zu%s %s-%zu%s", c->app.th.bold,
                  !existed ? "created" : !exists_now ? "deleted" : "modified", shown_path,
                  c->app.th.reset, c->app.th.add, add, c->app.th.reset, c->app.th.del, del,
                  c->app.th.reset);
        tw_lines_push(&c->app.commit, tw_truncate(h.data, c->app.width));
        zbuf_release(&h);
        for (size_t i = 0; i < d.len; i++) tw_lines_push(&c->app.commit, xstrdup(d.items[i]));
        tw_lines_free(&d);
        shown++;
      }
      free(rel);
      zbuf_release(&before);
      zbuf_release(&now);
    }
    free(blobs);
    json_decref(first);
  }
  if (!shown) say(c, "No file changes by the tools in this session.");
  zbuf out = ZBUF_INIT;
  if (git_in(c, "rev-parse --is-inside-work-tree", &out) == 0) {
    zbuf_reset(&out);
    int rc = git_in(c, "diff --stat HEAD", &out);
    blank_line(c);
    if (rc != 0) say(c, "git diff failed (a repository without a commit?): %s", out.data);
    else if (out.len) say(c, "Uncommitted changes (git diff --stat HEAD, including what commands changed):\n%s", out.data);
    else say(c, "No uncommitted changes in git.");
  } else if (shown) {
    say(c, "(Files changed by shell commands are not tracked outside a git repository.)");
  }
  zbuf_release(&out);
}

static void slash_doctor(ctl *c) {
  const char *term = getenv("TERM");
  static const char *depths[] = {"none (NO_COLOR or dumb)", "16 colors", "256 colors", "truecolor"};
  say(c, "terminal   TERM=%s · %dx%d · %s · %s on resize", term ? term : "(unset)", c->app.width,
      c->app.height, depths[c->app.th.depth], tui_term_reflows() ? "reflows" : "no reflow");
  say(c, "config     user %s%s", c->rs.cfg.user_path ? c->rs.cfg.user_path : "(none)",
      c->rs.cfg.user_path && zfs_exists(c->rs.cfg.user_path) ? "" : " (not present)");
  say(c, "provider   %s (%s) at %s · model %s · key %s", c->rs.rp.name, c->rs.rp.kind,
      c->rs.rp.base_url, c->rs.rp.model,
      c->rs.rp.api_key && *c->rs.rp.api_key ? "set" : "none (keyless endpoint)");
  say(c, "sessions   %s%s", c->rs.session_root,
      zfs_is_dir(c->rs.session_root) ? "" : " (created on the first message)");
  say(c, "workspace  %s", c->rs.workspace);
}

/* --- /fork, /rewind, /compact, /image ------------------------------------ */

/* /fork: the current session is copied (zsession_fork, like zero sessions
 * fork and zero exec --fork) and the conversation continues in the copy;
 * the original is left as it was. */
static void cmd_fork(ctl *c) {
  if (!c->rs.session) {
    say(c, "Nothing to fork yet: the session is created with your first message.");
    return;
  }
  char *parent = xstrdup(c->rs.session->id);
  zerr err = ZERR_INIT;
  release_session(c);
  zconv_release(&c->conv);
  c->conv = (zconv)ZCONV_INIT;
  if (zrun_setup_fork(&c->rs, parent, &c->conv, warn_cb, c, &err) < 0) {
    say(c, "✗ Cannot fork %s: %s", parent, err.msg);
    /* stay in the original */
    zconv_release(&c->conv);
    c->conv = (zconv)ZCONV_INIT;
    if (c->rs.session) zsession_close(c->rs.session);
    c->rs.session = NULL;
    zerr e2 = ZERR_INIT;
    if (reopen_session(c, parent, &e2) < 0)
      say(c, "✗ Cannot reopen %s either: %s. /resume picks a session.", parent, e2.msg);
  } else {
    say(c, "Forked %s into %s (%zu messages). You are in the fork now; the original is "
        "unchanged (zero --resume %s).", parent, c->rs.session->id, c->conv.len, parent);
  }
  attach_session(c);
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

static void rewind_plan_lines(ctl *c, const json_t *plan) {
  size_t i;
  json_t *r;
  size_t nrestore = 0;
  json_array_foreach(json_object_get(plan, "restore"), i, r) {
    const char *action = zjson_str_or(r, "action", "");
    if (!strcmp(action, "unchanged")) continue;
    say(c, "  %s %s", !strcmp(action, "delete") ? "✗ delete " : "↺ restore", zjson_str_or(r, "path", ""));
    nrestore++;
  }
  json_array_foreach(json_object_get(plan, "notRestorable"), i, r) {
    if (zjson_str(r, "path"))
      say(c, "  ⚠ not restorable: %s (%s)", zjson_str(r, "path"), zjson_str_or(r, "reason", ""));
    else
      say(c, "  ⚠ not restorable: event %lld ran `%s`; %s", (long long)zjson_int_or(r, "sequence", 0),
          zjson_str_or(r, "command", ""), zjson_str_or(r, "reason", ""));
  }
  if (!nrestore) say(c, "  (no files change)");
}

/* /rewind          a picker over your messages
 * /rewind SEQ      the plan for going back to before message SEQ (the
 *                  files that change), and a confirmation picker
 * /rewind apply SEQ  does it: files restored, the log cut, the message put
 *                  back into the composer to edit and send again */
static void cmd_rewind(ctl *c, const char *arg) {
  if (!c->rs.session) {
    say(c, "Nothing to rewind: this session has no messages yet.");
    return;
  }
  if (!strcmp(arg, "cancel")) {
    say(c, "Rewind cancelled; nothing changed.");
    return;
  }
  bool apply = !strncmp(arg, "apply ", 6);
  const char *num = apply ? arg + 6 : arg;
  zerr err = ZERR_INIT;
  char *id = xstrdup(c->rs.session->id);
  zerr fe = ZERR_INIT;
  zsession_flush(c->rs.session, &fe);
  user_msgs u = {.list = json_array()};
  if (zsession_for_each_event(c->rs.session_root, id, collect_user, &u, NULL, &err) < 0) {
    say(c, "✗ Cannot read the session: %s", err.msg);
    goto out;
  }
  if (!*num) {
    size_t n = json_array_size(u.list);
    if (!n) {
      say(c, "No messages to go back to.");
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
    say(c, "Pick the message to go back to: it and everything after it are removed, and the "
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
    say(c, "✗ %s is not one of your messages in this session; /rewind without an argument "
           "lists them.", num);
    goto out;
  }
  /* zsession_rewind takes the session lock: let go of it around the call. */
  release_session(c);
  json_t *plan = NULL;
  int rc = zsession_rewind(c->rs.session_root, id, seq - 1, !apply, &plan, &err);
  if (rc < 0) say(c, "✗ Cannot rewind: %s", err.msg);
  else if (!apply) {
    say(c, "Rewind to before your message #%zu (removes %lld events):", idx_of(u.list, msg) + 1,
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
    say(c, "✗ Cannot reopen the session %s: %s. /resume picks a session.", id, e2.msg);
    if (c->rs.session) zsession_close(c->rs.session);
    c->rs.session = NULL;
  } else if (apply && rc == 0) {
    /* The task state is rebuilt from what is left of the log. */
    ztask_release(&c->rs.task);
    ztask_init(&c->rs.task);
    if (ztask_replay(&c->rs.task, c->rs.session_root, id, &e2) < 0 ||
        zsession_set_meta(c->rs.session, "taskState", ztask_to_json(&c->rs.task), &e2) < 0)
      say(c, "⚠ The session's task state was not updated: %s", e2.msg);
    json_decref(c->app.plan);
    c->app.plan = NULL;
    char *t = typed_text(zjson_str_or(msg, "text", ""));
    tui_composer_set(&c->app.comp, t);
    free(t);
    say(c, "↺ Rewound: %zu messages remain; the files are as they were before that message. "
           "It is back in the composer: edit it and press Enter, or clear it (Ctrl+U).",
        c->conv.len);
  }
  attach_session(c);
out:
  json_decref(u.list);
  free(id);
}

/* /compact: the compactor now, on the worker (it asks a model). */
static void cmd_compact(ctl *c) {
  if (c->conv.len < 2) {
    say(c, "Nothing to compact yet.");
    return;
  }
  if (!c->system_prompt || c->prompt_mode != c->app.mode) {
    free(c->system_prompt);
    c->system_prompt = xstrdup(zrun_setup_system_prompt(&c->rs, c->app.mode));
    c->prompt_mode = c->app.mode;
  }
  zrun_setup_tools(&c->rs, c->app.mode, ZAUTO_LOW);
  prepare_compactor(c);
  zerr_clear(&c->err);
  zcancel_reset();
  c->job = JOB_COMPACT;
  c->compact_rc = 0;
  tui_app_turn_start(&c->app, now_s());
  say(c, "Compacting: the conversation before your last message is summarized…");
  if (pthread_create(&c->worker, NULL, worker_main, c) != 0) {
    tui_app_turn_end(&c->app, "✗ Cannot start the compaction thread; try again.");
    return;
  }
  c->running = true;
}

/* /image PATH: attached to the next message; /image clear drops them. */
/* A path as terminals paste a dropped file: 'quoted', "quoted", with
 * backslash-escaped spaces, or as a file:// URL. Caller frees. */
static char *unquote_path(const char *s) {
  if (!strncmp(s, "file:///", 8)) s += 7;
  size_t n = strlen(s);
  if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) return xstrndup(s + 1, n - 2);
  zbuf b = ZBUF_INIT;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n) i++;
    zbuf_addch(&b, s[i]);
  }
  return zbuf_detach(&b, NULL);
}

static void cmd_image(ctl *c, const char *arg) {
  if (!*arg) {
    say(c, "Attach an image to your next message: /image PATH (PNG, JPEG, GIF or WebP, up to "
           "10 MiB). /image clear removes the attached ones.");
    return;
  }
  if (!strcmp(arg, "clear")) {
    size_t n = c->images.len;
    clear_images(c);
    say(c, n ? "Removed %zu attached image%s." : "No images were attached.", n, n == 1 ? "" : "s");
    return;
  }
  zmodel_info mi;
  zmodel_lookup(&c->rs.cfg, c->rs.rp.model, &mi);
  if (mi.known && !mi.images) {
    say(c, "✗ The model %s does not accept images. Switch to a vision model first (/model lists "
           "them), then attach the image again.", c->rs.rp.model);
    return;
  }
  char *given = unquote_path(arg);
  arg = given;
  char *path = arg[0] == '~' && arg[1] == '/' ? zpath_join(zpath_home(), arg + 2)
                                              : zpath_absolute(arg, c->rs.workspace);
  zbuf data = ZBUF_INIT;
  zerr err = ZERR_INIT;
  struct stat st;
  if (!path || stat(path, &st) < 0)
    say(c, "✗ Cannot attach %s: %s.", arg, strerror(errno));
  else if (!S_ISREG(st.st_mode))
    say(c, "✗ Cannot attach %s: not a file.", arg);
  else if ((uint64_t)st.st_size > ZIMAGE_MAX)
    say(c, "✗ %s is %lld bytes; images up to 10 MiB can be attached. Scale it down first.", arg,
        (long long)st.st_size);
  else if (zfs_read_file(path, &data, ZIMAGE_MAX, &err) < 0)
    say(c, "✗ Cannot read %s: %s", arg, err.msg);
  else {
    unsigned w, h;
    const char *type = zimage_sniff((const unsigned char *)data.data, data.len, &w, &h);
    if (!type) say(c, "✗ %s is not a PNG, JPEG, GIF or WebP image.", arg);
    else {
      zbuf b64 = ZBUF_INIT;
      zimage_base64((const unsigned char *)data.data, data.len, &b64);
      zimage im = {.media_type = xstrdup(type), .data = zbuf_detach(&b64, NULL)};
      zvec_push(&c->images, im);
      zbuf l = ZBUF_INIT;
      tw_sanitize(&l, arg, strlen(arg));
      zbuf_addf(&l, " (%s", type + 6);
      if (w && h) zbuf_addf(&l, ", %u×%u", w, h);
      zbuf_addf(&l, ", %zu KiB)", (data.len + 1023) / 1024);
      say(c, "Attached %s to your next message.", l.data);
      zvec_push(&c->app.attachments, zbuf_detach(&l, NULL));
      if (!mi.known)
        say(c, "  (the model registry does not know %s; if it cannot read images the provider "
               "will say so)", c->rs.rp.model);
    }
  }
  zbuf_release(&data);
  free(path);
  free(given);
}

/* --- /model and /provider pickers --------------------------------------- */

/* The current model and its context window, for the status line and the
 * side panel. */
static void show_model(ctl *c) {
  free(c->app.model);
  c->app.model = xstrdup(c->rs.rp.model);
  c->app.context_window = zcompact_context_window(&c->rs.compact_settings, &c->rs.cfg, c->rs.rp.model);
}

static const char *ctx_words(int64_t t) {
  static char b[32];
  if (t >= 1000000 && t % 1000000 == 0) snprintf(b, sizeof b, "%lldM", (long long)(t / 1000000));
  else if (t >= 1000000) snprintf(b, sizeof b, "%.1fM", (double)t / 1e6);
  else snprintf(b, sizeof b, "%lldk", (long long)((t + 500) / 1000));
  return b;
}

typedef struct model_rows {
  ctl *c;
  ZVEC(char *) labels;
  ZVEC(char *) values;
} model_rows;

static void model_row(model_rows *r, const char *id, const zmodel_info *m) {
  for (size_t i = 0; i < r->values.len; i++)
    if (!strcmp(r->values.items[i], id)) return;
  zbuf l = ZBUF_INIT;
  bool cur = r->c->rs.rp.model && !strcmp(id, r->c->rs.rp.model);
  zbuf_addf(&l, "%s %-30s", cur ? "●" : " ", id);
  if (m && m->known) {
    zbuf_addf(&l, " %5s ctx", ctx_words(m->context_window));
    zbuf_addf(&l, " · %s", m->tools ? "tools" : "no tools");
    if (m->images) zbuf_addstr(&l, " · images");
    if (m->efforts && m->efforts[0]) zbuf_addstr(&l, " · reasoning");
    if (m->priced) zbuf_addf(&l, " · $%.2f/$%.2f per 1M", m->input_price, m->output_price);
  } else {
    zbuf_addstr(&l, " (not in the registry)");
  }
  zvec_push(&r->labels, zbuf_detach(&l, NULL));
  zvec_push(&r->values, xstrdup(id));
}

static void model_each_cb(void *ud, const zmodel_info *m) { model_row(ud, m->id, m); }

/* The model registry (config/models.h) for the current provider's family,
 * the current model first, then the models the config's profiles name. */
static void model_picker(ctl *c) {
  model_rows r = {.c = c};
  zmodel_info mi;
  zmodel_lookup(&c->rs.cfg, c->rs.rp.model, &mi);
  model_row(&r, c->rs.rp.model, &mi);
  const char *family = zmodel_family_for_kind(c->rs.rp.kind);
  /* A compatible endpoint (a local runtime, a gateway) says what it serves:
   * those first; then the registry (the whole of it when the family is not
   * known). */
  size_t ne = 0;
  char **served = NULL;
  if (c->rs.rp.kind && strstr(c->rs.rp.kind, "compatible"))
    served = tui_endpoint_models(c->rs.rp.base_url, c->rs.rp.api_key, 200, 2000, &ne);
  for (size_t i = 0; i < ne; i++) {
    zmodel_lookup(&c->rs.cfg, served[i], &mi);
    model_row(&r, served[i], &mi);
    free(served[i]);
  }
  free(served);
  zmodel_each(&c->rs.cfg, family, model_each_cb, &r);
  for (size_t i = 0; i < c->rs.cfg.n_providers; i++) {
    const char *m = c->rs.cfg.providers[i].model;
    if (!m) continue;
    zmodel_lookup(&c->rs.cfg, m, &mi);
    model_row(&r, m, &mi);
  }
  say(c, "Model: %s (provider %s%s%s). Pick one, or /model NAME for any name the provider "
         "serves.", c->rs.rp.model, c->rs.rp.name, ne ? "; the endpoint lists " : "",
      ne ? "the first ones" : "");
  tui_app_picker(&c->app, "/model", "Switch model", (const char *const *)r.labels.items,
                 (const char *const *)r.values.items, r.values.len);
  for (size_t i = 0; i < r.values.len; i++) free(r.labels.items[i]), free(r.values.items[i]);
  zvec_free(&r.labels);
  zvec_free(&r.values);
}

/* The configured provider profiles, then the built-in presets that can be
 * used as they are: a local runtime, or a hosted one whose key variable is
 * set. */
static void provider_picker(ctl *c) {
  ZVEC(char *) labels = {0};
  ZVEC(char *) values = {0};
  for (size_t i = 0; i < c->rs.cfg.n_providers; i++) {
    const zprofile *p = &c->rs.cfg.providers[i];
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s %-16s %-18s %-24s %s", !strcmp(p->name, c->rs.rp.name) ? "●" : " ", p->name,
              p->kind ? p->kind : "", p->model ? p->model : "", p->base_url ? p->base_url : "");
    zvec_push(&labels, zbuf_detach(&l, NULL));
    zvec_push(&values, xstrdup(p->name));
  }
  size_t np;
  const zpreset *ps = zpreset_all(&np);
  for (size_t i = 0; i < np; i++) {
    bool dup = false;
    for (size_t k = 0; k < values.len; k++) dup |= !strcmp(values.items[k], ps[i].name);
    const char *key = ps[i].key_env ? getenv(ps[i].key_env) : NULL;
    bool usable = ps[i].local || (key && *key);
    if (dup || !usable || !ps[i].model) continue;
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s %-16s %-18s %-24s %s (preset; %s)", !strcmp(ps[i].name, c->rs.rp.name) ? "●" : " ",
              ps[i].name, ps[i].kind, ps[i].model, ps[i].base_url,
              ps[i].local ? "local, no key" : ps[i].key_env);
    zvec_push(&labels, zbuf_detach(&l, NULL));
    zvec_push(&values, xstrdup(ps[i].name));
  }
  say(c, "Provider: %s (%s at %s), model %s.", c->rs.rp.name, c->rs.rp.kind, c->rs.rp.base_url,
      c->rs.rp.model);
  if (!values.len)
    say(c, "No provider profiles are configured; add one to %s (docs/config.md) or set a "
           "preset's key variable (zero providers list shows them).",
        c->rs.cfg.user_path ? c->rs.cfg.user_path : "~/.config/zero/config.json");
  else
    tui_app_picker(&c->app, "/provider", "Switch provider",
                   (const char *const *)labels.items, (const char *const *)values.items, values.len);
  for (size_t i = 0; i < values.len; i++) free(labels.items[i]), free(values.items[i]);
  zvec_free(&labels);
  zvec_free(&values);
}

static void run_command(ctl *c, const char *line) {
  char name[32];
  size_t n = strcspn(line, " \n");
  snprintf(name, sizeof name, "%.*s", (int)n, line);
  const char *arg = line + n;
  while (*arg == ' ') arg++;
  tw_lines_push(&c->app.commit, xstrdup(""));
  {
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s› %s%s", c->app.th.muted, line, c->app.th.reset);
    tw_lines_push(&c->app.commit, tw_truncate(l.data, c->app.width));
    zbuf_release(&l);
  }
  bool needs_idle = !strcmp(name, "/model") || !strcmp(name, "/new") || !strcmp(name, "/resume") ||
                    !strcmp(name, "/add-dir");
  bool always_idle = !strcmp(name, "/fork") || !strcmp(name, "/rewind") || !strcmp(name, "/compact");
  if (always_idle && c->running) {
    say(c, "%s waits until the running turn ends (Esc cancels it).", name);
    return;
  }
  if (always_idle && c->app.side_chat) {
    say(c, "%s works on the main conversation; Ctrl+C leaves the side conversation first.", name);
    return;
  }
  if (needs_idle && c->running && *arg) {
    say(c, "%s waits until the running turn ends (Esc cancels it).", name);
    return;
  }
  zerr err = ZERR_INIT;
  if (!strcmp(name, "/help")) cmd_help_text(c);
  else if (!strcmp(name, "/quit") || !strcmp(name, "/exit")) c->quit = true;
  else if (!strcmp(name, "/model")) {
    if (!*arg) model_picker(c);
    else if (zrun_setup_switch_model(&c->rs, arg, &err) < 0) {
      say(c, "✗ %s", err.msg);
    } else {
      show_model(c);
      free(c->system_prompt);
      c->system_prompt = NULL;
      zmodel_info mi;
      zmodel_lookup(&c->rs.cfg, c->rs.rp.model, &mi);
      if (mi.known)
        say(c, "Model is now %s (%s context%s).", c->rs.rp.model, ctx_words(mi.context_window),
            mi.images ? ", reads images" : "");
      else
        say(c, "Model is now %s. It is not in the model registry, so a %s context window is "
               "assumed (preferences.contextWindow sets it).", c->rs.rp.model,
            ctx_words(ZMODEL_DEFAULT_CONTEXT));
    }
  } else if (!strcmp(name, "/btw")) {
    if (c->running) say(c, "/btw waits until the running turn ends (Esc cancels it).");
    else if (!*arg) say(c, "Ask something: /btw QUESTION. It runs in a copy of this conversation.");
    else {
      if (!c->app.side_chat) {
        conv_copy(&c->side, &c->conv);
        c->app.side_chat = true;
      }
      start_turn(c, arg);
    }
  } else if (!strcmp(name, "/provider")) {
    if (!*arg) provider_picker(c);
    else if (c->running) say(c, "/provider waits until the running turn ends (Esc cancels it).");
    else if (zrun_setup_switch_provider(&c->rs, arg, &err) < 0) say(c, "✗ %s", err.msg);
    else {
      show_model(c);
      free(c->system_prompt);
      c->system_prompt = NULL;
      say(c, "Provider is now %s (%s at %s), model %s.", c->rs.rp.name, c->rs.rp.kind,
          c->rs.rp.base_url, c->rs.rp.model);
    }
  } else if (!strcmp(name, "/new")) {
    if (c->running) say(c, "/new waits until the running turn ends (Esc cancels it).");
    else {
      new_session(c);
      say(c, "New session: it is created with your next message.");
    }
  } else if (!strcmp(name, "/resume")) {
    if (c->running) say(c, "/resume waits until the running turn ends (Esc cancels it).");
    else cmd_resume(c, arg);
  } else if (!strcmp(name, "/context")) {
    int64_t window = zcompact_context_window(&c->rs.compact_settings, &c->rs.cfg, c->rs.rp.model);
    say(c, "Context window of %s: %s tokens; compaction starts at %d%%.", c->rs.rp.model,
        ctx_words(window), (int)(ZCOMPACT_THRESHOLD * 100));
    if (c->app.context_tokens)
      say(c, "Last request: %lld tokens (%.1f%% of the window).", (long long)c->app.context_tokens,
          window ? 100.0 * (double)c->app.context_tokens / (double)window : 0.0);
    if (c->running) {
      /* the worker is extending the conversation: not ours to read now */
      say(c, "The conversation's size is shown when the running turn ends.");
    } else {
      zconv *cv = c->app.side_chat ? &c->side : &c->conv;
      int64_t est = zcompact_estimate_raw(cv, c->system_prompt, NULL);
      say(c, "Conversation: %zu messages, ~%lld tokens estimated (system prompt included, tool "
             "schemas not). /compact summarizes it now.", cv->len, (long long)est);
    }
  } else if (!strcmp(name, "/usage")) {
    zmodel_info mi;
    zmodel_lookup(&c->rs.cfg, c->rs.rp.model, &mi);
    say(c, "Tokens this session: %lld in (%lld from cache) · %lld out · %lld total.",
        (long long)c->app.prompt_sum, (long long)c->app.cached_sum,
        (long long)c->app.completion_sum, (long long)c->app.total_tokens);
    if (mi.priced)
      say(c, "Estimated cost at %s prices: $%.4f (registry prices; a model switched mid-session "
             "is priced as the current one).", c->rs.rp.model,
          zmodel_cost(&mi, c->app.prompt_sum, c->app.cached_sum, c->app.completion_sum));
    else
      say(c, "No price is known for %s (zero models lists the priced ones).", c->rs.rp.model);
  } else if (!strcmp(name, "/permissions")) {
    say(c, "Permission mode: %s (Shift+Tab cycles ask → auto → plan).", zperm_mode_name(c->app.mode));
    slash_grants(c);
  } else if (!strcmp(name, "/plan")) {
    if (c->app.mode != ZPERM_PLAN) {
      c->app.mode = ZPERM_PLAN;
      say(c, "Plan mode: read-only tools only, from the next turn. Shift+Tab leaves it.");
    } else if (c->app.plan) {
      c->app.plan_changed = true;
      tui_app_turn_end(&c->app, NULL);
    } else {
      say(c, "Already in plan mode; no plan yet.");
    }
  } else if (!strcmp(name, "/fork")) cmd_fork(c);
  else if (!strcmp(name, "/rewind")) cmd_rewind(c, arg);
  else if (!strcmp(name, "/compact")) cmd_compact(c);
  else if (!strcmp(name, "/image")) cmd_image(c, arg);
  else if (!strcmp(name, "/tools")) slash_tools(c);
  else if (!strcmp(name, "/add-dir")) {
    if (!*arg) say(c, "Name the directory: /add-dir DIR (relative to %s or absolute).", c->rs.workspace);
    else if (c->running) say(c, "/add-dir waits until the running turn ends (Esc cancels it).");
    else {
      const char *added = NULL;
      if (zrun_setup_add_dir(&c->rs, arg, &added, &err) < 0) say(c, "✗ /add-dir: %s", err.msg);
      else say(c, "Tools may now also write in %s.", added);
    }
  } else if (!strcmp(name, "/diff")) cmd_diff(c);
  else if (!strcmp(name, "/theme")) {
    const char *t = *arg ? arg : (!strcmp(c->app.th.name, "dark") ? "light" : "dark");
    if (tui_theme_init(&c->app.th, t, c->app.th.depth) < 0) say(c, "✗ Unknown theme %s; use dark or light.", t);
    else {
      tui_screen_invalidate(&c->app.scr);
      say(c, "Theme: %s.", c->app.th.name);
    }
  } else if (!strcmp(name, "/config")) {
    say(c, "User config:    %s", c->rs.cfg.user_path ? c->rs.cfg.user_path : "(none)");
    say(c, "Project config: %s", c->rs.cfg.project_path ? c->rs.cfg.project_path : "(none)");
    say(c, "Active provider %s (%s), %s, model %s, maxTurns %d", c->rs.rp.name, c->rs.rp.kind,
        c->rs.rp.base_url, c->rs.rp.model, c->rs.cfg.max_turns);
  } else if (!strcmp(name, "/doctor")) slash_doctor(c);
  else say(c, "Unknown command %s. /help lists the commands.", name);
}

/* --- keys ---------------------------------------------------------------- */

static void answer_permission(ctl *c) {
  pthread_mutex_lock(&c->mu);
  free(c->perm_note);
  c->perm_note = c->app.perm_note.len ? xstrdup(c->app.perm_note.data) : NULL;
  c->perm_action = c->app.perm_answer;
  c->perm_scope = c->app.perm_scope == TUI_PERM_ALWAYS    ? ZGRANT_ALWAYS
                  : c->app.perm_scope == TUI_PERM_SESSION ? ZGRANT_SESSION
                                                          : ZGRANT_ONCE;
  c->perm_answered = true;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
  zbuf_reset(&c->app.perm_note);
}

/* Ctrl+Z or SIGTSTP: clear the live region, restore the terminal, stop;
 * on fg, raw mode again and a full redraw. */
static void suspend(ctl *c) {
  tui_screen_erase_live(&c->app.scr);
  flush_out(c);
  tui_term_suspend();
  tui_screen_invalidate(&c->app.scr);
}

static void handle_key(ctl *c, const tui_key *k) {
  char *text = NULL;
  tui_action act = tui_app_key(&c->app, k, &text);
  switch (act) {
    case TUI_ACT_SUBMIT:
      if (c->running) zvec_push(&c->app.queue, steal_pointer(&text));
      else start_turn(c, text);
      break;
    case TUI_ACT_COMMAND: run_command(c, text); break;
    case TUI_ACT_CANCEL: cancel_turn(c); break;
    case TUI_ACT_PERMISSION: answer_permission(c); break;
    case TUI_ACT_QUIT: c->quit = true; break;
    case TUI_ACT_SUSPEND: suspend(c); break;
    case TUI_ACT_MODE:
      free(c->app.notice);
      c->app.notice = c->running ? xstrdup("Mode changes from the next turn") : NULL;
      break;
    case TUI_ACT_LEAVE_SIDE: leave_side(c); break;
    case TUI_ACT_NONE: break;
  }
  free(text);
}

static void read_input(ctl *c) {
  char buf[65536];
  ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
  if (n == 0) {
    c->quit = true; /* the terminal closed */
    return;
  }
  if (n < 0) return;
  tui_keys_feed(&c->keys, buf, (size_t)n);
  tui_key k;
  while (!c->quit && tui_keys_next(&c->keys, &k, false)) handle_key(c, &k);
}

/* --- arguments ----------------------------------------------------------- */

static char *history_path(const char *workspace) {
  /* $XDG_DATA_HOME/zero/history/<fnv1a64(workspace)>.jsonl */
  uint64_t h = 1469598103934665603ULL;
  for (const char *p = workspace; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
  char *root = zsession_root(); /* …/zero/sessions */
  char *base = xstrdup(root);
  char *slash = strrchr(base, '/');
  if (slash) *slash = 0;
  zbuf p = ZBUF_INIT;
  zbuf_addf(&p, "%s/history", base);
  /* the whole chain: on a first run not even $XDG_DATA_HOME/zero exists yet */
  zerr err = ZERR_INIT;
  (void)zfs_mkdir_p(p.data, 0700, &err); /* best effort: history is a convenience */
  zbuf_addf(&p, "/%016llx.jsonl", (unsigned long long)h);
  free(root);
  free(base);
  return zbuf_detach(&p, NULL);
}

int cmd_tui(int argc, char **argv) {
  ctl *c = xcalloc(1, sizeof *c);
  zerr err = ZERR_INIT;
  int rc = ZEXIT_SUCCESS;
  if (tui_args_parse(argc, argv, &c->args, &err) < 0) {
    fprintf(stderr, "zero: %s\n\n", err.msg);
    tui_args_usage(stderr);
    free(c->args.add_dirs);
    free(c);
    return ZEXIT_USAGE;
  }
  if (c->args.help) {
    tui_args_usage(stdout);
    free(c->args.add_dirs);
    free(c);
    return ZEXIT_SUCCESS;
  }
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    fprintf(stderr,
            "zero: the interactive UI needs a terminal, but %s not one.\n"
            "For scripts and pipes use zero exec, e.g.:\n"
            "  zero exec \"explain what src/main.c does\"\n"
            "  echo \"list the files\" | zero exec\n"
            "See zero exec --help.\n",
            !isatty(STDIN_FILENO) ? "stdin is" : "stdout is");
    free(c->args.add_dirs);
    free(c);
    return ZEXIT_USAGE;
  }
  const char *theme = c->args.theme ? c->args.theme : getenv("ZERO_THEME");
  if (theme && *theme && strcmp(theme, "dark") && strcmp(theme, "light")) {
    fprintf(stderr, "zero: unknown theme \"%s\"; use --theme dark or --theme light.\n", theme);
    free(c->args.add_dirs);
    free(c);
    return ZEXIT_USAGE;
  }

  zcancel_install();
  zhttp_global_init();
  c->conv = (zconv)ZCONV_INIT;
  c->side = (zconv)ZCONV_INIT;
  c->plan = json_array();
  zconfig_flags flags = {.provider = c->args.provider, .model = c->args.model};
  c->rs.plan = json_incref(c->plan);
  if (zrun_setup_workspace(&c->rs, c->args.cwd, c->args.add_dirs, c->args.n_add_dirs, &err) < 0 ||
      zrun_setup_sandbox(&c->rs, &err) < 0) {
    fprintf(stderr, "zero: %s\n", err.msg);
    rc = ZEXIT_USAGE;
    goto out_early;
  }
  if (zrun_setup_provider(&c->rs, &flags, &err) < 0 && err.kind == ZE_CONFIG &&
      c->rs.cfg.n_providers == 0 && !c->args.provider) {
    /* First run: nothing configured. */
    char *path = c->rs.cfg.user_path ? xstrdup(c->rs.cfg.user_path) : NULL;
    int w = path ? tui_setup_wizard(stdin, stdout, path, &err) : -1;
    free(path);
    if (w != 0) {
      if (w < 0) fprintf(stderr, "zero: %s\n", err.msg[0] ? err.msg : "setup failed");
      rc = w < 0 ? ZEXIT_PROVIDER : ZEXIT_SUCCESS;
      goto out_early;
    }
    zresolved_provider_release(&c->rs.rp);
    zconfig_release(&c->rs.cfg);
    memset(&c->rs.cfg, 0, sizeof c->rs.cfg);
    memset(&c->rs.rp, 0, sizeof c->rs.rp);
    zerr_clear(&err);
  }
  if ((!c->rs.provider && zrun_setup_provider(&c->rs, &flags, &err) < 0) ||
      (c->args.resume && zrun_setup_session(&c->rs, true, c->args.resume_id, NULL, &c->conv, NULL, NULL, &err) < 0)) {
    fprintf(stderr, "zero: %s\n", err.msg);
    if (err.kind == ZE_CONFIG)
      fprintf(stderr, "Configure a provider first (see docs/config.md), then run zero again.\n");
    rc = zexit_for_error(err.kind); /* the map zero exec uses: a cancel is 130 */
    goto out_early;
  }

  if (!c->rs.session_root) c->rs.session_root = zsession_root();
  int w, h;
  c->rec_diag = open_memstream(&c->rec_diag_buf, &c->rec_diag_len);
  c->sink = (zsink){.emit = ui_emit, .finish = ui_finish, .destroy = ui_destroy};
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  if (pipe2(c->wake, O_CLOEXEC | O_NONBLOCK) < 0 ||
      tui_term_enter(STDIN_FILENO, STDOUT_FILENO, &err) < 0) {
    fprintf(stderr, "zero: %s\n", err.msg[0] ? err.msg : "cannot set up the terminal");
    rc = ZEXIT_INTERNAL;
    goto out_early;
  }
  tui_term_size(&w, &h);
  tui_app_init(&c->app, w, h, theme && *theme ? theme : "dark", tui_depth_detect());
  c->app.scr.reflow = tui_term_reflows();
  c->app.mode = c->args.mode == ZPERM_UNSAFE ? ZPERM_AUTO : c->args.mode;
  show_model(c);
  c->app.workspace = c->rs.workspace;
  tui_keys_init(&c->keys);
  char *hp = history_path(c->rs.workspace);
  tui_composer_history_open(&c->app.comp, hp);
  free(hp);
  attach_session(c);
  {
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "%s%szero%s %s%s · %s · %s%s", c->app.th.accent, c->app.th.bold, c->app.th.reset,
              c->app.th.muted, c->rs.rp.model, c->rs.workspace,
              c->rs.session ? "resumed" : "new session", c->app.th.reset);
    tw_lines_push(&c->app.commit, tw_truncate(l.data, c->app.width));
    zbuf_release(&l);
    if (c->rs.session) show_tail(c);
  }
  /* MCP servers start once, in parallel, through the sandbox spawner; one
   * that fails is a warning line and the session goes on without it. */
  zrun_setup_tools(&c->rs, c->app.mode, ZAUTO_LOW);
  if (zrun_setup_mcp(&c->rs, warn_cb, c, &err) < 0) warn_cb(c, err.msg);

  /* Frames follow events one for one, except while the unfinished block of
   * an answer is large (a long code block streaming): re-rendering it costs
   * O(size), so such frames are spaced TUI_SLOW_FRAME_S apart. Keys always
   * draw at once. */
  const double TUI_SLOW_FRAME_S = 0.04;
  double last_frame = 0;
  bool key_seen = true;
  while (!c->quit) {
    double t = now_s();
    bool heavy = c->app.md_active && c->app.md.src.len > 16384;
    if (key_seen || !heavy || t - last_frame >= TUI_SLOW_FRAME_S) {
      render(c);
      last_frame = t;
    }
    key_seen = false;
    struct pollfd p[3] = {{.fd = STDIN_FILENO, .events = POLLIN},
                          {.fd = c->wake[0], .events = POLLIN},
                          {.fd = tui_term_signal_fd(), .events = POLLIN}};
    /* Idle: sleep until something happens. Busy: tick the spinner. */
    int timeout = tui_keys_pending(&c->keys) ? 30 : (c->running || c->app.busy) ? 100 : -1;
    if (c->app.md_active && c->app.md.src.len > 16384) timeout = 40;
    int n = poll(p, 3, timeout);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (n == 0 && tui_keys_pending(&c->keys)) {
      tui_key k;
      while (tui_keys_next(&c->keys, &k, true)) handle_key(c, &k);
      key_seen = true;
    }
    if (p[2].revents & POLLIN) {
      char sb[32];
      ssize_t r = read(p[2].fd, sb, sizeof sb);
      for (ssize_t i = 0; i < r; i++) {
        if (sb[i] == TUI_SIG_WINCH) {
          tui_term_size(&w, &h);
          tui_app_resize(&c->app, w, h);
        } else if (sb[i] == TUI_SIG_TERM) {
          c->quit = true;
          c->terminated = true;
        } else if (sb[i] == TUI_SIG_CONT) {
          tui_screen_invalidate(&c->app.scr);
        } else if (sb[i] == TUI_SIG_TSTP) {
          suspend(c);
        }
      }
    }
    if (p[1].revents & POLLIN) drain(c);
    if (p[0].revents & (POLLIN | POLLHUP)) {
      read_input(c);
      key_seen = true;
    }
  }

  /* Leaving: stop a running turn, then put the terminal back as it was. */
  if (c->running) {
    cancel_turn(c);
    pthread_join(c->worker, NULL);
    c->running = false;
    drain(c);
    /* what had streamed stays in the scrollback, as after Esc */
    render(c);
  }
  tui_screen_erase_live(&c->app.scr);
  if (c->rs.session)
    zbuf_addf(&c->app.scr.out, "Session %s saved. Continue it with: zero --resume %s\r\n",
              c->rs.session->id, c->rs.session->id);
  flush_out(c);
  tui_term_leave();
  if (c->terminated) rc = ZEXIT_INTERRUPTED;

  clear_images(c);
  zvec_free(&c->images);
  tui_app_release(&c->app);
  tui_keys_release(&c->keys);
  for (size_t i = 0; i < c->q.len; i++) qmsg_free(c->q.items[i]);
  zvec_free(&c->q);
  close(c->wake[0]);
  close(c->wake[1]);
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->cv);
out_early:
  if (c->recorder) c->recorder->destroy(c->recorder);
  if (c->rec_diag) fclose(c->rec_diag);
  free(c->rec_diag_buf);
  zagent_release(&c->agent);
  free(c->system_prompt);
  free(c->perm_note);
  json_decref(c->plan);
  zconv_release(&c->conv);
  zconv_release(&c->side);
  zrun_setup_release(&c->rs);
  free(c->args.add_dirs);
  free(c);
  return rc;
}
