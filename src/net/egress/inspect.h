/* inspect.h — TLS inspection of the egress proxy's tunnels
 * (sandbox.inspectTLS).
 *
 * For a tunnel to an allowed host the proxy first opens its own TLS
 * connection upstream, verified against the system's CAs (or the
 * configured bundle) with the host name checked: a certificate that does
 * not verify refuses the tunnel before the client hears yes. Then it answers
 * the client's handshake with a certificate for the host minted by the
 * run's CA (tlsca.h), offering ALPN http/1.1 only, and relays the decrypted
 * stream both ways, every request checked on its way up (h1check.h).
 *
 * Life cycle: zeg_inspector_new (takes the CA) … zeg_inspect_connect and
 * zeg_inspect_relay from the proxy's connection threads, at once …
 * zeg_inspector_free once the proxy has stopped.
 */
#ifndef ZERO_NET_EGRESS_INSPECT_H
#define ZERO_NET_EGRESS_INSPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "net/ossl.h"
#include "net/egress/tlsca.h"

typedef struct zeg_inspector zeg_inspector;

/* The inspector for ca (owned from now on, even on failure); upstream_cas:
 * a PEM bundle to verify upstream servers against instead of the system's
 * (network.caBundle), NULL for the system's. NULL with err. */
zeg_inspector *zeg_inspector_new(zeg_ca *ca, const char *upstream_cas, zerr *err);
void zeg_inspector_free(zeg_inspector *in);

/* TLS to host (normalized) over the connected upstream socket fd, the
 * certificate verified for host. The SSL (caller frees with SSL_free) or
 * NULL with why: the tunnel must be refused. stop_fd readable: give up. */
SSL *zeg_inspect_connect(zeg_inspector *in, int fd, const char *host, int stop_fd, char *why,
                         size_t cap);

typedef struct zeg_inspect_result {
  uint64_t up, down; /* decrypted bytes passed each way */
  unsigned requests; /* request heads passed */
  bool refused;      /* a request broke the rules (why says how); the client got a 403 */
  char why[512];     /* refused, or why the relay ended early ("" on a clean end) */
} zeg_inspect_result;

/* Serves the client on client_fd (the tunnel's, after the proxy's yes):
 * the TLS handshake as host, then requests up and responses down until
 * either side ends, a request is refused, or stop_fd becomes readable.
 * Closes neither fd; frees nothing of up. */
void zeg_inspect_relay(zeg_inspector *in, SSL *up, int client_fd, const char *host, int port,
                       int stop_fd, zeg_inspect_result *res);

#endif
