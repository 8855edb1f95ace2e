/* cmd_acp.c — `zero acp`: zero as the agent of an Agent Client Protocol
 * client (an editor), over stdio; the protocol is src/acp/. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "acp/server.h"
#include "base/common.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"

enum { ACP_HELP = 1, ACP_MODE };

static const zopt ACP_OPTS[] = {
    {ACP_MODE, "permission-mode", 0, ZOPT_VALUE, 0, "MODE",
     "mode of new sessions: ask (default), auto or plan;\nthe editor can switch with "
     "session/set_mode",
     NULL},
    {ACP_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_acp_opts = {.command = "acp",
                                 .opts = ACP_OPTS,
                                 .n_opts = ZARRAY_LEN(ACP_OPTS),
                                 .unknown = "unknown or incomplete option"};

static void acp_usage(FILE *out) {
  fputs("Usage: zero acp [--permission-mode ask|accept-edits|auto|plan]\n"
        "\n"
        "Speaks the Agent Client Protocol on stdin/stdout, so an editor (Zed, ...) can\n"
        "drive zero as its agent: sessions, prompts, streamed updates, diffs, permission\n"
        "questions. Diagnostics go to stderr. See docs/editors.md.\n",
        out);
  zopt_print_flags(out, &zcli_acp_opts);
  fputs("Example (Zed settings.json): \"agent_servers\": {\"zero\": {\"command\": \"zero\", "
        "\"args\": [\"acp\"]}}\n",
        out);
}

int cmd_acp(int argc, char **argv) {
  zperm_mode mode = ZPERM_ASK;
  zopt_parser op;
  zopt_hit hit;
  zerr err = ZERR_INIT;
  zopt_init(&op, &zcli_acp_opts, argc, argv);
  while (zopt_next(&op, &hit, &err) > 0) {
    if (hit.id == ACP_HELP) {
      acp_usage(stdout);
      return ZEXIT_SUCCESS;
    }
    if (hit.id == ACP_MODE) {
      if (zperm_mode_parse(hit.value, &mode, &err) < 0) break;
      if (mode == ZPERM_UNSAFE) {
        zerr_set(&err, ZE_USAGE,
                 "zero acp offers ask, accept-edits, auto and plan: the editor answers the "
                 "permission questions");
        break;
      }
    } else {
      zerr_set(&err, ZE_USAGE, "unknown or incomplete option \"%s\"", hit.value);
      break;
    }
  }
  if (err.kind != ZE_OK) return zcli_usage_error("acp", err.msg);
  signal(SIGPIPE, SIG_IGN);
  return zacp_serve(STDIN_FILENO, stdout, mode) < 0 ? ZEXIT_INTERNAL : ZEXIT_SUCCESS;
}
