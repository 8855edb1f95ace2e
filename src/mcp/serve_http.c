/* serve_http.c — the MCP Streamable HTTP server transport; see serve_http.h.
 *
 * Locking: one server mutex (srv->mu) guards the session table, every
 * session's streams and every write to a connection that another thread
 * may make (a stream's sink); srv->changed is broadcast whenever a stream
 * finishes, a session ends or the server stops. zmcp_session's own lock is
 * never taken while srv->mu is held.
 */
#include "mcp/serve_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/ids.h"
#include "base/url.h"
#include "mcp/client.h"
#include "net/httpd.h"

#define MAX_STREAMS 16            /* streams a session keeps for resumption */
#define STREAM_LOG_MAX (1u << 20) /* bytes of events kept per stream for replay */
#define KEEPALIVE_S 25            /* a comment on idle standalone streams */
#define THREAD_STACK (1u << 20)

typedef struct sse_event {
  unsigned seq;
  size_t off, len; /* where its bytes are in the stream's log */
} sse_event;

typedef struct conn conn;

/* One SSE response: a POST's answer or the standalone GET stream. */
typedef struct stream {
  unsigned no;
  zbuf log; /* every event's bytes, for Last-Event-ID replay (until STREAM_LOG_MAX) */
  ZVEC(sse_event) events;
  unsigned next_seq;
  conn *sink;    /* the connection its events go to now; NULL when cut */
  bool finished; /* nothing more will come */
  bool log_full; /* replay is no longer possible */
} stream;

typedef struct hsession {
  char id[33];
  zmcp_session *mcp;
  int refs;  /* threads using it */
  bool gone; /* DELETEd or the server stopped */
  time_t last_used;
  ZVEC(stream *) streams;
  unsigned next_stream;
  bool standalone_open;
} hsession;

typedef struct server {
  const zmcp_catalog *cat;
  const zmcp_http_opts *o;
  bool loopback; /* bound to a loopback address: Host is checked */
  size_t max_sessions, max_conns;
  pthread_mutex_t mu;
  pthread_cond_t changed;
  ZVEC(hsession *) sessions;
  ZVEC(conn *) conns;
  bool stopping;
} server;

struct conn {
  server *srv;
  int fd;
  int minor;        /* the current request's HTTP/1.<minor> */
  bool chunked;     /* the response body being written is chunked */
  bool failed;      /* a write failed: the client is gone */
  bool close_after; /* close once this response is done */
};

/* ---- writing ------------------------------------------------------------------- */

static void conn_write(conn *c, const char *data, size_t len) {
  if (!c->failed && zfs_send_all(c->fd, data, len) < 0) c->failed = true;
}

static void head_start(zbuf *h, conn *c, int status) {
  zbuf_addf(h, "HTTP/1.1 %d %s\r\n", status, zhttpd_reason(status));
  if (c->close_after) zbuf_addstr(h, "Connection: close\r\n");
}

/* A whole response with a body of len bytes. extra: more header lines
 * ("Name: value\r\n"…) or NULL. */
static void respond(conn *c, int status, const char *extra, const char *type, const char *body,
                    size_t len) {
  zbuf h = ZBUF_INIT;
  head_start(&h, c, status);
  if (extra) zbuf_addstr(&h, extra);
  if (type) zbuf_addf(&h, "Content-Type: %s\r\n", type);
  zbuf_addf(&h, "Content-Length: %zu\r\n\r\n", len);
  zbuf_add(&h, body, len);
  conn_write(c, h.data, h.len);
  zbuf_release(&h);
}

/* An HTTP error with a JSON-RPC error body (id null), as MCP servers answer
 * transport-level failures. */
static void respond_error(conn *c, int status, int code, const char *msg, const char *extra) {
  zbuf body = ZBUF_INIT;
  zrpc_build_error(&body, NULL, code, msg);
  respond(c, status, extra, "application/json", body.data, body.len);
  zbuf_release(&body);
}

/* Starts an SSE response (chunked on HTTP/1.1, close-delimited on 1.0). */
static void sse_start(conn *c, const char *session_id) {
  zbuf h = ZBUF_INIT;
  c->chunked = c->minor >= 1;
  if (!c->chunked) c->close_after = true;
  head_start(&h, c, 200);
  zbuf_addstr(&h, "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n");
  if (session_id) zbuf_addf(&h, "Mcp-Session-Id: %s\r\n", session_id);
  zbuf_addstr(&h, c->chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "\r\n");
  conn_write(c, h.data, h.len);
  zbuf_release(&h);
}

