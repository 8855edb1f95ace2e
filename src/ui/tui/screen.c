/* screen.c — see screen.h. */
#include "ui/tui/screen.h"

#include <stdlib.h>
#include <string.h>

#include "base/common.h"
#include "ui/tui/width.h"

void tui_screen_init(tui_screen *s, int width, int height) {
  memset(s, 0, sizeof *s);
  zbuf_init(&s->out);
  s->width = width > 0 ? width : 80;
  s->height = height > 0 ? height : 24;
  s->sync = true;
}

static void free_prev(tui_screen *s) {
  for (size_t i = 0; i < s->nprev; i++) free(s->prev[i]);
  free(s->prev);
  s->prev = NULL;
  s->nprev = 0;
}

void tui_screen_release(tui_screen *s) {
  free_prev(s);
  zbuf_release(&s->out);
}

static void move_up(zbuf *o, int n) {
  if (n > 0) zbuf_addf(o, "\x1b[%dA", n);
}

void tui_screen_frame(tui_screen *s, char *const *commit, size_t ncommit, char *const *live,
                      size_t nlive, int cur_row, int cur_col) {
  static char *const empty_row[] = {""};
  if (nlive == 0) {
    live = empty_row;
    nlive = 1;
    cur_row = cur_row < 0 ? -1 : 0;
  }
  /* Cap the live region at height-1 rows: keep the bottom (composer). */
  size_t cap = s->height > 1 ? (size_t)(s->height - 1) : 1;
  if (nlive > cap) {
    size_t drop = nlive - cap;
    live += drop;
    nlive = cap;
    if (cur_row >= 0) cur_row = cur_row - (int)drop < 0 ? 0 : cur_row - (int)drop;
  }
  /* A row wider than the terminal would wrap onto a row the region does not
   * account for, and the next frame would leave it behind: cut it instead
   * (callers wrap what must be read whole; this is the safety net, e.g. for
   * rows laid out before a resize). */
  char **fit = NULL;
  for (size_t i = 0; i < nlive; i++) {
    if (tw_strwidth(live[i]) <= (size_t)s->width) continue;
    if (!fit) {
      fit = xcalloc(nlive, sizeof *fit);
      memcpy(fit, live, nlive * sizeof *fit);
    }
    fit[i] = tw_truncate(live[i], s->width);
  }
  char *const *orig = live;
  if (fit) live = fit;
  bool visible = cur_row >= 0;
  bool same = !ncommit && !s->invalid && !s->clear_below && nlive == s->nprev &&
              visible == s->cursor_visible && (!visible || (cur_row == s->cursor_row &&
                                                            cur_col == s->cursor_col));
  for (size_t i = 0; same && i < nlive; i++) same = !strcmp(live[i], s->prev[i]);
  if (same) goto done;

  zbuf *o = &s->out;
  if (s->sync) zbuf_addstr(o, "\x1b[?2026h");
  zbuf_addstr(o, "\x1b[?25l");
  move_up(o, s->cursor_row);
  zbuf_addch(o, '\r');
  if (s->clear_below) zbuf_addstr(o, "\x1b[J");
  bool redraw_all = s->invalid || s->clear_below || ncommit > 0;
  size_t old_rows = s->clear_below ? 0 : s->nprev;
  /* Committed lines overwrite the top of the old live region and scroll up
   * into the scrollback; erase-line first, so a full-width line's pending
   * wrap never swallows its last character. */
  for (size_t i = 0; i < ncommit; i++) {
    zbuf_addstr(o, "\x1b[K");
    zbuf_addstr(o, commit[i]);
    zbuf_addstr(o, "\r\n");
  }
  old_rows = old_rows > ncommit ? old_rows - ncommit : 0;
  for (size_t i = 0; i < nlive; i++) {
    if (i > 0) zbuf_addstr(o, "\r\n");
    bool changed = redraw_all || i >= s->nprev || strcmp(live[i], s->prev[i]);
    if (changed) {
      zbuf_addstr(o, "\x1b[K");
      zbuf_addstr(o, live[i]);
    }
  }
  /* Rows of the old region below the new one: step down onto the first (it
   * exists, so this never scrolls) and erase to the end of the screen. */
  if (nlive < old_rows) zbuf_addstr(o, "\r\n\x1b[J\x1b[A");
  int last = (int)nlive - 1;
  int row = visible ? cur_row : last;
  if (row > last) row = last;
  move_up(o, last - row);
  zbuf_addch(o, '\r');
  if (visible && cur_col > 0) zbuf_addf(o, "\x1b[%dC", cur_col);
  if (visible) zbuf_addstr(o, "\x1b[?25h");
  if (s->sync) zbuf_addstr(o, "\x1b[?2026l");

  free_prev(s);
  s->prev = xcalloc(nlive, sizeof *s->prev);
  for (size_t i = 0; i < nlive; i++) s->prev[i] = xstrdup(live[i]);
  s->nprev = nlive;
  s->cursor_row = row;
  s->cursor_col = visible ? cur_col : 0;
  s->cursor_visible = visible;
  s->invalid = false;
  s->clear_below = false;
done:
  if (fit) {
    for (size_t i = 0; i < nlive; i++)
      if (fit[i] != orig[i]) free(fit[i]);
    free(fit);
  }
}

void tui_screen_resize(tui_screen *s, int width, int height) {
  if (width <= 0 || height <= 0) return;
  if (s->reflow && width < s->width) {
    /* Rows above the cursor after the terminal rewrapped our rows. */
    int rows = 0;
    for (int i = 0; i < s->cursor_row && (size_t)i < s->nprev; i++) {
      int w = (int)tw_strwidth(s->prev[i]);
      rows += w > width ? (w + width - 1) / width : 1;
    }
    rows += s->cursor_col / width;
    s->cursor_row = rows;
  }
  if (s->cursor_row > height - 1) s->cursor_row = height - 1;
  s->width = width;
  s->height = height;
  s->clear_below = true;
}

void tui_screen_invalidate(tui_screen *s) { s->clear_below = true; }

void tui_screen_erase_live(tui_screen *s) {
  zbuf *o = &s->out;
  move_up(o, s->cursor_row);
  zbuf_addstr(o, "\r\x1b[J\x1b[?25h");
  free_prev(s);
  s->cursor_row = 0;
  s->cursor_col = 0;
  s->cursor_visible = true;
}
