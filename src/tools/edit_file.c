/* edit_file.c — string replacement in one file.
 *
 * Matching runs in passes, each used only when the one before found nothing:
 *   1. exact;
 *   2. line endings ignored (old_string with \n against a CRLF file, or the
 *      reverse; the replacement gets the file's line ending);
 *   3. whole lines equal once trailing whitespace is ignored;
 *   4. whole lines equal once indentation is ignored; the replacement is
 *      re-indented by the difference between the file's indentation and
 *      old_string's.
 * A pass that finds more than one place refuses (unless replace_all) and
 * lists the line of every candidate: an edit the model did not mean is worse
 * than a refusal. A miss is explained (line-number prefixes, nearest match).
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "tools/tools_internal.h"
#include "tools/tracker.h"

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

/* ---- tolerant passes ------------------------------------------------------- */

typedef struct span {
  size_t start, end; /* bytes of the file replaced */
  zbuf repl;         /* what replaces them */
} span;
typedef ZVEC(span) spans;

static void spans_free(spans *v) {
  for (size_t i = 0; i < v->len; i++) zbuf_release(&v->items[i].repl);
  zvec_free(v);
}

/* Converts \r\n to \n. Caller frees. */
static char *to_lf(const char *s, size_t n, size_t *out_len) {
  zbuf b = ZBUF_INIT;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')) zbuf_addch(&b, s[i]);
  return zbuf_detach(&b, out_len);
}

typedef struct tline {
  const char *s;
  size_t n;        /* without the line ending */
  size_t start, next;
} tline;
typedef ZVEC(tline) tlines;

static void split(const char *s, size_t n, tlines *out, bool *final_nl) {
  size_t pos = 0;
  while (pos < n) {
    const char *nl = memchr(s + pos, '\n', n - pos);
    size_t end = nl ? (size_t)(nl - s) : n;
    size_t len = end - pos;
    if (len && s[end - 1] == '\r' && nl) len--;
    tline l = {s + pos, len, pos, nl ? end + 1 : n};
    zvec_push(out, l);
    pos = nl ? end + 1 : n;
  }
  if (final_nl) *final_nl = n > 0 && s[n - 1] == '\n';
}

static size_t indent_of(const tline *l) {
  size_t k = 0;
  while (k < l->n && (l->s[k] == ' ' || l->s[k] == '\t')) k++;
  return k;
}

static bool tl_eq(const tline *a, const tline *b, bool trim_left) {
  size_t ai = trim_left ? indent_of(a) : 0, bi = trim_left ? indent_of(b) : 0;
  size_t an = a->n, bn = b->n;
  while (an > ai && isspace((unsigned char)a->s[an - 1])) an--;
  while (bn > bi && isspace((unsigned char)b->s[bn - 1])) bn--;
  return an - ai == bn - bi && memcmp(a->s + ai, b->s + bi, an - ai) == 0;
}

static bool blank_tl(const tline *l) {
  for (size_t i = 0; i < l->n; i++)
    if (!isspace((unsigned char)l->s[i])) return false;
  return true;
}

/* The replacement for a line match at file line `at`: new_string's lines
 * joined with the file's line ending, re-indented when reindent is set. */
