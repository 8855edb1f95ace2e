/* cmd_search.c — `zero search <query> [--json] [--limit N]` (alias `zero
 * find`): ranked full-text search over every session's messages, tool calls
 * and tool outputs, through the SQLite FTS5 index (session/search.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "cli/cli.h"
#include "session/search.h"
#include "session/store.h"

static void usage(FILE *out) {
  fprintf(out,
          "Usage: zero search <query…> [--json] [--limit N]\n"
          "       zero find <query…> [--json] [--limit N]\n"
          "\n"
          "Searches every saved session's messages, tool calls and tool outputs. All words\n"
          "must match; put the query in double quotes to find an exact phrase. Results are\n"
          "ranked best first, with the session, event, time and a snippet ([match]).\n"
          "A query matching more than 1,000 events ranks the 1,000 most recent of them.\n"
          "The index lives in $XDG_DATA_HOME/zero/index.sqlite (and index-1.sqlite) and\n"
          "is updated from the session logs before each search; deleting it loses nothing.\n"
          "\n"
          "Flags:\n"
          "  --json       print a JSON array of results\n"
          "  --limit N    at most N results (default 20)\n"
          "  -h, --help   show this help\n"
          "\n"
          "Examples:\n"
          "  zero search flaky test\n"
          "  zero search '\"connection refused\"' --json\n");
}

int cmd_search(int argc, char **argv) {
  bool json = false;
  int limit = 20;
  zbuf q = ZBUF_INIT;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      zbuf_release(&q);
      return ZEXIT_SUCCESS;
    }
    if (!strcmp(a, "--json")) {
      json = true;
    } else if (!strcmp(a, "--limit") || !strncmp(a, "--limit=", 8)) {
      const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
      char *end = NULL;
      long n = v ? strtol(v, &end, 10) : 0;
      if (!v || *end || n < 1 || n > 10000) {
        fprintf(stderr, "zero search: --limit needs a number from 1 to 10000\n\n");
        usage(stderr);
        zbuf_release(&q);
        return ZEXIT_USAGE;
      }
      limit = (int)n;
    } else if (a[0] == '-' && a[1] == '-' && a[2] != '\0') {
      fprintf(stderr, "zero search: unknown flag \"%s\"\n\n", a);
      usage(stderr);
      zbuf_release(&q);
      return ZEXIT_USAGE;
    } else {
      if (q.len) zbuf_addch(&q, ' ');
      zbuf_addstr(&q, a);
    }
  }
  cleanup_free char *index = zsearch_index_path();
  cleanup_free char *root = zsession_root();
  zerr err = ZERR_INIT;
  json_t *res = zsearch_query(index, root, q.data, limit, &err);
  if (!res) {
    if (err.kind == ZE_USAGE) {
      fprintf(stderr, "zero search: %s\n\n", err.msg);
      usage(stderr);
    } else {
      fprintf(stderr, "[zero] %s; delete %s to rebuild the index\n", err.msg, index);
    }
    zbuf_release(&q);
    return err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_INTERNAL;
  }
  if (json) {
    char *s = json_dumps(res, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    printf("%s\n", s ? s : "[]");
    free(s);
  } else if (!json_array_size(res)) {
    printf("No matches for %s.\n", q.data);
  } else {
    size_t i;
    json_t *r;
    json_array_foreach(res, i, r) {
      printf("%s  %s  #%lld %s\n", zjson_str_or(r, "sessionId", ""),
             zjson_str_or(r, "createdAt", ""), (long long)zjson_int_or(r, "sequence", 0),
             zjson_str_or(r, "type", ""));
      /* One line: newlines in the snippet become spaces. */
      zbuf line = ZBUF_INIT;
      for (const char *p = zjson_str_or(r, "snippet", ""); *p; p++)
        zbuf_addch(&line, *p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p);
      printf("    %s\n", line.data);
      zbuf_release(&line);
    }
  }
  json_decref(res);
  zbuf_release(&q);
  return ZEXIT_SUCCESS;
}
