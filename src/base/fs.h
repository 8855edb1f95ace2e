/* fs.h — safe file I/O.
 *
 * zfs_write_atomic is the only way user data is replaced: write a temp file in
 * the same directory, fsync it, rename over the target, fsync the directory.
 * A crash at any point leaves either the old or the new file, never a torn one.
 */
#ifndef ZERO_BASE_FS_H
#define ZERO_BASE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/common.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/strvec.h"

/* Reads the whole file into out (appending). Fails with ZE_TOO_LARGE when the
 * file exceeds max_bytes (0 = no limit), ZE_NOT_FOUND when absent. */
int zfs_read_file(const char *path, zbuf *out, size_t max_bytes, zerr *err);

/* Atomically replaces path with data, created with `mode` (e.g. 0600). */
ZERO_WARN_UNUSED int zfs_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
                                      zerr *err);
/* The same rename-based replace; with durable false it skips both fsyncs, for
 * derived data that can be rebuilt (readers see the old or the new file, but
 * after a power failure the new one may be lost or empty). */
ZERO_WARN_UNUSED int zfs_write_atomic_ex(const char *path, const void *data, size_t len,
                                         mode_t mode, bool durable, zerr *err);

/* mkdir -p with the given mode for every created component. */
int zfs_mkdir_p(const char *path, mode_t mode, zerr *err);

/* Writes all of buf to fd, retrying on EINTR and short writes. */
ZERO_WARN_UNUSED int zfs_write_all(int fd, const void *buf, size_t len);
/* Writes all of buf to a connected socket with send(MSG_NOSIGNAL): a peer
 * that left is -1 (EPIPE), never a SIGPIPE. Retries EINTR; -1 on any other
 * error or a zero-byte send. */
int zfs_send_all(int fd, const void *buf, size_t len);

/* fsyncs the directory containing path (for durable create / rename). */
int zfs_fsync_parent(const char *path);

/* Takes an exclusive advisory lock that guards path's read-modify-write:
 * flock(LOCK_EX) on "<path>.lock" (created 0600 beside path, never through a
 * symlink; path's directory must exist). Blocks until the lock is free.
 * Returns the lock's fd (closing it releases the lock) or -1 with err set.
 * Every writer of a shared file (grants, tokens, user config) holds it while
 * it re-reads the file, changes it and writes it back, so two zero processes
 * never lose each other's change (last-writer-wins without it). */
ZERO_WARN_UNUSED int zfs_lock_path(const char *path, zerr *err);
/* The same, giving up after timeout_ms (-1: never) with a ZE_TIMEOUT error
 * that names the lock file and what holds it (what: "adding a worktree"). A
 * flock dies with its holder, so only a live, stuck holder keeps it. */
ZERO_WARN_UNUSED int zfs_lock_path_wait(const char *path, int timeout_ms, const char *what,
                                        zerr *err);

/* Appends to names the entries of dir whose names do not start with '.'
 * (no ".", "..", nor hidden files), sorted with strvec_sort so that what
 * is loaded from a folder does not depend on readdir's order. Returns how
 * many it appended, or -1 with errno set when dir cannot be read. */
int zfs_list_dir(const char *dir, strvec *names);

bool zfs_exists(const char *path);
bool zfs_is_dir(const char *path);
/* Removes path and everything under it; a symlink inside is removed, never
 * followed. Returns 0, or -1 with errno from the first failure. */
int zfs_remove_tree(const char *path);

#endif
