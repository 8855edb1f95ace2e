/* proxy.c — the egress proxy: listener, per-connection protocol, resolve,
 * check, dial, relay; see proxy.h. */
#include "net/egress/proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "net/egress/forward.h"
#include "net/egress/h1check.h"
#include "net/egress/inspect.h"
#include "net/egress/relay.h"

#define HEAD_MAX 16384         /* an HTTP request head larger than this is refused */
#define IO_TIMEOUT_MS 30000    /* a client that says nothing for this long is dropped */
#define DIAL_TIMEOUT_MS 10000
#define ADDRS_MAX 16
#define CONN_STACK (128 * 1024)

typedef struct host_entry {
  char name[ZEG_HOST_MAX];
  struct sockaddr_storage addr;
} host_entry;

struct zeg_proxy {
  zeg_rules rules;           /* owned copy */
  char *socket_path;
  int listen_fd;
  int stop[2];               /* the read end becomes readable when the proxy stops */
  pthread_t acceptor;
  pthread_mutex_t mu;
  pthread_cond_t idle;
  int live;                  /* connection threads running (mu) */
  zeg_proxy_stats stats;     /* mu */
  host_entry *hosts;         /* the test resolver (opts.hosts_file) */
  size_t n_hosts;
  zeg_event_fn on_event;
  void *ud;
  zeg_ask_fn ask;
  void *ask_ud;
  zeg_inspector *inspect; /* borrowed; NULL: no inspection */
};

typedef struct conn {
  zeg_proxy *p;
  int fd;
} conn;

/* ---- small I/O ------------------------------------------------------------ */

/* Waits until fd is ready for events, the proxy stops, or timeout: 1 ready,
 * 0 timeout, -1 stop or error. */
static int wait_fd(const zeg_proxy *p, int fd, short events, int timeout_ms) {
  struct pollfd pf[2] = {{.fd = fd, .events = events}, {.fd = p->stop[0], .events = POLLIN}};
  int r;
  do r = poll(pf, 2, timeout_ms);
  while (r < 0 && errno == EINTR);
  if (r < 0 || pf[1].revents) return -1;
  return r > 0 ? 1 : 0;
}

static int read_some(const zeg_proxy *p, int fd, void *buf, size_t n) {
  if (wait_fd(p, fd, POLLIN, IO_TIMEOUT_MS) <= 0) return -1;
  ssize_t r;
  do r = recv(fd, buf, n, 0);
  while (r < 0 && errno == EINTR);
  return r > 0 ? (int)r : -1;
}

