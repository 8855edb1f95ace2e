/* width.c — see width.h. Written by hand on top of utf8proc: the library
 * knows code point widths and grapheme breaks; clusters, escapes and wrapping
 * are ours. */
#include "ui/tui/width.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/common.h"

/* Length of an SGR escape at s (ESC [ params m), else 0. */
static size_t sgr_len(const char *s, size_t len) {
  if (len < 3 || s[0] != '\x1b' || s[1] != '[') return 0;
  for (size_t i = 2; i < len; i++) {
    char c = s[i];
    if (c == 'm') return i + 1;
    if (!((c >= '0' && c <= '9') || c == ';' || c == ':')) return 0;
  }
  return 0;
}

static int cp_width(utf8proc_int32_t cp) {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 1; /* sanitized before display */
  int w = utf8proc_charwidth(cp);
  return w < 0 ? 0 : w > 2 ? 2 : w;
}

size_t tw_next(const char *s, size_t len, int *w) {
  size_t e = sgr_len(s, len);
  if (e) {
    *w = 0;
    return e;
  }
  utf8proc_int32_t cp, next;
  utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &cp);
  if (n <= 0) {
    *w = 1;
    return 1;
  }
  int width = cp_width(cp);
  size_t pos = (size_t)n;
  utf8proc_int32_t state = 0;
  utf8proc_int32_t prev = cp;
  while (pos < len) {
    if (sgr_len(s + pos, len - pos)) break;
    utf8proc_ssize_t m =
        utf8proc_iterate((const utf8proc_uint8_t *)s + pos, (utf8proc_ssize_t)(len - pos), &next);
    if (m <= 0) break;
    if (utf8proc_grapheme_break_stateful(prev, next, &state)) break;
    /* VS16 asks for emoji presentation: two columns. */
    if (next == 0xFE0F) width = 2;
    int nw = cp_width(next);
    if (nw > width) width = nw;
    prev = next;
    pos += (size_t)m;
  }
  *w = width;
  return pos;
}

size_t tw_width(const char *s, size_t len) {
  size_t cols = 0, i = 0;
  while (i < len) {
    int w;
    i += tw_next(s + i, len - i, &w);
    cols += (size_t)w;
  }
  return cols;
}

void tw_sanitize(zbuf *out, const char *s, size_t len) {
  size_t i = 0, col = 0;
  while (i < len) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\t') {
      do {
        zbuf_addch(out, ' ');
        col++;
      } while (col % 4);
      i++;
      continue;
    }
    if (c < 0x20 || c == 0x7f) {
      zbuf_addch(out, '^');
      zbuf_addch(out, c == 0x7f ? '?' : (char)(c + '@'));
      col += 2;
      i++;
      continue;
    }
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);
    if (n <= 0) {
      zbuf_addstr(out, "\xEF\xBF\xBD");
      col++;
      i++;
      continue;
    }
    if (cp >= 0x80 && cp < 0xa0) { /* C1 controls (e.g. CSI 0x9b) */
      zbuf_addstr(out, "\xEF\xBF\xBD");
      col++;
    } else {
      zbuf_add(out, s + i, (size_t)n);
      col += (size_t)cp_width(cp);
    }
    i += (size_t)n;
  }
}

size_t tw_prev(const char *s, size_t len, size_t pos) {
  size_t p = 0, last = 0;
  while (p < pos && p < len) {
    int w;
    last = p;
    p += tw_next(s + p, len - p, &w);
  }
  return last;
}

void tw_lines_push(tw_lines *l, char *line) {
  ZALLOC_GROW(l->items, l->len, l->cap, 16);
  l->items[l->len++] = line;
}

void tw_lines_pushf(tw_lines *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tw_lines_push(l, xstrvfmt(fmt, ap));
  va_end(ap);
}

void tw_lines_free(tw_lines *l) {
  for (size_t i = 0; i < l->len; i++) free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->len = l->cap = 0;
}

