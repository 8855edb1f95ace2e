/* cancel.c — signal-driven cancellation; see cancel.h. */
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

static void wake_pipe(void) {
  if (cancel_pipe[1] >= 0) {
    int saved = errno;
    ssize_t r = write(cancel_pipe[1], "x", 1);
    (void)r;
    errno = saved;
  }
}

static void on_signal(int sig) {
  atomic_store(&cancel_signo, sig);
  atomic_store(&cancel_flag, 1);
  wake_pipe();
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

bool zcancel_requested(void) { return atomic_load(&cancel_flag) != 0; }
int zcancel_signal(void) { return atomic_load(&cancel_signo); }
int zcancel_fd(void) { return cancel_pipe[0]; }

void zcancel_request(void) {
  atomic_store(&cancel_flag, 1);
  wake_pipe();
}

void zcancel_reset(void) {
  atomic_store(&cancel_flag, 0);
  atomic_store(&cancel_signo, 0);
  if (cancel_pipe[0] >= 0) {
    char b[64];
    while (read(cancel_pipe[0], b, sizeof b) > 0) {
    }
  }
}
