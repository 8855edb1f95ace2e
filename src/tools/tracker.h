/* tracker.h — what the model has read in this session, so write_file only
 * replaces a file the model has seen, as it was when seen.
 *
 * One tracker per run (ztool_ctx.files; NULL = no tracking, e.g. `zero tools
 * run`). Thread-safe: read-only tools run in parallel.
 */
#ifndef ZERO_TOOLS_TRACKER_H
#define ZERO_TOOLS_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include <jansson.h>

typedef struct ztool_files ztool_files;

ztool_files *ztool_files_new(void);
void ztool_files_free(ztool_files *t);

/* Records that the model saw lines [first, last] (or bytes, with bytes set)
 * of abs as it is per st. Returns true when exactly that range was already
 * seen and the file has not changed since. */
bool ztool_files_note_read(ztool_files *t, const char *abs, const struct stat *st, size_t first,
                           size_t last, bool bytes);

typedef enum ztool_files_state {
  ZFILES_SEEN,      /* read, unchanged since */
  ZFILES_UNSEEN,    /* never read in this session */
  ZFILES_CHANGED,   /* read, but changed on disk since */
} ztool_files_state;

ztool_files_state ztool_files_check(ztool_files *t, const char *abs, const struct stat *st);

/* After zero itself wrote abs: its new state counts as seen. */
void ztool_files_note_write(ztool_files *t, const char *abs);

/* A file's state as the tracker compares it, for the session log:
 * {"path", "mtimeNs", "size", "ino"}. New reference. A tool that noted a read
 * or write puts these in its result's meta.seen, so that a resumed session
 * (ztool_files_seed) still knows what the model saw in its earlier runs. */
json_t *ztool_files_stamp(const char *abs, const struct stat *st);
/* Records a stamp's file as seen in that state (replacing what was known);
 * a malformed stamp is ignored. */
void ztool_files_seed(ztool_files *t, const json_t *stamp);

#endif
