/* diff_words.h — the changed part of a changed line, for the word-level
 * highlight of diffs (ui/tui/diff.h).
 *
 * A removed line and the added line that replaces it are cut into tokens
 * (a run of letters, digits, '_' and non-ASCII bytes; a run of spaces; any
 * other character alone) and compared token by token (longest common
 * subsequence). What is not common is the changed part; a space between two
 * changed tokens counts as changed so a phrase reads as one span. Lines that
 * share almost nothing get no word highlight (the whole line changed; the
 * line's own color says so), nor do lines of more than TUI_WORDS_MAX tokens
 * (the table is quadratic).
 */
#ifndef ZERO_UI_TUI_DIFF_WORDS_H
#define ZERO_UI_TUI_DIFF_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#define TUI_WORDS_MAX 256

/* Fills ma (na bytes) and mb (nb bytes) with 1 for each byte of a / b in the
 * changed part, 0 elsewhere; a span never splits a UTF-8 sequence. Returns
 * false (masks unspecified) when the pair gets no word highlight. */
bool tui_diff_words(const char *a, size_t na, const char *b, size_t nb, unsigned char *ma,
                    unsigned char *mb);

#endif
