/* patch.c — parser and hunk applier for apply_patch; see patch.h.
 *
 * Hand-written: the "*** Begin Patch" language has no packaged parser, and
 * unified diffs are read by the same code so both end up as one zpatch.
 *
 * Applying: each hunk's old lines (context and "-" lines) are looked up in the
 * file from where the previous hunk ended, in passes from exact to loose. A
 * pass that finds a place wins; the first pass is plain line equality, so the
 * common case costs one scan. Hunks never overlap; out-of-order hunks are
 * accepted when their place does not overlap another hunk's.
 */
#include "tools/patch.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- lines ----------------------------------------------------------------- */

typedef ZVEC(zpatch_line) line_vec;

/* Splits s into lines (without "\n"; a "\r" before it is dropped too). A final
 * line without newline counts; the empty tail after a final "\n" does not.
 * *crlf_out (optional) is set when most line ends are CRLF. */
static void split_lines(const char *s, size_t n, line_vec *out, bool *crlf_out) {
  size_t crlf = 0, lf = 0;
  const char *p = s, *end = s + n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (nl) {
      if (len > 0 && p[len - 1] == '\r') {
        len--;
        crlf++;
      } else {
        lf++;
      }
    }
    zpatch_line l = {p, len};
    zvec_push(out, l);
    if (!nl) break;
    p = nl + 1;
  }
  if (crlf_out) *crlf_out = crlf > 0 && crlf >= lf;
}

static bool line_is(const zpatch_line *l, const char *lit) {
  size_t n = strlen(lit);
  return l->n == n && memcmp(l->s, lit, n) == 0;
}

static bool line_starts(const zpatch_line *l, const char *lit) {
  size_t n = strlen(lit);
  return l->n >= n && memcmp(l->s, lit, n) == 0;
}

static zpatch_line trim(zpatch_line l) {
  while (l.n && isspace((unsigned char)l.s[0])) { l.s++; l.n--; }
  while (l.n && isspace((unsigned char)l.s[l.n - 1])) l.n--;
  return l;
}

static zpatch_line rtrim(zpatch_line l) {
  while (l.n && isspace((unsigned char)l.s[l.n - 1])) l.n--;
  return l;
}

static bool blank_line(const zpatch_line *l) { return trim(*l).n == 0; }

static char *line_dup(zpatch_line l) {
  char *s = xmalloc(l.n + 1);
  memcpy(s, l.s, l.n);
  s[l.n] = '\0';
  return s;
}

/* ---- parsing --------------------------------------------------------------- */

void zpatch_release(zpatch *p) {
  for (size_t i = 0; i < p->files.len; i++) {
    zpatch_file *f = &p->files.items[i];
    free(f->path);
    free(f->move_to);
    zbuf_release(&f->content);
    for (size_t j = 0; j < f->hunks.len; j++) {
      zvec_free(&f->hunks.items[j].anchors);
      zvec_free(&f->hunks.items[j].old_lines);
      zvec_free(&f->hunks.items[j].new_lines);
      zvec_free(&f->hunks.items[j].new_ctx);
    }
    zvec_free(&f->hunks);
  }
  zvec_free(&p->files);
  free(p->text);
  p->text = NULL;
}

static zpatch_file *add_file(zpatch *p, zpatch_op op, zpatch_line path, size_t lineno) {
  zpatch_file f = {.op = op, .path = line_dup(trim(path)), .content = ZBUF_INIT,
                   .patch_line = lineno};
  zvec_push(&p->files, f);
  return &p->files.items[p->files.len - 1];
}

static zpatch_hunk *add_hunk(zpatch_file *f, size_t lineno) {
  zpatch_hunk h;
  memset(&h, 0, sizeof h);
  h.patch_line = lineno;
  zvec_push(&f->hunks, h);
  return &f->hunks.items[f->hunks.len - 1];
}

static int perr(zbuf *err, size_t lineno, const char *msg) {
  zbuf_addf(err, "line %zu: %s", lineno, msg);
  return -1;
}

/* The body lines of a hunk (" ", "-", "+", or an empty line models write for
 * an empty context line). Returns false when l is not a body line. */
