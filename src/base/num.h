/* num.h — decimal numbers read from text with every error seen, where
 * sscanf("%d") would take an overflow or a missing number silently (CERT
 * ERR34-C). Each reader steps over what it read, so fields in a line are
 * read one after another. */
#ifndef ZERO_BASE_NUM_H
#define ZERO_BASE_NUM_H

#include <stdbool.h>

/* A signed decimal at *s (leading blanks skipped, as strtol does). On
 * success *out gets it, *s points past its last digit, and true is returned;
 * false, *s and *out untouched, when there is no digit or the value does not
 * fit in [min, max]. */
bool znum_long(const char **s, long min, long max, long *out);

/* One to max_digits decimal digits at *s (no sign, no blanks), as in the
 * fields of a timestamp; the same contract as znum_long. */
bool znum_digits(const char **s, int max_digits, int *out);

/* The value (0..15) of one hex digit, either case, or -1 for any other
 * byte (NUL included): for \uXXXX and %XX decoders. */
static inline int znum_hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

#endif
