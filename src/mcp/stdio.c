/* stdio.c — the stdio transport: an MCP server as a child process.
 *
 * The story:
 *   1. the command is described as a zspawn_cmd (argv, the environment with
 *      the server's "env" added, cwd) and, when the run has a spawner (the
 *      sandbox), handed to it to be confined — the one path every child of
 *      zero takes;
 *   2. fork; the child leads its own process group (servers started through
 *      npx / uvx have children of their own), gets pipes for stdin, stdout
 *      and stderr, default signal dispositions and no other descriptors, and
 *      execs; an exec failure is reported through a close-on-exec pipe so
 *      "command not found" is known at once instead of as a silent EOF;
 *   3. stdout is framed into messages (jsonrpc.h) and delivered; stderr is
 *      kept as a bounded tail shown when the server fails;
 *   4. shutdown follows the MCP lifecycle: close stdin, wait, SIGTERM the
 *      group, wait, SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/log.h"
#include "base/strvec.h"
#include "base/secrets.h"
#include "base/time.h"
#include "exec/proc.h"
#include "exec/reaper.h"
#include "exec/spawn.h"
#include "mcp/jsonrpc.h"
#include "mcp/transport.h"

#define STDERR_TAIL 4096 /* bytes of stderr kept for messages */

extern char **environ;

typedef struct stdio_t {
  zmcp_transport base;
  const zmcp_server_cfg *cfg;
  char *workspace;
  struct zspawner *spawner;
  pid_t pid;
  int in_fd, out_fd, err_fd;
  bool reaped;
  int status;
  zspawn_cmd hooks;  /* only on_exit/on_exit_ud: the spawner's hook, run once reaped */
  zrpc_framer framer;
  zbuf err_tail;
  char *diag;        /* err_tail rendered for diagnostics() */
  int deliver_rc;
} stdio_t;

/* The absolute paths the user's config names for this server (its command,
 * arguments and cwd): the sandbox keeps them readable (exec/spawn.h). */
static char **config_paths(const zmcp_server_cfg *cfg) {
  strvec out = STRVEC_INIT;
  for (char **a = cfg->argv; a && *a; a++)
    if ((*a)[0] == '/') strvec_push(&out, *a);
  if (cfg->cwd && cfg->cwd[0] == '/') strvec_push(&out, cfg->cwd);
  return strvec_detach(&out);
}

/* true when env (NULL-terminated "K=V" strings) sets the variable named by
 * the first nl bytes of name. */
static bool env_sets(char *const *env, const char *name, size_t nl) {
  for (; env && *env; env++)
    if (!strncmp(*env, name, nl) && (*env)[nl] == '=') return true;
  return false;
}

/* zero's environment without its credentials (base/secrets.h), with
 * cfg->env — this server's own configured variables, secrets included —
 * layered on top (same names replaced). */
static char **build_env(const zmcp_server_cfg *cfg) {
  strvec out = STRVEC_INIT;
  for (char **kv = environ; *kv; kv++) {
    const char *eq = strchr(*kv, '=');
    size_t nl = eq ? (size_t)(eq - *kv) : strlen(*kv);
    if (!zsecret_env_entry_is_secret(*kv) && !env_sets(cfg->env, *kv, nl)) strvec_push(&out, *kv);
  }
  strvec_pushv(&out, cfg->env);
  return strvec_detach(&out);
}

/* The sandbox withholds every credential (base/secrets.h: names that look
 * secret, names the configuration declares — this server's own "env"
 * entries among them — and known secret values) from a child's
 * environment: zero's own environment must not leak to what the model runs.
 * A variable the user's config sets for this server ("env") is meant for
 * it, though (an API token is what most servers need), so every such name
 * the wrapped environment lacks is put back — for this server only. Names
 * the sandbox set itself (HOME, TMPDIR, …) are left as it set them. */
