/* remote_client.c — `zero daemon run|attach --remote`: the bridge's client;
 * see remote.h. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/common.h"
#include "base/json.h"
#include "base/time.h"
#include "daemon/client.h"
#include "daemon/frame.h"
#include "daemon/remote.h"
#include "daemon/remote_auth.h"
#include "net/tls.h"

struct zdmn_remote {
  ztls_conn *t;
  int relay_fd; /* our end of the socket pair the relay pumps */
  pthread_t th;
};

/* Waits for a non-blocking connect on fd to finish, up to the deadline. */
static int connect_wait(int fd, int64_t deadline) {
  struct pollfd p = {.fd = fd, .events = POLLOUT};
  for (;;) {
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    int n = poll(&p, 1, (int)left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ETIMEDOUT;
      return -1;
    }
    int e = 0;
    socklen_t el = sizeof e;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0) return -1;
    errno = e;
    return e ? -1 : 0;
  }
}

/* A TCP connection to host:port (each address in turn), or -1 with err. */
static int tcp_dial(const char *addr, const char *host, const char *port, int64_t deadline,
                    zerr *err) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
  struct addrinfo *res = NULL;
  int g = getaddrinfo(host, port, &hints, &res);
  if (g != 0) return zerr_set(err, ZE_IO, "cannot resolve %s: %s", addr, gai_strerror(g));
  int fd = -1;
  for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 &&
        (errno != EINPROGRESS || connect_wait(fd, deadline) < 0)) {
      zerr_errno(err, errno == ETIMEDOUT ? ZE_TIMEOUT : ZE_IO, "cannot connect to %s", addr);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  return fd;
}

/* TLS to the bridge, then the token. The connection, or NULL with err. */
static ztls_conn *dial(const zdmn_remote_opts *o, int64_t deadline, zerr *err) {
  char *host = NULL, *port = NULL;
  if (zdmn_remote_split_addr(o->addr, &host, &port, err) < 0) return NULL;
  ztls_conn *t = NULL;
  ztls_ctx *ctx = NULL;
  if (!*host) {
    zerr_set(err, ZE_USAGE, "--remote %s names no host", o->addr);
  } else if ((ctx = ztls_ctx_client(o->ca_file, err))) {
    int fd = tcp_dial(o->addr, host, port, deadline, err);
    const char *name = o->server_name && *o->server_name ? o->server_name : host;
    t = fd < 0 ? NULL : ztls_connect(ctx, fd, name, deadline, err);
    ztls_ctx_free(ctx); /* the connection keeps its own reference */
  }
  free(host);
  free(port);
  if (!t) return NULL;
  json_t *req = json_pack("{s:s, s:i}", "token", o->token, "version", ZDMN_PROTO_VERSION);
  json_t *resp =
      zdmn_remote_send(t, req, deadline, err) < 0 ? NULL : zdmn_remote_recv(t, deadline, err);
  json_decref(req);
  if (resp && !json_is_true(json_object_get(resp, "ok")))
    zerr_set(err, ZE_CONFIG, "the remote bridge refused: %s",
             zjson_str_or(resp, "message", "no reason given"));
  else if (!resp) zerr_prefix(err, "the remote bridge's answer to the token");
  bool ok = resp && json_is_true(json_object_get(resp, "ok"));
  json_decref(resp);
  if (!ok) {
    ztls_close(t);
    return NULL;
  }
  return t;
}

static void *relay_thread(void *ud) {
  zdmn_remote *r = ud;
  (void)ztls_relay(r->t, r->relay_fd);
  shutdown(r->relay_fd, SHUT_RDWR); /* the reader sees the end */
  return NULL;
}

int zdmn_remote_connect(const zdmn_remote_opts *o, zdmn_remote **out, zerr *err) {
  *out = NULL;
  if (!o->token || !*o->token) return zerr_set(err, ZE_USAGE, "--remote needs a token");
  ztls_conn *t = dial(o, ztime_mono_ms() + ZDMN_REMOTE_DIAL_MS, err);
  if (!t) return -1;
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
    ztls_close(t);
    return zerr_errno(err, ZE_IO, "socketpair");
  }
  zdmn_remote *r = xcalloc(1, sizeof *r);
  r->t = t;
  r->relay_fd = sp[1];
  int e = pthread_create(&r->th, NULL, relay_thread, r);
  if (e != 0) {
    close(sp[0]);
    close(sp[1]);
    ztls_close(t);
    free(r);
    errno = e;
    return zerr_errno(err, ZE_IO, "cannot start the relay thread");
  }
  int fd = zdmn_client_handshake(sp[0], err); /* closes sp[0] when it fails */
  if (fd < 0) {
    zdmn_remote_close(r, -1);
    return -1;
  }
  *out = r;
  return fd;
}

void zdmn_remote_close(zdmn_remote *r, int fd) {
  if (fd >= 0) close(fd);
  if (!r) return;
  /* Our end is closed: the relay reads its end, sees it and returns. */
  pthread_join(r->th, NULL);
  close(r->relay_fd);
  ztls_close(r->t);
  free(r);
}
