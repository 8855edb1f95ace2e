/* registry.c — the tool table, argument checking and the helpers every tool
 * shares; see tool.h for the contract and tools_internal.h for the helpers.
 *
 * Arguments come from a model, so they are checked here against the tool's
 * own JSON Schema before the tool runs: a tool's run() may assume the types,
 * ranges, enums and required properties its schema states. Only the schema
 * keywords our tools use are understood (type, properties, required,
 * additionalProperties, items, enum, minimum, maximum, minLength).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"
#include "tools/tool.h"
#include "base/redact.h"
#include "tools/output.h"
#include "tools/tools_internal.h"
#include "tools/tracker.h"

/* Sorted by name (ztool_all promises it). */
static const ztool *const all_tools[] = {
    &ztool_def_apply_patch,
    &ztool_def_edit_file,      &ztool_def_exec_command, &ztool_def_glob,
    &ztool_def_grep,           &ztool_def_list_directory,
    &ztool_def_read_file,      &ztool_def_update_plan,  &ztool_def_view_image,
    &ztool_def_web_fetch,      &ztool_def_write_file,   &ztool_def_write_stdin,
};

const char *zside_effect_name(zside_effect s) {
  switch (s) {
  case ZSIDE_NONE: return "none";
  case ZSIDE_READ: return "read";
  case ZSIDE_WRITE: return "write";
  case ZSIDE_SHELL: return "shell";
  case ZSIDE_NETWORK: return "network";
  }
  return "unknown";
}

const ztool *const *ztool_all(size_t *count) {
  if (count) *count = ZARRAY_LEN(all_tools);
  return all_tools;
}

const ztool *ztool_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < ZARRAY_LEN(all_tools); i++)
    if (strcmp(all_tools[i]->name, name) == 0) return all_tools[i];
  return NULL;
}

/* A schema literal: the plain fast path, jansson for anything else. */
static json_t *parse_schema(const ztool *t) {
  return zjson_parse_line(t->parameters_json, strlen(t->parameters_json));
}

json_t *ztool_schemas(bool (*filter)(const ztool *t, void *ud), void *ud) {
  json_t *arr = json_array();
  for (size_t i = 0; i < ZARRAY_LEN(all_tools); i++) {
    const ztool *t = all_tools[i];
    if (filter && !filter(t, ud)) continue;
    json_t *params = parse_schema(t);
    if (!params) continue; /* a bug in a schema literal; the unit tests catch it */
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(t->name));
    json_object_set_new(o, "description", json_string(t->description));
    json_object_set_new(o, "parameters", params);
    json_array_append_new(arr, o);
  }
  return arr;
}

void ztool_result_release(ztool_result *r) {
  if (!r) return;
  zbuf_release(&r->output);
  json_decref(r->meta);
  r->meta = NULL;
  r->is_error = false;
  r->truncated = false;
}

int ztool_fail(ztool_result *r, const char *fmt, ...) {
  r->is_error = true;
  zbuf_reset(&r->output);
  va_list ap;
  va_start(ap, fmt);
  zbuf_vaddf(&r->output, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- shared helpers (tools_internal.h) ---------------------------------- */

size_t zt_output_cap(const ztool_ctx *ctx) {
  return ctx && ctx->output_cap ? ctx->output_cap : ZTOOL_OUTPUT_CAP;
}

size_t zt_utf8_append(zbuf *out, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t replaced = 0, i = 0, run = 0;
  zbuf_grow(out, n);
  while (i < n) {
    size_t k = p[i] < 0x80 ? 1 : zutf8_seq_len(p + i, n - i);
    if (k) {
      i += k;
      continue;
    }
    zbuf_add(out, s + run, i - run);
    zbuf_addstr(out, "\xEF\xBF\xBD");
    replaced++;
    i++;
    run = i;
  }
  zbuf_add(out, s + run, n - run);
  return replaced;
}

char *zt_display_path(const ztool_ctx *ctx, const char *abs_path) {
  if (!ctx->workspace) return xstrdup(abs_path);
  return zpath_relative(ctx->workspace, abs_path);
}

size_t zt_count_lines(const char *s, size_t n) {
  size_t lines = 0;
  const char *p = s, *end = s + n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) break;
    lines++;
    p = nl + 1;
  }
  if (n > 0 && s[n - 1] != '\n') lines++;
  return lines;
}

