/* search.c — the session search index over SQLite FTS5; see search.h. */
#include "session/search.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/mathx.h"
#include "base/path.h"
#include "base/strvec.h"
#include "session/jsonl.h"
#include "session/search_tok.h"
#include "session/store.h"

#define SCHEMA_VERSION "3" /* 3: the "zero" tokenizer */
#define ZSEARCH_SHARDS 2

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

/* rowid = fileno << OFF_BITS | byte offset of the event's line. 22 + 40 bits
 * keep it positive; a log's bytes past 1 TiB are not indexed, and when file
 * numbers run out the index is rebuilt (which starts them again at 1). */


#define OFF_BITS 40
#define OFF_LIMIT ((int64_t)1 << OFF_BITS)
#define FILENO_LIMIT ((int64_t)1 << 22)
/* Bytes before the indexed offset remembered to tell an append from a log
 * that was cut and written again (rewind) to at least the same length. */
#define TAIL_LEN 64
/* Sessions are indexed in transactions of about this many bytes: big enough
 * that FTS5 flushes few small segments, small enough that an interrupted
 * first indexing keeps most of its work. */
#define BATCH_BYTES ((int64_t)64 << 20)
/* The index is rebuilt when dead rows (of cut, replaced or deleted logs)
 * outnumber live ones and are at least this many. */
#define REBUILD_DEAD_MIN 20000

static int db_fail(sqlite3 *db, zerr *err, const char *what) {
  return zerr_set(err, ZE_IO, "search index: %s: %s", what, db ? sqlite3_errmsg(db) : "no memory");
}

static const char SCHEMA[] =
    "PRAGMA synchronous=OFF;" /* derived data: rebuilt from the logs when lost */
    "PRAGMA cache_size=-16384;"
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v);"
    "CREATE TABLE IF NOT EXISTS files(session_id TEXT PRIMARY KEY, fileno INTEGER,"
    " ino INTEGER, size INTEGER, mtime INTEGER, offset INTEGER, tail BLOB, rows INTEGER,"
    " title TEXT);"
    "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(body, content='',"
    " tokenize='zero');";

/* zrank(docs, idf1, idf2, …): Okapi BM25 (k1 = 1.2, b = 0.75) as FTS5's
 * bm25() computes it, except that each phrase's IDF is given by the caller.
 * FTS5's own finds it by visiting every row that matches each phrase, once
 * per query: for a common word over a big index that one scan cost more than
 * everything else together. */
static void zrank_fn(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                     int nval, sqlite3_value **vals) {
  sqlite3_int64 nrows = 0, total = 0;
  int dl = 0;
  if (api->xRowCount(fts, &nrows) != SQLITE_OK ||
      api->xColumnTotalSize(fts, 0, &total) != SQLITE_OK ||
      api->xColumnSize(fts, 0, &dl) != SQLITE_OK) {
    sqlite3_result_error(ctx, "zrank: no statistics", -1);
    return;
  }
  double avgdl = nrows > 0 && total > 0 ? (double)total / (double)nrows : 1.0;
  double score = 0;
  int nphrase = api->xPhraseCount(fts);
  for (int i = 0; i < nphrase; i++) {
    Fts5PhraseIter it;
    int col = -1, off = 0, tf = 0;
    for (api->xPhraseFirst(fts, i, &it, &col, &off); col >= 0;
         api->xPhraseNext(fts, &it, &col, &off))
      tf++;
    double idf = i < nval ? sqlite3_value_double(vals[i]) : 1.0;
    score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl));
  }
  sqlite3_result_double(ctx, score);
}

static int register_zrank(fts5_api *api) {
  return api->xCreateFunction(api, "zrank", NULL, zrank_fn, NULL) == SQLITE_OK ? 0 : -1;
}

/* Opens (creating) the database at path with the schema. bulk: a private
 * file being built from scratch (see build_fresh), without a journal; else
 * the shared index, in WAL mode (readers never wait for an update). */
