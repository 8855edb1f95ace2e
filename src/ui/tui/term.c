/* term.c — see term.h. */
#include "ui/tui/term.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* The singleton: what the restore path needs, async-signal-safe. */
static struct {
  int in_fd, out_fd;
  struct termios saved;
  volatile sig_atomic_t raw;
  int sig_pipe[2];
  bool atexit_done;
  volatile sig_atomic_t live_up; /* rows from the live region's top to the cursor */
} T = {.in_fd = -1, .out_fd = -1, .sig_pipe = {-1, -1}};

static const char ENTER_SEQ[] = "\x1b[?2004h"  /* bracketed paste */
                                "\x1b[>1u"     /* kitty keyboard: disambiguate */
                                "\x1b[>4;1m";  /* xterm modifyOtherKeys 1 */
static const char LEAVE_SEQ[] = "\x1b[?2026l"  /* end any synchronized frame */
                                "\x1b[<u"      /* pop kitty keyboard mode */
                                "\x1b[>4m"     /* modifyOtherKeys off */
                                "\x1b[?2004l"  /* bracketed paste off */
                                "\x1b[0m\x1b[?25h";

int tui_term_write(const char *s, size_t n) {
  while (n) {
    ssize_t w = write(T.out_fd >= 0 ? T.out_fd : STDOUT_FILENO, s, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        struct pollfd p = {.fd = T.out_fd, .events = POLLOUT};
        poll(&p, 1, 100);
        continue;
      }
      return -1;
    }
    s += w;
    n -= (size_t)w;
  }
  return 0;
}

static void raw_write(const char *s, size_t n) {
  while (n) {
    ssize_t w = write(T.out_fd, s, n);
    if (w <= 0) {
      if (w < 0 && errno == EINTR) continue;
      return;
    }
    s += w;
    n -= (size_t)w;
  }
}

void tui_term_leave(void) {
  if (!T.raw) return;
  T.raw = 0;
  int saved = errno;
  raw_write(LEAVE_SEQ, sizeof LEAVE_SEQ - 1);
  tcsetattr(T.in_fd, TCSAFLUSH, &T.saved);
  errno = saved;
}

static void wake(char c) {
  if (T.sig_pipe[1] >= 0) {
    int saved = errno;
    ssize_t r = write(T.sig_pipe[1], &c, 1);
    (void)r;
    errno = saved;
  }
}

void tui_term_set_live(int rows_above_cursor) { T.live_up = rows_above_cursor > 0 ? rows_above_cursor : 0; }

/* A crash: the live region (composer, status line, spinner) goes, so what
 * the shell prints next does not land in the middle of it. */
static void erase_live(void) {
  if (!T.raw) return;
  char b[32];
  size_t n = 0;
  int up = (int)T.live_up;
  if (up > 0) {
    char d[12];
    size_t nd = 0;
    while (up && nd < sizeof d) d[nd++] = (char)('0' + up % 10), up /= 10;
    b[n++] = '\x1b';
    b[n++] = '[';
    while (nd) b[n++] = d[--nd];
    b[n++] = 'A';
  }
  memcpy(b + n, "\r\x1b[J", 4);
  raw_write(b, n + 4);
}

static void on_crash(int sig) {
  erase_live();
  tui_term_leave();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* The signals the loop handles itself: each becomes its byte on the pipe
 * (SIGHUP as SIGTERM). */
static void on_wake(int sig) {
  switch (sig) {
    case SIGWINCH: wake(TUI_SIG_WINCH); break;
    case SIGCONT: wake(TUI_SIG_CONT); break;
    case SIGTSTP: wake(TUI_SIG_TSTP); break;
    default: wake(TUI_SIG_TERM); break;
  }
}

static int make_raw(void) {
  struct termios t = T.saved;
  t.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
  t.c_oflag &= ~(tcflag_t)OPOST;
  t.c_cflag |= CS8;
  t.c_lflag &= ~(tcflag_t)(ECHO | ICANON | IEXTEN | ISIG);
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  if (tcsetattr(T.in_fd, TCSAFLUSH, &t) < 0) return -1;
  T.raw = 1;
  raw_write(ENTER_SEQ, sizeof ENTER_SEQ - 1);
  return 0;
}

int tui_term_enter(int in_fd, int out_fd, zerr *err) {
  T.in_fd = in_fd;
  T.out_fd = out_fd;
  if (tcgetattr(in_fd, &T.saved) < 0)
    return zerr_errno(err, ZE_IO, "cannot read the terminal settings");
  if (T.sig_pipe[0] < 0 && pipe2(T.sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
    return zerr_errno(err, ZE_IO, "cannot create the signal pipe");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_wake;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGWINCH, &sa, NULL);
  sigaction(SIGCONT, &sa, NULL);
  /* A stop from outside (kill -TSTP) goes through the same path as Ctrl+Z,
   * so the terminal is restored before the process stops. */
  sigaction(SIGTSTP, &sa, NULL);
  sa.sa_flags = 0;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_RESETHAND;
  int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++) sigaction(crash[i], &sa, NULL);
  if (!T.atexit_done) {
    atexit(tui_term_leave);
    T.atexit_done = true;
  }
  if (make_raw() < 0) return zerr_errno(err, ZE_IO, "cannot switch the terminal to raw mode");
  return 0;
}

int tui_term_resume(void) { return T.raw ? 0 : make_raw(); }

void tui_term_suspend(void) {
  tui_term_leave();
  struct sigaction dfl, old;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGTSTP, &dfl, &old);
  kill(0, SIGTSTP); /* the whole job stops, as a shell expects */
  /* … resumed by fg (SIGCONT) */
  sigaction(SIGTSTP, &old, NULL);
  make_raw();
}

void tui_term_size(int *width, int *height) {
  struct winsize ws;
  if (ioctl(T.out_fd >= 0 ? T.out_fd : STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col &&
      ws.ws_row) {
    *width = ws.ws_col;
    *height = ws.ws_row;
  } else {
    *width = 80;
    *height = 24;
  }
}

int tui_term_signal_fd(void) { return T.sig_pipe[0]; }

bool tui_term_reflows(void) {
  const char *tmux = getenv("TMUX"), *vte = getenv("VTE_VERSION"), *tp = getenv("TERM_PROGRAM"),
             *term = getenv("TERM");
  if ((tmux && *tmux) || (vte && *vte)) return true;
  if (tp && (!strcmp(tp, "iTerm.app") || !strcmp(tp, "WezTerm") || !strcmp(tp, "ghostty")))
    return true;
  if (term && (strstr(term, "kitty") || strstr(term, "tmux") || strstr(term, "alacritty")))
    return true;
  return false;
}
