/* server.c — the daemon's event loop, clients and worker pool; see server.h. */
#include "daemon/server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/time.h"
#include "cron/run.h"
#include "cron/store.h"
#include "daemon/cron_sched.h"
#include "daemon/evloop.h"
#include "daemon/frame.h"
#include "daemon/session.h"
#include "daemon/worker.h"

#define READ_CHUNK 65536
#define EXIT_POLL_MS 100 /* without pidfd: how often a worker's exit is looked for */
#define ID_MAX 256

typedef enum { C_HELLO, C_CMD, C_STREAM, C_CLOSING } conn_phase;

typedef struct srv srv;

typedef struct zdmn_conn {
  srv *s;
  int fd;
  conn_phase phase;
  zbuf in, out;
  uint64_t timer;       /* the handshake deadline */
  zdmn_session *sub;    /* the session it streams */
  bool close_when_sent; /* close once out is empty */
} zdmn_conn;

struct srv {
  const zdmn_paths *paths;
  zdmn_server_opts o;
  zev_loop loop;
  int listen_fd;
  zdmn_sessions sessions;
  zdmn_conn **conns;
  size_t nconns, capconns;
  int busy; /* sessions holding a slot (running or waiting for a retry) */
  bool draining, stop;
  uint64_t drain_timer;
  char started_at[ZTIME_RFC3339_LEN];
  zdmn_cron cron; /* the `zero cron` schedules, run as sessions */
};

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
  char ts[ZTIME_RFC3339_LEN];
  ztime_rfc3339_now(ts);
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s [daemon] ", ts);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int64_t now_ms(const srv *s) { return s->o.clock.now_ms(s->o.clock.ud); }

/* ---- clients ---------------------------------------------------------------- */

static void on_conn(zev_loop *l, int fd, short revents, void *ud);

static void conn_close(zdmn_conn *c) {
  srv *s = c->s;
  zev_unwatch(&s->loop, c->fd);
  zev_timer_cancel(&s->loop, c->timer);
  if (c->sub) zdmn_session_unsubscribe(c->sub, c);
  close(c->fd);
  zbuf_release(&c->in);
  zbuf_release(&c->out);
  for (size_t i = 0; i < s->nconns; i++) {
    if (s->conns[i] != c) continue;
    s->conns[i] = s->conns[--s->nconns];
    break;
  }
  free(c);
}

static void conn_want(zdmn_conn *c) {
  short ev = c->phase == C_CLOSING ? 0 : POLLIN;
  if (c->out.len) ev |= POLLOUT;
  zev_watch(&c->s->loop, c->fd, ev, on_conn, c);
}

/* Queues raw frame bytes; false when the client fell too far behind and was
 * closed (c is freed then). */
static bool conn_send_bytes(zdmn_conn *c, const char *p, size_t n) {
  if (c->out.len + n > ZDMN_CONN_OUT_MAX) {
    logf_("client too slow (%zu bytes unread): detached", c->out.len);
    conn_close(c);
    return false;
  }
  zbuf_add(&c->out, p, n);
  conn_want(c);
  return true;
}

static bool conn_send(zdmn_conn *c, json_t *msg) {
  zbuf f = ZBUF_INIT;
  bool ok = zdmn_frame_encode_ctrl(&f, msg, NULL) == 0 && conn_send_bytes(c, f.data, f.len);
  zbuf_release(&f);
  json_decref(msg);
  return ok;
}

/* Sends the last frame: the connection closes once it is out. */
static void conn_finish(zdmn_conn *c, json_t *msg) {
  if (c->sub) zdmn_session_unsubscribe(c->sub, c);
  c->sub = NULL;
  c->phase = C_CLOSING;
  c->close_when_sent = true;
  if (conn_send(c, msg) && !c->out.len) conn_close(c);
}

static void conn_error(zdmn_conn *c, const char *message) {
  conn_finish(c, json_pack("{s:s, s:s}", "type", "error", "message", message));
}

/* ---- sessions and their output ------------------------------------------------ */

/* The data frame of one worker line. A line that cannot be a frame (over
 * the cap) or a JSON string (not UTF-8) is replaced: clients always get one
 * frame per line and valid JSON. *stored gets the line as the replay keeps it. */
