/* grants.h — saved permission grants: per tool, per path scope, per command
 * prefix; allow or deny; once / session / always.
 *
 * File: ~/.config/zero/sandbox-grants.json (0600, written atomically):
 *   {"version":1,"grants":[{"tool":"exec_command","kind":"prefix",
 *     "value":"git status","action":"allow","createdAt":"…"}]}
 * kind: "tool" (any call of the tool), "path" (file tools: value is a
 * directory or file; matches it and below), "prefix" (exec_command: every
 * command of the line starts with these words). Only "always" grants are
 * saved; "session" grants live in memory for the run; "once" grants are
 * consumed by their first match. Deny grants win over allow grants.
 */
#ifndef ZERO_SANDBOX_GRANTS_H
#define ZERO_SANDBOX_GRANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

typedef enum zgrant_kind { ZGRANT_TOOL, ZGRANT_PATH, ZGRANT_PREFIX } zgrant_kind;
typedef enum zgrant_scope { ZGRANT_ONCE, ZGRANT_SESSION, ZGRANT_ALWAYS } zgrant_scope;

typedef struct zgrant {
  char *tool;
  zgrant_kind kind;
  char *value;        /* NULL for kind tool */
  bool allow;
  zgrant_scope scope;
  char *created_at;
  bool used;          /* once-grants: consumed */
} zgrant;

typedef struct zgrants {
  zgrant *v;
  size_t n;
  char *path;
} zgrants;

/* Loads path (NULL = default location; a missing file is empty). A file with
 * an unknown version or bad shape fails with ZE_CONFIG naming the file. */
int zgrants_load(zgrants *g, const char *path, zerr *err);
int zgrants_save(const zgrants *g, zerr *err); /* writes the "always" grants */
void zgrants_release(zgrants *g);
void zgrants_add(zgrants *g, const char *tool, zgrant_kind kind, const char *value, bool allow,
                 zgrant_scope scope);
/* Removes grant i (0-based). */
void zgrants_remove(zgrants *g, size_t i);
char *zgrants_default_path(void); /* caller frees */

/* The first matching grant with the given action, or NULL. path is the
 * resolved target of a file tool (or NULL); commands is the list of the
 * command lines (words joined by spaces) found in a shell call (or NULL).
 * For allow, every command must be covered; for deny, any one suffices.
 * A matched once-grant is marked used. */
zgrant *zgrants_match(zgrants *g, const char *tool, const char *path,
                      const char *const *commands, size_t ncommands, bool allow);

/* zgrants_match over the grants whose scope is at most widest (ONCE <
 * SESSION < ALWAYS): e.g. only this run's answers, not saved grants. */
zgrant *zgrants_match_scoped(zgrants *g, const char *tool, const char *path,
                             const char *const *commands, size_t ncommands, bool allow,
                             zgrant_scope widest);

const char *zgrant_kind_name(zgrant_kind k);
const char *zgrant_scope_name(zgrant_scope s);

/* `zero sandbox grants …` */
int zgrants_cli(int argc, char **argv);

#endif
