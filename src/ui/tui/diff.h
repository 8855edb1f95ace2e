/* diff.h — file edits as colored unified diffs with line numbers.
 *
 * A line diff (longest common subsequence; beyond 2000x2000 lines it falls
 * back to "all removed, all added") of old vs new text, shown as hunks with
 * three lines of context: "  12 - removed", "  12 + added", "  12   context";
 * a changed line shows its removal before its addition, and the part of
 * the pair that changed in reverse video (ui/tui/diff_words.h).
 * The -/+ glyph carries the meaning; color only repeats it.
 */
#ifndef ZERO_UI_TUI_DIFF_H
#define ZERO_UI_TUI_DIFF_H

#include <stddef.h>

#include "ui/tui/theme.h"
#include "ui/tui/width.h"

/* first_line: number of old's first line in the file (1-based). Appends rows
 * (each at most width columns) and returns them; *added / *removed count
 * the changed lines. max_rows caps the rows shown (a last row says how many
 * more), 0 = no cap. */
void tui_diff_render(const char *old_text, const char *new_text, long first_line, int width,
                     const tui_theme *th, size_t max_rows, tw_lines *out, size_t *added,
                     size_t *removed);
/* The same with the old and the new text numbered from their own first
 * lines (a hunk after others that changed the file's length). */
void tui_diff_render_at(const char *old_text, const char *new_text, long old_first, long new_first,
                        int width, const tui_theme *th, size_t max_rows, tw_lines *out,
                        size_t *added, size_t *removed);

#endif
