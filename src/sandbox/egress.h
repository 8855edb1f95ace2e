/* egress.h — the sandbox's side of network "scoped": the rules from the
 * policy, the run's proxy, and what a command gets to reach it.
 *
 * Design (docs/sandbox.md, "Network"): a scoped command runs exactly like a
 * denied one — bwrap's own network namespace, loopback only — plus one
 * read-only bind of the proxy's Unix socket and the forwarder that the inner
 * stage starts inside (net/egress/forward.h). Nothing else is reachable:
 * a program that ignores the proxy variables finds no route out, and the
 * proxy decides every connection by name and by resolved address.
 */
#ifndef ZERO_SANDBOX_EGRESS_H
#define ZERO_SANDBOX_EGRESS_H

#include <stdbool.h>

#include "base/err.h"
#include "base/strvec.h"
#include "net/egress/proxy.h"
#include "net/egress/rules.h"
#include "sandbox/policy.h"

/* The egress rules of p: its allowed domains (with the user's IP entries),
 * denied domains and the project's narrowing list. -1 with err (a pattern
 * that no longer parses). The caller releases out. */
int zsb_egress_rules(const zsb_policy *p, zeg_rules *out, zerr *err);

/* The run's proxy: started for the first scoped command, stopped with the
 * run. */
/* What the run does with the proxy's decisions and questions. Denials are
 * always reported on zero's stderr too (one line saying how to allow the
 * host). */
typedef struct zsb_egress_hooks {
  zeg_event_fn on_event; /* every event (net/egress/queue.h); NULL: none */
  void *ud;
  zeg_ask_fn ask; /* a host on neither list (perm/net_ask.h); NULL: denied */
  void *ask_ud;
} zsb_egress_hooks;

typedef struct zsb_egress {
  zeg_proxy *proxy;
  char *socket_path;      /* owned */
  zsb_egress_hooks hooks; /* copied at start; the proxy's events go through eg */
  zeg_inspector *inspect; /* sandbox.inspectTLS; NULL when off */
} zsb_egress;

/* Starts the proxy for p: its socket in <runtime base>/.egress/ (0700),
 * ZERO_EGRESS_HOSTS (a hosts file, for tests) as its resolver override.
 * With p->inspect_tls, also the run's inspection CA (net/egress/tlsca.h),
 * written beside the socket (zsb_egress_file): "ca.pem" (the CA
 * certificate), "bundle.pem" (the CAs a sandboxed command trusts: the
 * system's, or network.caBundle, plus the run's) and "key.pem" (the CA key,
 * 0600; a sandbox sees none of the directory but the socket and the two
 * certificate files). hooks may be NULL. -1 with err: the command must then
 * not run (fail closed). */
int zsb_egress_start(zsb_egress *eg, const zsb_policy *p, const zsb_egress_hooks *hooks, zerr *err);
void zsb_egress_stop(zsb_egress *eg);

/* The egress lists as a guard for zero's own web tools (ztool_host_guard):
 * the run's rules and the same question for a host on neither list. The
 * caller: zsb_egress_guard_init … hands zsb_egress_host_refused and the
 * guard to the tools … zsb_egress_guard_release. */
typedef struct zsb_egress_guard {
  zeg_rules rules;
  zeg_ask_fn ask; /* NULL: a host on neither list is refused */
  void *ask_ud;
} zsb_egress_guard;
int zsb_egress_guard_init(zsb_egress_guard *g, const zsb_policy *p, zeg_ask_fn ask, void *ask_ud,
                          zerr *err);
void zsb_egress_guard_release(zsb_egress_guard *g);
/* ztool_host_guard.refused (ud: the guard). */
bool zsb_egress_host_refused(void *ud, const char *host, int port, char *why, size_t cap);

/* The file of the run's proxy named suffix ("ca.pem", "bundle.pem",
 * "key.pem"): beside socket_path, its ".sock" replaced. Caller frees. */
char *zsb_egress_file(const char *socket_path, const char *suffix);

/* true for an inherited variable a scoped command gets from zero instead:
 * the proxy variables in both cases, and with inspect the CA variables of
 * zsb_egress_env. */
bool zsb_egress_env_name(const char *kv, bool inspect);
/* Adds HTTP_PROXY, HTTPS_PROXY, ALL_PROXY (socks5h), NO_PROXY, in both
 * cases, pointing at the forwarder; with inspect (socket_path: the proxy's)
 * also SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, GIT_SSL_CAINFO,
 * PIP_CERT and CARGO_HTTP_CAINFO naming the bundle, and
 * NODE_EXTRA_CA_CERTS the CA certificate (Node adds it to its own). */
void zsb_egress_env(strvec *e, const char *socket_path, bool inspect);

#endif
