/* reaper.c — the watchdog that stops zero's children when zero is killed;
 * see reaper.h. */
#include "exec/reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Live groups the watchdog tracks; zero keeps at most 64 commands plus its
 * MCP servers, so this is far beyond what a run registers at once. */
#define MAX_GROUPS 4096

/* The first signals above 31, which glibc keeps for itself (thread
 * cancellation, set*id across threads) and refuses in sigaction. */
enum { GLIBC_FIRST_INTERNAL_SIGNAL = 32, GLIBC_LAST_INTERNAL_SIGNAL = 33 };

static int reaper_wfd = -1;
static const char *(*reaper_finder)(void); /* zreaper_set_program_finder, or NULL */
static const char *reaper_program;         /* what it found; NULL = fork zero */

void zreaper_set_program_finder(const char *(*find)(void)) { reaper_finder = find; }

/* Starts reaper_program --reap with the pipe's read end as descriptor 3, in
 * a session of its own, at /, with /dev/null for the standard streams, the
 * default signal dispositions and none blocked. */
static bool spawn_program(int rfd) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  posix_spawn_file_actions_adddup2(&fa, rfd, 3); /* clears close-on-exec, even when rfd is 3 */
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDWR, 0);
  posix_spawn_file_actions_adddup2(&fa, 0, 1);
  posix_spawn_file_actions_adddup2(&fa, 0, 2);
  posix_spawn_file_actions_addchdir_np(&fa, "/");
  zreaper_spawnattr_clean_signals(&at, POSIX_SPAWN_SETSID);
  char *argv[] = {(char *)"zero-sandbox-inner", (char *)"--reap", NULL};
  char *envp[] = {NULL};
  pid_t pid;
  int e = posix_spawn(&pid, reaper_program, &fa, &at, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  return e == 0;
}

void zreaper_default_internal_signals(void) {
  /* the kernel's struct sigaction (x86-64 and arm64 alike); SIG_DFL needs
   * no restorer */
  struct {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
  } dfl = {SIG_DFL, 0, NULL, 0};
  for (int s = GLIBC_FIRST_INTERNAL_SIGNAL; s <= GLIBC_LAST_INTERNAL_SIGNAL; s++)
    syscall(SYS_rt_sigaction, s, &dfl, NULL, sizeof dfl.mask);
}

void zreaper_spawnattr_clean_signals(posix_spawnattr_t *at, short flags) {
  sigset_t all, none;
  sigfillset(&all);
  /* by hand: glibc's sigaddset refuses 32 and 33 */
  enum { BITS = 8 * sizeof all.__val[0] };
  for (int s = GLIBC_FIRST_INTERNAL_SIGNAL; s <= GLIBC_LAST_INTERNAL_SIGNAL; s++)
    all.__val[(s - 1) / BITS] |= 1UL << ((s - 1) % BITS);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(at, &all);
  posix_spawnattr_setsigmask(at, &none);
  posix_spawnattr_setflags(at, (short)(flags | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK));
}