static bool hunk_body_line(zpatch_hunk *h, const zpatch_line *l) {
  zpatch_line rest = {l->n ? l->s + 1 : l->s, l->n ? l->n - 1 : 0};
  char c = l->n ? l->s[0] : ' ';
  if (c == ' ') {
    zvec_push(&h->new_ctx, (long)h->old_lines.len);
    zvec_push(&h->old_lines, rest);
    zvec_push(&h->new_lines, rest);
  } else if (c == '-') {
    zvec_push(&h->old_lines, rest);
  } else if (c == '+') {
    zvec_push(&h->new_ctx, -1L);
    zvec_push(&h->new_lines, rest);
  } else {
    return false;
  }
  return true;
}

/* A marker line as models trained on the V4A format write it: patch markers
 * and file headers padded with spaces (" *** End Patch", "*** End Patch ",
 * "  *** Update File: x") mean what the bare marker means, as Codex's own
 * parser takes them. A line that is no marker is returned as it is (a hunk's
 * leading space is its context mark). */
static zpatch_line marker_line(const zpatch_line *l) {
  zpatch_line t = trim(*l);
  return line_starts(&t, "***") ? t : *l;
}

static bool is_patch_header(const zpatch_line *raw) {
  zpatch_line m = marker_line(raw);
  const zpatch_line *l = &m;
  return line_starts(l, "*** Add File:") || line_starts(l, "*** Update File:") ||
         line_starts(l, "*** Delete File:") || line_is(l, "*** End Patch");
}

static int parse_codex(zpatch *p, const line_vec *lines, size_t i, size_t end, zbuf *err) {
  i++; /* "*** Begin Patch" */
  while (i < end) {
    zpatch_line marker = marker_line(&lines->items[i]);
    const zpatch_line *l = &marker;
    size_t lineno = i + 1;
    if (line_is(l, "*** End Patch")) return 0;
    if (blank_line(l)) { i++; continue; }
    if (line_starts(l, "*** Add File:")) {
      zpatch_line path = {l->s + 13, l->n - 13};
      if (trim(path).n == 0) return perr(err, lineno, "\"*** Add File:\" needs a path");
      zpatch_file *f = add_file(p, ZPATCH_ADD, path, lineno);
      for (i++; i < end && !is_patch_header(&lines->items[i]); i++) {
        const zpatch_line *c = &lines->items[i];
        if (c->n && c->s[0] == '+') {
          zbuf_add(&f->content, c->s + 1, c->n - 1);
          zbuf_addch(&f->content, '\n');
        } else if (c->n == 0) {
          zbuf_addch(&f->content, '\n');
        } else {
          zbuf_addf(err, "line %zu: every line of an \"*** Add File:\" section must start "
                         "with \"+\"; got \"%.*s\"",
                    i + 1, (int)(c->n > 60 ? 60 : c->n), c->s);
          return -1;
        }
      }
      continue;
    }
    if (line_starts(l, "*** Delete File:")) {
      zpatch_line path = {l->s + 16, l->n - 16};
      if (trim(path).n == 0) return perr(err, lineno, "\"*** Delete File:\" needs a path");
      add_file(p, ZPATCH_DELETE, path, lineno);
      i++;
      continue;
    }
    if (line_starts(l, "*** Update File:")) {
      zpatch_line path = {l->s + 16, l->n - 16};
      if (trim(path).n == 0) return perr(err, lineno, "\"*** Update File:\" needs a path");
      zpatch_file *f = add_file(p, ZPATCH_UPDATE, path, lineno);
      i++;
      zpatch_line move = i < end ? marker_line(&lines->items[i]) : (zpatch_line){"", 0};
      if (line_starts(&move, "*** Move to:")) {
        zpatch_line to = {move.s + 12, move.n - 12};
        if (trim(to).n == 0) return perr(err, i + 1, "\"*** Move to:\" needs a path");
        f->move_to = line_dup(trim(to));
        i++;
      }
      zpatch_hunk *h = NULL;
      for (; i < end && !is_patch_header(&lines->items[i]); i++) {
        const zpatch_line *c = &lines->items[i];
        if (line_starts(c, "@@")) {
          zpatch_line anchor = trim((zpatch_line){c->s + 2, c->n - 2});
          /* "@@ class A" then "@@ def f" with no lines between: nested anchors. */
          if (!h || h->old_lines.len || h->new_lines.len) h = add_hunk(f, i + 1);
          if (anchor.n) zvec_push(&h->anchors, anchor);
          continue;
        }
        zpatch_line cm = marker_line(c);
        if (line_is(&cm, "*** End of File")) {
          if (!h) return perr(err, i + 1, "\"*** End of File\" before any hunk lines");
          h->eof = true;
          h = NULL;
          continue;
        }
        if (line_starts(c, "***")) {
          zbuf_addf(err, "line %zu: unexpected \"%.*s\"; expected hunk lines or a file header "
                         "(*** Add File: / *** Update File: / *** Delete File: / *** End Patch)",
                    i + 1, (int)(c->n > 60 ? 60 : c->n), c->s);
          return -1;
        }
        if (!h) h = add_hunk(f, i + 1);
        if (!hunk_body_line(h, c)) {
          zbuf_addf(err, "line %zu: unexpected line \"%.*s\" in a hunk of %s; every hunk line "
                         "starts with \" \" (context), \"-\" (remove) or \"+\" (add), and a "
                         "hunk may begin with \"@@\"",
                    i + 1, (int)(c->n > 60 ? 60 : c->n), c->s, f->path);
          return -1;
        }
      }
      /* Drop hunks that ended up empty (an "@@" with nothing under it). */
      size_t kept = 0;
      for (size_t k = 0; k < f->hunks.len; k++) {
        zpatch_hunk *hk = &f->hunks.items[k];
        if (hk->old_lines.len || hk->new_lines.len) {
          f->hunks.items[kept++] = *hk;
        } else {
          zvec_free(&hk->anchors);
          zvec_free(&hk->old_lines);
          zvec_free(&hk->new_lines);
          zvec_free(&hk->new_ctx);
        }
      }
      f->hunks.len = kept;
      if (kept == 0 && !f->move_to) {
        zbuf_addf(err, "line %zu: \"*** Update File: %s\" has no hunks; add lines starting "
                       "with \" \", \"-\" or \"+\" (or remove the section)",
                  lineno, f->path);
        return -1;
      }
      continue;
    }
    zbuf_addf(err, "line %zu: expected a file header (*** Add File: / *** Update File: / "
                   "*** Delete File:) or *** End Patch, got \"%.*s\"",
              lineno, (int)(l->n > 60 ? 60 : l->n), l->s);
    return -1;
  }
  return 0; /* a missing "*** End Patch" is forgiven */
}

