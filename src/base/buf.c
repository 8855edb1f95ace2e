/* buf.c — growable byte string; see buf.h for the contract. */
#include "base/buf.h"

#include <assert.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "base/common.h"

char zbuf_empty[1];

void zbuf_init(zbuf *b) {
  b->data = zbuf_empty;
  b->len = 0;
  b->cap = 0;
}

void zbuf_release(zbuf *b) {
  if (b->cap) free(b->data);
  zbuf_init(b);
}

char *zbuf_detach(zbuf *b, size_t *len_out) {
  char *res;
  if (len_out) *len_out = b->len;
  if (b->cap) {
    res = b->data;
  } else {
    res = xstrdup("");
  }
  zbuf_init(b);
  return res;
}

void zbuf_grow(zbuf *b, size_t n) {
  assert(b->len <= SIZE_MAX - 1 - n); /* catch size_t overflow of len + n + 1 */
  size_t need = b->len + n + 1;
  if (need <= b->cap) return;
  size_t nc = b->cap ? b->cap : 64;
  while (nc < need) nc = nc < (SIZE_MAX / 2) ? nc * 2 : need;
  if (b->cap) {
    b->data = xrealloc(b->data, nc);
  } else {
    b->data = xmalloc(nc);
    b->data[0] = '\0';
  }
  b->cap = nc;
}

void zbuf_reset(zbuf *b) { zbuf_setlen(b, 0); }

void zbuf_setlen(zbuf *b, size_t len) {
  if (!b->cap) {
    if (len == 0) return;
    zbuf_grow(b, len);
  }
  assert(len < b->cap); /* setlen shortens, or grows within zbuf_grow's room */
  b->len = len;
  b->data[len] = '\0';
}

void zbuf_add(zbuf *b, const void *data, size_t n) {
  if (n == 0) return;
  assert(data != NULL);
  zbuf_grow(b, n);
  memcpy(b->data + b->len, data, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void zbuf_addstr(zbuf *b, const char *s) { zbuf_add(b, s, strlen(s)); }

void zbuf_addch(zbuf *b, char c) {
  zbuf_grow(b, 1);
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
}

void zbuf_vaddf(zbuf *b, const char *fmt, va_list ap) {
  va_list cp;
  va_copy(cp, ap);
  zbuf_grow(b, 64);
  int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, cp);
  va_end(cp);
  if (n < 0) return;
  if ((size_t)n >= b->cap - b->len) {
    zbuf_grow(b, (size_t)n);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
  }
  b->len += (size_t)n;
}

void zbuf_addf(zbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(b, fmt, ap);
  va_end(ap);
}

char *xstrvfmt(const char *fmt, va_list ap) {
  zbuf b = ZBUF_INIT;
  zbuf_vaddf(&b, fmt, ap);
  return zbuf_detach(&b, NULL);
}

char *xstrfmt(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = xstrvfmt(fmt, ap);
  va_end(ap);
  return s;
}

void zbuf_consume(zbuf *b, size_t n) {
  if (n >= b->len) {
    zbuf_reset(b);
    return;
  }
  memmove(b->data, b->data + n, b->len - n);
  zbuf_setlen(b, b->len - n);
}

void zbuf_rtrim(zbuf *b) {
  size_t n = b->len;
  while (n > 0 && (b->data[n - 1] == ' ' || b->data[n - 1] == '\t' ||
                   b->data[n - 1] == '\n' || b->data[n - 1] == '\r'))
    n--;
  zbuf_setlen(b, n);
}

bool zbuf_ends_with(const zbuf *b, const char *suffix) {
  size_t n = strlen(suffix);
  return n <= b->len && memcmp(b->data + b->len - n, suffix, n) == 0;
}

void zbuf_add_sh_quoted(zbuf *b, const char *s) {
  zbuf_addch(b, '\'');
  for (; *s; s++) {
    if (*s == '\'') zbuf_addstr(b, "'\\''");
    else zbuf_addch(b, *s);
  }
  zbuf_addch(b, '\'');
}
