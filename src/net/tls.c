/* tls.c — TLS over a TCP socket through libssl loaded on first use; see tls.h. */
#include "net/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "net/ossl.h"
#include "base/time.h"

/* The macros of ssl.h (SSL_CTX_set_min_proto_version,
 * SSL_set_tlsext_host_name) expand to the ctrl functions, which are called
 * here by hand. */

struct ztls_ctx {
  SSL_CTX *ctx;
};

struct ztls_conn {
  SSL *ssl;
  int fd;
};

/* Appends OpenSSL's queued reasons for this thread to err's message. */
static int ssl_fail(zerr *err, zerr_kind kind, const char *what) {
  char reason[256] = "";
  unsigned long e = zossl.ERR_get_error();
  if (e) zossl.ERR_error_string_n(e, reason, sizeof reason);
  zossl.ERR_clear_error();
  return zerr_set(err, kind, "%s%s%s", what, *reason ? ": " : "", reason);
}

/* Both ends: TLS 1.2 at least, no renegotiation, and a peer that closes
 * without close_notify reads as a clean end (our frames carry their
 * lengths, so a cut frame is still seen as truncated). */
static ztls_ctx *ctx_new(const SSL_METHOD *method, zerr *err) {
  SSL_CTX *ctx = zossl.SSL_CTX_new(method);
  if (!ctx) {
    ssl_fail(err, ZE_IO, "cannot create a TLS context");
    return NULL;
  }
  if (zossl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL) != 1) {
    ssl_fail(err, ZE_IO, "cannot require TLS 1.2");
    zossl.SSL_CTX_free(ctx);
    return NULL;
  }
  zossl.SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF |
                                     SSL_OP_NO_COMPRESSION);
  ztls_ctx *c = xcalloc(1, sizeof *c);
  c->ctx = ctx;
  return c;
}

ztls_ctx *ztls_ctx_server(const char *cert_file, const char *key_file, zerr *err) {
  if (zossl_load(err) < 0) return NULL;
  ztls_ctx *c = ctx_new(zossl.TLS_server_method(), err);
  if (!c) return NULL;
  int rc = 0;
  if (zossl.SSL_CTX_use_certificate_chain_file(c->ctx, cert_file) != 1)
    rc = ssl_fail(err, ZE_CONFIG, "cannot load the TLS certificate");
  else if (zossl.SSL_CTX_use_PrivateKey_file(c->ctx, key_file, SSL_FILETYPE_PEM) != 1)
    rc = ssl_fail(err, ZE_CONFIG, "cannot load the TLS key");
  else if (zossl.SSL_CTX_check_private_key(c->ctx) != 1)
    rc = ssl_fail(err, ZE_CONFIG, "the TLS key does not match the certificate");
  if (rc < 0) {
    zerr_prefix(err, "%s, %s", cert_file, key_file);
    ztls_ctx_free(c);
    return NULL;
  }
  return c;
}

ztls_ctx *ztls_ctx_client(const char *ca_file, zerr *err) {
  if (zossl_load(err) < 0) return NULL;
  ztls_ctx *c = ctx_new(zossl.TLS_client_method(), err);
  if (!c) return NULL;
  int ok = ca_file ? zossl.SSL_CTX_load_verify_file(c->ctx, ca_file)
                   : zossl.SSL_CTX_set_default_verify_paths(c->ctx);
  if (ok != 1) {
    ssl_fail(err, ZE_CONFIG, "cannot load the CA certificates");
    if (ca_file) zerr_prefix(err, "%s", ca_file);
    ztls_ctx_free(c);
    return NULL;
  }
  zossl.SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
  return c;
}

void ztls_ctx_free(ztls_ctx *c) {
  if (!c) return;
  zossl.SSL_CTX_free(c->ctx);
  free(c);
}

/* Waits until the socket is ready for what libssl asked (ssl_err), or the
 * deadline. 0, or -1 with err (ZE_TIMEOUT, ZE_IO). */