/* "a/x" → "x" for git-style names; strips a "\t<timestamp>" suffix. */
static zpatch_line diff_name(zpatch_line l) {
  const char *tab = memchr(l.s, '\t', l.n);
  if (tab) l.n = (size_t)(tab - l.s);
  l = trim(l);
  if (l.n > 2 && (l.s[0] == 'a' || l.s[0] == 'b') && l.s[1] == '/') {
    l.s += 2;
    l.n -= 2;
  }
  return l;
}

/* The old start line of a unified hunk header "@@ -A,B +C,D @@" (read
 * within the line only), or 0 when it names none. */
static long hunk_hint(zpatch_line l) {
  size_t i = 2; /* past "@@" */
  while (i < l.n && (l.s[i] == ' ' || l.s[i] == '\t')) i++;
  if (i >= l.n || l.s[i] != '-') return 0;
  long a = 0;
  for (i++; i < l.n && l.s[i] >= '0' && l.s[i] <= '9'; i++) {
    if (a > (LONG_MAX - 9) / 10) return 0; /* absurd: no hint */
    a = a * 10 + (l.s[i] - '0');
  }
  return a;
}

static int parse_unified(zpatch *p, const line_vec *lines, size_t i, size_t end, zbuf *err) {
  zpatch_file *f = NULL;
  zpatch_hunk *h = NULL;
  while (i < end) {
    const zpatch_line *l = &lines->items[i];
    size_t lineno = i + 1;
    bool header = line_starts(l, "--- ") && i + 1 < end && line_starts(&lines->items[i + 1], "+++ ");
    if (header) {
      zpatch_line from = diff_name((zpatch_line){l->s + 4, l->n - 4});
      zpatch_line to = diff_name((zpatch_line){lines->items[i + 1].s + 4, lines->items[i + 1].n - 4});
      bool from_null = line_is(&from, "/dev/null"), to_null = line_is(&to, "/dev/null");
      if (from_null && to_null) return perr(err, lineno, "both sides are /dev/null");
      if (from_null) {
        f = add_file(p, ZPATCH_ADD, to, lineno);
      } else if (to_null) {
        f = add_file(p, ZPATCH_DELETE, from, lineno);
      } else {
        f = add_file(p, ZPATCH_UPDATE, from, lineno);
        if (!(from.n == to.n && memcmp(from.s, to.s, from.n) == 0)) f->move_to = line_dup(to);
      }
      h = NULL;
      i += 2;
      continue;
    }
    if (line_starts(l, "@@")) {
      if (!f) return perr(err, lineno, "a hunk (@@) before any ---/+++ file header");
      if (f->op == ZPATCH_DELETE) { i++; h = NULL; continue; }
      long a = hunk_hint(*l);
      h = f->op == ZPATCH_UPDATE ? add_hunk(f, lineno) : NULL;
      if (h) h->hint = a;
      i++;
      continue;
    }
    if (h || (f && f->op != ZPATCH_UPDATE)) {
      if (line_starts(l, "\\")) { i++; continue; } /* "\ No newline at end of file" */
      if (f->op == ZPATCH_ADD) {
        if (l->n && l->s[0] == '+') {
          zbuf_add(&f->content, l->s + 1, l->n - 1);
          zbuf_addch(&f->content, '\n');
        }
        i++;
        continue;
      }
      if (f->op == ZPATCH_DELETE) { i++; continue; }
      if (hunk_body_line(h, l)) { i++; continue; }
    }
    /* git metadata and prose between files are skipped. */
    h = NULL;
    i++;
  }
  if (p->files.len == 0) {
    zbuf_addstr(err, "no file headers found; a unified diff needs \"--- a/path\" and "
                     "\"+++ b/path\" lines before its @@ hunks");
    return -1;
  }
  for (size_t k = 0; k < p->files.len; k++) {
    zpatch_file *pf = &p->files.items[k];
    if (pf->op == ZPATCH_UPDATE && pf->hunks.len == 0 && !pf->move_to) {
      zbuf_addf(err, "line %zu: the diff of %s has no @@ hunks", pf->patch_line, pf->path);
      return -1;
    }
  }
  return 0;
}

