/* test_sse.c — the SSE parser against recorded streams, fed whole, split at
 * every byte boundary, in three pieces, and byte by byte; size limits;
 * callback stop; failure stickiness.
 *
 * Fixtures: tests/fixtures/sse/<name>.sse with <name>.expected.json holding
 * {"events":[{"event","id","data"}…], "truncated": bool, "comments": n}.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "net/sse.h"

#define SSE_DIR FIXTURES_DIR "/sse"

/* ---- recording events as one comparable string ---- */

/* One event becomes "event\x1f" "id\x1f" "<len>:" data "\x1e", so embedded
 * newlines or NULs cannot make two different sequences look equal. */
static void record_event(zbuf *out, const char *event, const char *id, const char *data,
                         size_t len) {
  zbuf_addf(out, "%s\x1f%s\x1f%zu:", event, id, len);
  zbuf_add(out, data, len);
  zbuf_addch(out, '\x1e');
}

typedef struct recorder {
  zbuf out;
  int stop_after;  /* return 7 from the callback after this many events; 0 = never */
  int seen;
} recorder;

static int on_event(void *ud, const zsse_event *ev) {
  recorder *r = ud;
  /* The data must be NUL-terminated at data_len, as the contract says. */
  assert_int_equal(ev->data[ev->data_len], '\0');
  record_event(&r->out, ev->event, ev->id, ev->data, ev->data_len);
  r->seen++;
  return (r->stop_after && r->seen >= r->stop_after) ? 7 : 0;
}

typedef struct outcome {
  zbuf events;
  int truncated;
  size_t comments;
} outcome;

static void outcome_release(outcome *o) { zbuf_release(&o->events); }

/* Feeds `data` cut at the given sorted offsets; every feed must succeed. */
static void parse_pieces(const char *data, size_t len, const size_t *cuts, size_t ncuts,
                         outcome *o) {
  recorder r = {ZBUF_INIT, 0, 0};
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, on_event, &r, 0);
  size_t pos = 0;
  for (size_t i = 0; i <= ncuts; i++) {
    size_t next = i < ncuts ? cuts[i] : len;
    int rc = zsse_feed(&p, data + pos, next - pos, &err);
    if (rc != 0) fail_msg("zsse_feed failed (%d): %s", rc, err.msg);
    pos = next;
  }
  o->truncated = zsse_finish(&p);
  o->comments = p.comments;
  assert_int_equal(p.events, (size_t)r.seen);
  zsse_release(&p);
  o->events = r.out;
}

static void parse_bytewise(const char *data, size_t len, outcome *o) {
  recorder r = {ZBUF_INIT, 0, 0};
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, on_event, &r, 0);
  for (size_t i = 0; i < len; i++) assert_int_equal(zsse_feed(&p, data + i, 1, &err), 0);
  o->truncated = zsse_finish(&p);
  o->comments = p.comments;
  zsse_release(&p);
  o->events = r.out;
}

static void expect_same(const outcome *want, const outcome *got, const char *name,
                        const char *how) {
  if (want->events.len != got->events.len ||
      memcmp(want->events.data, got->events.data, want->events.len) != 0 ||
      want->truncated != got->truncated || want->comments != got->comments)
    fail_msg("%s: %s gave different events/truncation/comments\nwant: %s (trunc %d, "
             "comments %zu)\ngot:  %s (trunc %d, comments %zu)",
             name, how, want->events.data, want->truncated, want->comments,
             got->events.data, got->truncated, got->comments);
}

/* Loads <name>.expected.json into an outcome. */
static void load_expected(const char *name, outcome *o) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.expected.json", SSE_DIR, name);
  zerr err = ZERR_INIT;
  json_t *root = zjson_load_file(path, &err);
  if (!root) fail_msg("%s", err.msg);
  zbuf_init(&o->events);
  json_t *events = json_object_get(root, "events");
  assert_true(json_is_array(events));
  size_t i;
  json_t *ev;
  json_array_foreach(events, i, ev) {
    json_t *d = json_object_get(ev, "data");
    assert_non_null(d);
    record_event(&o->events, zjson_str_or(ev, "event", "message"), zjson_str_or(ev, "id", ""),
                 json_string_value(d), json_string_length(d));
  }
  o->truncated = zjson_bool_or(root, "truncated", false) ? 1 : 0;
  o->comments = (size_t)zjson_int_or(root, "comments", 0);
  json_decref(root);
}

