/* forward.h — the forwarder inside a sandbox whose network is "scoped".
 *
 * The sandbox's network namespace has only loopback. The inner stage
 * (sandbox/inner.c) binds 127.0.0.1:ZEG_SANDBOX_PORT there before it
 * confines itself and execs the command, and leaves this forwarder behind:
 * a process of the sandbox (no_new_privs, the same seccomp filter and
 * Landlock rules as the command, except that it may open Unix sockets) that
 * connects each accepted client to the proxy's Unix socket, bind-mounted
 * into the sandbox, and relays the bytes. It is a grandchild of the inner
 * stage, so the command never sees it as a child; it ends with the sandbox
 * (bwrap's pid namespace).
 */
#ifndef ZERO_NET_EGRESS_FORWARD_H
#define ZERO_NET_EGRESS_FORWARD_H

#include "base/err.h"

/* Binds and listens on 127.0.0.1:port. The fd, or -1 with err. */
int zeg_forward_listen(int port, zerr *err);

/* Forks the forwarder for listen_fd (closed in the caller afterwards) and
 * socket_path, detached from the caller (double fork); confine() runs in it
 * before it serves (NULL: none) and its failure ends it. 0, or -1 with err
 * when the fork failed. */
int zeg_forward_spawn(int listen_fd, const char *socket_path, int (*confine)(void *ud),
                      void *ud, zerr *err);

#endif
