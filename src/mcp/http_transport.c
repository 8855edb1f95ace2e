/* http_transport.c — MCP over HTTP: Streamable HTTP (2025-03-26 and later)
 * and the older HTTP+SSE transport (2024-11-05).
 *
 * Streamable HTTP: every message is a POST to the server URL with
 * "Accept: application/json, text/event-stream". A notification or response
 * is answered 202 with no body; a request is answered with one JSON
 * document or an SSE stream of messages that ends with the response
 * (progress notifications and server requests may come first). The
 * Mcp-Session-Id the server gives on the initialize answer is sent on every
 * later request, with MCP-Protocol-Version; DELETE ends the session. After
 * initialization a GET opens a stream for server-initiated messages (405
 * means the server offers none); when the server closes it or the
 * connection drops it is opened again, with Last-Event-ID, after a pause
 * that doubles per empty attempt (bounded: see stream_main).
 *
 * HTTP+SSE: a GET opens the SSE stream; its first "endpoint" event names the
 * URL (relative to the stream's) to POST messages to; every answer arrives
 * as a "message" event on the stream.
 *
 * Long-lived GET streams run on a thread of their own (src/net/http.c does
 * one transfer per call); the thread only parses events and queues message
 * text, which the client's thread takes in pump() and delivers, so all
 * protocol state stays on one thread. The join point is finish_shutdown.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/strvec.h"
#include "base/time.h"
#include "mcp/jsonrpc.h"
#include "oauth/oauth.h"
#include "mcp/transport.h"
#include "net/http.h"
#include "net/sse.h"

typedef ZVEC(char *) str_vec;

/* Reopening the Streamable HTTP event stream: first pause, its cap, and how
 * many attempts in a row may bring nothing before zero gives up on it. */
#define ZMCP_STREAM_FIRST_DELAY_MS 500
#define ZMCP_STREAM_MAX_DELAY_MS 30000
#define ZMCP_STREAM_RETRIES 5

typedef struct http_t {
  zmcp_transport base;
  const zmcp_server_cfg *cfg;
  bool legacy;
  char *session_id;         /* (mu): the stream thread reads it for its headers */
  char *post_url;           /* where messages go */
  bool initialized_sent;
  /* Background GET stream. */
  pthread_t thread;
  bool thread_started;
  int wake[2];              /* stream thread → client thread: something queued */
  int stop[2];              /* client thread → stream thread: stop */
  pthread_mutex_t mu;
  str_vec queue;            /* message texts from the stream (mu) */
  char *endpoint;           /* legacy: from the "endpoint" event (mu) */
  bool stream_done;         /* the stream ended (mu) */
  bool stream_answered;     /* the first GET of the stream got its status line or ended (mu) */
  pthread_cond_t answered_cv; /* signalled when stream_answered becomes true */
  char *stream_error;       /* why (mu) */
  char *bearer;             /* OAuth access token (mu), NULL = none */
  int64_t bearer_refresh;   /* when to refresh it, unix seconds; 0 = never */
  /* The POST being answered. */
  char *resp_type;
  char *www_auth;
  zbuf body;
  bool body_too_large;
  zsse_parser sse;
  bool sse_init;
  int deliver_rc;
  bool in_post;             /* a POST's reply is being read (send() may nest) */
  bool resuming;            /* a GET resumes a reply: end it once an answer is in */
  unsigned resume_before;   /* base.responses when that request went out */
} http_t;

/* ---- shared helpers ------------------------------------------------------- */

