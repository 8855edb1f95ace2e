/* glob.c — finds files by name pattern on the shared parallel walk
 * (.gitignore-aware, hidden files skipped), sorted by path. */
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cancel.h"
#include "base/common.h"
#include "base/json.h"
#include "base/strvec.h"
#include "tools/tools_internal.h"
#include "tools/walk.h"

#define GLOB_DEFAULT_LIMIT 100
#define GLOB_MAX_LIMIT 1000

static const char glob_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"pattern\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Glob such as "
    "\\\"**/*.c\\\", \\\"src/**/*.{ts,tsx}\\\" or \\\"Makefile\\\". A pattern without / matches "
    "file names at any depth; one with / matches paths relative to cwd.\"},"
    "\"cwd\":{\"type\":\"string\",\"description\":\"Directory to search from, relative to the "
    "workspace root. Default: the workspace root.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"description\":\"Most "
    "paths to return (default 100, max 1000).\"}"
    "},\"required\":[\"pattern\"],\"additionalProperties\":false}";

typedef struct glob_run {
  const char *pattern;
  bool has_slash;
  pthread_mutex_t mu;
  ZVEC(char *) hits;
} glob_run;

static int on_entry(void *ud, const zwalk_entry *e) {
  glob_run *g = ud;
  if (zcancel_requested()) return -1;
  if (!zglob_match(g->pattern, g->has_slash ? e->rel : e->name, false)) return 0;
  char *p = xstrdup(e->abs);
  pthread_mutex_lock(&g->mu);
  zvec_push(&g->hits, p);
  pthread_mutex_unlock(&g->mu);
  return 0;
}

static bool read_denied(void *ud, const char *abs) {
  const ztool_ctx *ctx = ud;
  return ctx->read_guard.denied(ctx->read_guard.ud, abs);
}

static int run_glob(const ztool_ctx *ctx, const json_t *args, ztool_result *res) {
  const char *pattern = zjson_str(args, "pattern");
  const char *cwd = zjson_str_or(args, "cwd", ".");
  size_t limit = (size_t)zjson_int_or(args, "limit", GLOB_DEFAULT_LIMIT);
  if (limit > GLOB_MAX_LIMIT) limit = GLOB_MAX_LIMIT;
  while (pattern[0] == '.' && pattern[1] == '/') pattern += 2;

  cleanup_free char *root = ztool_resolve_path(ctx, cwd);
  cleanup_free char *display = zt_display_path(ctx, root);
  struct stat st;
  if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
    return ztool_fail(res, "glob: %s is not a directory; give cwd relative to the workspace "
                           "root (default: the root itself).", display);
  if (ztool_read_denied(ctx, root))
    return ztool_fail(res, "glob: reading %s is denied by the sandbox policy.", display);

  glob_run g;
  memset(&g, 0, sizeof g);
  g.pattern = pattern;
  g.has_slash = strchr(pattern, '/') != NULL;
  pthread_mutex_init(&g.mu, NULL);
  zwalk_opts o = {0};
  if (zt_walk_guarded(ctx, root)) {
    o.denied = read_denied;
    o.denied_ud = (void *)ctx;
  }
  zerr err = ZERR_INIT;
  zwalk(root, &o, on_entry, &g, &err);
  pthread_mutex_destroy(&g.mu);
  if (g.hits.len) qsort(g.hits.items, g.hits.len, sizeof(char *), strvec_cmp);

  zbuf *out = &res->output;
  for (size_t i = 0; i < g.hits.len; i++) {
    if (i < limit) {
      char *d = zt_display_path(ctx, g.hits.items[i]);
      zbuf_addf(out, "%s\n", d);
      free(d);
    }
    free(g.hits.items[i]);
  }
  size_t total = g.hits.len;
  zvec_free(&g.hits);
  if (total == 0) {
    zbuf_addf(out, "No files match %s under %s.", pattern, display);
  } else if (total > limit) {
    zbuf_addf(out, "[showing %zu of %zu files; narrow the pattern or raise limit (max %d)]",
              limit, total, GLOB_MAX_LIMIT);
    res->truncated = true;
  } else {
    zbuf_setlen(out, out->len - 1);
  }
  res->meta = json_object();
  json_object_set_new(res->meta, "matches", json_integer((json_int_t)total));
  if (zcancel_requested()) return ztool_fail(res, "glob was cancelled.");
  return 0;
}

const ztool ztool_def_glob = {
    .name = "glob",
    .description =
        "Find files by glob pattern (\"**/*.c\", \"src/**/*.{ts,tsx}\", \"Makefile\"), "
        "respecting .gitignore/.ignore and skipping hidden files. Returns workspace-relative "
        "paths sorted by path, at most limit (default 100).",
    .parameters_json = glob_schema,
    .side_effect = ZSIDE_READ,
    .read_only = true,
    .run = run_glob,
};
