/* fuzz_openai_chat.c — libFuzzer target for the Chat Completions stream
 * parser (provider/openai_chat.c), fed through the real SSE parser.
 *
 * The input is an SSE stream as a server could send it. Whatever it holds,
 * the parser must not crash, every event it emits must be well formed (text
 * events carry bytes, tool ends carry an id, name and arguments), and finish
 * must either succeed with a final DONE or fail with a message.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "net/sse.h"
#include "provider/openai_chat.h"

typedef struct state {
  zoai_chat_parser chat;
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
      break;
    case ZPEV_TOOL_END:
      if (!ev->id || !ev->name || !ev->arguments) __builtin_trap();
      break;
    case ZPEV_DONE:
      if (s->done++) __builtin_trap(); /* DONE comes once */
      break;
    default:
      break;
  }
  return 0;
}

static int on_sse_event(void *ud, const zsse_event *ev) {
  state *s = ud;
  if (zoai_chat_parser_feed(&s->chat, ev->data, ev->data_len, &s->err) < 0) {
    s->failed = 1;
    return 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
  state s;
  memset(&s, 0, sizeof s);
  zoai_chat_parser_init(&s.chat, "fuzz", on_prov_event, &s);
  zsse_parser sse;
  zsse_init(&sse, on_sse_event, &s, 1u << 20);
  zerr err = ZERR_INIT;
  int rc = zsse_feed(&sse, (const char *)in, size, &err);
  if (rc == 0 && !s.failed) {
    zsse_finish(&sse);
    zerr ferr = ZERR_INIT;
    if (zoai_chat_parser_finish(&s.chat, &ferr) == 0) {
      if (s.done != 1) __builtin_trap();
    } else if (!ferr.msg[0]) {
      __builtin_trap(); /* a failure always says what happened */
    }
  } else if (s.failed && !s.err.msg[0]) {
    __builtin_trap();
  }
  zsse_release(&sse);
  zoai_chat_parser_release(&s.chat);
  return 0;
}