static void data_frame(const char *line, size_t len, zbuf *frame, zbuf *stored) {
  zbuf_reset(stored);
  zbuf_add(stored, line, len);
  zutf8_sanitize(stored);
  json_t *msg = json_pack("{s:s, s:s%}", "type", "data", "line", stored->data, stored->len);
  zbuf_reset(frame);
  if (zdmn_frame_encode_ctrl(frame, msg, NULL) < 0) {
    zbuf_reset(stored);
    zbuf_addf(stored,
              "{\"type\":\"daemon_notice\",\"message\":\"a worker line of %zu bytes was dropped: "
              "over the %u-byte frame cap\"}",
              len, ZDMN_FRAME_MAX);
    json_object_set_new(msg, "line", json_stringn(stored->data, stored->len));
    zbuf_reset(frame);
    (void)zdmn_frame_encode_ctrl(frame, msg, NULL);
  }
  json_decref(msg);
}

static void on_session_line(void *ud, const char *line, size_t len) {
  zdmn_session *sess = ud;
  zbuf frame = ZBUF_INIT, stored = ZBUF_INIT;
  data_frame(line, len, &frame, &stored);
  zdmn_replay_add(&sess->replay, stored.data, stored.len);
  /* Backwards: a subscriber that is detached removes itself from the list. */
  for (size_t i = sess->nsubs; i-- > 0;)
    if (i < sess->nsubs) conn_send_bytes(sess->subs[i], frame.data, frame.len);
  zbuf_release(&frame);
  zbuf_release(&stored);
}

/* The frame that ends a stream of sess: end when done, error with the reason
 * when failed. */
static json_t *end_message(const zdmn_session *sess) {
  if (sess->state == ZDMN_DONE)
    return json_pack("{s:s, s:s, s:i}", "type", "end", "session", sess->id, "exitCode",
                     sess->exit_code);
  return json_pack("{s:s, s:s, s:s, s:i}", "type", "error", "session", sess->id, "message",
                   sess->reason ? sess->reason : "failed", "exitCode", sess->exit_code);
}

static void schedule(srv *s);

static void finish(srv *s, zdmn_session *sess, zdmn_state st, const char *reason) {
  bool held_slot = sess->state == ZDMN_RUNNING;
  zdmn_session_finish(&s->sessions, sess, st, reason);
  logf_("session %s %s%s%s", sess->id, zdmn_state_name(st), reason ? ": " : "",
        reason ? reason : "");
  while (sess->nsubs) conn_finish(sess->subs[sess->nsubs - 1], end_message(sess));
  if (held_slot) s->busy--;
  if (s->draining && s->busy == 0) s->stop = true;
  schedule(s);
  /* A schedule kept waiting for this run may start its next one now. */
  if (sess->schedule) zdmn_cron_check(&s->cron);
}

/* ---- workers ------------------------------------------------------------------ */

static void start_worker(srv *s, zdmn_session *sess);
static void worker_over(srv *s, zdmn_session *sess);

static void on_retry_due(zev_loop *l, void *ud) {
  (void)l;
  zdmn_session *sess = ud;
  sess->retry_timer = 0;
  start_worker(sess->owner, sess);
}

static void on_exit_poll(zev_loop *l, void *ud) {
  zdmn_session *sess = ud;
  srv *s = sess->owner;
  if (!zdmn_worker_check_exit(&sess->worker)) {
    zev_timer_at(l, now_ms(s) + EXIT_POLL_MS, on_exit_poll, sess);
    return;
  }
  worker_over(s, sess);
}

static void on_worker_exit(zev_loop *l, int fd, short revents, void *ud) {
  (void)revents;
  zdmn_session *sess = ud;
  zev_unwatch(l, fd); /* zdmn_worker_check_exit closes the pidfd */
  if (zdmn_worker_check_exit(&sess->worker)) worker_over(sess->owner, sess);
  else zev_timer_at(l, now_ms(sess->owner) + EXIT_POLL_MS, on_exit_poll, sess);
}

static void on_worker_out(zev_loop *l, int fd, short revents, void *ud) {
  (void)revents;
  zdmn_session *sess = ud;
  if (!zdmn_worker_read(&sess->worker, on_session_line, sess)) return;
  zev_unwatch(l, fd);
  worker_over(sess->owner, sess);
}

