/* time.c — clocks; see time.h. */
#include "base/time.h"

#include <errno.h>
#include <stdio.h>

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

void ztime_sleep_ms(int64_t ms, volatile int *stop) {
  if (ms <= 0) return;
  struct timespec req = {ms / 1000, (long)(ms % 1000) * 1000000L}, rem;
  while (nanosleep(&req, &rem) < 0 && errno == EINTR) {
    if (stop && *stop) return;
    req = rem;
  }
}
