/* url.c — the http(s) URL parser: origin / host / loopback; see url.h. */
#include "base/url.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/common.h"
#include "base/num.h"

static bool host_char_ok(char c) {
  return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

bool zurl_parse(const char *url, zurl *out) {
  if (!url) return false;
  const char *sep = strstr(url, "://");
  if (!sep) return false;
  size_t slen = (size_t)(sep - url);
  if (slen == 4 && !strncasecmp(url, "http", 4)) {
    snprintf(out->scheme, sizeof out->scheme, "http");
    out->port = 80;
  } else if (slen == 5 && !strncasecmp(url, "https", 5)) {
    snprintf(out->scheme, sizeof out->scheme, "https");
    out->port = 443;
  } else {
    return false;
  }
  const char *a = sep + 3;
  size_t alen = strcspn(a, "/?#");
  /* Userinfo ends at the LAST '@' of the authority, as curl reads it:
   * https://api.openai.com@evil.example/ is a request to evil.example. */
  const char *at = NULL;
  for (size_t i = 0; i < alen; i++)
    if (a[i] == '@') at = a + i;
  const char *h = at ? at + 1 : a;
  const char *end = a + alen;
  out->path_at = (size_t)(end - url);
  const char *hend;
  out->ipv6 = false;
  if (h < end && *h == '[') {
    const char *close = memchr(h, ']', (size_t)(end - h));
    if (!close) return false;
    size_t n = (size_t)(close - h - 1);
    if (n == 0 || n >= sizeof out->host) return false;
    for (size_t i = 0; i < n; i++)
      if (!isxdigit((unsigned char)h[1 + i]) && h[1 + i] != ':' && h[1 + i] != '.') return false;
    memcpy(out->host, h + 1, n);
    out->host[n] = '\0';
    out->ipv6 = true;
    hend = close + 1;
  } else {
    hend = h;
    while (hend < end && *hend != ':') hend++;
    size_t n = (size_t)(hend - h);
    if (n == 0 || n >= sizeof out->host) return false;
    for (size_t i = 0; i < n; i++)
      if (!host_char_ok(h[i])) return false;
    memcpy(out->host, h, n);
    out->host[n] = '\0';
    while (n > 1 && out->host[n - 1] == '.') out->host[--n] = '\0';
  }
  if (hend < end) {
    if (*hend != ':') return false;
    const char *p = hend + 1;
    if (p < end) {
      long port = 0;
      for (; p < end; p++) {
        if (!isdigit((unsigned char)*p)) return false;
        port = port * 10 + (*p - '0');
        if (port > 65535) return false;
      }
      if (port == 0) return false;
      out->port = (int)port;
    }
  }
  for (char *c = out->host; *c; c++) *c = (char)tolower((unsigned char)*c);
  return true;
}

char *zurl_origin(const char *url) {
  zurl u;
  if (!zurl_parse(url, &u)) return NULL;
  zbuf b = ZBUF_INIT;
  zbuf_addf(&b, u.ipv6 ? "%s://[%s]:%d" : "%s://%s:%d", u.scheme, u.host, u.port);
  return zbuf_detach(&b, NULL);
}

char *zurl_host(const char *url) {
  zurl u;
  return zurl_parse(url, &u) ? xstrdup(u.host) : NULL;
}

bool zurl_host_is_loopback(const char *host) {
  if (!host) return false;
  if (!strcasecmp(host, "localhost")) return true;
  struct in_addr a4;
  if (inet_pton(AF_INET, host, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
  struct in6_addr a6;
  if (inet_pton(AF_INET6, host, &a6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&a6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
  }
  return false;
}

bool zurl_is_loopback(const char *url) {
  zurl u;
  return zurl_parse(url, &u) && zurl_host_is_loopback(u.host);
}

char *zurl_from_path(const char *abs_path) {
  zbuf uri = ZBUF_INIT;
  zbuf_addstr(&uri, "file://");
  /* Percent-encode what a URI path may not hold raw. */
  for (const unsigned char *p = (const unsigned char *)abs_path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("/-._~!$&'()*+,;=:@", *p))
      zbuf_addch(&uri, (char)*p);
    else
      zbuf_addf(&uri, "%%%02X", *p);
  }
  return zbuf_detach(&uri, NULL);
}

char *zurl_to_path(const char *uri) {
  if (!uri || strncasecmp(uri, "file://", 7) != 0) return NULL;
  const char *p = uri + 7;
  if (!strncasecmp(p, "localhost/", 10)) p += 9;
  if (*p != '/') return NULL;
  zbuf out = ZBUF_INIT;
  for (; *p && *p != '?' && *p != '#'; p++) {
    int hi, lo;
    if (*p != '%') {
      zbuf_addch(&out, *p);
    } else if ((hi = znum_hex_digit((unsigned char)p[1])) >= 0 &&
               (lo = znum_hex_digit((unsigned char)p[2])) >= 0 && (hi | lo)) {
      zbuf_addch(&out, (char)(hi * 16 + lo));
      p += 2;
    } else {
      zbuf_release(&out);
      return NULL;
    }
  }
  return zbuf_detach(&out, NULL);
}
