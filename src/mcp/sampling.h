/* sampling.h — a server's sampling/createMessage request (MCP 2025-06-18
 * "client/sampling") as zero reads and answers it: the request taken apart
 * into a provider conversation, the bounds it is held to, and the result.
 *
 * The flow that decides and runs it (the permission module's prompt, the
 * run's provider, the session event) is mcp/sampling_run.c; this part knows
 * nothing of runs (the JSON itself was parsed by jansson already).
 *
 * Bounds: maxTokens is capped at ZMCP_SAMPLING_MAX_TOKENS (a server cannot
 * make zero spend more on one answer); a server gets at most
 * ZMCP_SAMPLING_PER_MINUTE requests in any 60 s (zmcp_rate).
 * What zero does not offer: tools in sampling (no sampling.tools
 * capability), so a request with "tools" or tool_use / tool_result content
 * is refused; audio content (no provider here takes it). includeContext,
 * temperature, stopSequences, metadata and modelPreferences are hints:
 * zero answers with the user's own provider and model, whatever they name.
 */
#ifndef ZERO_MCP_SAMPLING_H
#define ZERO_MCP_SAMPLING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "provider/message.h"

#define ZMCP_SAMPLING_MAX_TOKENS 4096 /* ceiling on a request's maxTokens */
#define ZMCP_SAMPLING_PER_MINUTE 10   /* requests one server may make in any 60 s */
#define ZMCP_SAMPLING_PREVIEW 600     /* bytes of the messages a prompt shows */

/* JSON-RPC error code for a request the user (or the run's rules) refused:
 * the spec's "User rejected sampling request" example uses -1. */
#define ZMCP_SAMPLING_REJECTED (-1)

/* A request taken apart. The caller owns it: zmcp_sampling_req_release. */
typedef struct zmcp_sampling_req {
  char *system;     /* systemPrompt, or NULL */
  zconv conv;       /* the messages, in order */
  int max_tokens;   /* what is asked of the provider: maxTokens, capped */
  int asked_tokens; /* maxTokens as the server sent it (0 when absent) */
  json_t *hints;    /* modelPreferences.hints names, an array of strings (owned) */
} zmcp_sampling_req;

/* Reads params of a sampling/createMessage request into out. Returns 0, or
 * -1 with err (ZE_USAGE; the message is for the server and says what zero
 * takes) for a malformed request or one asking for what zero does not offer
 * (tools, audio). out is released on failure. */
int zmcp_sampling_parse(const json_t *params, zmcp_sampling_req *out, zerr *err);
void zmcp_sampling_req_release(zmcp_sampling_req *r);

/* What a permission prompt shows of the request: the system prompt and the
 * messages as "role: text" lines, cut at ZMCP_SAMPLING_PREVIEW bytes. */
void zmcp_sampling_preview(const zmcp_sampling_req *r, zbuf *out);

/* The spec's stopReason for a provider finish reason: "stop" → "endTurn",
 * "length" → "maxTokens", anything else as it came ("endTurn" when NULL). */
const char *zmcp_sampling_stop_reason(const char *finish_reason);

/* The CreateMessageResult: {role: "assistant", content: {type: "text",
 * text}, model, stopReason}. New reference. */
json_t *zmcp_sampling_result(const char *text, const char *model, const char *finish_reason);

/* A sliding-window limit: at most ZMCP_SAMPLING_PER_MINUTE takes in any
 * 60,000 ms. Zero-initialized is empty. */
typedef struct zmcp_rate {
  int64_t at[ZMCP_SAMPLING_PER_MINUTE]; /* times of the last takes, a ring */
  unsigned n;                           /* takes so far, saturating at the ring's size */
  unsigned next;                        /* the oldest take's slot once full */
} zmcp_rate;

/* true (and the take counted) when another request fits at now_ms
 * (monotonic); false when the window is full. */
bool zmcp_rate_take(zmcp_rate *r, int64_t now_ms);

#endif
