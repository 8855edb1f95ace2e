/* grants.c — saved permission grants; see grants.h. */
#include "sandbox/grants.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "cli/cli.h"
#include "sandbox/policy.h"
#include "tools/tool.h"

#define GRANTS_VERSION 1

const char *zgrant_kind_name(zgrant_kind k) {
  return k == ZGRANT_TOOL ? "tool" : k == ZGRANT_PATH ? "path" : "prefix";
}
const char *zgrant_scope_name(zgrant_scope s) {
  return s == ZGRANT_ONCE ? "once" : s == ZGRANT_SESSION ? "session" : "always";
}

char *zgrants_default_path(void) {
  cleanup_free char *dir = zpath_config_dir();
  return zpath_join(dir, "sandbox-grants.json");
}

static void now_rfc3339(char out[32]) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void zgrants_add(zgrants *g, const char *tool, zgrant_kind kind, const char *value, bool allow,
                 zgrant_scope scope) {
  g->v = xrealloc(g->v, (g->n + 1) * sizeof *g->v);
  char ts[32];
  now_rfc3339(ts);
  g->v[g->n++] = (zgrant){xstrdup(tool), kind, value ? xstrdup(value) : NULL, allow, scope,
                          xstrdup(ts), false};
}

static void grant_free(zgrant *x) {
  free(x->tool);
  free(x->value);
  free(x->created_at);
}

void zgrants_remove(zgrants *g, size_t i) {
  if (i >= g->n) return;
  grant_free(&g->v[i]);
  memmove(&g->v[i], &g->v[i + 1], (g->n - i - 1) * sizeof *g->v);
  g->n--;
}

void zgrants_release(zgrants *g) {
  for (size_t i = 0; i < g->n; i++) grant_free(&g->v[i]);
  free(g->v);
  free(g->path);
  memset(g, 0, sizeof *g);
}

int zgrants_load(zgrants *g, const char *path, zerr *err) {
  memset(g, 0, sizeof *g);
  g->path = path ? xstrdup(path) : zgrants_default_path();
  if (!zfs_exists(g->path)) return 0;
  json_t *doc = zjson_load_file(g->path, err);
  if (!doc) {
    if (err) err->kind = ZE_CONFIG;
    return -1;
  }
  int rc = 0;
  json_t *grants = json_object_get(doc, "grants");
  if (json_integer_value(json_object_get(doc, "version")) != GRANTS_VERSION ||
      !json_is_array(grants)) {
    rc = zerr_set(err, ZE_CONFIG,
                  "%s: not a version %d grants file; fix or delete it (zero sandbox grants clear)",
                  g->path, GRANTS_VERSION);
  } else {
    size_t i;
    json_t *o;
    json_array_foreach(grants, i, o) {
      const char *tool = zjson_str(o, "tool"), *kind = zjson_str_or(o, "kind", "tool"),
                 *action = zjson_str(o, "action"), *value = zjson_str(o, "value");
      zgrant_kind k = !strcmp(kind, "path") ? ZGRANT_PATH
                      : !strcmp(kind, "prefix") ? ZGRANT_PREFIX
                                                : ZGRANT_TOOL;
      if (!tool || !action || (strcmp(action, "allow") && strcmp(action, "deny")) ||
          (k != ZGRANT_TOOL && !value) ||
          (strcmp(kind, "tool") && strcmp(kind, "path") && strcmp(kind, "prefix"))) {
        rc = zerr_set(err, ZE_CONFIG,
                      "%s: grant %zu needs tool, kind (tool|path|prefix), value and action "
                      "(allow|deny); fix or revoke it",
                      g->path, i + 1);
        break;
      }
      zgrants_add(g, tool, k, value, !strcmp(action, "allow"), ZGRANT_ALWAYS);
      const char *ts = zjson_str(o, "createdAt");
      if (ts) {
        free(g->v[g->n - 1].created_at);
        g->v[g->n - 1].created_at = xstrdup(ts);
      }
    }
  }
  json_decref(doc);
  return rc;
}

