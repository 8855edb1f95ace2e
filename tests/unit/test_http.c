/* test_http.c — zhttp_perform against a loopback HTTP server run by a thread
 * of this test: streaming, error answers, refused connections, idle and total
 * timeouts, cancellation, cut streams, connection reuse; Retry-After parsing.
 *
 * The server thread accepts one connection, reads each request fully (head
 * and Content-Length body) and runs the test's script on the socket. It never
 * calls cmocka (not thread-safe); it records what it saw for the test to
 * check after joining.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/cancel.h"
#include "base/common.h"
#include "base/time.h"
#include "net/http.h"
#include "net/sse.h"

/* ---- the loopback server ---- */

typedef struct server server;
typedef void (*script_fn)(server *s, int fd);

struct server {
  int lfd;
  int port;
  pthread_t thread;
  script_fn script;
  zbuf request;        /* every request received, concatenated */
  int requests;
  int accepted;
  int64_t closed_at;   /* monotonic ms when the script saw the client leave */
};

static void sleep_ms(int ms) { ztime_sleep_ms(ms, NULL); }

static void send_str(int fd, const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

/* Reads one request (head + Content-Length body) into s->request.
 * Returns 0, or -1 when the client went away first. */
static int read_request(server *s, int fd) {
  zbuf head = ZBUF_INIT;
  char c;
  /* Byte by byte: simple, and never reads into the next request. */
  while (!zbuf_ends_with(&head, "\r\n\r\n")) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0 || recv(fd, &c, 1, 0) != 1) {
      zbuf_release(&head);
      return -1;
    }
    zbuf_addch(&head, c);
  }
  size_t body_len = 0;
  for (const char *l = head.data; l && *l; l = strstr(l, "\r\n") ? strstr(l, "\r\n") + 2 : NULL)
    if (strncasecmp(l, "Content-Length:", 15) == 0) body_len = strtoul(l + 15, NULL, 10);
  zbuf_add(&s->request, head.data, head.len);
  zbuf_release(&head);
  while (body_len > 0) {
    char buf[4096];
    ssize_t r = recv(fd, buf, body_len < sizeof buf ? body_len : sizeof buf, 0);
    if (r <= 0) return -1;
    zbuf_add(&s->request, buf, (size_t)r);
    body_len -= (size_t)r;
  }
  s->requests++;
  return 0;
}

/* Waits (at most max_ms) until the client closes the connection. */
static void wait_client_close(server *s, int fd, int max_ms) {
  int64_t end = ztime_mono_ms() + max_ms;
  char buf[512];
  for (;;) {
    int64_t left = end - ztime_mono_ms();
    if (left <= 0) return;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, (int)left) <= 0) return;
    if (recv(fd, buf, sizeof buf, 0) <= 0) {
      s->closed_at = ztime_mono_ms();
      return;
    }
  }
}

static void *server_main(void *arg) {
  server *s = arg;
  struct pollfd p = {s->lfd, POLLIN, 0};
  if (poll(&p, 1, 10000) <= 0) return NULL;
  int fd = accept(s->lfd, NULL, NULL);
  if (fd < 0) return NULL;
  s->accepted++;
  if (read_request(s, fd) == 0) s->script(s, fd);
  close(fd);
  return NULL;
}

static void server_start(server *s, script_fn script) {
  memset(s, 0, sizeof *s);
  zbuf_init(&s->request);
  s->script = script;
  s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true(s->lfd >= 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(s->lfd, 8), 0);
  socklen_t al = sizeof a;
  assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&a, &al), 0);
  s->port = ntohs(a.sin_port);
  assert_int_equal(pthread_create(&s->thread, NULL, server_main, s), 0);
}

static void server_stop(server *s) {
  pthread_join(s->thread, NULL);
  close(s->lfd);
  zbuf_release(&s->request);
}

static char *url_for(const server *s, const char *path) {
  zbuf u = ZBUF_INIT;
  zbuf_addf(&u, "http://127.0.0.1:%d%s", s->port, path);
  return zbuf_detach(&u, NULL);
}

/* ---- a body sink that records pieces and feeds an SSE parser ---- */

typedef struct sink {
  zbuf body;
  int pieces;
  int stop_after_pieces; /* 0 = never stop */
  zsse_parser sse;
  zbuf events;           /* data of each event, joined with '|' */
} sink;

