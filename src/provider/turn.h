/* turn.h — the state every stream parser keeps for one model turn: tool
 * calls being assembled, usage, finish reason, and whether anything visible
 * went out (which decides whether a failure may be retried).
 *
 * The parsers of the Chat Completions, Responses, Anthropic Messages and
 * Gemini protocols are thin translators onto this; the closing sequence (TOOL_END for each call in
 * index order, USAGE, DONE) and the "ended early" error are written once here.
 */
#ifndef ZERO_PROVIDER_TURN_H
#define ZERO_PROVIDER_TURN_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "provider/provider.h"

typedef struct zturn_call {
  int index;       /* position in the answer */
  char *id;        /* owned */
  char *name;      /* owned */
  char *key;       /* owned protocol key (Responses item id), may be NULL */
  char *signature; /* owned thought signature, may be NULL */
  zbuf args;       /* arguments JSON */
  bool args_final; /* args were replaced by a whole copy (…done events) */
} zturn_call;

typedef struct zturn {
  const char *provider_name; /* borrowed */
  zprov_event_fn fn;
  void *ud;
  zturn_call *calls;
  size_t ncalls, cap;
  zusage usage;
  bool have_usage;
  char *finish_reason;  /* owned */
  bool emitted;         /* text / reasoning / tool event went out */
  bool complete;        /* the protocol's end-of-turn marker arrived */
  bool finished;        /* zturn_finish succeeded */
  bool slow_only;       /* parsers skip their fast path (tests compare both);
                         * kept across zturn_reset */
  zbuf scratch;         /* fast paths: decoded strings of the current event */
  size_t fast_hits;     /* events the fast path handled (tests, benchmarks) */
} zturn;

void zturn_init(zturn *t, const char *provider_name, zprov_event_fn fn, void *ud);
/* Forgets everything but name / fn / ud (a new attempt). */
void zturn_reset(zturn *t);
void zturn_release(zturn *t);

/* Sends ev to the consumer (-1 + ZE_CANCELLED when it asks to stop). */
int zturn_emit(zturn *t, const zprov_event *ev, zerr *err);
/* TEXT / REASONING delta; empty ones are skipped. */
int zturn_delta(zturn *t, zprov_event_kind kind, const char *s, size_t len, zerr *err);
/* A new call: emits TOOL_START. id NULL/"" = "call_<index>". */
zturn_call *zturn_start_call(zturn *t, int index, const char *id, const char *name,
                             const char *key, zerr *err);
zturn_call *zturn_find_index(zturn *t, int index);
zturn_call *zturn_find_key(zturn *t, const char *key);
/* An argument fragment: appended and emitted as TOOL_ARGS. */
int zturn_args(zturn *t, zturn_call *c, const char *frag, size_t len, zerr *err);
/* The whole arguments (a …done event): replaces what the fragments built
 * when they differ; emits nothing. */
void zturn_args_final(zturn_call *c, const char *args, size_t len);
void zturn_set_finish(zturn *t, const char *reason);
/* Sets a ZE_PROVIDER error "<provider> reported an error mid-answer (type):
 * message"; retryable when retryable_kind and nothing was emitted yet. */
int zturn_fail(zturn *t, const char *type, const char *message, bool retryable_kind, zerr *err);
/* End of stream: TOOL_END… (index order), USAGE, DONE (finish_reason, else
 * "tool_calls" with calls, else "stop"); or, when !complete, the "ended
 * early" error (retryable when nothing was emitted). */
int zturn_finish(zturn *t, zerr *err);
/* How zturn_close hands an event to its parser (zturn_emit's contract). */
typedef int (*zturn_emit_fn)(void *ud, const zprov_event *ev, zerr *err);
/* The closing sequence every parser ends a turn with, written once: sorts
 * the n TOOL_END events of ends by index (stable; calls may start in any
 * order) and emits them, then USAGE when usage is not NULL, then DONE with
 * finish_reason (NULL: "tool_calls" when n > 0, else "stop"). Stops at the
 * first emit that fails and returns -1; 0 when all went out. */
int zturn_close(zprov_event *ends, size_t n, const zusage *usage, const char *finish_reason,
                zturn_emit_fn emit, void *ud, zerr *err);
/* The error of a stream that closed before the answer was complete: ZE_PROVIDER
 * naming provider_name, retryable only when nothing was emitted yet (a retry
 * would repeat what the user saw). Returns -1. */
int zturn_ended_early(const char *provider_name, bool emitted, zerr *err);

/* The data of one stream event without the blanks (' ', '\n', '\r') around
 * it: moves *data past the leading ones and returns the length left. */
static inline size_t zturn_trim(const char **data, size_t len) {
  const char *d = *data;
  while (len && (d[len - 1] == ' ' || d[len - 1] == '\n' || d[len - 1] == '\r')) len--;
  while (len && (d[0] == ' ' || d[0] == '\n' || d[0] == '\r')) d++, len--;
  *data = d;
  return len;
}

/* The event's data parsed as a JSON object (caller decrefs), or NULL with a
 * ZE_PROVIDER error: "<provider> sent a stream event that is not a JSON
 * object (<why>); the endpoint may not speak <api>". */
json_t *zturn_event_object(const zturn *t, const char *data, size_t len, const char *api,
                           zerr *err);

#endif