static sqlite3 *db_open_once(const char *path, bool bulk, zerr *err) {
  sqlite3 *db = NULL;
  /* The index holds the words of every session: private like the logs.
   * SQLite gives its -wal and -shm files the database file's mode. */
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) close(fd);
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW |
                          SQLITE_OPEN_NOMUTEX, /* one thread per connection */
                      NULL) != SQLITE_OK) {
    db_fail(db, err, "cannot open");
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 5000);
  /* The tokenizer before the table is touched, the ranking function for
   * queries (both live as long as the connection). */
  fts5_api *api = zsearch_fts5_api(db);
  if (!api || zsearch_tokenizer_register(api) != SQLITE_OK || register_zrank(api) < 0) {
    zerr_set(err, ZE_IO, "search index %s: this SQLite has no usable FTS5 (%s); install a "
             "libsqlite3-0 built with it (Debian's is)", path, sqlite3_errmsg(db));
    sqlite3_close(db);
    return NULL;
  }
  char *msg = NULL;
  if (sqlite3_exec(db, bulk ? "PRAGMA journal_mode=OFF" : "PRAGMA journal_mode=WAL", NULL, NULL,
                   NULL) != SQLITE_OK ||
      sqlite3_exec(db, SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
    zerr_set(err, ZE_IO, "search index %s: %s", path, msg ? msg : "schema failed");
    sqlite3_free(msg);
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

static void db_unlink(const char *path) {
  zbuf b = ZBUF_INIT;
  unlink(path);
  zbuf_addf(&b, "%s-wal", path);
  unlink(b.data);
  zbuf_reset(&b);
  zbuf_addf(&b, "%s-shm", path);
  unlink(b.data);
  zbuf_release(&b);
}

/* A new index. FTS5 collects the words of new rows in a hash table and
 * writes it out as a segment when it holds hashsize bytes (1 MiB by
 * default), merging segments as they pile up: automerge of them at one
 * level. For a first indexing, most of the CPU time after the per-word work
 * went into writing and merging many small segments. 32 MiB tables make
 * few large ones (about 60 MiB more peak memory over both shards, only while
 * that much is being indexed: an update flushes at its commit), and merging
 * 8 at a time instead of 4 rewrites the index fewer times; measured over
 * 1 GB of sessions: -17% CPU, queries unchanged (bench/sessions/run). */
static void db_init(sqlite3 *db) {
  sqlite3_exec(db, "INSERT INTO docs(docs, rank) VALUES('hashsize', 33554432);"
               "INSERT INTO docs(docs, rank) VALUES('automerge', 8);"
               "INSERT OR REPLACE INTO meta VALUES('schema','" SCHEMA_VERSION "')", NULL, NULL,
               NULL);
}

/* Opens the index at path when it is there and current. Otherwise NULL,
 * with *stale set when it is missing, empty, unreadable or of another
 * schema (it is then built anew: the logs hold everything), or with err set
 * when the trouble is elsewhere (its directory cannot be made). */
static sqlite3 *db_open_current(const char *path, bool *stale, zerr *err) {
  *stale = false;
  cleanup_free char *dir = xstrdup(path);
  char *slash = strrchr(dir, '/');
  if (slash) {
    *slash = '\0';
    if (zfs_mkdir_p(dir, 0700, err) < 0) return NULL;
  }
  struct stat st;
  if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    *stale = true;
    return NULL;
  }
  sqlite3 *db = db_open_once(path, false, err);
  if (db) {
    sqlite3_stmt *q = NULL;
    bool ok = sqlite3_prepare_v2(db, "SELECT v FROM meta WHERE k='schema'", -1, &q, NULL) ==
              SQLITE_OK;
    const char *v = ok && sqlite3_step(q) == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0)
                                                        : NULL;
    bool current = v && !strcmp(v, SCHEMA_VERSION);
    sqlite3_finalize(q);
    if (current) return db;
    sqlite3_close(db);
  }
  zerr_clear(err);
  *stale = true;
  return NULL;
}

static int64_t meta_get(sqlite3 *db, const char *k, int64_t dflt) {
  sqlite3_stmt *st = NULL;
  int64_t v = dflt;
  if (sqlite3_prepare_v2(db, "SELECT v FROM meta WHERE k=?", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  return v;
}

static int meta_set(sqlite3 *db, const char *k, int64_t v) {
  sqlite3_stmt *st = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES(?,?)", -1, &st, NULL) ==
      SQLITE_OK) {
    sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, v);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  }
  sqlite3_finalize(st);
  return rc;
}

/* ---- what is indexed --------------------------------------------------- */

/* One row of the files table. */
typedef struct frow {
  char *sid;
  int64_t fileno, ino, size, mtime, offset, rows;
  char *title;
  bool seen;
} frow;
typedef ZVEC(frow) frows;

static void frows_clear(frows *v) {
  for (size_t i = 0; i < v->len; i++) {
    free(v->items[i].sid);
    free(v->items[i].title);
  }
  v->len = 0;
}

