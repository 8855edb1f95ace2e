/* composer.h — the multi-line input box.
 *
 * Editing: characters by grapheme cluster, words (Alt+B/F, Ctrl+Left/Right),
 * Emacs keys (Ctrl+A/E line start/end, Ctrl+K/U kill to end/start of line,
 * Ctrl+W kill word back, Ctrl+Y yank), newline with Shift+Enter, Alt+Enter,
 * Ctrl+J or a trailing backslash before Enter. Up/Down move between lines,
 * and walk the history on the first/last line. Large pastes (more than
 * TUI_PASTE_LINES lines or TUI_PASTE_BYTES bytes) show as a placeholder
 * "[Pasted text #N, L lines]" and are expanded when the message is taken.
 * History is persisted per workspace (one JSON string a line).
 */
#ifndef ZERO_UI_TUI_COMPOSER_H
#define ZERO_UI_TUI_COMPOSER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "ui/tui/width.h"

#define TUI_PASTE_LINES 10
#define TUI_PASTE_BYTES 1000
#define TUI_HISTORY_MAX 500

typedef struct tui_composer {
  zbuf text;
  size_t cur;          /* byte offset of the cursor */
  zbuf kill;           /* the kill ring (one entry) */
  char **pastes;       /* collapsed pastes, by number - 1 */
  size_t npastes;
  char **hist;         /* oldest first */
  size_t nhist;
  size_t hist_pos;     /* == nhist when not browsing */
  char *draft;         /* the text before browsing started */
  char *hist_path;     /* file the history is saved to, or NULL */
} tui_composer;

void tui_composer_init(tui_composer *c);
void tui_composer_release(tui_composer *c);
void tui_composer_insert(tui_composer *c, const char *s, size_t n);
/* A paste: inserted as is when small, as a placeholder when large. */
void tui_composer_paste(tui_composer *c, const char *s, size_t n);
void tui_composer_newline(tui_composer *c);
void tui_composer_backspace(tui_composer *c);
void tui_composer_delete(tui_composer *c);
void tui_composer_left(tui_composer *c);
void tui_composer_right(tui_composer *c);
void tui_composer_word_left(tui_composer *c);
void tui_composer_word_right(tui_composer *c);
void tui_composer_home(tui_composer *c);   /* start of the line */
void tui_composer_end(tui_composer *c);    /* end of the line */
void tui_composer_kill_end(tui_composer *c);
void tui_composer_kill_start(tui_composer *c);
void tui_composer_kill_word(tui_composer *c);
void tui_composer_yank(tui_composer *c);
/* Up/Down: false when the cursor is already on the first/last line (the
 * caller then walks the history). */
bool tui_composer_up(tui_composer *c);
bool tui_composer_down(tui_composer *c);
void tui_composer_history_prev(tui_composer *c);
/* true while Up/Down walk the history (an entry is recalled) */
static inline bool tui_composer_browsing(const tui_composer *c) { return c->hist_pos < c->nhist; }
void tui_composer_history_next(tui_composer *c);
void tui_composer_set(tui_composer *c, const char *s);
void tui_composer_clear(tui_composer *c);
/* Takes the message (pastes expanded), adds it to the history (expanded too:
 * a recalled entry is the text that was sent) and clears. Caller frees. */
char *tui_composer_take(tui_composer *c);
/* History file: loads it (missing is fine) and appends to it from now on. */
void tui_composer_history_open(tui_composer *c, const char *path);

/* Layout: the composer as rows of at most `width` columns, the first row
 * starting with `prompt`, the others with spaces of the same width; the
 * cursor's row and column in *crow / *ccol. Long lines wrap at the column
 * (not at words), so the cursor maps exactly. */
void tui_composer_layout(const tui_composer *c, int width, const char *prompt, int prompt_w,
                         const char *style, const char *reset, tw_lines *rows, int *crow,
                         int *ccol);

#endif
