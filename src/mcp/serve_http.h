/* serve_http.h — the MCP Streamable HTTP transport, server side
 * (`zero serve --mcp --http`), revision 2025-11-25 and the older ones the
 * core negotiates.
 *
 * One endpoint, ZMCP_HTTP_PATH:
 *  - POST one JSON-RPC message (Content-Type application/json, else 415;
 *    Accept naming application/json and text/event-stream, else 406; a batch
 *    is 400). initialize opens a session: its response carries
 *    Mcp-Session-Id (128 random bits, hex). Every other message needs that
 *    header: missing is 400, unknown or ended is 404. A notification or a
 *    response is 202 with no body. A request is answered with
 *    application/json, or, when something is sent to the client while it
 *    runs (progress, logging, a sampling or elicitation request), with an
 *    SSE stream that ends with the response.
 *  - GET (Accept: text/event-stream, else 406) opens the session's one
 *    standalone stream (a second is 409), or, with Last-Event-ID, resumes
 *    the stream that event belongs to: the events after it are replayed and,
 *    when its request still runs, the rest follows there.
 *  - DELETE ends the session (200); other methods are 405.
 *  - MCP-Protocol-Version, when sent, must be a revision zero speaks (400).
 * SSE streams of clients on 2025-11-25 start with a priming event (an id and
 * empty data) so that a cut stream can be resumed; event ids are
 * "<stream>-<seq>", unique within a session.
 *
 * Security: DNS rebinding is refused (403) — an Origin header must be a
 * loopback origin or one of allowed_origins, and, while bound to loopback,
 * Host must name a loopback host. With a token every request needs
 * "Authorization: Bearer <token>" (401 otherwise, compared in constant
 * time); binding a non-loopback address without one is refused. Requests
 * are parsed by net/httpd.h (its caps apply); a connection that sends
 * nothing for ZMCP_HTTP_IDLE_S is closed, one that starts a request must
 * finish its head and body within ZMCP_HTTP_REQUEST_S.
 *
 * Threads: one per connection (at most max_conns; more get 503), joined
 * before zmcp_serve_http returns. Sessions (at most max_sessions; the
 * longest idle unused one is dropped for a new one, else 503) live until
 * DELETE or the server stops.
 */
#ifndef ZERO_MCP_SERVE_HTTP_H
#define ZERO_MCP_SERVE_HTTP_H

#include <signal.h>
#include <stddef.h>

#include "base/err.h"
#include "mcp/server.h"

#define ZMCP_HTTP_PATH "/mcp"
#define ZMCP_HTTP_IDLE_S 120
#define ZMCP_HTTP_REQUEST_S 30
#define ZMCP_HTTP_MIN_TOKEN 16 /* bytes: a shorter bearer token is refused */

typedef struct zmcp_http_opts {
  const char *host;  /* address to bind ("127.0.0.1", "::1", "0.0.0.0", "localhost") */
  int port;          /* 0 = a free port (on_listen says which) */
  const char *token; /* bearer token clients must send; NULL = none (loopback only) */
  const char *const *allowed_origins; /* exact Origins allowed besides loopback; NULL-terminated
                                       * or NULL */
  size_t max_sessions;                /* 0 = 256 */
  size_t max_conns;                   /* 0 = 128 */
  /* Called once listening, with the endpoint's URL ("http://127.0.0.1:8931/mcp"). */
  void (*on_listen)(void *ud, const char *url);
  void *ud;
  /* The server stops when *stop becomes nonzero (a signal handler sets it;
   * checked at least twice a second). */
  volatile sig_atomic_t *stop;
} zmcp_http_opts;

/* Serves cat until *o->stop; returns 0, or -1 with err when the address
 * cannot be bound or the options are unsafe (ZE_USAGE: a non-loopback
 * address without a token, a token shorter than ZMCP_HTTP_MIN_TOKEN). */
int zmcp_serve_http(const zmcp_catalog *cat, const zmcp_http_opts *o, zerr *err);

/* Parses --http's value: "PORT", "HOST:PORT" or "[V6]:PORT" into host (a
 * "127.0.0.1" default when only a port is given) and port. false when
 * malformed. */
bool zmcp_http_parse_listen(const char *s, char *host, size_t host_size, int *port);

#endif
