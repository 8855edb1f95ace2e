/* defs.c — specialist definitions; see defs.h. */
#include "subagent/defs.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/frontmatter.h"
#include "base/fs.h"
#include "base/ids.h"
#include "base/path.h"
#include "base/strvec.h"
#include "config/models.h"
#include "perm/engine.h"
#include "subagent/runtime.h"
#include "tools/tool.h"

#define DEF_FILE_MAX (256u * 1024u) /* a definition is a prompt, not a book */

static const char *const SUB_TOOLS[] = {"task", "task_output", "task_stop", "ask_user"};

bool zsub_tool_name(const char *name) {
  for (size_t i = 0; i < ZARRAY_LEN(SUB_TOOLS); i++)
    if (!strcmp(SUB_TOOLS[i], name)) return true;
  return !strncmp(name, "swarm_", 6) && zsub_swarm_tool(name);
}

/* The read-only built-in tools: the default allow-list, and explore's. */
static char **read_only_tools(void) {
  strvec v = STRVEC_INIT;
  size_t n;
  const ztool *const *all = ztool_all(&n);
  for (size_t i = 0; i < n; i++)
    if (all[i]->read_only && all[i]->side_effect == ZSIDE_READ) strvec_push(&v, all[i]->name);
  return strvec_detach(&v);
}

static const struct {
  const char *name, *description, *prompt;
  bool all_tools;
} BUILTINS[] = {
    {"general",
     "General-purpose agent for multi-step work: research, edits and commands, with the "
     "parent's tools.",
     "You are a sub-agent handed one task by another agent. Do it completely, then answer with "
     "a concise report of what you found or changed: the caller sees only your final answer.",
     true},
    {"explore",
     "Fast read-only exploration: finds files, searches code and reads it to answer a "
     "question about the codebase.",
     "You are an exploration sub-agent. Search and read the workspace (glob, grep, "
     "list_directory, read_file) to answer the question. You cannot change anything. Answer "
     "with the facts found, citing paths and line numbers; the caller sees only your final "
     "answer.",
     false},
    {"review",
     "Read-only code review of a change: reads the diff and the code around it and reports "
     "problems by severity.",
     "You are a code-review sub-agent. Read the change you are given and the code around it. "
     "Report bugs, risks and missing tests, most severe first, each with its path and line. "
     "You cannot change anything; the caller sees only your final answer.",
     false},
};

static void def_add_builtins(zsub_defs *d) {
  for (size_t i = 0; i < ZARRAY_LEN(BUILTINS); i++) {
    if (zsub_defs_find(d, BUILTINS[i].name)) continue; /* a file overrides a built-in */
    d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
    zsub_def *x = &d->v[d->n++];
    memset(x, 0, sizeof *x);
    x->name = xstrdup(BUILTINS[i].name);
    x->description = xstrdup(BUILTINS[i].description);
    x->prompt = xstrdup(BUILTINS[i].prompt);
    x->source = xstrdup("built-in");
    x->tools = BUILTINS[i].all_tools ? NULL : read_only_tools();
  }
}

static void def_release(zsub_def *x) {
  free(x->name);
  free(x->description);
  strvec_free_array(x->tools);
  free(x->model);
  free(x->reasoning_effort);
  free(x->permission_mode);
  free(x->prompt);
  free(x->source);
  free(x->error);
  memset(x, 0, sizeof *x);
}

static char *dup_opt(const char *s) { return s && s[0] ? xstrdup(s) : NULL; }

/* A tool name a definition may list: built-in, the subagent tools, or an
 * MCP tool (mcp__server__tool: its server is checked when the child starts). */
static bool known_tool(const char *name) {
  return ztool_find(name) || zsub_tool_name(name) || !strncmp(name, "mcp__", 5);
}

static void set_error(zsub_def *x, const char *msg) {
  if (!x->error) x->error = xstrdup(msg);
}

/* tools: from the front matter (a missing key = the read-only tools; "*" or
 * "all" = every tool of the parent). */
static void def_read_tools(zsub_def *x, const json_t *meta) {
  if (!json_object_get(meta, "tools")) {
    x->tools = read_only_tools();
    return;
  }
  zerr err = ZERR_INIT;
  json_t *list = zfrontmatter_strlist(meta, "tools", &err);
  if (!list) {
    set_error(x, err.msg);
    return;
  }
  strvec v = STRVEC_INIT;
  bool all = false;
  size_t i;
  json_t *t;
  json_array_foreach(list, i, t) {
    const char *name = json_string_value(t);
    if (!strcmp(name, "*") || !strcmp(name, "all")) {
      all = true;
    } else if (!known_tool(name)) {
      char msg[256];
      snprintf(msg, sizeof msg, "tool \"%.100s\" does not exist (see zero tools list)", name);
      set_error(x, msg);
    }
    strvec_push(&v, name);
  }
  json_decref(list);
  if (all) strvec_clear(&v);
  else x->tools = strvec_detach(&v);
}