/* Runs every split strategy over one fixture. */
static void check_fixture(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.sse", SSE_DIR, name);
  cleanup_zbuf zbuf raw = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (zfs_read_file(path, &raw, 0, &err) < 0) fail_msg("%s", err.msg);

  outcome want, got;
  load_expected(name, &want);

  parse_pieces(raw.data, raw.len, NULL, 0, &got);
  expect_same(&want, &got, name, "whole feed");
  outcome_release(&got);

  for (size_t cut = 0; cut <= raw.len; cut++) {
    parse_pieces(raw.data, raw.len, &cut, 1, &got);
    char how[64];
    snprintf(how, sizeof how, "split at byte %zu", cut);
    expect_same(&want, &got, name, how);
    outcome_release(&got);
  }

  parse_bytewise(raw.data, raw.len, &got);
  expect_same(&want, &got, name, "byte-by-byte feed");
  outcome_release(&got);

  /* Three pieces (every pair of cuts) where that stays cheap. */
  if (raw.len <= 300) {
    for (size_t a = 0; a <= raw.len; a++)
      for (size_t b = a; b <= raw.len; b++) {
        size_t cuts[2] = {a, b};
        parse_pieces(raw.data, raw.len, cuts, 2, &got);
        char how[64];
        snprintf(how, sizeof how, "split at bytes %zu and %zu", a, b);
        expect_same(&want, &got, name, how);
        outcome_release(&got);
      }
  }
  outcome_release(&want);
}

/* ---- tests ---- */

static void required_fixtures_parse_identically_at_every_split(void **state) {
  (void)state;
  static const char *const required[] = {
      "simple",   "multiline", "crlf",        "cr_only",       "mixed_endings",
      "comments", "event_id",  "bom",         "bom_partial",   "truncated",
      "no_blank_line", "openai_chat", "anthropic", "utf8",
  };
  for (size_t i = 0; i < ZARRAY_LEN(required); i++) check_fixture(required[i]);
}

/* Any fixture dropped into the directory later is checked too. */
static void every_fixture_in_directory_has_expectations(void **state) {
  (void)state;
  DIR *d = opendir(SSE_DIR);
  assert_non_null(d);
  struct dirent *de;
  int n = 0;
  while ((de = readdir(d)) != NULL) {
    size_t l = strlen(de->d_name);
    if (l <= 4 || strcmp(de->d_name + l - 4, ".sse") != 0) continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(l - 4), de->d_name);
    check_fixture(name);
    n++;
  }
  closedir(d);
  assert_true(n >= 14);
}

static void openai_stream_ends_with_done_sentinel(void **state) {
  (void)state;
  cleanup_zbuf zbuf raw = ZBUF_INIT;
  assert_int_equal(zfs_read_file(SSE_DIR "/openai_chat.sse", &raw, 0, NULL), 0);
  outcome got;
  parse_pieces(raw.data, raw.len, NULL, 0, &got);
  assert_true(zbuf_ends_with(&got.events, "6:[DONE]\x1e"));
  assert_int_equal(got.truncated, 0);
  outcome_release(&got);
}

static void data_exactly_at_limit_is_accepted(void **state) {
  (void)state;
  recorder r = {ZBUF_INIT, 0, 0};
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, on_event, &r, 1024);
  cleanup_zbuf zbuf s = ZBUF_INIT;
  /* 1000 + "\n" + 23 = 1024 bytes of joined data. */
  zbuf_addstr(&s, "data: ");
  for (int i = 0; i < 1000; i++) zbuf_addch(&s, 'a');
  zbuf_addstr(&s, "\ndata: ");
  for (int i = 0; i < 23; i++) zbuf_addch(&s, 'b');
  zbuf_addstr(&s, "\n\n");
  assert_int_equal(zsse_feed(&p, s.data, s.len, &err), 0);
  assert_int_equal(p.events, 1);
  assert_int_equal(zsse_finish(&p), 0);
  zsse_release(&p);
  zbuf_release(&r.out);
}

static void accumulated_data_over_limit_fails_naming_the_limit(void **state) {
  (void)state;
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, NULL, NULL, 1024);
  /* Many short lines: no single line is large, the event is. */
  int rc = 0;
  for (int i = 0; i < 200 && rc == 0; i++) rc = zsse_feed(&p, "data: 0123456789\n", 17, &err);
  assert_int_equal(rc, -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  assert_non_null(strstr(err.msg, "1 KiB"));
  assert_non_null(strstr(err.msg, "1024 bytes"));
  /* The parser stays failed. */
  zerr err2 = ZERR_INIT;
  assert_int_equal(zsse_feed(&p, "\n\n", 2, &err2), -1);
  assert_int_equal(p.events, 0);
  zsse_release(&p);
}

static void endless_line_over_limit_fails_even_when_split(void **state) {
  (void)state;
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, NULL, NULL, 4096);
  char chunk[100];
  memset(chunk, 'x', sizeof chunk);
  int rc = zsse_feed(&p, "data: ", 6, &err);
  size_t fed = 6;
  while (rc == 0 && fed < 10000) {
    rc = zsse_feed(&p, chunk, sizeof chunk, &err);
    fed += sizeof chunk;
  }
  assert_int_equal(rc, -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  assert_non_null(strstr(err.msg, "4 KiB"));
  /* It fails as soon as the buffered line passes limit + slack, not later. */
  assert_true(fed <= 4096 + 64 + 6 + sizeof chunk);
  zsse_release(&p);
}

