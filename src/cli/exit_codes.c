/* exit_codes.c — error kind → exit code; see exit_codes.h. */
#include "cli/exit_codes.h"

int zexit_for_error(zerr_kind kind) {
  switch (kind) {
    case ZE_OK: return ZEXIT_SUCCESS;
    case ZE_USAGE: return ZEXIT_USAGE;
    case ZE_CONFIG:
    case ZE_PROVIDER:
    case ZE_TIMEOUT: return ZEXIT_PROVIDER;
    case ZE_CANCELLED: return ZEXIT_INTERRUPTED;
    case ZE_INTERNAL:
    case ZE_IO:
    case ZE_NOT_FOUND:
    case ZE_INVALID:
    case ZE_TOO_LARGE:
    default: return ZEXIT_INTERNAL;
  }
}

int zexit_for_error_or(zerr_kind kind, int other) {
  int code = zexit_for_error(kind);
  return code == ZEXIT_INTERNAL ? other : code;
}
