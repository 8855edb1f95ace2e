/* endpoint.h — the small URL facts the credential checks need.
 *
 * Deliberately strict: a base URL that does not parse as plain
 * http(s)://host[:port][/path] is rejected rather than guessed at, so that a
 * crafted URL can never make our idea of "the host" differ from curl's.
 */
#ifndef ZERO_CONFIG_ENDPOINT_H
#define ZERO_CONFIG_ENDPOINT_H

#include <stdbool.h>

/* "<scheme>://<host>:<port>" of an http or https URL, lowercased, userinfo
 * dropped, default port made explicit, IPv6 hosts in brackets; NULL when the
 * URL is not of that shape. Two URLs with the same origin reach the same
 * server over the same protocol. Caller frees. */
char *zurl_origin(const char *url);

/* The host part of an http(s) URL (lowercased, IPv6 without brackets), or
 * NULL. Caller frees. */
char *zurl_host(const char *url);

/* true for localhost, 127.0.0.0/8, ::1 and IPv4-mapped 127.x addresses. */
bool zurl_host_is_loopback(const char *host);

/* true when url parses and its host is loopback. */
bool zurl_is_loopback(const char *url);

#endif
