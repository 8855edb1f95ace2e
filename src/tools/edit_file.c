/* edit_file.c — exact string replacement in one file.
 *
 * The match is exact (no fuzzy fallback: an edit the model did not mean is
 * worse than a refusal), but a miss is explained: when old_string would match
 * with different whitespace or CRLF line endings, or carries read_file's
 * line-number prefixes, the error says so and how to fix the call.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "tools/tools_internal.h"

#define EDIT_MAX_FILE (64u << 20)      /* files larger than this are refused */
#define EDIT_HINT_MAX_FILE (4u << 20)  /* the whitespace hint scans files up to this */
#define EDIT_MAX_LISTED_LINES 20

static const char edit_file_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"File to edit, relative to the workspace "
    "root.\"},"
    "\"old_string\":{\"type\":\"string\",\"description\":\"Exact text to replace, including "
    "whitespace and indentation, without read_file's line-number prefixes. It must occur "
    "exactly once unless replace_all is true; include surrounding lines to make it "
    "unique.\"},"
    "\"new_string\":{\"type\":\"string\",\"description\":\"Text to put in its place (must "
    "differ from old_string).\"},"
    "\"replace_all\":{\"type\":\"boolean\",\"description\":\"Replace every occurrence of "
    "old_string instead of requiring exactly one. Default false.\"}"
    "},\"required\":[\"path\",\"old_string\",\"new_string\"],\"additionalProperties\":false}";

/* 1-based line number of byte offset `off` in s. */
static size_t line_of(const char *s, size_t off) {
  size_t line = 1;
  const char *p = s, *end = s + off;
  while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
    line++;
    p++;
  }
  return line;
}

/* Offsets of the non-overlapping occurrences of needle in hay. */
typedef ZVEC(size_t) offsets;
static void find_all(const char *hay, size_t hn, const char *needle, size_t nn, offsets *out) {
  size_t pos = 0;
  while (pos + nn <= hn) {
    const char *hit = memmem(hay + pos, hn - pos, needle, nn);
    if (!hit) break;
    size_t at = (size_t)(hit - hay);
    zvec_push(out, at);
    pos = at + nn;
  }
}

/* Where old matches s when all whitespace is ignored on both sides: the byte
 * offset in s of the first match, or -1. Quadratic in the worst case, so only
 * used on files up to EDIT_HINT_MAX_FILE. */
static long find_ignoring_space(const char *s, size_t n, const char *old, size_t on) {
  size_t o0 = 0;
  while (o0 < on && isspace((unsigned char)old[o0])) o0++;
  if (o0 == on) return -1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != old[o0]) continue;
    size_t a = i, b = o0;
    for (;;) {
      while (a < n && isspace((unsigned char)s[a])) a++;
      while (b < on && isspace((unsigned char)old[b])) b++;
      if (b == on) return (long)i;
      if (a == n || s[a] != old[b]) break;
      a++;
      b++;
    }
  }
  return -1;
}

/* true when old_string's first line starts like "  12 | " (read_file output). */
static bool has_line_number_prefix(const char *s) {
  while (*s == ' ') s++;
  if (!isdigit((unsigned char)*s)) return false;
  while (isdigit((unsigned char)*s)) s++;
  return strncmp(s, " | ", 3) == 0 || strncmp(s, " |\n", 3) == 0;
}

/* Converts bare \n to \r\n. Caller frees. */
static char *to_crlf(const char *s, size_t n, size_t *out_len) {
  zbuf b = ZBUF_INIT;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r')) zbuf_addch(&b, '\r');
    zbuf_addch(&b, s[i]);
  }
  return zbuf_detach(&b, out_len);
}

static int fail_not_found(ztool_result *res, const char *display, const zbuf *file,
                          const char *old, size_t on) {
  zbuf hints = ZBUF_INIT;
  if (has_line_number_prefix(old))
    zbuf_addstr(&hints,
                " old_string seems to start with a read_file line-number prefix (\"12 | \"); "
                "those are not part of the file, so remove them from every line.");
  if (memmem(file->data, file->len, "\r\n", 2) && memchr(old, '\n', on) &&
      !memmem(old, on, "\r\n", 2)) {
    size_t cn = 0;
    cleanup_free char *crlf = to_crlf(old, on, &cn);
    const char *hit = memmem(file->data, file->len, crlf, cn);
    if (hit)
      zbuf_addf(&hints,
                " The file uses CRLF line endings and old_string matches at line %zu once "
                "\\n is written as \\r\\n; end each line of old_string and new_string with "
                "\\r\\n.",
                line_of(file->data, (size_t)(hit - file->data)));
  }
  if (hints.len == 0 && file->len <= EDIT_HINT_MAX_FILE) {
    long at = find_ignoring_space(file->data, file->len, old, on);
    if (at >= 0) {
      size_t line = line_of(file->data, (size_t)at);
      zbuf_addf(&hints,
                " It would match at line %zu if whitespace were ignored, so the indentation, "
                "spacing or line breaks differ; call read_file with offset=%zu and copy the "
                "text exactly.",
                line, line);
    }
  }
  if (hints.len == 0)
    zbuf_addstr(&hints,
                " Call read_file to see the current content and copy the text exactly, "
                "including whitespace and indentation.");
  ztool_fail(res, "old_string was not found in %s.%s", display, hints.data);
  zbuf_release(&hints);
  return -1;
}