static int read_full(const zeg_proxy *p, int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    int r = read_some(p, fd, (char *)buf + got, n - got);
    if (r < 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

/* ---- events and stats ------------------------------------------------------- */

static void emit(zeg_proxy *p, const char *kind, const char *proto, const char *host, int port,
                 bool allowed, const char *reason, uint64_t up, uint64_t down) {
  if (!p->on_event) return;
  zeg_event e = {.kind = kind, .proto = proto, .host = host, .port = port, .allowed = allowed,
                 .reason = reason ? reason : "", .bytes_up = up, .bytes_down = down};
  p->on_event(p->ud, &e);
}

static void count(zeg_proxy *p, bool allowed, uint64_t up, uint64_t down) {
  pthread_mutex_lock(&p->mu);
  if (allowed) p->stats.allowed++;
  else p->stats.denied++;
  p->stats.bytes_up += up;
  p->stats.bytes_down += down;
  pthread_mutex_unlock(&p->mu);
}

/* A connection that did not happen: refused by the policy (status 403: a
 * network_decision that denies), or allowed but not reachable (a
 * network_request that failed, its reason the error). */
static void record_failure(zeg_proxy *p, const char *proto, const char *host, int port,
                           int status, const char *why) {
  bool refused = status == 403;
  emit(p, refused ? "network_decision" : "network_request", proto, host, port, !refused, why, 0,
       0);
  count(p, !refused, 0, 0);
}

void zeg_denial_text(const char *host, int port, const char *reason, char *out, size_t cap) {
  snprintf(out, cap,
           "zero: the sandbox blocked a connection to %s:%d (%s).\n"
           "To allow it, add \"%s\" to sandbox.allowedDomains in the user config "
           "(~/.config/zero/config.json), or run zero exec --allow-domain %s for one run.\n",
           host, port, reason, host, host);
}

/* ---- resolving and dialling ----------------------------------------------- */

static void set_port(struct sockaddr_storage *ss, int port) {
  if (ss->ss_family == AF_INET) ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
  else ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

/* The addresses of host (normalized), each with port: an IP literal is
 * itself, a name of the test hosts file is what it says there (and nothing
 * else), any other name goes to the system resolver. Returns how many (0:
 * none). */
static size_t resolve(const zeg_proxy *p, const char *host, int port,
                      struct sockaddr_storage *out, size_t max) {
  size_t n = 0;
  if (zeg_parse_ip(host, &out[0])) {
    n = 1;
  } else if (p->n_hosts) {
    for (size_t i = 0; i < p->n_hosts && n < max; i++)
      if (!strcmp(p->hosts[i].name, host)) out[n++] = p->hosts[i].addr;
    if (n == 0) return 0; /* the test resolver knows every name a test uses */
  } else {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, NULL, &hints, &res) != 0) return 0;
    for (struct addrinfo *a = res; a && n < max; a = a->ai_next) {
      if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
      memset(&out[n], 0, sizeof out[n]);
      memcpy(&out[n], a->ai_addr, a->ai_addrlen);
      n++;
    }
    freeaddrinfo(res);
  }
  for (size_t i = 0; i < n; i++) set_port(&out[i], port);
  return n;
}

static int dial_one(const zeg_proxy *p, const struct sockaddr_storage *ss) {
  socklen_t len = ss->ss_family == AF_INET ? sizeof(struct sockaddr_in)
                                           : sizeof(struct sockaddr_in6);
  int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (connect(fd, (const struct sockaddr *)ss, len) == 0) return fd;
  int soerr = errno;
  if (soerr == EINPROGRESS && wait_fd(p, fd, POLLOUT, DIAL_TIMEOUT_MS) == 1) {
    socklen_t sl = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0) {
      int fl = fcntl(fd, F_GETFL);
      fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
      return fd;
    }
  }
  close(fd);
  return -1;
}

static void addr_text(const struct sockaddr_storage *ss, char *out, size_t cap) {
  const void *a = ss->ss_family == AF_INET
                      ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
                      : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
  if (!inet_ntop(ss->ss_family, a, out, (socklen_t)cap)) snprintf(out, cap, "?");
}

/* The decision for host:port and, when allowed, the connection: by name,
 * by every address the name resolves to, then a dial of exactly those
 * addresses. Returns the upstream fd, or -1 with why filled (status gets
 * 403 for a refusal, 502 when the host could not be reached). */
static int decide_and_dial(zeg_proxy *p, const char *proto, const char *host, int port,
                           char *why, size_t cap, int *status) {
  *status = 403;
  zeg_verdict v = zeg_rules_decide(&p->rules, host, port, why, cap);
  if (v == ZEG_UNKNOWN && p->ask && p->ask(p->ask_ud, host, port)) v = ZEG_ALLOW;
  if (v != ZEG_ALLOW) return -1;
  struct sockaddr_storage addrs[ADDRS_MAX];
  size_t n = resolve(p, host, port, addrs, ADDRS_MAX);
  if (n == 0) {
    snprintf(why, cap, "the name does not resolve");
    *status = 502;
    return -1;
  }
  /* Every address must pass: a name that also resolves to an internal one
   * is refused whole, whichever address a client would have picked. */
  for (size_t i = 0; i < n; i++) {
    if (zeg_rules_address_ok(&p->rules, (const struct sockaddr *)&addrs[i])) continue;
    char a[INET6_ADDRSTRLEN];
    addr_text(&addrs[i], a, sizeof a);
    snprintf(why, cap, "it resolves to %s, a private, loopback, link-local or metadata address; "
                       "list that address in the user config's sandbox.allowedDomains to allow it",
             a);
    return -1;
  }
  emit(p, "network_decision", proto, host, port, true, NULL, 0, 0);
  for (size_t i = 0; i < n; i++) {
    int fd = dial_one(p, &addrs[i]);
    if (fd >= 0) return fd;
  }
  snprintf(why, cap, "cannot connect");
  *status = 502;
  return -1;
}

/* ---- HTTP ------------------------------------------------------------------ */

