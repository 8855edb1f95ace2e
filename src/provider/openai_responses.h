/* openai_responses.h — the OpenAI Responses API (POST {base}/responses,
 * "stream": true): request renderer and stream parser, drivable without HTTP.
 *
 * Stream events (each SSE data object carries its "type"):
 *   response.output_text.delta / response.refusal.delta       → ZPEV_TEXT
 *   response.reasoning_summary_text.delta,
 *   response.reasoning_text.delta                             → ZPEV_REASONING
 *   response.output_item.added {item.type: function_call}     → ZPEV_TOOL_START
 *   response.function_call_arguments.delta                    → ZPEV_TOOL_ARGS
 *   response.function_call_arguments.done,
 *   response.output_item.done                                 → whole arguments kept
 *   response.completed / response.incomplete                  → usage (input_tokens,
 *       cached input_tokens_details.cached_tokens, output_tokens, reasoning
 *       output_tokens_details.reasoning_tokens); incomplete → finish "length"
 *       (max_output_tokens) or its reason
 *   response.failed, error                                    → ZE_PROVIDER with the
 *       server's message (retryable before output for server_error /
 *       rate_limit_exceeded / overloaded codes)
 * Calls are matched by item id, falling back to output_index.
 */
#ifndef ZERO_PROVIDER_OPENAI_RESPONSES_H
#define ZERO_PROVIDER_OPENAI_RESPONSES_H

#include <jansson.h>

#include "provider/turn.h"
#include "provider/wirejson.h"

typedef struct zresp_parser {
  zturn turn;
  size_t events;  /* data objects parsed */
  bool text_seen; /* an output_text / refusal delta arrived in this attempt */
} zresp_parser;

void zresp_parser_init(zresp_parser *p, const char *provider_name, zprov_event_fn fn, void *ud);
/* One SSE event's data. 0, or -1 with err set. */
int zresp_parser_feed(zresp_parser *p, const char *data, size_t len, zerr *err);
int zresp_parser_finish(zresp_parser *p, zerr *err);
void zresp_parser_release(zresp_parser *p);

/* The request body; new reference. Official OpenAI (kind "openai") also
 * gets store:false, prompt_cache_key (opts->cache_key) and a reasoning
 * summary request. */
json_t *zresp_render(const zprov_opts *opts, const zprov_request *req);
/* Appends to b the same bytes as the compact dump of zresp_render, written
 * directly; rendered messages are cached on the messages and rendered tool
 * schemas in tools_cache (see provider/wirejson.h). */
void zresp_render_text(const zprov_opts *opts, const zprov_request *req,
                       zjw_tools *tools_cache, zbuf *b);
char *zresp_url(const char *base_url);

#endif
