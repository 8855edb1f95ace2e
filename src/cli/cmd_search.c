/* cmd_search.c — `zero search <query> [--json] [--limit N]` (alias `zero
 * find`): ranked full-text search over every session's messages, tool calls
 * and tool outputs, through the SQLite FTS5 index (session/search.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/opts.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "session/search.h"
#include "session/store.h"

enum { S_HELP = 1, S_JSON, S_LIMIT };

static const zopt SEARCH_OPTS[] = {
    {S_JSON, "json", 0, ZOPT_FLAG, 0, NULL, "print a JSON array of results", "Flags"},
    {S_LIMIT, "limit", 0, ZOPT_VALUE, 0, "N", "at most N results (default 20)", NULL},
    {S_HELP, "help", 'h', ZOPT_FLAG, 0, NULL, "show this help", NULL},
};

const zopt_spec zcli_search_opts = {.command = "search", .opts = SEARCH_OPTS,
                                    .n_opts = ZARRAY_LEN(SEARCH_OPTS),
                                    .flags = ZOPTS_DASH_WORDS};

static void usage(FILE *out) {
  fputs("Usage: zero search <query…> [--json] [--limit N]\n"
        "       zero find <query…> [--json] [--limit N]\n"
        "\n"
        "Searches every saved session's messages, tool calls and tool outputs. All words\n"
        "must match; put the query in double quotes to find an exact phrase. Results are\n"
        "ranked best first, with the session, event, time and a snippet ([match]).\n"
        "A query matching more than 1,000 events ranks the 1,000 most recent of them.\n"
        "The index lives in $XDG_DATA_HOME/zero/index.sqlite (and index-1.sqlite) and\n"
        "is updated from the session logs before each search; deleting it loses nothing.\n"
        "\n",
        out);
  zopt_print_flags(out, &zcli_search_opts);
  fputs("\n"
        "Examples:\n"
        "  zero search flaky test\n"
        "  zero search '\"connection refused\"' --json\n",
        out);
}

int cmd_search(int argc, char **argv) {
  bool json = false;
  int limit = 20;
  zbuf q = ZBUF_INIT;
  zopt_parser op;
  zopt_hit hit;
  zerr perr = ZERR_INIT;
  zopt_init(&op, &zcli_search_opts, argc, argv);
  while (zopt_next(&op, &hit, &perr) > 0) {
    if (hit.id == S_HELP) {
      usage(stdout);
      zbuf_release(&q);
      return ZEXIT_SUCCESS;
    }
    if (hit.id == S_JSON) {
      json = true;
    } else if (hit.id == S_LIMIT) {
      char *end = NULL;
      long n = strtol(hit.value, &end, 10);
      if (*end || n < 1 || n > 10000) {
        zerr_set(&perr, ZE_USAGE, "--limit needs a number from 1 to 10000");
        break;
      }
      limit = (int)n;
    } else {
      if (q.len) zbuf_addch(&q, ' ');
      zbuf_addstr(&q, hit.value);
    }
  }
  if (perr.kind != ZE_OK) {
    zcli_usage_error("search", perr.msg);
    zbuf_release(&q);
    return ZEXIT_USAGE;
  }
  cleanup_free char *index = zsearch_index_path();
  cleanup_free char *root = zsession_root();
  zerr err = ZERR_INIT;
  json_t *res = zsearch_query(index, root, q.data, limit, &err);
  if (!res) {
    if (err.kind == ZE_USAGE) {
      zcli_usage_error("search", err.msg);
    } else {
      fprintf(stderr, "[zero] %s; delete %s to rebuild the index\n", err.msg, index);
    }
    zbuf_release(&q);
    return zexit_for_error(err.kind);
  }
  if (json) {
    if (zjson_print(stdout, res, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) puts("[]");
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
