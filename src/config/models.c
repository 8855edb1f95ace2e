/* models.c — the compiled model registry and its overrides; see models.h.
 *
 * Figures are the vendors' published list prices and limits for standard
 * (non-batch) use; long-context surcharges are not modelled.
 */
#include "config/models.h"

#include <string.h>

#include "base/common.h"
#include "base/json.h"

typedef struct entry {
  const char *id, *provider;
  int64_t ctx, out;
  bool tools, images;
  const char *efforts;
  double in, cached, outp;
} entry;

#define ALL "minimal,low,medium,high"
#define LMH "low,medium,high"

static const entry registry[] = {
    /* Newest first within each vendor. OpenAI */
    {"gpt-5.1", "openai", 400000, 128000, true, true, LMH, 1.25, 0.125, 10.00},
    {"gpt-5.1-codex", "openai", 400000, 128000, true, true, LMH, 1.25, 0.125, 10.00},
    {"gpt-5.1-codex-mini", "openai", 400000, 128000, true, true, LMH, 0.25, 0.025, 2.00},
    {"gpt-5-pro", "openai", 400000, 272000, true, true, "high", 15.00, 15.00, 120.00},
    {"gpt-5", "openai", 400000, 128000, true, true, ALL, 1.25, 0.125, 10.00},
    {"gpt-5-mini", "openai", 400000, 128000, true, true, ALL, 0.25, 0.025, 2.00},
    {"gpt-5-nano", "openai", 400000, 128000, true, true, ALL, 0.05, 0.005, 0.40},
    {"gpt-5-codex", "openai", 400000, 128000, true, true, LMH, 1.25, 0.125, 10.00},
    {"gpt-4.1", "openai", 1047576, 32768, true, true, "", 2.00, 0.50, 8.00},
    {"gpt-4.1-mini", "openai", 1047576, 32768, true, true, "", 0.40, 0.10, 1.60},
    {"gpt-4.1-nano", "openai", 1047576, 32768, true, true, "", 0.10, 0.025, 0.40},
    {"gpt-4o", "openai", 128000, 16384, true, true, "", 2.50, 1.25, 10.00},
    {"gpt-4o-mini", "openai", 128000, 16384, true, true, "", 0.15, 0.075, 0.60},
    {"o3", "openai", 200000, 100000, true, true, LMH, 2.00, 0.50, 8.00},
    {"o4-mini", "openai", 200000, 100000, true, true, LMH, 1.10, 0.275, 4.40},
    {"gpt-oss-120b", "openai", 131072, 32768, true, false, LMH, 0.15, 0.15, 0.60},
    {"gpt-oss-20b", "openai", 131072, 32768, true, false, LMH, 0.05, 0.05, 0.20},
    /* Anthropic (cached = cache read price) */
    {"claude-opus-4-5", "anthropic", 200000, 64000, true, true, ALL, 5.00, 0.50, 25.00},
    {"claude-haiku-4-5", "anthropic", 200000, 64000, true, true, ALL, 1.00, 0.10, 5.00},
    {"claude-sonnet-4-5", "anthropic", 200000, 64000, true, true, ALL, 3.00, 0.30, 15.00},
    {"claude-opus-4-1", "anthropic", 200000, 32000, true, true, ALL, 15.00, 1.50, 75.00},
    {"claude-opus-4", "anthropic", 200000, 32000, true, true, ALL, 15.00, 1.50, 75.00},
    {"claude-sonnet-4", "anthropic", 200000, 64000, true, true, ALL, 3.00, 0.30, 15.00},
    {"claude-3-7-sonnet", "anthropic", 200000, 64000, true, true, ALL, 3.00, 0.30, 15.00},
    {"claude-3-5-haiku", "anthropic", 200000, 8192, true, true, "", 0.80, 0.08, 4.00},
    /* Google */
    {"gemini-3-pro-preview", "google", 1048576, 65536, true, true, "low,high", 2.00, 0.20, 12.00},
    {"gemini-2.5-pro", "google", 1048576, 65536, true, true, ALL, 1.25, 0.31, 10.00},
    {"gemini-2.5-flash", "google", 1048576, 65536, true, true, ALL, 0.30, 0.075, 2.50},
    {"gemini-2.5-flash-lite", "google", 1048576, 65536, true, true, ALL, 0.10, 0.025, 0.40},
    {"gemini-2.0-flash", "google", 1048576, 8192, true, true, "", 0.10, 0.025, 0.40},
    /* DeepSeek (cached = cache hit price) */
    {"deepseek-chat", "deepseek", 128000, 8192, true, false, "", 0.27, 0.07, 1.10},
    {"deepseek-reasoner", "deepseek", 128000, 65536, true, false, "", 0.55, 0.14, 2.19},
    /* xAI */
    {"grok-4", "xai", 256000, 64000, true, true, "", 3.00, 0.75, 15.00},
    {"grok-code-fast-1", "xai", 256000, 10000, true, false, "", 0.20, 0.02, 1.50},
    /* Mistral */
    {"mistral-large-latest", "mistral", 128000, 8192, true, false, "", 2.00, 2.00, 6.00},
    {"devstral-medium-latest", "mistral", 128000, 8192, true, false, "", 0.40, 0.40, 2.00},
    {"codestral-latest", "mistral", 256000, 8192, true, false, "", 0.30, 0.30, 0.90},
    /* Groq / Together / Fireworks host open models: */
    {"llama-3.3-70b-versatile", "groq", 131072, 32768, true, false, "", 0.59, 0.59, 0.79},
    {"moonshotai/kimi-k2-instruct", "groq", 131072, 16384, true, false, "", 1.00, 0.50, 3.00},
    /* Open-weight models usually run locally (unpriced) */
    {"qwen3", "local", 40960, 8192, true, false, "", -1, -1, -1},
    {"qwen3-coder", "local", 262144, 65536, true, false, "", -1, -1, -1},
    {"deepseek-r1", "local", 131072, 32768, false, false, "", -1, -1, -1},
    {"qwq", "local", 131072, 32768, true, false, "", -1, -1, -1},
    {"llama3.2", "local", 131072, 8192, true, false, "", -1, -1, -1},
    {"llama3.1", "local", 131072, 8192, true, false, "", -1, -1, -1},
    {"gemma3", "local", 131072, 8192, false, true, "", -1, -1, -1},
    {"devstral", "local", 131072, 8192, true, false, "", -1, -1, -1},
};

