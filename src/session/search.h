/* search.h — full-text search across every session.
 *
 * An SQLite FTS5 index at $XDG_DATA_HOME/zero/index.sqlite holds the words of
 * messages, tool calls (name + arguments) and tool outputs, one row per
 * event. The table is contentless: it stores no text, only the index, and a
 * row's rowid says where its event lives (the session's file number << 40 |
 * the byte offset of its line in events.jsonl). Snippets, sequence, type and
 * time are read back from the JSONL lines of the top hits only.
 *
 * The JSONL logs stay the source of truth. Before each query the session
 * directory is listed and each log's inode, size and mtime compared with
 * what was indexed (no log is opened when nothing changed); only bytes
 * appended since are read. A log that was cut (rewind) or replaced is indexed
 * again under a new file number, and its old rows — like those of a deleted
 * session — become dead: they are skipped at query time (contentless FTS5
 * rows cannot be deleted one by one) and the index is rebuilt once dead rows
 * outnumber live ones. A missing or corrupt index is simply rebuilt.
 *
 * The index is split into two databases (index.sqlite, index-1.sqlite;
 * sessions assigned by a hash of their id), updated by two threads: indexing
 * is bound by FTS5's per-word work, so it runs on two cores. A shard that is
 * missing or stale is built from scratch in a private file without a journal
 * and renamed into place; words are split by the "zero" tokenizer
 * (search_tok.h: unicode61's words and folding, faster).
 *
 * Queries: words are all required (each quoted, so punctuation is literal);
 * a query in double quotes is one phrase. Results are ranked by bm25 and
 * carry a snippet with the match in [brackets].
 */
#ifndef ZERO_SESSION_SEARCH_H
#define ZERO_SESSION_SEARCH_H

#include <jansson.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

typedef struct zsearch_stats {
  int64_t sessions_scanned;
  int64_t sessions_updated;
  int64_t bytes_indexed;
  int64_t events_indexed;
  int64_t rebuilds; /* whole-index rebuilds (dead rows outnumbered live ones) */
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

/* The searchable text of one events.jsonl line (message content; tool call
 * name + arguments; tool result name + output), decoded, into out (reset
 * first), found by a scanner that builds no JSON tree. false for other event
 * types and for lines it cannot read. */
bool zsearch_event_text(const char *line, size_t len, zbuf *out);

/* The same in two passes (find the payload, then read it): what
 * zsearch_event_text does when "payload" comes before "type". Exposed so
 * that tests and the fuzz target check both give the same text. */
bool zsearch_event_text_2pass(const char *line, size_t len, zbuf *out);

/* A one-line snippet of text around the first word of query found in it
 * (ASCII case folded): about ntokens words, matches (and runs of adjacent
 * matches) in [brackets], "…" where text was cut. Caller frees. */
char *zsearch_snippet(const char *text, size_t len, const char *query, int ntokens);

#endif
