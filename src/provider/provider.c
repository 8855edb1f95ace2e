/* provider.c — picks the wire protocol for a provider kind; see provider.h. */
#include "provider/provider.h"

#include <string.h>

/* Kinds the config layer knows about but this build cannot talk to yet. */
static const char *const planned_kinds[] = {"anthropic", "openai-responses", "gemini", NULL};

zprovider *zprovider_new(const zprov_opts *opts, zerr *err) {
  const char *name = opts && opts->name && *opts->name ? opts->name : "(unnamed)";
  const char *kind = opts ? opts->kind : NULL;
  if (!kind || !*kind) {
    zerr_set(err, ZE_CONFIG,
             "provider \"%s\" has no kind: set \"provider_kind\" in its profile to openai or "
             "openai-compatible", name);
    return NULL;
  }
  if (strcmp(kind, "openai") == 0 || strcmp(kind, "openai-compatible") == 0)
    return zprovider_openai_chat_new(opts, err);
  for (size_t i = 0; planned_kinds[i]; i++) {
    if (strcmp(kind, planned_kinds[i]) == 0) {
      zerr_set(err, ZE_CONFIG,
               "provider \"%s\" is of kind \"%s\", which this build of zero does not support "
               "yet: use a profile of kind openai or openai-compatible", name, kind);
      return NULL;
    }
  }
  zerr_set(err, ZE_CONFIG,
           "provider \"%s\" has unknown kind \"%s\": use openai or openai-compatible (any "
           "server speaking the OpenAI Chat Completions API: Ollama, LM Studio, llama.cpp, vLLM)",
           name, kind);
  return NULL;
}

void zprovider_free(zprovider *p) {
  if (p && p->vt && p->vt->destroy) p->vt->destroy(p);
}