/* All rows, sorted by session id (BINARY collation = strcmp order). */
static int load_files(sqlite3 *db, frows *v, zerr *err) {
  frows_clear(v);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT session_id, fileno, ino, size, mtime, offset, rows, title"
                         " FROM files ORDER BY session_id", -1, &st, NULL) != SQLITE_OK)
    return db_fail(db, err, "cannot read the file list");
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *title = sqlite3_column_text(st, 7);
    frow r = {.sid = xstrdup((const char *)sqlite3_column_text(st, 0)),
              .fileno = sqlite3_column_int64(st, 1),
              .ino = sqlite3_column_int64(st, 2),
              .size = sqlite3_column_int64(st, 3),
              .mtime = sqlite3_column_int64(st, 4),
              .offset = sqlite3_column_int64(st, 5),
              .rows = sqlite3_column_int64(st, 6),
              .title = title ? xstrdup((const char *)title) : NULL};
    zvec_push(v, r);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : db_fail(db, err, "cannot read the file list");
}

static int frow_cmp(const void *key, const void *elem) {
  return strcmp(key, ((const frow *)elem)->sid);
}

static frow *find_row(frows *v, const char *sid) {
  return v->len ? bsearch(sid, v->items, v->len, sizeof *v->items, frow_cmp) : NULL;
}

static int64_t mtime_ns(const struct stat *st) {
  return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* ---- indexing ---------------------------------------------------------- */

typedef struct indexer {
  sqlite3 *db;
  sqlite3_stmt *ins, *get_file, *put_file, *del_file;
  zbuf text;
  int64_t next_fileno, dead;
  bool need_rebuild;
  zsearch_stats *stats;
} indexer;

static char *session_title(const char *dir) {
  cleanup_free char *path = zpath_join(dir, "metadata.json");
  json_t *m = zjson_load_file(path, NULL);
  const char *t = zjson_str(m, "title");
  char *out = t ? xstrdup(t) : NULL;
  json_decref(m);
  return out;
}

static bool tail_matches(int fd, int64_t offset, const void *tail, int n) {
  if (offset == 0) return true;
  if (!tail || n <= 0 || n > TAIL_LEN || n > offset) return false;
  char buf[TAIL_LEN];
  return pread(fd, buf, (size_t)n, offset - n) == n && !memcmp(buf, tail, (size_t)n);
}

static int drop_session(indexer *ix, const char *sid, int64_t rows, zerr *err) {
  ix->dead += rows;
  sqlite3_bind_text(ix->del_file, 1, sid, -1, SQLITE_STATIC);
  int rc = sqlite3_step(ix->del_file) == SQLITE_DONE ? 0 : db_fail(ix->db, err, "cannot drop");
  sqlite3_reset(ix->del_file);
  return rc;
}

/* Brings one session up to date inside the caller's transaction. *bytes gets
 * the number of log bytes read. */
static int index_session(indexer *ix, const char *root, const char *sid, int64_t *bytes,
                         zerr *err) {
  *bytes = 0;
  cleanup_free char *dir = zpath_join(root, sid);
  cleanup_free char *path = zpath_join(dir, "events.jsonl");

  /* What the index holds now (another process may have just updated it). */
  int64_t fileno = 0, ino = -1, size = -1, mtime = -1, offset = 0, rows = 0;
  char tail[TAIL_LEN];
  int taillen = 0;
  sqlite3_bind_text(ix->get_file, 1, sid, -1, SQLITE_STATIC);
  bool known = sqlite3_step(ix->get_file) == SQLITE_ROW;
  if (known) {
    fileno = sqlite3_column_int64(ix->get_file, 0);
    ino = sqlite3_column_int64(ix->get_file, 1);
    size = sqlite3_column_int64(ix->get_file, 2);
    mtime = sqlite3_column_int64(ix->get_file, 3);
    offset = sqlite3_column_int64(ix->get_file, 4);
    rows = sqlite3_column_int64(ix->get_file, 6);
    int n = sqlite3_column_bytes(ix->get_file, 5);
    const void *b = sqlite3_column_blob(ix->get_file, 5);
    if (b && n > 0 && n <= TAIL_LEN) {
      memcpy(tail, b, (size_t)n);
      taillen = n;
    }
  }
  sqlite3_reset(ix->get_file);

  cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
    return known ? drop_session(ix, sid, rows, err) : 0; /* deleted, or never written */
  if (ix->stats) ix->stats->sessions_scanned++;
  if (known && ino == (int64_t)st.st_ino && size == st.st_size && mtime == mtime_ns(&st))
    return 0;
  bool append = known && ino == (int64_t)st.st_ino && st.st_size >= offset &&
                tail_matches(fd, offset, tail, taillen);
  if (!append) {
    /* New, replaced or cut (rewind): its old rows die, it gets a new number. */
    ix->dead += rows;
    if (ix->next_fileno >= FILENO_LIMIT) {
      ix->need_rebuild = true;
      return 0;
    }
    fileno = ix->next_fileno++;
    offset = 0;
    rows = 0;
  }
  if (ix->stats) ix->stats->sessions_updated++;
  zjsonl_reader r;
  if (zjsonl_reader_init_at(&r, fd, offset) < 0) {
    zjsonl_reader_release(&r);
    return zerr_errno(err, ZE_IO, "cannot seek %s", path);
  }
  zjsonl_line line;
  int rc;
  int64_t done = offset;
  while ((rc = zjsonl_next(&r, &line)) > 0) {
    if (!line.newline) break; /* a line still being written: next time */
    if (line.start >= OFF_LIMIT) break;
    done = r.offset;
    if (line.oversize || !line.len || !zsearch_event_text(line.text, line.len, &ix->text))
      continue;
    sqlite3_stmt *ins = ix->ins;
    sqlite3_bind_int64(ins, 1, fileno << OFF_BITS | line.start);
    sqlite3_bind_text(ins, 2, ix->text.data, (int)ix->text.len, SQLITE_STATIC);
    int step = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (step != SQLITE_DONE) {
      zjsonl_reader_release(&r);
      return db_fail(ix->db, err, "cannot add an event");
    }
    rows++;
    if (ix->stats) ix->stats->events_indexed++;
  }
  zjsonl_reader_release(&r);
  if (rc < 0) return zerr_errno(err, ZE_IO, "cannot read %s", path);
  *bytes = done - offset;
  if (ix->stats) ix->stats->bytes_indexed += done - offset;

  taillen = (int)(done < TAIL_LEN ? done : TAIL_LEN);
  if (taillen > 0 && pread(fd, tail, (size_t)taillen, done - taillen) != taillen) taillen = 0;
  cleanup_free char *title = session_title(dir);
  sqlite3_stmt *p = ix->put_file;
  sqlite3_bind_text(p, 1, sid, -1, SQLITE_STATIC);
  sqlite3_bind_int64(p, 2, fileno);
  sqlite3_bind_int64(p, 3, (int64_t)st.st_ino);
  sqlite3_bind_int64(p, 4, st.st_size);
  sqlite3_bind_int64(p, 5, mtime_ns(&st));
  sqlite3_bind_int64(p, 6, done);
  sqlite3_bind_blob(p, 7, tail, taillen, SQLITE_STATIC);
  sqlite3_bind_int64(p, 8, rows);
  if (title) sqlite3_bind_text(p, 9, title, -1, SQLITE_STATIC);
  else sqlite3_bind_null(p, 9);
  rc = sqlite3_step(p) == SQLITE_DONE ? 0 : db_fail(ix->db, err, "cannot record a session");
  sqlite3_reset(p);
  return rc;
}


/* The sessions whose logs differ from what the index says (inode, size,
 * mtime), and those that are gone. Opens no log. */
/* The shard a session's rows live in: FNV-1a of its id. */
static int shard_of(const char *sid) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)sid; *p; p++) h = (h ^ *p) * 16777619u;
  return (int)(h % ZSEARCH_SHARDS);
}