static int sink_event(void *ud, const zsse_event *ev) {
  sink *k = ud;
  if (k->events.len) zbuf_addch(&k->events, '|');
  zbuf_add(&k->events, ev->data, ev->data_len);
  return 0;
}

static int sink_body(void *ud, const char *data, size_t len) {
  sink *k = ud;
  k->pieces++;
  zbuf_add(&k->body, data, len);
  if (zsse_feed(&k->sse, data, len, NULL) != 0) return 1;
  return (k->stop_after_pieces && k->pieces >= k->stop_after_pieces) ? 1 : 0;
}

static void sink_init(sink *k) {
  memset(k, 0, sizeof *k);
  zbuf_init(&k->body);
  zbuf_init(&k->events);
  zsse_init(&k->sse, sink_event, k, 0);
}

static void sink_release(sink *k) {
  zbuf_release(&k->body);
  zbuf_release(&k->events);
  zsse_release(&k->sse);
}

static int reset_cancel(void **state) {
  (void)state;
  zcancel_reset();
  return 0;
}

/* ---- scripts ---- */

static const char chunked_head[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
    "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";

static void send_chunk(int fd, const char *data) {
  char head[32];
  snprintf(head, sizeof head, "%zx\r\n", strlen(data));
  send_str(fd, head);
  send_str(fd, data);
  send_str(fd, "\r\n");
}

static void script_stream(server *s, int fd) {
  (void)s;
  send_str(fd, chunked_head);
  send_chunk(fd, "data: one\n\n");
  sleep_ms(60);
  send_chunk(fd, "data: tw");
  sleep_ms(60);
  send_chunk(fd, "o\n\ndata: three\n");
  sleep_ms(60);
  send_chunk(fd, "\n");
  send_str(fd, "0\r\n\r\n");
}

static const char rate_limited_body[] =
    "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"rate_limit\"}}";

static void script_429(server *s, int fd) {
  char head[256];
  snprintf(head, sizeof head,
           "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\n"
           "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
           strlen(rate_limited_body));
  send_str(fd, head);
  send_str(fd, rate_limited_body);
}

static void script_big_500(server *s, int fd) {
  size_t n = 100000;
  char head[256];
  snprintf(head, sizeof head, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: %zu\r\n\r\n",
           n);
  send_str(fd, head);
  char *body = xmalloc(n + 1);
  memset(body, 'e', n);
  body[n] = '\0';
  send_str(fd, body);
  free(body);
}

/* Headers and one event, then silence until the client gives up. */
static void script_stall(server *s, int fd) {
  send_str(fd, chunked_head);
  send_chunk(fd, "data: first\n\n");
  wait_client_close(s, fd, 5000);
}

/* A steady trickle: the idle timeout never fires, only the total one can. */
static void script_trickle(server *s, int fd) {
  send_str(fd, chunked_head);
  for (int i = 0; i < 100; i++) {
    send_chunk(fd, ": keep-alive\n\n");
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 50) > 0) { /* client closed */
      s->closed_at = ztime_mono_ms();
      return;
    }
  }
}

static void script_cut_chunk(server *s, int fd) {
  (void)s;
  send_str(fd, chunked_head);
  send_chunk(fd, "data: whole\n\n");
  /* Announce 256 bytes, send 10, hang up. */
  send_str(fd, "100\r\ndata: part");
  sleep_ms(30);
  shutdown(fd, SHUT_RDWR);
}

static void script_bad_chunk(server *s, int fd) {
  (void)s;
  send_str(fd, chunked_head);
  send_chunk(fd, "data: ok\n\n");
  send_str(fd, "zz\r\ngarbage\r\n");
  sleep_ms(30);
}

static void script_cut_length(server *s, int fd) {
  (void)s;
  send_str(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
               "Content-Length: 1000\r\n\r\ndata: x\n\n");
  sleep_ms(30);
  shutdown(fd, SHUT_RDWR);
}

