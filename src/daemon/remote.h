/* remote.h — the daemon's TLS bridge (`zero daemon serve-remote`) and its
 * client (`zero daemon run|attach --remote`), Go zero's protocol:
 *
 *   1. TLS (1.2 at least; the client verifies the certificate and its name);
 *   2. the client's first frame is a control frame (frame.h) holding
 *      {"token": T, "version": V}; the bridge answers {"ok": true,
 *      "version": 1}, or {"ok": false, "message": "unauthorized"} after
 *      ZDMN_REMOTE_FAIL_DELAY_MS and closes;
 *   3. then the connection carries the daemon's own protocol (hello,
 *      hello_ok, one command, its stream), relayed byte for byte to the local
 *      daemon.sock, whose own checks (frame cap, versions) apply unchanged.
 *
 * The bridge is a process of its own beside the daemon (it needs the daemon
 * running; a connection made while it is not gets {"ok": false} saying so).
 * It never relays a byte before the token matched, compares tokens in
 * constant time (SHA-256 of each, so not even the length leaks), never logs
 * a token, holds at most ZDMN_REMOTE_CONNS_MAX connections (more are closed
 * at once) and gives each ZDMN_REMOTE_HANDSHAKE_MS for TLS and the token.
 * A thread per connection (at most 32), detached: the process ends with them.
 */
#ifndef ZERO_DAEMON_REMOTE_H
#define ZERO_DAEMON_REMOTE_H

#include "base/err.h"
#include "daemon/runtime.h"

#define ZDMN_REMOTE_CONNS_MAX 32
#define ZDMN_REMOTE_HANDSHAKE_MS 10000
#define ZDMN_REMOTE_FAIL_DELAY_MS 250
#define ZDMN_REMOTE_AUTH_MAX (64u << 10) /* the token frame's cap, checked before reading it */
#define ZDMN_REMOTE_DIAL_MS 15000        /* the client's connect + TLS + token */
#define ZDMN_REMOTE_TOKEN_ENV "ZERO_DAEMON_REMOTE_TOKEN"
#define ZDMN_REMOTE_TOKEN_FILE_ENV "ZERO_DAEMON_REMOTE_TOKEN_FILE"

/* The bearer token: $ZERO_DAEMON_REMOTE_TOKEN, else the contents of the
 * file $ZERO_DAEMON_REMOTE_TOKEN_FILE names, without surrounding white
 * space. Both variables are then removed from this process's environment,
 * so no child inherits them. Caller frees; NULL with err (ZE_CONFIG) when
 * neither gives a non-empty token. */
char *zdmn_remote_token_from_env(zerr *err);

/* Splits "HOST:PORT" or "[V6]:PORT" (HOST may be empty: every interface).
 * host and port are malloc'd. -1 with err (ZE_USAGE) when malformed. */
int zdmn_remote_split_addr(const char *addr, char **host, char **port, zerr *err);

typedef struct zdmn_bridge_opts {
  const char *addr, *cert_file, *key_file;
  const char *token; /* borrowed, non-empty */
  int handshake_ms;  /* 0: ZDMN_REMOTE_HANDSHAKE_MS */
  int max_conns;     /* 0: ZDMN_REMOTE_CONNS_MAX */
} zdmn_bridge_opts;

/* Serves until SIGTERM or SIGINT, logging to stderr. -1 with err when it
 * cannot start (bad certificate, address in use). */
int zdmn_bridge_serve(const zdmn_paths *p, const zdmn_bridge_opts *o, zerr *err);

typedef struct zdmn_remote_opts {
  const char *addr;        /* HOST:PORT */
  const char *token;       /* non-empty */
  const char *ca_file;     /* NULL: the system's roots */
  const char *server_name; /* NULL: HOST */
} zdmn_remote_opts;

typedef struct zdmn_remote zdmn_remote;

/* Connects through the bridge: TCP, TLS, the token, then hello/hello_ok
 * with the remote daemon. Returns an fd that speaks the daemon's protocol
 * exactly like zdmn_client_connect's (a local socket whose other end a
 * relay thread pumps to the TLS connection), with *out set for
 * zdmn_remote_close. -1 with err: ZE_PERM-like refusals are ZE_CONFIG
 * ("the remote bridge refused: unauthorized"). */
int zdmn_remote_connect(const zdmn_remote_opts *o, zdmn_remote **out, zerr *err);

/* Closes fd and the TLS connection, and joins the relay thread. */
void zdmn_remote_close(zdmn_remote *r, int fd);

#endif