char *zt_resolve_existing(const char *abs_path) {
  cleanup_free char *prefix = xstrdup(abs_path);
  size_t len = strlen(prefix);
  struct stat st;
  /* Walk up until a prefix exists (as anything, a symlink included). */
  while (len > 1 && lstat(prefix, &st) < 0) {
    char *slash = strrchr(prefix, '/');
    if (!slash) return NULL;
    len = slash == prefix ? 1 : (size_t)(slash - prefix);
    prefix[len] = '\0';
  }
  /* realpath fails on a dangling symlink or a loop: refuse, never guess. */
  cleanup_free char *real = realpath(prefix, NULL);
  if (!real) return NULL;
  const char *rest = abs_path + strlen(prefix);
  while (*rest == '/') rest++;
  if (!*rest) return steal_pointer(&real);
  return zpath_join(real, rest);
}

static char *workspace_abs(const ztool_ctx *ctx) {
  if (ctx->workspace && ctx->workspace[0]) return zpath_absolute(ctx->workspace, NULL);
  return zpath_absolute(".", NULL);
}

char *ztool_resolve_path(const ztool_ctx *ctx, const char *path) {
  cleanup_free char *ws = workspace_abs(ctx);
  if (!path || !path[0]) return steal_pointer(&ws);
  /* Models often write "~/x"; a shell would expand it, so do the same. */
  if (path[0] == '~' && (path[1] == '\0' || path[1] == '/')) {
    cleanup_free char *joined = zpath_join(zpath_home(), path[1] ? path + 2 : ".");
    return zpath_absolute(joined, NULL);
  }
  return zpath_absolute(path, ws);
}

static bool within_root(const char *root, const char *resolved) {
  if (!root || !root[0]) return false;
  cleanup_free char *real = realpath(root, NULL);
  if (!real) real = zpath_absolute(root, NULL);
  return zpath_is_within(real, resolved);
}

bool ztool_path_writable(const ztool_ctx *ctx, const char *abs_path) {
  if (!abs_path || abs_path[0] != '/') return false;
  cleanup_free char *norm = zpath_absolute(abs_path, NULL);
  cleanup_free char *resolved = zt_resolve_existing(norm);
  if (!resolved) return false;
  cleanup_free char *ws = workspace_abs(ctx);
  if (within_root(ws, resolved)) return true;
  for (size_t i = 0; ctx->add_dirs && i < ctx->n_add_dirs; i++)
    if (within_root(ctx->add_dirs[i], resolved)) return true;
  return false;
}

bool ztool_read_denied(const ztool_ctx *ctx, const char *abs) {
  if (!ctx->read_guard.denied || !abs) return false;
  if (ctx->read_guard.denied(ctx->read_guard.ud, abs)) return true;
  cleanup_free char *real = realpath(abs, NULL);
  return real && strcmp(real, abs) != 0 && ctx->read_guard.denied(ctx->read_guard.ud, real);
}

bool zt_walk_guarded(const ztool_ctx *ctx, const char *root) {
  const ztool_read_guard *g = &ctx->read_guard;
  if (!g->denied) return false;
  if (!g->denied_below || g->denied_below(g->ud, root)) return true;
  cleanup_free char *real = realpath(root, NULL);
  return real && strcmp(real, root) != 0 && g->denied_below(g->ud, real);
}

char *zt_writable_target(const ztool_ctx *ctx, const char *tool, const char *path,
                         char **display_out, ztool_result *res) {
  cleanup_free char *abs = ztool_resolve_path(ctx, path);
  cleanup_free char *display = zt_display_path(ctx, abs);
  cleanup_free char *target = zt_resolve_existing(abs);
  if (!target) {
    ztool_fail(res,
               "%s: cannot write %s: part of the path is a dangling symlink or cannot be "
               "resolved. Choose a different path inside the workspace.",
               tool, display);
    return NULL;
  }
  if (!ztool_path_writable(ctx, abs)) {
    cleanup_free char *ws = workspace_abs(ctx);
    if (strcmp(target, abs) != 0)
      ztool_fail(res,
                 "%s: refusing to write %s: it resolves through a symlink to %s, which is "
                 "outside the workspace (%s)%s. Write to a path inside the workspace.",
                 tool, display, target, ws,
                 ctx->n_add_dirs ? " and the extra writable directories" : "");
    else
      ztool_fail(res,
                 "%s: refusing to write %s: it is outside the workspace (%s)%s. %s may only "
                 "write inside %s; choose a path there.",
                 tool, display, ws,
                 ctx->n_add_dirs ? " and the extra writable directories" : "", tool,
                 ctx->n_add_dirs ? "them" : "it");
    return NULL;
  }
  *display_out = steal_pointer(&display);
  return steal_pointer(&target);
}