static void http_reply(int fd, int status, const char *text) {
  zbuf r = ZBUF_INIT;
  zeg_h1_refusal(status, text, &r);
  zfs_send_all(fd, r.data, r.len);
  zbuf_release(&r);
}

static void refuse_http(zeg_proxy *p, int fd, const char *proto, const char *host, int port,
                        int status, const char *why) {
  char body[1024];
  if (status == 403) zeg_denial_text(host, port, why, body, sizeof body);
  else snprintf(body, sizeof body, "zero: %s:%d: %s\n", host, port, why);
  http_reply(fd, status, body);
  record_failure(p, proto, host, port, status, why);
}

/* The value of header name in the head (lines after the request line), or
 * NULL; *len gets its length. */
static const char *header_value(const char *head, const char *name, size_t *len) {
  size_t nl = strlen(name);
  for (const char *l = strstr(head, "\r\n"); l && l[2] && !(l[2] == '\r' && l[3] == '\n');
       l = strstr(l + 2, "\r\n")) {
    const char *s = l + 2;
    if (!strncasecmp(s, name, nl) && s[nl] == ':') {
      const char *v = s + nl + 1;
      while (*v == ' ' || *v == '\t') v++;
      const char *e = strstr(v, "\r\n");
      *len = e ? (size_t)(e - v) : strlen(v);
      while (*len && (v[*len - 1] == ' ' || v[*len - 1] == '\t')) (*len)--;
      return v;
    }
  }
  return NULL;
}

static bool hop_header(const char *line) {
  static const char *const hop[] = {"proxy-connection:", "proxy-authorization:", "connection:",
                                    "keep-alive:", NULL};
  for (const char *const *h = hop; *h; h++)
    if (!strncasecmp(line, *h, strlen(*h))) return true;
  return false;
}

/* The request head for the upstream: origin form, hop-by-hop and proxy
 * headers dropped, Connection: close. */
static void origin_head(const char *method, const char *path, const char *head, zbuf *out) {
  zbuf_addf(out, "%s %s HTTP/1.1\r\n", method, path);
  for (const char *l = strstr(head, "\r\n"); l && l[2] && !(l[2] == '\r' && l[3] == '\n');
       l = strstr(l + 2, "\r\n")) {
    const char *s = l + 2;
    const char *e = strstr(s, "\r\n");
    if (!e) break;
    if (!hop_header(s)) zbuf_add(out, s, (size_t)(e - s + 2));
  }
  zbuf_addstr(out, "Connection: close\r\n\r\n");
}

/* Relays until either side closes; head_up: the bytes already written
 * upstream (a rewritten request head, bytes that came with CONNECT), counted
 * as sent. */
static void relay_and_record(zeg_proxy *p, int client, int up, size_t head_up, const char *proto,
                             const char *host, int port) {
  uint64_t sent = 0, recvd = 0;
  zeg_relay(client, up, p->stop[0], &sent, &recvd);
  sent += head_up;
  count(p, true, sent, recvd);
  emit(p, "network_request", proto, host, port, true, NULL, sent, recvd);
}

/* Reads the request head into b (NUL-terminated); *body_off gets where the
 * bytes after it start. -1 when the client sent no complete head. */
static int read_head(zeg_proxy *p, int fd, zbuf *b, size_t *body_off) {
  char chunk[2048];
  while (b->len < HEAD_MAX) {
    int r = read_some(p, fd, chunk, sizeof chunk);
    if (r < 0) return -1;
    zbuf_add(b, chunk, (size_t)r);
    const char *end = strstr(b->data, "\r\n\r\n");
    if (end) {
      *body_off = (size_t)(end - b->data) + 4;
      return memchr(b->data, '\0', b->len) ? -1 : 0;
    }
  }
  return -1;
}

/* A SOCKS5 reply (RFC 1928 section 6) with code, bound address 0.0.0.0:0. */
static int socks_reply(int fd, unsigned char code) {
  unsigned char r[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};
  return zfs_send_all(fd, r, sizeof r);
}

/* The proxy's yes to a tunnel: 200 to a CONNECT, success to SOCKS5. */
static int tunnel_open(int fd, const char *proto) {
  static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
  return !strcmp(proto, "socks5") ? socks_reply(fd, 0) : zfs_send_all(fd, ok, sizeof ok - 1);
}

