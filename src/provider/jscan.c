/* jscan.c — the validating in-place JSON scanner of the stream fast paths;
 * see jscan.h for the contract (a strict subset of what jansson accepts). */
#include "provider/jscan.h"

#include <string.h>

#include "base/json.h"
#include "base/num.h"

void zjscan_init(zjscan *s, const char *data, size_t len, zbuf *scratch) {
  s->p = data;
  s->end = data + len;
  s->scratch = scratch;
  s->depth = 0;
  s->bad = false;
}

static bool fail(zjscan *s) {
  s->bad = true;
  return false;
}

/* JSON whitespace, exactly jansson's set. */
static void ws(zjscan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) s->p++;
}

char zjscan_peek(zjscan *s) {
  if (s->bad) return 0;
  ws(s);
  return s->p < s->end ? *s->p : 0;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no
 * UTF-16 surrogates, nothing above U+10FFFF), 0 when ill-formed. p[0] >=
 * 0x80. */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end) {
  unsigned c = p[0];
  size_t avail = (size_t)(end - p);
#define CONT(b) ((b) >= 0x80 && (b) <= 0xBF)
  if (c >= 0xC2 && c <= 0xDF) return avail >= 2 && CONT(p[1]) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (avail < 3 || !CONT(p[2])) return 0;
    if (c == 0xE0) return p[1] >= 0xA0 && p[1] <= 0xBF ? 3 : 0; /* overlong */
    if (c == 0xED) return p[1] >= 0x80 && p[1] <= 0x9F ? 3 : 0; /* surrogates */
    return CONT(p[1]) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (avail < 4 || !CONT(p[2]) || !CONT(p[3])) return 0;
    if (c == 0xF0) return p[1] >= 0x90 && p[1] <= 0xBF ? 4 : 0; /* overlong */
    if (c == 0xF4) return p[1] >= 0x80 && p[1] <= 0x8F ? 4 : 0; /* > U+10FFFF */
    return CONT(p[1]) ? 4 : 0;
  }
#undef CONT
  return 0;
}

