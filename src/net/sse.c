/* sse.c — Server-Sent Events parser; see sse.h for the contract.
 *
 * Written by hand after the WHATWG "event stream interpretation" algorithm:
 * no packaged library parses incrementally with arbitrary split points.
 *
 * Hot path: every streamed token of a model answer passes through here. Lines
 * are found with memchr (one cached search per terminator kind, so each byte
 * is scanned at most twice per feed) and a line that lies wholly inside the
 * fed buffer is parsed in place; only a line split across feeds is copied
 * into p->line. The per-byte work is therefore libc's vectorised memchr and
 * one memcpy of the data value into the event buffer.
 */
#include "net/sse.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Extra room a line may take beyond max_event_bytes: the field name, colon
 * and space in front of a maximal data value. */
#define SSE_LINE_SLACK 64

static const unsigned char sse_bom[3] = {0xEF, 0xBB, 0xBF};

void zsse_init(zsse_parser *p, zsse_event_fn fn, void *ud, size_t max_event_bytes) {
  memset(p, 0, sizeof *p);
  p->on_event = fn;
  p->ud = ud;
  if (max_event_bytes == 0) max_event_bytes = ZSSE_DEFAULT_MAX_EVENT;
  /* Keep the slack arithmetic below free of overflow. */
  if (max_event_bytes > SIZE_MAX / 4) max_event_bytes = SIZE_MAX / 4;
  p->max_event_bytes = max_event_bytes;
  p->retry_ms = -1;
  zbuf_init(&p->line);
  zbuf_init(&p->data);
  zbuf_init(&p->event_type);
  zbuf_init(&p->last_id);
}

void zsse_release(zsse_parser *p) {
  zbuf_release(&p->line);
  zbuf_release(&p->data);
  zbuf_release(&p->event_type);
  zbuf_release(&p->last_id);
}

/* Writes a human size for the limit ("16 MiB", "512 KiB", "1000 bytes"). */
static void sse_format_limit(size_t n, char *out, size_t outlen) {
  if (n >= (1u << 20) && n % (1u << 20) == 0)
    snprintf(out, outlen, "%zu MiB", n >> 20);
  else if (n >= 1024 && n % 1024 == 0)
    snprintf(out, outlen, "%zu KiB", n >> 10);
  else
    snprintf(out, outlen, "%zu bytes", n);
}

/* Fails the parser with ZE_TOO_LARGE; `what` names the oversized piece. */
static int sse_too_large(zsse_parser *p, const char *what, zerr *err) {
  char lim[64];
  sse_format_limit(p->max_event_bytes, lim, sizeof lim);
  p->failed = true;
  zbuf_reset(&p->line);
  zbuf_reset(&p->data);
  zbuf_reset(&p->event_type);
  p->has_data = false;
  return zerr_set(err, ZE_TOO_LARGE,
                  "server-sent event too large: %s passes the %s per-event limit "
                  "(%zu bytes); the server sent an oversized or malformed event "
                  "stream — check the endpoint URL, or raise the limit if such "
                  "events are expected",
                  what, lim, p->max_event_bytes);
}

/* Dispatches the event being built (blank line). Returns the callback's value. */
static int sse_dispatch(zsse_parser *p) {
  if (!p->has_data) {
    /* Spec: no data means no event; the event type is forgotten too. */
    zbuf_reset(&p->event_type);
    return 0;
  }
  zsse_event ev;
  ev.event = p->event_type.len ? p->event_type.data : "message";
  ev.data = p->data.data; /* zbuf keeps it NUL-terminated ("" when empty) */
  ev.data_len = p->data.len;
  ev.id = p->last_id.data;
  p->events++;
  int rc = p->on_event ? p->on_event(p->ud, &ev) : 0;
  zbuf_reset(&p->data);
  zbuf_reset(&p->event_type);
  p->has_data = false;
  return rc;
}

/* Interprets one complete line (without its terminator). Returns 0, -1 with
 * err set, or the event callback's nonzero value. */
