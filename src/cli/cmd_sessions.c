/* cmd_sessions.c — placeholder; replaced by the sessions command. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_sessions(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "zero sessions: not built yet\n");
  return ZEXIT_INTERNAL;
}