static void start_worker(srv *s, zdmn_session *sess) {
  if (s->draining) {
    finish(s, sess, ZDMN_FAILED, "the daemon stopped before the session could run");
    return;
  }
  zerr err = ZERR_INIT;
  sess->retry.attempts++;
  if (zdmn_worker_start(&sess->worker, s->o.worker_exe, sess->args, sess->prompt, sess->cwd, &err) <
      0) {
    logf_("session %s: %s", sess->id, err.msg);
    sess->has_worker = false;
    sess->exit_code = 127; /* as a shell reports a command that cannot run */
    worker_over(s, sess);
    return;
  }
  sess->has_worker = true;
  logf_("session %s: worker pid %ld (attempt %d)", sess->id, (long)sess->worker.pid,
        sess->retry.attempts);
  zev_watch(&s->loop, sess->worker.out_fd, POLLIN, on_worker_out, sess);
  if (sess->worker.pidfd >= 0)
    zev_watch(&s->loop, sess->worker.pidfd, POLLIN, on_worker_exit, sess);
  else zev_timer_at(&s->loop, now_ms(s) + EXIT_POLL_MS, on_exit_poll, sess);
}

/* Called when the output ended or the worker exited; acts once both did. */
static void worker_over(srv *s, zdmn_session *sess) {
  if (sess->has_worker) {
    if (sess->worker.out_fd >= 0 || !sess->worker.exited) return;
    sess->exit_code = sess->worker.exit_code;
    zdmn_worker_release(&sess->worker);
    sess->has_worker = false;
  }
  if (s->draining) {
    finish(s, sess, sess->exit_code == 0 ? ZDMN_DONE : ZDMN_FAILED,
           sess->exit_code == 0 ? NULL : "the daemon stopped before the session finished");
    return;
  }
  int64_t due = 0;
  zbuf reason = ZBUF_INIT;
  switch (zdmn_retry_judge(&sess->retry, &s->o.clock, sess->exit_code, &due, &reason)) {
    case ZDMN_V_DONE: finish(s, sess, ZDMN_DONE, NULL); break;
    case ZDMN_V_RETRY:
      logf_("session %s: worker exit %d, retry in %lld ms", sess->id, sess->exit_code,
            (long long)(due - now_ms(s)));
      sess->retry_timer = zev_timer_at(&s->loop, due, on_retry_due, sess);
      break;
    case ZDMN_V_FAIL:
    default: finish(s, sess, ZDMN_FAILED, reason.data); break;
  }
  zbuf_release(&reason);
}

/* Starts queued sessions, oldest first, while slots are free. */
static void schedule(srv *s) {
  while (!s->draining && s->busy < s->o.slots) {
    zdmn_session *next = NULL;
    for (size_t i = 0; i < s->sessions.n; i++) {
      zdmn_session *x = s->sessions.v[i];
      if (x->state == ZDMN_QUEUED && (!next || x->seq < next->seq)) next = x;
    }
    if (!next) return;
    next->state = ZDMN_RUNNING;
    s->busy++;
    start_worker(s, next);
  }
}

/* ---- stopping ----------------------------------------------------------------- */

static void on_drain_timeout(zev_loop *l, void *ud) {
  (void)l;
  srv *s = ud;
  s->drain_timer = 0;
  for (size_t i = 0; i < s->sessions.n; i++) {
    zdmn_session *x = s->sessions.v[i];
    if (!x->has_worker) continue;
    logf_("session %s: worker pid %ld still running after %d ms: killed", x->id,
          (long)x->worker.pid, ZDMN_DRAIN_GRACE_MS);
    zdmn_worker_kill(&x->worker);
  }
}

