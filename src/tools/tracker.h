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

#endif
