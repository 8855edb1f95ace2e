/* main.c — argv dispatch through the command table (cli/commands.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/log.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "exec/reaper.h"
#include "ext/hook_runner.h"
#include "sandbox/sandbox.h"

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

/* The index of a `-p` / `--print` word (Claude Code's headless flag) before
 * any "--", or 0. */
static int print_flag(int argc, char **argv) {
  for (int k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
    if (!strcmp(argv[k], "-p") || !strcmp(argv[k], "--print")) return k;
  return 0;
}

/* `zero -p "prompt" [flags]`: zero exec with the other words. */
static int run_print(int argc, char **argv, int at) {
  char **v = xcalloc((size_t)argc, sizeof *v);
  int n = 0;
  for (int i = 1; i < argc; i++)
    if (i != at) v[n++] = argv[i];
  int rc = cmd_exec(n, v);
  free(v);
  return rc;
}

/* Takes every `--debug` word before "--" out of argv (it is every
 * command's flag: the debug log, base/log.h); returns whether one was there. */
static bool take_debug_flag(int *argc, char **argv) {
  bool found = false;
  int n = 1;
  bool flags = true;
  for (int i = 1; i < *argc; i++) {
    if (flags && !strcmp(argv[i], "--")) flags = false;
    if (flags && !strcmp(argv[i], "--debug")) {
      found = true;
      continue;
    }
    argv[n++] = argv[i];
  }
  argv[n] = NULL;
  *argc = n;
  return found;
}

int main(int argc, char **argv) {
  bool debug = take_debug_flag(&argc, argv);
  const zcli_command *named = argc > 1 ? zcli_command_find(argv[1]) : NULL;
  /* The sandbox's inner stage runs inside the sandbox: no log there. */
  if (!named || !(named->setup & ZCMD_HIDDEN)) {
    zlog_open(debug);
    /* zero's watchdog runs as the small static helper (exec/reaper.h), found
     * at the first spawn: a --worktree run's git comes before its sandbox
     * exists, and a fork of zero kept ~2.5 MiB resident per run. */
    zreaper_set_program_finder(zsb_inner_helper);
  }
  /* The command's name only: the other words may hold the prompt. */
  zlog("start", "zero %s (commit %s), command %s, %d words", ZERO_VERSION, ZERO_COMMIT,
       named      ? named->name
       : argc > 1 ? "(the UI or -p)"
                  : "(the UI)",
       argc > 1 ? argc - 1 : 0);
  if (argc < 2) return cmd_tui(0, NULL);
  /* zero as a run's hook runner, inside its sandbox (ext/hook_runner.h) */
  if (argc == 2 && !strcmp(argv[1], ZHOOK_RUNNER_ARG)) return zhook_runner_main();
  const zcli_command *c = named; /* looked up once: the table is scanned word by word */
  if (c) return c->run(argc - 2, argv + 2);
  int lead = leading_add_dirs(argc, argv);
  if (lead > 0 && lead + 1 < argc && (c = zcli_command_find(argv[lead + 1])) &&
      (c->setup & ZCMD_LEADING_ADD_DIR))
    return run_with_leading_flags(c, argc, argv, lead);
  int print_at = print_flag(argc, argv);
  if (print_at) return run_print(argc, argv, print_at);
  if (argv[1][0] == '-') return cmd_tui(argc - 1, argv + 1); /* zero --resume, zero -m … */
  /* A word near a command is a typo of it; anything else is the first
   * prompt of the interactive UI (`zero "fix the failing test"`). */
  const zcli_command *near = strchr(argv[1], ' ') ? NULL : zcli_command_suggest(argv[1]);
  if (!near) return cmd_tui(argc - 1, argv + 1);
  fprintf(stderr, "zero: unknown command \"%s\"; did you mean %s?\nRun zero --help for usage.\n",
          argv[1], near->name);
  return ZEXIT_USAGE;
}
