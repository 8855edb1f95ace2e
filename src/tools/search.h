/* search.h — the line matcher grep uses (PCRE2 with JIT; a pattern without
 * metacharacters in literal mode). Exposed for tests, fuzzing and benchmarks. */
#ifndef ZERO_TOOLS_SEARCH_H
#define ZERO_TOOLS_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

typedef struct zsearch {
  struct pcre2_real_code_8 *code;
} zsearch;

/* Compiles pattern; on error returns -1 with a message in err. */
int zsearch_compile(zsearch *s, const char *pattern, bool casefold, zbuf *err);
void zsearch_release(zsearch *s);

/* Per-thread match data for zsearch_lines. */
void *zsearch_match_data(const zsearch *s);
void zsearch_match_data_free(void *md);

/* Called for each matching line: 1-based number, [start, end) offsets without
 * the newline. Return -1 to stop. */
typedef int (*zsearch_line_fn)(void *ud, size_t lineno, size_t start, size_t end);

/* Calls fn for every line of buf the pattern matches within; returns how many
 * lines matched (up to the stop). */
size_t zsearch_lines(const zsearch *s, void *match_data, const char *buf, size_t len,
                     zsearch_line_fn fn, void *ud);

#endif
