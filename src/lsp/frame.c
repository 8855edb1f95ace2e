/* frame.c — see frame.h. */
#include "lsp/frame.h"

#include <string.h>
#include <strings.h>

#include "base/common.h"

/* The end of the header part in b[0..n): the offset just past the empty
 * line, or 0 when it is not complete yet. An empty line is "\r\n" or "\n"
 * right after a line end (or at the very start, a peer's stray blank line
 * ending an empty header part, which then fails for lack of a length). */
static size_t header_end(const char *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (b[i] != '\n') continue;
    size_t next = i + 1;
    if (next < n && b[next] == '\n') return next + 1;
    if (next + 1 < n && b[next] == '\r' && b[next + 1] == '\n') return next + 2;
  }
  return 0;
}

/* The decimal value in v[0..ve) (blanks around it allowed) into *out, at
 * most max. Returns 0, or -1 with err. */
static int parse_length(const char *v, const char *ve, size_t max, size_t *out, zerr *err) {
  while (v < ve && (*v == ' ' || *v == '\t')) v++;
  while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
  if (v == ve) return zerr_set(err, ZE_INVALID, "LSP Content-Length is empty");
  size_t val = 0;
  for (const char *p = v; p < ve; p++) {
    if (*p < '0' || *p > '9')
      return zerr_set(err, ZE_INVALID, "LSP Content-Length is not a number");
    if (val > (max - (size_t)(*p - '0')) / 10)
      return zerr_set(err, ZE_TOO_LARGE, "LSP message larger than %zu bytes", max);
    val = val * 10 + (size_t)(*p - '0');
  }
  *out = val;
  return 0;
}

/* The value of Content-Length from the header part h[0..n) into *len.
 * Returns 0, or -1 with err. */
static int parse_headers(const char *h, size_t n, size_t max, size_t *len, zerr *err) {
  bool seen = false;
  size_t pos = 0;
  while (pos < n) {
    const char *nl = memchr(h + pos, '\n', n - pos);
    size_t end = nl ? (size_t)(nl - h) : n;
    size_t line_len = end - pos;
    if (line_len && h[pos + line_len - 1] == '\r') line_len--;
    const char *line = h + pos;
    pos = end + 1;
    if (!line_len) continue;
    const char *colon = memchr(line, ':', line_len);
    if (!colon) return zerr_set(err, ZE_INVALID, "LSP header line without a colon");
    size_t name_len = (size_t)(colon - line);
    if (name_len != 14 || strncasecmp(line, "Content-Length", 14) != 0) continue;
    size_t val = 0;
    if (parse_length(colon + 1, line + line_len, max, &val, err) < 0) return -1;
    if (seen && val != *len) return zerr_set(err, ZE_INVALID, "LSP Content-Length given twice");
    *len = val;
    seen = true;
  }
  if (!seen) return zerr_set(err, ZE_INVALID, "LSP header part without Content-Length");
  return 0;
}

/* Takes one message out of the buffer when complete: 1 = none yet, 0 =
 * delivered (or fn's nonzero value in *rc), -1 = failed. */
static int take_one(zlsp_framer *f, zlsp_body_fn fn, void *ud, int *rc, zerr *err) {
  size_t max = f->max ? f->max : ZLSP_MAX_MESSAGE;
  if (!f->in_body) {
    size_t scan = f->buf.len < ZLSP_MAX_HEADER ? f->buf.len : ZLSP_MAX_HEADER;
    size_t end = header_end(f->buf.data, scan);
    if (!end) {
      if (f->buf.len >= ZLSP_MAX_HEADER)
        return zerr_set(err, ZE_TOO_LARGE, "LSP header part longer than %u bytes",
                        ZLSP_MAX_HEADER);
      return 1;
    }
    if (parse_headers(f->buf.data, end, max, &f->body_len, err) < 0) return -1;
    zbuf_consume(&f->buf, end);
    f->in_body = true;
  }
  if (f->buf.len < f->body_len) return 1;
  f->in_body = false;
  size_t n = f->body_len;
  *rc = fn(ud, f->buf.data, n);
  zbuf_consume(&f->buf, n);
  return 0;
}

int zlsp_framer_feed(zlsp_framer *f, const char *data, size_t len, zlsp_body_fn fn, void *ud,
                     zerr *err) {
  if (f->failed) return zerr_set(err, ZE_INVALID, "LSP stream already failed");
  if (len) zbuf_add(&f->buf, data, len);
  for (;;) {
    int rc = 0;
    int t = take_one(f, fn, ud, &rc, err);
    if (t < 0) {
      f->failed = true;
      zbuf_reset(&f->buf);
      return -1;
    }
    if (t > 0) return 0;
    if (rc) return rc;
  }
}

size_t zlsp_framer_pending(const zlsp_framer *f) { return f->buf.len; }

void zlsp_framer_release(zlsp_framer *f) {
  zbuf_release(&f->buf);
  memset(f, 0, sizeof *f);
}

void zlsp_frame_json(zbuf *out, const json_t *msg) {
  char *body = json_dumps(msg, JSON_COMPACT);
  size_t n = body ? strlen(body) : 0;
  zbuf_addf(out, "Content-Length: %zu\r\n\r\n", n);
  zbuf_add(out, body ? body : "", n);
  free(body);
}
