/* base64.c — RFC 4648 encoding; see base64.h. */
#include "base/base64.h"

#include <stdbool.h>
#include <stdint.h>

static const char STD[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Whole groups of three bytes become four characters; a last group of one or
 * two bytes becomes two or three, plus padding when asked for. */
static void encode(zbuf *out, const unsigned char *p, size_t n, const char *tbl, bool pad) {
  zbuf_grow(out, (n + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    char q[4] = {tbl[v >> 18], tbl[(v >> 12) & 63], tbl[(v >> 6) & 63], tbl[v & 63]};
    zbuf_add(out, q, 4);
  }
  if (i < n) {
    bool two = i + 1 < n;
    uint32_t v = (uint32_t)p[i] << 16 | (two ? (uint32_t)p[i + 1] << 8 : 0);
    char q[4] = {tbl[v >> 18], tbl[(v >> 12) & 63], two ? tbl[(v >> 6) & 63] : '=', '='};
    zbuf_add(out, q, pad ? 4 : two ? 3 : 2);
  }
}

void zbase64_add(zbuf *out, const void *data, size_t n) { encode(out, data, n, STD, true); }

void zbase64url_add(zbuf *out, const void *data, size_t n) { encode(out, data, n, URL, false); }

long long zbase64_decoded_len(const char *s, size_t n) {
  size_t pad = 0;
  while (n && s[n - 1] == '=' && pad < 2) {
    n--;
    pad++;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
          c == '+' || c == '/'))
      return -1;
  }
  if (n % 4 == 1 || (pad && (n + pad) % 4)) return -1;
  size_t decoded = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
  return (long long)decoded;
}
