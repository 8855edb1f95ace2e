/* hook_runner.c — one sandbox per run for hooks and plugin tools; see
 * hook_runner.h. The first half is the runner (inside the sandbox), the
 * second the client (zero). */
#include "ext/hook_runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "base/time.h"
#include "exec/proc.h"
#include "exec/reaper.h"

#define RUNNER_OUTPUT_MAX (64u << 10) /* kept of a command's output (as zhook_run) */
#define RUNNER_KILL_GRACE_MS 200      /* SIGTERM, then SIGKILL */
#define RUNNER_START_MS 10000         /* the sandbox must be up by then */
#define RUNNER_SLACK_MS 3000          /* past a command's timeout: the runner is stuck */
#define RUNNER_REAP_ROUNDS 64         /* strays killed per generation, at most */
#define RUNNER_STDIN_MAX (256 << 20)  /* a request's stdin bytes, at most */

/* ---- the runner (inside the sandbox) ---------------------------------------- */

/* Kills the direct children listed in /proc/self/task/<tid>/children (the
 * runner has one thread). -1 when the kernel does not offer that file. */
static int kill_listed_children(void) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t len = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (len < 0) return -1;
  buf[len] = 0;
  int n = 0;
  for (char *p = buf, *end; *p; p = end) {
    long pid = strtol(p, &end, 10);
    if (end == p) break;
    if (pid > 1) {
      kill((pid_t)-pid, SIGKILL); /* a group it leads */
      kill((pid_t)pid, SIGKILL);
      n++;
    }
  }
  return n;
}

/* Kills the direct children of this process: from the children file, else
 * a scan of /proc (every process's parent; slow where /proc shows the whole
 * host). Returns how many were signalled. */
static int kill_children(void) {
  int listed = kill_listed_children();
  if (listed >= 0) return listed;
  DIR *d = opendir("/proc");
  if (!d) return 0;
  pid_t self = getpid();
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0) continue;
    buf[len] = 0;
    /* "pid (name) state ppid …": the name may hold spaces and parens */
    const char *rp = strrchr(buf, ')');
    if (!rp || strlen(rp) < 5) continue;
    char *end = NULL;
    long ppid = strtol(rp + 4, &end, 10);
    if (end == rp + 4 || ppid != self) continue;
    pid_t pid = (pid_t)strtol(e->d_name, NULL, 10); /* digits: checked above */
    kill(-pid, SIGKILL);                            /* a group it leads */
    kill(pid, SIGKILL);
    n++;
  }
  closedir(d);
  return n;
}

/* After a command: everything it left behind is killed. As a child
 * subreaper the runner inherits every orphan (setsid or double fork
 * included), so killing its children generation by generation until none
 * is left ends them all. */
static void reap_strays(void) {
  for (int round = 0; round < RUNNER_REAP_ROUNDS; round++) {
    int st;
    pid_t w;
    while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
    }
    /* ECHILD: no child at all, the common case after a well-behaved
     * command; nothing to list in /proc (3 syscalls less per command). */
    if (w < 0 && errno == ECHILD) return;
    if (kill_children() == 0) return;
    while (waitpid(-1, &st, 0) > 0) { /* each exits on SIGKILL; orphans come to us */
      if (kill_children() == 0) break;
    }
    if (errno == ECHILD) return;
  }
}

/* What the child of start_command needs until its exec, and where it says
 * why it failed: it runs on the runner's memory (CLONE_VM | CLONE_VFORK, the
 * runner waits), so it only makes system calls. */
typedef struct child_setup {
  char **argv;
  const char *cwd;
  int in_r, out_w;
  const cpu_set_t *cpus; /* the runner's own CPU set, the child's before its exec (NULL: as is) */
  int err;               /* errno of the step that failed; 0 once exec'd */
} child_setup;

/* The child's stack until its exec (the runner has one thread, and waits). */
static char child_stack[256u << 10] __attribute__((aligned(16)));