static void restore_config_env(zspawn_cmd *cmd, const zmcp_server_cfg *cfg) {
  if (!cmd->envp) return;
  strvec env = STRVEC_INIT;
  strvec_attach(&env, cmd->envp);
  for (char **kv = cfg->env; kv && *kv; kv++) {
    const char *eq = strchr(*kv, '=');
    if (!eq) continue;
    if (!env_sets(env.v, *kv, (size_t)(eq - *kv))) strvec_push(&env, *kv);
  }
  cmd->envp = strvec_detach(&env);
}

static void tail_add(stdio_t *s, const char *data, size_t n) {
  zbuf_add(&s->err_tail, data, n);
  if (s->err_tail.len > STDERR_TAIL) zbuf_consume(&s->err_tail, s->err_tail.len - STDERR_TAIL);
}

/* Runs in the forked child: only async-signal-safe calls until exec. */
static void child_exec(const zspawn_cmd *cmd, int in_fd, int out_fd, int err_fd, int report_fd,
                       int reaper_fd) {
  setsid();
  zreaper_child_register(reaper_fd); /* killed with zero, however zero ends */
  zreaper_child_signals(NULL, 0);
  int e = 0;
  if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) e = errno;
  if (!e && cmd->cwd && chdir(cmd->cwd) < 0) e = errno;
  if (!e) {
    /* report_fd is close-on-exec: a successful exec closes it silently. */
    execvpe(cmd->argv[0], cmd->argv, cmd->envp ? cmd->envp : environ);
    e = errno;
  }
  ssize_t w = write(report_fd, &e, sizeof e);
  (void)w;
  _exit(127);
}

typedef struct stdio_child {
  const zspawn_cmd *cmd;
  int in_fd, out_fd, err_fd, report_fd, reaper_fd;
} stdio_child;

static void child_start(void *arg) {
  const stdio_child *a = arg;
  child_exec(a->cmd, a->in_fd, a->out_fd, a->err_fd, a->report_fd, a->reaper_fd);
}

static int stdio_start(zmcp_transport *t, zerr *err) {
  stdio_t *s = (stdio_t *)t;
  const zmcp_server_cfg *cfg = s->cfg;
  if (!cfg->argv || !cfg->argv[0] || !cfg->argv[0][0])
    return zerr_set(err, ZE_CONFIG, "MCP server \"%s\" has no \"command\"; set it in %s",
                    cfg->name, cfg->origin ? cfg->origin : "the config");
  zspawn_cmd cmd = {.argv = strvec_dup_array(cfg->argv), .envp = build_env(cfg),
                    .cwd = xstrdup(cfg->cwd ? cfg->cwd : s->workspace ? s->workspace : "."),
                    .network = true, .read_paths = config_paths(cfg)};
  zlog_argv("spawn", "MCP server", (const char *const *)cmd.argv);
  if (s->spawner && s->spawner->wrap(s->spawner, &cmd, err) < 0) {
    zerr_prefix(err, "MCP server \"%s\" may not start", cfg->name);
    zspawn_cmd_release(&cmd);
    return -1;
  }
  if (s->spawner) restore_config_env(&cmd, cfg);
  /* A write to a server that has exited must fail with EPIPE, not kill zero. */
  signal(SIGPIPE, SIG_IGN);

  int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1}, rep[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0 ||
      pipe2(rep, O_CLOEXEC) < 0) {
    int e = errno;
    int fds[] = {in[0], in[1], out[0], out[1], er[0], er[1], rep[0], rep[1]};
    for (size_t i = 0; i < ZARRAY_LEN(fds); i++)
      if (fds[i] >= 0) close(fds[i]);
    zspawn_cmd_finish(&cmd);
    zspawn_cmd_release(&cmd);
    errno = e;
    return zerr_errno(err, ZE_IO, "MCP server \"%s\": cannot create pipes", cfg->name);
  }
  /* Forked on zero's lasting thread (zreaper_fork): a sandboxed server's
   * bwrap dies with the thread that forked it. */
  stdio_child ca = {&cmd, in[0], out[1], er[1], rep[1], zreaper_fd()};
  pid_t pid = zreaper_fork(child_start, &ca);
  int fork_errno = errno;
  close(in[0]);
  close(out[1]);
  close(er[1]);
  close(rep[1]);
  if (pid < 0) {
    close(in[1]);
    close(out[0]);
    close(er[0]);
    close(rep[0]);
    zspawn_cmd_finish(&cmd);
    zspawn_cmd_release(&cmd);
    errno = fork_errno;
    return zerr_errno(err, ZE_IO, "MCP server \"%s\": cannot start a process", cfg->name);
  }
  s->pid = pid;
  s->in_fd = in[1];
  s->out_fd = out[0];
  s->err_fd = er[0];
  int child_errno = 0;
  ssize_t r;
  do r = read(rep[0], &child_errno, sizeof child_errno);
  while (r < 0 && errno == EINTR);
  close(rep[0]);
  if (r == (ssize_t)sizeof child_errno) {
    zreaper_forget(pid);
    waitpid(pid, &s->status, 0);
    s->reaped = true;
    zerr_set(err, ZE_CONFIG,
             "MCP server \"%s\": cannot run %s: %s; check \"command\" in %s (is it installed "
             "and on PATH?)",
             cfg->name, cmd.argv[0], strerror(child_errno), cfg->origin ? cfg->origin : "the config");
    zspawn_cmd_finish(&cmd);
    zspawn_cmd_release(&cmd);
    return -1;
  }
  s->hooks.on_exit = cmd.on_exit;
  s->hooks.on_exit_ud = cmd.on_exit_ud;
  cmd.on_exit = NULL;
  zspawn_cmd_release(&cmd);
  fcntl(s->out_fd, F_SETFL, fcntl(s->out_fd, F_GETFL) | O_NONBLOCK);
  fcntl(s->err_fd, F_SETFL, fcntl(s->err_fd, F_GETFL) | O_NONBLOCK);
  return 0;
}