/* The SGR state as the escapes seen since the last reset. */
static void track_sgr(zbuf *state, const char *esc, size_t n) {
  if ((n == 3 && !memcmp(esc, "\x1b[m", 3)) || (n == 4 && !memcmp(esc, "\x1b[0m", 4)))
    zbuf_reset(state);
  else
    zbuf_add(state, esc, n);
}

void tw_wrap(tw_lines *out, const char *text, size_t len, int width, const char *first,
             const char *indent) {
  if (width < 4) width = 4;
  if (!first) first = "";
  if (!indent) indent = "";
  int first_w = (int)tw_strwidth(first), indent_w = (int)tw_strwidth(indent);
  if (indent_w > width / 2) indent = "", indent_w = 0;
  if (first_w > width / 2) first = "", first_w = 0;

  zbuf line = ZBUF_INIT, sgr = ZBUF_INIT;
  zbuf_addstr(&line, first);
  int col = first_w, avail = width;
  /* Break point: position in `line` after the last space, and the input
   * offset and SGR state there. */
  size_t brk_line = 0, brk_in = 0;
  zbuf brk_sgr = ZBUF_INIT;
  bool have_brk = false;
  size_t i = 0;
  size_t line_start_in = 0;
  while (i < len) {
    int w;
    size_t n = tw_next(text + i, len - i, &w);
    if (w == 0 && text[i] == '\x1b') {
      track_sgr(&sgr, text + i, n);
      zbuf_add(&line, text + i, n);
      i += n;
      continue;
    }
    if (col + w > avail && col > (out->len ? indent_w : first_w)) {
      size_t resume;
      if (have_brk && brk_in > line_start_in) {
        zbuf_setlen(&line, brk_line);
        resume = brk_in;
        zbuf_reset(&sgr);
        zbuf_add(&sgr, brk_sgr.data, brk_sgr.len);
      } else {
        resume = i;
      }
      /* Trailing spaces at a break are dropped. */
      while (line.len && line.data[line.len - 1] == ' ') line.len--;
      line.data[line.len] = 0;
      if (sgr.len) zbuf_addstr(&line, "\x1b[0m");
      tw_lines_push(out, zbuf_detach(&line, NULL));
      zbuf_addstr(&line, indent);
      zbuf_add(&line, sgr.data, sgr.len);
      col = indent_w;
      i = resume;
      while (i < len && text[i] == ' ') i++;
      line_start_in = i;
      have_brk = false;
      continue;
    }
    zbuf_add(&line, text + i, n);
    col += w;
    i += n;
    if (n == 1 && text[i - 1] == ' ') {
      brk_line = line.len;
      brk_in = i;
      zbuf_reset(&brk_sgr);
      zbuf_add(&brk_sgr, sgr.data, sgr.len);
      have_brk = true;
    }
  }
  if (sgr.len) zbuf_addstr(&line, "\x1b[0m");
  tw_lines_push(out, zbuf_detach(&line, NULL));
  zbuf_release(&sgr);
  zbuf_release(&brk_sgr);
}

void tw_addcol(zbuf *out, const char *s, int width) {
  zbuf clean = ZBUF_INIT;
  tw_sanitize(&clean, s, strlen(s));
  char *cut = tw_truncate(clean.data, width);
  zbuf_addstr(out, cut);
  for (int w = (int)tw_strwidth(cut); w < width; w++) zbuf_addch(out, ' ');
  free(cut);
  zbuf_release(&clean);
}

char *tw_truncate(const char *s, int width) {
  size_t len = strlen(s);
  if ((int)tw_width(s, len) <= width) return xstrdup(s);
  zbuf b = ZBUF_INIT;
  int col = 0;
  size_t i = 0;
  bool styled = false;
  while (i < len) {
    int w;
    size_t n = tw_next(s + i, len - i, &w);
    if (w == 0 && s[i] == '\x1b') {
      styled = true;
      zbuf_add(&b, s + i, n);
    } else {
      if (col + w > width - 1) break;
      zbuf_add(&b, s + i, n);
      col += w;
    }
    i += n;
  }
  zbuf_addstr(&b, "…");
  if (styled) zbuf_addstr(&b, "\x1b[0m");
  return zbuf_detach(&b, NULL);
}
