/* frontmatter.c — the YAML subset of Markdown front matter (frontmatter.h).
 *
 * The block is split into lines once; a recursive descent then reads nodes
 * by indentation: a mapping is the run of `key:` lines at one indent, a
 * sequence the run of `-` lines. A `- key: value` item is read by treating
 * the text after the dash as a line of its own, indented where that text
 * starts, so one mapping reader serves both shapes. */
#include "base/frontmatter.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"

typedef struct fm_line {
  const char *s; /* first character after the indentation */
  size_t len;    /* bytes from s to the end of the line (no \r\n) */
  int indent;    /* leading spaces */
  int lineno;    /* 1-based, counted from the file's first line */
} fm_line;

typedef struct fm_parser {
  ZVEC(fm_line) all; /* the block's lines */
  fm_line *lines;    /* all.items, once split */
  size_t n, i;
  int depth;
  zerr *err;
} fm_parser;

enum { FM_MAX_DEPTH = 64 };

static int fm_fail(fm_parser *p, int lineno, const char *what) {
  return zerr_set(p->err, ZE_INVALID, "line %d: %s", lineno, what);
}

/* A line holding only spaces or a comment carries no structure. */
static bool fm_ignorable(const fm_line *l) { return l->len == 0 || l->s[0] == '#'; }

static void fm_skip(fm_parser *p) {
  while (p->i < p->n && fm_ignorable(&p->lines[p->i])) p->i++;
}

static bool fm_is_dash(const char *s, size_t len) {
  return len >= 1 && s[0] == '-' && (len == 1 || s[1] == ' ');
}

/* The offset of the colon that ends a mapping key in s (a colon followed by a
 * space or the end of the line, outside quotes), or -1. */
static ptrdiff_t fm_key_colon(const char *s, size_t len) {
  size_t i = 0;
  if (len > 0 && (s[0] == '"' || s[0] == '\'')) {
    char q = s[0];
    for (i = 1; i < len && s[i] != q; i++)
      if (q == '"' && s[i] == '\\') i++;
    if (i >= len) return -1;
    i++;
  }
  for (; i < len; i++)
    if (s[i] == ':' && (i + 1 == len || s[i + 1] == ' ')) return (ptrdiff_t)i;
  return -1;
}

static void fm_trim(const char **s, size_t *len) {
  while (*len > 0 && isspace((unsigned char)**s)) (*s)++, (*len)--;
  while (*len > 0 && isspace((unsigned char)(*s)[*len - 1])) (*len)--;
}

/* Cuts a plain scalar's trailing comment (" #…"). */
static void fm_strip_comment(const char *s, size_t *len) {
  for (size_t i = 0; i < *len; i++)
    if (s[i] == '#' && (i == 0 || s[i - 1] == ' ')) {
      *len = i;
      break;
    }
  fm_trim(&s, len);
}

/* The character a double-quoted string's backslash escape \e stands for. */
static char fm_unescape(char e) {
  switch (e) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case '0': return '\0';
    default: return e;
  }
}

/* A quoted scalar starting at s[0] (its quote). Sets *used to the bytes
 * consumed, closing quote included. NULL when it never closes. */
static char *fm_unquote(const char *s, size_t len, size_t *used) {
  zbuf b = ZBUF_INIT;
  char q = s[0];
  for (size_t i = 1; i < len; i++) {
    char c = s[i];
    if (c == q && q == '\'' && i + 1 < len && s[i + 1] == '\'') {
      zbuf_addch(&b, '\'');
      i++;
    } else if (c == q) {
      *used = i + 1;
      return zbuf_detach(&b, NULL);
    } else if (q == '"' && c == '\\' && i + 1 < len) {
      zbuf_addch(&b, fm_unescape(s[++i]));
    } else {
      zbuf_addch(&b, c);
    }
  }
  zbuf_release(&b);
  return NULL;
}

/* Whether a plain scalar starting with c may be something other than a
 * string: null (~, null), a boolean or a number. Most values (names,
 * descriptions) are not, and skip the copy and the conversions. */
static bool fm_maybe_typed(char c) { return strchr("~nNtTfF0123456789+-.", c) != NULL; }

/* The JSON value of a plain scalar: booleans, null, integers, reals, else a
 * string. */
