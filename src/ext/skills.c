/* skills.c — the skill loader; see skills.h. */
#include "ext/skills.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/frontmatter.h"
#include "base/fs.h"
#include "base/path.h"

#define SKILL_FILE_MAX (1u << 20)

/* Adds the skill of dir/SKILL.md. Only the front matter is read here (the
 * body is read when the model loads the skill: zskill_body); a folder
 * without a SKILL.md, or a plain file, is no skill and passes in silence. */
static void add_skill(zskills *ss, const char *dir, const char *path, strvec *problems) {
  json_t *meta = NULL;
  zerr err = ZERR_INIT;
  if (zfrontmatter_load(path, SKILL_FILE_MAX, &meta, &err) < 0) {
    if (err.kind == ZE_NOT_FOUND) return;
    strvec_pushf(problems, "%s: %s; fix the front matter (the file was skipped)", path, err.msg);
    return;
  }
  const char *name = zfrontmatter_str(meta, "name");
  const char *desc = zfrontmatter_str(meta, "description");
  json_t *tools = zfrontmatter_strlist(meta, "allowed-tools", &err);
  if (!name || !*name || !desc || !*desc || !tools) {
    strvec_pushf(problems, "%s: %s; a SKILL.md needs `name:` and `description:` in its front "
                           "matter (the skill was skipped)",
                 path, !tools ? err.msg : "missing name or description");
    json_decref(tools);
    json_decref(meta);
    return;
  }
  if (zskills_find(ss, name)) {
    strvec_pushf(problems, "%s: a skill named \"%s\" was already loaded from an earlier root; "
                           "this one was skipped (rename it)", path, name);
    json_decref(tools);
    json_decref(meta);
    return;
  }
  ZALLOC_GROW(ss->v, ss->n, ss->cap, 16);
  ss->v[ss->n++] = (zskill){.name = xstrdup(name), .description = xstrdup(desc),
                            .dir = xstrdup(dir), .path = xstrdup(path), .allowed_tools = tools};
  json_decref(meta);
}

void zskills_load_root(zskills *ss, const char *root, strvec *problems) {
  strvec names = STRVEC_INIT;
  if (zfs_list_dir(root, &names) < 0) return;
  for (size_t i = 0; i < names.nr; i++) {
    char *dir = zpath_join(root, names.v[i]);
    char *path = zpath_join(dir, "SKILL.md");
    add_skill(ss, dir, path, problems); /* no stat first: the open says it all */
    free(path);
    free(dir);
  }
  strvec_clear(&names);
}

const zskill *zskills_find(const zskills *ss, const char *name) {
  for (size_t i = 0; name && i < ss->n; i++)
    if (!strcmp(ss->v[i].name, name)) return &ss->v[i];
  return NULL;
}

char *zskill_body(const zskill *s, zerr *err) {
  return zfrontmatter_body(s->path, SKILL_FILE_MAX, err);
}

json_t *zskill_json(const zskill *s) {
  return json_pack("{s:s, s:s, s:s, s:O}", "name", s->name, "description", s->description,
                   "path", s->path, "allowedTools", s->allowed_tools);
}

void zskills_release(zskills *ss) {
  for (size_t i = 0; i < ss->n; i++) {
    free(ss->v[i].name);
    free(ss->v[i].description);
    free(ss->v[i].dir);
    free(ss->v[i].path);
    json_decref(ss->v[i].allowed_tools);
  }
  free(ss->v);
  memset(ss, 0, sizeof *ss);
}
