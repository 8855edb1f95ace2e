/* jscan.h — a small validating JSON scanner for the stream parsers' fast
 * paths.
 *
 * Why hand-written: a streamed answer arrives as thousands of tiny events
 * ({"choices":[{"delta":{"content":"tok"}}]}), and building a jansson tree
 * for each one costs ten times what the SSE framing does. The scanner walks
 * one JSON text in place, skipping the members a parser does not need and
 * decoding the strings it does (full unescape, \uXXXX surrogate pairs) into
 * a scratch buffer; nothing is allocated per event.
 *
 * Contract with the slow path: the scanner accepts a subset of what jansson
 * (json_loadb, flags 0) accepts, never more. Anything it is unsure of makes
 * it fail, and the caller then hands the event to jansson, which reports the
 * error or handles the rare shape. Refused although valid JSON: keys with
 * escapes, numbers with an exponent, more than 18 integer digits, nesting
 * deeper than ZJSCAN_MAX_DEPTH. Refused like jansson does: bad UTF-8
 * (overlong, surrogates, > U+10FFFF), raw control characters in strings,
 * \u0000, lone or misordered surrogate escapes, trailing garbage.
 *
 * Usage: zjscan_init, then zjscan_member / zjscan_element loops with
 * zjscan_string / zjscan_int / zjscan_skip on each value; s->bad is sticky,
 * every call returns false / -1 once it is set, and zjscan_end checks that
 * only whitespace is left.
 */
#ifndef ZERO_PROVIDER_JSCAN_H
#define ZERO_PROVIDER_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"

#define ZJSCAN_MAX_DEPTH 32

typedef struct zjscan {
  const char *p, *end;
  zbuf *scratch; /* decoded strings are appended here, each NUL-terminated */
  int depth;
  bool bad;      /* sticky: the text is not (provably) what jansson accepts */
} zjscan;

void zjscan_init(zjscan *s, const char *data, size_t len, zbuf *scratch);

/* The next member of an object. On the first call for an object (*count ==
 * 0) the '{' is consumed. Returns 1 with the raw key bytes set and the
 * scanner at the member's value, 0 after the closing '}', -1 when bad. */
int zjscan_member(zjscan *s, int *count, const char **key, size_t *klen);
/* The next element of an array, likewise: 1 at an element, 0 after ']'. */
int zjscan_element(zjscan *s, int *count);

/* The next value's first byte ('{', '[', '"', 't', 'f', 'n', '-', digit) or
 * 0 at the end / when bad. Does not consume. */
char zjscan_peek(zjscan *s);

/* Skips one value of any type, validating it. */
bool zjscan_skip(zjscan *s);
/* A string value decoded into scratch: *off is its offset there, *len its
 * length in bytes (scratch->data + off is NUL-terminated). false (and bad)
 * when the value is not a valid string. */
bool zjscan_string(zjscan *s, size_t *off, size_t *len);
/* An integer value (no fraction / exponent, at most 18 digits). */
bool zjscan_int(zjscan *s, int64_t *v);
/* true / false. */
bool zjscan_bool(zjscan *s, bool *v);
/* Consumes a null and returns true when the value is null; false (without
 * consuming, not bad) otherwise. */
bool zjscan_null(zjscan *s);
/* true when only whitespace remains and nothing was bad. */
bool zjscan_end(zjscan *s);

/* Key comparison helper: key of length klen equals the literal. */
#define ZJSCAN_KEY(k, kn, lit) ((kn) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* One object's members, walked with zjscan_next: the state every fast-path
 * loop over an object needs, in one place.
 *   zjscan_obj o = {0};
 *   while (zjscan_next(s, &o)) { if (ZJSCAN_IS(&o, "type")) … else zjscan_skip(s); }
 *   return o.r == 0;   (0: the closing '}' was reached; -1: bad)
 * Start each object with a zeroed zjscan_obj; key / klen are the raw bytes
 * of the current member's key (see zjscan_member). */
typedef struct zjscan_obj {
  int count; /* members seen so far (zjscan_member's *count) */
  int r;     /* zjscan_member's last result */
  const char *key;
  size_t klen;
} zjscan_obj;

/* Moves to the next member: true with o->key set and the scanner at its
 * value, false after the closing '}' (o->r == 0) or when bad (o->r == -1). */
static inline bool zjscan_next(zjscan *s, zjscan_obj *o) {
  o->r = zjscan_member(s, &o->count, &o->key, &o->klen);
  return o->r == 1;
}

/* The current member's key equals the literal. */
#define ZJSCAN_IS(o, lit) ZJSCAN_KEY((o)->key, (o)->klen, lit)

/* A key a fast path reads, with its length: ZJSCAN_K("type"). */
typedef struct zjscan_key {
  const char *name;
  size_t len;
} zjscan_key;
#define ZJSCAN_K(lit) \
  { lit, sizeof(lit) - 1 }

/* Moves to the next member whose key is one of keys[0..n), skipping (and
 * validating) the others. Returns that key's index, or -1 after the closing
 * '}' (o->r == 0) or when bad (o->r == -1). */
static inline int zjscan_next_known(zjscan *s, zjscan_obj *o, const zjscan_key *keys, int n) {
  while (zjscan_next(s, o)) {
    for (int i = 0; i < n; i++)
      if (o->klen == keys[i].len && memcmp(o->key, keys[i].name, o->klen) == 0) return i;
    if (!zjscan_skip(s)) {
      o->r = -1;
      return -1;
    }
  }
  return -1;
}

/* true the first time a key is met in an object, false on a repeat (which
 * the fast paths leave to jansson: it keeps the last); marks it seen. */
static inline bool zjscan_first(bool *seen) {
  bool first = !*seen;
  *seen = true;
  return first;
}

#endif
