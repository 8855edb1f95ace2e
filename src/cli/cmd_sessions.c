/* cmd_sessions.c — `zero sessions [list|show <id>] [--json]`.
 *
 * list: newest first (updatedAt desc, then id). Text lines are
 *   "  - <sessionId>[ [<sessionKind>]] <updatedAt>[ <title or first prompt>][ (model=…, cwd=…)]"
 * and --json prints the metadata objects as a pretty JSON array.
 * show: one session's metadata and how many events of each type it holds.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/json.h"
#include "base/path.h"
#include "cli/cli.h"
#include "session/store.h"

#define EXCERPT_MAX 60

static void usage(FILE *out) {
  fprintf(out,
          "Usage: zero sessions [list] [--json]\n"
          "       zero sessions show <session-id> [--json]\n"
          "\n"
          "Lists saved sessions, most recently updated first, or shows one session's\n"
          "metadata and a count of its events by type. Sessions are stored in\n"
          "$XDG_DATA_HOME/zero/sessions (default ~/.local/share/zero/sessions).\n"
          "\n"
          "Flags:\n"
          "  --json       print JSON (list: an array of metadata objects)\n"
          "  -h, --help   show this help\n"
          "\n"
          "Examples:\n"
          "  zero sessions\n"
          "  zero sessions list --json\n"
          "  zero sessions show zero_20260101120000_1767268800000000000_1\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "zero sessions: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n\n");
  va_end(ap);
  usage(stderr);
  return ZEXIT_USAGE;
}

static void print_json(const json_t *v) {
  char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
  if (s) printf("%s\n", s);
  free(s);
}

static void print_warnings(const json_t *warnings) {
  size_t i;
  json_t *w;
  json_array_foreach(warnings, i, w) fprintf(stderr, "[zero] warning: %s\n", json_string_value(w));
}

/* ---- list -------------------------------------------------------------- */

typedef struct first_prompt {
  char *text;
} first_prompt;

static int find_first_prompt(void *ud, const json_t *ev) {
  first_prompt *fp = ud;
  const char *type = zjson_str(ev, "type");
  const json_t *payload = json_object_get(ev, "payload");
  if (!type || strcmp(type, "message") != 0) return 0;
  const char *role = zjson_str(payload, "role");
  const char *content = zjson_str(payload, "content");
  if (!role || strcmp(role, "user") != 0 || !content) return 0;
  fp->text = xstrdup(content);
  return 1; /* stop: only the first one is wanted */
}

/* Whitespace collapsed to single spaces, cut at a character boundary. */
static void add_excerpt(zbuf *out, const char *text) {
  zbuf b = ZBUF_INIT;
  bool space = false;
  for (const char *p = text; *p; p++) {
    if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
      space = b.len > 0;
      continue;
    }
    if (space) zbuf_addch(&b, ' ');
    space = false;
    zbuf_addch(&b, *p);
  }
  if (b.len > EXCERPT_MAX) {
    zbuf_setlen(&b, zutf8_boundary(b.data, EXCERPT_MAX));
    zbuf_rtrim(&b);
    zbuf_addstr(&b, "…");
  }
  zbuf_add(out, b.data, b.len);
  zbuf_release(&b);
}

static void print_session_line(const char *root, const json_t *m) {
  const char *id = zjson_str_or(m, "sessionId", "?");
  zbuf line = ZBUF_INIT;
  zbuf_addf(&line, "  - %s", id);
  const char *kind = zjson_str(m, "sessionKind");
  if (kind && kind[0]) zbuf_addf(&line, " [%s]", kind);
  const char *updated = zjson_str(m, "updatedAt");
  if (updated) zbuf_addf(&line, " %s", updated);
  const char *title = zjson_str(m, "title");
  if (title && title[0]) {
    zbuf_addch(&line, ' ');
    add_excerpt(&line, title);
  } else {
    first_prompt fp = {NULL};
    zerr err = ZERR_INIT;
    /* Warnings about torn lines belong to `show`, not to a listing. */
    zsession_for_each_event(root, id, find_first_prompt, &fp, NULL, &err);
    if (fp.text && fp.text[0]) {
      zbuf_addch(&line, ' ');
      add_excerpt(&line, fp.text);
    }
    free(fp.text);
  }
  const char *keys[] = {"agentName", "taskId", "parentSessionId", "modelId", "cwd"};
  const char *labels[] = {"agent", "task", "parent", "model", "cwd"};
  bool any = false;
  for (size_t i = 0; i < ZARRAY_LEN(keys); i++) {
    const char *v = zjson_str(m, keys[i]);
    if (!v || !v[0]) continue;
    zbuf_addf(&line, "%s%s=%s", any ? ", " : " (", labels[i], v);
    any = true;
  }
  if (any) zbuf_addch(&line, ')');
  printf("%s\n", line.data);
  zbuf_release(&line);
}