int zpatch_parse(const char *text, size_t len, zpatch *p, zbuf *err) {
  p->text = xmalloc(len + 1);
  memcpy(p->text, text, len);
  p->text[len] = '\0';
  line_vec lines = ZVEC_INIT;
  split_lines(p->text, len, &lines, NULL);
  size_t i = 0, end = lines.len;
  while (i < end && blank_line(&lines.items[i])) i++;
  while (end > i && blank_line(&lines.items[end - 1])) end--;
  /* A heredoc wrapper: "apply_patch <<'EOF'" / "<<EOF" … "EOF". */
  if (i < end && memmem(lines.items[i].s, lines.items[i].n, "<<", 2) &&
      !line_starts(&lines.items[i], "***")) {
    i++;
    if (end > i && !line_starts(&lines.items[end - 1], "***") &&
        !line_starts(&lines.items[end - 1], " ") && !line_starts(&lines.items[end - 1], "+") &&
        !line_starts(&lines.items[end - 1], "-"))
      end--;
  }
  int rc;
  if (i < end && line_is(&(zpatch_line){trim(lines.items[i]).s, trim(lines.items[i]).n},
                         "*** Begin Patch")) {
    rc = parse_codex(p, &lines, i, end, err);
    if (rc == 0 && p->files.len == 0) {
      zbuf_addstr(err, "the patch changes no files; add an *** Add File:, *** Update File: or "
                       "*** Delete File: section");
      rc = -1;
    }
  } else {
    bool unified = false;
    for (size_t k = i; k < end && !unified; k++)
      if (line_starts(&lines.items[k], "--- ") || line_starts(&lines.items[k], "diff --git"))
        unified = true;
    if (unified) {
      rc = parse_unified(p, &lines, i, end, err);
    } else {
      zbuf_addstr(err, "line 1: a patch must start with \"*** Begin Patch\" (or be a unified "
                       "diff with \"--- a/path\" / \"+++ b/path\" headers)");
      rc = -1;
    }
  }
  zvec_free(&lines);
  return rc;
}

/* ---- matching ---------------------------------------------------------------- */