static bool header_is(const char *line, size_t n, const char *name, const char **value,
                      size_t *vlen) {
  size_t l = strlen(name);
  if (n <= l || line[l] != ':' || strncasecmp(line, name, l) != 0) return false;
  const char *s = line + l + 1, *e = line + n;
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  while (e > s && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ')) e--;
  *value = s;
  *vlen = (size_t)(e - s);
  return true;
}

/* The request headers: ours, then the configured ones; last_event_id (may be
 * NULL) resumes an event stream. Caller frees with strvec_free_array. */
static char **build_headers_resume(http_t *h, bool post, bool sse_only,
                                   const char *last_event_id) {
  strvec v = STRVEC_INIT;
  if (post) strvec_push(&v, "Content-Type: application/json");
  strvec_push(&v, sse_only ? "Accept: text/event-stream"
                           : "Accept: application/json, text/event-stream");
  if (h->base.protocol_version && !h->legacy)
    strvec_pushf(&v, "MCP-Protocol-Version: %s", h->base.protocol_version);
  pthread_mutex_lock(&h->mu);
  if (h->session_id) strvec_pushf(&v, "Mcp-Session-Id: %s", h->session_id);
  if (h->bearer) strvec_pushf(&v, "Authorization: Bearer %s", h->bearer);
  pthread_mutex_unlock(&h->mu);
  if (last_event_id && *last_event_id) strvec_pushf(&v, "Last-Event-ID: %s", last_event_id);
  strvec_pushv(&v, h->cfg->headers);
  return strvec_detach(&v);
}

static char **build_headers(http_t *h, bool post, bool sse_only) {
  return build_headers_resume(h, post, sse_only, NULL);
}

/* true when the config sets an Authorization header itself. */
static bool own_authorization(const zmcp_server_cfg *cfg) {
  for (char **p = cfg->headers; p && *p; p++)
    if (!strncasecmp(*p, "Authorization:", 14)) return true;
  return false;
}

/* Loads (refreshing when due) the OAuth token for the server. */
static int load_bearer(http_t *h, zerr *err) {
  if (h->cfg->auth == ZMCP_AUTH_NONE || own_authorization(h->cfg)) return 0;
  char *tok = NULL;
  int64_t exp = 0;
  if (zoauth_bearer(h->cfg, &tok, &exp, err) < 0) return -1;
  if (!tok && h->cfg->auth == ZMCP_AUTH_OAUTH)
    return zerr_set(err, ZE_CONFIG,
                    "MCP server \"%s\" needs an OAuth login (\"auth\": \"oauth\"); run `zero mcp "
                    "login %s` once, then rerun",
                    h->cfg->name, h->cfg->name);
  pthread_mutex_lock(&h->mu);
  free(h->bearer);
  h->bearer = tok;
  h->bearer_refresh = exp;
  pthread_mutex_unlock(&h->mu);
  return 0;
}

/* Refreshes the token shortly before it expires. */
static int bearer_due(http_t *h, zerr *err) {
  if (!h->bearer || !h->bearer_refresh) return 0;
  if (h->bearer_refresh > (int64_t)time(NULL)) return 0;
  return load_bearer(h, err);
}

static void wake_client(http_t *h) {
  char c = 1;
  ssize_t w = write(h->wake[1], &c, 1);
  (void)w;
}

/* ---- the background stream ------------------------------------------------ */

typedef struct stream_ctx {
  http_t *h;
  zsse_parser sse;
} stream_ctx;

/* Resolves the legacy "endpoint" event (absolute, or relative to the stream URL). */
static char *resolve_endpoint(const char *base, const char *ref) {
  CURLU *u = curl_url();
  char *out = NULL;
  if (u && curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
      curl_url_set(u, CURLUPART_URL, ref, 0) == CURLUE_OK) {
    char *s = NULL;
    if (curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK) out = xstrdup(s);
    curl_free(s);
  }
  if (u) curl_url_cleanup(u);
  return out;
}

static int stream_on_event(void *ud, const zsse_event *ev) {
  stream_ctx *sc = ud;
  http_t *h = sc->h;
  pthread_mutex_lock(&h->mu);
  if (!strcmp(ev->event, "endpoint")) {
    if (h->legacy && !h->endpoint) h->endpoint = resolve_endpoint(h->cfg->url, ev->data);
  } else if (!strcmp(ev->event, "message") && ev->data_len) {
    zvec_push(&h->queue, xstrndup(ev->data, ev->data_len));
  }
  pthread_mutex_unlock(&h->mu);
  wake_client(h);
  return 0;
}

static int stream_on_body(void *ud, const char *data, size_t len) {
  stream_ctx *sc = ud;
  zerr err = ZERR_INIT;
  int rc = zsse_feed(&sc->sse, data, len, &err);
  if (rc < 0) {
    pthread_mutex_lock(&sc->h->mu);
    free(sc->h->stream_error);
    sc->h->stream_error = xstrdup(err.msg);
    pthread_mutex_unlock(&sc->h->mu);
    return 1;
  }
  return 0;
}

/* Why one GET of the event stream ended, as the reconnect logic sees it. */
typedef enum stream_end {
  STREAM_STOPPED,   /* we stopped it (shutdown, new session, Ctrl-C) */
  STREAM_FINAL,     /* no point trying again (405, 4xx/5xx, bad events, legacy) */
  STREAM_RETRY,     /* closed by the server or the connection dropped */
} stream_end;

/* Marks the stream as answered: the server has seen the GET (see
 * wait_stream_answered). */
static void mark_stream_answered(http_t *h) {
  pthread_mutex_lock(&h->mu);
  h->stream_answered = true;
  pthread_cond_broadcast(&h->answered_cv);
  pthread_mutex_unlock(&h->mu);
}

static void stream_on_header(void *ud, const char *line, size_t n) {
  stream_ctx *sc = ud;
  if (n >= 5 && !memcmp(line, "HTTP/", 5)) mark_stream_answered(sc->h);
}

/* One GET of the stream; last_id (thread-owned) is sent as Last-Event-ID and
 * updated from the events received. *events: how many arrived. */
static stream_end stream_once(http_t *h, char **last_id, size_t *events, long *retry_ms,
                              char **why) {
  stream_ctx sc = {.h = h};
  zsse_init(&sc.sse, stream_on_event, &sc, ZRPC_MAX_MESSAGE);
  char **headers = build_headers_resume(h, false, true, h->legacy ? NULL : *last_id);
  zhttp_request req = {.method = "GET",
                       .url = h->cfg->url,
                       .headers = (const char *const *)headers,
                       .idle_timeout_ms = 24L * 3600 * 1000,
                       .stop_fd = h->stop[0],
                       .on_header = stream_on_header,
                       .header_ud = &sc};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  zerr err = ZERR_INIT;
  int rc = zhttp_perform(&req, &resp, stream_on_body, &sc, &err);
  mark_stream_answered(h); /* also when it failed before any status line */
  *events = sc.sse.events;
  if (sc.sse.retry_ms >= 0) *retry_ms = sc.sse.retry_ms;
  /* The spec's last event id: kept across events (and a cut-off one). */
  if (sc.sse.last_id.len) {
    free(*last_id);
    *last_id = xstrndup(sc.sse.last_id.data, sc.sse.last_id.len);
  }
  stream_end end = STREAM_RETRY;
  pthread_mutex_lock(&h->mu);
  bool bad_events = h->stream_error != NULL;
  pthread_mutex_unlock(&h->mu);
  if (bad_events) {
    end = STREAM_FINAL;
  } else if (rc < 0 && err.kind == ZE_CANCELLED) {
    end = STREAM_STOPPED;
  } else if (rc < 0) {
    *why = xstrdup(err.msg);
    end = h->legacy ? STREAM_FINAL : STREAM_RETRY;
  } else if (resp.status == 405) {
    end = STREAM_FINAL; /* the server offers no event stream */
  } else if (resp.status >= 500 && !h->legacy) {
    zbuf b = ZBUF_INIT;
    zbuf_addf(&b, "the server answered HTTP %ld to the request for its event stream", resp.status);
    *why = zbuf_detach(&b, NULL);
    end = STREAM_RETRY; /* overloaded or restarting: worth another try */
  } else if (resp.status >= 400) {
    *why = xstrdup(resp.status == 401 || resp.status == 403
                       ? (own_authorization(h->cfg) || h->cfg->auth == ZMCP_AUTH_NONE
                              ? "the server requires authorization for its event stream; check "
                                "the \"Authorization\" header in the config"
                              : "the server requires authorization for its event stream; run "
                                "`zero mcp login` for it")
                       : "the server refused to open its event stream");
    end = STREAM_FINAL;
  } else if (h->legacy) {
    /* HTTP+SSE: the stream carries the answers; a new one would be a new
     * endpoint, i.e. a new session. */
    *why = xstrdup("the server closed its event stream");
    end = STREAM_FINAL;
  } else {
    *why = xstrdup("the server closed its event stream");
  }
  zhttp_response_release(&resp);
  zsse_release(&sc.sse);
  strvec_free_array(headers);
  return end;
}

/* Waits ms unless fd (and cancel_fd, when >= 0) becomes readable first;
 * true when it did. */
static bool pause_unless(int fd, int cancel_fd, int ms) {
  struct pollfd p[2] = {{fd, POLLIN, 0}, {cancel_fd, POLLIN, 0}};
  nfds_t n = cancel_fd >= 0 ? 2 : 1;
  int64_t until = ztime_mono_ms() + ms;
  for (;;) {
    int64_t left = until - ztime_mono_ms();
    if (left <= 0) return false;
    int r = poll(p, n, (int)left);
    if (r > 0) return true;  /* left readable: whoever owns it drains it */
    if (r < 0 && errno != EINTR) return false;
  }
}

/* The first pause before reopening a stream: the server's "retry:" when it
 * gave one, else ZMCP_STREAM_FIRST_DELAY_MS (ZERO_MCP_STREAM_RETRY_MS in
 * tests). */
static int first_pause(long server_retry_ms) {
  if (server_retry_ms >= 0)
    return server_retry_ms > ZMCP_STREAM_MAX_DELAY_MS ? ZMCP_STREAM_MAX_DELAY_MS
                                                      : (int)server_retry_ms;
  const char *env = getenv("ZERO_MCP_STREAM_RETRY_MS");
  char *end = NULL;
  long ms = env && *env ? strtol(env, &end, 10) : 0;
  if (end && *end) ms = 0;  /* not a number: the default */
  if (ms > ZMCP_STREAM_MAX_DELAY_MS) ms = ZMCP_STREAM_MAX_DELAY_MS;
  return ms > 0 ? (int)ms : ZMCP_STREAM_FIRST_DELAY_MS;
}

static int next_pause(int delay) {
  return delay >= ZMCP_STREAM_MAX_DELAY_MS / 2 ? ZMCP_STREAM_MAX_DELAY_MS : delay * 2;
}

/* Streamable HTTP: a stream the server closes (servers may close it at any
 * time, expecting the client to come back) or a dropped connection is opened
 * again with Last-Event-ID, so the server can replay what was missed, after
 * the server's "retry:" time (else 500 ms), doubled per attempt that brings
 * nothing (at most 30 s). A connection that brought events resets the count;
 * ZMCP_STREAM_RETRIES attempts in a row without any end it. */
static void *stream_main(void *arg) {
  http_t *h = arg;
  char *last_id = NULL, *why = NULL;
  long server_retry = -1;
  int failures = 0, delay = first_pause(-1);
  for (;;) {
    size_t events = 0;
    free(why);
    why = NULL;
    stream_end end = stream_once(h, &last_id, &events, &server_retry, &why);
    if (end != STREAM_RETRY) break;
    if (events) {
      failures = 0;
      delay = first_pause(server_retry);
    } else if (++failures > ZMCP_STREAM_RETRIES) {
      zbuf msg = ZBUF_INIT;
      zbuf_addf(&msg, "%s; %d attempts to reopen it failed", why ? why : "the event stream ended",
                ZMCP_STREAM_RETRIES);
      free(why);
      why = zbuf_detach(&msg, NULL);
      break;
    }
    if (pause_unless(h->stop[0], -1, delay)) {
      free(why);
      why = NULL;
      break;
    }
    if (!events) delay = next_pause(delay);
  }
  pthread_mutex_lock(&h->mu);
  h->stream_done = true;
  if (!h->stream_error && why) h->stream_error = why;
  else free(why);
  pthread_mutex_unlock(&h->mu);
  wake_client(h);
  free(last_id);
  return NULL;
}

/* How long the first request after initialization waits for the event
 * stream's GET to be answered. */
#define ZMCP_STREAM_OPEN_WAIT_MS 5000

/* Waits (at most ZMCP_STREAM_OPEN_WAIT_MS; servers send the headers of an
 * event stream at once, so this is one round trip) until the server has
 * answered the event stream's first GET. Requests sent before that would race it: a
 * server routing an answer to "the GET stream" (the conformance suite's
 * sse-retry scenario does) would see the GET arrive in the middle of the
 * exchange and take it for a reconnection. The TypeScript SDK issues the GET
 * before any later request too. */
static void wait_stream_answered(http_t *h) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += ZMCP_STREAM_OPEN_WAIT_MS / 1000;
  pthread_mutex_lock(&h->mu);
  while (!h->stream_answered && !h->stream_done)
    if (pthread_cond_timedwait(&h->answered_cv, &h->mu, &until) != 0) break;
  pthread_mutex_unlock(&h->mu);
}

