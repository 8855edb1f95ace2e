/* provider.c — picks the wire protocol for a provider kind, and wraps the
 * provider in the think-tag filter when the model family needs it; see
 * provider.h. */
#include "provider/provider.h"

#include <string.h>

#include "base/common.h"
#include "provider/think.h"

const char *zprovider_wire_for(const zprov_opts *opts) {
  const char *kind = opts ? opts->kind : NULL;
  if (!kind) return NULL;
  const char *wire = opts->wire_api && *opts->wire_api ? opts->wire_api : NULL;
  if (!strcmp(kind, "openai") || !strcmp(kind, "openai-compatible")) {
    /* Official OpenAI defaults to the Responses API; gateways and local
     * servers mostly speak only Chat Completions. */
    if (wire) return !strcmp(wire, "responses") ? "openai-responses" : "openai-chat";
    return !strcmp(kind, "openai") ? "openai-responses" : "openai-chat";
  }
  if (!strcmp(kind, "anthropic") || !strcmp(kind, "anthropic-compatible")) return "anthropic";
  if (!strcmp(kind, "google")) return "gemini";
  return NULL;
}

/* ---- the think-tag wrapper ---------------------------------------------- */

typedef struct think_provider {
  zprovider base;
  zprovider *inner;
} think_provider;

static int think_stream(zprovider *base, const zprov_request *req, zprov_event_fn fn, void *ud,
                        zerr *err) {
  think_provider *t = (think_provider *)base;
  zthink_filter f;
  zthink_init(&f, fn, ud);
  int rc = zprovider_stream(t->inner, req, zthink_on_event, &f, err);
  /* On failure the held bytes are still the model's words: show them. */
  if (rc < 0) zthink_flush(&f);
  zthink_release(&f);
  return rc;
}

static void think_destroy(zprovider *base) {
  think_provider *t = (think_provider *)base;
  zprovider_free(t->inner);
  free(t);
}

static const zprovider_vtbl think_vtbl = {
    .wire = "think-tags",
    .stream = think_stream,
    .destroy = think_destroy,
};

zprovider *zprovider_new(const zprov_opts *opts, zerr *err) {
  const char *name = opts && opts->name && *opts->name ? opts->name : "(unnamed)";
  const char *kind = opts ? opts->kind : NULL;
  if (!kind || !*kind) {
    zerr_set(err, ZE_CONFIG,
             "provider \"%s\" has no kind: set \"provider_kind\" in its profile to openai, "
             "openai-compatible, anthropic, anthropic-compatible or google", name);
    return NULL;
  }
  if (opts->wire_api && *opts->wire_api && strcmp(opts->wire_api, "chat") != 0 &&
      strcmp(opts->wire_api, "responses") != 0) {
    zerr_set(err, ZE_CONFIG,
             "provider \"%s\" has wireApi \"%s\": use \"chat\" (Chat Completions) or "
             "\"responses\" (Responses API)", name, opts->wire_api);
    return NULL;
  }
  const char *wire = zprovider_wire_for(opts);
  zprovider *p = NULL;
  if (!wire) {
    zerr_set(err, ZE_CONFIG,
             "provider \"%s\" has unknown kind \"%s\": use openai, openai-compatible (any "
             "server speaking the OpenAI API: Ollama, LM Studio, llama.cpp, vLLM, gateways), "
             "anthropic, anthropic-compatible or google", name, kind);
    return NULL;
  }
  if (!strcmp(wire, "openai-chat")) p = zprovider_openai_chat_new(opts, err);
  else if (!strcmp(wire, "openai-responses")) p = zprovider_openai_responses_new(opts, err);
  else if (!strcmp(wire, "anthropic")) p = zprovider_anthropic_new(opts, err);
  else p = zprovider_gemini_new(opts, err);
  if (!p) return NULL;
  bool think = opts->parse_think_tags > 0 ||
               (opts->parse_think_tags == 0 && zthink_model_default(opts->model));
  if (!think) return p;
  think_provider *t = xcalloc(1, sizeof *t);
  t->base.vt = &think_vtbl;
  t->base.opts = p->opts;
  t->inner = p;
  return &t->base;
}

void zprovider_set_cache_key(zprovider *p, const char *key) {
  if (!p) return;
  p->opts.cache_key = key;
  if (p->vt == &think_vtbl) zprovider_set_cache_key(((think_provider *)p)->inner, key);
}

void zprovider_free(zprovider *p) {
  if (p && p->vt && p->vt->destroy) p->vt->destroy(p);
}
