/* search.c — the session search index over SQLite FTS5; see search.h. */
#include "session/search.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "session/jsonl.h"
#include "session/store.h"

#define SCHEMA_VERSION "1"

char *zsearch_index_path(void) {
  cleanup_free char *data = zpath_data_dir();
  return zpath_join(data, "index.sqlite");
}

char *zsearch_fts_expr(const char *query) {
  if (!query) return NULL;
  while (*query == ' ' || *query == '\t' || *query == '\n') query++;
  size_t n = strlen(query);
  while (n && (query[n - 1] == ' ' || query[n - 1] == '\t' || query[n - 1] == '\n')) n--;
  if (!n) return NULL;
  zbuf out = ZBUF_INIT;
  if (n >= 2 && query[0] == '"' && query[n - 1] == '"') {
    /* One phrase: FTS5 escapes a quote inside a string by doubling it. */
    zbuf_addch(&out, '"');
    bool any = false;
    for (size_t i = 1; i + 1 < n; i++) {
      if (query[i] == '"') zbuf_addch(&out, '"');
      zbuf_addch(&out, query[i]);
      if (query[i] != ' ') any = true;
    }
    zbuf_addch(&out, '"');
    if (!any) {
      zbuf_release(&out);
      return NULL;
    }
    return zbuf_detach(&out, NULL);
  }
  /* All terms: each word quoted (so "-", ":", "*" are literal), AND implied. */
  size_t i = 0;
  while (i < n) {
    while (i < n && (query[i] == ' ' || query[i] == '\t' || query[i] == '\n')) i++;
    if (i >= n) break;
    if (out.len) zbuf_addch(&out, ' ');
    zbuf_addch(&out, '"');
    for (; i < n && query[i] != ' ' && query[i] != '\t' && query[i] != '\n'; i++) {
      if (query[i] == '"') zbuf_addch(&out, '"');
      zbuf_addch(&out, query[i]);
    }
    zbuf_addch(&out, '"');
  }
  return zbuf_detach(&out, NULL);
}

/* ---- the database ------------------------------------------------------ */

static int db_fail(sqlite3 *db, zerr *err, const char *what) {
  return zerr_set(err, ZE_IO, "search index: %s: %s", what, db ? sqlite3_errmsg(db) : "no memory");
}

static const char SCHEMA[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=OFF;" /* derived data: rebuilt from the logs when lost */
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT);"
    "CREATE TABLE IF NOT EXISTS files(session_id TEXT PRIMARY KEY, ino INTEGER, size INTEGER,"
    " offset INTEGER, title TEXT, seen INTEGER);"
    "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(body, session_id UNINDEXED,"
    " seq UNINDEXED, type UNINDEXED, created UNINDEXED, tokenize='unicode61');";

