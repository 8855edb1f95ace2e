/* tui_args.h — the flags of `zero` (the interactive UI): parsed apart from
 * the UI so they can be unit-tested, as exec_args.h does for zero exec. */
#ifndef ZERO_CLI_TUI_ARGS_H
#define ZERO_CLI_TUI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "perm/engine.h"
#include "base/err.h"

typedef struct tui_args {
  const char *model, *provider, *cwd, *theme, *resume_id; /* borrowed from argv */
  bool resume, help;
  zperm_mode mode;
  const char **add_dirs; /* borrowed from argv; the array is freed by tui_args_release */
  size_t n_add_dirs;
  char *prompt; /* the words (`zero "fix the test"`) joined by spaces: the first
                 * prompt, sent once the UI is up; NULL = none. Owned. */
} tui_args;

/* Parses the words after `zero`: flags, and words that make the first prompt.
 * Returns 0, or -1 with a ZE_USAGE error. Release *a either way. */
int tui_args_parse(int argc, char **argv, tui_args *a, zerr *err);
void tui_args_release(tui_args *a);

/* `zero --help` of the UI: usage, the flags from the table, examples. */
void tui_args_usage(FILE *out);

#endif
