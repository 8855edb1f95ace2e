/* err.c — errors as values; see err.h. */
#include "base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/redact.h"

/* Resets err to kind with the formatted message; vsnprintf's result. */
static int vset(zerr *err, zerr_kind kind, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static int vset(zerr *err, zerr_kind kind, const char *fmt, va_list ap) {
  err->kind = kind;
  err->http_status = 0;
  err->retryable = false;
  return vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

int zerr_set(zerr *err, zerr_kind kind, const char *fmt, ...) {
  if (!err) return -1;
  va_list ap;
  va_start(ap, fmt);
  vset(err, kind, fmt, ap);
  va_end(ap);
  zredact_inplace(err->msg, sizeof err->msg); /* every message may be printed */
  return -1;
}

int zerr_errno(zerr *err, zerr_kind kind, const char *fmt, ...) {
  int saved = errno;
  if (!err) return -1;
  va_list ap;
  va_start(ap, fmt);
  int n = vset(err, kind, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof err->msg)
    snprintf(err->msg + n, sizeof err->msg - (size_t)n, ": %s", strerror(saved));
  zredact_inplace(err->msg, sizeof err->msg);
  errno = saved;
  return -1;
}

void zerr_prefix(zerr *err, const char *fmt, ...) {
  if (!err) return;
  char prefix[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  char old[sizeof err->msg];
  memcpy(old, err->msg, sizeof old);
  snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
  zredact_inplace(err->msg, sizeof err->msg);
}

void zerr_clear(zerr *err) {
  if (!err) return;
  err->kind = ZE_OK;
  err->http_status = 0;
  err->retryable = false;
  err->msg[0] = '\0';
}

const char *zerr_kind_name(zerr_kind kind) {
  switch (kind) {
    case ZE_OK: return "ok";
    case ZE_INTERNAL: return "internal";
    case ZE_USAGE: return "usage";
    case ZE_CONFIG: return "config";
    case ZE_PROVIDER: return "provider";
    case ZE_IO: return "io";
    case ZE_NOT_FOUND: return "not_found";
    case ZE_INVALID: return "invalid";
    case ZE_CANCELLED: return "cancelled";
    case ZE_TIMEOUT: return "timeout";
    case ZE_TOO_LARGE: return "too_large";
  }
  return "unknown";
}
