/* tls.h — TLS over one connected TCP socket, with OpenSSL's libssl loaded on
 * first use (base/dlib.h: zero starts on every sandboxed command and only the
 * daemon's remote bridge needs libssl; libcurl keeps its own TLS).
 *
 * Both ends refuse anything older than TLS 1.2 and renegotiation. A client
 * always verifies the server's certificate (against one CA file, or the
 * system's roots) and its name; there is no way to turn verification off.
 *
 * Life cycle: ztls_ctx_server / ztls_ctx_client (a context serves many
 * connections, from several threads); ztls_accept / ztls_connect take over a
 * connected socket (made non-blocking) and shake hands before a deadline;
 * ztls_read_exact / ztls_write_all / ztls_relay; ztls_close (closes the
 * socket too); ztls_ctx_free once every connection is closed.
 *
 * Deadlines are absolute times on ztime_mono_ms(); -1 waits forever.
 */
#ifndef ZERO_NET_TLS_H
#define ZERO_NET_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct ztls_ctx ztls_ctx;
typedef struct ztls_conn ztls_conn;

/* A server context with the certificate chain in cert_file and its key in
 * key_file (PEM). NULL with err (ZE_CONFIG naming the file and OpenSSL's
 * reason; ZE_IO when libssl cannot be loaded). */
ztls_ctx *ztls_ctx_server(const char *cert_file, const char *key_file, zerr *err);

/* A client context trusting only the certificates of ca_file (PEM), or the
 * system's roots when ca_file is NULL. NULL with err. */
ztls_ctx *ztls_ctx_client(const char *ca_file, zerr *err);

void ztls_ctx_free(ztls_ctx *c);

/* Shakes hands as the server on fd (taken over: closed on failure too).
 * NULL with err: ZE_TIMEOUT past the deadline, ZE_INVALID with OpenSSL's
 * reason ("unsupported protocol", …). */
ztls_conn *ztls_accept(ztls_ctx *c, int fd, int64_t deadline, zerr *err);

/* Shakes hands as a client of server_name (sent as SNI and matched against
 * the certificate: a DNS name or an IP address) on fd (taken over). NULL with
 * err: a refused certificate is ZE_INVALID with the verifier's reason. */
ztls_conn *ztls_connect(ztls_ctx *c, int fd, const char *server_name, int64_t deadline, zerr *err);

/* Reads exactly n bytes. 0, or -1 with err: ZE_NOT_FOUND when the peer
 * closed before the first byte, ZE_INVALID when it closed within them
 * ("truncated"), ZE_TIMEOUT past the deadline, ZE_IO otherwise. */
int ztls_read_exact(ztls_conn *t, void *buf, size_t n, int64_t deadline, zerr *err);

/* Writes all n bytes. 0, or -1 with err (ZE_TIMEOUT, ZE_IO). */
int ztls_write_all(ztls_conn *t, const void *buf, size_t n, int64_t deadline, zerr *err);

/* Copies bytes both ways between the TLS connection and plain_fd (a
 * connected stream socket, blocking) until either side closes or fails;
 * bytes already read past a handshake are not lost (libssl buffers them).
 * Returns 0 when a side closed, -1 on an I/O error. Neither end is closed. */
int ztls_relay(ztls_conn *t, int plain_fd);

/* The negotiated protocol ("TLSv1.3"). */
const char *ztls_version(const ztls_conn *t);

/* Sends close_notify (best effort, no wait), frees, closes the socket. */
void ztls_close(ztls_conn *t);

#endif