static json_t *fm_plain(const char *s, size_t len) {
  if (len > 0 && !fm_maybe_typed(s[0])) return json_stringn(s, len);
  char *t = xstrndup(s, len);
  json_t *v = NULL;
  if (len == 0 || !strcmp(t, "~") || !strcasecmp(t, "null")) {
    v = json_null();
  } else if (!strcasecmp(t, "true")) {
    v = json_true();
  } else if (!strcasecmp(t, "false")) {
    v = json_false();
  } else {
    char *end = NULL;
    errno = 0;
    long long n = strtoll(t, &end, 10);
    if (errno == 0 && end != t && *end == '\0') {
      v = json_integer(n);
    } else {
      errno = 0;
      double d = strtod(t, &end);
      bool numeric = errno == 0 && end != t && *end == '\0' &&
                     (isdigit((unsigned char)t[0]) || t[0] == '-' || t[0] == '.');
      v = numeric && strpbrk(t, "xXnN") == NULL ? json_real(d) : json_string(t);
    }
  }
  free(t);
  return v;
}

/* One scalar (quoted or plain, with an optional trailing comment). */
static json_t *fm_scalar(fm_parser *p, int lineno, const char *s, size_t len) {
  fm_trim(&s, &len);
  if (len > 0 && (s[0] == '"' || s[0] == '\'')) {
    size_t used = 0;
    char *str = fm_unquote(s, len, &used);
    if (!str) return fm_fail(p, lineno, "a quoted string is never closed"), NULL;
    const char *rest = s + used;
    size_t rlen = len - used;
    fm_strip_comment(rest, &rlen);
    json_t *v = rlen == 0 ? json_string(str) : NULL;
    free(str);
    if (!v) fm_fail(p, lineno, "text after a quoted string");
    return v;
  }
  if (len > 0 && strchr("&*!{%@`", s[0]))
    return fm_fail(p, lineno,
                   "anchors, aliases, tags and flow mappings are not supported in front matter"),
           NULL;
  fm_strip_comment(s, &len);
  return fm_plain(s, len);
}

/* `[a, "b", c]` on one line. */
static json_t *fm_flow_seq(fm_parser *p, int lineno, const char *s, size_t len) {
  fm_strip_comment(s, &len);
  if (len < 2 || s[len - 1] != ']')
    return fm_fail(p, lineno, "a flow sequence must close with ] on its line"), NULL;
  json_t *arr = json_array();
  size_t i = 1, end = len - 1;
  while (i < end) {
    size_t start = i;
    char q = 0;
    for (; i < end; i++) {
      if (q) {
        if (s[i] == q) q = 0;
      } else if (s[i] == '"' || s[i] == '\'') {
        q = s[i];
      } else if (s[i] == ',') {
        break;
      }
    }
    const char *item = s + start;
    size_t ilen = i - start;
    fm_trim(&item, &ilen);
    if (ilen > 0) {
      json_t *v = fm_scalar(p, lineno, item, ilen);
      if (!v) return json_decref(arr), NULL;
      json_array_append_new(arr, v);
    }
    i++; /* past the comma */
  }
  return arr;
}

/* A `|` or `>` block scalar: the lines indented deeper than the key. */
static json_t *fm_block_scalar(fm_parser *p, int parent_indent, const char *hdr, size_t hlen) {
  bool folded = hdr[0] == '>';
  char chomp = hlen > 1 && (hdr[1] == '-' || hdr[1] == '+') ? hdr[1] : 0;
  zbuf b = ZBUF_INIT;
  int block_indent = -1;
  size_t trailing_blank = 0;
  bool prev_text = false;
  while (p->i < p->n) {
    const fm_line *l = &p->lines[p->i];
    if (l->len == 0) { /* blank inside the block: a newline */
      trailing_blank++;
      p->i++;
      continue;
    }
    if (l->indent <= parent_indent) break;
    if (block_indent < 0) block_indent = l->indent;
    if (l->indent < block_indent) break;
    for (size_t k = 0; k < trailing_blank; k++) zbuf_addch(&b, '\n');
    if (folded && prev_text && trailing_blank == 0) {
      zbuf_addch(&b, ' ');
    } else if (prev_text && (!folded || trailing_blank == 0)) {
      zbuf_addch(&b, '\n');
    }
    trailing_blank = 0;
    for (int k = block_indent; k < l->indent; k++) zbuf_addch(&b, ' ');
    zbuf_add(&b, l->s, l->len);
    prev_text = true;
    p->i++;
  }
  if (prev_text && chomp != '-') zbuf_addch(&b, '\n');
  if (chomp == '+')
    for (size_t k = 0; k < trailing_blank; k++) zbuf_addch(&b, '\n');
  json_t *v = json_stringn(b.data, b.len);
  zbuf_release(&b);
  return v;
}

/* A scalar whose text on its line is rest and which may continue on lines
 * indented deeper than parent_indent (joined with spaces; a blank line
 * between them is a newline). */
