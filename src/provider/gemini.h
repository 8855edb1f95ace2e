/* gemini.h — the Google Gemini API ({base}/v1beta/models/{model}:
 * streamGenerateContent?alt=sse, header x-goog-api-key): request renderer
 * and stream parser, drivable without HTTP.
 *
 * Each SSE event is a whole GenerateContentResponse. Of its first candidate:
 *   parts[].text                         → ZPEV_TEXT (ZPEV_REASONING when thought:true)
 *   parts[].functionCall{name,args,id?}  → a whole call: TOOL_START + one TOOL_ARGS;
 *                                          the part's thoughtSignature stays with it
 *                                          (ZPEV_TOOL_END.signature)
 *   finishReason                         → end of turn (STOP → stop / tool_calls,
 *                                          MAX_TOKENS → length, others lowercased)
 * usageMetadata: prompt = promptTokenCount, cached = cachedContentTokenCount,
 * completion = candidatesTokenCount + thoughtsTokenCount, reasoning =
 * thoughtsTokenCount. {"error":{code,message,status}} fails (retryable
 * before output for 429 / 500 / 503 / 504 codes).
 */
#ifndef ZERO_PROVIDER_GEMINI_H
#define ZERO_PROVIDER_GEMINI_H

#include <jansson.h>

#include "provider/turn.h"

typedef struct zgem_parser {
  zturn turn;
  size_t events;
} zgem_parser;

void zgem_parser_init(zgem_parser *p, const char *provider_name, zprov_event_fn fn, void *ud);
int zgem_parser_feed(zgem_parser *p, const char *data, size_t len, zerr *err);
/* A whole (non-streamed) response or an array of them. */
int zgem_parser_feed_json(zgem_parser *p, const json_t *v, zerr *err);
int zgem_parser_finish(zgem_parser *p, zerr *err);
void zgem_parser_release(zgem_parser *p);

json_t *zgem_render(const zprov_opts *opts, const zprov_request *req);
/* The streaming URL for a model; caller frees. */
char *zgem_url(const char *base_url, const char *model);
/* A JSON schema reduced to what Gemini's function declarations accept
 * (drops additionalProperties, $schema, $id; leaves out properties that are
 * free-form objects — type object without properties, or arrays of them —
 * which Gemini refuses, and "required" names no longer declared); new
 * reference. A function whose parameters are such an object gets no
 * "parameters" at all. */
json_t *zgem_schema(const json_t *schema);

#endif
