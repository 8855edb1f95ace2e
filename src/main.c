/* main.c — argv dispatch only. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int main(int argc, char **argv) {
  if (argc < 2) return cmd_help(0, NULL);
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-v") || !strcmp(cmd, "version"))
    return cmd_version(argc - 2, argv + 2);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
    return cmd_help(argc - 2, argv + 2);
  if (!strcmp(cmd, "exec")) return cmd_exec(argc - 2, argv + 2);
  if (!strcmp(cmd, "sessions")) return cmd_sessions(argc - 2, argv + 2);
  if (!strcmp(cmd, "tools")) return cmd_tools(argc - 2, argv + 2);
  fprintf(stderr, "zero: unknown command \"%s\"\nRun zero --help for usage.\n", cmd);
  return ZEXIT_USAGE;
}
