/* exec_command.c — runs a shell command and reports its output and status.
 *
 * The story, in order:
 *   1. fork; the child becomes a session (and process group) leader, gets
 *      stdin from /dev/null and one pipe for stdout+stderr, default signal
 *      dispositions (we ignore SIGPIPE; `yes | head` must still end), no
 *      inherited descriptors beyond 0-2, and execs /bin/sh -c CMD.
 *   2. the parent polls the pipe, a pidfd for the child's exit and the
 *      cancellation fd, against the deadline.
 *   3. output is kept as head + tail (each about half the cap) while the
 *      middle is counted and dropped, so any amount of output costs bounded
 *      memory and the pipe never fills up and stalls the command.
 *   4. on timeout, cancellation, or background jobs still holding the pipe
 *      after the shell exited, the whole group gets SIGTERM, a short grace,
 *      then SIGKILL.
 * Permission and sandboxing decisions are made before this tool is called.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/time.h"
#include "exec/spawn.h"
#include "tools/tools_internal.h"

#define EXEC_DEFAULT_TIMEOUT_MS 120000
#define EXEC_MAX_TIMEOUT_MS 600000
#define EXEC_KILL_GRACE_MS 1000     /* SIGTERM → SIGKILL */
#define EXEC_DRAIN_GRACE_MS 300     /* pipe still open after the shell exited */
#define EXEC_READ_CHUNK 65536

static const char exec_command_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"cmd\":{\"type\":\"string\",\"description\":\"Shell command, run as /bin/sh -c CMD. "
    "stdin is empty; stdout and stderr are captured together.\"},"
    "\"workdir\":{\"type\":\"string\",\"description\":\"Directory to run in, relative to the "
    "workspace root. Default: the workspace root.\"},"
    "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":600000,\"description\":"
    "\"Kill the command (and everything it started) after this many milliseconds. Default "
    "120000.\"},"
    /* Escalation requests (Go zero's names). The tool itself ignores them:
     * the permission engine reads them from the call's arguments before the
     * tool runs (docs/sandbox.md, step 7) and, once the user approves, the
     * sandbox spawner runs this one command with the network or unsandboxed. */
    "\"sandbox_permissions\":{\"type\":\"string\",\"enum\":[\"use_default\","
    "\"with_additional_permissions\",\"require_escalated\"],\"description\":\"use_default "
    "(the default): run in the sandbox (workspace writes, no network). "
    "with_additional_permissions: ask the user to run it with the network. "
    "require_escalated: ask the user to run it outside the sandbox. Give a "
    "justification.\"},"
    "\"additional_permissions\":{\"type\":\"object\",\"description\":\"With "
    "with_additional_permissions: what is needed, e.g. {\\\"network\\\": true}.\"},"
    "\"justification\":{\"type\":\"string\",\"description\":\"Why the command needs more "
    "than the sandbox; shown to the user.\"},"
    "\"prefix_rule\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
    "\"Command prefix the user may approve for the rest of the session or always, e.g. "
    "[\\\"npm\\\", \\\"install\\\"]; it must cover every command of cmd.\"}"
    "},\"required\":[\"cmd\"],\"additionalProperties\":false}";

/* ---- bounded capture: head + ring-buffer tail ---------------------------- */

typedef struct capture {
  size_t head_cap, tail_cap;
  zbuf head;
  char *ring;
  size_t ring_start, ring_len;
  uint64_t total;
} capture;

static void capture_init(capture *c, size_t cap) {
  /* Leave room for the truncation notice and the status lines. */
  size_t budget = cap > 2048 ? cap - 1024 : cap / 2;
  c->head_cap = budget / 2 > 16 ? budget / 2 : 16;
  c->tail_cap = budget - budget / 2 > 16 ? budget - budget / 2 : 16;
  zbuf_init(&c->head);
  c->ring = xmalloc(c->tail_cap);
  c->ring_start = c->ring_len = 0;
  c->total = 0;
}

static void capture_release(capture *c) {
  zbuf_release(&c->head);
  free(c->ring);
  c->ring = NULL;
}

static void capture_add(capture *c, const char *p, size_t n) {
  c->total += n;
  if (c->head.len < c->head_cap) {
    size_t take = c->head_cap - c->head.len;
    if (take > n) take = n;
    zbuf_add(&c->head, p, take);
    p += take;
    n -= take;
  }
  if (n == 0) return;
  if (n >= c->tail_cap) {
    memcpy(c->ring, p + n - c->tail_cap, c->tail_cap);
    c->ring_start = 0;
    c->ring_len = c->tail_cap;
    return;
  }
  size_t wpos = (c->ring_start + c->ring_len) % c->tail_cap;
  size_t first = c->tail_cap - wpos < n ? c->tail_cap - wpos : n;
  memcpy(c->ring + wpos, p, first);
  memcpy(c->ring, p + first, n - first);
  c->ring_len += n;
  if (c->ring_len > c->tail_cap) {
    c->ring_start = (c->ring_start + c->ring_len - c->tail_cap) % c->tail_cap;
    c->ring_len = c->tail_cap;
  }
}

