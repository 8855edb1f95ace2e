/* remote.c — the TLS bridge, `zero daemon serve-remote`; see remote.h. */
#include "daemon/remote.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/time.h"
#include "daemon/client.h"
#include "daemon/frame.h"
#include "daemon/remote_auth.h"
#include "net/tls.h"

#define STOP_WAIT_MS 5000

/* The signal that stops the bridge: a handler can only reach a static. One
 * bridge per process (it is the process's whole job). */
static volatile sig_atomic_t bridge_stop;

static void on_stop_signal(int sig) { bridge_stop = sig; }

typedef struct bridge {
  const zdmn_paths *p;
  const zdmn_bridge_opts *o;
  ztls_ctx *ctx;
  pthread_mutex_t mu;
  int *fds; /* max_conns slots: the accepted sockets of live connections, -1 free */
  int max_conns, handshake_ms;
  atomic_int active;
} bridge;

typedef struct conn_job {
  bridge *b;
  int slot, fd;
  char peer[80];
} conn_job;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
  char ts[ZTIME_RFC3339_LEN];
  ztime_rfc3339_now(ts);
  zbuf line = ZBUF_INIT;
  zbuf_addf(&line, "%s [remote] ", ts);
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(&line, fmt, ap);
  va_end(ap);
  zbuf_addch(&line, '\n');
  fputs(line.data, stderr); /* one call per line: threads do not interleave */
  fflush(stderr);
  zbuf_release(&line);
}

static int listen_on(const char *addr, zerr *err) {
  char *host = NULL, *port = NULL;
  if (zdmn_remote_split_addr(addr, &host, &port, err) < 0) return -1;
  struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res = NULL;
  int g = getaddrinfo(*host ? host : NULL, port, &hints, &res);
  int fd = -1;
  if (g != 0) zerr_set(err, ZE_USAGE, "cannot resolve %s: %s", addr, gai_strerror(g));
  for (struct addrinfo *a = g == 0 ? res : NULL; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    int one = 1;
    if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
                    bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, 64) < 0)) {
      zerr_errno(err, ZE_IO, "cannot listen on %s", addr);
      close(fd);
      fd = -1;
    }
  }
  if (res) freeaddrinfo(res);
  free(host);
  free(port);
  return fd;
}

static void peer_name(const struct sockaddr_storage *ss, socklen_t len, char *out, size_t cap) {
  char h[64] = "?", s[16] = "?";
  getnameinfo((const struct sockaddr *)ss, len, h, sizeof h, s, sizeof s,
              NI_NUMERICHOST | NI_NUMERICSERV);
  snprintf(out, cap, "%s%s%s:%s", ss->ss_family == AF_INET6 ? "[" : "", h,
           ss->ss_family == AF_INET6 ? "]" : "", s);
}

static void reply(ztls_conn *t, bool ok, const char *message, int64_t deadline) {
  json_t *m = ok ? json_pack("{s:b, s:i}", "ok", 1, "version", ZDMN_PROTO_VERSION)
                 : json_pack("{s:b, s:s}", "ok", 0, "message", message);
  (void)zdmn_remote_send(t, m, deadline, NULL); /* a peer gone by now changes nothing */
  json_decref(m);
}

/* Why the token frame req is refused, or NULL. The token is never copied
 * and never logged. */
static const char *judge(const bridge *b, const json_t *req) {
  const char *mode = zjson_str_or(req, "mode", "");
  json_t *tok = json_object_get(req, "token");
  if (zjson_int_or(req, "version", 0) < ZDMN_PROTO_VERSION) return "unsupported protocol version";
  if (!json_is_string(tok) || !zdmn_remote_token_equal(json_string_value(tok), b->o->token))
    return "unauthorized";
  if (*mode && strcmp(mode, "session") != 0) return "unsupported mode";
  return NULL;
}

/* One connection's story: TLS, the token, then the relay to daemon.sock. */
static void serve_conn(bridge *b, conn_job *j) {
  int64_t deadline = ztime_mono_ms() + b->handshake_ms;
  zerr err = ZERR_INIT;
  ztls_conn *t = ztls_accept(b->ctx, j->fd, deadline, &err);
  if (!t) {
    logf_("%s: %s", j->peer, err.msg);
    return;
  }
  json_t *req = zdmn_remote_recv(t, deadline, &err);
  const char *why = req ? judge(b, req) : NULL;
  json_decref(req);
  if (!req) {
    logf_("%s: no token frame: %s", j->peer, err.msg);
  } else if (why) {
    ztime_sleep_ms(ZDMN_REMOTE_FAIL_DELAY_MS, NULL); /* slows guessing */
    reply(t, false, why, deadline);
    logf_("%s: refused: %s", j->peer, why);
  } else {
    int dfd = zdmn_client_dial(b->p, &err);
    if (dfd < 0) {
      reply(t, false, "no zero daemon is running on the bridge's host", deadline);
      logf_("%s: authenticated, but %s", j->peer, err.msg);
    } else {
      reply(t, true, NULL, deadline);
      logf_("%s: authenticated (%s), relaying to %s", j->peer, ztls_version(t), b->p->socket);
      int rc = ztls_relay(t, dfd);
      close(dfd);
      logf_("%s: closed%s", j->peer, rc < 0 ? " (connection error)" : "");
    }
  }
  ztls_close(t);
}

