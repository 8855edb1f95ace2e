/* fuzz_httpd.c — the HTTP/1.1 request parser `zero serve --mcp --http` reads
 * every request with: the input is fed split at a point chosen by its first
 * byte, then requests are read back to back (pipelining) until it is used
 * up or the parser fails; small caps exercise the 413/431 paths. Checks the
 * parser's contract: it never uses more than it is given, a DONE request
 * has a method and target, a failure has an error status, and a failed
 * parser takes nothing more.
 *   ./build-fuzz/tests/fuzz/fuzz_httpd -max_total_time=60
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "net/httpd.h"

static void check_done(const zhttpd_parser *p) {
  if (p->state == ZHTTPD_DONE && (!p->req.method || !p->req.target)) __builtin_trap();
  if (p->state == ZHTTPD_FAILED && (p->error_status < 400 || !p->error[0])) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *s = (const char *)data + 1;
  size_t n = size - 1, cut = data[0] % size;
  if (cut > n) cut = n;
  zhttpd_parser p;
  zhttpd_init(&p, (data[0] & 1) ? 64 : 0, (data[0] & 2) ? 32 : 0);
  size_t at = 0;
  for (int guard = 0; at < n && guard < 1000; guard++) {
    size_t end = at < cut ? cut : n;
    size_t used = zhttpd_feed(&p, s + at, end - at);
    if (used > end - at) __builtin_trap();
    at += used;
    check_done(&p);
    if (p.state == ZHTTPD_FAILED) {
      if (zhttpd_feed(&p, s + at, n - at) != 0) __builtin_trap();
      break;
    }
    if (p.state == ZHTTPD_DONE) {
      (void)zhttpd_header_get(&p.req, "content-type");
      zhttpd_reset(&p);
    } else if (at == end && end == n) {
      break; /* an unfinished request: wait for bytes that never come */
    }
  }
  zhttpd_release(&p);
  return 0;
}