static void build_repl(const tlines *fl, size_t at, const tlines *ol, const tlines *nl,
                       bool old_nl, bool reindent, const char *eol, zbuf *out) {
  const char *from_ind = "", *to_ind = "";
  size_t from_n = 0, to_n = 0;
  bool first_bare = ol->len && indent_of(&ol->items[0]) == 0;
  if (reindent) {
    /* The reference line: the first non-blank old line, preferring one after
     * the first (old_string's first line may start mid-line). */
    size_t ref = SIZE_MAX;
    for (size_t k = 0; k < ol->len; k++) {
      if (blank_tl(&ol->items[k])) continue;
      if (ref == SIZE_MAX) ref = k;
      if (k > 0 && first_bare) { ref = k; break; }
      if (!first_bare) break;
    }
    if (ref != SIZE_MAX) {
      from_ind = ol->items[ref].s;
      from_n = indent_of(&ol->items[ref]);
      to_ind = fl->items[at + ref].s;
      to_n = indent_of(&fl->items[at + ref]);
    }
  }
  for (size_t k = 0; k < nl->len; k++) {
    const tline *l = &nl->items[k];
    if (k) zbuf_addstr(out, eol);
    if (!reindent || blank_tl(l)) {
      zbuf_add(out, l->s, l->n);
      continue;
    }
    if (k == 0 && first_bare && indent_of(l) == 0) {
      zbuf_add(out, fl->items[at].s, indent_of(&fl->items[at]));
      zbuf_add(out, l->s, l->n);
    } else if (l->n >= from_n && memcmp(l->s, from_ind, from_n) == 0) {
      zbuf_add(out, to_ind, to_n);
      zbuf_add(out, l->s + from_n, l->n - from_n);
    } else {
      zbuf_add(out, l->s, l->n);
    }
  }
  if (old_nl) zbuf_addstr(out, eol);
}

/* Passes 3 and 4: whole-line matches. Returns the number found. */
static size_t line_matches(const zbuf *file, const char *old, size_t on, const char *new_s,
                           size_t nn, bool trim_left, spans *out) {
  tlines fl = ZVEC_INIT, ol = ZVEC_INIT, nl = ZVEC_INIT;
  bool old_nl = false, file_crlf = memmem(file->data, file->len, "\r\n", 2) != NULL;
  split(file->data, file->len, &fl, NULL);
  split(old, on, &ol, &old_nl);
  split(new_s, nn, &nl, NULL);
  /* Leading and trailing blank lines of old_string do not have to match. */
  size_t lo = 0, hi = ol.len;
  while (lo < hi && blank_tl(&ol.items[lo])) lo++;
  while (hi > lo && blank_tl(&ol.items[hi - 1])) hi--;
  if (hi > lo && (lo > 0 || hi < ol.len)) {
    if (hi < ol.len) old_nl = false; /* the match ends at its last non-blank line */
    memmove(ol.items, ol.items + lo, (hi - lo) * sizeof *ol.items);
    ol.len = hi - lo;
  }
  size_t found = 0;
  if (ol.len && !(ol.len == 1 && blank_tl(&ol.items[0]))) {
    for (size_t i = 0; i + ol.len <= fl.len; i++) {
      bool eq = true;
      for (size_t k = 0; k < ol.len && eq; k++) eq = tl_eq(&fl.items[i + k], &ol.items[k], trim_left);
      if (!eq) continue;
      span sp = {fl.items[i].start,
                 old_nl ? fl.items[i + ol.len - 1].next
                        : fl.items[i + ol.len - 1].start + fl.items[i + ol.len - 1].n,
                 ZBUF_INIT};
      build_repl(&fl, i, &ol, &nl, old_nl, trim_left, file_crlf ? "\r\n" : "\n", &sp.repl);
      zvec_push(out, sp);
      found++;
      i += ol.len - 1;
    }
  }
  zvec_free(&fl);
  zvec_free(&ol);
  zvec_free(&nl);
  return found;
}

