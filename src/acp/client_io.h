/* client_io.h — the editor's files and terminals as zero's tool backend
 * (tools/tool.h ztool_backend), over ACP's fs/read_text_file,
 * fs/write_text_file and terminal/... requests.
 *
 * Only what the client offered in initialize is used; the rest stays
 * zero's own (the disk, exec/). Nothing here decides whether a call may run:
 * the permission module did, before the tool. What this file adds is a
 * second look at every path before it leaves zero — the read guard for
 * reads; the writable roots and the sandbox policy's protected paths for
 * writes — so a client-side path can never be reached by a route the tools'
 * own checks would refuse. A command goes to terminal/create already
 * wrapped by the run's sandbox (zexec_prepare) and under `env -i` with the
 * scrubbed environment, so the editor's terminal runs it as confined as
 * zero's own exec would, without the editor's environment.
 *
 * Life cycle: the session 1. zeroes and fills the struct (conn, owner,
 * session_id, tools, policy, the capabilities), 2. calls
 * zacp_client_io_init, 3. points ztool_ctx.backend at
 * zacp_client_io_backend() (NULL when the client offered nothing),
 * 4. calls zacp_client_io_release.
 */
#ifndef ZERO_ACP_CLIENT_IO_H
#define ZERO_ACP_CLIENT_IO_H

#include <pthread.h>
#include <stdbool.h>

#include "acp/rpc.h"
#include "sandbox/policy.h"
#include "tools/tool.h"

typedef struct zacp_client_io {
  zacp_conn *conn;                        /* borrowed */
  const void *owner;                      /* whose calls session/cancel aborts */
  const char *session_id;                 /* borrowed */
  const ztool_ctx *tools;                 /* the session's: roots and the read guard (borrowed) */
  const zsb_policy *policy;               /* protected paths (borrowed; NULL = none) */
  bool can_read, can_write, can_terminal; /* the client's capabilities */
  /* private */
  ztool_backend backend;
  pthread_mutex_t mu;
  char *call_id; /* the tool call a terminal is shown in (zacp_client_io_note_call) */
} zacp_client_io;

void zacp_client_io_init(zacp_client_io *io);
void zacp_client_io_release(zacp_client_io *io);
/* The backend for the tools, or NULL when the client offered nothing. */
const ztool_backend *zacp_client_io_backend(zacp_client_io *io);
/* Records the tool call now starting (the agent runs commands one at a
 * time): a terminal made for it is embedded in that call's update. */
void zacp_client_io_note_call(zacp_client_io *io, const char *call_id);

/* The `terminal/create` params for a prepared command (argv and envp
 * complete): command /usr/bin/env, args -i, the environment, the argv.
 * Exposed for the unit tests. New reference. */
json_t *zacp_terminal_params(const char *session_id, char *const argv[], char *const envp[],
                             const char *cwd);

#endif
