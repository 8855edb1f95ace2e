/* test_cron.c — `zero cron`'s schedules (src/cron/): the expression parser,
 * the next-run table (UTC and across America/New_York's daylight-saving
 * changes), the missed-run rule, and the store's claims. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/common.h"
#include "base/json.h"
#include "cron/expr.h"
#include "cron/run.h"
#include "cron/store.h"

static void set_tz(const char *tz) {
  setenv("TZ", tz, 1);
  tzset();
}

/* "2026-12-02 14:25" in the current zone → epoch seconds. */
static time_t at(const char *local) {
  struct tm tm = {0};
  const char *end = strptime(local, "%Y-%m-%d %H:%M", &tm);
  assert_true(end && !*end);
  tm.tm_isdst = -1;
  return mktime(&tm);
}

/* The next run after `after` in the current zone, as "YYYY-MM-DD HH:MM". */
static const char *next_str(const char *expr, const char *after, char out[40]) {
  zcron_expr e;
  zerr err = ZERR_INIT;
  if (zcron_parse(expr, &e, &err) < 0) fail_msg("%s: %s", expr, err.msg);
  time_t t = zcron_next(&e, at(after));
  if (t < 0) return "never";
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(out, 40, "%Y-%m-%d %H:%M", &tm);
  return out;
}