static int wait_io(int fd, int ssl_err, int64_t deadline, zerr *err) {
  struct pollfd p = {.fd = fd, .events = ssl_err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN};
  for (;;) {
    int timeout = -1;
    if (deadline >= 0) {
      int64_t left = deadline - ztime_mono_ms();
      if (left <= 0) return zerr_set(err, ZE_TIMEOUT, "timed out");
      timeout = left > 60000 ? 60000 : (int)left;
    }
    int n = poll(&p, 1, timeout);
    if (n > 0) return 0;
    if (n < 0 && errno != EINTR) return zerr_errno(err, ZE_IO, "poll");
  }
}

/* What a failed call (ret, its SSL_get_error e) means, as err. */
static int io_fail(ztls_conn *t, int ret, int e, zerr *err) {
  if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ret == 0 && errno == 0)) {
    zossl.ERR_clear_error();
    return zerr_set(err, ZE_NOT_FOUND, "connection closed");
  }
  if (e == SSL_ERROR_SYSCALL && errno != 0) {
    zossl.ERR_clear_error();
    return zerr_errno(err, ZE_IO, "connection failed");
  }
  long v = zossl.SSL_get_verify_result(t->ssl);
  if (v != X509_V_OK) {
    zossl.ERR_clear_error();
    return zerr_set(err, ZE_INVALID, "the server's certificate was refused: %s",
                    zossl.X509_verify_cert_error_string(v));
  }
  return ssl_fail(err, ZE_INVALID, "TLS failed");
}

static ztls_conn *shake(ztls_conn *t, bool server, int64_t deadline, zerr *err) {
  for (;;) {
    zossl.ERR_clear_error();
    errno = 0;
    int r = server ? zossl.SSL_accept(t->ssl) : zossl.SSL_connect(t->ssl);
    if (r == 1) return t;
    int e = zossl.SSL_get_error(t->ssl, r);
    if ((e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) &&
        wait_io(t->fd, e, deadline, err) == 0)
      continue;
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) io_fail(t, r, e, err);
    zerr_prefix(err, "TLS handshake");
    ztls_close(t);
    return NULL;
  }
}

static ztls_conn *conn_new(ztls_ctx *c, int fd, zerr *err) {
  int fl = fcntl(fd, F_GETFL);
  SSL *ssl = zossl.SSL_new(c->ctx);
  if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || !ssl || zossl.SSL_set_fd(ssl, fd) != 1) {
    if (ssl) zossl.SSL_free(ssl);
    close(fd);
    ssl_fail(err, ZE_IO, "cannot set up a TLS connection");
    return NULL;
  }
  ztls_conn *t = xcalloc(1, sizeof *t);
  t->ssl = ssl;
  t->fd = fd;
  return t;
}

ztls_conn *ztls_accept(ztls_ctx *c, int fd, int64_t deadline, zerr *err) {
  ztls_conn *t = conn_new(c, fd, err);
  return t ? shake(t, true, deadline, err) : NULL;
}

/* Names the server to check: an IP address is matched against the
 * certificate's IP entries and never sent as SNI (RFC 6066 §3). */
static int set_peer_name(ztls_conn *t, const char *name, zerr *err) {
  unsigned char addr[16];
  bool ip = inet_pton(AF_INET, name, addr) == 1 || inet_pton(AF_INET6, name, addr) == 1;
  int ok = ip ? zossl.X509_VERIFY_PARAM_set1_ip_asc(zossl.SSL_get0_param(t->ssl), name)
              : zossl.SSL_set1_host(t->ssl, name) == 1 &&
                    zossl.SSL_ctrl(t->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                                   (void *)name) == 1;
  return ok == 1 ? 0 : ssl_fail(err, ZE_USAGE, "bad server name");
}

ztls_conn *ztls_connect(ztls_ctx *c, int fd, const char *server_name, int64_t deadline, zerr *err) {
  ztls_conn *t = conn_new(c, fd, err);
  if (!t) return NULL;
  if (set_peer_name(t, server_name, err) < 0) {
    ztls_close(t);
    return NULL;
  }
  return shake(t, false, deadline, err);
}

