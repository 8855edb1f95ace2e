/* exec_agent.h — `zero exec --agent NAME`: a run as a specialist
 * (subagent/defs.h), the way the task tool starts its children. */
#ifndef ZERO_CLI_EXEC_AGENT_H
#define ZERO_CLI_EXEC_AGENT_H

#include <stdbool.h>

#include "base/err.h"
#include "cli/exec_args.h"
#include "subagent/defs.h"

typedef struct zexec_agent {
  zsub_defs defs;
  const zsub_def *def; /* NULL without --agent */
  char **sub_tools;    /* the sub-agent tools its allow-list names */
  bool needs_mcp;      /* its allow-list names an MCP tool (or it has none) */
  /* its allow-list in zero's tool names (zperm_engine.extra_allowed): a
   * Claude Code spelling mcp__S__T becomes mcp_S_T, mcp__S (or mcp__S__*)
   * the prefix mcp_S_*; NULL when it has no allow-list */
  char **allowed;
} zexec_agent;

/* Resolves a->agent in workspace and narrows the run to the definition:
 * built-in tools off unless allowed (added to a->tools_off), its model and
 * reasoning effort unless given on the command line, and *mode lowered to
 * its permissionMode (never raised). Without --agent it only clears out.
 * An unknown or broken definition is a usage error. */
int zexec_agent_apply(zexec_args *a, const char *workspace, zperm_mode *mode, zexec_agent *out,
                      zerr *err);
/* The system prompt with the definition's body appended (caller frees), or
 * NULL without a definition or body. */
char *zexec_agent_prompt(const zexec_agent *ag, const char *system_prompt);
void zexec_agent_release(zexec_agent *ag);

#endif