int zt_before_write(const ztool_ctx *ctx, const char *tool, const char *abs_path,
                    ztool_result *res) {
  if (!ctx->write_hook.before_write) return 0;
  char *msg = NULL;
  int rc = ctx->write_hook.before_write(ctx->write_hook.ud, tool, abs_path, &msg);
  if (rc == 0) {
    free(msg);
    return 0;
  }
  cleanup_free char *display = zt_display_path(ctx, abs_path);
  ztool_fail(res, "%s: the change to %s was refused: %s", tool, display,
             msg && msg[0] ? msg : "the before-write hook declined it");
  free(msg);
  return -1;
}

void zt_meta_seen(const ztool_ctx *ctx, ztool_result *res, const char *abs,
                  const struct stat *st) {
  struct stat now;
  if (!ctx->files || !abs) return;
  if (!st) {
    if (stat(abs, &now) < 0) return;
    st = &now;
  }
  if (!res->meta) res->meta = json_object();
  json_t *arr = json_object_get(res->meta, "seen");
  if (!json_is_array(arr)) {
    arr = json_array();
    json_object_set_new(res->meta, "seen", arr);
  }
  json_array_append_new(arr, ztool_files_stamp(abs, st));
}

/* ---- argument checking --------------------------------------------------- */

static const char *json_type_name(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "object";
  case JSON_ARRAY: return "array";
  case JSON_STRING: return "string";
  case JSON_INTEGER: return "integer";
  case JSON_REAL: return "number";
  case JSON_TRUE:
  case JSON_FALSE: return "boolean";
  case JSON_NULL: return "null";
  }
  return "value";
}

static bool type_matches(const char *want, const json_t *v) {
  if (!want) return true;
  if (strcmp(want, "object") == 0) return json_is_object(v);
  if (strcmp(want, "array") == 0) return json_is_array(v);
  if (strcmp(want, "string") == 0) return json_is_string(v);
  if (strcmp(want, "integer") == 0) return json_is_integer(v);
  if (strcmp(want, "number") == 0) return json_is_number(v);
  if (strcmp(want, "boolean") == 0) return json_is_boolean(v);
  return true;
}

/* A model that sends 10.0 or "10" for an integer, or "true" for a boolean,
 * meant the obvious thing; returns the corrected value (new reference) or
 * NULL when v cannot be read as `want`. */
static json_t *coerce(const char *want, const json_t *v) {
  if (!want) return NULL;
  if (strcmp(want, "integer") == 0) {
    if (json_is_real(v)) {
      double d = json_real_value(v);
      if (isfinite(d) && d == floor(d) && fabs(d) < 9.0e15) return json_integer((json_int_t)d);
    } else if (json_is_string(v)) {
      const char *s = json_string_value(v);
      char *end = NULL;
      errno = 0;
      long long n = strtoll(s, &end, 10);
      if (end != s && *end == '\0' && errno == 0 && !isspace((unsigned char)s[0]))
        return json_integer(n);
    }
  } else if (strcmp(want, "boolean") == 0 && json_is_string(v)) {
    const char *s = json_string_value(v);
    if (strcmp(s, "true") == 0) return json_true();
    if (strcmp(s, "false") == 0) return json_false();
  }
  return NULL;
}

static void list_allowed(const json_t *props, zbuf *out) {
  const char *k;
  json_t *ignored;
  bool first = true;
  json_object_foreach((json_t *)props, k, ignored) {
    zbuf_addf(out, "%s%s", first ? "" : ", ", k);
    first = false;
  }
  if (first) zbuf_addstr(out, "(none)");
}

static int check_value(const json_t *schema, json_t *v, const char *where, zbuf *err);

/* Checks the members of object `obj` against an object schema. Properties
 * that are null and not required count as absent (and are removed). */
