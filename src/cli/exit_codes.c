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

const char *zexit_error_code(int exit_code, zexit_origin origin) {
  switch (exit_code) {
    case ZEXIT_USAGE: return "usage_error";
    case ZEXIT_INCOMPLETE: return origin == ZORIGIN_GATE ? "incomplete" : "max_turns";
    case ZEXIT_INTERRUPTED: return "interrupted";
    default: break;
  }
  switch (origin) {
    case ZORIGIN_SANDBOX: return "sandbox_error";
    case ZORIGIN_MCP: return "mcp_error";
    case ZORIGIN_GUARDRAIL: return "guardrail_halt";
    case ZORIGIN_RUN:
    default: break;
  }
  return exit_code == ZEXIT_PROVIDER ? "provider_error" : "internal_error";
}

const char *zexit_status_name(int exit_code) {
  switch (exit_code) {
    case ZEXIT_SUCCESS: return "success";
    case ZEXIT_INCOMPLETE: return "incomplete";
    case ZEXIT_INTERRUPTED: return "interrupted";
    default: return "error";
  }
}
