/* jsonrpc.h — JSON-RPC 2.0 messages as MCP uses them, and their framing.
 *
 * Framing (hand-written; nothing packaged frames newline-delimited JSON with
 * a size cap and incremental input):
 *  - stdio: one message per line, lines end in LF (a CR before it is
 *    dropped), messages never contain a raw newline (JSON escapes it);
 *    blank lines are skipped. A line longer than the cap fails the framer
 *    with ZE_TOO_LARGE, and it stays failed: after an oversized message the
 *    stream position is unknowable, so the connection must be dropped.
 *  - HTTP: a response body is either one JSON document or an SSE stream whose
 *    "message" events each carry one JSON document (net/sse.h parses those).
 * A batch (JSON array, allowed by MCP 2025-03-26) is taken apart and each
 * element handled as its own message.
 */
#ifndef ZERO_MCP_JSONRPC_H
#define ZERO_MCP_JSONRPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define ZRPC_MAX_MESSAGE (16u << 20) /* largest message accepted from a server: 16 MiB */

/* JSON-RPC error codes. */
enum {
  ZRPC_PARSE_ERROR = -32700,
  ZRPC_INVALID_REQUEST = -32600,
  ZRPC_METHOD_NOT_FOUND = -32601,
  ZRPC_INVALID_PARAMS = -32602,
  ZRPC_INTERNAL_ERROR = -32603,
};

typedef enum zrpc_kind {
  ZRPC_REQUEST,      /* method + id */
  ZRPC_NOTIFICATION, /* method, no id */
  ZRPC_RESPONSE,     /* id + result */
  ZRPC_ERROR,        /* id (may be null) + error object */
  ZRPC_ORPHAN,       /* result or error with no "id" member at all: no request can own
                      * it, so receivers drop it (as the TypeScript SDK does) instead of
                      * ending the session over a peer's slip */
} zrpc_kind;

/* One classified message. Every pointer is borrowed from root. */
typedef struct zrpc_msg {
  zrpc_kind kind;
  json_t *root;        /* the whole message; owned by the zrpc_msg */
  json_t *id;          /* integer or string; NULL for notifications */
  const char *method;  /* requests and notifications */
  json_t *params;      /* may be NULL */
  json_t *result;      /* responses */
  json_t *error;       /* error responses: {code, message, data?} */
} zrpc_msg;

/* Classifies root (stealing the reference on success). Returns 0, or -1 with
 * err (ZE_INVALID) naming what is wrong; root is then still the caller's. */
int zrpc_classify(json_t *root, zrpc_msg *out, zerr *err);
void zrpc_msg_release(zrpc_msg *m);

/* Called for each message; return nonzero to stop (that value is returned). */
typedef int (*zrpc_msg_fn)(void *ud, zrpc_msg *msg);

/* Parses one JSON document (len bytes) holding a message or a batch and calls
 * fn for each message, which takes ownership (must zrpc_msg_release it).
 * Returns 0, fn's nonzero value, or -1 with err for malformed JSON or a
 * value that is not a JSON-RPC message. */
int zrpc_parse(const char *text, size_t len, zrpc_msg_fn fn, void *ud, zerr *err);

/* The newline framer for stdio. */
typedef struct zrpc_framer {
  zbuf line;        /* bytes of the line being assembled */
  size_t max;       /* longest line accepted (0 = ZRPC_MAX_MESSAGE) */
  bool failed;
} zrpc_framer;

#define ZRPC_FRAMER_INIT { ZBUF_INIT, 0, false }

/* Called for each complete non-blank line (without its line ending). */
typedef int (*zrpc_line_fn)(void *ud, const char *line, size_t len);

/* Feeds bytes; calls fn per complete line. Returns 0, fn's nonzero value, or
 * -1 with err (ZE_TOO_LARGE: a line passed the cap). Any byte split gives
 * the same lines as feeding the stream whole. */
int zrpc_framer_feed(zrpc_framer *f, const char *data, size_t len, zrpc_line_fn fn, void *ud,
                     zerr *err);
/* Bytes of an unterminated last line (0 when the stream ended on a line end). */
size_t zrpc_framer_pending(const zrpc_framer *f);
void zrpc_framer_release(zrpc_framer *f);

/* Message builders: compact JSON text appended to out, no trailing newline. */
void zrpc_build_request(zbuf *out, int64_t id, const char *method, const json_t *params);
void zrpc_build_notification(zbuf *out, const char *method, const json_t *params);
void zrpc_build_result(zbuf *out, const json_t *id, const json_t *result);
void zrpc_build_error(zbuf *out, const json_t *id, int code, const char *message);

/* "code: message" of an error object, for user-facing text. Caller frees. */
char *zrpc_error_text(const json_t *error);

#endif