static void reap(stdio_t *s, bool block) {
  if (s->reaped || s->pid <= 0) return;
  /* Look before reaping: the watchdog must forget the group while its id
   * still cannot be reused. */
  if (zexec_peek_exit(s->pid, block, NULL) == 1) zreaper_forget(s->pid);
  pid_t r;
  do r = waitpid(s->pid, &s->status, block ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == s->pid || (r < 0 && errno == ECHILD)) {
    s->reaped = true;
    zspawn_cmd_finish(&s->hooks); /* the sandbox is gone: let go of its placeholders */
  }
}

/* "exited with status 3" / "was killed by signal 9" / "is still running". */
static void describe_exit(stdio_t *s, zbuf *out) {
  reap(s, false);
  if (!s->reaped)
    zbuf_addstr(out, "closed its output");
  else if (WIFEXITED(s->status))
    zbuf_addf(out, "exited with status %d", WEXITSTATUS(s->status));
  else if (WIFSIGNALED(s->status))
    zbuf_addf(out, "was killed by signal %d", WTERMSIG(s->status));
  else
    zbuf_addstr(out, "ended");
}

static int stdio_send(zmcp_transport *t, const char *msg, size_t len, int timeout_ms,
                      zerr *err) {
  stdio_t *s = (stdio_t *)t;
  if (s->in_fd < 0) return zerr_set(err, ZE_IO, "MCP server \"%s\" is shut down", s->cfg->name);
  /* One write of message + newline keeps messages whole even if another
   * writer appeared; pipes make writes up to PIPE_BUF atomic. */
  zbuf line = ZBUF_INIT;
  zbuf_add(&line, msg, len);
  zbuf_addch(&line, '\n');
  size_t off = 0;
  int64_t deadline = timeout_ms > 0 ? ztime_mono_ms() + timeout_ms : 0;
  int rc = 0;
  while (off < line.len) {
    ssize_t w = write(s->in_fd, line.data + off, line.len - off);
    if (w > 0) {
      off += (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      int left = deadline ? (int)(deadline - ztime_mono_ms()) : 1000;
      if (deadline && left <= 0) {
        rc = zerr_set(err, ZE_TIMEOUT, "MCP server \"%s\" stopped reading its input",
                      s->cfg->name);
        break;
      }
      struct pollfd p = {s->in_fd, POLLOUT, 0};
      poll(&p, 1, left);
      continue;
    }
    zbuf why = ZBUF_INIT;
    describe_exit(s, &why);
    rc = zerr_set(err, ZE_IO, "MCP server \"%s\" %s (writing to it failed: %s)", s->cfg->name,
                  why.data, strerror(errno));
    zbuf_release(&why);
    break;
  }
  zbuf_release(&line);
  return rc;
}

static int on_line(void *ud, const char *line, size_t len) {
  stdio_t *s = ud;
  int rc = s->base.deliver(s->base.deliver_ud, line, len);
  if (rc) s->deliver_rc = rc;
  return rc;
}

static void drain_stderr(stdio_t *s) {
  char buf[4096];
  for (;;) {
    ssize_t r = read(s->err_fd, buf, sizeof buf);
    if (r > 0) {
      tail_add(s, buf, (size_t)r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      close(s->err_fd);
      s->err_fd = -1;
    }
    return;
  }
}

static int stdio_pump(zmcp_transport *t, int timeout_ms, zerr *err) {
  stdio_t *s = (stdio_t *)t;
  if (s->out_fd < 0) return zerr_set(err, ZE_IO, "MCP server \"%s\" is shut down", s->cfg->name);
  struct pollfd p[3];
  int n = 0;
  p[n++] = (struct pollfd){s->out_fd, POLLIN, 0};
  int err_idx = -1, cancel_idx = -1;
  if (s->err_fd >= 0) {
    err_idx = n;
    p[n++] = (struct pollfd){s->err_fd, POLLIN, 0};
  }
  if (zcancel_fd() >= 0) {
    cancel_idx = n;
    p[n++] = (struct pollfd){zcancel_fd(), POLLIN, 0};
  }
  if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "cancelled");
  int pr = poll(p, (nfds_t)n, timeout_ms);
  if (pr < 0) {
    if (errno == EINTR) return zcancel_requested() ? zerr_set(err, ZE_CANCELLED, "cancelled") : 0;
    return zerr_errno(err, ZE_IO, "waiting for MCP server \"%s\"", s->cfg->name);
  }
  if (pr == 0) return 0;
  if (err_idx >= 0 && p[err_idx].revents) drain_stderr(s);
  if (cancel_idx >= 0 && p[cancel_idx].revents && zcancel_requested())
    return zerr_set(err, ZE_CANCELLED, "cancelled");
  if (!p[0].revents) return 0;
  char buf[65536];
  int delivered = 0;
  for (;;) {
    ssize_t r = read(s->out_fd, buf, sizeof buf);
    if (r > 0) {
      s->deliver_rc = 0;
      int rc = zrpc_framer_feed(&s->framer, buf, (size_t)r, on_line, s, err);
      if (rc < 0) {
        zerr_prefix(err, "MCP server \"%s\"", s->cfg->name);
        return -1;
      }
      if (s->deliver_rc) return zerr_set(err, ZE_INVALID, "MCP server \"%s\" sent an invalid message", s->cfg->name);
      delivered = 1;
      if ((size_t)r < sizeof buf) return delivered;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) return delivered;
    /* EOF: the server is gone. Collect what it said on stderr first. */
    if (s->err_fd >= 0) {
      struct pollfd ep = {s->err_fd, POLLIN, 0};
      for (int i = 0; i < 20 && s->err_fd >= 0 && poll(&ep, 1, 10) > 0; i++) drain_stderr(s);
    }
    for (int i = 0; i < 50 && !s->reaped; i++) {
      reap(s, false);
      if (!s->reaped) ztime_sleep_ms(2, NULL);
    }
    zbuf why = ZBUF_INIT;
    describe_exit(s, &why);
    zerr_set(err, ZE_IO, "MCP server \"%s\" %s", s->cfg->name, why.data);
    zbuf_release(&why);
    close(s->out_fd);
    s->out_fd = -1;
    return -1;
  }
}

static void stdio_begin_shutdown(zmcp_transport *t) {
  stdio_t *s = (stdio_t *)t;
  if (s->in_fd >= 0) close(s->in_fd);
  s->in_fd = -1;
}

/* Polls every 5 ms until the server has been reaped or deadline_ms passed. */
static void reap_until(stdio_t *s, int64_t deadline_ms) {
  while (!s->reaped && ztime_mono_ms() < deadline_ms) {
    reap(s, false);
    if (!s->reaped) ztime_sleep_ms(5, NULL);
  }
}

static void stdio_finish_shutdown(zmcp_transport *t, long long deadline_ms) {
  stdio_t *s = (stdio_t *)t;
  if (s->pid <= 0) return;
  /* Phase 1: stdin closed, let it exit by itself. */
  reap_until(s, deadline_ms);
  if (!s->reaped) {
    kill(-s->pid, SIGTERM);
    kill(s->pid, SIGTERM);
    reap_until(s, ztime_mono_ms() + 1000);
  }
  if (!s->reaped) {
    kill(-s->pid, SIGKILL);
    kill(s->pid, SIGKILL);
    reap(s, true);
  } else {
    /* The leader is gone; children it left in the group get a TERM too. */
    kill(-s->pid, SIGTERM);
  }
}

static void stdio_destroy(zmcp_transport *t) {
  stdio_t *s = (stdio_t *)t;
  stdio_begin_shutdown(t);
  if (s->pid > 0 && !s->reaped) stdio_finish_shutdown(t, ztime_mono_ms());
  zspawn_cmd_finish(&s->hooks);
  if (s->out_fd >= 0) close(s->out_fd);
  if (s->err_fd >= 0) close(s->err_fd);
  zrpc_framer_release(&s->framer);
  zbuf_release(&s->err_tail);
  free(s->diag);
  free(s->workspace);
  free(s->base.protocol_version);
  free(s);
}

static const char *stdio_diagnostics(zmcp_transport *t) {
  stdio_t *s = (stdio_t *)t;
  if (s->err_fd >= 0) drain_stderr(s);
  if (!s->err_tail.len) return NULL;
  /* Start at a line boundary when the tail was cut. */
  const char *start = s->err_tail.data;
  if (s->err_tail.len >= STDERR_TAIL) {
    const char *nl = memchr(start, '\n', s->err_tail.len);
    if (nl && nl[1]) start = nl + 1;
  }
  zbuf d = ZBUF_INIT;
  zbuf_addstr(&d, start);
  zbuf_rtrim(&d);
  free(s->diag);
  s->diag = zbuf_detach(&d, NULL);
  return s->diag[0] ? s->diag : NULL;
}

static const zmcp_transport_ops stdio_ops = {
    stdio_start, stdio_send, stdio_pump, stdio_begin_shutdown, stdio_finish_shutdown,
    stdio_destroy, stdio_diagnostics,
};

zmcp_transport *zmcp_stdio_new(const zmcp_server_cfg *cfg, const char *workspace,
                               struct zspawner *spawner) {
  stdio_t *s = xcalloc(1, sizeof *s);
  s->base.ops = &stdio_ops;
  s->cfg = cfg;
  s->workspace = workspace ? xstrdup(workspace) : NULL;
  s->spawner = spawner;
  s->pid = -1;
  s->in_fd = s->out_fd = s->err_fd = -1;
  zrpc_framer f = ZRPC_FRAMER_INIT;
  s->framer = f;
  zbuf_init(&s->err_tail);
  return &s->base;
}