static json_t *fm_plain_continued(fm_parser *p, int parent_indent, int lineno, const char *rest,
                                  size_t rlen) {
  /* The common case, a value on one line: no copy. A blank line next may
   * still lead to a continuation; the loop below decides. */
  const fm_line *next = p->i < p->n ? &p->lines[p->i] : NULL;
  if (!next || (next->len > 0 && (next->s[0] == '#' || next->indent <= parent_indent)))
    return fm_scalar(p, lineno, rest, rlen);
  zbuf b = ZBUF_INIT;
  zbuf_add(&b, rest, rlen);
  while (p->i < p->n) {
    const fm_line *l = &p->lines[p->i];
    if (fm_ignorable(l)) {
      if (l->len != 0) break; /* a comment ends the scalar */
      size_t j = p->i;
      while (j < p->n && p->lines[j].len == 0) j++;
      if (j >= p->n || p->lines[j].indent <= parent_indent) break;
      zbuf_addch(&b, '\n');
      p->i = j;
      continue;
    }
    if (l->indent <= parent_indent) break;
    if (b.len > 0 && b.data[b.len - 1] != '\n') zbuf_addch(&b, ' ');
    zbuf_add(&b, l->s, l->len);
    p->i++;
  }
  json_t *v = fm_scalar(p, lineno, b.data, b.len);
  zbuf_release(&b);
  return v;
}

static json_t *fm_node(fm_parser *p, int indent);
static json_t *fm_seq(fm_parser *p, int indent);

/* The value after `key:` (or after `- `) whose text on the line is rest; the
 * node's own lines follow at indentations deeper than parent_indent. */
static json_t *fm_value(fm_parser *p, int parent_indent, int lineno, const char *rest, size_t rlen,
                        bool in_map) {
  fm_trim(&rest, &rlen);
  size_t clen = rlen;
  fm_strip_comment(rest, &clen);
  if (clen == 0) {
    fm_skip(p);
    if (p->i >= p->n) return json_null();
    const fm_line *next = &p->lines[p->i];
    if (next->indent > parent_indent) return fm_node(p, next->indent);
    /* YAML lets a key's sequence sit at the key's own indentation. */
    if (in_map && next->indent == parent_indent && fm_is_dash(next->s, next->len))
      return fm_seq(p, parent_indent);
    return json_null();
  }
  if (rest[0] == '|' || rest[0] == '>') return fm_block_scalar(p, parent_indent, rest, clen);
  if (rest[0] == '[') return fm_flow_seq(p, lineno, rest, rlen);
  return fm_plain_continued(p, parent_indent, lineno, rest, rlen);
}

static json_t *fm_map(fm_parser *p, int indent) {
  json_t *obj = json_object();
  for (;;) {
    fm_skip(p);
    if (p->i >= p->n) break;
    fm_line *l = &p->lines[p->i];
    if (l->indent < indent) break;
    if (l->indent > indent)
      return json_decref(obj), fm_fail(p, l->lineno, "unexpected indentation"), NULL;
    if (fm_is_dash(l->s, l->len)) break; /* a sequence at a key's indent ends the map */
    ptrdiff_t colon = fm_key_colon(l->s, l->len);
    if (colon < 0) return json_decref(obj), fm_fail(p, l->lineno, "expected \"key: value\""), NULL;
    char *key = NULL;
    if (l->s[0] == '"' || l->s[0] == '\'') {
      size_t used = 0;
      key = fm_unquote(l->s, (size_t)colon, &used);
    } else {
      const char *k = l->s;
      size_t klen = (size_t)colon;
      fm_trim(&k, &klen);
      key = xstrndup(k, klen);
    }
    if (!key || !*key) {
      free(key);
      return json_decref(obj), fm_fail(p, l->lineno, "a mapping key is empty"), NULL;
    }
    int lineno = l->lineno;
    const char *rest = l->s + colon + 1;
    size_t rlen = l->len - (size_t)colon - 1;
    p->i++;
    json_t *v = fm_value(p, indent, lineno, rest, rlen, true);
    if (!v) {
      free(key);
      return json_decref(obj), NULL;
    }
    json_object_set_new(obj, key, v);
    free(key);
  }
  return obj;
}