static int start_stream(http_t *h, zerr *err) {
  if (h->thread_started) return 0;
  if (pthread_create(&h->thread, NULL, stream_main, h) != 0)
    return zerr_set(err, ZE_INTERNAL, "MCP server \"%s\": cannot start the event-stream thread",
                    h->cfg->name);
  h->thread_started = true;
  return 0;
}

/* ---- transport ops ----------------------------------------------------------- */

static int http_start(zmcp_transport *t, zerr *err) {
  http_t *h = (http_t *)t;
  if (!h->cfg->url || !h->cfg->url[0])
    return zerr_set(err, ZE_CONFIG, "MCP server \"%s\" has no \"url\"; set it in %s",
                    h->cfg->name, h->cfg->origin ? h->cfg->origin : "the config");
  if (pipe2(h->wake, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(h->stop, O_CLOEXEC | O_NONBLOCK) < 0)
    return zerr_errno(err, ZE_IO, "MCP server \"%s\": cannot create pipes", h->cfg->name);
  if (load_bearer(h, err) < 0) return -1;
  if (!h->legacy) {
    h->post_url = xstrdup(h->cfg->url);
    return 0;
  }
  /* HTTP+SSE: open the stream and wait for the endpoint event. */
  if (start_stream(h, err) < 0) return -1;
  int ms = h->cfg->startup_timeout_ms > 0 ? h->cfg->startup_timeout_ms : 30000;
  int64_t deadline = ztime_mono_ms() + ms;
  for (;;) {
    pthread_mutex_lock(&h->mu);
    char *ep = h->endpoint ? xstrdup(h->endpoint) : NULL;
    bool done = h->stream_done;
    char *why = h->stream_error ? xstrdup(h->stream_error) : NULL;
    pthread_mutex_unlock(&h->mu);
    if (ep) {
      h->post_url = ep;
      free(why);
      return 0;
    }
    if (done) {
      zerr_set(err, ZE_PROVIDER, "MCP server \"%s\" (%s): %s", h->cfg->name, h->cfg->url,
               why ? why : "the event stream ended before naming its message endpoint");
      free(why);
      return -1;
    }
    int64_t left = deadline - ztime_mono_ms();
    if (left <= 0)
      return zerr_set(err, ZE_TIMEOUT,
                      "MCP server \"%s\" (%s) sent no \"endpoint\" event within %d ms; is it "
                      "an HTTP+SSE server? (type \"http\" is Streamable HTTP)",
                      h->cfg->name, h->cfg->url, ms);
    if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "cancelled");
    struct pollfd p = {h->wake[0], POLLIN, 0};
    poll(&p, 1, left > 200 ? 200 : (int)left);
    char drain[64];
    while (read(h->wake[0], drain, sizeof drain) > 0) {
    }
  }
}

