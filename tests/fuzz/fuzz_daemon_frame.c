/* fuzz_daemon_frame.c — libFuzzer target for the daemon's frame decoder
 * (daemon/frame.h), which reads whatever a local client writes to the
 * control socket.
 *
 * The input is a byte stream of frames. Invariants: no crash; a frame is
 * never longer than the cap, and the parser never claims more bytes than it
 * was given; a refusal is only for a header announcing more than the cap;
 * feeding the same bytes in two pieces (the first byte, then the rest, as a
 * socket may deliver them) finds the same frames; every control message
 * accepted re-encodes to a frame that decodes to an equal message.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "daemon/frame.h"

/* One accepted control message re-encodes to a frame that decodes to an
 * equal message. */
static void check_reencode(const json_t *m) {
  zbuf again = ZBUF_INIT;
  if (zdmn_frame_encode_ctrl(&again, m, NULL) == 0) {
    uint8_t k2;
    const uint8_t *p2;
    uint32_t l2;
    size_t u2;
    if (zdmn_frame_parse((const uint8_t *)again.data, again.len, &k2, &p2, &l2, &u2, NULL) != 1)
      __builtin_trap();
    json_t *m2 = zdmn_ctrl_decode(k2, p2, l2, NULL);
    if (!m2 || !json_equal(m, m2)) __builtin_trap();
    json_decref(m2);
  }
  zbuf_release(&again);
}

/* Walks the stream; returns the number of frames, or -1 at a refusal.
 * sum gets a checksum of the frames' kinds and lengths. */
static long walk(const uint8_t *data, size_t size, uint64_t *sum) {
  long frames = 0;
  size_t off = 0;
  for (;;) {
    uint8_t kind;
    const uint8_t *payload;
    uint32_t plen;
    size_t used;
    zerr err = ZERR_INIT;
    int r = zdmn_frame_parse(data + off, size - off, &kind, &payload, &plen, &used, &err);
    if (r == 0) return frames;
    if (r < 0) {
      const uint8_t *h = data + off;
      uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
      if (err.kind != ZE_TOO_LARGE || n <= ZDMN_FRAME_MAX) __builtin_trap();
      return -1;
    }
    if (plen > ZDMN_FRAME_MAX || used != plen + 5u || used > size - off) __builtin_trap();
    if (payload != data + off + 5) __builtin_trap();
    *sum = *sum * 31 + kind * 1000003u + plen;
    json_t *m = zdmn_ctrl_decode(kind, payload, plen, NULL);
    if (m) {
      check_reencode(m);
      (void)zdmn_negotiate_version(m);
      json_decref(m);
    }
    frames++;
    off += used;
  }
}

/* Takes every complete frame off the front of in, as the daemon does after
 * each read. Returns how many, or -1 at a refusal. */
static long drain(zbuf *in, uint64_t *sum) {
  long n = 0;
  for (;;) {
    uint8_t kind;
    const uint8_t *payload;
    uint32_t plen;
    size_t used;
    int r =
        zdmn_frame_parse((const uint8_t *)in->data, in->len, &kind, &payload, &plen, &used, NULL);
    if (r < 0) return -1;
    if (r == 0) return n;
    *sum = *sum * 31 + kind * 1000003u + plen;
    n++;
    zbuf_consume(in, used);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1u << 16)) return 0;
  uint64_t s1 = 0, s2 = 0;
  long whole = walk(data, size, &s1);
  /* The same bytes arriving in pieces (byte by byte, then 97 at a time), each
   * parsed as it comes: the same frames, or the same refusal. */
  zbuf in = ZBUF_INIT;
  long pieces = 0;
  size_t off = 0;
  while (off < size && pieces >= 0) {
    size_t step = off < 8 ? 1 : 97;
    size_t to = size - off < step ? size : off + step;
    zbuf_add(&in, data + off, to - off);
    off = to;
    long n = drain(&in, &s2);
    pieces = n < 0 ? -1 : pieces + n;
  }
  zbuf_release(&in);
  if (whole != pieces || (whole >= 0 && s1 != s2)) __builtin_trap();
  return 0;
}