/* Pass 2: the same text with the other line ending. */
static size_t eol_matches(const zbuf *file, const char *old, size_t on, const char *new_s,
                          size_t nn, spans *out) {
  if (!memchr(old, '\n', on)) return 0;
  bool file_crlf = memmem(file->data, file->len, "\r\n", 2) != NULL;
  bool old_crlf = memmem(old, on, "\r\n", 2) != NULL;
  if (file_crlf == old_crlf) return 0;
  size_t cn = 0, rn = 0;
  cleanup_free char *conv = file_crlf ? to_crlf(old, on, &cn) : to_lf(old, on, &cn);
  cleanup_free char *repl = file_crlf ? to_crlf(new_s, nn, &rn) : to_lf(new_s, nn, &rn);
  offsets hits = ZVEC_INIT;
  find_all(file->data, file->len, conv, cn, &hits);
  for (size_t i = 0; i < hits.len; i++) {
    span sp = {hits.items[i], hits.items[i] + cn, ZBUF_INIT};
    zbuf_add(&sp.repl, repl, rn);
    zvec_push(out, sp);
  }
  size_t n = hits.len;
  zvec_free(&hits);
  return n;
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

  /* Failures quote the file's nearest lines: not for a denied file. */
  if (ztool_read_denied(ctx, target))
    return ztool_fail(res, "edit_file: reading %s is denied by the sandbox policy "
                           "(sandbox.denyRead), so it cannot be edited.", display);
  zbuf file = ZBUF_INIT;
  zerr err = ZERR_INIT;
  if (zt_read_text(ctx, target, &file, EDIT_MAX_FILE, &err) < 0) {
    zbuf_release(&file);
    return ztool_fail(res, "edit_file: cannot read %s: %s", display, err.msg);
  }

  offsets hits = ZVEC_INIT;
  find_all(file.data, file.len, old, on, &hits);
  spans sp = ZVEC_INIT;
  for (size_t i = 0; i < hits.len; i++) {
    span x = {hits.items[i], hits.items[i] + on, ZBUF_INIT};
    zbuf_add(&x.repl, new_s, nn);
    zvec_push(&sp, x);
  }
  const char *how = "exact";
  if (!sp.len && eol_matches(&file, old, on, new_s, nn, &sp)) how = "line endings ignored";
  if (!sp.len && line_matches(&file, old, on, new_s, nn, false, &sp))
    how = "trailing whitespace ignored";
  if (!sp.len && line_matches(&file, old, on, new_s, nn, true, &sp))
    how = "indentation ignored; the replacement was re-indented to match the file";
  if (!hits.len) {
    hits.len = 0;
    for (size_t i = 0; i < sp.len; i++) zvec_push(&hits, sp.items[i].start);
  }
  int rc = 0;
  if (sp.len == 0) {
    rc = fail_not_found(res, display, &file, old, on);
  } else if (sp.len > 1 && !replace_all) {
    rc = fail_ambiguous(res, display, &file, &hits);
    if (strcmp(how, "exact") != 0) zbuf_addf(&res->output, " (matched with %s)", how);
  } else {
    zbuf out = ZBUF_INIT;
    size_t pos = 0;
    for (size_t i = 0; i < sp.len; i++) {
      zbuf_add(&out, file.data + pos, sp.items[i].start - pos);
      zbuf_add(&out, sp.items[i].repl.data, sp.items[i].repl.len);
      pos = sp.items[i].end;
    }
    zbuf_add(&out, file.data + pos, file.len - pos);
    if (zt_before_write(ctx, "edit_file", target, res) < 0) {
      rc = -1;
    } else if (zt_write_text(ctx, target, out.data, out.len, st.st_mode & 07777, &err) < 0) {
      rc = ztool_fail(res, "edit_file: cannot write %s: %s", display, err.msg);
    } else {
      ztool_files_note_write(ctx->files, target);
      zbuf_addf(&res->output, "Successfully edited %s (replaced %zu occurrence(s)).", display,
                sp.len);
      if (strcmp(how, "exact") != 0)
        zbuf_addf(&res->output, " Note: old_string did not match exactly; it matched with %s.",
                  how);
      res->meta = json_object();
      json_object_set_new(res->meta, "path", json_string(target));
      json_object_set_new(res->meta, "replacements", json_integer((json_int_t)sp.len));
      json_object_set_new(res->meta, "first_line",
                          json_integer((json_int_t)line_of(file.data, sp.items[0].start)));
      json_object_set_new(res->meta, "bytes", json_integer((json_int_t)out.len));
      json_object_set_new(res->meta, "match", json_string(how));
      zt_meta_seen(ctx, res, target, NULL);
    }
    zbuf_release(&out);
  }
  spans_free(&sp);
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
