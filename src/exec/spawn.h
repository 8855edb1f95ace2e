/* spawn.h — the seam between "what to run" and "how it is confined".
 *
 * Every child process zero starts (tool commands now; hooks, plugins and MCP
 * servers later) is described as a zspawn_cmd and, before it is started,
 * handed to the run's zspawner, which rewrites it to run under the sandbox
 * policy (e.g. prefixes bwrap and the inner confinement stage, scrubs the
 * environment) or refuses it. The process manager (src/exec/) owns starting
 * and reaping; the sandbox (src/sandbox/) owns the rewrite. Nothing starts a
 * child any other way.
 */
#ifndef ZERO_EXEC_SPAWN_H
#define ZERO_EXEC_SPAWN_H

#include <stdbool.h>

#include "base/err.h"

typedef struct zspawn_cmd {
  char **argv;   /* NULL-terminated; owned (strings and array, malloc'd) */
  char **envp;   /* NULL-terminated; owned; NULL = inherit the environment */
  char *cwd;     /* owned; NULL = the current directory */
  /* Per request, never state of the spawner: what this one command was
   * allowed beyond the sandbox policy (an approved escalation of its own
   * call). A request that is never wrapped takes them with it. */
  bool network;     /* run this command with the network */
  bool unsandboxed; /* run this command outside the sandbox (the user approved it) */
  /* Paths the caller vouches for as the command's own files (an MCP server's
   * script named in the user's config): the sandbox keeps them readable even
   * where it hides the host's copy (its private /tmp). Owned, NULL-terminated;
   * NULL = none. Never filled from model input. */
  char **read_paths;
  /* In: the command runs on a pseudo-terminal (set by the starter before
   * wrap). Out: the spawner's wrapper makes that terminal the controlling
   * terminal of a session of its own, inside the sandbox (the inner stage's
   * --take-tty, past bwrap's --new-session); the starter must
   * then leave the terminal without a session, or the wrapper cannot take it
   * and ^C typed into it would kill the sandbox, not interrupt the command. */
  bool tty;
  bool tty_taken_inside;
  /* Out: the command does not run in the started process's group but in
   * the group of that process's first child, which leads a session of its
   * own (bwrap --new-session; bwrap's own process would die of a SIGINT
   * meant for the command). An interrupt, and the SIGTERM that opens a stop,
   * go there. */
  bool group_inside;
  /* Set by the spawner when the wrapped command holds something that must
   * be let go of once it has ended (the sandbox's placeholders): called once,
   * after the child has exited (or when it could not be started), by
   * whoever started it. NULL = nothing to do. */
  void (*on_exit)(void *ud);
  void *on_exit_ud;
} zspawn_cmd;

typedef struct zspawner zspawner;
struct zspawner {
  /* Rewrites cmd in place (freeing what it replaces) so that it runs
   * confined. Returns 0, or -1 with err set when the command may not run
   * (the message says why and what would allow it). */
  int (*wrap)(zspawner *s, zspawn_cmd *cmd, zerr *err);
  void *ud;
};

/* Frees the vectors and strings of cmd and zeroes it. Does not run on_exit
 * (see zspawn_cmd_finish). */
void zspawn_cmd_release(zspawn_cmd *cmd);
/* Runs and clears cmd's on_exit hook, if any: for a command that will not be
 * started after all, or whose child has exited. */
void zspawn_cmd_finish(zspawn_cmd *cmd);

#endif
