/* runtime.h — the daemon's files and who may use them.
 *
 * The runtime directory is $XDG_RUNTIME_DIR/zero, else ~/.zero (Go zero's).
 * It holds daemon.sock (the control socket: a Unix socket, never TCP, mode
 * 0600), daemon.lock (single instance), daemon.status (JSON: pid, socket,
 * version, startedAt; 0600) and daemon.log (the background daemon's output,
 * 0600). The directory must be the user's own and closed to others (0700):
 * the daemon makes it so when it is the user's, and refuses one owned by
 * anybody else; a client refuses to talk through a socket or directory that
 * another user owns or others may write, since whoever owns the socket would
 * receive the prompts and answer with arbitrary output.
 */
#ifndef ZERO_DAEMON_RUNTIME_H
#define ZERO_DAEMON_RUNTIME_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/err.h"

/* sun_path's limit on Linux (108 bytes with the NUL) would fail bind with a
 * cryptic error; Go zero checks 103 so a path valid here is valid on macOS. */
#define ZDMN_SOCKET_PATH_MAX 103

typedef struct zdmn_paths {
  char *dir, *socket, *lock, *status, *log; /* owned */
} zdmn_paths;

/* Fills p from the environment; fails (ZE_CONFIG) when neither
 * XDG_RUNTIME_DIR nor HOME is set, or when the socket path is too long
 * (the message names the path and the limit). */
int zdmn_paths_init(zdmn_paths *p, zerr *err);
void zdmn_paths_release(zdmn_paths *p);

/* The daemon's side: creates the directory (0700) when missing, tightens it
 * to 0700 when it is the user's, refuses it when it is not a directory or
 * not the user's. */
int zdmn_runtime_secure(const zdmn_paths *p, zerr *err);

/* The client's side: the directory and the socket exist, belong to this
 * user and are closed to others (socket: no group/other bits; directory:
 * not writable by group/other). ZE_NOT_FOUND when there is no socket (no
 * daemon), ZE_CONFIG (refused) for anything unsafe, with the reason. */
int zdmn_socket_check(const zdmn_paths *p, zerr *err);

/* The single-instance lock: flock on daemon.lock, holding our pid. A lock
 * file left by a dead daemon holds no flock and is simply taken over (the
 * kernel drops a dead process's locks, so two racing starts cannot both win).
 * Returns the lock's fd (keep it open for the daemon's life) or -1; when
 * another daemon holds it, ZE_CONFIG "already running (pid N)". */
int zdmn_lock_acquire(const zdmn_paths *p, zerr *err);

/* The pid recorded in daemon.lock, or 0. */
pid_t zdmn_lock_pid(const zdmn_paths *p);

/* Writes daemon.status atomically, 0600. started_at: RFC 3339. */
int zdmn_status_write(const zdmn_paths *p, pid_t pid, const char *started_at, zerr *err);

#endif
