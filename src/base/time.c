/* time.c — clocks; see time.h. */
#include "base/time.h"

#include <errno.h>
#include <stdio.h>

#include "base/num.h"

void ztime_rfc3339(const struct timespec *ts, char out[ZTIME_RFC3339_LEN]) {
  struct tm tm;
  gmtime_r(&ts->tv_sec, &tm);
  snprintf(out, ZTIME_RFC3339_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
           tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
           (long)(ts->tv_nsec / 1000000));
}

void ztime_rfc3339_now(char out[ZTIME_RFC3339_LEN]) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ztime_rfc3339(&ts, out);
}

int64_t ztime_mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec ztime_realtime_after(int64_t ms) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += (time_t)(ms / 1000);
  t.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

void ztime_sleep_ms(int64_t ms, volatile int *stop) {
  if (ms <= 0) return;
  struct timespec req = {ms / 1000, (long)(ms % 1000) * 1000000L}, rem;
  while (nanosleep(&req, &rem) < 0 && errno == EINTR) {
    if (stop && *stop) return;
    req = rem;
  }
}

/* Parses an RFC 3339 timestamp into seconds and nanoseconds since the epoch
 * so that "…:05Z" (Go, second precision) and "…:05.123Z" (ours) order by
 * time, not by byte. Returns false when s is not a timestamp. */
bool ztime_rfc3339_parse(const char *s, int64_t *sec, long *nsec) {
  struct tm tm = {0};
  int y, mo, d, h, mi, se;
  const char *p = s;
  if (!s || !znum_digits(&p, 4, &y) || *p++ != '-' || !znum_digits(&p, 2, &mo) || *p++ != '-' ||
      !znum_digits(&p, 2, &d) || *p++ != 'T' || !znum_digits(&p, 2, &h) || *p++ != ':' ||
      !znum_digits(&p, 2, &mi) || *p++ != ':' || !znum_digits(&p, 2, &se))
    return false;
  long ns = 0;
  if (*p == '.') {
    long scale = 100000000;
    for (p++; *p >= '0' && *p <= '9'; p++) {
      ns += (*p - '0') * scale;
      scale /= 10;
    }
  }
  int64_t off = 0;
  if (*p == '+' || *p == '-') {
    int oh, om;
    const char *q = p + 1;
    if (!znum_digits(&q, 2, &oh) || *q++ != ':' || !znum_digits(&q, 2, &om)) return false;
    off = (int64_t)(oh * 3600 + om * 60) * (*p == '+' ? 1 : -1);
  } else if (*p != 'Z' && *p != 'z') {
    return false;
  }
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = se;
  *sec = (int64_t)timegm(&tm) - off;
  *nsec = ns;
  return true;
}
