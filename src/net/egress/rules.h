/* rules.h — the egress policy of `sandbox.network: "scoped"`: which hosts a
 * sandboxed command may reach through zero's egress proxy (proxy.h).
 *
 * A decision is made twice for every connection:
 *   1. by name (zeg_rules_decide): the host as the client wrote it,
 *      normalized (zeg_host_normalize), against the deny list (deny wins),
 *      then the allow list, then — when the project config gave its own
 *      allow list — that list too (a project can only narrow); an IP literal
 *      is never matched by a name pattern, only by an IP entry of the user's;
 *      the port must be 443 or 80 unless the matching entry names it
 *      (`host:8080`);
 *   2. by address (zeg_rules_address_ok), for each address the name resolved
 *      to: private, loopback, link-local (cloud metadata), unique-local,
 *      multicast and unspecified addresses (zeg_addr_is_internal) are refused
 *      unless an IP entry of the user config (`127.0.0.1`, `10.0.0.0/8`)
 *      covers them. The proxy then connects to exactly the checked address,
 *      never to a second resolution of the name (DNS rebinding).
 *
 * Patterns: `example.com` (that host only), `*.example.com` (any name below
 * it, not example.com itself), `*` (any host: what `network: "allow"` in the
 * user config means to a project's narrowing list), each optionally with
 * `:port`; an IPv4 or IPv6 address, optionally `/prefix`. Names are ASCII
 * (an internationalized name is written in its xn-- form), compared without
 * case and without a trailing dot.
 */
#ifndef ZERO_NET_EGRESS_RULES_H
#define ZERO_NET_EGRESS_RULES_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "base/err.h"

#define ZEG_HOST_MAX 254 /* 253 octets of a DNS name + NUL */

/* One parsed pattern. */
typedef struct zeg_pattern {
  char host[ZEG_HOST_MAX]; /* normalized; "" for an address entry; "*" = any */
  bool wildcard;           /* "*.host": names strictly below host */
  int port;                /* 0 = the default ports 443 and 80 */
  bool is_addr;            /* an address or CIDR entry */
  int family;              /* AF_INET / AF_INET6 for an address entry */
  unsigned char addr[16];  /* network order */
  int prefix;              /* bits */
} zeg_pattern;

typedef struct zeg_list {
  zeg_pattern *v;
  size_t n;
} zeg_list;

/* The rules of one run. The caller fills the lists with zeg_list_add and
 * frees them with zeg_rules_release. */
typedef struct zeg_rules {
  zeg_list allow;     /* user config + --allow-domain (IP entries count only here) */
  zeg_list deny;      /* user and project config */
  zeg_list narrow;    /* the project's own allow list; empty = no narrowing */
  bool narrowed;      /* the project gave an allow list (even an empty one) */
} zeg_rules;

/* Normalizes a host as a client wrote it into out (lowercase, one trailing
 * dot dropped, brackets of an IPv6 literal removed). false when it is no
 * valid host: empty, too long, a character outside letters, digits, '-',
 * '.', an empty label, or non-ASCII (an IDN must arrive in xn-- form). */
bool zeg_host_normalize(const char *host, char *out, size_t cap);

/* Splits the authority a (len bytes: "host:port" or "[v6]:port"; the port
 * required when need_port, else dflt when absent) into a normalized host
 * and the port. false when malformed (userinfo, a bare IPv6 address, a
 * port outside 1-65535, an invalid host). */
bool zeg_split_authority(const char *a, size_t len, bool need_port, int dflt, char *host,
                         size_t cap, int *port);

/* When host (normalized) is an IP literal in any form a resolver would
 * accept — dotted quad, and also decimal (2130706433), octal (0177.0.0.1),
 * hex (0x7f.1) and short forms (127.1), or IPv6 — stores it in *ss and
 * returns true. */
bool zeg_parse_ip(const char *host, struct sockaddr_storage *ss);

/* true for an address zero never dials on a name's behalf: 0/8, 10/8,
 * 100.64/10 (carrier NAT), 127/8, 169.254/16 (link-local, cloud metadata),
 * 172.16/12, 192.168/16, 192.0.0/24, 198.18/15, 224/4 and above, and for
 * IPv6 ::, ::1, fc00::/7, fe80::/10, ff00::/8, plus IPv4-mapped,
 * IPv4-compatible, NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses
 * whose IPv4 part is one of those. */
bool zeg_addr_is_internal(const struct sockaddr *sa);

/* Parses one pattern (see the header comment). -1 with err naming it and
 * what a valid one looks like. */
int zeg_pattern_parse(const char *text, zeg_pattern *out, zerr *err);

/* Appends the parsed pattern text to l. -1 with err (l unchanged). */
int zeg_list_add(zeg_list *l, const char *text, zerr *err);
void zeg_list_release(zeg_list *l);

void zeg_rules_release(zeg_rules *r);

typedef enum zeg_verdict {
  ZEG_ALLOW,   /* on the allow list (and the project's, when it has one) */
  ZEG_DENY,    /* on the deny list, refused by the project, or a bad port */
  ZEG_UNKNOWN, /* on no list: asked about when a prompt is possible, else denied */
} zeg_verdict;

/* The decision by name for host (normalized) and port; why (may be NULL)
 * gets a short reason for a denial ("on sandbox.deniedDomains", …). */
zeg_verdict zeg_rules_decide(const zeg_rules *r, const char *host, int port, char *why,
                             size_t cap);

/* true when sa may be dialled: a public address, or one that an IP entry of
 * r->allow covers. */
bool zeg_rules_address_ok(const zeg_rules *r, const struct sockaddr *sa);

#endif
