/* commands.h — the command table (git.c's commands[] idea): main.c
 * dispatches through it, `zero --help` lists it and `zero completions`
 * generates shell completion from it and from each command's option table. */
#ifndef ZERO_CLI_COMMANDS_H
#define ZERO_CLI_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "base/buf.h"
#include "base/opts.h"

/* One subcommand of a command with several (`zero mcp add`, `zero sessions
 * show`): the same idea as the command table one level down. A command keeps
 * its rows in one zcli_subcommands table, dispatches through
 * zcli_subcommand_find, prints its usage lines with zcli_subcommand_usage and
 * names the table in its zcli_command row, from which completion lists the
 * subcommands. */
typedef struct zcli_subcommand {
  const char *name;
  const char *aliases; /* other spellings, space-separated, or NULL */
  /* The words after the subcommand's name; ctx is what the command parsed
   * before dispatching (its flags), or NULL. Returns the exit code. NULL
   * where the command's own parser takes the word (models' `list`). */
  int (*run)(void *ctx, int argc, char **argv);
  const char *synopsis; /* what follows "zero <command>" in the usage lines
                         * (name included), or NULL to print none */
} zcli_subcommand;

typedef struct zcli_subcommands {
  const zcli_subcommand *v;
  size_t n;
} zcli_subcommands;

/* The tables of the commands that have subcommands, each defined next to
 * its handlers (cli/cmd_<command>.c). */
extern const zcli_subcommands zcli_agents_subs;
extern const zcli_subcommands zcli_worktrees_subs;
extern const zcli_subcommands zcli_lsp_subs;
extern const zcli_subcommands zcli_completions_subs;
extern const zcli_subcommands zcli_config_subs;
extern const zcli_subcommands zcli_daemon_subs;
extern const zcli_subcommands zcli_cron_subs;
extern const zcli_subcommands zcli_hooks_subs;
extern const zcli_subcommands zcli_skills_subs;
extern const zcli_subcommands zcli_plugins_subs;
extern const zcli_subcommands zcli_backends_subs;
extern const zcli_subcommands zcli_mcp_subs;
extern const zcli_subcommands zcli_auth_subs;
extern const zcli_subcommands zcli_models_subs;
extern const zcli_subcommands zcli_providers_subs;
extern const zcli_subcommands zcli_sandbox_subs;
extern const zcli_subcommands zcli_sessions_subs;
extern const zcli_subcommands zcli_tools_subs;

/* Whether word asks a command for its help: -h, --help or help. */
bool zcli_help_word(const char *word);

/* The subcommand named or aliased `word` in t, or NULL. */
const zcli_subcommand *zcli_subcommand_find(const zcli_subcommands *t, const char *word);

/* The usage lines "Usage: zero <command> <synopsis>" then "       zero
 * <command> <synopsis>" for each row of t with a synopsis, in table order. */
void zcli_subcommand_usage(FILE *out, const char *command, const zcli_subcommands *t);

/* Appends every name and alias of t, space-separated, to out (completion). */
void zcli_subcommand_words(const zcli_subcommands *t, zbuf *out);

/* The row of t whose name or alias is nearest to a mistyped `word` (within
 * the option parser's typo budget), or NULL. */
const zcli_subcommand *zcli_subcommand_suggest(const zcli_subcommands *t, const char *word);

/* How a command with subcommands answers the first word after its name: the
 * steps every such command takes, each in the command's own words.
 *   -h, --help, help  usage(stdout), exit 0;
 *   no word           implicit(ctx, argc, argv) when set, else
 *                     usage_error(missing), or usage(stderr) and exit 2 when
 *                     missing is NULL;
 *   a flag first      implicit(ctx, argc, argv) when set (`zero providers
 *                     --json` lists), else as an unknown word;
 *   an unknown word   usage_error("<unknown> \"WORD\"[; did you mean NAME?]"),
 *                     or with name_choices "<unknown> WORD (NAME, NAME, …)". */
typedef struct zcli_dispatch_spec {
  const zcli_subcommands *subs;
  void (*usage)(FILE *out); /* the command's whole usage */
  /* Prints msg as the command's usage error and returns the exit code
   * (ZEXIT_USAGE); NULL: "zero <command>: msg", then what tail says. */
  int (*usage_error)(const char *msg);
  const char *command; /* "cron": names the command for the NULL usage_error */
  enum {
    ZCLI_TAIL_SHORT_USAGE, /* the short usage line (zcli_short_usage) */
    ZCLI_TAIL_USAGE,       /* a blank line, then usage(stderr) */
    ZCLI_TAIL_NONE,        /* nothing: the message is the whole error */
  } tail;
  const char *missing; /* the message when no word was given, or NULL */
  const char *unknown; /* "unknown cron command" */
  /* What runs without a subcommand's name (no word, or a flag first), with
   * every word; NULL: that is a usage error (above). */
  int (*implicit)(void *ctx, int argc, char **argv);
  bool name_choices; /* an unknown word's message lists the table's names */
} zcli_dispatch_spec;

/* The subcommand argv[0] names; NULL with *rc set when there is none to run
 * (help printed: 0; no word or an unknown one: the usage error's code). */
const zcli_subcommand *zcli_dispatch_find(const zcli_dispatch_spec *d, int argc, char **argv,
                                          int *rc);
/* The implicit run when there is no subcommand's name, else
 * zcli_dispatch_find, then the subcommand's run(ctx, argc - 1, argv + 1);
 * returns the exit code. */
int zcli_dispatch(const zcli_dispatch_spec *d, void *ctx, int argc, char **argv);

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
  const zcli_subcommands *subs; /* its subcommands (completion), or NULL */
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

/* The short usage a usage error ends with (instead of the whole --help):
 * one line, "Usage: zero <command> <synopsis>  (zero <command> --help lists
 * every flag)". command is the table's name ("models"; "providers add" uses
 * its command's row; "zero" or an unknown name gives the UI's line). */
void zcli_short_usage(FILE *out, const char *command);

/* A usage error on stderr: "zero <command>: <msg>", then the short usage
 * (zcli_short_usage). Returns ZEXIT_USAGE. */
int zcli_usage_error(const char *command, const char *msg);
/* zcli_usage_error with a printf message. */
int zcli_usage_errorf(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