static void post_on_header(void *ud, const char *line, size_t n) {
  http_t *h = ud;
  const char *v;
  size_t vl;
  if (n >= 5 && !memcmp(line, "HTTP/", 5)) {
    free(h->resp_type);
    h->resp_type = NULL;
  } else if (header_is(line, n, "Mcp-Session-Id", &v, &vl)) {
    /* Servers repeat it on every response; the stream thread may be reading
     * it for its own request's headers. */
    pthread_mutex_lock(&h->mu);
    if (vl && !(h->session_id && strlen(h->session_id) == vl && !memcmp(h->session_id, v, vl))) {
      free(h->session_id);
      h->session_id = xstrndup(v, vl);
    }
    pthread_mutex_unlock(&h->mu);
  } else if (header_is(line, n, "Content-Type", &v, &vl)) {
    free(h->resp_type);
    h->resp_type = xstrndup(v, vl);
  } else if (header_is(line, n, "WWW-Authenticate", &v, &vl)) {
    free(h->www_auth);
    h->www_auth = xstrndup(v, vl);
  }
}

static int post_on_event(void *ud, const zsse_event *ev) {
  http_t *h = ud;
  if (strcmp(ev->event, "message") != 0 || !ev->data_len) return 0;
  int rc = h->base.deliver(h->base.deliver_ud, ev->data, ev->data_len);
  if (rc) h->deliver_rc = rc;
  return rc;
}