static int changed_sessions(const char *root, int shard, frows *files, strvec *out, zerr *err) {
  DIR *d = opendir(root);
  if (!d) {
    if (errno != ENOENT) return zerr_errno(err, ZE_IO, "cannot list %s", root);
  } else {
    int dfd = dirfd(d);
    struct dirent *de;
    char rel[160];
    while ((de = readdir(d))) {
      if (de->d_name[0] == '.' || !zsession_id_valid(de->d_name) ||
          shard_of(de->d_name) != shard)
        continue;
      snprintf(rel, sizeof rel, "%s/events.jsonl", de->d_name);
      struct stat st;
      if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) continue;
      frow *f = find_row(files, de->d_name);
      if (f) {
        f->seen = true;
        if (f->ino == (int64_t)st.st_ino && f->size == st.st_size && f->mtime == mtime_ns(&st))
          continue;
      }
      strvec_push(out, de->d_name);
    }
    closedir(d);
  }
  for (size_t i = 0; i < files->len; i++)
    if (!files->items[i].seen) strvec_push(out, files->items[i].sid);
  return 0;
}

static int rebuild_all(sqlite3 *db, zerr *err) {
  if (sqlite3_exec(db, "BEGIN IMMEDIATE;"
                   "INSERT INTO docs(docs) VALUES('delete-all');"
                   "DELETE FROM files;"
                   "INSERT OR REPLACE INTO meta VALUES('next_fileno',1);"
                   "INSERT OR REPLACE INTO meta VALUES('dead',0);"
                   "COMMIT;", NULL, NULL, NULL) != SQLITE_OK) {
    db_fail(db, err, "cannot clear the index");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
  }
  return 0;
}