static void def_check_fields(zsub_def *x) {
  zperm_mode m;
  zerr err = ZERR_INIT;
  if (x->permission_mode && zperm_mode_parse(x->permission_mode, &m, &err) < 0)
    set_error(x, err.msg);
  const char *e = x->reasoning_effort;
  if (e && !zmodel_effort_known(e))
    set_error(x, "reasoningEffort must be one of " ZMODEL_EFFORT_NAMES);
  if (x->model && !strcmp(x->model, "inherit")) {
    free(x->model);
    x->model = NULL;
  }
  if (!zid_is_safe(x->name)) set_error(x, "name may hold only letters, digits, _ and -");
}

/* One file into a definition (kept with its error when it is broken). */
static void def_from_file(zsub_def *x, const char *path, const char *stem) {
  memset(x, 0, sizeof *x);
  x->source = xstrdup(path);
  zbuf text = ZBUF_INIT;
  zerr err = ZERR_INIT;
  json_t *meta = NULL;
  char *body = NULL;
  if (zfs_read_file(path, &text, DEF_FILE_MAX, &err) < 0 ||
      zfrontmatter_parse(text.data ? text.data : "", text.len, &meta, &body, &err) < 0) {
    x->name = xstrdup(stem);
    x->error = xstrdup(err.msg);
    zbuf_release(&text);
    return;
  }
  zbuf_release(&text);
  x->name = xstrdup(zfrontmatter_str(meta, "name") ? zfrontmatter_str(meta, "name") : stem);
  x->description = dup_opt(zfrontmatter_str(meta, "description"));
  x->model = dup_opt(zfrontmatter_str(meta, "model"));
  x->reasoning_effort = dup_opt(zfrontmatter_str(meta, "reasoningEffort"));
  x->permission_mode = dup_opt(zfrontmatter_str(meta, "permissionMode"));
  const char *iso = zfrontmatter_str(meta, "isolation");
  x->worktree = iso && !strcmp(iso, "worktree");
  if (iso && !x->worktree && strcmp(iso, "none"))
    set_error(x, "isolation must be \"worktree\" or \"none\"");
  x->prompt = body;
  def_read_tools(x, meta);
  def_check_fields(x);
  json_decref(meta);
}

/* The *.md files of dir, sorted (a stable order for equal names). */
static void def_load_dir(zsub_defs *d, const char *dir) {
  strvec names = STRVEC_INIT;
  if (zfs_list_dir(dir, &names) < 0) return;
  for (size_t i = 0; i < names.nr; i++) {
    size_t len = strlen(names.v[i]);
    if (len <= 3 || strcmp(names.v[i] + len - 3, ".md")) continue;
    char *path = zpath_join(dir, names.v[i]);
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(names.v[i]) - 3), names.v[i]);
    zsub_def x;
    def_from_file(&x, path, stem);
    free(path);
    if (zsub_defs_find(d, x.name)) { /* an earlier folder has it: it wins */
      def_release(&x);
      continue;
    }
    d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
    d->v[d->n++] = x;
  }
  strvec_clear(&names);
}

void zsub_defs_load(zsub_defs *out, const char *workspace) {
  memset(out, 0, sizeof *out);
  char *a = zpath_join(workspace, ".zero/agents");
  char *b = zpath_join(workspace, ".agents/agents");
  char *cfg = zpath_config_dir();
  char *c = cfg ? zpath_join(cfg, "agents") : NULL;
  def_load_dir(out, a);
  def_load_dir(out, b);
  if (c) def_load_dir(out, c);
  free(a);
  free(b);
  free(c);
  free(cfg);
  def_add_builtins(out);
}

void zsub_defs_release(zsub_defs *d) {
  for (size_t i = 0; i < d->n; i++) def_release(&d->v[i]);
  free(d->v);
  memset(d, 0, sizeof *d);
}

const zsub_def *zsub_defs_find(const zsub_defs *d, const char *name) {
  for (size_t i = 0; name && i < d->n; i++)
    if (!strcmp(d->v[i].name, name)) return &d->v[i];
  return NULL;
}

bool zsub_def_allows(const zsub_def *d, const char *tool) {
  if (!d->tools) return true;
  for (char **t = d->tools; *t; t++)
    if (!strcmp(*t, tool)) return true;
  return false;
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

json_t *zsub_def_json(const zsub_def *d) {
  json_t *tools = json_null();
  if (d->tools) {
    tools = json_array();
    for (char **t = d->tools; *t; t++) json_array_append_new(tools, json_string(*t));
  }
  json_t *o = json_pack("{s:s, s:o, s:o, s:s, s:o, s:o, s:s}", "name", d->name, "description",
                        str_or_null(d->description), "tools", tools, "model",
                        d->model ? d->model : "inherit", "reasoningEffort",
                        str_or_null(d->reasoning_effort), "permissionMode",
                        str_or_null(d->permission_mode), "source", d->source);
  json_object_set_new(o, "isolation", json_string(d->worktree ? "worktree" : "none"));
  if (d->error) json_object_set_new(o, "error", json_string(d->error));
  return o;
}
