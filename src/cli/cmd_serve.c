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
#include "mcp/server.h"

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
  char **add = xcalloc((size_t)argc + 1, sizeof *add);
  size_t nadd = 0;
  int rc = ZEXIT_SUCCESS;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--mcp")) mcp = true;
    else if (!strcmp(a, "--allow-unsafe-tools")) unsafe = true;
    else if ((!strcmp(a, "-C") || !strcmp(a, "--cwd")) && i + 1 < argc) cwd = argv[++i];
    else if (!strcmp(a, "--add-dir") && i + 1 < argc) {
      char *real = realpath(argv[++i], NULL);
      if (!real) {
        fprintf(stderr, "zero serve: --add-dir %s: %s\n", argv[i], strerror(errno));
        rc = ZEXIT_USAGE;
        goto out;
      }
      add[nadd++] = real;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(SERVE_USAGE, stdout);
      goto out;
    } else {
      fprintf(stderr, "zero serve: unknown or incomplete option \"%s\"\n\n%s", a, SERVE_USAGE);
      rc = ZEXIT_USAGE;
      goto out;
    }
  }
  if (!mcp) {
    fprintf(stderr, "zero serve: say which protocol to serve: --mcp\n\n%s", SERVE_USAGE);
    rc = ZEXIT_USAGE;
    goto out;
  }
  if (cwd && chdir(cwd) < 0) {
    fprintf(stderr, "zero serve: -C %s: %s\n", cwd, strerror(errno));
    rc = ZEXIT_USAGE;
    goto out;
  }
  {
    char *here = getcwd(NULL, 0);
    char *ws = here ? realpath(here, NULL) : NULL;
    free(here);
    if (!ws) {
      fprintf(stderr, "zero serve: cannot determine the workspace directory\n");
      rc = ZEXIT_INTERNAL;
      goto out;
    }
    signal(SIGPIPE, SIG_IGN);
    json_t *plan = json_array();
    /* spawner: NULL until the sandbox provides one; commands then run confined. */
    ztool_ctx ctx = {.workspace = ws, .add_dirs = (const char *const *)add, .n_add_dirs = nadd,
                     .plan = plan};
    zerr err = ZERR_INIT;
    if (zmcp_serve(STDIN_FILENO, stdout, &ctx, unsafe, &err) < 0) {
      fprintf(stderr, "zero serve: %s\n", err.msg);
      rc = ZEXIT_INTERNAL;
    }
    json_decref(plan);
    free(ws);
  }
out:
  for (size_t i = 0; i < nadd; i++) free(add[i]);
  free(add);
  return rc;
}
