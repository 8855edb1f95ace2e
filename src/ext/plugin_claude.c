/* plugin_claude.c — Claude Code's plugin layout read as a Go zero manifest;
 * see plugin_claude.h. */
#include "ext/plugin_claude.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/path.h"

#define ROOT_VAR "${CLAUDE_PLUGIN_ROOT}"

/* s with every ${CLAUDE_PLUGIN_ROOT} replaced by dir. Caller frees. */
static char *with_root(const char *s, const char *dir) {
  zbuf b = ZBUF_INIT;
  for (const char *p = s, *hit; *p; p = hit + strlen(ROOT_VAR)) {
    hit = strstr(p, ROOT_VAR);
    if (!hit) {
      zbuf_addstr(&b, p);
      break;
    }
    zbuf_add(&b, p, (size_t)(hit - p));
    zbuf_addstr(&b, dir);
  }
  return b.data ? zbuf_detach(&b, NULL) : xstrdup("");
}

/* Replaces ${CLAUDE_PLUGIN_ROOT} in every "command" and "args" string below
 * v (a hooks object or MCP servers object), in place. */
static void root_in(json_t *v, const char *dir) {
  const char *k;
  json_t *x;
  size_t i;
  if (json_is_object(v)) {
    json_object_foreach(v, k, x) {
      if (json_is_string(x) && (!strcmp(k, "command") || !strcmp(k, "cwd"))) {
        char *r = with_root(json_string_value(x), dir);
        json_string_set(x, r);
        free(r);
      } else {
        root_in(x, dir);
      }
    }
  } else if (json_is_array(v)) {
    json_array_foreach(v, i, x) {
      if (json_is_string(x)) {
        char *r = with_root(json_string_value(x), dir);
        json_string_set(x, r);
        free(r);
      } else {
        root_in(x, dir);
      }
    }
  }
}

/* A field that is inline JSON, a path to a file holding it (relative to
 * dir; member `key` of that file when it has one), or absent (then the
 * default file, when it exists). New reference or NULL; problems named. */
static json_t *inline_or_file(const json_t *field, const char *dir, const char *dflt,
                              const char *key, strvec *problems) {
  if (json_is_object(field)) return json_deep_copy(field);
  const char *rel = json_is_string(field) ? json_string_value(field) : dflt;
  if (!rel) return NULL;
  char *path = zpath_absolute(rel, dir);
  json_t *doc = NULL;
  if (zfs_exists(path)) {
    zerr err = ZERR_INIT;
    doc = zjson_load_file(path, &err);
    if (!doc) strvec_pushf(problems, "%s; fix the JSON (the plugin loads without it)", err.msg);
  } else if (json_is_string(field)) {
    strvec_pushf(problems, "%s: not found (named by the plugin's manifest)", path);
  }
  free(path);
  json_t *inner = json_incref(json_object_get(doc, key));
  if (inner) {
    json_decref(doc);
    return inner;
  }
  return doc;
}

/* "commands" / "skills": a string or an array of strings, plus the default
 * folder when it exists. */
static json_t *roots(const json_t *field, const char *dir, const char *dflt) {
  json_t *out = json_array();
  char *d = zpath_join(dir, dflt);
  if (zfs_is_dir(d)) json_array_append_new(out, json_string(dflt));
  free(d);
  if (json_is_string(field)) json_array_append(out, (json_t *)field);
  size_t i;
  json_t *r;
  json_array_foreach(field, i, r) {
    if (json_is_string(r)) json_array_append(out, r);
  }
  return out;
}

json_t *zplugin_claude_manifest(const char *dir, strvec *problems) {
  char *path = zpath_join(dir, ".claude-plugin/plugin.json");
  if (!zfs_exists(path)) {
    free(path);
    return NULL;
  }
  zerr err = ZERR_INIT;
  json_t *m = zjson_load_file(path, &err);
  if (!json_is_object(m)) {
    strvec_pushf(problems, "%s; fix the JSON (the plugin was skipped)",
                 m ? "expected an object" : err.msg);
    json_decref(m);
    free(path);
    return NULL;
  }
  free(path);
  const char *name = zjson_str(m, "name");
  json_t *out =
      json_pack("{s:i, s:s, s:s, s:s, s:[]}", "schemaVersion", 1, "id", name ? name : "", "name",
                name ? name : "", "version", zjson_str_or(m, "version", ""), "tools");
  json_t *hooks =
      inline_or_file(json_object_get(m, "hooks"), dir, "hooks/hooks.json", "hooks", problems);
  json_t *mcp =
      inline_or_file(json_object_get(m, "mcpServers"), dir, ".mcp.json", "mcpServers", problems);
  root_in(hooks, dir);
  root_in(mcp, dir);
  if (hooks) json_object_set_new(out, "hooks", hooks);
  if (mcp) json_object_set_new(out, "mcpServers", mcp);
  json_object_set_new(out, "skills", roots(json_object_get(m, "skills"), dir, "skills"));
  json_object_set_new(out, "commands", roots(json_object_get(m, "commands"), dir, "commands"));
  json_decref(m);
  return out;
}
