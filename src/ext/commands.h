/* commands.h — custom slash commands: Markdown prompt files.
 *
 * <workspace>/.zero/commands/ (project: needs trust) and
 * ~/.config/zero/commands/ (user), plus enabled plugins' command roots.
 * `review.md` is /review; sub-folders make namespaces (`git/pr.md` is
 * /git:pr). Optional front matter: description, argument-hint, model. The
 * body is the prompt, with $ARGUMENTS (everything after the name) and $1…$9
 * (its blank-separated words) substituted.
 */
#ifndef ZERO_EXT_COMMANDS_H
#define ZERO_EXT_COMMANDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/strvec.h"

typedef struct zcmd {
  char *name;          /* without the slash: "git:pr" */
  char *description;   /* may be "" */
  char *argument_hint; /* may be NULL */
  char *model;         /* may be NULL */
  char *path;
  bool project;
} zcmd;

typedef struct zcmds {
  zcmd *v;
  size_t n, cap;
} zcmds;

/* Adds the commands under root (recursively, two levels of namespaces). A
 * malformed file is a problem with its path and line; a name that a
 * built-in (is_builtin, may be NULL) or an earlier root already has is a
 * clash reported as a problem and skipped: a command never shadows one. */
void zcmds_load_root(zcmds *cs, const char *root, bool project,
                     bool (*is_builtin)(const char *name), strvec *problems);
const zcmd *zcmds_find(const zcmds *cs, const char *name);
/* The prompt of c with args substituted. Caller frees; NULL with err. */
char *zcmd_expand(const zcmd *c, const char *args, zerr *err);
/* $ARGUMENTS and $1…$9 in body replaced from args. Caller frees. */
char *zcmd_substitute(const char *body, const char *args);
json_t *zcmd_json(const zcmd *c);
void zcmds_release(zcmds *cs);

#endif
