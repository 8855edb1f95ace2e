/* picker.h — a list to choose from under the composer (/resume, /model,
 * /provider, /rewind): type to filter (fuzzy), ↑/↓ to move, Enter to
 * choose, Esc to close. Choosing gives the line "<command> <value>" that the
 * controller runs like a typed slash command.
 */
#ifndef ZERO_UI_TUI_PICKER_H
#define ZERO_UI_TUI_PICKER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/common.h"
#include "ui/tui/keys.h"
#include "ui/tui/theme.h"
#include "ui/tui/width.h"

typedef struct tui_picker {
  bool active;
  char *cmd, *title;
  ZVEC(char *) labels;
  ZVEC(char *) values;
  zbuf filter;
  int sel;               /* index into the filtered rows */
} tui_picker;

void tui_picker_init(tui_picker *p);
void tui_picker_release(tui_picker *p);
/* Opens over labels / values (n of each, copied), replacing an open one. */
void tui_picker_open(tui_picker *p, const char *cmd, const char *title, const char *const *labels,
                     const char *const *values, size_t n);
void tui_picker_close(tui_picker *p);
/* One key while p is active. Returns true when a row was chosen: *text is
 * "<cmd> <value>" (caller frees) and p is closed. */
bool tui_picker_key(tui_picker *p, const tui_key *k, char **text);
/* Appends the picker's rows (a window that follows the selection). */
void tui_picker_lines(const tui_picker *p, const tui_theme *th, int width, tw_lines *out);
/* Fuzzy subsequence match score (higher is better), -1 when no match. */
int tui_fuzzy(const char *pattern, size_t plen, const char *text);

#endif