static void begin_drain(srv *s, const char *why) {
  if (s->draining) return;
  s->draining = true;
  zdmn_cron_stop(&s->cron);
  logf_("stopping (%s): draining %d worker(s)", why, s->busy);
  if (s->listen_fd >= 0) {
    zev_unwatch(&s->loop, s->listen_fd);
    close(s->listen_fd);
    s->listen_fd = -1;
    unlink(s->paths->socket);
  }
  for (size_t i = 0; i < s->sessions.n; i++) {
    zdmn_session *x = s->sessions.v[i];
    if (x->state == ZDMN_QUEUED) {
      finish(s, x, ZDMN_FAILED, "the daemon stopped before the session could run");
    } else if (x->retry_timer) {
      zev_timer_cancel(&s->loop, x->retry_timer);
      x->retry_timer = 0;
      finish(s, x, ZDMN_FAILED, "the daemon stopped while the session waited for a retry");
    }
  }
  if (s->busy == 0) s->stop = true;
  else
    s->drain_timer = zev_timer_at(&s->loop, now_ms(s) + ZDMN_DRAIN_GRACE_MS, on_drain_timeout, s);
}

static void on_cancel(zev_loop *l, int fd, short revents, void *ud) {
  (void)revents;
  zev_unwatch(l, fd);
  begin_drain(ud, "signal");
}

/* ---- commands ----------------------------------------------------------------- */

static bool valid_id(const char *id) {
  size_t n = strlen(id);
  if (n == 0 || n > ID_MAX) return false;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)id[i] < 0x20 || id[i] == 0x7f) return false;
  return true;
}

/* Sends sess's history, then ends the stream when it is over or follows it. */
static void stream_session(zdmn_conn *c, zdmn_session *sess) {
  zbuf frame = ZBUF_INIT, stored = ZBUF_INIT;
  for (size_t i = 0; i < sess->replay.n; i++) {
    size_t len;
    const char *line = zdmn_replay_get(&sess->replay, i, &len);
    data_frame(line, len, &frame, &stored);
    if (!conn_send_bytes(c, frame.data, frame.len)) goto out; /* c is gone */
  }
  c->phase = C_STREAM;
  if (sess->state == ZDMN_DONE || sess->state == ZDMN_FAILED) {
    conn_finish(c, end_message(sess));
  } else {
    c->sub = sess;
    zdmn_session_subscribe(sess, c);
  }
out:
  zbuf_release(&frame);
  zbuf_release(&stored);
}

/* args: absent, or an array of strings; NULL-terminated copy (caller frees). */
static char **run_args(const json_t *msg, const char **bad) {
  json_t *a = json_object_get(msg, "args");
  strvec v = STRVEC_INIT;
  size_t i;
  json_t *x;
  *bad = NULL;
  if (a && !json_is_array(a)) *bad = "args must be an array of strings";
  json_array_foreach(a, i, x) {
    if (!json_is_string(x)) *bad = "args must be an array of strings";
    else strvec_push(&v, json_string_value(x));
  }
  return strvec_detach(&v);
}

static void cmd_run(srv *s, zdmn_conn *c, const json_t *msg) {
  const char *id = zjson_str(msg, "session");
  const char *cwd = zjson_str(msg, "cwd");
  const char *prompt = zjson_str(msg, "prompt");
  if (s->draining) return conn_error(c, "the daemon is stopping: no new sessions");
  if (!id || !*id) return conn_error(c, "run requires a session id");
  if (!valid_id(id))
    return conn_error(c, "a session id is 1 to 256 bytes without control characters");
  if (cwd && *cwd == '\0') cwd = NULL;
  struct stat st;
  if (cwd && (cwd[0] != '/' || stat(cwd, &st) < 0 || !S_ISDIR(st.st_mode))) {
    zbuf m = ZBUF_INIT;
    zbuf_addf(&m, "cwd %s is not an existing absolute directory", cwd);
    conn_error(c, m.data);
    zbuf_release(&m);
    return;
  }
  if (prompt && *prompt == '\0') prompt = NULL;
  const char *bad;
  char **args = run_args(msg, &bad);
  zerr err = ZERR_INIT;
  zdmn_session *sess = NULL;
  if (bad) zerr_set(&err, ZE_USAGE, "%s", bad);
  else if (!prompt && !args[0]) zerr_set(&err, ZE_USAGE, "run requires a prompt or exec flags");
  else sess = zdmn_sessions_add(&s->sessions, id, cwd, prompt, args, &err);
  strvec_free_array(args);
  if (!sess) return conn_error(c, err.msg);
  sess->owner = s;
  logf_("session %s queued", id);
  /* Scheduled before the ack: the session runs even if this client is gone
   * by then (its output is read on a later turn of the loop, after the ack). */
  schedule(s);
  if (!conn_send(c, json_pack("{s:s, s:s}", "type", "ack", "session", id))) return;
  stream_session(c, sess);
}