/* Two requests on one connection: proves the pool reuses it. */
static void script_keepalive_twice(server *s, int fd) {
  send_str(fd, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\ndata: a\n\n");
  if (read_request(s, fd) != 0) return;
  send_str(fd, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\ndata: b\n\n");
}

/* ---- tests ---- */

static void chunked_stream_arrives_in_pieces_and_parses(void **state) {
  (void)state;
  server s;
  server_start(&s, script_stream);
  cleanup_free char *url = url_for(&s, "/v1/chat/completions");
  const char *headers[] = {"Content-Type: application/json", "X-Test: yes", NULL};
  const char body[] = "{\"stream\":true}";
  zhttp_request req = {.method = "POST", .url = url, .headers = headers, .body = body,
                       .body_len = strlen(body)};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  zerr err = ZERR_INIT;
  int rc = zhttp_perform(&req, &resp, sink_body, &k, &err);
  pthread_join(s.thread, NULL); /* keep s.request until the checks are done */
  if (rc != 0) fail_msg("zhttp_perform: %s", err.msg);
  assert_int_equal(resp.status, 200);
  assert_string_equal(resp.content_type, "text/event-stream");
  assert_true(resp.sent_request);
  assert_null(resp.retry_after);
  assert_int_equal(resp.error_body.len, 0);
  assert_true(k.pieces >= 3); /* delays between chunks arrive as separate pieces */
  assert_int_equal(resp.body_bytes, k.body.len);
  assert_string_equal(k.body.data, "data: one\n\ndata: two\n\ndata: three\n\n");
  assert_string_equal(k.events.data, "one|two|three");
  assert_int_equal(zsse_finish(&k.sse), 0);

  /* What the server saw. */
  assert_true(strncmp(s.request.data, "POST /v1/chat/completions HTTP/1.1\r\n", 36) == 0);
  assert_non_null(strstr(s.request.data, "User-Agent: zero/" ZERO_VERSION "\r\n"));
  assert_non_null(strstr(s.request.data, "X-Test: yes\r\n"));
  assert_null(strcasestr(s.request.data, "Expect:"));
  assert_true(zbuf_ends_with(&s.request, "\r\n\r\n{\"stream\":true}"));
  close(s.lfd);
  zbuf_release(&s.request);
  sink_release(&k);
  zhttp_response_release(&resp);
}

static void rate_limited_answer_keeps_status_retry_after_and_body(void **state) {
  (void)state;
  server s;
  server_start(&s, script_429);
  cleanup_free char *url = url_for(&s, "/v1/x");
  zhttp_request req = {.method = "POST", .url = url, .body = "{}", .body_len = 2};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  zerr err = ZERR_INIT;
  int rc = zhttp_perform(&req, &resp, sink_body, &k, &err);
  server_stop(&s);
  if (rc != 0) fail_msg("zhttp_perform: %s", err.msg);
  assert_int_equal(resp.status, 429);
  assert_non_null(resp.retry_after);
  assert_string_equal(resp.retry_after, "2");
  assert_int_equal(zhttp_retry_after_seconds(resp.retry_after), 2);
  assert_string_equal(resp.error_body.data, rate_limited_body);
  assert_string_equal(resp.content_type, "application/json");
  assert_int_equal(k.pieces, 0); /* error bodies do not go to the stream callback */
  sink_release(&k);
  zhttp_response_release(&resp);
  assert_null(resp.retry_after);
}

static void error_body_is_capped_at_64_kib(void **state) {
  (void)state;
  server s;
  server_start(&s, script_big_500);
  cleanup_free char *url = url_for(&s, "/");
  zhttp_request req = {.method = "GET", .url = url};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  zerr err = ZERR_INIT;
  int rc = zhttp_perform(&req, &resp, NULL, NULL, &err);
  server_stop(&s);
  if (rc != 0) fail_msg("zhttp_perform: %s", err.msg);
  assert_int_equal(resp.status, 500);
  assert_int_equal(resp.error_body.len, 64 * 1024);
  assert_int_equal(resp.body_bytes, 100000);
  zhttp_response_release(&resp);
}

static void refused_connection_is_retryable_and_unsent(void **state) {
  (void)state;
  /* A port that was just free: bind, learn it, close. */
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  socklen_t al = sizeof a;
  getsockname(fd, (struct sockaddr *)&a, &al);
  close(fd);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1?key=secret", ntohs(a.sin_port));
  zhttp_request req = {.method = "POST", .url = url, .body = "{}", .body_len = 2};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zhttp_perform(&req, &resp, NULL, NULL, &err), -1);
  print_message("%s\n", err.msg);
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_true(err.retryable);
  assert_false(resp.sent_request);
  assert_int_equal(resp.status, 0);
  assert_non_null(strstr(err.msg, "could not connect"));
  assert_null(strstr(err.msg, "secret")); /* no query strings in messages */
  zhttp_response_release(&resp);
}

static void unresolvable_host_is_retryable_and_unsent(void **state) {
  (void)state;
  /* .invalid never resolves (RFC 6761). */
  zhttp_request req = {.method = "GET", .url = "http://zero-test.invalid/", .connect_timeout_ms = 5000};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zhttp_perform(&req, &resp, NULL, NULL, &err), -1);
  /* A proxy from the environment would answer instead; accept its verdict
   * only if it is still an unsent, retryable failure. */
  print_message("%s\n", err.msg);
  assert_true(err.kind == ZE_PROVIDER || err.kind == ZE_TIMEOUT);
  if (!getenv("http_proxy") && !getenv("HTTP_PROXY") && !getenv("all_proxy")) {
    assert_non_null(strstr(err.msg, "could not resolve"));
    assert_true(err.retryable);
    assert_false(resp.sent_request);
  }
  zhttp_response_release(&resp);
}