static bool is_sse(const char *type) {
  return type && !strncasecmp(type, "text/event-stream", 17);
}

static int post_on_body(void *ud, const char *data, size_t len) {
  http_t *h = ud;
  if (is_sse(h->resp_type)) {
    if (!h->sse_init) {
      zsse_init(&h->sse, post_on_event, h, ZRPC_MAX_MESSAGE);
      h->sse_init = true;
    }
    zerr err = ZERR_INIT;
    int rc = zsse_feed(&h->sse, data, len, &err);
    if (rc < 0) {
      h->body_too_large = err.kind == ZE_TOO_LARGE;
      if (!h->deliver_rc) h->deliver_rc = -1;
    }
    if (h->resuming && h->base.responses != h->resume_before) return 1;
    return rc ? 1 : 0;
  }
  if (h->body.len + len > ZRPC_MAX_MESSAGE) {
    h->body_too_large = true;
    return 1;
  }
  zbuf_add(&h->body, data, len);
  return 0;
}

/* A message sent while another POST's reply is still streaming: the server
 * asked something (ping, roots/list, …) in the middle of answering a request
 * and waits for our answer before it finishes. It goes out on a connection
 * of its own, and its reply (202, no body) touches none of the outer POST's
 * state. */
static int nested_send(http_t *h, const char *msg, size_t len, zerr *err) {
  char **headers = build_headers(h, true, false);
  zhttp_request req = {.method = "POST", .url = h->post_url,
                       .headers = (const char *const *)headers, .body = msg, .body_len = len,
                       .total_timeout_ms = 10000, .ignore_cancel = true};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  int rc = zhttp_perform(&req, &resp, NULL, NULL, err);
  if (rc < 0)
    zerr_prefix(err, "MCP server \"%s\"", h->cfg->name);
  else if (resp.status >= 300)
    rc = zerr_set(err, ZE_PROVIDER, "MCP server \"%s\" (%s) answered HTTP %ld to our reply: %.300s",
                  h->cfg->name, h->cfg->url, resp.status,
                  resp.error_body.len ? resp.error_body.data : "(no body)");
  zhttp_response_release(&resp);
  strvec_free_array(headers);
  return rc;
}

static void end_stream(http_t *h);

static int drain_queue(http_t *h, zerr *err);

/* Waits ms before a resumption GET, taking in what the event-stream thread
 * queued meanwhile: the answer may come there rather than on the resumed
 * reply (a server routes it to whichever stream it likes). Returns 1 when
 * the answer (or an invalid message) arrived, 0 when the pause ran out, -1
 * with err when the user cancelled or the transport is stopping. */
static int pause_for_answer(http_t *h, unsigned before, int ms, zerr *err) {
  int64_t until = ztime_mono_ms() + ms;
  for (;;) {
    if (h->base.responses != before) return 1;
    int64_t left = until - ztime_mono_ms();
    if (left <= 0) return 0;
    struct pollfd p[3] = {{h->wake[0], POLLIN, 0},
                          {h->stop[0], POLLIN, 0},
                          {zcancel_fd(), POLLIN, 0}};
    nfds_t n = zcancel_fd() >= 0 ? 3 : 2;
    int r = poll(p, n, (int)left);
    if (r < 0 && errno != EINTR) return 0;
    if (r <= 0) continue;
    if (p[1].revents || (n == 3 && p[2].revents && zcancel_requested()))
      return zerr_set(err, ZE_CANCELLED, "cancelled");
    if (p[0].revents && drain_queue(h, err) < 0) return 1; /* invalid: the caller reports it */
  }
}

/* The server ended its SSE reply to a request before the answer, after
 * giving its events ids: it expects the client to resume that stream (MCP
 * 2025-11-25, SEP-1699: a server may close a reply early, e.g. to have
 * clients poll, and the client reconnects with GET and Last-Event-ID after
 * the stream's "retry:" time). GETs with the last id until the answer comes,
 * pausing as stream_main does (the first pause too: reconnecting sooner than
 * the server asked is what the spec forbids); the events go through
 * post_on_event like the reply's own, and a GET ends as soon as the answer
 * is in (the server may keep that stream open for later messages). An answer
 * the event-stream thread receives meanwhile counts as well. Returns 0 when
 * the answer (or an invalid message the caller reports) came. */