static int child_main(void *arg) {
  child_setup *c = arg;
  zreaper_child_signals(NULL, 0); /* SIGPIPE is ignored here */
  /* The whole CPU set back before the exec: the command never sees the pin. */
  if ((c->cpus && sched_setaffinity(0, sizeof *c->cpus, c->cpus) < 0) || setpgid(0, 0) < 0 ||
      dup2(c->in_r, 0) < 0 || dup2(c->out_w, 1) < 0 || dup2(c->out_w, 2) < 0 ||
      (c->cwd && chdir(c->cwd) < 0)) {
    c->err = errno;
    _exit(127);
  }
  execvp(c->argv[0], c->argv);
  c->err = errno;
  _exit(127);
}

/* Pins the runner to the CPU it runs on, *mine its set before; false (not
 * pinned) when it has one CPU anyway or the kernel refuses. */
static bool pin_here(cpu_set_t *mine) {
  int cpu = sched_getcpu();
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof *mine, mine) < 0 ||
      CPU_COUNT(mine) < 2 || !CPU_ISSET(cpu, mine))
    return false;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(0, sizeof one, &one) == 0;
}

/* Starts argv in cwd, leading a process group of its own, stdin from in_r,
 * stdout and stderr to out_w, every signal disposition at its default.
 * Starting the process is most of what a no-op hook costs, so:
 *   - the child shares the runner's pages until its exec (no copy of them);
 *   - it starts on the runner's CPU, which the runner leaves as it waits
 *     for the exec: the kernel would place a new process on the idlest CPU,
 *     which on an otherwise idle machine is asleep and must be woken (on a
 *     virtual machine, through the hypervisor), and then wake the runner
 *     back across CPUs twice (the exec, the exit). The child restores the
 *     runner's whole CPU set before its exec, so the command never runs
 *     pinned; the kernel keeps it where it started unless it balances it.
 * posix_spawn cannot change the CPU set in the child, hence clone. Returns
 * the pid, or -1 with errno. */
static pid_t start_command(char **argv, const char *cwd, int in_r, int out_w) {
  child_setup c = {.argv = argv, .cwd = cwd, .in_r = in_r, .out_w = out_w};
  cpu_set_t mine;
  bool pinned = pin_here(&mine);
  if (pinned) c.cpus = &mine;
  sigset_t all, old;
  sigfillset(&all);
  /* No handler runs on the shared memory (the runner installs none; glibc's
   * two internal signals, left out of the set, only come with threads). */
  sigprocmask(SIG_SETMASK, &all, &old);
  pid_t pid =
      clone(child_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
  int clone_errno = errno;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (pinned) sched_setaffinity(0, sizeof mine, &mine);
  if (pid < 0) {
    errno = clone_errno;
    return -1;
  }
  if (c.err) { /* it ended before its exec, saying why */
    waitpid(pid, NULL, 0);
    errno = c.err;
    return -1;
  }
  return pid;
}

/* One command in flight. */
typedef struct running {
  pid_t pid;
  int pidfd;         /* -1 without pidfd_open (the exit is then polled) */
  int in_fd, out_fd; /* -1 once closed */
  const char *in;    /* the payload, in_off of it written */
  size_t in_len, in_off;
  zbuf out;
  int64_t deadline, kill_at;
  bool exited, timed_out, killed;
  int status;
} running;

static void read_some(running *r) {
  char b[4096];
  ssize_t n = read(r->out_fd, b, sizeof b);
  if (n > 0 && r->out.len < RUNNER_OUTPUT_MAX) zbuf_add(&r->out, b, (size_t)n);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
    close(r->out_fd);
    r->out_fd = -1;
  }
}

static void write_some(running *r) {
  ssize_t w = write(r->in_fd, r->in + r->in_off, r->in_len - r->in_off);
  if (w > 0) r->in_off += (size_t)w;
  if ((w < 0 && errno != EAGAIN && errno != EINTR) || r->in_off == r->in_len) {
    close(r->in_fd); /* done, or it stopped reading: it may not want its stdin */
    r->in_fd = -1;
  }
}

