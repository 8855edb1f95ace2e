/* jsonl.c — streaming line reader; see jsonl.h. */
#include "session/jsonl.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 65536

void zjsonl_reader_init(zjsonl_reader *r, int fd) {
  memset(r, 0, sizeof *r);
  r->fd = fd;
  zbuf_init(&r->buf);
  r->max_line = ZJSONL_MAX_LINE;
}

int zjsonl_reader_init_at(zjsonl_reader *r, int fd, int64_t offset) {
  zjsonl_reader_init(r, fd);
  r->offset = offset;
  return offset > 0 && lseek(fd, offset, SEEK_SET) < 0 ? -1 : 0;
}

void zjsonl_reader_release(zjsonl_reader *r) { zbuf_release(&r->buf); }

/* Reads one chunk onto the end of the buffer. 1 = got bytes, 0 = EOF, -1 = error. */
static int fill(zjsonl_reader *r) {
  zbuf_grow(&r->buf, CHUNK);
  for (;;) {
    ssize_t k = read(r->fd, r->buf.data + r->buf.len, CHUNK);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (k == 0) {
      r->eof = true;
      return 0;
    }
    zbuf_setlen(&r->buf, r->buf.len + (size_t)k);
    return 1;
  }
}

/* The buffered part of the current line is already over the limit: discard
 * it and everything up to the next newline, and report the line as oversize. */
static int skip_oversize(zjsonl_reader *r, zjsonl_line *line) {
  line->start = r->offset;
  line->text = "";
  line->len = 0;
  line->oversize = true;
  line->newline = false;
  r->offset += (int64_t)(r->buf.len - r->pos);
  zbuf_reset(&r->buf);
  r->pos = r->scanned = 0;
  r->line_no++;
  for (;;) {
    int rc = fill(r);
    if (rc < 0) return -1;
    if (rc == 0) return 1;
    char *nl = memchr(r->buf.data, '\n', r->buf.len);
    if (nl) {
      size_t used = (size_t)(nl - r->buf.data) + 1;
      r->offset += (int64_t)used;
      zbuf_consume(&r->buf, used);
      line->newline = true;
      return 1;
    }
    r->offset += (int64_t)r->buf.len;
    zbuf_reset(&r->buf);
  }
}

int zjsonl_next(zjsonl_reader *r, zjsonl_line *line) {
  for (;;) {
    char *base = r->buf.data + r->pos;
    size_t avail = r->buf.len - r->pos;
    char *nl = avail > r->scanned ? memchr(base + r->scanned, '\n', avail - r->scanned) : NULL;
    if (nl) {
      size_t n = (size_t)(nl - base);
      if (n > r->max_line) {
        /* Whole oversize line is buffered: drop it in one step. */
        line->start = r->offset;
        line->text = "";
        line->len = 0;
        line->oversize = true;
        line->newline = true;
      } else {
        *nl = '\0';
        line->text = base;
        line->len = n;
        line->oversize = false;
        line->newline = true;
        line->start = r->offset;
      }
      r->pos += n + 1;
      r->scanned = 0;
      r->offset += (int64_t)(n + 1);
      r->line_no++;
      return 1;
    }
    r->scanned = avail;
    if (avail > r->max_line) return skip_oversize(r, line);
    if (r->eof) {
      if (avail == 0) return 0;
      /* zbuf keeps data[len] == '\0', so the partial line is terminated. */
      line->text = base;
      line->len = avail;
      line->newline = false;
      line->oversize = false;
      line->start = r->offset;
      r->pos = r->buf.len;
      r->scanned = 0;
      r->offset += (int64_t)avail;
      r->line_no++;
      return 1;
    }
    if (r->pos > 0) {
      zbuf_consume(&r->buf, r->pos);
      r->pos = 0;
    }
    if (fill(r) < 0) return -1;
  }
}