static int resume_reply(http_t *h, char **last_id, unsigned before, int timeout_ms, long retry,
                        zerr *err) {
  int failures = 0, delay = first_pause(retry);
  for (;;) {
    int waited = pause_for_answer(h, before, delay, err);
    if (waited < 0) return -1;
    if (waited > 0 || h->deliver_rc) return 0;
    char **headers = build_headers_resume(h, false, true, *last_id);
    zhttp_request req = {.method = "GET", .url = h->post_url,
                         .headers = (const char *const *)headers,
                         .idle_timeout_ms = timeout_ms > 0 ? timeout_ms : 300000,
                         .on_header = post_on_header, .header_ud = h};
    zhttp_response resp = ZHTTP_RESPONSE_INIT;
    free(h->resp_type);
    h->resp_type = NULL;
    h->sse_init = false;
    h->resume_before = before;
    h->resuming = true;
    int rc = zhttp_perform(&req, &resp, post_on_body, h, err);
    h->resuming = false;
    size_t events = 0;
    if (h->sse_init) {
      zsse_finish(&h->sse);
      events = h->sse.events;
      if (h->sse.retry_ms >= 0) retry = h->sse.retry_ms;
      if (h->sse.last_id.len) {
        free(*last_id);
        *last_id = xstrndup(h->sse.last_id.data, h->sse.last_id.len);
      }
      zsse_release(&h->sse);
      h->sse_init = false;
    }
    strvec_free_array(headers);
    long status = resp.status;
    zhttp_response_release(&resp);
    if (h->base.responses != before || h->deliver_rc || h->body_too_large) {
      *err = (zerr)ZERR_INIT; /* a GET we ended ourselves once the answer was in */
      return 0;
    }
    if (rc < 0 && err->kind == ZE_CANCELLED) return -1;
    if (rc == 0 && status >= 400 && status < 500)
      return zerr_set(err, ZE_PROVIDER,
                      "MCP server \"%s\" (%s) closed its reply before the answer and refused "
                      "to resume it (HTTP %ld to a GET with Last-Event-ID)",
                      h->cfg->name, h->cfg->url, status);
    if (events) {
      failures = 0;
      delay = first_pause(retry);
    } else if (++failures > ZMCP_STREAM_RETRIES) {
      return zerr_set(err, ZE_PROVIDER,
                      "MCP server \"%s\" (%s) closed its reply before the answer, and %d "
                      "attempts to resume it with Last-Event-ID brought nothing",
                      h->cfg->name, h->cfg->url, ZMCP_STREAM_RETRIES);
    } else {
      delay = next_pause(delay);
    }
  }
}

/* The last reply was a 403 whose challenge says error="insufficient_scope"
 * (MCP scope step-up): the scopes it names are remembered for the next
 * login (oauth/oauth.h zoauth_remember_step_up). */
static bool step_up_needed(http_t *h) {
  cleanup_free char *error = zoauth_challenge_param(h->www_auth, "error");
  if (!error || strcmp(error, "insufficient_scope") != 0) return false;
  cleanup_free char *scope = zoauth_challenge_param(h->www_auth, "scope");
  zerr ignore = ZERR_INIT;
  if (scope) (void)zoauth_remember_step_up(h->cfg->name, scope, &ignore);
  return true;
}

/* While a request waits for its reply, what the event stream brings is
 * taken in: a server may ask something there (elicitation, sampling, …) and
 * answer the request only once it has our answer. */
static void post_on_wake(void *ud) {
  http_t *h = ud;
  zerr ignore = ZERR_INIT;
  if (drain_queue(h, &ignore) < 0 && !h->deliver_rc) h->deliver_rc = -1;
}

