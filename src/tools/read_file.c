/* read_file.c — shows a text file with line numbers.
 *
 * The file is streamed, never loaded whole: only the lines that will be shown
 * are kept, the rest are just counted, so a multi-gigabyte log costs a scan
 * and ~the output cap of memory. What the model receives is always valid
 * UTF-8; lines longer than READ_LINE_MAX bytes are cut with a marker.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "tools/output.h"
#include "tools/tools_internal.h"
#include "tools/tracker.h"

#define READ_DEFAULT_LIMIT 2000
#define READ_LINE_MAX 2000          /* bytes of one line shown before cutting */
#define READ_BINARY_PROBE 8192      /* NUL in these first bytes = binary */
#define READ_CHUNK 65536

static const char read_file_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"File to read, relative to the workspace "
    "root (absolute paths also work).\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"1-based line number to "
    "start reading from. Default 1.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Maximum number of lines "
    "to return. Default 2000.\"},"
    "\"byte_offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Read raw bytes "
    "from this offset instead of lines (for minified or huge-line files).\"},"
    "\"byte_limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":65536,\"description\":"
    "\"Bytes to read with byte_offset (max 65536, the default).\"}"
    "},\"required\":[\"path\"],\"additionalProperties\":false}";

/* One shown line: where its (already cleaned) text sits in the text buffer. */
typedef struct shown_line {
  size_t off, len;
} shown_line;

typedef struct line_scan {
  size_t start, limit;      /* requested window */
  size_t budget;            /* bytes of numbered lines we may emit */
  size_t used;              /* bytes of numbered lines emitted so far */
  bool budget_hit;          /* stopped collecting because of the byte budget */
  size_t lineno;            /* number of the line being accumulated */
  zbuf cur;                 /* the current line's first bytes (if wanted) */
  size_t cur_total;         /* its full length */
  bool crlf;                /* some line ended in \r\n */
  size_t invalid;           /* bytes replaced with U+FFFD in shown lines */
  zbuf texts;               /* cleaned text of every shown line */
  ZVEC(shown_line) shown;
} line_scan;

static bool wants_line(const line_scan *ls, size_t n) {
  return !ls->budget_hit && n >= ls->start && n - ls->start < ls->limit;
}

/* Ends the current line: cleans it and keeps it when it is in the window. */
static void finish_line(line_scan *ls, bool had_newline) {
  if (wants_line(ls, ls->lineno)) {
    size_t len = ls->cur.len;
    size_t total = ls->cur_total;
    if (had_newline && total > 0 && total <= len && ls->cur.data[len - 1] == '\r') {
      len--;
      total--;
      ls->crlf = true;
    }
    shown_line sl = {ls->texts.len, 0};
    bool cut = total > READ_LINE_MAX;
    size_t keep = cut ? zutf8_boundary(ls->cur.data, READ_LINE_MAX) : len;
    ls->invalid += zt_utf8_append(&ls->texts, ls->cur.data, keep);
    if (cut) zbuf_addf(&ls->texts, " … [line truncated: %zu bytes in total]", total);
    sl.len = ls->texts.len - sl.off;
    /* number + " | " + text + "\n"; 12 covers any line number width. */
    size_t cost = sl.len + 16;
    if (ls->shown.len > 0 && ls->used + cost > ls->budget) {
      zbuf_setlen(&ls->texts, sl.off);
      ls->budget_hit = true;
    } else {
      ls->used += cost;
      zvec_push(&ls->shown, sl);
    }
  }
  zbuf_reset(&ls->cur);
  ls->cur_total = 0;
  ls->lineno++;
}

/* Feeds n bytes of file content through the line splitter. */
static void scan_bytes(line_scan *ls, const char *p, size_t n) {
  const char *end = p + n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t seg = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (wants_line(ls, ls->lineno) && ls->cur.len < READ_LINE_MAX + 8) {
      size_t room = READ_LINE_MAX + 8 - ls->cur.len;
      zbuf_add(&ls->cur, p, seg < room ? seg : room);
    }
    ls->cur_total += seg;
    if (!nl) break;
    finish_line(ls, true);
    p = nl + 1;
  }
}

/* Where read_file's bytes come from: the file, or the editor's text of it
 * (ctx->backend, read whole first: an editor sends a buffer in one piece). */
