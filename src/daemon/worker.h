/* worker.h — one worker process of the daemon: `zero exec --output-format
 * stream-json [exec flags…] --prompt TEXT`, started through the spawn seam
 * (exec/proc.h) in a session and process group of its own, stdin from
 * /dev/null, stdout read line by line, stderr into the daemon's log.
 *
 * Its environment is the daemon's minus the sandbox markers
 * (ZERO_SANDBOXED, ZERO_SANDBOX_BACKEND): a worker that inherited them from
 * a daemon started inside a sandbox would take itself for already confined;
 * without them it sets up its own sandbox. The remote bridge's token
 * (ZERO_DAEMON_REMOTE_TOKEN, _FILE) is dropped too: a daemon started from a
 * shell that exports it must not hand it to a model's session. Everything
 * else (the provider's
 * credentials, the ZERO_SANDBOX_* policy settings) is passed on: the worker
 * is zero and calls the provider itself.
 *
 * Life cycle: zdmn_worker_start; when out_fd is readable, zdmn_worker_read
 * until it reports the end of the output; when pidfd is readable (or, without
 * pidfd, from time to time) zdmn_worker_check_exit; once both happened the
 * worker is over and exit_code holds its status (128+N for signal N).
 * zdmn_worker_kill ends its whole group at any time; zdmn_worker_release
 * closes what is left.
 */
#ifndef ZERO_DAEMON_WORKER_H
#define ZERO_DAEMON_WORKER_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct zdmn_worker {
  pid_t pid;   /* leader of its own process group; -1 = none */
  int out_fd;  /* -1 once the output ended */
  int pidfd;   /* readable when it exits; -1 without pidfd_open or once reaped */
  bool exited; /* reaped */
  int exit_code;
  zbuf partial; /* the line read so far */
} zdmn_worker;

/* What a worker runs: exe (zero itself, or $ZERO_DAEMON_WORKER_EXE in
 * tests), args (exec flags, forwarded as given), prompt (may be NULL), cwd
 * (may be NULL: the daemon's). */
int zdmn_worker_start(zdmn_worker *w, const char *exe, char *const *args, const char *prompt,
                      const char *cwd, zerr *err);

/* The worker's environment from env: a copy without the sandbox markers
 * and the bridge's token.
 * Caller frees with strvec_free_array. */
char **zdmn_worker_env(char *const *env);

/* Reads what is there; each complete line goes to on_line. Returns true
 * when the output ended (a last line without a newline is delivered). */
bool zdmn_worker_read(zdmn_worker *w, void (*on_line)(void *ud, const char *line, size_t len),
                      void *ud);

/* Reaps the worker when it has exited (no wait). Its group's stragglers are
 * killed first. True once reaped. */
bool zdmn_worker_check_exit(zdmn_worker *w);

/* SIGKILL to its whole group (its leader stays unreaped until
 * zdmn_worker_check_exit). */
void zdmn_worker_kill(zdmn_worker *w);

void zdmn_worker_release(zdmn_worker *w);

#endif
