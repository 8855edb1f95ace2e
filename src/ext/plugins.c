/* plugins.c — plugin manifests, enable state and strict identity; see
 * plugins.h. */
#include "ext/plugins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/path.h"
#include "ext/plugin_claude.h"

#define PLUGIN_EXE_MAX (256u << 20) /* an executable larger than this is not hashed */

char *zplugins_state_path(void) {
  char *dir = zpath_config_dir();
  char *p = zpath_join(dir, "plugins.json");
  free(dir);
  return p;
}

/* argv[0] of a tool: relative to the plugin's folder when it holds a slash,
 * else searched in PATH. NULL when not found. */
static char *resolve_exe(const char *dir, const char *command) {
  if (command[0] == '/') return xstrdup(command);
  if (strchr(command, '/')) {
    char *p = zpath_join(dir, command);
    char *real = realpath(p, NULL);
    free(p);
    return real;
  }
  return zpath_which(command);
}

static const char *recorded_sha(const json_t *state, const char *dir, const char *tool) {
  return zjson_str(json_object_get(json_object_get(json_object_get(json_object_get(state,
                                     "plugins"), dir), "tools"), tool), "sha256");
}

/* Fills one tool from its manifest entry; a tool that cannot run keeps a
 * refusal (fail closed) rather than vanishing, so the model and
 * `zero plugins list` say why. */
static void load_tool(zplugin *p, zplugin_tool *t, const json_t *e, const json_t *state,
                      strvec *problems) {
  const char *name = zjson_str(e, "name"), *command = zjson_str(e, "command");
  t->tool = xstrdup(name ? name : "");
  t->dir = p->dir;
  zbuf full = ZBUF_INIT;
  zbuf_addf(&full, "plugin_%s_%s", p->id, t->tool);
  for (char *c = full.data; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
          *c == '_' || *c == '-'))
      *c = '_';
  t->name = zbuf_detach(&full, NULL);
  t->description = xstrdup(zjson_str_or(e, "description", ""));
  /* Decided as what it is: a command in the sandbox (exec_command's rules:
   * allowed in auto mode while the sandbox is active, asked in ask mode,
   * denied in plan mode, grants by its own name). */
  t->perm = (ztool){.name = t->name,
                    .description = t->description,
                    .parameters_json = "{}",
                    .side_effect = ZSIDE_SHELL,
                    .read_only = false};
  const json_t *schema = json_object_get(e, "inputSchema");
  t->schema = json_is_object(schema) ? json_deep_copy(schema)
                                     : json_pack("{s:s, s:{}}", "type", "object", "properties");
  int64_t to = zjson_int_or(e, "timeoutMs", 60000);
  t->timeout_ms = to > 0 && to <= 3600000 ? (int)to : 60000;
  zbuf why = ZBUF_INIT;
  char *exe = command && *command ? resolve_exe(p->dir, command) : NULL;
  if (!name || !*name) {
    zbuf_addstr(&why, "the tool has no \"name\"");
  } else if (!command || !*command) {
    zbuf_addstr(&why, "the tool has no \"command\"");
  } else if (zjson_bool_or(e, "background", false)) {
    zbuf_addstr(&why, "a plugin tool may not run in the background");
  } else if (json_object_get(e, "sandbox") &&
             (zjson_bool_or(json_object_get(e, "sandbox"), "unsandboxed", false) ||
              zjson_bool_or(json_object_get(e, "sandbox"), "network", false))) {
    zbuf_addstr(&why, "it asks for more than the run's sandbox allows (network or no sandbox)");
  } else if (!exe) {
    zbuf_addf(&why, "its executable %s was not found", command);
  } else if (p->enabled) {
    char hex[ZSHA256_HEX_SIZE];
    zerr err = ZERR_INIT;
    const char *want = recorded_sha(state, p->dir, t->tool);
    if (zsha256_file_hex(exe, PLUGIN_EXE_MAX, hex, &err) < 0)
      zbuf_addf(&why, "its executable cannot be hashed: %s", err.msg);
    else if (!want)
      zbuf_addf(&why, "no identity was recorded for %s; run zero plugins enable %s", exe, p->id);
    else if (strcmp(want, hex) != 0)
      zbuf_addf(&why, "its executable %s changed since the plugin was enabled (sha256 %.12s…, "
                      "recorded %.12s…); review it, then run zero plugins enable %s",
                exe, hex, want, p->id);
  }
  strvec argv = STRVEC_INIT;
  strvec_push(&argv, exe ? exe : (command ? command : ""));
  size_t i;
  json_t *a;
  json_array_foreach(json_object_get(e, "args"), i, a) {
    if (json_is_string(a)) strvec_push(&argv, json_string_value(a));
  }
  t->argv = strvec_detach(&argv);
  free(exe);
  if (why.len) {
    t->refused = zbuf_detach(&why, NULL);
    if (p->enabled)
      strvec_pushf(problems, "%s/plugin.json: tool %s refused: %s", p->dir, t->tool, t->refused);
  }
  zbuf_release(&why);
}