static void body_part(conn *c, const char *data, size_t len) {
  if (!len) return;
  if (!c->chunked) {
    conn_write(c, data, len);
    return;
  }
  char size[24];
  int n = snprintf(size, sizeof size, "%zx\r\n", len);
  zbuf b = ZBUF_INIT;
  zbuf_add(&b, size, (size_t)n);
  zbuf_add(&b, data, len);
  zbuf_addstr(&b, "\r\n");
  conn_write(c, b.data, b.len);
  zbuf_release(&b);
}

static void body_end(conn *c) {
  if (c->chunked) conn_write(c, "0\r\n\r\n", 5);
  c->chunked = false;
}

/* ---- streams (srv->mu held) ---------------------------------------------------- */

static void stream_free(stream *st) {
  zbuf_release(&st->log);
  free(st->events.items);
  free(st);
}

/* Keeps the newest MAX_STREAMS: the oldest finished, unattached one goes. */
static void streams_trim(hsession *hs) {
  if (hs->streams.len < MAX_STREAMS) return;
  for (size_t i = 0; i < hs->streams.len; i++) {
    stream *old = hs->streams.items[i];
    if (!old->finished || old->sink) continue;
    stream_free(old);
    size_t tail = hs->streams.len - i - 1;
    // NOLINTNEXTLINE(bugprone-sizeof-expression): a vector of pointers
    memmove(&hs->streams.items[i], &hs->streams.items[i + 1], tail * sizeof(stream *));
    hs->streams.len--;
    return;
  }
}

static stream *stream_new(hsession *hs) {
  streams_trim(hs);
  stream *st = xcalloc(1, sizeof *st);
  zbuf_init(&st->log);
  st->no = ++hs->next_stream;
  zvec_push(&hs->streams, st); // NOLINT(bugprone-sizeof-expression): a vector of pointers
  return st;
}

static stream *stream_find(hsession *hs, unsigned no) {
  for (size_t i = 0; i < hs->streams.len; i++)
    if (hs->streams.items[i]->no == no) return hs->streams.items[i];
  return NULL;
}

/* Keeps ev for replay while the log has room (after that the stream can no
 * longer be resumed). */
static void stream_log(stream *st, const zbuf *ev) {
  if (st->log_full || st->log.len + ev->len > STREAM_LOG_MAX) {
    st->log_full = true;
    return;
  }
  sse_event e = {.seq = st->next_seq, .off = st->log.len, .len = ev->len};
  zvec_push(&st->events, e);
  zbuf_add(&st->log, ev->data, ev->len);
}

/* Drops st's replay log (it can no longer be resumed). */
static void stream_forget(stream *st) {
  zbuf_release(&st->log);
  zvec_free(&st->events);
  st->log_full = true;
}

/* Appends an event (data may be "" for the priming event; retry_ms > 0 adds
 * a retry field) to the log and sends it to the sink. */
static void stream_emit(stream *st, const char *data, size_t len, int retry_ms) {
  zbuf ev = ZBUF_INIT;
  zbuf_addf(&ev, "id: %u-%u\n", st->no, st->next_seq);
  if (retry_ms > 0) zbuf_addf(&ev, "retry: %d\n", retry_ms);
  zbuf_addstr(&ev, "data: ");
  zbuf_add(&ev, data, len);
  zbuf_addstr(&ev, "\n\n");
  stream_log(st, &ev);
  st->next_seq++;
  if (st->sink) {
    body_part(st->sink, ev.data, ev.len);
    if (st->sink->failed) st->sink = NULL; /* cut: the client may resume */
  }
  zbuf_release(&ev);
}

/* The priming event (2025-11-25 clients only: older ones may take its
 * empty data for a message). */
static void stream_prime(stream *st, hsession *hs) {
  const char *v = zmcp_session_protocol(hs->mcp);
  if (v && strcmp(v, "2025-11-25") >= 0) stream_emit(st, "", 0, 0);
}

/* ---- sessions ------------------------------------------------------------------- */

static void session_free(hsession *hs) {
  for (size_t i = 0; i < hs->streams.len; i++) stream_free(hs->streams.items[i]);
  free(hs->streams.items);
  zmcp_session_free(hs->mcp);
  free(hs);
}

/* The live session with id, its ref taken; NULL when unknown or ended. */
static hsession *session_get(server *srv, const char *id) {
  hsession *found = NULL;
  pthread_mutex_lock(&srv->mu);
  for (size_t i = 0; id && i < srv->sessions.len; i++)
    if (!strcmp(srv->sessions.items[i]->id, id)) {
      found = srv->sessions.items[i];
      found->refs++;
      found->last_used = time(NULL);
      break;
    }
  pthread_mutex_unlock(&srv->mu);
  return found;
}

