/* fuzz_session_log.c — libFuzzer target for what reads a session back: the
 * events.jsonl replay (torn lines, malformed events, compaction payloads with
 * arbitrary "kept" messages), the torn-tail repair of open(), the search
 * query parser, and the search indexer's tree-less event scanner and snippet
 * maker (every line of the input).
 *
 * The input is written as a session's events.jsonl. Loading must never
 * crash, every tool call in the rebuilt conversation must have exactly one
 * result, the FTS5 expression built from the input (as a query) must be
 * a balanced sequence of quoted strings, and the scanner must never read
 * outside a line; text it finds in a line jansson accepts must be valid
 * UTF-8 whenever that line is (jansson checks it).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/path.h"
#include "session/search.h"
#include "session/store.h"

static char root[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!root[0]) {
    snprintf(root, sizeof root, "%s", "/tmp/zero-fuzz-session-XXXXXX");
    if (!mkdtemp(root)) __builtin_trap();
  }
  char *dir = zpath_join(root, "s1");
  char *events = zpath_join(dir, "events.jsonl");
  zsession_remove_dir(dir);
  mkdir(dir, 0700);
  if (zfs_write_atomic_ex(events, data, size, 0600, false, NULL) != 0) __builtin_trap();

  zconv conv = ZCONV_INIT;
  zerr err = ZERR_INIT;
  if (zsession_load_conv(root, "s1", &conv, NULL, NULL, &err) == 0) {
    /* Every call answered exactly once. */
    for (size_t i = 0; i < conv.len; i++)
      for (size_t k = 0; k < conv.items[i].ncalls; k++) {
        int answers = 0;
        for (size_t j = i + 1; j < conv.len; j++)
          if (conv.items[j].role == ZROLE_TOOL &&
              !strcmp(conv.items[j].tool_call_id, conv.items[i].calls[k].id))
            answers++;
        if (answers < 1) __builtin_trap();
      }
  }
  zconv_release(&conv);
  zsession *s = zsession_open(root, "s1", &err);
  if (s) zsession_close(s);

  /* The scanner over each line (not NUL-terminated: ASan sees overreads),
   * and a snippet of what it found for the line's first word. */
  zbuf text = ZBUF_INIT;
  size_t start = 0;
  while (start <= size) {
    const uint8_t *nl = memchr(data + start, '\n', size - start);
    size_t len = nl ? (size_t)(nl - data) - start : size - start;
    char *line = malloc(len ? len : 1);
    memcpy(line, data + start, len);
    /* The one-pass scanner and the two-pass form agree on every line. */
    bool found = zsearch_event_text(line, len, &text);
    zbuf two = ZBUF_INIT;
    if (found != zsearch_event_text_2pass(line, len, &two) ||
        (found && (two.len != text.len || memcmp(two.data, text.data, text.len))))
      __builtin_trap();
    zbuf_release(&two);
    if (found) {
      json_t *ev = json_loadb(line, len, 0, NULL);
      if (ev) {
        json_t *s2 = json_stringn(text.data, text.len);
        if (!s2) __builtin_trap(); /* invalid UTF-8 out of a valid line */
        json_decref(s2);
        json_decref(ev);
      }
      char *query = strndup(line, len); /* the query is a C string */
      char *snip = zsearch_snippet(text.data, text.len, query, 8);
      free(snip);
      free(query);
    }
    free(line);
    if (!nl) break;
    start += len + 1;
  }
  zbuf_release(&text);

  char *q = strndup((const char *)data, size);
  char *expr = zsearch_fts_expr(q);
  if (expr) {
    size_t quotes = 0;
    for (char *p = expr; *p; p++) quotes += *p == '"';
    if (quotes % 2) __builtin_trap();
  }
  free(expr);
  free(q);
  free(events);
  free(dir);
  return 0;
}
