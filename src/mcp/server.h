/* server.h — zero as an MCP server: the protocol core every transport shares
 * (stdio here, Streamable HTTP in serve_http.h) over a catalog of what is
 * served (zero's own catalog: serve_catalog.h).
 *
 * The core answers initialize (the client's protocol revision when zero
 * supports it, else ZMCP_PROTOCOL_VERSION; the catalog's capabilities plus
 * logging), ping and logging/setLevel itself, and hands every other request
 * to the catalog. Notifications are accepted and ignored; a response from
 * the client goes to the server->client request waiting for it
 * (zmcp_call_ask). Nothing here writes to stdout or stderr: the transport
 * owns the wire.
 *
 * Life cycle: the transport 1. zmcp_session_new for a client (stdio: once;
 * HTTP: per initialize), 2. zmcp_session_handle for each message it reads,
 * with the reply ops of the stream that carries the answer, 3.
 * zmcp_session_close when the client goes (wakes any waiting ask),
 * 4. zmcp_session_free once no thread uses the session any more.
 */
#ifndef ZERO_MCP_SERVER_H
#define ZERO_MCP_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/buf.h"
#include "base/err.h"
#include "mcp/jsonrpc.h"

typedef struct zmcp_session zmcp_session;
typedef struct zmcp_call zmcp_call; /* one client request being answered */

/* The transport's side of one request being answered. */
typedef struct zmcp_reply_ops {
  /* Sends one message (compact JSON, no newline) to the client while the
   * request runs: a notification about it or a request to the client.
   * Returns 0, or -1 when the client cannot be reached. */
  int (*send)(void *ud, const char *json, size_t len);
  /* Ends the stream carrying the request now; what the request still sends
   * is kept for the client to resume (with Last-Event-ID) after retry_ms.
   * NULL when the transport cannot (stdio). */
  void (*detach)(void *ud, int retry_ms);
  /* true when a response from the client can arrive while this request
   * runs (zmcp_call_ask works). */
  bool can_ask;
} zmcp_reply_ops;

/* What a server serves. */
typedef struct zmcp_catalog {
  void *ud;
  const char *name, *version, *instructions;
  /* initialize's capabilities (the core adds "logging"). New reference. */
  json_t *(*capabilities)(void *ud);
  /* Answers request method (anything but initialize, ping and
   * logging/setLevel). Returns the result (new reference; NULL is {}) with
   * *code 0, or sets *code (ZRPC_METHOD_NOT_FOUND for a method it does not
   * know, ZRPC_INVALID_PARAMS, …) and msg. May be called from several
   * threads at once (HTTP). */
  json_t *(*request)(void *ud, zmcp_call *c, const char *method, json_t *params, int *code,
                     char *msg, size_t msg_size);
} zmcp_catalog;

zmcp_session *zmcp_session_new(const zmcp_catalog *cat);
/* Ends the session: waiting asks fail, later ones fail at once. */
void zmcp_session_close(zmcp_session *s);
void zmcp_session_free(zmcp_session *s);
/* The protocol revision initialize settled on (NULL before). */
const char *zmcp_session_protocol(const zmcp_session *s);

/* Handles one message from the client (takes m). A request's response
 * (compact JSON) is appended to out; notifications and responses leave out
 * empty. ops/ud is the stream the request is answered on (may be NULL for
 * messages that are not requests). */
void zmcp_session_handle(zmcp_session *s, zrpc_msg *m, const zmcp_reply_ops *ops, void *ud,
                         zbuf *out);

/* ---- for catalogs, while answering a request ---- */

/* notifications/message at level (RFC 5424 names: "debug" … "emergency"),
 * sent unless logging/setLevel asked for a higher threshold. */
void zmcp_call_log(zmcp_call *c, const char *level, const char *logger, json_t *data);
/* notifications/progress, when the request carried a progressToken
 * (total <= 0: unknown; message may be NULL). */
void zmcp_call_progress(zmcp_call *c, double progress, double total, const char *message);
/* true when the client declared capability (e.g. "sampling", "elicitation")
 * at initialize. */
bool zmcp_call_client_has(const zmcp_call *c, const char *capability);
/* Sends request method to the client and waits (up to timeout_ms) for its
 * answer: the result (new reference), or NULL with err (the client's error,
 * a timeout, the session ended, or a transport that cannot carry it). */
json_t *zmcp_call_ask(zmcp_call *c, const char *method, json_t *params, int timeout_ms, zerr *err);
/* Ends the request's stream now; the rest is resumable (HTTP). false when the
 * transport cannot. */
bool zmcp_call_detach(zmcp_call *c, int retry_ms);

/* stdio: newline-delimited JSON-RPC on in_fd / out until EOF (returns 0) or a
 * read/write failure (-1 with err). An oversized line is answered once with
 * an error and ends the loop (-1), the stream being out of step. */
int zmcp_serve_stdio(int in_fd, FILE *out, const zmcp_catalog *cat, zerr *err);

#endif
