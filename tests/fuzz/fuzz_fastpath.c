/* fuzz_fastpath.c — differential libFuzzer target: each stream parser's
 * fast path (the tree-free scanner of provider/jscan.c) against its jansson
 * slow path on the same input.
 *
 * The first byte picks the protocol (chat, responses, anthropic, gemini);
 * the rest is an SSE stream. Both runs must produce the identical
 * transcript: every event with all its fields, and the final error message
 * if any. A difference traps.
 *
 *   ./build-fuzz/tests/fuzz/fuzz_fastpath -max_total_time=180 \
 *       tests/fixtures/fastpath_corpus
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "net/sse.h"
#include "provider/anthropic.h"
#include "provider/gemini.h"
#include "provider/openai_chat.h"
#include "provider/openai_responses.h"

typedef struct run {
  int proto;
  union {
    zoai_chat_parser chat;
    zresp_parser resp;
    zanth_parser anth;
    zgem_parser gem;
  } u;
  zbuf out;
  zerr err;
  int failed;
} run;

static void add_bytes(zbuf *b, const char *s, size_t n) {
  zbuf_addf(b, "[%zu]", n);
  if (s) zbuf_add(b, s, n);
}

static int record(void *ud, const zprov_event *ev) {
  zbuf *b = ud;
  zbuf_addf(b, "%d i=%d ", (int)ev->kind, ev->index);
  add_bytes(b, ev->text, ev->text ? ev->len : 0);
  zbuf_addf(b, " id=%s name=%s args=%s sig=%s fin=%s u=%lld/%lld/%lld/%lld/%lld\n",
            ev->id ? ev->id : "-", ev->name ? ev->name : "-",
            ev->arguments ? ev->arguments : "-", ev->signature ? ev->signature : "-",
            ev->finish_reason ? ev->finish_reason : "-", (long long)ev->usage.prompt_tokens,
            (long long)ev->usage.completion_tokens, (long long)ev->usage.total_tokens,
            (long long)ev->usage.cached_tokens, (long long)ev->usage.reasoning_tokens);
  return 0;
}

static int feed(run *r, const zsse_event *ev) {
  switch (r->proto) {
    case 0: return zoai_chat_parser_feed(&r->u.chat, ev->data, ev->data_len, &r->err);
    case 1: return zresp_parser_feed(&r->u.resp, ev->data, ev->data_len, &r->err);
    case 2: return zanth_parser_feed(&r->u.anth, ev->data, ev->data_len, &r->err);
    default: return zgem_parser_feed(&r->u.gem, ev->data, ev->data_len, &r->err);
  }
}

static int on_sse(void *ud, const zsse_event *ev) {
  run *r = ud;
  if (feed(r, ev) < 0) {
    r->failed = 1;
    return 1;
  }
  return 0;
}

static void go(run *r, const char *in, size_t size, bool slow) {
  zbuf_init(&r->out);
  zerr_clear(&r->err);
  r->failed = 0;
  switch (r->proto) {
    case 0:
      zoai_chat_parser_init(&r->u.chat, "fuzz", record, &r->out);
      r->u.chat.turn.slow_only = slow;
      break;
    case 1: zresp_parser_init(&r->u.resp, "fuzz", record, &r->out); r->u.resp.turn.slow_only = slow; break;
    case 2: zanth_parser_init(&r->u.anth, "fuzz", record, &r->out); r->u.anth.turn.slow_only = slow; break;
    default: zgem_parser_init(&r->u.gem, "fuzz", record, &r->out); r->u.gem.turn.slow_only = slow; break;
  }
  zsse_parser sse;
  zsse_init(&sse, on_sse, r, 1u << 20);
  zerr err = ZERR_INIT;
  int rc = zsse_feed(&sse, in, size, &err);
  if (rc == 0 && !r->failed) {
    zsse_finish(&sse);
    switch (r->proto) {
      case 0: rc = zoai_chat_parser_finish(&r->u.chat, &r->err); break;
      case 1: rc = zresp_parser_finish(&r->u.resp, &r->err); break;
      case 2: rc = zanth_parser_finish(&r->u.anth, &r->err); break;
      default: rc = zgem_parser_finish(&r->u.gem, &r->err); break;
    }
  }
  if (rc != 0 || r->failed)
    zbuf_addf(&r->out, "ERROR %d %d %d %s\n", (int)r->err.kind, r->err.retryable ? 1 : 0,
              r->err.http_status, r->err.msg);
  zsse_release(&sse);
  switch (r->proto) {
    case 0: zoai_chat_parser_release(&r->u.chat); break;
    case 1: zresp_parser_release(&r->u.resp); break;
    case 2: zanth_parser_release(&r->u.anth); break;
    default: zgem_parser_release(&r->u.gem); break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static run fast, slow;
  fast.proto = slow.proto = data[0] % 4;
  go(&fast, (const char *)data + 1, size - 1, false);
  go(&slow, (const char *)data + 1, size - 1, true);
  if (fast.out.len != slow.out.len || memcmp(fast.out.data, slow.out.data, fast.out.len) != 0) {
    fprintf(stderr, "fast and slow paths differ\n--- slow\n%s--- fast\n%s", slow.out.data,
            fast.out.data);
    __builtin_trap();
  }
  zbuf_release(&fast.out);
  zbuf_release(&slow.out);
  return 0;
}
