/* time.h — wall and monotonic clocks. */
#ifndef ZERO_BASE_TIME_H
#define ZERO_BASE_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define ZTIME_RFC3339_LEN 40

/* RFC 3339 UTC timestamp with millisecond precision: 2026-11-30T02:39:55.123Z */
void ztime_rfc3339_now(char out[ZTIME_RFC3339_LEN]);
void ztime_rfc3339(const struct timespec *ts, char out[ZTIME_RFC3339_LEN]);
/* Parses an RFC 3339 timestamp ("…:05Z", "…:05.123Z", "…:05+02:00") into
 * seconds and nanoseconds since the epoch. false when s is not one. */
bool ztime_rfc3339_parse(const char *s, int64_t *sec, long *nsec);
/* Milliseconds on the monotonic clock. */
int64_t ztime_mono_ms(void);
/* The CLOCK_REALTIME time ms (>= 0) milliseconds from now: the absolute
 * deadline pthread_cond_timedwait takes (on a default condition variable). */
struct timespec ztime_realtime_after(int64_t ms);
/* Sleeps for ms milliseconds (restarts on EINTR unless *stop becomes nonzero). */
void ztime_sleep_ms(int64_t ms, volatile int *stop);

#endif
