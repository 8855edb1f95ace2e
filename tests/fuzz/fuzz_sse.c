/* fuzz_sse.c — libFuzzer target for the SSE parser (net/sse.c).
 *
 * The first input byte (and the second, for larger inputs) picks a split
 * offset; the rest is the stream. The stream is parsed whole and again in
 * two pieces cut at that offset, with a small event limit so the size checks
 * are exercised too. Both runs must agree on every event, the error kind,
 * the comment count and the truncation flag: the contract says any byte
 * split yields the same result. Any disagreement traps.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "net/sse.h"

#define FUZZ_MAX_EVENT 4096

typedef struct run {
  zbuf log;       /* "event\x1fid\x1flen:data\x1e" per event */
  int rc;         /* first nonzero zsse_feed result */
  zerr_kind kind;
  int truncated;
  size_t comments;
  size_t seen;    /* callback invocations */
} run;

static int record(void *ud, const zsse_event *ev) {
  run *r = ud;
  if (ev->data[ev->data_len] != '\0') __builtin_trap();
  zbuf_addf(&r->log, "%s\x1f%s\x1f%zu:", ev->event, ev->id, ev->data_len);
  zbuf_add(&r->log, ev->data, ev->data_len);
  zbuf_addch(&r->log, '\x1e');
  r->seen++;
  return 0;
}

static void parse(const char *data, size_t len, size_t cut, run *r) {
  zsse_parser p;
  zerr err = ZERR_INIT;
  zbuf_init(&r->log);
  r->seen = 0;
  zsse_init(&p, record, r, FUZZ_MAX_EVENT);
  r->rc = zsse_feed(&p, data, cut, &err);
  if (r->rc == 0) r->rc = zsse_feed(&p, data + cut, len - cut, &err);
  r->kind = r->rc ? err.kind : ZE_OK;
  if (r->rc) {
    /* A failed parser must keep failing. */
    zerr again = ZERR_INIT;
    if (zsse_feed(&p, "\n\n", 2, &again) != -1) __builtin_trap();
  }
  r->truncated = r->rc ? 0 : zsse_finish(&p);
  r->comments = p.comments;
  if (p.events != r->seen) __builtin_trap();
  zsse_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
  if (size < 2) return 0;
  size_t pick = (size_t)in[0] << 8 | in[1];
  const char *data = (const char *)in + 2;
  size_t len = size - 2;
  size_t cut = len ? pick % (len + 1) : 0;

  run whole, split;
  parse(data, len, len, &whole);
  parse(data, len, cut, &split);

  /* Before an error the events must match; an error must happen in both. */
  if (whole.rc != split.rc || whole.kind != split.kind) __builtin_trap();
  if (whole.log.len != split.log.len || memcmp(whole.log.data, split.log.data, whole.log.len))
    __builtin_trap();
  if (whole.rc == 0 && (whole.truncated != split.truncated || whole.comments != split.comments))
    __builtin_trap();
  zbuf_release(&whole.log);
  zbuf_release(&split.log);
  return 0;
}