static void add_roots(strvec *out, const char *dir, const json_t *roots) {
  size_t i;
  json_t *r;
  json_array_foreach(roots, i, r) {
    if (!json_is_string(r)) continue;
    strvec_push_nodup(out, zpath_absolute(json_string_value(r), dir));
  }
}

static void load_plugin(zplugins *ps, const char *dir, bool project, const json_t *state,
                        strvec *problems) {
  char *path = zpath_join(dir, "plugin.json");
  zerr err = ZERR_INIT;
  json_t *m = zfs_exists(path) ? zjson_load_file(path, &err) : NULL;
  if (!m && !err.msg[0]) { /* Claude Code's layout */
    m = zplugin_claude_manifest(dir, problems);
    free(path);
    path = zpath_join(dir, ".claude-plugin/plugin.json");
  }
  if (!m) {
    if (err.msg[0]) strvec_pushf(problems, "%s; fix the JSON (the plugin was skipped)", err.msg);
    free(path);
    return;
  }
  json_int_t ver = json_integer_value(json_object_get(m, "schemaVersion"));
  const char *id = zjson_str(m, "id");
  if (ver != 1 || !id || !*id) {
    strvec_pushf(problems, "%s: %s; the plugin was skipped", path,
                 ver != 1 ? "unknown schemaVersion (zero reads schemaVersion 1)"
                          : "no \"id\" (give the plugin an id)");
    json_decref(m);
    free(path);
    return;
  }
  free(path);
  ZALLOC_GROW(ps->v, ps->n, ps->cap, 8);
  zplugin *p = &ps->v[ps->n++];
  memset(p, 0, sizeof *p);
  p->manifest = m;
  p->id = xstrdup(id);
  p->name = xstrdup(zjson_str_or(m, "name", id));
  p->version = xstrdup(zjson_str_or(m, "version", ""));
  p->dir = xstrdup(dir);
  p->read_paths[0] = p->dir;
  p->project = project;
  p->enabled =
      zjson_bool_or(json_object_get(json_object_get(state, "plugins"), dir), "enabled", false);
  p->hooks = json_object_get(m, "hooks");
  p->mcp_servers = json_object_get(m, "mcpServers");
  strvec_init(&p->skill_roots);
  strvec_init(&p->command_roots);
  add_roots(&p->skill_roots, dir, json_object_get(m, "skills"));
  add_roots(&p->command_roots, dir, json_object_get(m, "commands"));
  const json_t *tools = json_object_get(m, "tools");
  p->ntools = json_array_size(tools);
  p->tools = xcalloc(p->ntools ? p->ntools : 1, sizeof *p->tools);
  for (size_t i = 0; i < p->ntools; i++)
    load_tool(p, &p->tools[i], json_array_get(tools, i), state, problems);
}

