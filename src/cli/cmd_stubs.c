/* cmd_stubs.c — placeholders replaced as commands land. */
#include <stdio.h>

#include "cli/cli.h"

int cmd_exec(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "zero exec: not built yet\n");
  return ZEXIT_INTERNAL;
}