/* The proxy's no to a tunnel it had decided to allow (the upstream failed
 * TLS verification, the client sent no TLS): 502 to a CONNECT, "connection
 * refused" to SOCKS5. */
static void tunnel_refuse(zeg_proxy *p, int fd, const char *proto, const char *host, int port,
                          const char *why) {
  if (!strcmp(proto, "socks5")) {
    socks_reply(fd, 5); /* connection refused */
    record_failure(p, proto, host, port, 502, why);
  } else {
    refuse_http(p, fd, proto, host, port, 502, why);
  }
}

/* An inspected tunnel (inspect.h): TLS upstream first, verified, then the
 * yes, then the client's TLS and the checked relay. A request that breaks
 * the rules is recorded as a refusal of the host. */
static void serve_inspected(zeg_proxy *p, int fd, int up, const char *proto, const char *host,
                            int port) {
  char why[512];
  SSL *tls = zeg_inspect_connect(p->inspect, up, host, p->stop[0], why, sizeof why);
  if (!tls) {
    tunnel_refuse(p, fd, proto, host, port, why);
    return;
  }
  if (tunnel_open(fd, proto) == 0) {
    zeg_inspect_result r;
    zeg_inspect_relay(p->inspect, tls, fd, host, port, p->stop[0], &r);
    /* protocol "https": a request inside the tunnel, not the tunnel */
    if (r.refused) emit(p, "network_decision", "https", host, port, false, r.why, 0, 0);
    count(p, !r.refused, r.up, r.down);
    emit(p, "network_request", proto, host, port, !r.refused, r.why, r.up, r.down);
  }
  zossl.SSL_free(tls);
}

/* A tunnel to host:port over the connected upstream socket up: relayed as
 * it is, or inspected (early: bytes the client sent with its CONNECT). */
static void serve_tunnel(zeg_proxy *p, int fd, int up, const char *early, size_t n_early,
                         const char *proto, const char *host, int port) {
  if (!p->inspect) {
    if (tunnel_open(fd, proto) == 0 && zfs_send_all(up, early, n_early) == 0)
      relay_and_record(p, fd, up, n_early, proto, host, port);
    return;
  }
  if (n_early) {
    refuse_http(p, fd, proto, host, port, 400,
                "under sandbox.inspectTLS the TLS handshake must follow the proxy's 200");
    return;
  }
  serve_inspected(p, fd, up, proto, host, port);
}

/* Plain HTTP to "http://authority/path": the Host header must name the
 * target; the head is rewritten for the upstream. */
static void serve_absolute(zeg_proxy *p, int fd, const char *method, const char *target,
                           const zbuf *b, size_t body_off) {
  const char *auth = target + strlen("http://");
  size_t alen = strcspn(auth, "/?#");
  const char *path = auth[alen] == '/' ? auth + alen : "/";
  char host[ZEG_HOST_MAX];
  int port;
  if (!zeg_split_authority(auth, alen, false, 80, host, sizeof host, &port)) {
    http_reply(fd, 400, "zero: malformed target in the request line\n");
    return;
  }
  size_t hl;
  const char *hv = header_value(b->data, "Host", &hl);
  char hhost[ZEG_HOST_MAX];
  int hport;
  if (hv && (!zeg_split_authority(hv, hl, false, 80, hhost, sizeof hhost, &hport) ||
             strcmp(hhost, host) != 0 || hport != port)) {
    refuse_http(p, fd, "http", host, port, 403,
                "the Host header names another host than the request's target");
    return;
  }
  char why[512];
  int status;
  int up = decide_and_dial(p, "http", host, port, why, sizeof why, &status);
  if (up < 0) {
    refuse_http(p, fd, "http", host, port, status, why);
    return;
  }
  zbuf out = ZBUF_INIT;
  char *path_copy = xstrndup(path, strcspn(path, " "));
  origin_head(method, path_copy, b->data, &out);
  free(path_copy);
  zbuf_add(&out, b->data + body_off, b->len - body_off);
  if (zfs_send_all(up, out.data, out.len) == 0)
    relay_and_record(p, fd, up, out.len, "http", host, port);
  zbuf_release(&out);
  close(up);
}