static void cmd_attach(srv *s, zdmn_conn *c, const json_t *msg) {
  const char *id = zjson_str(msg, "session");
  if (!id || !*id) return conn_error(c, "attach requires a session id");
  zdmn_session *sess = zdmn_sessions_find(&s->sessions, id);
  if (!sess) {
    zbuf m = ZBUF_INIT;
    zbuf_addf(&m, "no session %s (zero daemon status lists them)", id);
    conn_error(c, m.data);
    zbuf_release(&m);
    return;
  }
  if (!conn_send(c, json_pack("{s:s, s:s}", "type", "ack", "session", id))) return;
  stream_session(c, sess);
}

static json_t *status_report(const srv *s) {
  json_t *workers = json_array();
  int queued = 0;
  for (size_t i = 0; i < s->sessions.n; i++) {
    const zdmn_session *x = s->sessions.v[i];
    if (x->state == ZDMN_QUEUED) queued++;
    if (x->has_worker)
      json_array_append_new(workers, json_pack("{s:I, s:s, s:s}", "pid", (json_int_t)x->worker.pid,
                                               "state", "busy", "session", x->id));
  }
  return json_pack("{s:I, s:i, s:s, s:s, s:s, s:i, s:o, s:o, s:i, s:b}", "pid",
                   (json_int_t)getpid(), "version", ZDMN_PROTO_VERSION, "zeroVersion",
                   s->o.version ? s->o.version : "", "socket", s->paths->socket, "startedAt",
                   s->started_at, "poolSize", s->o.slots, "workers", workers, "sessions",
                   zdmn_sessions_status(&s->sessions), "queueDepth", queued, "draining",
                   s->draining);
}

static void handle_msg(srv *s, zdmn_conn *c, json_t *msg) {
  const char *type = zjson_str(msg, "type");
  if (c->phase == C_HELLO) {
    if (strcmp(type, "hello") != 0) return conn_error(c, "expected hello");
    int v = zdmn_negotiate_version(msg);
    if (!v) return conn_error(c, "unsupported protocol version (this daemon speaks 1)");
    c->phase = C_CMD;
    conn_send(c, json_pack("{s:s, s:i}", "type", "hello_ok", "version", v));
    return;
  }
  if (c->phase != C_CMD) return; /* a streaming client has nothing more to say */
  zev_timer_cancel(&s->loop, c->timer);
  c->timer = 0;
  if (!strcmp(type, "run")) {
    cmd_run(s, c, msg);
  } else if (!strcmp(type, "attach")) {
    cmd_attach(s, c, msg);
  } else if (!strcmp(type, "status")) {
    conn_finish(c, json_pack("{s:s, s:o}", "type", "status_result", "status", status_report(s)));
  } else if (!strcmp(type, "shutdown")) {
    /* The client learns the daemon is gone when this connection closes. */
    c->phase = C_CLOSING;
    conn_send(c, json_pack("{s:s, s:s}", "type", "ack", "message", "shutting down"));
    begin_drain(s, "shutdown requested");
  } else {
    zbuf m = ZBUF_INIT;
    zbuf_addf(&m, "unknown command \"%s\"", type);
    conn_error(c, m.data);
    zbuf_release(&m);
  }
}

/* Handles every complete frame in c->in. False when c was closed. */
static bool conn_frames(srv *s, zdmn_conn *c) {
  for (;;) {
    uint8_t kind;
    const uint8_t *payload;
    uint32_t plen;
    size_t used;
    zerr err = ZERR_INIT;
    int r = zdmn_frame_parse((const uint8_t *)c->in.data, c->in.len, &kind, &payload, &plen, &used,
                             &err);
    if (r == 0) return true;
    json_t *msg = r > 0 ? zdmn_ctrl_decode(kind, payload, plen, &err) : NULL;
    if (!msg) {
      zbuf_reset(&c->in);
      logf_("client refused: %s", err.msg);
      conn_error(c, err.msg);
      return false;
    }
    zbuf_consume(&c->in, used);
    handle_msg(s, c, msg);
    json_decref(msg);
    bool alive = false;
    for (size_t i = 0; i < s->nconns; i++) alive |= s->conns[i] == c;
    if (!alive || c->phase != C_CMD) return alive;
  }
}

