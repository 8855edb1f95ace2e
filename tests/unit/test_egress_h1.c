/* test_egress_h1.c — the request check of TLS inspection
 * (net/egress/h1check.h): what passes upstream, what is refused as domain
 * fronting or as ambiguous framing, and that the outcome does not depend on
 * how the stream is cut into pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "net/egress/h1check.h"

/* Feeds text in pieces of step bytes (0: whole) to a stream for good.test:443;
 * returns feed's result, out gets what passed, why the reason. */
static int run(const char *text, size_t step, zbuf *out, char *why, size_t cap) {
  zeg_h1 h;
  zeg_h1_init(&h, "good.test", 443);
  size_t n = strlen(text);
  if (!step) step = n ? n : 1;
  int rc = 0;
  why[0] = '\0';
  for (size_t i = 0; i < n && rc == 0; i += step) {
    zbuf piece = ZBUF_INIT;
    rc = zeg_h1_feed(&h, text + i, n - i < step ? n - i : step, &piece, why, cap);
    if (rc == 0) zbuf_add(out, piece.data, piece.len);
    zbuf_release(&piece);
  }
  zeg_h1_release(&h);
  return rc;
}

/* text passes whole, whatever the pieces. */
static void passes(const char *text) {
  static const size_t steps[] = {0, 1, 3, 7};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    zbuf out = ZBUF_INIT;
    char why[512];
    assert_int_equal(run(text, steps[i], &out, why, sizeof why), 0);
    assert_int_equal(out.len, strlen(text));
    assert_memory_equal(out.data, text, out.len);
    zbuf_release(&out);
  }
}

/* text is refused, in any pieces, with a reason holding want; what passed
 * before the refusal is exactly the first passed bytes of text. */
static void refused(const char *text, const char *want, size_t passed) {
  static const size_t steps[] = {0, 1, 5};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    zbuf out = ZBUF_INIT;
    char why[512];
    assert_int_equal(run(text, steps[i], &out, why, sizeof why), -1);
    if (!strstr(why, want)) fail_msg("reason \"%s\" lacks \"%s\"", why, want);
    assert_true(out.len <= passed);
    assert_memory_equal(out.data, text, out.len);
    zbuf_release(&out);
  }
}

static void requests_for_the_tunnels_host_pass(void **state) {
  (void)state;
  passes("GET / HTTP/1.1\r\nHost: good.test\r\n\r\n");
  passes("GET /a?b HTTP/1.1\r\nhost: GOOD.test.:443\r\nAccept: */*\r\n\r\n");
  passes("GET https://good.test/x HTTP/1.1\r\nHost: good.test\r\n\r\n");
  passes("OPTIONS * HTTP/1.1\r\nHost: good.test\r\n\r\n");
  /* keep-alive: three requests, bodies framed both ways */
  passes("POST /1 HTTP/1.1\r\nHost: good.test\r\nContent-Length: 5\r\n\r\nhello"
         "POST /2 HTTP/1.1\r\nHost: good.test\r\nTransfer-Encoding: chunked\r\n\r\n"
         "3;ext=1\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n"
         "GET /3 HTTP/1.1\r\nHost: good.test\r\n\r\n");
}

static void another_host_is_domain_fronting(void **state) {
  (void)state;
  refused("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n", "domain fronting", 0);
  refused("GET / HTTP/1.1\r\nHost: good.test:8443\r\n\r\n", "domain fronting", 0);
  refused("GET / HTTP/1.1\r\nHost: good.test.evil\r\n\r\n", "domain fronting", 0);
  refused("GET http://other.test/ HTTP/1.1\r\nHost: good.test\r\n\r\n", "domain fronting", 0);
  /* the second request of a kept-alive connection: the first passed */
  const char *first = "GET /1 HTTP/1.1\r\nHost: good.test\r\n\r\n";
  char two[256];
  snprintf(two, sizeof two, "%sGET /2 HTTP/1.1\r\nHost: other.test\r\n\r\n", first);
  refused(two, "other.test", strlen(first));
}

