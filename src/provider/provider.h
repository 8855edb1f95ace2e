/* provider.h — the model provider interface.
 *
 * A provider turns a request (system prompt + structured conversation + tool
 * schemas) into one streamed model turn, reported as normalized events. It
 * knows nothing about tools beyond their schemas, nor about sessions or UI.
 * One implementation per wire protocol (openai_chat.c first).
 */
#ifndef ZERO_PROVIDER_PROVIDER_H
#define ZERO_PROVIDER_PROVIDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "provider/message.h"

typedef struct zusage {
  int64_t prompt_tokens;
  int64_t completion_tokens;
  int64_t total_tokens;
  int64_t cached_tokens;    /* prompt tokens served from cache; 0 if unknown */
  int64_t reasoning_tokens; /* 0 if unknown */
} zusage;

typedef enum zprov_event_kind {
  ZPEV_TEXT,        /* text / len: visible answer delta */
  ZPEV_REASONING,   /* text / len: reasoning delta */
  ZPEV_TOOL_START,  /* index, id, name: a tool call begins */
  ZPEV_TOOL_ARGS,   /* index, text / len: argument JSON fragment */
  ZPEV_TOOL_END,    /* index, id, name, arguments: the whole call */
  ZPEV_USAGE,       /* usage */
  ZPEV_RETRY,       /* attempt, delay_ms, text: about to retry after a failure */
  ZPEV_DONE,        /* finish_reason: the turn ended normally */
  ZPEV_THINKING,    /* a finished thinking block to replay in later requests
                     * (Anthropic): text / len = thinking text, signature;
                     * redacted blocks: name = "redacted", signature = data */
} zprov_event_kind;

typedef struct zprov_event {
  zprov_event_kind kind;
  const char *text;
  size_t len;
  int index;
  const char *id;
  const char *name;
  const char *arguments;
  zusage usage;
  const char *finish_reason; /* "stop", "tool_calls", "length", … */
  int attempt;               /* RETRY: the attempt about to start (2, 3, …) */
  int64_t delay_ms;          /* RETRY: wait before it */
  const char *signature;     /* TOOL_END: opaque thought signature to send back
                              * with the call (Gemini); THINKING: see above */
} zprov_event;

/* Receives events in stream order; return nonzero to abort the stream (the
 * provider then fails with ZE_CANCELLED). Pointers live only for the call. */
typedef int (*zprov_event_fn)(void *ud, const zprov_event *ev);

typedef struct zprov_request {
  const char *system;    /* system prompt, may be NULL */
  const zconv *conv;     /* the conversation so far */
  const json_t *tools;   /* borrowed array of {name, description, parameters}; may be NULL */
  int max_output_tokens; /* 0 = provider default */
} zprov_request;

/* Everything a provider needs to reach its endpoint, already resolved from
 * config and environment (see config/config.h). Strings are owned by the
 * caller and must outlive the provider. */
/* How a model on the Anthropic Messages API is asked to think (the
 * registry's zmodel_thinking, config/models.h, which says which model takes
 * which; the wire shapes are in anthropic.h). BUDGET, the zero value, is
 * what every Anthropic-compatible server took first. */
typedef enum zprov_thinking {
  ZPT_BUDGET = 0,  /* thinking.type enabled + budget_tokens, when an effort is set */
  ZPT_NONE,        /* no thinking control */
  ZPT_ADAPTIVE,    /* thinking.type adaptive + output_config.effort, when set */
  ZPT_ADAPTIVE_ON, /* adaptive; the model thinks even when not asked to */
} zprov_thinking;

typedef struct zprov_opts {
  const char *name;       /* profile name, for messages ("openai", "ollama") */
  const char *kind;       /* "openai", "openai-compatible", … */
  const char *base_url;   /* e.g. https://api.openai.com/v1 */
  const char *api_key;    /* may be NULL / "" for keyless local servers */
  const char *api_key_env;/* variable the key came from, for error messages */
  const char *model;
  const json_t *headers;  /* extra headers object {name: value}, may be NULL */
  int max_retries;        /* 0 = default (4) */
  long idle_timeout_ms;   /* 0 = default (300000) */
  long connect_timeout_ms;/* 0 = default (30000) */
  const char *wire_api;   /* "chat" | "responses" forces the OpenAI wire protocol;
                           * NULL = responses for kind openai, chat otherwise */
  const char *reasoning_effort; /* none|minimal|low|medium|high|xhigh|max, NULL = the
                                 * provider's default; the model's levels are checked
                                 * before (cli/provider_opts.c) */
  const char *cache_key;  /* prompt cache key (the session id); official OpenAI only */
  int parse_think_tags;   /* <think>…</think> in text becomes reasoning:
                           * 1 on, -1 off, 0 by model family (deepseek-r1, qwq, …) */
  int max_output_tokens;  /* default for requests that set none; 0 = registry / protocol */
  zprov_thinking thinking; /* Anthropic Messages: how the model is asked to think */
  /* An OAuth login (a profile's "auth": "oauth:<name>") instead of an API
   * key: api_key is its access token, sent as "Authorization: Bearer"
   * whatever the wire protocol. A 401 asks renew_key once for a fresh one
   * (*key malloc'd; the provider keeps it) and retries; a second 401, or a
   * renewal that fails, ends with a message naming `zero auth login
   * <name>`. renew_key NULL: never renewed. */
  const char *oauth_login;
  int (*renew_key)(const char *login, char **key, zerr *err);
} zprov_opts;

typedef struct zprovider zprovider;

typedef struct zprovider_vtbl {
  const char *wire; /* "openai-chat", "openai-responses", "anthropic", "gemini" */
  /* Streams one model turn. Returns 0 after ZPEV_DONE, -1 with err set:
   * ZE_PROVIDER (http_status set when the server answered; message names the
   * provider and says what to do), ZE_CANCELLED, ZE_TIMEOUT. Retries that
   * succeed are invisible except for ZPEV_RETRY events. */
  int (*stream)(zprovider *p, const zprov_request *req, zprov_event_fn fn, void *ud,
                zerr *err);
  void (*destroy)(zprovider *p);
} zprovider_vtbl;

struct zprovider {
  const zprovider_vtbl *vt;
  zprov_opts opts;
};

/* Creates the provider for opts->kind (and wire API). NULL + err on an
 * unknown kind. */
zprovider *zprovider_new(const zprov_opts *opts, zerr *err);
static inline int zprovider_stream(zprovider *p, const zprov_request *req, zprov_event_fn fn,
                                   void *ud, zerr *err) {
  return p->vt->stream(p, req, fn, ud, err);
}
void zprovider_free(zprovider *p);
/* Sets the prompt cache key (borrowed; must outlive p) after creation, when
 * the session id is known. */
void zprovider_set_cache_key(zprovider *p, const char *key);

/* The implementations, one per wire protocol. */
zprovider *zprovider_openai_chat_new(const zprov_opts *opts, zerr *err);
zprovider *zprovider_openai_responses_new(const zprov_opts *opts, zerr *err);
zprovider *zprovider_anthropic_new(const zprov_opts *opts, zerr *err);
zprovider *zprovider_gemini_new(const zprov_opts *opts, zerr *err);

/* The wire protocol zprovider_new picks for opts: "openai-chat",
 * "openai-responses", "anthropic", "gemini"; NULL for an unknown kind. */
const char *zprovider_wire_for(const zprov_opts *opts);

#endif