static void session_put(server *srv, hsession *hs) {
  pthread_mutex_lock(&srv->mu);
  bool last = --hs->refs == 0 && hs->gone;
  pthread_mutex_unlock(&srv->mu);
  if (last) session_free(hs);
}

/* Takes hs out of the table (srv->mu held); the caller closes its MCP
 * session afterwards, outside the lock. */
static void session_unlink(server *srv, size_t i) {
  hsession *hs = srv->sessions.items[i];
  hs->gone = true;
  srv->sessions.items[i] = srv->sessions.items[--srv->sessions.len];
  pthread_cond_broadcast(&srv->changed);
}

/* Unlinks the longest idle session no thread uses and returns it (to be
 * closed and freed by the caller), or NULL when all are busy. srv->mu held. */
static hsession *session_evict(server *srv) {
  size_t oldest = SIZE_MAX;
  for (size_t i = 0; i < srv->sessions.len; i++) {
    const hsession *s = srv->sessions.items[i];
    if (s->refs) continue;
    if (oldest == SIZE_MAX || s->last_used < srv->sessions.items[oldest]->last_used) oldest = i;
  }
  if (oldest == SIZE_MAX) return NULL;
  hsession *hs = srv->sessions.items[oldest];
  session_unlink(srv, oldest);
  return hs;
}

/* A new session (ref taken), or NULL when the table is full of busy ones. */
static hsession *session_open(server *srv) {
  hsession *hs = xcalloc(1, sizeof *hs), *evicted = NULL;
  unsigned char rnd[16];
  zid_random(rnd, sizeof rnd);
  for (size_t i = 0; i < sizeof rnd; i++) snprintf(hs->id + 2 * i, 3, "%02x", rnd[i]);
  hs->mcp = zmcp_session_new(srv->cat);
  hs->refs = 1;
  hs->last_used = time(NULL);
  pthread_mutex_lock(&srv->mu);
  if (srv->sessions.len >= srv->max_sessions) evicted = session_evict(srv);
  bool room = srv->sessions.len < srv->max_sessions;
  if (room) zvec_push(&srv->sessions, hs); // NOLINT(bugprone-sizeof-expression): pointers
  pthread_mutex_unlock(&srv->mu);
  if (evicted) {
    zmcp_session_close(evicted->mcp);
    session_free(evicted); /* refs was 0 */
  }
  if (!room) {
    session_free(hs);
    return NULL;
  }
  return hs;
}

/* ---- request checks ------------------------------------------------------------- */

static bool host_is_loopback(const char *hostport) {
  char host[256];
  const char *end;
  if (*hostport == '[') {
    hostport++;
    end = strchr(hostport, ']');
    if (!end) return false;
  } else {
    end = strchr(hostport, ':');
    if (!end) end = hostport + strlen(hostport);
  }
  size_t n = (size_t)(end - hostport);
  if (!n || n >= sizeof host) return false;
  memcpy(host, hostport, n);
  host[n] = 0;
  return zurl_host_is_loopback(host);
}

/* DNS rebinding: a page on another site that resolves its name to
 * 127.0.0.1 sends Host and Origin of that site. */
static const char *rebinding_refusal(const server *srv, const zhttpd_req *r) {
  const char *origin = zhttpd_header_get(r, "origin");
  if (origin) {
    bool ok = zurl_is_loopback(origin);
    for (const char *const *a = srv->o->allowed_origins; !ok && a && *a; a++)
      ok = !strcasecmp(*a, origin);
    if (!ok) return "Origin not allowed (start zero serve with --allow-origin to allow it)";
  }
  const char *host = zhttpd_header_get(r, "host");
  if (!host && r->minor >= 1) return "missing Host header";
  if (srv->loopback && host && !host_is_loopback(host))
    return "Host is not a loopback name (DNS rebinding protection)";
  return NULL;
}

static bool token_ok(const server *srv, const zhttpd_req *r) {
  const char *want = srv->o->token;
  if (!want) return true;
  const char *auth = zhttpd_header_get(r, "authorization");
  if (!auth || strncasecmp(auth, "Bearer ", 7) != 0) return false;
  const char *got = auth + 7;
  size_t gl = strlen(got), wl = strlen(want);
  unsigned char diff = (unsigned char)(gl != wl);
  for (size_t i = 0; i < wl; i++) diff |= (unsigned char)(want[i] ^ got[i < gl ? i : 0]);
  return diff == 0;
}

