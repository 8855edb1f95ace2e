/* markdown.h — markdown to styled terminal lines (md4c), streamed.
 *
 * md4c parses; this file turns its callbacks into wrapped, styled lines:
 * headings (marker kept, bold), emphasis, inline code, links (text, then the
 * URL when it differs), bullet / ordered / task lists, block quotes (│),
 * tables (box-drawn, columns shrunk to fit), thematic breaks, and fenced code
 * blocks highlighted by highlight.h.
 *
 * Streaming: the answer grows by deltas. Everything up to the last block
 * boundary (a blank line, a closing fence, or a heading line, outside any
 * fence) can no longer change, so it is rendered once and handed out as
 * final lines (they go to the scrollback); only the unfinished tail is
 * re-rendered on each frame. Cost per frame is proportional to the tail, and
 * what is final is never re-flowed.
 */
#ifndef ZERO_UI_TUI_MARKDOWN_H
#define ZERO_UI_TUI_MARKDOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "ui/tui/theme.h"
#include "ui/tui/width.h"

/* Renders a whole document into out (appending). */
void tui_md_render(const char *src, size_t len, int width, const tui_theme *th, tw_lines *out);

typedef struct tui_md_stream {
  zbuf src;          /* the tail not yet final */
  int width;
  const tui_theme *th;
  size_t blocks;     /* chunks already made final (for the blank line between them) */
} tui_md_stream;

void tui_md_stream_init(tui_md_stream *m, int width, const tui_theme *th);
void tui_md_stream_release(tui_md_stream *m);
/* Adds a delta; finished blocks are rendered and appended to final_out. */
void tui_md_stream_add(tui_md_stream *m, const char *s, size_t len, tw_lines *final_out);
/* Renders the unfinished tail (appending to out). */
void tui_md_stream_tail(tui_md_stream *m, tw_lines *out);
/* The message is complete: everything left becomes final. */
void tui_md_stream_finish(tui_md_stream *m, tw_lines *final_out);

/* Offset just past the last block boundary in s[0..len), 0 when none. */
size_t tui_md_boundary(const char *s, size_t len);

#endif