void zplugins_load_root(zplugins *ps, const char *root, bool project, const json_t *state,
                        strvec *problems) {
  strvec names = STRVEC_INIT;
  if (zfs_list_dir(root, &names) < 0) return;
  for (size_t i = 0; i < names.nr; i++) {
    char *dir = zpath_join(root, names.v[i]);
    zplugins_load_dir(ps, dir, project, state, problems);
    free(dir);
  }
  strvec_clear(&names);
}

void zplugins_load_dir(zplugins *ps, const char *dir, bool project, const json_t *state,
                       strvec *problems) {
  char *real = realpath(dir, NULL);
  if (real && zfs_is_dir(real)) load_plugin(ps, real, project, state, problems);
  free(real);
}

const zplugin *zplugins_find(const zplugins *ps, const char *id) {
  for (size_t i = 0; id && i < ps->n; i++)
    if (!strcmp(ps->v[i].id, id)) return &ps->v[i];
  return NULL;
}

typedef struct enable_args {
  const zplugin *p;
  bool enabled;
} enable_args;

static int update_state(json_t **doc, void *ud, zerr *err) {
  const enable_args *ea = ud;
  json_t *plugins = json_object_get(*doc, "plugins");
  if (!json_is_object(plugins)) {
    plugins = json_object();
    json_object_set_new(*doc, "plugins", plugins);
  }
  json_t *entry = json_pack("{s:s, s:b, s:{}}", "id", ea->p->id, "enabled", ea->enabled, "tools");
  json_t *tools = json_object_get(entry, "tools");
  for (size_t i = 0; ea->enabled && i < ea->p->ntools; i++) {
    const zplugin_tool *t = &ea->p->tools[i];
    char hex[ZSHA256_HEX_SIZE];
    if (!t->argv[0] || t->argv[0][0] != '/') continue;
    if (zsha256_file_hex(t->argv[0], PLUGIN_EXE_MAX, hex, err) < 0) {
      json_decref(entry);
      return -1;
    }
    json_object_set_new(tools, t->tool, json_pack("{s:s, s:s}", "path", t->argv[0], "sha256", hex));
  }
  json_object_set_new(plugins, ea->p->dir, entry);
  return 0;
}

int zplugin_set_enabled(const zplugin *p, bool enabled, zerr *err) {
  char *path = zplugins_state_path();
  enable_args ea = {p, enabled};
  int rc = zjson_update_file(path, 0, 0600, update_state, &ea, err);
  free(path);
  return rc < 0 ? -1 : 0;
}

json_t *zplugin_json(const zplugin *p) {
  json_t *tools = json_array();
  for (size_t i = 0; i < p->ntools; i++) {
    json_t *t = json_pack("{s:s, s:s}", "name", p->tools[i].name, "tool", p->tools[i].tool);
    if (p->tools[i].refused) json_object_set_new(t, "refused", json_string(p->tools[i].refused));
    json_array_append_new(tools, t);
  }
  return json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:o, s:I}", "id", p->id, "name", p->name,
                   "version", p->version, "dir", p->dir, "scope",
                   p->project ? "project" : "user", "enabled", p->enabled, "tools", tools,
                   "hooks", (json_int_t)json_array_size(p->hooks));
}

void zplugins_release(zplugins *ps) {
  for (size_t i = 0; i < ps->n; i++) {
    zplugin *p = &ps->v[i];
    for (size_t j = 0; j < p->ntools; j++) {
      zplugin_tool *t = &p->tools[j];
      free(t->name);
      free(t->tool);
      free(t->description);
      json_decref(t->schema);
      strvec_free_array(t->argv);
      free(t->refused);
    }
    free(p->tools);
    strvec_clear(&p->skill_roots);
    strvec_clear(&p->command_roots);
    json_decref(p->manifest);
    free(p->id);
    free(p->name);
    free(p->version);
    free(p->dir);
  }
  free(ps->v);
  memset(ps, 0, sizeof *ps);
}
