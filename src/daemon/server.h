/* server.h — the daemon: one process, one thread, one poll() loop
 * (daemon/evloop.h) over the control socket, the clients, the workers'
 * output and exits, and the retry timers.
 *
 * zdmn_serve is the whole life, as one story:
 *   1. secure the runtime directory, take the single-instance lock;
 *   2. bind daemon.sock (0600 from the start: umask 077 around bind; a stale
 *      socket left by a dead daemon is removed first: we hold the lock);
 *   3. write daemon.status; serve until `shutdown` or SIGTERM / SIGINT;
 *   4. drain: no new clients or sessions; queued sessions fail; running
 *      workers get ZDMN_DRAIN_GRACE_MS to finish, then their groups are
 *      killed; attached clients get each session's end;
 *   5. remove daemon.sock and daemon.status, release the lock.
 *
 * A client connection is: hello → hello_ok (version negotiated; a client
 * whose version is not a positive integer gets `error`), then one command
 * within ZDMN_HANDSHAKE_MS (run, attach, status, shutdown). Only the
 * daemon's own user (or root) may connect (SO_PEERCRED), on top of the
 * socket's 0600. A client that reads too slowly to keep up with a session
 * (ZDMN_CONN_OUT_MAX bytes waiting) is detached; the session goes on.
 */
#ifndef ZERO_DAEMON_SERVER_H
#define ZERO_DAEMON_SERVER_H

#include "base/err.h"
#include "daemon/retry.h"
#include "daemon/runtime.h"

#define ZDMN_SLOTS_DEFAULT 4
#define ZDMN_DRAIN_GRACE_MS 5000
#define ZDMN_HANDSHAKE_MS 10000
#define ZDMN_CONNS_MAX 128
#define ZDMN_CONN_OUT_MAX (16u << 20)

typedef struct zdmn_server_opts {
  int slots;              /* workers at once (ZDMN_SLOTS_DEFAULT) */
  const char *worker_exe; /* the program a worker runs: zero itself */
  zdmn_clock clock;
  const char *version; /* zero's, for the log and the status report */
  int handshake_ms;    /* hello + command deadline (ZDMN_HANDSHAKE_MS when 0) */
} zdmn_server_opts;

/* Runs the daemon in this process until it is stopped. Returns 0 after a
 * clean stop, -1 with err when it could not start (lock held: ZE_CONFIG
 * "already running"). Logs to stderr. */
int zdmn_serve(const zdmn_paths *p, const zdmn_server_opts *o, zerr *err);

#endif
