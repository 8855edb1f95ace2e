/* sqlite_loader.c — the SQLite functions zero uses, forwarded to
 * libsqlite3.so.0 loaded on first use (the pattern of src/net/curl_loader.c).
 *
 * Why: every process start pays for the libraries it links, and zero starts
 * often — `zero sandbox exec`, and the inner sandbox stage of every command
 * the agent runs, which execs zero again. SQLite is only needed by the
 * session search index, yet linking it cost each start ~0.35 ms of symbol
 * relocation. So zero does not link libsqlite3; each wrapper below has
 * exactly SQLite's prototype, so src/session/search.c is written against the
 * ordinary API. A function zero starts to use must be added here (the link
 * fails until it is). When the library cannot be loaded, sqlite3_open_v2
 * fails with SQLITE_CANTOPEN and sqlite3_errmsg says which package to install.
 */
#include <dlfcn.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/dlib.h"

/* One SQLite per process: a singleton by nature. */
typedef struct sqlite_fns {
  int (*bind_int)(sqlite3_stmt *, int, int);
  int (*bind_int64)(sqlite3_stmt *, int, sqlite3_int64);
  int (*bind_null)(sqlite3_stmt *, int);
  int (*bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
  int (*busy_timeout)(sqlite3 *, int);
  int (*close)(sqlite3 *);
  double (*column_double)(sqlite3_stmt *, int);
  sqlite3_int64 (*column_int64)(sqlite3_stmt *, int);
  const unsigned char *(*column_text)(sqlite3_stmt *, int);
  const char *(*errmsg)(sqlite3 *);
  int (*exec)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
  int (*finalize)(sqlite3_stmt *);
  void (*free_)(void *);
  int (*open_v2)(const char *, sqlite3 **, int, const char *);
  int (*prepare_v2)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
  int (*reset)(sqlite3_stmt *);
  int (*step)(sqlite3_stmt *);
  int (*bind_blob)(sqlite3_stmt *, int, const void *, int, void (*)(void *));
  int (*bind_pointer)(sqlite3_stmt *, int, void *, const char *, void (*)(void *));
  const void *(*column_blob)(sqlite3_stmt *, int);
  int (*column_bytes)(sqlite3_stmt *, int);
  int (*errcode)(sqlite3 *);
  void (*result_double)(sqlite3_context *, double);
  void (*result_error)(sqlite3_context *, const char *, int);
  double (*value_double)(sqlite3_value *);
} sqlite_fns;
static sqlite_fns S;

static const zdlib_sym sqlite_syms[] = {
    ZDLIB_SYM(sqlite_fns, bind_int, "sqlite3_bind_int"),
    ZDLIB_SYM(sqlite_fns, bind_int64, "sqlite3_bind_int64"),
    ZDLIB_SYM(sqlite_fns, bind_null, "sqlite3_bind_null"),
    ZDLIB_SYM(sqlite_fns, bind_text, "sqlite3_bind_text"),
    ZDLIB_SYM(sqlite_fns, busy_timeout, "sqlite3_busy_timeout"),
    ZDLIB_SYM(sqlite_fns, close, "sqlite3_close"),
    ZDLIB_SYM(sqlite_fns, column_double, "sqlite3_column_double"),
    ZDLIB_SYM(sqlite_fns, column_int64, "sqlite3_column_int64"),
    ZDLIB_SYM(sqlite_fns, column_text, "sqlite3_column_text"),
    ZDLIB_SYM(sqlite_fns, errmsg, "sqlite3_errmsg"),
    ZDLIB_SYM(sqlite_fns, exec, "sqlite3_exec"),
    ZDLIB_SYM(sqlite_fns, finalize, "sqlite3_finalize"),
    ZDLIB_SYM(sqlite_fns, free_, "sqlite3_free"),
    ZDLIB_SYM(sqlite_fns, open_v2, "sqlite3_open_v2"),
    ZDLIB_SYM(sqlite_fns, prepare_v2, "sqlite3_prepare_v2"),
    ZDLIB_SYM(sqlite_fns, reset, "sqlite3_reset"),
    ZDLIB_SYM(sqlite_fns, step, "sqlite3_step"),
    ZDLIB_SYM(sqlite_fns, bind_blob, "sqlite3_bind_blob"),
    ZDLIB_SYM(sqlite_fns, bind_pointer, "sqlite3_bind_pointer"),
    ZDLIB_SYM(sqlite_fns, column_blob, "sqlite3_column_blob"),
    ZDLIB_SYM(sqlite_fns, column_bytes, "sqlite3_column_bytes"),
    ZDLIB_SYM(sqlite_fns, errcode, "sqlite3_errcode"),
    ZDLIB_SYM(sqlite_fns, result_double, "sqlite3_result_double"),
    ZDLIB_SYM(sqlite_fns, result_error, "sqlite3_result_error"),
    ZDLIB_SYM(sqlite_fns, value_double, "sqlite3_value_double"),
};

/* Before the first open initializes SQLite: no memory statistics. With them
 * on, every allocation takes one global mutex, and the search index's two
 * indexing threads (one per shard, each allocating for every word) spent
 * much of their time waiting for each other on it. */
static void no_memstatus(void *handle) {
  int (*config)(int, ...);
  *(void **)(&config) = dlsym(handle, "sqlite3_config");
  if (config) config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static void describe(zdlib_spec *s) {
  ZDLIB_DESCRIBE(s, "libsqlite3.so.0", "SQLite", "for the session search index", "libsqlite3-0",
                 "SQLite 3.33", sqlite_syms, &S, no_memstatus);
}

static zdlib libsqlite = ZDLIB_INIT;

static bool ready(void) { return zdlib_load(&libsqlite, describe); }

/* Every other function needs a handle that only a successful open yields, so
 * only sqlite3_open_v2, sqlite3_errmsg and sqlite3_free check for the load. */
int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs) {
  if (!ready()) {
    if (db) *db = NULL;
    return SQLITE_CANTOPEN;
  }
  return S.open_v2(filename, db, flags, vfs);
}
const char *sqlite3_errmsg(sqlite3 *db) { return ready() ? S.errmsg(db) : zdlib_error(&libsqlite); }
void sqlite3_free(void *p) {
  if (p && ready()) S.free_(p);
}
int sqlite3_close(sqlite3 *db) { return ready() ? S.close(db) : SQLITE_OK; }
int sqlite3_finalize(sqlite3_stmt *st) { return ready() ? S.finalize(st) : SQLITE_OK; }
int sqlite3_bind_int(sqlite3_stmt *st, int i, int v) { return S.bind_int(st, i, v); }
int sqlite3_bind_int64(sqlite3_stmt *st, int i, sqlite3_int64 v) { return S.bind_int64(st, i, v); }
int sqlite3_bind_null(sqlite3_stmt *st, int i) { return S.bind_null(st, i); }
int sqlite3_bind_text(sqlite3_stmt *st, int i, const char *v, int n, void (*d)(void *)) {
  return S.bind_text(st, i, v, n, d);
}
int sqlite3_busy_timeout(sqlite3 *db, int ms) { return S.busy_timeout(db, ms); }
double sqlite3_column_double(sqlite3_stmt *st, int i) { return S.column_double(st, i); }
sqlite3_int64 sqlite3_column_int64(sqlite3_stmt *st, int i) { return S.column_int64(st, i); }
const unsigned char *sqlite3_column_text(sqlite3_stmt *st, int i) { return S.column_text(st, i); }
int sqlite3_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **), void *ud,
                 char **errmsg) {
  return S.exec(db, sql, cb, ud, errmsg);
}
int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **st, const char **tail) {
  return S.prepare_v2(db, sql, n, st, tail);
}
int sqlite3_reset(sqlite3_stmt *st) { return S.reset(st); }
int sqlite3_step(sqlite3_stmt *st) { return S.step(st); }
/* Used by the search index (session/search.c): blobs, the FTS5 API pointer,
 * and the ranking function's results. Like the wrappers above, these run
 * only after sqlite3_open_v2 succeeded, so the table is loaded. */
int sqlite3_bind_blob(sqlite3_stmt *st, int i, const void *v, int n, void (*d)(void *)) {
  return S.bind_blob(st, i, v, n, d);
}
int sqlite3_bind_pointer(sqlite3_stmt *st, int i, void *p, const char *type, void (*d)(void *)) {
  return S.bind_pointer(st, i, p, type, d);
}
const void *sqlite3_column_blob(sqlite3_stmt *st, int i) { return S.column_blob(st, i); }
int sqlite3_column_bytes(sqlite3_stmt *st, int i) { return S.column_bytes(st, i); }
int sqlite3_errcode(sqlite3 *db) { return ready() ? S.errcode(db) : SQLITE_ERROR; }
void sqlite3_result_double(sqlite3_context *c, double v) { S.result_double(c, v); }
void sqlite3_result_error(sqlite3_context *c, const char *msg, int n) { S.result_error(c, msg, n); }
double sqlite3_value_double(sqlite3_value *v) { return S.value_double(v); }
