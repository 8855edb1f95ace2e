/* list_args.h — the words of a command whose one subcommand is `list`, which
 * is also its default (`zero agents`, `zero models`): --json, at most one
 * value option, --help, and `list` itself. The commands keep their own
 * option tables (for --help, the manual and completion); this walks argv
 * over them so the rules (one `list`, anything else is an unknown argument)
 * are written once. */
#ifndef ZERO_CLI_LIST_ARGS_H
#define ZERO_CLI_LIST_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/opts.h"

typedef struct zcli_list_spec {
  const zopt_spec *opts; /* its .command names the command in messages */
  int help_id;           /* the ids of opts' --help, --json and value option */
  int json_id;
  int value_id;             /* 0: the command has no value option */
  void (*usage)(FILE *out); /* the command's help text */
} zcli_list_spec;

typedef struct zcli_list_args {
  bool json;
  const char *value; /* the value option's (points into argv), or NULL */
} zcli_list_args;

/* Parses argv (the words after the command's name) into *out. Returns -1
 * when the command should go on and list; otherwise the exit code it should
 * return at once: ZEXIT_SUCCESS after --help (the usage on stdout), or
 * ZEXIT_USAGE after a bad word (`zero <command>: <why>` and the usage on
 * stderr). */
int zcli_list_parse(const zcli_list_spec *s, int argc, char **argv, zcli_list_args *out);

#endif
