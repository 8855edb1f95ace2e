/* hook_run.h — running one hook and reading its answer.
 *
 * A hook is a child like any tool command: described as a zspawn_cmd and
 * started by zexec_spawn, so the run's spawner confines it (same sandbox
 * policy, same scrubbed environment) and it leads its own process group. It
 * runs in the workspace, gets one JSON object on stdin (secret values
 * redacted) and may answer with JSON on stdout:
 *
 *   {"decision": "block"|"approve"|"allow", "reason": "…",
 *    "continue": false, "stopReason": "…",
 *    "additionalContext": "…",            (also hookSpecificOutput.additionalContext)
 *    "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "…"}}
 *
 * Exit 0 is success, any other exit (Claude Code's 2 included) is a block on
 * a gating event with the output as the reason. A hook that outlives its
 * timeout has its whole group killed (SIGTERM, then SIGKILL) and counts as
 * failed.
 */
#ifndef ZERO_EXT_HOOK_RUN_H
#define ZERO_EXT_HOOK_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/spawn.h"
#include "ext/hooks.h"

typedef struct zhook_outcome {
  bool started;      /* false: could not be started (message in reason) */
  bool timed_out;
  int exit_code;     /* -1 when it did not exit normally */
  int signal;
  int64_t duration_ms;
  char *output;      /* what it printed (stdout and stderr), capped; owned */
  json_t *answer;    /* its JSON answer, or NULL (printed nothing or not JSON) */
  bool failed;       /* did not start, timed out, crashed, or exited non-zero */
  bool block;        /* asked to block (decision block / deny / exit != 0) */
  char *reason;      /* why it blocked or failed; owned, may be NULL */
} zhook_outcome;

/* Runs h with stdin_json on stdin in cwd, through spawner (NULL = not
 * confined: unsafe mode). Fills out (release with zhook_outcome_release). */
void zhook_run(const zhook *h, struct zspawner *spawner, const char *cwd, const char *stdin_json,
               zhook_outcome *out);
void zhook_outcome_release(zhook_outcome *o);

struct zhook_runner;
/* zhook_run inside the run's hook runner (ext/hook_runner.h) when one is
 * given and usable, else in a sandbox of its own through spawner. */
void zhook_run_in(const zhook *h, struct zhook_runner *runner, struct zspawner *spawner,
                  const char *cwd, const char *stdin_json, zhook_outcome *out);

#endif
