/* base64.h — base64 (RFC 4648), the one encoder: images sent to models
 * (standard, padded), OAuth's PKCE strings (base64url, no padding) and HTTP
 * Basic credentials (standard, padded).
 */
#ifndef ZERO_BASE_BASE64_H
#define ZERO_BASE_BASE64_H

#include <stddef.h>

#include "base/buf.h"

/* Appends the standard base64 of data (n bytes), with '=' padding, to out. */
void zbase64_add(zbuf *out, const void *data, size_t n);
/* Appends the base64url of data (RFC 4648 §5: '-' and '_'), without padding. */
void zbase64url_add(zbuf *out, const void *data, size_t n);
/* The decoded size of standard base64 text s (n bytes; padding optional, no
 * whitespace), or -1 when it is not base64. Checks only, decodes nothing. */
long long zbase64_decoded_len(const char *s, size_t n);

#endif
