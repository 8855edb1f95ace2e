/* fuzz_mcp_framing.c — JSON-RPC framing as an MCP client receives it: the
 * input is fed, split at a point chosen by its first byte, (1) through the
 * stdio newline framer with each line classified, and (2) through the SSE
 * parser with each "message" event classified — the two paths server bytes
 * take into zero. A small line cap exercises the oversized-message path.
 *   ./build-fuzz/tests/fuzz/fuzz_mcp_framing -max_total_time=60
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mcp/jsonrpc.h"
#include "net/sse.h"

static int on_msg(void *ud, zrpc_msg *m) {
  size_t *n = ud;
  (*n)++;
  if (m->method) (void)strlen(m->method);
  zrpc_msg_release(m);
  return 0;
}

static int on_line(void *ud, const char *line, size_t len) {
  zerr err = ZERR_INIT;
  zrpc_parse(line, len, on_msg, ud, &err);
  return 0;
}

static int on_event(void *ud, const zsse_event *ev) {
  zerr err = ZERR_INIT;
  if (!strcmp(ev->event, "message")) zrpc_parse(ev->data, ev->data_len, on_msg, ud, &err);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t cut = data[0] % size;
  const char *s = (const char *)data + 1;
  size_t n = size - 1;
  if (cut > n) cut = n;
  size_t count = 0;

  zrpc_framer f = ZRPC_FRAMER_INIT;
  f.max = (data[0] & 1) ? 64 : 0;
  zerr err = ZERR_INIT;
  if (zrpc_framer_feed(&f, s, cut, on_line, &count, &err) == 0)
    zrpc_framer_feed(&f, s + cut, n - cut, on_line, &count, &err);
  zrpc_framer_release(&f);

  zsse_parser p;
  zsse_init(&p, on_event, &count, (data[0] & 2) ? 128 : 0);
  zerr serr = ZERR_INIT;
  if (zsse_feed(&p, s, cut, &serr) == 0) zsse_feed(&p, s + cut, n - cut, &serr);
  zsse_finish(&p);
  zsse_release(&p);
  return 0;
}
