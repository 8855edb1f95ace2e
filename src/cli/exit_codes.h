/* exit_codes.h — the one exit-code map of every face (zero exec, the
 * terminal UI, every other command): Go zero's documented codes, and the
 * one mapping from an error's kind to a code. docs/cli.md has the table. */
#ifndef ZERO_CLI_EXIT_CODES_H
#define ZERO_CLI_EXIT_CODES_H

#include "base/err.h"

enum {
  ZEXIT_SUCCESS = 0,
  ZEXIT_INTERNAL = 1,     /* a bug, an I/O failure, output that could not be written */
  ZEXIT_USAGE = 2,        /* bad flags or arguments, malformed config, unknown session */
  ZEXIT_PROVIDER = 3,     /* provider or configuration error */
  ZEXIT_INCOMPLETE = 4,   /* maxTurns reached / work unfinished */
  ZEXIT_INTERRUPTED = 130, /* cancelled by SIGINT / SIGTERM (128 + SIGINT, as Go zero) */
};

/* The exit code for a failure of `kind`: usage 2; config, provider and
 * timeout 3; cancelled 130; anything else (internal, I/O, not found,
 * invalid data, too large) 1. Commands whose failures have a more specific
 * meaning decide before calling this (a run's unfinished work is 4). */
int zexit_for_error(zerr_kind kind);

/* zexit_for_error, except that kinds it would map to ZEXIT_INTERNAL give
 * `other` (e.g. ZEXIT_PROVIDER where every other failure is the server's). */
int zexit_for_error_or(zerr_kind kind, int other);

/* The part of a run a failure came from, where Go zero's error codes name
 * it. ZORIGIN_GUARDRAIL is the loop's repeated-failure halt. */
typedef enum zexit_origin {
  ZORIGIN_RUN,       /* the provider, the session, anything else */
  ZORIGIN_SANDBOX,   /* the sandbox could not be set up */
  ZORIGIN_MCP,       /* the MCP servers could not be set up */
  ZORIGIN_GUARDRAIL, /* the run was halted by a guardrail */
  ZORIGIN_GATE,      /* the completion gate's nudges were spent with work open */
} zexit_origin;

/* The error code (Go zero's) of a failure ending a run with exit_code, for
 * stream-json / json `error` events in every face: exit 2 usage_error,
 * exit 4 max_turns (incomplete when ZORIGIN_GATE), exit 130 interrupted;
 * otherwise by origin sandbox_error,
 * mcp_error, guardrail_halt; else exit 3 provider_error and anything else
 * internal_error. docs/stream-json.md has the table. */
const char *zexit_error_code(int exit_code, zexit_origin origin);

/* The run_end status for exit_code: success, incomplete (4), interrupted
 * (130) or error. */
const char *zexit_status_name(int exit_code);

#endif
