/* rules.c — egress patterns, host normalization, address classes and the
 * decision by name; see rules.h. */
#include "net/egress/rules.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/common.h"

bool zeg_host_normalize(const char *host, char *out, size_t cap) {
  if (!host || cap < 2) return false;
  size_t n = strlen(host);
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']') { /* [::1] */
    host++;
    n -= 2;
  }
  if (n > 0 && host[n - 1] == '.') n--; /* "example.com." is example.com */
  if (n == 0 || n >= cap || n > 253) return false;
  bool v6 = memchr(host, ':', n) != NULL;
  size_t label = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)host[i];
    if (c >= 0x80) return false; /* IDN: clients send the xn-- form */
    bool ok = isalnum(c) || c == '-' || c == '.' || (v6 && (c == ':' || c == '%'));
    if (!ok) return false;
    if (c == '.') {
      if (label == 0) return false; /* "a..b", ".a" */
      label = 0;
    } else if (++label > 63) {
      return false;
    }
    out[i] = (char)tolower(c);
  }
  out[n] = '\0';
  if (label == 0) return false; /* "a.b.." ends in an empty label */
  if (v6) {
    struct in6_addr a;
    return inet_pton(AF_INET6, out, &a) == 1; /* no zone ids, no junk with colons */
  }
  return true;
}

bool zeg_parse_ip(const char *host, struct sockaddr_storage *ss) {
  memset(ss, 0, sizeof *ss);
  struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
  /* inet_aton accepts every IPv4 spelling getaddrinfo and curl accept
   * (127.1, 2130706433, 0177.0.0.1, 0x7f.0.0.1): a host that parses here is
   * an address, whatever it looks like. */
  if (inet_aton(host, &s4->sin_addr)) {
    s4->sin_family = AF_INET;
    return true;
  }
  if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
    s6->sin6_family = AF_INET6;
    return true;
  }
  return false;
}

static bool v4_internal(uint32_t a) {
  static const struct {
    uint32_t net;
    int bits;
  } internal[] = {
      {0x00000000u, 8},  {0x0a000000u, 8},  {0x64400000u, 10}, {0x7f000000u, 8},
      {0xa9fe0000u, 16}, {0xac100000u, 12}, {0xc0000000u, 24}, {0xc0a80000u, 16},
      {0xc6120000u, 15}, {0xe0000000u, 3}, /* 224/4 multicast and 240/4 reserved */
  };
  for (size_t i = 0; i < ZARRAY_LEN(internal); i++) {
    uint32_t mask = internal[i].bits ? ~0u << (32 - internal[i].bits) : 0;
    if ((a & mask) == internal[i].net) return true;
  }
  return false;
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool v6_internal(const unsigned char *b) {
  static const unsigned char zero12[12] = {0};
  static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b};
  /* Addresses that carry an IPv4 address are judged by it: ::ffff:a.b.c.d
   * (mapped), ::a.b.c.d (compatible, and :: and ::1 themselves), the
   * well-known NAT64 prefix and 6to4. */
  if (!memcmp(b, zero12, 12)) return be32(b + 12) <= 1 || v4_internal(be32(b + 12));
  if (!memcmp(b, mapped, 12) || !memcmp(b, nat64, 12)) return v4_internal(be32(b + 12));
  if (b[0] == 0x20 && b[1] == 0x02) return v4_internal(be32(b + 2));
  if ((b[0] & 0xfe) == 0xfc) return true;                 /* fc00::/7 unique local */
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true; /* fe80::/10 link-local */
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return true; /* fec0::/10 old site-local */
  return b[0] == 0xff;                                    /* multicast */
}