/* The deadline: SIGTERM to the group, SIGKILL after the grace. */
static void enforce_deadline(running *r, int64_t now) {
  if (!r->timed_out && now >= r->deadline) {
    r->timed_out = true;
    kill(-r->pid, SIGTERM);
    r->kill_at = now + RUNNER_KILL_GRACE_MS;
  }
  if (r->timed_out && !r->killed && now >= r->kill_at) {
    kill(-r->pid, SIGKILL);
    r->killed = true;
  }
}

/* One wait for output, stdin room, the exit or the deadline. */
static void pump(running *r) {
  int64_t now = ztime_mono_ms();
  enforce_deadline(r, now);
  struct pollfd pf[3];
  int n = 0, i_out = -1, i_in = -1, i_pid = -1;
  if (r->out_fd >= 0) pf[i_out = n++] = (struct pollfd){r->out_fd, POLLIN, 0};
  if (r->in_fd >= 0) pf[i_in = n++] = (struct pollfd){r->in_fd, POLLOUT, 0};
  if (r->pidfd >= 0) pf[i_pid = n++] = (struct pollfd){r->pidfd, POLLIN, 0};
  int64_t wait = (r->timed_out ? r->kill_at : r->deadline) - now;
  if (r->killed || wait < 1) wait = 10;
  /* No pidfd (an older kernel, or seccomp refuses it): the exit is polled,
   * closely once the output has ended (the exit is then imminent). */
  if (r->pidfd < 0 && wait > 10) wait = r->out_fd < 0 ? 1 : 10;
  poll(pf, (nfds_t)n, (int)wait);
  if (i_out >= 0 && pf[i_out].revents) read_some(r);
  if (i_in >= 0 && pf[i_in].revents) write_some(r);
  if ((i_pid < 0 || pf[i_pid].revents) && waitpid(r->pid, &r->status, WNOHANG) == r->pid)
    r->exited = true;
}

/* Until it has exited and its output is read (what is there once it has
 * exited: a writer still holding the pipe is a stray, killed next). */
static void run_to_end(running *r) {
  while (!r->exited) pump(r);
  while (r->out_fd >= 0) {
    size_t before = r->out.len;
    read_some(r);
    if (r->out_fd >= 0 && r->out.len == before) break; /* nothing more now */
  }
}

static void answer_not_started(json_t *ans, const char *why) {
  json_object_set_new(ans, "started", json_false());
  json_object_set_new(ans, "output", json_string(why));
}

/* Writes the payload (r->in) into the fresh stdin pipe fd before the
 * command starts, when the pipe holds it all (the common case: a few hundred
 * bytes against 64 KiB), and closes fd then. The command reads its payload
 * and EOF at once, instead of waiting for the runner to be scheduled again
 * after the start to write it: one wake-up less on every hook's critical
 * path on a busy machine. Returns fd, or -1 once closed; what is left (a
 * larger payload) is written as the command reads (pump). */
