/* tui_commands.h — the TUI's slash commands as one table.
 *
 * The table (tui_commands.c) is the only list: the `/` menu and Tab
 * completion (ui/tui/app.c), /help and the dispatch (tui_command_run) all
 * read it. To add a command: write its handler in tui_commands.c and add a
 * row; nothing else names it.
 */
#ifndef ZERO_CLI_TUI_COMMANDS_H
#define ZERO_CLI_TUI_COMMANDS_H

#include <stddef.h>

struct tui_controller;

/* When a command may run. */
enum {
  TUI_CMD_IDLE = 1 << 0,          /* waits while a turn runs: it changes what the worker owns */
  TUI_CMD_IDLE_WITH_ARG = 1 << 1, /* ... only when given an argument (alone it opens a picker) */
  TUI_CMD_MAIN = 1 << 2,          /* works on the main conversation: refused in a /btw one */
};

typedef struct tui_command {
  const char *name;  /* "/model" */
  const char *args;  /* the argument hint: "[name]", "PATH", "" */
  const char *help;  /* one line for the menu and /help */
  /* Runs the command; arg: the rest of the line, leading spaces skipped
   * ("" when none). Called on the UI thread after the flags' checks. */
  void (*run)(struct tui_controller *c, const char *arg);
  unsigned flags;    /* TUI_CMD_* */
  const char *alias; /* another name that runs it, not listed ("/exit"), or NULL */
} tui_command;

/* The commands, in the order the menu and /help list them. */
extern const tui_command tui_commands[];
extern const size_t tui_ncommands;

/* The command named name (or aliased so), or NULL. */
const tui_command *tui_command_find(const char *name);
/* Runs one slash command line ("/model gpt-4.1"): echoed to the scrollback,
 * then its handler, unless its flags say it must wait or it is unknown
 * (both said in the scrollback). */
void tui_command_run(struct tui_controller *c, const char *line);

#endif
