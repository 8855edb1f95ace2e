/* inspect.c — terminating and re-originating TLS for the egress proxy; see
 * inspect.h. Both sockets are non-blocking: a peer that stalls mid-record
 * must not hold up the other direction. */
#include "net/egress/inspect.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/buf.h"
#include "base/common.h"
#include "net/egress/h1check.h"

#define WAIT_MS 30000 /* a handshake or a write that makes no progress this long ends it */
#define READ_CHUNK 16384

struct zeg_inspector {
  zeg_ca *ca;
  SSL_CTX *server; /* faces the sandbox: the run's leaves */
  SSL_CTX *client; /* faces the world: verifies */
};

/* ALPN for the client: http/1.1 when offered, else none (the client then
 * speaks HTTP/1.1 or is refused by the request check): never h2, whose
 * frames the request check does not read. */
static int pick_http11(SSL *s, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg) {
  (void)s;
  (void)arg;
  for (unsigned i = 0; i < inlen;) {
    unsigned l = in[i];
    if (i + 1 + l > inlen) break;
    if (l == 8 && !memcmp(in + i + 1, "http/1.1", 8)) {
      *out = in + i + 1;
      *outlen = 8;
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + l;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

/* TLS 1.2 or newer; an idle connection's record buffers are freed
 * (SSL_MODE_RELEASE_BUFFERS: some 70 KiB per inspected tunnel that waits). */
static SSL_CTX *new_ctx(bool server) {
  SSL_CTX *ctx = zossl.SSL_CTX_new(server ? zossl.TLS_server_method() : zossl.TLS_client_method());
  if (!ctx) return NULL;
  zossl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
  zossl.SSL_CTX_ctrl(ctx, SSL_CTRL_MODE, SSL_MODE_RELEASE_BUFFERS, NULL);
  return ctx;
}

zeg_inspector *zeg_inspector_new(zeg_ca *ca, const char *upstream_cas, zerr *err) {
  zeg_inspector *in = xcalloc(1, sizeof *in);
  in->ca = ca;
  in->server = new_ctx(true);
  in->client = new_ctx(false);
  static const unsigned char alpn[] = "\x08http/1.1";
  bool ok = in->server && in->client &&
            zossl.SSL_CTX_set_alpn_protos(in->client, alpn, sizeof alpn - 1) == 0;
  if (ok) {
    zossl.SSL_CTX_set_alpn_select_cb(in->server, pick_http11, NULL);
    zossl.SSL_CTX_set_verify(in->client, SSL_VERIFY_PEER, NULL);
    ok = upstream_cas ? zossl.SSL_CTX_load_verify_locations(in->client, upstream_cas, NULL) == 1
                      : zossl.SSL_CTX_set_default_verify_paths(in->client) == 1;
  }
  if (!ok) {
    char why[256];
    zossl_last_error(why, sizeof why);
    zerr_set(err, ZE_INTERNAL, "sandbox.inspectTLS: cannot set up TLS%s%s (%s)",
             upstream_cas ? " with the CA bundle " : "", upstream_cas ? upstream_cas : "", why);
    zeg_inspector_free(in);
    return NULL;
  }
  return in;
}

void zeg_inspector_free(zeg_inspector *in) {
  if (!in) return;
  if (in->server) zossl.SSL_CTX_free(in->server);
  if (in->client) zossl.SSL_CTX_free(in->client);
  zeg_ca_free(in->ca);
  free(in);
}

/* Non-blocking, and without Nagle's wait: a handshake is a ping-pong of
 * small writes, each of which would otherwise wait for the peer's delayed
 * ACK (no-op on a Unix socket). */
static void prepare_fd(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* After an SSL call on fd returned ret: waits for what it wants (1), or -1
 * when it failed for good, WAIT_MS passed, or stop_fd became readable. */
static int ssl_wait(SSL *s, int fd, int ret, int stop_fd) {
  int e = zossl.SSL_get_error(s, ret);
  if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) return -1;
  struct pollfd pf[2] = {{.fd = fd, .events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT},
                         {.fd = stop_fd, .events = POLLIN}};
  int r;
  do r = poll(pf, stop_fd >= 0 ? 2 : 1, WAIT_MS);
  while (r < 0 && errno == EINTR);
  return r > 0 && !(stop_fd >= 0 && pf[1].revents) ? 1 : -1;
}

static int handshake(SSL *s, int fd, bool accept, int stop_fd) {
  for (;;) {
    int r = accept ? zossl.SSL_accept(s) : zossl.SSL_connect(s);
    if (r == 1) return 0;
    if (ssl_wait(s, fd, r, stop_fd) < 0) return -1;
  }
}

static int ssl_write_all(SSL *s, int fd, const char *buf, size_t n, int stop_fd) {
  while (n) {
    int w = zossl.SSL_write(s, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    if (w > 0) {
      buf += w;
      n -= (size_t)w;
    } else if (ssl_wait(s, fd, w, stop_fd) < 0) {
      return -1;
    }
  }
  return 0;
}

SSL *zeg_inspect_connect(zeg_inspector *in, int fd, const char *host, int stop_fd, char *why,
                         size_t cap) {
  SSL *s = zossl.SSL_new(in->client);
  struct sockaddr_storage ss;
  bool is_ip = zeg_parse_ip(host, &ss);
  bool ok = s && zossl.SSL_set_fd(s, fd) == 1;
  if (ok && is_ip) {
    ok = zossl.X509_VERIFY_PARAM_set1_ip_asc(zossl.SSL_get0_param(s), host) == 1;
  } else if (ok) {
    ok = zossl.SSL_ctrl(s, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)host) ==
             1 &&
         zossl.SSL_set1_host(s, host) == 1;
  }
  prepare_fd(fd);
  if (ok && handshake(s, fd, false, stop_fd) == 0) return s;
  long v = s ? zossl.SSL_get_verify_result(s) : X509_V_OK;
  char e[256];
  zossl_last_error(e, sizeof e);
  if (v != X509_V_OK)
    snprintf(why, cap,
             "the upstream certificate of %s failed verification (%s); the proxy "
             "refuses it",
             host, zossl.X509_verify_cert_error_string(v));
  else snprintf(why, cap, "TLS to %s failed (%s)", host, e[0] ? e : "the connection ended");
  if (s) zossl.SSL_free(s);
  return NULL;
}

/* One relay: both ends and the request check. */
typedef struct relay {
  SSL *c, *u;
  int cfd, ufd, stop_fd;
  zeg_h1 h1;
  zbuf out;
  zeg_inspect_result *res;
} relay;

/* Reads what s has now: >0 bytes, 0 nothing yet, -1 the end. */
static int read_now(SSL *s, char *buf, int cap) {
  int r = zossl.SSL_read(s, buf, cap);
  if (r > 0) return r;
  int e = zossl.SSL_get_error(s, r);
  return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE ? 0 : -1;
}

static void refuse(relay *r, const char *why) {
  char body[768];
  snprintf(body, sizeof body, "zero: the sandbox refused a request to %s: %s.\n", r->h1.host, why);
  zbuf resp = ZBUF_INIT;
  zeg_h1_refusal(403, body, &resp);
  ssl_write_all(r->c, r->cfd, resp.data, resp.len, r->stop_fd);
  zbuf_release(&resp);
  r->res->refused = true;
  snprintf(r->res->why, sizeof r->res->why, "%s", why);
}

/* Client to upstream, checked. 1 progress, 0 none, -1 the end. */
static int pump_up(relay *r, char *buf) {
  int n = read_now(r->c, buf, READ_CHUNK);
  if (n <= 0) return n;
  char why[512];
  zbuf_reset(&r->out);
  if (zeg_h1_feed(&r->h1, buf, (size_t)n, &r->out, why, sizeof why) < 0) {
    refuse(r, why);
    return -1;
  }
  r->res->requests = r->h1.requests;
  if (ssl_write_all(r->u, r->ufd, r->out.data, r->out.len, r->stop_fd) < 0) return -1;
  r->res->up += r->out.len;
  return 1;
}

/* Upstream to client, as is. The ACK of what came goes out at once: the
 * proxy rarely has bytes to carry it back, and a server that writes a
 * response in two pieces with Nagle's algorithm on would otherwise wait for
 * the kernel's delayed ACK (40 ms) before its second piece. */
static int pump_down(relay *r, char *buf) {
  int n = read_now(r->u, buf, READ_CHUNK);
  int one = 1;
  setsockopt(r->ufd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
  if (n <= 0) return n;
  if (ssl_write_all(r->c, r->cfd, buf, (size_t)n, r->stop_fd) < 0) return -1;
  r->res->down += (uint64_t)n;
  return 1;
}

static void relay_loop(relay *r) {
  char *buf = xmalloc(READ_CHUNK);
  for (;;) {
    if (zossl.SSL_pending(r->c) <= 0 && zossl.SSL_pending(r->u) <= 0) {
      struct pollfd pf[3] = {{.fd = r->cfd, .events = POLLIN},
                             {.fd = r->ufd, .events = POLLIN},
                             {.fd = r->stop_fd, .events = POLLIN}};
      int pr = poll(pf, r->stop_fd >= 0 ? 3 : 2, -1);
      if (pr < 0 && errno == EINTR) continue;
      if (pr < 0 || (r->stop_fd >= 0 && pf[2].revents)) break;
    }
    int a = pump_up(r, buf);
    if (a < 0) break;
    int b = pump_down(r, buf);
    if (b < 0) break;
  }
  free(buf);
}

void zeg_inspect_relay(zeg_inspector *in, SSL *up, int client_fd, const char *host, int port,
                       int stop_fd, zeg_inspect_result *res) {
  memset(res, 0, sizeof *res);
  char why[256];
  X509 *leaf = zeg_ca_leaf(in->ca, host, why, sizeof why);
  if (!leaf) {
    snprintf(res->why, sizeof res->why, "%s", why);
    return;
  }
  SSL *c = zossl.SSL_new(in->server);
  prepare_fd(client_fd);
  if (!c || zossl.SSL_use_certificate(c, leaf) != 1 ||
      zossl.SSL_use_PrivateKey(c, zeg_ca_leaf_key(in->ca)) != 1 ||
      zossl.SSL_set_fd(c, client_fd) != 1 || handshake(c, client_fd, true, stop_fd) < 0) {
    zossl_last_error(why, sizeof why);
    snprintf(res->why, sizeof res->why,
             "the client did not complete TLS with the run's inspection CA (%s); does it "
             "trust SSL_CERT_FILE?",
             why[0] ? why : "the connection ended");
    if (c) zossl.SSL_free(c);
    return;
  }
  relay r = {.c = c,
             .u = up,
             .cfd = client_fd,
             .ufd = zossl.SSL_get_fd(up),
             .stop_fd = stop_fd,
             .res = res};
  zeg_h1_init(&r.h1, host, port);
  zbuf_init(&r.out);
  relay_loop(&r);
  zossl.SSL_shutdown(c);
  zossl.SSL_shutdown(up);
  zeg_h1_release(&r.h1);
  zbuf_release(&r.out);
  zossl.SSL_free(c);
}
