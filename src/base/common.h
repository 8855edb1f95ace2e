/* common.h — small language helpers used everywhere.
 *
 * Cleanup attributes (after bubblewrap): a variable declared `cleanup_free`
 * is freed when it leaves scope, so every early return is leak-free. Hand an
 * owned pointer out of such a scope with steal_pointer(&p).
 */
#ifndef ZERO_BASE_COMMON_H
#define ZERO_BASE_COMMON_H

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#define ZARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* On a declaration whose result the caller must look at (a write that can
 * fail, a lock that may not be taken, an append that makes data durable):
 * ignoring the result is a warning, an error under -Werror. A caller that
 * really has nothing to do on failure says why in a comment and tests it.
 * (curl's WARN_UNUSED_RESULT.) */
#define ZERO_WARN_UNUSED __attribute__((warn_unused_result))
#define ZUNUSED(x) ((void)(x))

static inline void zcleanup_freep(void *p) { free(*(void **)p); }
static inline void zcleanup_closep(int *fd) { if (*fd >= 0) close(*fd); }

#define cleanup_free __attribute__((cleanup(zcleanup_freep)))
#define cleanup_fd __attribute__((cleanup(zcleanup_closep)))

/* Returns *pp and sets *pp to NULL, transferring ownership to the caller. */
static inline void *zsteal_pointer(void *pp) {
  void **p = (void **)pp;
  void *v = *p;
  *p = NULL;
  return v;
}
#define steal_pointer(pp) zsteal_pointer(pp)

/* Returns *fdp and sets it to -1. */
static inline int steal_fd(int *fdp) { int fd = *fdp; *fdp = -1; return fd; }

/* Allocation that never returns NULL: on exhaustion prints and aborts, since
 * no caller could do better (same contract as git's xmalloc). */
/* returns_nonnull says so to the compiler and to clang's analyzer, which
 * otherwise follows a NULL that cannot come back. */
#define ZERO_NONNULL_ALLOC __attribute__((returns_nonnull, warn_unused_result))
void *xmalloc(size_t n) ZERO_NONNULL_ALLOC;
void *xcalloc(size_t n, size_t size) ZERO_NONNULL_ALLOC;
void *xrealloc(void *p, size_t n) ZERO_NONNULL_ALLOC;
char *xstrdup(const char *s) ZERO_NONNULL_ALLOC;
char *xstrndup(const char *s, size_t n) ZERO_NONNULL_ALLOC;

/* Growable array of T. Declare with ZVEC(T) name = ZVEC_INIT; */
#define ZVEC(T) struct { T *items; size_t len, cap; }
#define ZVEC_INIT { NULL, 0, 0 }
#define zvec_reserve(v, n) do { \
    if ((v)->len + (n) > (v)->cap) { \
      size_t zv_nc = (v)->cap ? (v)->cap * 2 : 8; \
      while (zv_nc < (v)->len + (n)) zv_nc *= 2; \
      (v)->items = xrealloc((v)->items, zv_nc * sizeof(*(v)->items)); \
      (v)->cap = zv_nc; \
    } } while (0)
/* Invariant: items is not NULL once cap > 0 (the assert says so to the
 * analyzer, which cannot tie cap to items). */
#define zvec_push(v, x) do { zvec_reserve(v, 1); assert((v)->items != NULL); \
    (v)->items[(v)->len++] = (x); } while (0)
/* Room for one more element in an array held as separate items / len / cap
 * fields (git's ALLOC_GROW): when len has reached cap, cap doubles (from
 * first when 0) and items is reallocated. For structs whose fields their
 * API names; a new array is a ZVEC. */
#define ZALLOC_GROW(items, len, cap, first)                  \
  do {                                                       \
    if ((len) == (cap)) {                                    \
      (cap) = (cap) ? (cap)*2 : (first);                     \
      (items) = xrealloc((items), (cap) * sizeof(*(items))); \
    }                                                        \
  } while (0)
#define zvec_free(v) do { free((v)->items); (v)->items = NULL; (v)->len = (v)->cap = 0; } while (0)

#endif