static void silent_server_hits_idle_timeout(void **state) {
  (void)state;
  server s;
  server_start(&s, script_stall);
  cleanup_free char *url = url_for(&s, "/");
  zhttp_request req = {.method = "POST", .url = url, .body = "{}", .body_len = 2,
                       .idle_timeout_ms = 300};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  zerr err = ZERR_INIT;
  int64_t t0 = ztime_mono_ms();
  int rc = zhttp_perform(&req, &resp, sink_body, &k, &err);
  int64_t took = ztime_mono_ms() - t0;
  server_stop(&s);
  assert_int_equal(rc, -1);
  print_message("%s\n", err.msg);
  assert_int_equal(err.kind, ZE_TIMEOUT);
  assert_false(err.retryable); /* the request went out */
  assert_true(resp.sent_request);
  assert_int_equal(resp.status, 200);
  assert_string_equal(k.events.data, "first");
  assert_non_null(strstr(err.msg, "300 ms"));
  assert_non_null(strstr(err.msg, "idle"));
  if (took < 280 || took > 2000) fail_msg("idle timeout took %lld ms", (long long)took);
  sink_release(&k);
  zhttp_response_release(&resp);
}

static void steady_trickle_hits_total_timeout(void **state) {
  (void)state;
  server s;
  server_start(&s, script_trickle);
  cleanup_free char *url = url_for(&s, "/");
  zhttp_request req = {.method = "GET", .url = url, .idle_timeout_ms = 200,
                       .total_timeout_ms = 400};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  zerr err = ZERR_INIT;
  int64_t t0 = ztime_mono_ms();
  int rc = zhttp_perform(&req, &resp, sink_body, &k, &err);
  int64_t took = ztime_mono_ms() - t0;
  server_stop(&s);
  assert_int_equal(rc, -1);
  assert_int_equal(err.kind, ZE_TIMEOUT);
  assert_non_null(strstr(err.msg, "total timeout of 400 ms"));
  assert_true(k.sse.comments >= 3);
  if (took < 380 || took > 2000) fail_msg("total timeout took %lld ms", (long long)took);
  sink_release(&k);
  zhttp_response_release(&resp);
}

typedef struct canceller {
  int delay_ms;
  int64_t fired_at;
} canceller;

static void *cancel_later(void *arg) {
  canceller *c = arg;
  sleep_ms(c->delay_ms);
  c->fired_at = ztime_mono_ms();
  zcancel_request();
  return NULL;
}

static void cancel_request_aborts_a_stalled_stream_at_once(void **state) {
  (void)state;
  assert_int_equal(zcancel_install(), 0);
  zcancel_reset();
  server s;
  server_start(&s, script_stall);
  cleanup_free char *url = url_for(&s, "/");
  zhttp_request req = {.method = "POST", .url = url, .body = "{}", .body_len = 2,
                       .idle_timeout_ms = 10000};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  canceller c = {150, 0};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, cancel_later, &c), 0);
  zerr err = ZERR_INIT;
  int rc = zhttp_perform(&req, &resp, sink_body, &k, &err);
  int64_t returned = ztime_mono_ms();
  pthread_join(th, NULL);
  server_stop(&s);
  zcancel_reset();
  assert_int_equal(rc, -1);
  assert_int_equal(err.kind, ZE_CANCELLED);
  assert_false(err.retryable);
  assert_string_equal(k.events.data, "first");
  /* Woken by the pipe, not by a timer: well under the 1 s poll ceiling. */
  if (returned - c.fired_at > 100)
    fail_msg("cancellation took %lld ms", (long long)(returned - c.fired_at));
  /* The aborted connection was closed, so the server saw the client leave. */
  assert_true(s.closed_at > 0);
  sink_release(&k);
  zhttp_response_release(&resp);
}

