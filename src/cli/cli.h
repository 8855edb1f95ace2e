/* cli.h — the commands. Each cmd_* takes the arguments after its name and
 * returns the process exit code; only this layer decides exit codes. */
#ifndef ZERO_CLI_CLI_H
#define ZERO_CLI_CLI_H

/* Exit codes (Go zero compatible; documented in docs/exit-codes.md). */
enum {
  ZEXIT_SUCCESS = 0,
  ZEXIT_INTERNAL = 1,
  ZEXIT_USAGE = 2,
  ZEXIT_PROVIDER = 3,   /* provider or configuration error */
  ZEXIT_INCOMPLETE = 4, /* maxTurns reached / work unfinished */
  ZEXIT_INTERRUPTED = 130,
};

int cmd_exec(int argc, char **argv);
int cmd_sessions(int argc, char **argv);
int cmd_tools(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);

#endif
