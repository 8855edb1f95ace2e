/* skills.h — Agent Skills: folders holding a SKILL.md.
 *
 * A skill is a directory with a SKILL.md whose YAML front matter gives
 * `name` and `description` (optional `allowed-tools`) and whose Markdown body
 * teaches a procedure; other files may sit beside it. Roots, first wins on a
 * name clash: <workspace>/.zero/skills, ~/.config/zero/skills,
 * <workspace>/.agents/skills, then enabled plugins' skill roots. Only the
 * name and description reach the system prompt (progressive disclosure);
 * the body is read when the model asks for it with the `skill` tool.
 */
#ifndef ZERO_EXT_SKILLS_H
#define ZERO_EXT_SKILLS_H

#include <jansson.h>
#include <stddef.h>

#include "base/err.h"
#include "base/strvec.h"

typedef struct zskill {
  char *name;
  char *description;
  char *dir;            /* the skill's folder (absolute) */
  char *path;           /* its SKILL.md */
  json_t *allowed_tools; /* array of strings (may be empty) */
} zskill;

typedef struct zskills {
  zskill *v;
  size_t n, cap;
} zskills;

/* Adds every skill under root (its direct sub-folders holding a SKILL.md).
 * A malformed SKILL.md is a problem naming its path and line, and skipped;
 * a name already loaded is a problem too. A missing root is nothing. */
void zskills_load_root(zskills *ss, const char *root, strvec *problems);
const zskill *zskills_find(const zskills *ss, const char *name);
/* The SKILL.md body of s (front matter removed), or NULL with err. Caller frees. */
char *zskill_body(const zskill *s, zerr *err);
json_t *zskill_json(const zskill *s);
void zskills_release(zskills *ss);

#endif
