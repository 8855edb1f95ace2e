/* proc.c — the process manager; see proc.h for the contract.
 *
 * The story of one process:
 *   1. zexec_spawn: the spawner rewrites the command (sandbox); a PTY or pipes
 *      are made; fork; the child becomes a session leader (so also a process
 *      group leader; on a PTY the terminal becomes its controlling terminal),
 *      gets default signal dispositions, no inherited descriptors beyond 0-2,
 *      and execs. An exec failure is reported through a CLOEXEC pipe, so the
 *      caller gets "cannot run X: No such file" rather than a mystery 127.
 *   2. zexec_proc_wait polls the output, a pidfd (exit) and the cancellation
 *      fd. Output goes into a ring of the newest ZEXEC_RING_MAX bytes.
 *   3. The leader's exit is observed with waitid(WNOWAIT): it stays a zombie,
 *      so its PID — which is also the process group id — cannot be reused
 *      while zero may still signal the group.
 *   4. zexec_table_remove stops what is left of the group and only then reaps
 *      the leader.
 */
#include "exec/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/log.h"
#include "base/num.h"
#include "base/secrets.h"
#include "base/strvec.h"
#include "base/time.h"
#include "exec/reaper.h"

extern char **environ;

#define DRAIN_GRACE_MS 300
#define READ_CHUNK 65536
#define RING_START (64u << 10)

/* ---- spawning ------------------------------------------------------------- */

static void child_fail(int errfd, int e) {
  ssize_t w = write(errfd, &e, sizeof e);
  (void)w;
  _exit(127);
}

/* Runs in the forked child: only async-signal-safe calls until exec. */
static void child_exec(const zspawn_cmd *cmd, const zexec_opts *o, const char *slave_name,
                       int in_fd, int out_fd, int stderr_fd, int errfd, int reaper_fd) {
  setsid();
  zreaper_child_register(reaper_fd); /* killed with zero, however zero ends */
  zreaper_child_signals(NULL, 0);
  if (o->tty) {
    int slave = open(slave_name, O_RDWR | O_NOCTTY);
    if (slave < 0) child_fail(errfd, errno);
    if (!cmd->tty_taken_inside && ioctl(slave, TIOCSCTTY, 0) < 0) child_fail(errfd, errno);
    in_fd = out_fd = slave;
  }
  if (stderr_fd < 0) stderr_fd = out_fd;
  if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || (!o->keep_stderr && dup2(stderr_fd, 2) < 0))
    child_fail(errfd, errno);
  /* The passed fd goes above both targets first, so placing errfd at 3
   * cannot clobber it. */
  int pass = o->pass_fd > 2 ? fcntl(o->pass_fd, F_DUPFD_CLOEXEC, ZEXEC_PASS_FD + 1) : -1;
  if (o->pass_fd > 2 && pass < 0) child_fail(errfd, errno);
  /* Keep errfd (CLOEXEC) open above 2; close everything else. */
  int keep = errfd;
  if (keep != 3) {
    if (dup2(errfd, 3) < 0) child_fail(errfd, errno);
    fcntl(3, F_SETFD, FD_CLOEXEC);
    keep = 3;
  }
  if (pass >= 0 && dup2(pass, ZEXEC_PASS_FD) < 0) child_fail(keep, errno); /* inherited */
#ifdef SYS_close_range
  syscall(SYS_close_range, pass >= 0 ? (unsigned)ZEXEC_PASS_FD + 1 : 4u, ~0u, 0u);
#endif
  if (cmd->cwd && chdir(cmd->cwd) < 0) child_fail(keep, errno);
  if (cmd->envp) execvpe(cmd->argv[0], cmd->argv, cmd->envp);
  else execvp(cmd->argv[0], cmd->argv);
  child_fail(keep, errno);
}

typedef struct child_args {
  const zspawn_cmd *cmd;
  const zexec_opts *o;
  const char *slave_name;
  int in_fd, out_fd, stderr_fd, errfd, reaper_fd;
} child_args;

