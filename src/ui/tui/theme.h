/* theme.h — colors for the terminal UI.
 *
 * Depth: NO_COLOR (any value) → no colors (bold / dim / underline / reverse
 * stay, so structure is still visible); COLORTERM=truecolor|24bit →
 * truecolor; TERM containing "256color" → 256; otherwise the 16 ANSI colors.
 * Theme: dark (default) or light, from --theme, ZERO_THEME or /theme.
 * Meaning is never carried by color alone: every colored role also has a
 * glyph or a word next to it (✓ ✗ + - ⚠) — see the renderers.
 */
#ifndef ZERO_UI_TUI_THEME_H
#define ZERO_UI_TUI_THEME_H

#include <stdbool.h>

typedef enum tui_depth { TUI_DEPTH_NONE, TUI_DEPTH_16, TUI_DEPTH_256, TUI_DEPTH_TRUE } tui_depth;

/* SGR sequences for each role ("" when there is nothing to set). */
typedef struct tui_theme {
  const char *name;      /* "dark" | "light" */
  tui_depth depth;
  char reset[8];
  char bold[8], dim[8], italic[8], underline[8], reverse[8], strike[8];
  char accent[32];       /* prompt glyph, headings */
  char user[32];         /* the user's messages */
  char code[32];         /* inline code */
  char link[32];
  char quote[32];
  char ok[32], err[32], warn[32];
  char add[32], del[32], hunk[32];
  char kw[32], str[32], comment[32], num[32], type[32];
  char muted[32];        /* secondary text */
} tui_theme;

/* Fills t for theme name ("dark" / "light"; anything else: -1) and depth. */
int tui_theme_init(tui_theme *t, const char *name, tui_depth depth);
/* Depth from the environment (NO_COLOR, COLORTERM, TERM). */
tui_depth tui_depth_detect(void);

#endif
