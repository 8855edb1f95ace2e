/* cmd_agents.c — `zero agents list [--json]`: the specialists a `task` may
 * delegate to (subagent/defs.h), from the workspace, the user's config and
 * the built-ins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "subagent/defs.h"

enum { A_HELP = 1, A_JSON, A_CWD };

static const zopt AGENTS_OPTS[] = {
    {A_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print a JSON array of definitions", "Flags"},
    {A_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR", "workspace directory (default: current directory)",
     NULL},
    {A_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_agents_opts = {.command = "agents",
                                    .opts = AGENTS_OPTS,
                                    .n_opts = ZARRAY_LEN(AGENTS_OPTS),
                                    .unknown = "unknown argument"};

static void usage(FILE *out) {
  fputs("Usage: zero agents list [--json] [-C DIR]\n"
        "\n"
        "Lists the specialists the task tool can delegate to: Markdown files with YAML\n"
        "front matter in <workspace>/.zero/agents/, <workspace>/.agents/agents/ and\n"
        "~/.config/zero/agents/ (the first of a name wins), then the built-ins general,\n"
        "explore and review. See docs/subagents.md.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_agents_opts);
}

static void print_text(const zsub_defs *d) {
  printf("  %-16s %-10s %-9s %s\n", "NAME", "MODEL", "SOURCE", "DESCRIPTION");
  for (size_t i = 0; i < d->n; i++) {
    const zsub_def *x = &d->v[i];
    bool builtin = !strcmp(x->source, "built-in");
    printf("  %-16s %-10s %-9s %s\n", x->name, x->model ? x->model : "inherit",
           builtin ? "built-in" : "file", x->description ? x->description : "");
    if (!builtin) printf("  %-16s %s\n", "", x->source);
    if (x->error) printf("  %-16s error: %s\n", "", x->error);
  }
}

int cmd_agents(int argc, char **argv) {
  bool json = false;
  const char *cwd = NULL;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  int npos = 0;
  zopt_init(&op, &zcli_agents_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == A_JSON) {
      json = true;
    } else if (hit.id == A_CWD) {
      cwd = hit.value;
    } else if (hit.id == A_HELP) {
      usage(stdout);
      return ZEXIT_SUCCESS;
    } else if (npos++ == 0 && !strcmp(hit.value, "list")) {
      /* the one subcommand, and the default */
    } else {
      zerr_set(&perr, ZE_USAGE, "unknown argument \"%s\"", hit.value);
      break;
    }
  }
  if (perr.kind != ZE_OK) {
    fprintf(stderr, "zero agents: %s\n", perr.msg);
    zcli_short_usage(stderr, "agents");
    return ZEXIT_USAGE;
  }
  char *ws = realpath(cwd ? cwd : ".", NULL);
  if (!ws) {
    fprintf(stderr, "zero agents: cannot open workspace %s\n", cwd ? cwd : ".");
    return ZEXIT_USAGE;
  }
  zsub_defs d;
  zsub_defs_load(&d, ws);
  free(ws);
  if (json) {
    json_t *arr = json_array();
    for (size_t i = 0; i < d.n; i++) json_array_append_new(arr, zsub_def_json(&d.v[i]));
    char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    printf("%s\n", s);
    free(s);
    json_decref(arr);
  } else {
    print_text(&d);
  }
  zsub_defs_release(&d);
  return fflush(stdout) == 0 ? ZEXIT_SUCCESS : ZEXIT_INTERNAL;
}

/* Its words, for completion and the manual (cmd_agents reads them). */
static const zcli_subcommand AGENTS_SUBS[] = {{"list", NULL, NULL, "list [--json]"}};

const zcli_subcommands zcli_agents_subs = {AGENTS_SUBS, ZARRAY_LEN(AGENTS_SUBS)};
