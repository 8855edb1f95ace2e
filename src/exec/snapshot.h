/* snapshot.h — which workspace files a command created, modified or deleted.
 *
 * A snapshot records (size, mtime, inode) of every file under a root before
 * a command runs; a second one after it is compared with the first. Big
 * generated directories (node_modules/, target/, .venv/, …) count as one
 * entry each (their own directory stat), .git is skipped, and past
 * ZSNAP_MAX_FILES entries the snapshot gives up (and says so) rather than
 * stall the command.
 */
#ifndef ZERO_EXEC_SNAPSHOT_H
#define ZERO_EXEC_SNAPSHOT_H

#include <jansson.h>
#include <stdbool.h>

#include "base/buf.h"

#define ZSNAP_MAX_FILES 20000

typedef struct zsnap zsnap;

/* Never NULL; a root that cannot be read gives an empty snapshot. */
zsnap *zsnap_take(const char *root);
bool zsnap_gave_up(const zsnap *s);
void zsnap_free(zsnap *s);

/* Appends "files changed: …" lines to text (nothing when nothing changed)
 * and returns {created:[], modified:[], deleted:[]} (new reference; NULL when
 * either snapshot gave up). */
json_t *zsnap_diff(const zsnap *before, const zsnap *after, zbuf *text);

#endif
