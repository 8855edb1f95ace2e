/* err.h — errors as values with a message.
 *
 * Functions that can fail take a `zerr *err` (may be NULL when the caller does
 * not care) and return a status (-1 / NULL on failure). The message says what
 * happened and, where it can, what to do. `kind` classifies the failure so the
 * CLI can map it to a documented exit code without parsing text. Every
 * message is redacted as it is made (base/redact.h): a URL, header or body
 * quoted in it never carries a credential to wherever it is printed.
 */
#ifndef ZERO_BASE_ERR_H
#define ZERO_BASE_ERR_H

#include <stdbool.h>

typedef enum zerr_kind {
  ZE_OK = 0,
  ZE_INTERNAL,  /* a bug or an impossible state */
  ZE_USAGE,     /* bad flags / arguments / malformed config (exit 2) */
  ZE_CONFIG,    /* config resolves but is unusable: missing key, bad provider (exit 3) */
  ZE_PROVIDER,  /* the model provider failed or refused (exit 3) */
  ZE_IO,        /* filesystem / OS error */
  ZE_NOT_FOUND, /* a named thing does not exist */
  ZE_INVALID,   /* input data is malformed */
  ZE_CANCELLED, /* interrupted by the user or a signal (exit 130) */
  ZE_TIMEOUT,
  ZE_TOO_LARGE,
} zerr_kind;

typedef struct zerr {
  zerr_kind kind;
  int http_status;   /* provider errors: the HTTP status, 0 if none */
  bool retryable;    /* a retry of the same operation may succeed */
  char msg[1024];
} zerr;

#define ZERR_INIT { ZE_OK, 0, false, "" }

/* Sets err (if non-NULL) and returns -1, so `return zerr_set(...)` reads well. */
int zerr_set(zerr *err, zerr_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like zerr_set, appending ": strerror(errno)". */
int zerr_errno(zerr *err, zerr_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prepends "prefix: " to an existing message. */
void zerr_prefix(zerr *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void zerr_clear(zerr *err);
const char *zerr_kind_name(zerr_kind kind);

#endif
