/* stream_fuzz.h — the one libFuzzer harness every provider stream parser
 * shares (fuzz_<protocol>.c instantiates it): the input is an SSE stream as a
 * server could send it, fed through the real SSE parser into the protocol's
 * parser. Whatever the input, nothing may crash, every event must be well
 * formed, DONE comes exactly once and only from a successful finish, and
 * every failure carries a message.
 *
 * ZERO_STREAM_FUZZ(PARSER, PREFIX): PARSER is the parser type, PREFIX the
 * name prefix of its _init / _feed / _finish / _release functions.
 */
#ifndef ZERO_FUZZ_STREAM_FUZZ_H
#define ZERO_FUZZ_STREAM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "net/sse.h"
#include "provider/provider.h"

#define ZERO_STREAM_FUZZ(PARSER, PREFIX)                                                           \
typedef struct state {                                                                          \
  PARSER p;                                                                                     \
  zerr err;                                                                                     \
  int failed;                                                                                   \
  int done;                                                                                     \
} state;                                                                                        \
                                                                                                \
static int on_prov_event(void *ud, const zprov_event *ev) {                                     \
  state *s = ud;                                                                                \
  switch (ev->kind) {                                                                           \
    case ZPEV_TEXT:                                                                             \
    case ZPEV_REASONING:                                                                        \
    case ZPEV_TOOL_ARGS:                                                                        \
      if (ev->len && !ev->text) __builtin_trap();                                               \
      if (ev->len) (void)((volatile const char *)ev->text)[ev->len - 1];                        \
      break;                                                                                    \
    case ZPEV_TOOL_START:                                                                       \
      if (!ev->id || !ev->name) __builtin_trap();                                               \
      break;                                                                                    \
    case ZPEV_TOOL_END:                                                                         \
      if (!ev->id || !ev->name || !ev->arguments) __builtin_trap();                             \
      break;                                                                                    \
    case ZPEV_DONE:                                                                             \
      if (s->done++ || !ev->finish_reason) __builtin_trap();                                    \
      break;                                                                                    \
    default:                                                                                    \
      break;                                                                                    \
  }                                                                                             \
  return 0;                                                                                     \
}                                                                                               \
                                                                                                \
static int on_sse_event(void *ud, const zsse_event *ev) {                                       \
  state *s = ud;                                                                                \
  if (PREFIX##_feed(&s->p, ev->data, ev->data_len, &s->err) < 0) {                              \
    s->failed = 1;                                                                              \
    return 1;                                                                                   \
  }                                                                                             \
  return 0;                                                                                     \
}                                                                                               \
                                                                                                \
int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {                                    \
  state s;                                                                                      \
  memset(&s, 0, sizeof s);                                                                      \
  PREFIX##_init(&s.p, "fuzz", on_prov_event, &s);                                               \
  zsse_parser sse;                                                                              \
  zsse_init(&sse, on_sse_event, &s, 1u << 20);                                                  \
  zerr err = ZERR_INIT;                                                                         \
  int rc = zsse_feed(&sse, (const char *)in, size, &err);                                       \
  if (rc == 0 && !s.failed) {                                                                   \
    zsse_finish(&sse);                                                                          \
    zerr ferr = ZERR_INIT;                                                                      \
    if (PREFIX##_finish(&s.p, &ferr) == 0) {                                                    \
      if (s.done != 1) __builtin_trap();                                                        \
    } else if (!ferr.msg[0]) {                                                                  \
      __builtin_trap();                                                                         \
    }                                                                                           \
  } else if (s.failed && !s.err.msg[0]) {                                                       \
    __builtin_trap();                                                                           \
  }                                                                                             \
  zsse_release(&sse);                                                                           \
  PREFIX##_release(&s.p);                                                                       \
  return 0;                                                                                     \
}

#endif
