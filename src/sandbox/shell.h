/* shell.h — the shell-command analyzer: finds the commands a /bin/sh line
 * would run and classifies them, for the permission engine.
 *
 * Written by hand (no packaged library parses POSIX shell for this): a
 * scanner for quotes ('…', "…"), backslash escapes, $(…) and `…` (whose
 * contents are analyzed as commands too), ${…}, pipelines, ;, &, &&, ||,
 * subshells ( … ), groups { … }, redirections (targets are not commands),
 * here-documents, leading assignments and the reserved words. Wrappers are
 * unwrapped to the command they run, their options read from a table per
 * wrapper (sandbox/shell_wrappers.h: sudo, env, nice, timeout, stdbuf, xargs,
 * flock, su, unshare, …), and `bash|sh|dash|zsh -c SCRIPT` (the script is
 * analyzed); an option a wrapper's row does not know is "too complex". Text inside quotes or in argument position never counts, so
 * `git commit -m "rm -rf /"` is clean. Anything the scanner cannot follow
 * (eval, case, unterminated quotes, nesting too deep) is "too complex".
 */
#ifndef ZERO_SANDBOX_SHELL_H
#define ZERO_SANDBOX_SHELL_H

#include <stdbool.h>
#include <stddef.h>

enum {
  ZSH_DESTRUCTIVE = 1u << 0, /* rm -r/-f, dd, mkfs, shred, git clean -f, git reset --hard … */
  ZSH_NETWORK = 1u << 1,     /* curl, wget, ssh, git clone/fetch/pull/push, installs … */
  ZSH_INTERACTIVE = 1u << 2, /* editors, pagers, REPLs, bare shells */
  ZSH_TOO_COMPLEX = 1u << 3, /* could not be analyzed */
};

typedef struct zsh_cmd {
  char **argv;  /* words (quotes removed; substitutions kept as text); argv[0] the command */
  size_t argc;
} zsh_cmd;

typedef struct zsh_analysis {
  unsigned flags;
  zsh_cmd *cmds;       /* every command in command position, after unwrapping */
  size_t ncmds;
  char why[256];       /* the first flagged command and why, e.g. "rm -rf: deletes recursively" */
} zsh_analysis;

/* Analyzes src. offline: package-manager calls with --offline (or npm ci
 * --offline) are not network. Never fails: problems become ZSH_TOO_COMPLEX. */
void zsh_analyze(const char *src, bool offline, zsh_analysis *out);
void zsh_analysis_release(zsh_analysis *a);

/* "cmd arg arg" per command (for grant prefixes); *out is an array of n
 * strings; free with zsh_lines_free. */
char **zsh_command_lines(const zsh_analysis *a, size_t *n);
void zsh_lines_free(char **lines, size_t n);

#endif