static int check_object(const json_t *schema, json_t *obj, const char *where, zbuf *err) {
  const json_t *props = json_object_get(schema, "properties");
  const json_t *required = json_object_get(schema, "required");
  const json_t *addl = json_object_get(schema, "additionalProperties");
  bool closed = json_is_false(addl);

  const char *key;
  json_t *val;
  json_object_foreach(obj, key, val) {
    if (closed && !json_object_get(props, key)) {
      zbuf_addf(err, "unknown property \"%s%s%s\"; allowed properties: ", where,
                where[0] ? "." : "", key);
      list_allowed(props, err);
      return -1;
    }
  }

  size_t i;
  json_t *req;
  json_array_foreach(required, i, req) {
    const char *name = json_string_value(req);
    if (!name) continue;
    json_t *have = json_object_get(obj, name);
    if (!have || json_is_null(have)) {
      zbuf_addf(err, "missing required property \"%s%s%s\"", where, where[0] ? "." : "",
                name);
      return -1;
    }
  }

  json_t *sub;
  void *tmp;
  json_object_foreach_safe((json_t *)props, tmp, key, sub) {
    json_t *have = json_object_get(obj, key);
    if (!have) continue;
    if (json_is_null(have)) {
      json_object_del(obj, key);
      continue;
    }
    const char *want = json_string_value(json_object_get(sub, "type"));
    if (!type_matches(want, have)) {
      json_t *fixed = coerce(want, have);
      if (fixed) {
        json_object_set_new(obj, key, fixed);
        have = fixed;
      }
    }
    cleanup_free char *child = NULL;
    zbuf name = ZBUF_INIT;
    zbuf_addf(&name, "%s%s%s", where, where[0] ? "." : "", key);
    child = zbuf_detach(&name, NULL);
    if (check_value(sub, have, child, err) < 0) return -1;
  }
  return 0;
}

static int check_value(const json_t *schema, json_t *v, const char *where, zbuf *err) {
  const char *want = json_string_value(json_object_get(schema, "type"));
  if (!type_matches(want, v)) {
    zbuf_addf(err, "property \"%s\" must be %s %s, got %s", where,
              want[0] == 'a' || want[0] == 'i' || want[0] == 'o' ? "an" : "a", want,
              json_type_name(v));
    return -1;
  }
  const json_t *en = json_object_get(schema, "enum");
  if (json_is_array(en)) {
    size_t i;
    json_t *opt;
    bool ok = false;
    json_array_foreach(en, i, opt) {
      if (json_equal(opt, v)) ok = true;
    }
    if (!ok) {
      zbuf_addf(err, "property \"%s\" must be one of ", where);
      json_array_foreach(en, i, opt) {
        if (i) zbuf_addstr(err, ", ");
        zjson_dump_to(opt, err);
      }
      zbuf_addstr(err, "; got ");
      zjson_dump_to(v, err);
      return -1;
    }
  }
  if (json_is_integer(v)) {
    json_int_t n = json_integer_value(v);
    const json_t *mn = json_object_get(schema, "minimum");
    const json_t *mx = json_object_get(schema, "maximum");
    if (json_is_integer(mn) && n < json_integer_value(mn)) {
      zbuf_addf(err, "property \"%s\" must be at least %lld, got %lld", where,
                (long long)json_integer_value(mn), (long long)n);
      return -1;
    }
    if (json_is_integer(mx) && n > json_integer_value(mx)) {
      zbuf_addf(err, "property \"%s\" must be at most %lld, got %lld", where,
                (long long)json_integer_value(mx), (long long)n);
      return -1;
    }
  }
  if (json_is_string(v)) {
    const json_t *ml = json_object_get(schema, "minLength");
    if (json_is_integer(ml) && json_string_length(v) < (size_t)json_integer_value(ml)) {
      zbuf_addf(err, "property \"%s\" must not be empty", where);
      return -1;
    }
  }
  if (json_is_object(v) && json_object_get(schema, "properties"))
    return check_object(schema, v, where, err);
  if (json_is_array(v)) {
    const json_t *items = json_object_get(schema, "items");
    if (!json_is_object(items)) return 0;
    const char *item_type = json_string_value(json_object_get(items, "type"));
    for (size_t i = 0; i < json_array_size(v); i++) {
      json_t *item = json_array_get(v, i);
      if (!type_matches(item_type, item)) {
        json_t *fixed = coerce(item_type, item);
        if (fixed) {
          json_array_set_new(v, i, fixed);
          item = fixed;
        }
      }
      zbuf name = ZBUF_INIT;
      zbuf_addf(&name, "%s[%zu]", where, i);
      int rc = check_value(items, item, name.data, err);
      zbuf_release(&name);
      if (rc < 0) return -1;
    }
  }
  return 0;
}

/* ---- argument aliases ---------------------------------------------------- */