/* Four hex digits at p (p + 4 <= end checked by the caller); -1 if not. */
static long hex4(const unsigned char *p) {
  long v = 0;
  for (int i = 0; i < 4; i++) {
    int h = znum_hex_digit(p[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/* Bytes of a string that need a look: '"', '\\', a control character, or
 * >= 0x80. Returns a mask with the high bit set in (at least) the first
 * such byte of the 8 at p, 0 when all 8 are plain ASCII: the classic "has
 * zero / has less" bit tricks, whose lowest flagged byte is always a true
 * match (false flags only appear above a true one). */
static inline uint64_t special8(const unsigned char *p) {
  const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  uint64_t w;
  memcpy(&w, p, 8);
  uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
  return (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w) & high;
}

/* One escape after the backslash at *pp; appends its bytes to out (when
 * out) and advances *pp. false when jansson would refuse it. */
static bool escape(const unsigned char **pp, const unsigned char *end, zbuf *out) {
  const unsigned char *p = *pp + 1;
  if (p >= end) return false;
  unsigned char e = *p++;
  char c;
  if (zjson_escape_byte((char)e, &c)) {
    if (out) zbuf_addch(out, c);
    *pp = p;
    return true;
  }
  if (e != 'u' || end - p < 4) return false;
  long cp = hex4(p);
  p += 4;
  if (cp <= 0) return false; /* bad hex, or \u0000 (jansson needs JSON_ALLOW_NUL) */
  if (cp >= 0xDC00 && cp <= 0xDFFF) return false; /* a low surrogate first */
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return false;
    long lo = hex4(p + 2);
    if (lo < 0xDC00 || lo > 0xDFFF) return false;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    p += 6;
  }
  if (out) zutf8_put(out, (uint32_t)cp);
  *pp = p;
  return true;
}

/* The string at s->p (its opening quote). out: where the decoded bytes go
 * (NULL = validate only). no_escapes: refuse backslashes (keys). *raw /
 * *rawlen: the bytes between the quotes. */
static bool scan_string(zjscan *s, zbuf *out, bool no_escapes, const char **raw,
                        size_t *rawlen) {
  if (s->bad) return false;
  if (s->p >= s->end || *s->p != '"') return fail(s);
  const unsigned char *p = (const unsigned char *)s->p + 1;
  const unsigned char *end = (const unsigned char *)s->end;
  const unsigned char *start = p, *run = p;
  for (;;) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Plain ASCII 8 bytes at a time, then straight to the byte that needs a
     * look (little-endian: the lowest set bit is the first byte). */
    while (end - p >= 8) {
      uint64_t m = special8(p);
      if (m) {
        p += __builtin_ctzll(m) >> 3;
        break;
      }
      p += 8;
    }
#endif
    if (p >= end) return fail(s);
    unsigned c = *p;
    if (c == '"') break;
    if (c == '\\') {
      if (no_escapes) return fail(s);
      if (out) zbuf_add(out, run, (size_t)(p - run));
      if (!escape(&p, end, out)) return fail(s);
      run = p;
      continue;
    }
    if (c < 0x20) return fail(s); /* raw control character */
    if (c < 0x80) {
      p++;
      continue;
    }
    size_t n = utf8_seq(p, end);
    if (!n) return fail(s);
    p += n;
  }
  if (out) zbuf_add(out, run, (size_t)(p - run));
  if (raw) *raw = (const char *)start;
  if (rawlen) *rawlen = (size_t)(p - start);
  s->p = (const char *)p + 1;
  return true;
}

/* A number at s->p. *is_int: no fraction. *v: its value when an integer. */
static bool scan_number(zjscan *s, bool *is_int, int64_t *v) {
  const char *p = s->p, *end = s->end;
  bool neg = false;
  if (p < end && *p == '-') {
    neg = true;
    p++;
  }
  if (p >= end || *p < '0' || *p > '9') return fail(s);
  int64_t acc = 0;
  if (*p == '0') {
    p++;
    if (p < end && *p >= '0' && *p <= '9') return fail(s); /* leading zero */
  } else {
    int digits = 0;
    while (p < end && *p >= '0' && *p <= '9') {
      /* More than 18 digits may overflow jansson's integer (an error there)
       * or its double (likewise): leave those to it. */
      if (++digits > 18) return fail(s);
      acc = acc * 10 + (*p - '0');
      p++;
    }
  }
  bool frac = false;
  if (p < end && *p == '.') {
    p++;
    if (p >= end || *p < '0' || *p > '9') return fail(s);
    while (p < end && *p >= '0' && *p <= '9') p++;
    frac = true;
  }
  if (p < end && (*p == 'e' || *p == 'E')) return fail(s); /* may overflow: jansson decides */
  if (is_int) *is_int = !frac;
  if (v) *v = neg ? -acc : acc;
  s->p = p;
  return true;
}

static bool literal(zjscan *s, const char *lit, size_t n) {
  if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0) return fail(s);
  s->p += n;
  return true;
}

static int open_close(zjscan *s, int *count, char open, char close) {
  if (s->bad) return -1;
  ws(s);
  if (*count == 0) {
    if (s->p >= s->end || *s->p != open) return fail(s), -1;
    s->p++;
    if (++s->depth > ZJSCAN_MAX_DEPTH) return fail(s), -1;
    ws(s);
    if (s->p < s->end && *s->p == close) {
      s->p++;
      s->depth--;
      return 0;
    }
  } else {
    if (s->p >= s->end) return fail(s), -1;
    if (*s->p == close) {
      s->p++;
      s->depth--;
      return 0;
    }
    if (*s->p != ',') return fail(s), -1;
    s->p++;
    ws(s);
  }
  (*count)++;
  return 1;
}

int zjscan_member(zjscan *s, int *count, const char **key, size_t *klen) {
  int r = open_close(s, count, '{', '}');
  if (r != 1) return r;
  if (!scan_string(s, NULL, true, key, klen)) return -1;
  ws(s);
  if (s->p >= s->end || *s->p != ':') return fail(s), -1;
  s->p++;
  ws(s);
  return 1;
}

int zjscan_element(zjscan *s, int *count) {
  int r = open_close(s, count, '[', ']');
  if (r == 1) ws(s);
  return r;
}

bool zjscan_skip(zjscan *s) {
  char c = zjscan_peek(s);
  switch (c) {
    case '{': {
      int n = 0, r;
      const char *k;
      size_t kn;
      while ((r = zjscan_member(s, &n, &k, &kn)) == 1)
        if (!zjscan_skip(s)) return false;
      return r == 0;
    }
    case '[': {
      int n = 0, r;
      while ((r = zjscan_element(s, &n)) == 1)
        if (!zjscan_skip(s)) return false;
      return r == 0;
    }
    case '"':
      return scan_string(s, NULL, false, NULL, NULL);
    case 't':
      return literal(s, "true", 4);
    case 'f':
      return literal(s, "false", 5);
    case 'n':
      return literal(s, "null", 4);
    default:
      if (c == '-' || (c >= '0' && c <= '9')) return scan_number(s, NULL, NULL);
      return fail(s);
  }
}

bool zjscan_string(zjscan *s, size_t *off, size_t *len) {
  if (zjscan_peek(s) != '"') return fail(s);
  size_t start = s->scratch->len;
  if (!scan_string(s, s->scratch, false, NULL, NULL)) return false;
  *off = start;
  *len = s->scratch->len - start;
  /* Each string ends in its own NUL (zbuf keeps one after len already). */
  zbuf_grow(s->scratch, 1);
  s->scratch->data[++s->scratch->len] = '\0';
  return true;
}

bool zjscan_int(zjscan *s, int64_t *v) {
  char c = zjscan_peek(s);
  if (c != '-' && (c < '0' || c > '9')) return fail(s);
  bool is_int;
  if (!scan_number(s, &is_int, v)) return false;
  return is_int ? true : fail(s);
}

bool zjscan_bool(zjscan *s, bool *v) {
  char c = zjscan_peek(s);
  if (c == 't' && literal(s, "true", 4)) return *v = true, true;
  if (c == 'f' && literal(s, "false", 5)) return *v = false, true;
  return fail(s);
}

bool zjscan_null(zjscan *s) {
  if (zjscan_peek(s) != 'n') return false;
  return literal(s, "null", 4);
}

bool zjscan_end(zjscan *s) {
  if (s->bad) return false;
  ws(s);
  return s->p == s->end;
}
