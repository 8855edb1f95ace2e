/* server.h — `zero acp`: zero as an Agent Client Protocol agent on stdio.
 *
 * The client (an editor) sends initialize, session/new or session/load,
 * session/prompt, session/cancel and session/set_mode; zero answers and
 * streams session/update notifications while a prompt runs, and asks
 * session/request_permission when the permission module prompts. A session
 * is one run assembly (cli/run_setup.h) and its prompts run the one agent
 * loop (agent/loop.h) on a worker thread, so the reader stays free to take
 * a cancel or a permission answer. One session is open at a time: a new
 * session/new or session/load closes the previous one (its history stays in
 * the session store).
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
