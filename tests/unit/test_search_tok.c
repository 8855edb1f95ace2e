/* test_search_tok.c — the "zero" FTS5 tokenizer gives exactly unicode61's
 * tokens and offsets (ASCII fast path, runs with non-ASCII characters handed
 * to unicode61), on chosen texts and on many generated ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "session/search_tok.h"

typedef struct tk {
  sqlite3 *db;
  fts5_api *api;
  fts5_tokenizer zero, u61;
  Fts5Tokenizer *zero_inst, *u61_inst;
} tk;

static int setup(void **state) {
  tk *t = calloc(1, sizeof *t);
  assert_int_equal(sqlite3_open_v2(":memory:", &t->db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
  t->api = zsearch_fts5_api(t->db);
  assert_non_null(t->api);
  assert_int_equal(zsearch_tokenizer_register(t->api), SQLITE_OK);
  void *ctx = NULL;
  assert_int_equal(t->api->xFindTokenizer(t->api, "zero", &ctx, &t->zero), SQLITE_OK);
  assert_int_equal(t->zero.xCreate(ctx, NULL, 0, &t->zero_inst), SQLITE_OK);
  assert_int_equal(t->api->xFindTokenizer(t->api, "unicode61", &ctx, &t->u61), SQLITE_OK);
  assert_int_equal(t->u61.xCreate(ctx, NULL, 0, &t->u61_inst), SQLITE_OK);
  *state = t;
  return 0;
}

static int teardown(void **state) {
  tk *t = *state;
  t->zero.xDelete(t->zero_inst);
  t->u61.xDelete(t->u61_inst);
  sqlite3_close(t->db);
  free(t);
  return 0;
}

static int collect(void *ud, int flags, const char *tok, int n, int start, int end) {
  zbuf *b = ud;
  zbuf_add(b, tok, (size_t)n);
  zbuf_addf(b, "@%d-%d%s|", start, end, flags ? "c" : "");
  return SQLITE_OK;
}

/* "token@start-end|" for every token of text. */
static char *tokens(fts5_tokenizer *m, Fts5Tokenizer *inst, const char *text, int n) {
  zbuf b = ZBUF_INIT;
  assert_int_equal(m->xTokenize(inst, &b, FTS5_TOKENIZE_DOCUMENT, text, n, collect), SQLITE_OK);
  return zbuf_detach(&b, NULL);
}

static char *same_as_unicode61(tk *t, const char *text, int n) {
  char *a = tokens(&t->zero, t->zero_inst, text, n);
  char *b = tokens(&t->u61, t->u61_inst, text, n);
  assert_string_equal(a, b);
  free(b);
  return a;
}

static void test_ascii_tokens_are_folded_and_split_at_punctuation(void **state) {
  tk *t = *state;
  const char *s = "Hello, World! foo_bar x2Y main.c:42 {\"Path\":\"SRC/Main.C\"}";
  char *got = same_as_unicode61(t, s, (int)strlen(s));
  assert_string_equal(got, "hello@0-5|world@7-12|foo@14-17|bar@18-21|x2y@22-25|main@26-30|"
                           "c@31-32|42@33-35|path@38-42|src@45-48|main@49-53|c@54-55|");
  free(got);
  /* A long capitalised token (the fold buffer grows). */
  char big[300];
  for (int i = 0; i < 299; i++) big[i] = (char)('A' + i % 26);
  big[299] = '\0';
  free(same_as_unicode61(t, big, 299));
}

static void test_non_ascii_runs_fold_like_unicode61(void **state) {
  tk *t = *state;
  const char *s = "Café ÉCOLE naïve Straße Ελληνικά ПРИВЕТ 日本語 x😀y a—b c…d e\xc2\xa0" "f";
  char *got = same_as_unicode61(t, s, (int)strlen(s));
  /* Diacritics removed and case folded, as unicode61 does by default. */
  assert_non_null(strstr(got, "cafe@0-5|ecole@6-12|naive@13-19|"));
  assert_non_null(strstr(got, "привет@"));
  /* A dash, an ellipsis and a no-break space separate words. */
  assert_non_null(strstr(got, "|a@"));
  assert_non_null(strstr(got, "|b@"));
  assert_non_null(strstr(got, "|f@"));
  free(got);
  /* Invalid UTF-8 is unicode61's business too. */
  const char *bad = "ab\xff\xfe" "cd \x80x \xc3 y\xe2\x82";
  free(same_as_unicode61(t, bad, (int)strlen(bad)));
}

static void test_generated_texts_tokenize_like_unicode61(void **state) {
  tk *t = *state;
  static const char *pieces[] = {"a", "Z", "7", " ", ".", "_", "-", "\n", "\"", "é", "É", "ß",
                                 "\xe2\x80\x94", "\xc2\xa0", "日", "😀", "\xff", "\x80", "\xc3",
                                 "İ", "ǅ", "\xcc\x81" /* combining acute */, "ﬁ", "Ⅻ", "١"};
  uint32_t seed = 12345;
  zbuf text = ZBUF_INIT;
  for (int round = 0; round < 3000; round++) {
    zbuf_reset(&text);
    seed = seed * 1103515245u + 12345u;
    int n = (int)(seed >> 16) % 24;
    for (int i = 0; i < n; i++) {
      seed = seed * 1103515245u + 12345u;
      zbuf_addstr(&text, pieces[(seed >> 16) % (sizeof pieces / sizeof *pieces)]);
    }
    free(same_as_unicode61(t, text.data, (int)text.len));
  }
  zbuf_release(&text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_ascii_tokens_are_folded_and_split_at_punctuation,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_non_ascii_runs_fold_like_unicode61, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generated_texts_tokenize_like_unicode61, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