static void *conn_thread(void *ud) {
  conn_job *j = ud;
  bridge *b = j->b;
  serve_conn(b, j); /* closes j->fd (ztls takes it over) */
  pthread_mutex_lock(&b->mu);
  b->fds[j->slot] = -1;
  pthread_mutex_unlock(&b->mu);
  atomic_fetch_sub(&b->active, 1);
  free(j);
  return NULL;
}

/* Hands fd to a thread of its own, or closes it at once when every slot
 * is taken (failing closed: no queue for strangers). */
static void admit(bridge *b, int fd, const char *peer) {
  pthread_mutex_lock(&b->mu);
  int slot = -1;
  for (int i = 0; i < b->max_conns && slot < 0; i++)
    if (b->fds[i] < 0) slot = i;
  if (slot >= 0) b->fds[slot] = fd;
  pthread_mutex_unlock(&b->mu);
  if (slot < 0) {
    logf_("%s: refused: at capacity (%d connections)", peer, b->max_conns);
    close(fd);
    return;
  }
  conn_job *j = xcalloc(1, sizeof *j);
  *j = (conn_job){.b = b, .slot = slot, .fd = fd};
  snprintf(j->peer, sizeof j->peer, "%s", peer);
  atomic_fetch_add(&b->active, 1);
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  /* The threads leave SIGTERM and SIGINT to the accept loop. */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  pthread_t th;
  int e = pthread_create(&th, &at, conn_thread, j);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&at);
  if (e != 0) {
    logf_("%s: refused: cannot start a thread: %s", peer, strerror(e));
    j->fd = -1;
    close(fd);
    pthread_mutex_lock(&b->mu);
    b->fds[slot] = -1;
    pthread_mutex_unlock(&b->mu);
    atomic_fetch_sub(&b->active, 1);
    free(j);
  }
}

/* Ends every live connection (their threads see the socket shut) and
 * waits for the threads, up to STOP_WAIT_MS. A slot may still name a socket
 * its thread has just closed, whose number another connection of this
 * bridge reused: shutting that one is harmless, everything is stopping. */
static void close_all(bridge *b) {
  pthread_mutex_lock(&b->mu);
  for (int i = 0; i < b->max_conns; i++)
    if (b->fds[i] >= 0) shutdown(b->fds[i], SHUT_RDWR);
  pthread_mutex_unlock(&b->mu);
  int64_t until = ztime_mono_ms() + STOP_WAIT_MS;
  while (atomic_load(&b->active) > 0 && ztime_mono_ms() < until) ztime_sleep_ms(10, NULL);
}

static void accept_loop(bridge *b, int lfd) {
  while (!bridge_stop) {
    struct sockaddr_storage ss = {0};
    socklen_t sl = sizeof ss;
    int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EINTR && errno != ECONNABORTED) {
        logf_("accept: %s", strerror(errno)); /* out of descriptors: let some close */
        ztime_sleep_ms(100, NULL);
      }
      continue;
    }
    char peer[80];
    peer_name(&ss, sl, peer, sizeof peer);
    admit(b, fd, peer);
  }
}

static void install_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal; /* no SA_RESTART: accept must return */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

int zdmn_bridge_serve(const zdmn_paths *p, const zdmn_bridge_opts *o, zerr *err) {
  if (!o->token || !*o->token) return zerr_set(err, ZE_CONFIG, "the bridge needs a token");
  ztls_ctx *ctx = ztls_ctx_server(o->cert_file, o->key_file, err);
  if (!ctx) return -1;
  int lfd = listen_on(o->addr, err);
  if (lfd < 0) {
    ztls_ctx_free(ctx);
    return -1;
  }
  bridge b = {.p = p, .o = o, .ctx = ctx};
  b.max_conns = o->max_conns > 0 ? o->max_conns : ZDMN_REMOTE_CONNS_MAX;
  b.handshake_ms = o->handshake_ms > 0 ? o->handshake_ms : ZDMN_REMOTE_HANDSHAKE_MS;
  pthread_mutex_init(&b.mu, NULL);
  b.fds = xmalloc((size_t)b.max_conns * sizeof *b.fds);
  for (int i = 0; i < b.max_conns; i++) b.fds[i] = -1;
  atomic_init(&b.active, 0);
  install_signals();
  if (zdmn_socket_check(p, NULL) < 0)
    logf_("no daemon is running yet (start it with `zero daemon start`): connections are "
          "refused until one is");
  logf_("listening on %s (TLS 1.2+, %d connections at most), relaying to %s", o->addr, b.max_conns,
        p->socket);
  accept_loop(&b, lfd);
  logf_("stopping (signal %d)", (int)bridge_stop);
  close(lfd);
  close_all(&b);
  if (atomic_load(&b.active) == 0) {
    ztls_ctx_free(ctx); /* else a stuck thread still holds it: the process ends anyway */
    pthread_mutex_destroy(&b.mu);
    free(b.fds);
  }
  return 0;
}