/* The names models reach for instead of the schema's (they were trained on
 * other agents' tools); Go zero accepts the same ones. First alias wins. */
typedef struct {
  const char *tool;
  const char *name;
  const char *aliases[6];
} arg_alias;

static const arg_alias arg_aliases[] = {
    {"read_file", "path", {"file_path", "file", "filepath", "filename"}},
    {"read_file", "offset", {"start_line"}},
    {"read_file", "limit", {"max_lines"}},
    {"write_file", "path", {"file_path", "file", "filepath", "filename"}},
    {"write_file", "content", {"contents", "text", "body", "data", "file_content"}},
    {"edit_file", "path", {"file_path", "file", "filepath", "filename"}},
    {"edit_file", "old_string", {"old_str", "old", "search", "find"}},
    {"edit_file", "new_string", {"new_str", "new", "replace", "replacement"}},
    {"view_image", "path", {"file_path", "file", "filepath", "filename"}},
    {"list_directory", "path", {"directory", "dir"}},
    {"glob", "pattern", {"glob", "match", "query", "expression"}},
    {"glob", "cwd", {"path", "dir", "directory"}},
    {"grep", "pattern", {"query", "regex", "search", "expression"}},
    {"grep", "path", {"dir", "directory"}},
    {"grep", "case_insensitive", {"-i"}},
    {"grep", "context", {"-C"}},
    {"grep", "before_context", {"-B"}},
    {"grep", "after_context", {"-A"}},
    {"apply_patch", "input", {"patch", "diff"}},
    {"exec_command", "cmd", {"command", "script", "shell"}},
    {"exec_command", "workdir", {"cwd", "dir", "directory"}},
};

static bool arg_missing(const json_t *v) {
  return !v || json_is_null(v) || (json_is_string(v) && json_string_length(v) == 0);
}

void ztool_normalize_args(const ztool *t, json_t *args) {
  if (!t || !json_is_object(args)) return;
  for (size_t i = 0; i < ZARRAY_LEN(arg_aliases); i++) {
    const arg_alias *a = &arg_aliases[i];
    if (strcmp(a->tool, t->name) != 0 || !arg_missing(json_object_get(args, a->name))) continue;
    json_t *chosen = NULL;
    for (size_t k = 0; k < ZARRAY_LEN(a->aliases) && a->aliases[k]; k++) {
      json_t *v = json_object_get(args, a->aliases[k]);
      if (!v || arg_missing(v)) continue;
      chosen = json_incref(v);
      break;
    }
    if (!chosen) {
      /* Only empty or null aliases: drop them, the name's default applies. */
      for (size_t k = 0; k < ZARRAY_LEN(a->aliases) && a->aliases[k]; k++)
        if (json_object_get(args, a->aliases[k]) && arg_missing(json_object_get(args, a->aliases[k])))
          json_object_del(args, a->aliases[k]);
      continue;
    }
    /* Aliases saying the same thing twice are one argument. */
    for (size_t k = 0; k < ZARRAY_LEN(a->aliases) && a->aliases[k]; k++) {
      json_t *v = json_object_get(args, a->aliases[k]);
      if (v && (json_equal(v, chosen) || arg_missing(v))) json_object_del(args, a->aliases[k]);
    }
    json_object_set_new(args, a->name, chosen);
  }
  /* read_file's end_line (inclusive) is a limit counted from the offset. */
  json_t *end = json_object_get(args, "end_line");
  if (!strcmp(t->name, "read_file") && end && !json_object_get(args, "limit")) {
    json_t *fixed = json_is_integer(end) ? NULL : coerce("integer", end);
    json_int_t last = json_integer_value(fixed ? fixed : end);
    json_decref(fixed);
    json_int_t first = 1;
    json_t *off = json_object_get(args, "offset");
    json_t *off_fixed = off && !json_is_integer(off) ? coerce("integer", off) : NULL;
    if (off_fixed) first = json_integer_value(off_fixed);
    else if (json_is_integer(off)) first = json_integer_value(off);
    json_decref(off_fixed);
    if ((fixed || json_is_integer(end)) && last >= first && first >= 1) {
      json_object_set_new(args, "limit", json_integer(last - first + 1));
      json_object_del(args, "end_line");
    }
  }
}

