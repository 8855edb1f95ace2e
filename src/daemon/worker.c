/* worker.c — one daemon worker process; see worker.h. */
#include "daemon/worker.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/common.h"
#include "base/strvec.h"
#include "exec/proc.h"
#include "exec/reaper.h"
#include "exec/spawn.h"

extern char **environ;

#define READ_CHUNK 65536

static bool is_marker(const char *kv) {
  static const char *const markers[] = {"ZERO_SANDBOXED=", "ZERO_SANDBOX_BACKEND=",
                                        "ZERO_DAEMON_REMOTE_TOKEN=",
                                        "ZERO_DAEMON_REMOTE_TOKEN_FILE=", NULL};
  for (const char *const *m = markers; *m; m++)
    if (!strncmp(kv, *m, strlen(*m))) return true;
  return false;
}

char **zdmn_worker_env(char *const *env) {
  strvec v = STRVEC_INIT;
  for (char *const *e = env; e && *e; e++)
    if (!is_marker(*e)) strvec_push(&v, *e);
  return strvec_detach(&v);
}

int zdmn_worker_start(zdmn_worker *w, const char *exe, char *const *args, const char *prompt,
                      const char *cwd, zerr *err) {
  memset(w, 0, sizeof *w);
  w->pid = -1;
  w->out_fd = w->pidfd = -1;
  zbuf_init(&w->partial);
  strvec argv = STRVEC_INIT;
  strvec_pushl(&argv, exe, "exec", "--output-format", "stream-json", NULL);
  strvec_pushv(&argv, args);
  if (prompt) strvec_pushl(&argv, "--prompt", prompt, NULL);
  zspawn_cmd cmd = {.argv = strvec_detach(&argv),
                    .envp = zdmn_worker_env(environ),
                    .cwd = cwd ? xstrdup(cwd) : NULL};
  /* Not wrapped by a spawner: the worker is zero, which confines its own
   * tools; zero_child keeps the credentials it needs to call the provider.
   * posix_spawn, not fork: see zexec_spawn_plain. */
  zexec_opts o = {.zero_child = true, .keep_stderr = true};
  zexec_child ch;
  if (zexec_spawn_plain(&cmd, &o, &ch, err) < 0) return -1;
  if (ch.in_fd >= 0) close(ch.in_fd);
  w->pid = ch.pid;
  w->out_fd = ch.out_fd;
#ifdef SYS_pidfd_open
  w->pidfd = (int)syscall(SYS_pidfd_open, ch.pid, 0);
#endif
  return 0;
}

bool zdmn_worker_read(zdmn_worker *w, void (*on_line)(void *ud, const char *line, size_t len),
                      void *ud) {
  if (w->out_fd < 0) return true;
  char chunk[READ_CHUNK];
  for (;;) {
    ssize_t n = read(w->out_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return false;
    if (n <= 0) {
      if (w->partial.len) on_line(ud, w->partial.data, w->partial.len);
      zbuf_reset(&w->partial);
      close(w->out_fd);
      w->out_fd = -1;
      return true;
    }
    zbuf_add(&w->partial, chunk, (size_t)n);
    size_t start = 0;
    for (size_t i = 0; i < w->partial.len; i++) {
      if (w->partial.data[i] != '\n') continue;
      on_line(ud, w->partial.data + start, i - start);
      start = i + 1;
    }
    zbuf_consume(&w->partial, start);
    if ((size_t)n < sizeof chunk) return false; /* drained for now */
  }
}

bool zdmn_worker_check_exit(zdmn_worker *w) {
  if (w->exited || w->pid <= 0) return true;
  if (zexec_peek_exit(w->pid, false, NULL) != 1) return false;
  /* The leader is a zombie, so its group id is still ours: whatever is left
   * of the group goes before the leader is reaped and the id freed. */
  kill(-w->pid, SIGKILL);
  zreaper_forget(w->pid);
  int status = 0;
  pid_t r;
  do r = waitpid(w->pid, &status, 0);
  while (r < 0 && errno == EINTR);
  w->exited = true;
  w->exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                 : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                       : 1;
  if (w->pidfd >= 0) close(w->pidfd);
  w->pidfd = -1;
  return true;
}

void zdmn_worker_kill(zdmn_worker *w) {
  if (w->pid > 0 && !w->exited) kill(-w->pid, SIGKILL);
}

void zdmn_worker_release(zdmn_worker *w) {
  if (w->out_fd >= 0) close(w->out_fd);
  if (w->pidfd >= 0) close(w->pidfd);
  w->out_fd = w->pidfd = -1;
  zbuf_release(&w->partial);
}
