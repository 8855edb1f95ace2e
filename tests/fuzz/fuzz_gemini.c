/* fuzz_gemini.c — libFuzzer target for the Gemini stream parser
 * (provider/gemini.h), fed through the real SSE parser.
 *
 * Whatever the input, the parser must not crash, every event it emits must
 * be well formed, DONE comes at most once and only from finish, and every
 * failure carries a message.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "net/sse.h"
#include "provider/gemini.h"

typedef struct state {
  zgem_parser p;
  zerr err;
  int failed;
  int done;
} state;

static int on_prov_event(void *ud, const zprov_event *ev) {
  state *s = ud;
  switch (ev->kind) {
    case ZPEV_TEXT:
    case ZPEV_REASONING:
    case ZPEV_TOOL_ARGS:
      if (ev->len && !ev->text) __builtin_trap();
      if (ev->len) (void)((volatile const char *)ev->text)[ev->len - 1];
      break;
    case ZPEV_TOOL_START:
      if (!ev->id || !ev->name) __builtin_trap();
      break;
    case ZPEV_TOOL_END:
      if (!ev->id || !ev->name || !ev->arguments) __builtin_trap();
      break;
    case ZPEV_DONE:
      if (s->done++ || !ev->finish_reason) __builtin_trap();
      break;
    default:
      break;
  }
  return 0;
}

static int on_sse_event(void *ud, const zsse_event *ev) {
  state *s = ud;
  if (zgem_parser_feed(&s->p, ev->data, ev->data_len, &s->err) < 0) {
    s->failed = 1;
    return 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
  state s;
  memset(&s, 0, sizeof s);
  zgem_parser_init(&s.p, "fuzz", on_prov_event, &s);
  zsse_parser sse;
  zsse_init(&sse, on_sse_event, &s, 1u << 20);
  zerr err = ZERR_INIT;
  int rc = zsse_feed(&sse, (const char *)in, size, &err);
  if (rc == 0 && !s.failed) {
    zsse_finish(&sse);
    zerr ferr = ZERR_INIT;
    if (zgem_parser_finish(&s.p, &ferr) == 0) {
      if (s.done != 1) __builtin_trap();
    } else if (!ferr.msg[0]) {
      __builtin_trap();
    }
  } else if (s.failed && !s.err.msg[0]) {
    __builtin_trap();
  }
  zsse_release(&sse);
  zgem_parser_release(&s.p);
  return 0;
}
