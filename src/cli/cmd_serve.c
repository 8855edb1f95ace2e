/* cmd_serve.c — `zero serve --mcp`: zero's tools, workspace files and custom
 * commands for other MCP clients, over stdio or Streamable HTTP. */
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
#include "mcp/serve_catalog.h"
#include "mcp/serve_http.h"
#include "mcp/server.h"
#include "sandbox/sandbox.h"

enum {
  SV_HELP = 1,
  SV_MCP,
  SV_CWD,
  SV_ADD_DIR,
  SV_UNSAFE,
  SV_HTTP,
  SV_BIND,
  SV_TOKEN_FILE,
  SV_ORIGIN
};

static const zopt SERVE_OPTS[] = {
    {SV_MCP, "mcp", 0, ZOPT_FLAG, 0, NULL, "speak the Model Context Protocol (the only mode)",
     NULL},
    {SV_CWD, "cwd", 'C', ZOPT_VALUE, 0, "DIR",
     "workspace the tools work in (default: current directory)", NULL},
    {SV_ADD_DIR, "add-dir", 0, ZOPT_VALUE, ZOPT_REPEAT, "DIR",
     "another directory the write tools may change (repeatable)", NULL},
    {SV_UNSAFE, "allow-unsafe-tools", 0, ZOPT_FLAG, 0, NULL,
     "expose every tool (write, edit, run commands), not only\nthe read-only ones", NULL},
    {SV_HTTP, "http", 0, ZOPT_VALUE, 0, "[HOST:]PORT",
     "serve over Streamable HTTP at http://HOST:PORT/mcp instead\nof stdio (HOST defaults to "
     "127.0.0.1; PORT 0 picks one)",
     NULL},
    {SV_BIND, "bind", 0, ZOPT_VALUE, 0, "HOST",
     "address to listen on with --http; a non-loopback one needs\na bearer token", NULL},
    {SV_TOKEN_FILE, "token-file", 0, ZOPT_VALUE, 0, "FILE",
     "bearer token HTTP clients must send (first line of FILE;\nor $ZERO_SERVE_TOKEN)", NULL},
    {SV_ORIGIN, "allow-origin", 0, ZOPT_VALUE, ZOPT_REPEAT, "ORIGIN",
     "a browser Origin allowed besides loopback ones (repeatable)", NULL},
    {SV_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_serve_opts = {.command = "serve", .opts = SERVE_OPTS,
                                   .n_opts = ZARRAY_LEN(SERVE_OPTS),
                                   .unknown = "unknown or incomplete option"};

static void serve_usage(FILE *out) {
  fputs("Usage: zero serve --mcp [-C DIR] [--add-dir DIR]… [--allow-unsafe-tools]\n"
        "                  [--http [HOST:]PORT [--bind HOST] [--token-file FILE]\n"
        "                   [--allow-origin ORIGIN]…]\n"
        "\n"
        "Serves zero's tools, the workspace's files (resources) and custom commands\n"
        "(prompts) to an MCP client over stdio (newline-delimited JSON-RPC), or with\n"
        "--http over Streamable HTTP (loopback only unless a bearer token is set).\n",
        out);
  zopt_print_flags(out, &zcli_serve_opts);
  fputs("Example client config: {\"command\": \"zero\", \"args\": [\"serve\", \"--mcp\"]}\n", out);
}

/* What --http and its companions asked for. */
typedef struct http_args {
  const char *listen, *bind, *token_file;
  const char **origins; /* NULL-terminated */
  size_t n_origins;
} http_args;

static volatile sig_atomic_t serve_stop;

static void on_stop_signal(int sig) {
  ZUNUSED(sig);
  serve_stop = 1;
}

static void on_listen(void *ud, const char *url) {
  ZUNUSED(ud);
  fprintf(stderr, "zero serve: MCP over Streamable HTTP at %s\n", url);
  fflush(stderr);
}

/* The bearer token: --token-file's first line, else $ZERO_SERVE_TOKEN, else
 * none. Caller frees; NULL with err when the file cannot be read. */
static char *read_token(const char *file, zerr *err) {
  if (!file) {
    const char *env = getenv("ZERO_SERVE_TOKEN");
    return env && *env ? xstrdup(env) : NULL;
  }
  zbuf b = ZBUF_INIT;
  if (zfs_read_file(file, &b, 4096, err) < 0) {
    zbuf_release(&b);
    return NULL;
  }
  zbuf_setlen(&b, strcspn(b.data, "\r\n"));
  if (!b.len) {
    zbuf_release(&b);
    zerr_set(err, ZE_USAGE, "the token file %s is empty", file);
    return NULL;
  }
  return zbuf_detach(&b, NULL);
}

static int serve_http(const zmcp_catalog *cat, const http_args *h, zerr *err) {
  char host[256];
  int port;
  if (!zmcp_http_parse_listen(h->listen, host, sizeof host, &port))
    return zerr_set(err, ZE_USAGE, "--http wants PORT, HOST:PORT or [IPV6]:PORT, not \"%s\"",
                    h->listen);
  if (h->bind) snprintf(host, sizeof host, "%s", h->bind);
  zerr terr = ZERR_INIT;
  cleanup_free char *token = read_token(h->token_file, &terr);
  if (!token && terr.kind != ZE_OK) return zerr_set(err, ZE_USAGE, "%s", terr.msg);
  struct sigaction sa = {.sa_handler = on_stop_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  zmcp_http_opts o = {.host = host,
                      .port = port,
                      .token = token,
                      .allowed_origins = h->origins,
                      .on_listen = on_listen,
                      .stop = &serve_stop};
  return zmcp_serve_http(cat, &o, err);
}

int cmd_serve(int argc, char **argv) {
  bool mcp = false, unsafe = false;
  const char *cwd = NULL;
  const char **add = xcalloc((size_t)argc + 1, sizeof *add);
  size_t nadd = 0;
  http_args http = {.origins = xcalloc((size_t)argc + 1, sizeof(char *))};
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_serve_opts, argc, argv);
  int rc = ZEXIT_SUCCESS;
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == SV_MCP) mcp = true;
    else if (hit.id == SV_UNSAFE) unsafe = true;
    else if (hit.id == SV_CWD) cwd = hit.value;
    else if (hit.id == SV_ADD_DIR) add[nadd++] = hit.value;
    else if (hit.id == SV_HTTP) http.listen = hit.value;
    else if (hit.id == SV_BIND) http.bind = hit.value;
    else if (hit.id == SV_TOKEN_FILE) http.token_file = hit.value;
    else if (hit.id == SV_ORIGIN) http.origins[http.n_origins++] = hit.value;
    else if (hit.id == SV_HELP) {
      serve_usage(stdout);
      goto done;
    } else {
      zerr_set(&perr, ZE_USAGE, "unknown or incomplete option \"%s\"", hit.value);
      break;
    }
  }
  if (perr.kind == ZE_OK && !mcp) zerr_set(&perr, ZE_USAGE, "say which protocol to serve: --mcp");
  if (perr.kind == ZE_OK && !http.listen && (http.bind || http.token_file || http.n_origins))
    zerr_set(&perr, ZE_USAGE, "--bind, --token-file and --allow-origin go with --http");
  if (perr.kind != ZE_OK) {
    rc = zcli_usage_error("serve", perr.msg);
    goto done;
  }
  /* The same assembly as zero exec: workspace, sandbox policy and spawner,
   * tool context, the workspace's extensions (its custom commands become
   * prompts; project ones only in a trusted workspace). Commands
   * (--allow-unsafe-tools) run confined by the sandbox; the search tools
   * and resources honour sandbox.denyRead. stdout carries the protocol only:
   * every diagnostic goes to stderr. */
  zrun_setup rs;
  memset(&rs, 0, sizeof rs);
  zerr err = ZERR_INIT;
  if (zrun_setup_workspace(&rs, cwd, add, nadd, &err) < 0 || zrun_setup_sandbox(&rs, &err) < 0) {
    fprintf(stderr, "zero serve: %s\n", err.msg);
    rc = zexit_for_error_or(err.kind, ZEXIT_PROVIDER);
    goto out;
  }
  zrun_setup_tools(&rs, ZPERM_AUTO, ZAUTO_LOW);
  zrun_setup_extensions(&rs);
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
  zmcp_zero_catalog cat;
  zmcp_zero_catalog_init(&cat, &rs.tools, &rs.perm, unsafe,
                         rs.have_ext ? zext_commands(&rs.ext) : NULL);
  int sr = http.listen ? serve_http(&cat.cat, &http, &err)
                       : zmcp_serve_stdio(STDIN_FILENO, stdout, &cat.cat, &err);
  if (sr < 0) {
    fprintf(stderr, "zero serve: %s\n", err.msg);
    rc = err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_INTERNAL;
  }
  zmcp_zero_catalog_release(&cat);
out:
  zrun_setup_release(&rs);
done:
  free(add);
  free(http.origins);
  return rc;
}