static bool accepts(const char *accept, const char *type) {
  return accept && (zhttpd_list_has(accept, type) || zhttpd_list_has(accept, "*/*"));
}

static bool is_json_type(const char *ct) {
  if (!ct) return false;
  size_t n = strcspn(ct, "; \t");
  return n == 16 && !strncasecmp(ct, "application/json", 16);
}

/* ---- POST ------------------------------------------------------------------------ */

typedef struct post_ctx {
  server *srv;
  hsession *hs;
  conn *c;
  stream *st; /* NULL while the answer can still be plain JSON */
} post_ctx;

/* srv->mu held. */
static void post_upgrade(post_ctx *p) {
  if (p->st) return;
  p->st = stream_new(p->hs);
  p->st->sink = p->c;
  sse_start(p->c, NULL);
  stream_prime(p->st, p->hs);
}

static int post_send(void *ud, const char *json, size_t len) {
  post_ctx *p = ud;
  pthread_mutex_lock(&p->srv->mu);
  post_upgrade(p);
  stream_emit(p->st, json, len, 0);
  pthread_mutex_unlock(&p->srv->mu);
  return 0; /* a cut stream is resumable: not a failure */
}

static void post_detach(void *ud, int retry_ms) {
  post_ctx *p = ud;
  pthread_mutex_lock(&p->srv->mu);
  post_upgrade(p);
  if (p->st->sink == p->c) {
    char retry[48];
    int n = snprintf(retry, sizeof retry, "retry: %d\n\n", retry_ms > 0 ? retry_ms : 1000);
    body_part(p->c, retry, (size_t)n);
    body_end(p->c);
    p->st->sink = NULL;
    /* This thread is busy until the request ends; the client must not wait
     * for it with its next request. */
    p->c->close_after = true;
    shutdown(p->c->fd, SHUT_RDWR);
  }
  pthread_mutex_unlock(&p->srv->mu);
}

static const zmcp_reply_ops POST_OPS = {.send = post_send, .detach = post_detach, .can_ask = true};

static void post_finish(post_ctx *p, const zbuf *out) {
  pthread_mutex_lock(&p->srv->mu);
  if (p->st) {
    stream_emit(p->st, out->data, out->len, 0);
    p->st->finished = true;
    /* The client has the response: nobody will resume this stream, so its
     * replay log goes now rather than when MAX_STREAMS pushes it out. */
    if (p->st->sink) stream_forget(p->st);
    if (p->st->sink && p->st->sink == p->c) {
      body_end(p->c);
      p->st->sink = NULL;
    }
    pthread_cond_broadcast(&p->srv->changed);
  }
  pthread_mutex_unlock(&p->srv->mu);
  if (!p->st) respond(p->c, 200, NULL, "application/json", out->data, out->len);
}

static void handle_initialize(server *srv, conn *c, zrpc_msg *m) {
  hsession *hs = session_open(srv);
  if (!hs) {
    zrpc_msg_release(m);
    respond_error(c, 503, ZRPC_INTERNAL_ERROR, "too many MCP sessions: end one with DELETE", NULL);
    return;
  }
  zbuf out = ZBUF_INIT;
  zmcp_session_handle(hs->mcp, m, NULL, NULL, &out);
  char extra[64];
  snprintf(extra, sizeof extra, "Mcp-Session-Id: %s\r\n", hs->id);
  respond(c, 200, extra, "application/json", out.data, out.len);
  zbuf_release(&out);
  session_put(srv, hs);
}

