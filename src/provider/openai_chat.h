/* openai_chat.h — the pieces of the OpenAI Chat Completions provider that
 * tests drive without HTTP: the request renderer and the stream parser.
 *
 * The parser consumes the data of each SSE event ("data: {chunk}" already
 * unframed by net/sse) and turns chat.completion.chunk objects into provider
 * events:
 *   choices[0].delta.content (and .refusal)         → ZPEV_TEXT
 *   delta.reasoning_content / delta.reasoning       → ZPEV_REASONING
 *   delta.tool_calls[] by index: a new index        → ZPEV_TOOL_START,
 *                     each arguments fragment       → ZPEV_TOOL_ARGS
 *   usage (latest seen)                             → ZPEV_USAGE   } at the
 *   every call, in index order                      → ZPEV_TOOL_END} end, in
 *   end of turn                                     → ZPEV_DONE    } this order:
 *                                                     TOOL_END…, USAGE, DONE
 * "[DONE]" ends the stream; a finish_reason followed by end of stream is also
 * complete (llama.cpp and Ollama omit [DONE]). An {"error":{…}} object in the
 * stream fails with ZE_PROVIDER quoting its message.
 */
#ifndef ZERO_PROVIDER_OPENAI_CHAT_H
#define ZERO_PROVIDER_OPENAI_CHAT_H

#include <jansson.h>
#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "provider/provider.h"
#include "provider/turn.h"
#include "provider/wirejson.h"

/* The turn state (calls, usage, finish reason, what was emitted, fast-path
 * counters) is the shared zturn, first so that wire.c's default ops read it;
 * turn.complete is set by [DONE] or a finish_reason. */
typedef struct zoai_chat_parser {
  zturn turn;
  int last_index; /* index of the latest fragment (servers that omit it) */
  bool saw_done;  /* "data: [DONE]" arrived: later data is ignored */
  size_t chunks;  /* chunk objects parsed */
} zoai_chat_parser;

void zoai_chat_parser_init(zoai_chat_parser *p, const char *provider_name, zprov_event_fn fn,
                           void *ud);
/* Parses one SSE event's data (len bytes). The frequent chunks (text /
 * reasoning deltas, argument fragments of a call already started) go through
 * a scanner that builds no JSON tree (provider/jscan.h); anything else, or
 * anything it is unsure of, goes through jansson, with the identical event
 * sequence either way. Returns 0; -1 with err set on an
 * in-stream error object (ZE_PROVIDER), malformed JSON (ZE_PROVIDER, names
 * the provider) or when fn returns nonzero (ZE_CANCELLED). Data after [DONE]
 * is ignored. */
int zoai_chat_parser_feed(zoai_chat_parser *p, const char *data, size_t len, zerr *err);
/* Parses a whole non-streamed chat.completion object (a server that ignored
 * "stream": true) into the same event sequence, ending with ZPEV_DONE. */
int zoai_chat_parser_feed_completion(zoai_chat_parser *p, const json_t *completion,
                                     zerr *err);
/* true when the stream can end here without being truncated: [DONE] was
 * seen, or a finish_reason was. */
bool zoai_chat_parser_complete(const zoai_chat_parser *p);
/* End of stream: emits TOOL_END for each call, USAGE, DONE. When the stream
 * is not complete, fails with ZE_PROVIDER "the stream from <provider> ended
 * early …" instead, retryable only when nothing was emitted yet. */
int zoai_chat_parser_finish(zoai_chat_parser *p, zerr *err);
void zoai_chat_parser_release(zoai_chat_parser *p);

/* Renders the JSON request body for opts + req; new reference. */
json_t *zoai_chat_render(const zprov_opts *opts, const zprov_request *req);
/* Appends to b the same bytes as the compact dump of zoai_chat_render,
 * written directly; rendered messages are cached on the messages and rendered
 * tool schemas in tools_cache (see provider/wirejson.h). */
void zoai_chat_render_text(const zprov_opts *opts, const zprov_request *req,
                           zjw_tools *tools_cache, zbuf *b);

/* "<base_url>/chat/completions" (one slash between); caller frees. */
char *zoai_chat_url(const char *base_url);

#endif
