/* search_text.c — the text side of session search (see search.h): a
 * hand-written scanner that pulls the searchable text out of one events.jsonl
 * line without building a JSON tree, and the snippet maker for the hits.
 *
 * Why by hand: indexing reads every byte of every session log, and building a
 * jansson tree per line (allocating every key and value, validating every
 * string) cost more than FTS5 itself. The scanner looks at only the few
 * fields that are indexed and skips the rest bracket by bracket. It is not a
 * validator: a line it accepts that jansson would reject is harmless (the
 * index is derived data; query time parses the hit's line with jansson).
 */
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/num.h"
#include "session/search.h"

typedef struct scan {
  const char *p, *end;
} scan;

static void ws(scan *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
    s->p++;
}

static bool hex4(scan *s, uint32_t *out) {
  if (s->end - s->p < 4) return false;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    int h = znum_hex_digit((unsigned char)s->p[i]);
    if (h < 0) return false;
    v = v << 4 | (uint32_t)h;
  }
  s->p += 4;
  *out = v;
  return true;
}

/* The first '"' or '\\' at or after p (end when none): eight bytes at a
 * time, since most of a log is the inside of long strings. */
static const char *plain_run(const char *p, const char *end) {
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  const uint64_t quotes = ones * '"', slashes = ones * '\\';
  while (end - p >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t a = w ^ quotes, b = w ^ slashes;
    /* A zero byte in a or b: one of the two characters. */
    if (((a - ones) & ~a & highs) | ((b - ones) & ~b & highs)) break;
    p += 8;
  }
  while (p < end && *p != '"' && *p != '\\') p++;
  return p;
}

/* Reads the JSON string at s->p (which must be '"'), appending its decoded
 * bytes to out when out is not NULL. A lone surrogate becomes U+FFFD. false
 * when the string is malformed or unterminated. */
