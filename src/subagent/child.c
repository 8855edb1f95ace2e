/* child.c — one sub-agent child process; see child.h. */
#include "subagent/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/strvec.h"
#include "base/time.h"
#include "exec/proc.h"
#include "exec/reaper.h"
#include "exec/spawn.h"
#include "subagent/relay.h"

extern char **environ;

#define READ_CHUNK 65536
#define DIAG_KEEP 4096

/* plan < ask < accept-edits < auto < unsafe: how much a mode lets the model
 * do unasked. */
static int mode_rank(zperm_mode m) {
  switch (m) {
    case ZPERM_PLAN: return 0;
    case ZPERM_ASK: return 1;
    case ZPERM_ACCEPT_EDITS: return 2;
    case ZPERM_AUTO: return 3;
    case ZPERM_UNSAFE: return 4;
    default: return 0;
  }
}

zperm_mode zsub_child_mode(zperm_mode parent, const char *def_mode) {
  zperm_mode m;
  zerr err = ZERR_INIT;
  if (!def_mode || zperm_mode_parse(def_mode, &m, &err) < 0) return parent;
  return mode_rank(m) < mode_rank(parent) ? m : parent;
}

char **zsub_child_argv(const zsub_launch *l) {
  strvec v = STRVEC_INIT;
  strvec_pushl(&v, l->self_exe, "exec", "--output-format", "stream-json", "-C", l->workspace, NULL);
  for (size_t i = 0; i < l->n_add_dirs; i++) strvec_pushl(&v, "--add-dir", l->add_dirs[i], NULL);
  if (l->resume_id) strvec_pushl(&v, "--resume", l->resume_id, NULL);
  else if (l->session_id) strvec_pushl(&v, "--init-session-id", l->session_id, NULL);
  if (l->parent_session) strvec_pushl(&v, "--parent-session", l->parent_session, NULL);
  if (l->agent) strvec_pushl(&v, "--agent", l->agent, NULL);
  if (l->provider) strvec_pushl(&v, "--provider", l->provider, NULL);
  if (l->model) strvec_pushl(&v, "--model", l->model, NULL);
  if (l->reasoning_effort) strvec_pushl(&v, "--reasoning-effort", l->reasoning_effort, NULL);
  /* Go zero: --auto high only for the child of an unsafe parent. */
  strvec_pushl(&v, "--permission-mode", zperm_mode_name(l->mode), NULL);
  if (l->mode == ZPERM_AUTO && l->autonomy == ZAUTO_MEDIUM)
    strvec_pushl(&v, "--auto", "medium", NULL);
  if (l->offline) strvec_push(&v, "--offline");
  if (l->worktree) strvec_pushf(&v, "--worktree=%s", l->worktree);
  return strvec_detach(&v);
}

/* The parent's environment with the child's depth (ZERO_SUBAGENT_DEPTH) and
 * extra's NAME=VALUE. A swarm member's identity (ZERO_SWARM_*) is never
 * inherited: a member's own children are not members. */
static char **child_env(int depth, const char *const *extra) {
  strvec v = STRVEC_INIT;
  for (char **e = environ; e && *e; e++)
    if (strncmp(*e, "ZERO_SUBAGENT_DEPTH=", 20) != 0 && strncmp(*e, "ZERO_SWARM_", 11) != 0 &&
        strncmp(*e, ZSUB_RELAY_ENV "=", sizeof ZSUB_RELAY_ENV) != 0)
      strvec_push(&v, *e);
  strvec_pushf(&v, "ZERO_SUBAGENT_DEPTH=%d", depth);
  strvec_pushf(&v, ZSUB_RELAY_ENV "=%d", ZSUB_RELAY_CHILD_FD);
  for (const char *const *x = extra; x && *x; x++) strvec_push(&v, *x);
  return strvec_detach(&v);
}

static int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int zsub_child_start(const zsub_launch *l, zsub_child *c, zerr *err) {
  memset(c, 0, sizeof *c);
  c->pid = -1;
  c->out_fd = -1;
  c->err_fd = -1;
  c->relay_fd = -1;
  zbuf_init(&c->line);
  zbuf_init(&c->err_line);
  zbuf_init(&c->relay_in);
  /* The relay: the child's end becomes its fd 4, ours stays here. */
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    return zerr_set(err, ZE_IO, "cannot make the sub-agent's relay socket: %s", strerror(errno));
  zspawn_cmd cmd = {.argv = zsub_child_argv(l), .envp = child_env(l->depth, l->env)};
  zexec_opts o = {.stdin_open = true, .zero_child = true, .own_stderr = true, .pass_fd = sv[1]};
  zexec_child ch;
  /* Not wrapped by the sandbox: the child is zero, which confines its own
   * tools with the same policy (same workspace, roots and config). */
  int rc = zexec_spawn(NULL, &cmd, &o, &ch, err);
  close(sv[1]);
  if (rc < 0) {
    close(sv[0]);
    return -1;
  }
  fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
  c->relay_fd = sv[0];
  c->pid = ch.pid;
  c->out_fd = ch.out_fd;
  c->err_fd = ch.err_fd;
  /* A child that dies before reading its prompt only makes the write fail
   * (SIGPIPE is ignored): its exit is what gets reported. */
  const char *p = l->prompt ? l->prompt : "";
  (void)write_all(ch.in_fd, p, strlen(p));
  close(ch.in_fd);
  return 0;
}

