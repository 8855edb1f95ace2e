/* test_httpd.c — the HTTP/1.1 request parser of `zero serve --mcp --http`:
 * framing (Content-Length, chunked, pipelining), every split of the input
 * giving the same request, the smuggling refusals and the caps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "net/httpd.h"

/* Feeds s whole; returns bytes used and leaves the parser to the caller. */
static size_t feed_all(zhttpd_parser *p, const char *s) { return zhttpd_feed(p, s, strlen(s)); }

static void test_content_length_request(void **state) {
  (void)state;
  zhttpd_parser p;
  zhttpd_init(&p, 0, 0);
  const char *req = "\r\nPOST /mcp?x=1 HTTP/1.1\r\nHost: localhost:1\r\nContent-Type:  "
                    "application/json \r\nContent-Length: 4\r\n\r\nbodyEXTRA";
  size_t used = feed_all(&p, req);
  assert_int_equal(p.state, ZHTTPD_DONE);
  assert_int_equal(used, strlen(req) - 5); /* EXTRA is the next request's */
  assert_string_equal(p.req.method, "POST");
  assert_string_equal(p.req.target, "/mcp?x=1");
  assert_string_equal(zhttpd_header_get(&p.req, "content-type"), "application/json");
  assert_string_equal(zhttpd_header_get(&p.req, "host"), "localhost:1");
  assert_int_equal(p.req.body.len, 4);
  assert_memory_equal(p.req.body.data, "body", 4);
  assert_true(p.req.keep_alive);
  zhttpd_reset(&p);
  assert_int_equal(p.state, ZHTTPD_HEAD);
  assert_int_equal(p.req.body.len, 0);
  zhttpd_release(&p);
}

/* Every split point of a chunked request gives the same body. */
static void test_chunked_any_split(void **state) {
  (void)state;
  const char *req = "POST / HTTP/1.1\nHost: a\nTransfer-Encoding: Chunked\n\n"
                    "3;name=v\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n";
  size_t n = strlen(req);
  for (size_t cut = 0; cut <= n; cut++) {
    zhttpd_parser p;
    zhttpd_init(&p, 0, 0);
    size_t used = zhttpd_feed(&p, req, cut);
    used += zhttpd_feed(&p, req + used, n - used);
    assert_int_equal(p.state, ZHTTPD_DONE);
    assert_int_equal(used, n);
    assert_int_equal(p.req.body.len, 13);
    assert_memory_equal(p.req.body.data, "abc0123456789", 13);
    zhttpd_release(&p);
  }
}

static void test_connection_and_expect(void **state) {
  (void)state;
  zhttpd_parser p;
  zhttpd_init(&p, 0, 0);
  feed_all(&p, "GET / HTTP/1.0\r\n\r\n");
  assert_false(p.req.keep_alive);
  zhttpd_reset(&p);
  feed_all(&p, "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
  assert_true(p.req.keep_alive);
  zhttpd_reset(&p);
  feed_all(&p, "GET / HTTP/1.1\r\nConnection: foo, close\r\n\r\n");
  assert_false(p.req.keep_alive);
  zhttpd_reset(&p);
  feed_all(&p, "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
  assert_int_equal(p.state, ZHTTPD_BODY);
  assert_true(p.req.expect_continue);
  zhttpd_release(&p);
}

static void expect_failure(const char *req, int status, size_t max_head, size_t max_body) {
  zhttpd_parser p;
  zhttpd_init(&p, max_head, max_body);
  zhttpd_feed(&p, req, strlen(req));
  assert_int_equal(p.state, ZHTTPD_FAILED);
  assert_int_equal(p.error_status, status);
  assert_int_equal(zhttpd_feed(&p, "GET / HTTP/1.1\r\n\r\n", 18), 0); /* stays failed */
  zhttpd_release(&p);
}

static void test_smuggling_refusals(void **state) {
  (void)state;
  expect_failure("POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                 0, 0);
  expect_failure("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, 0, 0);
  expect_failure("POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n", 400, 0, 0);
  expect_failure("POST / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n", 400, 0, 0);
  expect_failure("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, 0, 0);
  expect_failure("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked"
                 "\r\n\r\n",
                 501, 0, 0);
  expect_failure("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", 400, 0, 0);
  expect_failure("GET / HTTP/1.1\r\nBad Name: b\r\n\r\n", 400, 0, 0);
  expect_failure("GET / HTTP/1.1\r\nA : b\r\n\r\n", 400, 0, 0);
  expect_failure("GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", 400, 0, 0);
  expect_failure("GET /a b HTTP/1.1\r\n\r\n", 400, 0, 0);
  expect_failure("GET /\x7f HTTP/1.1\r\n\r\n", 400, 0, 0);
  expect_failure("GET / HTTP/2\r\n\r\n", 505, 0, 0);
  expect_failure("GET / FTP/1.1\r\n\r\n", 400, 0, 0);
  expect_failure("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, 0, 0);
  expect_failure("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", 400, 0, 0);
}

static void test_caps(void **state) {
  (void)state;
  expect_failure("GET / HTTP/1.1\r\nX: 0123456789012345678901234567890123456789\r\n\r\n", 431, 32,
                 0);
  zbuf many = ZBUF_INIT;
  zbuf_addstr(&many, "GET / HTTP/1.1\r\n");
  for (int i = 0; i <= ZHTTPD_MAX_HEADERS; i++) zbuf_addstr(&many, "A: b\r\n");
  zbuf_addstr(&many, "\r\n");
  expect_failure(many.data, 431, 0, 0);
  zbuf_release(&many);
  expect_failure("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", 413, 0, 10);
  expect_failure("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400, 0, 0);
  expect_failure("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n123456\r\n5\r\n", 413,
                 0, 10);
  expect_failure("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n",
                 413, 0, 0);
  expect_failure(
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
      "T: 01234567890123456789012345678901234567890123456789012345678901234567890123456789"
      "\r\n\r\n",
      431, 60, 0);
}

static void test_list_has(void **state) {
  (void)state;
  assert_true(zhttpd_list_has("application/json, text/event-stream", "text/event-stream"));
  assert_true(zhttpd_list_has("text/event-stream;q=0.5", "TEXT/EVENT-STREAM"));
  assert_false(zhttpd_list_has("text/event-streams", "text/event-stream"));
  assert_false(zhttpd_list_has("", "close"));
  assert_string_equal(zhttpd_reason(404), "Not Found");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_content_length_request),
      cmocka_unit_test(test_chunked_any_split),
      cmocka_unit_test(test_connection_and_expect),
      cmocka_unit_test(test_smuggling_refusals),
      cmocka_unit_test(test_caps),
      cmocka_unit_test(test_list_has),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
