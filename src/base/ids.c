/* ids.c — identifiers; see ids.h. */
#include "base/ids.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

void zid_random(void *buf, size_t n) {
  unsigned char *p = buf;
  while (n > 0) {
    ssize_t k = getrandom(p, n, 0);
    if (k < 0) {
      if (errno == EINTR) continue;
      /* getrandom cannot fail on Linux >= 3.17 with a valid buffer. */
      memset(p, 0, n);
      return;
    }
    p += k;
    n -= (size_t)k;
  }
}

static void format_uuid(const unsigned char b[16], char out[ZID_UUID_LEN]) {
  snprintf(out, ZID_UUID_LEN,
           "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
           b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
           b[15]);
}

void zid_uuid4(char out[ZID_UUID_LEN]) {
  unsigned char b[16];
  zid_random(b, sizeof b);
  b[6] = (b[6] & 0x0F) | 0x40;
  b[8] = (b[8] & 0x3F) | 0x80;
  format_uuid(b, out);
}

void zid_uuid7(char out[ZID_UUID_LEN]) {
  unsigned char b[16];
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
  zid_random(b, sizeof b);
  for (int i = 0; i < 6; i++) b[i] = (unsigned char)(ms >> (40 - 8 * i));
  b[6] = (b[6] & 0x0F) | 0x70;
  b[8] = (b[8] & 0x3F) | 0x80;
  format_uuid(b, out);
}

bool zid_is_safe(const char *s) {
  size_t n = 0;
  if (!s) return false;
  for (; s[n]; n++) {
    char c = s[n];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '-' || c == '_'))
      return false;
    if (n >= 128) return false;
  }
  return n > 0;
}
