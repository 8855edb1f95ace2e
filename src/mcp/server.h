/* server.h — zero as an MCP server over stdio (`zero serve --mcp`).
 *
 * Speaks newline-delimited JSON-RPC on in_fd / out: initialize (the client's
 * protocol revision when zero supports it, else ZMCP_PROTOCOL_VERSION),
 * ping, tools/list, tools/call; notifications are accepted and ignored;
 * other requests get "method not found". Exposes the built-in tools whose
 * read_only flag is set, or every tool when all_tools (the caller puts a
 * spawner in ctx to confine commands). Every call is decided by perm (the
 * permission module) first; a prompt is denied with what would allow it,
 * since nobody can answer one here. Ends cleanly at EOF (returns 0).
 * Logging goes to stderr only: stdout carries protocol messages alone.
 */
#ifndef ZERO_MCP_SERVER_H
#define ZERO_MCP_SERVER_H

#include <stdbool.h>
#include <stdio.h>

#include "base/err.h"
#include "perm/engine.h"
#include "tools/tool.h"

int zmcp_serve(int in_fd, FILE *out, const ztool_ctx *ctx, const zperm_engine *perm,
               bool all_tools, zerr *err);

#endif