static bool str(scan *s, zbuf *out) {
  if (s->p >= s->end || *s->p != '"') return false;
  s->p++;
  for (;;) {
    const char *run = s->p;
    s->p = plain_run(s->p, s->end);
    if (out && s->p > run) zbuf_add(out, run, (size_t)(s->p - run));
    if (s->p >= s->end) return false;
    if (*s->p++ == '"') return true;
    if (s->p >= s->end) return false;
    char c = *s->p++, ch;
    if (zjson_escape_byte(c, &ch)) {
      if (out) zbuf_addch(out, ch);
      continue;
    }
    if (c != 'u') return false;
    uint32_t cp;
    if (!hex4(s, &cp)) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF && s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u') {
      scan look = {s->p + 2, s->end};
      uint32_t lo;
      if (hex4(&look, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        s->p = look.p;
      }
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
    if (out) zutf8_put(out, cp);
  }
}

/* Skips one value of any kind. */
static bool skip(scan *s) {
  ws(s);
  if (s->p >= s->end) return false;
  char c = *s->p;
  if (c == '"') return str(s, NULL);
  if (c == '{' || c == '[') {
    int depth = 0;
    while (s->p < s->end) {
      c = *s->p;
      if (c == '"') {
        if (!str(s, NULL)) return false;
        continue;
      }
      s->p++;
      if (c == '{' || c == '[') depth++;
      else if ((c == '}' || c == ']') && --depth == 0) return true;
    }
    return false;
  }
  /* A number, true, false or null: it ends where any structure starts (so
   * that a line's strings and brackets are found the same whether it is
   * read member by member or skipped bracket by bracket). */
  const char *start = s->p;
  while (s->p < s->end && !strchr(",}]{[\" \t\r\n", *s->p)) s->p++;
  return s->p > start;
}

/* Reads a short string (a key, an event type) into out[cap]; longer ones
 * come back as "" (they match nothing we look for). */
static bool short_str(scan *s, char *out, size_t cap) {
  if (s->p >= s->end || *s->p != '"') return false; /* a key without its quote */
  const char *start = s->p;
  zbuf tmp = ZBUF_INIT;
  /* Plain strings (all our keys) need no decoding buffer. */
  const char *q = s->p + 1;
  while (q < s->end && *q != '"' && *q != '\\') q++;
  bool ok;
  if (q < s->end && *q == '"') {
    s->p = q + 1;
    size_t n = (size_t)(q - start - 1);
    if (n >= cap) n = 0;
    memcpy(out, start + 1, n);
    out[n] = '\0';
    ok = true;
  } else {
    ok = str(s, &tmp);
    size_t n = ok && tmp.len < cap ? tmp.len : 0;
    if (n) memcpy(out, tmp.data, n);
    out[n] = '\0';
  }
  zbuf_release(&tmp);
  return ok;
}

/* Walks the members of the object at s->p; fn gets each key and must
 * consume its value. */
typedef bool (*member_fn)(void *ud, const char *key, scan *s);

static bool object(scan *s, member_fn fn, void *ud) {
  ws(s);
  if (s->p >= s->end || *s->p != '{') return false;
  s->p++;
  ws(s);
  if (s->p < s->end && *s->p == '}') {
    s->p++;
    return true;
  }
  for (;;) {
    char key[16];
    ws(s);
    if (!short_str(s, key, sizeof key)) return false;
    ws(s);
    if (s->p >= s->end || *s->p != ':') return false;
    s->p++;
    ws(s);
    if (!fn(ud, key, s)) return false;
    ws(s);
    if (s->p >= s->end) return false;
    if (*s->p == ',') {
      s->p++;
      continue;
    }
    if (*s->p++ == '}') return true;
    return false;
  }
}

typedef struct top {
  char type[16];
  const char *payload; /* start of the payload value */
  zbuf *out;           /* NULL: only find the payload (the two-pass form) */
  char inline_type[16]; /* the type the payload was read as in one pass; "" if not */
} top;

static bool payload_inline(top *t, scan *s);

static bool top_member(void *ud, const char *key, scan *s) {
  top *t = ud;
  if (!strcmp(key, "type")) {
    if (s->p < s->end && *s->p == '"') return short_str(s, t->type, sizeof t->type);
  } else if (!strcmp(key, "payload")) {
    t->payload = s->p;
    /* zero writes "type" before "payload": then the text is taken out in the
     * same pass (most of a line is the payload's one long string). */
    if (t->out && payload_inline(t, s)) return true;
  }
  return skip(s);
}

typedef struct fields {
  const char *want; /* "arguments" or "output"; NULL for a message */
  const char *name, *second, *content;
} fields;

static bool payload_member(void *ud, const char *key, scan *s) {
  fields *f = ud;
  if (f->want) {
    if (!strcmp(key, "name")) f->name = s->p;
    else if (!strcmp(key, f->want)) f->second = s->p;
  } else if (!strcmp(key, "content")) {
    f->content = s->p;
  }
  return skip(s);
}

typedef struct part {
  zbuf *out;
} part;

static bool part_member(void *ud, const char *key, scan *s) {
  part *p = ud;
  if (!strcmp(key, "text") && s->p < s->end && *s->p == '"') {
    if (!str(s, p->out)) return false;
    zbuf_addch(p->out, ' ');
    return true;
  }
  return skip(s);
}

/* The message content: a string, or an array of strings / {text} parts. */
static bool content_text(scan *s, zbuf *out) {
  ws(s);
  if (s->p >= s->end) return false;
  if (*s->p == '"') return str(s, out);
  if (*s->p != '[') return skip(s);
  s->p++;
  for (;;) {
    ws(s);
    if (s->p >= s->end) return false;
    if (*s->p == ']') return true;
    if (*s->p == '"') {
      if (!str(s, out)) return false;
      zbuf_addch(out, ' ');
    } else if (*s->p == '{') {
      part p = {out};
      if (!object(s, part_member, &p)) return false;
    } else if (!skip(s)) {
      return false;
    }
    ws(s);
    if (s->p < s->end && *s->p == ',') s->p++;
    else if (s->p < s->end && *s->p == ']') return true;
    else return false;
  }
}

bool zsearch_event_text_2pass(const char *line, size_t len, zbuf *out) {
  zbuf_reset(out);
  scan s = {line, line + len};
  top t = {{0}, NULL, NULL, {0}};
  if (!object(&s, top_member, &t) || !t.payload) return false;
  fields f = {NULL, NULL, NULL, NULL};
  if (!strcmp(t.type, "tool_call")) f.want = "arguments";
  else if (!strcmp(t.type, "tool_result")) f.want = "output";
  else if (strcmp(t.type, "message")) return false;
  scan p = {t.payload, s.end};
  if (!object(&p, payload_member, &f)) return false;
  if (!f.want) {
    if (!f.content) return false;
    scan c = {f.content, s.end};
    if (!content_text(&c, out)) zbuf_reset(out);
    return out->len > 0;
  }
  /* "<name> <arguments|output>", the name first whatever the key order. */
  if (f.name && *f.name == '"') {
    scan n = {f.name, s.end};
    if (!str(&n, out)) zbuf_reset(out);
  }
  zbuf_addch(out, ' ');
  if (f.second && *f.second == '"') {
    size_t keep = out->len;
    scan v = {f.second, s.end};
    if (!str(&v, out)) zbuf_setlen(out, keep);
  }
  return true;
}

/* One pass (see top_member): the payload of a known type is read where it
 * stands, its text decoded straight into t->out. false, with t->out reset
 * and s untouched, when the payload is not what the type wants (the caller
 * then skips it and the two-pass form decides). */
typedef struct inline_fields {
  const char *want; /* as in fields */
  const char *name;
  zbuf *out;
  bool content_failed;
} inline_fields;

static bool inline_member(void *ud, const char *key, scan *s) {
  inline_fields *f = ud;
  if (f->want) {
    if (!strcmp(key, "name")) {
      f->name = s->p;
    } else if (!strcmp(key, f->want)) {
      zbuf_reset(f->out); /* the last one counts, as in a JSON object */
      if (s->p < s->end && *s->p == '"') return str(s, f->out);
    }
  } else if (!strcmp(key, "content")) {
    zbuf_reset(f->out);
    scan c = *s;
    f->content_failed = !content_text(&c, f->out);
  }
  return skip(s);
}

static bool payload_inline(top *t, scan *s) {
  inline_fields f = {NULL, NULL, t->out, false};
  if (!strcmp(t->type, "tool_call")) f.want = "arguments";
  else if (!strcmp(t->type, "tool_result")) f.want = "output";
  else if (strcmp(t->type, "message")) return false;
  zbuf_reset(t->out);
  scan p = *s;
  if (!object(&p, inline_member, &f)) {
    zbuf_reset(t->out);
    return false;
  }
  if (f.want) {
    /* "<name> <arguments|output>": the name goes in front. */
    zbuf name = ZBUF_INIT;
    if (f.name && *f.name == '"') {
      scan n = {f.name, s->end};
      if (!str(&n, &name)) zbuf_reset(&name);
    }
    size_t n = t->out->len;
    zbuf_grow(t->out, name.len + 1);
    memmove(t->out->data + name.len + 1, t->out->data, n);
    if (name.len) memcpy(t->out->data, name.data, name.len);
    t->out->data[name.len] = ' ';
    zbuf_setlen(t->out, n + name.len + 1);
    zbuf_release(&name);
  } else if (f.content_failed) {
    zbuf_reset(t->out);
  }
  memcpy(t->inline_type, t->type, sizeof t->type);
  s->p = p.p;
  return true;
}

bool zsearch_event_text(const char *line, size_t len, zbuf *out) {
  zbuf_reset(out);
  scan s = {line, line + len};
  top t = {{0}, NULL, out, {0}};
  if (!object(&s, top_member, &t) || !t.payload) {
    zbuf_reset(out);
    return false;
  }
  /* Read in one pass, and "type" was not changed by a later duplicate. */
  if (t.inline_type[0] && !strcmp(t.inline_type, t.type))
    return strcmp(t.type, "message") ? true : out->len > 0;
  return zsearch_event_text_2pass(line, len, out);
}

/* ---- snippets ---------------------------------------------------------- */

/* Token characters as FTS5's unicode61 tokenizer sees them, approximately:
 * ASCII letters and digits, and every byte of a non-ASCII character. */
static bool tokch(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static char fold(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

typedef struct span {
  size_t start, len;
} span;
typedef ZVEC(span) spans;

static bool is_term(const char *q, const spans *terms, const char *t, size_t n) {
  for (size_t i = 0; i < terms->len; i++) {
    if (terms->items[i].len != n) continue;
    size_t k = 0;
    while (k < n && fold(q[terms->items[i].start + k]) == fold(t[k])) k++;
    if (k == n) return true;
  }
  return false;
}

/* Next token at or after *pos: returns false at the end. */
static bool next_token(const char *t, size_t len, size_t *pos, span *out) {
  size_t i = *pos;
  while (i < len && !tokch((unsigned char)t[i])) i++;
  if (i >= len) return false;
  size_t j = i;
  while (j < len && tokch((unsigned char)t[j])) j++;
  out->start = i;
  out->len = j - i;
  *pos = j;
  return true;
}

/* Appends at most max bytes of s[0..n), cut back to a UTF-8 boundary. */
static void add_capped(zbuf *b, const char *s, size_t n, size_t max) {
  if (n <= max) {
    zbuf_add(b, s, n);
    return;
  }
  while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80) max--;
  zbuf_add(b, s, max);
  zbuf_addstr(b, "…");
}

#define SNIPPET_BEFORE 4   /* tokens shown before the first match */
#define SNIPPET_TOKEN_MAX 48

char *zsearch_snippet(const char *text, size_t len, const char *query, int ntokens) {
  if (ntokens < 1) ntokens = 16;
  spans terms = ZVEC_INIT;
  size_t qlen = query ? strlen(query) : 0, qpos = 0;
  span sp;
  while (next_token(query ? query : "", qlen, &qpos, &sp)) zvec_push(&terms, sp);

  /* The first match, remembering the starts of the few tokens before it. */
  size_t ring[SNIPPET_BEFORE] = {0};
  size_t seen = 0, pos = 0, from = 0;
  bool found = false;
  while (next_token(text, len, &pos, &sp)) {
    if (is_term(query, &terms, text + sp.start, sp.len)) {
      from = seen >= SNIPPET_BEFORE ? ring[seen % SNIPPET_BEFORE] : 0;
      found = true;
      break;
    }
    ring[seen % SNIPPET_BEFORE] = sp.start;
    seen++;
  }
  if (!found) from = 0;

  zbuf out = ZBUF_INIT;
  if (from > 0) zbuf_addstr(&out, "…");
  pos = from;
  bool open = false;
  size_t last_end = from;
  int emitted = 0;
  while (emitted < ntokens && next_token(text, len, &pos, &sp)) {
    bool hit = is_term(query, &terms, text + sp.start, sp.len);
    if (open && !hit) {
      zbuf_addch(&out, ']');
      open = false;
    }
    if (emitted > 0 || from > 0) {
      /* The separator, whitespace runs folded to one space. */
      bool space = false;
      size_t sepn = 0;
      for (size_t i = last_end; i < sp.start; i++) {
        char c = text[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
          space = true;
          continue;
        }
        if (space && out.len) zbuf_addch(&out, ' ');
        space = false;
        if (sepn++ < 8) zbuf_addch(&out, c);
      }
      if (space && (emitted > 0)) zbuf_addch(&out, ' ');
    } else {
      /* Text before the first token (punctuation) when starting at 0. */
      for (size_t i = 0; i < sp.start && i < 8; i++)
        if (text[i] != '\n' && text[i] != '\r' && text[i] != '\t') zbuf_addch(&out, text[i]);
    }
    if (hit && !open) {
      zbuf_addch(&out, '[');
      open = true;
    }
    add_capped(&out, text + sp.start, sp.len, SNIPPET_TOKEN_MAX);
    last_end = sp.start + sp.len;
    emitted++;
  }
  if (open) zbuf_addch(&out, ']');
  span more;
  size_t p2 = pos;
  if (next_token(text, len, &p2, &more)) zbuf_addstr(&out, "…");
  zvec_free(&terms);
  return zbuf_detach(&out, NULL);
}