static int fail_ambiguous(ztool_result *res, const char *display, const zbuf *file,
                          const offsets *hits) {
  zbuf lines = ZBUF_INIT;
  size_t line = 1, pos = 0;
  for (size_t i = 0; i < hits->len && i < EDIT_MAX_LISTED_LINES; i++) {
    /* Offsets are increasing, so count newlines incrementally. */
    line += line_of(file->data + pos, hits->items[i] - pos) - 1;
    pos = hits->items[i];
    zbuf_addf(&lines, "%s%zu", i ? ", " : "", line);
  }
  if (hits->len > EDIT_MAX_LISTED_LINES) zbuf_addstr(&lines, ", …");
  ztool_fail(res,
             "old_string occurs %zu times in %s (at lines %s). Add more surrounding context "
             "to old_string so it matches exactly one place, or pass replace_all: true to "
             "replace every occurrence.",
             hits->len, display, lines.data);
  zbuf_release(&lines);
  return -1;
}

static int run_edit_file(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *path = zjson_str(args, "path");
  const json_t *old_v = json_object_get(args, "old_string");
  const json_t *new_v = json_object_get(args, "new_string");
  const char *old = json_string_value(old_v), *new_s = json_string_value(new_v);
  size_t on = json_string_length(old_v), nn = json_string_length(new_v);
  bool replace_all = zjson_bool_or(args, "replace_all", false);

  if (on == 0)
    return ztool_fail(res,
                      "edit_file: old_string is empty. Give the exact text to replace (to "
                      "create a file use write_file; to insert text, include the "
                      "neighbouring lines in old_string and new_string).");
  if (on == nn && memcmp(old, new_s, on) == 0)
    return ztool_fail(res,
                      "edit_file: old_string and new_string are identical, so there is "
                      "nothing to change. Give the new text in new_string.");

  cleanup_free char *display = NULL;
  cleanup_free char *target = zt_writable_target(ctx, "edit_file", path, &display, res);
  if (!target) return -1;

  struct stat st;
  if (stat(target, &st) < 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      return ztool_fail(res, "File not found: %s. To create a new file use write_file.",
                        display);
    return ztool_fail(res, "edit_file: cannot stat %s: %s.", display, strerror(errno));
  }
  if (S_ISDIR(st.st_mode))
    return ztool_fail(res, "edit_file: %s is a directory; give the path of a file.", display);
  if (!S_ISREG(st.st_mode))
    return ztool_fail(res, "edit_file: %s is not a regular file.", display);

  zbuf file = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (zfs_read_file(target, &file, EDIT_MAX_FILE, &err) < 0) {
    zbuf_release(&file);
    return ztool_fail(res, "edit_file: cannot read %s: %s", display, err.msg);
  }

  offsets hits = ZVEC_INIT;
  find_all(file.data, file.len, old, on, &hits);
  int rc = 0;
  if (hits.len == 0) {
    rc = fail_not_found(res, display, &file, old, on);
  } else if (hits.len > 1 && !replace_all) {
    rc = fail_ambiguous(res, display, &file, &hits);
  } else {
    zbuf out = ZBUF_INIT;
    size_t pos = 0;
    for (size_t i = 0; i < hits.len; i++) {
      zbuf_add(&out, file.data + pos, hits.items[i] - pos);
      zbuf_add(&out, new_s, nn);
      pos = hits.items[i] + on;
    }
    zbuf_add(&out, file.data + pos, file.len - pos);
    if (zt_before_write(ctx, "edit_file", target, res) < 0) {
      rc = -1;
    } else if (zfs_write_atomic(target, out.data, out.len, st.st_mode & 07777, &err) < 0) {
      rc = ztool_fail(res, "edit_file: cannot write %s: %s", display, err.msg);
    } else {
      zbuf_addf(&res->output, "Successfully edited %s (replaced %zu occurrence(s)).", display,
                hits.len);
      res->meta = json_object();
      json_object_set_new(res->meta, "path", json_string(target));
      json_object_set_new(res->meta, "replacements", json_integer((json_int_t)hits.len));
      json_object_set_new(res->meta, "first_line",
                          json_integer((json_int_t)line_of(file.data, hits.items[0])));
      json_object_set_new(res->meta, "bytes", json_integer((json_int_t)out.len));
    }
    zbuf_release(&out);
  }
  zvec_free(&hits);
  zbuf_release(&file);
  return rc;
}

const ztool ztool_def_edit_file = {
    .name = "edit_file",
    .description =
        "Replace exact text in an existing file. old_string must match the file exactly "
        "(whitespace and indentation included, without read_file's line-number prefixes) and "
        "occur exactly once, unless replace_all is true. Read the file first; include enough "
        "surrounding lines to make old_string unique. Use write_file to create new files.",
    .parameters_json = edit_file_schema,
    .side_effect = ZSIDE_WRITE,
    .read_only = false,
    .run = run_edit_file,
};