static void handle_post(server *srv, conn *c, const zhttpd_req *r) {
  if (!is_json_type(zhttpd_header_get(r, "content-type"))) {
    respond_error(c, 415, ZRPC_INVALID_REQUEST, "Content-Type must be application/json", NULL);
    return;
  }
  const char *accept = zhttpd_header_get(r, "accept");
  if (!accepts(accept, "application/json") || !accepts(accept, "text/event-stream")) {
    respond_error(c, 406, ZRPC_INVALID_REQUEST,
                  "Accept must list both application/json and text/event-stream", NULL);
    return;
  }
  json_error_t jerr;
  json_t *root = json_loadb(r->body.data, r->body.len, 0, &jerr);
  if (!root) {
    respond_error(c, 400, ZRPC_PARSE_ERROR, "malformed JSON in the request body", NULL);
    return;
  }
  if (json_is_array(root)) {
    json_decref(root);
    respond_error(c, 400, ZRPC_INVALID_REQUEST,
                  "JSON-RPC batches are not accepted: send one message per POST", NULL);
    return;
  }
  zrpc_msg m;
  zerr err = ZERR_INIT;
  if (zrpc_classify(root, &m, &err) < 0) {
    json_decref(root);
    respond_error(c, 400, ZRPC_INVALID_REQUEST, err.msg, NULL);
    return;
  }
  if (m.kind == ZRPC_REQUEST && !strcmp(m.method, "initialize")) {
    handle_initialize(srv, c, &m);
    return;
  }
  const char *sid = zhttpd_header_get(r, "mcp-session-id");
  hsession *hs = sid ? session_get(srv, sid) : NULL;
  if (!hs) {
    zrpc_msg_release(&m);
    if (sid) respond_error(c, 404, ZRPC_INVALID_REQUEST, "unknown or ended MCP session", NULL);
    else
      respond_error(c, 400, ZRPC_INVALID_REQUEST,
                    "missing Mcp-Session-Id header (send initialize first)", NULL);
    return;
  }
  zbuf out = ZBUF_INIT;
  if (m.kind != ZRPC_REQUEST) {
    zmcp_session_handle(hs->mcp, &m, NULL, NULL, &out);
    respond(c, 202, NULL, NULL, "", 0);
  } else {
    post_ctx p = {.srv = srv, .hs = hs, .c = c};
    zmcp_session_handle(hs->mcp, &m, &POST_OPS, &p, &out);
    post_finish(&p, &out);
  }
  zbuf_release(&out);
  session_put(srv, hs);
}

/* ---- GET --------------------------------------------------------------------------- */

