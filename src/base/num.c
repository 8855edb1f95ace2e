/* num.c — checked decimal readers; see num.h. */
#include "base/num.h"

#include <errno.h>
#include <stdlib.h>

bool znum_long(const char **s, long min, long max, long *out) {
  char *end;
  errno = 0;
  long v = strtol(*s, &end, 10);
  if (end == *s || errno == ERANGE || v < min || v > max) return false;
  *s = end;
  *out = v;
  return true;
}

bool znum_digits(const char **s, int max_digits, int *out) {
  int v = 0, i = 0;
  const char *p = *s;
  for (; i < max_digits && *p >= '0' && *p <= '9'; i++, p++) v = v * 10 + (*p - '0');
  if (i == 0) return false;
  *s = p;
  *out = v;
  return true;
}