static int http_send(zmcp_transport *t, const char *msg, size_t len, int timeout_ms, zerr *err) {
  http_t *h = (http_t *)t;
  if (h->in_post) return nested_send(h, msg, len, err);
  bool is_init_notice = strstr(msg, "\"notifications/initialized\"") != NULL;
  /* Sent after the user cancelled: it must go out all the same, quickly. */
  bool farewell = strstr(msg, "\"notifications/cancelled\"") != NULL;
  /* A request (not a notification or an answer): its reply may be resumed. */
  bool is_request = strstr(msg, "\"method\"") && strstr(msg, "\"id\"");
  unsigned responses_before = h->base.responses;
  if (bearer_due(h, err) < 0) return -1;
  char **headers = build_headers(h, true, false);
  zhttp_request req = {.method = "POST",
                       .url = h->post_url,
                       .headers = (const char *const *)headers,
                       .body = msg,
                       .body_len = len,
                       .idle_timeout_ms = timeout_ms > 0 ? timeout_ms : 300000,
                       .total_timeout_ms = farewell ? 2000 : 0,
                       .ignore_cancel = farewell,
                       .on_header = post_on_header,
                       .header_ud = h,
                       .wake_fd = h->thread_started ? h->wake[0] : -1,
                       .on_wake = post_on_wake,
                       .wake_ud = h};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  zbuf_reset(&h->body);
  free(h->www_auth); /* this reply's challenge, not an older one */
  h->www_auth = NULL;
  h->body_too_large = false;
  h->deliver_rc = 0;
  h->sse_init = false;
  h->in_post = true;
  int rc = zhttp_perform(&req, &resp, post_on_body, h, err);
  char *resume_from = NULL;
  long retry = -1;
  if (h->sse_init) {
    zsse_finish(&h->sse);
    if (rc == 0 && resp.status < 300 && !h->legacy && is_request && !farewell &&
        !h->deliver_rc && !h->body_too_large && h->base.responses == responses_before &&
        h->sse.last_id.len) {
      resume_from = xstrndup(h->sse.last_id.data, h->sse.last_id.len);
      retry = h->sse.retry_ms;
    }
    zsse_release(&h->sse);
    h->sse_init = false;
  }
  if (resume_from) {
    rc = resume_reply(h, &resume_from, responses_before, timeout_ms, retry, err);
    free(resume_from);
  }
  h->in_post = false;
  strvec_free_array(headers);
  if (h->body_too_large) {
    rc = zerr_set(err, ZE_TOO_LARGE,
                  "MCP server \"%s\" sent a message larger than the %u-byte limit", h->cfg->name,
                  ZRPC_MAX_MESSAGE);
  } else if (h->deliver_rc) {
    rc = zerr_set(err, ZE_INVALID, "MCP server \"%s\" sent an invalid message", h->cfg->name);
  } else if (rc < 0) {
    zerr_prefix(err, "MCP server \"%s\"", h->cfg->name);
  } else if (resp.status == 403 && !own_authorization(h->cfg) && h->cfg->auth != ZMCP_AUTH_NONE &&
             step_up_needed(h)) {
    rc = zerr_set(err, ZE_PROVIDER,
                  "MCP server \"%s\" (%s) needs more OAuth scope than its token has (HTTP 403 "
                  "insufficient_scope); run `zero mcp login %s` to grant it, then rerun",
                  h->cfg->name, h->cfg->url, h->cfg->name);
  } else if ((resp.status == 401 || resp.status == 403) && !own_authorization(h->cfg) &&
             h->cfg->auth != ZMCP_AUTH_NONE) {
    rc = zerr_set(err, ZE_PROVIDER,
                  "MCP server \"%s\" (%s) requires OAuth authorization (HTTP %ld)%s; run `zero "
                  "mcp login %s`, then rerun",
                  h->cfg->name, h->cfg->url, resp.status,
                  h->bearer ? " and refused the stored token" : "", h->cfg->name);
  } else if (resp.status == 401 || resp.status == 403) {
    rc = zerr_set(err, ZE_PROVIDER,
                  "MCP server \"%s\" (%s) requires authorization (HTTP %ld%s%s); add an "
                  "\"Authorization\" header to its \"headers\" in the config",
                  h->cfg->name, h->cfg->url, resp.status, h->www_auth ? ": " : "",
                  h->www_auth ? h->www_auth : "");
  } else if (resp.status == 404 && h->session_id) {
    /* The spec: the client must start a new session without the old id. The
     * event stream belonged to the old session: it goes too, and a new one
     * opens after the next initialized. */
    rc = zerr_set(err, ZE_PROVIDER,
                  "MCP server \"%s\" no longer knows the session (HTTP 404); it was restarted "
                  "or expired the session",
                  h->cfg->name);
    end_stream(h);
    pthread_mutex_lock(&h->mu);
    free(h->session_id);
    h->session_id = NULL;
    pthread_mutex_unlock(&h->mu);
    h->base.session_lost = true;
  } else if (resp.status >= 300) {
    rc = zerr_set(err, ZE_PROVIDER, "MCP server \"%s\" (%s) answered HTTP %ld: %.300s",
                  h->cfg->name, h->cfg->url, resp.status,
                  resp.error_body.len ? resp.error_body.data : "(no body)");
  } else if (!h->legacy && h->body.len && !is_sse(h->resp_type)) {
    if (h->base.deliver(h->base.deliver_ud, h->body.data, h->body.len) != 0)
      rc = zerr_set(err, ZE_INVALID, "MCP server \"%s\" sent an invalid message", h->cfg->name);
  }
  zhttp_response_release(&resp);
  /* After initialization, listen for server-initiated messages. */
  if (rc == 0 && is_init_notice && !h->legacy && !h->initialized_sent) {
    h->initialized_sent = true;
    zerr ignore = ZERR_INIT;
    if (start_stream(h, &ignore) == 0) wait_stream_answered(h);
  }
  return rc;
}

/* Delivers what the stream thread queued. Returns how many. */
static int drain_queue(http_t *h, zerr *err) {
  char drain[64];
  while (read(h->wake[0], drain, sizeof drain) > 0) {
  }
  pthread_mutex_lock(&h->mu);
  str_vec q = h->queue;
  h->queue = (str_vec)ZVEC_INIT;
  pthread_mutex_unlock(&h->mu);
  int n = 0, rc = 0;
  for (size_t i = 0; i < q.len; i++) {
    if (!rc && h->base.deliver(h->base.deliver_ud, q.items[i], strlen(q.items[i])) != 0)
      rc = zerr_set(err, ZE_INVALID, "MCP server \"%s\" sent an invalid message", h->cfg->name);
    free(q.items[i]);
    n++;
  }
  zvec_free(&q);
  return rc < 0 ? -1 : n;
}

