/* transport.h — how an MCP client moves JSON-RPC messages (internal to
 * src/mcp/; other modules use client.h).
 *
 * A transport sends one message at a time and hands every message it
 * receives, as JSON text, to deliver(). Transports:
 *   stdio.c   a child process, newline-delimited JSON on stdin/stdout, stderr
 *             kept in a bounded tail for error messages;
 *   http.c    Streamable HTTP (POST answered with JSON or an SSE stream,
 *             Mcp-Session-Id, a GET stream for server-initiated messages,
 *             DELETE on shutdown) and the older HTTP+SSE transport (a GET
 *             SSE stream whose "endpoint" event names where to POST).
 */
#ifndef ZERO_MCP_TRANSPORT_H
#define ZERO_MCP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "mcp/config.h"

struct zspawner;
typedef struct zmcp_transport zmcp_transport;

/* Receives one message (JSON text, not NUL-terminated). Returns 0, or
 * nonzero to report the message as a protocol failure of the server. */
typedef int (*zmcp_deliver_fn)(void *ud, const char *json, size_t len);

typedef struct zmcp_transport_ops {
  /* Connects / starts the server. */
  int (*start)(zmcp_transport *t, zerr *err);
  /* Sends one message. HTTP performs the whole exchange here and delivers
   * the answer before returning. */
  int (*send)(zmcp_transport *t, const char *msg, size_t len, int timeout_ms, zerr *err);
  /* Waits up to timeout_ms (< 0: until something happens) for messages and
   * delivers them. Returns 1 when something was delivered, 0 on timeout,
   * -1 with err when the connection is gone or the wait was cancelled
   * (ZE_CANCELLED). */
  int (*pump)(zmcp_transport *t, int timeout_ms, zerr *err);
  /* Orderly end, phase one (close stdin / DELETE the session); must not block long. */
  void (*begin_shutdown)(zmcp_transport *t);
  /* Phase two: waits until deadline_ms (monotonic) for the end, then forces it. */
  void (*finish_shutdown)(zmcp_transport *t, long long deadline_ms);
  void (*destroy)(zmcp_transport *t);
  /* The last lines the server wrote on stderr, or NULL. Borrowed. */
  const char *(*diagnostics)(zmcp_transport *t);
} zmcp_transport_ops;

struct zmcp_transport {
  const zmcp_transport_ops *ops;
  zmcp_deliver_fn deliver;
  void *deliver_ud;
  char *protocol_version; /* negotiated; HTTP sends it as MCP-Protocol-Version */
  bool session_lost;      /* HTTP: the server forgot the session (404); the client must
                           * initialize again (the transport already dropped the id) */
  unsigned responses;     /* responses (results and errors) delivered so far; the
                           * client counts them, HTTP uses it to see whether a
                           * reply stream brought its answer */
};

zmcp_transport *zmcp_stdio_new(const zmcp_server_cfg *cfg, const char *workspace,
                               struct zspawner *spawner);
zmcp_transport *zmcp_http_new(const zmcp_server_cfg *cfg, bool legacy_sse);

#endif
