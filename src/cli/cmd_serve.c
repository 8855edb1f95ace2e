/* cmd_serve.c — `zero serve --mcp`: zero's tools for other MCP clients, over stdio. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/run_setup.h"
#include "mcp/server.h"
#include "sandbox/sandbox.h"

enum { SV_HELP = 1, SV_MCP, SV_CWD, SV_ADD_DIR, SV_UNSAFE };

static const zopt SERVE_OPTS[] = {
    {SV_MCP, "mcp", 0, ZOPT_FLAG, 0, NULL, "speak the Model Context Protocol (the only mode)", NULL},
    {SV_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR",
     "workspace the tools work in (default: current directory)", NULL},
    {SV_ADD_DIR, "add-dir", 0, ZOPT_VALUE, ZOPT_REPEAT, "DIR",
     "another directory the write tools may change (repeatable)", NULL},
    {SV_UNSAFE, "allow-unsafe-tools", 0, ZOPT_FLAG, 0, NULL,
     "expose every tool (write, edit, run commands), not only\nthe read-only ones", NULL},
    {SV_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_serve_opts = {.command = "serve", .opts = SERVE_OPTS,
                                   .n_opts = ZARRAY_LEN(SERVE_OPTS),
                                   .unknown = "unknown or incomplete option"};

static void serve_usage(FILE *out) {
  fputs("Usage: zero serve --mcp [-C DIR] [--add-dir DIR]… [--allow-unsafe-tools]\n"
        "\n"
        "Serves zero's tools to an MCP client over stdio (newline-delimited JSON-RPC).\n",
        out);
  zopt_print_flags(out, &zcli_serve_opts);
  fputs("Example client config: {\"command\": \"zero\", \"args\": [\"serve\", \"--mcp\"]}\n", out);
}

int cmd_serve(int argc, char **argv) {
  bool mcp = false, unsafe = false;
  const char *cwd = NULL;
  const char **add = xcalloc((size_t)argc + 1, sizeof *add);
  size_t nadd = 0;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_serve_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == SV_MCP) mcp = true;
    else if (hit.id == SV_UNSAFE) unsafe = true;
    else if (hit.id == SV_CWD) cwd = hit.value;
    else if (hit.id == SV_ADD_DIR) add[nadd++] = hit.value;
    else if (hit.id == SV_HELP) {
      serve_usage(stdout);
      free(add);
      return ZEXIT_SUCCESS;
    } else {
      zerr_set(&perr, ZE_USAGE, "unknown or incomplete option \"%s\"", hit.value);
      break;
    }
  }
  if (perr.kind != ZE_OK) {
    fprintf(stderr, "zero serve: %s\n", perr.msg);
    zcli_short_usage(stderr, "serve");
    free(add);
    return ZEXIT_USAGE;
  }
  if (!mcp) {
    fprintf(stderr, "zero serve: say which protocol to serve: --mcp\n\n");
    serve_usage(stderr);
    free(add);
    return ZEXIT_USAGE;
  }
  /* The same assembly as zero exec: workspace, sandbox policy and spawner,
   * tool context. Commands (--allow-unsafe-tools) run confined by the
   * sandbox; the search tools honour sandbox.denyRead. stdout carries the
   * protocol only: every diagnostic goes to stderr. */
  zrun_setup rs;
  memset(&rs, 0, sizeof rs);
  zerr err = ZERR_INIT;
  int rc = ZEXIT_SUCCESS;
  if (zrun_setup_workspace(&rs, cwd, add, nadd, &err) < 0 || zrun_setup_sandbox(&rs, &err) < 0) {
    fprintf(stderr, "zero serve: %s\n", err.msg);
    rc = zexit_for_error_or(err.kind, ZEXIT_PROVIDER);
    goto out;
  }
  zrun_setup_tools(&rs, ZPERM_AUTO, ZAUTO_LOW);
  /* No read-before-overwrite tracking: the client reads files its own way. */
  rs.tools.files = NULL;
  char note[512];
  if (unsafe && zsb_downgrade_note(&rs.sandbox.policy, note, sizeof note))
    fprintf(stderr, "zero serve: %s\n", note);
  signal(SIGPIPE, SIG_IGN);
  /* The permission module decides every call. With --allow-unsafe-tools the
   * client asked for every tool to run (confined by the sandbox, as
   * before): unsafe mode; else auto, where a network tool under
   * sandbox.network deny is refused (nobody here can approve it). */
  rs.perm.mode = unsafe ? ZPERM_UNSAFE : ZPERM_AUTO;
  if (zmcp_serve(STDIN_FILENO, stdout, &rs.tools, &rs.perm, unsafe, &err) < 0) {
    fprintf(stderr, "zero serve: %s\n", err.msg);
    rc = ZEXIT_INTERNAL;
  }
out:
  zrun_setup_release(&rs);
  free(add);
  return rc;
}
