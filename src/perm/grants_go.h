/* grants_go.h — Go zero's sandbox-grants.json read and rewritten in ours.
 *
 * A user coming from Go zero has ~/.config/zero/sandbox-grants.json in Go's
 * layout, which carries "schemaVersion" where ours carries "version":
 *   schemaVersion 3 (Go zero's current):
 *     {"schemaVersion":3, "policyVersion":N,
 *      "grants": {"<tool>": [{"toolName", "scope", "scopeKind": ""|"file"|"dir"|"host",
 *                             "decision": "allow"|"deny", "approvedAt", "reason",
 *                             "session"}]},
 *      "commandPrefixes": {"<tool>": [{"toolName", "prefix": ["git","status"],
 *                                      "project", "approvedAt", "reason", "session"}]},
 *      "migration": {...}}
 *   schemaVersion 2: the same "grants" map (each grant also has "maxAutonomy"),
 *     no policyVersion, no commandPrefixes;
 *   schemaVersion 1: "grants" maps a tool to one tool-wide grant object.
 *
 * Conversion, grant by grant (as Go zero's own migration does, nothing is
 * widened): a tool-wide grant → kind "tool"; a file or dir scope → kind
 * "path"; a global command prefix → kind "prefix" (words joined by spaces);
 * Go's shell tool "bash" is our exec_command. Not carried over (counted in
 * `dropped`): session grants (they never outlived Go's run either), host
 * scopes and project-scoped prefixes (ours have neither: keeping them would
 * widen them), tool-wide allow grants of a shell tool (Go zero invalidates
 * those too: they would allow every command) and malformed entries. */
#ifndef ZERO_PERM_GRANTS_GO_H
#define ZERO_PERM_GRANTS_GO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* true when doc is a Go zero grants document (schemaVersion 1, 2 or 3 and
 * none of our "version"). */
bool zgrants_go_is(const json_t *doc);

/* Our version-1 document holding doc's grants that convert (see above).
 * *migrated and *dropped count them. New reference. */
json_t *zgrants_go_convert(const json_t *doc, size_t *migrated, size_t *dropped);

/* What a migration did, for the one-time notice. */
typedef struct zgrants_go_migration {
  int from_schema; /* Go's schemaVersion; 0 = the file was not Go's (nothing done) */
  size_t migrated, dropped;
  char *backup; /* the old file's copy; caller frees */
} zgrants_go_migration;

/* Under the file's lock: when path holds a Go zero document, copies it
 * byte for byte to "<path>.v<N>.backup" (".1", ".2" … appended when that
 * exists; 0600, never overwritten), then replaces path with the converted
 * document. A file that is ours or absent is left alone (m->from_schema 0).
 * -1 with err when the file cannot be read, parsed or written (nothing
 * replaced). */
int zgrants_go_migrate(const char *path, zgrants_go_migration *m, zerr *err);

/* The notice a migration gives once: "sandbox grants updated …" with the
 * counts and the backup's path. Caller frees. */
char *zgrants_go_notice(const zgrants_go_migration *m);

#endif