static void serve_http(zeg_proxy *p, int fd) {
  zbuf b = ZBUF_INIT;
  size_t body_off = 0;
  if (read_head(p, fd, &b, &body_off) < 0) {
    http_reply(fd, 400, "zero: no complete HTTP request head\n");
    zbuf_release(&b);
    return;
  }
  char method[16], target[2048], version[16];
  size_t line = strcspn(b.data, "\r\n");
  char *l = xstrndup(b.data, line);
  int got = 0;
  char *sp1 = strchr(l, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
  if (sp1 && sp2 && (size_t)(sp1 - l) < sizeof method && (size_t)(sp2 - sp1 - 1) < sizeof target &&
      strlen(sp2 + 1) < sizeof version && !strchr(sp2 + 1, ' ')) {
    snprintf(method, sizeof method, "%.*s", (int)(sp1 - l), l);
    snprintf(target, sizeof target, "%.*s", (int)(sp2 - sp1 - 1), sp1 + 1);
    snprintf(version, sizeof version, "%s", sp2 + 1);
    got = 3;
  }
  free(l);
  if (got != 3 || strncmp(version, "HTTP/1.", 7) != 0) {
    http_reply(fd, 400, "zero: malformed request line (this is an HTTP and SOCKS5 proxy)\n");
  } else if (!strcmp(method, "CONNECT")) {
    char host[ZEG_HOST_MAX];
    int port, status;
    char why[512];
    if (!zeg_split_authority(target, strlen(target), true, 0, host, sizeof host, &port)) {
      http_reply(fd, 400, "zero: CONNECT needs host:port\n");
    } else {
      int up = decide_and_dial(p, "connect", host, port, why, sizeof why, &status);
      if (up < 0) {
        refuse_http(p, fd, "connect", host, port, status, why);
      } else {
        serve_tunnel(p, fd, up, b.data + body_off, b.len - body_off, "connect", host, port);
        close(up);
      }
    }
  } else if (!strncasecmp(target, "http://", 7)) {
    serve_absolute(p, fd, method, target, &b, body_off);
  } else {
    http_reply(fd, 400, "zero: this is a proxy: send CONNECT host:port or an absolute "
                        "http:// URL\n");
  }
  zbuf_release(&b);
}

/* ---- SOCKS5 (RFC 1928) ------------------------------------------------------ */

/* Reads the address of a CONNECT request into host (normalized) and port.
 * 0, or a SOCKS reply code for a malformed one. */
static int socks_target(zeg_proxy *p, int fd, unsigned char atyp, char *host, size_t cap,
                        int *port) {
  unsigned char a[256 + 2];
  size_t alen;
  if (atyp == 1) alen = 4;
  else if (atyp == 4) alen = 16;
  else if (atyp == 3) {
    unsigned char l;
    if (read_full(p, fd, &l, 1) < 0 || l == 0) return 1;
    alen = l;
  } else {
    return 8; /* address type not supported */
  }
  if (read_full(p, fd, a, alen + 2) < 0) return 1;
  *port = a[alen] << 8 | a[alen + 1];
  if (atyp == 3) {
    a[alen] = '\0';
    if (memchr(a, '\0', alen) || !zeg_host_normalize((const char *)a, host, cap)) return 1;
  } else if (!inet_ntop(atyp == 1 ? AF_INET : AF_INET6, a, host, (socklen_t)cap)) {
    return 1;
  }
  return 0;
}

static void serve_socks(zeg_proxy *p, int fd) {
  unsigned char g[2], methods[255];
  if (read_full(p, fd, g, 2) < 0 || g[1] == 0 || read_full(p, fd, methods, g[1]) < 0) return;
  if (!memchr(methods, 0, g[1])) {
    /* Only "no authentication": zero's proxy has no accounts to check. */
    zfs_send_all(fd, (const unsigned char[]){5, 0xff}, 2);
    emit(p, "network_decision", "socks5", "", 0, false,
         "SOCKS5 authentication is not supported", 0, 0);
    count(p, false, 0, 0);
    return;
  }
  unsigned char req[4];
  if (zfs_send_all(fd, (const unsigned char[]){5, 0}, 2) < 0 || read_full(p, fd, req, 4) < 0)
    return;
  if (req[0] != 5 || req[1] != 1) {
    socks_reply(fd, 7); /* only CONNECT */
    return;
  }
  char host[ZEG_HOST_MAX];
  int port;
  int bad = socks_target(p, fd, req[3], host, sizeof host, &port);
  if (bad) {
    socks_reply(fd, (unsigned char)bad);
    return;
  }
  char why[512];
  int status;
  int up = decide_and_dial(p, "socks5", host, port, why, sizeof why, &status);
  if (up < 0) {
    socks_reply(fd, status == 403 ? 2 : 4); /* not allowed by ruleset / host unreachable */
    record_failure(p, "socks5", host, port, status, why);
    return;
  }
  serve_tunnel(p, fd, up, NULL, 0, "socks5", host, port);
  close(up);
}

/* ---- threads ------------------------------------------------------------------ */

/* A forwarder's hand-over (forward.h): the one fd that came with the
 * ZEG_PASS_MARK byte on fd, when it is a connected stream socket; -1
 * otherwise. Extra fds are closed by the kernel (MSG_CTRUNC) or here. */
static int take_passed(int fd) {
  char mark;
  struct iovec iov = {.iov_base = &mark, .iov_len = 1};
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } ctl;
  struct msghdr m = {.msg_iov = &iov,
                     .msg_iovlen = 1,
                     .msg_control = ctl.buf,
                     .msg_controllen = sizeof ctl.buf};
  ssize_t n;
  do n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  struct cmsghdr *c = n == 1 ? CMSG_FIRSTHDR(&m) : NULL;
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
      c->cmsg_len != CMSG_LEN(sizeof(int)))
    return -1;
  int got;
  memcpy(&got, CMSG_DATA(c), sizeof got);
  int type = 0;
  socklen_t tl = sizeof type;
  struct sockaddr_storage peer;
  socklen_t pl = sizeof peer;
  if (getsockopt(got, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || type != SOCK_STREAM ||
      getpeername(got, (struct sockaddr *)&peer, &pl) < 0) {
    close(got); /* a file, a listener, a datagram socket: nothing to proxy */
    return -1;
  }
  return got;
}

