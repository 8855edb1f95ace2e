/* checkpoint.h — file snapshots before tool writes, and rewind.
 *
 * Before write_file / edit_file / apply_patch change a file, the previous
 * content is stored content-addressed in <session>/checkpoints/blobs/<sha256>
 * (0600; a file over ZCHECKPOINT_MAX_FILE is recorded as not restorable) and
 * a session_checkpoint event {sequence, tool, files:[{path, existed, sha256?,
 * mode?, size?, tooLarge?}]} is appended; a file that did not exist is
 * recorded as such, so rewind deletes it.
 *
 * Rewind to event N restores every file to its content at that point (the
 * earliest snapshot taken after N, per path), cuts the log after N, removes
 * blobs no remaining event references, and appends a session_rewind event.
 * Files changed by shell commands after N cannot be restored; they are
 * reported (the commands are listed), never silently skipped.
 */
#ifndef ZERO_SESSION_CHECKPOINT_H
#define ZERO_SESSION_CHECKPOINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "session/store.h"

#define ZCHECKPOINT_MAX_FILE ((size_t)5 << 20) /* 5 MiB per file */

typedef struct zcheckpointer zcheckpointer;

/* A checkpointer recording into session s (borrowed); diag gets warnings. */
zcheckpointer *zcheckpointer_new(zsession *s, FILE *diag);
void zcheckpointer_free(zcheckpointer *c);

/* Called after each snapshot is recorded, with the session event's sequence,
 * the tool and the file's path (stream-json "checkpoint", tool_result
 * changedFiles). fn NULL = nobody is told. */
typedef void (*zcheckpoint_notify_fn)(void *ud, int64_t sequence, const char *tool,
                                      const char *abs_path);
void zcheckpointer_set_notify(zcheckpointer *c, zcheckpoint_notify_fn fn, void *ud);

/* The ztool_write_hook.before_write function (ud = the checkpointer). Saves
 * abs_path's current content; refuses the write (returns -1, *message set,
 * caller frees) only when the snapshot cannot be stored, since a write that
 * could not be undone must not happen silently. */
int zcheckpoint_before_write(void *ud, const char *tool, const char *abs_path, char **message);

/* Plans (dry_run) or performs a rewind of session id to event `to`
 * (sequence). *plan_out receives {toSequence, lastSequence, removedEvents,
 * restore:[{path, action: restore|delete|unchanged, mode?}], notRestorable:
 * [{path, reason}], shellCommands:[{sequence, command}]} (new reference).
 * Takes the session lock. */
int zsession_rewind(const char *root, const char *id, int64_t to, bool dry_run,
                    json_t **plan_out, zerr *err);

#endif