static int prefill_stdin(running *r, int fd) {
  fcntl(fd, F_SETFL, O_NONBLOCK); /* no reader yet: a full pipe must not block */
  int cap = fcntl(fd, F_GETPIPE_SZ);
  if (cap > 0 && r->in_len <= (size_t)cap) {
    while (r->in_off < r->in_len) { /* an empty pipe with room: no wait */
      ssize_t w = write(fd, r->in + r->in_off, r->in_len - r->in_off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return fd; /* the pump tries again, and reports */
      r->in_off += (size_t)w;
    }
  }
  if (r->in_off < r->in_len) return fd;
  close(fd);
  return -1;
}

/* Starts the request's command with pipes for stdin (r->in, written now when
 * the pipe holds it) and output; false (the answer filled) when it could not
 * start. */
static bool start_request(const json_t *req, running *r, json_t *ans) {
  const json_t *jargv = json_object_get(req, "argv");
  const char *cwd = zjson_str(req, "cwd");
  size_t argc = json_array_size(jargv);
  if (!argc) {
    answer_not_started(ans, "no command");
    return false;
  }
  char **argv = xcalloc(argc + 1, sizeof *argv);
  for (size_t i = 0; i < argc; i++) argv[i] = (char *)json_string_value(json_array_get(jargv, i));
  int inp[2] = {-1, -1}, outp[2] = {-1, -1};
  if (pipe2(inp, O_CLOEXEC) < 0 || pipe2(outp, O_CLOEXEC) < 0) {
    answer_not_started(ans, strerror(errno));
    free(argv);
    return false;
  }
  inp[1] = prefill_stdin(r, inp[1]); /* its write end is O_CLOEXEC: never the command's */
  r->pid = start_command(argv, cwd, inp[0], outp[1]);
  int start_errno = errno;
  close(inp[0]);
  close(outp[1]);
  if (r->pid < 0) {
    if (inp[1] >= 0) close(inp[1]);
    close(outp[0]);
    zbuf why = ZBUF_INIT;
    zbuf_addf(&why, "cannot run %s in %s: %s", argv[0], cwd ? cwd : ".", strerror(start_errno));
    answer_not_started(ans, why.data);
    zbuf_release(&why);
    free(argv);
    return false;
  }
  free(argv);
  r->in_fd = inp[1];
  r->out_fd = outp[0];
  fcntl(r->out_fd, F_SETFL, O_NONBLOCK);
  r->pidfd = -1;
#ifdef SYS_pidfd_open
  r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
#endif
  return true;
}

/* Runs one request's command, stdin (in_len bytes) its stdin: written, its
 * output read, killed at the deadline, everything it left behind killed.
 * Fills the answer. */
static void serve_one(const json_t *req, const char *stdin_bytes, size_t in_len, json_t *ans) {
  running r;
  memset(&r, 0, sizeof r);
  r.out = (zbuf)ZBUF_INIT;
  r.in = stdin_bytes;
  r.in_len = in_len;
  if (!start_request(req, &r, ans)) return;
  r.deadline = ztime_mono_ms() + zjson_int_or(req, "timeoutMs", 30000);
  run_to_end(&r);
  if (r.in_fd >= 0) close(r.in_fd);
  if (r.out_fd >= 0) close(r.out_fd);
  if (r.pidfd >= 0) close(r.pidfd);
  kill(-r.pid, SIGKILL); /* the group: nothing it started lingers */
  reap_strays();
  zbuf *out = &r.out;
  if (out->len > RUNNER_OUTPUT_MAX) zbuf_setlen(out, zutf8_boundary(out->data, RUNNER_OUTPUT_MAX));
  zutf8_sanitize(out);
  json_object_set_new(ans, "started", json_true());
  json_object_set_new(ans, "timedOut", json_boolean(r.timed_out));
  json_object_set_new(ans, "exitCode",
                      json_integer(WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1));
  json_object_set_new(ans, "signal", json_integer(WIFSIGNALED(r.status) ? WTERMSIG(r.status) : 0));
  json_object_set_new(ans, "output", json_stringn(out->data ? out->data : "", out->len));
  zbuf_release(out);
}

/* The request's stdin bytes, which follow its line: *len of them, read from
 * in (owned; NULL with *len 0 when there are none). false when the stream
 * ended before them, or the size is out of range: the protocol is broken. */
static bool read_stdin_bytes(FILE *in, const json_t *req, char **bytes, size_t *len) {
  int64_t n = zjson_int_or(req, "stdinBytes", 0);
  *bytes = NULL;
  *len = 0;
  if (n < 0 || n > RUNNER_STDIN_MAX) return false;
  if (!n) return true;
  *bytes = xmalloc((size_t)n + 1);
  if (fread(*bytes, 1, (size_t)n, in) != (size_t)n) {
    free(*bytes);
    *bytes = NULL;
    return false;
  }
  (*bytes)[n] = 0;
  *len = (size_t)n;
  return true;
}

int zhook_runner_main(void) {
  /* Orphans of the commands come here, to be killed (reap_strays). */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  signal(SIGPIPE, SIG_IGN);
  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull >= 0) dup2(devnull, 2); /* stdout is the protocol's alone */
  FILE *in = fdopen(0, "r");
  if (!in) return 1;
  printf("%s\n", ZHOOK_RUNNER_READY);
  fflush(stdout);
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, in) > 0) {
    json_t *req = json_loads(line, 0, NULL);
    char *stdin_bytes = NULL;
    size_t in_len = 0;
    if (!read_stdin_bytes(in, req, &stdin_bytes, &in_len)) {
      json_decref(req);
      break; /* a request cut short: the client is gone or broken */
    }
    json_t *ans = json_object();
    if (json_is_object(req)) serve_one(req, stdin_bytes, in_len, ans);
    else json_object_set_new(ans, "started", json_false());
    free(stdin_bytes);
    char *text = json_dumps(ans, JSON_COMPACT);
    printf("%s\n", text);
    fflush(stdout);
    free(text);
    json_decref(ans);
    json_decref(req);
  }
  free(line);
  return 0;
}