static void *conn_main(void *arg) {
  conn *c = arg;
  zeg_proxy *p = c->p;
  /* A peer that leaves while the proxy writes to it is an EPIPE for this
   * connection, never a SIGPIPE that ends zero: splice(2) and libssl's
   * write(2) take no MSG_NOSIGNAL. A blocked SIGPIPE stays pending on this
   * thread and goes with it. */
  sigset_t pipe_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
  unsigned char first;
  bool ready =
      wait_fd(p, c->fd, POLLIN, IO_TIMEOUT_MS) == 1 && recv(c->fd, &first, 1, MSG_PEEK) == 1;
  if (ready && first == (unsigned char)ZEG_PASS_MARK) {
    /* The forwarder handed over its client: serve that socket instead. */
    int client = take_passed(c->fd);
    close(c->fd);
    c->fd = client;
    ready = client >= 0 && wait_fd(p, c->fd, POLLIN, IO_TIMEOUT_MS) == 1 &&
            recv(c->fd, &first, 1, MSG_PEEK) == 1;
  }
  if (ready) {
    if (first == 5) serve_socks(p, c->fd);
    else serve_http(p, c->fd);
  }
  if (c->fd >= 0) close(c->fd);
  free(c);
  pthread_mutex_lock(&p->mu);
  if (--p->live == 0) pthread_cond_broadcast(&p->idle);
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static void start_conn(zeg_proxy *p, int fd) {
  conn *c = xmalloc(sizeof *c);
  c->p = p;
  c->fd = fd;
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&at, CONN_STACK);
  pthread_mutex_lock(&p->mu);
  p->live++;
  p->stats.connections++;
  pthread_mutex_unlock(&p->mu);
  pthread_t t;
  if (pthread_create(&t, &at, conn_main, c) != 0) {
    close(fd);
    free(c);
    pthread_mutex_lock(&p->mu);
    if (--p->live == 0) pthread_cond_broadcast(&p->idle);
    pthread_mutex_unlock(&p->mu);
  }
  pthread_attr_destroy(&at);
}

static void *accept_main(void *arg) {
  zeg_proxy *p = arg;
  for (;;) {
    if (wait_fd(p, p->listen_fd, POLLIN, -1) < 0) break;
    int fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0) start_conn(p, fd);
    else if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED && errno != EMFILE &&
             errno != ENFILE)
      break;
  }
  return NULL;
}

