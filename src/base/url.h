/* url.h — the one URL parser for http(s) URLs zero checks before curl sees
 * them (credential checks, OAuth discovery): origin, host, loopback.
 * (Where libcurl is already loaded, net/http.c and tools/web_fetch.c ask
 * libcurl's URL API, so nothing loads curl just to read a URL.)
 *
 * Deliberately strict: a base URL that does not parse as plain
 * http(s)://host[:port][/path] is rejected rather than guessed at, so that a
 * crafted URL can never make our idea of "the host" differ from curl's.
 */
#ifndef ZERO_BASE_URL_H
#define ZERO_BASE_URL_H

#include <stdbool.h>
#include <stddef.h>

/* The parts of an http(s) URL, as zurl_parse reads them. */
typedef struct zurl {
  char scheme[8];  /* "http" or "https" */
  char host[256];  /* lowercased, IPv6 without brackets, trailing dots dropped */
  int port;        /* explicit, or the scheme's default */
  bool ipv6;
  size_t path_at;  /* offset in the URL where the authority ends (path, '?', '#' or NUL) */
} zurl;

/* Parses url as http(s)://[userinfo@]host[:port][/path][?query][#fragment]
 * (userinfo ends at the last '@' of the authority, as curl reads it).
 * false, out undefined, for anything else. */
bool zurl_parse(const char *url, zurl *out);

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

/* file:// URIs (RFC 8089) for absolute local paths, as LSP and MCP roots use
 * them: "file://" + the path with every byte outside the unreserved and
 * path sub-delimiter set percent-encoded. Caller frees. */
char *zurl_from_path(const char *abs_path);
/* The absolute path of a "file://" URI (an empty or "localhost" authority;
 * percent escapes decoded), or NULL for anything else, including an escape
 * that decodes to NUL. Caller frees. */
char *zurl_to_path(const char *uri);

#endif