typedef struct read_src {
  int fd;
  const zbuf *text; /* NULL = read fd */
  size_t pos;
} read_src;

static ssize_t src_pread(read_src *s, char *buf, size_t n, uint64_t off) {
  if (!s->text) return pread(s->fd, buf, n, (off_t)off);
  if (off >= s->text->len) return 0;
  size_t left = s->text->len - (size_t)off;
  if (left > n) left = n;
  memcpy(buf, s->text->data + off, left);
  return (ssize_t)left;
}

static ssize_t src_read(read_src *s, char *buf, size_t n) {
  if (!s->text) return read(s->fd, buf, n);
  ssize_t got = src_pread(s, buf, n, s->pos);
  s->pos += (size_t)got;
  return got;
}

static int open_error(const ztool_ctx *ctx, const char *display, int err, ztool_result *res) {
  if (err == ENOENT || err == ENOTDIR)
    return ztool_fail(res,
                      "File not found: %s. Check the path (relative paths start at the "
                      "workspace %s) or call list_directory to see what exists.",
                      display, ctx->workspace ? ctx->workspace : ".");
  if (err == EACCES)
    return ztool_fail(res, "Permission denied reading %s.", display);
  return ztool_fail(res, "Cannot open %s: %s.", display, strerror(err));
}

/* byte_offset / byte_limit: a raw window of the file, shown without line
 * numbers (cut to whole UTF-8 characters). */
static int read_bytes(const ztool_ctx *ctx, read_src *src, const struct stat *st, const char *abs,
                      const char *display, uint64_t off, size_t limit, ztool_result *res) {
  long long size = src->text ? (long long)src->text->len : (long long)st->st_size;
  if (off > (uint64_t)size)
    return ztool_fail(res, "byte_offset %llu is past the end of %s (%lld bytes).",
                      (unsigned long long)off, display, size);
  char *buf = xmalloc(limit + 4);
  ssize_t n;
  while ((n = src_pread(src, buf, limit, off)) < 0 && errno == EINTR) {
  }
  if (n < 0) {
    free(buf);
    return ztool_fail(res, "Cannot read %s: %s.", display, strerror(errno));
  }
  size_t probe = off == 0 ? (size_t)n : 0;
  if (probe > READ_BINARY_PROBE) probe = READ_BINARY_PROBE;
  if (probe && memchr(buf, '\0', probe)) {
    free(buf);
    return ztool_fail(res, "%s is a binary file (%lld bytes); read_file shows text only.", display,
                      size);
  }
  /* Whole characters: skip continuation bytes at the start, cut a partial one at the end. */
  size_t start = 0;
  while (start < (size_t)n && start < 3 && ((unsigned char)buf[start] & 0xC0) == 0x80) start++;
  size_t end = (uint64_t)off + (uint64_t)n < (uint64_t)size
                   ? zutf8_boundary(buf + start, (size_t)n - start) + start
                   : (size_t)n;
  uint64_t first = off + start, last = off + end;
  zbuf_addf(&res->output, "File: %s (bytes %llu-%llu of %lld)\n\n", display,
            (unsigned long long)first, (unsigned long long)last, size);
  zt_utf8_append(&res->output, buf + start, end - start);
  free(buf);
  if (last < (uint64_t)size) {
    zbuf_addf(&res->output, "\n\n[truncated: call read_file with byte_offset=%llu to continue]",
              (unsigned long long)last);
    res->truncated = true;
  }
  bool again = ztool_files_note_read(ctx->files, abs, st, (size_t)first, (size_t)last, true);
  res->meta = json_object();
  json_object_set_new(res->meta, "path", json_string(abs));
  json_object_set_new(res->meta, "byte_offset", json_integer((json_int_t)first));
  json_object_set_new(res->meta, "byte_end", json_integer((json_int_t)last));
  json_object_set_new(res->meta, "bytes", json_integer((json_int_t)st->st_size));
  json_object_set_new(res->meta, "seen_before", json_boolean(again));
  zt_meta_seen(ctx, res, abs, st);
  return 0;
}

static int read_window(const ztool_ctx *ctx, const json_t *args, read_src *src,
                       const struct stat *stp, const char *abs, const char *display, size_t start,
                       size_t limit, ztool_result *res);

