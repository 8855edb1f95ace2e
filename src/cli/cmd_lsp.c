/* cmd_lsp.c — `zero lsp status [--check] [-C DIR]`: the language servers a
 * run in this workspace would use (lsp/lsp.h), their commands, the files
 * they cover and whether they are found; --check starts each one found,
 * confined as a run would, and says how long it took to answer initialize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/run_setup.h"
#include "lsp/lsp.h"

enum { L_HELP = 1, L_CHECK, L_CWD };

static const zopt LSP_OPTS[] = {
    {L_CHECK, "check", 0, ZOPT_FLAG, 0, NULL,
     "start each server found (sandboxed, as a run would) and report initialize", "Flags"},
    {L_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR", "workspace directory (default: current directory)",
     NULL},
    {L_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_lsp_opts = {.command = "lsp",
                                 .opts = LSP_OPTS,
                                 .n_opts = ZARRAY_LEN(LSP_OPTS),
                                 .unknown = "unknown argument"};

static void usage(FILE *out) {
  fputs("Usage: zero lsp status [--check] [-C DIR]\n"
        "\n"
        "Lists the language servers zero uses for diagnostics after edits: the\n"
        "built-in defaults (clangd, pyright, typescript, gopls, rust-analyzer; each only\n"
        "when its command is on PATH) and lsp.servers from the config files. A run\n"
        "starts a server when an edit first touches a file it covers. See docs/lsp.md.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_lsp_opts);
}

int cmd_lsp(int argc, char **argv) {
  bool check = false;
  const char *cwd = NULL;
  zopt_parser op;
  zopt_hit hit;
  zerr err = ZERR_INIT;
  int npos = 0;
  zopt_init(&op, &zcli_lsp_opts, argc, argv);
  while (zopt_next(&op, &hit, &err) > 0) {
    if (hit.id == L_CHECK) {
      check = true;
    } else if (hit.id == L_CWD) {
      cwd = hit.value;
    } else if (hit.id == L_HELP) {
      usage(stdout);
      return ZEXIT_SUCCESS;
    } else if (npos++ == 0 && !strcmp(hit.value, "status")) {
      /* the one subcommand, and the default */
    } else {
      zerr_set(&err, ZE_USAGE, "unknown argument \"%s\"", hit.value);
      break;
    }
  }
  if (err.kind != ZE_OK) {
    fprintf(stderr, "zero lsp: %s\n\n", err.msg);
    usage(stderr);
    return ZEXIT_USAGE;
  }
  zrun_setup s = ZRUN_SETUP_INIT;
  zconfig cfg;
  memset(&cfg, 0, sizeof cfg);
  int rc = ZEXIT_SUCCESS;
  if (zrun_setup_workspace(&s, cwd, NULL, 0, &err) < 0 ||
      (check && zrun_setup_sandbox(&s, &err) < 0) || zconfig_load(&cfg, s.workspace, NULL, &err) < 0) {
    fprintf(stderr, "zero lsp: %s\n", err.msg);
    rc = zexit_for_error(err.kind);
  } else {
    char *warning = NULL;
    zlsp *l = zlsp_for_run(s.workspace, cfg.user_path, cfg.project_path, &warning);
    if (warning) {
      fprintf(stderr, "zero lsp: %s\n", warning);
      free(warning);
      rc = ZEXIT_USAGE;
    } else {
      zlsp_set_spawner(l, s.sandbox.have_spawner ? &s.sandbox.spawner.base : NULL);
      zbuf out = ZBUF_INIT;
      zlsp_status(l, check, &out);
      fputs(out.data ? out.data : "", stdout);
      zbuf_release(&out);
      zlsp_free(l);
    }
  }
  zconfig_release(&cfg);
  zrun_setup_release(&s);
  if (rc == ZEXIT_SUCCESS && fflush(stdout) != 0) rc = ZEXIT_INTERNAL;
  return rc;
}

/* Its words, for completion and the manual (cmd_lsp reads them). */
static const zcli_subcommand LSP_SUBS[] = {{"status", NULL, NULL, "status [--check] [-C DIR]"}};

const zcli_subcommands zcli_lsp_subs = {LSP_SUBS, ZARRAY_LEN(LSP_SUBS)};
