/* child.h — one sub-agent: a child `zero exec --output-format stream-json`
 * started through the spawn seam (exec/proc.h zexec_spawn) and read line by
 * line.
 *
 * The child is an ordinary zero run with its own session; the parent only
 * chooses its flags, and those never widen authority: the permission mode
 * is at most the parent's, the workspace, --add-dir roots and --offline are
 * the parent's (so the sandbox policy and grants are the same), and the
 * child's prompts for approval and its questions go to the parent over a
 * private socket (subagent/relay.h), which answers them: read its requests
 * by setting on_relay before pumping.
 *
 * Life cycle: zsub_child_start, then zsub_child_pump until it returns
 * ZSUB_EOF (each complete stdout line goes to the callback: no length cap,
 * one event may be megabytes), then zsub_child_reap. zsub_child_stop ends
 * it early (its whole process group). A started child is registered with
 * the watchdog (exec/reaper.h): it dies with zero even on SIGKILL.
 */
#ifndef ZERO_SUBAGENT_CHILD_H
#define ZERO_SUBAGENT_CHILD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/err.h"
#include "perm/engine.h"
#include "provider/provider.h"

/* What the child runs with; strings borrowed. */
typedef struct zsub_launch {
  const char *self_exe;        /* zero's own binary */
  const char *workspace;       /* -C */
  const char *const *add_dirs; /* --add-dir, n_add_dirs of them */
  size_t n_add_dirs;
  const char *agent;          /* --agent: the definition */
  const char *session_id;     /* --init-session-id (a new child session) */
  const char *resume_id;      /* or --resume ID (continue an earlier child) */
  const char *parent_session; /* --parent-session */
  const char *provider;       /* --provider; NULL = config */
  const char *model;          /* --model; NULL = config */
  const char *reasoning_effort;
  zperm_mode mode; /* already clamped to the parent's (zsub_child_mode) */
  zautonomy autonomy;
  bool offline;
  int depth;          /* the child's depth (ZERO_SUBAGENT_DEPTH) */
  const char *worktree;   /* --worktree NAME: it works in that new git worktree, or NULL */
  const char *const *env; /* NAME=VALUE added to its environment (a swarm member's), or NULL */
  const char *prompt; /* written to its stdin */
} zsub_launch;

typedef struct zsub_child {
  pid_t pid;  /* leader of its own process group; -1 = none */
  int out_fd; /* stdout (its stream-json), non-blocking; -1 = ended */
  /* stderr, a pipe of its own (non-blocking; -1 = closed): a diagnostic
   * written while a long event line is half out would otherwise land inside
   * that line and make the stream malformed */
  int err_fd;
  bool reaped;
  int status;    /* waitpid status once reaped */
  zbuf line;     /* the partial stdout line read so far */
  zbuf err_line; /* the partial stderr line read so far */
  int relay_fd;  /* the parent's end of the relay socket (relay.h), non-blocking; -1 = closed */
  zbuf relay_in; /* the partial request read so far */
  /* Called by zsub_child_pump for each complete request line the child
   * sent on the relay; it answers on relay_fd. NULL: requests wait. */
  void (*on_relay)(void *ud, struct zsub_child *c, const char *line, size_t len);
  void *relay_ud;
} zsub_child;

/* The mode a child runs in: the definition's when it names one no wider than
 * the parent's, else the parent's (plan < ask < auto < unsafe). */
zperm_mode zsub_child_mode(zperm_mode parent, const char *def_mode);

/* The child's argv (without the prompt: it goes to stdin). Caller frees
 * with strvec_free_array. */
char **zsub_child_argv(const zsub_launch *l);

/* Starts the child and hands it the prompt (stdin is then closed). */
int zsub_child_start(const zsub_launch *l, zsub_child *c, zerr *err);

typedef enum zsub_pump_end { ZSUB_MORE, ZSUB_IDLE, ZSUB_EOF, ZSUB_CANCELLED } zsub_pump_end;

/* What zsub_child_pump hands over: one complete line (without its newline)
 * of the child's stdout, or of its stderr when diag is set. */
typedef void (*zsub_line_fn)(void *ud, const char *line, size_t len, bool diag);

/* Reads for up to timeout_ms (-1: until EOF or cancellation): each complete
 * line goes to on_line. ZSUB_IDLE: nothing arrived in timeout_ms; ZSUB_MORE:
 * something did; ZSUB_EOF: the output ended (stderr's remaining lines are
 * handed over first); ZSUB_CANCELLED: zero was asked to stop (zcancel_fd)
 * and watch_cancel is set. */
zsub_pump_end zsub_child_pump(zsub_child *c, int timeout_ms, bool watch_cancel,
                              zsub_line_fn on_line, void *ud);

/* SIGTERM to its group, up to grace_ms, then SIGKILL. The leader is not
 * reaped (its group id stays reserved); safe after zsub_child_reap. */
void zsub_child_stop(zsub_child *c, int grace_ms);
/* Waits for the leader (block) or looks (no block); true once reaped. The
 * watchdog forgets the group first. Closes the output at the end. */
bool zsub_child_reap(zsub_child *c, bool block);
/* "exited with status 3" / "was killed by signal 9". */
void zsub_child_describe_exit(const zsub_child *c, zbuf *out);
void zsub_child_release(zsub_child *c);

/* ---- what the stream says -------------------------------------------------- */

/* The child's run, folded from its stream-json events. */
typedef struct zsub_outcome {
  char *session_id; /* run_start's */
  char *final_text; /* final's */
  zusage usage;     /* summed usage events */
  char *error;      /* the last error event's message */
  char *status;     /* run_end's */
  int exit_code;
  bool ended;     /* run_end seen */
  bool malformed; /* a line that starts like JSON but is not */
  char *step;     /* the current step: "tool_call read_file" … */
  int tool_calls;
  zbuf diag; /* lines that are not JSON (the child's stderr), the last 4 KiB */
} zsub_outcome;

/* Folds one line of the child's output into o. Returns the parsed event
 * (new reference) when the line is a stream-json event, else NULL. */
json_t *zsub_outcome_line(zsub_outcome *o, const char *line, size_t len);
/* Keeps one line of the child's stderr in o->diag (the last 4 KiB). */
void zsub_outcome_diag(zsub_outcome *o, const char *line, size_t len);
void zsub_outcome_release(zsub_outcome *o);

#endif
