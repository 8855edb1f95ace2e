/* view_image.c — hands an image file to a vision-capable model.
 *
 * The tool result's text describes the image; the image itself travels in
 * res->meta.image = {media_type, data (base64), bytes, width, height}, which
 * the provider layer renders as image input in the tool result (or a user
 * message, for wire protocols whose tool results cannot carry images). The
 * type is decided by the file's magic bytes, never its name.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base64.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "tools/image.h"
#include "tools/tools_internal.h"

#define IMAGE_MAX ZIMAGE_MAX

static const char view_image_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"Image file (PNG, JPEG, GIF or WebP, up to "
    "10 MiB), relative to the workspace root.\"}"
    "},\"required\":[\"path\"],\"additionalProperties\":false}";

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static unsigned le16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

/* The media type from magic bytes, and the size when it can be read. */
const char *zimage_sniff(const unsigned char *p, size_t n, unsigned *w, unsigned *h) {
  *w = *h = 0;
  if (n >= 24 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8)) {
    *w = be32(p + 16);
    *h = be32(p + 20);
    return "image/png";
  }
  if (n >= 10 && (!memcmp(p, "GIF87a", 6) || !memcmp(p, "GIF89a", 6))) {
    *w = le16(p + 6);
    *h = le16(p + 8);
    return "image/gif";
  }
  if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) {
    /* Walk the segments to the first start-of-frame. */
    size_t i = 2;
    while (i + 9 < n && p[i] == 0xFF) {
      unsigned marker = p[i + 1];
      size_t len = (size_t)p[i + 2] << 8 | p[i + 3];
      if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
        *h = (unsigned)p[i + 5] << 8 | p[i + 6];
        *w = (unsigned)p[i + 7] << 8 | p[i + 8];
        break;
      }
      i += 2 + len;
    }
    return "image/jpeg";
  }
  if (n >= 30 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4)) {
    if (!memcmp(p + 12, "VP8X", 4)) {
      *w = 1 + (p[24] | p[25] << 8 | p[26] << 16);
      *h = 1 + (p[27] | p[28] << 8 | p[29] << 16);
    } else if (!memcmp(p + 12, "VP8L", 4)) {
      uint32_t b = p[21] | p[22] << 8 | p[23] << 16 | (uint32_t)p[24] << 24;
      *w = 1 + (b & 0x3FFF);
      *h = 1 + ((b >> 14) & 0x3FFF);
    } else if (!memcmp(p + 12, "VP8 ", 4)) {
      *w = le16(p + 26) & 0x3FFF;
      *h = le16(p + 28) & 0x3FFF;
    }
    return "image/webp";
  }
  return NULL;
}

static int run_view_image(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *path = zjson_str(args, "path");
  cleanup_free char *abs = ztool_resolve_path(ctx, path);
  cleanup_free char *display = zt_display_path(ctx, abs);
  if (ctx->images_unsupported)
    return ztool_fail(res, "view_image: the current model does not accept image input, so %s "
                           "cannot be shown to it. Describe what you need from the image to "
                           "the user, or switch to a vision-capable model.", display);
  if (ztool_read_denied(ctx, abs))
    return ztool_fail(res, "view_image: reading %s is denied by the sandbox policy.", display);
  struct stat st;
  if (stat(abs, &st) < 0)
    return ztool_fail(res, "view_image: %s: %s.", display, strerror(errno));
  if (!S_ISREG(st.st_mode)) return ztool_fail(res, "view_image: %s is not a file.", display);
  if ((uint64_t)st.st_size > IMAGE_MAX)
    return ztool_fail(res, "view_image: %s is %lld bytes; images up to 10 MiB can be viewed. "
                           "Scale it down first (e.g. with ImageMagick via exec_command).",
                      display, (long long)st.st_size);
  zbuf data = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (zfs_read_file(abs, &data, IMAGE_MAX, &err) < 0) {
    zbuf_release(&data);
    return ztool_fail(res, "view_image: cannot read %s: %s", display, err.msg);
  }
  unsigned w, h;
  const char *type = zimage_sniff((const unsigned char *)data.data, data.len, &w, &h);
  if (!type) {
    zbuf_release(&data);
    return ztool_fail(res, "view_image: %s is not a PNG, JPEG, GIF or WebP image.", display);
  }
  zbuf b64 = ZBUF_INIT;
  zbase64_add(&b64, data.data, data.len);
  zbuf_addf(&res->output, "Image %s (%s", display, type + 6);
  if (w && h) zbuf_addf(&res->output, ", %ux%u", w, h);
  zbuf_addf(&res->output, ", %zu bytes) is attached for you to view.", data.len);
  res->meta = json_object();
  json_t *img = json_object();
  json_object_set_new(img, "media_type", json_string(type));
  json_object_set_new(img, "data", json_stringn(b64.data, b64.len));
  json_object_set_new(img, "bytes", json_integer((json_int_t)data.len));
  json_object_set_new(img, "width", json_integer(w));
  json_object_set_new(img, "height", json_integer(h));
  json_object_set_new(res->meta, "image", img);
  json_object_set_new(res->meta, "path", json_string(abs));
  zbuf_release(&b64);
  zbuf_release(&data);
  return 0;
}

const ztool ztool_def_view_image = {
    .name = "view_image",
    .description =
        "Look at an image file (PNG, JPEG, GIF or WebP, up to 10 MiB) from the workspace: it is "
        "attached to the conversation for you to see. Use it for screenshots, diagrams and UI "
        "output.",
    .parameters_json = view_image_schema,
    .side_effect = ZSIDE_READ,
    .read_only = true,
    .run = run_view_image,
};
