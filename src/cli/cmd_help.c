/* cmd_help.c — `zero --help` (the command table's summaries) and first-run
 * guidance; `zero help <command>` is `zero <command> --help`. */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "cli/cli.h"
#include "cli/commands.h"

/* One line of the command list: the synopsis, and the summary at column 36
 * (on a line of its own when the synopsis is longer). */
static void command_line(const char *synopsis, const char *summary) {
  enum { COL = 36 };
  if (strlen(synopsis) + 3 > COL) printf("  %s\n%*s%s\n", synopsis, COL, "", summary);
  else printf("  %-*s%s\n", COL - 2, synopsis, summary);
}

int cmd_help(int argc, char **argv) {
  const zcli_command *named = argc > 0 ? zcli_command_find(argv[0]) : NULL;
  if (argc > 0 && !named) {
    fprintf(stderr, "zero help: unknown command \"%s\"\nRun zero --help for the list.\n",
            argv[0]);
    return ZEXIT_USAGE;
  }
  if (named && strcmp(named->name, "help")) { /* "zero help help" is this help */
    char help_flag[] = "--help";
    char *words[] = {help_flag, NULL};
    return named->run(1, words);
  }
  printf("zero — a terminal coding agent you own.\n"
         "\n"
         "Usage:\n");
  command_line("zero [flags]", "the interactive terminal UI (see zero -h)");
  command_line("zero \"prompt\"", "the UI, with that first prompt");
  command_line("zero -p \"prompt\"", "headless, the same as zero exec (--print too)");
  size_t n;
  const zcli_command *cmds = zcli_commands(&n);
  for (size_t i = 0; i < n; i++) {
    const zcli_command *c = &cmds[i];
    if (c->setup & ZCMD_HIDDEN) continue;
    zbuf l = ZBUF_INIT;
    zbuf_addf(&l, "zero %s", c->name);
    /* word aliases only ("find"); flag spellings appear in the synopsis */
    if (c->aliases && c->aliases[0] != '-') zbuf_addf(&l, "|%s", c->aliases);
    if (c->synopsis && *c->synopsis) zbuf_addf(&l, " %s", c->synopsis);
    command_line(l.data, c->summary);
    zbuf_release(&l);
  }
  command_line("zero <command> --help", "flags and examples for a command");
  command_line("zero --debug <command>", "also write a debug log (docs/cli.md)");
  /* the UI's own flags: `zero` is the command a new user runs first */
  printf("\nFlags of the interactive UI (zero [flags] [\"first prompt\"]):\n");
  zopt_print_flags(stdout, &zcli_tui_opts);
  printf("\n"
         "First run:\n"
         "  export OPENAI_API_KEY=sk-...                     # OpenAI\n"
         "  export OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen3  # Ollama / LM "
         "Studio / llama.cpp\n"
         "  zero exec \"explain what src/main.c does\"\n"
         "\n"
         "Exit codes: 0 success, 1 internal error, 2 usage error, 3 provider or config error,\n"
         "4 incomplete, 130 interrupted (docs/cli.md).\n"
         "Config: ~/.config/zero/config.json and <workspace>/.zero/config.json (see "
         "docs/config.md).\n");
  return ZEXIT_SUCCESS;
}
