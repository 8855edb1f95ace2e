/* expr.c — cron expressions: the parser and the next-time search
 * (contracts in expr.h).
 *
 * The search walks the calendar (year, month, day, hour, minute) rather than
 * epoch minutes: a field that does not match skips to the start of the next
 * unit above it, so a yearly schedule is found in a few dozen steps, not half
 * a million. Only a matching calendar time is turned into an epoch time
 * (mktime, DST decided by the zone), which is where the daylight-saving
 * rules of expr.h come from.
 */
#include "cron/expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/common.h"

typedef struct field_spec {
  const char *name;
  int lo, hi;
  const char *const *names; /* index = value - names_base, or NULL */
  int names_base;
} field_spec;

static const char *const MONTHS[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                     "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const WDAYS[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

static const field_spec FIELDS[5] = {
    {"minute", 0, 59, NULL, 0},  {"hour", 0, 23, NULL, 0},        {"day-of-month", 1, 31, NULL, 0},
    {"month", 1, 12, MONTHS, 1}, {"day-of-week", 0, 7, WDAYS, 0},
};

/* One value of a field: a number or (where the field has them) a name.
 * Advances *p past it. */
static int parse_value(const field_spec *f, const char **p, int *out) {
  const char *s = *p;
  if (isdigit((unsigned char)*s)) {
    long v = 0;
    while (isdigit((unsigned char)*s) && v < 1000) v = v * 10 + (*s++ - '0');
    if (isdigit((unsigned char)*s)) return -1;
    *out = (int)v;
    *p = s;
    return 0;
  }
  if (!f->names || !isalpha((unsigned char)*s)) return -1;
  size_t n = (size_t)(f->hi - f->lo + 1) - (f->names == WDAYS ? 1 : 0);
  for (size_t i = 0; i < n; i++)
    if (!strncasecmp(s, f->names[i], 3) && !isalpha((unsigned char)s[3])) {
      *out = (int)i + f->names_base;
      *p = s + 3;
      return 0;
    }
  return -1;
}

static int field_error(zerr *err, const field_spec *f, const char *text, const char *why) {
  return zerr_set(err, ZE_USAGE, "%s field \"%s\": %s", f->name, text, why);
}

/* One comma-separated item: `*`, `v`, `a-b`, each optionally `/step`. Sets
 * the matching bits of *bits. */
static int parse_item(const field_spec *f, const char *item, uint64_t *bits, bool *star,
                      const char *whole, zerr *err) {
  const char *p = item;
  int a = f->lo, b = f->hi;
  bool single = false; /* one value, no range: `a/n` then runs to the end */
  if (*p == '*') {
    p++;
    *star = true;
  } else {
    if (parse_value(f, &p, &a) < 0)
      return field_error(err, f, whole, "expected a number or a name");
    b = a;
    single = true;
    if (*p == '-') {
      p++;
      single = false;
      if (parse_value(f, &p, &b) < 0) return field_error(err, f, whole, "a range needs an end");
    }
  }
  long step = 1;
  if (*p == '/') {
    char *end;
    errno = 0;
    step = strtol(p + 1, &end, 10);
    if (end == p + 1 || *end || errno || step < 1 || step > f->hi)
      return field_error(err, f, whole, "a step is a number from 1 to the field's largest value");
    if (single) b = f->hi; /* `a/n`: from a to the field's end */
    p = end;
  }
  if (*p) return field_error(err, f, whole, "unexpected characters");
  zbuf m = ZBUF_INIT;
  if (a < f->lo || a > f->hi || b < f->lo || b > f->hi) {
    zbuf_addf(&m, "%d is out of %d-%d", a < f->lo || a > f->hi ? a : b, f->lo, f->hi);
    field_error(err, f, whole, m.data);
    zbuf_release(&m);
    return -1;
  }
  if (a > b) {
    zbuf_addf(&m, "the range %d-%d runs backwards", a, b);
    field_error(err, f, whole, m.data);
    zbuf_release(&m);
    return -1;
  }
  for (int v = a; v <= b; v += (int)step) *bits |= 1ull << v;
  return 0;
}

/* A whole field: its comma-separated items. */
static int parse_field(const field_spec *f, const char *text, uint64_t *bits, bool *star,
                       zerr *err) {
  *bits = 0;
  *star = false;
  char *copy = xstrdup(text);
  int rc = 0;
  char *next = NULL;
  for (char *item = copy; item && rc == 0; item = next) {
    char *comma = strchr(item, ',');
    next = comma ? comma + 1 : NULL;
    if (comma) *comma = '\0';
    bool item_star = false;
    if (!*item) rc = field_error(err, f, text, "an empty item");
    else rc = parse_item(f, item, bits, &item_star, text, err);
    /* Vixie cron's rule: a field whose first item starts with `*` (`*`,
     * `*\/2`, `*,5`) is unrestricted for the day-of-month/day-of-week OR. */
    if (item == copy) *star = item_star;
  }
  free(copy);
  return rc;
}

static int64_t unit_seconds(char c) {
  switch (c) {
    case 's': return 1;
    case 'm': return 60;
    case 'h': return 3600;
    case 'd': return 86400;
    default: return 0;
  }
}

int zcron_duration_parse(const char *s, const char *label, int64_t *out, zerr *err) {
  int64_t total = 0;
  for (const char *p = s; *p; p++) {
    int64_t n = 0;
    if (!isdigit((unsigned char)*p))
      return zerr_set(err, ZE_USAGE, "%s \"%s\": expected a number", label, s);
    while (isdigit((unsigned char)*p) && n < 100000000) n = n * 10 + (*p++ - '0');
    int64_t unit = unit_seconds(*p);
    if (!unit)
      return zerr_set(err, ZE_USAGE, "%s \"%s\": each number needs a unit (s, m, h or d)", label,
                      s);
    total += n * unit;
    if (total > 366LL * 86400)
      return zerr_set(err, ZE_USAGE, "%s \"%s\" is longer than a year", label, s);
  }
  if (!*s) return zerr_set(err, ZE_USAGE, "%s: expected a number and a unit, as in 10m", label);
  *out = total;
  return 0;
}

/* `@every 1h30m`: the sum of number+unit pairs, in seconds. */
static int parse_every(const char *s, int64_t *out, zerr *err) {
  while (*s == ' ') s++;
  if (!*s) return zerr_set(err, ZE_USAGE, "@every needs a duration, as in @every 10m");
  int64_t total = 0;
  if (zcron_duration_parse(s, "@every duration", &total, err) < 0) return -1;
  if (total < ZCRON_EVERY_MIN_S)
    return zerr_set(err, ZE_USAGE, "@every duration \"%s\" is shorter than a minute", s);
  *out = total;
  return 0;
}

static const struct {
  const char *name, *expr;
} MACROS[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

/* Splits copy (modified) at blanks into at most 6 fields; returns how many. */
static int split_fields(char *copy, char *fields[6]) {
  int n = 0;
  for (char *p = copy; *p && n < 6;) {
    while (*p == ' ' || *p == '\t') *p++ = '\0';
    if (!*p) break;
    fields[n++] = p;
    while (*p && *p != ' ' && *p != '\t') p++;
  }
  return n;
}

/* The five fields of text into e. */
static int parse_fields(const char *text, zcron_expr *e, zerr *err) {
  char *copy = xstrdup(text);
  char *fields[6] = {0};
  int n = split_fields(copy, fields);
  int rc = 0;
  if (n != 5)
    rc = zerr_set(err, ZE_USAGE,
                  "a cron expression has 5 fields (minute hour day-of-month month day-of-week), "
                  "\"%s\" has %s%d",
                  text, n > 5 ? "more than " : "", n > 5 ? 5 : n);
  uint64_t bits[5] = {0};
  bool star[5] = {0};
  for (int i = 0; i < 5 && rc == 0; i++)
    rc = parse_field(&FIELDS[i], fields[i], &bits[i], &star[i], err);
  free(copy);
  if (rc) return -1;
  e->minute = bits[0];
  e->hour = (uint32_t)bits[1];
  e->mday = (uint32_t)bits[2];
  e->month = (uint16_t)bits[3];
  e->wday = (uint8_t)((bits[4] | (bits[4] >> 7)) & 0x7f); /* 7 is Sunday */
  e->mday_star = star[2];
  e->wday_star = star[4];
  return 0;
}

int zcron_parse(const char *text, zcron_expr *e, zerr *err) {
  memset(e, 0, sizeof *e);
  while (*text == ' ' || *text == '\t') text++;
  if (!strncmp(text, "@every", 6) && (text[6] == ' ' || text[6] == '\0'))
    return parse_every(text + 6, &e->every_s, err);
  if (*text != '@') return parse_fields(text, e, err);
  for (size_t i = 0; i < ZARRAY_LEN(MACROS); i++)
    if (!strcasecmp(text, MACROS[i].name)) return parse_fields(MACROS[i].expr, e, err);
  return zerr_set(err, ZE_USAGE,
                  "unknown schedule \"%s\" (@yearly, @monthly, @weekly, @daily, @hourly or "
                  "@every DURATION)",
                  text);
}

static bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int days_in(int y, int m) {
  static const int D[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12) return 31; /* never: the cursor's month is 1-12 */
  return m == 2 && leap(y) ? 29 : D[m - 1];
}

/* Day of the week (0 Sunday) of a Gregorian date (Sakamoto's method). */
static int weekday(int y, int m, int d) {
  static const int T[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
  if (m < 1 || m > 12) return 0; /* never: the cursor's month is 1-12 */
  if (m < 3) y--;
  return (y + y / 4 - y / 100 + y / 400 + T[m - 1] + d) % 7;
}

static bool day_matches(const zcron_expr *e, int y, int m, int d) {
  bool md = e->mday >> d & 1, wd = e->wday >> weekday(y, m, d) & 1;
  if (e->mday_star || e->wday_star) return md && wd;
  return md || wd;
}

/* A calendar minute: the search's cursor. */
typedef struct cal {
  int y, mo, d, h, mi;
} cal;

static void next_month(cal *c) {
  c->d = 1, c->h = c->mi = 0;
  if (++c->mo > 12) c->mo = 1, c->y++;
}

static void next_day(cal *c) {
  c->h = c->mi = 0;
  if (++c->d > days_in(c->y, c->mo)) {
    c->d = 1;
    if (++c->mo > 12) c->mo = 1, c->y++;
  }
}

static void next_hour(cal *c) {
  c->mi = 0;
  if (++c->h > 23) next_day(c);
}

static void next_minute(cal *c) {
  if (++c->mi > 59) next_hour(c);
}

/* True when c matches every field; else moves c to the start of the next
 * unit that could (the field that failed, one up). */
static bool matches_or_skip(const zcron_expr *e, cal *c) {
  if (!(e->month >> c->mo & 1)) return next_month(c), false;
  if (!day_matches(e, c->y, c->mo, c->d)) return next_day(c), false;
  if (!(e->hour >> c->h & 1)) return next_hour(c), false;
  if (!(e->minute >> c->mi & 1)) return next_minute(c), false;
  return true;
}

static time_t cal_time(const cal *c) {
  struct tm tm = {.tm_year = c->y - 1900,
                  .tm_mon = c->mo - 1,
                  .tm_mday = c->d,
                  .tm_hour = c->h,
                  .tm_min = c->mi,
                  .tm_isdst = -1};
  return mktime(&tm);
}

time_t zcron_next(const zcron_expr *e, time_t after) {
  if (e->every_s > 0) return after + e->every_s;
  time_t start = after - (after % 60 + 60) % 60 + 60; /* the next whole minute */
  struct tm tm;
  if (!localtime_r(&start, &tm)) return -1;
  cal c = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min};
  for (int last_year = c.y + 5; c.y <= last_year;) {
    if (!matches_or_skip(e, &c)) continue;
    time_t t = cal_time(&c);
    /* The autumn change's repeated hour maps back before `after`: that
     * wall time has fired already. */
    if (t > after) return t;
    next_minute(&c);
  }
  return -1;
}

bool zcron_due(const zcron_expr *e, time_t last, time_t now) {
  time_t next = zcron_next(e, last);
  return next >= 0 && next <= now;
}
