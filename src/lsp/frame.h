/* frame.h — the Language Server Protocol's base protocol: JSON-RPC 2.0
 * messages, each preceded by a header part, on a byte stream (a server's
 * stdin and stdout).
 *
 *   Content-Length: 52\r\n
 *   Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n   (optional)
 *   \r\n
 *   {"jsonrpc":"2.0","method":"initialized","params":{}}
 *
 * Hand-written: no Debian package frames LSP (MCP's stdio framing,
 * mcp/jsonrpc.h, is one message per line; the messages themselves are
 * classified by that module's zrpc_classify). The framer is incremental: any
 * split of the stream into feeds yields the same messages. Header names are
 * matched without regard to case; lines may end in CRLF or a bare LF (some
 * servers write LF); headers other than Content-Length are ignored. A header
 * part without Content-Length, a malformed or oversized length, or a header
 * part longer than ZLSP_MAX_HEADER fails the framer, and it stays failed:
 * after a bad frame the position of the next one is unknowable, so the
 * connection must be dropped (the client restarts the server).
 */
#ifndef ZERO_LSP_FRAME_H
#define ZERO_LSP_FRAME_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define ZLSP_MAX_MESSAGE (64u << 20) /* largest body accepted: 64 MiB (workspace symbols) */
#define ZLSP_MAX_HEADER 4096u        /* largest header part */

typedef struct zlsp_framer {
  zbuf buf;        /* bytes not yet consumed: a partial header part or body */
  size_t body_len; /* the body being read, once its header part is complete */
  bool in_body;
  size_t max;      /* largest body accepted (0 = ZLSP_MAX_MESSAGE) */
  bool failed;
} zlsp_framer;

#define ZLSP_FRAMER_INIT { ZBUF_INIT, 0, false, 0, false }

/* Called with each complete body (not NUL-terminated by contract, though
 * the buffer happens to be). Return nonzero to stop: that value is
 * returned by zlsp_framer_feed, and the bytes after this message stay
 * buffered for the next feed. */
typedef int (*zlsp_body_fn)(void *ud, const char *body, size_t len);

/* Feeds len bytes of the stream. Returns 0, fn's nonzero value, or -1 with
 * err (ZE_INVALID: malformed header part; ZE_TOO_LARGE: a length past the
 * cap). A failed framer fails every later feed. */
int zlsp_framer_feed(zlsp_framer *f, const char *data, size_t len, zlsp_body_fn fn, void *ud,
                     zerr *err);
/* Bytes buffered: a message begun but not complete. */
size_t zlsp_framer_pending(const zlsp_framer *f);
void zlsp_framer_release(zlsp_framer *f);

/* Appends one framed message: the header part and the compact JSON of msg. */
void zlsp_frame_json(zbuf *out, const json_t *msg);

#endif
