/* dlib.h — a shared library zero loads on first use instead of linking.
 *
 * Why: zero starts on every sandboxed command (the inner stage execs zero
 * again), and every linked library costs each start its mapping and symbol
 * relocation. libcurl, SQLite, libcrypto and md4c are needed by a few paths
 * only, so each is opened by the first call that needs it. The loaders
 * (net/curl_loader.c, session/sqlite_loader.c, base/hash.c,
 * ui/tui/md4c_loader.c) define the library's functions with its own
 * prototypes and forward through a table of function pointers that
 * zdlib_load fills, so callers are written against the ordinary API.
 *
 * Life cycle: a loader keeps one static zdlib (ZDLIB_INIT: zeroes, so it
 * costs no start-up relocation), a static table of zdlib_sym, and a
 * describe function that fills a zdlib_spec; it calls zdlib_load before
 * every use. The first call describes, opens and resolves, exactly once
 * whatever the threads; later calls cost one atomic load and return the
 * first outcome. The handle is never closed, like a linked library's.
 *
 * Start-up cost: every pointer held in static data is a relocation the
 * dynamic loader applies at each start of zero, used or not. So a
 * zdlib_sym names its symbol inline and gives its slot as an offset, and the
 * spec (which holds pointers) is built in code, only when a load happens.
 */
#ifndef ZERO_BASE_DLIB_H
#define ZERO_BASE_DLIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* One symbol to resolve: its name, and where its address goes (the offset
 * of a function-pointer field in the loader's table). An optional symbol
 * may be missing (its slot stays NULL); a required one fails the load. */
typedef struct zdlib_sym {
  char name[40];
  unsigned short offset;
  bool optional;
} zdlib_sym;

/* A zdlib_sym for field `field` of table type `type`, symbol `name`. */
#define ZDLIB_SYM(type, field, name) { name, offsetof(type, field), false }
#define ZDLIB_SYM_OPT(type, field, name) { name, offsetof(type, field), true }

typedef struct zdlib zdlib;

/* What to load, filled by the loader's describe function. */
typedef struct zdlib_spec {
  const char *sonames;     /* tried in order, separated by ':': "libcrypto.so.3" */
  const char *what;        /* the library's name for people: "libcurl" */
  const char *purpose;     /* why zero needs it: "for network access" */
  const char *package;     /* the Debian package to install: "libcurl4" */
  const char *min_version; /* named when a symbol is missing: "libcurl 7.68" */
  const zdlib_sym *syms;
  size_t nsyms;
  void *table;             /* the struct the offsets of syms point into */
  /* Called once, right after a successful load and before any caller sees
   * it (NULL: nothing): a library's one-time set-up. */
  void (*after_load)(void *handle);
} zdlib_spec;

/* Fills spec s field by field, in code: a static spec would hold pointers,
 * each a relocation paid at every start. syms_ must be an array. */
#define ZDLIB_DESCRIBE(s, sonames_, what_, purpose_, package_, min_version_, syms_, table_, \
                       after_load_)                                                       \
  do {                                                                                    \
    (s)->sonames = (sonames_);                                                            \
    (s)->what = (what_);                                                                  \
    (s)->purpose = (purpose_);                                                            \
    (s)->package = (package_);                                                            \
    (s)->min_version = (min_version_);                                                    \
    (s)->syms = (syms_);                                                                  \
    (s)->nsyms = sizeof(syms_) / sizeof((syms_)[0]);                                      \
    (s)->table = (table_);                                                                \
    (s)->after_load = (after_load_);                                                      \
  } while (0)

struct zdlib {
  pthread_mutex_t mu;
  int state;    /* 0 not tried, 1 loaded, -1 failed (atomic) */
  void *handle; /* never closed */
  char error[512];
};

#define ZDLIB_INIT { PTHREAD_MUTEX_INITIALIZER, 0, NULL, { 0 } }

/* Opens the first of the sonames describe gives that loads (RTLD_LAZY |
 * RTLD_LOCAL: the library's own calls bind inside it, never to zero's
 * wrappers) and resolves every symbol, once per process; describe runs only
 * then. Returns true when the library and all its required symbols are
 * there. Thread-safe. */
bool zdlib_load(zdlib *l, void (*describe)(zdlib_spec *spec));
/* zdlib_load, or -1 with err set to the message of the failed load: which
 * library could not be loaded and why, what zero needs it for and the
 * package to install (or the symbol that is missing and the version zero
 * needs). */
int zdlib_require(zdlib *l, void (*describe)(zdlib_spec *spec), zerr *err);
/* true once the library has been loaded (never loads it). */
bool zdlib_loaded(const zdlib *l);
/* The message of a failed load ("" before one and after a success). */
const char *zdlib_error(const zdlib *l);

#endif
