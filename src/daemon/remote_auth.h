/* remote_auth.h — module-internal to daemon/remote*.c: the token frame over
 * TLS and the token comparison both ends of the bridge share (remote.h is
 * the public side). */
#ifndef ZERO_DAEMON_REMOTE_AUTH_H
#define ZERO_DAEMON_REMOTE_AUTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "daemon/remote.h"
#include "net/tls.h"

/* Constant time whatever the inputs: compares SHA-256 digests, so neither
 * the position of the first difference nor the token's length shows. */
bool zdmn_remote_token_equal(const char *a, const char *b);

/* One control frame holding msg, before the deadline. 0 or -1 with err. */
int zdmn_remote_send(ztls_conn *t, const json_t *msg, int64_t deadline, zerr *err);

/* One control frame holding a JSON object, at most ZDMN_REMOTE_AUTH_MAX
 * bytes (checked before the payload is read). New reference, or NULL with
 * err (ZE_NOT_FOUND: closed before a byte; ZE_TOO_LARGE; ZE_INVALID;
 * ZE_TIMEOUT). */
json_t *zdmn_remote_recv(ztls_conn *t, int64_t deadline, zerr *err);

#endif
