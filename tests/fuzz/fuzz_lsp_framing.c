/* fuzz_lsp_framing.c — the LSP base protocol as zero's language-server
 * client receives it (lsp/frame.h): the input is fed, split at a point its
 * first byte chooses, through the Content-Length framer, and each body is
 * parsed and classified as a JSON-RPC message the way lsp/client.c does.
 * Invariant: the split never changes which bodies come out (the input is
 * fed whole a second time and the two runs must agree). A small body cap
 * exercises the oversized-message path.
 *   ./build-fuzz/tests/fuzz/fuzz_lsp_framing -max_total_time=60 tests/fuzz/corpus/fuzz_lsp_framing
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lsp/frame.h"
#include "mcp/jsonrpc.h"

typedef struct seen {
  uint64_t hash; /* over the bodies, in order */
  size_t n;
} seen;

static int on_body(void *ud, const char *body, size_t len) {
  seen *s = ud;
  for (size_t i = 0; i < len; i++) s->hash = (s->hash ^ (unsigned char)body[i]) * 1099511628211u;
  s->hash = (s->hash ^ 0xff) * 1099511628211u;
  s->n++;
  json_t *root = json_loadb(body, len, 0, NULL);
  zrpc_msg m;
  zerr err = ZERR_INIT;
  if (root && zrpc_classify(root, &m, &err) == 0) {
    if (m.method) (void)strlen(m.method);
    zrpc_msg_release(&m);
  } else {
    json_decref(root);
  }
  return 0;
}

static int run(const char *s, size_t n, size_t cut, size_t max, seen *out) {
  zlsp_framer f = ZLSP_FRAMER_INIT;
  f.max = max;
  zerr err = ZERR_INIT;
  int rc = zlsp_framer_feed(&f, s, cut, on_body, out, &err);
  if (rc == 0) rc = zlsp_framer_feed(&f, s + cut, n - cut, on_body, out, &err);
  zlsp_framer_release(&f);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *s = (const char *)data + 1;
  size_t n = size - 1;
  size_t cut = n ? data[0] % (n + 1) : 0;
  size_t max = (data[0] & 1) ? 64 : 0;
  seen split = {14695981039346656037u, 0}, whole = {14695981039346656037u, 0};
  int a = run(s, n, cut, max, &split);
  int b = run(s, n, n, max, &whole);
  /* A failure may come earlier or later, but what was delivered before it
   * is the same stream prefix: when both succeed, the same bodies. */
  if (a == 0 && b == 0 && (split.n != whole.n || split.hash != whole.hash)) __builtin_trap();
  return 0;
}