static int update_pending(sqlite3 *db, const char *root, strvec *pending, zsearch_stats *stats,
                          bool *rebuild, zerr *err) {
  indexer ix = {.db = db, .text = ZBUF_INIT, .stats = stats};
  int rc = -1;
  if (sqlite3_prepare_v2(db, "INSERT INTO docs(rowid, body) VALUES(?,?)", -1, &ix.ins, NULL) !=
          SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT fileno, ino, size, mtime, offset, tail, rows FROM files"
                         " WHERE session_id=?", -1, &ix.get_file, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO files(session_id, fileno, ino, size, mtime,"
                         " offset, tail, rows, title) VALUES(?,?,?,?,?,?,?,?,?)", -1,
                         &ix.put_file, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "DELETE FROM files WHERE session_id=?", -1, &ix.del_file, NULL) !=
          SQLITE_OK) {
    db_fail(db, err, "cannot prepare");
    goto out;
  }
  size_t i = 0;
  while (i < pending->nr && !ix.need_rebuild) {
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
      db_fail(db, err, "cannot start an update");
      goto out;
    }
    ix.next_fileno = meta_get(db, "next_fileno", 1);
    ix.dead = meta_get(db, "dead", 0);
    int64_t batch = 0;
    while (i < pending->nr && batch < BATCH_BYTES && !ix.need_rebuild) {
      int64_t n = 0;
      if (index_session(&ix, root, pending->v[i++], &n, err) < 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        goto out;
      }
      batch += n;
    }
    if (meta_set(db, "next_fileno", ix.next_fileno) < 0 || meta_set(db, "dead", ix.dead) < 0 ||
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
      db_fail(db, err, "cannot commit");
      sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
      goto out;
    }
  }
  int64_t live = 0;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT total(rows) FROM files", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    live = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  *rebuild = ix.need_rebuild || (ix.dead >= REBUILD_DEAD_MIN && ix.dead > live);
  rc = 0;
out:
  sqlite3_finalize(ix.ins);
  sqlite3_finalize(ix.get_file);
  sqlite3_finalize(ix.put_file);
  sqlite3_finalize(ix.del_file);
  zbuf_release(&ix.text);
  return rc;
}

/* Brings the index up to date; *files ends up holding the files table. */
static int update_db(sqlite3 *db, const char *root, int shard, frows *files,
                     zsearch_stats *stats, zerr *err) {
  for (int round = 0; round < 2; round++) {
    if (load_files(db, files, err) < 0) return -1;
    strvec pending = STRVEC_INIT;
    int rc = changed_sessions(root, shard, files, &pending, err);
    bool rebuild = false;
    if (rc == 0 && pending.nr) rc = update_pending(db, root, &pending, stats, &rebuild, err);
    bool changed = pending.nr > 0;
    strvec_clear(&pending);
    if (rc < 0) return -1;
    if (!changed) return 0;
    if (!rebuild || round == 1) return load_files(db, files, err);
    if (stats) stats->rebuilds++;
    if (rebuild_all(db, err) < 0) return -1;
  }
  return 0;
}

/* Builds the index of a shard from scratch into a private file next to
 * path, then renames it over path. The private file has no journal (half
 * of the writes of WAL mode, where every page is written twice): until the
 * rename nobody else can see it, and if zero dies on the way the next
 * search simply builds again. Another zero building at the same time makes
 * its own file; the last rename wins, and both are complete. */
/* Removes the private files of builds whose process is gone (killed on the
 * way). */
static void remove_dead_builds(const char *path) {
  cleanup_free char *dir = xstrdup(path);
  char *slash = strrchr(dir, '/');
  const char *base = slash ? slash + 1 : path;
  if (slash) *slash = '\0';
  DIR *d = opendir(slash ? dir : ".");
  if (!d) return;
  size_t blen = strlen(base);
  struct dirent *de;
  while ((de = readdir(d))) {
    if (strncmp(de->d_name, base, blen) || strncmp(de->d_name + blen, ".new-", 5)) continue;
    char *end = NULL;
    long pid = strtol(de->d_name + blen + 5, &end, 10);
    if (pid <= 0 || pid == (long)getpid() || (*end && *end != '-') ||
        !(kill((pid_t)pid, 0) < 0 && errno == ESRCH))
      continue;
    cleanup_free char *full = slash ? zpath_join(dir, de->d_name) : xstrdup(de->d_name);
    unlink(full);
  }
  closedir(d);
}

