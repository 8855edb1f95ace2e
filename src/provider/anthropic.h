/* anthropic.h — the Anthropic Messages API (POST {base}/v1/messages,
 * headers x-api-key and anthropic-version: 2023-06-01): request renderer and
 * stream parser, drivable without HTTP.
 *
 * Stream events (SSE "event:" names, the data carries the same "type"):
 *   message_start           usage.input_tokens / cache_read_input_tokens /
 *                           cache_creation_input_tokens
 *   content_block_start     text; tool_use{id,name} → ZPEV_TOOL_START;
 *                           thinking; redacted_thinking{data}
 *   content_block_delta     text_delta → TEXT; input_json_delta → TOOL_ARGS;
 *                           thinking_delta → REASONING; signature_delta (kept)
 *   content_block_stop      a thinking block → ZPEV_THINKING (text + signature)
 *   message_delta           stop_reason (end_turn→stop, tool_use→tool_calls,
 *                           max_tokens→length), usage.output_tokens
 *   message_stop            end of turn
 *   ping                    ignored (a keep-alive)
 *   error                   ZE_PROVIDER quoting error.message; overloaded_error,
 *                           api_error and rate_limit_error retry before output
 * Usage: prompt = input + cache read + cache creation tokens; cached = cache read.
 *
 * Thinking (opts->thinking, from the model registry; zanth_thinking_plan):
 *   budget       "thinking": {"type": "enabled", "budget_tokens": N} when an
 *                effort is set (N = zanth_thinking_budget), max_tokens raised
 *                above N; nothing otherwise
 *   adaptive     "thinking": {"type": "adaptive", "display": "summarized"},
 *                "output_config": {"effort": E} when an effort is set
 *   adaptive-on  the same, and the thinking object even without an effort
 *                (the model thinks anyway; "summarized" makes its text show)
 * Whenever thinking is on, the signed thinking / redacted_thinking blocks of
 * earlier assistant turns go back first in those turns, unmodified: the API
 * refuses a tool loop whose thinking was dropped or altered.
 */
#ifndef ZERO_PROVIDER_ANTHROPIC_H
#define ZERO_PROVIDER_ANTHROPIC_H

#include <jansson.h>

#include "base/buf.h"
#include "provider/turn.h"

typedef struct zanth_block {
  int index;
  int type;       /* 0 text, 1 tool_use, 2 thinking, 3 redacted_thinking, 4 other */
  zbuf thinking;  /* thinking text */
  zbuf signature; /* signature, or redacted data */
  bool closed;
} zanth_block;

typedef struct zanth_parser {
  zturn turn;
  zanth_block *blocks;
  size_t nblocks, cap;
  int64_t input_tokens, cache_read, cache_write, output_tokens;
  size_t events;
} zanth_parser;

void zanth_parser_init(zanth_parser *p, const char *provider_name, zprov_event_fn fn, void *ud);
void zanth_parser_reset(zanth_parser *p);
/* One SSE event's data (the type is read from the data). */
int zanth_parser_feed(zanth_parser *p, const char *data, size_t len, zerr *err);
int zanth_parser_finish(zanth_parser *p, zerr *err);
void zanth_parser_release(zanth_parser *p);

/* Thinking budget for a reasoning effort: minimal 1024, low 4096, medium
 * 10000, high 24000, xhigh 32000, max 48000; 0 for NULL / none / unknown
 * (thinking off). */
int zanth_thinking_budget(const char *effort);

/* What one request asks of thinking. */
typedef struct zanth_thinking {
  int budget;         /* budget_tokens, 0 = no budget-style thinking */
  bool adaptive;      /* send thinking {type: adaptive, display: summarized} */
  const char *effort; /* output_config.effort (static), NULL = the model's default */
  bool replay;        /* send earlier turns' signed thinking blocks back */
} zanth_thinking;

/* The plan for opts (thinking style + reasoning effort). */
void zanth_thinking_plan(const zprov_opts *opts, zanth_thinking *out);

/* output_config.effort for a zero effort name: minimal → low (the API has
 * no minimal), none / NULL → NULL (no effort sent), others as they are. */
const char *zanth_adaptive_effort(const char *effort);

/* The request body; new reference. max_tokens: the request's, else
 * opts->max_output_tokens, else 8192, raised above the thinking budget. */
json_t *zanth_render(const zprov_opts *opts, const zprov_request *req);
char *zanth_url(const char *base_url);

#endif