static int run_list(bool json) {
  cleanup_free char *root = zsession_root();
  json_t *warnings = NULL;
  zerr err = ZERR_INIT;
  json_t *all = zsession_list(root, &warnings, &err);
  if (!all) {
    fprintf(stderr, "[zero] %s\n", err.msg);
    json_decref(warnings);
    return ZEXIT_INTERNAL;
  }
  print_warnings(warnings);
  json_decref(warnings);
  if (json) {
    print_json(all);
  } else if (json_array_size(all) == 0) {
    printf("No Zero sessions found.\n");
  } else {
    printf("Zero sessions (%zu):\n", json_array_size(all));
    size_t i;
    json_t *m;
    json_array_foreach(all, i, m) print_session_line(root, m);
  }
  json_decref(all);
  return ZEXIT_SUCCESS;
}

/* ---- show -------------------------------------------------------------- */

typedef struct type_counts {
  json_t *by_type;  /* type -> count */
  json_int_t total;
  json_t *warnings; /* skipped lines */
} type_counts;

static void count_warning(void *ud, const char *msg) {
  type_counts *tc = ud;
  json_array_append_new(tc->warnings, json_string(msg));
}

static int count_event(void *ud, const json_t *ev) {
  type_counts *tc = ud;
  const char *type = zjson_str_or(ev, "type", "(none)");
  json_int_t n = json_integer_value(json_object_get(tc->by_type, type));
  json_object_set_new(tc->by_type, type, json_integer(n + 1));
  tc->total++;
  return 0;
}

static int run_show(const char *id, bool json) {
  if (!zsession_id_valid(id)) {
    fprintf(stderr, "[zero] invalid session id \"%s\"; run `zero sessions list` to see saved "
            "sessions\n", id);
    return ZEXIT_USAGE;
  }
  cleanup_free char *root = zsession_root();
  cleanup_free char *dir = zpath_join(root, id);
  cleanup_free char *meta_path = zpath_join(dir, "metadata.json");
  type_counts tc = {json_object(), 0, json_array()};
  zerr err = ZERR_INIT;
  int code = ZEXIT_SUCCESS;
  json_t *meta = NULL;
  if (zsession_for_each_event(root, id, count_event, &tc, count_warning, &err) < 0) {
    fprintf(stderr, "[zero] %s\n", err.msg);
    code = err.kind == ZE_USAGE ? ZEXIT_USAGE : ZEXIT_INTERNAL;
    goto out;
  }
  meta = zjson_load_file(meta_path, &err);
  if (!meta || !json_is_object(meta)) {
    fprintf(stderr, "[zero] cannot read session %s metadata: %s\n", id,
            meta ? "not a JSON object" : err.msg);
    code = ZEXIT_INTERNAL;
    goto out;
  }
  if (json) {
    json_t *doc = json_object();
    json_object_set(doc, "metadata", meta);
    json_t *events = json_object();
    json_object_set_new(events, "count", json_integer(tc.total));
    json_object_set(events, "byType", tc.by_type);
    json_object_set_new(doc, "events", events);
    json_object_set(doc, "warnings", tc.warnings);
    print_json(doc);
    json_decref(doc);
  } else {
    print_warnings(tc.warnings);
    printf("Session %s\n", id);
    const char *key;
    json_t *v;
    json_object_foreach(meta, key, v) {
      if (!strcmp(key, "sessionId")) continue;
      if (json_is_string(v)) {
        printf("  %s: %s\n", key, json_string_value(v));
      } else {
        cleanup_free char *s = zjson_dumps(v);
        printf("  %s: %s\n", key, s);
      }
    }
    printf("Events (%lld):\n", (long long)tc.total);
    /* Sorted by type name so the summary reads the same every time. */
    ZVEC(const char *) types = ZVEC_INIT;
    json_object_foreach(tc.by_type, key, v) zvec_push(&types, key);
    for (size_t i = 1; i < types.len; i++)
      for (size_t j = i; j > 0 && strcmp(types.items[j - 1], types.items[j]) > 0; j--) {
        const char *t = types.items[j];
        types.items[j] = types.items[j - 1];
        types.items[j - 1] = t;
      }
    for (size_t i = 0; i < types.len; i++)
      printf("  %s: %lld\n", types.items[i],
             (long long)json_integer_value(json_object_get(tc.by_type, types.items[i])));
    zvec_free(&types);
  }
out:
  json_decref(meta);
  json_decref(tc.by_type);
  json_decref(tc.warnings);
  return code;
}

int cmd_sessions(int argc, char **argv) {
  bool json = false;
  const char *positional[3] = {NULL, NULL, NULL};
  int npos = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return ZEXIT_SUCCESS;
    }
    if (!strcmp(a, "--json")) {
      json = true;
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("unknown sessions flag \"%s\"", a);
    } else if (npos < 3) {
      positional[npos++] = a;
    } else {
      return usage_error("unexpected argument \"%s\"", a);
    }
  }
  const char *sub = npos ? positional[0] : "list";
  if (!strcmp(sub, "list")) {
    if (npos > 1) return usage_error("unexpected argument \"%s\"", positional[1]);
    return run_list(json);
  }
  if (!strcmp(sub, "show")) {
    if (npos < 2) return usage_error("show needs a session id");
    if (npos > 2) return usage_error("unexpected argument \"%s\"", positional[2]);
    return run_show(positional[1], json);
  }
  return usage_error("unknown sessions subcommand \"%s\"", sub);
}
