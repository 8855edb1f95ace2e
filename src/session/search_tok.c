/* search_tok.c — the "zero" FTS5 tokenizer; see search_tok.h.
 *
 * Why: indexing is bound by FTS5's per-token work, and unicode61 decoded
 * every byte as UTF-8, looked it up and copied it into its own buffer before
 * handing the token on; it took about a sixth of the indexing time. Most of
 * a session log is ASCII (code, shell output, English), where one table
 * lookup per byte decides the same thing.
 */
#include "session/search_tok.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

/* Byte classes. unicode61's defaults make exactly the ASCII letters and
 * digits token characters; a byte >= 0x80 belongs to a character only
 * unicode61 can classify. */
enum { SEP = 0, LOWER = 1, UPPER = 2, HIGH = 4 };

static unsigned char byte_class(unsigned c) {
  if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return LOWER;
  if (c >= 'A' && c <= 'Z') return UPPER;
  return c >= 0x80 ? HIGH : SEP;
}

typedef struct ztok {
  fts5_tokenizer u61;         /* unicode61's methods */
  Fts5Tokenizer *u61_inst;    /* and an instance with its default options */
  char *fold;                 /* a token with capitals, lowercased */
  size_t cap;
  unsigned char cls[256];
} ztok;

static int tok_create(void *api_ptr, const char **args, int nargs, Fts5Tokenizer **out) {
  fts5_api *api = api_ptr;
  *out = NULL;
  if (nargs > 0) return SQLITE_ERROR; /* no options: they would have to mean unicode61's */
  ztok *t = calloc(1, sizeof *t);
  if (!t) return SQLITE_NOMEM;
  void *u61_ctx = NULL;
  int rc = api->xFindTokenizer(api, "unicode61", &u61_ctx, &t->u61);
  if (rc == SQLITE_OK) rc = t->u61.xCreate(u61_ctx, NULL, 0, &t->u61_inst);
  if (rc != SQLITE_OK) {
    free(t);
    return rc;
  }
  for (unsigned c = 0; c < 256; c++) t->cls[c] = byte_class(c);
  *out = (Fts5Tokenizer *)t;
  return SQLITE_OK;
}

static void tok_delete(Fts5Tokenizer *p) {
  ztok *t = (ztok *)p;
  if (!t) return;
  if (t->u61_inst) t->u61.xDelete(t->u61_inst);
  free(t->fold);
  free(t);
}

typedef int (*token_fn)(void *, int, const char *, int, int, int);

/* unicode61's tokens of a run, offsets moved to the whole text's. */
typedef struct shifted {
  void *ctx;
  token_fn cb;
  int off;
} shifted;

static int shift_token(void *ud, int flags, const char *tok, int n, int start, int end) {
  shifted *s = ud;
  return s->cb(s->ctx, flags, tok, n, start + s->off, end + s->off);
}

static int tok_tokenize(Fts5Tokenizer *tp, void *ctx, int flags, const char *text, int n,
                        token_fn cb) {
  ztok *t = (ztok *)tp;
  const unsigned char *cls = t->cls;
  const unsigned char *s = (const unsigned char *)text, *p = s, *end = s + (n > 0 ? n : 0);
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK) {
    while (p < end && cls[*p] == SEP) p++;
    if (p == end) break;
    const unsigned char *start = p;
    unsigned seen = 0, k;
    while (p < end && ((k = cls[*p]) & (LOWER | UPPER))) {
      seen |= k;
      p++;
    }
    int from = (int)(start - s), len = (int)(p - start);
    if (p < end && cls[*p] == HIGH) {
      /* A run with a non-ASCII character: all of it to unicode61, which
       * alone knows where its words end and how they fold. ASCII
       * separators end words for both, so the run is split the same. */
      while (p < end && cls[*p] != SEP) p++;
      shifted sh = {ctx, cb, from};
      rc = t->u61.xTokenize(t->u61_inst, &sh, flags, text + from, (int)(p - start), shift_token);
      continue;
    }
    if (!(seen & UPPER)) {
      rc = cb(ctx, 0, text + from, len, from, from + len); /* already folded: no copy */
      continue;
    }
    if ((size_t)len > t->cap) {
      size_t cap = len < 64 ? 64 : (size_t)len * 2;
      char *b = realloc(t->fold, cap);
      if (!b) return SQLITE_NOMEM;
      t->fold = b;
      t->cap = cap;
    }
    for (int i = 0; i < len; i++) t->fold[i] = (char)(start[i] | (cls[start[i]] & UPPER) << 4);
    rc = cb(ctx, 0, t->fold, len, from, from + len);
  }
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

fts5_api *zsearch_fts5_api(sqlite3 *db) {
  fts5_api *api = NULL;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK) return NULL;
  sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
  sqlite3_step(st);
  sqlite3_finalize(st);
  return api && api->iVersion >= 2 ? api : NULL;
}

int zsearch_tokenizer_register(fts5_api *api) {
  fts5_tokenizer methods = {tok_create, tok_delete, tok_tokenize}; /* FTS5 keeps a copy */
  if (!api) return SQLITE_ERROR;
  return api->xCreateTokenizer(api, "zero", api, &methods, NULL);
}