static void child_start(void *arg) {
  const child_args *a = arg;
  child_exec(a->cmd, a->o, a->slave_name, a->in_fd, a->out_fd, a->stderr_fd, a->errfd,
             a->reaper_fd);
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int zexec_prepare(zspawner *spawner, zspawn_cmd *cmd, bool zero_child, zerr *err) {
  if (spawner && spawner->wrap && spawner->wrap(spawner, cmd, err) < 0) return -1;
  /* Whatever the spawner decided (confined, or run outside the sandbox
   * after an approval), no credential of zero's reaches the child. */
  if (!zero_child) {
    char **clean = zsecret_scrub_env(cmd->envp ? cmd->envp : environ);
    for (char **e = cmd->envp; e && *e; e++) free(*e);
    free(cmd->envp);
    cmd->envp = clean;
  }
  return 0;
}

int zexec_spawn(zspawner *spawner, zspawn_cmd *cmd, const zexec_opts *o, zexec_child *out,
                zerr *err) {
  int rc = -1;
  int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  int stderr_pipe[2] = {-1, -1};
  int master = -1;
  char slave_name[128] = "";
  out->pid = -1;
  out->out_fd = out->in_fd = out->err_fd = -1;
  out->on_exit = NULL;
  out->on_exit_ud = NULL;
  out->group_inside = false;

  if (!cmd->argv || !cmd->argv[0]) {
    zerr_set(err, ZE_INTERNAL, "no command to run");
    goto done;
  }
  cmd->tty = o->tty;
  cmd->tty_taken_inside = false;
  cmd->group_inside = false;
  zlog_argv("spawn", "command", (const char *const *)cmd->argv);
  if (zexec_prepare(spawner, cmd, o->zero_child, err) < 0) goto done;

  if (o->tty) {
    master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 ||
        ptsname_r(master, slave_name, sizeof slave_name) != 0) {
      zerr_errno(err, ZE_IO, "cannot open a pseudo-terminal");
      goto done;
    }
    struct winsize ws = {.ws_row = 40, .ws_col = 120};
    ioctl(master, TIOCSWINSZ, &ws);
  } else {
    if (pipe2(out_pipe, O_CLOEXEC) < 0) {
      zerr_errno(err, ZE_IO, "cannot create a pipe");
      goto done;
    }
    if (o->stdin_open) {
      if (pipe2(in_pipe, O_CLOEXEC) < 0) {
        zerr_errno(err, ZE_IO, "cannot create a pipe");
        goto done;
      }
    } else {
      in_pipe[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (in_pipe[0] < 0) {
        zerr_errno(err, ZE_IO, "cannot open /dev/null");
        goto done;
      }
    }
    if (o->own_stderr && pipe2(stderr_pipe, O_CLOEXEC) < 0) {
      zerr_errno(err, ZE_IO, "cannot create a pipe");
      goto done;
    }
  }
  if (pipe2(err_pipe, O_CLOEXEC) < 0) {
    zerr_errno(err, ZE_IO, "cannot create a pipe");
    goto done;
  }

  /* Forked on zero's lasting thread: see zreaper_fork. The read end of
   * err_pipe is close-on-exec, so the child needs no close before exec. */
  child_args ca = {cmd,         o,           slave_name,  in_pipe[0],
                   out_pipe[1], stderr_pipe[1], err_pipe[1], zreaper_fd()};
  pid_t pid = zreaper_fork(child_start, &ca);
  if (pid < 0) {
    zerr_errno(err, ZE_IO, "cannot start a process");
    goto done;
  }
  zlog("spawn", "started pid %ld (%s)", (long)pid, cmd->argv[0]);
  close(err_pipe[1]);
  err_pipe[1] = -1;
  int child_errno = 0;
  ssize_t n;
  while ((n = read(err_pipe[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  if (n == (ssize_t)sizeof child_errno) {
    /* exec failed: the child already exited; reap it (nothing else ran). */
    zreaper_forget(pid);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    errno = child_errno;
    zerr_errno(err, ZE_NOT_FOUND, "cannot run %s", cmd->argv[0]);
    goto done;
  }
  out->pid = pid;
  if (o->tty) {
    out->out_fd = master;
    out->in_fd = fcntl(master, F_DUPFD_CLOEXEC, 0);
    master = -1;
  } else {
    out->out_fd = out_pipe[0];
    out_pipe[0] = -1;
    if (o->stdin_open) {
      out->in_fd = in_pipe[1];
      in_pipe[1] = -1;
    }
  }
  set_nonblock(out->out_fd);
  if (stderr_pipe[0] >= 0) {
    out->err_fd = stderr_pipe[0];
    stderr_pipe[0] = -1;
    set_nonblock(out->err_fd);
  }
  out->on_exit = cmd->on_exit;
  out->on_exit_ud = cmd->on_exit_ud;
  out->group_inside = cmd->group_inside;
  cmd->on_exit = NULL;
  rc = 0;
done:
  for (int i = 0; i < 2; i++) {
    if (in_pipe[i] >= 0) close(in_pipe[i]);
    if (out_pipe[i] >= 0) close(out_pipe[i]);
    if (err_pipe[i] >= 0) close(err_pipe[i]);
    if (stderr_pipe[i] >= 0) close(stderr_pipe[i]);
  }
  if (master >= 0) close(master);
  zspawn_cmd_finish(cmd); /* not started: nothing is left to hold */
  zspawn_cmd_release(cmd);
  return rc;
}

/* The child's side of zexec_spawn_plain: its stdin, stdout, stderr and
 * directory, nothing else of zero's open, a session of its own, default
 * signal dispositions and an empty mask (as child_exec gives a forked one). */
static void plain_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at,
                        const zspawn_cmd *cmd, const zexec_opts *o, const int in_pipe[2],
                        const int out_pipe[2]) {
  if (o->stdin_open) posix_spawn_file_actions_adddup2(fa, in_pipe[0], 0);
  else posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(fa, out_pipe[1], 1);
  if (!o->keep_stderr) posix_spawn_file_actions_adddup2(fa, out_pipe[1], 2);
  if (cmd->cwd) posix_spawn_file_actions_addchdir_np(fa, cmd->cwd);
  posix_spawn_file_actions_addclosefrom_np(fa, 3);
  zreaper_spawnattr_clean_signals(at, POSIX_SPAWN_SETSID);
}

int zexec_spawn_plain(zspawn_cmd *cmd, const zexec_opts *o, zexec_child *out, zerr *err) {
  int rc = -1;
  int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
  memset(out, 0, sizeof *out);
  out->pid = -1;
  out->out_fd = out->in_fd = -1;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  if (!cmd->argv || !cmd->argv[0] || o->tty) {
    zerr_set(err, ZE_INTERNAL, "zexec_spawn_plain: no command, or a terminal asked for");
    goto done;
  }
  if (!o->zero_child) {
    char **clean = zsecret_scrub_env(cmd->envp ? cmd->envp : environ);
    strvec_free_array(cmd->envp);
    cmd->envp = clean;
  }
  if (pipe2(out_pipe, O_CLOEXEC) < 0 || (o->stdin_open && pipe2(in_pipe, O_CLOEXEC) < 0)) {
    zerr_errno(err, ZE_IO, "cannot create a pipe");
    goto done;
  }
  plain_setup(&fa, &at, cmd, o, in_pipe, out_pipe);
  pid_t pid;
  int e = posix_spawnp(&pid, cmd->argv[0], &fa, &at, cmd->argv, cmd->envp ? cmd->envp : environ);
  if (e != 0) {
    errno = e;
    zerr_errno(err, ZE_NOT_FOUND, "cannot run %s", cmd->argv[0]);
    goto done;
  }
  zreaper_register(pid); /* killed with zero, however zero ends */
  out->pid = pid;
  out->out_fd = steal_fd(&out_pipe[0]);
  if (o->stdin_open) out->in_fd = steal_fd(&in_pipe[1]);
  set_nonblock(out->out_fd);
  rc = 0;
done:
  for (int i = 0; i < 2; i++) {
    if (in_pipe[i] >= 0) close(in_pipe[i]);
    if (out_pipe[i] >= 0) close(out_pipe[i]);
  }
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  zspawn_cmd_finish(cmd);
  zspawn_cmd_release(cmd);
  return rc;
}

/* See proc.h. posix_spawnp: no setsid (the editor needs zero's terminal as
 * its controlling one), no reaper registration (zero waits for it here). */
int zexec_run_foreground(char *const argv[], zerr *err) {
  if (!argv || !argv[0] || !argv[0][0]) return zerr_set(err, ZE_INTERNAL, "no command to run");
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  /* Every signal default, not only the two ignored here: the editor must
   * not inherit an ignored SIGPIPE or glibc's 32 and 33 (exec/reaper.h). */
  zreaper_spawnattr_clean_signals(&at, 0);
  pid_t pid = -1;
  int e = posix_spawnp(&pid, argv[0], NULL, &at, argv, environ);
  posix_spawnattr_destroy(&at);
  int rc = -1;
  if (e) {
    errno = e;
    zerr_errno(err, ZE_IO, "cannot start %s", argv[0]);
  } else {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  return rc;
}

/* ---- a live process --------------------------------------------------------- */

struct zexec_proc {
  int id;
  pid_t pid;
  int pidfd;          /* -1 without pidfd_open (then waitid is polled) */
  int out_fd, in_fd;
  bool tty;
  bool group_inside;  /* interrupts go to the group of the leader's child */
  bool exited;        /* exit observed (WNOWAIT): a zombie, not reaped */
  int status_code, status_sig;
  char *label;
  int64_t started_ms, last_used_ms;
  /* ring of the newest output: bytes [total - len, total) */
  char *ring;
  size_t cap, start, len;
  uint64_t total, taken;
  void *ud;
  void (*ud_free)(void *);
  void (*on_exit)(void *);  /* the spawner's hook: run once the exit is observed */
  void *on_exit_ud;
};

static void ring_add(zexec_proc *p, const char *s, size_t n) {
  p->total += n;
  if (n >= ZEXEC_RING_MAX) {
    s += n - ZEXEC_RING_MAX;
    n = ZEXEC_RING_MAX;
  }
  /* Grow while the ring has never wrapped (start == 0). */
  if (p->start == 0 && p->len + n > p->cap && p->cap < ZEXEC_RING_MAX) {
    size_t nc = p->cap ? p->cap : RING_START;
    while (nc < p->len + n && nc < ZEXEC_RING_MAX) nc *= 2;
    if (nc > ZEXEC_RING_MAX) nc = ZEXEC_RING_MAX;
    p->ring = xrealloc(p->ring, nc);
    p->cap = nc;
  }
  for (size_t done = 0; done < n;) {
    size_t wpos = (p->start + p->len) % p->cap;
    size_t room = p->cap - wpos;
    size_t k = n - done < room ? n - done : room;
    memcpy(p->ring + wpos, s + done, k);
    done += k;
    p->len += k;
    if (p->len > p->cap) {
      p->start = (p->start + (p->len - p->cap)) % p->cap;
      p->len = p->cap;
    }
  }
}

void zexec_proc_take_output(zexec_proc *p, zbuf *out, uint64_t *dropped_out) {
  uint64_t first = p->total - p->len;
  uint64_t dropped = 0;
  if (p->taken < first) {
    dropped = first - p->taken;
    p->taken = first;
  }
  size_t skip = (size_t)(p->taken - first), want = p->len - skip;
  size_t from = (p->start + skip) % (p->cap ? p->cap : 1);
  size_t k = p->cap - from < want ? p->cap - from : want;
  if (want) {
    zbuf_add(out, p->ring + from, k);
    zbuf_add(out, p->ring, want - k);
  }
  p->taken = p->total;
  if (dropped_out) *dropped_out = dropped;
}

void zexec_proc_peek_tail(const zexec_proc *p, size_t max, zbuf *out) {
  uint64_t first = p->total - p->len;
  uint64_t from_byte = p->taken > first ? p->taken : first;
  size_t want = (size_t)(p->total - from_byte);
  if (want > max) want = max;
  if (!want || !p->cap) return;
  size_t from = (p->start + (p->len - want)) % p->cap;
  size_t k = p->cap - from < want ? p->cap - from : want;
  zbuf_add(out, p->ring + from, k);
  zbuf_add(out, p->ring, want - k);
}

uint64_t zexec_proc_total_output(const zexec_proc *p) { return p->total; }
int zexec_proc_id(const zexec_proc *p) { return p->id; }
pid_t zexec_proc_pid(const zexec_proc *p) { return p->pid; }
bool zexec_proc_tty(const zexec_proc *p) { return p->tty; }
bool zexec_proc_has_stdin(const zexec_proc *p) { return p->in_fd >= 0; }
void *zexec_proc_userdata(const zexec_proc *p) { return p->ud; }
void zexec_proc_set_userdata(zexec_proc *p, void *ud, void (*free_fn)(void *)) {
  if (p->ud && p->ud_free) p->ud_free(p->ud);
  p->ud = ud;
  p->ud_free = free_fn;
}

bool zexec_proc_exited(const zexec_proc *p, int *exit_code, int *signal_out) {
  if (exit_code) *exit_code = p->status_code;
  if (signal_out) *signal_out = p->status_sig;
  return p->exited;
}

/* The leader has exited: with the sandbox, its namespaces are gone (bwrap
 * exits after everything in its pid namespace), so what the spawner held for
 * it (placeholders) can be let go of now, not when the zombie is reaped. */
static void run_on_exit(zexec_proc *p) {
  void (*fn)(void *) = p->on_exit;
  p->on_exit = NULL;
  if (fn) fn(p->on_exit_ud);
}

int zexec_peek_exit(pid_t pid, bool block, siginfo_t *si) {
  siginfo_t local;
  if (!si) si = &local;
  memset(si, 0, sizeof *si);
  int r;
  while ((r = waitid(P_PID, (id_t)pid, si, WEXITED | WNOWAIT | (block ? 0 : WNOHANG))) < 0 &&
         errno == EINTR) {
  }
  if (r < 0) return -1;
  return si->si_pid == pid;
}

/* Observes the leader's exit without reaping it (the zombie keeps its PID
 * and group id reserved). */
static bool observe_exit(zexec_proc *p, bool block) {
  if (p->exited) return true;
  siginfo_t si;
  if (zexec_peek_exit(p->pid, block, &si) != 1) return false;
  p->exited = true;
  run_on_exit(p);
  if (si.si_code == CLD_EXITED) {
    p->status_code = si.si_status;
    p->status_sig = 0;
  } else {
    p->status_sig = si.si_status;
    p->status_code = 128 + si.si_status;
  }
  return true;
}

/* Reads what is available now (bounded, so timers are rechecked). */
static void drain(zexec_proc *p) {
  char buf[READ_CHUNK];
  for (int i = 0; i < 64 && p->out_fd >= 0; i++) {
    ssize_t n = read(p->out_fd, buf, sizeof buf);
    if (n > 0) {
      ring_add(p, buf, (size_t)n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    /* EOF, or EIO on a PTY whose last slave closed. */
    close(p->out_fd);
    p->out_fd = -1;
  }
}

/* Signals the group; only while the leader is not reaped (always true for a
 * process in a table), so the group id cannot belong to anyone else. exited:
 * the leader's exit was observed (then a missing group has nobody left). */
static void signal_group_of(const zexec_proc *p, bool exited, int sig) {
  if (kill(-p->pid, sig) < 0 && errno == ESRCH && !exited) kill(p->pid, sig);
}

static void signal_group(zexec_proc *p, int sig) { signal_group_of(p, p->exited, sig); }

/* The process group the leader's first child leads, or 0. */
static pid_t inner_group(pid_t leader) {
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)leader, (int)leader);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  long child = strtol(buf, NULL, 10);
  if (child <= 0) return 0;
  /* Only a group it leads: its pgid is its pid (field 5 of stat, after the
   * command name in parentheses, which may itself hold spaces). */
  snprintf(path, sizeof path, "/proc/%ld/stat", child);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  const char *rp = strrchr(buf, ')');
  if (!rp) return 0;
  /* " S ppid pgrp": the state letter, then the two numbers. */
  rp++;
  while (*rp == ' ') rp++;
  if (!*rp) return 0;
  rp++;
  long ppid, pgrp;
  if (!znum_long(&rp, 0, INT_MAX, &ppid) || !znum_long(&rp, 0, INT_MAX, &pgrp)) return 0;
  return ppid == leader && pgrp == child ? (pid_t)child : 0;
}

/* Sends sig to the group bwrap made inside (see signal_command) while the
 * leader is alive (!exited); true when that group was there and signalled. */
static bool signal_inner_group(const zexec_proc *p, bool exited, int sig) {
  if (!p->group_inside || exited) return false;
  pid_t g = inner_group(p->pid);
  return g > 0 && kill(-g, sig) == 0;
}

/* A signal meant for the command (SIGINT for ^C without a terminal, the
 * SIGTERM that opens a stop): to its process group. Under bwrap that is not
 * the leader's group (bwrap's own process would die of it and take the
 * sandbox along, so the command would only ever see the SIGKILL) but the
 * session bwrap made inside, whose leader — the pid namespace's init —
 * ignores it; the command gets it. The inner group is found while the leader
 * is alive and unreaped, and its leader is the only process that can end the
 * namespace, so it is still that group. */
static void signal_command(zexec_proc *p, int sig) {
  if (!signal_inner_group(p, p->exited, sig)) signal_group(p, sig);
}

void zexec_proc_kill(zexec_proc *p, int grace_ms) {
  signal_command(p, SIGTERM);
  int64_t end = ztime_mono_ms() + grace_ms;
  for (;;) {
    drain(p);
    observe_exit(p, false);
    if (p->exited && p->out_fd < 0) break;
    if (ztime_mono_ms() >= end) break;
    struct pollfd pf[2];
    int n = 0;
    if (p->out_fd >= 0) pf[n++] = (struct pollfd){p->out_fd, POLLIN, 0};
    if (!p->exited && p->pidfd >= 0) pf[n++] = (struct pollfd){p->pidfd, POLLIN, 0};
    poll(pf, (nfds_t)n, n ? 20 : 10);
  }
  /* The leader is at most a zombie, so -pid is still our group. */
  signal_group(p, SIGKILL);
  observe_exit(p, true);
  drain(p);
}

zexec_wait_end zexec_proc_wait(zexec_proc *p, int64_t deadline_ms, bool *lingering) {
  if (lingering) *lingering = false;
  int64_t drain_until = 0;
  p->last_used_ms = ztime_mono_ms();
  if (p->exited) drain_until = p->last_used_ms + DRAIN_GRACE_MS;
  for (;;) {
    if (p->exited && p->out_fd < 0) return ZEXEC_EXITED;
    int64_t now = ztime_mono_ms();
    if (zcancel_requested()) return ZEXEC_CANCELLED;
    if (p->exited && now >= drain_until) {
      /* Background processes hold the output open after the leader exited. */
      if (lingering) *lingering = true;
      zexec_proc_kill(p, 200); /* drains what came before the kill */
      if (p->out_fd >= 0) {
        close(p->out_fd);
        p->out_fd = -1;
      }
      return ZEXEC_EXITED;
    }
    if (!p->exited && now >= deadline_ms) return ZEXEC_YIELDED;

    struct pollfd pf[3];
    int n = 0, i_out = -1, i_pid = -1, i_cancel = -1;
    if (p->out_fd >= 0) { i_out = n; pf[n++] = (struct pollfd){p->out_fd, POLLIN, 0}; }
    if (!p->exited && p->pidfd >= 0) { i_pid = n; pf[n++] = (struct pollfd){p->pidfd, POLLIN, 0}; }
    if (zcancel_fd() >= 0) { i_cancel = n; pf[n++] = (struct pollfd){zcancel_fd(), POLLIN, 0}; }
    int64_t wait = (p->exited ? drain_until : deadline_ms) - now;
    if (!p->exited && p->pidfd < 0 && wait > 20) wait = 20;
    if (wait > 1000) wait = 1000;
    int r = poll(pf, (nfds_t)n, (int)(wait > 0 ? wait : 0));
    /* A failed poll says nothing about the process: never report an exit
     * (and its status) that was not observed; wait a moment and look again. */
    if (r < 0) {
      if (errno != EINTR) ztime_sleep_ms(10, NULL);
      continue;
    }
    if (r > 0 && i_out >= 0 && pf[i_out].revents) drain(p);
    if (!p->exited && (p->pidfd < 0 || (i_pid >= 0 && pf[i_pid].revents))) {
      if (observe_exit(p, false)) {
        drain(p);
        drain_until = ztime_mono_ms() + DRAIN_GRACE_MS;
      }
    }
    if (r > 0 && i_cancel >= 0 && pf[i_cancel].revents) return ZEXEC_CANCELLED;
  }
}

int zexec_proc_write(zexec_proc *p, const char *chars, size_t n, zerr *err) {
  p->last_used_ms = ztime_mono_ms();
  if (n == 0) return 0;
  if (!p->tty && n == 1 && chars[0] == '\x03') {
    if (!p->exited) signal_command(p, SIGINT);
    return 0;
  }
  if (p->in_fd < 0)
    return zerr_set(err, ZE_INVALID,
                    "session %d has no stdin (it was started without tty); start the command "
                    "with tty: true to interact with it",
                    p->id);
  size_t done = 0;
  int64_t end = ztime_mono_ms() + 2000;
  while (done < n) {
    ssize_t w = write(p->in_fd, chars + done, n - done);
    if (w > 0) {
      done += (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN && ztime_mono_ms() < end) {
      drain(p); /* a PTY echoes: keep its output moving so input can flow */
      struct pollfd pf = {p->in_fd, POLLOUT, 0};
      poll(&pf, 1, 20);
      continue;
    }
    return zerr_errno(err, ZE_IO, "cannot write to session %d", p->id);
  }
  return 0;
}

/* ---- the table ---------------------------------------------------------------- */

struct zexec_table {
  pthread_mutex_t mu;
  ZVEC(zexec_proc *) procs;
  int next_id;
};

zexec_table *zexec_table_new(void) {
  zexec_table *t = xcalloc(1, sizeof *t);
  pthread_mutex_init(&t->mu, NULL);
  t->next_id = ZEXEC_FIRST_ID;
  return t;
}

static zexec_table *default_table;

static void shutdown_default(void) {
  if (default_table) zexec_table_shutdown(default_table);
}

static void init_default(void) {
  default_table = zexec_table_new();
  atexit(shutdown_default);
}

zexec_table *zexec_table_default(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_default);
  return default_table;
}

static void proc_free(zexec_proc *p) {
  run_on_exit(p); /* reaped without the exit observed first */
  if (p->out_fd >= 0) close(p->out_fd);
  if (p->in_fd >= 0) close(p->in_fd);
  if (p->pidfd >= 0) close(p->pidfd);
  if (p->ud && p->ud_free) p->ud_free(p->ud);
  free(p->label);
  free(p->ring);
  free(p);
}

/* Stops what is left of the group (grandchildren included) and only then
 * reaps the leader. */
static void proc_finish(zexec_proc *p, int grace_ms) {
  /* A command that exited by itself and whose output ended may leave
   * background jobs that redirected their output: those were meant to stay. */
  if (!p->exited || p->out_fd >= 0) zexec_proc_kill(p, grace_ms);
  zreaper_forget(p->pid);
  while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR) {
  }
  proc_free(p);
}

static void unlink_at(zexec_table *t, size_t i) {
  /* a vector of pointers: the element size is a pointer's */
  memmove(&t->procs.items[i], &t->procs.items[i + 1],
          // NOLINTNEXTLINE(bugprone-sizeof-expression)
          (t->procs.len - i - 1) * sizeof *t->procs.items);
  t->procs.len--;
}

zexec_proc *zexec_table_add(zexec_table *t, zexec_child *c, bool tty, const char *label,
                            int *evicted_out) {
  if (evicted_out) *evicted_out = 0;
  zexec_proc *victim = NULL;
  pthread_mutex_lock(&t->mu);
  if (t->procs.len >= ZEXEC_MAX_LIVE) {
    size_t pick = SIZE_MAX;
    /* Oldest finished first … */
    for (size_t i = 0; i < t->procs.len; i++) {
      zexec_proc *q = t->procs.items[i];
      observe_exit(q, false);
      if (q->exited && (pick == SIZE_MAX || q->started_ms < t->procs.items[pick]->started_ms))
        pick = i;
    }
    /* … else the least recently used. */
    if (pick == SIZE_MAX)
      for (size_t i = 0; i < t->procs.len; i++)
        if (pick == SIZE_MAX || t->procs.items[i]->last_used_ms < t->procs.items[pick]->last_used_ms)
          pick = i;
    victim = t->procs.items[pick];
    unlink_at(t, pick);
    if (evicted_out) *evicted_out = victim->id;
  }
  zexec_proc *p = xcalloc(1, sizeof *p);
  p->id = t->next_id++;
  p->pid = c->pid;
  p->out_fd = c->out_fd;
  p->in_fd = c->in_fd;
  p->tty = tty;
  p->group_inside = c->group_inside;
  p->pidfd = -1;
  p->on_exit = c->on_exit;
  p->on_exit_ud = c->on_exit_ud;
  c->on_exit = NULL;
#ifdef SYS_pidfd_open
  p->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
#endif
  p->label = xstrdup(label ? label : "");
  p->started_ms = p->last_used_ms = ztime_mono_ms();
  // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
  zvec_push(&t->procs, p);
  pthread_mutex_unlock(&t->mu);
  if (victim) proc_finish(victim, ZEXEC_KILL_GRACE_MS);
  c->out_fd = c->in_fd = -1;
  return p;
}

zexec_proc *zexec_table_get(zexec_table *t, int id) {
  zexec_proc *found = NULL;
  pthread_mutex_lock(&t->mu);
  for (size_t i = 0; i < t->procs.len; i++)
    if (t->procs.items[i]->id == id) found = t->procs.items[i];
  pthread_mutex_unlock(&t->mu);
  return found;
}

size_t zexec_table_count(const zexec_table *t) { return t->procs.len; }

/* Whether p's leader has exited, observed without reaping and without
 * touching p (another thread may be waiting for it). */
static bool leader_exited(const zexec_proc *p) {
  return zexec_peek_exit(p->pid, false, NULL) != 0; /* -1: gone already */
}

size_t zexec_table_list(zexec_table *t, zexec_proc_info **out) {
  pthread_mutex_lock(&t->mu);
  size_t n = t->procs.len;
  zexec_proc_info *v = xcalloc(n ? n : 1, sizeof *v);
  for (size_t i = 0; i < n; i++) {
    const zexec_proc *p = t->procs.items[i];
    v[i] = (zexec_proc_info){.id = p->id,
                             .pid = p->pid,
                             .running = !leader_exited(p),
                             .started_ms = p->started_ms,
                             .label = xstrdup(p->label)};
  }
  pthread_mutex_unlock(&t->mu);
  *out = v;
  return n;
}

void zexec_proc_infos_free(zexec_proc_info *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) free(v[i].label);
  free(v);
}

int zexec_table_kill(zexec_table *t, int id) {
  int rc = -1;
  pthread_mutex_lock(&t->mu);
  for (size_t i = 0; i < t->procs.len; i++) {
    const zexec_proc *p = t->procs.items[i];
    if (p->id != id) continue;
    rc = 0;
    /* In the table, the leader is not reaped: its pid and group are still
     * its own, and so is the inner group found through it. */
    bool gone = leader_exited(p);
    signal_inner_group(p, gone, SIGKILL);
    signal_group_of(p, gone, SIGKILL);
    break;
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}

void zexec_table_remove(zexec_table *t, zexec_proc *p) {
  pthread_mutex_lock(&t->mu);
  for (size_t i = 0; i < t->procs.len; i++)
    if (t->procs.items[i] == p) {
      unlink_at(t, i);
      break;
    }
  pthread_mutex_unlock(&t->mu);
  proc_finish(p, ZEXEC_KILL_GRACE_MS);
}

void zexec_table_shutdown(zexec_table *t) {
  pthread_mutex_lock(&t->mu);
  size_t n = t->procs.len;
  zexec_proc **ps = t->procs.items;
  t->procs.items = NULL;
  t->procs.len = t->procs.cap = 0;
  pthread_mutex_unlock(&t->mu);
  if (n == 0) {
    free(ps);
    return;
  }
  /* One shared grace for all: SIGTERM everyone, wait, SIGKILL the rest. */
  for (size_t i = 0; i < n; i++) {
    observe_exit(ps[i], false);
    signal_command(ps[i], SIGTERM);
  }
  int64_t end = ztime_mono_ms() + 500;
  for (;;) {
    bool all = true;
    for (size_t i = 0; i < n; i++) {
      drain(ps[i]);
      if (!observe_exit(ps[i], false) || ps[i]->out_fd >= 0) all = false;
    }
    if (all || ztime_mono_ms() >= end) break;
    ztime_sleep_ms(10, NULL);
  }
  for (size_t i = 0; i < n; i++) {
    signal_group(ps[i], SIGKILL);
    observe_exit(ps[i], true);
    zreaper_forget(ps[i]->pid);
    while (waitpid(ps[i]->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    proc_free(ps[i]);
  }
  free(ps);
}

void zexec_table_free(zexec_table *t) {
  if (!t) return;
  zexec_table_shutdown(t);
  pthread_mutex_destroy(&t->mu);
  free(t);
}
