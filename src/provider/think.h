/* think.h — <think>…</think> in streamed text becomes reasoning.
 *
 * Reasoning models served through plain chat APIs (deepseek-r1, qwq, qwen3,
 * gpt-oss on llama.cpp / Ollama / vLLM, …) put their thoughts inline in the
 * answer text between <think> and </think>. The filter sits between a
 * provider and its consumer: TEXT events are scanned, the part inside the
 * tags goes out as REASONING, the rest as TEXT. A tag may be split across
 * any number of chunks: a trailing piece that could start a tag is held back
 * until the next chunk decides it. Held text is flushed before any non-text
 * event (tool calls, usage, done) and by zthink_flush (error paths).
 * Newlines right after </think> are dropped (models put a blank line there).
 */
#ifndef ZERO_PROVIDER_THINK_H
#define ZERO_PROVIDER_THINK_H

#include <stdbool.h>

#include "base/buf.h"
#include "provider/provider.h"

typedef struct zthink_filter {
  zprov_event_fn fn; /* the consumer */
  void *ud;
  bool in_think;
  bool after_close;  /* skipping newlines after </think> */
  zbuf held;         /* bytes that may begin a tag */
} zthink_filter;

void zthink_init(zthink_filter *f, zprov_event_fn fn, void *ud);
/* The zprov_event_fn to hand to the provider (ud = the filter). */
int zthink_on_event(void *filter, const zprov_event *ev);
/* Emits held bytes as they are (end of stream / error). Returns fn's verdict. */
int zthink_flush(zthink_filter *f);
void zthink_release(zthink_filter *f);

/* true when model names a family that emits inline think tags. */
bool zthink_model_default(const char *model);

#endif