enum { PASS_EXACT, PASS_RTRIM, PASS_TRIM, PASS_FOLD, PASS_COUNT };
static const char *const pass_names[PASS_COUNT] = {
    "exact", "ignoring trailing whitespace", "ignoring indentation",
    "ignoring Unicode punctuation look-alikes"};

/* Appends l trimmed, with typographic look-alikes folded to ASCII: dashes and
 * minus signs to "-", curly quotes to ' and ", non-breaking and other wide
 * spaces to " ", the ellipsis to "...". */
static void fold(zpatch_line l, zbuf *out) {
  zbuf_reset(out);
  l = trim(l);
  const unsigned char *s = (const unsigned char *)l.s;
  for (size_t i = 0; i < l.n;) {
    unsigned cp = 0;
    size_t k = 1;
    if (s[i] >= 0xC2 && s[i] <= 0xDF && i + 1 < l.n) {
      cp = ((unsigned)(s[i] & 0x1F) << 6) | (s[i + 1] & 0x3F);
      k = 2;
    } else if ((s[i] & 0xF0) == 0xE0 && i + 2 < l.n) {
      cp = ((unsigned)(s[i] & 0x0F) << 12) | ((unsigned)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
      k = 3;
    }
    const char *rep = NULL;
    if (k > 1) {
      if (cp == 0xA0 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F || cp == 0x3000) rep = " ";
      else if ((cp >= 0x2010 && cp <= 0x2015) || cp == 0x2212) rep = "-";
      else if (cp >= 0x2018 && cp <= 0x201B) rep = "'";
      else if (cp >= 0x201C && cp <= 0x201F) rep = "\"";
      else if (cp == 0x2026) rep = "...";
    }
    if (rep) zbuf_addstr(out, rep);
    else zbuf_add(out, s + i, k);
    i += k;
  }
}

typedef struct matcher {
  zbuf fa, fb; /* scratch for PASS_FOLD */
} matcher;

static bool line_eq(matcher *m, int pass, zpatch_line a, zpatch_line b) {
  switch (pass) {
  case PASS_EXACT: return a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
  case PASS_RTRIM: a = rtrim(a); b = rtrim(b); return a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
  case PASS_TRIM: a = trim(a); b = trim(b); return a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
  default:
    fold(a, &m->fa);
    fold(b, &m->fb);
    return m->fa.len == m->fb.len && memcmp(m->fa.data, m->fb.data, m->fa.len) == 0;
  }
}

static bool window_eq(matcher *m, int pass, const line_vec *file, size_t at,
                      const zpatch_line *want, size_t n) {
  if (at + n > file->len) return false;
  assert(n == 0 || file->items); /* n lines of the file exist */
  for (size_t k = 0; k < n; k++)
    if (!line_eq(m, pass, file->items[at + k], want[k])) return false;
  return true;
}

/* First window at or after `from` (and before `until`) equal to want[0..n)
 * under pass; with eof the window must end the file. -1 when none. */
static long seek(matcher *m, int pass, const line_vec *file, size_t from, size_t until,
                 const zpatch_line *want, size_t n, bool eof) {
  if (n > file->len) return -1;
  size_t last = file->len - n;
  if (eof) {
    if (last >= from && window_eq(m, pass, file, last, want, n)) return (long)last;
    return -1;
  }
  if (until > last + 1) until = last + 1;
  for (size_t i = from; i < until; i++) {
    /* Cheap first-line filter for the exact pass. */
    if (pass == PASS_EXACT && n && (file->items[i].n != want[0].n ||
                                    (want[0].n && file->items[i].s[0] != want[0].s[0])))
      continue;
    if (window_eq(m, pass, file, i, want, n)) return (long)i;
  }
  return -1;
}

typedef struct placed {
  size_t at, n_old;
  const zpatch_hunk *h;
  size_t n_new;    /* new lines used (may drop a trailing blank line) */
} placed;

static bool overlaps(const placed *ps, size_t np, size_t at, size_t n) {
  for (size_t i = 0; i < np; i++) {
    size_t a = ps[i].at, b = ps[i].at + ps[i].n_old;
    if (at < b && a < at + n) return true;
    if (n == 0 && at > a && at < b) return true;
  }
  return false;
}

static void show_lines(zbuf *err, const zpatch_line *ls, size_t n, size_t first_no) {
  size_t shown = n > 12 ? 12 : n;
  for (size_t k = 0; k < shown; k++) {
    if (first_no) zbuf_addf(err, "  %6zu | %.*s\n", first_no + k, (int)ls[k].n, ls[k].s);
    else zbuf_addf(err, "         | %.*s\n", (int)ls[k].n, ls[k].s);
  }
  if (shown < n) zbuf_addf(err, "         | … (%zu more lines)\n", n - shown);
}

/* Explains a hunk that did not match: what was wanted and the window of the
 * file that agrees with it on the most lines (ignoring whitespace). */
static void explain_miss(matcher *m, const line_vec *file, const zpatch_hunk *h, size_t hunk_no,
                         const char *display, size_t from, zbuf *err) {
  size_t n = h->old_lines.len;
  if (n == 1)
    zbuf_addf(err, "hunk %zu of %s (patch line %zu) does not match the file: this line was "
                   "not found", hunk_no, display, h->patch_line);
  else
    zbuf_addf(err, "hunk %zu of %s (patch line %zu) does not match the file: these %zu lines "
                   "were not found", hunk_no, display, h->patch_line, n);
  if (from) zbuf_addf(err, " after line %zu", from);
  zbuf_addf(err, " (tried: exact, then %s, %s and %s):\n", pass_names[1], pass_names[2],
            pass_names[3]);
  show_lines(err, h->old_lines.items, n, 0);
  size_t best = 0, best_score = 0;
  if (n && file->len && (uint64_t)file->len * n <= 50000000u) {
    for (size_t i = 0; i + 1 <= file->len; i++) {
      size_t score = 0;
      for (size_t k = 0; k < n && i + k < file->len; k++)
        if (line_eq(m, PASS_FOLD, file->items[i + k], h->old_lines.items[k])) score++;
      if (score > best_score) { best_score = score; best = i; }
    }
  }
  if (best_score) {
    size_t len = n;
    if (best + len > file->len) len = file->len - best;
    zbuf_addf(err, "The nearest candidate is at line %zu (%zu of %zu lines equal ignoring "
                   "whitespace):\n", best + 1, best_score, n);
    show_lines(err, file->items + best, len, best + 1);
  } else {
    zbuf_addstr(err, "No part of the file resembles these lines.\n");
  }
  zbuf_addstr(err, "Re-read the file and copy the context and \"-\" lines exactly as they are "
                   "now.");
}

/* Finds the anchor lines of h from *cursor; moves *cursor past the last. */
static int seek_anchors(matcher *m, const line_vec *file, const zpatch_hunk *h, size_t hunk_no,
                        const char *display, size_t *cursor, zbuf *err) {
  for (size_t a = 0; a < h->anchors.len; a++) {
    const zpatch_line *want = &h->anchors.items[a];
    long at = -1;
    for (int pass = PASS_TRIM; pass < PASS_COUNT && at < 0; pass++)
      at = seek(m, pass, file, *cursor, SIZE_MAX, want, 1, false);
    if (at < 0) /* anchors may be stated out of order too */
      for (int pass = PASS_TRIM; pass < PASS_COUNT && at < 0; pass++)
        at = seek(m, pass, file, 0, *cursor, want, 1, false);
    if (at < 0) {
      zbuf_addf(err, "hunk %zu of %s (patch line %zu): the @@ anchor line \"%.*s\" was not "
                     "found in the file. Use a line that exists in the file (e.g. the "
                     "enclosing function's signature) or omit the anchor.",
                hunk_no, display, h->patch_line, (int)want->n, want->s);
      return -1;
    }
    *cursor = (size_t)at + 1;
  }
  return 0;
}

static int cmp_placed(const void *a, const void *b) {
  const placed *x = a, *y = b;
  return x->at < y->at ? -1 : x->at > y->at;
}

int zpatch_apply_hunks(const zpatch_file *f, const char *display, const char *content,
                       size_t len, zbuf *out, zbuf *err) {
  line_vec file = ZVEC_INIT;
  bool crlf = false;
  split_lines(content, len, &file, &crlf);
  bool final_nl = len == 0 || content[len - 1] == '\n';
  matcher m = {ZBUF_INIT, ZBUF_INIT};
  ZVEC(placed) ps = ZVEC_INIT;
  size_t cursor = 0;
  int rc = 0;

  for (size_t hi = 0; hi < f->hunks.len && rc == 0; hi++) {
    const zpatch_hunk *h = &f->hunks.items[hi];
    size_t from = cursor;
    if (seek_anchors(&m, &file, h, hi + 1, display, &from, err) < 0) { rc = -1; break; }
    size_t n_old = h->old_lines.len, n_new = h->new_lines.len;
    const zpatch_line *want = h->old_lines.items;
    if (n_old == 0) {
      /* Pure insertion: after the anchor, at the unified-diff line, or at the end. */
      size_t at = h->anchors.len ? from : h->hint > 0 ? (size_t)h->hint : file.len;
      if (at > file.len) at = file.len;
      placed pl = {at, 0, h, n_new};
      zvec_push(&ps, pl);
      cursor = at;
      continue;
    }
    long at = -1;
    /* A unified diff says where the hunk was; trust it when it matches exactly. */
    if (h->hint > 0 && (size_t)h->hint - 1 >= from &&
        window_eq(&m, PASS_EXACT, &file, (size_t)h->hint - 1, want, n_old))
      at = h->hint - 1;
    for (int attempt = 0; attempt < 2 && at < 0; attempt++) {
      for (int pass = PASS_EXACT; pass < PASS_COUNT && at < 0; pass++) {
        at = seek(&m, pass, &file, from, SIZE_MAX, want, n_old, h->eof);
        if (at < 0 && h->eof) at = seek(&m, pass, &file, from, SIZE_MAX, want, n_old, false);
        if (at < 0) {
          /* Out of order: accept an earlier place that no other hunk touches. */
          long early = seek(&m, pass, &file, 0, from, want, n_old, false);
          if (early >= 0 && !overlaps(ps.items, ps.len, (size_t)early, n_old)) at = early;
        }
      }
      /* Models often end a hunk with a blank context line the file lacks. */
      if (at < 0 && attempt == 0 && n_old > 1 && blank_line(&want[n_old - 1]) && n_new &&
          blank_line(&h->new_lines.items[n_new - 1])) {
        n_old--;
        n_new--;
      } else {
        break;
      }
    }
    if (at < 0 || overlaps(ps.items, ps.len, (size_t)at, n_old)) {
      explain_miss(&m, &file, h, hi + 1, display, from, err);
      rc = -1;
      break;
    }
    placed pl = {(size_t)at, n_old, h, n_new};
    zvec_push(&ps, pl);
    cursor = (size_t)at + n_old;
  }

  if (rc == 0) {
    /* items is NULL when the file section has no hunk */
    if (ps.len > 1) qsort(ps.items, ps.len, sizeof *ps.items, cmp_placed);
    const char *eol = crlf ? "\r\n" : "\n";
    size_t eol_n = crlf ? 2 : 1;
    size_t pos = 0, emitted = 0;
    zbuf_grow(out, len + len / 8 + 64);
    for (size_t i = 0; i <= ps.len; i++) {
      size_t stop = i < ps.len ? ps.items[i].at : file.len;
      assert(pos >= stop || file.items); /* hunks are placed inside the file */
      for (; pos < stop; pos++, emitted++) {
        zbuf_add(out, file.items[pos].s, file.items[pos].n);
        zbuf_add(out, eol, eol_n);
      }
      if (i == ps.len) break;
      assert(ps.items != NULL); /* i < ps.len */
      for (size_t k = 0; k < ps.items[i].n_new; k++, emitted++) {
        /* A context line keeps the file's own text (a loose match must not
         * rewrite its whitespace or punctuation). */
        long ci = ps.items[i].h->new_ctx.items[k];
        const zpatch_line *nl = &ps.items[i].h->new_lines.items[k];
        if (ci >= 0 && (size_t)ci < ps.items[i].n_old) {
          assert(file.items != NULL); /* the hunk was placed on n_old > 0 of its lines */
          nl = &file.items[ps.items[i].at + (size_t)ci];
        }
        zbuf_add(out, nl->s, nl->n);
        zbuf_add(out, eol, eol_n);
      }
      pos += ps.items[i].n_old;
    }
    /* Keep the file's missing final newline. */
    if (!final_nl && emitted && out->len >= eol_n) zbuf_setlen(out, out->len - eol_n);
  }
  zvec_free(&ps);
  zvec_free(&file);
  zbuf_release(&m.fa);
  zbuf_release(&m.fb);
  return rc;
}