static int run_read_file(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *path = zjson_str(args, "path");
  size_t start = (size_t)zjson_int_or(args, "offset", 1);
  size_t limit = (size_t)zjson_int_or(args, "limit", READ_DEFAULT_LIMIT);
  cleanup_free char *abs = ztool_resolve_path(ctx, path);
  cleanup_free char *display = zt_display_path(ctx, abs);
  if (ztool_read_denied(ctx, abs))
    return ztool_fail(res, "read_file: reading %s is denied by the sandbox policy (a hidden "
                           "credential, zero's config, or a sandbox.denyRead path). Do not try "
                           "to read it another way; ask the user if you need what is in it.",
                      display);

  cleanup_fd int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return open_error(ctx, display, errno, res);
  struct stat st;
  if (fstat(fd, &st) < 0) return ztool_fail(res, "Cannot stat %s: %s.", display, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return ztool_fail(res,
                      "%s is a directory, not a file; call list_directory with path \"%s\" "
                      "to see its contents.",
                      display, display);
  if (!S_ISREG(st.st_mode))
    return ztool_fail(res,
                      "%s is not a regular file (a device, FIFO or socket); read_file reads "
                      "regular files only.",
                      display);

  /* The editor's text when it owns the file (its unsaved buffer); the
   * checks above were made on the disk's path all the same. */
  zbuf editor_text = ZBUF_INIT;
  read_src src = {.fd = fd};
  if (ctx->backend && ctx->backend->read_text) {
    cleanup_free char *real = realpath(abs, NULL);
    zerr err = ZERR_INIT;
    if (ctx->backend->read_text(ctx->backend->ud, real ? real : abs, &editor_text, &err) < 0) {
      zbuf_release(&editor_text);
      return ztool_fail(res, "Cannot read %s through the editor: %s.", display, err.msg);
    }
    src.text = &editor_text;
  }
  int rc = read_window(ctx, args, &src, &st, abs, display, start, limit, res);
  zbuf_release(&editor_text);
  return rc;
}

/* Feeds the whole source through ls. 0, or -1 with an error result
 * (a read error, a binary file, cancellation). */
static int scan_source(read_src *src, line_scan *ls, const char *display, long long size,
                       ztool_result *res) {
  char *buf = xmalloc(READ_CHUNK);
  uint64_t offset = 0;
  int rc = 0;
  for (;;) {
    ssize_t n = src_read(src, buf, READ_CHUNK);
    if (n < 0) {
      if (errno == EINTR) continue;
      rc = ztool_fail(res, "Cannot read %s: %s.", display, strerror(errno));
      break;
    }
    if (n == 0) break;
    size_t probe = offset < READ_BINARY_PROBE ? READ_BINARY_PROBE - (size_t)offset : 0;
    if (probe && memchr(buf, '\0', (size_t)n < probe ? (size_t)n : probe)) {
      rc = ztool_fail(res, "%s is a binary file (%lld bytes); read_file shows text only.", display,
                      size);
      break;
    }
    offset += (uint64_t)n;
    scan_bytes(ls, buf, (size_t)n);
    if (zcancel_requested()) {
      rc = ztool_fail(res, "read_file of %s was cancelled.", display);
      break;
    }
  }
  free(buf);
  return rc;
}

/* The notes and the continuation hint after the numbered lines. */
static void add_line_notes(const line_scan *ls, const char *display, size_t first, size_t last,
                           size_t total, ztool_result *res) {
  if (ls->crlf)
    zbuf_addstr(&res->output, "\n[note: this file uses CRLF (\\r\\n) line endings; the \\r is "
                              "not shown above]\n");
  if (ls->invalid)
    zbuf_addf(&res->output, "\n[note: %s is not valid UTF-8; %zu invalid byte%s shown as U+FFFD]\n",
              display, ls->invalid, ls->invalid == 1 ? " is" : "s are");
  if (total > 0 && last < total) {
    zbuf_addf(&res->output,
              "\n[truncated: showing lines %zu-%zu of %zu%s; call read_file with "
              "offset=%zu to continue]",
              first, last, total, ls->budget_hit ? " (output size limit reached)" : "", last + 1);
    res->truncated = true;
  } else if (zbuf_ends_with(&res->output, "\n")) {
    zbuf_setlen(&res->output, res->output.len - 1);
  }
}

/* The numbered lines ls kept, their notes, the tracker's record and the
 * result's meta. */
static int report_lines(const ztool_ctx *ctx, const line_scan *ls, const struct stat *st,
                        const char *abs, const char *display, size_t start, ztool_result *res) {
  size_t total = ls->lineno - 1;
  if (start > total && !(start == 1 && total == 0))
    return ztool_fail(res,
                      "offset %zu is past the end of %s, which has %zu line%s; call read_file "
                      "with a smaller offset.",
                      start, display, total, total == 1 ? "" : "s");
  size_t first = start, last = start + ls->shown.len - 1;
  bool whole = ls->shown.len == total && start == 1;
  if (whole || total == 0) zbuf_addf(&res->output, "File: %s (%zu lines)\n\n", display, total);
  else zbuf_addf(&res->output, "File: %s (lines %zu-%zu of %zu)\n\n", display, first, last, total);
  if (total == 0) zbuf_addstr(&res->output, "(the file is empty)\n");
  int width = snprintf(NULL, 0, "%zu", total == 0 ? (size_t)1 : last);
  for (size_t i = 0; i < ls->shown.len; i++) {
    zbuf_addf(&res->output, "%*zu | ", width, first + i);
    zbuf_add(&res->output, ls->texts.data + ls->shown.items[i].off, ls->shown.items[i].len);
    zbuf_addch(&res->output, '\n');
  }
  add_line_notes(ls, display, first, last, total, res);
  cleanup_free char *real = realpath(abs, NULL);
  bool again =
      ztool_files_note_read(ctx->files, real ? real : abs, st, first, total ? last : 0, false);
  if (again)
    zbuf_addstr(&res->output, "\n[note: you already read these lines in this session and "
                              "the file has not changed since]");
  res->meta = json_object();
  json_object_set_new(res->meta, "path", json_string(abs));
  json_object_set_new(res->meta, "seen_before", json_boolean(again));
  json_object_set_new(res->meta, "total_lines", json_integer((json_int_t)total));
  json_object_set_new(res->meta, "start_line", json_integer((json_int_t)first));
  json_object_set_new(res->meta, "end_line", json_integer((json_int_t)(total ? last : 0)));
  json_object_set_new(res->meta, "bytes", json_integer((json_int_t)st->st_size));
  zt_meta_seen(ctx, res, real ? real : abs, st);
  return 0;
}

/* read_file once the file is open and checked: a byte window, or lines. */
static int read_window(const ztool_ctx *ctx, const json_t *args, read_src *src,
                       const struct stat *stp, const char *abs, const char *display, size_t start,
                       size_t limit, ztool_result *res) {
  struct stat st = *stp;
  if (json_object_get(args, "byte_offset") || json_object_get(args, "byte_limit")) {
    cleanup_free char *real = realpath(abs, NULL);
    return read_bytes(ctx, src, &st, real ? real : abs, display,
                      (uint64_t)zjson_int_or(args, "byte_offset", 0),
                      (size_t)zjson_int_or(args, "byte_limit", 65536), res);
  }
  size_t cap = zt_output_cap(ctx);
  size_t budget = zt_budget_tokens("read_file") * ZT_BYTES_PER_TOKEN;
  if (budget < cap) cap = budget;
  line_scan ls = {.start = start,
                  .limit = limit,
                  .budget = cap > 2048 ? cap - 1024 : cap / 2,
                  .lineno = 1,
                  .cur = ZBUF_INIT,
                  .texts = ZBUF_INIT,
                  .shown = ZVEC_INIT};
  int rc = scan_source(src, &ls, display, (long long)st.st_size, res);
  if (rc == 0) {
    if (ls.cur_total > 0) finish_line(&ls, false);
    rc = report_lines(ctx, &ls, &st, abs, display, start, res);
  }
  zbuf_release(&ls.cur);
  zbuf_release(&ls.texts);
  zvec_free(&ls.shown);
  return rc;
}

const ztool ztool_def_read_file = {
    .name = "read_file",
    .description =
        "Read a text file and return its lines prefixed with line numbers (\"  12 | text\"). "
        "Use offset and limit to page through large files; when more lines remain the output "
        "ends with a notice giving the offset to continue from. Binary files are refused. "
        "Paths are relative to the workspace root. The line-number prefix is not part of the "
        "file: leave it out when quoting text in edit_file.",
    .parameters_json = read_file_schema,
    .side_effect = ZSIDE_READ,
    .read_only = true,
    .run = run_read_file,
};