/* Whether the client closed its side (srv->mu may be held: no blocking). */
static bool peer_closed(conn *c) {
  struct pollfd pfd = {.fd = c->fd, .events = POLLIN | POLLRDHUP};
  if (poll(&pfd, 1, 0) <= 0) return false;
  if (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  char b;
  return recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* Holds st's sink (c) until st finishes, the session ends, the server stops
 * or the client goes; srv->mu held. */
static void hold_stream(server *srv, hsession *hs, stream *st, conn *c) {
  time_t last = time(NULL);
  while (!st->finished && !hs->gone && !srv->stopping && st->sink == c && !c->failed) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    pthread_cond_timedwait(&srv->changed, &srv->mu, &until);
    if (peer_closed(c)) break;
    if (time(NULL) - last >= KEEPALIVE_S) {
      body_part(c, ": keepalive\n\n", 13);
      last = time(NULL);
    }
  }
  if (st->sink == c) st->sink = NULL;
}

/* "<stream>-<seq>" of Last-Event-ID; false when it is not one of ours. */
static bool parse_event_id(const char *s, unsigned *no, unsigned *seq) {
  char *end;
  errno = 0;
  unsigned long a = strtoul(s, &end, 10);
  if (end == s || *end != '-' || *s == '-' || *s == '+') return false;
  const char *b_at = end + 1;
  unsigned long b = strtoul(b_at, &end, 10);
  if (end == b_at || *end || *b_at == '-' || *b_at == '+' || errno || a > UINT_MAX || b > UINT_MAX)
    return false;
  *no = (unsigned)a;
  *seq = (unsigned)b;
  return true;
}

/* Why a GET cannot be served (with its status), or NULL: then *st is the
 * stream Last-Event-ID resumes after event *seq, or NULL for the standalone
 * stream. srv->mu held. */
static const char *get_refusal(hsession *hs, const char *last_id, stream **st, unsigned *seq,
                               int *status) {
  unsigned no = 0;
  *status = 409;
  if (!last_id) return hs->standalone_open ? "the session's GET stream is already open" : NULL;
  *st = parse_event_id(last_id, &no, seq) ? stream_find(hs, no) : NULL;
  if (*st && (*st)->sink) return "that stream is already being received";
  *status = 400;
  if (!*st || (*st)->log_full) return "Last-Event-ID names no stream zero keeps";
  return NULL;
}

static void handle_get(server *srv, conn *c, const zhttpd_req *r) {
  if (!accepts(zhttpd_header_get(r, "accept"), "text/event-stream")) {
    respond_error(c, 406, ZRPC_INVALID_REQUEST, "Accept must list text/event-stream", NULL);
    return;
  }
  const char *sid = zhttpd_header_get(r, "mcp-session-id");
  hsession *hs = sid ? session_get(srv, sid) : NULL;
  if (!hs) {
    respond_error(c, sid ? 404 : 400, ZRPC_INVALID_REQUEST,
                  sid ? "unknown or ended MCP session" : "missing Mcp-Session-Id header", NULL);
    return;
  }
  const char *last_id = zhttpd_header_get(r, "last-event-id");
  unsigned seq = 0;
  pthread_mutex_lock(&srv->mu);
  stream *st = NULL;
  int status = 0;
  const char *refusal = get_refusal(hs, last_id, &st, &seq, &status);
  if (refusal) {
    pthread_mutex_unlock(&srv->mu);
    respond_error(c, status, ZRPC_INVALID_REQUEST, refusal, NULL);
    session_put(srv, hs);
    return;
  }
  sse_start(c, NULL);
  bool standalone = !st;
  if (standalone) {
    st = stream_new(hs);
    hs->standalone_open = true;
    st->sink = c;
    stream_prime(st, hs);
  } else {
    for (size_t i = 0; i < st->events.len; i++)
      if (st->events.items[i].seq > seq)
        body_part(c, st->log.data + st->events.items[i].off, st->events.items[i].len);
  }
  if (!st->finished) {
    st->sink = c;
    hold_stream(srv, hs, st, c);
  }
  if (standalone) {
    st->finished = true;
    hs->standalone_open = false;
  }
  if (!c->failed) body_end(c);
  pthread_mutex_unlock(&srv->mu);
  c->close_after = c->close_after || peer_closed(c);
  session_put(srv, hs);
}

/* ---- DELETE and dispatch --------------------------------------------------------------- */

static void handle_delete(server *srv, conn *c, const zhttpd_req *r) {
  const char *sid = zhttpd_header_get(r, "mcp-session-id");
  if (!sid) {
    respond_error(c, 400, ZRPC_INVALID_REQUEST, "missing Mcp-Session-Id header", NULL);
    return;
  }
  hsession *hs = NULL;
  pthread_mutex_lock(&srv->mu);
  for (size_t i = 0; i < srv->sessions.len; i++)
    if (!strcmp(srv->sessions.items[i]->id, sid)) {
      hs = srv->sessions.items[i];
      hs->refs++;
      session_unlink(srv, i);
      break;
    }
  pthread_mutex_unlock(&srv->mu);
  if (!hs) {
    respond_error(c, 404, ZRPC_INVALID_REQUEST, "unknown or ended MCP session", NULL);
    return;
  }
  zmcp_session_close(hs->mcp);
  session_put(srv, hs);
  respond(c, 200, NULL, NULL, "", 0);
}

static void handle_request(server *srv, conn *c, const zhttpd_req *r) {
  c->minor = r->minor;
  c->close_after = !r->keep_alive;
  size_t plen = strcspn(r->target, "?#");
  if (plen != strlen(ZMCP_HTTP_PATH) || strncmp(r->target, ZMCP_HTTP_PATH, plen) != 0) {
    respond(c, 404, NULL, "text/plain", "not found: the MCP endpoint is " ZMCP_HTTP_PATH "\n",
            strlen("not found: the MCP endpoint is " ZMCP_HTTP_PATH "\n"));
    return;
  }
  const char *refusal = rebinding_refusal(srv, r);
  if (refusal) {
    respond_error(c, 403, ZRPC_INVALID_REQUEST, refusal, NULL);
    return;
  }
  if (!token_ok(srv, r)) {
    respond_error(c, 401, ZRPC_INVALID_REQUEST, "missing or wrong bearer token",
                  "WWW-Authenticate: Bearer realm=\"zero\"\r\n");
    return;
  }
  const char *pv = zhttpd_header_get(r, "mcp-protocol-version");
  if (pv && !zmcp_protocol_supported(pv)) {
    char msg[160];
    snprintf(msg, sizeof msg, "unsupported MCP-Protocol-Version \"%.40s\" (zero speaks %s)", pv,
             ZMCP_PROTOCOL_VERSION);
    respond_error(c, 400, ZRPC_INVALID_REQUEST, msg, NULL);
    return;
  }
  if (!strcmp(r->method, "POST")) handle_post(srv, c, r);
  else if (!strcmp(r->method, "GET")) handle_get(srv, c, r);
  else if (!strcmp(r->method, "DELETE")) handle_delete(srv, c, r);
  else
    respond_error(c, 405, ZRPC_INVALID_REQUEST, "method not allowed",
                  "Allow: GET, POST, DELETE\r\n");
}

/* ---- connections ------------------------------------------------------------------- */

static bool stopping(server *srv) { return __atomic_load_n(&srv->stopping, __ATOMIC_RELAXED); }

/* Waits until fd is readable or until the deadline; false on timeout or stop. */
static bool wait_readable(server *srv, int fd, time_t deadline) {
  for (;;) {
    if (stopping(srv) || time(NULL) >= deadline) return false;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int n = poll(&pfd, 1, 500);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

/* Reads one request into p (bytes beyond it stay in buf/have). false when
 * the connection should just close (idle, gone, stop). */
static bool read_request(conn *c, zhttpd_parser *p, char *buf, size_t cap, size_t *have) {
  time_t deadline = time(NULL) + ZMCP_HTTP_IDLE_S;
  bool started = false, continued = false;
  while (p->state != ZHTTPD_DONE && p->state != ZHTTPD_FAILED) {
    if (*have) {
      size_t used = zhttpd_feed(p, buf, *have);
      memmove(buf, buf + used, *have - used);
      *have -= used;
      if (!started && p->head.len) {
        started = true;
        deadline = time(NULL) + ZMCP_HTTP_REQUEST_S;
      }
      if (p->req.expect_continue && !continued && p->state != ZHTTPD_HEAD &&
          p->state != ZHTTPD_DONE && p->state != ZHTTPD_FAILED) {
        conn_write(c, "HTTP/1.1 100 Continue\r\n\r\n", 25);
        continued = true;
      }
      continue;
    }
    if (!wait_readable(c->srv, c->fd, deadline)) {
      if (started) {
        c->close_after = true;
        respond_error(c, 408, ZRPC_INVALID_REQUEST, "request not finished in time", NULL);
      }
      return false;
    }
    ssize_t n = recv(c->fd, buf + *have, cap - *have, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    *have += (size_t)n;
  }
  return true;
}

static void conn_unregister(server *srv, conn *c) {
  pthread_mutex_lock(&srv->mu);
  for (size_t i = 0; i < srv->conns.len; i++)
    if (srv->conns.items[i] == c) {
      srv->conns.items[i] = srv->conns.items[--srv->conns.len];
      break;
    }
  pthread_cond_broadcast(&srv->changed);
  pthread_mutex_unlock(&srv->mu);
}

static void *conn_main(void *arg) {
  conn *c = arg;
  server *srv = c->srv;
  zhttpd_parser p;
  zhttpd_init(&p, 0, 0);
  char buf[16384];
  size_t have = 0;
  while (read_request(c, &p, buf, sizeof buf, &have)) {
    if (p.state == ZHTTPD_FAILED) {
      c->close_after = true;
      respond_error(c, p.error_status, ZRPC_INVALID_REQUEST, p.error, NULL);
      break;
    }
    handle_request(srv, c, &p.req);
    if (c->failed || c->close_after) break;
    zhttpd_reset(&p);
  }
  zhttpd_release(&p);
  close(c->fd);
  conn_unregister(srv, c);
  free(c);
  return NULL;
}

/* ---- listening ----------------------------------------------------------------------- */

bool zmcp_http_parse_listen(const char *s, char *host, size_t host_size, int *port) {
  const char *colon, *h = "127.0.0.1";
  size_t hl = strlen(h);
  if (*s == '[') {
    const char *close = strchr(s, ']');
    if (!close || close[1] != ':') return false;
    h = s + 1;
    hl = (size_t)(close - h);
    colon = close + 1;
  } else if ((colon = strrchr(s, ':'))) {
    if (strchr(s, ':') != colon) return false; /* a bare IPv6 address needs brackets */
    h = s;
    hl = (size_t)(colon - s);
  }
  const char *p = colon ? colon + 1 : s;
  if (!hl || hl >= host_size || !*p || strlen(p) > 5) return false;
  long v = 0;
  for (const char *d = p; *d; d++) {
    if (*d < '0' || *d > '9') return false;
    v = v * 10 + (*d - '0');
  }
  if (v > 65535) return false;
  memcpy(host, h, hl);
  host[hl] = 0;
  *port = (int)v;
  return true;
}

static int listen_on(const zmcp_http_opts *o, char *url, size_t url_size, zerr *err) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC,
                           .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_PASSIVE},
                  *res = NULL;
  char port[8];
  snprintf(port, sizeof port, "%d", o->port);
  int gai = getaddrinfo(o->host, port, &hints, &res);
  if (gai) return zerr_set(err, ZE_USAGE, "cannot resolve \"%s\": %s", o->host, gai_strerror(gai));
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 64) < 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
    errno = e;
    return zerr_errno(err, ZE_IO, "cannot listen on %s:%d", o->host, o->port);
  }
  freeaddrinfo(res);
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t sl = sizeof ss;
  char addr[INET6_ADDRSTRLEN] = "?";
  int bound = o->port;
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
    if (ss.ss_family == AF_INET6) {
      const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
      inet_ntop(AF_INET6, &a->sin6_addr, addr, sizeof addr);
      bound = ntohs(a->sin6_port);
    } else {
      const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
      inet_ntop(AF_INET, &a->sin_addr, addr, sizeof addr);
      bound = ntohs(a->sin_port);
    }
  }
  snprintf(url, url_size, "http://%s%s%s:%d%s", ss.ss_family == AF_INET6 ? "[" : "", addr,
           ss.ss_family == AF_INET6 ? "]" : "", bound, ZMCP_HTTP_PATH);
  return fd;
}