/* The tail in order. */
static void capture_tail(const capture *c, zbuf *out) {
  size_t first = c->tail_cap - c->ring_start;
  if (first > c->ring_len) first = c->ring_len;
  zbuf_add(out, c->ring + c->ring_start, first);
  zbuf_add(out, c->ring, c->ring_len - first);
}

/* Appends the captured output as valid UTF-8 with a notice in place of any
 * dropped middle. Returns the number of bytes dropped. */
static uint64_t capture_render(const capture *c, zbuf *out) {
  zbuf tail = ZBUF_INIT;
  capture_tail(c, &tail);
  uint64_t dropped = c->total - c->head.len - tail.len;
  if (dropped == 0) {
    zbuf all = ZBUF_INIT;
    zbuf_add(&all, c->head.data, c->head.len);
    zbuf_add(&all, tail.data, tail.len);
    zt_utf8_append(out, all.data, all.len);
    zbuf_release(&all);
  } else {
    size_t h = zutf8_boundary(c->head.data, c->head.len);
    size_t skip = 0;
    while (skip < 3 && skip < tail.len && ((unsigned char)tail.data[skip] & 0xC0) == 0x80)
      skip++;
    zt_utf8_append(out, c->head.data, h);
    if (!zbuf_ends_with(out, "\n")) zbuf_addch(out, '\n');
    zbuf_addf(out,
              "\n[… output truncated: %llu bytes omitted from the middle; %llu bytes in "
              "total, showing the first %zu and the last %zu. Redirect the output to a file "
              "and search it (grep, head, tail) to see more …]\n\n",
              (unsigned long long)(dropped + (c->head.len - h) + skip),
              (unsigned long long)c->total, h, tail.len - skip);
    zt_utf8_append(out, tail.data + skip, tail.len - skip);
  }
  zbuf_release(&tail);
  return dropped;
}

/* ---- the child ----------------------------------------------------------- */