static void default_limit_is_16_mib(void **state) {
  (void)state;
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, NULL, NULL, 0);
  assert_int_equal(p.max_event_bytes, 16u << 20);
  size_t n = (16u << 20) + 1;
  char *big = xmalloc(n + 8);
  memcpy(big, "data:", 5);
  memset(big + 5, 'z', n);
  memcpy(big + 5 + n, "\n\n", 2);
  int rc = zsse_feed(&p, big, n + 7, &err);
  free(big);
  assert_int_equal(rc, -1);
  assert_int_equal(err.kind, ZE_TOO_LARGE);
  assert_non_null(strstr(err.msg, "16 MiB"));
  zsse_release(&p);
}

static void callback_can_stop_parsing(void **state) {
  (void)state;
  recorder r = {ZBUF_INIT, 2, 0};
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, on_event, &r, 0);
  const char *s = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
  assert_int_equal(zsse_feed(&p, s, strlen(s), &err), 7);
  assert_int_equal(r.seen, 2);
  zsse_release(&p);
  zbuf_release(&r.out);
}

static void cr_at_end_of_feed_then_lf_is_one_line_ending(void **state) {
  (void)state;
  recorder r = {ZBUF_INIT, 0, 0};
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, on_event, &r, 0);
  /* If the LF were a second line ending it would dispatch "a" early, and the
   * following "data: b" would become a separate event. */
  assert_int_equal(zsse_feed(&p, "data: a\r", 8, &err), 0);
  assert_int_equal(zsse_feed(&p, "\ndata: b\r", 9, &err), 0);
  assert_int_equal(zsse_feed(&p, "\n\r", 2, &err), 0);
  assert_int_equal(zsse_feed(&p, "\n", 1, &err), 0);
  assert_int_equal(r.seen, 1);
  assert_string_equal(r.out.data, "message\x1f\x1f" "3:a\nb\x1e");
  assert_int_equal(zsse_finish(&p), 0);
  zsse_release(&p);
  zbuf_release(&r.out);
}

static void truncated_event_is_reported_by_finish(void **state) {
  (void)state;
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, NULL, NULL, 0);
  assert_int_equal(zsse_feed(&p, "data: x\n", 8, &err), 0);
  assert_int_equal(zsse_finish(&p), 1);
  /* finish drops the pending event: a second finish is clean. */
  assert_int_equal(zsse_finish(&p), 0);
  assert_int_equal(zsse_feed(&p, "data: partial line", 18, &err), 0);
  assert_int_equal(zsse_finish(&p), 1);
  assert_int_equal(zsse_feed(&p, ": just a comment\n", 17, &err), 0);
  assert_int_equal(zsse_finish(&p), 0);
  zsse_release(&p);
}

static void retry_field_sets_the_reconnection_time(void **state) {
  (void)state;
  recorder r = {ZBUF_INIT, 0, 0};
  zsse_parser p;
  zerr err = ZERR_INIT;
  zsse_init(&p, on_event, &r, 0);
  assert_int_equal(p.retry_ms, -1); /* none given yet */
  /* MCP 2025-11-25 priming event: an id, a retry, empty data. */
  const char *s = "id: p-1\nretry: 1500\ndata: \n\n";
  assert_int_equal(zsse_feed(&p, s, strlen(s), &err), 0);
  assert_int_equal(p.retry_ms, 1500);
  assert_int_equal(r.seen, 1);
  /* only ASCII digits count; anything else leaves the last good value */
  s = "retry: 12x\nretry: -5\nretry:\nretry: 1e3\n\n";
  assert_int_equal(zsse_feed(&p, s, strlen(s), &err), 0);
  assert_int_equal(p.retry_ms, 1500);
  s = "retry:250\n\n";
  assert_int_equal(zsse_feed(&p, s, strlen(s), &err), 0);
  assert_int_equal(p.retry_ms, 250);
  /* a huge value is capped, not wrapped */
  s = "retry: 99999999999999999999999\n\n";
  assert_int_equal(zsse_feed(&p, s, strlen(s), &err), 0);
  assert_int_equal(p.retry_ms, 1000000000L);
  assert_int_equal(r.seen, 1); /* retry alone dispatches nothing */
  zsse_release(&p);
  zbuf_release(&r.out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(required_fixtures_parse_identically_at_every_split),
      cmocka_unit_test(every_fixture_in_directory_has_expectations),
      cmocka_unit_test(openai_stream_ends_with_done_sentinel),
      cmocka_unit_test(data_exactly_at_limit_is_accepted),
      cmocka_unit_test(accumulated_data_over_limit_fails_naming_the_limit),
      cmocka_unit_test(endless_line_over_limit_fails_even_when_split),
      cmocka_unit_test(default_limit_is_16_mib),
      cmocka_unit_test(callback_can_stop_parsing),
      cmocka_unit_test(cr_at_end_of_feed_then_lf_is_one_line_ending),
      cmocka_unit_test(truncated_event_is_reported_by_finish),
      cmocka_unit_test(retry_field_sets_the_reconnection_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
