/* json.c — helpers over jansson; see json.h. */
#include "base/json.h"

#include <assert.h>
#include <string.h>

#include "base/common.h"
#include "base/fs.h"

const char *zjson_str(const json_t *obj, const char *key) {
  json_t *v = json_object_get(obj, key);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *zjson_str_or(const json_t *obj, const char *key, const char *def) {
  const char *s = zjson_str(obj, key);
  return s ? s : def;
}

int64_t zjson_int_or(const json_t *obj, const char *key, int64_t def) {
  json_t *v = json_object_get(obj, key);
  return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

bool zjson_bool_or(const json_t *obj, const char *key, bool def) {
  json_t *v = json_object_get(obj, key);
  return json_is_boolean(v) ? json_is_true(v) : def;
}

json_t *zjson_parse(const char *text, size_t len, const char *what, zerr *err) {
  json_error_t je;
  json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
  if (!v) {
    zerr_set(err, ZE_INVALID, "%s:%d:%d: %s", what, je.line, je.column, je.text);
    return NULL;
  }
  return v;
}

json_t *zjson_load_file(const char *path, zerr *err) {
  zbuf b = ZBUF_INIT;
  if (zfs_read_file(path, &b, 64u << 20, err) < 0) {
    zbuf_release(&b);
    return NULL;
  }
  json_t *v = zjson_parse(b.data, b.len, path, err);
  zbuf_release(&b);
  return v;
}

static int dump_cb(const char *buffer, size_t size, void *data) {
  zbuf_add((zbuf *)data, buffer, size);
  return 0;
}

/* 0: copied as is; 1: escaped; 2: the lead byte of a UTF-8 sequence. */
static const unsigned char klass[256] = {
    /* 0x00-0x1f: controls */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1 /* " */, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 /* \ */, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x80-0xff */
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

bool zjson_str_body_to(zbuf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  const unsigned char *p = (const unsigned char *)s;
  size_t mark = b->len;
  /* Most text needs no escape: reserve once, copy runs. */
  zbuf_grow(b, n + 2);
  size_t run = 0, i = 0;
  while (i < n) {
    unsigned char k = klass[p[i]];
    if (k == 0) {
      i++;
      continue;
    }
    if (k == 2) {
      size_t q = zutf8_seq_len(p + i, n - i);
      if (!q) {
        zbuf_setlen(b, mark);
        return false;
      }
      i += q;
      continue;
    }
    zbuf_add(b, s + run, i - run);
    char esc[6] = {'\\', 0, 0, 0, 0, 0};
    size_t el = 2;
    switch (p[i]) {
      case '"': esc[1] = '"'; break;
      case '\\': esc[1] = '\\'; break;
      case '\b': esc[1] = 'b'; break;
      case '\f': esc[1] = 'f'; break;
      case '\n': esc[1] = 'n'; break;
      case '\r': esc[1] = 'r'; break;
      case '\t': esc[1] = 't'; break;
      default:
        esc[1] = 'u';
        esc[2] = '0';
        esc[3] = '0';
        esc[4] = hex[p[i] >> 4];
        esc[5] = hex[p[i] & 15];
        el = 6;
    }
    zbuf_add(b, esc, el);
    i++;
    run = i;
  }
  zbuf_add(b, s + run, n - run);
  return true;
}

/* The compact dump, written directly: jansson's dumper goes through a
 * callback per token and a UTF-8 decode per code point, several times the
 * cost. false (part of v written) for what it leaves to jansson: reals
 * (jansson's own number formatting) and strings jansson would not write. */
static bool dump_fast(const json_t *v, zbuf *out, int depth) {
  if (depth > 2000) return false; /* jansson's own depth limit decides */
  switch (json_typeof(v)) {
    case JSON_OBJECT: {
      zbuf_addch(out, '{');
      const char *k;
      size_t klen;
      json_t *x;
      bool first = true;
      json_object_keylen_foreach((json_t *)v, k, klen, x) {
        if (!first) zbuf_addch(out, ',');
        first = false;
        zbuf_addch(out, '"');
        if (!zjson_str_body_to(out, k, klen)) return false;
        zbuf_add(out, "\":", 2);
        if (!dump_fast(x, out, depth + 1)) return false;
      }
      zbuf_addch(out, '}');
      return true;
    }
    case JSON_ARRAY: {
      zbuf_addch(out, '[');
      size_t n = json_array_size(v);
      for (size_t i = 0; i < n; i++) {
        if (i) zbuf_addch(out, ',');
        if (!dump_fast(json_array_get(v, i), out, depth + 1)) return false;
      }
      zbuf_addch(out, ']');
      return true;
    }
    case JSON_STRING:
      zbuf_addch(out, '"');
      if (!zjson_str_body_to(out, json_string_value(v), json_string_length(v))) return false;
      zbuf_addch(out, '"');
      return true;
    case JSON_INTEGER:
      zbuf_addf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
      return true;
    case JSON_TRUE: zbuf_add(out, "true", 4); return true;
    case JSON_FALSE: zbuf_add(out, "false", 5); return true;
    case JSON_NULL: zbuf_add(out, "null", 4); return true;
    default: return false;
  }
}

void zjson_dump_to(const json_t *v, zbuf *out) {
  assert(out != NULL);
  size_t mark = out->len;
  if (v && dump_fast(v, out, 0)) return;
  zbuf_setlen(out, mark);
  json_dump_callback(v, dump_cb, out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
}

char *zjson_dumps(const json_t *v) {
  zbuf b = ZBUF_INIT;
  zjson_dump_to(v, &b);
  return zbuf_detach(&b, NULL);
}

int zjson_print(FILE *out, const json_t *v, size_t flags) {
  char *s = json_dumps(v, flags);
  if (!s) return -1;
  fputs(s, out);
  fputc('\n', out);
  free(s);
  return 0;
}

int zjson_write_line(FILE *out, const json_t *v) {
  zbuf line = ZBUF_INIT;
  zjson_dump_to(v, &line);
  zbuf_addch(&line, '\n');
  int rc = fwrite(line.data, 1, line.len, out) == line.len && fflush(out) == 0 ? 0 : -1;
  zbuf_release(&line);
  return rc;
}

int zjson_print_to(zbuf *b, const json_t *v, size_t flags) {
  char *s = json_dumps(v, flags);
  if (!s) return -1;
  zbuf_addstr(b, s);
  zbuf_addch(b, '\n');
  free(s);
  return 0;
}

void zjson_set_new_opt(json_t *obj, const char *key, json_t *v) {
  if (v) json_object_set_new(obj, key, v);
}

size_t zutf8_seq_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t need;
  unsigned min;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) { need = 2; min = 0x80; }
  else if (c >= 0xE0 && c <= 0xEF) { need = 3; min = 0x800; }
  else if (c >= 0xF0 && c <= 0xF4) { need = 4; min = 0x10000; }
  else return 0;
  if (n < need) return 0;
  unsigned cp = c & (0xFF >> (need + 1));
  for (size_t i = 1; i < need; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return need;
}

bool zutf8_valid(const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < len) {
    if (p[i] < 0x80) { i++; continue; }
    size_t k = zutf8_seq_len(p + i, len - i);
    if (!k) return false;
    i += k;
  }
  return true;
}

size_t zutf8_sanitize(zbuf *b) {
  if (zutf8_valid(b->data, b->len)) return 0;
  zbuf out = ZBUF_INIT;
  const unsigned char *p = (const unsigned char *)b->data;
  size_t i = 0, replaced = 0;
  while (i < b->len) {
    size_t k = p[i] < 0x80 ? 1 : zutf8_seq_len(p + i, b->len - i);
    if (k) {
      zbuf_add(&out, p + i, k);
      i += k;
    } else {
      zbuf_addstr(&out, "\xEF\xBF\xBD");
      i++;
      replaced++;
    }
  }
  zbuf_reset(b);
  zbuf_add(b, out.data, out.len);
  zbuf_release(&out);
  return replaced;
}

void zutf8_put(zbuf *b, uint32_t cp) {
  char t[4];
  size_t n;
  if (cp < 0x80) {
    t[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    t[0] = (char)(0xC0 | (cp >> 6));
    t[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    t[0] = (char)(0xE0 | (cp >> 12));
    t[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    t[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    t[0] = (char)(0xF0 | (cp >> 18));
    t[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    t[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    t[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  zbuf_add(b, t, n);
}

size_t zutf8_boundary(const char *s, size_t len) {
  assert(s != NULL || len == 0);
  const unsigned char *p = (const unsigned char *)s;
  size_t i = len;
  /* Walk back over at most 3 continuation bytes to the lead byte. */
  size_t back = 0;
  while (i > 0 && back < 4 && (p[i - 1] & 0xC0) == 0x80) { i--; back++; }
  if (i == 0) return back ? 0 : len;
  unsigned lead = p[i - 1];
  size_t need = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (need == back + 1) return len;       /* last character complete */
  if (lead < 0x80) return len;
  return i - 1;                           /* drop the incomplete character */
}

/* ---- zjson_parse_plain ---------------------------------------------------- */

typedef struct plain_parser {
  const char *p, *end;
  zbuf scratch;
} plain_parser;

static void plain_ws(plain_parser *pp) {
  while (pp->p < pp->end &&
         (*pp->p == ' ' || *pp->p == '\n' || *pp->p == '\t' || *pp->p == '\r'))
    pp->p++;
}

/* A string of printable ASCII with the simple escapes; anything else
 * (\u, bytes >= 0x80, controls) is left to jansson. Leaves the text in
 * pp->scratch. */
static bool plain_string(plain_parser *pp) {
  if (pp->p >= pp->end || *pp->p != '"') return false;
  pp->p++;
  zbuf_reset(&pp->scratch);
  const char *run = pp->p;
  while (pp->p < pp->end) {
    unsigned char c = (unsigned char)*pp->p;
    if (c == '"') {
      zbuf_add(&pp->scratch, run, (size_t)(pp->p - run));
      pp->p++;
      return true;
    }
    if (c < 0x20 || c >= 0x80) return false;
    if (c == '\\') {
      zbuf_add(&pp->scratch, run, (size_t)(pp->p - run));
      if (pp->p + 1 >= pp->end) return false;
      char out;
      if (!zjson_escape_byte(pp->p[1], &out)) return false;
      zbuf_addch(&pp->scratch, out);
      pp->p += 2;
      run = pp->p;
      continue;
    }
    pp->p++;
  }
  return false;
}

static json_t *plain_value(plain_parser *pp, int depth);

static json_t *plain_container(plain_parser *pp, int depth) {
  bool obj = *pp->p == '{';
  char close = obj ? '}' : ']';
  pp->p++;
  json_t *v = obj ? json_object() : json_array();
  plain_ws(pp);
  if (pp->p < pp->end && *pp->p == close) {
    pp->p++;
    return v;
  }
  for (;;) {
    plain_ws(pp);
    char *key = NULL;
    if (obj) {
      if (!plain_string(pp)) goto fail;
      key = zbuf_detach(&pp->scratch, NULL);
      plain_ws(pp);
      if (pp->p >= pp->end || *pp->p != ':') {
        free(key);
        goto fail;
      }
      pp->p++;
      plain_ws(pp);
    }
    json_t *x = plain_value(pp, depth + 1);
    if (!x) {
      free(key);
      goto fail;
    }
    int rc = obj ? json_object_set_new_nocheck(v, key, x) : json_array_append_new(v, x);
    free(key);
    if (rc) goto fail;
    plain_ws(pp);
    if (pp->p >= pp->end) goto fail;
    if (*pp->p == ',') {
      pp->p++;
      continue;
    }
    if (*pp->p == close) {
      pp->p++;
      return v;
    }
    goto fail;
  }
fail:
  json_decref(v);
  return NULL;
}

static bool plain_lit(plain_parser *pp, const char *lit, size_t n) {
  if ((size_t)(pp->end - pp->p) < n || memcmp(pp->p, lit, n) != 0) return false;
  pp->p += n;
  return true;
}

static json_t *plain_value(plain_parser *pp, int depth) {
  if (pp->p >= pp->end || depth > 500) return NULL;
  char c = *pp->p;
  if (c == '{' || c == '[') return plain_container(pp, depth);
  if (c == '"') return plain_string(pp) ? json_stringn_nocheck(pp->scratch.data, pp->scratch.len)
                                        : NULL;
  if (c == 't') return plain_lit(pp, "true", 4) ? json_true() : NULL;
  if (c == 'f') return plain_lit(pp, "false", 5) ? json_false() : NULL;
  if (c == 'n') return plain_lit(pp, "null", 4) ? json_null() : NULL;
  /* Integers only, no leading zero, no minus zero, at most 18 digits: what
   * cannot overflow and what jansson reads as the same integer. */
  bool neg = c == '-';
  const char *q = pp->p + neg;
  const char *d = q;
  json_int_t n = 0;
  while (q < pp->end && *q >= '0' && *q <= '9') n = n * 10 + (*q++ - '0');
  size_t digits = (size_t)(q - d);
  if (!digits || digits > 18 || (d[0] == '0' && (digits > 1 || neg))) return NULL;
  if (q < pp->end && (*q == '.' || *q == 'e' || *q == 'E')) return NULL;
  pp->p = q;
  return json_integer(neg ? -n : n);
}

json_t *zjson_parse_plain(const char *text, size_t len) {
  plain_parser pp = {.p = text, .end = text + len, .scratch = ZBUF_INIT};
  plain_ws(&pp);
  json_t *v = NULL;
  if (pp.p < pp.end && (*pp.p == '{' || *pp.p == '[')) v = plain_container(&pp, 0);
  if (v) {
    plain_ws(&pp);
    if (pp.p != pp.end) {
      json_decref(v);
      v = NULL;
    }
  }
  zbuf_release(&pp.scratch);
  return v;
}

json_t *zjson_parse_line(const char *text, size_t len) {
  json_t *v = zjson_parse_plain(text, len);
  return v ? v : json_loadb(text, len, 0, NULL);
}

/* The directory part of path ("." when it has none); caller frees. */
static char *parent_dir(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return xstrdup(".");
  return xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
}

int zjson_save_file(const char *path, const json_t *doc, size_t flags, mode_t mode, zerr *err) {
  cleanup_free char *dir = parent_dir(path);
  if (zfs_mkdir_p(dir, 0700, err) < 0) return -1;
  char *text = json_dumps(doc, JSON_INDENT(2) | flags);
  if (!text) return zerr_set(err, ZE_INTERNAL, "cannot serialize %s", path);
  zbuf b = ZBUF_INIT;
  zbuf_addstr(&b, text);
  zbuf_addch(&b, '\n');
  free(text);
  int rc = zfs_write_atomic(path, b.data, b.len, mode, err);
  zbuf_release(&b);
  return rc;
}

int zjson_update_file(const char *path, size_t flags, mode_t mode, zjson_update_fn fn, void *ud,
                      zerr *err) {
  cleanup_free char *dir = parent_dir(path);
  if (zfs_mkdir_p(dir, 0700, err) < 0) return -1;
  cleanup_fd int lock = zfs_lock_path(path, err);
  if (lock < 0) return -1;
  json_t *doc = zfs_exists(path) ? zjson_load_file(path, err) : json_object();
  if (!doc) return -1;
  int rc = fn(&doc, ud, err);
  if (rc == 0 && zjson_save_file(path, doc, flags, mode, err) < 0) rc = -1;
  json_decref(doc);
  return rc;
}
