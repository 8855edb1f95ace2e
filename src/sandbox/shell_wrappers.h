/* shell_wrappers.h — the wrapper table of the shell analyzer (sandbox/shell.c;
 * internal to it): the programs that run another command named in their
 * arguments (sudo, env, nice, timeout, stdbuf, xargs, flock, unshare, …) and,
 * for each, the options it takes, read from its manual and --help, so that
 * `stdbuf --output L rm -rf x` is seen to run `rm -rf x`.
 *
 * Every form getopt accepts is followed: `-oVAL`, `-o VAL`, clustered flags
 * (`-nk`), `--opt=VAL`, `--opt VAL`, optional values (`--preserve-env=A`,
 * `-l5`), unambiguous abbreviations (`--out L`) and `--`. An option the table
 * does not know makes the line "too complex" (the user is asked): guessing
 * whether it takes a value could hide the command behind it.
 */
#ifndef ZERO_SANDBOX_SHELL_WRAPPERS_H
#define ZERO_SANDBOX_SHELL_WRAPPERS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct zsh_wrapped {
  size_t cmd;            /* argv index of the wrapped command's name; argc when there is none */
  const char *script;    /* a command string the wrapper hands to a shell (su -c, flock -c) */
  bool joins_args;       /* the words from cmd on form one shell string (watch, sg) */
  bool bare_shell;       /* with no command, the wrapper starts an interactive shell */
  bool takes_terminal;   /* the wrapper itself is a full-screen program (watch) */
  bool opens_editor;     /* sudo -e / sudoedit */
  bool runs_nothing;     /* only looks a name up (command -v) */
  bool input_args;       /* the command gets more arguments from stdin (xargs) */
  const char *replace;   /* xargs -I/-i: the string that input replaces, or NULL */
  char why[160];         /* non-empty: the wrapper's words could not be followed */
} zsh_wrapped;

/* When argv[0] (its base name) is a wrapper, reads its options and operands
 * and fills *out (pointers point into argv); returns false for any other
 * command. Never fails otherwise: what it cannot follow is put in out->why. */
bool zsh_unwrap(char **argv, size_t argc, zsh_wrapped *out);

/* Whether word w is a variable assignment, NAME=value with NAME a shell
 * name (a letter or '_', then letters, digits and '_'): `FOO=1 cmd`, `env
 * FOO=1 cmd`. */
bool zsh_is_assignment(const char *w);

#endif
