/* server.h — `zero acp`: zero as an Agent Client Protocol agent on stdio.
 *
 * The client (an editor) sends initialize, session/new or session/load,
 * session/prompt, session/cancel and session/set_mode; zero answers and
 * streams session/update notifications while a prompt runs, and asks
 * session/request_permission when the permission module prompts. A session
 * is one run assembly (cli/run_setup.h) and its prompts run the one agent
 * loop (agent/loop.h). Several sessions stay open (up to 16) and their
 * prompts run at once, each on its session's thread in its session's
 * cancellation scope (base/cancel.h), so the reader stays free to take a
 * cancel or a permission answer and session/cancel stops one session's
 * prompt alone. No session depends on the process's directory: each works
 * in its own cwd. session/set_mode reaches a running prompt's next tool
 * call (zperm_engine.live_mode).
 */
#ifndef ZERO_ACP_SERVER_H
#define ZERO_ACP_SERVER_H

#include <stdio.h>

#include "perm/engine.h"

/* The ACP protocol version zero speaks. */
#define ZACP_PROTOCOL_VERSION 1

/* Serves ACP on in_fd / out until the input ends. mode: the permission mode
 * of new sessions (session/set_mode changes it). Returns 0, or -1 when
 * output could not be written. */
int zacp_serve(int in_fd, FILE *out, zperm_mode mode);

#endif