/* Hands every complete line of buf to on_line and keeps the rest. */
static void split_lines(zbuf *buf, bool diag, zsub_line_fn on_line, void *ud) {
  size_t start = 0;
  for (size_t i = 0; i < buf->len; i++) {
    if (buf->data[i] != '\n') continue;
    on_line(ud, buf->data + start, i - start, diag);
    start = i + 1;
  }
  zbuf_consume(buf, start);
}

/* Reads what fd has into buf and hands over its complete lines; at its end
 * (or an error) the last line without a newline too, and *fd is closed.
 * false when nothing was read. */
static bool read_lines(int *fd, zbuf *buf, bool diag, zsub_line_fn on_line, void *ud) {
  char chunk[READ_CHUNK];
  ssize_t n = read(*fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return false;
  if (n <= 0) {
    if (buf->len) on_line(ud, buf->data, buf->len, diag);
    zbuf_reset(buf);
    close(*fd);
    *fd = -1;
    return false;
  }
  zbuf_add(buf, chunk, (size_t)n);
  split_lines(buf, diag, on_line, ud);
  return true;
}

/* Reads what the child sent on the relay and hands each complete request
 * to on_relay; closes the relay at its end (the child exited or closed it). */
static void relay_read(zsub_child *c) {
  char chunk[READ_CHUNK];
  ssize_t n = read(c->relay_fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0 || c->relay_in.len + (size_t)n > ZSUB_RELAY_LINE_MAX) {
    close(c->relay_fd); /* gone, or a request past any sane size: no more answers */
    c->relay_fd = -1;
    return;
  }
  zbuf_add(&c->relay_in, chunk, (size_t)n);
  size_t start = 0;
  for (size_t i = 0; i < c->relay_in.len && c->relay_fd >= 0; i++) {
    if (c->relay_in.data[i] != '\n') continue;
    c->on_relay(c->relay_ud, c, c->relay_in.data + start, i - start);
    start = i + 1;
  }
  zbuf_consume(&c->relay_in, start);
}

zsub_pump_end zsub_child_pump(zsub_child *c, int timeout_ms, bool watch_cancel,
                              zsub_line_fn on_line, void *ud) {
  if (c->out_fd < 0) return ZSUB_EOF;
  int64_t deadline = timeout_ms < 0 ? -1 : ztime_mono_ms() + timeout_ms;
  bool got = false;
  for (;;) {
    int relay = c->on_relay ? c->relay_fd : -1;
    struct pollfd fds[4] = {{c->out_fd, POLLIN, 0},
                            {watch_cancel ? zcancel_fd() : -1, POLLIN, 0},
                            {relay, POLLIN, 0},
                            {c->err_fd, POLLIN, 0}};
    int wait = deadline < 0 ? -1 : (int)(deadline - ztime_mono_ms());
    if (deadline >= 0 && wait <= 0) return got ? ZSUB_MORE : ZSUB_IDLE;
    int pr = poll(fds, 4, wait);
    if (pr < 0 && errno != EINTR) return ZSUB_EOF;
    if (watch_cancel && zcancel_requested()) return ZSUB_CANCELLED;
    if (pr <= 0) continue;
    if (relay >= 0 && fds[2].revents) {
      relay_read(c); /* a waiting child counts as activity: it is not hung */
      got = true;
    }
    if (c->err_fd >= 0 && fds[3].revents)
      got |= read_lines(&c->err_fd, &c->err_line, true, on_line, ud);
    if (!fds[0].revents) continue;
    got |= read_lines(&c->out_fd, &c->line, false, on_line, ud);
    if (c->out_fd >= 0) continue;
    /* stdout ended: what the child said last on stderr explains why */
    while (c->err_fd >= 0) {
      struct pollfd e = {c->err_fd, POLLIN, 0};
      if (poll(&e, 1, 0) <= 0) break;
      read_lines(&c->err_fd, &c->err_line, true, on_line, ud);
    }
    return ZSUB_EOF;
  }
}

void zsub_child_stop(zsub_child *c, int grace_ms) {
  if (c->pid <= 0 || c->reaped) return;
  kill(-c->pid, SIGTERM);
  int64_t until = ztime_mono_ms() + grace_ms;
  while (ztime_mono_ms() < until) {
    if (zexec_peek_exit(c->pid, false, NULL) == 1) break;
    ztime_sleep_ms(10, NULL);
  }
  /* The rest of its group (and the leader, if it ignored SIGTERM). */
  kill(-c->pid, SIGKILL);
}

bool zsub_child_reap(zsub_child *c, bool block) {
  if (c->reaped || c->pid <= 0) return true;
  if (zexec_peek_exit(c->pid, block, NULL) != 1) return false;
  /* Anything left of its group goes first; then the watchdog forgets it. */
  kill(-c->pid, SIGKILL);
  zreaper_forget(c->pid);
  pid_t r;
  do r = waitpid(c->pid, &c->status, 0);
  while (r < 0 && errno == EINTR);
  c->reaped = true;
  return true;
}

void zsub_child_describe_exit(const zsub_child *c, zbuf *out) {
  if (!c->reaped) zbuf_addstr(out, "is still running");
  else if (WIFEXITED(c->status)) zbuf_addf(out, "exited with status %d", WEXITSTATUS(c->status));
  else if (WIFSIGNALED(c->status)) zbuf_addf(out, "was killed by signal %d", WTERMSIG(c->status));
  else zbuf_addstr(out, "ended");
}

void zsub_child_release(zsub_child *c) {
  if (c->out_fd >= 0) close(c->out_fd);
  c->out_fd = -1;
  if (c->err_fd >= 0) close(c->err_fd);
  c->err_fd = -1;
  if (c->relay_fd >= 0) close(c->relay_fd);
  c->relay_fd = -1;
  zbuf_release(&c->line);
  zbuf_release(&c->err_line);
  zbuf_release(&c->relay_in);
}

/* ---- folding the stream ---------------------------------------------------- */

static void replace(char **slot, const char *v) {
  free(*slot);
  *slot = v ? xstrdup(v) : NULL;
}

static void add_usage(zusage *u, const json_t *ev) {
  u->prompt_tokens += zjson_int_or(ev, "promptTokens", 0);
  u->completion_tokens += zjson_int_or(ev, "completionTokens", 0);
  u->total_tokens += zjson_int_or(ev, "totalTokens", 0);
  u->cached_tokens += zjson_int_or(ev, "cachedInputTokens", 0);
  u->reasoning_tokens += zjson_int_or(ev, "reasoningTokens", 0);
}

void zsub_outcome_diag(zsub_outcome *o, const char *line, size_t len) {
  if (o->diag.len + len + 1 > DIAG_KEEP) zbuf_reset(&o->diag);
  zbuf_add(&o->diag, line, len < DIAG_KEEP ? len : DIAG_KEEP - 1);
  zbuf_addch(&o->diag, '\n');
}

static void fold_event(zsub_outcome *o, const json_t *ev) {
  const char *type = zjson_str_or(ev, "type", "");
  if (!strcmp(type, "run_start")) {
    replace(&o->session_id, zjson_str(ev, "sessionId"));
  } else if (!strcmp(type, "final")) {
    replace(&o->final_text, zjson_str(ev, "text"));
  } else if (!strcmp(type, "usage")) {
    add_usage(&o->usage, ev);
  } else if (!strcmp(type, "error")) {
    replace(&o->error, zjson_str(ev, "message"));
  } else if (!strcmp(type, "run_end")) {
    replace(&o->status, zjson_str(ev, "status"));
    o->exit_code = (int)zjson_int_or(ev, "exitCode", 0);
    o->ended = true;
  } else if (!strcmp(type, "tool_call")) {
    char step[160];
    snprintf(step, sizeof step, "%s", zjson_str_or(ev, "name", "tool"));
    replace(&o->step, step);
    o->tool_calls++;
  }
}

json_t *zsub_outcome_line(zsub_outcome *o, const char *line, size_t len) {
  while (len && (line[len - 1] == '\r' || line[len - 1] == ' ')) len--;
  if (!len) return NULL;
  if (line[0] != '{') { /* the child's own diagnostics ("[zero] …" on stderr) */
    zsub_outcome_diag(o, line, len);
    return NULL;
  }
  json_t *ev = zjson_parse_line(line, len);
  if (!json_is_object(ev) || !zjson_str(ev, "type")) {
    json_decref(ev);
    o->malformed = true;
    zsub_outcome_diag(o, line, len > 200 ? 200 : len);
    return NULL;
  }
  fold_event(o, ev);
  return ev;
}

void zsub_outcome_release(zsub_outcome *o) {
  free(o->session_id);
  free(o->final_text);
  free(o->error);
  free(o->status);
  free(o->step);
  zbuf_release(&o->diag);
  memset(o, 0, sizeof *o);
}