int zgrants_save(const zgrants *g, zerr *err) {
  json_t *arr = json_array();
  for (size_t i = 0; i < g->n; i++) {
    const zgrant *x = &g->v[i];
    if (x->scope != ZGRANT_ALWAYS) continue;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "tool", x->tool, "kind",
                          zgrant_kind_name(x->kind), "action", x->allow ? "allow" : "deny",
                          "createdAt", x->created_at ? x->created_at : "");
    if (x->value) json_object_set_new(o, "value", json_string(x->value));
    json_array_append_new(arr, o);
  }
  json_t *doc = json_pack("{s:i, s:o}", "version", GRANTS_VERSION, "grants", arr);
  char *text = json_dumps(doc, JSON_INDENT(2));
  json_decref(doc);
  cleanup_free char *dir = xstrdup(g->path);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) *slash = '\0';
  int rc = zfs_mkdir_p(dir, 0700, err);
  if (rc == 0) {
    size_t len = strlen(text);
    text = xrealloc(text, len + 2);
    text[len] = '\n';
    text[len + 1] = '\0';
    rc = zfs_write_atomic(g->path, text, len + 1, 0600, err);
  }
  free(text);
  return rc;
}

/* true when the words of cmd start with the words of prefix. */
static bool prefix_words(const char *prefix, const char *cmd) {
  size_t n = strlen(prefix);
  while (n && prefix[n - 1] == ' ') n--;
  if (n == 0 || strncmp(prefix, cmd, n)) return false;
  return cmd[n] == '\0' || cmd[n] == ' ';
}

static bool grant_covers(const zgrant *x, const char *path, const char *cmd) {
  switch (x->kind) {
    case ZGRANT_TOOL: return true;
    case ZGRANT_PATH: return path && zpath_is_within(x->value, path);
    case ZGRANT_PREFIX: return cmd && prefix_words(x->value, cmd);
  }
  return false;
}

zgrant *zgrants_match(zgrants *g, const char *tool, const char *path,
                      const char *const *commands, size_t ncommands, bool allow) {
  return zgrants_match_scoped(g, tool, path, commands, ncommands, allow, ZGRANT_ALWAYS);
}

zgrant *zgrants_match_scoped(zgrants *g, const char *tool, const char *path,
                             const char *const *commands, size_t ncommands, bool allow,
                             zgrant_scope widest) {
  if (!g) return NULL;
  for (size_t i = 0; i < g->n; i++) {
    zgrant *x = &g->v[i];
    if (x->allow != allow || x->used || x->scope > widest || strcmp(x->tool, tool)) continue;
    bool hit;
    if (x->kind == ZGRANT_PREFIX) {
      if (!commands || ncommands == 0) continue;
      hit = allow;
      for (size_t c = 0; c < ncommands; c++) {
        bool cov = grant_covers(x, path, commands[c]);
        if (allow && !cov) { hit = false; break; }
        if (!allow && cov) { hit = true; break; }
      }
    } else {
      hit = grant_covers(x, path, NULL);
    }
    if (hit) {
      if (x->scope == ZGRANT_ONCE) x->used = true;
      return x;
    }
  }
  return NULL;
}

/* ---- CLI ------------------------------------------------------------------- */

static const char GRANTS_USAGE[] =
    "Usage: zero sandbox grants list [--json]\n"
    "       zero sandbox grants allow|deny TOOL [--prefix \"git status\" | --path DIR]\n"
    "       zero sandbox grants revoke N      (N from list)\n"
    "       zero sandbox grants clear\n";