static json_t *fm_seq(fm_parser *p, int indent) {
  json_t *arr = json_array();
  for (;;) {
    fm_skip(p);
    if (p->i >= p->n) break;
    fm_line *l = &p->lines[p->i];
    if (l->indent < indent || !fm_is_dash(l->s, l->len)) break;
    if (l->indent > indent)
      return json_decref(arr), fm_fail(p, l->lineno, "unexpected indentation"), NULL;
    size_t off = 1;
    while (off < l->len && l->s[off] == ' ') off++;
    const char *item = l->s + off;
    size_t ilen = l->len - off;
    json_t *v = NULL;
    bool nested_map = ilen > 0 && !strchr("[\"'|>", item[0]) && fm_key_colon(item, ilen) >= 0;
    if (nested_map) {
      /* "- key: value": the item text becomes a line of its own. */
      l->indent += (int)off;
      l->s = item;
      l->len = ilen;
      p->depth++;
      v = p->depth > FM_MAX_DEPTH ? (fm_fail(p, l->lineno, "nesting is too deep"), NULL)
                                  : fm_map(p, l->indent);
      p->depth--;
    } else {
      p->i++;
      v = fm_value(p, indent, l->lineno, item, ilen, false);
    }
    if (!v) return json_decref(arr), NULL;
    json_array_append_new(arr, v);
  }
  return arr;
}

static json_t *fm_node(fm_parser *p, int indent) {
  if (++p->depth > FM_MAX_DEPTH) {
    p->depth--;
    return fm_fail(p, p->lines[p->i].lineno, "nesting is too deep"), NULL;
  }
  const fm_line *l = &p->lines[p->i];
  json_t *v = fm_is_dash(l->s, l->len) ? fm_seq(p, indent) : fm_map(p, indent);
  p->depth--;
  return v;
}

/* Is the line [s, s+len) the delimiter `---` (or `...` when closing)? */
static bool fm_delim(const char *s, size_t len, bool closing) {
  while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) len--;
  return len == 3 && (!memcmp(s, "---", 3) || (closing && !memcmp(s, "...", 3)));
}

/* Splits [text, end) into lines; returns 0, or -1 for a line indented with a
 * tab or not valid UTF-8 (every string made from the lines is then valid). */
/* Adds the line [s, stop) numbered lineno; -1 for tab indentation or
 * invalid UTF-8. */
static int fm_add_line(fm_parser *p, const char *s, const char *stop, int lineno) {
  const char *t = s;
  while (t < stop && *t == ' ') t++;
  if (t < stop && *t == '\t') return fm_fail(p, lineno, "tabs cannot indent YAML; use spaces");
  if (!zutf8_valid(s, (size_t)(stop - s))) return fm_fail(p, lineno, "not valid UTF-8");
  size_t len = (size_t)(stop - t);
  while (len > 0 && isspace((unsigned char)t[len - 1])) len--;
  fm_line line = {t, len, (int)(t - s), lineno};
  zvec_push(&p->all, line);
  return 0;
}

static int fm_split(fm_parser *p, const char *text, const char *end, int first_lineno) {
  int lineno = first_lineno;
  for (const char *s = text; s < end; lineno++) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    if (fm_add_line(p, s, nl ? nl : end, lineno) < 0) return -1;
    s = nl ? nl + 1 : end;
  }
  p->lines = p->all.items;
  p->n = p->all.len;
  return 0;
}

/* The line closing a block that starts at block (NULL when none); *after is
 * set past it. */
static const char *fm_find_close(const char *block, const char *end, const char **after) {
  for (const char *q = block; q < end;) {
    const char *e = memchr(q, '\n', (size_t)(end - q));
    if (fm_delim(q, (size_t)((e ? e : end) - q), true)) {
      *after = e ? e + 1 : end;
      return q;
    }
    q = e ? e + 1 : end;
  }
  return NULL;
}

/* The whole block: one mapping whose keys start at column 1. */
static json_t *fm_block(fm_parser *p) {
  fm_skip(p);
  if (p->i >= p->n) return json_object();
  const fm_line *l = &p->lines[p->i];
  if (l->indent != 0 || fm_is_dash(l->s, l->len))
    return fm_fail(p, l->lineno, "front matter must be a mapping of keys at column 1"), NULL;
  json_t *obj = fm_map(p, 0);
  fm_skip(p);
  if (obj && p->i < p->n) {
    fm_fail(p, p->lines[p->i].lineno, "unexpected indentation");
    json_decref(obj);
    return NULL;
  }
  return obj;
}

