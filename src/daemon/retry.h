/* retry.h — what the daemon does when a worker exits (Go zero's pool
 * contract), as a pure function of the exit and a clock, so the schedule can
 * be tested without waiting.
 *
 *   exit 0             the session is done
 *   exit 76            permanent failure: failed now, never retried
 *   exit 75            temporary failure: retried after a 30 s cool-off
 *                      (the crash backoff does not grow)
 *   anything else      a crash: retried after min(1 s·2ⁿ, 5 min) × jitter,
 *                      n = the crashes so far minus one, jitter uniform in [0.5, 1.5)
 * A session gets ZDMN_MAX_ATTEMPTS attempts in all (the first and 4 retries,
 * Go zero's defaultMaxAttempts); after the last one it is failed with the
 * reason of the last exit ("crash-looping": it is not retried again).
 *
 * Every duration is a multiple of the clock's unit_ms (1000 in production):
 * tests shrink it, the schedule's shape stays.
 */
#ifndef ZERO_DAEMON_RETRY_H
#define ZERO_DAEMON_RETRY_H

#include <stdint.h>

#include "base/buf.h"

#define ZDMN_MAX_ATTEMPTS 5
#define ZDMN_EXIT_TEMPFAIL 75
#define ZDMN_EXIT_PERMANENT 76
#define ZDMN_TEMPFAIL_UNITS 30 /* the cool-off after exit 75 */
#define ZDMN_BACKOFF_CAP_UNITS 300

/* The daemon's clock: now and randomness are injected (tests pass fixed
 * ones). unit_ms is one "second" of the schedule. */
typedef struct zdmn_clock {
  int64_t (*now_ms)(void *ud);
  double (*rand01)(void *ud); /* uniform in [0, 1) */
  void *ud;
  int64_t unit_ms;
} zdmn_clock;

/* The real clock: monotonic milliseconds, random jitter; unit_ms from
 * $ZERO_DAEMON_RETRY_UNIT_MS (tests) or 1000. */
zdmn_clock zdmn_clock_real(void);

/* The integer in environment variable name when it is one in [min, max],
 * else def (the daemon's test knobs). */
long zdmn_env_long(const char *name, long min, long max, long def);

/* The crash backoff before retry n (n >= 0: the first retry is 0), jitter
 * included: min(unit·2ⁿ, 300·unit) × (0.5 + rand01). */
int64_t zdmn_backoff_ms(const zdmn_clock *c, int n);

typedef enum zdmn_verdict { ZDMN_V_DONE, ZDMN_V_RETRY, ZDMN_V_FAIL } zdmn_verdict;

/* A session's retry state. attempts counts started workers; crashes the
 * exits that grow the backoff. */
typedef struct zdmn_retry {
  int attempts;
  int crashes;
} zdmn_retry;

/* Judges one worker's end: exit_code is its status (128+N when killed by
 * signal N). On ZDMN_V_RETRY *due_ms is when to start the next worker; on
 * ZDMN_V_FAIL reason gets why (for the session and the attached clients). */
zdmn_verdict zdmn_retry_judge(zdmn_retry *r, const zdmn_clock *c, int exit_code, int64_t *due_ms,
                              zbuf *reason);

#endif
