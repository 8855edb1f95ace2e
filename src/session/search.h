/* search.h — full-text search across every session.
 *
 * An SQLite FTS5 index at $XDG_DATA_HOME/zero/index.sqlite holds the text of
 * messages, tool calls (name + arguments) and tool outputs, one row per
 * event, with the session id, sequence, type and time. The JSONL logs stay
 * the source of truth: the index is updated incrementally from them before
 * each query (only bytes appended since the last update are read; a log that
 * shrank — rewind — or was replaced is reindexed, a deleted session's rows
 * are dropped), and a missing or corrupt index is simply rebuilt.
 *
 * Queries: words are all required (each quoted, so punctuation is literal);
 * a query in double quotes is one phrase. Results are ranked by bm25 and
 * carry a snippet with the match in [brackets].
 */
#ifndef ZERO_SESSION_SEARCH_H
#define ZERO_SESSION_SEARCH_H

#include <jansson.h>
#include <stdint.h>

#include "base/err.h"

typedef struct zsearch_stats {
  int64_t sessions_scanned;
  int64_t sessions_updated;
  int64_t bytes_indexed;
  int64_t events_indexed;
} zsearch_stats;

/* <data dir>/index.sqlite. Caller frees. */
char *zsearch_index_path(void);

/* Brings the index at index_path up to date with the sessions under root.
 * stats may be NULL. */
int zsearch_update(const char *index_path, const char *root, zsearch_stats *stats, zerr *err);

/* Runs query (see above) after updating the index. Returns a new array of
 * {sessionId, sequence, type, createdAt, title?, snippet, score}, best first,
 * at most limit (0 = 20). A query with no searchable words is ZE_USAGE. */
json_t *zsearch_query(const char *index_path, const char *root, const char *query, int limit,
                      zerr *err);

/* The FTS5 MATCH expression for a user query (exposed for tests and the
 * fuzz target). Caller frees; NULL when the query has no words. */
char *zsearch_fts_expr(const char *query);

#endif