/* Runs in the forked child: only async-signal-safe calls until exec. */
static void child_exec(char *const *argv, const char *workdir, int devnull, int out_fd) {
  setsid();
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < 32; s++)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (dup2(devnull, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(127);
#ifdef SYS_close_range
  syscall(SYS_close_range, 3u, ~0u, 0u);
#endif
  if (chdir(workdir) < 0) {
    static const char msg[] = "zero: cannot enter the working directory\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
  }
  execv(argv[0], argv);
  static const char msg[] = "zero: cannot run the command (/bin/sh or the sandbox)\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  _exit(127);
}

/* ---- the parent ---------------------------------------------------------- */

typedef struct run_state {
  pid_t pid;
  int out_fd;       /* read end; -1 once at EOF */
  int pidfd;        /* -1 when pidfd_open is unavailable */
  bool reaped;
  int status;
  capture cap;
} run_state;

/* Reads what is available now (bounded, so timers are rechecked). */
static void drain_available(run_state *st) {
  char buf[EXEC_READ_CHUNK];
  for (int i = 0; i < 64 && st->out_fd >= 0; i++) {
    ssize_t n = read(st->out_fd, buf, sizeof buf);
    if (n > 0) {
      capture_add(&st->cap, buf, (size_t)n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close(st->out_fd); /* EOF, or an error we cannot recover from */
    st->out_fd = -1;
  }
}

static void try_reap(run_state *st) {
  if (st->reaped) return;
  if (waitpid(st->pid, &st->status, WNOHANG) == st->pid) st->reaped = true;
}

/* SIGTERM to the whole group, a short grace (still draining output), then
 * SIGKILL to whatever is left; reaps the shell.
 *
 * The grace ends early once the shell is reaped and the output pipe reached
 * EOF (every process holding it is gone). Group membership alone cannot tell
 * us that: orphaned members linger as zombies until init reaps them, and
 * kill(-pgid, 0) still succeeds on zombies. Survivors that closed the pipe and
 * ignore SIGTERM are what the final SIGKILL is for. */
static void kill_group(run_state *st) {
  kill(-st->pid, SIGTERM);
  int64_t end = ztime_mono_ms() + EXEC_KILL_GRACE_MS;
  for (;;) {
    drain_available(st);
    try_reap(st);
    if (st->reaped && st->out_fd < 0) break;
    if (ztime_mono_ms() >= end) break;
    struct pollfd pf = {st->out_fd, POLLIN, 0};
    poll(&pf, st->out_fd >= 0 ? 1 : 0, 10);
  }
  if (kill(-st->pid, 0) == 0) kill(-st->pid, SIGKILL);
  if (!st->reaped) {
    while (waitpid(st->pid, &st->status, 0) < 0 && errno == EINTR) {
    }
    st->reaped = true;
  }
  drain_available(st);
}

typedef enum run_end { END_DONE, END_TIMEOUT, END_CANCELLED, END_LINGERING } run_end;

/* Waits for the shell to exit and its output to end, the deadline, or a
 * cancellation, whichever comes first. */
static run_end wait_loop(run_state *st, int64_t deadline) {
  int64_t drain_until = 0;
  for (;;) {
    if (st->reaped && st->out_fd < 0) return END_DONE;
    int64_t now = ztime_mono_ms();
    if (zcancel_requested()) return END_CANCELLED;
    if (!st->reaped && now >= deadline) return END_TIMEOUT;
    if (st->reaped && now >= drain_until) return END_LINGERING;

    struct pollfd pf[3];
    int n = 0, i_out = -1, i_pid = -1, i_cancel = -1;
    if (st->out_fd >= 0) { i_out = n; pf[n++] = (struct pollfd){st->out_fd, POLLIN, 0}; }
    if (!st->reaped && st->pidfd >= 0) { i_pid = n; pf[n++] = (struct pollfd){st->pidfd, POLLIN, 0}; }
    if (zcancel_fd() >= 0) { i_cancel = n; pf[n++] = (struct pollfd){zcancel_fd(), POLLIN, 0}; }
    int64_t wait = (st->reaped ? drain_until : deadline) - now;
    if (!st->reaped && st->pidfd < 0 && wait > 50) wait = 50; /* no pidfd: poll waitpid */
    if (wait > 1000) wait = 1000;
    int r = poll(pf, (nfds_t)n, (int)(wait > 0 ? wait : 0));
    if (r < 0 && errno != EINTR) return END_DONE;
    if (r > 0 && i_out >= 0 && pf[i_out].revents) drain_available(st);
    if (!st->reaped && (st->pidfd < 0 || (i_pid >= 0 && pf[i_pid].revents))) {
      try_reap(st);
      if (st->reaped) drain_until = ztime_mono_ms() + EXEC_DRAIN_GRACE_MS;
    }
    if (r > 0 && i_cancel >= 0 && pf[i_cancel].revents) return END_CANCELLED;
  }
}

static int run_exec_command(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *cmd = zjson_str(args, "cmd");
  const char *workdir_arg = zjson_str(args, "workdir");
  int64_t timeout_ms = zjson_int_or(args, "timeout_ms",
                                    ctx->exec_timeout_ms > 0 ? ctx->exec_timeout_ms
                                                             : EXEC_DEFAULT_TIMEOUT_MS);
  if (timeout_ms > EXEC_MAX_TIMEOUT_MS) timeout_ms = EXEC_MAX_TIMEOUT_MS;
  if (timeout_ms < 1) timeout_ms = 1;

  const char *p = cmd;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  if (!*p) return ztool_fail(res, "exec_command: cmd is empty; give a shell command to run.");

  cleanup_free char *workdir = ztool_resolve_path(ctx, workdir_arg);
  cleanup_free char *wd_display = zt_display_path(ctx, workdir);
  struct stat wst;
  if (stat(workdir, &wst) < 0)
    return ztool_fail(res, "exec_command: workdir %s does not exist; omit workdir to run in "
                           "the workspace root.", wd_display);
  if (!S_ISDIR(wst.st_mode))
    return ztool_fail(res, "exec_command: workdir %s is not a directory.", wd_display);

  /* The command as the spawner sees it; a sandbox spawner rewrites it to run
   * confined, or refuses it. */
  zspawn_cmd sc = {NULL, NULL, xstrdup(workdir), false};
  sc.argv = xcalloc(4, sizeof *sc.argv);
  sc.argv[0] = xstrdup("/bin/sh");
  sc.argv[1] = xstrdup("-c");
  sc.argv[2] = xstrdup(cmd);
  if (ctx->spawner) {
    zerr werr = ZERR_INIT;
    if (ctx->spawner->wrap(ctx->spawner, &sc, &werr) < 0) {
      zspawn_cmd_release(&sc);
      return ztool_fail(res, "exec_command: not run: %s", werr.msg);
    }
  }

  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) < 0) {
    zspawn_cmd_release(&sc);
    return ztool_fail(res, "exec_command: cannot create a pipe: %s", strerror(errno));
  }
  cleanup_fd int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    zspawn_cmd_release(&sc);
    return ztool_fail(res, "exec_command: cannot open /dev/null: %s", strerror(errno));
  }

  int64_t started = ztime_mono_ms();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(pipefd[0]);
    close(pipefd[1]);
    zspawn_cmd_release(&sc);
    return ztool_fail(res, "exec_command: cannot start a process: %s", strerror(e));
  }
  if (pid == 0) child_exec(sc.argv, workdir, devnull, pipefd[1]);
  zspawn_cmd_release(&sc);

  close(pipefd[1]);
  fcntl(pipefd[0], F_SETFL, fcntl(pipefd[0], F_GETFL) | O_NONBLOCK);
  run_state st = {.pid = pid, .out_fd = pipefd[0], .pidfd = -1, .reaped = false, .status = 0};