static void a_body_is_never_read_as_a_request(void **state) {
  (void)state;
  /* what looks like a fronted request inside a body is body */
  passes("POST / HTTP/1.1\r\nHost: good.test\r\nContent-Length: 36\r\n\r\n"
         "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n");
  passes("POST / HTTP/1.1\r\nHost: good.test\r\nTransfer-Encoding: chunked\r\n\r\n"
         "24\r\nGET / HTTP/1.1\r\nHost: other.test\r\n\r\n\r\n0\r\n\r\n");
  /* and after the body ends, the next head is checked */
  refused("POST / HTTP/1.1\r\nHost: good.test\r\nContent-Length: 2\r\n\r\nok"
          "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n",
          "domain fronting", 200);
}

static void ambiguous_framing_is_refused(void **state) {
  (void)state;
  refused("POST / HTTP/1.1\r\nHost: good.test\r\nContent-Length: 3\r\n"
          "Transfer-Encoding: chunked\r\n\r\n",
          "ambiguous", 0);
  refused("POST / HTTP/1.1\r\nHost: good.test\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
          "ambiguous", 0);
  refused("POST / HTTP/1.1\r\nHost: good.test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
          "chunked", 0);
  refused("POST / HTTP/1.1\r\nHost: good.test\r\nContent-Length: -1\r\n\r\n", "Content-Length", 0);
  refused("GET / HTTP/1.1\r\nHost: good.test\r\nHost: good.test\r\n\r\n", "exactly one Host", 0);
  refused("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", "exactly one Host", 0);
  refused("GET / HTTP/1.1\r\nHost: good.test\nX: y\r\n\r\n", "bare CR", 0);
  refused("GET / HTTP/1.1\r\nHost: good.test\r\nX: a\r\n b\r\n\r\n", "folded", 0);
  refused("GET / HTTP/1.1\r\nHost : good.test\r\n\r\n", "header name", 0);
  refused("POST / HTTP/1.1\r\nHost: good.test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
          "chunk size", 200);
  refused("POST / HTTP/1.1\r\nHost: good.test\r\nTransfer-Encoding: chunked\r\n\r\n"
          "1\r\naXX\r\n",
          "chunked body", 200);
}

static void other_protocols_are_refused(void **state) {
  (void)state;
  refused("CONNECT other.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n", "CONNECT", 0);
  refused("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "HTTP/1.1", 0);
  refused("GET / HTTP/1.1\r\nHost: good.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
          "upgrades", 0);
  refused("GET other.test:443 HTTP/1.1\r\nHost: good.test\r\n\r\n", "must be a path", 0);
  refused("\r\nGET / HTTP/1.1\r\nHost: good.test\r\n\r\n", "request line", 0);
}

static void an_endless_head_is_refused(void **state) {
  (void)state;
  static char big[ZEG_H1_HEAD_MAX + 64];
  int n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nHost: good.test\r\nX: ");
  memset(big + n, 'a', sizeof big - (size_t)n - 1);
  big[sizeof big - 1] = '\0';
  refused(big, "too large", 0);
}

static void the_refusal_is_a_complete_response(void **state) {
  (void)state;
  zbuf out = ZBUF_INIT;
  zeg_h1_refusal(403, "no\n", &out);
  assert_non_null(strstr(out.data, "HTTP/1.1 403 Forbidden\r\n"));
  assert_non_null(strstr(out.data, "Content-Length: 3\r\n"));
  assert_non_null(strstr(out.data, "X-Zero-Egress: refused\r\n\r\nno\n"));
  zbuf_release(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(requests_for_the_tunnels_host_pass),
      cmocka_unit_test(another_host_is_domain_fronting),
      cmocka_unit_test(a_body_is_never_read_as_a_request),
      cmocka_unit_test(ambiguous_framing_is_refused),
      cmocka_unit_test(other_protocols_are_refused),
      cmocka_unit_test(an_endless_head_is_refused),
      cmocka_unit_test(the_refusal_is_a_complete_response),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
