/* test_search.c — session search: the tree-less event scanner, snippets, and
 * the index's life (appends read incrementally, a rewound log reindexed, a
 * deleted session dropped, nothing reopened when nothing changed, a rebuild
 * once dead rows outnumber live ones). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "session/search.h"
#include "session/store.h"

/* Both the one-pass scanner and the two-pass form must give want. */
static void text_is(const char *line, const char *want) {
  zbuf out = ZBUF_INIT, two = ZBUF_INIT;
  bool ok = zsearch_event_text(line, strlen(line), &out);
  bool ok2 = zsearch_event_text_2pass(line, strlen(line), &two);
  if (!want) {
    assert_false(ok);
    assert_false(ok2);
  } else {
    assert_true(ok);
    assert_true(ok2);
    assert_string_equal(out.data, want);
    assert_string_equal(two.data, want);
  }
  zbuf_release(&out);
  zbuf_release(&two);
}

static void test_scanner_finds_the_indexed_fields_and_decodes_them(void **state) {
  (void)state;
  text_is("{\"id\":\"a:1\",\"type\":\"message\",\"payload\":{\"role\":\"user\","
          "\"content\":\"line one\\nline \\\"two\\\"\"}}",
          "line one\nline \"two\"");
  /* Content parts: strings and {text} objects, other parts ignored. */
  text_is("{\"type\":\"message\",\"payload\":{\"content\":[\"a\",{\"type\":\"image\",\"url\":"
          "\"x\"},{\"text\":\"b\",\"type\":\"text\"}]}}",
          "a b ");
  /* Name first whatever the key order; nested values skipped. */
  text_is("{\"payload\":{\"output\":\"caf\\u00e9 \\ud83d\\ude00 \\ud800!\",\"meta\":{\"x\":[1,"
          "{\"y\":\"}\"}]},\"name\":\"read_file\"},\"type\":\"tool_result\"}",
          "read_file café 😀 \xef\xbf\xbd!");
  text_is("{\"type\":\"tool_call\",\"payload\":{\"name\":\"grep\",\"arguments\":\"{\\\"q\\\":1}\"}}",
          "grep {\"q\":1}");
  text_is("{\"type\":\"provider_usage\",\"payload\":{\"content\":\"x\"}}", NULL);
  text_is("{\"type\":\"message\",\"payload\":{\"content\":\"unterminated}}", NULL);
  text_is("{\"type\":\"message\",\"payload\":{\"content\":\"bad \\q escape\"}}", NULL);
  text_is("not json", NULL);
  text_is("", NULL);
}

/* The one-pass path (type before payload) agrees with the two-pass one on
 * the odd cases: the name after the output, repeated keys (the last counts),
 * a type repeated after the payload, a non-string output, content parts that
 * are not objects of members, and a line broken after its payload. */
static void test_one_pass_scanner_agrees_on_key_order_and_repeats(void **state) {
  (void)state;
  text_is("{\"type\":\"tool_result\",\"payload\":{\"output\":\"out\",\"name\":\"shell\"}}",
          "shell out");
  text_is("{\"type\":\"tool_result\",\"payload\":{\"output\":\"one\",\"output\":\"two\"}}",
          " two");
  text_is("{\"type\":\"tool_result\",\"payload\":{\"output\":\"one\",\"output\":{\"x\":1}}}", " ");
  text_is("{\"type\":\"tool_result\",\"payload\":{\"name\":\"a\",\"name\":\"b\",\"output\":\"o\"}}",
          "b o");
  text_is("{\"type\":\"message\",\"payload\":{\"content\":\"m\"},\"type\":\"tool_call\"}", " ");
  text_is("{\"type\":\"tool_call\",\"payload\":{\"content\":\"m\"},\"type\":\"message\"}", "m");
  text_is("{\"type\":\"message\",\"payload\":{\"content\":\"a\",\"content\":\"b\"}}", "b");
  text_is("{\"type\":\"message\",\"payload\":{\"content\":[{1}]}}", NULL);
  text_is("{\"type\":\"message\",\"payload\":{\"content\":[\"x\"]},\"payload\":{\"content\":\"y\"}}",
          "y");
  text_is("{\"type\":\"tool_result\",\"payload\":{\"name\":\"n\",\"output\":\"o\"},", NULL);
  text_is("{\"type\":\"tool_result\",\"payload\":[\"output\"]}", NULL);
  /* Found by fuzz_session_log: a key without its opening quote. */
  text_is("{\"type\":\"message\",\"payload\":{brol\":\"user\",\"content\":\"x\"}}", NULL);
  text_is("{\"type\":\"message\",\"payload\":{\"role\":\x19user\",\"content\":\"x\"}}", NULL);
  text_is("{\"type\":\"message\",\"payload\":{\"n\":1{\"content\":\"x\"}}}", NULL);
  text_is("{\"type\":\"tool_result\",\"payload\":{\"name\":\"n\",\"output\":\"\\u00e9\\n\"}}",
          "n \xc3\xa9\n");
}

