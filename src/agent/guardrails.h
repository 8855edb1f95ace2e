/* guardrails.h — stopping a run that loops instead of progressing.
 *
 * Two halts, in every face (exit 1, error code "guardrail_halt"):
 *   1. repeated failure: the same tool call (same name, same arguments as
 *      canonical JSON) failed ZGUARD_SAME_FAILURES times in this run, or
 *      max_consecutive tool calls in a row failed (default
 *      ZGUARD_CONSECUTIVE_FAILURES);
 *   2. a loop: ZGUARD_IDENTICAL_TURNS consecutive model turns asked for
 *      exactly the same tool calls with the same text.
 * A success of a call clears that call's count and the consecutive count.
 *
 * Life cycle: zguard_init, then zguard_note_result for every finished tool
 * call and zguard_note_turn for every model turn with tool calls,
 * zguard_release at the end.
 */
#ifndef ZERO_AGENT_GUARDRAILS_H
#define ZERO_AGENT_GUARDRAILS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "provider/message.h"

#define ZGUARD_SAME_FAILURES 3
#define ZGUARD_CONSECUTIVE_FAILURES 8
#define ZGUARD_IDENTICAL_TURNS 3
#define ZGUARD_TRACKED_CALLS 64 /* distinct failing calls remembered */

typedef struct zguard_failure {
  char *key; /* name NUL canonical arguments */
  size_t key_len;
  int count;
} zguard_failure;

typedef struct zguard {
  int max_consecutive; /* 0 = ZGUARD_CONSECUTIVE_FAILURES */
  int consecutive_failures;
  zguard_failure failures[ZGUARD_TRACKED_CALLS];
  size_t n_failures;
  size_t next_evict; /* round robin once the table is full */
  char *last_turn;   /* text NUL calls of the previous turn */
  size_t last_turn_len;
  int identical_turns;
} zguard;

void zguard_init(zguard *g);
void zguard_release(zguard *g);

/* Notes one finished call. true when the run must halt; why then holds the
 * message for the user (the error event's text). */
bool zguard_note_result(zguard *g, const char *name, const char *arguments, bool ok, zbuf *why);

/* Notes a model turn that asked for tools (m: the assistant message with its
 * calls). true when it is the ZGUARD_IDENTICAL_TURNS-th identical one in a
 * row; why then holds the message. */
bool zguard_note_turn(zguard *g, const zmsg *m, zbuf *why);

#endif
