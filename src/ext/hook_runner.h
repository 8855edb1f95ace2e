/* hook_runner.h — one sandbox per run for its hooks and plugin tools.
 *
 * Why: a hook started through the spawner pays for a whole sandbox (bwrap's
 * namespaces and mounts, the inner stage's Landlock and seccomp) on every
 * call: ~100 ms under load, against the 3 ms. The runner pays for
 * it once: zero starts itself as "zero __hook-runner" through the run's
 * spawner — the same policy, the same scrubbed environment, the read paths
 * of every hook and plugin tool of the run — and the runner fork/execs each
 * command inside that sandbox. What a per-call sandbox promised still holds
 * (docs/extensions.md, "Why one sandbox per run"):
 *   - the policy is the run's (filesystem, network, seccomp, Landlock): the
 *     runner is confined before it reads its first request, and children
 *     inherit every layer; nothing is loosened per call;
 *   - nothing a command starts outlives it: each command leads its own
 *     process group, killed on timeout; the runner is a child subreaper,
 *     so whatever escaped the group (setsid, double fork) is re-parented to
 *     it and killed before the answer is sent;
 *   - each command gets the same scrubbed environment and runs in the
 *     directory asked, its stdin the payload, its stdout+stderr captured.
 * What commands now share is the sandbox's private /tmp for the run: every
 * command in it is the user's own (user config) or a trusted workspace's, all
 * of which may already write the same workspace.
 *
 * Protocol (pipes; one JSON object per line, jansson's compact form holds no
 * newline): the runner first prints ZHOOK_RUNNER_READY; then per request
 * {"argv": [...], "cwd": "...", "timeoutMs": n, "stdinBytes": n} followed by
 * those n bytes as they are (the command's stdin: no JSON escaping on the
 * way, no parsing in the runner) it answers
 * {"exitCode": n, "signal": n, "timedOut": b, "started": b, "output": "..."}.
 * EOF on its stdin ends it.
 *
 * Life cycle (the client, owned by ext/ext.c):
 *   1. zhook_runner_start(r, spawner, read_paths): starts it (the sandbox
 *      builds while zero goes on; nothing is waited for);
 *   2. zhook_runner_run(...) per command: -1 when the runner is unusable
 *      (it did not start or died): the caller runs the command on its own
 *      (zhook_run), equally confined, and the runner is not tried again;
 *   3. zhook_runner_stop(r).
 */
#ifndef ZERO_EXT_HOOK_RUNNER_H
#define ZERO_EXT_HOOK_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "exec/proc.h"
#include "exec/spawn.h"
#include "ext/hook_run.h"

#define ZHOOK_RUNNER_ARG "__hook-runner"
#define ZHOOK_RUNNER_READY "zero-hook-runner ready"

typedef struct zhook_runner {
  zexec_child child; /* pid 0 = not running; in_fd / out_fd: requests /
                      * answers (-1 once closed); on_exit: the spawner's */
  bool ready;        /* the ready line was read */
  bool broken;       /* failed once: not used again this run */
  char *pending;     /* answer bytes read past a line (owned) */
  size_t pending_len;
} zhook_runner;

/* The runner's main (zero __hook-runner): serves requests on stdin until EOF.
 * Returns the process's exit status. */
int zhook_runner_main(void);

/* Starts the runner through spawner (which must confine it: a NULL spawner
 * is refused, the caller then runs commands directly), keeping read_paths
 * (NULL-terminated, borrowed; may be NULL) readable inside. 0, or -1 with
 * r->broken set. */
int zhook_runner_start(zhook_runner *r, struct zspawner *spawner, const char *const *read_paths);

/* Runs argv in cwd inside the runner, stdin_json on its stdin, killed after
 * timeout_ms; fills out as zhook_run does (out->output owned; the caller
 * parses the answer). 0, or -1 when the runner cannot be used (out
 * untouched): run the command some other way. */
int zhook_runner_run(zhook_runner *r, char *const *argv, const char *cwd, int timeout_ms,
                     const char *stdin_json, zhook_outcome *out);

void zhook_runner_stop(zhook_runner *r);

/* Writes all of s to fd (made non-blocking) before deadline_ms; false when
 * the reader stopped reading (EPIPE: it may not want its stdin) or time ran
 * out. */
bool zhook_write_before(int fd, const char *s, size_t len, int64_t deadline_ms);

#endif