json_t *ztool_load_args(const char *name, const char *arguments) {
  json_t *args = arguments ? json_loads(arguments, 0, NULL) : NULL;
  if (!json_is_object(args)) {
    json_decref(args);
    return NULL;
  }
  ztool_normalize_args(ztool_find(name), args);
  return args;
}

/* ---- invoke -------------------------------------------------------------- */

static bool blank(const char *s) {
  for (; *s; s++)
    if (!isspace((unsigned char)*s)) return false;
  return true;
}

static void list_tool_names(zbuf *out) {
  for (size_t i = 0; i < ZARRAY_LEN(all_tools); i++)
    zbuf_addf(out, "%s%s", i ? ", " : "", all_tools[i]->name);
}

/* Makes the output valid UTF-8 and no longer than the cap. A cut keeps the
 * head and a short tail (results end with what matters most: a status line,
 * a continuation notice), each cut on a line boundary where one is near, and
 * says how much was dropped. Tools budget their own output; this is the
 * backstop for the cases they cannot foresee. Declared in output.h: MCP
 * results take the same path. */
void ztool_finish_output(const ztool_ctx *ctx, const char *tool, ztool_result *res) {
  /* A NUL would cut the text short wherever it is handled as a C string (the
   * conversation, JSON encoders), so it is shown as U+2400 SYMBOL FOR NULL. */
  if (memchr(res->output.data, '\0', res->output.len)) {
    zbuf clean = ZBUF_INIT;
    const char *s = res->output.data, *end = s + res->output.len, *nul;
    while ((nul = memchr(s, '\0', (size_t)(end - s)))) {
      zbuf_add(&clean, s, (size_t)(nul - s));
      zbuf_addstr(&clean, "\xE2\x90\x80");
      s = nul + 1;
    }
    zbuf_add(&clean, s, (size_t)(end - s));
    zbuf_release(&res->output);
    res->output = clean;
  }
  if (!zutf8_valid(res->output.data, res->output.len)) {
    zbuf clean = ZBUF_INIT;
    zt_utf8_append(&clean, res->output.data, res->output.len);
    zbuf_release(&res->output);
    res->output = clean;
  }
  /* Secrets never reach the model (or the session log). */
  size_t redacted = zredact(&res->output);
  if (redacted) {
    if (!res->meta) res->meta = json_object();
    if (json_is_object(res->meta))
      json_object_set_new(res->meta, "redacted", json_integer((json_int_t)redacted));
  }
  size_t cap = zt_output_cap(ctx);
  /* The per-tool budget; exec_command and write_stdin budget themselves
   * (max_output_tokens) and read_file pages by lines. */
  size_t budget = zt_budget_tokens(tool) * ZT_BYTES_PER_TOKEN;
  bool self_budgeted = tool && (!strcmp(tool, "exec_command") || !strcmp(tool, "write_stdin") ||
                                !strcmp(tool, "read_file"));
  if (!self_budgeted && budget < cap && res->output.len > budget) {
    zt_budget_cut(tool, &res->output, budget, NULL);
    res->truncated = true;
  }
  if (res->output.len <= cap) return;
  size_t total = res->output.len;
  size_t room = cap > 1024 ? cap - 384 : cap / 2;
  size_t tail = cap <= 1024 ? 0 : room / 8 < 4096 ? room / 8 : 4096;
  zt_cut cut = zt_cut_find(res->output.data, total, room - tail, tail);
  /* The hard ceiling: the whole text goes to a spill file when the notice
   * has room to name it. */
  char *spill = cap > 1024 ? zt_spill(tool, res->output.data, total, NULL) : NULL;
  char *notice =
      spill ? xstrfmt("[output truncated: showing the first %zu and the last %zu of %zu bytes; "
                      "the full output is in %s (read it with read_file)]\n",
                      cut.head, total - cut.tail_at, total, spill)
            : xstrfmt("[output truncated: showing the first %zu and the last %zu of %zu bytes; "
                      "narrow the request to see the rest]\n",
                      cut.head, total - cut.tail_at, total);
  free(spill);
  zt_cut_apply(&res->output, cut, notice);
  free(notice);
  res->truncated = true;
}

int ztool_invoke_escalated(const ztool_ctx *ctx, const char *name, const char *args_text,
                           ztool_escalation esc, ztool_result *res) {
  ztool_ctx call = *ctx; /* this call's own copy: the escalation dies with it */
  call.escalation = esc;
  return ztool_invoke(&call, name, args_text, res);
}

/* A freeform tool's arguments from its raw text: {freeform_param: text},
 * or the object the text holds when it is one. New reference. */