static int build_fresh(const char *path, const char *root, int shard, frows *files,
                       zsearch_stats *stats, zerr *err) {
  remove_dead_builds(path);
  zbuf tmp = ZBUF_INIT;
  zbuf_addf(&tmp, "%s.new-%ld", path, (long)getpid());
  unlink(tmp.data);
  int rc = -1;
  sqlite3 *db = db_open_once(tmp.data, true, err);
  if (db) {
    db_init(db);
    rc = update_db(db, root, shard, files, stats, err);
    sqlite3_stmt *st = NULL;
    if (rc == 0 &&
        (sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &st, NULL) != SQLITE_OK ||
         sqlite3_step(st) != SQLITE_ROW ||
         strcmp((const char *)sqlite3_column_text(st, 0), "wal")))
      rc = db_fail(db, err, "cannot switch the new index to WAL mode");
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  if (rc == 0) {
    /* The old index's WAL must not be applied to the new file. */
    db_unlink(path);
    if (rename(tmp.data, path) < 0)
      rc = zerr_errno(err, ZE_IO, "cannot put the new search index in place at %s", path);
  }
  if (rc < 0) db_unlink(tmp.data);
  zbuf_release(&tmp);
  return rc;
}

/* Opens one shard of the index and updates it: built from scratch when it
 * is missing or stale, and once more if it turns out to be corrupt. */
static sqlite3 *open_updated(const char *path, const char *root, int shard, frows *files,
                             zsearch_stats *stats, zerr *err) {
  for (int attempt = 0; attempt < 2; attempt++) {
    if (stats) memset(stats, 0, sizeof *stats);
    bool stale = attempt > 0;
    sqlite3 *db = stale ? NULL : db_open_current(path, &stale, err);
    if (!db && !stale) return NULL;
    if (stale) {
      if (build_fresh(path, root, shard, files, stats, err) < 0) return NULL;
      db = db_open_current(path, &stale, err);
      if (!db) {
        if (stale) zerr_set(err, ZE_IO, "search index %s: cannot be opened after it was built; "
                            "delete it to start again", path);
        return NULL;
      }
    }
    /* Catches up with what was written meanwhile (nothing, usually). */
    if (update_db(db, root, shard, files, stats, err) == 0) return db;
    int code = sqlite3_errcode(db) & 0xff;
    sqlite3_close(db);
    if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB) return NULL;
    zerr_clear(err);
  }
  return NULL;
}

/* The index is split into ZSEARCH_SHARDS independent databases (sessions
 * assigned by a hash of their id) so that indexing, which is bound by
 * FTS5's per-word work, runs on as many cores: shard 0 is index_path,
 * shard k is index_path with "-k" before ".sqlite". Each is a complete,
 * self-consistent index of its sessions. */
typedef struct shard {
  int k;
  char *path;
  const char *root;
  sqlite3 *db; /* open and up to date after the update; NULL on failure */
  frows files;
  zsearch_stats stats;
  zerr err;
  pthread_t thread;
  bool threaded;
} shard;

static char *shard_path(const char *index_path, int k) {
  if (k == 0) return xstrdup(index_path);
  zbuf b = ZBUF_INIT;
  size_t n = strlen(index_path);
  if (n > 7 && !strcmp(index_path + n - 7, ".sqlite"))
    zbuf_addf(&b, "%.*s-%d.sqlite", (int)(n - 7), index_path, k);
  else
    zbuf_addf(&b, "%s-%d", index_path, k);
  return zbuf_detach(&b, NULL);
}

static void *shard_update(void *ud) {
  shard *sh = ud;
  sh->db = open_updated(sh->path, sh->root, sh->k, &sh->files, &sh->stats, &sh->err);
  return NULL;
}

/* Updates every shard, in parallel: one thread per shard beyond the first,
 * joined before returning. 0, or -1 with err set from the first failure
 * (every shard's database is then closed). */
static int shards_update(shard *sh, const char *index_path, const char *root, zerr *err) {
  for (int k = 0; k < ZSEARCH_SHARDS; k++) {
    sh[k] = (shard){.k = k, .path = shard_path(index_path, k), .root = root,
                    .files = ZVEC_INIT, .err = ZERR_INIT};
    if (k > 0) sh[k].threaded = pthread_create(&sh[k].thread, NULL, shard_update, &sh[k]) == 0;
  }
  shard_update(&sh[0]);
  for (int k = 1; k < ZSEARCH_SHARDS; k++) {
    if (sh[k].threaded) pthread_join(sh[k].thread, NULL);
    else shard_update(&sh[k]); /* no thread to be had: in turn */
  }
  for (int k = 0; k < ZSEARCH_SHARDS; k++) {
    if (sh[k].db) continue;
    *err = sh[k].err;
    for (int j = 0; j < ZSEARCH_SHARDS; j++) {
      sqlite3_close(sh[j].db);
      sh[j].db = NULL;
    }
    return -1;
  }
  return 0;
}

