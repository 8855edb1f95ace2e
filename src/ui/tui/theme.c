/* theme.c — see theme.h. */
#include "ui/tui/theme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tui_depth tui_depth_detect(void) {
  const char *nc = getenv("NO_COLOR");
  if (nc && *nc) return TUI_DEPTH_NONE;
  const char *ct = getenv("COLORTERM");
  if (ct && (!strcmp(ct, "truecolor") || !strcmp(ct, "24bit"))) return TUI_DEPTH_TRUE;
  const char *term = getenv("TERM");
  if (term && strstr(term, "256color")) return TUI_DEPTH_256;
  if (term && !strcmp(term, "dumb")) return TUI_DEPTH_NONE;
  return TUI_DEPTH_16;
}

/* One color given three ways: ANSI 16 index, xterm-256 index, RGB. */
typedef struct color3 {
  int c16, c256;
  unsigned rgb;
} color3;

static void set_fg(char *dst, size_t n, tui_depth d, color3 c) {
  switch (d) {
    case TUI_DEPTH_NONE: dst[0] = 0; break;
    case TUI_DEPTH_16:
      snprintf(dst, n, "\x1b[%dm", c.c16 < 8 ? 30 + c.c16 : 90 + c.c16 - 8);
      break;
    case TUI_DEPTH_256: snprintf(dst, n, "\x1b[38;5;%dm", c.c256); break;
    case TUI_DEPTH_TRUE:
      snprintf(dst, n, "\x1b[38;2;%u;%u;%um", (c.rgb >> 16) & 255, (c.rgb >> 8) & 255,
               c.rgb & 255);
      break;
  }
}

int tui_theme_init(tui_theme *t, const char *name, tui_depth depth) {
  bool light;
  if (!name || !strcmp(name, "dark")) light = false;
  else if (!strcmp(name, "light")) light = true;
  else return -1;
  memset(t, 0, sizeof *t);
  t->name = light ? "light" : "dark";
  t->depth = depth;
  snprintf(t->reset, sizeof t->reset, "%s", "\x1b[0m");
  snprintf(t->bold, sizeof t->bold, "%s", "\x1b[1m");
  snprintf(t->dim, sizeof t->dim, "%s", "\x1b[2m");
  snprintf(t->italic, sizeof t->italic, "%s", "\x1b[3m");
  snprintf(t->underline, sizeof t->underline, "%s", "\x1b[4m");
  snprintf(t->reverse, sizeof t->reverse, "%s", "\x1b[7m");
  snprintf(t->strike, sizeof t->strike, "%s", "\x1b[9m");
  /* dark palette / light palette */
  struct { char *dst; color3 dark, light; } roles[] = {
      {t->accent, {6, 44, 0x56b6c2}, {4, 25, 0x0b5cad}},
      {t->user, {12, 111, 0x82aaff}, {4, 26, 0x1f4fbf}},
      {t->code, {11, 180, 0xe5c07b}, {5, 133, 0x9a3d9a}},
      {t->link, {12, 75, 0x61afef}, {4, 27, 0x0550ae}},
      {t->quote, {8, 245, 0x8a8a8a}, {8, 242, 0x6a6a6a}},
      {t->ok, {10, 114, 0x98c379}, {2, 28, 0x1a7f37}},
      {t->err, {9, 204, 0xe06c75}, {1, 160, 0xcf222e}},
      {t->warn, {11, 214, 0xe5c07b}, {3, 130, 0x9a6700}},
      {t->add, {2, 114, 0x98c379}, {2, 28, 0x1a7f37}},
      {t->del, {1, 204, 0xe06c75}, {1, 160, 0xcf222e}},
      {t->hunk, {6, 73, 0x56b6c2}, {6, 30, 0x0a7c86}},
      {t->kw, {13, 176, 0xc678dd}, {5, 127, 0x8250df}},
      {t->str, {2, 114, 0x98c379}, {2, 28, 0x0a3069}},
      {t->comment, {8, 244, 0x7f848e}, {8, 244, 0x6e7781}},
      {t->num, {3, 173, 0xd19a66}, {3, 130, 0x953800}},
      {t->type, {14, 80, 0x56b6c2}, {6, 30, 0x0550ae}},
      {t->muted, {8, 245, 0x8a8a8a}, {8, 243, 0x6e7781}},
  };
  for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
    set_fg(roles[i].dst, 32, depth, light ? roles[i].light : roles[i].dark);
  return 0;
}