/* ---- the client (zero) ------------------------------------------------------- */

static void runner_kill(zhook_runner *r) {
  if (r->child.in_fd >= 0) close(r->child.in_fd);
  if (r->child.out_fd >= 0) close(r->child.out_fd);
  r->child.in_fd = r->child.out_fd = -1;
  if (r->child.pid > 0) {
    kill(-r->child.pid, SIGKILL); /* the spawner's wrapper: the sandbox goes with it */
    kill(r->child.pid, SIGKILL);
    waitpid(r->child.pid, NULL, 0);
    if (r->child.on_exit) r->child.on_exit(r->child.on_exit_ud);
  }
  r->child.on_exit = NULL;
  r->child.pid = 0;
  r->ready = false;
  free(r->pending);
  r->pending = NULL;
  r->pending_len = 0;
}

static void runner_fail(zhook_runner *r) {
  runner_kill(r);
  r->broken = true;
}

int zhook_runner_start(zhook_runner *r, struct zspawner *spawner, const char *const *read_paths) {
  memset(r, 0, sizeof *r);
  r->child.in_fd = r->child.out_fd = -1;
  char *self = zpath_self_exe();
  if (!spawner || !self) {
    free(self);
    r->broken = true;
    return -1;
  }
  strvec rp = STRVEC_INIT;
  strvec_push(&rp, self); /* the runner is zero itself */
  for (const char *const *p = read_paths; p && *p; p++) strvec_push_nodup(&rp, xstrdup(*p));
  strvec argv = STRVEC_INIT;
  strvec_pushl(&argv, self, ZHOOK_RUNNER_ARG, NULL);
  free(self);
  zspawn_cmd cmd = {.argv = strvec_detach(&argv), .read_paths = strvec_detach(&rp)};
  zexec_opts eo = {.tty = false, .stdin_open = true};
  zexec_child child;
  zerr err = ZERR_INIT;
  if (zexec_spawn(spawner, &cmd, &eo, &child, &err) < 0) {
    r->broken = true;
    return -1;
  }
  r->child = child;
  return 0;
}

/* Reads one line from the runner before deadline_ms (cancellation ends the
 * wait too). Caller frees. NULL when it did not come. */
static char *read_line(zhook_runner *r, int64_t deadline_ms) {
  zbuf b = ZBUF_INIT;
  if (r->pending_len) zbuf_add(&b, r->pending, r->pending_len);
  free(r->pending);
  r->pending = NULL;
  r->pending_len = 0;
  for (;;) {
    char *nl = b.len ? memchr(b.data, '\n', b.len) : NULL;
    if (nl) {
      size_t used = (size_t)(nl - b.data) + 1;
      if (used < b.len) {
        r->pending_len = b.len - used;
        r->pending = xstrndup(nl + 1, r->pending_len); /* JSON lines: no NUL */
      }
      zbuf_setlen(&b, used - 1);
      return zbuf_detach(&b, NULL);
    }
    int64_t left = deadline_ms - ztime_mono_ms();
    if (left <= 0 || zcancel_requested()) break;
    struct pollfd pf = {r->child.out_fd, POLLIN, 0};
    if (poll(&pf, 1, (int)(left > 100 ? 100 : left)) <= 0) continue;
    char tmp[16384];
    ssize_t n = read(r->child.out_fd, tmp, sizeof tmp);
    if (n > 0) zbuf_add(&b, tmp, (size_t)n);
    else if (n == 0 || (errno != EAGAIN && errno != EINTR)) break;
  }
  zbuf_release(&b);
  return NULL;
}