static void shards_release(shard *sh) {
  for (int k = 0; k < ZSEARCH_SHARDS; k++) {
    sqlite3_close(sh[k].db);
    free(sh[k].path);
    frows_clear(&sh[k].files);
    zvec_free(&sh[k].files);
  }
}

int zsearch_update(const char *index_path, const char *root, zsearch_stats *stats, zerr *err) {
  shard sh[ZSEARCH_SHARDS];
  int rc = shards_update(sh, index_path, root, err);
  if (stats) {
    memset(stats, 0, sizeof *stats);
    for (int k = 0; k < ZSEARCH_SHARDS; k++) {
      stats->sessions_scanned += sh[k].stats.sessions_scanned;
      stats->sessions_updated += sh[k].stats.sessions_updated;
      stats->bytes_indexed += sh[k].stats.bytes_indexed;
      stats->events_indexed += sh[k].stats.events_indexed;
      stats->rebuilds += sh[k].stats.rebuilds;
    }
  }
  shards_release(sh);
  return rc;
}

/* ---- queries ----------------------------------------------------------- */

typedef struct live {
  int64_t fileno;
  frow *row;
} live;

static int live_cmp(const void *a, const void *b) {
  int64_t x = ((const live *)a)->fileno, y = ((const live *)b)->fileno;
  return x < y ? -1 : x > y;
}

/* The result for the event whose line starts at offset, read back from the
 * log; NULL when the line is not a whole event any more. */
static json_t *hit_result(const char *root, const frow *f, int64_t offset, double score,
                          const char *query, zbuf *text) {
  cleanup_free char *dir = zpath_join(root, f->sid);
  cleanup_free char *path = zpath_join(dir, "events.jsonl");
  cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 || lseek(fd, offset, SEEK_SET) < 0) return NULL;
  zjsonl_reader r;
  zjsonl_reader_init(&r, fd);
  zjsonl_line line;
  json_t *out = NULL;
  if (zjsonl_next(&r, &line) > 0 && line.newline && !line.oversize &&
      zsearch_event_text(line.text, line.len, text)) {
    json_t *ev = json_loadb(line.text, line.len, 0, NULL);
    const char *type = zjson_str(ev, "type");
    if (json_is_object(ev) && type) {
      out = json_object();
      json_object_set_new(out, "sessionId", json_string(f->sid));
      json_object_set_new(out, "sequence", json_integer(zjson_int_or(ev, "sequence", 0)));
      json_object_set_new(out, "type", json_string(type));
      json_object_set_new(out, "createdAt", json_string(zjson_str_or(ev, "createdAt", "")));
      if (f->title) json_object_set_new(out, "title", json_string(f->title));
      cleanup_free char *snip = zsearch_snippet(text->data, text->len, query, 16);
      json_t *sv = json_string(snip);
      json_object_set_new(out, "snippet", sv ? sv : json_string(""));
      json_object_set_new(out, "score", json_real(score));
    }
    json_decref(ev);
  }
  zjsonl_reader_release(&r);
  return out;
}

/* The quoted phrases of an FTS5 expression from zsearch_fts_expr, each as
 * its own expression. */
static void split_phrases(const char *expr, strvec *out) {
  const char *p = expr;
  while (*p) {
    while (*p && *p != '"') p++;
    if (!*p) break;
    const char *start = p++;
    while (*p) {
      if (*p == '"' && p[1] == '"') p += 2;
      else if (*p == '"') break;
      else p++;
    }
    if (*p == '"') p++;
    strvec_push_nodup(out, xstrndup(start, (size_t)(p - start)));
  }
}

/* Matches, capped: how many rows the expression matches, counting no further
 * than cap. */
static int64_t count_capped(sqlite3 *db, const char *expr, int cap) {
  sqlite3_stmt *st = NULL;
  int64_t n = 0;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM (SELECT 1 FROM docs WHERE docs MATCH ?1"
                         " LIMIT ?2)", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, cap);
    if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  return n;
}

/* A query ranks at most this many matches, the most recently indexed ones
 * (highest rowids): ranking every match of a common word over a big index
 * would cost time in proportion to the index. */
