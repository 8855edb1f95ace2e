/* ids.h — identifiers. */
#ifndef ZERO_BASE_IDS_H
#define ZERO_BASE_IDS_H

#include <stdbool.h>
#include <stddef.h>

#define ZID_UUID_LEN 37 /* 36 chars + NUL */

/* A random (version 4) UUID in canonical lowercase form. */
void zid_uuid4(char out[ZID_UUID_LEN]);
/* A time-ordered (version 7) UUID: sorts by creation time. */
void zid_uuid7(char out[ZID_UUID_LEN]);
/* Fills buf with n cryptographically random bytes (getrandom). */
void zid_random(void *buf, size_t n);
/* true when s is a safe single path component id: [A-Za-z0-9_-], 1..128 chars.
 * Checked before any path is built from an id. */
bool zid_is_safe(const char *s);

#endif