static void on_conn(zev_loop *l, int fd, short revents, void *ud) {
  (void)l;
  (void)fd;
  zdmn_conn *c = ud;
  srv *s = c->s;
  if (revents & POLLOUT && c->out.len) {
    ssize_t w = send(c->fd, c->out.data, c->out.len, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EINTR) return conn_close(c);
    if (w > 0) zbuf_consume(&c->out, (size_t)w);
    if (!c->out.len && c->close_when_sent) return conn_close(c);
    conn_want(c);
  }
  if (!(revents & (POLLIN | POLLHUP | POLLERR))) return;
  if (c->phase == C_CLOSING && !(revents & (POLLHUP | POLLERR))) return;
  char buf[READ_CHUNK];
  ssize_t n = recv(c->fd, buf, sizeof buf, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    /* The client went away: a partial frame is simply dropped (Go zero's
     * reader does the same), the session it followed goes on. */
    if (c->in.len && c->phase != C_STREAM) logf_("client closed inside a frame (truncated)");
    return conn_close(c);
  }
  if (c->phase == C_STREAM || c->phase == C_CLOSING) return; /* ignored */
  zbuf_add(&c->in, buf, (size_t)n);
  (void)conn_frames(s, c);
}

static void on_handshake_timeout(zev_loop *l, void *ud) {
  (void)l;
  zdmn_conn *c = ud;
  c->timer = 0;
  logf_("client sent no command within %d ms: closed", c->s->o.handshake_ms);
  conn_error(c, "handshake timed out");
}

static bool peer_allowed(int fd) {
  struct ucred cr;
  socklen_t len = sizeof cr;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) return false;
  return cr.uid == geteuid() || cr.uid == 0;
}

static void on_accept(zev_loop *l, int fd, short revents, void *ud) {
  (void)revents;
  srv *s = ud;
  int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (cfd < 0) return;
  if (s->nconns >= ZDMN_CONNS_MAX || !peer_allowed(cfd)) {
    logf_("connection refused (%s)",
          s->nconns >= ZDMN_CONNS_MAX ? "too many clients" : "another user");
    close(cfd);
    return;
  }
  zdmn_conn *c = xcalloc(1, sizeof *c);
  c->s = s;
  c->fd = cfd;
  zbuf_init(&c->in);
  zbuf_init(&c->out);
  if (s->nconns == s->capconns) {
    s->capconns = s->capconns ? s->capconns * 2 : 16;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
    s->conns = xrealloc(s->conns, s->capconns * sizeof *s->conns);
  }
  s->conns[s->nconns++] = c;
  c->timer = zev_timer_at(l, now_ms(s) + s->o.handshake_ms, on_handshake_timeout, c);
  conn_want(c);
}

/* ---- the life ----------------------------------------------------------------- */

static int bind_socket(const zdmn_paths *p, zerr *err) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  size_t n = strlen(p->socket);
  if (n >= sizeof sa.sun_path)
    return zerr_set(err, ZE_CONFIG, "daemon socket path too long: %s", p->socket);
  memcpy(sa.sun_path, p->socket, n + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return zerr_errno(err, ZE_IO, "cannot create the control socket");
  unlink(p->socket);        /* a dead daemon's: we hold the lock */
  mode_t old = umask(0077); /* 0600 from the first instant, not after a chmod */
  int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
  umask(old);
  if (rc < 0 || chmod(p->socket, 0600) < 0 || listen(fd, 64) < 0) {
    int e = errno;
    close(fd);
    errno = e;
    return zerr_errno(err, ZE_IO, "cannot listen on %s", p->socket);
  }
  return fd;
}

/* Gives the last frames (ends of drained sessions, the shutdown ack) up to a
 * second to leave. */
static void flush_clients(srv *s) {
  int64_t until = ztime_mono_ms() + 1000;
  for (;;) {
    bool pending = false;
    for (size_t i = 0; i < s->nconns; i++) pending |= s->conns[i]->out.len > 0;
    if (!pending || ztime_mono_ms() >= until) break;
    zev_run_once(&s->loop, 50);
  }
}