#ifdef SYS_pidfd_open
  st.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
  capture_init(&st.cap, zt_output_cap(ctx));

  run_end end = wait_loop(&st, started + timeout_ms);
  if (end != END_DONE) kill_group(&st);
  int64_t duration = ztime_mono_ms() - started;
  if (st.out_fd >= 0) close(st.out_fd);
  if (st.pidfd >= 0) close(st.pidfd);

  uint64_t total = st.cap.total;
  uint64_t dropped;
  if (total == 0) {
    zbuf_addstr(&res->output, "(no output)\n");
    dropped = 0;
  } else {
    dropped = capture_render(&st.cap, &res->output);
    if (!zbuf_ends_with(&res->output, "\n")) zbuf_addch(&res->output, '\n');
  }
  capture_release(&st.cap);

  int exit_code = -1, sig = 0;
  if (WIFEXITED(st.status)) {
    exit_code = WEXITSTATUS(st.status);
  } else if (WIFSIGNALED(st.status)) {
    sig = WTERMSIG(st.status);
    exit_code = 128 + sig;
  }

  switch (end) {
  case END_TIMEOUT:
    zbuf_addf(&res->output,
              "[the command did not finish within %lld ms, so it and every process it "
              "started were killed; pass a larger timeout_ms (up to %d) if it needs longer, "
              "or run it in the background with its output redirected to a file]\n"
              "timed out after %lld ms",
              (long long)timeout_ms, EXEC_MAX_TIMEOUT_MS, (long long)timeout_ms);
    break;
  case END_CANCELLED:
    zbuf_addf(&res->output,
              "[cancelled by the user; the command and every process it started were "
              "killed]\ncancelled after %lld ms",
              (long long)duration);
    break;
  case END_LINGERING:
  case END_DONE:
    if (end == END_LINGERING)
      zbuf_addstr(&res->output,
                  "[the shell exited but background processes kept its output open; they "
                  "were stopped. To leave a process running, redirect its output, e.g. "
                  "`cmd > out.log 2>&1 &`]\n");
    if (sig)
      zbuf_addf(&res->output, "killed by signal %d", sig);
    else
      zbuf_addf(&res->output, "exit code: %d", exit_code);
    break;
  }

  res->truncated = dropped > 0;
  res->is_error = end == END_TIMEOUT || end == END_CANCELLED || exit_code != 0;
  res->meta = json_object();
  json_object_set_new(res->meta, "exit_code", json_integer(exit_code));
  if (sig) json_object_set_new(res->meta, "signal", json_integer(sig));
  json_object_set_new(res->meta, "timed_out", json_boolean(end == END_TIMEOUT));
  json_object_set_new(res->meta, "cancelled", json_boolean(end == END_CANCELLED));
  json_object_set_new(res->meta, "duration_ms", json_integer(duration));
  json_object_set_new(res->meta, "output_bytes", json_integer((json_int_t)total));
  json_object_set_new(res->meta, "truncated", json_boolean(dropped > 0));
  return res->is_error ? -1 : 0;
}

const ztool ztool_def_exec_command = {
    .name = "exec_command",
    .description =
        "Run a shell command (/bin/sh -c) in the workspace, or in workdir, and return its "
        "combined stdout and stderr followed by \"exit code: N\". stdin is empty, so "
        "interactive programs will not wait for input. The command and everything it starts "
        "are killed after timeout_ms. Long output keeps its beginning and end. Use it to "
        "build, test, search (rg, grep, find) and inspect; prefer read_file and edit_file "
        "for reading and changing files.",
    .parameters_json = exec_command_schema,
    .side_effect = ZSIDE_SHELL,
    .read_only = false,
    .run = run_exec_command,
};
