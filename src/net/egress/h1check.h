/* h1check.h — the HTTP/1.1 request stream of an inspected TLS connection,
 * checked request by request before it goes upstream.
 *
 * Under sandbox.inspectTLS the proxy decrypts what a sandboxed client sends
 * through a CONNECT (or SOCKS5) tunnel to an allowed host. Every request on
 * the connection (keep-alive, pipelining) must name that host: a Host header
 * (or an absolute-form target) naming another is domain fronting — the
 * allowed host's front end would route the request to a host the policy
 * never allowed — and the stream is refused. To keep the proxy's idea of
 * where one request ends the same as the server's (request smuggling would
 * hide a second request inside the first one's body), anything ambiguous
 * is refused too: no Host or two of them, two Content-Lengths, a
 * Transfer-Encoding other than "chunked" or beside a Content-Length, bare
 * CR or LF, folded header lines, a CONNECT, and protocol upgrades
 * (WebSocket, h2c), after which the stream would no longer be HTTP/1.1.
 *
 * Bodies pass as they arrive (Content-Length or chunked framing is
 * followed, never buffered); a request head is held until it is complete.
 *
 * Life cycle: zeg_h1_init … zeg_h1_feed for each piece the client sends …
 * zeg_h1_release.
 */
#ifndef ZERO_NET_EGRESS_H1CHECK_H
#define ZERO_NET_EGRESS_H1CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "net/egress/rules.h"

#define ZEG_H1_HEAD_MAX 32768 /* a larger request head is refused */

typedef struct zeg_h1 {
  char host[ZEG_HOST_MAX]; /* the tunnel's target, normalized */
  int port;
  int state;         /* where in a request the stream is (h1check.c) */
  uint64_t left;     /* body or chunk bytes still to pass */
  zbuf line;         /* a partial head, chunk-size line or trailer line */
  unsigned requests; /* complete heads passed */
} zeg_h1;

/* Starts a stream whose requests must name host (normalized) and port. */
void zeg_h1_init(zeg_h1 *h, const char *host, int port);
void zeg_h1_release(zeg_h1 *h);

/* Feeds the next n bytes the client sent; appends to out what may go
 * upstream now (a head once complete, body bytes as they come). 0, or -1
 * with why (a sentence for the client and the record): the stream must be
 * refused, and nothing of this piece sent. */
int zeg_h1_feed(zeg_h1 *h, const char *data, size_t n, zbuf *out, char *why, size_t cap);

/* Appends to out a complete HTTP/1.1 response of the proxy's own: status
 * (400, 403 or 502), a plain-text body, Connection: close and the header
 * X-Zero-Egress: refused, so a client and a test can tell it from the
 * upstream's. */
void zeg_h1_refusal(int status, const char *body, zbuf *out);

#endif