bool zeg_addr_is_internal(const struct sockaddr *sa) {
  if (sa->sa_family == AF_INET)
    return v4_internal(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
  if (sa->sa_family == AF_INET6)
    return v6_internal(((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr);
  return true; /* anything else is nothing to dial */
}

/* "addr" or "addr/prefix" into p. false when text is no address. */
static bool parse_addr_entry(const char *text, zeg_pattern *p) {
  char buf[80];
  if (strlen(text) >= sizeof buf) return false;
  snprintf(buf, sizeof buf, "%s", text);
  char *slash = strchr(buf, '/');
  if (slash) *slash = '\0';
  const char *a = buf;
  size_t n = strlen(buf);
  if (n >= 2 && buf[0] == '[' && buf[n - 1] == ']') {
    buf[n - 1] = '\0';
    a = buf + 1;
  }
  /* Entries are strict dotted quads: "10.1" as a pattern is a mistake, not
   * 10.0.0.1. */
  if (inet_pton(AF_INET, a, p->addr) == 1) p->family = AF_INET;
  else if (inet_pton(AF_INET6, a, p->addr) == 1) p->family = AF_INET6;
  else return false;
  int max = p->family == AF_INET ? 32 : 128;
  p->prefix = max;
  if (slash) {
    char *end;
    long bits = strtol(slash + 1, &end, 10);
    if (end == slash + 1 || *end || bits < 0 || bits > max) return false;
    p->prefix = (int)bits;
  }
  p->is_addr = true;
  return true;
}

/* A trailing ":port" of a name pattern: stores it and cuts it off. false
 * when the port is malformed. */
static bool split_port(char *s, int *port) {
  char *colon = strrchr(s, ':');
  if (!colon) return true;
  char *end;
  long v = strtol(colon + 1, &end, 10);
  if (end == colon + 1 || *end || v < 1 || v > 65535) return false;
  *port = (int)v;
  *colon = '\0';
  return true;
}

int zeg_pattern_parse(const char *text, zeg_pattern *out, zerr *err) {
  memset(out, 0, sizeof *out);
  if (!text || !*text) return zerr_set(err, ZE_USAGE, "an empty domain pattern");
  if (parse_addr_entry(text, out)) return 0;
  char buf[ZEG_HOST_MAX + 8];
  if (strlen(text) >= sizeof buf)
    return zerr_set(err, ZE_USAGE, "domain pattern \"%.60s…\" is too long", text);
  snprintf(buf, sizeof buf, "%s", text);
  if (!split_port(buf, &out->port))
    return zerr_set(err, ZE_USAGE, "domain pattern \"%s\": the port after ':' must be 1-65535",
                    text);
  const char *h = buf;
  if (!strcmp(h, "*")) {
    snprintf(out->host, sizeof out->host, "*");
    return 0;
  }
  if (!strncmp(h, "*.", 2)) {
    out->wildcard = true;
    h += 2;
  }
  struct sockaddr_storage ss;
  if (!zeg_host_normalize(h, out->host, sizeof out->host) || strchr(out->host, '*') ||
      (!out->wildcard && zeg_parse_ip(out->host, &ss) && strchr(out->host, ':')))
    return zerr_set(err, ZE_USAGE,
                    "malformed domain pattern \"%s\": write a host (example.com), a wildcard "
                    "below one (*.example.com), optionally with :port, or an IP address or "
                    "CIDR (10.0.0.0/8); an internationalized name in its xn-- form",
                    text);
  if (zeg_parse_ip(out->host, &ss))
    return zerr_set(err, ZE_USAGE,
                    "domain pattern \"%s\" looks like an abbreviated IP address: write the "
                    "address as a dotted quad (10.0.0.1)",
                    text);
  return 0;
}

int zeg_list_add(zeg_list *l, const char *text, zerr *err) {
  zeg_pattern p;
  if (zeg_pattern_parse(text, &p, err) < 0) return -1;
  l->v = xrealloc(l->v, (l->n + 1) * sizeof *l->v);
  l->v[l->n++] = p;
  return 0;
}

void zeg_list_release(zeg_list *l) {
  free(l->v);
  l->v = NULL;
  l->n = 0;
}

void zeg_rules_release(zeg_rules *r) {
  zeg_list_release(&r->allow);
  zeg_list_release(&r->deny);
  zeg_list_release(&r->narrow);
  r->narrowed = false;
}

static bool addr_in(const zeg_pattern *p, const struct sockaddr *sa) {
  const unsigned char *b;
  if (sa->sa_family != p->family) {
    /* An IPv4-mapped IPv6 address is judged as the IPv4 address it is. */
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    const unsigned char *b6 = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
    if (sa->sa_family != AF_INET6 || p->family != AF_INET || memcmp(b6, mapped, 12)) return false;
    b = b6 + 12;
  } else {
    b = sa->sa_family == AF_INET
            ? (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr.s_addr
            : ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
  }
  int bits = p->prefix;
  for (int i = 0; bits > 0; i++, bits -= 8) {
    unsigned char mask = bits >= 8 ? 0xff : (unsigned char)(0xff << (8 - bits));
    if ((b[i] & mask) != (p->addr[i] & mask)) return false;
  }
  return true;
}

static bool port_ok(const zeg_pattern *p, int port) {
  return p->port ? p->port == port : port == 443 || port == 80;
}

/* true when the name pattern p covers host (port aside). */
static bool name_in(const zeg_pattern *p, const char *host) {
  if (p->is_addr) return false;
  if (!strcmp(p->host, "*")) return true;
  if (!p->wildcard) return !strcmp(p->host, host);
  size_t hl = strlen(host), pl = strlen(p->host);
  return hl > pl + 1 && host[hl - pl - 1] == '.' && !strcmp(host + hl - pl, p->host);
}

/* The first entry of l covering host:port: name entries for a name, address
 * entries for an address literal (ip non-NULL). want_port: the port must
 * match too. */
static const zeg_pattern *find(const zeg_list *l, const char *host, const struct sockaddr *ip,
                               int port, bool want_port) {
  for (size_t i = 0; i < l->n; i++) {
    const zeg_pattern *p = &l->v[i];
    bool hit = ip ? (p->is_addr ? addr_in(p, ip) : !strcmp(p->host, "*")) : name_in(p, host);
    if (hit && (!want_port || p->is_addr || port_ok(p, port))) return p;
  }
  return NULL;
}

zeg_verdict zeg_rules_decide(const zeg_rules *r, const char *host, int port, char *why,
                             size_t cap) {
  char scratch[8];
  if (!why) {
    why = scratch;
    cap = sizeof scratch;
  }
  why[0] = '\0';
  struct sockaddr_storage ss;
  const struct sockaddr *ip = zeg_parse_ip(host, &ss) ? (const struct sockaddr *)&ss : NULL;
  /* Deny wins, whatever the port: a denied host is denied on every port. */
  if (find(&r->deny, host, ip, port, false)) {
    snprintf(why, cap, "on sandbox.deniedDomains");
    return ZEG_DENY;
  }
  if (port < 1 || port > 65535) {
    snprintf(why, cap, "port %d is no port", port);
    return ZEG_DENY;
  }
  const zeg_pattern *a = find(&r->allow, host, ip, port, true);
  if (!a) {
    if (find(&r->allow, host, ip, port, false)) {
      snprintf(why, cap, "port %d is not allowed (only 443 and 80, unless an entry names the "
                         "port, e.g. \"%s:%d\")", port, host, port);
      return ZEG_DENY;
    }
    snprintf(why, cap, "on no list (sandbox.allowedDomains)");
    return ZEG_UNKNOWN;
  }
  if (r->narrowed && !find(&r->narrow, host, ip, port, true)) {
    snprintf(why, cap, "not on the project's sandbox.allowedDomains (a project can only narrow "
                       "the user's list)");
    return ZEG_DENY;
  }
  return ZEG_ALLOW;
}

bool zeg_rules_address_ok(const zeg_rules *r, const struct sockaddr *sa) {
  if (!zeg_addr_is_internal(sa)) return true;
  for (size_t i = 0; i < r->allow.n; i++)
    if (r->allow.v[i].is_addr && addr_in(&r->allow.v[i], sa)) return true;
  return false;
}

bool zeg_split_authority(const char *a, size_t len, bool need_port, int dflt, char *host,
                         size_t cap, int *port) {
  char buf[ZEG_HOST_MAX + 16];
  if (len == 0 || len >= sizeof buf || memchr(a, '@', len)) return false;
  memcpy(buf, a, len);
  buf[len] = '\0';
  char *colon = strrchr(buf, ':');
  if (buf[0] == '[') {
    char *close_br = strchr(buf, ']');
    if (!close_br) return false;
    colon = close_br[1] == ':' ? close_br + 1 : NULL;
    if (close_br[1] && !colon) return false;
  } else if (colon && strchr(buf, ':') != colon) {
    return false; /* a bare IPv6 address needs brackets */
  }
  *port = dflt;
  if (colon) {
    char *end;
    long v = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || v < 1 || v > 65535) return false;
    *port = (int)v;
    *colon = '\0';
  } else if (need_port) {
    return false;
  }
  return zeg_host_normalize(buf, host, cap);
}