static sqlite3 *db_open_once(const char *path, zerr *err) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
                      NULL) != SQLITE_OK) {
    db_fail(db, err, "cannot open");
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 5000);
  char *msg = NULL;
  if (sqlite3_exec(db, SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
    zerr_set(err, ZE_IO, "search index %s: %s", path, msg ? msg : "schema failed");
    sqlite3_free(msg);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/* Opens the index; one that cannot be opened (corrupt, not a database, an
 * older schema) is deleted and rebuilt: the logs hold everything. */
static sqlite3 *db_open(const char *path, zerr *err) {
  cleanup_free char *dir = xstrdup(path);
  char *slash = strrchr(dir, '/');
  if (slash) {
    *slash = '\0';
    if (zfs_mkdir_p(dir, 0700, err) < 0) return NULL;
  }
  sqlite3 *db = db_open_once(path, err);
  if (db) {
    sqlite3_stmt *st = NULL;
    bool ok = sqlite3_prepare_v2(db, "SELECT v FROM meta WHERE k='schema'", -1, &st, NULL) ==
              SQLITE_OK;
    int rc = ok ? sqlite3_step(st) : SQLITE_ERROR;
    const char *v = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    bool fresh = rc == SQLITE_DONE;
    bool current = v && !strcmp(v, SCHEMA_VERSION);
    sqlite3_finalize(st);
    if (fresh) {
      sqlite3_exec(db, "INSERT OR REPLACE INTO meta VALUES('schema','" SCHEMA_VERSION "')", NULL,
                   NULL, NULL);
      return db;
    }
    if (current) return db;
    sqlite3_close(db);
  }
  /* Rebuild from scratch. */
  unlink(path);
  cleanup_free char *wal = NULL;
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, "%s-wal", path);
  unlink(b.data);
  zbuf_reset(&b);
  zbuf_addf(&b, "%s-shm", path);
  unlink(b.data);
  zbuf_release(&b);
  zerr_clear(err);
  db = db_open_once(path, err);
  if (db)
    sqlite3_exec(db, "INSERT OR REPLACE INTO meta VALUES('schema','" SCHEMA_VERSION "')", NULL,
                 NULL, NULL);
  return db;
}

/* ---- indexing ---------------------------------------------------------- */

typedef struct indexer {
  sqlite3 *db;
  sqlite3_stmt *ins, *del_docs, *get_file, *put_file, *mark_seen;
  zbuf text;
  zsearch_stats *stats;
} indexer;

static void add_content(zbuf *b, const json_t *v) {
  if (json_is_string(v)) {
    zbuf_add(b, json_string_value(v), json_string_length(v));
    return;
  }
  size_t i;
  json_t *part;
  json_array_foreach(v, i, part) {
    const char *t = json_is_string(part) ? json_string_value(part) : zjson_str(part, "text");
    if (t) {
      zbuf_addstr(b, t);
      zbuf_addch(b, ' ');
    }
  }
}

/* The searchable text of an event, into ix->text; false for event types that
 * hold none. */
static bool event_text(indexer *ix, const char *type, const json_t *p) {
  zbuf_reset(&ix->text);
  if (!strcmp(type, "message")) {
    add_content(&ix->text, json_object_get(p, "content"));
  } else if (!strcmp(type, "tool_call")) {
    zbuf_addf(&ix->text, "%s ", zjson_str_or(p, "name", ""));
    const json_t *a = json_object_get(p, "arguments");
    if (json_is_string(a)) zbuf_add(&ix->text, json_string_value(a), json_string_length(a));
  } else if (!strcmp(type, "tool_result")) {
    zbuf_addf(&ix->text, "%s ", zjson_str_or(p, "name", ""));
    const json_t *o = json_object_get(p, "output");
    if (json_is_string(o)) zbuf_add(&ix->text, json_string_value(o), json_string_length(o));
  } else {
    return false;
  }
  return ix->text.len > 0;
}

static int index_line(indexer *ix, const char *sid, const char *line, size_t len) {
  json_t *ev = json_loadb(line, len, JSON_ALLOW_NUL, NULL);
  if (!json_is_object(ev)) {
    json_decref(ev);
    return 0; /* malformed lines are skipped, as replay does */
  }
  const char *type = zjson_str(ev, "type");
  int rc = 0;
  if (type && event_text(ix, type, json_object_get(ev, "payload"))) {
    sqlite3_stmt *st = ix->ins;
    sqlite3_bind_text(st, 1, ix->text.data, (int)ix->text.len, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, sid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, zjson_int_or(ev, "sequence", 0));
    sqlite3_bind_text(st, 4, type, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, zjson_str_or(ev, "createdAt", ""), -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(st);
    if (ix->stats) ix->stats->events_indexed++;
  }
  json_decref(ev);
  return rc;
}

static char *session_title(const char *dir) {
  cleanup_free char *path = zpath_join(dir, "metadata.json");
  json_t *m = zjson_load_file(path, NULL);
  const char *t = zjson_str(m, "title");
  char *out = t ? xstrdup(t) : NULL;
  json_decref(m);
  return out;
}

static int index_session(indexer *ix, const char *root, const char *sid, zerr *err) {
  cleanup_free char *dir = zpath_join(root, sid);
  cleanup_free char *path = zpath_join(dir, "events.jsonl");
  cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) return 0;
  if (ix->stats) ix->stats->sessions_scanned++;

  int64_t ino = -1, size = -1, offset = 0;
  sqlite3_bind_text(ix->get_file, 1, sid, -1, SQLITE_STATIC);
  bool known = sqlite3_step(ix->get_file) == SQLITE_ROW;
  if (known) {
    ino = sqlite3_column_int64(ix->get_file, 0);
    size = sqlite3_column_int64(ix->get_file, 1);
    offset = sqlite3_column_int64(ix->get_file, 2);
  }
  sqlite3_reset(ix->get_file);
  sqlite3_bind_text(ix->mark_seen, 1, sid, -1, SQLITE_STATIC);
  sqlite3_step(ix->mark_seen);
  sqlite3_reset(ix->mark_seen);
  if (known && ino == (int64_t)st.st_ino && size == st.st_size) return 0; /* unchanged */
  if (!known || ino != (int64_t)st.st_ino || st.st_size < offset) {
    /* New, replaced or cut (rewind): index it again from the start. */
    sqlite3_bind_text(ix->del_docs, 1, sid, -1, SQLITE_STATIC);
    sqlite3_step(ix->del_docs);
    sqlite3_reset(ix->del_docs);
    offset = 0;
  }
  if (ix->stats) ix->stats->sessions_updated++;
  if (offset > 0 && lseek(fd, offset, SEEK_SET) < 0)
    return zerr_errno(err, ZE_IO, "cannot seek %s", path);
  zjsonl_reader r;
  zjsonl_reader_init(&r, fd);
  r.offset = offset;
  zjsonl_line line;
  int rc;
  int64_t done = offset;
  while ((rc = zjsonl_next(&r, &line)) > 0) {
    if (!line.newline) break; /* a line still being written: next time */
    done = r.offset;
    if (line.oversize || !line.len) continue;
    if (index_line(ix, sid, line.text, line.len) < 0) {
      zjsonl_reader_release(&r);
      return db_fail(ix->db, err, "cannot add an event");
    }
  }
  zjsonl_reader_release(&r);
  if (rc < 0) return zerr_errno(err, ZE_IO, "cannot read %s", path);
  if (ix->stats) ix->stats->bytes_indexed += done - offset;
  cleanup_free char *title = session_title(dir);
  sqlite3_stmt *p = ix->put_file;
  sqlite3_bind_text(p, 1, sid, -1, SQLITE_STATIC);
  sqlite3_bind_int64(p, 2, (int64_t)st.st_ino);
  sqlite3_bind_int64(p, 3, done);
  sqlite3_bind_int64(p, 4, done);
  if (title) sqlite3_bind_text(p, 5, title, -1, SQLITE_STATIC);
  else sqlite3_bind_null(p, 5);
  rc = sqlite3_step(p) == SQLITE_DONE ? 0 : db_fail(ix->db, err, "cannot record a session");
  sqlite3_reset(p);
  return rc;
}

static int update_db(sqlite3 *db, const char *root, zsearch_stats *stats, zerr *err) {
  indexer ix = {.db = db, .text = ZBUF_INIT, .stats = stats};
  int rc = -1;
  if (sqlite3_exec(db, "BEGIN IMMEDIATE; UPDATE files SET seen=0;", NULL, NULL, NULL) != SQLITE_OK)
    return db_fail(db, err, "cannot start an update");
  if (sqlite3_prepare_v2(db, "INSERT INTO docs(body, session_id, seq, type, created) "
                         "VALUES(?,?,?,?,?)", -1, &ix.ins, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "DELETE FROM docs WHERE session_id=?", -1, &ix.del_docs, NULL) !=
          SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT ino, size, offset FROM files WHERE session_id=?", -1,
                         &ix.get_file, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO files(session_id, ino, size, offset, title,"
                         " seen) VALUES(?,?,?,?,?,1)", -1, &ix.put_file, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "UPDATE files SET seen=1 WHERE session_id=?", -1, &ix.mark_seen,
                         NULL) != SQLITE_OK) {
    db_fail(db, err, "cannot prepare");
    goto out;
  }
  DIR *d = opendir(root);
  if (d) {
    struct dirent *de;
    while ((de = readdir(d))) {
      if (de->d_name[0] == '.' || !zsession_id_valid(de->d_name)) continue;
      if (index_session(&ix, root, de->d_name, err) < 0) {
        closedir(d);
        goto out;
      }
    }
    closedir(d);
  }
  /* Sessions deleted since the last update. */
  if (sqlite3_exec(db, "DELETE FROM docs WHERE session_id IN (SELECT session_id FROM files "
                   "WHERE seen=0); DELETE FROM files WHERE seen=0;", NULL, NULL, NULL) != SQLITE_OK) {
    db_fail(db, err, "cannot drop deleted sessions");
    goto out;
  }
  rc = 0;
out:
  sqlite3_finalize(ix.ins);
  sqlite3_finalize(ix.del_docs);
  sqlite3_finalize(ix.get_file);
  sqlite3_finalize(ix.put_file);
  sqlite3_finalize(ix.mark_seen);
  zbuf_release(&ix.text);
  sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

int zsearch_update(const char *index_path, const char *root, zsearch_stats *stats, zerr *err) {
  if (stats) memset(stats, 0, sizeof *stats);
  sqlite3 *db = db_open(index_path, err);
  if (!db) return -1;
  int rc = update_db(db, root, stats, err);
  sqlite3_close(db);
  return rc;
}

json_t *zsearch_query(const char *index_path, const char *root, const char *query, int limit,
                      zerr *err) {
  cleanup_free char *expr = zsearch_fts_expr(query);
  if (!expr) {
    zerr_set(err, ZE_USAGE, "the search query is empty; give words to find, or a \"phrase in "
             "quotes\"");
    return NULL;
  }
  sqlite3 *db = db_open(index_path, err);
  if (!db) return NULL;
  if (update_db(db, root, NULL, err) < 0) {
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT d.session_id, d.seq, d.type, d.created, f.title,"
                         " snippet(docs, 0, '[', ']', '…', 16), bm25(docs)"
                         " FROM docs d LEFT JOIN files f ON f.session_id = d.session_id"
                         " WHERE docs MATCH ?1 ORDER BY bm25(docs) LIMIT ?2",
                         -1, &st, NULL) != SQLITE_OK) {
    db_fail(db, err, "cannot prepare the query");
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
  sqlite3_bind_int(st, 2, limit > 0 ? limit : 20);
  json_t *out = json_array();
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    json_t *r = json_object();
    json_object_set_new(r, "sessionId", json_string((const char *)sqlite3_column_text(st, 0)));
    json_object_set_new(r, "sequence", json_integer(sqlite3_column_int64(st, 1)));
    json_object_set_new(r, "type", json_string((const char *)sqlite3_column_text(st, 2)));
    json_object_set_new(r, "createdAt", json_string((const char *)sqlite3_column_text(st, 3)));
    const unsigned char *title = sqlite3_column_text(st, 4);
    if (title) json_object_set_new(r, "title", json_string((const char *)title));
    const unsigned char *snip = sqlite3_column_text(st, 5);
    /* snippet() cuts on token boundaries, so the text stays valid UTF-8 as
     * long as the input was; guard anyway before handing it to jansson. */
    json_t *sv = snip ? json_string((const char *)snip) : NULL;
    json_object_set_new(r, "snippet", sv ? sv : json_string(""));
    json_object_set_new(r, "score", json_real(-sqlite3_column_double(st, 6)));
    json_array_append_new(out, r);
  }
  if (rc != SQLITE_DONE) {
    db_fail(db, err, "query failed");
    json_decref(out);
    out = NULL;
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}