static void from_entry(const entry *e, zmodel_info *out) {
  out->id = e->id;
  out->provider = e->provider;
  out->context_window = e->ctx;
  out->max_output = e->out;
  out->tools = e->tools;
  out->images = e->images;
  out->efforts = e->efforts;
  out->priced = e->in >= 0;
  out->input_price = e->in >= 0 ? e->in : 0;
  out->cached_price = e->cached >= 0 ? e->cached : 0;
  out->output_price = e->outp >= 0 ? e->outp : 0;
  out->known = true;
}

static void defaults(const char *model, zmodel_info *out) {
  memset(out, 0, sizeof *out);
  out->id = model ? model : "";
  out->provider = "unknown";
  out->context_window = ZMODEL_DEFAULT_CONTEXT;
  out->max_output = ZMODEL_DEFAULT_MAX_OUTPUT;
  out->tools = true;
  out->images = false;
  out->efforts = "";
}

/* Applies override fields from o. */
static void apply_override(const json_t *o, zmodel_info *out) {
  json_t *v;
  if ((v = json_object_get(o, "provider")) && json_is_string(v)) out->provider = json_string_value(v);
  if ((v = json_object_get(o, "contextWindow")) && json_is_integer(v))
    out->context_window = json_integer_value(v);
  if ((v = json_object_get(o, "maxOutputTokens")) && json_is_integer(v))
    out->max_output = json_integer_value(v);
  if ((v = json_object_get(o, "tools")) && json_is_boolean(v)) out->tools = json_is_true(v);
  if ((v = json_object_get(o, "images")) && json_is_boolean(v)) out->images = json_is_true(v);
  if ((v = json_object_get(o, "inputPrice")) && json_is_number(v)) {
    out->input_price = json_number_value(v);
    out->priced = true;
  }
  if ((v = json_object_get(o, "cachedInputPrice")) && json_is_number(v))
    out->cached_price = json_number_value(v);
  else if (json_object_get(o, "inputPrice") && !json_object_get(o, "cachedInputPrice"))
    out->cached_price = out->input_price;
  if ((v = json_object_get(o, "outputPrice")) && json_is_number(v)) {
    out->output_price = json_number_value(v);
    out->priced = true;
  }
  out->known = true;
}

