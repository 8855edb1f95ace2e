/* in_stream_json.c — stream-json input; see input.h. */
#include <string.h>

#include "base/base64.h"
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

/* Checks a message's "images" and appends them to images. */
static int take_images(const json_t *arr, size_t lineno, json_t *images, zerr *err) {
  if (!json_is_array(arr))
    return zerr_set(err, ZE_USAGE,
                    "Invalid stream-json input at line %zu: images must be an array of "
                    "{\"mediaType\", \"data\"} objects", lineno);
  size_t i;
  json_t *im;
  json_array_foreach(arr, i, im) {
    const char *key;
    json_t *v;
    if (!json_is_object(im))
      return zerr_set(err, ZE_USAGE,
                      "Invalid stream-json input at line %zu: image %zu is not an object with "
                      "mediaType and data", lineno, i + 1);
    json_object_foreach(im, key, v) {
      if (strcmp(key, "mediaType") && strcmp(key, "data"))
        return zerr_set(err, ZE_USAGE,
                        "Invalid stream-json input at line %zu: unknown field images[%zu].%s",
                        lineno, i, key);
    }
    const char *mt = zjson_str(im, "mediaType"), *data = zjson_str(im, "data");
    bool known_type = mt && (!strcmp(mt, "image/png") || !strcmp(mt, "image/jpeg") ||
                             !strcmp(mt, "image/gif") || !strcmp(mt, "image/webp"));
    if (!known_type)
      return zerr_set(err, ZE_USAGE,
                      "Invalid stream-json input at line %zu: image %zu has an unsupported image "
                      "media type \"%s\" (use image/png, image/jpeg, image/gif or image/webp).",
                      lineno, i + 1, mt ? mt : "");
    long long n = data ? zbase64_decoded_len(data, strlen(data)) : -1;
    if (n <= 0)
      return zerr_set(err, ZE_USAGE,
                      "Invalid stream-json input at line %zu: image %zu data is not valid base64 "
                      "(send the bytes as standard base64, without a data: prefix).",
                      lineno, i + 1);
    if (n > (long long)ZIN_IMAGE_MAX_BYTES)
      return zerr_set(err, ZE_USAGE,
                      "Invalid stream-json input at line %zu: image %zu exceeds the %u byte "
                      "limit.", lineno, i + 1, ZIN_IMAGE_MAX_BYTES);
    json_array_append_new(images, json_pack("{s:s, s:s}", "media_type", mt, "data", data));
  }
  return 0;
}

/* Validates one decoded line and appends its content to out. */
static int take_line(const json_t *o, size_t lineno, zbuf *out, json_t *images, zerr *err) {
  if (!json_is_object(o))
    return zerr_set(err, ZE_USAGE, "Invalid stream-json input at line %zu: expected a JSON object.",
                    lineno);
  const char *type = zjson_str(o, "type");
  bool is_message = type && !strcmp(type, "message");
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    bool known = !strcmp(key, "schemaVersion") || !strcmp(key, "type") ||
                 !strcmp(key, "content") || (is_message && !strcmp(key, "role")) ||
                 (is_message && images && !strcmp(key, "images"));
    if (!known)
      return zerr_set(err, ZE_USAGE, "Invalid stream-json input at line %zu: unknown field %s",
                      lineno, key);
  }
  json_t *ver = json_object_get(o, "schemaVersion");
  if (!json_is_integer(ver) || json_integer_value(ver) != 2)
    return zerr_set(err, ZE_USAGE,
                    "Invalid stream-json input at line %zu: schemaVersion must be 2", lineno);
  const char *content = zjson_str(o, "content");
  json_t *imgs = images ? json_object_get(o, "images") : NULL;
  bool has_images = json_array_size(imgs) > 0;
  if (has_images && !content && !json_object_get(o, "content")) content = "";
  if (!content || (!content[0] && !has_images))
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
  if (imgs && take_images(imgs, lineno, images, err) < 0) return -1;
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
  return zin_stream_json_parse_ex(text, len, out, NULL, err);
}

int zin_stream_json_parse_ex(const char *text, size_t len, zbuf *out, json_t *images,
                             zerr *err) {
  size_t lineno = 0, start = out->len, nimages = json_array_size(images);
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
      int rc = take_line(o, lineno, out, images, err);
      json_decref(o);
      if (rc < 0) return rc;
    }
    p = nl ? nl + 1 : end;
  }
  if (out->len == start && json_array_size(images) == nimages)
    return zerr_set(err, ZE_USAGE,
                    "Stream-json input must include at least one prompt or user message event.");
  return 0;
}
