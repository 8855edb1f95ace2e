/* strvec.c — NULL-terminated string vector; see strvec.h for the contract. */
#include "base/strvec.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"

char *strvec_empty[1];

void strvec_init(strvec *sv) {
  sv->v = strvec_empty;
  sv->nr = 0;
  sv->alloc = 0;
}

/* Room for one more string plus the terminating NULL. */
static void strvec_grow(strvec *sv) {
  if (sv->nr + 2 <= sv->alloc) return;
  size_t n = sv->alloc ? sv->alloc * 2 : 8;
  if (n < sv->nr + 2) n = sv->nr + 2;
  char **v = sv->alloc ? sv->v : NULL;
  sv->v = xrealloc(v, n * sizeof *sv->v);
  sv->alloc = n;
}

const char *strvec_push_nodup(strvec *sv, char *s) {
  strvec_grow(sv);
  sv->v[sv->nr++] = s;
  sv->v[sv->nr] = NULL;
  return s;
}

const char *strvec_push(strvec *sv, const char *s) { return strvec_push_nodup(sv, xstrdup(s)); }

const char *strvec_pushf(strvec *sv, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = xstrvfmt(fmt, ap);
  va_end(ap);
  return strvec_push_nodup(sv, s);
}

void strvec_pushl(strvec *sv, ...) {
  va_list ap;
  va_start(ap, sv);
  for (const char *s; (s = va_arg(ap, const char *));) strvec_push(sv, s);
  va_end(ap);
}

void strvec_pushv(strvec *sv, char *const *v) {
  for (; v && *v; v++) strvec_push(sv, *v);
}

void strvec_attach(strvec *sv, char **v) {
  if (!v) return;
  for (char **p = v; *p; p++) strvec_push_nodup(sv, *p);
  free(v);
}

void strvec_pop(strvec *sv) {
  if (!sv->nr) return;
  free(sv->v[--sv->nr]);
  sv->v[sv->nr] = NULL;
}

void strvec_clear(strvec *sv) {
  if (sv->alloc) strvec_free_array(sv->v);
  strvec_init(sv);
}

char **strvec_detach(strvec *sv) {
  char **v = sv->alloc ? sv->v : xcalloc(1, sizeof *v);
  strvec_init(sv);
  return v;
}

void strvec_free_array(char **v) {
  if (!v) return;
  for (char **p = v; *p; p++) free(*p);
  free(v);
}

char **strvec_dup_array(char *const *v) {
  strvec sv = STRVEC_INIT;
  strvec_pushv(&sv, v);
  return strvec_detach(&sv);
}

int strvec_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void strvec_sort(strvec *sv) {
  if (sv->nr > 1) qsort(sv->v, sv->nr, sizeof *sv->v, strvec_cmp);
}