#define RANK_CANDIDATES 1000
/* Per-phrase match counts for the IDF stop here: a phrase in more rows than
 * this is "common" (its IDF is the lowest). */
#define IDF_COUNT_CAP 5000

typedef struct cand {
  int64_t rowid;
  double score;
  int shard;
} cand;

static int cand_cmp(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;
  return x->rowid > y->rowid ? -1 : x->rowid < y->rowid;
}

/* The candidate query with one IDF per phrase, from the matches of each
 * phrase counted over every shard (capped) and the rows of all of them. */
static char *rank_sql(shard *sh, const char *expr) {
  strvec phrases = STRVEC_INIT;
  split_phrases(expr, &phrases);
  int64_t n_total = 0;
  for (int k = 0; k < ZSEARCH_SHARDS; k++)
    for (size_t i = 0; i < sh[k].files.len; i++) n_total += sh[k].files.items[i].rows;
  zbuf sql = ZBUF_INIT;
  zbuf_addstr(&sql, "SELECT rowid, zrank(docs");
  /* One phrase: its IDF scales every score alike, so it is not counted. */
  for (size_t i = 0; phrases.nr > 1 && i < phrases.nr; i++) {
    double n = 0;
    for (int k = 0; k < ZSEARCH_SHARDS; k++)
      n += (double)count_capped(sh[k].db, phrases.v[i], IDF_COUNT_CAP);
    double idf = zmath_ln(((double)n_total - n + 0.5) / (n + 0.5));
    if (!(idf > 1e-6)) idf = 1e-6;
    zbuf_addf(&sql, ", %.17g", idf);
  }
  zbuf_addf(&sql, ") FROM docs WHERE docs MATCH ?1 ORDER BY rowid DESC LIMIT %d",
            RANK_CANDIDATES);
  strvec_clear(&phrases);
  return zbuf_detach(&sql, NULL);
}

typedef ZVEC(cand) cands;

/* Adds shard k's candidates. */
static int shard_candidates(shard *sh, const char *sql, const char *expr, cands *out,
                            zerr *err) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(sh->db, sql, -1, &st, NULL) != SQLITE_OK)
    return db_fail(sh->db, err, "cannot prepare the query");
  sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    cand c = {sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1), sh->k};
    zvec_push(out, c);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : db_fail(sh->db, err, "query failed");
}

json_t *zsearch_query(const char *index_path, const char *root, const char *query, int limit,
                      zerr *err) {
  cleanup_free char *expr = zsearch_fts_expr(query);
  if (!expr) {
    zerr_set(err, ZE_USAGE, "the search query is empty; give words to find, or a \"phrase in "
             "quotes\"");
    return NULL;
  }
  if (limit <= 0) limit = 20;
  shard sh[ZSEARCH_SHARDS];
  if (shards_update(sh, index_path, root, err) < 0) {
    shards_release(sh);
    return NULL;
  }
  /* Per shard, rows of file numbers no longer in its files table are dead. */
  live *maps[ZSEARCH_SHARDS];
  for (int k = 0; k < ZSEARCH_SHARDS; k++) {
    frows *f = &sh[k].files;
    maps[k] = xmalloc((f->len ? f->len : 1) * sizeof *maps[k]);
    for (size_t i = 0; i < f->len; i++) maps[k][i] = (live){f->items[i].fileno, &f->items[i]};
    qsort(maps[k], f->len, sizeof *maps[k], live_cmp);
  }

  json_t *out = NULL;
  cands cs = ZVEC_INIT;
  cleanup_free char *sql = rank_sql(sh, expr);
  for (int k = 0; k < ZSEARCH_SHARDS; k++)
    if (shard_candidates(&sh[k], sql, expr, &cs, err) < 0) goto done;
  if (cs.len) qsort(cs.items, cs.len, sizeof *cs.items, cand_cmp);
  out = json_array();
  zbuf text = ZBUF_INIT;
  for (size_t i = 0; i < cs.len && json_array_size(out) < (size_t)limit; i++) {
    const cand *c = &cs.items[i];
    const frows *f = &sh[c->shard].files;
    live key = {c->rowid >> OFF_BITS, NULL};
    live *l = f->len ? bsearch(&key, maps[c->shard], f->len, sizeof(live), live_cmp) : NULL;
    if (!l) continue;
    json_t *r = hit_result(root, l->row, c->rowid & (OFF_LIMIT - 1), c->score, query, &text);
    if (r) json_array_append_new(out, r);
  }
  zbuf_release(&text);
done:
  zvec_free(&cs);
  for (int k = 0; k < ZSEARCH_SHARDS; k++) free(maps[k]);
  shards_release(sh);
  return out;
}
