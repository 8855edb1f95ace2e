/* json.c — helpers over jansson; see json.h. */
#include "base/json.h"

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

void zjson_dump_to(const json_t *v, zbuf *out) {
  json_dump_callback(v, dump_cb, out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
}

char *zjson_dumps(const json_t *v) {
  zbuf b = ZBUF_INIT;
  zjson_dump_to(v, &b);
  return zbuf_detach(&b, NULL);
}

void zjson_set_new_opt(json_t *obj, const char *key, json_t *v) {
  if (v) json_object_set_new(obj, key, v);
}

/* Returns the length of the UTF-8 sequence starting at s (1..4) when it is
 * valid and complete within n bytes, 0 otherwise. */
static size_t utf8_seq_len(const unsigned char *s, size_t n) {
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
    size_t k = utf8_seq_len(p + i, len - i);
    if (!k) return false;
    i += k;
  }
  return true;
}

size_t zutf8_boundary(const char *s, size_t len) {
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