static void test_next_run_table_utc(void **state) {
  (void)state;
  set_tz("UTC");
  static const struct {
    const char *expr, *after, *next;
  } T[] = {
      {"*/10 * * * *", "2026-12-02 14:25", "2026-12-02 14:30"},
      {"*/10 * * * *", "2026-12-02 14:30", "2026-12-02 14:40"},    /* strictly after */
      {"0 9 * * mon-fri", "2026-12-04 09:00", "2026-12-07 09:00"}, /* Fri → Mon */
      {"0 9 * * 1-5", "2026-12-05 08:00", "2026-12-07 09:00"},
      {"30 2 1 * *", "2026-12-02 00:00", "2027-01-01 02:30"},
      {"0 0 29 2 *", "2026-03-01 00:00", "2028-02-29 00:00"},  /* the next leap day */
      {"0 0 31 * *", "2026-04-01 00:00", "2026-05-31 00:00"},  /* April has no 31st */
      {"0 12 13 * 5", "2026-02-01 00:00", "2026-02-06 12:00"}, /* day-of-month OR weekday */
      {"0 12 13 * *", "2026-02-01 00:00", "2026-02-13 12:00"},
      {"0 12 * * 7", "2026-12-02 00:00", "2026-12-06 12:00"}, /* 7 is Sunday */
      {"0 12 * * SUN", "2026-12-02 00:00", "2026-12-06 12:00"},
      {"15 14 * Jan,Jul *", "2026-12-02 00:00", "2027-01-01 14:15"},
      {"5/20 * * * *", "2026-12-02 14:26", "2026-12-02 14:45"}, /* a/n runs to the end */
      {"0-10/5 3 * * *", "2026-12-02 03:07", "2026-12-02 03:10"},
      {"@hourly", "2026-12-02 14:25", "2026-12-02 15:00"},
      {"@daily", "2026-12-31 23:59", "2027-01-01 00:00"},
      {"@weekly", "2026-12-02 00:00", "2026-12-06 00:00"},
      {"@monthly", "2026-12-02 00:00", "2027-01-01 00:00"},
      {"@yearly", "2026-12-02 00:00", "2027-01-01 00:00"},
      {"0 0 30 2 *", "2026-01-01 00:00", "never"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(T); i++) {
    char buf[40];
    const char *got = next_str(T[i].expr, T[i].after, buf);
    if (strcmp(got, T[i].next))
      fail_msg("%s after %s: got %s, want %s", T[i].expr, T[i].after, got, T[i].next);
  }
}

/* America/New_York: spring forward 2026-03-08 02:00 → 03:00, fall back
 * 2026-11-01 02:00 → 01:00. */
static void test_daylight_saving_changes(void **state) {
  (void)state;
  set_tz("America/New_York");
  char buf[40];
  /* 02:30 does not exist on 2026-03-08: the run is at the first minute after the gap. */
  assert_string_equal(next_str("30 2 * * *", "2026-03-08 00:00", buf), "2026-03-08 03:30");
  assert_string_equal(next_str("30 2 * * *", "2026-03-08 04:00", buf), "2026-03-09 02:30");
  /* The repeated 01:30 of 2026-11-01 fires once. */
  zcron_expr e;
  zerr err = ZERR_INIT;
  assert_int_equal(zcron_parse("30 1 * * *", &e, &err), 0);
  time_t first = zcron_next(&e, at("2026-11-01 00:00"));
  time_t second = zcron_next(&e, first);
  assert_true(second - first > 23 * 3600); /* the next day's, not an hour later */
  struct tm tm;
  localtime_r(&second, &tm);
  assert_int_equal(tm.tm_mday, 2);
  assert_int_equal(tm.tm_hour, 1);
  assert_int_equal(tm.tm_min, 30);
  /* Seen from inside the repeated hour (01:10 EST, after 01:30 EDT went by),
   * the next run is never in the past, whichever offset 01:30 maps to. */
  time_t inside = first + 3600 - 20 * 60;
  for (const char *x = "30 1 * * *"; x; x = NULL) {
    assert_int_equal(zcron_parse(x, &e, &err), 0);
    assert_true(zcron_next(&e, inside) > inside);
  }
  set_tz("UTC");
}

static void test_bad_expressions_say_what_is_wrong(void **state) {
  (void)state;
  static const struct {
    const char *expr, *msg;
  } T[] = {
      {"61 * * * *", "minute field \"61\": 61 is out of 0-59"},
      {"* 24 * * *", "hour field \"24\": 24 is out of 0-23"},
      {"* * 0 * *", "day-of-month field \"0\": 0 is out of 1-31"},
      {"* * * 13 *", "month field \"13\": 13 is out of 1-12"},
      {"* * * * 8", "day-of-week field \"8\": 8 is out of 0-7"},
      {"5-1 * * * *", "the range 5-1 runs backwards"},
      {"*/0 * * * *", "a step is a number"},
      {"1,,2 * * * *", "an empty item"},
      {"a * * * *", "expected a number or a name"},
      {"* * * * * *", "has more than 5"},
      {"* * *", "has 3"},
      {"", "has 0"},
      {"@every", "needs a duration"},
      {"@every 5", "each number needs a unit"},
      {"@every 59s", "shorter than a minute"},
      {"@every 400d", "longer than a year"},
      {"@reboot", "unknown schedule"},
  };
  for (size_t i = 0; i < ZARRAY_LEN(T); i++) {
    zcron_expr e;
    zerr err = ZERR_INIT;
    assert_int_equal(zcron_parse(T[i].expr, &e, &err), -1);
    if (!strstr(err.msg, T[i].msg))
      fail_msg("%s: got \"%s\", want \"%s\"", T[i].expr, err.msg, T[i].msg);
    assert_int_equal(err.kind, ZE_USAGE);
  }
}

static void test_every_and_the_missed_run_rule(void **state) {
  (void)state;
  zcron_expr e;
  zerr err = ZERR_INIT;
  assert_int_equal(zcron_parse("@every 1h30m", &e, &err), 0);
  assert_int_equal(e.every_s, 5400);
  assert_int_equal(zcron_next(&e, 1000), 6400);
  /* Due once its next time after the last run has come, however many were missed. */
  assert_false(zcron_due(&e, 1000, 6399));
  assert_true(zcron_due(&e, 1000, 6400));
  assert_true(zcron_due(&e, 1000, 1000 + 100 * 5400));
  set_tz("UTC");
  assert_int_equal(zcron_parse("0 * * * *", &e, &err), 0);
  assert_false(zcron_due(&e, at("2026-12-02 14:00"), at("2026-12-02 14:59")));
  assert_true(zcron_due(&e, at("2026-12-02 14:00"), at("2026-12-03 09:17")));
}

/* ---- the store ------------------------------------------------------------------ */

typedef struct fired {
  int n;
  char ids[8][80];
} fired;

static void on_fire(json_t *job, const char *session_id, void *ud) {
  fired *f = ud;
  snprintf(f->ids[f->n++], 80, "%s %s", zjson_str(job, "id"), session_id);
  json_decref(job);
}

static char *tmp_store(void) {
  char dir[] = "/tmp/zero-cron-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char *p = NULL;
  assert_true(asprintf(&p, "%s/cron.json", dir) > 0);
  return p;
}

static json_t *job(const char *id, const char *schedule, const char *created) {
  return json_pack("{s:s, s:s, s:s, s:s, s:s}", "id", id, "schedule", schedule, "prompt", "p",
                   "cwd", "/", "createdAt", created);
}

static void test_claims_record_the_run_before_it_starts(void **state) {
  (void)state;
  set_tz("UTC");
  char *path = tmp_store();
  zerr err = ZERR_INIT;
  json_t *j1 = job("hourly", "0 * * * *", "2026-12-02T09:10:00Z");
  json_t *j2 = job("daily", "@daily", "2026-12-02T09:10:00Z");
  assert_int_equal(zcron_store_add(path, j1, &err), 0);
  assert_int_equal(zcron_store_add(path, j2, &err), 0);
  assert_int_equal(zcron_store_add(path, j1, &err), -1); /* a duplicate id */
  assert_int_equal(err.kind, ZE_USAGE);
  json_decref(j1);
  json_decref(j2);
  time_t now = at("2026-12-02 14:25");
  json_t *loaded = zcron_store_load(path, &err);
  assert_int_equal(zcron_jobs_next_due(loaded, at("2026-12-02 09:30"), NULL),
                   at("2026-12-02 10:00"));
  json_decref(loaded);
  /* At 14:25 the hourly one missed 10:00 … 14:00: it runs once. */
  fired f = {0};
  time_t next_after = 0;
  assert_int_equal(zcron_store_claim_due(path, now, NULL, NULL, on_fire, &f, &next_after, &err), 1);
  assert_string_equal(f.ids[0], "hourly cron-hourly-20261202T142500Z");
  /* The claimed run recorded: the next look is the hourly one's 15:00. */
  assert_int_equal(next_after, at("2026-12-02 15:00"));
  /* Claimed: a second scheduler at the same moment gets nothing. */
  assert_int_equal(zcron_store_claim_due(path, now, NULL, NULL, on_fire, &f, NULL, &err), 0);
  json_t *jobs = zcron_store_load(path, &err);
  json_t *h = json_array_get(jobs, 0);
  assert_int_equal(zjson_int_or(h, "runs", 0), 1);
  assert_string_equal(zjson_str(h, "lastSession"), "cron-hourly-20261202T142500Z");
  assert_int_equal(zcron_job_next(h, now), at("2026-12-02 15:00"));
  json_decref(jobs);
  /* A skipped job (its run goes on) stays due and is not claimed. */
  const char *skip[] = {"hourly", NULL};
  f.n = 0;
  /* The claim's one read also says when to look next: the skipped job
   * left out, the daily one's midnight. */
  time_t next = 0;
  assert_int_equal(zcron_store_claim_due(path, at("2026-12-02 15:01"), NULL, skip, on_fire, &f,
                                         &next, &err),
                   0);
  assert_int_equal(next, at("2026-12-03 00:00"));
  assert_int_equal(zcron_store_claim_due(path, at("2026-12-02 15:01"), NULL, NULL, on_fire, &f,
                                         NULL, &err),
                   1);
  /* only_id: runs that job now, due or not; an unknown id is an error. */
  f.n = 0;
  assert_int_equal(zcron_store_claim_due(path, now + 7200, "daily", NULL, on_fire, &f, NULL, &err),
                   1);
  assert_int_equal(zcron_store_claim_due(path, now, "nope", NULL, on_fire, &f, NULL, &err), -1);
  assert_non_null(strstr(err.msg, "no schedule named nope"));
  assert_int_equal(zcron_store_remove(path, "daily", &err), 0);
  assert_int_equal(zcron_store_remove(path, "daily", &err), 1);
  unlink(path);
  free(path);
}

static void test_run_now_and_exec_flags(void **state) {
  (void)state;
  char *path = tmp_store();
  zerr err = ZERR_INIT;
  json_t *j = job("now", "@yearly", "2026-12-02T09:10:00Z");
  json_object_set_new(j, "runNow", json_true());
  json_object_set_new(j, "permissionMode", json_string("auto"));
  json_object_set_new(j, "model", json_string("gpt-5"));
  assert_int_equal(zcron_store_add(path, j, &err), 0);
  time_t now = time(NULL);
  assert_int_equal(zcron_job_next(j, now), now);
  fired f = {0};
  assert_int_equal(zcron_store_claim_due(path, now, NULL, NULL, on_fire, &f, NULL, &err), 1);
  json_t *jobs = zcron_store_load(path, &err);
  assert_null(json_object_get(json_array_get(jobs, 0), "runNow")); /* once */
  json_decref(jobs);
  strvec av = STRVEC_INIT;
  zcron_exec_args(j, "cron-now-1", &av);
  const char *want[] = {"--init-session-id", "cron-now-1", "--schedule", "now",
                        "--permission-mode", "auto",       "--model",    "gpt-5"};
  assert_int_equal(av.nr, ZARRAY_LEN(want));
  for (size_t i = 0; i < av.nr; i++) assert_string_equal(av.v[i], want[i]);
  strvec_clear(&av);
  json_decref(j);
  assert_false(zcron_id_valid("../x"));
  assert_false(zcron_id_valid("-x"));
  assert_false(zcron_id_valid(""));
  assert_true(zcron_id_valid("babysit_prs-2"));
  unlink(path);
  free(path);
}

/* The duration parser @every and /loop share: sums, the cap, the label in
 * its messages, and no minimum of its own (/loop takes 10s). */
static void test_duration_parser_shared_with_loop(void **state) {
  (void)state;
  int64_t s = 0;
  zerr err = ZERR_INIT;
  assert_int_equal(zcron_duration_parse("1h30m", "/loop interval", &s, &err), 0);
  assert_int_equal(s, 5400);
  assert_int_equal(zcron_duration_parse("10s", "/loop interval", &s, &err), 0);
  assert_int_equal(s, 10);
  assert_int_equal(zcron_duration_parse("2d3s", "x", &s, &err), 0);
  assert_int_equal(s, 2 * 86400 + 3);
  assert_int_equal(zcron_duration_parse("5x", "/loop interval", &s, &err), -1);
  assert_string_equal(err.msg, "/loop interval \"5x\": each number needs a unit (s, m, h or d)");
  assert_int_equal(zcron_duration_parse("m5", "/loop interval", &s, &err), -1);
  assert_non_null(strstr(err.msg, "expected a number"));
  assert_int_equal(zcron_duration_parse("", "/loop interval", &s, &err), -1);
  assert_non_null(strstr(err.msg, "expected a number and a unit"));
  assert_int_equal(zcron_duration_parse("367d", "/loop interval", &s, &err), -1);
  assert_non_null(strstr(err.msg, "longer than a year"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_next_run_table_utc),
      cmocka_unit_test(test_daylight_saving_changes),
      cmocka_unit_test(test_bad_expressions_say_what_is_wrong),
      cmocka_unit_test(test_every_and_the_missed_run_rule),
      cmocka_unit_test(test_claims_record_the_run_before_it_starts),
      cmocka_unit_test(test_run_now_and_exec_flags),
      cmocka_unit_test(test_duration_parser_shared_with_loop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
