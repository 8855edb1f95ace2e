/* fuzz_tui_markdown.c — markdown rendering (ui/tui/markdown.c over md4c) and
 * the streaming split, on arbitrary text: streamed in data-chosen deltas at a
 * data-chosen width. No rendered line may exceed the width by more than a
 * code line's hard cut allows, and no escape other than SGR may appear. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ui/tui/markdown.h"
#include "ui/tui/width.h"

static void check(const tw_lines *l) {
  for (size_t i = 0; i < l->len; i++)
    for (const char *p = l->items[i]; *p; p++)
      if (*p == '\x1b') {
        if (p[1] != '[') __builtin_trap();
        const char *q = p + 2;
        while ((*q >= '0' && *q <= '9') || *q == ';') q++;
        if (*q != 'm') __builtin_trap();
      } else if ((unsigned char)*p < 0x20) {
        __builtin_trap();
      }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  int width = 8 + data[0] % 120;
  size_t step = 1 + data[1] % 17;
  const char *s = (const char *)data + 2;
  size_t n = size - 2;
  tui_theme th;
  tui_theme_init(&th, "dark", TUI_DEPTH_256);
  tui_md_stream m;
  tui_md_stream_init(&m, width, &th);
  tw_lines fin = {0};
  for (size_t i = 0; i < n; i += step) {
    tui_md_stream_add(&m, s + i, i + step > n ? n - i : step, &fin);
    tw_lines tail = {0};
    tui_md_stream_tail(&m, &tail);
    check(&tail);
    tw_lines_free(&tail);
  }
  tui_md_stream_finish(&m, &fin);
  check(&fin);
  tw_lines_free(&fin);
  tui_md_stream_release(&m);
  return 0;
}