int zgrants_cli(int argc, char **argv) {
  if (argc < 1) {
    fputs(GRANTS_USAGE, stderr);
    return ZEXIT_USAGE;
  }
  zerr err = ZERR_INIT;
  zgrants g;
  const char *path = getenv("ZERO_GRANTS_FILE");
  if (zgrants_load(&g, path, &err) < 0 && strcmp(argv[0], "clear")) {
    fprintf(stderr, "zero sandbox grants: %s\n", err.msg);
    zgrants_release(&g);
    return ZEXIT_PROVIDER;
  }
  int rc = ZEXIT_SUCCESS;
  const char *sub = argv[0];
  if (!strcmp(sub, "list")) {
    bool json = argc > 1 && !strcmp(argv[1], "--json");
    if (json) {
      json_t *arr = json_array();
      for (size_t i = 0; i < g.n; i++)
        json_array_append_new(arr, json_pack("{s:i, s:s, s:s, s:s?, s:s}", "index", (int)i + 1,
                                             "tool", g.v[i].tool, "kind",
                                             zgrant_kind_name(g.v[i].kind), "value", g.v[i].value,
                                             "action", g.v[i].allow ? "allow" : "deny"));
      char *s = json_dumps(arr, JSON_INDENT(2));
      printf("%s\n", s);
      free(s);
      json_decref(arr);
    } else if (!g.n) {
      printf("No saved grants (%s).\n", g.path);
    } else {
      printf("Saved grants (%s):\n", g.path);
      for (size_t i = 0; i < g.n; i++)
        printf("  %zu. %s %s %s%s%s\n", i + 1, g.v[i].allow ? "allow" : "deny", g.v[i].tool,
               zgrant_kind_name(g.v[i].kind), g.v[i].value ? " " : "",
               g.v[i].value ? g.v[i].value : "");
    }
  } else if ((!strcmp(sub, "allow") || !strcmp(sub, "deny")) && argc >= 2) {
    zgrant_kind k = ZGRANT_TOOL;
    const char *value = NULL;
    cleanup_free char *resolved = NULL;
    if (argc >= 4 && !strcmp(argv[2], "--prefix")) {
      k = ZGRANT_PREFIX;
      value = argv[3];
    } else if (argc >= 4 && !strcmp(argv[2], "--path")) {
      k = ZGRANT_PATH;
      resolved = zsb_resolve_path(argv[3], NULL);
      value = resolved;
    } else if (argc != 2) {
      fputs(GRANTS_USAGE, stderr);
      zgrants_release(&g);
      return ZEXIT_USAGE;
    }
    zgrants_add(&g, argv[1], k, value, !strcmp(sub, "allow"), ZGRANT_ALWAYS);
    if (zgrants_save(&g, &err) < 0) {
      fprintf(stderr, "zero sandbox grants: %s\n", err.msg);
      rc = ZEXIT_INTERNAL;
    } else {
      printf("Saved: %s %s%s%s\n", sub, argv[1], value ? " " : "", value ? value : "");
      if (!ztool_find(argv[1]))
        fprintf(stderr, "note: %s is not a built-in tool; the grant applies only to an MCP "
                        "tool of exactly that name (zero tools list shows the names)\n",
                argv[1]);
    }
  } else if (!strcmp(sub, "revoke") && argc == 2) {
    char *end;
    long i = strtol(argv[1], &end, 10);
    if (*end || i < 1 || (size_t)i > g.n) {
      fprintf(stderr, "zero sandbox grants: no grant %s; see zero sandbox grants list\n", argv[1]);
      rc = ZEXIT_USAGE;
    } else {
      zgrants_remove(&g, (size_t)i - 1);
      if (zgrants_save(&g, &err) < 0) {
        fprintf(stderr, "zero sandbox grants: %s\n", err.msg);
        rc = ZEXIT_INTERNAL;
      } else {
        printf("Revoked grant %ld.\n", i);
      }
    }
  } else if (!strcmp(sub, "clear")) {
    for (size_t i = g.n; i > 0; i--) zgrants_remove(&g, i - 1);
    if (zgrants_save(&g, &err) < 0) {
      fprintf(stderr, "zero sandbox grants: %s\n", err.msg);
      rc = ZEXIT_INTERNAL;
    } else {
      printf("All grants cleared.\n");
    }
  } else {
    fputs(GRANTS_USAGE, stderr);
    rc = ZEXIT_USAGE;
  }
  zgrants_release(&g);
  return rc;
}
