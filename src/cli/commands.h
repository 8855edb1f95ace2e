/* commands.h — the command table (git.c's commands[] idea): main.c
 * dispatches through it, `zero --help` lists it and `zero completions`
 * generates shell completion from it and from each command's option table. */
#ifndef ZERO_CLI_COMMANDS_H
#define ZERO_CLI_COMMANDS_H

#include <stddef.h>

#include "base/opts.h"

/* What a command needs from main before it runs (zcli_command.setup). Only
 * main acts on these; what a command loads itself (its config, with its own
 * fallback when the file is broken) stays in the command. */
enum {
  ZCMD_HIDDEN = 1u << 0,       /* an internal stage: not in help or completion */
  ZCMD_LEADING_ADD_DIR = 1u << 1, /* takes `zero --add-dir D <cmd>` (Go zero: exec only) */
};

typedef struct zcli_command {
  const char *name;
  const char *aliases;  /* other spellings: one word ("find"), or flags, space-separated
                         * ("--version -v"), or NULL */
  int (*run)(int argc, char **argv); /* the words after the name; returns the exit code */
  unsigned setup;       /* ZCMD_* */
  const char *synopsis; /* what follows "zero <name>" in zero --help */
  const char *summary;  /* one line for zero --help */
  const zopt_spec *opts; /* its flags (completion), or NULL */
  const char *subcommands; /* space-separated, for completion, or NULL */
  /* Option tables of subcommands that parse their own flags (`providers
   * add`), NULL-terminated, or NULL: help, man and completion list them too. */
  const zopt_spec *const *sub_opts;
} zcli_command;

/* The table, in the order zero --help lists it; *n gets its length. */
const zcli_command *zcli_commands(size_t *n);

/* The command named or aliased `word`, or NULL. */
const zcli_command *zcli_command_find(const char *word);

/* The visible command nearest to a mistyped `word` (edit distance within
 * the option parser's typo budget), or NULL. */
const zcli_command *zcli_command_suggest(const char *word);

#endif
