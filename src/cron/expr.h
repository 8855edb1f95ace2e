/* expr.h — schedules for `zero cron`: five-field cron expressions in local
 * time, the @-names, and `@every DURATION`, with the next time each fires.
 *
 * Accepted (Vixie cron's language, what crontab(5) documents):
 *   minute hour day-of-month month day-of-week
 *     each field: `*`, a number, a range `a-b`, a step `*\/n` or `a-b/n` or
 *     `a/n` (a to the field's end), lists of those joined by commas; months
 *     `jan`…`dec` and weekdays `sun`…`sat` by name (any case); weekday 7 is
 *     Sunday like 0.
 *     When both day fields are restricted a day matches either (crontab(5));
 *     when one is `*` only the other counts.
 *   @yearly @annually @monthly @weekly @daily @midnight @hourly
 *   @every N{s,m,h,d} (several units may follow one another: `@every 1h30m`),
 *     at least one minute; it fires N after the previous run.
 *
 * Times are wall-clock seconds since the epoch; fields are matched in the
 * process's local time zone (TZ), as cron does. Across a daylight-saving
 * change a wall time is never fired twice (the repeated hour of the autumn
 * change fires once), and a wall time the spring change skips fires at the
 * first minute after the gap.
 */
#ifndef ZERO_CRON_EXPR_H
#define ZERO_CRON_EXPR_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/err.h"

typedef struct zcron_expr {
  uint64_t minute;           /* bit n: minute n matches (0-59) */
  uint32_t hour;             /* 0-23 */
  uint32_t mday;             /* 1-31 */
  uint16_t month;            /* 1-12 */
  uint8_t wday;              /* 0-6, Sunday 0 */
  bool mday_star, wday_star; /* the field was `*` (or `*\/n`): see above */
  int64_t every_s;           /* > 0: an @every schedule; the fields are unused */
} zcron_expr;

#define ZCRON_EVERY_MIN_S 60

/* A duration as @every takes it: number+unit pairs (s, m, h, d) summed,
 * "1h30m" = 5400, at most a year; no bounds beyond that (callers have
 * their own). Returns 0 with *out in seconds, or -1 with err (ZE_USAGE)
 * quoting s after label ("@every duration \"5x\": each number needs a unit
 * (s, m, h or d)"). */
int zcron_duration_parse(const char *s, const char *label, int64_t *out, zerr *err);

/* Parses text into *e. Returns 0, or -1 with err (ZE_USAGE) saying which
 * field is wrong and why ("minute field \"61\": 61 is out of 0-59"). */
int zcron_parse(const char *text, zcron_expr *e, zerr *err);

/* The first time strictly after `after` (to the minute, seconds 0) at which
 * e fires: for @every, after + every_s. -1 when none comes within five years
 * (`0 0 30 2 *`). */
time_t zcron_next(const zcron_expr *e, time_t after);

/* Whether a schedule whose previous run (or creation, before any run) was
 * at `last` is due at `now`: its next time after `last` has come. However
 * many times were missed, a due schedule runs once; the caller then records
 * now as the last run, so the next time is computed from now. */
bool zcron_due(const zcron_expr *e, time_t last, time_t now);

#endif