void zreaper_child_signals(const int *ignore, size_t n) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  /* every signal, the real-time ones too: a parent started under a tool
   * that ignores one (a CI runner, a supervisor) must not pass it on */
  for (int s = 1; s < NSIG; s++)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, NULL);
  zreaper_default_internal_signals(); /* the two sigaction refused */
  struct sigaction ign = dfl;
  ign.sa_handler = SIG_IGN;
  for (size_t i = 0; i < n; i++) sigaction(ignore[i], &ign, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The watchdog holds nothing of zero's: no terminal, no output pipe a
 * caller waits on for end-of-file, no working directory that keeps a mount
 * busy. Returns the pipe's read end, moved to fd 3. */
static int watchdog_detach(int rfd) {
  if (rfd != 3) {
    dup2(rfd, 3);
    rfd = 3;
  }
  for (int fd = 0; fd < 3; fd++) close(fd);
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
#endif
    for (int fd = 4; fd < 1024; fd++) close(fd);
  int nul = open("/dev/null", O_RDWR);
  if (nul >= 0) {
    dup2(nul, 0);
    dup2(nul, 1);
    dup2(nul, 2);
    if (nul > 2) close(nul);
  }
  if (chdir("/") < 0) {
    /* stays where it is; harmless */
  }
  prctl(PR_SET_NAME, "zero-reaper", 0, 0, 0);
  return rfd;
}

/* Applies k whole messages to the n groups held: a positive one registers a
 * group, a negative one forgets it. */
static void watchdog_apply(pid_t *groups, size_t *n, const int32_t *msg, size_t k) {
  for (size_t i = 0; i < k; i++) {
    int32_t v = msg[i];
    if (v > 0) {
      if (*n < MAX_GROUPS) groups[(*n)++] = (pid_t)v;
    } else if (v < 0) {
      for (size_t j = *n; j-- > 0;)
        if (groups[j] == (pid_t)-v) {
          groups[j] = groups[--*n];
          break;
        }
    }
  }
}

/* The watchdog: only async-signal-safe calls (zero may have had threads
 * when it forked), no allocation. */
static void watchdog_main(int rfd) {
  setsid();
  static const int ignored[] = {SIGINT, SIGHUP, SIGPIPE};
  zreaper_child_signals(ignored, sizeof ignored / sizeof *ignored);
  rfd = watchdog_detach(rfd);
  static pid_t groups[MAX_GROUPS];
  size_t n = 0;
  int32_t msg[256];
  size_t have = 0; /* bytes of a partial message carried over */
  for (;;) {
    ssize_t r = read(rfd, (char *)msg + have, sizeof msg - have);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break; /* zero is gone (end-of-file) */
    have += (size_t)r;
    size_t k = have / sizeof *msg;
    watchdog_apply(groups, &n, msg, k);
    have -= k * sizeof *msg;
    if (have) memmove(msg, (char *)msg + k * sizeof *msg, have);
  }
  for (size_t i = 0; i < n; i++)
    if (kill(-groups[i], SIGKILL) < 0 && errno == ESRCH) kill(groups[i], SIGKILL);
  _exit(0);
}

static void start_watchdog(void) {
  int p[2];
  if (reaper_finder) reaper_program = reaper_finder();
  if (pipe2(p, O_CLOEXEC) < 0) return;
  if (!reaper_program || !spawn_program(p[0])) {
    pid_t pid = fork();
    if (pid < 0) {
      close(p[0]);
      close(p[1]);
      return;
    }
    if (pid == 0) {
      close(p[1]);
      watchdog_main(p[0]);
    }
  }
  close(p[0]);
  /* A stopped watchdog must never block a spawn: a full pipe drops the
   * message instead (it holds 16k of them). */
  fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
  reaper_wfd = p[1];
}

int zreaper_fd(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, start_watchdog);
  return reaper_wfd;
}

static void send_msg(int fd, int32_t v) {
  if (fd < 0) return;
  ssize_t w;
  do w = write(fd, &v, sizeof v);
  while (w < 0 && errno == EINTR);
}

void zreaper_child_register(int fd) { send_msg(fd, (int32_t)getpid()); }

void zreaper_register(pid_t pgid) {
  if (pgid > 0) send_msg(zreaper_fd(), (int32_t)pgid);
}

void zreaper_forget(pid_t pgid) {
  if (pgid > 0) send_msg(reaper_wfd, -(int32_t)pgid);
}

/* ---- the lasting fork thread --------------------------------------------------- */

typedef struct fork_req {
  void (*child)(void *);
  void *arg;
  pid_t pid;
  int err;
  bool done;
} fork_req;

static pthread_mutex_t fork_mu = PTHREAD_MUTEX_INITIALIZER;  /* guards fork_cur */
static pthread_cond_t fork_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t fork_call_mu = PTHREAD_MUTEX_INITIALIZER; /* one request at a time */
static fork_req *fork_cur;
static bool fork_thread_ok;

static void *fork_thread(void *unused) {
  (void)unused;
  pthread_mutex_lock(&fork_mu);
  for (;;) {
    while (!fork_cur || fork_cur->done) pthread_cond_wait(&fork_cv, &fork_mu);
    fork_req *r = fork_cur;
    pid_t pid = fork();
    if (pid == 0) {
      r->child(r->arg);
      _exit(127);
    }
    r->err = pid < 0 ? errno : 0;
    r->pid = pid;
    r->done = true;
    pthread_cond_broadcast(&fork_cv);
  }
  return NULL;
}

static void start_fork_thread(void) {
  /* Signals stay with the threads that handle them (^C, SIGTERM). */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&at, 256u << 10);
  pthread_t th;
  fork_thread_ok = pthread_create(&th, &at, fork_thread, NULL) == 0;
  pthread_attr_destroy(&at);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

pid_t zreaper_fork(void (*child)(void *arg), void *arg) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, start_fork_thread);
  if (!fork_thread_ok) {
    pid_t pid = fork();
    if (pid == 0) {
      child(arg);
      _exit(127);
    }
    return pid;
  }
  fork_req r = {.child = child, .arg = arg};
  pthread_mutex_lock(&fork_call_mu);
  pthread_mutex_lock(&fork_mu);
  fork_cur = &r;
  pthread_cond_broadcast(&fork_cv);
  while (!r.done) pthread_cond_wait(&fork_cv, &fork_mu);
  fork_cur = NULL;
  pthread_mutex_unlock(&fork_mu);
  pthread_mutex_unlock(&fork_call_mu);
  if (r.pid < 0) errno = r.err;
  return r.pid;
}
