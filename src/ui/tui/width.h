/* width.h — display widths and word wrapping for the terminal renderer.
 *
 * Widths come from utf8proc (locale-independent): East Asian wide and emoji
 * are 2 columns, combining marks and other zero-width code points 0, and a
 * grapheme cluster (base + combining marks, ZWJ emoji sequences, flags) counts
 * as the width of its widest code point, capped at 2. Text may carry SGR
 * escapes (ESC [ … m), which take no columns; invalid UTF-8 bytes count as one
 * column each (they are shown as U+FFFD by tw_sanitize).
 */
#ifndef ZERO_UI_TUI_WIDTH_H
#define ZERO_UI_TUI_WIDTH_H

#include <stddef.h>

#include "base/buf.h"

/* Columns taken by s[0..len). */
size_t tw_width(const char *s, size_t len);
static inline size_t tw_strwidth(const char *s);
/* Length in bytes of the next grapheme cluster (or SGR escape, width 0) at s,
 * and its width in *w. len > 0. */
size_t tw_next(const char *s, size_t len, int *w);
/* Start of the grapheme cluster that ends at or spans byte pos of s[0..len)
 * (pos <= len): where a backspace at pos lands. 0 when pos is 0. */
size_t tw_prev(const char *s, size_t len, size_t pos);
/* Appends s to out made safe to print: tabs become spaces (to the next
 * multiple of 4 columns), C0 controls and DEL become caret forms ("^[" for
 * ESC), C1 controls and invalid UTF-8 become U+FFFD. Nothing that could move
 * the cursor or change terminal state survives. */
void tw_sanitize(zbuf *out, const char *s, size_t len);

/* Wraps styled text (one logical line, no '\n') to `width` columns, at word
 * boundaries where possible (a word longer than a line is cut at a grapheme
 * boundary). Each output line is one NUL-terminated string in *lines (a
 * malloc'd array the caller frees with tw_lines_free); the SGR state active at
 * a break is closed at the end of the line (ESC[0m) and reopened at the start
 * of the next. indent: a prefix (styled, ≤ width/2 columns) put before every
 * continuation line; first: the prefix before the first line. */
typedef struct tw_lines {
  char **items;
  size_t len, cap;
} tw_lines;
void tw_wrap(tw_lines *out, const char *text, size_t len, int width, const char *first,
             const char *indent);
void tw_lines_push(tw_lines *l, char *line); /* takes ownership */
void tw_lines_pushf(tw_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tw_lines_free(tw_lines *l);
/* Cuts styled text to at most `width` columns (adding "…" when cut). */
char *tw_truncate(const char *s, int width);
/* Appends s sanitized, cut (with "…") or padded with spaces to exactly
 * `width` columns: a column of a table, whatever the script (printf's %-40.40s
 * counts bytes, splits UTF-8 and misaligns wide characters). */
void tw_addcol(zbuf *out, const char *s, int width);

static inline size_t tw_strwidth(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return tw_width(s, n);
}

#endif