/* ---- schedules (zero cron) ------------------------------------------------------ */

/* A claimed run of a schedule becomes a queued session named as its exec
 * session will be (zcron_exec_args), so `zero daemon attach` and `zero
 * sessions show` take the same id. */
static void on_cron_fire(json_t *job, const char *session_id, void *ud) {
  srv *s = ud;
  strvec args = STRVEC_INIT;
  zcron_exec_args(job, session_id, &args);
  zerr err = ZERR_INIT;
  zdmn_session *sess = zdmn_sessions_add(&s->sessions, session_id, zjson_str(job, "cwd"),
                                         zjson_str(job, "prompt"), args.v, &err);
  strvec_clear(&args);
  if (sess) {
    sess->owner = s;
    sess->schedule = xstrdup(zjson_str(job, "id"));
    logf_("session %s queued (schedule %s)", session_id, zjson_str(job, "id"));
    schedule(s);
  } else {
    logf_("schedule %s: run not started: %s", zjson_str(job, "id"), err.msg);
  }
  json_decref(job);
}

/* The schedules with a run queued, running or waiting for a retry (the
 * sessions on_cron_fire tagged with their schedule). */
static void cron_running(void *ud, strvec *ids) {
  const srv *s = ud;
  for (size_t i = 0; i < s->sessions.n; i++) {
    const zdmn_session *x = s->sessions.v[i];
    if (x->state == ZDMN_DONE || x->state == ZDMN_FAILED || !x->schedule) continue;
    strvec_push(ids, x->schedule);
  }
}

static void cron_log(void *ud, const char *message) {
  (void)ud;
  logf_("%s", message);
}

int zdmn_serve(const zdmn_paths *p, const zdmn_server_opts *o, zerr *err) {
  if (zdmn_runtime_secure(p, err) < 0) return -1;
  int lock_fd = zdmn_lock_acquire(p, err);
  if (lock_fd < 0) return -1;
  srv s = {.paths = p, .o = *o, .listen_fd = -1};
  if (s.o.slots <= 0) s.o.slots = ZDMN_SLOTS_DEFAULT;
  if (s.o.handshake_ms <= 0) s.o.handshake_ms = ZDMN_HANDSHAKE_MS;
  s.listen_fd = bind_socket(p, err);
  if (s.listen_fd < 0) {
    close(lock_fd);
    return -1;
  }
  ztime_rfc3339_now(s.started_at);
  if (zdmn_status_write(p, getpid(), s.started_at, err) < 0) {
    close(s.listen_fd);
    unlink(p->socket);
    close(lock_fd);
    return -1;
  }
  signal(SIGPIPE, SIG_IGN);
  zcancel_install();
  zev_init(&s.loop, &s.o.clock);
  zev_watch(&s.loop, s.listen_fd, POLLIN, on_accept, &s);
  if (zcancel_fd() >= 0) zev_watch(&s.loop, zcancel_fd(), POLLIN, on_cancel, &s);
  logf_("listening on %s (pid %ld, %d worker slots)", p->socket, (long)getpid(), s.o.slots);
  char *cron_path = zcron_store_path();
  zdmn_cron_hooks hooks = {on_cron_fire, cron_running, cron_log, &s};
  zdmn_cron_start(&s.cron, &s.loop, cron_path, &hooks);
  free(cron_path);
  while (!s.stop)
    if (zev_run_once(&s.loop, -1) < 0) begin_drain(&s, "poll failed");
  flush_clients(&s);
  zdmn_cron_stop(&s.cron);
  zev_timer_cancel(&s.loop, s.drain_timer);
  if (s.listen_fd >= 0) close(s.listen_fd);
  unlink(p->socket);
  unlink(p->status);
  logf_("stopped");
  /* The lock file stays (removing it would let a racing start lock a new
   * inode while another holds the old one); emptied, it names no daemon. */
  if (ftruncate(lock_fd, 0) < 0) { /* harmless: the next daemon rewrites it */
  }
  /* Last: a `zero daemon stop` waiting on its connection learns we are gone. */
  while (s.nconns) conn_close(s.conns[s.nconns - 1]);
  zdmn_sessions_release(&s.sessions);
  free(s.conns);
  zev_release(&s.loop);
  close(lock_fd);
  return 0;
}
