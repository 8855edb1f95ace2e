/* tar.h — writing a ustar archive (POSIX.1-1988) of regular files from
 * memory, for `zero doctor --bundle`. Hand-written: a ustar member is one
 * 512-byte header and the data padded to 512 bytes, about 60 lines, where
 * libarchive would be a new dependency for this one use. Read by every tar
 * (GNU tar, bsdtar, Python's tarfile).
 *
 * The caller: 1. opens a FILE for writing; 2. ztar_add() each member;
 * 3. ztar_finish() (the two zero blocks that end an archive); 4. closes
 * the FILE and checks that close. */
#ifndef ZERO_BASE_TAR_H
#define ZERO_BASE_TAR_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "base/err.h"

/* Appends member `name` (relative, at most 99 bytes, no "..") holding
 * len bytes of data, mode 0644, owner 0, modified at mtime. Returns 0, or
 * -1 with a ZE_USAGE (bad name) or ZE_IO error. */
int ztar_add(FILE *f, const char *name, const void *data, size_t len, time_t mtime, zerr *err);

/* Ends the archive. Returns 0, or -1 with a ZE_IO error. */
int ztar_finish(FILE *f, zerr *err);

#endif