static void test_snippet_brackets_matches_and_cuts_around_the_first(void **state) {
  (void)state;
  const char *t = "one two three four five six seven the Quick zebra jumped over the lazy dog";
  char *s = zsearch_snippet(t, strlen(t), "\"quick zebra jumped\"", 8);
  assert_string_equal(s, "…five six seven the [Quick zebra jumped] over…");
  free(s);
  s = zsearch_snippet(t, strlen(t), "dog", 16);
  assert_string_equal(s, "…jumped over the lazy [dog]");
  free(s);
  s = zsearch_snippet(t, strlen(t), "absent", 3);
  assert_string_equal(s, "one two three…");
  free(s);
  /* Whitespace runs fold to one space. */
  const char *u = "a\n\n\tb   c";
  s = zsearch_snippet(u, strlen(u), "b", 16);
  assert_string_equal(s, "a [b] c");
  free(s);
}

typedef struct fx {
  char tmp[64];
  char *root, *index;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  snprintf(f->tmp, sizeof f->tmp, "%s", "/tmp/zero-test-search-XXXXXX");
  assert_non_null(mkdtemp(f->tmp));
  f->root = zpath_join(f->tmp, "sessions");
  f->index = zpath_join(f->tmp, "index.sqlite");
  mkdir(f->root, 0700);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  zsession_remove_dir(f->tmp);
  free(f->root);
  free(f->index);
  free(f);
  return 0;
}

static void add_event(fx *f, const char *sid, int seq, const char *text, const char *mode) {
  char *dir = zpath_join(f->root, sid);
  mkdir(dir, 0700);
  char *path = zpath_join(dir, "events.jsonl");
  FILE *fp = fopen(path, mode);
  assert_non_null(fp);
  fprintf(fp,
          "{\"id\":\"%s:%d\",\"sessionId\":\"%s\",\"sequence\":%d,\"type\":\"message\","
          "\"createdAt\":\"2026-01-01T00:00:00Z\",\"payload\":{\"role\":\"user\",\"content\":"
          "\"%s\"}}\n",
          sid, seq, sid, seq, text);
  fclose(fp);
  free(path);
  free(dir);
}

/* Session ids of the hits for q, joined with ','. */
static char *hits(fx *f, const char *q) {
  zerr err = ZERR_INIT;
  json_t *r = zsearch_query(f->index, f->root, q, 50, &err);
  assert_non_null(r);
  zbuf b = ZBUF_INIT;
  size_t i;
  json_t *h;
  json_array_foreach(r, i, h) {
    if (b.len) zbuf_addch(&b, ',');
    zbuf_addf(&b, "%s#%lld", zjson_str(h, "sessionId"), (long long)zjson_int_or(h, "sequence", 0));
  }
  json_decref(r);
  return zbuf_detach(&b, NULL);
}

static void hits_are(fx *f, const char *q, const char *want) {
  char *got = hits(f, q);
  assert_string_equal(got, want);
  free(got);
}

static void test_index_follows_appends_rewinds_and_deletions(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsearch_stats st;
  add_event(f, "s1", 1, "alpha bravo", "w");
  add_event(f, "s2", 1, "charlie delta", "w");
  hits_are(f, "bravo", "s1#1");
  hits_are(f, "delta", "s2#1");
  struct stat ist;
  assert_int_equal(stat(f->index, &ist), 0);
  assert_int_equal(ist.st_mode & 0777, 0600);

  /* Nothing changed: no log is even opened. */
  assert_int_equal(zsearch_update(f->index, f->root, &st, &err), 0);
  assert_int_equal(st.sessions_scanned, 0);
  assert_int_equal(st.bytes_indexed, 0);

  /* An append is read from where indexing stopped. */
  add_event(f, "s1", 2, "echo bravo", "a");
  assert_int_equal(zsearch_update(f->index, f->root, &st, &err), 0);
  assert_int_equal(st.sessions_updated, 1);
  assert_int_equal(st.events_indexed, 1);
  hits_are(f, "echo", "s1#2");

  /* Rewound and written again past the old length: the old text is gone. */
  add_event(f, "s1", 1, "alpha bravo", "w");
  add_event(f, "s1", 2, "foxtrot golf hotel", "a");
  assert_int_equal(zsearch_update(f->index, f->root, &st, &err), 0);
  assert_int_equal(st.events_indexed, 2);
  hits_are(f, "echo", "");
  hits_are(f, "foxtrot", "s1#2");
  hits_are(f, "bravo", "s1#1");

  /* A deleted session leaves the results; the index survives deletion. */
  char *dir = zpath_join(f->root, "s2");
  zsession_remove_dir(dir);
  free(dir);
  hits_are(f, "delta", "");
  unlink(f->index);
  hits_are(f, "foxtrot", "s1#2");
}

