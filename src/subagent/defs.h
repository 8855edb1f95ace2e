/* defs.h — specialist definitions: who a `task` may delegate to.
 *
 * A definition is a Markdown file with YAML front matter (base/frontmatter.h)
 * named <name>.md in, by precedence (the first definition of a name wins):
 *
 *   <workspace>/.zero/agents/   the project's
 *   <workspace>/.agents/agents/ the cross-agent folder
 *   ~/.config/zero/agents/      the user's ($XDG_CONFIG_HOME/zero/agents)
 *   built-ins                   general, explore, review
 *
 * Front matter: name (default: the file name), description (when to use it),
 * tools (an allow-list; default: the read-only built-in tools), model
 * ("inherit" by default: a child never silently picks another model),
 * reasoningEffort, permissionMode (may only lower the parent's), isolation
 * ("worktree": a git worktree per task; "none", the default). The body is
 * the child's system prompt, appended to zero's own.
 *
 * A definition that cannot be used (malformed front matter, a tool that does
 * not exist, an unknown permission mode) is kept with `error` set, so
 * `zero agents list` shows it and a `task` naming it fails with that reason.
 */
#ifndef ZERO_SUBAGENT_DEFS_H
#define ZERO_SUBAGENT_DEFS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef struct zsub_def {
  char *name;
  char *description;
  char **tools;           /* allow-list, NULL-terminated; NULL = all the parent's tools */
  char *model;            /* NULL = inherit the parent's */
  char *reasoning_effort; /* NULL = inherit */
  char *permission_mode;  /* NULL = the parent's; else at most the parent's */
  bool worktree;          /* isolation: worktree — each task of it works in a git
                           * worktree of its own (subagent/worktree.h) */
  char *prompt;           /* the body: appended to the child's system prompt */
  char *source;           /* the file it came from, or "built-in" */
  char *error;            /* why it cannot be used, or NULL */
} zsub_def;

typedef struct zsub_defs {
  zsub_def *v;
  size_t n;
} zsub_defs;

/* Loads every definition visible from workspace (absolute), built-ins last.
 * Never fails: unreadable folders are skipped, broken files kept with their
 * error. Release with zsub_defs_release. */
void zsub_defs_load(zsub_defs *out, const char *workspace);
void zsub_defs_release(zsub_defs *d);
/* The definition named name, or NULL. */
const zsub_def *zsub_defs_find(const zsub_defs *d, const char *name);
/* {name, description, tools (null = all), model, reasoningEffort,
 * permissionMode, source, error?}. New reference. */
json_t *zsub_def_json(const zsub_def *d);
/* Whether the def's allow-list names tool (a NULL list allows every tool). */
bool zsub_def_allows(const zsub_def *d, const char *tool);

/* The tools the subagent module adds to a run (task, task_output,
 * task_stop, ask_user): true when name is one of them. */
bool zsub_tool_name(const char *name);

#endif
