/* commands.c — custom slash commands; see commands.h. */
#include "ext/commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/frontmatter.h"
#include "base/fs.h"
#include "base/path.h"

#define CMD_FILE_MAX (1u << 20)
#define CMD_DEPTH_MAX 3 /* namespaces nest at most this deep */

static void add_cmd(zcmds *cs, const char *name, const char *path, bool project,
                    bool (*is_builtin)(const char *name), strvec *problems) {
  zerr err = ZERR_INIT;
  json_t *meta = NULL; /* the body is read when the command runs (zcmd_expand) */
  if (zfrontmatter_load(path, CMD_FILE_MAX, &meta, &err) < 0) {
    strvec_pushf(problems, "%s: %s; fix the front matter (the command was skipped)", path, err.msg);
    return;
  }
  if ((is_builtin && is_builtin(name)) || zcmds_find(cs, name)) {
    strvec_pushf(problems, "%s: /%s %s; rename the file (a custom command never shadows %s)",
                 path, name,
                 is_builtin && is_builtin(name) ? "is a built-in command" : "is already defined",
                 is_builtin && is_builtin(name) ? "a built-in" : "an earlier one");
    json_decref(meta);
    return;
  }
  ZALLOC_GROW(cs->v, cs->n, cs->cap, 16);
  const char *desc = zfrontmatter_str(meta, "description");
  const char *hint = zfrontmatter_str(meta, "argument-hint");
  const char *model = zfrontmatter_str(meta, "model");
  cs->v[cs->n++] = (zcmd){.name = xstrdup(name), .description = xstrdup(desc ? desc : ""),
                          .argument_hint = hint ? xstrdup(hint) : NULL,
                          .model = model ? xstrdup(model) : NULL, .path = xstrdup(path),
                          .project = project};
  json_decref(meta);
}

static void load_dir(zcmds *cs, const char *dir, const char *ns, int depth, bool project,
                     bool (*is_builtin)(const char *name), strvec *problems) {
  strvec names = STRVEC_INIT;
  if (zfs_list_dir(dir, &names) < 0) return;
  for (size_t i = 0; i < names.nr; i++) {
    const char *n = names.v[i];
    char *path = zpath_join(dir, n);
    size_t len = strlen(n);
    zbuf full = ZBUF_INIT;
    if (ns) zbuf_addf(&full, "%s:", ns);
    bool md = len > 3 && !strcmp(n + len - 3, ".md");
    /* A *.md is taken for a file without a stat (most are): one syscall
     * less per command at every start. */
    if (!md && depth < CMD_DEPTH_MAX && zfs_is_dir(path)) {
      zbuf_addstr(&full, n);
      load_dir(cs, path, full.data, depth + 1, project, is_builtin, problems);
    } else if (md) {
      zbuf_add(&full, n, len - 3);
      add_cmd(cs, full.data, path, project, is_builtin, problems);
    }
    zbuf_release(&full);
    free(path);
  }
  strvec_clear(&names);
}

void zcmds_load_root(zcmds *cs, const char *root, bool project,
                     bool (*is_builtin)(const char *name), strvec *problems) {
  load_dir(cs, root, NULL, 0, project, is_builtin, problems);
}

const zcmd *zcmds_find(const zcmds *cs, const char *name) {
  for (size_t i = 0; name && i < cs->n; i++)
    if (!strcmp(cs->v[i].name, name)) return &cs->v[i];
  return NULL;
}

/* The n-th (1-based) blank-separated word of args into out; "" when absent. */
static void nth_word(const char *args, int n, zbuf *out) {
  const char *p = args;
  for (int i = 1;; i++) {
    p += strspn(p, " \t\n");
    if (!*p) return;
    size_t len = strcspn(p, " \t\n");
    if (i == n) {
      zbuf_add(out, p, len);
      return;
    }
    p += len;
  }
}

char *zcmd_substitute(const char *body, const char *args) {
  zbuf out = ZBUF_INIT;
  const char *a = args ? args : "";
  a += strspn(a, " \t");
  for (const char *p = body; *p; p++) {
    if (*p == '$' && !strncmp(p + 1, "ARGUMENTS", 9)) {
      zbuf_addstr(&out, a);
      p += 9;
    } else if (*p == '$' && p[1] >= '1' && p[1] <= '9') {
      nth_word(a, p[1] - '0', &out);
      p++;
    } else {
      zbuf_addch(&out, *p);
    }
  }
  char *s = zbuf_detach(&out, NULL);
  return s ? s : xstrdup("");
}

char *zcmd_expand(const zcmd *c, const char *args, zerr *err) {
  char *body = zfrontmatter_body(c->path, CMD_FILE_MAX, err);
  if (!body) return NULL;
  char *s = body;
  while (*s == '\n') s++; /* the blank line after the front matter */
  char *out = zcmd_substitute(s, args);
  free(body);
  return out;
}

json_t *zcmd_json(const zcmd *c) {
  json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "name", c->name, "description", c->description,
                        "path", c->path, "scope", c->project ? "project" : "user");
  if (c->argument_hint) json_object_set_new(o, "argumentHint", json_string(c->argument_hint));
  if (c->model) json_object_set_new(o, "model", json_string(c->model));
  return o;
}

void zcmds_release(zcmds *cs) {
  for (size_t i = 0; i < cs->n; i++) {
    free(cs->v[i].name);
    free(cs->v[i].description);
    free(cs->v[i].argument_hint);
    free(cs->v[i].model);
    free(cs->v[i].path);
  }
  free(cs->v);
  memset(cs, 0, sizeof *cs);
}