static int sse_line(zsse_parser *p, const char *line, size_t n, zerr *err) {
  if (n == 0) return sse_dispatch(p);
  if (n > p->max_event_bytes + SSE_LINE_SLACK) return sse_too_large(p, "a single line", err);
  if (line[0] == ':') {
    p->comments++;
    return 0;
  }
  const char *colon = memchr(line, ':', n);
  size_t flen = colon ? (size_t)(colon - line) : n;
  const char *val = colon ? colon + 1 : line + n;
  size_t vlen = n - (size_t)(val - line);
  if (vlen && *val == ' ') {
    val++;
    vlen--;
  }
  switch (flen) {
    case 4:
      if (memcmp(line, "data", 4) == 0) {
        size_t sep = p->has_data ? 1 : 0;
        if (p->data.len + sep + vlen > p->max_event_bytes)
          return sse_too_large(p, "the accumulated data", err);
        zbuf_grow(&p->data, sep + vlen);
        if (sep) p->data.data[p->data.len++] = '\n';
        memcpy(p->data.data + p->data.len, val, vlen);
        p->data.len += vlen;
        p->data.data[p->data.len] = '\0';
        p->has_data = true;
      }
      break;
    case 5:
      if (memcmp(line, "event", 5) == 0) {
        zbuf_reset(&p->event_type);
        zbuf_add(&p->event_type, val, vlen);
      } else if (memcmp(line, "retry", 5) == 0 && vlen) {
        /* Only ASCII digits count (spec); anything else is ignored. */
        long ms = 0;
        size_t i = 0;
        for (; i < vlen && val[i] >= '0' && val[i] <= '9'; i++)
          if (ms < 1000000000L) ms = ms * 10 + (val[i] - '0');
        if (i == vlen) p->retry_ms = ms > 1000000000L ? 1000000000L : ms;
      }
      break;
    case 2:
      /* An id containing NUL is ignored (spec). */
      if (memcmp(line, "id", 2) == 0 && !memchr(val, '\0', vlen)) {
        zbuf_reset(&p->last_id);
        zbuf_add(&p->last_id, val, vlen);
      }
      break;
    default:
      break; /* unknown fields are ignored */
  }
  return 0;
}

/* Consumes the bytes of a possible leading BOM. While undecided, the matched
 * prefix is held in p->line; on a mismatch those bytes stay there as the
 * start of the first line. Returns how many input bytes were taken. */
static size_t sse_skip_bom(zsse_parser *p, const char *data, size_t len) {
  size_t used = 0;
  while (!p->bom_checked && used < len) {
    if ((unsigned char)data[used] != sse_bom[p->line.len]) {
      p->bom_checked = true;
      break;
    }
    zbuf_addch(&p->line, data[used++]);
    if (p->line.len == sizeof sse_bom) {
      zbuf_reset(&p->line);
      p->bom_checked = true;
    }
  }
  return used;
}

int zsse_feed(zsse_parser *p, const char *data, size_t len, zerr *err) {
  if (p->failed)
    return zerr_set(err, ZE_INTERNAL,
                    "event stream parser used after an earlier error; start a new stream");
  if (len == 0) return 0;
  size_t skipped = sse_skip_bom(p, data, len);
  const char *s = data + skipped;
  const char *end = data + len;
  if (s == end) return 0;

  if (p->last_was_cr) {
    /* The previous feed ended in CR: a LF here completes that CRLF. */
    p->last_was_cr = false;
    if (*s == '\n' && ++s == end) return 0;
  }

  /* Next CR and LF at or after s; NULL once known absent from the rest. */
  const char *next_cr = NULL, *next_lf = NULL;
  bool cr_done = false, lf_done = false;

  while (s < end) {
    if (!cr_done && (!next_cr || next_cr < s)) {
      next_cr = memchr(s, '\r', (size_t)(end - s));
      cr_done = next_cr == NULL;
    }
    if (!lf_done && (!next_lf || next_lf < s)) {
      next_lf = memchr(s, '\n', (size_t)(end - s));
      lf_done = next_lf == NULL;
    }
    const char *eol = next_cr;
    if (!eol || (next_lf && next_lf < eol)) eol = next_lf;

    if (!eol) {
      /* No terminator left: keep the partial line for the next feed. */
      size_t rest = (size_t)(end - s);
      if (p->line.len + rest > p->max_event_bytes + SSE_LINE_SLACK)
        return sse_too_large(p, "a single line", err);
      zbuf_add(&p->line, s, rest);
      return 0;
    }

    int rc;
    if (p->line.len) {
      size_t piece = (size_t)(eol - s);
      if (p->line.len + piece > p->max_event_bytes + SSE_LINE_SLACK)
        return sse_too_large(p, "a single line", err);
      zbuf_add(&p->line, s, piece);
      rc = sse_line(p, p->line.data, p->line.len, err);
      /* sse_line may have reset p->line on error; resetting again is harmless. */
      zbuf_reset(&p->line);
    } else {
      rc = sse_line(p, s, (size_t)(eol - s), err);
    }

    if (*eol == '\r') {
      if (eol + 1 == end)
        p->last_was_cr = true;
      else if (eol[1] == '\n')
        eol++;
    }
    s = eol + 1;
    if (rc) return rc;
  }
  return 0;
}

int zsse_finish(zsse_parser *p) {
  /* A BOM prefix still being matched is an unterminated line too. */
  int truncated = p->line.len > 0 || p->has_data || p->event_type.len > 0;
  zbuf_reset(&p->line);
  zbuf_reset(&p->data);
  zbuf_reset(&p->event_type);
  p->has_data = false;
  p->last_was_cr = false;
  return truncated;
}