int zfrontmatter_parse(const char *text, size_t len, json_t **meta, char **body, zerr *err) {
  *meta = NULL;
  *body = NULL;
  const char *s = text, *end = text + len;
  if (len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3;
  const char *nl = memchr(s, '\n', (size_t)(end - s));
  if (!fm_delim(s, (size_t)((nl ? nl : end) - s), false)) {
    *meta = json_object();
    *body = xstrndup(s, (size_t)(end - s));
    return 0;
  }
  const char *block = nl ? nl + 1 : end, *after = end;
  const char *close = fm_find_close(block, end, &after);
  if (!close)
    return zerr_set(err, ZE_INVALID, "line 1: the front matter opened by --- is never closed");
  fm_parser p = {.err = err};
  json_t *obj = fm_split(&p, block, close, 2) == 0 ? fm_block(&p) : NULL;
  free(p.all.items);
  if (!obj) return -1;
  *meta = obj;
  *body = xstrndup(after, (size_t)(end - after));
  return 0;
}

/* Whether text holds all of its front matter: no opening fence, or the
 * closing fence with the newline after it (a fence at a chunk's end could
 * still grow into "----"). */
static bool fm_head_complete(const char *text, size_t len, size_t *head_len) {
  if (!len) return false;
  const char *s = text, *end = text + len;
  if (len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3;
  const char *nl = memchr(s, '\n', (size_t)(end - s));
  if (!nl) return false;
  *head_len = len;
  if (!fm_delim(s, (size_t)(nl - s), false)) return true;
  const char *after = end;
  if (!fm_find_close(nl + 1, end, &after) || after == end) return false;
  *head_len = (size_t)(after - text);
  return true;
}

char *zfrontmatter_body(const char *path, size_t max_bytes, zerr *err) {
  zbuf text = ZBUF_INIT;
  json_t *meta = NULL;
  char *body = NULL;
  if (zfs_read_file(path, &text, max_bytes, err) == 0)
    zfrontmatter_parse(text.data ? text.data : "", text.len, &meta, &body, err);
  zbuf_release(&text);
  json_decref(meta);
  return body;
}

int zfrontmatter_load(const char *path, size_t max_bytes, json_t **meta, zerr *err) {
  *meta = NULL;
  cleanup_fd int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return zerr_errno(err, errno == ENOENT || errno == ENOTDIR ? ZE_NOT_FOUND : ZE_IO,
                      "cannot open %s", path);
  zbuf text = ZBUF_INIT;
  size_t head = 0;
  bool eof = false;
  while (!eof && !fm_head_complete(text.data, text.len, &head)) {
    if (max_bytes && text.len >= max_bytes) {
      zbuf_release(&text);
      return zerr_set(err, ZE_TOO_LARGE, "%s: the front matter runs past %zu bytes", path,
                      max_bytes);
    }
    zbuf_grow(&text, 4096);
    ssize_t n = read(fd, text.data + text.len, text.cap - text.len - 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      zbuf_release(&text);
      errno = e;
      return zerr_errno(err, e == EISDIR ? ZE_INVALID : ZE_IO, "cannot read %s", path);
    }
    eof = n == 0;
    zbuf_setlen(&text, text.len + (size_t)n);
    head = text.len;
  }
  char *body = NULL;
  int rc = zfrontmatter_parse(text.data ? text.data : "", head, meta, &body, err);
  free(body);
  zbuf_release(&text);
  return rc;
}

const char *zfrontmatter_str(const json_t *meta, const char *key) {
  return json_string_value(json_object_get(meta, key));
}

/* Appends to out the items of s separated by commas or spaces outside
 * parentheses. */
static void fm_split_items(const char *s, json_t *out) {
  const char *start = s;
  int parens = 0;
  for (const char *c = s;; c++) {
    bool sep = *c == '\0' || (parens == 0 && (*c == ',' || *c == ' '));
    if (*c == '(') parens++;
    if (*c == ')' && parens > 0) parens--;
    if (!sep) continue;
    const char *item = start;
    size_t ilen = (size_t)(c - start);
    fm_trim(&item, &ilen);
    if (ilen > 0) json_array_append_new(out, json_stringn(item, ilen));
    if (*c == '\0') break;
    start = c + 1;
  }
}

json_t *zfrontmatter_strlist(const json_t *meta, const char *key, zerr *err) {
  const json_t *v = json_object_get(meta, key);
  json_t *out = json_array();
  if (!v || json_is_null(v)) return out;
  if (json_is_array(v)) {
    size_t i;
    const json_t *it;
    json_array_foreach(v, i, it) {
      if (!json_is_string(it)) {
        json_decref(out);
        zerr_set(err, ZE_INVALID, "%s: item %zu is not a string", key, i + 1);
        return NULL;
      }
      json_array_append(out, (json_t *)it);
    }
    return out;
  }
  if (!json_is_string(v)) {
    json_decref(out);
    zerr_set(err, ZE_INVALID, "%s: expected a list or a comma-separated string", key);
    return NULL;
  }
  fm_split_items(json_string_value(v), out);
  return out;
}
