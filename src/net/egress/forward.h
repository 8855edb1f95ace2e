/* forward.h — the forwarder inside a sandbox whose network is "scoped".
 *
 * The sandbox's network namespace has only loopback. The inner stage
 * (sandbox/inner.c) binds 127.0.0.1:ZEG_SANDBOX_PORT there before it
 * confines itself and execs the command, and leaves this forwarder behind:
 * a process of the sandbox (no_new_privs, the same seccomp filter and
 * Landlock rules as the command, except that it may open Unix sockets).
 *
 * It moves no bytes. Each accepted client socket is handed to the proxy
 * itself over the proxy's Unix socket (bind-mounted into the sandbox): a
 * connection that sends one ZEG_PASS_MARK byte carrying the client's fd as
 * SCM_RIGHTS, then closes. The proxy then talks to the client's socket
 * directly, so a proxied byte crosses one relay (zero's), not two, and a
 * connection costs the forwarder an accept, a connect and a sendmsg — no
 * fork, no thread, no buffer. It is a grandchild of the inner stage, so the
 * command never sees it as a child; it ends with the sandbox (bwrap's pid
 * namespace).
 *
 * Passing an fd grants the proxy nothing it should not have: the fd is a
 * socket of the sandbox's own network namespace, which the proxy only reads
 * and writes as a client (anything but a connected stream socket is
 * dropped, proxy.c).
 */
#ifndef ZERO_NET_EGRESS_FORWARD_H
#define ZERO_NET_EGRESS_FORWARD_H

#include "base/err.h"

/* The first byte of a connection to the proxy that hands over a client fd
 * instead of speaking HTTP or SOCKS5 itself (neither begins with NUL). */
#define ZEG_PASS_MARK '\0'

/* Binds and listens on 127.0.0.1:port. The fd, or -1 with err. */
int zeg_forward_listen(int port, zerr *err);

/* Hands client (not closed) to the proxy listening on socket_path, as
 * above. 0, or -1 when the proxy cannot be reached. */
int zeg_forward_pass(int client, const char *socket_path);

/* Forks the forwarder for listen_fd (closed in the caller afterwards) and
 * socket_path, detached from the caller (double fork); confine() runs in it
 * before it serves (NULL: none) and its failure ends it. 0, or -1 with err
 * when the fork failed. */
int zeg_forward_spawn(int listen_fd, const char *socket_path, int (*confine)(void *ud),
                      void *ud, zerr *err);

#endif
