/* jsonl.h — a streaming line reader for JSON Lines files.
 *
 * Session logs grow without bound, so they are never read into memory whole:
 * the reader holds at most one line (plus one read chunk) at a time. A line
 * longer than the reader's limit is skipped (reported as oversize) instead of
 * growing the buffer without bound.
 */
#ifndef ZERO_SESSION_JSONL_H
#define ZERO_SESSION_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Longest line the reader will hand out (64 MiB); longer ones are skipped. */
#define ZJSONL_MAX_LINE ((size_t)64 << 20)

typedef struct zjsonl_reader {
  int fd;            /* borrowed; read from its current offset */
  zbuf buf;          /* unconsumed bytes start at buf.data + pos */
  size_t pos;
  size_t scanned;    /* bytes after pos already known to hold no '\n' */
  bool eof;
  size_t max_line;   /* ZJSONL_MAX_LINE unless changed after init */
  int64_t offset;    /* file offset just past the last line returned */
  int64_t line_no;   /* 1-based number of the last line returned */
} zjsonl_reader;

/* One line as handed out, without its '\n'. text[len] == '\0' (the reader
 * NUL-terminates it in place); the pointer is valid until the next call. */
typedef struct zjsonl_line {
  const char *text;
  size_t len;
  bool newline;   /* false for a final line without '\n' (a torn append) */
  bool oversize;  /* the line exceeded max_line; text is empty */
  int64_t start;  /* file offset of the line's first byte */
} zjsonl_line;

void zjsonl_reader_init(zjsonl_reader *r, int fd);
void zjsonl_reader_release(zjsonl_reader *r);
/* zjsonl_reader_init for a log read from offset on (a resumed scan): seeks fd
 * there when offset > 0 and counts offsets from it. 0, or -1 with errno from
 * lseek (r is set up either way and must be released). */
int zjsonl_reader_init_at(zjsonl_reader *r, int fd, int64_t offset);

/* Returns 1 and fills *line, 0 at end of file, -1 on a read error (errno set). */
int zjsonl_next(zjsonl_reader *r, zjsonl_line *line);

#endif