static void test_a_torn_last_line_waits_for_its_newline(void **state) {
  fx *f = *state;
  add_event(f, "s1", 1, "first words", "w");
  char *path = zpath_join(f->root, "s1/events.jsonl");
  FILE *fp = fopen(path, "a");
  fputs("{\"id\":\"s1:2\",\"sessionId\":\"s1\",\"sequence\":2,\"type\":\"message\",\"payload\":"
        "{\"content\":\"second", fp);
  fclose(fp);
  hits_are(f, "second", "");
  fp = fopen(path, "a");
  fputs(" words\"}}\n", fp);
  fclose(fp);
  hits_are(f, "second", "s1#2");
  free(path);
}

static void test_dead_rows_outnumbering_live_ones_rebuild_the_index(void **state) {
  fx *f = *state;
  zerr err = ZERR_INIT;
  zsearch_stats st;
  char *dir = zpath_join(f->root, "big");
  mkdir(dir, 0700);
  char *path = zpath_join(dir, "events.jsonl");
  FILE *fp = fopen(path, "w");
  for (int i = 1; i <= 21000; i++)
    fprintf(fp, "{\"type\":\"message\",\"sequence\":%d,\"payload\":{\"content\":\"w%d\"}}\n", i,
            i);
  fclose(fp);
  add_event(f, "small", 1, "kept words", "w");
  assert_int_equal(zsearch_update(f->index, f->root, &st, &err), 0);
  assert_int_equal(st.events_indexed, 21001);
  assert_int_equal(st.rebuilds, 0);
  zsession_remove_dir(dir);
  assert_int_equal(zsearch_update(f->index, f->root, &st, &err), 0);
  /* The shard that held it is rebuilt (the other one, if "small" lives
   * there, is left alone). */
  assert_int_equal(st.rebuilds, 1);
  assert_true(st.events_indexed <= 1);
  hits_are(f, "kept", "small#1");
  hits_are(f, "w20", "");
  free(path);
  free(dir);
}

static void test_ranking_weighs_rare_words_and_repetition(void **state) {
  fx *f = *state;
  /* "apple" is in every event, "banana" in two: banana counts more. */
  add_event(f, "a", 1, "apple apple apple banana", "w");
  add_event(f, "b", 1, "apple banana banana banana", "w");
  for (int i = 2; i < 40; i++) add_event(f, "a", i, "apple pie", "a");
  hits_are(f, "apple banana", "b#1,a#1");
  hits_are(f, "banana", "b#1,a#1");
  /* A phrase needs its words adjacent and in order. */
  hits_are(f, "\"apple pie\"", "a#39,a#38,a#37,a#36,a#35,a#34,a#33,a#32,a#31,a#30,a#29,a#28,"
           "a#27,a#26,a#25,a#24,a#23,a#22,a#21,a#20,a#19,a#18,a#17,a#16,a#15,a#14,a#13,a#12,"
           "a#11,a#10,a#9,a#8,a#7,a#6,a#5,a#4,a#3,a#2");
  hits_are(f, "\"pie apple\"", "");
}

/* The "zero" tokenizer as a user sees it: case and accents folded both
 * ways, and a phrase matches across the punctuation of paths and code. */
static void test_queries_fold_case_and_accents_and_phrases_cross_punctuation(void **state) {
  fx *f = *state;
  add_event(f, "p", 1, "Error: src/Main.c:42 -- Café au LAIT", "w");
  add_event(f, "p", 2, "nothing here but main", "a");
  hits_are(f, "ERROR main", "p#1");
  hits_are(f, "\"src main c 42\"", "p#1");
  hits_are(f, "\"src/main.c:42\"", "p#1");
  hits_are(f, "cafe lait", "p#1");
  hits_are(f, "CAFÉ", "p#1");
  hits_are(f, "\"main 42\"", "");
}

/* A missing index is built in a private file and renamed into place; the
 * private file of a build whose process died is removed, not left behind. */
static void test_a_fresh_index_is_built_aside_and_dead_builds_are_removed(void **state) {
  fx *f = *state;
  add_event(f, "s1", 1, "alpha bravo", "w");
  zbuf db = ZBUF_INIT;
  zbuf_addf(&db, "%s.new-999999999", f->index);
  char *dead = zbuf_detach(&db, NULL);
  FILE *fp = fopen(dead, "w");
  assert_non_null(fp);
  fputs("half a build", fp);
  fclose(fp);
  hits_are(f, "bravo", "s1#1");
  struct stat st;
  assert_int_equal(stat(f->index, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_not_equal(stat(dead, &st), 0);
  /* Deleting the index loses nothing: it is built again. */
  unlink(f->index);
  hits_are(f, "bravo", "s1#1");
  free(dead);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scanner_finds_the_indexed_fields_and_decodes_them),
      cmocka_unit_test(test_one_pass_scanner_agrees_on_key_order_and_repeats),
      cmocka_unit_test(test_snippet_brackets_matches_and_cuts_around_the_first),
      cmocka_unit_test_setup_teardown(test_index_follows_appends_rewinds_and_deletions, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ranking_weighs_rare_words_and_repetition, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_queries_fold_case_and_accents_and_phrases_cross_punctuation, setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_a_fresh_index_is_built_aside_and_dead_builds_are_removed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_a_torn_last_line_waits_for_its_newline, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_dead_rows_outnumbering_live_ones_rebuild_the_index,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