static void already_cancelled_request_does_not_connect(void **state) {
  (void)state;
  assert_int_equal(zcancel_install(), 0);
  server s;
  server_start(&s, script_429);
  cleanup_free char *url = url_for(&s, "/");
  zcancel_request();
  zhttp_request req = {.method = "GET", .url = url};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  zerr err = ZERR_INIT;
  assert_int_equal(zhttp_perform(&req, &resp, NULL, NULL, &err), -1);
  assert_int_equal(err.kind, ZE_CANCELLED);
  assert_false(resp.sent_request);
  zcancel_reset();
  /* Unblock the server thread with a real request so it can be joined. */
  assert_int_equal(zhttp_perform(&req, &resp, NULL, NULL, &err), 0);
  assert_int_equal(resp.status, 429);
  server_stop(&s);
  assert_int_equal(s.accepted, 1);
  zhttp_response_release(&resp);
}

static void receiver_can_stop_the_stream(void **state) {
  (void)state;
  server s;
  server_start(&s, script_stream);
  cleanup_free char *url = url_for(&s, "/");
  zhttp_request req = {.method = "GET", .url = url};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  k.stop_after_pieces = 1;
  zerr err = ZERR_INIT;
  assert_int_equal(zhttp_perform(&req, &resp, sink_body, &k, &err), -1);
  server_stop(&s);
  assert_int_equal(err.kind, ZE_CANCELLED);
  assert_int_equal(k.pieces, 1);
  assert_non_null(strstr(err.msg, "stopped by its receiver"));
  sink_release(&k);
  zhttp_response_release(&resp);
}

static void body_cut_mid_chunk_says_stream_was_cut(void **state) {
  (void)state;
  server s;
  server_start(&s, script_cut_chunk);
  cleanup_free char *url = url_for(&s, "/");
  zhttp_request req = {.method = "GET", .url = url};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  zerr err = ZERR_INIT;
  assert_int_equal(zhttp_perform(&req, &resp, sink_body, &k, &err), -1);
  server_stop(&s);
  print_message("%s\n", err.msg);
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_non_null(strstr(err.msg, "stream"));
  assert_non_null(strstr(err.msg, "was cut"));
  assert_int_equal(err.http_status, 200);
  assert_true(resp.sent_request);
  assert_false(err.retryable);
  /* The whole event before the cut was delivered; the partial one is pending. */
  assert_string_equal(k.events.data, "whole");
  assert_int_equal(zsse_finish(&k.sse), 1);
  sink_release(&k);
  zhttp_response_release(&resp);
}

static void body_shorter_than_content_length_says_stream_was_cut(void **state) {
  (void)state;
  server s;
  server_start(&s, script_cut_length);
  cleanup_free char *url = url_for(&s, "/");
  zhttp_request req = {.method = "GET", .url = url};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  zerr err = ZERR_INIT;
  assert_int_equal(zhttp_perform(&req, &resp, sink_body, &k, &err), -1);
  server_stop(&s);
  print_message("%s\n", err.msg);
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_non_null(strstr(err.msg, "was cut after 9 bytes"));
  assert_int_equal(resp.body_bytes, 9);
  sink_release(&k);
  zhttp_response_release(&resp);
}

static void malformed_chunked_encoding_says_stream_was_cut(void **state) {
  (void)state;
  server s;
  server_start(&s, script_bad_chunk);
  cleanup_free char *url = url_for(&s, "/");
  zhttp_request req = {.method = "GET", .url = url};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  sink k;
  sink_init(&k);
  zerr err = ZERR_INIT;
  assert_int_equal(zhttp_perform(&req, &resp, sink_body, &k, &err), -1);
  server_stop(&s);
  print_message("%s\n", err.msg);
  assert_int_equal(err.kind, ZE_PROVIDER);
  assert_non_null(strstr(err.msg, "was cut"));
  assert_string_equal(k.events.data, "ok");
  sink_release(&k);
  zhttp_response_release(&resp);
}

