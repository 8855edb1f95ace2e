/* webutil.h — the pieces of web_fetch that need no network: which addresses
 * are public, and HTML to readable markdown. */
#ifndef ZERO_TOOLS_WEBUTIL_H
#define ZERO_TOOLS_WEBUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "base/buf.h"

/* NULL when addr is a public unicast address; otherwise a static description
 * of the range it is in ("loopback", "private (10.0.0.0/8)", "link-local /
 * cloud metadata", …). IPv4-mapped and NAT64 IPv6 addresses are judged by
 * the IPv4 address inside. allow_loopback (tests only) lets 127.0.0.0/8 by. */
const char *zweb_address_refusal(const struct sockaddr *addr, bool allow_loopback);

/* Appends readable markdown for html: headings, paragraphs, lists, links,
 * emphasis, code blocks, tables as rows; scripts, styles and comments
 * dropped; entities decoded; whitespace collapsed outside <pre>. The <title>
 * becomes a first-level heading when the body has none. */
void zweb_html_to_markdown(const char *html, size_t len, zbuf *out);

#endif