static int http_pump(zmcp_transport *t, int timeout_ms, zerr *err) {
  http_t *h = (http_t *)t;
  int n = drain_queue(h, err);
  if (n != 0) return n < 0 ? -1 : 1;
  pthread_mutex_lock(&h->mu);
  bool live = h->thread_started && !h->stream_done;
  char *why = h->stream_error ? xstrdup(h->stream_error) : NULL;
  pthread_mutex_unlock(&h->mu);
  if (!live) {
    int rc = zerr_set(err, ZE_PROVIDER, "MCP server \"%s\" (%s): %s", h->cfg->name, h->cfg->url,
                      why ? why
                          : "the server's HTTP reply held no answer to the request");
    free(why);
    return rc;
  }
  free(why);
  struct pollfd p[2] = {{h->wake[0], POLLIN, 0}, {zcancel_fd(), POLLIN, 0}};
  int np = zcancel_fd() >= 0 ? 2 : 1;
  if (zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "cancelled");
  int pr = poll(p, (nfds_t)np, timeout_ms);
  if (pr <= 0) return 0;
  if (np == 2 && p[1].revents && zcancel_requested()) return zerr_set(err, ZE_CANCELLED, "cancelled");
  n = drain_queue(h, err);
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

static void stop_stream(http_t *h) {
  if (h->stop[1] >= 0) {
    char c = 1;
    ssize_t w = write(h->stop[1], &c, 1);
    (void)w;
  }
}

/* Stops and joins the event-stream thread and forgets its state, so that the
 * next initialized opens a new stream (a new session). */
static void end_stream(http_t *h) {
  if (h->thread_started) {
    stop_stream(h);
    pthread_join(h->thread, NULL);
    h->thread_started = false;
  }
  char drain[64];
  while (h->stop[0] >= 0 && read(h->stop[0], drain, sizeof drain) > 0) {
  }
  pthread_mutex_lock(&h->mu);
  h->stream_done = false;
  h->stream_answered = false;
  free(h->stream_error);
  h->stream_error = NULL;
  pthread_mutex_unlock(&h->mu);
  h->initialized_sent = false;
}

static void http_begin_shutdown(zmcp_transport *t) {
  http_t *h = (http_t *)t;
  stop_stream(h);
  if (!h->legacy && h->session_id && !zcancel_requested()) {
    char **headers = build_headers(h, false, false);
    zhttp_request req = {.method = "DELETE", .url = h->cfg->url,
                         .headers = (const char *const *)headers, .total_timeout_ms = 2000};
    zhttp_response resp = ZHTTP_RESPONSE_INIT;
    zerr ignore = ZERR_INIT;
    zhttp_perform(&req, &resp, NULL, NULL, &ignore); /* 405: the server keeps sessions itself */
    zhttp_response_release(&resp);
    strvec_free_array(headers);
    pthread_mutex_lock(&h->mu);
    free(h->session_id);
    h->session_id = NULL;
    pthread_mutex_unlock(&h->mu);
  }
}

static void http_finish_shutdown(zmcp_transport *t, long long deadline_ms) {
  http_t *h = (http_t *)t;
  (void)deadline_ms;
  if (h->thread_started) {
    stop_stream(h);
    pthread_join(h->thread, NULL);
    h->thread_started = false;
  }
}

static void http_destroy(zmcp_transport *t) {
  http_t *h = (http_t *)t;
  http_finish_shutdown(t, 0);
  for (size_t i = 0; i < h->queue.len; i++) free(h->queue.items[i]);
  zvec_free(&h->queue);
  int fds[] = {h->wake[0], h->wake[1], h->stop[0], h->stop[1]};
  for (size_t i = 0; i < ZARRAY_LEN(fds); i++)
    if (fds[i] >= 0) close(fds[i]);
  pthread_mutex_destroy(&h->mu);
  pthread_cond_destroy(&h->answered_cv);
  free(h->session_id);
  free(h->post_url);
  free(h->endpoint);
  free(h->stream_error);
  free(h->bearer);
  free(h->resp_type);
  free(h->www_auth);
  zbuf_release(&h->body);
  free(h->base.protocol_version);
  free(h);
}

static const char *http_diagnostics(zmcp_transport *t) {
  (void)t;
  return NULL;
}

static const zmcp_transport_ops http_ops = {
    http_start, http_send, http_pump, http_begin_shutdown, http_finish_shutdown,
    http_destroy, http_diagnostics,
};

zmcp_transport *zmcp_http_new(const zmcp_server_cfg *cfg, bool legacy_sse) {
  http_t *h = xcalloc(1, sizeof *h);
  h->base.ops = &http_ops;
  h->cfg = cfg;
  h->legacy = legacy_sse;
  h->wake[0] = h->wake[1] = h->stop[0] = h->stop[1] = -1;
  pthread_mutex_init(&h->mu, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the wait's deadline ignores clock steps */
  pthread_cond_init(&h->answered_cv, &ca);
  pthread_condattr_destroy(&ca);
  zbuf_init(&h->body);
  return &h->base;
}
