/* main.c — argv dispatch through the command table (cli/commands.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "ext/hook_runner.h"

/* How many words from argv[1] on are Go zero's leading `--add-dir D` /
 * `--add-dir=D` flags (`zero --add-dir D exec …`). */
static int leading_add_dirs(int argc, char **argv) {
  int k = 1;
  while (k < argc && (!strncmp(argv[k], "--add-dir=", 10) ||
                      (!strcmp(argv[k], "--add-dir") && k + 1 < argc)))
    k += argv[k][9] == '=' ? 1 : 2;
  return k - 1;
}

/* Runs c with the leading flags argv[1..1+lead) ahead of its own words. */
static int run_with_leading_flags(const zcli_command *c, int argc, char **argv, int lead) {
  char **v = xcalloc((size_t)argc, sizeof *v);
  int n = 0;
  for (int i = 1; i <= lead; i++) v[n++] = argv[i];
  for (int i = lead + 2; i < argc; i++) v[n++] = argv[i];
  int rc = c->run(n, v);
  free(v);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) return cmd_tui(0, NULL);
  /* zero as a run's hook runner, inside its sandbox (ext/hook_runner.h) */
  if (argc == 2 && !strcmp(argv[1], ZHOOK_RUNNER_ARG)) return zhook_runner_main();
  const zcli_command *c = zcli_command_find(argv[1]);
  if (c) return c->run(argc - 2, argv + 2);
  int lead = leading_add_dirs(argc, argv);
  if (lead > 0 && lead + 1 < argc && (c = zcli_command_find(argv[lead + 1])) &&
      (c->setup & ZCMD_LEADING_ADD_DIR))
    return run_with_leading_flags(c, argc, argv, lead);
  if (argv[1][0] == '-') return cmd_tui(argc - 1, argv + 1); /* zero --resume, zero -m … */
  const zcli_command *near = zcli_command_suggest(argv[1]);
  if (near)
    fprintf(stderr, "zero: unknown command \"%s\"; did you mean %s?\nRun zero --help for usage.\n",
            argv[1], near->name);
  else
    fprintf(stderr, "zero: unknown command \"%s\"\nRun zero --help for usage.\n", argv[1]);
  return ZEXIT_USAGE;
}