static json_t *freeform_args(const ztool *t, const char *args_text) {
  json_t *args = json_loads(args_text, JSON_DECODE_ANY, NULL);
  if (json_is_object(args)) return args;
  /* A freeform call whose raw text happens to be valid JSON (e.g. a
   * string): the text itself is the input. */
  json_decref(args);
  return json_pack("{ss}", t->freeform_param, args_text);
}

json_t *ztool_call_args(const ztool *t, const char *args_text) {
  if (!args_text || blank(args_text)) return json_object();
  if (t && t->freeform_param) return freeform_args(t, args_text);
  json_t *args = json_loads(args_text, 0, NULL);
  if (json_is_object(args)) return args;
  json_decref(args);
  return NULL;
}

int ztool_invoke(const ztool_ctx *ctx, const char *name, const char *args_text,
                 ztool_result *res) {
  const ztool *t = ztool_find(name);
  if (!t) {
    ztool_fail(res, "unknown tool \"%s\"; available tools: ", name ? name : "");
    list_tool_names(&res->output);
    ztool_finish_output(ctx, t ? t->name : NULL, res);
    return -1;
  }

  json_t *args = NULL;
  if (!args_text || blank(args_text)) {
    args = json_object();
  } else if (t->freeform_param) {
    args = freeform_args(t, args_text);
  } else {
    json_error_t je;
    /* Most arguments are plain ASCII JSON: the fast path gives jansson's
     * tree; jansson parses (and explains) everything else. */
    args = zjson_parse_plain(args_text, strlen(args_text));
    if (!args) args = json_loads(args_text, JSON_DECODE_ANY, &je);
    if (!args) {
      if (je.line > 1)
        ztool_fail(res,
                   "invalid arguments for %s: %s at line %d, column %d; send a JSON object "
                   "matching the schema",
                   t->name, je.text, je.line, je.column);
      else
        ztool_fail(res,
                   "invalid arguments for %s: %s at column %d; send a JSON object matching "
                   "the schema",
                   t->name, je.text, je.column);
      ztool_finish_output(ctx, t ? t->name : NULL, res);
      return -1;
    }
  }
  if (!args) {
    ztool_fail(res, "invalid arguments for %s: the raw input is not valid UTF-8", t->name);
    ztool_finish_output(ctx, t ? t->name : NULL, res);
    return -1;
  }
  if (!json_is_object(args)) {
    ztool_fail(res,
               "invalid arguments for %s: expected a JSON object, got %s; send a JSON "
               "object matching the schema",
               t->name, json_type_name(args));
    json_decref(args);
    ztool_finish_output(ctx, t ? t->name : NULL, res);
    return -1;
  }

  json_t *schema = parse_schema(t);
  if (!schema) {
    json_decref(args);
    ztool_fail(res, "internal error: the schema of %s does not parse", t->name);
    return -1;
  }
  zbuf err = ZBUF_INIT;
  int rc;
  ztool_normalize_args(t, args);
  if (check_object(schema, args, "", &err) < 0) {
    ztool_fail(res, "invalid arguments for %s: %s", t->name, err.data);
    rc = -1;
  } else {
    rc = t->run(ctx, args, res);
    if (rc < 0) res->is_error = true;
    if (res->is_error) rc = -1;
    if (res->is_error && res->output.len == 0)
      zbuf_addf(&res->output, "%s failed without saying why", t->name);
  }
  zbuf_release(&err);
  json_decref(schema);
  json_decref(args);
  ztool_finish_output(ctx, t ? t->name : NULL, res);
  return rc;
}

int zt_read_text(const ztool_ctx *ctx, const char *abs, zbuf *out, size_t max, zerr *err) {
  if (!ctx->backend || !ctx->backend->read_text) return zfs_read_file(abs, out, max, err);
  if (ctx->backend->read_text(ctx->backend->ud, abs, out, err) < 0) return -1;
  if (out->len > max)
    return zerr_set(err, ZE_IO, "the editor's text of %s is larger than %zu bytes", abs, max);
  return 0;
}

int zt_write_text(const ztool_ctx *ctx, const char *abs, const char *text, size_t len, mode_t mode,
                  zerr *err) {
  if (!ctx->backend || !ctx->backend->write_text)
    return zfs_write_atomic(abs, text, len, mode, err);
  return ctx->backend->write_text(ctx->backend->ud, abs, text, len, err);
}
