/* client.h — one language server: a child process spoken to in LSP
 * (frame.h) over its stdin and stdout.
 *
 * Life cycle (single-threaded; the run's agent thread, or `zero lsp`):
 *   1. zlsp_client_start: the command goes through the run's spawner (the
 *      sandbox: no network, the environment without zero's credentials) and
 *      exec/proc.h starts it with its own stderr pipe (kept as a bounded tail
 *      for error messages); initialize is sent and answered within the
 *      startup timeout, then initialized;
 *   2. zlsp_client_open / zlsp_client_change send didOpen / didChange (full
 *      text) and zlsp_client_wait_diagnostics waits, bounded, for the
 *      publishDiagnostics of that version;
 *   3. zlsp_client_stop: shutdown (bounded), exit, close stdin, SIGTERM to
 *      the process group, then SIGKILL; the child is reaped.
 * Requests from the server are answered (workspace/configuration with
 * nulls, capability registration and progress creation with null, anything
 * else "method not found"); other notifications are dropped. A server that
 * exits, closes its output or sends a malformed frame leaves the client
 * dead (zlsp_client_alive false) with err saying what happened and its last
 * stderr lines: the owner stops it and may start a fresh one.
 */
#ifndef ZERO_LSP_CLIENT_H
#define ZERO_LSP_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/err.h"
#include "exec/proc.h"
#include "lsp/config.h"
#include "lsp/frame.h"

struct zspawner;

typedef struct zlsp_client {
  const zlsp_server_cfg *cfg; /* borrowed */
  char *root;                 /* absolute root directory (rootUri) */
  zexec_child child;          /* pid -1 when not running; fds -1 once closed;
                               * on_exit: the spawner's hook, run once reaped */
  zlsp_framer framer;
  int64_t next_id;
  json_t *response;           /* the awaited response, once read */
  int64_t awaited_id;
  json_t *diags;              /* {uri: {"version": n|null, "items": [..], "seq": n}} */
  int64_t publish_seq;        /* publishDiagnostics received so far */
  zbuf err_head;              /* the first stderr bytes (a startup error says why there) */
  zbuf err_tail;              /* the newest stderr bytes */
  bool writing;               /* a frame is being written (send_bytes) */
  zbuf deferred;              /* frames to send once it is written whole */
  zbuf text_frame;            /* the last didOpen / didChange frame: its storage is kept, so
                               * a round trip on a big file faults in no fresh pages */
  bool dead;
  char *server_name;          /* serverInfo.name, or NULL */
  int64_t init_ms;            /* initialize round trip */
} zlsp_client;

/* Starts cfg's server for root (absolute) through spawner (NULL = not
 * confined) and completes initialize within timeout_ms. Returns 0, or -1
 * with err (ZE_NOT_FOUND: the command is missing; ZE_TIMEOUT; ZE_IO) and c
 * stopped. */
int zlsp_client_start(zlsp_client *c, const zlsp_server_cfg *cfg, const char *root,
                      struct zspawner *spawner, int timeout_ms, zerr *err);
bool zlsp_client_alive(const zlsp_client *c);

/* didOpen with text (len bytes) as version for uri. */
int zlsp_client_open(zlsp_client *c, const char *uri, const char *language_id, int version,
                     const char *text, size_t len, zerr *err);
/* didChange replacing the whole text. */
int zlsp_client_change(zlsp_client *c, const char *uri, int version, const char *text,
                       size_t len, zerr *err);
/* didClose. */
int zlsp_client_close_doc(zlsp_client *c, const char *uri, zerr *err);

/* The publish sequence number now: pass it to wait_diagnostics to accept
 * only diagnostics published after this point. */
int64_t zlsp_client_seq(const zlsp_client *c);
/* Waits until the server published diagnostics for uri after sequence
 * `after` whose version is `version` (or has none), up to timeout_ms.
 * Returns the items array (borrowed; valid until the next call on c), or
 * NULL with err (ZE_TIMEOUT, or the server died: ZE_IO). */
const json_t *zlsp_client_wait_diagnostics(zlsp_client *c, const char *uri, int version,
                                           int64_t after, int timeout_ms, zerr *err);

/* Sends a request and waits for its response up to timeout_ms. *result gets
 * a new reference to the result (may be JSON null). An error response
 * returns -1 with err naming it. */
int zlsp_client_request(zlsp_client *c, const char *method, json_t *params, int timeout_ms,
                        json_t **result, zerr *err);

/* Stops the server (bounded: about a second at most) and frees c's
 * resources; c may be started again. Safe on a client never started. */
void zlsp_client_stop(zlsp_client *c);

/* The first and the newest stderr lines (at most ~700 bytes, one line),
 * for messages.
 * Caller frees; "" when there were none. */
char *zlsp_client_stderr_tail(const zlsp_client *c);

#endif
