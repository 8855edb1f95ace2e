/* in_stream_json.c — stream-json input; see input.h. */
#include <string.h>

#include "base/json.h"
#include "ui/input.h"

#define MAX_INPUT (64u << 20)

int zin_read_all(FILE *f, zbuf *out, zerr *err) {
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    zbuf_add(out, chunk, n);
    if (out->len > MAX_INPUT)
      return zerr_set(err, ZE_USAGE, "input is larger than %u bytes", MAX_INPUT);
  }
  if (ferror(f)) return zerr_errno(err, ZE_IO, "cannot read standard input");
  return 0;
}

/* Validates one decoded line and appends its content to out. */
static int take_line(const json_t *o, size_t lineno, zbuf *out, zerr *err) {
  if (!json_is_object(o))
    return zerr_set(err, ZE_USAGE, "Invalid stream-json input at line %zu: expected a JSON object.",
                    lineno);
  const char *type = zjson_str(o, "type");
  bool is_message = type && !strcmp(type, "message");
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    bool known = !strcmp(key, "schemaVersion") || !strcmp(key, "type") ||
                 !strcmp(key, "content") || (is_message && !strcmp(key, "role"));
    if (!known)
      return zerr_set(err, ZE_USAGE, "Invalid stream-json input at line %zu: unknown field %s",
                      lineno, key);
  }
  json_t *ver = json_object_get(o, "schemaVersion");
  if (!json_is_integer(ver) || json_integer_value(ver) != 2)
    return zerr_set(err, ZE_USAGE,
                    "Invalid stream-json input at line %zu: schemaVersion must be 2", lineno);
  const char *content = zjson_str(o, "content");
  if (!content || !content[0])
    return zerr_set(err, ZE_USAGE,
                    "Invalid stream-json input at line %zu: content is required (a string)",
                    lineno);
  if (!type || (strcmp(type, "prompt") && strcmp(type, "message")))
    return zerr_set(err, ZE_USAGE,
                    "Invalid stream-json input at line %zu: type must be prompt or message",
                    lineno);
  if (is_message) {
    const char *role = zjson_str(o, "role");
    if (!role || strcmp(role, "user"))
      return zerr_set(err, ZE_USAGE, "Invalid stream-json input at line %zu: role must be user",
                      lineno);
  }
  /* Trim surrounding whitespace, join with a blank line. */
  const char *s = content, *e = content + strlen(content);
  while (s < e && strchr(" \t\r\n", *s)) s++;
  while (e > s && strchr(" \t\r\n", e[-1])) e--;
  if (s == e) return 0;
  if (out->len) zbuf_addstr(out, "\n\n");
  zbuf_add(out, s, (size_t)(e - s));
  return 0;
}

int zin_stream_json_parse(const char *text, size_t len, zbuf *out, zerr *err) {
  size_t lineno = 0, start = out->len;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    lineno++;
    size_t n = (size_t)(le - p);
    if (n && p[n - 1] == '\r') n--;
    const char *q = p;
    while (q < p + n && strchr(" \t", *q)) q++;
    if (q < p + n) {
      json_error_t je;
      json_t *o = json_loadb(p, n, 0, &je);
      if (!o)
        return zerr_set(err, ZE_USAGE,
                        "Invalid stream-json input at line %zu: %s (column %d)", lineno, je.text,
                        je.column);
      int rc = take_line(o, lineno, out, err);
      json_decref(o);
      if (rc < 0) return rc;
    }
    p = nl ? nl + 1 : end;
  }
  if (out->len == start)
    return zerr_set(err, ZE_USAGE,
                    "Stream-json input must include at least one prompt or user message event.");
  return 0;
}
