/* proxy.h — zero's egress proxy: the only way out of a sandbox whose
 * network is "scoped".
 *
 * One proxy per run, in zero's process: a thread accepts on a Unix socket
 * (bind-mounted read-only into each sandbox, where the forwarder of
 * forward.h exposes it as 127.0.0.1:ZEG_SANDBOX_PORT), and one thread per
 * connection speaks, after sniffing the first byte:
 *   - HTTP CONNECT host:port (any TLS or other stream through it);
 *   - plain HTTP with an absolute-form target (GET http://host/path): the
 *     request goes upstream in origin form with `Connection: close`, so a
 *     second request on the connection cannot reach another host; a Host
 *     header naming another host than the target is refused;
 *   - SOCKS5, no authentication, CONNECT by name, IPv4 or IPv6 address.
 * Every target is decided by name, then resolved, then each address is
 * checked (rules.h); the proxy dials the checked address itself. A refusal
 * is a 403 whose body names the host, why, and how to allow it (SOCKS5:
 * reply 0x02); malformed input gets a 400 / SOCKS error and a closed
 * connection, never a crash of zero.
 *
 * Life cycle: zeg_proxy_start (socket made, thread running) … each command
 * reaches it … zeg_proxy_stop (listener closed, live connections cut,
 * threads joined, socket file removed). The rules are copied at start.
 */
#ifndef ZERO_NET_EGRESS_PROXY_H
#define ZERO_NET_EGRESS_PROXY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "net/egress/rules.h"

#define ZEG_SANDBOX_PORT 3128 /* the forwarder's port inside each sandbox */

/* One decision, for the run's record and the user. Strings are borrowed for
 * the call. */
typedef struct zeg_event {
  const char *kind;   /* "network_decision" (before dialling) or "network_request" (done) */
  const char *proto;  /* "connect", "http", "socks5"; "https": a request refused inside an
                       * inspected tunnel (inspect.h) */
  const char *host;   /* as normalized */
  int port;
  bool allowed;
  const char *reason; /* why it was refused; "" when allowed */
  uint64_t bytes_up, bytes_down; /* network_request only */
} zeg_event;

/* Called from the connection threads (at the same time for different
 * connections): must be thread-safe. */
typedef void (*zeg_event_fn)(void *ud, const zeg_event *e);

/* Asked about a host on no list (ZEG_UNKNOWN), from a connection thread,
 * which waits for the answer: true to allow this connection. NULL: such
 * hosts are denied. */
typedef bool (*zeg_ask_fn)(void *ud, const char *host, int port);

typedef struct zeg_inspector zeg_inspector; /* inspect.h */

typedef struct zeg_proxy_opts {
  const zeg_rules *rules;    /* copied */
  const char *socket_path;   /* created (an existing socket there is replaced); parent exists */
  const char *hosts_file;    /* NULL, or a hosts(5)-style file consulted before DNS (tests) */
  zeg_event_fn on_event;     /* may be NULL */
  void *ud;                  /* on_event's */
  zeg_ask_fn ask;            /* may be NULL */
  void *ask_ud;
  /* sandbox.inspectTLS (inspect.h; borrowed, outlives the proxy): every
   * CONNECT and SOCKS5 tunnel is TLS terminated and its requests checked;
   * a tunnel that does not start with a TLS handshake is refused. NULL:
   * tunnels are relayed as they are. */
  zeg_inspector *inspect;
} zeg_proxy_opts;

typedef struct zeg_proxy zeg_proxy;

/* Starts the proxy. NULL with err when the socket cannot be made (its path
 * longer than a Unix socket address holds, the directory not writable) or
 * the thread cannot start: the caller must then not run the command. */
zeg_proxy *zeg_proxy_start(const zeg_proxy_opts *o, zerr *err);

/* Stops and frees p (NULL is fine). */
void zeg_proxy_stop(zeg_proxy *p);

typedef struct zeg_proxy_stats {
  uint64_t connections, allowed, denied, bytes_up, bytes_down;
} zeg_proxy_stats;
void zeg_proxy_get_stats(zeg_proxy *p, zeg_proxy_stats *out);

/* The text of a refusal, for the 403 body and web tools: what was blocked,
 * why, and how to allow it. */
void zeg_denial_text(const char *host, int port, const char *reason, char *out, size_t cap);

#endif
