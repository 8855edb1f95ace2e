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
int cmd_sandbox(int argc, char **argv);
/* Hidden stages of the sandbox (src/sandbox/sandbox.h). */
int cmd_sandbox_inner(int argc, char **argv);
int cmd_search(int argc, char **argv); /* also `zero find` */
int cmd_tools(int argc, char **argv);
int cmd_context(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_mcp(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_providers(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_usage(int argc, char **argv);
/* `zero` with no command (or only flags): the interactive UI (cmd_tui.c). */
int cmd_tui(int argc, char **argv);

#endif
