/* test_session.c — session store: ids, create / append / reopen, torn lines,
 * listing, and rebuilding the conversation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/path.h"
#include "cli/cli.h"
#include "session/checkpoint.h"
#include "session/jsonl.h"
#include "session/store.h"

/* ---- fixture: a fresh data dir per test ------------------------------- */

typedef struct fx {
  char tmp[64];
  char *root;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->tmp, sizeof f->tmp, "%s", "/tmp/zero-test-session-XXXXXX");
  assert_non_null(mkdtemp(f->tmp));
  setenv("HOME", f->tmp, 1);
  char *data = zpath_join(f->tmp, "data");
  setenv("XDG_DATA_HOME", data, 1);
  free(data);
  f->root = zsession_root();
  *state = f;
  return 0;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  return remove(p);
}

static int teardown(void **state) {
  fx *f = *state;
  nftw(f->tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  free(f->root);
  free(f);
  return 0;
}

/* Collects events and warnings from zsession_for_each_event. */
typedef struct collected {
  json_t *events;
  json_t *warnings;
} collected;

static int collect_event(void *ud, const json_t *ev) {
  collected *c = ud;
  json_array_append(c->events, (json_t *)ev);
  return 0;
}

static void collect_warning(void *ud, const char *msg) {
  collected *c = ud;
  json_array_append_new(c->warnings, json_string(msg));
}

static collected read_all(const char *root, const char *id) {
  collected c = {json_array(), json_array()};
  zerr err = ZERR_INIT;
  assert_int_equal(zsession_for_each_event(root, id, collect_event, &c, collect_warning, &err), 0);
  return c;
}

static void collected_release(collected *c) {
  json_decref(c->events);
  json_decref(c->warnings);
}

static char *slurp(const char *dir, const char *name) {
  char *path = zpath_join(dir, name);
  zbuf b = ZBUF_INIT;
  assert_int_equal(zfs_read_file(path, &b, 0, NULL), 0);
  free(path);
  return zbuf_detach(&b, NULL);
}

static void append_raw(const char *dir, const char *text) {
  char *path = zpath_join(dir, "events.jsonl");
  int fd = open(path, O_WRONLY | O_APPEND);
  assert_true(fd >= 0);
  assert_int_equal(zfs_write_all(fd, text, strlen(text)), 0);
  close(fd);
  free(path);
}

static json_t *payload_msg(const char *role, const char *content) {
  return json_pack("{s:s, s:s}", "role", role, "content", content);
}

static void append_new(zsession *s, const char *type, json_t *payload) {
  zerr err = ZERR_INIT;
  assert_int_equal(zsession_append(s, type, payload, &err), 0);
  json_decref(payload);
}

/* ---- ids ----------------------------------------------------------------- */

static void generated_ids_have_go_shape_and_differ(void **state) {
  (void)state;
  regex_t re;
  assert_int_equal(regcomp(&re, "^zero_[0-9]{14}_[0-9]{19}_[0-9]+$", REG_EXTENDED), 0);
  char *a = zsession_new_id();
  char *b = zsession_new_id();
  assert_int_equal(regexec(&re, a, 0, NULL, 0), 0);
  assert_int_equal(regexec(&re, b, 0, NULL, 0), 0);
  assert_string_not_equal(a, b);
  assert_true(zsession_id_valid(a));
  regfree(&re);
  free(a);
  free(b);
}

static void id_validation_refuses_path_tricks(void **state) {
  (void)state;
  assert_true(zsession_id_valid("abc"));
  assert_true(zsession_id_valid("A-b_c9"));
  assert_true(zsession_id_valid("0"));
  const char *bad[] = {"", "..", ".", "../x", "a/b", "/abs", "-lead", "_lead", "a b",
                       "a\nb", "a.b", "é"};
  for (size_t i = 0; i < ZARRAY_LEN(bad); i++) assert_false(zsession_id_valid(bad[i]));
  assert_false(zsession_id_valid(NULL));
  char longid[130];
  memset(longid, 'a', 128);
  longid[128] = '\0';
  assert_true(zsession_id_valid(longid));
  longid[128] = 'a';
  longid[129] = '\0';
  assert_false(zsession_id_valid(longid));
}

static void traversal_ids_are_refused_before_any_path(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  assert_null(zsession_open(f->root, "../../etc", &err));
  assert_int_equal(err.kind, ZE_USAGE);
  assert_null(zsession_create_with_id(f->root, "../escape", NULL, NULL, NULL, NULL, &err));
  assert_int_equal(err.kind, ZE_USAGE);
  assert_int_equal(zsession_for_each_event(f->root, "..", collect_event, NULL, NULL, &err), -1);
  assert_int_equal(err.kind, ZE_USAGE);
  zconv c = ZCONV_INIT;
  assert_int_equal(zsession_load_conv(f->root, "a/b", &c, NULL, NULL, &err), -1);
  /* Nothing was created outside the root. */
  char *escape = zpath_join(f->tmp, "data/zero/escape");
  assert_false(zfs_exists(escape));
  free(escape);
}

/* ---- create / append / reopen ------------------------------------------- */

static void create_writes_private_pretty_metadata(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, "/work/x", "openai", "gpt-5-mini", "Fix bug", &err);
  assert_non_null(s);
  struct stat st;
  assert_int_equal(stat(s->dir, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  assert_int_equal(stat(f->root, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  char *mp = zpath_join(s->dir, "metadata.json");
  assert_int_equal(stat(mp, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  free(mp);
  char *ep = zpath_join(s->dir, "events.jsonl");
  assert_int_equal(stat(ep, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  free(ep);

  char *text = slurp(s->dir, "metadata.json");
  assert_true(strncmp(text, "{\n  \"sessionId\": \"", 18) == 0);
  assert_int_equal(text[strlen(text) - 1], '\n');
  json_t *m = json_loads(text, 0, NULL);
  assert_non_null(m);
  assert_string_equal(zjson_str(m, "sessionId"), s->id);
  assert_string_equal(zjson_str(m, "cwd"), "/work/x");
  assert_string_equal(zjson_str(m, "provider"), "openai");
  assert_string_equal(zjson_str(m, "modelId"), "gpt-5-mini");
  assert_string_equal(zjson_str(m, "title"), "Fix bug");
  assert_int_equal(zjson_int_or(m, "eventCount", -1), 0);
  assert_non_null(zjson_str(m, "createdAt"));
  assert_non_null(zjson_str(m, "updatedAt"));
  assert_null(json_object_get(m, "lastEventType"));
  json_decref(m);
  free(text);

  /* Optional fields are left out when not given. */
  zsession *bare = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  assert_non_null(bare);
  assert_null(json_object_get(bare->meta, "cwd"));
  assert_null(json_object_get(bare->meta, "title"));
  assert_string_not_equal(bare->id, s->id);
  zsession_close(bare);
  zsession_close(s);
}

static void append_writes_envelopes_and_updates_metadata(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, "/w", NULL, NULL, NULL, &err);
  assert_non_null(s);
  append_new(s, "message", payload_msg("user", "hello\nworld"));
  append_new(s, "tool_call", json_pack("{s:s,s:s,s:s}", "id", "c1", "name", "read_file",
                                       "arguments", "{\"path\":\"a\"}"));
  assert_int_equal(zsession_append(s, "session_checkpoint", NULL, &err), 0);
  assert_int_equal(s->sequence, 3);

  char *log = slurp(s->dir, "events.jsonl");
  int lines = 0;
  for (char *p = log; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 3);
  free(log);

  collected c = read_all(f->root, s->id);
  assert_int_equal(json_array_size(c.events), 3);
  assert_int_equal(json_array_size(c.warnings), 0);
  json_t *e1 = json_array_get(c.events, 0);
  char want[200];
  snprintf(want, sizeof want, "%s:1", s->id);
  assert_string_equal(zjson_str(e1, "id"), want);
  assert_string_equal(zjson_str(e1, "sessionId"), s->id);
  assert_int_equal(zjson_int_or(e1, "sequence", 0), 1);
  assert_string_equal(zjson_str(e1, "type"), "message");
  assert_non_null(zjson_str(e1, "createdAt"));
  assert_string_equal(zjson_str(json_object_get(e1, "payload"), "content"), "hello\nworld");
  json_t *e3 = json_array_get(c.events, 2);
  assert_null(json_object_get(e3, "payload"));
  collected_release(&c);

  /* metadata.json is rewritten lazily: still the creation state until flushed. */
  char *text = slurp(s->dir, "metadata.json");
  json_t *m = json_loads(text, 0, NULL);
  assert_int_equal(zjson_int_or(m, "eventCount", -1), 0);
  json_decref(m);
  free(text);
  assert_int_equal(zsession_flush(s, &err), 0);
  text = slurp(s->dir, "metadata.json");
  m = json_loads(text, 0, NULL);
  assert_int_equal(zjson_int_or(m, "eventCount", 0), 3);
  assert_string_equal(zjson_str(m, "lastEventType"), "session_checkpoint");
  json_decref(m);
  free(text);

  assert_int_equal(zsession_set_meta(s, "title", json_string("Renamed"), &err), 0);
  text = slurp(s->dir, "metadata.json");
  assert_non_null(strstr(text, "\"title\": \"Renamed\""));
  free(text);
  zsession_close(s);
}

static void reopen_continues_the_sequence(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  char *id = xstrdup(s->id);
  append_new(s, "message", payload_msg("user", "one"));
  append_new(s, "message", payload_msg("assistant", "two"));
  zsession_close(s);

  s = zsession_open(f->root, id, &err);
  assert_non_null(s);
  assert_int_equal(s->sequence, 2);
  append_new(s, "message", payload_msg("user", "three"));
  zsession_close(s);

  collected c = read_all(f->root, id);
  assert_int_equal(json_array_size(c.events), 3);
  assert_int_equal(zjson_int_or(json_array_get(c.events, 2), "sequence", 0), 3);
  collected_release(&c);

  assert_null(zsession_open(f->root, "zero_missing_1", &err));
  assert_int_equal(err.kind, ZE_NOT_FOUND);
  assert_non_null(strstr(err.msg, "zero sessions list"));
  free(id);
}

static void chosen_id_is_used_once(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create_with_id(f->root, "my-run-1", NULL, NULL, NULL, NULL, &err);
  assert_non_null(s);
  assert_string_equal(s->id, "my-run-1");
  zsession_close(s);
  assert_null(zsession_create_with_id(f->root, "my-run-1", NULL, NULL, NULL, NULL, &err));
  assert_int_equal(err.kind, ZE_INVALID);
}

/* ---- torn and malformed lines ------------------------------------------- */

static void torn_last_line_is_skipped_and_cut_before_appending(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  char *id = xstrdup(s->id);
  char *dir = xstrdup(s->dir);
  append_new(s, "message", payload_msg("user", "a"));
  append_new(s, "message", payload_msg("assistant", "b"));
  zsession_close(s);
  append_raw(dir, "{\"id\":\"x:3\",\"sequence\":3,\"type\":\"mess");

  collected c = read_all(f->root, id);
  assert_int_equal(json_array_size(c.events), 2);
  assert_int_equal(json_array_size(c.warnings), 1);
  assert_non_null(strstr(json_string_value(json_array_get(c.warnings, 0)), "torn"));
  assert_non_null(strstr(json_string_value(json_array_get(c.warnings, 0)), ":3:"));
  collected_release(&c);

  /* Resume: the torn tail is cut, so the next line starts clean. */
  s = zsession_open(f->root, id, &err);
  assert_non_null(s);
  assert_int_equal(s->sequence, 2);
  append_new(s, "message", payload_msg("user", "c"));
  zsession_close(s);
  c = read_all(f->root, id);
  assert_int_equal(json_array_size(c.events), 3);
  assert_int_equal(json_array_size(c.warnings), 0);
  assert_string_equal(zjson_str(json_object_get(json_array_get(c.events, 2), "payload"),
                                "content"), "c");
  collected_release(&c);
  free(id);
  free(dir);
}

static void whole_event_without_newline_is_kept(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  char *id = xstrdup(s->id);
  char *dir = xstrdup(s->dir);
  append_new(s, "message", payload_msg("user", "a"));
  zsession_close(s);
  append_raw(dir, "{\"id\":\"x:2\",\"sequence\":2,\"type\":\"message\",\"payload\":{}}");

  s = zsession_open(f->root, id, &err);
  assert_non_null(s);
  assert_int_equal(s->sequence, 2);
  append_new(s, "message", payload_msg("user", "c"));
  zsession_close(s);
  collected c = read_all(f->root, id);
  assert_int_equal(json_array_size(c.events), 3);
  assert_int_equal(json_array_size(c.warnings), 0);
  assert_int_equal(zjson_int_or(json_array_get(c.events, 2), "sequence", 0), 3);
  collected_release(&c);
  free(id);
  free(dir);
}

static void malformed_middle_line_warns_but_never_fails(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  char *id = xstrdup(s->id);
  append_new(s, "message", payload_msg("user", "a"));
  append_raw(s->dir, "not json at all\n[1,2]\n\n");
  append_new(s, "message", payload_msg("assistant", "b"));
  zsession_close(s);
  collected c = read_all(f->root, id);
  assert_int_equal(json_array_size(c.events), 2);
  assert_int_equal(json_array_size(c.warnings), 2); /* the blank line is no warning */
  assert_non_null(strstr(json_string_value(json_array_get(c.warnings, 0)), "malformed"));
  collected_release(&c);
  free(id);
}

static void long_lines_cross_read_chunks(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  char *id = xstrdup(s->id);
  char *big = malloc(150001);
  memset(big, 'x', 150000);
  big[150000] = '\0';
  for (int i = 0; i < 5; i++) append_new(s, "message", payload_msg("user", big));
  zsession_close(s);
  s = zsession_open(f->root, id, &err);
  assert_int_equal(s->sequence, 5);
  zsession_close(s);
  collected c = read_all(f->root, id);
  assert_int_equal(json_array_size(c.events), 5);
  assert_int_equal(strlen(zjson_str(json_object_get(json_array_get(c.events, 4), "payload"),
                                    "content")), 150000);
  collected_release(&c);
  free(big);
  free(id);
}

static void reader_skips_oversize_lines(void **state) {
  fx *f = *state;
  char *path = zpath_join(f->tmp, "lines.txt");
  const char *text = "short\nthis line is far too long for the limit\nok\ntail-without-nl";
  assert_int_equal(zfs_write_atomic(path, text, strlen(text), 0600, NULL), 0);
  int fd = open(path, O_RDONLY);
  zjsonl_reader r;
  zjsonl_reader_init(&r, fd);
  r.max_line = 16;
  zjsonl_line l;
  assert_int_equal(zjsonl_next(&r, &l), 1);
  assert_string_equal(l.text, "short");
  assert_int_equal(zjsonl_next(&r, &l), 1);
  assert_true(l.oversize);
  assert_int_equal(zjsonl_next(&r, &l), 1);
  assert_string_equal(l.text, "ok");
  assert_int_equal(l.start, 46);
  assert_int_equal(zjsonl_next(&r, &l), 1);
  assert_string_equal(l.text, "tail-without-nl");
  assert_false(l.newline);
  assert_int_equal(zjsonl_next(&r, &l), 0);
  assert_int_equal(r.line_no, 4);
  zjsonl_reader_release(&r);
  close(fd);
  free(path);
}

/* ---- list / latest ------------------------------------------------------- */

static char *make_session(fx *f, const char *cwd, const char *updated) {
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, cwd, NULL, NULL, NULL, &err);
  assert_non_null(s);
  assert_int_equal(zsession_set_meta(s, "updatedAt", json_string(updated), &err), 0);
  char *id = xstrdup(s->id);
  zsession_close(s);
  return id;
}

/* A run killed before it flushed metadata.json must still rank by its last
 * event, so `--resume` picks the session that was really used last. */
static void list_takes_updated_at_from_a_newer_log(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, "/w", "p", "m", NULL, &err);
  assert_non_null(s);
  assert_int_equal(zsession_set_meta(s, "updatedAt", json_string("2020-01-01T00:00:00Z"), &err), 0);
  assert_int_equal(zsession_append(s, "message", NULL, &err), 0);
  /* Simulate a crash: no flush, no close (free by hand without flushing). */
  s->meta_dirty = false;
  zsession_close(s);
  json_t *all = zsession_list(f->root, NULL, &err);
  assert_int_equal(json_array_size(all), 1);
  const char *updated = zjson_str(json_array_get(all, 0), "updatedAt");
  assert_non_null(updated);
  assert_true(strncmp(updated, "2020", 4) != 0);
  json_decref(all);
}

/* metadata.json is rewritten without a sync on close, so a power failure can
 * leave it empty: the session must still list and open, rebuilt from its log. */
static void empty_metadata_is_rebuilt_from_the_log(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, "/w", "p", "m", "t", &err);
  assert_non_null(s);
  json_t *p = json_pack("{s:s, s:s}", "role", "user", "content", "hi");
  assert_int_equal(zsession_append(s, "message", p, &err), 0);
  assert_int_equal(zsession_append(s, "message", p, &err), 0);
  json_decref(p);
  char *id = xstrdup(s->id);
  char *meta = zpath_join(s->dir, "metadata.json");
  zsession_close(s);
  assert_int_equal(truncate(meta, 0), 0);

  json_t *warnings = NULL;
  json_t *all = zsession_list(f->root, &warnings, &err);
  assert_int_equal(json_array_size(all), 1);
  json_t *m = json_array_get(all, 0);
  assert_string_equal(zjson_str(m, "sessionId"), id);
  assert_int_equal(zjson_int_or(m, "eventCount", 0), 2);
  assert_int_equal(json_array_size(warnings), 1);
  json_decref(all);
  json_decref(warnings);

  s = zsession_open(f->root, id, &err);
  assert_non_null(s);
  assert_int_equal(s->sequence, 2);
  assert_int_equal(zjson_int_or(s->meta, "eventCount", 0), 2);
  zsession_close(s);
  free(meta);
  free(id);
}

static void list_sorts_newest_first_then_by_id(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  json_t *empty = zsession_list(f->root, NULL, &err);
  assert_non_null(empty);
  assert_int_equal(json_array_size(empty), 0);
  json_decref(empty);
  char *latest_none = zsession_latest(f->root, NULL, &err);
  assert_null(latest_none);

  char *old = make_session(f, "/a", "2026-01-01T00:00:00Z");
  char *go_time = make_session(f, "/b", "2026-01-02T00:00:05Z");
  char *ours = make_session(f, "/a", "2026-01-02T00:00:05.500Z"); /* later than go_time */
  char *tie1 = make_session(f, "/c", "2025-06-01T00:00:00Z");
  char *tie2 = make_session(f, "/c", "2025-06-01T00:00:00Z");
  /* Junk next to sessions: a broken one warns, other entries are ignored. */
  char *broken = zpath_join(f->root, "broken1");
  assert_int_equal(mkdir(broken, 0700), 0);
  char *bm = zpath_join(broken, "metadata.json");
  assert_int_equal(zfs_write_atomic(bm, "{oops", 5, 0600, NULL), 0);
  char *stray = zpath_join(f->root, "README");
  assert_int_equal(zfs_write_atomic(stray, "x", 1, 0600, NULL), 0);

  json_t *warnings = NULL;
  json_t *all = zsession_list(f->root, &warnings, &err);
  assert_non_null(all);
  assert_int_equal(json_array_size(all), 5);
  assert_string_equal(zjson_str(json_array_get(all, 0), "sessionId"), ours);
  assert_string_equal(zjson_str(json_array_get(all, 1), "sessionId"), go_time);
  assert_string_equal(zjson_str(json_array_get(all, 2), "sessionId"), old);
  const char *t1 = zjson_str(json_array_get(all, 3), "sessionId");
  const char *t2 = zjson_str(json_array_get(all, 4), "sessionId");
  assert_true(strcmp(t1, t2) < 0);
  assert_true(!strcmp(t1, tie1) || !strcmp(t1, tie2));
  assert_int_equal(json_array_size(warnings), 1);
  assert_non_null(strstr(json_string_value(json_array_get(warnings, 0)), "broken1"));
  json_decref(warnings);
  json_decref(all);

  char *latest = zsession_latest(f->root, NULL, &err);
  assert_string_equal(latest, ours);
  free(latest);
  latest = zsession_latest(f->root, "/b", &err);
  assert_string_equal(latest, go_time);
  free(latest);
  latest = zsession_latest(f->root, "/nowhere", &err);
  assert_null(latest);

  free(old); free(go_time); free(ours); free(tie1); free(tie2);
  free(broken); free(bm); free(stray);
}

/* ---- rebuilding the conversation ------------------------------------------ */

static void collect_conv_warning(void *ud, const char *msg) {
  json_array_append_new((json_t *)ud, json_string(msg));
}

static json_t *call(const char *id, const char *name, const char *args) {
  return json_pack("{s:s,s:s,s:s}", "id", id, "name", name, "arguments", args);
}

static json_t *result(const char *id, const char *name, const char *status, const char *out) {
  return json_pack("{s:s,s:s,s:s,s:s}", "toolCallId", id, "name", name, "status", status,
                   "output", out);
}

static void load_conv_rebuilds_structured_messages(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  char *id = xstrdup(s->id);
  append_new(s, "message", payload_msg("user", "fix it"));
  append_new(s, "message", json_pack("{s:s,s:s,s:s}", "role", "assistant", "content",
                                     "Looking.", "reasoning", "think first"));
  append_new(s, "tool_call", call("A", "read_file", "{\"path\":\"a.c\"}"));
  append_new(s, "tool_call", call("B", "grep", "{\"q\":\"x\"}"));
  append_new(s, "provider_usage", json_pack("{s:i}", "totalTokens", 10)); /* ignored */
  append_new(s, "tool_result", result("A", "read_file", "ok", "int main;"));
  /* B never got a result: the run was killed. */
  append_new(s, "message", payload_msg("user", "and now?"));
  append_new(s, "tool_call", call("C", "exec_command", "{\"cmd\":\"make\"}"));
  append_new(s, "tool_result", result("C", "exec_command", "error", "exit 2"));
  append_new(s, "tool_result", result("Z", "ghost", "ok", "orphan")); /* no such call */
  append_new(s, "tool_call", call("D", "read_file", "{}"));
  append_new(s, "tool_result", result("D", "read_file", "ok", "d"));
  append_new(s, "message", payload_msg("assistant", "Done."));
  append_new(s, "tool_call", call("E", "write_file", "{}")); /* killed at the very end */
  zsession_close(s);

  zconv c = ZCONV_INIT;
  json_t *warnings = json_array();
  assert_int_equal(zsession_load_conv(f->root, id, &c, collect_conv_warning, warnings, &err), 0);
  assert_int_equal(c.len, 11);
  zmsg *m = c.items;
  assert_int_equal(m[0].role, ZROLE_USER);
  assert_string_equal(m[0].content, "fix it");

  assert_int_equal(m[1].role, ZROLE_ASSISTANT);
  assert_string_equal(m[1].content, "Looking.");
  assert_string_equal(m[1].reasoning, "think first");
  assert_int_equal(m[1].ncalls, 2);
  assert_string_equal(m[1].calls[0].id, "A");
  assert_string_equal(m[1].calls[0].arguments, "{\"path\":\"a.c\"}");
  assert_string_equal(m[1].calls[1].id, "B");

  assert_int_equal(m[2].role, ZROLE_TOOL);
  assert_string_equal(m[2].tool_call_id, "A");
  assert_string_equal(m[2].content, "int main;");
  assert_false(m[2].is_error);
  assert_int_equal(m[3].role, ZROLE_TOOL); /* synthetic, right after A's result */
  assert_string_equal(m[3].tool_call_id, "B");
  assert_string_equal(m[3].tool_name, "grep");
  assert_true(m[3].is_error);
  assert_string_equal(m[3].content, "interrupted: no result was recorded (the run was stopped "
                                    "before the tool finished)");

  assert_int_equal(m[4].role, ZROLE_USER);
  assert_int_equal(m[5].role, ZROLE_ASSISTANT); /* created for call C */
  assert_null(m[5].content);
  assert_int_equal(m[5].ncalls, 1);
  assert_string_equal(m[5].calls[0].id, "C");
  assert_int_equal(m[6].role, ZROLE_TOOL);
  assert_true(m[6].is_error);
  assert_string_equal(m[6].content, "exit 2");
  /* D came after a tool result: a new assistant message, not attached to C's. */
  assert_int_equal(m[7].role, ZROLE_ASSISTANT);
  assert_int_equal(m[7].ncalls, 1);
  assert_string_equal(m[7].calls[0].id, "D");
  assert_int_equal(m[8].role, ZROLE_TOOL);
  assert_string_equal(m[8].tool_call_id, "D");
  assert_int_equal(m[9].role, ZROLE_ASSISTANT);
  assert_string_equal(m[9].content, "Done.");
  assert_int_equal(m[9].ncalls, 1); /* E attaches to the final assistant message */
  assert_string_equal(m[9].calls[0].id, "E");
  assert_int_equal(m[10].role, ZROLE_TOOL);
  assert_string_equal(m[10].tool_call_id, "E");
  assert_true(m[10].is_error);
  assert_int_equal(json_array_size(warnings), 1);
  assert_non_null(strstr(json_string_value(json_array_get(warnings, 0)), "unknown call Z"));
  zconv_release(&c);
  json_decref(warnings);
  free(id);
}

/* A session whose first user message was lost (a full disk) starts with
 * the assistant: the replayed history leaves that out and says why, so a
 * resumed run never sends a history that starts with an assistant turn. */
static void load_conv_drops_what_precedes_the_first_user_message(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  char *id = xstrdup(s->id);
  append_new(s, "message", payload_msg("assistant", "an answer to a lost prompt"));
  append_new(s, "tool_call", call("A", "read_file", "{}"));
  append_new(s, "tool_result", result("A", "read_file", "ok", "x"));
  append_new(s, "message", payload_msg("user", "second prompt"));
  append_new(s, "message", payload_msg("assistant", "second answer"));
  zsession_close(s);

  zconv c = ZCONV_INIT;
  json_t *warnings = json_array();
  assert_int_equal(zsession_load_conv(f->root, id, &c, collect_conv_warning, warnings, &err), 0);
  assert_int_equal(c.len, 2);
  assert_int_equal(c.items[0].role, ZROLE_USER);
  assert_string_equal(c.items[0].content, "second prompt");
  assert_int_equal(c.items[1].role, ZROLE_ASSISTANT);
  assert_int_equal(json_array_size(warnings), 1);
  const char *w = json_string_value(json_array_get(warnings, 0));
  assert_non_null(strstr(w, "first user message was never recorded"));
  assert_non_null(strstr(w, "2 messages")); /* the answer with its call, and the result */
  zconv_release(&c);

  /* Only an assistant turn: nothing is left to replay. */
  s = zsession_create(f->root, NULL, NULL, NULL, NULL, &err);
  free(id);
  id = xstrdup(s->id);
  append_new(s, "message", payload_msg("assistant", "orphan"));
  zsession_close(s);
  c = (zconv)ZCONV_INIT;
  assert_int_equal(zsession_load_conv(f->root, id, &c, collect_conv_warning, warnings, &err), 0);
  assert_int_equal(c.len, 0);
  assert_int_equal(json_array_size(warnings), 2);
  zconv_release(&c);
  json_decref(warnings);
  free(id);
}

static void load_conv_of_missing_session_fails(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zconv c = ZCONV_INIT;
  assert_int_equal(zsession_load_conv(f->root, "zero_nope", &c, NULL, NULL, &err), -1);
  assert_int_equal(err.kind, ZE_NOT_FOUND);
  assert_int_equal(c.len, 0);
}

/* ---- `zero sessions` ------------------------------------------------------ */

/* Runs cmd_sessions with stdout and stderr captured into *out / *errout. */
static int run_cli(fx *f, int argc, char **argv, char **out, char **errout) {
  char *opath = zpath_join(f->tmp, "stdout.txt");
  char *epath = zpath_join(f->tmp, "stderr.txt");
  fflush(stdout);
  fflush(stderr);
  int saved_out = dup(1), saved_err = dup(2);
  int ofd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int efd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(ofd, 1);
  dup2(efd, 2);
  int code = cmd_sessions(argc, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out); close(saved_err); close(ofd); close(efd);
  zbuf b = ZBUF_INIT;
  zfs_read_file(opath, &b, 0, NULL);
  *out = zbuf_detach(&b, NULL);
  zfs_read_file(epath, &b, 0, NULL);
  *errout = zbuf_detach(&b, NULL);
  free(opath);
  free(epath);
  return code;
}

static void sessions_command_lists_and_rejects_bad_usage(void **state) {
  fx *f = *state;
  char *out, *err_text;
  char *a_list[] = {"list"};
  assert_int_equal(run_cli(f, 1, a_list, &out, &err_text), ZEXIT_SUCCESS);
  assert_string_equal(out, "No Zero sessions found.\n");
  free(out); free(err_text);

  zerr err = ZERR_INIT;
  zsession *s = zsession_create(f->root, "/w", "openai", "gpt-x", NULL, &err);
  append_new(s, "message", payload_msg("user", "  explain\n the   main loop "));
  char *id = xstrdup(s->id);
  zsession_close(s);

  assert_int_equal(run_cli(f, 0, NULL, &out, &err_text), ZEXIT_SUCCESS);
  assert_true(strncmp(out, "Zero sessions (1):\n  - ", 23) == 0);
  assert_non_null(strstr(out, id));
  assert_non_null(strstr(out, " explain the main loop (model=gpt-x, cwd=/w)\n"));
  free(out); free(err_text);

  char *a_json[] = {"--json"};
  assert_int_equal(run_cli(f, 1, a_json, &out, &err_text), ZEXIT_SUCCESS);
  json_t *arr = json_loads(out, 0, NULL);
  assert_true(json_is_array(arr));
  assert_string_equal(zjson_str(json_array_get(arr, 0), "sessionId"), id);
  assert_non_null(strstr(out, "\n  {\n    \"sessionId\""));
  json_decref(arr);
  free(out); free(err_text);

  char *a_show[] = {"show", id};
  assert_int_equal(run_cli(f, 2, a_show, &out, &err_text), ZEXIT_SUCCESS);
  assert_non_null(strstr(out, "Events (1):\n  message: 1\n"));
  free(out); free(err_text);

  char *a_flag[] = {"list", "--bogus"};
  assert_int_equal(run_cli(f, 2, a_flag, &out, &err_text), ZEXIT_USAGE);
  assert_non_null(strstr(err_text, "unknown sessions flag \"--bogus\""));
  assert_non_null(strstr(err_text, "Usage: zero sessions"));
  assert_string_equal(out, "");
  free(out); free(err_text);

  char *a_sub[] = {"frobnicate"};
  assert_int_equal(run_cli(f, 1, a_sub, &out, &err_text), ZEXIT_USAGE);
  free(out); free(err_text);
  char *a_trav[] = {"show", "../x"};
  assert_int_equal(run_cli(f, 2, a_trav, &out, &err_text), ZEXIT_USAGE);
  free(out); free(err_text);
  char *a_help[] = {"--help"};
  assert_int_equal(run_cli(f, 1, a_help, &out, &err_text), ZEXIT_SUCCESS);
  assert_non_null(strstr(out, "--json"));
  assert_non_null(strstr(out, "Example"));
  free(out); free(err_text);
  free(id);
}

/* SHA-256 (checkpoint blob names, base/hash.h) against the FIPS 180-2
 * vectors, more than once: the digest fetched once per process is reused. */
static void checkpoint_sha256_known_vectors(void **state) {
  (void)state;
  char out[ZSHA256_HEX_SIZE];
  for (int i = 0; i < 3; i++) {
    assert_int_equal(zsha256_hex("abc", 3, out, NULL), 0);
    assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(zsha256_hex("", 0, out, NULL), 0);
    assert_string_equal(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(generated_ids_have_go_shape_and_differ),
      cmocka_unit_test(checkpoint_sha256_known_vectors),
      cmocka_unit_test(id_validation_refuses_path_tricks),
      cmocka_unit_test_setup_teardown(traversal_ids_are_refused_before_any_path, setup, teardown),
      cmocka_unit_test_setup_teardown(create_writes_private_pretty_metadata, setup, teardown),
      cmocka_unit_test_setup_teardown(append_writes_envelopes_and_updates_metadata, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(reopen_continues_the_sequence, setup, teardown),
      cmocka_unit_test_setup_teardown(chosen_id_is_used_once, setup, teardown),
      cmocka_unit_test_setup_teardown(torn_last_line_is_skipped_and_cut_before_appending, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(whole_event_without_newline_is_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(malformed_middle_line_warns_but_never_fails, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(long_lines_cross_read_chunks, setup, teardown),
      cmocka_unit_test_setup_teardown(reader_skips_oversize_lines, setup, teardown),
      cmocka_unit_test_setup_teardown(list_takes_updated_at_from_a_newer_log, setup, teardown),
      cmocka_unit_test_setup_teardown(empty_metadata_is_rebuilt_from_the_log, setup, teardown),
      cmocka_unit_test_setup_teardown(list_sorts_newest_first_then_by_id, setup, teardown),
      cmocka_unit_test_setup_teardown(load_conv_rebuilds_structured_messages, setup, teardown),
      cmocka_unit_test_setup_teardown(load_conv_of_missing_session_fails, setup, teardown),
      cmocka_unit_test_setup_teardown(load_conv_drops_what_precedes_the_first_user_message, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(sessions_command_lists_and_rejects_bad_usage, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