/* The registry entry for name: exact, else the longest id prefixing it at a
 * separator ('-', '.', ':', '@'). */
static const entry *find_entry(const char *name, size_t len) {
  const entry *best = NULL;
  size_t best_len = 0;
  for (size_t i = 0; i < ZARRAY_LEN(registry); i++) {
    size_t n = strlen(registry[i].id);
    if (n > len || strncmp(registry[i].id, name, n) != 0) continue;
    if (n < len && !strchr("-.:@_", name[n])) continue;
    if (n > best_len) {
      best = &registry[i];
      best_len = n;
    }
  }
  return best;
}

void zmodel_lookup(const zconfig *cfg, const char *model, zmodel_info *out) {
  defaults(model, out);
  if (!model || !*model) return;
  json_t *ov = cfg && cfg->models ? json_object_get(cfg->models, model) : NULL;
  const char *name = model;
  const char *slash = strrchr(name, '/');
  const entry *e = find_entry(name, strlen(name));
  if (!e && slash) {
    name = slash + 1;
    e = find_entry(name, strlen(name));
  }
  if (e) from_entry(e, out);
  if (json_is_object(ov)) apply_override(ov, out);
}

static bool matches(const char *filter, const char *family) {
  if (!filter || !*filter) return true;
  const char *f = zmodel_family_for_kind(filter);
  if (!f) f = filter;
  return !strcmp(f, family);
}

void zmodel_each(const zconfig *cfg, const char *provider_filter,
                 void (*fn)(void *ud, const zmodel_info *m), void *ud) {
  for (size_t i = 0; i < ZARRAY_LEN(registry); i++) {
    zmodel_info m;
    zmodel_lookup(cfg, registry[i].id, &m);
    if (matches(provider_filter, m.provider)) fn(ud, &m);
  }
  if (!cfg || !cfg->models) return;
  const char *k;
  json_t *v;
  json_object_foreach(cfg->models, k, v) {
    if (find_entry(k, strlen(k)) && !strcmp(find_entry(k, strlen(k))->id, k)) continue;
    zmodel_info m;
    zmodel_lookup(cfg, k, &m);
    if (matches(provider_filter, m.provider)) fn(ud, &m);
  }
}

double zmodel_cost(const zmodel_info *m, int64_t prompt, int64_t cached, int64_t completion) {
  if (!m->priced) return 0;
  if (cached > prompt) cached = prompt;
  return ((double)(prompt - cached) * m->input_price + (double)cached * m->cached_price +
          (double)completion * m->output_price) / 1e6;
}

const char *zmodel_family_for_kind(const char *kind) {
  if (!kind) return NULL;
  if (!strcmp(kind, "openai")) return "openai";
  if (!strcmp(kind, "anthropic") || !strcmp(kind, "anthropic-compatible")) return "anthropic";
  if (!strcmp(kind, "google") || !strcmp(kind, "gemini")) return "google";
  return NULL;
}
