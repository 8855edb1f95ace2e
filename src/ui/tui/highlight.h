/* highlight.h — syntax highlighting of code lines for fenced code blocks.
 *
 * A small hand-written lexer per language family (keywords, strings,
 * comments, numbers, types by capitalisation): C/C++, Go, Rust, Java,
 * JavaScript/TypeScript, Python, Ruby, shell, JSON, YAML, SQL; and diff
 * (+/- lines). Unknown languages are shown plain. Block comments and
 * triple-quoted strings carry across lines through `state`.
 */
#ifndef ZERO_UI_TUI_HIGHLIGHT_H
#define ZERO_UI_TUI_HIGHLIGHT_H

#include <stddef.h>

#include "base/buf.h"
#include "ui/tui/theme.h"

typedef struct tui_hl {
  int lang;   /* internal id; 0 = plain */
  int state;  /* 0, or inside a block comment / long string */
} tui_hl;

void tui_hl_init(tui_hl *h, const char *lang, size_t lang_len);
/* Appends the styled form of one line (no '\n') to out. */
void tui_hl_line(tui_hl *h, const tui_theme *th, const char *s, size_t len, zbuf *out);

#endif
