/* serve_catalog.h — what `zero serve --mcp` serves (over stdio and HTTP):
 *
 *  - tools: the built-in tools whose read_only flag is set, or every tool
 *    when all_tools (the caller puts a spawner in ctx to confine commands).
 *    Every call is decided by perm (the permission module) first; a prompt
 *    is denied with what would allow it, since nobody can answer one here.
 *    Calls of tools that change things run one at a time.
 *  - resources: the workspace's files as file:// URIs (the walk grep and
 *    glob use: .gitignore honoured, hidden and denied paths skipped, at most
 *    ZMCP_SERVE_MAX_FILES), the template file://<workspace>/{+path}, read
 *    through the run's read guard (the one read_file obeys) and confined to
 *    the workspace after symlinks; text as text, anything else as a blob.
 *  - prompts: the custom commands (ext/commands.h) loaded for the workspace,
 *    each with one optional argument "arguments" ($ARGUMENTS).
 *  - completion: file paths for the template's {path}; nothing for prompts.
 * Lists are paginated (ZMCP_SERVE_PAGE per page, opaque cursors).
 */
#ifndef ZERO_MCP_SERVE_CATALOG_H
#define ZERO_MCP_SERVE_CATALOG_H

#include <pthread.h>
#include <stdbool.h>

#include "ext/commands.h"
#include "mcp/server.h"
#include "perm/engine.h"
#include "tools/tool.h"

#define ZMCP_SERVE_PAGE 100
#define ZMCP_SERVE_MAX_FILES 20000
#define ZMCP_SERVE_MAX_READ (8u << 20) /* largest file served as a resource */

typedef struct zmcp_zero_catalog {
  zmcp_catalog cat;         /* hand &cat to a transport */
  const ztool_ctx *ctx;     /* borrowed */
  const zperm_engine *perm; /* borrowed; decides every call */
  bool all_tools;
  const zcmds *commands;      /* borrowed; NULL = no prompts */
  pthread_mutex_t write_lock; /* tools that change things run one at a time */
} zmcp_zero_catalog;

void zmcp_zero_catalog_init(zmcp_zero_catalog *z, const ztool_ctx *ctx, const zperm_engine *perm,
                            bool all_tools, const zcmds *commands);
void zmcp_zero_catalog_release(zmcp_zero_catalog *z);

#endif