static void second_request_reuses_the_pooled_connection(void **state) {
  (void)state;
  server s;
  server_start(&s, script_keepalive_twice);
  cleanup_free char *url = url_for(&s, "/");
  /* The server accepts one connection only: a second connection would hang
   * in the backlog and end in the idle timeout. */
  zhttp_request req = {.method = "GET", .url = url, .idle_timeout_ms = 1500};
  zhttp_response resp = ZHTTP_RESPONSE_INIT;
  zerr err = ZERR_INIT;
  for (int i = 0; i < 2; i++) {
    sink k;
    sink_init(&k);
    int rc = zhttp_perform(&req, &resp, sink_body, &k, &err);
    if (rc != 0) fail_msg("request %d: %s", i + 1, err.msg);
    assert_int_equal(resp.status, 200);
    assert_string_equal(k.events.data, i == 0 ? "a" : "b");
    sink_release(&k);
  }
  zhttp_response_release(&resp);
  server_stop(&s);
  assert_int_equal(s.accepted, 1);
  assert_int_equal(s.requests, 2);
}

static void retry_after_parses_seconds_and_dates(void **state) {
  (void)state;
  assert_int_equal(zhttp_retry_after_seconds(NULL), -1);
  assert_int_equal(zhttp_retry_after_seconds(""), -1);
  assert_int_equal(zhttp_retry_after_seconds("   "), -1);
  assert_int_equal(zhttp_retry_after_seconds("2"), 2);
  assert_int_equal(zhttp_retry_after_seconds(" 120 "), 120);
  assert_int_equal(zhttp_retry_after_seconds("0"), 0);
  assert_int_equal(zhttp_retry_after_seconds("99999999999999999999999"), LONG_MAX);
  assert_int_equal(zhttp_retry_after_seconds("-5"), -1);
  assert_int_equal(zhttp_retry_after_seconds("soon"), -1);
  /* HTTP dates: past ones mean "now". */
  assert_int_equal(zhttp_retry_after_seconds("Sun, 06 Nov 1994 08:49:37 GMT"), 0);
  assert_int_equal(zhttp_retry_after_seconds("Sunday, 06-Nov-94 08:49:37 GMT"), 0);
  assert_int_equal(zhttp_retry_after_seconds("Sun Nov  6 08:49:37 1994"), 0);
  /* A date two minutes ahead, in IMF-fixdate (C-locale names). */
  static const char *const wday[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  time_t t = time(NULL) + 120;
  struct tm tm;
  gmtime_r(&t, &tm);
  char date[64];
  snprintf(date, sizeof date, "%s, %02d %s %04d %02d:%02d:%02d GMT", wday[tm.tm_wday],
           tm.tm_mday, mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  long secs = zhttp_retry_after_seconds(date);
  if (secs < 118 || secs > 120) fail_msg("%s gave %ld seconds", date, secs);
}

static void version_names_libcurl(void **state) {
  (void)state;
  zhttp_global_init();
  zhttp_global_init();
  assert_non_null(strstr(zhttp_version(), "libcurl/"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(chunked_stream_arrives_in_pieces_and_parses, reset_cancel),
      cmocka_unit_test_teardown(rate_limited_answer_keeps_status_retry_after_and_body,
                                reset_cancel),
      cmocka_unit_test_teardown(error_body_is_capped_at_64_kib, reset_cancel),
      cmocka_unit_test_teardown(refused_connection_is_retryable_and_unsent, reset_cancel),
      cmocka_unit_test_teardown(unresolvable_host_is_retryable_and_unsent, reset_cancel),
      cmocka_unit_test_teardown(silent_server_hits_idle_timeout, reset_cancel),
      cmocka_unit_test_teardown(steady_trickle_hits_total_timeout, reset_cancel),
      cmocka_unit_test_teardown(cancel_request_aborts_a_stalled_stream_at_once, reset_cancel),
      cmocka_unit_test_teardown(already_cancelled_request_does_not_connect, reset_cancel),
      cmocka_unit_test_teardown(receiver_can_stop_the_stream, reset_cancel),
      cmocka_unit_test_teardown(body_cut_mid_chunk_says_stream_was_cut, reset_cancel),
      cmocka_unit_test_teardown(body_shorter_than_content_length_says_stream_was_cut,
                                reset_cancel),
      cmocka_unit_test_teardown(malformed_chunked_encoding_says_stream_was_cut, reset_cancel),
      cmocka_unit_test_teardown(second_request_reuses_the_pooled_connection, reset_cancel),
      cmocka_unit_test(retry_after_parses_seconds_and_dates),
      cmocka_unit_test(version_names_libcurl),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  zhttp_global_cleanup();
  return failed;
}