/* ---- life cycle ------------------------------------------------------------------ */

/* The test resolver: "ADDRESS NAME..." lines, '#' comments. */
static void load_hosts(zeg_proxy *p, const char *path) {
  zbuf b = ZBUF_INIT;
  zerr e = ZERR_INIT;
  if (zfs_read_file(path, &b, 1 << 20, &e) < 0) return;
  char *save = NULL;
  for (char *line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    line[strcspn(line, "#")] = '\0';
    char *s2 = NULL;
    char *addr = strtok_r(line, " \t\r", &s2);
    struct sockaddr_storage ss;
    if (!addr || !zeg_parse_ip(addr, &ss)) continue;
    for (char *n = strtok_r(NULL, " \t\r", &s2); n; n = strtok_r(NULL, " \t\r", &s2)) {
      p->hosts = xrealloc(p->hosts, (p->n_hosts + 1) * sizeof *p->hosts);
      host_entry *h = &p->hosts[p->n_hosts];
      if (!zeg_host_normalize(n, h->name, sizeof h->name)) continue;
      h->addr = ss;
      p->n_hosts++;
    }
  }
  zbuf_release(&b);
}

static void copy_list(zeg_list *dst, const zeg_list *src) {
  dst->n = src->n;
  dst->v = src->n ? xmalloc(src->n * sizeof *src->v) : NULL;
  if (src->n) memcpy(dst->v, src->v, src->n * sizeof *src->v);
}

static int listen_unix(const char *path, zerr *err) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof sa.sun_path)
    return zerr_set(err, ZE_CONFIG,
                    "the egress proxy's socket path %s is longer than a Unix socket address "
                    "holds (%zu bytes); set XDG_CACHE_HOME to a shorter directory",
                    path, sizeof sa.sun_path - 1);
  memcpy(sa.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return zerr_errno(err, ZE_IO, "egress proxy: socket");
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) unlink(path);
  if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 128) < 0) {
    zerr_errno(err, ZE_IO, "egress proxy: cannot listen on %s (is the directory writable?)",
               path);
    close(fd);
    return -1;
  }
  return fd;
}

zeg_proxy *zeg_proxy_start(const zeg_proxy_opts *o, zerr *err) {
  int fd = listen_unix(o->socket_path, err);
  if (fd < 0) return NULL;
  zeg_proxy *p = xcalloc(1, sizeof *p);
  p->listen_fd = fd;
  p->socket_path = xstrdup(o->socket_path);
  copy_list(&p->rules.allow, &o->rules->allow);
  copy_list(&p->rules.deny, &o->rules->deny);
  copy_list(&p->rules.narrow, &o->rules->narrow);
  p->rules.narrowed = o->rules->narrowed;
  p->on_event = o->on_event;
  p->ask = o->ask;
  p->ask_ud = o->ask_ud;
  p->ud = o->ud;
  p->inspect = o->inspect;
  if (o->hosts_file && *o->hosts_file) load_hosts(p, o->hosts_file);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->idle, NULL);
  if (pipe2(p->stop, O_CLOEXEC) < 0 || pthread_create(&p->acceptor, NULL, accept_main, p) != 0) {
    zerr_errno(err, ZE_IO, "egress proxy: cannot start its thread");
    p->acceptor = 0;
    zeg_proxy_stop(p);
    return NULL;
  }
  return p;
}

void zeg_proxy_stop(zeg_proxy *p) {
  if (!p) return;
  if (p->stop[1] > 0) {
    close(p->stop[1]); /* every poll on stop[0] wakes */
    p->stop[1] = -1;
  }
  if (p->acceptor) pthread_join(p->acceptor, NULL);
  pthread_mutex_lock(&p->mu);
  while (p->live > 0) pthread_cond_wait(&p->idle, &p->mu);
  pthread_mutex_unlock(&p->mu);
  close(p->listen_fd);
  unlink(p->socket_path);
  if (p->stop[0] > 0) close(p->stop[0]);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->idle);
  zeg_rules_release(&p->rules);
  free(p->hosts);
  free(p->socket_path);
  free(p);
}

void zeg_proxy_get_stats(zeg_proxy *p, zeg_proxy_stats *out) {
  pthread_mutex_lock(&p->mu);
  *out = p->stats;
  pthread_mutex_unlock(&p->mu);
}
