/* cmd_serve.c — `zero serve --mcp`: zero's tools for other MCP clients, over stdio. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "cli/cli.h"
#include "cli/run_setup.h"
#include "mcp/server.h"
#include "sandbox/sandbox.h"

static const char SERVE_USAGE[] =
    "Usage: zero serve --mcp [-C DIR] [--add-dir DIR]… [--allow-unsafe-tools]\n"
    "\n"
    "Serves zero's tools to an MCP client over stdio (newline-delimited JSON-RPC).\n"
    "  --mcp                 speak the Model Context Protocol (the only mode)\n"
    "  -C, --cwd DIR         workspace the tools work in (default: current directory)\n"
    "      --add-dir DIR     another directory the write tools may change (repeatable)\n"
    "      --allow-unsafe-tools  expose every tool (write, edit, run commands), not only\n"
    "                        the read-only ones\n"
    "Example client config: {\"command\": \"zero\", \"args\": [\"serve\", \"--mcp\"]}\n";

int cmd_serve(int argc, char **argv) {
  bool mcp = false, unsafe = false;
  const char *cwd = NULL;
  const char **add = xcalloc((size_t)argc + 1, sizeof *add);
  size_t nadd = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--mcp")) mcp = true;
    else if (!strcmp(a, "--allow-unsafe-tools")) unsafe = true;
    else if ((!strcmp(a, "-C") || !strcmp(a, "--cwd")) && i + 1 < argc) cwd = argv[++i];
    else if (!strcmp(a, "--add-dir") && i + 1 < argc) add[nadd++] = argv[++i];
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(SERVE_USAGE, stdout);
      free(add);
      return ZEXIT_SUCCESS;
    } else {
      fprintf(stderr, "zero serve: unknown or incomplete option \"%s\"\n\n%s", a, SERVE_USAGE);
      free(add);
      return ZEXIT_USAGE;
    }
  }
  if (!mcp) {
    fprintf(stderr, "zero serve: say which protocol to serve: --mcp\n\n%s", SERVE_USAGE);
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
    rc = err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_PROVIDER;
    goto out;
  }
  zrun_setup_tools(&rs, ZPERM_AUTO, ZAUTO_LOW);
  /* No read-before-overwrite tracking: the client reads files its own way. */
  rs.tools.files = NULL;
  char note[512];
  if (unsafe && zsb_downgrade_note(&rs.policy, note, sizeof note))
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