bool zhook_write_before(int fd, const char *s, size_t len, int64_t deadline_ms) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, s + off, len - off);
    if (w > 0) {
      off += (size_t)w;
      continue;
    }
    if (w < 0 && errno != EAGAIN && errno != EINTR) return false; /* EPIPE: it stopped reading */
    int64_t left = deadline_ms - ztime_mono_ms();
    if (left <= 0) return false;
    struct pollfd pf = {fd, POLLOUT, 0};
    poll(&pf, 1, (int)(left > 100 ? 100 : left));
  }
  return true;
}

int zhook_runner_run(zhook_runner *r, char *const *argv, const char *cwd, int timeout_ms,
                     const char *stdin_json, zhook_outcome *out) {
  if (r->broken || !r->child.pid) return -1;
  int64_t start = ztime_mono_ms();
  if (!r->ready) {
    char *line = read_line(r, start + RUNNER_START_MS);
    bool ok = line && !strcmp(line, ZHOOK_RUNNER_READY);
    free(line);
    if (!ok) {
      runner_fail(r);
      return -1;
    }
    r->ready = true;
    start = ztime_mono_ms();
  }
  json_t *args = json_array();
  for (char *const *a = argv; a && *a; a++) json_array_append_new(args, json_string(*a));
  size_t in_len = stdin_json ? strlen(stdin_json) : 0;
  json_t *req = json_pack("{s:o, s:s, s:i, s:I}", "argv", args, "cwd", cwd ? cwd : ".", "timeoutMs",
                          timeout_ms, "stdinBytes", (json_int_t)in_len);
  char *text = json_dumps(req, JSON_COMPACT);
  json_decref(req);
  /* the line, then the payload as it is: no escaping here, no parsing there */
  zbuf line = ZBUF_INIT;
  zbuf_addf(&line, "%s\n", text);
  zbuf_add(&line, stdin_json ? stdin_json : "", in_len);
  free(text);
  int64_t deadline = start + timeout_ms + RUNNER_SLACK_MS;
  bool sent = zhook_write_before(r->child.in_fd, line.data, line.len, deadline);
  zbuf_release(&line);
  char *answer = sent ? read_line(r, deadline) : NULL;
  json_t *ans = answer ? json_loads(answer, 0, NULL) : NULL;
  free(answer);
  if (!json_is_object(ans)) {
    /* Stuck, dead or cancelled: the sandbox goes, and whatever ran in it. */
    json_decref(ans);
    runner_fail(r);
    return -1;
  }
  memset(out, 0, sizeof *out);
  out->started = zjson_bool_or(ans, "started", false);
  out->timed_out = zjson_bool_or(ans, "timedOut", false);
  out->exit_code = (int)zjson_int_or(ans, "exitCode", -1);
  out->signal = (int)zjson_int_or(ans, "signal", 0);
  if (out->signal) out->exit_code = -1;
  out->output = xstrdup(zjson_str_or(ans, "output", ""));
  out->duration_ms = ztime_mono_ms() - start;
  json_decref(ans);
  return 0;
}

void zhook_runner_stop(zhook_runner *r) {
  if (r->child.pid > 0 && r->child.in_fd >= 0) {
    close(r->child.in_fd); /* EOF: it ends after the command it runs, if any */
    r->child.in_fd = -1;
  }
  runner_kill(r);
}
