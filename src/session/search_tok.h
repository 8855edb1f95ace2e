/* search_tok.h — the FTS5 tokenizer of the session search index.
 *
 * "zero" splits text exactly as FTS5's unicode61 tokenizer with its default
 * options does (letters and digits of every script are token characters,
 * everything else separates; tokens case folded, diacritics removed), only
 * faster: the session logs are mostly ASCII, and for ASCII runs it finds the
 * tokens itself (a table lookup per byte, lowercase tokens passed on without
 * a copy). Every run of letters/digits that holds a non-ASCII byte is handed
 * to unicode61 itself, so folding and word boundaries of other scripts are
 * unicode61's, byte for byte. The differential test and fuzz target check
 * that both produce the same tokens at the same offsets.
 */
#ifndef ZERO_SESSION_SEARCH_TOK_H
#define ZERO_SESSION_SEARCH_TOK_H

#include <sqlite3.h>

/* The FTS5 API of db, or NULL when SQLite lacks FTS5. */
fts5_api *zsearch_fts5_api(sqlite3 *db);

/* Registers the "zero" tokenizer with api (needs unicode61, built into
 * FTS5). SQLITE_OK or an SQLite error code. */
int zsearch_tokenizer_register(fts5_api *api);

#endif