static void accept_one(server *srv, int lfd, pthread_attr_t *attr) {
  int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return;
  struct timeval tv = {.tv_sec = 30};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv); /* a stuck reader cannot stall us */
  conn *c = xcalloc(1, sizeof *c);
  c->srv = srv;
  c->fd = fd;
  c->minor = 1;
  pthread_mutex_lock(&srv->mu);
  bool room = srv->conns.len < srv->max_conns;
  if (room) zvec_push(&srv->conns, c); // NOLINT(bugprone-sizeof-expression): pointers
  pthread_mutex_unlock(&srv->mu);
  pthread_t t;
  if (room && pthread_create(&t, attr, conn_main, c) == 0) return;
  if (room) conn_unregister(srv, c);
  c->close_after = true;
  respond_error(c, 503, ZRPC_INTERNAL_ERROR, "too many connections", NULL);
  close(fd);
  free(c);
}

/* Stop: connections are shut down (their reads end), sessions closed (their
 * asks wake), then every connection thread is waited for. */
static void drain(server *srv) {
  pthread_mutex_lock(&srv->mu);
  __atomic_store_n(&srv->stopping, true, __ATOMIC_RELAXED);
  for (size_t i = 0; i < srv->conns.len; i++) shutdown(srv->conns.items[i]->fd, SHUT_RDWR);
  while (srv->sessions.len) {
    hsession *hs = srv->sessions.items[0];
    session_unlink(srv, 0);
    hs->refs++;
    pthread_mutex_unlock(&srv->mu);
    zmcp_session_close(hs->mcp);
    session_put(srv, hs);
    pthread_mutex_lock(&srv->mu);
  }
  pthread_cond_broadcast(&srv->changed);
  while (srv->conns.len) pthread_cond_wait(&srv->changed, &srv->mu);
  pthread_mutex_unlock(&srv->mu);
}

