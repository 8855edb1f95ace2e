/* main.c — argv dispatch only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "cli/cli.h"

int main(int argc, char **argv) {
  if (argc < 2) return cmd_tui(0, NULL);
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-v") || !strcmp(cmd, "version"))
    return cmd_version(argc - 2, argv + 2);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
    return cmd_help(argc - 2, argv + 2);
  /* zero --add-dir D … exec …: Go zero takes --add-dir before the subcommand
   * too; hand the flags to exec ahead of its own arguments. */
  int k = 1;
  while (k < argc && (!strncmp(argv[k], "--add-dir=", 10) ||
                      (!strcmp(argv[k], "--add-dir") && k + 1 < argc)))
    k += argv[k][9] == '=' ? 1 : 2;
  if (k > 1 && k < argc && !strcmp(argv[k], "exec")) {
    char **v = xcalloc((size_t)argc, sizeof *v);
    int n = 0;
    for (int i = 1; i < k; i++) v[n++] = argv[i];
    for (int i = k + 1; i < argc; i++) v[n++] = argv[i];
    int rc = cmd_exec(n, v);
    free(v);
    return rc;
  }
  if (cmd[0] == '-') return cmd_tui(argc - 1, argv + 1); /* zero --resume, zero -m … */
  if (!strcmp(cmd, "exec")) return cmd_exec(argc - 2, argv + 2);
  if (!strcmp(cmd, "sessions")) return cmd_sessions(argc - 2, argv + 2);
  if (!strcmp(cmd, "mcp")) return cmd_mcp(argc - 2, argv + 2);
  if (!strcmp(cmd, "serve")) return cmd_serve(argc - 2, argv + 2);
  if (!strcmp(cmd, "sandbox")) return cmd_sandbox(argc - 2, argv + 2);
  if (!strcmp(cmd, "__sandbox-inner")) return cmd_sandbox_inner(argc - 2, argv + 2);
  if (!strcmp(cmd, "models")) return cmd_models(argc - 2, argv + 2);
  if (!strcmp(cmd, "providers")) return cmd_providers(argc - 2, argv + 2);
  if (!strcmp(cmd, "setup")) return cmd_setup(argc - 2, argv + 2);
  if (!strcmp(cmd, "doctor")) return cmd_doctor(argc - 2, argv + 2);
  if (!strcmp(cmd, "usage")) return cmd_usage(argc - 2, argv + 2);
  if (!strcmp(cmd, "search") || !strcmp(cmd, "find")) return cmd_search(argc - 2, argv + 2);
  if (!strcmp(cmd, "tools")) return cmd_tools(argc - 2, argv + 2);
  if (!strcmp(cmd, "context")) return cmd_context(argc - 2, argv + 2);
  fprintf(stderr, "zero: unknown command \"%s\"\nRun zero --help for usage.\n", cmd);
  return ZEXIT_USAGE;
}