/* Moves all n bytes through SSL_write from wbuf when it is non-NULL, else
 * through SSL_read into rbuf, waiting on the socket whenever OpenSSL wants it
 * (the fd is non-blocking), until deadline. 0, or -1 with err (io_fail's, or
 * wait_io's); *moved says how far it got either way. */
static int io_all(ztls_conn *t, char *rbuf, const char *wbuf, size_t n, int64_t deadline,
                  size_t *moved, zerr *err) {
  size_t done = 0;
  int rc = 0;
  while (done < n) {
    zossl.ERR_clear_error();
    errno = 0;
    int want = (int)(n - done > INT32_MAX ? INT32_MAX : n - done);
    int r = wbuf ? zossl.SSL_write(t->ssl, wbuf + done, want)
                 : zossl.SSL_read(t->ssl, rbuf + done, want);
    if (r > 0) {
      done += (size_t)r;
      continue;
    }
    int e = zossl.SSL_get_error(t->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (wait_io(t->fd, e, deadline, err) < 0) {
        rc = -1;
        break;
      }
      continue;
    }
    rc = io_fail(t, r, e, err);
    break;
  }
  *moved = done;
  return rc;
}

int ztls_read_exact(ztls_conn *t, void *buf, size_t n, int64_t deadline, zerr *err) {
  size_t got;
  if (io_all(t, buf, NULL, n, deadline, &got, err) == 0) return 0;
  if (err && err->kind == ZE_NOT_FOUND && got > 0)
    return zerr_set(err, ZE_INVALID, "truncated frame: the peer closed the connection");
  return -1;
}

int ztls_write_all(ztls_conn *t, const void *buf, size_t n, int64_t deadline, zerr *err) {
  size_t done;
  return io_all(t, NULL, buf, n, deadline, &done, err);
}

/* Moves what libssl has to plain_fd. 1 to go on, 0 when the TLS side
 * closed, -1 on an error. */
static int drain_tls(ztls_conn *t, int plain_fd, char *buf, size_t cap) {
  for (;;) {
    zossl.ERR_clear_error();
    errno = 0;
    int r = zossl.SSL_read(t->ssl, buf, (int)cap);
    if (r > 0) {
      if (zfs_send_all(plain_fd, buf, (size_t)r) < 0) return -1;
      continue;
    }
    int e = zossl.SSL_get_error(t->ssl, r);
    if (e == SSL_ERROR_WANT_READ) return 1;
    if (e == SSL_ERROR_WANT_WRITE) {
      if (wait_io(t->fd, e, -1, NULL) < 0) return -1;
      continue;
    }
    zerr err = ZERR_INIT;
    io_fail(t, r, e, &err);
    return err.kind == ZE_NOT_FOUND ? 0 : -1;
  }
}

int ztls_relay(ztls_conn *t, int plain_fd) {
  char buf[16384];
  for (;;) {
    /* Bytes libssl already decrypted would not wake poll: read them first. */
    int rc = drain_tls(t, plain_fd, buf, sizeof buf);
    if (rc <= 0) return rc;
    struct pollfd p[2] = {{.fd = t->fd, .events = POLLIN}, {.fd = plain_fd, .events = POLLIN}};
    int n = poll(p, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (!(p[1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t r = read(plain_fd, buf, sizeof buf);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) return r == 0 ? 0 : -1;
    if (ztls_write_all(t, buf, (size_t)r, -1, NULL) < 0) return -1;
  }
}

const char *ztls_version(const ztls_conn *t) { return zossl.SSL_get_version(t->ssl); }

void ztls_close(ztls_conn *t) {
  if (!t) return;
  zossl.ERR_clear_error();
  (void)zossl.SSL_shutdown(t->ssl); /* one close_notify, no wait for the peer's */
  zossl.ERR_clear_error();
  zossl.SSL_free(t->ssl);
  close(t->fd);
  free(t);
}
