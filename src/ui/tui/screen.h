/* screen.h — the inline renderer.
 *
 * Not full-screen: finished conversation items are written once into the
 * terminal's normal scrollback (the user scrolls, searches and copies them
 * with the terminal's own tools); below them a live region (streaming answer,
 * running tool cards, prompts, the composer, the status line) is redrawn in
 * place on every frame. Only rows that changed since the last frame are
 * rewritten, and a frame is wrapped in synchronized-output mode (DEC 2026:
 * terminals that support it show it atomically, others ignore it), so
 * nothing flickers.
 *
 * Lines given to a frame are already wrapped to the width (see width.h) and
 * may carry SGR escapes only. The live region is capped at height-1 rows
 * (its top rows are dropped), because rows scrolled off the screen can never
 * be reached again to be redrawn.
 *
 * Written by hand: no packaged library renders inline with scrollback.
 * The renderer only builds bytes in `out`; the caller writes them.
 */
#ifndef ZERO_UI_TUI_SCREEN_H
#define ZERO_UI_TUI_SCREEN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

typedef struct tui_screen {
  zbuf out;          /* bytes of the frames built so far; the caller drains it */
  int width, height;
  char **prev;       /* live rows as last drawn */
  size_t nprev;
  int cursor_row;    /* cursor row relative to the top of the live region */
  int cursor_col;
  bool cursor_visible;
  bool sync;         /* wrap frames in ESC[?2026h … ESC[?2026l */
  bool reflow;       /* the terminal rewraps lines on resize (tmux, VTE, kitty …) */
  bool invalid;      /* redraw every live row on the next frame */
  bool clear_below;  /* erase from the live region's top first (resize, Ctrl+L) */
} tui_screen;

void tui_screen_init(tui_screen *s, int width, int height);
void tui_screen_release(tui_screen *s);
/* One frame: commit[] go to the scrollback (above the live region), then the
 * live rows are drawn and the cursor put at (cur_row, cur_col) of the live
 * region (cur_row < 0: cursor hidden). Builds nothing when nothing changed. */
void tui_screen_frame(tui_screen *s, char *const *commit, size_t ncommit, char *const *live,
                      size_t nlive, int cur_row, int cur_col);
/* The terminal changed size: the next frame erases and redraws the live
 * region, accounting for rows the terminal rewrapped when it reflows. */
void tui_screen_resize(tui_screen *s, int width, int height);
/* Forces a full redraw of the live region (Ctrl+L). */
void tui_screen_invalidate(tui_screen *s);
/* Erases the live region and leaves the cursor at its top-left, so what
 * comes next (a shell prompt after exit, a suspended job) starts clean. */
void tui_screen_erase_live(tui_screen *s);

#endif
