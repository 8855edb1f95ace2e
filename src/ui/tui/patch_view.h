/* patch_view.h — an applied apply_patch as diffs, file by file, for its
 * tool card: a header per file ("M src/a.c  +2 -1"), then each hunk as a
 * diff (ui/tui/diff.h: removal before addition) numbered with the file's
 * real lines. The numbers come from the file as it is after the patch: each
 * hunk's new lines are looked for there, in order (a hunk matched loosely,
 * whose text differs from the file's, falls back to the patch's own line
 * hint or 1).
 */
#ifndef ZERO_UI_TUI_PATCH_VIEW_H
#define ZERO_UI_TUI_PATCH_VIEW_H

#include <jansson.h>
#include <stddef.h>

#include "ui/tui/theme.h"
#include "ui/tui/width.h"

/* patch: the call's input; files: the result's meta.files ([{op, path,
 * move_to?}], absolute paths, in the patch's order; may be NULL: numbers
 * from the hints). Appends at most max_rows rows (then a line says how many
 * more), each at most width columns. */
void tui_patch_view(const char *patch, const json_t *files, int width, const tui_theme *th,
                    size_t max_rows, tw_lines *out);

#endif
