/* fuzz_search_tok.c — differential: the "zero" FTS5 tokenizer of the
 * session search index (src/session/search_tok.c) must give exactly the
 * tokens, offsets and flags of unicode61 for any bytes.
 *   ./build-fuzz/tests/fuzz/fuzz_search_tok -max_total_time=120
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "session/search_tok.h"

static int collect(void *ud, int flags, const char *tok, int n, int start, int end) {
  zbuf *b = ud;
  zbuf_add(b, tok, (size_t)n);
  zbuf_addf(b, "@%d-%d/%d|", start, end, flags);
  return SQLITE_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* One connection for the whole run (the fuzzer's process is the unit). */
  static sqlite3 *db;
  static fts5_tokenizer zero, u61;
  static Fts5Tokenizer *zi, *ui;
  if (!db) {
    void *ctx = NULL;
    fts5_api *api;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        !(api = zsearch_fts5_api(db)) || zsearch_tokenizer_register(api) != SQLITE_OK ||
        api->xFindTokenizer(api, "zero", &ctx, &zero) != SQLITE_OK ||
        zero.xCreate(ctx, NULL, 0, &zi) != SQLITE_OK ||
        api->xFindTokenizer(api, "unicode61", &ctx, &u61) != SQLITE_OK ||
        u61.xCreate(ctx, NULL, 0, &ui) != SQLITE_OK)
      abort();
  }
  if (size > 1 << 16) return 0;
  /* An exact-size copy, so that ASan sees any read past the end. */
  char *text = malloc(size ? size : 1);
  memcpy(text, data, size);
  zbuf a = ZBUF_INIT, b = ZBUF_INIT;
  int ra = zero.xTokenize(zi, &a, FTS5_TOKENIZE_DOCUMENT, text, (int)size, collect);
  int rb = u61.xTokenize(ui, &b, FTS5_TOKENIZE_DOCUMENT, text, (int)size, collect);
  if (ra != rb || a.len != b.len || memcmp(a.data, b.data, a.len)) __builtin_trap();
  zbuf_release(&a);
  zbuf_release(&b);
  free(text);
  return 0;
}
