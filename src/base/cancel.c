/* cancel.c — signal-driven cancellation, process-wide and per scope; see
 * cancel.h. */
#include "base/cancel.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Written by the signal handler and by any thread (zcancel_request: the TUI's
 * UI thread cancels its worker's turn), read by all: lock-free atomics, which
 * C11 allows in a signal handler, where volatile sig_atomic_t is safe against
 * the handler only, a data race between threads (found by make test-tsan). */
static atomic_int cancel_flag;
static atomic_int cancel_signo;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs lock-free atomics");
static int cancel_pipe[2] = {-1, -1};

/* One scope slot. All zeroes is a free slot without a pipe yet, so the
 * table costs nothing at start-up (zero's every sandboxed command starts
 * it). The descriptors are stored plus one for that reason. */
struct zcancel_scope {
  atomic_int in_use;
  atomic_int flag;
  atomic_int rfd1; /* read end + 1; 0 until the slot's first use, then kept */
  atomic_int wfd1; /* write end + 1: the signal handler writes here */
};
static zcancel_scope scopes[ZCANCEL_MAX_SCOPES];
/* The calling thread's scope: the run it works for (cancel.h). */
static _Thread_local zcancel_scope *current;

static void poke(int fd) {
  if (fd < 0) return;
  int saved = errno;
  ssize_t r = write(fd, "x", 1);
  (void)r; /* a full pipe is readable already */
  errno = saved;
}

static void drain(int fd) {
  char b[64];
  while (fd >= 0 && read(fd, b, sizeof b) > 0) {
  }
}

/* A process-wide cancel wakes every poll loop: the process's pipe and every
 * scope's (async-signal-safe: atomics and write(2) only). */
static void wake_all(void) {
  poke(cancel_pipe[1]);
  for (size_t i = 0; i < ZCANCEL_MAX_SCOPES; i++) poke(atomic_load(&scopes[i].wfd1) - 1);
}

static void on_signal(int sig) {
  atomic_store(&cancel_signo, sig);
  atomic_store(&cancel_flag, 1);
  wake_all();
}

int zcancel_install(void) {
  if (cancel_pipe[0] >= 0) return 0;
  if (pipe2(cancel_pipe, O_CLOEXEC | O_NONBLOCK) < 0) return -1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: blocking calls return EINTR */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* A closed stdout (| head) must be an error on write, not a silent death. */
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

bool zcancel_requested(void) {
  if (atomic_load(&cancel_flag)) return true;
  return current && atomic_load(&current->flag);
}

int zcancel_signal(void) { return atomic_load(&cancel_signo); }

int zcancel_fd(void) { return current ? atomic_load(&current->rfd1) - 1 : cancel_pipe[0]; }

void zcancel_request(void) {
  if (current) {
    zcancel_scope_request(current);
    return;
  }
  atomic_store(&cancel_flag, 1);
  wake_all();
}

void zcancel_reset(void) {
  if (current) {
    zcancel_scope_reset(current);
    return;
  }
  atomic_store(&cancel_flag, 0);
  atomic_store(&cancel_signo, 0);
  drain(cancel_pipe[0]);
}

/* ---- scopes ------------------------------------------------------------- */

/* Gives slot s its pipe on its first use. -1 when none can be made. */
static int slot_pipe(zcancel_scope *s) {
  if (atomic_load(&s->rfd1) > 0) return 0;
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) return -1;
  atomic_store(&s->rfd1, p[0] + 1);
  atomic_store(&s->wfd1, p[1] + 1);
  return 0;
}

zcancel_scope *zcancel_scope_new(void) {
  for (size_t i = 0; i < ZCANCEL_MAX_SCOPES; i++) {
    zcancel_scope *s = &scopes[i];
    int expected = 0;
    if (!atomic_compare_exchange_strong(&s->in_use, &expected, 1)) continue;
    if (slot_pipe(s) < 0) {
      atomic_store(&s->in_use, 0);
      return NULL;
    }
    zcancel_scope_reset(s);
    return s;
  }
  return NULL;
}

void zcancel_scope_free(zcancel_scope *s) {
  if (!s) return;
  if (current == s) current = NULL;
  atomic_store(&s->flag, 0);
  drain(atomic_load(&s->rfd1) - 1);
  atomic_store(&s->in_use, 0);
}

void zcancel_scope_request(zcancel_scope *s) {
  atomic_store(&s->flag, 1);
  poke(atomic_load(&s->wfd1) - 1);
}

void zcancel_scope_reset(zcancel_scope *s) {
  atomic_store(&s->flag, 0);
  drain(atomic_load(&s->rfd1) - 1);
  /* Readable as long as zcancel_requested() holds in the scope: a cancel
   * of the whole process that the drain just swallowed is put back. */
  if (atomic_load(&cancel_flag)) poke(atomic_load(&s->wfd1) - 1);
}

bool zcancel_scope_requested(const zcancel_scope *s) {
  return atomic_load(&cancel_flag) || atomic_load(&s->flag);
}

zcancel_scope *zcancel_enter(zcancel_scope *s) {
  zcancel_scope *prev = current;
  current = s;
  return prev;
}

zcancel_scope *zcancel_current(void) { return current; }
