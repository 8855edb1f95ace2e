/* buf.h — zbuf, the growable byte string used everywhere instead of ad-hoc
 * malloc/strcat (after git's strbuf).
 *
 * Invariant: data is always NUL-terminated (data[len] == '\0') once any byte
 * has been added; an untouched ZBUF_INIT buffer has data == zbuf_empty.
 * Embedded NULs are allowed; len is authoritative.
 */
#ifndef ZERO_BASE_BUF_H
#define ZERO_BASE_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

extern char zbuf_empty[];

typedef struct zbuf {
  char *data;
  size_t len;
  size_t cap; /* 0 while data points at zbuf_empty */
} zbuf;

#define ZBUF_INIT { zbuf_empty, 0, 0 }

void zbuf_init(zbuf *b);
/* Frees the storage and resets to ZBUF_INIT. */
void zbuf_release(zbuf *b);
/* Returns the malloc'd string and resets b; caller frees. Never NULL. */
char *zbuf_detach(zbuf *b, size_t *len_out);
/* Ensures room for n more bytes plus the terminating NUL. */
void zbuf_grow(zbuf *b, size_t n);
void zbuf_reset(zbuf *b);
void zbuf_setlen(zbuf *b, size_t len);

void zbuf_add(zbuf *b, const void *data, size_t n);
void zbuf_addstr(zbuf *b, const char *s);
/* Appends s as one POSIX shell word: single-quoted, a quote inside as '\''. */
void zbuf_add_sh_quoted(zbuf *b, const char *s);
void zbuf_addch(zbuf *b, char c);
void zbuf_addf(zbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void zbuf_vaddf(zbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* A new string formatted like printf (git's xstrfmt); never NULL, caller
 * frees. For a message built once and handed on, instead of a zbuf made,
 * filled and released around it. */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrvfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Removes the first n bytes (n > len removes all). */
void zbuf_consume(zbuf *b, size_t n);
/* Removes trailing ASCII whitespace. */
void zbuf_rtrim(zbuf *b);
bool zbuf_ends_with(const zbuf *b, const char *suffix);

static inline void zbuf_cleanup(zbuf *b) { zbuf_release(b); }
#define cleanup_zbuf __attribute__((cleanup(zbuf_cleanup)))

#endif