int zmcp_serve_http(const zmcp_catalog *cat, const zmcp_http_opts *o, zerr *err) {
  bool loopback = zurl_host_is_loopback(o->host) || !strcmp(o->host, "::1");
  if (o->token && strlen(o->token) < ZMCP_HTTP_MIN_TOKEN)
    return zerr_set(err, ZE_USAGE, "the bearer token must be at least %d bytes",
                    ZMCP_HTTP_MIN_TOKEN);
  if (!loopback && !o->token)
    return zerr_set(err, ZE_USAGE,
                    "serving on %s (not loopback) needs a bearer token: set ZERO_SERVE_TOKEN "
                    "or --token-file",
                    o->host);
  char url[128];
  int lfd = listen_on(o, url, sizeof url, err);
  if (lfd < 0) return -1;
  server srv = {.cat = cat,
                .o = o,
                .loopback = loopback,
                .max_sessions = o->max_sessions ? o->max_sessions : 256,
                .max_conns = o->max_conns ? o->max_conns : 128};
  pthread_mutex_init(&srv.mu, NULL);
  pthread_cond_init(&srv.changed, NULL);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, THREAD_STACK);
  if (o->on_listen) o->on_listen(o->ud, url);
  while (!(o->stop && *o->stop)) {
    struct pollfd pfd = {.fd = lfd, .events = POLLIN};
    if (poll(&pfd, 1, 500) > 0) accept_one(&srv, lfd, &attr);
  }
  close(lfd);
  drain(&srv);
  pthread_attr_destroy(&attr);
  free(srv.sessions.items);
  free(srv.conns.items);
  pthread_cond_destroy(&srv.changed);
  pthread_mutex_destroy(&srv.mu);
  return 0;
}
