/* plugins.h — plugins: a folder with a plugin.json bundling tools, hooks,
 * skills, commands and MCP servers (Go zero's schema, schemaVersion 1):
 *
 *   {"schemaVersion": 1, "id", "name", "version",
 *    "tools": [{"name", "description", "inputSchema", "command", "args",
 *               "timeoutMs"}],
 *    "hooks": [...], "skills": [roots], "commands": [roots], "mcpServers": {...}}
 *
 * Roots: <workspace>/.zero/plugins/<id>/ (project: needs trust) and
 * ~/.config/zero/plugins/<id>/. A folder holding Claude Code's
 * .claude-plugin/plugin.json instead loads too (ext/plugin_claude.h). A plugin contributes only
 * once enabled
 * (`zero plugins enable ID`), which records the sha256 of each tool's
 * executable in ~/.config/zero/plugins.json; every launch re-checks it and
 * refuses a tool whose file changed (strict identity, fail closed).
 */
#ifndef ZERO_EXT_PLUGINS_H
#define ZERO_EXT_PLUGINS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/strvec.h"
#include "tools/tool.h"

typedef struct zplugin_tool {
  char *name;          /* as offered to the model: plugin_<id>_<tool> */
  char *tool;          /* the manifest's name */
  char *description;
  json_t *schema;      /* inputSchema (an object) */
  char **argv;         /* [executable, args...]; argv[0] resolved (absolute) or NULL */
  int timeout_ms;
  const char *dir;     /* the plugin's folder (borrowed from zplugin) */
  char *refused;       /* why it may not run (changed executable, background…), or NULL */
  ztool perm;          /* the permission engine's stand-in: a sandboxed command (shell
                        * side effect, never read-only) named as offered */
} zplugin_tool;

typedef struct zplugin {
  char *id, *name, *version;
  char *dir;           /* absolute */
  bool project;
  bool enabled;
  zplugin_tool *tools;
  size_t ntools;
  json_t *hooks;       /* the manifest's "hooks" (borrowed from manifest) */
  strvec skill_roots;  /* absolute */
  strvec command_roots;
  json_t *mcp_servers; /* borrowed from manifest, may be NULL */
  json_t *manifest;
  const char *read_paths[2]; /* {dir, NULL}: its hooks' own files (zhook.read_paths) */
} zplugin;

typedef struct zplugins {
  zplugin *v;
  size_t n, cap;
} zplugins;

/* The state file (~/.config/zero/plugins.json). Caller frees. */
char *zplugins_state_path(void);
/* Adds the plugins under root. state: the parsed state file (may be NULL).
 * Malformed manifests, an unknown schemaVersion and changed executables are
 * problems naming the file and the fix. */
void zplugins_load_root(zplugins *ps, const char *root, bool project, const json_t *state,
                        strvec *problems);
/* Adds the one plugin in dir (as zplugins_load_root does for each folder
 * of a root). */
void zplugins_load_dir(zplugins *ps, const char *dir, bool project, const json_t *state,
                       strvec *problems);
const zplugin *zplugins_find(const zplugins *ps, const char *id);
/* Enables (records each tool executable's sha256) or disables plugin p in
 * the state file. */
int zplugin_set_enabled(const zplugin *p, bool enabled, zerr *err);
json_t *zplugin_json(const zplugin *p);
void zplugins_release(zplugins *ps);

#endif
